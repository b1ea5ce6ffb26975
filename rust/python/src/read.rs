//! Python objects (lists of JSON-shaped dicts) → core records.
//!
//! Strings the pipeline reads are copied out (the core never borrows from
//! Python memory); everything else is reached through the handle `Obj`.

use crate::view::{Ctx, View};
use msgnorm_core::model::{AttValue, Block, BlockKind, Content, Cost, Kind, Record, Str};
use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::borrow::Cow;
use std::fmt::Display;

/// A block path, built only when an error displays it.
struct Lazy<'p>((&'p str, usize));

impl Display for Lazy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.0 .0, self.0 .1)
    }
}

pub type Obj<'py> = Bound<'py, PyAny>;
pub type Rec<'py> = Record<'static, Obj<'py>>;

const MAX_BLOCK_DEPTH: usize = 32;
/// Nesting beyond this in a tool input is refused (it also stops cyclic objects).
const MAX_VALUE_DEPTH: usize = 100_000;

pub enum Failure {
    Core(Error),
    Py(PyErr),
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}
impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

type R<T> = Result<T, Failure>;

fn invalid(index: usize, path: String, msg: &str) -> Failure {
    Failure::Core(Error::invalid(index, path, msg))
}

fn get<'py>(ctx: &Ctx<'py>, v: &View<'py>, key: &'static str) -> R<Option<Obj<'py>>> {
    Ok(ctx.get(v, key)?)
}

/// A str's text; `None` for any other object. A str that is not valid Unicode
/// (a lone surrogate) is an invalid record: the index and path are filled in
/// by [`locate`] where the caller knows them.
fn as_str(v: &Obj<'_>) -> R<Option<String>> {
    match v.cast::<PyString>() {
        Ok(s) => match s.to_str() {
            Ok(t) => Ok(Some(t.to_owned())),
            Err(_) => Err(invalid(usize::MAX, String::new(), SURROGATE)),
        },
        Err(_) => Ok(None),
    }
}

const SURROGATE: &str = "holds a lone surrogate, which is not valid Unicode text";

/// Names the record and field of an `as_str` failure.
pub fn locate<T>(r: R<T>, index: usize, path: impl FnOnce() -> String) -> R<T> {
    match r {
        Err(Failure::Core(Error::InvalidRecord {
            index: usize::MAX, ..
        })) => Err(invalid(index, path(), SURROGATE)),
        other => other,
    }
}

fn is_true(v: &Option<Obj<'_>>) -> bool {
    v.as_ref()
        .is_some_and(|v| v.is(PyBool::new(v.py(), true).as_any()))
}

/// A required string field: `Ok(None)` never; errors name the path.
fn req_str<'py>(
    ctx: &Ctx<'py>,
    d: &View<'py>,
    key: &'static str,
    index: usize,
    path: &dyn Display,
) -> R<String> {
    match get(ctx, d, key)? {
        None => Err(invalid(
            index,
            format!("{path}.{key}"),
            "missing required field",
        )),
        Some(v) => match locate(as_str(&v), index, || format!("{path}.{key}"))? {
            Some(s) => Ok(s),
            None => Err(invalid(index, format!("{path}.{key}"), "must be a string")),
        },
    }
}

pub fn read_records<'py>(
    ctx: &Ctx<'py>,
    list: &Bound<'py, PyList>,
    count: bool,
) -> R<Vec<Rec<'py>>> {
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(read_record(ctx, item, i, count)?);
    }
    Ok(out)
}

fn read_record<'py>(ctx: &Ctx<'py>, item: Obj<'py>, index: usize, count: bool) -> R<Rec<'py>> {
    let path = format!("records[{index}]");
    let Some(d) = ctx.view(&item)? else {
        return Err(invalid(
            index,
            path,
            "a record must be a dict (a JSON object)",
        ));
    };
    let d = &d;
    let ty = match get(ctx, d, "type")? {
        None => {
            return Err(invalid(
                index,
                format!("{path}.type"),
                "missing required field",
            ))
        }
        Some(v) => match locate(as_str(&v), index, || format!("{path}.type"))? {
            Some(s) => s,
            None => return Err(invalid(index, format!("{path}.type"), "must be a string")),
        },
    };
    let kind = Kind::from_type(&ty);
    let mut rec: Rec<'py> = Record::new(index, kind, Some(item.clone()));
    if kind == Kind::Entry {
        return Ok(rec);
    }
    // §1: a field is required only where a step reads it.
    match kind {
        Kind::User | Kind::Assistant | Kind::Attachment => {
            rec.uuid = Some(Cow::Owned(req_str(ctx, d, "uuid", index, &path)?));
        }
        Kind::System | Kind::Progress | Kind::ToolUseSummary => {
            // Optional: a tombstone may still name it (§4 step 1).
            if let Some(v) = get(ctx, d, "uuid")? {
                rec.uuid = locate(as_str(&v), index, || format!("{path}.uuid"))?.map(Cow::Owned);
            }
        }
        Kind::Tombstone | Kind::Entry => {}
    }
    rec.timestamp = get(ctx, d, "timestamp")?;
    rec.is_meta = is_true(&get(ctx, d, "isMeta")?);
    match kind {
        Kind::User | Kind::Assistant => {
            rec.is_virtual = is_true(&get(ctx, d, "isVirtual")?);
            let api_error = is_true(&get(ctx, d, "isApiErrorMessage")?);
            let mpath = format!("{path}.message");
            let Some(m) = get(ctx, d, "message")? else {
                return Err(invalid(index, mpath, "missing required field"));
            };
            let Some(m) = ctx.view(&m)? else {
                return Err(invalid(
                    index,
                    mpath,
                    "must be an object with `role` and `content`",
                ));
            };
            let m = &m;
            req_str(ctx, m, "role", index, &mpath)?;
            let cpath = format!("{mpath}.content");
            let Some(c) = get(ctx, m, "content")? else {
                return Err(invalid(index, cpath, "missing required field"));
            };
            let (content, cost) = match read_content(ctx, &c, index, &cpath, 0, count)? {
                Some(x) => x,
                None => {
                    return Err(invalid(
                        index,
                        cpath,
                        "must be a string, a list of blocks or null",
                    ))
                }
            };
            rec.content = content;
            rec.cost = cost;
            if let Some(id) = get(ctx, m, "id")? {
                rec.message_id =
                    locate(as_str(&id), index, || format!("{mpath}.id"))?.map(Cow::Owned);
            }
            if api_error {
                if let Some(model) = get(ctx, m, "model")? {
                    let model = locate(as_str(&model), index, || format!("{mpath}.model"))?;
                    rec.synthetic_error = model.as_deref() == Some("<synthetic>");
                }
            }
        }
        Kind::System => {
            let sub = req_str(ctx, d, "subtype", index, &path)?;
            rec.local_command = sub == "local_command";
            if rec.local_command {
                rec.uuid = Some(Cow::Owned(req_str(ctx, d, "uuid", index, &path)?));
                rec.content = Content::Str(Cow::Owned(req_str(ctx, d, "content", index, &path)?));
            }
        }
        Kind::Attachment => {
            let apath = format!("{path}.attachment");
            let Some(a) = get(ctx, d, "attachment")? else {
                return Err(invalid(index, apath.clone(), "missing required field"));
            };
            let Ok(a) = a.cast::<PyDict>() else {
                return Err(invalid(index, apath.clone(), "must be an object"));
            };
            rec.attachment = locate(attachment_fields(a), index, || apath.clone())?;
            if !rec
                .attachment
                .iter()
                .any(|(k, v)| k == "type" && matches!(v, AttValue::Str(_)))
            {
                let msg = if a.contains("type")? {
                    "must be a string"
                } else {
                    "missing required field"
                };
                return Err(invalid(index, format!("{apath}.type"), msg));
            }
        }
        Kind::Progress | Kind::ToolUseSummary => {}
        Kind::Tombstone => {
            let mpath = format!("{path}.message");
            let Some(m) = get(ctx, d, "message")? else {
                return Err(invalid(index, mpath, "missing required field"));
            };
            let Some(m) = ctx.view(&m)? else {
                return Err(invalid(
                    index,
                    mpath,
                    "must be an object (the removed assistant record)",
                ));
            };
            rec.tombstone_of = Some(Cow::Owned(req_str(ctx, &m, "uuid", index, &mpath)?));
        }
        Kind::Entry => {}
    }
    Ok(rec)
}

/// An attachment's top-level fields, as §5 templates see them.
pub fn attachment_fields(a: &Bound<'_, PyDict>) -> R<Vec<(Str<'static>, AttValue<'static>)>> {
    let mut out = Vec::with_capacity(a.len());
    for (k, v) in a.iter() {
        let Some(k) = as_str(&k)? else { continue };
        let val = if let Some(s) = as_str(&v)? {
            AttValue::Str(Cow::Owned(s))
        } else if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
            AttValue::Int(v.str()?.to_str()?.to_owned())
        } else {
            AttValue::Other
        };
        out.push((Cow::Owned(k), val));
    }
    Ok(out)
}

fn str_len(v: &Obj<'_>) -> R<u64> {
    Ok(v.len()? as u64)
}

fn read_content<'py>(
    ctx: &Ctx<'py>,
    c: &Obj<'py>,
    index: usize,
    path: &str,
    depth: usize,
    count: bool,
) -> R<Option<(Content<'static, Obj<'py>>, Cost)>> {
    if c.is_none() {
        return Ok(Some((Content::Str(Cow::Borrowed("")), Cost::default())));
    }
    if let Ok(s) = c.cast::<PyString>() {
        let cost = Cost {
            chars: if count { str_len(c)? } else { 0 },
            ..Cost::default()
        };
        let text = locate(as_str(s.as_any()), index, || path.to_string())?.unwrap_or_default();
        return Ok(Some((Content::Str(Cow::Owned(text)), cost)));
    }
    let Ok(list) = c.cast::<PyList>() else {
        return Ok(None);
    };
    let mut blocks = Vec::with_capacity(list.len());
    let mut cost = Cost::default();
    for (j, b) in list.iter().enumerate() {
        let block = read_block(ctx, b, index, (path, j), depth, count)?;
        cost.add(block.cost);
        blocks.push(block);
    }
    Ok(Some((Content::Blocks(blocks), cost)))
}

fn read_block<'py>(
    ctx: &Ctx<'py>,
    b: Obj<'py>,
    index: usize,
    at: (&str, usize),
    depth: usize,
    count: bool,
) -> R<Block<'static, Obj<'py>>> {
    let path = &Lazy(at);
    let Some(d) = ctx.view(&b)? else {
        return Err(invalid(
            index,
            path.to_string(),
            "a block must be a dict (a JSON object)",
        ));
    };
    let d = &d;
    if depth >= MAX_BLOCK_DEPTH {
        return Err(invalid(
            index,
            path.to_string(),
            "blocks nested too deeply in tool_result content",
        ));
    }
    let kind = BlockKind::from_type(&req_str(ctx, d, "type", index, path)?);
    let mut block = Block {
        kind,
        orig: Some(b.clone()),
        id: None,
        text: None,
        is_error: false,
        inner: None,
        dirty: false,
        cost: Cost::default(),
    };
    match kind {
        BlockKind::Text => {
            let t = req_str(ctx, d, "text", index, path)?;
            if count {
                block.cost.chars = t.chars().count() as u64;
            }
            block.text = Some(Cow::Owned(t));
        }
        BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => {
            block.id = Some(Cow::Owned(req_str(ctx, d, "id", index, path)?));
        }
        BlockKind::ToolResult | BlockKind::ServerResult => {
            block.id = Some(Cow::Owned(req_str(ctx, d, "tool_use_id", index, path)?));
        }
        _ => {}
    }
    if kind == BlockKind::ToolResult {
        block.is_error = is_true(&get(ctx, d, "is_error")?);
        if let Some(c) = get(ctx, d, "content")? {
            let cpath = format!("{path}.content");
            match read_content(ctx, &c, index, &cpath, depth + 1, count)? {
                Some((inner, cost)) => {
                    block.inner = Some(inner);
                    block.cost = cost;
                }
                None => {
                    return Err(invalid(
                        index,
                        cpath,
                        "must be a string, a list of blocks or null",
                    ))
                }
            }
        }
    }
    if count {
        let field_len = |key: &'static str| -> R<u64> {
            match get(ctx, d, key)? {
                Some(v) => j_of(ctx, &v, index, path),
                None => Ok(0),
            }
        };
        match kind {
            BlockKind::Text | BlockKind::ToolResult => {}
            BlockKind::Thinking => block.cost.chars = field_len("thinking")?,
            BlockKind::RedactedThinking => block.cost.chars = field_len("data")?,
            BlockKind::ToolUse | BlockKind::ServerToolUse => {
                let input = match get(ctx, d, "input")? {
                    Some(v) => j_of(ctx, &v, index, path)?,
                    None => 0,
                };
                block.cost.chars = field_len("name")? + input;
            }
            BlockKind::Image => block.cost.images = 1,
            BlockKind::Document => {
                let text_len = match get(ctx, d, "source")? {
                    Some(s) => match ctx.view(&s)? {
                        Some(s) => {
                            let s = &s;
                            let is_text = match get(ctx, s, "type")? {
                                Some(t) => {
                                    locate(as_str(&t), index, || format!("{path}.source.type"))?
                                        .as_deref()
                                        == Some("text")
                                }
                                None => false,
                            };
                            match get(ctx, s, "data")? {
                                Some(data) if is_text && data.is_instance_of::<PyString>() => {
                                    Some(str_len(&data)?)
                                }
                                _ => None,
                            }
                        }
                        None => None,
                    },
                    None => None,
                };
                match text_len {
                    Some(n) => block.cost.chars = n,
                    None => block.cost.documents = 1,
                }
            }
            _ => block.cost.chars = j_of(ctx, &b, index, path)?,
        }
    }
    Ok(block)
}

/// §6 J(value), iteratively (deep values cost heap, not stack).
pub fn j_of<'py>(ctx: &Ctx<'py>, v: &Obj<'py>, index: usize, path: &dyn Display) -> R<u64> {
    let mut total = 0u64;
    let mut stack: Vec<(Obj<'py>, usize)> = vec![(v.clone(), 0)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Err(invalid(
                index,
                path.to_string(),
                "value nested too deeply (or cyclic)",
            ));
        }
        if v.is_instance_of::<PyString>() {
            total += str_len(&v)?;
        } else if let Ok(d) = v.cast::<PyDict>() {
            for (k, x) in d.iter() {
                total += if k.is_instance_of::<PyString>() {
                    str_len(&k)?
                } else {
                    str_len(&k.str()?.into_any())?
                };
                stack.push((x, depth + 1));
            }
        } else if let Ok(l) = v.cast::<PyList>() {
            for x in l.iter() {
                stack.push((x, depth + 1));
            }
        } else if let Ok(t) = v.cast::<PyTuple>() {
            for x in t.iter() {
                stack.push((x, depth + 1));
            }
        } else if let Some(fields) = ctx.struct_fields(&v)? {
            // A Struct counts as the JSON object it encodes to.
            for (k, x) in fields {
                total += k.chars().count() as u64;
                stack.push((x, depth + 1));
            }
        } else {
            // numbers, booleans, null (and any other scalar object)
            total += 4;
        }
    }
    Ok(total)
}
