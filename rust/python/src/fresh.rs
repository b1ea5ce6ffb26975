//! Containers a call builds, kept out of the cyclic collector's sight while
//! the call builds them and handed back to it before the call returns.
//!
//! Left tracked, the young collections that a call's own allocations trigger
//! walk the new containers again and again, and the survivors they move on to
//! the oldest generation trigger a collection of the whole heap (the caller's
//! history included) within the call. Untracked while the call runs, they cost
//! the collector nothing until [`Fresh`] is dropped, which tracks them again:
//! from then on they are new objects of the caller's like any other. This is
//! local to the objects built, where pausing the collector would change the
//! whole interpreter: its switch and its thresholds are left as they were, and
//! every object is tracked when the caller first sees it.

use pyo3::prelude::*;

/// The new containers of one call; [`Drop`] tracks them again.
pub struct Fresh<'py> {
    held: Vec<Bound<'py, PyAny>>,
}

impl<'py> Fresh<'py> {
    pub fn with_capacity(n: usize) -> Self {
        Fresh {
            held: Vec::with_capacity(n.min(1 << 20)),
        }
    }

    /// Untracks `obj`, a container this call made and nothing else has seen,
    /// if the collector tracks it; it is tracked again on drop.
    pub fn hold(&mut self, obj: &Bound<'py, PyAny>) {
        // SAFETY: `obj` is a live object (the caller holds a strong
        // reference); `PyObject_GC_IsTracked` takes any object and is 1 only
        // for a tracked object of a type with the collector's support, which
        // `PyObject_GC_UnTrack` then untracks. A strong reference is kept in
        // `held`, so the object stays alive until `Drop` tracks it again.
        unsafe {
            if pyo3::ffi::PyObject_GC_IsTracked(obj.as_ptr()) == 1 {
                pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast());
                self.held.push(obj.clone());
            }
        }
    }
}

impl Drop for Fresh<'_> {
    fn drop(&mut self) {
        for obj in &self.held {
            // SAFETY: `obj` is alive (held) and of a type the collector
            // supports (it was tracked when `hold` untracked it); it is
            // tracked again only if nothing has tracked it since (a dict is
            // tracked again when a container is stored in it), as
            // `PyObject_GC_Track` requires.
            unsafe {
                if pyo3::ffi::PyObject_GC_IsTracked(obj.as_ptr()) == 0 {
                    pyo3::ffi::PyObject_GC_Track(obj.as_ptr().cast());
                }
            }
        }
    }
}
