//! `normalize_for_api_report(..., source_map=True)`: for each output record,
//! the indices of the input records it came from (the core's `Record::sources`).

use crate::read::{read_records_for_api, Strs};
use crate::view::Ctx;
use crate::{
    api_options, args, guard, input, normalize_for_api_with, templates_dict, to_pyerr,
    with_violations, Failure, GcPaused, Input,
};
use msgnorm_core::model::Record;
use msgnorm_core::{ApiOptions, Report};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn sources<H>(out: &[Record<'_, H>]) -> Vec<Vec<usize>> {
    out.iter().map(Record::source_list).collect()
}

/// `(output, report)`: what is sent to the model (SPEC §4) and a count of
/// every repair rule that fired, by name; with `source_map`, the report's
/// `"source_map"` names, for each output record, the input records it came
/// from (ascending; none for a record the pipeline inserted).
#[pyfunction]
#[pyo3(signature = (
    records, *, strict=false, max_media=Some(100), short_ids=false,
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
    let (out, report) = normalize_for_api_with(py, records, &opts).map_err(|e| {
        if strict {
            with_violations(py, e, records)
        } else {
            e
        }
    })?;
    if source_map {
        // A second pass that keeps the records' sources (asked for only).
        report.set_item("source_map", sources_of(py, records, &opts)?)?;
    }
    Ok((out, report))
}

/// Per output record of `normalize_for_api` with `opts`, the input record
/// indices it holds.
fn sources_of(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    opts: &ApiOptions,
) -> PyResult<Vec<Vec<usize>>> {
    let on_text = |data: &[u8]| {
        py.detach(|| {
            guard(|| {
                let (out, _) = msgnorm_core::on_json::normalize_for_api_records(
                    data,
                    opts,
                    &mut Report::default(),
                )?;
                Ok(sources(&out))
            })
        })
        .map_err(|e| to_pyerr(py, e))
    };
    match input(records)? {
        Input::List(l) => {
            let ctx = Ctx::for_list(&l)?;
            let strs = Strs::new();
            guard(|| {
                let recs = read_records_for_api(&ctx, &strs, &l)?;
                let out = msgnorm_core::normalize_for_api(recs, opts).map_err(Failure::Core)?;
                Ok(sources(&out))
            })
            .map_err(|e| to_pyerr(py, e))
        }
        Input::Bytes(b) => on_text(b.as_bytes()),
        Input::Str(s) => on_text(s.to_str()?.as_bytes()),
    }
}
