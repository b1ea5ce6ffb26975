//! Token counting and the §7 budget functions (SPEC §6, §7).

use crate::args::{self, params};
use crate::errors::{guard, to_pyerr, Exc, Failure};
use crate::input::with_records;
use crate::input::{input, Input};
use crate::read::{self, Strs};
use crate::view::{Ctx, Obj};
use crate::write;
use msgnorm_core::exact;
use msgnorm_core::model::Kind;
use msgnorm_core::prompt::{Facts, Prompt};
use msgnorm_core::providers::value::Value;
use msgnorm_core::read::ReadOpts;
use msgnorm_core::tokens::Tokenizer;
use msgnorm_core::CountParams;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};
use std::borrow::Cow;

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
            $records, $($arg,)* * $(, $kw=$kdef)?, tokenizer="auto", chars_per_token=None,
            tokens_per_message=None, tokens_per_image=None, tokens_per_document=None,
        ))]
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name<$py>(
            $pyv: Python<$py>,
            $records: &Bound<$py, PyAny>,
            $(#[pyo3(from_py_with = $from)] $arg: $ty,)*
            $(#[pyo3(from_py_with = $kfrom)] $kw: $kty,)?
            tokenizer: &str,
            #[pyo3(from_py_with = args::opt_chars_per_token)] chars_per_token: Option<f64>,
            #[pyo3(from_py_with = args::opt_tokens_per_message)] tokens_per_message: Option<u64>,
            #[pyo3(from_py_with = args::opt_tokens_per_image)] tokens_per_image: Option<u64>,
            #[pyo3(from_py_with = args::opt_tokens_per_document)] tokens_per_document: Option<u64>,
        ) -> $ret {
            let tokenizer = args::tokenizer(tokenizer)?;
            let $p = args::count_params(
                tokenizer, chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document,
            )?;
            $body
        }
    };
}

/// Costs and turn starts of a list of dict records.
pub(crate) fn list_costs<'a, 'py>(
    ctx: &Ctx<'py>,
    strs: &'a Strs<'py>,
    l: &Bound<'py, PyList>,
    p: &CountParams,
) -> PyResult<(Vec<read::Rec<'a, 'py>>, Vec<u64>, Vec<bool>)> {
    let py = ctx.py();
    guard(|| {
        let recs = read::read(ctx, strs, l, ReadOpts::counting(p))?;
        let (costs, turns) = msgnorm_core::costs_and_turns(&recs, p)?;
        Ok((recs, costs, turns))
    })
    .map_err(|e| to_pyerr(py, e))
}

/// Costs and turn starts of a list of records, without keeping the records.
pub(crate) fn list_costs_only<'py>(
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
pub(crate) fn list_cutoff_only<'py>(
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
    fn count_tokens_per_record<'py>(py, records; keyword exact: bool = args::flag => false; params p)
        -> PyResult<Vec<u64>> {
        if exact {
            return exact_counts(py, records, p.tokenizer);
        }
        per_record(py, records, &p)
    }
}

counting_fn! {
    /// Approximate tokens of the whole history (SPEC §6).
    fn count_tokens<'py>(py, records; keyword exact: bool = args::flag => false; params p)
        -> PyResult<u64> {
        let per = if exact {
            exact_counts(py, records, p.tokenizer)?
        } else {
            per_record(py, records, &p)?
        };
        Ok(per.iter().fold(0u64, |a, &c| a.saturating_add(c)))
    }
}

/// SPEC §6 `exact=True`: the BPE counts of `msgnorm._exact` (an optional
/// part, imported on use), for the public encodings only.
#[cold]
fn exact_counts(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    tokenizer: Tokenizer,
) -> PyResult<Vec<u64>> {
    let encoding = match tokenizer {
        Tokenizer::Family(msgnorm_core::tokens::Family::O200k) => "o200k_base",
        Tokenizer::Cl100k => "cl100k_base",
        t => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "exact=True needs tokenizer='o200k_base' or 'cl100k_base', not {:?}",
                t.name()
            )))
        }
    };
    py.import("msgnorm._exact")?
        .call_method1("exact_counts", (records, encoding))?
        .extract()
}

pub(crate) fn per_record(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    p: &CountParams,
) -> PyResult<Vec<u64>> {
    Ok(with_records!(
        py, records, ReadOpts::counting(p),
        lists: |l| list_costs_only(&Ctx::for_list(l)?, l, p)?.0,
        |_src, recs| msgnorm_core::tokens::per_record(&recs, p),
        |_w, costs| costs,
    ))
}

counting_fn! {
    /// The smallest safe `k` such that `records[:pin] + records[k:]` fits (SPEC §7).
    fn find_cutoff<'py>(py, records, max_tokens: u64 = args::max_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<usize> {
        Ok(with_records!(
            py, records, ReadOpts::counting(&p),
            lists: |l| list_cutoff_only(&Ctx::for_list(l)?, l, max_tokens, pin, &p)?,
            |_src, recs| msgnorm_core::cutoff_of(&recs, max_tokens, pin, &p),
            |_w, k| k,
        ))
    }
}

counting_fn! {
    /// `records[:pin] + records[k:]` with the joint user-merged (SPEC §7).
    ///
    /// Like slicing, records the call did not change are returned as the same objects.
    fn trim_to_budget<'py>(py, records, max_tokens: u64 = args::max_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<Bound<'py, PyAny>> {
        Ok(with_records!(
            py, records, ReadOpts::counting(&p),
            lists: |l| trim_list(l, max_tokens, pin, &p)?,
            |_src, recs| msgnorm_core::trim_to_budget(recs, max_tokens, pin, &p),
            |w, out| w.records(&out.1)?,
        ))
    }
}

/// [`trim_to_budget`] of a list: slices of it, the costs read one record at
/// a time; only the two records at the joint are read again (and kept).
fn trim_list<'py>(
    l: &Bound<'py, PyList>,
    max_tokens: u64,
    pin: usize,
    p: &CountParams,
) -> PyResult<Bound<'py, PyAny>> {
    let py = l.py();
    let ctx = Ctx::for_list(l)?;
    let k = list_cutoff_only(&ctx, l, max_tokens, pin, p)?;
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

counting_fn! {
    /// `(records[pin:k], records[k:])`: what to summarise and what to keep (SPEC §7).
    fn split_for_summary<'py>(py, records, keep_tokens: u64 = args::keep_tokens; keyword pin: usize = args::pin => 0; params p)
        -> PyResult<Bound<'py, PyTuple>> {
        with_records!(
            py, records, ReadOpts::counting(&p),
            lists: |l| {
                // slices of the list, the costs read one record at a time
                let k = list_cutoff_only(&Ctx::for_list(l)?, l, keep_tokens, pin, &p)?;
                let pin = pin.min(l.len());
                PyTuple::new(py, [l.get_slice(pin, k), l.get_slice(k, l.len())])
            },
            |_src, recs| msgnorm_core::split_for_summary(recs, keep_tokens, pin, &p),
            |w, out| PyTuple::new(py, [w.records(&out.0)?, w.records(&out.1)?]),
        )
    }
}

/// §6.1's reading of a `usage` dict: its non-negative integer counts.
pub(crate) fn usage_of(u: &Bound<'_, PyAny>) -> PyResult<Option<msgnorm_core::prompt::Reported>> {
    let Ok(d) = u.cast::<PyDict>() else {
        return Ok(None);
    };
    let mut keys = msgnorm_core::prompt::UsageKeys::default();
    for (k, v) in d.iter() {
        let (Ok(k), false) = (k.cast::<PyString>(), v.is_instance_of::<PyBool>()) else {
            continue;
        };
        if let Ok(n) = v.extract::<u64>() {
            keys.set(k.to_str()?, n);
        }
    }
    Ok(keys.reported())
}

/// The §6.1 facts of a dict record (one that §1 accepted).
fn dict_facts(item: &Bound<'_, PyAny>) -> PyResult<Facts<'static>> {
    let Ok(d) = item.cast::<PyDict>() else {
        return Ok(Facts::of_kind(Kind::Entry));
    };
    let str_of = |v: Option<Bound<'_, PyAny>>| -> Option<String> {
        v.and_then(|v| {
            v.cast::<PyString>()
                .ok()
                .and_then(|s| s.to_str().ok().map(str::to_string))
        })
    };
    let kind = str_of(d.get_item("type")?).map_or(Kind::Entry, |t| Kind::from_type(&t));
    let mut f = Facts::of_kind(kind);
    if let Some(v) = d.get_item("isCompactSummary")? {
        f.boundary = v.is_instance_of::<PyBool>() && v.is_truthy()?;
    }
    match kind {
        Kind::System if str_of(d.get_item("subtype")?).as_deref() == Some("compact_boundary") => {
            f.boundary = true;
        }
        Kind::Assistant => {
            if let Some(m) = d.get_item("message")? {
                if let Ok(m) = m.cast::<PyDict>() {
                    f.message_id = str_of(m.get_item("id")?).map(Cow::Owned);
                    f.model = str_of(m.get_item("model")?).map(Cow::Owned);
                    if let Some(u) = m.get_item("usage")? {
                        f.usage = usage_of(&u)?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(f)
}

/// SPEC §6.1: the size of the next request's prompt, anchored on the latest
/// reported usage; `extra` (the system prompt's and tools' texts) counts only
/// where nothing anchors it. The Python wrapper checks the options.
#[pyfunction]
#[pyo3(signature = (records, extra, counting))]
pub(crate) fn prompt_tokens(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    extra: Vec<String>,
    counting: args::Counting,
) -> PyResult<u64> {
    let p = params(counting);
    let texts: Vec<&str> = extra.iter().map(String::as_str).collect();
    let fail = |e| to_pyerr(py, Failure::Core(e));
    let extra = msgnorm_core::prompt::extra_tokens(&texts, &p).map_err(fail)?;
    let input = input(records)?;
    if let Some((data, _)) = input.json()? {
        let data = data.to_vec();
        return py
            .detach(move || {
                guard(|| {
                    let src = msgnorm_core::json::utf8(&data).map_err(Failure::Core)?;
                    msgnorm_core::prompt::prompt_json(src, &p, extra).map_err(Failure::Core)
                })
            })
            .map_err(|e| to_pyerr(py, e));
    }
    let costs = per_record(py, records, &p)?;
    let Input::List(l) = input else {
        unreachable!("json() is None only for a list")
    };
    let mut state = Prompt::default();
    for (item, cost) in l.iter().zip(costs) {
        state.push(cost, &dict_facts(&item)?);
    }
    Ok(state.tokens(extra))
}

/// SPEC §6: each record's content as the "o200k_base" family reads it (its
/// text blocks; a tool call as its name and its input as compact JSON; a tool
/// result's text; joined by newlines); `None` for a record that is not a
/// message. A list of dicts or Structs is read directly ([`list_content_texts`]).
#[pyfunction]
pub(crate) fn content_texts(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
) -> PyResult<Vec<Option<String>>> {
    if let Ok(l) = records.cast::<PyList>() {
        return list_content_texts(l);
    }
    let data: Vec<u8> = match input(records)?.json()? {
        Some((data, _)) => data.to_vec(),
        None => py
            .import("msgspec.json")?
            .call_method1("encode", (records,))?
            .extract()?,
    };
    py.detach(move || {
        guard(|| {
            let src = msgnorm_core::json::utf8(&data).map_err(Failure::Core)?;
            msgnorm_core::exact::content_texts(src).map_err(Failure::Core)
        })
    })
    .map_err(|e| to_pyerr(py, e))
}

/// The content text of each record of a list of dicts or Structs (SPEC
/// §6.3), read one record at a time as every count function reads them; the
/// core assembles it ([`exact::content_text_with`]) from what is read here.
pub(crate) fn list_content_texts(l: &Bound<'_, PyList>) -> PyResult<Vec<Option<String>>> {
    let ctx = Ctx::for_list(l)?;
    let mut texts = Vec::with_capacity(l.len());
    for (i, item) in l.iter().enumerate() {
        let strs = Strs::with_capacity(4);
        let rec = read::read_one(&ctx, &strs, item, i).map_err(|e| to_pyerr(l.py(), e))?;
        let mut failed = Ok(());
        let text = exact::content_text_with(&rec, |block, out| {
            if failed.is_ok() {
                failed = call_part(&ctx, block, out).map_err(|e| not_json(l.py(), i, e));
            }
        });
        failed?;
        texts.push(text);
    }
    Ok(texts)
}

/// A tool call's part of its record's content text: its `name` (nothing when
/// it is not a str), then its `input` as compact JSON — the value as the core
/// writes it, read from the objects when they are plain JSON data, else from
/// msgspec's JSON of it (what the JSON path reads).
fn call_part<'py>(ctx: &Ctx<'py>, block: &Obj<'py>, out: &mut String) -> PyResult<()> {
    let Some(view) = ctx.view(block)? else {
        return Ok(());
    };
    if let Some(name) = ctx.get(&view, "name")? {
        if let Ok(s) = name.cast::<PyString>() {
            out.push_str(s.to_str()?);
        }
    }
    let Some(input) = ctx.get(&view, "input")? else {
        return Ok(());
    };
    let value = match crate::providers::plain_value(&input) {
        Some(v) => v,
        None => {
            let data: Vec<u8> = ctx
                .py()
                .import("msgspec.json")?
                .call_method1("encode", (input,))?
                .extract()?;
            let text = msgnorm_core::json::utf8(&data).map_err(|e| to_pyerr(ctx.py(), e.into()))?;
            Value::from_json(text).map_err(|e| to_pyerr(ctx.py(), e.into()))?
        }
    };
    value.write_json(out);
    Ok(())
}

/// A tool call that msgspec cannot write as JSON: the error the JSON path gives.
#[cold]
fn not_json(py: Python<'_>, index: usize, e: PyErr) -> PyErr {
    if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py)
        || e.is_instance_of::<pyo3::exceptions::PyValueError>(py)
    {
        let why = format!("records: not JSON data (record {index}: {e})");
        return Exc::Msgnorm.new_err(py, (why,));
    }
    e
}

/// The ingredients of each record's calibrated estimate (SPEC §6), for the
/// fitting script (`benches/calibrate_tokens.py`): the character classes
/// (letters, words, digits, numbers, punct, puncts, spaces, newlines, cjk,
/// kana, hangul, other, leaves, scalars, escapes, rare_han, gaps), then blocks,
/// tool calls, tool results, images, documents and 1 for a message (0
/// otherwise). JSON text only.
#[pyfunction]
pub(crate) fn _token_features(py: Python<'_>, data: &[u8]) -> PyResult<Vec<[u64; 23]>> {
    let data = data.to_vec();
    py.detach(move || {
        guard(|| {
            let src = msgnorm_core::json::utf8(&data).map_err(Failure::Core)?;
            let recs = msgnorm_core::json::read::read_records(src, ReadOpts::COUNT)
                .map_err(Failure::Core)?;
            Ok(recs
                .iter()
                .map(|r| {
                    let c = &r.cost;
                    let k = &c.cls;
                    [
                        k.letters, k.words, k.digits, k.numbers, k.punct, k.puncts, k.spaces,
                        k.newlines, k.cjk, k.kana, k.hangul, k.other, k.leaves, k.scalars,
                        k.escapes, k.rare_han, k.gaps, c.blocks, c.calls, c.results,
                    ]
                    .map(u64::from)
                    .into_iter()
                    .chain([c.images, c.documents, u64::from(r.kind.is_message())])
                    .collect::<Vec<u64>>()
                    .try_into()
                    .unwrap_or([0; 23])
                })
                .collect())
        })
    })
    .map_err(|e| to_pyerr(py, e))
}
