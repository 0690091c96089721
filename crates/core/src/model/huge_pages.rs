//! The system allocator, with large blocks on huge pages.
//!
//! The view's matrices, the source's rows and the entity index are arrays of megabytes that
//! propagation and CRDT apply read at random. With 4 KiB pages each such read may also miss the
//! TLB (the processor's cache of page translations: a few thousand entries, under 12 MiB of
//! 4 KiB pages), and the page walk costs as much as the read. A 2 MiB page covers 512 times
//! as much. Linux is commonly set to give huge pages only where a program asks
//! (`transparent_hugepage` = `madvise`, as on the machine the README's figures come from), and
//! it can only use them for 2 MiB-aligned ranges not touched yet, so large blocks are mapped
//! here, aligned and advised before use. Measured with the benchmarks run alternately against
//! the plain system allocator: all locals changed 15–30% faster on one thread (wide, deep,
//! the 1,000,000-entity forest), building a view 15% faster; CRDT apply and loading unchanged
//! (README, Performance).
//!
//! Written here because the crates that do this replace the whole allocator (mimalloc,
//! jemalloc: a C build, and every small allocation behaves differently) or are small
//! single-author crates; glibc's own switch (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which
//! measured the same) is read from the environment at start, so a program cannot set it for
//! itself.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes are mapped on their own, on huge pages: a huge page is
/// 2 MiB, and smaller blocks are better served from the allocator's shared pages.
const LARGE: usize = 4 << 20;
/// The size and alignment of a huge page on x86_64 and aarch64 Linux.
const HUGE: usize = 2 << 20;

/// [`System`], except that blocks of 4 MiB or more get their own mapping, aligned to 2 MiB and
/// advised for huge pages before anything touches it (advice given later only applies to pages
/// not yet touched, and glibc's own mappings are neither aligned nor advised). Install it in a
/// binary with `#[global_allocator] static ALLOC: HugePageAlloc = HugePageAlloc;`. Elsewhere
/// than on Linux it is `System`.
pub struct HugePageAlloc;

/// Whether a block of this layout is mapped by [`HugePageAlloc`] itself.
fn is_large(layout: Layout) -> bool {
    cfg!(target_os = "linux") && layout.size() >= LARGE && layout.align() <= HUGE
}

#[cfg(target_os = "linux")]
mod os {
    use super::HUGE;

    /// Maps `size` bytes (rounded up to whole huge pages) at a 2 MiB boundary and advises
    /// huge pages; null when the system has no memory left.
    pub fn map(size: usize) -> *mut u8 {
        let len = size.next_multiple_of(HUGE);
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches
        // no existing memory; the unused head and tail are unmapped again, and only the
        // aligned middle, which this function returns, is advised.
        unsafe {
            let raw = libc::mmap(
                std::ptr::null_mut(),
                len + HUGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if raw == libc::MAP_FAILED {
                return std::ptr::null_mut();
            }
            let start = raw as usize;
            let aligned = start.next_multiple_of(HUGE);
            if aligned > start {
                libc::munmap(raw, aligned - start);
            }
            let tail = start + len + HUGE - (aligned + len);
            if tail > 0 {
                libc::munmap((aligned + len) as *mut libc::c_void, tail);
            }
            // A refusal (a kernel without transparent huge pages) leaves ordinary pages.
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            aligned as *mut u8
        }
    }

    /// Unmaps a block [`map`] returned for `size` bytes.
    pub fn unmap(ptr: *mut u8, size: usize) {
        // SAFETY: `ptr` and the rounded length are exactly the mapping `map` kept.
        unsafe {
            libc::munmap(ptr.cast(), size.next_multiple_of(HUGE));
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    pub fn map(_size: usize) -> *mut u8 {
        unreachable!("only Linux maps blocks itself")
    }
    pub fn unmap(_ptr: *mut u8, _size: usize) {
        unreachable!("only Linux maps blocks itself")
    }
}

// Small blocks are `System`'s, with the caller's arguments and results unchanged. Large blocks
// are fresh anonymous mappings (zeroed, aligned to 2 MiB, which satisfies any alignment
// `is_large` accepts), unmapped on dealloc with the same rounded length; a realloc across the
// two kinds copies the contents, as `GlobalAlloc::realloc`'s default does.
// SAFETY: so every block is valid for its layout until freed, and freed by its own kind.
unsafe impl GlobalAlloc for HugePageAlloc {
    // SAFETY: the caller upholds `GlobalAlloc`'s contract for this method.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout) {
            os::map(layout.size())
        } else {
            // SAFETY: forwarded as received; the caller upholds `alloc`'s contract.
            unsafe { System.alloc(layout) }
        }
    }

    // SAFETY: the caller upholds `GlobalAlloc`'s contract for this method.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout) {
            os::map(layout.size()) // anonymous mappings start zeroed
        } else {
            // SAFETY: as in `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    // SAFETY: the caller upholds `GlobalAlloc`'s contract for this method.
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(layout) {
            os::unmap(ptr, layout.size());
        } else {
            // SAFETY: `ptr` came from `System` for this layout (small blocks only go there).
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    // SAFETY: the caller upholds `GlobalAlloc`'s contract for this method.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` forms a valid layout with this alignment.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if !is_large(layout) && !is_large(new_layout) {
            // SAFETY: both sizes are System's: forwarded as received.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: a fresh block of the new layout, the old contents copied (as much as both
        // hold), then the old block freed through the path that allocated it.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_every_size_work_as_the_system_allocator_s() {
        // Small, at the threshold, and large enough to be advised, grown and shrunk.
        for size in [16, LARGE - 1, LARGE, 3 * LARGE + 12_345] {
            let layout = Layout::from_size_align(size, 64).unwrap();
            // SAFETY: a non-zero size; the block is used within its size and freed once.
            unsafe {
                let p = HugePageAlloc.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % 64, 0);
                if cfg!(target_os = "linux") && size >= LARGE {
                    assert_eq!(p as usize % HUGE, 0, "a large block starts on a huge page");
                }
                assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
                p.write_bytes(0xab, size);
                let grown = HugePageAlloc.realloc(p, layout, 2 * size);
                let kept = std::slice::from_raw_parts(grown, size);
                assert!(
                    kept.iter().all(|&b| b == 0xab),
                    "realloc keeps the contents"
                );
                let grown_layout = Layout::from_size_align(2 * size, 64).unwrap();
                HugePageAlloc.dealloc(grown, grown_layout);
            }
        }
    }
}
