//! `load_session`: session files in (already read by Python), the chosen
//! thread out as JSON bytes, with the thread list and the report as plain
//! Python values. The tree work runs in the core with the GIL released.

use crate::{guard, to_pyerr, Failure};
use msgnorm_core::session::{self, Fit, LineIssue, Options, SourceFile, Thread};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

fn issues<'py>(py: Python<'py>, list: &[LineIssue]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for i in list {
        let d = PyDict::new(py);
        d.set_item("file", i.file)?;
        d.set_item("line", i.line)?;
        d.set_item("column", i.column)?;
        d.set_item("reason", &i.reason)?;
        out.append(d)?;
    }
    Ok(out)
}

fn thread_dict<'py>(py: Python<'py>, t: &Thread) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &t.id)?;
    d.set_item("kind", t.kind.name())?;
    d.set_item("leaf", &t.leaf)?;
    d.set_item("session_id", &t.session_id)?;
    d.set_item("agent_id", &t.agent_id)?;
    d.set_item("file", t.file)?;
    d.set_item("records", t.records)?;
    d.set_item("first_prompt", &t.first_prompt)?;
    d.set_item("last_timestamp", &t.last_timestamp)?;
    Ok(d)
}

/// `files`: `(name, data, agent id from the file name)`, in any order.
/// `fit`: `(max_depth, max_int_digits)` of the Python objects the records
/// become (a record of the thread beyond them is skipped), or `None`.
/// Returns `(thread records as a JSON array, threads, chosen index, report)`.
#[pyfunction]
#[pyo3(signature = (files, thread, after_compaction, raise_errors, fit=None))]
pub fn load_session<'py>(
    py: Python<'py>,
    files: Vec<(String, Bound<'py, PyBytes>, Option<String>)>,
    thread: &str,
    after_compaction: bool,
    raise_errors: bool,
    fit: Option<(usize, usize)>,
) -> PyResult<Bound<'py, PyAny>> {
    let sources: Vec<SourceFile<'_>> = files
        .iter()
        .map(|(name, data, agent)| SourceFile {
            name,
            data: data.as_bytes(),
            agent_id: agent.as_deref(),
        })
        .collect();
    let opts = Options {
        thread,
        after_compaction,
        raise: raise_errors,
        fit: fit.map(|(max_depth, max_int_digits)| Fit {
            max_depth,
            max_int_digits,
        }),
    };
    let loaded = py
        .detach(|| guard(|| session::load(&sources, &opts).map_err(Failure::Core)))
        .map_err(|e| to_pyerr(py, e))?;
    let out = PyBytes::new_with(py, loaded.chain_len(), |buf| {
        py.detach(|| guard(|| loaded.write_chain_into(buf).map_err(Failure::Core)))
            .map_err(|e| to_pyerr(py, e))
    })?;
    let (threads, chosen, report) = (&loaded.threads, loaded.chosen, &loaded.report);
    let ts = PyList::empty(py);
    for t in threads {
        ts.append(thread_dict(py, t)?)?;
    }
    let r = PyDict::new(py);
    r.set_item("lines", report.lines)?;
    r.set_item("records", report.records)?;
    r.set_item("skipped", issues(py, &report.skipped)?)?;
    r.set_item("repaired", issues(py, &report.repaired)?)?;
    r.set_item("duplicate_uuids", report.duplicate_uuids)?;
    r.set_item("missing_parents", report.missing_parents)?;
    r.set_item("cycles", report.cycles)?;
    r.set_item("recovered", report.recovered)?;
    r.set_item("compactions", report.compactions)?;
    r.set_item("before_compaction", report.before_compaction)?;
    Ok((out, ts, chosen, r).into_pyobject(py)?.into_any())
}
