//! Python objects (lists of JSON-shaped dicts or msgnorm Structs) → core records.
//!
//! Nothing is copied: the text of a str the pipeline keeps (ids, uuids, text)
//! is borrowed from the Python object, which [`Strs`] holds alive for the call;
//! everything else is reached through the handle `Obj`. Error paths
//! (`records[3].message.content[0].text`) are formatted only when an error is
//! raised.

use crate::view::{Ctx, View};
use msgnorm_core::model::{AttValue, Block, BlockKind, Content, Cost, Kind, Record, Str};
use msgnorm_core::{cutoff, tokens, CountParams, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::borrow::Cow;
use std::fmt::Display;
use typed_arena::Arena;

pub type Obj<'py> = Bound<'py, PyAny>;
/// A record read from Python objects: its strs borrow from a [`Strs`] (`'a`).
pub type Rec<'a, 'py> = Record<'a, Obj<'py>>;

const MAX_BLOCK_DEPTH: usize = 32;
/// Nesting beyond this in a tool input is refused (it also stops cyclic objects).
const MAX_VALUE_DEPTH: usize = 100_000;

/// The Python strs whose text the records of one call borrow, held alive
/// (one reference each) until the records are gone.
pub struct Strs<'py>(Arena<Bound<'py, PyString>>);

impl<'py> Strs<'py> {
    pub fn new() -> Self {
        Strs(Arena::with_capacity(1024))
    }
}

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

/// Where a field is: displayed (`records[3].message.content[0]`) only when an
/// error names it.
#[derive(Clone, Copy)]
pub enum Path<'p> {
    Record(usize),
    Key(&'p Path<'p>, &'static str),
    Index(&'p Path<'p>, usize),
    /// A fixed top-level name (`attachment`, `name`).
    Name(&'static str),
}

impl Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Record(i) => write!(f, "records[{i}]"),
            Path::Key(p, k) => write!(f, "{p}.{k}"),
            Path::Index(p, i) => write!(f, "{p}[{i}]"),
            Path::Name(n) => f.write_str(n),
        }
    }
}

impl<'p> Path<'p> {
    fn key(&'p self, k: &'static str) -> Path<'p> {
        Path::Key(self, k)
    }
}

#[cold]
#[inline(never)]
fn invalid(index: usize, path: &Path<'_>, msg: &str) -> Failure {
    Failure::Core(Error::invalid(index, path.to_string(), msg))
}

const SURROGATE: &str = "holds a lone surrogate, which is not valid Unicode text";

fn is_true(v: &Option<Obj<'_>>) -> bool {
    v.as_ref()
        .is_some_and(|v| v.is(PyBool::new(v.py(), true).as_any()))
}

/// The value of JSON field `$key` of view `$v` (a literal: its Python str is
/// interned once per process).
macro_rules! get {
    ($r:expr, $v:expr, $key:literal) => {
        $r.ctx
            .get_key($v, $key, pyo3::intern!($r.ctx.py(), $key))
            .map_err(Failure::Py)
    };
}

/// One call's reading: the context, the strs kept alive, and whether to gather costs.
pub struct Reader<'a, 'c, 'py> {
    pub ctx: &'c Ctx<'py>,
    strs: &'a Strs<'py>,
    count: bool,
    /// Read `timestamp` (only records the pipeline makes copy it: §4).
    timestamps: bool,
}

/// A str's text, borrowed for the call; `None` for any other object.
fn str_of<'a, 'py>(
    strs: &'a Strs<'py>,
    v: &Obj<'py>,
    index: usize,
    path: &Path<'_>,
) -> R<Option<&'a str>> {
    match v.cast::<PyString>() {
        Ok(s) => {
            let s: &'a Bound<'py, PyString> = strs.0.alloc(s.clone());
            match s.to_str() {
                Ok(t) => Ok(Some(t)),
                Err(_) => Err(invalid(index, path, SURROGATE)),
            }
        }
        Err(_) => Ok(None),
    }
}

/// Whether `v` is the str `want` (a str that is not valid text is an error).
fn str_is(v: &Obj<'_>, want: &str, index: usize, path: &Path<'_>) -> R<bool> {
    match v.cast::<PyString>() {
        Ok(s) => match s.to_str() {
            Ok(t) => Ok(t == want),
            Err(_) => Err(invalid(index, path, SURROGATE)),
        },
        Err(_) => Ok(false),
    }
}

/// Unicode code points of a str (O(1)).
fn str_len(s: &Bound<'_, PyString>) -> R<u64> {
    Ok(s.code_point_len()? as u64)
}

/// The records of `list`; `count`: gather §6 costs.
pub fn read_records<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
    count: bool,
) -> R<Vec<Rec<'a, 'py>>> {
    read(ctx, strs, list, count, false)
}

/// §6 costs and §7 turn starts of the records of `list`, reading one record at
/// a time (nothing is kept but the two numbers per record, so what is read
/// stays in cache). `p` must be valid ([`CountParams::check`]).
pub fn read_costs<'py>(
    ctx: &Ctx<'py>,
    list: &Bound<'py, PyList>,
    p: &CountParams,
) -> R<(Vec<u64>, Vec<bool>)> {
    let mut costs = Vec::with_capacity(list.len());
    let mut turns = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let strs = Strs(Arena::with_capacity(4));
        let r = Reader {
            ctx,
            strs: &strs,
            count: true,
            timestamps: false,
        };
        let rec = r.record(item, i)?;
        costs.push(tokens::per_record(std::slice::from_ref(&rec), p)?[0]);
        turns.push(cutoff::is_turn_start(&rec));
    }
    Ok((costs, turns))
}

/// Record `index` of a list (`item`), with its §6 costs.
pub fn read_one<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    item: Obj<'py>,
    index: usize,
) -> R<Rec<'a, 'py>> {
    let r = Reader {
        ctx,
        strs,
        count: true,
        timestamps: false,
    };
    r.record(item, index)
}

/// [`read_records`] for `normalize_for_api`, which also keeps each record's
/// `timestamp` (the records it makes copy it).
pub fn read_records_for_api<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
) -> R<Vec<Rec<'a, 'py>>> {
    read(ctx, strs, list, false, true)
}

fn read<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
    count: bool,
    timestamps: bool,
) -> R<Vec<Rec<'a, 'py>>> {
    let r = Reader {
        ctx,
        strs,
        count,
        timestamps,
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(r.record(item, i)?);
    }
    Ok(out)
}

impl<'a, 'py> Reader<'a, '_, 'py> {
    fn str_of(&self, v: &Obj<'py>, index: usize, path: &Path<'_>) -> R<Option<&'a str>> {
        str_of(self.strs, v, index, path)
    }

    /// A required string field, borrowed for the call.
    fn req_str(
        &self,
        d: &View<'py>,
        key: &'static str,
        k: &Bound<'py, PyString>,
        index: usize,
        parent: &Path<'_>,
    ) -> R<&'a str> {
        match self.ctx.get_key(d, key, k)? {
            None => Err(invalid(index, &parent.key(key), "missing required field")),
            Some(v) => match self.str_of(&v, index, &parent.key(key))? {
                Some(s) => Ok(s),
                None => Err(invalid(index, &parent.key(key), "must be a string")),
            },
        }
    }

    /// A required string field that is only checked (not kept).
    fn check_str(
        &self,
        d: &View<'py>,
        key: &'static str,
        k: &Bound<'py, PyString>,
        index: usize,
        parent: &Path<'_>,
    ) -> R<()> {
        match self.ctx.get_key(d, key, k)? {
            None => Err(invalid(index, &parent.key(key), "missing required field")),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) if s.to_str().is_ok() => Ok(()),
                Ok(_) => Err(invalid(index, &parent.key(key), SURROGATE)),
                Err(_) => Err(invalid(index, &parent.key(key), "must be a string")),
            },
        }
    }

    fn record(&self, item: Obj<'py>, index: usize) -> R<Rec<'a, 'py>> {
        let ctx = self.ctx;
        let py = ctx.py();
        let path = &Path::Record(index);
        let Some(d) = ctx.view(&item)? else {
            return Err(invalid(index, path, "a record must be a JSON object"));
        };
        let d = &d;
        let ty = match get!(self, d, "type")? {
            None => return Err(invalid(index, &path.key("type"), "missing required field")),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(t) => Kind::from_type(t),
                    Err(_) => return Err(invalid(index, &path.key("type"), SURROGATE)),
                },
                Err(_) => return Err(invalid(index, &path.key("type"), "must be a string")),
            },
        };
        let kind = ty;
        let mut rec: Rec<'a, 'py> = Record::new(index, kind, Some(item.clone()));
        if kind == Kind::Entry {
            return Ok(rec);
        }
        let k_uuid = pyo3::intern!(py, "uuid");
        // §1: a field is required only where a step reads it.
        match kind {
            Kind::User | Kind::Assistant | Kind::Attachment => {
                rec.uuid = Some(Cow::Borrowed(self.req_str(d, "uuid", k_uuid, index, path)?));
            }
            Kind::System | Kind::Progress | Kind::ToolUseSummary => {
                // Optional: a tombstone may still name it (§4 step 1).
                if let Some(v) = ctx.get_key(d, "uuid", k_uuid)? {
                    rec.uuid = self
                        .str_of(&v, index, &path.key("uuid"))?
                        .map(Cow::Borrowed);
                }
            }
            Kind::Tombstone | Kind::Entry => {}
        }
        if self.timestamps {
            rec.timestamp = get!(self, d, "timestamp")?;
        }
        rec.is_meta = is_true(&get!(self, d, "isMeta")?);
        match kind {
            Kind::User | Kind::Assistant => {
                rec.is_virtual = is_true(&get!(self, d, "isVirtual")?);
                let api_error = is_true(&get!(self, d, "isApiErrorMessage")?);
                let mpath = &path.key("message");
                let Some(m) = get!(self, d, "message")? else {
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
                self.check_str(m, "role", pyo3::intern!(py, "role"), index, mpath)?;
                let cpath = &mpath.key("content");
                let Some(c) = get!(self, m, "content")? else {
                    return Err(invalid(index, cpath, "missing required field"));
                };
                let (content, cost) = match self.content(&c, index, cpath, 0)? {
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
                if let Some(id) = get!(self, m, "id")? {
                    rec.message_id = self
                        .str_of(&id, index, &mpath.key("id"))?
                        .map(Cow::Borrowed);
                }
                if api_error {
                    if let Some(model) = get!(self, m, "model")? {
                        rec.synthetic_error =
                            str_is(&model, "<synthetic>", index, &mpath.key("model"))?;
                    }
                }
            }
            Kind::System => {
                let k_sub = pyo3::intern!(py, "subtype");
                let sub = match ctx.get_key(d, "subtype", k_sub)? {
                    None => {
                        return Err(invalid(
                            index,
                            &path.key("subtype"),
                            "missing required field",
                        ))
                    }
                    Some(v) => match v.cast::<PyString>() {
                        Ok(s) => match s.to_str() {
                            Ok(t) => t == "local_command",
                            Err(_) => return Err(invalid(index, &path.key("subtype"), SURROGATE)),
                        },
                        Err(_) => {
                            return Err(invalid(index, &path.key("subtype"), "must be a string"))
                        }
                    },
                };
                rec.local_command = sub;
                if rec.local_command {
                    rec.uuid = Some(Cow::Borrowed(self.req_str(d, "uuid", k_uuid, index, path)?));
                    let k = pyo3::intern!(py, "content");
                    rec.content =
                        Content::Str(Cow::Borrowed(self.req_str(d, "content", k, index, path)?));
                }
            }
            Kind::Attachment => {
                let apath = &path.key("attachment");
                let Some(a) = get!(self, d, "attachment")? else {
                    return Err(invalid(index, apath, "missing required field"));
                };
                let Ok(a) = a.cast::<PyDict>() else {
                    return Err(invalid(index, apath, "must be an object"));
                };
                rec.attachment = attachment_fields(self.strs, a, index, apath)?;
                if !rec
                    .attachment
                    .iter()
                    .any(|(k, v)| k == "type" && matches!(v, AttValue::Str(_)))
                {
                    let msg = if a.contains(pyo3::intern!(py, "type"))? {
                        "must be a string"
                    } else {
                        "missing required field"
                    };
                    return Err(invalid(index, &apath.key("type"), msg));
                }
            }
            Kind::Progress | Kind::ToolUseSummary => {}
            Kind::Tombstone => {
                let mpath = &path.key("message");
                let Some(m) = get!(self, d, "message")? else {
                    return Err(invalid(index, mpath, "missing required field"));
                };
                let Some(m) = ctx.view(&m)? else {
                    return Err(invalid(
                        index,
                        mpath,
                        "must be an object (the removed assistant record)",
                    ));
                };
                rec.tombstone_of = Some(Cow::Borrowed(
                    self.req_str(&m, "uuid", k_uuid, index, mpath)?,
                ));
            }
            Kind::Entry => {}
        }
        Ok(rec)
    }

    #[allow(clippy::type_complexity)]
    fn content(
        &self,
        c: &Obj<'py>,
        index: usize,
        path: &Path<'_>,
        depth: usize,
    ) -> R<Option<(Content<'a, Obj<'py>>, Cost)>> {
        if c.is_none() {
            return Ok(Some((Content::Str(Cow::Borrowed("")), Cost::default())));
        }
        if let Ok(s) = c.cast::<PyString>() {
            let cost = Cost {
                chars: if self.count { str_len(s)? } else { 0 },
                ..Cost::default()
            };
            let text = self.str_of(c, index, path)?.unwrap_or_default();
            return Ok(Some((Content::Str(Cow::Borrowed(text)), cost)));
        }
        let Ok(list) = c.cast::<PyList>() else {
            return Ok(None);
        };
        let mut blocks = Vec::with_capacity(list.len());
        let mut cost = Cost::default();
        for (j, b) in list.iter().enumerate() {
            let block = self.block(b, index, &Path::Index(path, j), depth)?;
            cost.add(block.cost);
            blocks.push(block);
        }
        Ok(Some((Content::Blocks(blocks), cost)))
    }

    fn block(
        &self,
        b: Obj<'py>,
        index: usize,
        path: &Path<'_>,
        depth: usize,
    ) -> R<Block<'a, Obj<'py>>> {
        let ctx = self.ctx;
        let py = ctx.py();
        let Some(d) = ctx.view(&b)? else {
            return Err(invalid(index, path, "a block must be a JSON object"));
        };
        let d = &d;
        if depth >= MAX_BLOCK_DEPTH {
            return Err(invalid(
                index,
                path,
                "blocks nested too deeply in tool_result content",
            ));
        }
        let kind = match get!(self, d, "type")? {
            None => return Err(invalid(index, &path.key("type"), "missing required field")),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(t) => BlockKind::from_type(t),
                    Err(_) => return Err(invalid(index, &path.key("type"), SURROGATE)),
                },
                Err(_) => return Err(invalid(index, &path.key("type"), "must be a string")),
            },
        };
        let mut block = Block {
            kind,
            orig: None,
            id: None,
            text: None,
            is_error: false,
            inner: None,
            dirty: false,
            cost: Cost::default(),
        };
        match kind {
            BlockKind::Text => {
                let k = pyo3::intern!(py, "text");
                let Some(v) = ctx.get_key(d, "text", k)? else {
                    return Err(invalid(index, &path.key("text"), "missing required field"));
                };
                let Ok(s) = v.cast::<PyString>() else {
                    return Err(invalid(index, &path.key("text"), "must be a string"));
                };
                if self.count {
                    block.cost.chars = str_len(s)?;
                }
                block.text = self
                    .str_of(&v, index, &path.key("text"))?
                    .map(Cow::Borrowed);
            }
            BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => {
                let k = pyo3::intern!(py, "id");
                block.id = Some(Cow::Borrowed(self.req_str(d, "id", k, index, path)?));
            }
            BlockKind::ToolResult | BlockKind::ServerResult => {
                let k = pyo3::intern!(py, "tool_use_id");
                block.id = Some(Cow::Borrowed(self.req_str(
                    d,
                    "tool_use_id",
                    k,
                    index,
                    path,
                )?));
            }
            _ => {}
        }
        if kind == BlockKind::ToolResult {
            block.is_error = is_true(&get!(self, d, "is_error")?);
            if let Some(c) = get!(self, d, "content")? {
                let cpath = &path.key("content");
                match self.content(&c, index, cpath, depth + 1)? {
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
        if self.count {
            let field_len = |v: Option<Obj<'py>>| -> R<u64> {
                match v {
                    Some(v) => j_of(ctx, &v, index, path),
                    None => Ok(0),
                }
            };
            match kind {
                BlockKind::Text | BlockKind::ToolResult => {}
                BlockKind::Thinking => block.cost.chars = field_len(get!(self, d, "thinking")?)?,
                BlockKind::RedactedThinking => {
                    block.cost.chars = field_len(get!(self, d, "data")?)?
                }
                BlockKind::ToolUse | BlockKind::ServerToolUse => {
                    let input = field_len(get!(self, d, "input")?)?;
                    block.cost.chars = field_len(get!(self, d, "name")?)? + input;
                }
                BlockKind::Image => block.cost.images = 1,
                BlockKind::Document => match self.text_document_len(d, index, path)? {
                    Some(n) => block.cost.chars = n,
                    None => block.cost.documents = 1,
                },
                _ => block.cost.chars = j_of(ctx, &b, index, path)?,
            }
        }
        block.orig = Some(b);
        Ok(block)
    }

    /// §6: the length of a document's `source.data` when `source.type == "text"`.
    fn text_document_len(&self, d: &View<'py>, index: usize, path: &Path<'_>) -> R<Option<u64>> {
        let Some(s) = get!(self, d, "source")? else {
            return Ok(None);
        };
        let Some(s) = self.ctx.view(&s)? else {
            return Ok(None);
        };
        let s = &s;
        let is_text = match get!(self, s, "type")? {
            Some(t) => str_is(&t, "text", index, &path.key("source").key("type"))?,
            None => false,
        };
        match get!(self, s, "data")? {
            Some(data) if is_text => match data.cast::<PyString>() {
                Ok(data) => Ok(Some(str_len(data)?)),
                Err(_) => Ok(None),
            },
            _ => Ok(None),
        }
    }
}

/// An attachment's top-level fields, as §5 templates see them (strs borrowed
/// for the call).
pub fn attachment_fields<'a, 'py>(
    strs: &'a Strs<'py>,
    a: &Bound<'py, PyDict>,
    index: usize,
    path: &Path<'_>,
) -> R<Vec<(Str<'a>, AttValue<'a>)>> {
    let mut out = Vec::with_capacity(a.len());
    for (k, v) in a.iter() {
        let Some(k) = str_of(strs, &k, index, path)? else {
            continue;
        };
        let val = if let Some(s) = str_of(strs, &v, index, path)? {
            AttValue::Str(Cow::Borrowed(s))
        } else if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
            AttValue::Int(v.str()?.to_str()?.to_owned())
        } else {
            AttValue::Other
        };
        out.push((Cow::Borrowed(k), val));
    }
    Ok(out)
}

/// §6 J(value), iteratively (deep values cost heap, not stack).
pub fn j_of<'py>(ctx: &Ctx<'py>, v: &Obj<'py>, index: usize, path: &Path<'_>) -> R<u64> {
    // The common leaves first, without a stack.
    if let Ok(s) = v.cast::<PyString>() {
        return str_len(s);
    }
    let mut total = 0u64;
    let mut stack: Vec<(Obj<'py>, usize)> = vec![(v.clone(), 0)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Err(invalid(index, path, "value nested too deeply (or cyclic)"));
        }
        if let Ok(s) = v.cast::<PyString>() {
            total += str_len(s)?;
        } else if let Ok(d) = v.cast::<PyDict>() {
            for (k, x) in d.iter() {
                total += match k.cast::<PyString>() {
                    Ok(k) => str_len(k)?,
                    Err(_) => str_len(&k.str()?)?,
                };
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => total += str_len(s)?,
                    _ => stack.push((x, depth + 1)),
                }
            }
        } else if let Ok(l) = v.cast::<PyList>() {
            for x in l.iter() {
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => total += str_len(s)?,
                    _ => stack.push((x, depth + 1)),
                }
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
