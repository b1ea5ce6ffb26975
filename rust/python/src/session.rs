//! `load_session`: session files in (already read by Python), the chosen
//! thread out as JSON bytes, with the thread list and the report as plain
//! Python values. The tree work runs in the core with the GIL released.

use crate::errors::released;
use crate::fields::{fields_dict, fields_dicts, set_fields};
use crate::{to_pyerr, Failure};
use msgnorm_core::error::Error;
use msgnorm_core::session::{self, codex, Fit, LineIssue, Options, Report, SourceFile, Thread};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

fn issues<'py>(py: Python<'py>, list: &[LineIssue]) -> PyResult<Bound<'py, PyList>> {
    Ok(fields_dicts!(py, list, [file, line, column, reason]))
}

fn thread_dict<'py>(py: Python<'py>, t: &Thread) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &t.id)?;
    d.set_item("kind", t.kind.name())?;
    set_fields!(
        d,
        t,
        [
            leaf,
            session_id,
            agent_id,
            file,
            records,
            first_prompt,
            last_timestamp
        ]
    );
    Ok(d)
}

fn report_dict<'py>(py: Python<'py>, report: &Report) -> PyResult<Bound<'py, PyDict>> {
    let r = fields_dict!(py, report, [lines, records]);
    r.set_item("skipped", issues(py, &report.skipped)?)?;
    r.set_item("repaired", issues(py, &report.repaired)?)?;
    set_fields!(
        r,
        report,
        [
            duplicate_uuids,
            missing_parents,
            cycles,
            recovered,
            compactions,
            before_compaction,
            preserved,
            unlinked_segments,
            microcompactions,
            cleared_results,
            client_only,
        ]
    );
    Ok(r)
}

/// `(file name or None, line)` per record: each file's name is one string
/// object shared by its records.
fn origin_list<'py>(
    py: Python<'py>,
    files: &[(String, Bound<'py, PyBytes>, Option<String>)],
    named: bool,
    at: impl ExactSizeIterator<Item = Option<(usize, usize)>>,
) -> PyResult<Bound<'py, PyList>> {
    let none = py.None().into_bound(py);
    let names: Vec<Bound<'py, PyAny>> = files
        .iter()
        .map(|f| {
            if named {
                PyString::new(py, &f.0).into_any()
            } else {
                none.clone()
            }
        })
        .collect();
    let items = at.map(|o| match o {
        Some((file, line)) => (names.get(file).unwrap_or(&none).clone(), line),
        None => (none.clone(), 0),
    });
    PyList::new(py, items)
}

/// `files`: `(name, data, agent id from the file name)`, in any order; a
/// Codex rollout is read on its own (`session::codex`).
/// `fit`: `(max_depth, max_int_digits)` of the Python objects the records
/// become (a record of the thread beyond them is skipped), or `None`.
/// `named`: the files are paths whose names the origins give (else `None`).
/// Returns `(thread records as a JSON array, threads, chosen index, report,
/// (file name or None, line) of each record, `(None, 0)` for a record no
/// line holds)`.
#[pyfunction]
#[pyo3(signature = (files, thread, after_compaction, raise_errors, fit=None, named=false))]
pub fn load_session<'py>(
    py: Python<'py>,
    files: Vec<(String, Bound<'py, PyBytes>, Option<String>)>,
    thread: &str,
    after_compaction: bool,
    raise_errors: bool,
    fit: Option<(usize, usize)>,
    named: bool,
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
    let rollouts: Vec<usize> = sources
        .iter()
        .enumerate()
        .filter(|(_, f)| codex::is_rollout(f.data))
        .map(|(k, _)| k)
        .collect();
    if let Some(&k) = rollouts.first() {
        if sources.len() > 1 {
            let msg = format!(
                "{} is a Codex rollout: load each rollout on its own",
                sources[k].name
            );
            return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
        }
        let r = released(py, || codex::load(&sources[k], k, &opts))?;
        let out = PyBytes::new(py, r.json.as_bytes());
        let ts = PyList::empty(py);
        ts.append(thread_dict(py, &r.thread)?)?;
        let origins = origin_list(py, &files, named, r.origin.iter().map(|&o| Some(o)))?;
        let rep = report_dict(py, &r.report)?;
        return Ok((out, ts, 0usize, rep, origins)
            .into_pyobject(py)?
            .into_any());
    }
    let loaded = released(py, || session::load(&sources, &opts))?;
    let out = crate::alloc::bytes_with(py, loaded.chain_len(), |buf| {
        released(py, || loaded.write_chain_into(buf))
    })?;
    let ts = PyList::empty(py);
    for t in &loaded.threads {
        ts.append(thread_dict(py, t)?)?;
    }
    let r = report_dict(py, &loaded.report)?;
    let at = loaded.chain.iter().map(|&i| loaded.origin.get(i).copied());
    let origins = origin_list(py, &files, named, at)?;
    Ok((out, ts, loaded.chosen, r, origins)
        .into_pyobject(py)?
        .into_any())
}
