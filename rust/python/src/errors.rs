//! Errors: core errors and panics become the exceptions of `msgnorm.errors`.

use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What the binding's Rust code fails with: a core error (mapped to a msgnorm
/// exception by [`to_pyerr`]) or a Python exception raised on the way.
pub(crate) enum Failure {
    Core(Error),
    Py(PyErr),
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}
impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

/// Builds the Python exception (from `msgnorm.errors`) for a core error.
pub(crate) fn to_pyerr(py: Python<'_>, e: Failure) -> PyErr {
    let e = match e {
        Failure::Py(e) => return e,
        Failure::Core(e) => e,
    };
    // The exception classes, looked up once per process.
    static ERRORS: pyo3::sync::PyOnceLock<Py<PyModule>> = pyo3::sync::PyOnceLock::new();
    let build = || -> PyResult<PyErr> {
        let m = ERRORS
            .get_or_try_init(py, || py.import("msgnorm.errors").map(Bound::unbind))?
            .bind(py);
        let msg = e.to_string();
        let obj = match &e {
            Error::InvalidRecord { index, path, .. } => m
                .getattr("InvalidRecordError")?
                .call1((msg, *index, path.as_str()))?,
            Error::Json { line, column, .. } => {
                m.getattr("JSONDecodeError")?.call1((msg, *line, *column))?
            }
            Error::Pairing { index, ids, .. } => {
                m.getattr("PairingError")?
                    .call1((msg, *index, ids.clone()))?
            }
            Error::Budget { .. } => m.getattr("BudgetError")?.call1((msg,))?,
            Error::Value { .. } => m.getattr("MsgnormError")?.call1((msg,))?,
        };
        Ok(PyErr::from_value(obj))
    };
    build().unwrap_or_else(|err| err)
}

/// Runs `f`, turning a panic into an error: no panic reaches Python as such.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Failure::Core(msgnorm_core::error::from_panic(
            payload.as_ref(),
        ))),
    }
}

/// A str that is not valid Unicode text (a lone surrogate): where it is.
pub(crate) fn surrogate_error(s: &Bound<'_, PyString>) -> Error {
    let lossy = s.to_string_lossy();
    let pos = lossy.find('\u{fffd}').unwrap_or(0);
    let (line, column) = msgnorm_core::json::parse::line_col(&lossy, pos);
    Error::Json {
        line,
        column,
        msg: "the str holds a lone surrogate, which is not valid Unicode text".into(),
    }
}

/// A strict-mode `PairingError` with its `violations`: what the Anthropic
/// rules say of the history (`msgnorm.validate`), worked out only now that
/// strict mode refused it.
#[cold]
pub(crate) fn with_violations(py: Python<'_>, e: PyErr, records: &Bound<'_, PyAny>) -> PyErr {
    let enrich = || -> PyResult<()> {
        let errors = py.import("msgnorm.errors")?;
        if e.is_instance(py, &errors.getattr("PairingError")?) {
            let found = py
                .import("msgnorm.provider_rules")?
                .getattr("repairable_violations")?
                .call1((records, "anthropic"))?;
            e.value(py).setattr("violations", found)?;
        }
        Ok(())
    };
    match enrich() {
        Ok(()) => e,
        Err(other) => other,
    }
}
