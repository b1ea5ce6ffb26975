//! The extension's allocator for its Rust side (Python's objects keep
//! CPython's): mimalloc for small blocks, the system allocator for large ones.
//!
//! The provider adapters build and free many small values per message; with
//! mimalloc a 100k-message `convert` takes about two thirds of the time it
//! takes with the system allocator, and the other entry points lose 5-10%.
//! Large buffers (record arrays, JSON output) stay with the system allocator,
//! which hands freed ones back to the OS at once and grows them in place
//! (`mremap`): mimalloc keeps freed memory for a while, which raised the bytes
//! path's peak memory from 2.3× to 2.9× its input.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this many bytes or more go to the system allocator.
const LARGE: usize = 128 << 10;

pub struct Split;

impl Split {
    #[inline]
    fn large(size: usize) -> bool {
        size >= LARGE
    }
}

/// `by_size!(size, |a| call)`: `call` with `a` the allocator that blocks of
/// `size` bytes belong to.
macro_rules! by_size {
    ($size:expr, |$a:ident| $call:expr) => {
        if Split::large($size) {
            let $a = System;
            $call
        } else {
            let $a = MiMalloc;
            $call
        }
    };
}

// SAFETY: every method forwards to an allocator that upholds `GlobalAlloc`'s
// contract, chosen by the block's size alone. A block is allocated,
// reallocated and freed with its layout's size (the contract requires the
// caller to pass the same layout back), so a block is always freed or resized
// by the allocator that made it; a `realloc` that crosses `LARGE` moves the
// block to the other allocator with `alloc` + copy + `dealloc`, which is
// `realloc`'s documented meaning.
unsafe impl GlobalAlloc for Split {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees on `layout` are passed on unchanged.
        unsafe { by_size!(layout.size(), |a| a.alloc(layout)) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe { by_size!(layout.size(), |a| a.alloc_zeroed(layout)) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator with `layout`, so by
        // the allocator its size selects (see the impl's comment).
        unsafe { by_size!(layout.size(), |a| a.dealloc(ptr, layout)) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (Self::large(layout.size()), Self::large(new_size)) {
            // SAFETY: the block belongs to the allocator both sizes select.
            (false, false) => unsafe { MiMalloc.realloc(ptr, layout, new_size) },
            (true, true) => unsafe { System.realloc(ptr, layout, new_size) },
            _ => {
                // SAFETY: the caller guarantees `new_size` > 0 and that it,
                // rounded up to `layout.align()`, does not overflow `isize`:
                // the layout is valid. The old block is valid for
                // `layout.size()` bytes and the new one for `new_size`; they
                // do not overlap, and the old one is freed with its own layout.
                unsafe {
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let new = self.alloc(new_layout);
                    if !new.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    new
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block keeps its bytes when `realloc` moves it across `LARGE`, both ways.
    #[test]
    fn realloc_across_the_threshold_keeps_the_bytes() {
        let a = Split;
        let small = Layout::from_size_align(100, 8).unwrap();
        // SAFETY: the layouts are valid and non-zero; every pointer is checked,
        // written within its size, and freed once with the layout it has.
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..100 {
                *p.add(i) = i as u8;
            }
            let big = LARGE * 2;
            let q = a.realloc(p, small, big);
            assert!(!q.is_null());
            assert!((0..100).all(|i| *q.add(i) == i as u8));
            *q.add(big - 1) = 7;
            let big_layout = Layout::from_size_align(big, 8).unwrap();
            let r = a.realloc(q, big_layout, 50);
            assert!(!r.is_null());
            assert!((0..50).all(|i| *r.add(i) == i as u8));
            a.dealloc(r, Layout::from_size_align(50, 8).unwrap());
        }
        let v: Vec<u64> = (0..LARGE as u64).collect();
        assert_eq!(
            v.iter().sum::<u64>(),
            (LARGE as u64) * (LARGE as u64 - 1) / 2
        );
    }
}
