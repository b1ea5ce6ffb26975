//! `normalize_for_api` and the other record functions (SPEC §1, §3, §4, §5).

use crate::args::{self, api_options, templates, templates_dict};
use crate::errors::{to_pyerr, with_violations, Failure};
use crate::input::with_records;
use crate::read::{self, Strs};
use msgnorm_core::read::{ReadError, ReadOpts};
use msgnorm_core::{ApiOptions, Error, Report};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Declares a public function taking `normalize_for_api`'s options as
/// keywords, with their defaults written once for both functions, and the
/// flags `$extra` after them (false by default); `$ret` maps the
/// `(output, report)` pair to what the function returns.
macro_rules! api_fn {
    ($(#[$doc:meta])* fn $name:ident($($extra:ident),*) -> $ty:ty = $ret:expr; $text:literal) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (
            records, *, strict=false, max_media=msgnorm_core::DEFAULT_MAX_MEDIA, short_ids=false,
            ensure_user_first=true, attachment_templates=None, $($extra=false),*
        ))]
        #[pyo3(text_signature = $text)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name<'py>(
            py: Python<'py>,
            records: &Bound<'py, PyAny>,
            #[pyo3(from_py_with = args::flag)] strict: bool,
            #[pyo3(from_py_with = args::max_media)] max_media: Option<usize>,
            #[pyo3(from_py_with = args::flag)] short_ids: bool,
            #[pyo3(from_py_with = args::flag)] ensure_user_first: bool,
            attachment_templates: Option<&Bound<'py, PyAny>>,
            $(#[pyo3(from_py_with = args::flag)] $extra: bool),*
        ) -> PyResult<$ty> {
            let opts = api_options(
                py,
                (strict, max_media, short_ids, ensure_user_first),
                templates_dict(attachment_templates)?.as_ref(),
            )?;
            normalize_for_api_sourced(py, records, &opts, false $(|| $extra)*)
                .map($ret)
                .map_err(|e| if strict { with_violations(py, e, records) } else { e })
        }
    };
}

/// Declares a public function of the records alone, read with the default
/// options: `$run` is the core's operation on them and `$write` makes its
/// answer (as in [`with_records!`]).
macro_rules! records_fn {
    (
        $(#[$doc:meta])* fn $name:ident -> $ty:ty =
        |$src:ident, $recs:ident| $run:expr, |$w:ident, $out:ident| $write:expr $(,)?
    ) => {
        $(#[$doc])*
        #[pyfunction]
        pub(crate) fn $name<'py>(py: Python<'py>, records: &Bound<'py, PyAny>) -> PyResult<$ty> {
            Ok(with_records!(
                py,
                records,
                ReadOpts::default(),
                |$src, $recs| $run,
                |$w, $out| $write,
            ))
        }
    };
}

api_fn! {
    /// What is sent to the model (SPEC §4): only user and assistant records,
    /// repaired. Input is never mutated. Records the call did not change are the
    /// input's own objects (shared, like slicing); changed records and their
    /// `message` are fresh shallow copies that share the blocks the call did not
    /// change.
    fn normalize_for_api() -> Bound<'py, PyAny> = |(out, _)| out;
    "(records, *, strict=False, max_media=100, short_ids=False, ensure_user_first=True, attachment_templates=None)"
}

api_fn! {
    /// `(output, report)`: what is sent to the model (SPEC §4) and a count of
    /// every repair rule that fired, by name; with `source_map`, the report's
    /// `"source_map"` names, for each output record, the input records it came
    /// from (ascending; none for a record the pipeline inserted).
    fn normalize_for_api_report(source_map) -> (Bound<'py, PyAny>, Bound<'py, PyDict>) = |r| r;
    "(records, *, strict=False, max_media=100, short_ids=False, ensure_user_first=True, attachment_templates=None, source_map=False)"
}

/// `(output, report)` of `normalize_for_api`, and with `source_map` the report's `"source_map"`:
/// for each output record, the input records it came from (the core's
/// `Record::sources`), read off the same pass.
pub(crate) fn normalize_for_api_sourced<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    opts: &ApiOptions,
    source_map: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let mut report = Report::default();
    let read = ReadOpts {
        timestamps: true,
        ..ReadOpts::default()
    };
    let (out, sources) = with_records!(
        py,
        records,
        read,
        |_src, recs| msgnorm_core::normalize_for_api_report(recs, opts, &mut report),
        |w, out| {
            let sources = source_map.then(|| {
                out.iter()
                    .map(msgnorm_core::model::Record::source_list)
                    .collect::<Vec<_>>()
            });
            (w.records(&out)?, sources)
        },
    );
    let rep = PyDict::new(py);
    for (k, v) in report.items() {
        rep.set_item(k, v)?;
    }
    if let Some(sources) = sources {
        rep.set_item("source_map", sources)?;
    }
    Ok((out, rep))
}

records_fn! {
    /// Split for display (SPEC §3): one record per content block, derived uuids.
    fn normalize_messages -> Bound<'py, PyAny> =
        |_src, recs| msgnorm_core::split::normalize_messages(recs),
        |w, out| w.records(&out)?,
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

records_fn! {
    /// SPEC §1 only: the number of records, or the error any other entry point
    /// raises for the same input (the same reader, the same message and place).
    /// `msgnorm.decode` and `msgnorm.from_builtins` call it before msgspec converts.
    fn validate_records -> usize =
        |_src, recs| Ok::<_, Error>(recs.len()),
        |_w, n| n,
}

records_fn! {
    /// `[{"role": type, "content": message.content}]` of user and assistant records.
    fn to_anthropic -> Bound<'py, PyAny> =
        |_src, recs| msgnorm_core::model::check_anthropic_messages(&recs).map(|()| recs),
        |w, recs| w.anthropic(&recs)?,
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
