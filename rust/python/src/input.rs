//! The input kinds the binding takes, the one place where a source (Python
//! objects or JSON text) and a writer of output like the input are picked
//! ([`with_records!`]), and the two writers.

use crate::errors::{guard, surrogate_error, to_pyerr, Exc, Failure};
use crate::read::Rec;
use crate::view::{Ctx, Obj};
use crate::write;
use msgnorm_core::editing::ToolUseInfo;
use msgnorm_core::json::{self, Raw};
use msgnorm_core::model::Record;
use msgnorm_core::read::ReadError;
use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView, PyString};

/// The three input kinds the binding sees: a list (of dicts or msgnorm Structs,
/// both read in place by [`read`]), JSON bytes, a JSON str.
pub(crate) enum Input<'py> {
    List(Bound<'py, PyList>),
    Bytes(Bound<'py, PyBytes>),
    Str(Bound<'py, PyString>),
}

pub(crate) fn input<'py>(records: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    if let Ok(l) = records.cast::<PyList>() {
        return Ok(Input::List(l.clone()));
    }
    if let Ok(b) = records.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.clone()));
    }
    if let Ok(s) = records.cast::<PyString>() {
        return Ok(Input::Str(s.clone()));
    }
    let py = records.py();
    if records.cast::<PyByteArray>().is_ok() || records.cast::<PyMemoryView>().is_ok() {
        // JSON in a bytearray or memoryview: read as the bytes it holds
        let b = py.import("builtins")?.getattr("bytes")?.call1((records,))?;
        return Ok(Input::Bytes(b.cast_into::<PyBytes>()?));
    }
    let tname = records.get_type().name()?;
    let msg = format!("records: expected a list of records, JSON bytes or a JSON str, not {tname}");
    Err(Exc::InvalidRecord.new_err(py, (msg, py.None(), "records")))
}

impl<'py> Input<'py> {
    /// The JSON text of a bytes or str input, and the writer of output like
    /// it; `None` for a list.
    pub(crate) fn json(&self) -> PyResult<Option<(&[u8], Json<'py>)>> {
        match self {
            Input::List(_) => Ok(None),
            Input::Bytes(b) => Ok(Some((
                b.as_bytes(),
                Json {
                    py: b.py(),
                    str: false,
                },
            ))),
            Input::Str(s) => match s.to_str() {
                Ok(text) => Ok(Some((
                    text.as_bytes(),
                    Json {
                        py: s.py(),
                        str: true,
                    },
                ))),
                Err(_) => Err(to_pyerr(s.py(), Failure::Core(surrogate_error(s)))),
            },
        }
    }
}

/// Reads `records` with the [`ReadOpts`](msgnorm_core::read::ReadOpts)
/// `$opts`, runs `$run` on them (`$recs`), and builds what the function
/// returns with `$write`: the one place a source and a writer are picked.
///
/// - A list (of dicts or Structs) is read in place, with the GIL held; `$src`
///   is a [`Objects`] and so is the writer `$w`: output records are dicts or
///   Structs like the input's, unchanged ones the input's own objects.
/// - JSON bytes or str is read, and `$run` runs, with the GIL released; `$src`
///   is a [`JsonSource`] and `$w` a [`Json`]: output is bytes or str like the input.
///
/// `$run` is written once and compiled for both sources: it is the core's
/// operation, generic over the records' handle. `lists: |$l| $list` replaces
/// the list arm for a function that reads a list its own way (counting one
/// record at a time, or answering with slices of the list).
macro_rules! with_records {
    (
        $py:expr, $records:expr, $opts:expr,
        $(lists: |$l:ident| $list:expr,)?
        |$src:ident, $recs:ident| $run:expr,
        |$w:ident, $out:ident| $write:expr $(,)?
    ) => {{
        let py: pyo3::Python<'_> = $py;
        let inp = $crate::input::input($records)?;
        match inp.json()? {
            None => {
                let $crate::input::Input::List(l) = &inp else {
                    unreachable!("only a list has no JSON text")
                };
                $crate::input::with_records!(@list py, l, $opts, $(|$l| $list,)? |$src, $recs| $run, |$w, $out| $write)
            }
            Some((data, $w)) => {
                let $src = $crate::input::JsonSource;
                let $out = py
                    .detach(|| {
                        $crate::errors::guard(|| {
                            let text = msgnorm_core::json::utf8(data)?;
                            #[allow(unused_mut)]
                            let mut $recs = msgnorm_core::json::read_records(text, $opts)?;
                            Ok($run?)
                        })
                    })
                    .map_err(|e| $crate::errors::to_pyerr(py, e))?;
                $write
            }
        }
    }};
    (@list $py:ident, $list:ident, $opts:expr, |$l:ident| $custom:expr, |$src:ident, $recs:ident| $run:expr, |$w:ident, $out:ident| $write:expr) => {{
        let $l = $list;
        $custom
    }};
    (@list $py:ident, $list:ident, $opts:expr, |$src:ident, $recs:ident| $run:expr, |$w:ident, $out:ident| $write:expr) => {{
        let ctx = $crate::view::Ctx::for_list($list)?;
        let strs = $crate::read::Strs::new();
        let $src = $crate::input::Objects { ctx: &ctx };
        let $w = $src;
        let $out = $crate::errors::guard(|| {
            #[allow(unused_mut)]
            let mut $recs = $crate::read::read(&ctx, &strs, $list, $opts)?;
            Ok($run?)
        })
        .map_err(|e| $crate::errors::to_pyerr($py, e))?;
        $write
    }};
}
pub(crate) use with_records;

/// Records from and to Python objects (dicts or msgnorm Structs).
#[derive(Clone, Copy)]
pub(crate) struct Objects<'c, 'py> {
    pub ctx: &'c Ctx<'py>,
}

impl<'py> Objects<'_, 'py> {
    /// A tool_use block's name and whether its input is `{}` (a dict or a Struct).
    pub(crate) fn tool_info(&self, b: &Obj<'py>) -> msgnorm_core::Result<ToolUseInfo> {
        let ctx = self.ctx;
        let pyerr = |e: PyErr| Error::value(format!("reading a tool_use block: {e}"));
        let mut info = ToolUseInfo::default();
        let Some(view) = ctx.view(b).map_err(pyerr)? else {
            return Ok(info);
        };
        if let Some(name) = ctx.get(&view, "name").map_err(pyerr)? {
            match name.cast::<PyString>() {
                Ok(s) => {
                    let s = s.to_cow().map_err(pyerr)?;
                    info.name_chars = s.chars().count() as u64;
                    info.name = s.into_owned();
                }
                Err(_) => {
                    info.name_chars = crate::read::j_of(ctx, &name, false)
                        .map_err(|e| match e {
                            ReadError::Invalid(e) => e.named("name"),
                            ReadError::Source(e) => pyerr(e),
                        })?
                        .n
                }
            }
        }
        if let Some(input) = ctx.get(&view, "input").map_err(pyerr)? {
            info.input_empty = input.cast::<PyDict>().is_ok_and(|d| d.is_empty());
        }
        Ok(info)
    }

    /// The records as a list of the input's kind.
    pub(crate) fn records(&self, recs: &[Rec<'_, 'py>]) -> PyResult<Bound<'py, PyAny>> {
        Ok(write::records_to_py(self.ctx, recs, true)?.into_any())
    }

    /// `[{"role": type, "content": message.content}]`, each content the input's own.
    pub(crate) fn anthropic(&self, recs: &[Rec<'_, 'py>]) -> PyResult<Bound<'py, PyAny>> {
        let py = self.ctx.py();
        let out = PyList::empty(py);
        for r in recs {
            let d = PyDict::new(py);
            d.set_item("role", r.kind.role())?;
            let content = match (&r.orig, &r.content) {
                (Some(o), _) => o.get_item("message")?.get_item("content")?,
                (None, c) => write::content_to_py(self.ctx, c)?,
            };
            d.set_item("content", content)?;
            out.append(d)?;
        }
        Ok(out.into_any())
    }
}

/// Records read from JSON text.
#[derive(Clone, Copy)]
pub(crate) struct JsonSource;

impl JsonSource {
    /// A tool_use block's name and whether its input is `{}`.
    pub(crate) fn tool_info(&self, b: &Raw<'_>) -> msgnorm_core::Result<ToolUseInfo> {
        msgnorm_core::json::tool_use_info(b)
    }
}

/// Output as JSON text: bytes, or a str when the input was a str.
pub(crate) struct Json<'py> {
    py: Python<'py>,
    str: bool,
}

impl<'py> Json<'py> {
    /// Runs `f` with the GIL released.
    fn off<T: Send>(&self, f: impl FnOnce() -> msgnorm_core::Result<T> + Send) -> PyResult<T> {
        let py = self.py;
        py.detach(|| guard(|| f().map_err(Failure::Core)))
            .map_err(|e| to_pyerr(py, e))
    }

    /// The records as a JSON array. Bytes are sized first, then written
    /// straight into the bytes object: the output exists once, not as a
    /// `Vec` and a copy of it.
    pub(crate) fn records(&self, recs: &[Record<'_, Raw<'_>>]) -> PyResult<Bound<'py, PyAny>> {
        if self.str {
            let out = self.off(|| json::write_records(recs))?;
            return self.text(out);
        }
        let py = self.py;
        let len = self.off(|| json::records_len(recs))?;
        Ok(crate::alloc::bytes_with(py, len, |buf| {
            self.off(|| json::write_records_into(recs, buf))
        })?
        .into_any())
    }

    /// `[{"role": type, "content": message.content}]` as JSON.
    pub(crate) fn anthropic(&self, recs: &[Record<'_, Raw<'_>>]) -> PyResult<Bound<'py, PyAny>> {
        let out = self.off(|| json::write::write_anthropic(recs))?;
        self.text(out)
    }

    /// JSON text as bytes, or as a str when the input was one.
    pub(crate) fn text(&self, out: Vec<u8>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        if !self.str {
            return Ok(PyBytes::new(py, &out).into_any());
        }
        match String::from_utf8(out) {
            Ok(s) => Ok(PyString::new(py, &s).into_any()),
            Err(_) => Err(to_pyerr(
                py,
                Failure::Core(Error::value("internal error: output is not UTF-8")),
            )),
        }
    }
}
