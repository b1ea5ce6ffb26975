//! `msgnorm._native.Conversation`: the core's incremental conversation behind a
//! lock, so that it can be shared between threads. JSON in, JSON out; the
//! Python class `msgnorm.Conversation` converts kinds.

use crate::args::{params, template_overrides, ApiArgs, Counting};
use crate::errors::{guard, surrogate_error, to_pyerr, Failure};
use msgnorm_core::conversation::{self, Settings};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use std::sync::{Mutex, TryLockError};

/// A method's JSON output, as a Python `bytes` object.
type Bytes<'py> = PyResult<Bound<'py, PyBytes>>;

#[pyclass(module = "msgnorm._native", frozen)]
pub struct Conversation {
    inner: Mutex<conversation::Conversation>,
}

impl Conversation {
    /// Runs `f` on the core with the GIL released (waiting for another thread's
    /// call too); panics and errors become exceptions.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut conversation::Conversation) -> msgnorm_core::Result<T> + Send,
    ) -> PyResult<T> {
        let inner = &self.inner;
        py.detach(|| {
            guard(|| {
                let mut c = inner.lock().map_err(|_| {
                    Failure::Core(msgnorm_core::Error::value(
                        "internal error: a conversation's lock is poisoned",
                    ))
                })?;
                f(&mut c).map_err(Failure::Core)
            })
        })
        .map_err(|e| to_pyerr(py, e))
    }
}

fn text<'py>(data: &Bound<'py, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = data.cast::<PyString>() {
        // Not Unicode text: the error every other reader of a str raises.
        let Ok(t) = s.to_str() else {
            return Err(to_pyerr(data.py(), Failure::Core(surrogate_error(s))));
        };
        return Ok(t.as_bytes().to_vec());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "expected JSON bytes or str",
    ))
}

#[pymethods]
impl Conversation {
    #[new]
    #[pyo3(signature = (api, counting))]
    fn new(py: Python<'_>, api: ApiArgs<'_>, counting: Counting) -> PyResult<Self> {
        let (strict, max_media, short_ids, ensure_user_first, attachment_templates) = api;
        let settings = Settings {
            strict,
            max_media,
            short_ids,
            ensure_user_first,
            templates: template_overrides(py, attachment_templates.as_ref())?,
            count: params(counting),
        };
        let inner = conversation::Conversation::new(settings)
            .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
        Ok(Conversation {
            inner: Mutex::new(inner),
        })
    }

    /// Appends JSON records (an array or JSON Lines); how many.
    fn append(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<usize> {
        let data = text(data)?;
        self.with(py, |c| c.append(&data))
    }

    fn for_api<'py>(&self, py: Python<'py>) -> Bytes<'py> {
        // The output is copied once, straight from the conversation's own buffer
        // into the bytes object: that needs the lock and the GIL together, so the
        // lock is taken without ever blocking while the GIL is held.
        let mut held = loop {
            match self.inner.try_lock() {
                Ok(g) => break g,
                Err(TryLockError::WouldBlock) => py.detach(std::thread::yield_now),
                Err(TryLockError::Poisoned(_)) => {
                    return Err(to_pyerr(
                        py,
                        Failure::Core(msgnorm_core::Error::value(
                            "internal error: a conversation's lock is poisoned",
                        )),
                    ))
                }
            }
        };
        let c: &mut conversation::Conversation = &mut held;
        let bytes = py
            .detach(move || guard(move || c.api_bytes().map_err(Failure::Core)))
            .map_err(|e| to_pyerr(py, e))?;
        Ok(PyBytes::new(py, bytes))
    }

    /// Output records `start..stop` as a JSON array.
    fn json_range<'py>(&self, py: Python<'py>, start: usize, stop: usize) -> Bytes<'py> {
        let out = self.with(py, |c| {
            let n = c.len()?;
            Ok(c.json_range(start.min(n), stop.min(n).max(start.min(n))))
        })?;
        Ok(PyBytes::new(py, &out))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| c.len())
    }

    #[getter]
    fn input_len(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| Ok(c.input_len()))
    }

    #[getter]
    fn settled_len(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| c.settled_len())
    }

    #[getter]
    fn rewrites(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| Ok(c.rewrites()))
    }

    fn count_tokens_per_record(&self, py: Python<'_>) -> PyResult<Vec<u64>> {
        self.with(py, |c| Ok(c.costs()?.0))
    }

    fn count_tokens(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |c| c.count_tokens())
    }

    /// SPEC §6.1 over the input records; `extra` as `prompt_tokens` takes it.
    fn prompt_tokens(&self, py: Python<'_>, extra: Vec<String>) -> PyResult<u64> {
        let texts: Vec<&str> = extra.iter().map(String::as_str).collect();
        self.with(py, |c| {
            let extra = msgnorm_core::prompt::extra_tokens(&texts, &c.settings().count)?;
            c.prompt_tokens(extra)
        })
    }

    /// A provider's usage of the request made with the history so far (§6.1);
    /// whether it reports a prompt.
    fn record_usage(&self, py: Python<'_>, usage: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Some(u) = crate::budget::usage_of(usage)? else {
            return Ok(false);
        };
        self.with(py, |c| {
            c.record_usage(u)?;
            Ok(true)
        })
    }

    fn trim_to_budget<'py>(&self, py: Python<'py>, max_tokens: u64, pin: usize) -> Bytes<'py> {
        let (_, out) = self.with(py, |c| c.trim_to_budget(max_tokens, pin))?;
        Ok(PyBytes::new(py, &out))
    }

    fn split_for_summary<'py>(
        &self,
        py: Python<'py>,
        keep_tokens: u64,
        pin: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (a, b) = self.with(py, |c| c.split_for_summary(keep_tokens, pin))?;
        Ok((PyBytes::new(py, &a), PyBytes::new(py, &b)))
    }

    /// Sets the context-editing policy (`tools` / `thinking` off: none of it).
    fn set_policy(&self, py: Python<'_>, args: crate::editing::EditArgs) -> PyResult<()> {
        let policy = if args.tools || args.thinking {
            Some(conversation::Policy {
                trigger: args.trigger(py)?,
                clear_at_least: args.clear_at_least,
                tools: if args.tools {
                    Some(args.tool_options(py, 0)?)
                } else {
                    None
                },
                thinking: args.thinking(),
            })
        } else {
            None
        };
        self.with(py, |c| c.set_policy(policy))
    }

    /// How many times the policy fired.
    #[getter]
    fn edit_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| Ok(c.edits()?.len()))
    }

    /// The times the policy fired: `(input_len, report)` pairs.
    fn edits<'py>(&self, py: Python<'py>) -> PyResult<Vec<(usize, Bound<'py, PyDict>)>> {
        let events = self.with(py, |c| Ok(c.edits()?.to_vec()))?;
        events
            .into_iter()
            .map(|e| Ok((e.input_len, crate::editing::edit_report(py, &e.report)?)))
            .collect()
    }

    fn cache_breakpoints(&self, py: Python<'_>) -> PyResult<Vec<usize>> {
        self.with(py, |c| c.cache_breakpoints())
    }

    fn tail_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let report = self.with(py, |c| c.tail_report())?;
        let d = PyDict::new(py);
        for (k, v) in report.items() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bytes<'py> {
        let out = self.with(py, |c| Ok(c.to_bytes()))?;
        Ok(PyBytes::new(py, &out))
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let inner = py
            .detach(|| {
                guard(|| conversation::Conversation::from_bytes(data).map_err(Failure::Core))
            })
            .map_err(|e| to_pyerr(py, e))?;
        Ok(Conversation {
            inner: Mutex::new(inner),
        })
    }
}
