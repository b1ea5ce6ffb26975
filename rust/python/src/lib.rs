//! Python bindings of msgnorm: conversion and dispatch only; the algorithms
//! live in `msgnorm-core`.

mod alloc;
mod args;
mod arrow;
mod batch;
mod conversation;
mod providers;
mod read;
mod session;
mod validate;
mod view;
mod write;

/// The Rust side's allocator (see alloc.rs).
#[global_allocator]
static GLOBAL: alloc::Split = alloc::Split;

use msgnorm_core::model::Kind;
use msgnorm_core::read::ReadError;
use msgnorm_core::{ApiOptions, CountParams, Error, Report, Templates};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView, PyString, PyTuple};
use read::{read_records, Strs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use view::Ctx;

/// Builds the Python exception (from `msgnorm.errors`) for a core error.
/// What the binding's Rust code fails with: a core error (mapped to a msgnorm
/// exception by [`to_pyerr`]) or a Python exception raised on the way.
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

fn to_pyerr(py: Python<'_>, e: Failure) -> PyErr {
    let e = match e {
        Failure::Py(e) => return e,
        Failure::Core(e) => e,
    };
    // The exception classes, looked up once per process.
    static ERRORS: pyo3::sync::PyOnceLock<Py<PyModule>> = pyo3::sync::PyOnceLock::new();
    let build = || -> PyResult<PyErr> {
        let m = ERRORS
            .get_or_try_init(py, || py.import("msgnorm.errors").map(Bound::unbind))?
            .bind(py);
        let msg = e.to_string();
        let obj = match &e {
            Error::InvalidRecord { index, path, .. } => m
                .getattr("InvalidRecordError")?
                .call1((msg, *index, path.as_str()))?,
            Error::Json { line, column, .. } => {
                m.getattr("JSONDecodeError")?.call1((msg, *line, *column))?
            }
            Error::Pairing { index, ids, .. } => {
                m.getattr("PairingError")?
                    .call1((msg, *index, ids.clone()))?
            }
            Error::Budget { .. } => m.getattr("BudgetError")?.call1((msg,))?,
            Error::Value { .. } => m.getattr("MsgnormError")?.call1((msg,))?,
        };
        Ok(PyErr::from_value(obj))
    };
    build().unwrap_or_else(|err| err)
}

/// Runs `f`, turning a panic into an error: no panic reaches Python as such.
fn guard<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Failure::Core(msgnorm_core::error::from_panic(
            payload.as_ref(),
        ))),
    }
}

/// The three input kinds the binding sees: a list (of dicts or msgnorm Structs,
/// both read in place by [`read`]), JSON bytes, a JSON str.
enum Input<'py> {
    List(Bound<'py, PyList>),
    Bytes(Bound<'py, PyBytes>),
    Str(Bound<'py, PyString>),
}

fn input<'py>(records: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
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
    let m = py.import("msgnorm.errors")?;
    Err(PyErr::from_value(
        m.getattr("InvalidRecordError")?
            .call1((msg, py.None(), "records"))?,
    ))
}

/// Runs a JSON-text function with the GIL released, returning bytes or str like the input.
fn on_json<'py, T: Send>(
    py: Python<'py>,
    inp: &Input<'py>,
    f: impl FnOnce(&[u8]) -> msgnorm_core::Result<T> + Send,
) -> PyResult<T> {
    let r = match inp {
        Input::Bytes(b) => {
            let data = b.as_bytes();
            py.detach(|| guard(|| f(data).map_err(Failure::Core)))
        }
        Input::Str(s) => {
            let Ok(text) = s.to_str() else {
                return Err(to_pyerr(py, Failure::Core(surrogate_error(s))));
            };
            let data = text.as_bytes();
            py.detach(|| guard(|| f(data).map_err(Failure::Core)))
        }
        Input::List(_) => unreachable!("on_json is called for JSON input only"),
    };
    r.map_err(|e| to_pyerr(py, e))
}

/// A str that is not valid Unicode text (a lone surrogate): where it is.
pub(crate) fn surrogate_error(s: &Bound<'_, PyString>) -> Error {
    let lossy = s.to_string_lossy();
    let pos = lossy.find('\u{fffd}').unwrap_or(0);
    let (line, column) = msgnorm_core::json::parse::line_col(&lossy, pos);
    Error::Json {
        line,
        column,
        msg: "the str holds a lone surrogate, which is not valid Unicode text".into(),
    }
}

fn json_out<'py>(py: Python<'py>, inp: &Input<'py>, out: Vec<u8>) -> PyResult<Bound<'py, PyAny>> {
    match inp {
        Input::Str(_) => match String::from_utf8(out) {
            Ok(s) => Ok(PyString::new(py, &s).into_any()),
            Err(_) => Err(to_pyerr(
                py,
                Failure::Core(Error::value("internal error: output is not UTF-8")),
            )),
        },
        _ => Ok(PyBytes::new(py, &out).into_any()),
    }
}

fn templates(py: Python<'_>, t: Option<&Bound<'_, PyDict>>) -> PyResult<Templates> {
    let overrides = template_overrides(py, t)?;
    Templates::new(&overrides).map_err(|e| to_pyerr(py, Failure::Core(e)))
}

/// `attachment_templates` as the core takes them: `(type, template or None)`.
fn template_overrides(
    py: Python<'_>,
    t: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(String, Option<String>)>> {
    let mut overrides = Vec::new();
    if let Some(t) = t {
        for (k, v) in t.iter() {
            let key: String = k.extract().map_err(|_| {
                let msg = "attachment_templates: keys must be attachment type strings";
                to_pyerr(py, Failure::Core(Error::value(msg)))
            })?;
            let val: Option<String> = if v.is_none() {
                None
            } else if let Ok(text) = v.cast::<PyString>() {
                match text.to_str() {
                    Ok(t) => Some(t.to_owned()),
                    Err(_) => {
                        let msg = format!(
                            "attachment_templates[{key:?}]: the template holds a lone surrogate"
                        );
                        return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
                    }
                }
            } else {
                let msg =
                    format!("attachment_templates[{key:?}]: a template must be a str or None");
                return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
            };
            overrides.push((key, val));
        }
    }
    Ok(overrides)
}

/// `normalize_for_api`'s options from its arguments (the batch kernels').
fn api_options(
    py: Python<'_>,
    (strict, max_media, short_ids, ensure_user_first): (bool, Option<usize>, bool, bool),
    attachment_templates: Option<&Bound<'_, PyDict>>,
) -> PyResult<ApiOptions> {
    Ok(ApiOptions {
        strict,
        max_media,
        short_ids,
        ensure_user_first,
        templates: templates(py, attachment_templates)?,
    })
}

/// `attachment_templates` as a dict (any mapping is copied into one).
fn templates_dict<'py>(t: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Bound<'py, PyDict>>> {
    match t {
        None => Ok(None),
        Some(t) if t.is_none() => Ok(None),
        Some(t) => match t.cast::<PyDict>() {
            Ok(d) => Ok(Some(d.clone())),
            Err(_) => {
                let d = t.py().import("builtins")?.getattr("dict")?.call1((t,))?;
                Ok(Some(d.cast_into::<PyDict>()?))
            }
        },
    }
}

/// The cyclic garbage collector paused while a call builds many objects (a
/// full collection meanwhile walks the whole live heap); re-enabled on drop
/// only if it was enabled before.
pub struct GcPaused<'py>(Option<Bound<'py, PyModule>>);

impl<'py> GcPaused<'py> {
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if gc.call_method0("isenabled")?.is_truthy()? {
            gc.call_method0("disable")?;
            Ok(GcPaused(Some(gc)))
        } else {
            Ok(GcPaused(None))
        }
    }
}

impl Drop for GcPaused<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.0 {
            // Re-enabling cannot fail but through a broken `gc` module.
            let _ = gc.call_method0("enable");
        }
    }
}

/// Declares a public function taking `normalize_for_api`'s options as
/// keywords, with their defaults written once for both functions; `$ret`
/// maps the `(output, report)` pair to what the function returns.
macro_rules! api_fn {
    ($(#[$doc:meta])* fn $name:ident -> $ty:ty = $ret:expr) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (
            records, *, strict=false, max_media=Some(100), short_ids=false,
            ensure_user_first=true, attachment_templates=None,
        ))]
        #[pyo3(
            text_signature = "(records, *, strict=False, max_media=100, short_ids=False, ensure_user_first=True, attachment_templates=None)"
        )]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(
            py: Python<'py>,
            records: &Bound<'py, PyAny>,
            #[pyo3(from_py_with = args::flag)] strict: bool,
            #[pyo3(from_py_with = args::max_media)] max_media: Option<usize>,
            #[pyo3(from_py_with = args::flag)] short_ids: bool,
            #[pyo3(from_py_with = args::flag)] ensure_user_first: bool,
            attachment_templates: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<$ty> {
            let opts = api_options(
                py,
                (strict, max_media, short_ids, ensure_user_first),
                templates_dict(attachment_templates)?.as_ref(),
            )?;
            let _gc = GcPaused::new(py)?;
            normalize_for_api_with(py, records, &opts)
                .map($ret)
                .map_err(|e| if strict { with_violations(py, e, records) } else { e })
        }
    };
}

api_fn! {
    /// `(output, report)`: what is sent to the model (SPEC §4) and a count of
    /// every repair rule that fired, by name.
    fn normalize_for_api_report -> (Bound<'py, PyAny>, Bound<'py, PyDict>) = |pair| pair
}

api_fn! {
    /// What is sent to the model (SPEC §4): only user and assistant records,
    /// repaired. Input is never mutated. Records the call did not change are the
    /// input's own objects (shared, like slicing); changed records and their
    /// `message` are fresh shallow copies that share the blocks the call did not
    /// change.
    fn normalize_for_api -> Bound<'py, PyAny> = |(out, _)| out
}

/// A strict-mode `PairingError` with its `violations`: what the Anthropic
/// rules say of the history (`msgnorm.validate`), worked out only now that
/// strict mode refused it.
#[cold]
fn with_violations(py: Python<'_>, e: PyErr, records: &Bound<'_, PyAny>) -> PyErr {
    let enrich = || -> PyResult<()> {
        let errors = py.import("msgnorm.errors")?;
        if e.is_instance(py, &errors.getattr("PairingError")?) {
            let found = py
                .import("msgnorm.provider_rules")?
                .getattr("repairable_violations")?
                .call1((records, "anthropic"))?;
            e.value(py).setattr("violations", found)?;
        }
        Ok(())
    };
    match enrich() {
        Ok(()) => e,
        Err(other) => other,
    }
}

fn normalize_for_api_with<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    opts: &ApiOptions,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let opts = opts.clone();
    let inp = input(records)?;
    let mut report = Report::default();
    let out = match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            let out = guard(|| {
                let recs = read::read_records_for_api(&ctx, &strs, l)?;
                Ok(msgnorm_core::normalize_for_api_report(
                    recs,
                    &opts,
                    &mut report,
                )?)
            })
            .map_err(|e| to_pyerr(py, e))?;
            write::records_to_py(&ctx, &out, true)?.into_any()
        }
        Input::Bytes(b) => {
            // Counted first, then written straight into the bytes object: the
            // output exists once, not as a Vec and a copy of it.
            let data = b.as_bytes();
            let (recs, len, r) = py
                .detach(|| {
                    guard(|| {
                        let mut r = Report::default();
                        let (recs, len) =
                            msgnorm_core::on_json::normalize_for_api_records(data, &opts, &mut r)?;
                        Ok((recs, len, r))
                    })
                })
                .map_err(|e| to_pyerr(py, e))?;
            report = r;
            PyBytes::new_with(py, len, |buf| {
                py.detach(|| {
                    guard(|| {
                        msgnorm_core::json::write_records_into(&recs, buf).map_err(Failure::Core)
                    })
                })
                .map_err(|e| to_pyerr(py, e))
            })?
            .into_any()
        }
        _ => {
            let (out, r) = on_json(py, &inp, |d| {
                let mut r = Report::default();
                msgnorm_core::on_json::normalize_for_api(d, &opts, &mut r).map(|o| (o, r))
            })?;
            report = r;
            json_out(py, &inp, out)?
        }
    };
    let rep = PyDict::new(py);
    for (k, v) in report.items() {
        rep.set_item(k, v)?;
    }
    Ok((out, rep))
}

#[pyfunction]
fn normalize_messages<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            let out = guard(|| {
                let recs = read_records(&ctx, &strs, l, false)?;
                Ok(msgnorm_core::split::normalize_messages(recs)?)
            })
            .map_err(|e| to_pyerr(py, e))?;
            Ok(write::records_to_py(&ctx, &out, true)?.into_any())
        }
        _ => {
            let out = on_json(py, &inp, msgnorm_core::on_json::normalize_messages)?;
            json_out(py, &inp, out)
        }
    }
}

/// `(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document)`.
type Counting = (f64, u64, u64, u64);

fn params(
    (chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document): Counting,
) -> CountParams {
    CountParams {
        chars_per_token,
        tokens_per_message,
        tokens_per_image,
        tokens_per_document,
    }
}

/// Declares a public function taking the SPEC §6 counting options as
/// keywords, with their defaults (`CountParams::default()`, checked by
/// `tests/test_signatures.py`) written once for all of them.
macro_rules! counting_fn {
    (
        $(#[$doc:meta])*
        fn $name:ident<$py:lifetime>(
            $pyv:ident, $records:ident $(, $arg:ident: $ty:ty = $from:path)*
            $(; keyword $kw:ident: $kty:ty = $kfrom:path => $kdef:tt)?; params $p:ident
        ) -> $ret:ty $body:block
    ) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (
            $records, $($arg,)* * $(, $kw=$kdef)?, chars_per_token=4.0, tokens_per_message=3,
            tokens_per_image=1600, tokens_per_document=3000,
        ))]
        #[allow(clippy::too_many_arguments)]
        fn $name<$py>(
            $pyv: Python<$py>,
            $records: &Bound<$py, PyAny>,
            $(#[pyo3(from_py_with = $from)] $arg: $ty,)*
            $(#[pyo3(from_py_with = $kfrom)] $kw: $kty,)?
            #[pyo3(from_py_with = args::chars_per_token)] chars_per_token: f64,
            #[pyo3(from_py_with = args::tokens_per_message)] tokens_per_message: u64,
            #[pyo3(from_py_with = args::tokens_per_image)] tokens_per_image: u64,
            #[pyo3(from_py_with = args::tokens_per_document)] tokens_per_document: u64,
        ) -> $ret {
            let $p = params((chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document));
            $body
        }
    };
}

/// Costs and turn starts of a list of dict records.
fn list_costs<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    l: &Bound<'py, PyList>,
    p: &CountParams,
) -> PyResult<(Vec<read::Rec<'a, 'py>>, Vec<u64>, Vec<bool>)> {
    let py = ctx.py();
    guard(|| {
        let recs = read_records(ctx, strs, l, true)?;
        let (costs, turns) = msgnorm_core::costs_and_turns(&recs, p)?;
        Ok((recs, costs, turns))
    })
    .map_err(|e| to_pyerr(py, e))
}

/// Costs and turn starts of a list of records, without keeping the records.
fn list_costs_only<'py>(
    ctx: &Ctx<'py>,
    l: &Bound<'py, PyList>,
    p: &CountParams,
) -> PyResult<(Vec<u64>, Vec<bool>)> {
    if p.check().is_err() {
        // Records are checked first: their error, if any, is the one raised.
        let (_, costs, turns) = list_costs(ctx, &Strs::new(), l, p)?;
        return Ok((costs, turns));
    }
    guard(|| read::read_costs(ctx, l, p)).map_err(|e| to_pyerr(ctx.py(), e))
}

/// The §7 cut-off `k` of a list of records (nothing kept but the costs).
fn list_cutoff_only<'py>(
    ctx: &Ctx<'py>,
    l: &Bound<'py, PyList>,
    max_tokens: u64,
    pin: usize,
    p: &CountParams,
) -> PyResult<usize> {
    let (costs, turns) = list_costs_only(ctx, l, p)?;
    msgnorm_core::cutoff::find_cutoff(&costs, &turns, max_tokens, pin)
        .map_err(|e| to_pyerr(ctx.py(), Failure::Core(e)))
}

counting_fn! {
    /// Approximate tokens of each record (SPEC §6); 0 for records that are not messages.
    fn count_tokens_per_record<'py>(py, records; params p) -> PyResult<Vec<u64>> {
        per_record(py, records, &p)
    }
}

counting_fn! {
    /// Approximate tokens of the whole history (SPEC §6).
    fn count_tokens<'py>(py, records; params p) -> PyResult<u64> {
        Ok(per_record(py, records, &p)?.iter().fold(0u64, |a, &c| a.saturating_add(c)))
    }
}

fn per_record(py: Python<'_>, records: &Bound<'_, PyAny>, p: &CountParams) -> PyResult<Vec<u64>> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => Ok(list_costs_only(&Ctx::for_list(l)?, l, p)?.0),
        _ => on_json(py, &inp, |d| {
            msgnorm_core::on_json::count_tokens_per_record(d, p)
        }),
    }
}

counting_fn! {
    /// The smallest safe `k` such that `records[:pin] + records[k:]` fits (SPEC §7).
    fn find_cutoff<'py>(py, records, max_tokens: u64 = args::max_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<usize> {
        let inp = input(records)?;
        match &inp {
            Input::List(l) => list_cutoff_only(&Ctx::for_list(l)?, l, max_tokens, pin, &p),
            _ => on_json(py, &inp, |d| {
                msgnorm_core::on_json::find_cutoff(d, max_tokens, pin, &p)
            }),
        }
    }
}

counting_fn! {
    /// `records[:pin] + records[k:]` with the joint user-merged (SPEC §7).
    ///
    /// Like slicing, records the call did not change are returned as the same objects.
    fn trim_to_budget<'py>(py, records, max_tokens: u64 = args::max_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<Bound<'py, PyAny>> {
        let inp = input(records)?;
        match &inp {
            Input::List(l) => {
                let ctx = Ctx::for_list(l)?;
                let k = list_cutoff_only(&ctx, l, max_tokens, pin, &p)?;
                let n = l.len();
                let pin = pin.min(n);
                let k = k.max(pin);
                // `records[:pin] + records[k:]`, the records as the same objects
                // (§7), except that the two records at the joint are user-merged
                // when both are user records: only those two are read again.
                if !(pin > 0 && k > pin && k < n) {
                    return l.get_slice(0, pin).add(l.get_slice(k, n));
                }
                let strs = Strs::new();
                let joint = guard(|| {
                    let prev = read::read_one(&ctx, &strs, l.get_item(pin - 1)?, pin - 1)?;
                    let next = read::read_one(&ctx, &strs, l.get_item(k)?, k)?;
                    let gap = msgnorm_core::model::Record::new(pin, Kind::Entry, None);
                    Ok(msgnorm_core::cutoff::trim(vec![prev, gap, next], 1, 2))
                })
                .map_err(|e| to_pyerr(py, e))?;
                let joint = write::records_to_py(&ctx, &joint, true)?;
                l.get_slice(0, pin - 1)
                    .add(joint)?
                    .add(l.get_slice(k + 1, n))
            }
            _ => {
                let (_, out) = on_json(py, &inp, |d| {
                    msgnorm_core::on_json::trim_to_budget(d, max_tokens, pin, &p)
                })?;
                json_out(py, &inp, out)
            }
        }
    }
}

counting_fn! {
    /// `(records[pin:k], records[k:])`: what to summarise and what to keep (SPEC §7).
    fn split_for_summary<'py>(py, records, keep_tokens: u64 = args::keep_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<Bound<'py, PyTuple>> {
        let inp = input(records)?;
        match &inp {
            Input::List(l) => {
                let k = list_cutoff_only(&Ctx::for_list(l)?, l, keep_tokens, pin, &p)?;
                let pin = pin.min(l.len());
                let head = l.get_slice(pin, k);
                let tail = l.get_slice(k, l.len());
                PyTuple::new(py, [head, tail])
            }
            _ => {
                let (head, tail) = on_json(py, &inp, |d| {
                    msgnorm_core::on_json::split_for_summary(d, keep_tokens, pin, &p)
                })?;
                PyTuple::new(py, [json_out(py, &inp, head)?, json_out(py, &inp, tail)?])
            }
        }
    }
}

/// §5: the attachment's `<system-reminder>` text, or `None` when it renders to nothing.
#[pyfunction]
#[pyo3(signature = (attachment, attachment_templates=None))]
fn render_attachment(
    py: Python<'_>,
    attachment: &Bound<'_, PyAny>,
    attachment_templates: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<String>> {
    let t = templates(py, attachment_templates)?;
    let Ok(a) = attachment.cast::<PyDict>() else {
        return Err(to_pyerr(
            py,
            Failure::Core(Error::value("attachment must be a dict")),
        ));
    };
    let strs = Strs::new();
    let fields = read::attachment_fields(&strs, a).map_err(|e| match e {
        ReadError::Invalid(e) => to_pyerr(py, Failure::Core(e.named("attachment"))),
        ReadError::Source(e) => e,
    })?;
    Ok(t.render(&fields))
}

/// SPEC §1 only: the number of records, or the error any other entry point
/// raises for the same input (the same reader, the same message and place).
/// `msgnorm.decode` and `msgnorm.from_builtins` call it before msgspec converts.
#[pyfunction]
fn validate_records<'py>(py: Python<'py>, records: &Bound<'py, PyAny>) -> PyResult<usize> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            guard(|| Ok(read_records(&ctx, &strs, l, false)?.len())).map_err(|e| to_pyerr(py, e))
        }
        _ => on_json(py, &inp, msgnorm_core::on_json::validate),
    }
}

/// `{"role": type, "content": message.content}` per user/assistant record.
/// Context editing on JSON input (issue 15); the Python layer converts lists.
/// `trigger` is `("input_tokens" | "tool_uses", n)`; `clear_tool_inputs` is
/// cleared for every tool with `clear_all_inputs`, else for `clear_inputs_of`.
#[pyfunction]
#[pyo3(signature = (records, tools, trigger_kind, trigger_value, keep, clear_at_least, exclude_tools, clear_all_inputs, clear_inputs_of, placeholder, thinking, keep_turns))]
#[allow(clippy::too_many_arguments)]
fn clear_context<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    tools: bool,
    trigger_kind: &str,
    trigger_value: u64,
    keep: usize,
    clear_at_least: u64,
    exclude_tools: Vec<String>,
    clear_all_inputs: bool,
    clear_inputs_of: Vec<String>,
    placeholder: String,
    thinking: bool,
    keep_turns: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    use msgnorm_core::editing::ThinkingOptions;
    let trigger = trigger(py, trigger_kind, trigger_value)?;
    let t = tool_options(
        trigger,
        keep,
        clear_at_least,
        exclude_tools,
        clear_all_inputs,
        clear_inputs_of,
        placeholder,
    );
    let th = ThinkingOptions { keep_turns };
    let inp = input(records)?;
    let (out, rep) = match &inp {
        Input::List(l) => {
            let ctx = Ctx::for_list(l)?;
            let strs = Strs::new();
            let info = |h: &view::Obj<'py>| py_tool_info(&ctx, h);
            let mut recs = guard(|| {
                t.check()?;
                read_records(&ctx, &strs, l, true)
            })
            .map_err(|e| to_pyerr(py, e))?;
            let rep = guard(|| {
                Ok(msgnorm_core::editing::edit(
                    &mut recs,
                    tools.then_some(&t),
                    thinking.then_some(th),
                    &CountParams::default(),
                    &info,
                )?)
            })
            .map_err(|e| to_pyerr(py, e))?;
            // Unchanged records are the input's own objects (slicing semantics).
            (write::records_to_py(&ctx, &recs, true)?.into_any(), rep)
        }
        _ => {
            let (out, rep) = on_json(py, &inp, |d| {
                msgnorm_core::on_json::clear_context(d, tools.then_some(&t), thinking.then_some(th))
            })?;
            (json_out(py, &inp, out)?, rep)
        }
    };
    Ok((out, edit_report(py, &rep)?))
}

/// A context edit's report as the `EditReport` dict.
pub(crate) fn edit_report<'py>(
    py: Python<'py>,
    rep: &msgnorm_core::editing::EditReport,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("results_cleared", rep.results_cleared)?;
    d.set_item("inputs_cleared", rep.inputs_cleared)?;
    d.set_item("thinking_cleared", rep.thinking_cleared)?;
    d.set_item("tokens_before", rep.tokens_before)?;
    d.set_item("tokens_after", rep.tokens_after)?;
    d.set_item(
        "tokens_saved",
        rep.tokens_before.saturating_sub(rep.tokens_after),
    )?;
    d.set_item("first_changed", rep.first_changed)?;
    Ok(d)
}

/// A context edit's trigger from its Python spelling.
pub(crate) fn trigger(
    py: Python<'_>,
    kind: &str,
    value: u64,
) -> PyResult<msgnorm_core::editing::Trigger> {
    use msgnorm_core::editing::Trigger;
    match kind {
        "input_tokens" => Ok(Trigger::InputTokens(value)),
        "tool_uses" => Ok(Trigger::ToolUses(value)),
        other => Err(to_pyerr(
            py,
            Failure::Core(Error::value(format!(
                "trigger type must be 'input_tokens' or 'tool_uses', not {other:?}"
            ))),
        )),
    }
}

/// `clear_tool_uses` options from the binding's arguments.
pub(crate) fn tool_options(
    trigger: msgnorm_core::editing::Trigger,
    keep: usize,
    clear_at_least: u64,
    exclude_tools: Vec<String>,
    clear_all_inputs: bool,
    clear_inputs_of: Vec<String>,
    placeholder: String,
) -> msgnorm_core::editing::ToolOptions {
    use msgnorm_core::editing::ClearInputs;
    msgnorm_core::editing::ToolOptions {
        trigger,
        keep,
        clear_at_least,
        exclude_tools,
        clear_inputs: if clear_all_inputs {
            ClearInputs::All
        } else if clear_inputs_of.is_empty() {
            ClearInputs::None
        } else {
            ClearInputs::Tools(clear_inputs_of)
        },
        placeholder,
    }
}

/// A tool_use block's name and whether its input is `{}` (a dict or a Struct).
fn py_tool_info<'py>(
    ctx: &Ctx<'py>,
    b: &view::Obj<'py>,
) -> msgnorm_core::Result<msgnorm_core::editing::ToolUseInfo> {
    let pyerr = |e: PyErr| Error::value(format!("reading a tool_use block: {e}"));
    let mut info = msgnorm_core::editing::ToolUseInfo::default();
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
                info.name_chars = read::j_of(ctx, &name).map_err(|e| match e {
                    ReadError::Invalid(e) => e.named("name"),
                    ReadError::Source(e) => pyerr(e),
                })?
            }
        }
    }
    if let Some(input) = ctx.get(&view, "input").map_err(pyerr)? {
        info.input_empty = input.cast::<PyDict>().is_ok_and(|d| d.is_empty());
    }
    Ok(info)
}

#[pyfunction]
fn to_anthropic<'py>(py: Python<'py>, records: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let inp = input(records)?;
    match &inp {
        Input::List(l) => {
            let ctx = Ctx::new(py, false);
            let strs = Strs::new();
            let recs =
                guard(|| read_records(&ctx, &strs, l, false)).map_err(|e| to_pyerr(py, e))?;
            msgnorm_core::check_anthropic_messages(&recs)
                .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
            let out = PyList::empty(py);
            for r in &recs {
                let d = PyDict::new(py);
                d.set_item("role", r.kind.role())?;
                let content = match (&r.orig, &r.content) {
                    (Some(o), _) => o.get_item("message")?.get_item("content")?,
                    (None, c) => write::content_to_py(&ctx, c)?,
                };
                d.set_item("content", content)?;
                out.append(d)?;
            }
            Ok(out.into_any())
        }
        _ => {
            let out = on_json(py, &inp, msgnorm_core::on_json::to_anthropic)?;
            json_out(py, &inp, out)
        }
    }
}

#[pyfunction]
fn derive_uuid(py: Python<'_>, parent: &str, index: i128) -> PyResult<String> {
    let idx = match u64::try_from(index) {
        Ok(i) => i,
        Err(_) => {
            let msg = format!("index {index} is out of range: it must satisfy 0 <= index < 16**12");
            return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
        }
    };
    msgnorm_core::ids::derive_uuid(parent, idx).map_err(|e| to_pyerr(py, Failure::Core(e)))
}

#[pyfunction]
fn derive_short_message_id(py: Python<'_>, uuid: &str) -> PyResult<String> {
    msgnorm_core::ids::derive_short_message_id(uuid).map_err(|e| to_pyerr(py, Failure::Core(e)))
}

/// Forces a panic inside the guarded core path: tests prove it becomes a `MsgnormError`.
#[pyfunction]
fn _force_panic(py: Python<'_>, message: &str) -> PyResult<()> {
    let m = message.to_string();
    py.detach(|| guard(|| -> Result<(), Failure> { panic!("{m}") }))
        .map_err(|e| to_pyerr(py, e))
}

// The module does not claim free-threading support (`gil_used = true`): on a
// free-threaded CPython, importing it re-enables the GIL. The claim needs a
// multi-threaded test under a free-threaded interpreter, and none can run here:
// PyO3 0.30 supports free-threaded CPython from 3.14 only, msgspec (the runtime
// dependency) from 3.14 only, and no 3.14t interpreter is installable on the
// build machine (see CHANGELOG.md, issue 16).
#[pymodule(gil_used = true)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(normalize_for_api, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_for_api_report, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(args::counting, m)?)?;
    m.add_function(wrap_pyfunction!(args::max_media_arg, m)?)?;
    m.add_function(wrap_pyfunction!(args::count_arg, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_messages, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens_per_record, m)?)?;
    m.add_function(wrap_pyfunction!(find_cutoff, m)?)?;
    m.add_function(wrap_pyfunction!(trim_to_budget, m)?)?;
    m.add_function(wrap_pyfunction!(split_for_summary, m)?)?;
    m.add_function(wrap_pyfunction!(to_anthropic, m)?)?;
    m.add_function(wrap_pyfunction!(validate_records, m)?)?;
    m.add_function(wrap_pyfunction!(providers::from_provider, m)?)?;
    m.add_function(wrap_pyfunction!(providers::to_provider, m)?)?;
    m.add_function(wrap_pyfunction!(providers::convert, m)?)?;
    m.add_function(wrap_pyfunction!(providers::tool_name, m)?)?;
    m.add_function(wrap_pyfunction!(clear_context, m)?)?;
    m.add_function(wrap_pyfunction!(render_attachment, m)?)?;
    m.add_function(wrap_pyfunction!(derive_uuid, m)?)?;
    m.add_function(wrap_pyfunction!(derive_short_message_id, m)?)?;
    m.add_function(wrap_pyfunction!(session::load_session, m)?)?;
    m.add_function(wrap_pyfunction!(batch::normalize_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::count_tokens_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::default_num_threads, m)?)?;
    m.add_class::<conversation::Conversation>()?;
    m.add_function(wrap_pyfunction!(arrow::arrow_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate::rules, m)?)?;
    m.add_function(wrap_pyfunction!(validate::rules_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(_force_panic, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the Cargo profile of this build (build.rs): `release`, `dist`, `dev`
    m.add("BUILD_PROFILE", env!("MSGNORM_BUILD_PROFILE"))?;
    Ok(())
}
