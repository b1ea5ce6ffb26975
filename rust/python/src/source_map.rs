//! `normalize_for_api_report(..., source_map=True)`: for each output record,
//! the indices of the input records it came from (the core's `Record::sources`).

use crate::read::{read_records_for_api, Strs};
use crate::view::Ctx;
use crate::{api_options, args, guard, input, templates_dict, to_pyerr, Failure, Input};
use msgnorm_core::model::Record;
use msgnorm_core::Report;
use pyo3::prelude::*;

fn sources<H>(out: &[Record<'_, H>]) -> Vec<Vec<usize>> {
    out.iter().map(Record::source_list).collect()
}

/// Per output record of `normalize_for_api` (same options), the input record
/// indices it holds, ascending; a record the pipeline inserted holds none.
#[pyfunction]
#[pyo3(signature = (
    records, *, strict=false, max_media=Some(100), short_ids=false,
    ensure_user_first=true, attachment_templates=None,
))]
#[allow(clippy::too_many_arguments)]
pub fn normalize_sources<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = args::flag)] strict: bool,
    #[pyo3(from_py_with = args::max_media)] max_media: Option<usize>,
    #[pyo3(from_py_with = args::flag)] short_ids: bool,
    #[pyo3(from_py_with = args::flag)] ensure_user_first: bool,
    attachment_templates: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Vec<usize>>> {
    let opts = api_options(
        py,
        (strict, max_media, short_ids, ensure_user_first),
        templates_dict(attachment_templates)?.as_ref(),
    )?;
    let on_text = |data: &[u8]| {
        py.detach(|| {
            guard(|| {
                let (out, _) = msgnorm_core::on_json::normalize_for_api_records(
                    data,
                    &opts,
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
                let out = msgnorm_core::normalize_for_api(recs, &opts).map_err(Failure::Core)?;
                Ok(sources(&out))
            })
            .map_err(|e| to_pyerr(py, e))
        }
        Input::Bytes(b) => on_text(b.as_bytes()),
        Input::Str(s) => on_text(s.to_str()?.as_bytes()),
    }
}
