//! The input kinds the binding takes, and output like the input.

use crate::errors::{guard, surrogate_error, to_pyerr, Exc, Failure};
use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyMemoryView, PyModule, PyString};

/// The three input kinds the binding sees: a list (of dicts or msgnorm Structs,
/// both read in place by [`read`]), JSON bytes, a JSON str.
pub(crate) enum Input<'py> {
    List(Bound<'py, PyList>),
    Bytes(Bound<'py, PyBytes>),
    Str(Bound<'py, PyString>),
}

pub(crate) fn input<'py>(records: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    if let Ok(l) = records.cast::<PyList>() {
        return Ok(Input::List(l.clone()));
    }
    if let Ok(b) = records.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.clone()));
    }
    if let Ok(s) = records.cast::<PyString>() {
        return Ok(Input::Str(s.clone()));
    }
    let py = records.py();
    if records.cast::<PyByteArray>().is_ok() || records.cast::<PyMemoryView>().is_ok() {
        // JSON in a bytearray or memoryview: read as the bytes it holds
        let b = py.import("builtins")?.getattr("bytes")?.call1((records,))?;
        return Ok(Input::Bytes(b.cast_into::<PyBytes>()?));
    }
    let tname = records.get_type().name()?;
    let msg = format!("records: expected a list of records, JSON bytes or a JSON str, not {tname}");
    Err(Exc::InvalidRecord.new_err(py, (msg, py.None(), "records")))
}

/// Runs a JSON-text function with the GIL released, returning bytes or str like the input.
pub(crate) fn on_json<'py, T: Send>(
    py: Python<'py>,
    inp: &Input<'py>,
    f: impl FnOnce(&[u8]) -> msgnorm_core::Result<T> + Send,
) -> PyResult<T> {
    let r = match inp {
        Input::Bytes(b) => {
            let data = b.as_bytes();
            py.detach(|| guard(|| f(data).map_err(Failure::Core)))
        }
        Input::Str(s) => {
            let Ok(text) = s.to_str() else {
                return Err(to_pyerr(py, Failure::Core(surrogate_error(s))));
            };
            let data = text.as_bytes();
            py.detach(|| guard(|| f(data).map_err(Failure::Core)))
        }
        Input::List(_) => unreachable!("on_json is called for JSON input only"),
    };
    r.map_err(|e| to_pyerr(py, e))
}

pub(crate) fn json_out<'py>(
    py: Python<'py>,
    inp: &Input<'py>,
    out: Vec<u8>,
) -> PyResult<Bound<'py, PyAny>> {
    match inp {
        Input::Str(_) => match String::from_utf8(out) {
            Ok(s) => Ok(PyString::new(py, &s).into_any()),
            Err(_) => Err(to_pyerr(
                py,
                Failure::Core(Error::value("internal error: output is not UTF-8")),
            )),
        },
        _ => Ok(PyBytes::new(py, &out).into_any()),
    }
}

/// The cyclic garbage collector paused while a call builds many objects (a
/// full collection meanwhile walks the whole live heap); re-enabled on drop
/// only if it was enabled before.
pub(crate) struct GcPaused<'py>(Option<Bound<'py, PyModule>>);

impl<'py> GcPaused<'py> {
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if gc.call_method0("isenabled")?.is_truthy()? {
            gc.call_method0("disable")?;
            Ok(GcPaused(Some(gc)))
        } else {
            Ok(GcPaused(None))
        }
    }
}

impl Drop for GcPaused<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.0 {
            // Re-enabling cannot fail but through a broken `gc` module.
            let _ = gc.call_method0("enable");
        }
    }
}
