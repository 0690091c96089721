//! Per-slot arrays of a [`super::SceneView`] written by several threads at once: each world pass
//! hands disjoint slot ranges to rayon's threads, and a node's parent, read by the thread that
//! computes the node, was computed before that thread started or earlier by the same thread.
//! The borrow checker cannot see that split (a range's parents lie anywhere before it), so the
//! passes share raw pointers, and each pass says why its accesses do not overlap.

use std::marker::PhantomData;

/// A slice that the threads of one pass read and write through shared copies of this handle.
pub(super) struct SharedSlots<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> Clone for SharedSlots<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SharedSlots<'_, T> {}

// SAFETY: the handle is a `&mut [T]` split between threads by index; moving `T`s between
// threads is sound when `T: Send`, and the callers of `get`/`set` promise that no slot is
// written by one thread while another reads or writes it.
unsafe impl<T: Send> Send for SharedSlots<'_, T> {}
// SAFETY: as for `Send`: shared copies only reach slots through the unsafe accessors.
unsafe impl<T: Send> Sync for SharedSlots<'_, T> {}

impl<'a, T: Copy> SharedSlots<'a, T> {
    /// Shares `slice` for the duration of its borrow.
    pub fn new(slice: &'a mut [T]) -> Self {
        SharedSlots {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Starts loading slot `i` into the cache (a hint: nothing is read or written).
    #[inline(always)]
    pub fn prefetch(self, i: usize) {
        crate::model::prefetch_at(self.ptr.wrapping_add(i.min(self.len)));
    }

    /// Reads slot `i`. Unchecked in release builds: a bounds check with its panic path on
    /// every access made the compiler spill the passes' matrices to the stack.
    ///
    /// # Safety
    /// `i < self.len()`, and no other thread writes slot `i` during the pass.
    // SAFETY: an unsafe fn because only the caller can vouch for the index and the threads.
    #[inline(always)]
    pub unsafe fn get(self, i: usize) -> T {
        debug_assert!(i < self.len, "slot {i} of {}", self.len);
        // SAFETY: the caller guarantees the index is in bounds and rules out a concurrent write.
        unsafe { *self.ptr.add(i) }
    }

    /// Writes slot `i` (unchecked in release builds, as [`Self::get`]).
    ///
    /// # Safety
    /// `i < self.len()`, and no other thread reads or writes slot `i` during the pass.
    // SAFETY: an unsafe fn because only the caller can vouch for the index and the threads.
    #[inline(always)]
    pub unsafe fn set(self, i: usize, value: T) {
        debug_assert!(i < self.len, "slot {i} of {}", self.len);
        // SAFETY: the caller guarantees the index is in bounds and rules out any other access.
        unsafe { *self.ptr.add(i) = value }
    }
}
