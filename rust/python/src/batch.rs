//! The batch kernel (`normalize_batch` / `count_tokens_batch`): JSON items (bytes or str) on the
//! core's batch kernel, the GIL released, one result or error per item.

use crate::args::{api_args, params, ApiArgs, Counting};
use crate::errors::{to_pyerr, Failure};
use msgnorm_core::{batch, on_json, Report};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

/// An item's text, borrowed from its Python object.
struct Item<'a> {
    data: &'a [u8],
    is_str: bool,
}

fn items<'py>(py: Python<'py>, list: &Bound<'py, PyList>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let out: Vec<Bound<'py, PyAny>> = list.iter().collect();
    for (i, it) in out.iter().enumerate() {
        if !(it.is_instance_of::<PyBytes>() || it.is_instance_of::<PyString>()) {
            let msg = format!("items[{i}]: expected JSON bytes or str");
            return Err(to_pyerr(py, Failure::Core(msgnorm_core::Error::value(msg))));
        }
    }
    Ok(out)
}

fn borrow<'a, 'py>(objs: &'a [Bound<'py, PyAny>]) -> Vec<Result<Item<'a>, msgnorm_core::Error>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| {
            if let Ok(b) = o.cast::<PyBytes>() {
                Ok(Item {
                    data: b.as_bytes(),
                    is_str: false,
                })
            } else if let Ok(s) = o.cast::<PyString>() {
                // A str with a lone surrogate is not Unicode text: that item fails alone.
                s.to_str()
                    .map(|t| Item {
                        data: t.as_bytes(),
                        is_str: true,
                    })
                    .map_err(|_| not_text(objs, i))
            } else {
                Err(not_text(objs, i))
            }
        })
        .collect()
}

/// The error of item `i` as an exception object carrying `.item`.
pub(crate) fn item_error<'py>(
    py: Python<'py>,
    i: usize,
    e: msgnorm_core::Error,
) -> PyResult<Bound<'py, PyAny>> {
    let err = to_pyerr(py, Failure::Core(e));
    let value = err.value(py).clone().into_any();
    value.setattr("item", i)?;
    Ok(value)
}

/// Item `i` is a str that is not Unicode text: the error every other reader of
/// that str raises (the item's index is the exception's `.item`).
fn not_text(objs: &[Bound<'_, PyAny>], i: usize) -> msgnorm_core::Error {
    match objs[i].cast::<PyString>() {
        Ok(s) => crate::errors::surrogate_error(s),
        Err(_) => msgnorm_core::Error::value(format!("items[{i}]: expected JSON bytes or str")),
    }
}

/// The batch kernel over every item, in input order. With `api`,
/// `normalize_for_api`: each item's `(output, report)`; with `counting` alone,
/// its per-record token counts. A bad item is its error (an exception object
/// with `.item`).
#[pyfunction]
#[pyo3(signature = (items, session, num_threads, api, counting))]
pub fn batch_kernel<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyList>,
    session: bool,
    num_threads: Option<usize>,
    api: Option<ApiArgs<'py>>,
    counting: Option<Counting>,
) -> PyResult<Bound<'py, PyList>> {
    let objs = self::items(py, items)?;
    let borrowed = borrow(&objs);
    let n = batch::threads(num_threads);
    match (api, counting) {
        (Some(api), _) => normalize(py, &borrowed, session, n, api),
        (None, Some(counting)) => count(py, &borrowed, session, n, counting),
        (None, None) => {
            let msg = "internal error: the batch kernel without a job";
            Err(to_pyerr(py, Failure::Core(msgnorm_core::Error::value(msg))))
        }
    }
}

type Items<'a> = [Result<Item<'a>, msgnorm_core::Error>];

/// Each item's `(output, report)`, or its error.
fn normalize<'py>(
    py: Python<'py>,
    borrowed: &Items<'_>,
    session: bool,
    n: usize,
    api: ApiArgs<'py>,
) -> PyResult<Bound<'py, PyList>> {
    let opts = api_args(py, api)?;
    let run = |part: &Items<'_>| {
        batch::map(part, n, |it| {
            let it = it.as_ref().map_err(Clone::clone)?;
            let mut report = Report::default();
            let out = if session {
                on_json::normalize_session(it.data, &opts, &mut report)?
            } else {
                on_json::normalize_for_api(it.data, &opts, &mut report)?
            };
            Ok((out, report))
        })
    };
    let out = PyList::empty(py);
    let parts = pipeline_parts(borrowed.len(), n);
    if parts <= 1 {
        let results = py
            .detach(|| run(borrowed))
            .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
        append_outputs(py, &out, 0, results, borrowed)?;
        return Ok(out);
    }
    // A pipeline: the pool works on part k+1 (driven from a scoped thread) while
    // this thread, holding the GIL, turns part k into Python objects. The copies
    // into bytes objects (and the page faults of their fresh memory) then overlap
    // with the work instead of following it on one core.
    let size = borrowed.len().div_ceil(parts);
    let chunks: Vec<&Items<'_>> = borrowed.chunks(size).collect();
    std::thread::scope(|scope| -> PyResult<()> {
        let mut pending = Some(scope.spawn(|| run(chunks[0])));
        for (k, part) in chunks.iter().enumerate() {
            let Some(handle) = pending.take() else { break };
            let results = py
                .detach(|| handle.join())
                .unwrap_or_else(|_| {
                    Err(msgnorm_core::Error::value(
                        "internal error in msgnorm's batch pipeline (please report it)",
                    ))
                })
                .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
            if let Some(next) = chunks.get(k + 1).copied() {
                pending = Some(scope.spawn(move || run(next)));
            }
            append_outputs(py, &out, k * size, results, part)?;
        }
        Ok(())
    })?;
    Ok(out)
}

/// How many parts a batch is cut into for the pipeline: 1 (no pipeline) on one
/// thread or for a few items; else about 16, each at least 4 items per thread.
fn pipeline_parts(items: usize, threads: usize) -> usize {
    if threads <= 1 {
        return 1;
    }
    (items / (4 * threads)).clamp(1, 16)
}

type Normalized = Vec<msgnorm_core::Result<(Vec<u8>, Report)>>;

/// Appends each item's `(output, report)` (or its error, `.item` = `base` + its place).
fn append_outputs<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyList>,
    base: usize,
    results: Normalized,
    items: &Items<'_>,
) -> PyResult<()> {
    for (i, (r, it)) in results.into_iter().zip(items).enumerate() {
        match r {
            Ok((bytes, report)) => {
                let value = match it {
                    Ok(Item { is_str: true, .. }) => {
                        PyString::new(py, std::str::from_utf8(&bytes).unwrap_or_default())
                            .into_any()
                    }
                    _ => PyBytes::new(py, &bytes).into_any(),
                };
                let rep = PyDict::new(py);
                for (k, v) in report.items() {
                    rep.set_item(k, v)?;
                }
                out.append((value, rep))?;
            }
            Err(e) => out.append(item_error(py, base + i, e)?)?,
        }
    }
    Ok(())
}

/// Each item's per-record token counts, or its error.
fn count<'py>(
    py: Python<'py>,
    borrowed: &Items<'_>,
    session: bool,
    n: usize,
    counting: Counting,
) -> PyResult<Bound<'py, PyList>> {
    let p = params(counting);
    let results = py
        .detach(|| {
            batch::map(borrowed, n, |it| {
                let it = it.as_ref().map_err(Clone::clone)?;
                if session {
                    on_json::count_session_tokens(it.data, &p)
                } else {
                    on_json::count_tokens_per_record(it.data, &p)
                }
            })
        })
        .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    let out = PyList::empty(py);
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Ok(costs) => out.append(costs)?,
            Err(e) => out.append(item_error(py, i, e)?)?,
        }
    }
    Ok(out)
}

/// The number of threads the batch functions use by default.
#[pyfunction]
pub fn default_num_threads() -> usize {
    batch::threads(None)
}
