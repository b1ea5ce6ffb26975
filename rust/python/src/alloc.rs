//! The extension's allocator for its Rust side (Python's objects keep
//! CPython's): mimalloc for small blocks, the system allocator for large ones,
//! and on Linux a mapping of its own, in huge pages, for the largest.
//!
//! The provider adapters build and free many small values per message; with
//! mimalloc a 100k-message `convert` takes about two thirds of the time it
//! takes with the system allocator, and the other entry points lose 5-10%.
//! Large buffers (record arrays, JSON output) stay with the system allocator,
//! which hands freed ones back to the OS at once and grows them in place
//! (`mremap`): mimalloc keeps freed memory for a while, which raised the bytes
//! path's peak memory from 2.3× to 2.9× its input.
//!
//! The largest blocks (a million records' array, a 100k-record output) are
//! written once from end to end as soon as they exist, so their cost is
//! mostly the kernel's: one page fault per 4 KiB page touched. Mapped in
//! transparent huge pages it is one per 2 MiB: at 100k records the bytes path
//! took about 16,500 page faults per call and now takes about 2,000, and
//! runs about 10% faster. Only the mappings made here are advised: the output
//! `bytes` is CPython's allocation and gets no advice ([`bytes_with`]).
//!
//! Kept by measurement against plain mimalloc and the system allocator (the
//! same build, only the global allocator swapped, timed interleaved on
//! 100,000 records, best of 20 calls): these tiers / mimalloc / system took
//! 200 / 202 / 216 ms for `normalize_for_api` on JSON bytes, 182 / 192 / 215
//! ms on dicts, 66 / 79 / 71 ms for `count_tokens` on dicts and 310 / 288 /
//! 406 ms for `to_provider(..., "openai-chat")`; one bytes call on an 81 MiB
//! input raised the peak RSS by 85 / 118 / 74 MiB. The tiers are tested by
//! this crate's unit tests (`cargo test --workspace`).

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this many bytes or more go to the system allocator.
const LARGE: usize = 128 << 10;

/// Blocks of this many bytes or more (Linux) are mapped: their own pages,
/// asked for transparent huge pages ([`advise_mapping`]), moved without a copy
/// when they grow (`mremap`), handed back to the system when freed.
const HUGE: usize = 4 << 20;

/// A mapped block's alignment at most (a page).
const PAGE: usize = 4096;

pub struct Split;

/// Which allocator a block of `layout` belongs to: decided by its size and
/// alignment alone, so `realloc` and `dealloc` (which get the layout back)
/// always reach the allocator that made the block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    Small,
    Large,
    Mapped,
}

impl Tier {
    #[inline]
    fn of(size: usize, align: usize) -> Tier {
        if size < LARGE {
            Tier::Small
        } else if size < HUGE || align > PAGE || !cfg!(target_os = "linux") {
            Tier::Large
        } else {
            Tier::Mapped
        }
    }
}

/// `by_tier!(tier, |a| call)`: `call` with `a` the allocator of `tier`.
macro_rules! by_tier {
    ($tier:expr, |$a:ident| $call:expr) => {
        match $tier {
            Tier::Small => {
                let $a = MiMalloc;
                $call
            }
            Tier::Large => {
                let $a = System;
                $call
            }
            Tier::Mapped => {
                let $a = Mapped;
                $call
            }
        }
    };
}

/// Blocks of [`HUGE`] bytes or more, aligned to a page at most, each its own
/// anonymous mapping (Linux). Elsewhere [`Tier::of`] never picks it.
struct Mapped;

// SAFETY: each block is a private anonymous mapping of at least its size
// (the kernel rounds lengths up to whole pages), page-aligned (so aligned to
// any `layout.align()` up to `PAGE`, which `Tier::of` ensures), zero-filled by
// the kernel, and not shared with anything else; `dealloc` unmaps exactly the
// mapping `alloc` or `realloc` returned (same pointer, same rounded length),
// and `realloc` moves it with `mremap`, which keeps the bytes.
#[cfg(target_os = "linux")]
unsafe impl GlobalAlloc for Mapped {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: a new private anonymous read-write mapping touches no
        // existing memory; failure is `MAP_FAILED`, returned as null.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        advise_mapping(p as *mut u8, layout.size());
        p as *mut u8
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`; a fresh anonymous mapping reads as zeros.
        unsafe { self.alloc(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` is a mapping of `layout.size()` bytes made by `alloc`
        // or `realloc` (the caller passes the block's own layout back).
        unsafe {
            libc::munmap(ptr as *mut libc::c_void, layout.size());
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` is a mapping of `layout.size()` bytes (as `dealloc`);
        // `MREMAP_MAYMOVE` resizes it in place or moves its pages (never
        // copying or losing a byte of the first `min(old, new)`), and leaves
        // it untouched on failure, which returns null here as `realloc` must.
        let p = unsafe {
            libc::mremap(
                ptr as *mut libc::c_void,
                layout.size(),
                new_size,
                libc::MREMAP_MAYMOVE,
            )
        };
        if p != libc::MAP_FAILED {
            advise_mapping(p as *mut u8, new_size);
            return p as *mut u8;
        }
        // `mremap` moves one mapping whole; a block split since (another
        // `madvise` on part of it) is moved by copy.
        // SAFETY: the caller's guarantees are `realloc`'s, passed on; the
        // block is one of `self`'s.
        unsafe { move_by_copy(self, ptr, layout, new_size) }
    }
}

/// `realloc` as `alloc` + copy + `dealloc`, all by `a` (which made the block).
///
/// # Safety
/// `realloc`'s contract: `ptr` was allocated by `a` with `layout`, `new_size`
/// is non-zero and, rounded up to `layout.align()`, does not overflow `isize`.
unsafe fn move_by_copy(
    a: &impl GlobalAlloc,
    ptr: *mut u8,
    layout: Layout,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: the new layout is valid (the contract above). The old block is
    // valid for `layout.size()` bytes and the new one for `new_size`; they do
    // not overlap, and the old one is freed once, with its own layout, by the
    // allocator that made it.
    unsafe {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = a.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            a.dealloc(ptr, layout);
        }
        new
    }
}

/// Asks the kernel to back a whole mapping of ours (page-aligned `p`, `len`
/// bytes) with transparent huge pages: a large buffer is written once from
/// start to end right after it is allocated, and in 4 KiB pages that is one
/// page fault per 4 KiB, in huge pages one per 2 MiB. Where the system leaves
/// huge pages off (`never`), or uses them for every mapping (`always`), the
/// advice changes nothing; an error is ignored. Only memory this allocator
/// mapped is ever advised: the advice covers the whole mapping, so its pages
/// keep one mapping, which `mremap` can move.
#[cfg(target_os = "linux")]
#[inline]
fn advise_mapping(p: *mut u8, len: usize) {
    // SAFETY: `madvise` with `MADV_HUGEPAGE` only sets an attribute of the
    // pages of the range (which pages back it, never what they hold); the
    // range is exactly one live mapping of ours (the kernel rounds `len` up
    // to whole pages, as it did when mapping it).
    unsafe {
        libc::madvise(p as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

// SAFETY: never called: `Tier::of` picks `Mapped` on Linux only. Forwarding
// to the system allocator keeps even that case sound.
#[cfg(not(target_os = "linux"))]
unsafe impl GlobalAlloc for Mapped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees are passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

// SAFETY: every method forwards to an allocator that upholds `GlobalAlloc`'s
// contract, chosen by the block's layout alone (`Tier::of`). A block is
// allocated, reallocated and freed with its own layout (the contract requires
// the caller to pass the same layout back), so a block is always freed or
// resized by the allocator that made it; a `realloc` that changes tiers moves
// the block to the other allocator with `alloc` + copy + `dealloc`, which is
// `realloc`'s documented meaning.
unsafe impl GlobalAlloc for Split {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees on `layout` are passed on unchanged.
        unsafe { by_tier!(Tier::of(layout.size(), layout.align()), |a| a.alloc(layout)) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            by_tier!(Tier::of(layout.size(), layout.align()), |a| a
                .alloc_zeroed(layout))
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator with `layout`, so by
        // the allocator its layout selects (see the impl's comment).
        unsafe {
            by_tier!(Tier::of(layout.size(), layout.align()), |a| a
                .dealloc(ptr, layout))
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let from = Tier::of(layout.size(), layout.align());
        if from == Tier::of(new_size, layout.align()) {
            // SAFETY: the block belongs to the allocator both sizes select.
            return unsafe { by_tier!(from, |a| a.realloc(ptr, layout, new_size)) };
        }
        // SAFETY: the caller's guarantees are `realloc`'s, passed on; `Split`
        // frees the old block by the tier that made it and allocates the new
        // one by the tier its size selects.
        unsafe { move_by_copy(self, ptr, layout, new_size) }
    }
}

/// A new `bytes` object of `len` bytes, filled by `init` (as
/// `PyBytes::new_with`), its buffer zeroed with the GIL released. The buffer
/// is CPython's memory: it is written, never advised.
pub fn bytes_with<'py>(
    py: pyo3::Python<'py>,
    len: usize,
    init: impl FnOnce(&mut [u8]) -> pyo3::PyResult<()>,
) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyBytes>> {
    use pyo3::ffi;
    use pyo3::prelude::*;
    let n = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("output too large"))?;
    // SAFETY: `PyBytes_FromStringAndSize(NULL, n)` returns a new reference to
    // a bytes object with room for `n` bytes (contents unset) or NULL with an
    // exception set, which `from_owned_ptr_or_err` turns into the error.
    let obj = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), n))?
            .cast_into_unchecked::<pyo3::types::PyBytes>()
    };
    // SAFETY: `obj` is a bytes object: `PyBytes_AsString` returns its buffer,
    // valid for `len` bytes while `obj` lives; nothing else refers to the
    // object yet, so the buffer is ours alone (as in `PyBytes::new_with`).
    let buf: *mut u8 = unsafe { ffi::PyBytes_AsString(obj.as_ptr()) }.cast();
    let addr = buf as usize;
    py.detach(move || {
        let buf = addr as *mut u8;
        // SAFETY: `buf` is valid for writes of `len` bytes (above); `obj`
        // stays alive across the call.
        unsafe { std::ptr::write_bytes(buf, 0, len) };
    });
    // SAFETY: the `len` bytes at `buf` are initialised (zeroed just above),
    // owned by `obj` alone, and `obj` outlives the slice, dropped before `obj`
    // is returned.
    let slice = unsafe { std::slice::from_raw_parts_mut(buf, len) };
    init(slice)?;
    Ok(obj)
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

    /// A block keeps its bytes through every tier and back: small, large,
    /// mapped, a mapped block grown (moved) and shrunk, large, small.
    #[test]
    fn realloc_through_every_tier_keeps_the_bytes() {
        let a = Split;
        let sizes = [64, LARGE + 1, HUGE, 3 * HUGE + 5, HUGE + PAGE, LARGE, 32];
        // SAFETY: the layouts are valid and non-zero; every pointer is checked,
        // written and read within its size, and freed once with its layout.
        unsafe {
            let mut p = a.alloc(Layout::from_size_align(sizes[0], 8).unwrap());
            assert!(!p.is_null());
            for i in 0..32 {
                *p.add(i) = i as u8 ^ 0x5a;
            }
            for w in sizes.windows(2) {
                p = a.realloc(p, Layout::from_size_align(w[0], 8).unwrap(), w[1]);
                assert!(!p.is_null(), "realloc {} -> {}", w[0], w[1]);
                assert!((0..32).all(|i| *p.add(i) == i as u8 ^ 0x5a));
                // the block's last byte is writable
                *p.add(w[1] - 1) = 1;
            }
            a.dealloc(p, Layout::from_size_align(32, 8).unwrap());
        }
    }

    /// A mapped block asked zeroed reads as zeros; one aligned past a page
    /// (not a mapped block) keeps its alignment.
    #[test]
    fn mapped_blocks_are_zeroed_and_aligned() {
        let a = Split;
        let zeroed = Layout::from_size_align(HUGE * 2, 64).unwrap();
        let wide = Layout::from_size_align(HUGE, 4 * PAGE).unwrap();
        // SAFETY: valid non-zero layouts; reads within the block; each block
        // freed once with its layout.
        unsafe {
            let z = a.alloc_zeroed(zeroed);
            assert!(!z.is_null());
            assert_eq!(z as usize % 64, 0);
            assert!((0..zeroed.size()).step_by(4093).all(|i| *z.add(i) == 0));
            a.dealloc(z, zeroed);
            let w = a.alloc(wide);
            assert!(!w.is_null());
            assert_eq!(w as usize % (4 * PAGE), 0);
            *w.add(HUGE - 1) = 3;
            a.dealloc(w, wide);
        }
        let v: Vec<u64> = (0..HUGE as u64).collect();
        assert_eq!(v.iter().sum::<u64>(), (HUGE as u64) * (HUGE as u64 - 1) / 2);
    }
}
