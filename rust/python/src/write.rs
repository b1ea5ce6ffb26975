//! Core records → Python objects. Changed records and messages are fresh
//! (shallow) dicts; unchanged blocks are the input's own objects.

use crate::read::{Obj, Rec};
use msgnorm_core::model::{Block, BlockKind, Content, Kind, Meta};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// `share_unchanged`: a record the call did not change is returned as the same
/// object (slicing semantics, for trimming); otherwise every message record is a
/// fresh dict with a fresh `message` dict.
pub fn records_to_py<'py>(
    py: Python<'py>,
    recs: &[Rec<'py>],
    share_unchanged: bool,
) -> PyResult<Bound<'py, PyList>> {
    let items = recs
        .iter()
        .map(|r| match &r.orig {
            Some(o)
                if share_unchanged && !r.uuid_dirty && r.meta == Meta::Keep && !r.content_dirty =>
            {
                Ok(o.clone())
            }
            _ => record_to_py(py, r),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

fn role(kind: Kind) -> &'static str {
    if kind == Kind::Assistant {
        "assistant"
    } else {
        "user"
    }
}

pub fn record_to_py<'py>(py: Python<'py>, r: &Rec<'py>) -> PyResult<Obj<'py>> {
    let Some(orig) = &r.orig else {
        let d = PyDict::new(py);
        d.set_item("type", role(r.kind))?;
        d.set_item("uuid", r.uuid_str())?;
        let m = PyDict::new(py);
        m.set_item("role", role(r.kind))?;
        m.set_item("content", content_to_py(py, &r.content)?)?;
        d.set_item("message", m)?;
        if let Some(ts) = &r.timestamp {
            d.set_item("timestamp", ts)?;
        }
        if r.is_meta {
            d.set_item("isMeta", true)?;
        }
        return Ok(d.into_any());
    };
    let Ok(od) = orig.cast::<PyDict>() else {
        return Ok(orig.clone());
    };
    if !r.kind.is_message() {
        return Ok(orig.clone());
    }
    let d = od.copy()?;
    if r.uuid_dirty {
        d.set_item("uuid", r.uuid_str())?;
    }
    match r.meta {
        Meta::Keep => {}
        Meta::True => d.set_item("isMeta", true)?,
        Meta::Absent => {
            if d.contains("isMeta")? {
                d.del_item("isMeta")?;
            }
        }
    }
    if let Some(m) = od.get_item("message")? {
        if let Ok(m) = m.cast::<PyDict>() {
            let m = m.copy()?;
            m.set_item("content", content_to_py(py, &r.content)?)?;
            d.set_item("message", m)?;
        }
    }
    Ok(d.into_any())
}

pub fn content_to_py<'py>(py: Python<'py>, c: &Content<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    match c {
        Content::Str(s) => Ok(PyString::new(py, s).into_any()),
        Content::Blocks(bs) => {
            let items = bs
                .iter()
                .map(|b| block_to_py(py, b))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
    }
}

fn block_to_py<'py>(py: Python<'py>, b: &Block<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    match (&b.orig, b.dirty) {
        (Some(orig), false) => Ok(orig.clone()),
        (Some(orig), true) => {
            let d = match orig.cast::<PyDict>() {
                Ok(d) => d.copy()?,
                Err(_) => PyDict::new(py),
            };
            if b.kind == BlockKind::Text {
                d.set_item("text", b.text_str())?;
            } else {
                d.set_item("content", inner_to_py(py, b)?)?;
            }
            Ok(d.into_any())
        }
        (None, _) => {
            let d = PyDict::new(py);
            if b.kind == BlockKind::ToolResult {
                d.set_item("type", "tool_result")?;
                d.set_item("tool_use_id", b.id.as_deref().unwrap_or(""))?;
                d.set_item("content", inner_to_py(py, b)?)?;
                if b.is_error {
                    d.set_item("is_error", true)?;
                }
            } else {
                d.set_item("type", "text")?;
                d.set_item("text", b.text_str())?;
            }
            Ok(d.into_any())
        }
    }
}

fn inner_to_py<'py>(py: Python<'py>, b: &Block<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    match &b.inner {
        Some(c) => content_to_py(py, c),
        None => Ok(py.None().into_bound(py)),
    }
}
