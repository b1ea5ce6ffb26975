//! Python objects (lists of JSON-shaped dicts or msgnorm Structs) → core records.
//!
//! Nothing is copied: the text of a str the pipeline keeps (ids, uuids, text)
//! is borrowed from the Python object, which [`Strs`] holds alive for the call;
//! everything else is reached through the handle `Obj`. The §1 rules and
//! messages, the §6 cost rules and the errors' locations are the core's
//! ([`msgnorm_core::read`]); a location is built from the inside out and
//! formatted only when an error is raised.

use crate::errors::Failure;
use crate::view::{Ctx, Obj, View};
use msgnorm_core::model::{AttValue, Cost, Record, Str};
use msgnorm_core::read::{
    j_leaf, msg, read_record, Invalid, KeySet, Leaf, Mask, ReadError, ReadOpts, Source, Tally,
    ValueKind, KEY_SETS, MAX_VALUE_DEPTH,
};
use msgnorm_core::tokens::{classes, Family, Tokenizer};
use msgnorm_core::{cutoff, tokens, CountParams};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
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
        Strs::with_capacity(1024)
    }

    /// Room for `n` strs before the arena grows (one record's: a few).
    pub fn with_capacity(n: usize) -> Self {
        Strs(Arena::with_capacity(n))
    }
}

/// A reader's result: a Python exception, or a §1 violation located below
/// the value being read.
pub type R<T> = Result<T, ReadError<PyErr>>;

/// One call's reading: the context, and the strs kept alive.
#[derive(Clone, Copy)]
pub struct PySource<'a, 'c, 'py> {
    pub ctx: &'c Ctx<'py>,
    strs: &'a Strs<'py>,
    /// Count characters by class too ([`ReadOpts::classes`]).
    classes: bool,
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

/// Unicode code points of a str (O(1)).
fn str_len(s: &Bound<'_, PyString>) -> PyResult<u64> {
    Ok(s.code_point_len()? as u64)
}

/// Code points of a str and, with `by_class`, its characters by class (a str
/// that is not UTF-8, a lone surrogate's, counts as other characters).
fn str_tally(s: &Bound<'_, PyString>, by_class: bool) -> PyResult<Tally> {
    str_tally_text(s, by_class, || s.to_str().ok())
}

/// [`str_tally`] with the str's text, when it is read, from `text` (one
/// already read, or `None` for a str that is not UTF-8).
fn str_tally_text<'t>(
    s: &Bound<'_, PyString>,
    by_class: bool,
    text: impl FnOnce() -> Option<&'t str>,
) -> PyResult<Tally> {
    let mut t = Tally {
        n: str_len(s)?,
        ..Tally::default()
    };
    if !by_class {
        return Ok(t);
    }
    match text() {
        Some(text) => classes::tally_counted(&mut t.cls, text, t.n),
        None => t.cls.other = u32::try_from(t.n).unwrap_or(u32::MAX),
    }
    Ok(t)
}

/// The JSON keys the reader looks up, as Python strs made once per process
/// (one table per [`KeySet`]).
fn key_str<'py, K: KeySet>(py: Python<'py>, k: K) -> &'py Bound<'py, PyString> {
    static TABLES: [PyOnceLock<Vec<Py<PyString>>>; KEY_SETS] =
        [const { PyOnceLock::new() }; KEY_SETS];
    let table = TABLES[K::SET].get_or_init(py, || {
        K::ALL
            .iter()
            .map(|k| PyString::intern(py, k.name()).unbind())
            .collect()
    });
    table[k.index()].bind(py)
}

/// Record `index` of a list, read with `opts`.
fn record<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    item: Obj<'py>,
    index: usize,
    opts: ReadOpts,
) -> Result<Rec<'a, 'py>, Failure> {
    let mut src = PySource {
        ctx,
        strs,
        classes: opts.classes,
    };
    read_record(&mut src, item, index, opts).map_err(|e| e.record(index, None))
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
    // `Auto`: the family is known after the last record; the costs wait.
    let auto = p.tokenizer == Tokenizer::Auto;
    let mut waiting: Vec<Option<Cost>> = Vec::new();
    let mut family = None;
    for (i, item) in list.iter().enumerate() {
        let strs = Strs::with_capacity(4);
        let rec = record(ctx, &strs, item, i, ReadOpts::counting(p))?;
        if auto {
            family = rec.family.or(family);
            waiting.push(rec.kind.is_message().then_some(rec.cost));
        } else {
            costs.push(tokens::record_tokens(&rec, p));
        }
        turns.push(cutoff::is_turn_start(&rec));
    }
    if auto {
        let p = p.resolved_to(family.unwrap_or(Family::Claude));
        costs.extend(
            waiting
                .iter()
                .map(|c| c.as_ref().map_or(0, |c| tokens::cost_tokens(c, &p))),
        );
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
    record(ctx, strs, item, index, ReadOpts::COUNT)
}

/// The records of `list`, read with `opts`.
pub fn read<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    list: &Bound<'py, PyList>,
    opts: ReadOpts,
) -> Result<Vec<Rec<'a, 'py>>, Failure> {
    let mut src = PySource {
        ctx,
        strs,
        classes: opts.classes,
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        match read_record(&mut src, item, i, opts) {
            Ok(r) => out.push(r),
            Err(e) => return Err(e.record(i, None)),
        }
    }
    Ok(out)
}

/// Dicts and Structs as a [`Source`]: a value is the object itself; keys are
/// looked up (only those the reader still wants), not iterated.
impl<'a, 'py> Source<'a> for PySource<'a, '_, 'py> {
    type Value = Obj<'py>;
    type Obj = View<'py>;
    type Whole = Obj<'py>;
    type Span = ();
    type Handle = Obj<'py>;
    type Error = PyErr;

    fn fork(&self) -> Self {
        *self
    }
    #[inline]
    fn kind(&mut self, v: &Obj<'py>) -> R<ValueKind> {
        Ok(if v.is_none() {
            ValueKind::Null
        } else if v.is_instance_of::<PyString>() {
            ValueKind::Str
        } else if v.is_instance_of::<PyList>() {
            ValueKind::Array
        } else {
            ValueKind::Other
        })
    }
    #[inline]
    fn object(&mut self, v: &Obj<'py>) -> R<Option<View<'py>>> {
        Ok(self.ctx.view(v)?)
    }
    #[inline]
    fn fields<K: KeySet, F>(&mut self, o: View<'py>, mut mask: Mask, mut f: F) -> R<Obj<'py>>
    where
        F: FnMut(&mut Self, K, Obj<'py>) -> R<Mask>,
    {
        let py = self.ctx.py();
        for &k in K::ALL {
            if mask & k.bit() == 0 {
                continue;
            }
            if let Some(v) = self.ctx.get_key(&o, k.name(), key_str(py, k))? {
                mask = f(self, k, v)?;
            }
        }
        Ok(match o {
            View::Dict(d) => d.into_any(),
            View::Struct(obj, _) => obj,
        })
    }
    #[inline]
    fn len_hint(&self, v: &Obj<'py>) -> usize {
        v.cast::<PyList>().map_or(0, |l| l.len())
    }
    #[inline]
    fn array<F>(&mut self, v: Obj<'py>, mut f: F) -> R<()>
    where
        F: FnMut(&mut Self, usize, Obj<'py>) -> R<()>,
    {
        let list = v.cast_into::<PyList>().map_err(PyErr::from)?;
        for (j, x) in list.iter().enumerate() {
            f(self, j, x)?;
        }
        Ok(())
    }
    #[inline]
    fn string(&mut self, v: Obj<'py>, chars: bool) -> R<Option<(Str<'a>, Tally)>> {
        let Some(text) = str_of(self.strs, &v)? else {
            return Ok(None);
        };
        // its classes from the text str_of read
        let n = match v.cast::<PyString>() {
            Ok(s) if chars => str_tally_text(s, self.classes, || Some(text))?,
            _ => Tally::default(),
        };
        Ok(Some((Cow::Borrowed(text), n)))
    }
    #[inline]
    fn peek_str<T>(&mut self, v: Obj<'py>, f: impl FnOnce(&str) -> T) -> R<Option<T>> {
        match v.cast::<PyString>() {
            Ok(s) => match s.to_str() {
                Ok(t) => Ok(Some(f(t))),
                Err(_) => Invalid::new(msg::SURROGATE).err(),
            },
            Err(_) => Ok(None),
        }
    }
    #[inline]
    fn is_str(&mut self, v: Obj<'py>) -> R<bool> {
        match v.cast::<PyString>() {
            Ok(s) if s.to_str().is_ok() => Ok(true),
            Ok(_) => Invalid::new(msg::SURROGATE).err(),
            Err(_) => Ok(false),
        }
    }
    #[inline]
    fn str_chars(&mut self, v: Obj<'py>) -> R<Option<Tally>> {
        match v.cast::<PyString>() {
            Ok(s) => Ok(Some(str_tally(s, self.classes)?)),
            Err(_) => Ok(None),
        }
    }
    #[inline]
    fn is_true(&mut self, v: Obj<'py>) -> R<bool> {
        Ok(v.is(PyBool::new(v.py(), true).as_any()))
    }
    #[inline]
    fn skip(&mut self, _v: Obj<'py>) -> R<()> {
        Ok(())
    }
    fn j(&mut self, v: Obj<'py>) -> R<Tally> {
        j_of(self.ctx, &v, self.classes)
    }
    fn j_whole(&mut self, w: &Obj<'py>) -> R<Tally> {
        j_of(self.ctx, w, self.classes)
    }
    #[inline]
    fn span(&self, _v: &Obj<'py>) {}
    #[inline]
    fn keep(&mut self, v: Obj<'py>) -> R<Obj<'py>> {
        Ok(v)
    }
    #[inline]
    fn handle(&self, w: Obj<'py>, _hole: Option<()>) -> Obj<'py> {
        w
    }
    fn plain_str(_h: &Obj<'py>) -> Option<Str<'a>> {
        None
    }
    fn attachment(&mut self, v: Obj<'py>) -> R<Option<Vec<(Str<'a>, AttValue<'a>)>>> {
        match v.cast::<PyDict>() {
            Ok(a) => Ok(Some(attachment_fields(self.strs, a)?)),
            Err(_) => Ok(None),
        }
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
pub fn j_of<'py>(ctx: &Ctx<'py>, v: &Obj<'py>, by_class: bool) -> R<Tally> {
    let mut total = Tally::default();
    let str_j = |total: &mut Tally, s: &Bound<'py, PyString>| -> PyResult<()> {
        let mut t = str_tally(s, by_class)?;
        t.n = j_leaf(Leaf::Str(t.n));
        t.cls.leaves = t.cls.leaves.saturating_add(1);
        total.add(t);
        Ok(())
    };
    // The common leaves first, without a stack.
    if let Ok(s) = v.cast::<PyString>() {
        str_j(&mut total, s)?;
        return Ok(total);
    }
    let mut stack: Vec<(Obj<'py>, usize)> = vec![(v.clone(), 0)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Invalid::new(msg::VALUE_TOO_DEEP).err();
        }
        if let Ok(s) = v.cast::<PyString>() {
            str_j(&mut total, s)?;
        } else if let Ok(d) = v.cast::<PyDict>() {
            for (k, x) in d.iter() {
                match k.cast::<PyString>() {
                    Ok(k) => str_j(&mut total, k)?,
                    Err(_) => str_j(&mut total, &k.str()?)?,
                };
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => str_j(&mut total, s)?,
                    _ => stack.push((x, depth + 1)),
                }
            }
        } else if let Ok(l) = v.cast::<PyList>() {
            for x in l.iter() {
                match x.cast::<PyString>() {
                    Ok(s) if depth < MAX_VALUE_DEPTH => str_j(&mut total, s)?,
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
                total.n += j_leaf(Leaf::Str(k.chars().count() as u64));
                if by_class {
                    classes::leaf_str(&mut total.cls, &k);
                }
                stack.push((x, depth + 1));
            }
        } else {
            // numbers, booleans, null (and any other scalar object)
            total.n += j_leaf(Leaf::Scalar);
            if by_class {
                classes::leaf_scalar(&mut total.cls);
            }
        }
    }
    Ok(total)
}
