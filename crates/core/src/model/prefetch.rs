//! A cache hint for loops that read memory at random (a source read in another order than its
//! own, a register looked up per message): asking for the next rows early lets their misses
//! overlap with the work on the current ones instead of stalling it one row at a time.

/// Bytes per cache line on the targets we run on.
const LINE: usize = 64;

/// Asks the processor to start loading every cache line `value` occupies (a 64-byte row that
/// is only 16-byte aligned spans two), without waiting for them. A hint only: no effect on
/// results, nothing on targets without the instruction.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    prefetch_at(std::ptr::from_ref(value));
}

/// [`prefetch`] by address: the lines a `T` at `value` would occupy. Any address will do (a
/// hint never faults), so code that shares a slice between threads through raw pointers can
/// hint a slot without making a reference to it.
#[inline(always)]
pub fn prefetch_at<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = value.cast::<u8>();
        // A value no larger than its alignment (a power of two up to a line) never crosses a
        // line: one hint, decided at compile time, instead of counting lines at run time.
        if size_of::<T>() <= align_of::<T>() && align_of::<T>() <= LINE {
            // SAFETY: as below.
            unsafe {
                use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                _mm_prefetch::<_MM_HINT_T0>(start.cast::<i8>());
            }
            return;
        }
        let first = start as usize / LINE;
        let last = (start as usize + size_of::<T>().max(1) - 1) / LINE;
        for line in 0..=(last - first) {
            // SAFETY: `_mm_prefetch` only hints the cache: it never faults and reads nothing
            // into the program, whatever the address (these are inside `value` anyway, give or
            // take the line's alignment). SSE is part of every x86_64 target.
            unsafe {
                use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line * LINE).cast::<i8>());
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
