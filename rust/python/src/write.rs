//! Core records → Python objects of the input's kind (dicts or msgnorm Structs).
//! Changed records and their messages are fresh shallow copies; unchanged blocks
//! are the input's own objects.

use crate::fresh::Fresh;
use crate::read::Rec;
use crate::view::{Ctx, Obj};
use msgnorm_core::model::{Block, BlockKind, Content, Meta};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

/// `share_unchanged`: a record the call did not change is returned as the same
/// object (slicing semantics, for trimming); otherwise every message record is a
/// fresh copy with a fresh `message`.
pub fn records_to_py<'py>(
    ctx: &Ctx<'py>,
    recs: &[Rec<'_, 'py>],
    share_unchanged: bool,
) -> PyResult<Bound<'py, PyList>> {
    let mut young = Young::new(ctx, recs.len());
    let items = recs
        .iter()
        .map(|r| match &r.orig {
            Some(o)
                if share_unchanged && !r.uuid_dirty && r.meta == Meta::Keep && !r.content_dirty =>
            {
                Ok(o.clone())
            }
            _ => {
                let rec = record_to_py(ctx, r)?;
                if !r.orig.as_ref().is_some_and(|o| rec.is(o)) {
                    young.hold(&rec, r)?;
                }
                Ok(rec)
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(ctx.py(), items)
}

/// The containers a writer builds, untracked while the call builds them
/// ([`Fresh`]): each new record, its message, the message's content list and
/// the blocks in it that are new.
struct Young<'c, 'py> {
    ctx: &'c Ctx<'py>,
    fresh: Fresh<'py>,
}

impl<'c, 'py> Young<'c, 'py> {
    fn new(ctx: &'c Ctx<'py>, records: usize) -> Self {
        Young {
            ctx,
            fresh: Fresh::with_capacity(records.saturating_mul(3)),
        }
    }

    /// Untracks a new record `rec` (written from `r`), its message, the
    /// message's content list and the blocks in it that are new (those the
    /// collector tracks).
    fn hold(&mut self, rec: &Obj<'py>, r: &Rec<'_, 'py>) -> PyResult<()> {
        let mut next = Some(rec.clone());
        let mut content = None;
        for key in ["message", "content", ""] {
            let Some(obj) = next.take() else { break };
            if key.is_empty() {
                content = Some(obj.clone());
            } else {
                next = match self.ctx.view(&obj)? {
                    Some(v) => self.ctx.get(&v, key)?,
                    None => None,
                };
            }
            self.fresh.hold(&obj);
        }
        // the blocks `content_to_py` made: one list item per block, in order
        if let (Some(list), Content::Blocks(bs)) = (content, &r.content) {
            if let Ok(list) = list.cast::<PyList>() {
                for (j, b) in bs.iter().enumerate() {
                    if b.orig.is_none() || b.dirty {
                        if let Ok(item) = list.get_item(j) {
                            self.fresh.hold(&item);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn s<'py>(py: Python<'py>, text: &str) -> Obj<'py> {
    PyString::new(py, text).into_any()
}

pub fn record_to_py<'py>(ctx: &Ctx<'py>, r: &Rec<'_, 'py>) -> PyResult<Obj<'py>> {
    let py = ctx.py();
    let Some(orig) = &r.orig else {
        // A record the pipeline made: type, uuid, message, timestamp, isMeta.
        let message = ctx.make(
            "UserPayload",
            &[
                ("role", s(py, r.kind.role())),
                ("content", content_to_py(ctx, &r.content)?),
            ],
        )?;
        let mut fields = vec![
            ("type", s(py, r.kind.role())),
            ("uuid", s(py, r.uuid_str())),
            ("message", message),
        ];
        if let Some(ts) = &r.timestamp {
            fields.push(("timestamp", ts.clone()));
        }
        if r.is_meta {
            fields.push(("isMeta", PyBool::new(py, true).to_owned().into_any()));
        }
        return ctx.make("UserMessage", &fields);
    };
    if !r.kind.is_message() {
        return Ok(orig.clone());
    }
    let Some(view) = ctx.view(orig)? else {
        return Ok(orig.clone());
    };
    let mut set: Vec<(&str, Option<Obj<'py>>)> = Vec::with_capacity(3);
    if r.uuid_dirty {
        set.push(("uuid", Some(s(py, r.uuid_str()))));
    }
    match r.meta {
        Meta::Keep => {}
        Meta::True => set.push(("isMeta", Some(PyBool::new(py, true).to_owned().into_any()))),
        Meta::Absent => set.push(("isMeta", None)),
    }
    if let Some(m) = ctx.get(&view, "message")? {
        let m = ctx.replace(&m, &[("content", Some(content_to_py(ctx, &r.content)?))])?;
        set.push(("message", Some(m)));
    }
    ctx.replace(orig, &set)
}

pub fn content_to_py<'py>(ctx: &Ctx<'py>, c: &Content<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    match c {
        Content::Str(text) => Ok(ctx.text(text)),
        Content::Blocks(bs) => {
            let items = bs
                .iter()
                .map(|b| block_to_py(ctx, b))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(ctx.py(), items)?.into_any())
        }
    }
}

fn block_to_py<'py>(ctx: &Ctx<'py>, b: &Block<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    let py = ctx.py();
    match (&b.orig, b.dirty) {
        (Some(orig), false) => Ok(orig.clone()),
        (Some(orig), true) => {
            if b.kind == BlockKind::Text {
                ctx.replace(orig, &[("text", Some(s(py, b.text_str())))])
            } else if b.kind == BlockKind::ToolUse {
                // A tool input cleared by context editing.
                ctx.replace(orig, &[("input", Some(PyDict::new(py).into_any()))])
            } else {
                ctx.replace(orig, &[("content", Some(inner_to_py(ctx, b)?))])
            }
        }
        (None, _) => {
            if b.kind == BlockKind::ToolResult {
                let mut fields = vec![
                    ("type", s(py, "tool_result")),
                    ("tool_use_id", s(py, b.id.as_deref().unwrap_or(""))),
                    ("content", inner_to_py(ctx, b)?),
                ];
                if b.is_error {
                    fields.push(("is_error", PyBool::new(py, true).to_owned().into_any()));
                }
                ctx.make("ToolResultBlock", &fields)
            } else {
                ctx.make(
                    "TextBlock",
                    &[("type", s(py, "text")), ("text", s(py, b.text_str()))],
                )
            }
        }
    }
}

fn inner_to_py<'py>(ctx: &Ctx<'py>, b: &Block<'_, Obj<'py>>) -> PyResult<Obj<'py>> {
    match &b.inner {
        Some(c) => content_to_py(ctx, c),
        None => Ok(ctx.py().None().into_bound(ctx.py())),
    }
}
