//! `session_usage`, `list_sessions` and `search`: paths in, plain Python values
//! out. The files are read and scanned in the core with the GIL released.

use crate::errors::released;
use crate::fields::{fields_dict, fields_dicts, set_fields};
use crate::{to_pyerr, Failure};
use msgnorm_core::batch;
use msgnorm_core::listing;
use msgnorm_core::search::{self, Options as SearchOptions};
use msgnorm_core::usage::{self, Agg, FileIn, Group, Options, Totals};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn totals<'py>(py: Python<'py>, t: &Totals) -> PyResult<Bound<'py, PyDict>> {
    Ok(fields_dict!(
        py,
        t,
        [
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_creation_5m_input_tokens,
            cache_creation_1h_input_tokens,
            cache_read_input_tokens,
            server_tool_use,
            requests,
        ]
    ))
}

fn models<'py>(py: Python<'py>, m: &BTreeMap<String, Totals>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in m {
        d.set_item(k, totals(py, v)?)?;
    }
    Ok(d)
}

/// `{"total", "models", "subagents", "subagent_models"}`.
fn agg<'py>(py: Python<'py>, a: &Agg) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("total", totals(py, &a.total)?)?;
    d.set_item("models", models(py, &a.models)?)?;
    d.set_item("subagents", totals(py, &a.subagents)?)?;
    d.set_item("subagent_models", models(py, &a.subagent_models)?)?;
    Ok(d)
}

fn pool_threads(threads: Option<usize>) -> usize {
    batch::threads(threads)
}

/// `files`: `(path, is a subagent file, session, project)`; `by`: "" (none),
/// "session", "model", "project" or "minute". Returns
/// `{"total": agg, "groups": {key: agg}, "files", "lines_skipped", "synthetic"}`.
#[pyfunction]
#[pyo3(signature = (files, by, since=None, until=None, threads=None))]
pub fn usage_scan<'py>(
    py: Python<'py>,
    files: Vec<(PathBuf, bool, String, String)>,
    by: &str,
    since: Option<String>,
    until: Option<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let group = Group::parse(by).map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    let files: Vec<FileIn> = files
        .into_iter()
        .map(|(path, agent, session, project)| FileIn {
            path,
            agent,
            session,
            project,
        })
        .collect();
    let opts = Options {
        group,
        since,
        until,
        threads: pool_threads(threads),
    };
    let summary = released(py, || usage::usage(&files, &opts))?;
    let d = PyDict::new(py);
    d.set_item("total", agg(py, &summary.total)?)?;
    let g = PyDict::new(py);
    for (k, v) in &summary.groups {
        g.set_item(k, agg(py, v)?)?;
    }
    d.set_item("groups", g)?;
    set_fields!(d, summary, [files, lines_skipped, synthetic]);
    Ok(d)
}

/// One dict per path, in order (see `listing::SessionInfo`).
#[pyfunction]
#[pyo3(signature = (paths, threads=None))]
pub fn session_infos<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let n = pool_threads(threads);
    let infos = released(py, || listing::list(&paths, n))?;
    Ok(fields_dicts!(
        py,
        &infos,
        [
            session_id,
            custom_title,
            summary,
            first_prompt,
            created,
            last_timestamp,
            mtime,
            size,
            cwd,
            git_branch,
            model,
        ]
    ))
}

/// The hits in file and line order: dicts with `file` (an index into `paths`),
/// `line`, `session`, `uuid`, `timestamp`, `role`, `field` and `snippet`.
#[pyfunction]
#[pyo3(signature = (paths, pattern, regex=false, tools=false, threads=None))]
pub fn search_files<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    pattern: String,
    regex: bool,
    tools: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let opts = SearchOptions {
        pattern,
        regex,
        tools,
        threads: pool_threads(threads),
    };
    let hits = released(py, || search::search(&paths, &opts))?;
    Ok(fields_dicts!(
        py,
        &hits,
        [file, line, session, uuid, timestamp, role, field, snippet]
    ))
}

/// Each file's requests as JSON Lines that `usage_scan` reads back the same
/// (what a per-file cache stores), with its skipped lines: `files` are
/// `(path, is a subagent file)`.
#[pyfunction]
#[pyo3(signature = (files, threads=None))]
pub fn usage_entries<'py>(
    py: Python<'py>,
    files: Vec<(PathBuf, bool)>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let n = pool_threads(threads);
    let scans = released(py, || usage::scan_files(&files, n))?;
    let out = PyList::empty(py);
    for (data, skipped) in &scans {
        out.append((pyo3::types::PyBytes::new(py, data), skipped))?;
    }
    Ok(out)
}
