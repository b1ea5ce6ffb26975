//! Python objects (lists of JSON-shaped dicts or msgnorm Structs) → core records.
//!
//! Nothing is copied: the text of a str the pipeline keeps (ids, uuids, text)
//! is borrowed from the Python object, which [`Strs`] holds alive for the call;
//! everything else is reached through the handle `Obj`. The §1 rules and
//! messages, the §6 cost rules and the errors' locations are the core's
//! ([`msgnorm_core::read`]); a location is built from the inside out and
//! formatted only when an error is raised.

use crate::view::{Ctx, Obj, View};
use crate::Failure;
use msgnorm_core::model::{AttValue, Block, BlockKind, Content, Cost, Kind, Record, Str};
use msgnorm_core::read::{
    bad_message, block_cost, check_block, j_leaf, msg, uuid_required, BlockCostFields, Invalid,
    Leaf, ReadError, Seen, Within, MAX_BLOCK_DEPTH, MAX_VALUE_DEPTH,
};
use msgnorm_core::{cutoff, tokens, CountParams};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::borrow::Cow;
use typed_arena::Arena;

/// A record read from Python objects: its strs borrow from a [`Strs`] (`'a`).
pub type Rec<'a, 'py> = Record<'a, Obj<'py>>;

/// The Python strs whose text the records of one call borrow, held alive
/// (one reference each) until the records are gone.
pub struct Strs<'py>(Arena<Bound<'py, PyString>>);

impl<'py> Strs<'py> {
    pub fn new() -> Self {
        Strs(Arena::with_capacity(1024))
    }
}

/// A reader's result: a Python exception, or a §1 violation located below
/// the value being read.
pub type R<T> = Result<T, ReadError<PyErr>>;

fn is_true(v: &Option<Obj<'_>>) -> bool {
    v.as_ref()
        .is_some_and(|v| v.is(PyBool::new(v.py(), true).as_any()))
}

/// The value of JSON field `$key` of view `$v` (a literal: its Python str is
/// interned once per process).
macro_rules! get {
    ($r:expr, $v:expr, $key:literal) => {
        $r.ctx.get_key($v, $key, pyo3::intern!($r.ctx.py(), $key))
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
fn str_of<'a, 'py>(strs: &'a Strs<'py>, v: &Obj<'py>) -> R<Option<&'a str>> {
    match v.cast::<PyString>() {
        Ok(s) => {
            let s: &'a Bound<'py, PyString> = strs.0.alloc(s.clone());
            match s.to_str() {
                Ok(t) => Ok(Some(t)),
                Err(_) => Invalid::new(msg::SURROGATE).err(),
            }
        }
        Err(_) => Ok(None),
    }
}

/// Whether `v` is the str `want` (a str that is not valid text is an error).
fn str_is(v: &Obj<'_>, want: &str) -> R<bool> {
    match v.cast::<PyString>() {
        Ok(s) => match s.to_str() {
            Ok(t) => Ok(t == want),
            Err(_) => Invalid::new(msg::SURROGATE).err(),
        },
        Err(_) => Ok(false),
    }
}

/// Unicode code points of a str (O(1)).
fn str_len(s: &Bound<'_, PyString>) -> PyResult<u64> {
    Ok(s.code_point_len()? as u64)
}

/// The records of `list`; `count`: gather §6 costs.
pub fn read_records<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
    count: bool,
) -> Result<Vec<Rec<'a, 'py>>, Failure> {
    read(ctx, strs, list, count, false)
}

/// §6 costs and §7 turn starts of the records of `list`, reading one record at
/// a time (nothing is kept but the two numbers per record, so what is read
/// stays in cache). `p` must be valid ([`CountParams::check`]).
pub fn read_costs<'py>(
    ctx: &Ctx<'py>,
    list: &Bound<'py, PyList>,
    p: &CountParams,
) -> Result<(Vec<u64>, Vec<bool>), Failure> {
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
) -> Result<Rec<'a, 'py>, Failure> {
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
) -> Result<Vec<Rec<'a, 'py>>, Failure> {
    read(ctx, strs, list, false, true)
}

fn read<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
    count: bool,
    timestamps: bool,
) -> Result<Vec<Rec<'a, 'py>>, Failure> {
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
    /// Field `key` of `d` as a str: its text (borrowed for the call) when it
    /// is a str, and how it was found.
    fn str_field(
        &self,
        d: &View<'py>,
        key: &'static str,
        k: &Bound<'py, PyString>,
    ) -> R<(Option<&'a str>, Seen)> {
        match self.ctx.get_key(d, key, k)? {
            None => Ok((None, Seen::Absent)),
            Some(v) => match str_of(self.strs, &v).key(key)? {
                Some(s) => Ok((Some(s), Seen::Ok)),
                None => Ok((None, Seen::Bad)),
            },
        }
    }

    /// A required string field, borrowed for the call.
    fn req_str(&self, d: &View<'py>, key: &'static str, k: &Bound<'py, PyString>) -> R<&'a str> {
        let (s, seen) = self.str_field(d, key, k)?;
        seen.require_str(key)?;
        Ok(s.unwrap_or_default())
    }

    /// A required string field that is only checked (not kept).
    fn check_str(&self, d: &View<'py>, key: &'static str, k: &Bound<'py, PyString>) -> R<()> {
        match self.ctx.get_key(d, key, k)? {
            None => Seen::Absent.require_str(key),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) if s.to_str().is_ok() => Ok(()),
                Ok(_) => Invalid::at(key, msg::SURROGATE).err(),
                Err(_) => Seen::Bad.require_str(key),
            },
        }
    }

    /// Record `index`: an invalid one is an error naming `records[index]`.
    fn record(&self, item: Obj<'py>, index: usize) -> Result<Rec<'a, 'py>, Failure> {
        self.record_at(item, index)
            .map_err(|e| e.record(index, None))
    }

    fn record_at(&self, item: Obj<'py>, index: usize) -> R<Rec<'a, 'py>> {
        let ctx = self.ctx;
        let py = ctx.py();
        let Some(d) = ctx.view(&item)? else {
            return Invalid::new(msg::RECORD_NOT_DICT).err();
        };
        let d = &d;
        let kind = match get!(self, d, "type")? {
            None => return Invalid::at("type", msg::MISSING).err(),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(t) => Kind::from_type(t),
                    Err(_) => return Invalid::at("type", msg::SURROGATE).err(),
                },
                Err(_) => return Invalid::at("type", msg::NOT_STRING).err(),
            },
        };
        let mut rec: Rec<'a, 'py> = Record::new(index, kind, Some(item.clone()));
        if kind == Kind::Entry {
            return Ok(rec);
        }
        let k_uuid = pyo3::intern!(py, "uuid");
        // §1: a field is required only where a step reads it.
        if uuid_required(kind) {
            rec.uuid = Some(Cow::Borrowed(self.req_str(d, "uuid", k_uuid)?));
        } else if kind != Kind::Tombstone {
            // Optional: a tombstone may still name it (§4 step 1).
            rec.uuid = self.str_field(d, "uuid", k_uuid)?.0.map(Cow::Borrowed);
        }
        if self.timestamps {
            rec.timestamp = get!(self, d, "timestamp")?;
        }
        rec.is_meta = is_true(&get!(self, d, "isMeta")?);
        match kind {
            Kind::User | Kind::Assistant => {
                rec.is_virtual = is_true(&get!(self, d, "isVirtual")?);
                let api_error = is_true(&get!(self, d, "isApiErrorMessage")?);
                self.message(d, &mut rec, api_error).key("message")?;
            }
            Kind::System => {
                let k_sub = pyo3::intern!(py, "subtype");
                let (sub, seen) = self.str_field(d, "subtype", k_sub)?;
                seen.require_str("subtype")?;
                rec.local_command = sub == Some("local_command");
                if rec.local_command {
                    rec.uuid = Some(Cow::Borrowed(self.req_str(d, "uuid", k_uuid)?));
                    let k = pyo3::intern!(py, "content");
                    rec.content = Content::Str(Cow::Borrowed(self.req_str(d, "content", k)?));
                }
            }
            Kind::Attachment => {
                let Some(a) = get!(self, d, "attachment")? else {
                    return Invalid::at("attachment", msg::MISSING).err();
                };
                let Ok(a) = a.cast::<PyDict>() else {
                    return Invalid::at("attachment", msg::NOT_OBJECT).err();
                };
                rec.attachment = attachment_fields(self.strs, a).key("attachment")?;
                if !rec
                    .attachment
                    .iter()
                    .any(|(k, v)| k == "type" && matches!(v, AttValue::Str(_)))
                {
                    let m = if a.contains(pyo3::intern!(py, "type"))? {
                        msg::NOT_STRING
                    } else {
                        msg::MISSING
                    };
                    return Invalid::at("type", m).key("attachment").err();
                }
            }
            Kind::Tombstone => {
                let Some(m) = get!(self, d, "message")? else {
                    return Invalid::at("message", msg::MISSING).err();
                };
                let Some(m) = ctx.view(&m)? else {
                    return Invalid::at("message", bad_message(kind)).err();
                };
                rec.tombstone_of = Some(Cow::Borrowed(
                    self.req_str(&m, "uuid", k_uuid).key("message")?,
                ));
            }
            Kind::Progress | Kind::ToolUseSummary | Kind::Entry => {}
        }
        Ok(rec)
    }

    /// A user/assistant record's `message` (errors located at the message).
    fn message(&self, d: &View<'py>, rec: &mut Rec<'a, 'py>, api_error: bool) -> R<()> {
        let ctx = self.ctx;
        let Some(m) = get!(self, d, "message")? else {
            return Invalid::new(msg::MISSING).err();
        };
        let Some(m) = ctx.view(&m)? else {
            return Invalid::new(bad_message(rec.kind)).err();
        };
        let m = &m;
        self.check_str(m, "role", pyo3::intern!(ctx.py(), "role"))?;
        let Some(c) = get!(self, m, "content")? else {
            return Invalid::at("content", msg::MISSING).err();
        };
        let Some((content, cost)) = self.content(&c, 0).key("content")? else {
            return Invalid::at("content", msg::BAD_CONTENT).err();
        };
        rec.content = content;
        rec.cost = cost;
        if let Some(id) = get!(self, m, "id")? {
            rec.message_id = str_of(self.strs, &id).key("id")?.map(Cow::Borrowed);
        }
        if api_error {
            if let Some(model) = get!(self, m, "model")? {
                rec.synthetic_error = str_is(&model, "<synthetic>").key("model")?;
            }
        }
        Ok(())
    }

    /// A content value: `None` when it is neither str, list nor `None`.
    #[allow(clippy::type_complexity)]
    fn content(&self, c: &Obj<'py>, depth: usize) -> R<Option<(Content<'a, Obj<'py>>, Cost)>> {
        if c.is_none() {
            return Ok(Some((Content::Str(Cow::Borrowed("")), Cost::default())));
        }
        if let Ok(s) = c.cast::<PyString>() {
            let cost = Cost {
                chars: if self.count { str_len(s)? } else { 0 },
                ..Cost::default()
            };
            let text = str_of(self.strs, c)?.unwrap_or_default();
            return Ok(Some((Content::Str(Cow::Borrowed(text)), cost)));
        }
        let Ok(list) = c.cast::<PyList>() else {
            return Ok(None);
        };
        let mut blocks = Vec::with_capacity(list.len());
        let mut cost = Cost::default();
        for (j, b) in list.iter().enumerate() {
            let block = self.block(b, depth).index(j)?;
            cost.add(block.cost);
            blocks.push(block);
        }
        Ok(Some((Content::Blocks(blocks), cost)))
    }

    /// A block (errors located at the block).
    fn block(&self, b: Obj<'py>, depth: usize) -> R<Block<'a, Obj<'py>>> {
        let ctx = self.ctx;
        let py = ctx.py();
        let Some(d) = ctx.view(&b)? else {
            return Invalid::new(msg::BLOCK_NOT_DICT).err();
        };
        let d = &d;
        if depth >= MAX_BLOCK_DEPTH {
            return Invalid::new(msg::BLOCKS_TOO_DEEP).err();
        }
        let kind = match get!(self, d, "type")? {
            None => return Invalid::at("type", msg::MISSING).err(),
            Some(v) => match v.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(t) => BlockKind::from_type(t),
                    Err(_) => return Invalid::at("type", msg::SURROGATE).err(),
                },
                Err(_) => return Invalid::at("type", msg::NOT_STRING).err(),
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
        let mut text_len = None;
        if kind == BlockKind::Text {
            let k = pyo3::intern!(py, "text");
            let (text, seen) = match ctx.get_key(d, "text", k)? {
                None => (None, Seen::Absent),
                Some(v) => match v.cast::<PyString>() {
                    Ok(s) => {
                        if self.count {
                            text_len = Some(str_len(s)?);
                        }
                        (str_of(self.strs, &v).key("text")?, Seen::Ok)
                    }
                    Err(_) => (None, Seen::Bad),
                },
            };
            check_block(kind, seen, Seen::Absent)?;
            block.text = text.map(Cow::Borrowed);
        } else if let Some(field) = kind.id_field() {
            let k = ctx.key(field);
            let (id, seen) = self.str_field(d, field, &k)?;
            check_block(kind, Seen::Absent, seen)?;
            block.id = id.map(Cow::Borrowed);
        }
        let mut inner = Cost::default();
        if kind == BlockKind::ToolResult {
            block.is_error = is_true(&get!(self, d, "is_error")?);
            if let Some(c) = get!(self, d, "content")? {
                let Some((content, cost)) = self.content(&c, depth + 1).key("content")? else {
                    return Invalid::at("content", msg::BAD_CONTENT).err();
                };
                block.inner = Some(content);
                inner = cost;
            }
        }
        if self.count {
            let mut f = Fields {
                r: self,
                d,
                b: &b,
                text_len,
            };
            block.cost = block_cost(kind, inner, &mut f)?;
        }
        block.orig = Some(b);
        Ok(block)
    }
}

/// What §6 reads of a block, looked up when asked.
struct Fields<'r, 'a, 'c, 'py> {
    r: &'r Reader<'a, 'c, 'py>,
    d: &'r View<'py>,
    b: &'r Obj<'py>,
    text_len: Option<u64>,
}

impl<'py> BlockCostFields for Fields<'_, '_, '_, 'py> {
    type Error = ReadError<PyErr>;
    fn text_chars(&mut self) -> R<u64> {
        Ok(self.text_len.unwrap_or(0))
    }
    fn field_j(&mut self, key: &'static str) -> R<u64> {
        let ctx = self.r.ctx;
        match ctx.get_key(self.d, key, &ctx.key(key))? {
            Some(v) => j_of(ctx, &v),
            None => Ok(0),
        }
    }
    /// `source.data`'s length when `source.type == "text"`.
    fn text_document_chars(&mut self) -> R<Option<u64>> {
        let ctx = self.r.ctx;
        let Some(s) = get!(self.r, self.d, "source")? else {
            return Ok(None);
        };
        let Some(s) = ctx.view(&s)? else {
            return Ok(None);
        };
        let s = &s;
        let is_text = match get!(self.r, s, "type")? {
            Some(t) => str_is(&t, "text").key("type").key("source")?,
            None => false,
        };
        match get!(self.r, s, "data")? {
            Some(data) if is_text => match data.cast::<PyString>() {
                Ok(data) => Ok(Some(str_len(data)?)),
                Err(_) => Ok(None),
            },
            _ => Ok(None),
        }
    }
    fn block_j(&mut self) -> R<u64> {
        j_of(self.r.ctx, self.b)
    }
}

/// An attachment's top-level fields, as §5 templates see them (strs borrowed
/// for the call).
pub fn attachment_fields<'a, 'py>(
    strs: &'a Strs<'py>,
    a: &Bound<'py, PyDict>,
) -> R<Vec<(Str<'a>, AttValue<'a>)>> {
    let mut out = Vec::with_capacity(a.len());
    for (k, v) in a.iter() {
        let Some(k) = str_of(strs, &k)? else {
            continue;
        };
        let val = if let Some(s) = str_of(strs, &v)? {
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

/// §6 J(value), iteratively (deep values cost heap, not stack); errors are
/// located at the value.
pub fn j_of<'py>(ctx: &Ctx<'py>, v: &Obj<'py>) -> R<u64> {
    let str_j = |s: &Bound<'py, PyString>| -> PyResult<u64> { Ok(j_leaf(Leaf::Str(str_len(s)?))) };
    // The common leaves first, without a stack.
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(str_j(s)?);
    }
    let mut total = 0u64;
    let mut stack: Vec<(Obj<'py>, usize)> = vec![(v.clone(), 0)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Invalid::new(msg::VALUE_TOO_DEEP).err();
        }
        if let Ok(s) = v.cast::<PyString>() {
            total += str_j(s)?;
        } else if let Ok(d) = v.cast::<PyDict>() {
            for (k, x) in d.iter() {
                total += match k.cast::<PyString>() {
                    Ok(k) => str_j(k)?,
                    Err(_) => str_j(&k.str()?)?,
                };
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => total += str_j(s)?,
                    _ => stack.push((x, depth + 1)),
                }
            }
        } else if let Ok(l) = v.cast::<PyList>() {
            for x in l.iter() {
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => total += str_j(s)?,
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
                total += j_leaf(Leaf::Str(k.chars().count() as u64));
                stack.push((x, depth + 1));
            }
        } else {
            // numbers, booleans, null (and any other scalar object)
            total += j_leaf(Leaf::Scalar);
        }
    }
    Ok(total)
}
