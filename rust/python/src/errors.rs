//! Errors: core errors and panics become the exceptions of `msgnorm.errors`.

use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};
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

/// The exception classes of `msgnorm.errors` the binding raises.
#[derive(Clone, Copy)]
pub(crate) enum Exc {
    InvalidRecord,
    Json,
    Pairing,
    Budget,
    Msgnorm,
}

impl Exc {
    const NAMES: [&'static str; 5] = [
        "InvalidRecordError",
        "JSONDecodeError",
        "PairingError",
        "BudgetError",
        "MsgnormError",
    ];

    /// The class, looked up once per process (every exception the binding
    /// raises is made here).
    pub(crate) fn class(self, py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
        static CLASSES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();
        let classes = CLASSES.get_or_try_init(py, || {
            let m = py.import("msgnorm.errors")?;
            Self::NAMES
                .iter()
                .map(|n| Ok(m.getattr(*n)?.cast_into::<PyType>()?.unbind()))
                .collect::<PyResult<Vec<_>>>()
        })?;
        Ok(classes[self as usize].bind(py))
    }

    /// An instance, made with `args`.
    pub(crate) fn new_err<'py, A: pyo3::call::PyCallArgs<'py>>(
        self,
        py: Python<'py>,
        args: A,
    ) -> PyErr {
        match self.class(py).and_then(|c| c.call1(args)) {
            Ok(obj) => PyErr::from_value(obj),
            Err(e) => e,
        }
    }
}

/// Builds the Python exception (from `msgnorm.errors`) for a core error.
pub(crate) fn to_pyerr(py: Python<'_>, e: Failure) -> PyErr {
    let e = match e {
        Failure::Py(e) => return e,
        Failure::Core(e) => e,
    };
    let msg = e.to_string();
    match e {
        Error::InvalidRecord { index, path, .. } => {
            Exc::InvalidRecord.new_err(py, (msg, index, path))
        }
        Error::Json { line, column, .. } => Exc::Json.new_err(py, (msg, line, column)),
        Error::Pairing { index, ids, .. } => Exc::Pairing.new_err(py, (msg, index, ids)),
        Error::Budget { .. } => Exc::Budget.new_err(py, (msg,)),
        Error::Value { .. } => Exc::Msgnorm.new_err(py, (msg,)),
    }
}

/// Runs the core's work `f` with the GIL released; its error (or panic)
/// becomes the msgnorm exception.
pub(crate) fn released<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| guard(|| f().map_err(Failure::Core)))
        .map_err(|e| to_pyerr(py, e))
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
        if e.is_instance(py, Exc::Pairing.class(py)?) {
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
