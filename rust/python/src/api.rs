//! `normalize_for_api` and the other record functions (SPEC §1, §3, §4, §5).

use crate::args::{self, api_options, templates, templates_dict};
use crate::errors::{guard, to_pyerr, with_violations, Failure};
use crate::input::{input, json_out, on_json, GcPaused, Input};
use crate::read::{self, read_records, Strs};
use crate::view::Ctx;
use crate::write;
use msgnorm_core::read::ReadError;
use msgnorm_core::{ApiOptions, Error, Report};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// Declares a public function taking `normalize_for_api`'s options as
/// keywords, with their defaults written once for both functions; `$ret`
/// maps the `(output, report)` pair to what the function returns.
macro_rules! api_fn {
    ($(#[$doc:meta])* fn $name:ident -> $ty:ty = $ret:expr) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (
            records, *, strict=false, max_media=msgnorm_core::DEFAULT_MAX_MEDIA, short_ids=false,
            ensure_user_first=true, attachment_templates=None,
        ))]
        #[pyo3(
            text_signature = "(records, *, strict=False, max_media=100, short_ids=False, ensure_user_first=True, attachment_templates=None)"
        )]
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name<'py>(
            py: Python<'py>,
            records: &Bound<'py, PyAny>,
            #[pyo3(from_py_with = args::flag)] strict: bool,
            #[pyo3(from_py_with = args::max_media)] max_media: Option<usize>,
            #[pyo3(from_py_with = args::flag)] short_ids: bool,
            #[pyo3(from_py_with = args::flag)] ensure_user_first: bool,
            attachment_templates: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<$ty> {
            let opts = api_options(
                py,
                (strict, max_media, short_ids, ensure_user_first),
                templates_dict(attachment_templates)?.as_ref(),
            )?;
            let _gc = GcPaused::new(py)?;
            normalize_for_api_with(py, records, &opts)
                .map($ret)
                .map_err(|e| if strict { with_violations(py, e, records) } else { e })
        }
    };
}

api_fn! {
    /// `(output, report)`: what is sent to the model (SPEC §4) and a count of
    /// every repair rule that fired, by name.
    fn normalize_for_api_report -> (Bound<'py, PyAny>, Bound<'py, PyDict>) = |pair| pair
}

api_fn! {
    /// What is sent to the model (SPEC §4): only user and assistant records,
    /// repaired. Input is never mutated. Records the call did not change are the
    /// input's own objects (shared, like slicing); changed records and their
    /// `message` are fresh shallow copies that share the blocks the call did not
    /// change.
    fn normalize_for_api -> Bound<'py, PyAny> = |(out, _)| out
}

pub(crate) fn normalize_for_api_with<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    opts: &ApiOptions,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let opts = opts.clone();
    let inp = input(records)?;
    let mut report = Report::default();
    let out = match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            let out = guard(|| {
                let recs = read::read_records_for_api(&ctx, &strs, l)?;
                Ok(msgnorm_core::normalize_for_api_report(
                    recs,
                    &opts,
                    &mut report,
                )?)
            })
            .map_err(|e| to_pyerr(py, e))?;
            write::records_to_py(&ctx, &out, true)?.into_any()
        }
        Input::Bytes(b) => {
            // Counted first, then written straight into the bytes object: the
            // output exists once, not as a Vec and a copy of it.
            let data = b.as_bytes();
            let (recs, len, r) = py
                .detach(|| {
                    guard(|| {
                        let mut r = Report::default();
                        let (recs, len) =
                            msgnorm_core::on_json::normalize_for_api_records(data, &opts, &mut r)?;
                        Ok((recs, len, r))
                    })
                })
                .map_err(|e| to_pyerr(py, e))?;
            report = r;
            PyBytes::new_with(py, len, |buf| {
                py.detach(|| {
                    guard(|| {
                        msgnorm_core::json::write_records_into(&recs, buf).map_err(Failure::Core)
                    })
                })
                .map_err(|e| to_pyerr(py, e))
            })?
            .into_any()
        }
        _ => {
            let (out, r) = on_json(py, &inp, |d| {
                let mut r = Report::default();
                msgnorm_core::on_json::normalize_for_api(d, &opts, &mut r).map(|o| (o, r))
            })?;
            report = r;
            json_out(py, &inp, out)?
        }
    };
    let rep = PyDict::new(py);
    for (k, v) in report.items() {
        rep.set_item(k, v)?;
    }
    Ok((out, rep))
}

#[pyfunction]
pub(crate) fn normalize_messages<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            let out = guard(|| {
                let recs = read_records(&ctx, &strs, l, false)?;
                Ok(msgnorm_core::split::normalize_messages(recs)?)
            })
            .map_err(|e| to_pyerr(py, e))?;
            Ok(write::records_to_py(&ctx, &out, true)?.into_any())
        }
        _ => {
            let out = on_json(py, &inp, msgnorm_core::on_json::normalize_messages)?;
            json_out(py, &inp, out)
        }
    }
}

/// §5: the attachment's `<system-reminder>` text, or `None` when it renders to nothing.
#[pyfunction]
#[pyo3(signature = (attachment, attachment_templates=None))]
pub(crate) fn render_attachment(
    py: Python<'_>,
    attachment: &Bound<'_, PyAny>,
    attachment_templates: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<String>> {
    let t = templates(py, attachment_templates)?;
    let Ok(a) = attachment.cast::<PyDict>() else {
        return Err(to_pyerr(
            py,
            Failure::Core(Error::value("attachment must be a dict")),
        ));
    };
    let strs = Strs::new();
    let fields = read::attachment_fields(&strs, a).map_err(|e| match e {
        ReadError::Invalid(e) => to_pyerr(py, Failure::Core(e.named("attachment"))),
        ReadError::Source(e) => e,
    })?;
    Ok(t.render(&fields))
}

/// SPEC §1 only: the number of records, or the error any other entry point
/// raises for the same input (the same reader, the same message and place).
/// `msgnorm.decode` and `msgnorm.from_builtins` call it before msgspec converts.
#[pyfunction]
pub(crate) fn validate_records<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
) -> PyResult<usize> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            guard(|| Ok(read_records(&ctx, &strs, l, false)?.len())).map_err(|e| to_pyerr(py, e))
        }
        _ => on_json(py, &inp, msgnorm_core::on_json::validate),
    }
}

#[pyfunction]
pub(crate) fn to_anthropic<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::new(py, false);
            let strs = Strs::new();
            let recs =
                guard(|| read_records(&ctx, &strs, l, false)).map_err(|e| to_pyerr(py, e))?;
            msgnorm_core::check_anthropic_messages(&recs)
                .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
            let out = PyList::empty(py);
            for r in &recs {
                let d = PyDict::new(py);
                d.set_item("role", r.kind.role())?;
                let content = match (&r.orig, &r.content) {
                    (Some(o), _) => o.get_item("message")?.get_item("content")?,
                    (None, c) => write::content_to_py(&ctx, c)?,
                };
                d.set_item("content", content)?;
                out.append(d)?;
            }
            Ok(out.into_any())
        }
        _ => {
            let out = on_json(py, &inp, msgnorm_core::on_json::to_anthropic)?;
            json_out(py, &inp, out)
        }
    }
}

#[pyfunction]
pub(crate) fn derive_uuid(py: Python<'_>, parent: &str, index: i128) -> PyResult<String> {
    let idx = match u64::try_from(index) {
        Ok(i) => i,
        Err(_) => {
            let msg = format!("index {index} is out of range: it must satisfy 0 <= index < 16**12");
            return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
        }
    };
    msgnorm_core::ids::derive_uuid(parent, idx).map_err(|e| to_pyerr(py, Failure::Core(e)))
}

#[pyfunction]
pub(crate) fn derive_short_message_id(py: Python<'_>, uuid: &str) -> PyResult<String> {
    msgnorm_core::ids::derive_short_message_id(uuid).map_err(|e| to_pyerr(py, Failure::Core(e)))
}
