//! `normalize_for_api_report(..., source_map=True)`: for each output record,
//! the indices of the input records it came from (the core's `Record::sources`).

use crate::api::normalize_for_api_sourced;
use crate::args::{self, api_options, templates_dict};
use crate::errors::with_violations;
use crate::input::GcPaused;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `(output, report)`: what is sent to the model (SPEC §4) and a count of
/// every repair rule that fired, by name; with `source_map`, the report's
/// `"source_map"` names, for each output record, the input records it came
/// from (ascending; none for a record the pipeline inserted).
#[pyfunction]
#[pyo3(signature = (
    records, *, strict=false, max_media=msgnorm_core::DEFAULT_MAX_MEDIA, short_ids=false,
    ensure_user_first=true, attachment_templates=None, source_map=false,
))]
#[pyo3(
    text_signature = "(records, *, strict=False, max_media=100, short_ids=False, ensure_user_first=True, attachment_templates=None, source_map=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn normalize_for_api_report<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = args::flag)] strict: bool,
    #[pyo3(from_py_with = args::max_media)] max_media: Option<usize>,
    #[pyo3(from_py_with = args::flag)] short_ids: bool,
    #[pyo3(from_py_with = args::flag)] ensure_user_first: bool,
    attachment_templates: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = args::flag)] source_map: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let opts = api_options(
        py,
        (strict, max_media, short_ids, ensure_user_first),
        templates_dict(attachment_templates)?.as_ref(),
    )?;
    let _gc = GcPaused::new(py)?;
    normalize_for_api_sourced(py, records, &opts, source_map).map_err(|e| {
        if strict {
            with_violations(py, e, records)
        } else {
            e
        }
    })
}
