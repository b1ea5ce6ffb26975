//! Provider adapters (`msgnorm-core`'s `providers`): Python objects ↔ the
//! core's value tree, and dispatch. The per-block work runs in the core with
//! the GIL released.

use crate::fresh::Fresh;
use crate::Failure;
use crate::{guard, to_pyerr};
use ahash::AHashMap;
use msgnorm_core::providers::{
    self, value::key, value::MAX_DEPTH, FromProvider, Map, SystemPrompt, Value,
};
use msgnorm_core::providers::{Given, Provider, Target};
use msgnorm_core::{parallel, ApiOptions, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

fn provider(py: Python<'_>, name: &str, what: &str) -> PyResult<Provider> {
    Provider::from_name(name).ok_or_else(|| {
        let names: Vec<_> = Provider::ALL
            .iter()
            .map(|p| format!("{:?}", p.name()))
            .collect();
        let msg = format!(
            "unknown {what} {name:?}: expected one of {}",
            names.join(", ")
        );
        to_pyerr(py, Failure::Core(Error::value(msg)))
    })
}

/// What [`to_value`] saw.
struct Seen {
    /// The value made is the object's own shape (no tuple read as a list), so
    /// that the object may stand for it.
    exact: bool,
    /// The value reads back from its JSON text as it is
    /// ([`providers::records::json_stable`]): no bytes, no non-finite float
    /// (a dict's keys are distinct).
    stable: bool,
}

impl Seen {
    fn new() -> Self {
        Seen {
            exact: true,
            stable: true,
        }
    }
}

/// Why a Python object is not JSON-shaped, and where in it.
struct NotJson {
    msg: String,
    /// The keys and indexes down to the object, innermost first (pushed as
    /// the error returns through the containers).
    path: Vec<String>,
}

impl NotJson {
    fn new(msg: impl Into<String>) -> Self {
        NotJson {
            msg: msg.into(),
            path: Vec::new(),
        }
    }

    /// The error with `seg` (`.key` or `[i]`) outside the path so far.
    fn within(mut self, seg: impl FnOnce() -> String) -> Self {
        self.path.push(seg());
        self
    }

    /// `root` and the path, e.g. `messages[3].content[0]`, and the message.
    fn at(self, i: usize, root: String) -> Error {
        let path: String = self.path.iter().rev().map(String::as_str).collect();
        Error::invalid(i, format!("{root}{path}"), self.msg)
    }
}

/// A Python object as a value, or why it is not JSON-shaped.
fn to_value(v: &Bound<'_, PyAny>, depth: usize, seen: &mut Seen) -> Result<Value, NotJson> {
    if depth > MAX_DEPTH {
        return Err(NotJson::new(format!(
            "nested deeper than {MAX_DEPTH} levels"
        )));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return s.to_str().map(Value::from).map_err(|_| {
            NotJson::new("holds a str with a lone surrogate, which is not valid Unicode text")
        });
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::with_capacity(d.len());
        for (k, x) in d.iter() {
            let Ok(k) = k.cast::<PyString>() else {
                return Err(NotJson::new("holds a dict with a key that is not a str"));
            };
            let k = k
                .to_str()
                .map_err(|_| NotJson::new("holds a key with a lone surrogate"))?;
            let x = to_value(&x, depth + 1, seen).map_err(|e| e.within(|| format!(".{k}")))?;
            m.0.push((key(k), x));
        }
        return Ok(Value::Obj(m));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return items(l.iter(), depth, seen);
    }
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.cast::<PyInt>().is_ok() {
        return Ok(match v.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Num(
                v.str()
                    .map_err(|e| NotJson::new(e.to_string()))?
                    .to_string(),
            ),
        });
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        let f = f.value();
        seen.stable &= f.is_finite();
        return Ok(Value::Float(f));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        seen.stable = false;
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        seen.exact = false;
        return items(t.iter(), depth, seen);
    }
    let tname = v
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Err(NotJson::new(format!(
        "holds a {tname}, which is not JSON data"
    )))
}

/// A list's or tuple's items as an array.
fn items<'py>(
    xs: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
    seen: &mut Seen,
) -> Result<Value, NotJson> {
    xs.enumerate()
        .map(|(j, x)| to_value(&x, depth + 1, seen).map_err(|e| e.within(|| format!("[{j}]"))))
        .collect::<Result<_, _>>()
        .map(Value::Arr)
}

/// Value → Python objects. Short strings (keys, types, roles) are made once
/// per call and shared, as a JSON decoder's key cache does.
struct ToPy<'py, 'v> {
    py: Python<'py>,
    cache: AHashMap<&'v str, Bound<'py, PyString>>,
    /// The lists and dicts made, untracked until the conversion ends.
    fresh: Fresh<'py>,
}

impl<'py, 'v> ToPy<'py, 'v> {
    fn new(py: Python<'py>) -> Self {
        ToPy {
            py,
            cache: AHashMap::new(),
            fresh: Fresh::with_capacity(1024),
        }
    }

    fn str(&mut self, s: &'v str) -> Bound<'py, PyString> {
        if s.len() > 16 {
            return PyString::new(self.py, s);
        }
        let py = self.py;
        self.cache
            .entry(s)
            .or_insert_with(|| PyString::new(py, s))
            .clone()
    }

    fn value(&mut self, v: &'v Value) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match v {
            Value::Null => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Value::Int(i) => i.into_pyobject(py)?.into_any(),
            Value::Float(f) => PyFloat::new(py, *f).into_any(),
            Value::Num(n) => py
                .import("builtins")?
                .getattr("int")?
                .call1((n.as_str(),))?,
            Value::Str(s) => self.str(s).into_any(),
            Value::Bytes(b) => PyBytes::new(py, b).into_any(),
            Value::Arr(a) => {
                let items = a
                    .iter()
                    .map(|x| self.value(x))
                    .collect::<PyResult<Vec<_>>>()?;
                let list = PyList::new(py, items)?.into_any();
                self.fresh.hold(&list);
                list
            }
            Value::Obj(m) => {
                let d = PyDict::new(py);
                for (k, x) in &m.0 {
                    let key = self.str(k);
                    d.set_item(key, self.value(x)?)?;
                }
                let d = d.into_any();
                self.fresh.hold(&d);
                d
            }
        })
    }
}

fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    ToPy::new(py).value(v)
}

/// The elements of a list as values.
struct Values {
    values: Vec<Value>,
    /// Whether each element's object has its value's own shape ([`Seen::exact`]).
    exact: Vec<bool>,
    /// Every value is [`Seen::stable`].
    stable: bool,
}

impl Values {
    fn with_capacity(n: usize) -> Self {
        Values {
            values: Vec::with_capacity(n),
            exact: Vec::with_capacity(n),
            stable: true,
        }
    }

    /// Adds element `i` of a list; errors name `what[i]`.
    fn push(&mut self, py: Python<'_>, x: &Bound<'_, PyAny>, i: usize, what: &str) -> PyResult<()> {
        let mut seen = Seen::new();
        let v = to_value(x, 0, &mut seen)
            .map_err(|e| to_pyerr(py, Failure::Core(e.at(i, format!("{what}[{i}]")))))?;
        self.values.push(v);
        self.exact.push(seen.exact);
        self.stable &= seen.stable;
        Ok(())
    }
}

/// The elements of a list as values; errors name `what[i]`.
fn list_values(py: Python<'_>, l: &Bound<'_, PyList>, what: &str) -> PyResult<Values> {
    let mut out = Values::with_capacity(l.len());
    for (i, x) in l.iter().enumerate() {
        out.push(py, &x, i, what)?;
    }
    Ok(out)
}

/// Messages per slice of [`read_messages`].
const SLICE: usize = 512;

/// A provider's messages as values, and read into records. A long list is
/// read in a pipeline: this thread, holding the GIL, converts the Python
/// objects a slice at a time while a worker reads the slices converted so
/// far into records. An error converting a message comes before any the
/// reader found, as when the whole list is converted first.
fn read_messages(
    py: Python<'_>,
    messages: &Bound<'_, PyList>,
    p: Provider,
    system: Option<&Value>,
    uuids: bool,
) -> PyResult<(Values, Vec<Value>, providers::Counts)> {
    let at_once = || {
        let msgs = list_values(py, messages, "messages")?;
        let (recs, counts) = run(py, || {
            let mut f = FromProvider::new(p, system, uuids)?;
            f.feed(&msgs.values)?;
            Ok(f.finish_counted())
        })?;
        Ok((msgs, recs, counts))
    };
    if messages.len() <= SLICE {
        return at_once();
    }
    let mut msgs = Values::with_capacity(SLICE);
    msgs.exact.reserve(messages.len());
    let piped = parallel::pipeline(
        |send| {
            for (i, x) in messages.iter().enumerate() {
                msgs.push(py, &x, i, "messages")?;
                if msgs.values.len() == SLICE {
                    send(std::mem::replace(
                        &mut msgs.values,
                        Vec::with_capacity(SLICE),
                    ));
                }
            }
            if !msgs.values.is_empty() {
                send(std::mem::take(&mut msgs.values));
            }
            PyResult::Ok(())
        },
        |rx| {
            let mut slices = Vec::new();
            let read = guard(|| {
                let mut f = FromProvider::new(p, system, uuids).map_err(Failure::Core)?;
                for slice in rx {
                    f.feed(&slice).map_err(Failure::Core)?;
                    slices.push(slice);
                }
                Ok(f.finish_counted())
            });
            (slices, read)
        },
    );
    // no thread to be had: the list is read at once
    let Some((converted, joined)) = piped else {
        return at_once();
    };
    let (slices, read) = joined.unwrap_or_else(|payload| {
        let e = msgnorm_core::error::from_panic(payload.as_ref());
        (Vec::new(), Err(Failure::Core(e)))
    });
    converted?;
    let (recs, counts) = read.map_err(|e| to_pyerr(py, e))?;
    msgs.values = slices.into_iter().flatten().collect();
    Ok((msgs, recs, counts))
}

/// `v` as a value when it is plain JSON data that writes as msgspec's JSON of
/// it reads (str-keyed dicts, lists, strs, numbers, booleans, None; no
/// tuple, bytes or non-finite float); `None` otherwise.
pub(crate) fn plain_value(v: &Bound<'_, PyAny>) -> Option<Value> {
    let mut seen = Seen::new();
    let value = to_value(v, 0, &mut seen).ok()?;
    (seen.exact && seen.stable).then_some(value)
}

fn one_value(py: Python<'_>, v: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    to_value(v, 0, &mut Seen::new()).map_err(|e| to_pyerr(py, Failure::Core(e.at(0, what.into()))))
}

/// A converted output as Python objects; message `j` of its message list is
/// the input's own object `inputs[same[j]]` where that is set.
fn out_to_py<'py>(
    py: Python<'py>,
    out: &Value,
    same: &[Option<usize>],
    inputs: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut conv = ToPy::new(py);
    match out {
        Value::Arr(items) => messages_to_py(&mut conv, items, same, inputs),
        Value::Obj(m) if providers::message_list(out).is_some() => {
            let d = PyDict::new(py);
            for (k, x) in &m.0 {
                let v = match x {
                    Value::Arr(items) if k == "messages" || k == "contents" => {
                        messages_to_py(&mut conv, items, same, inputs)?
                    }
                    _ => conv.value(x)?,
                };
                d.set_item(conv.str(k), v)?;
            }
            Ok(d.into_any())
        }
        _ => conv.value(out),
    }
}

fn messages_to_py<'py, 'v>(
    conv: &mut ToPy<'py, 'v>,
    items: &'v [Value],
    same: &[Option<usize>],
    inputs: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyAny>> {
    let objs = items
        .iter()
        .enumerate()
        .map(|(j, v)| match same.get(j).copied().flatten() {
            Some(i) => inputs.get_item(i),
            None => conv.value(v),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(conv.py, objs)?.into_any())
}

fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> msgnorm_core::Result<T> + Send) -> PyResult<T> {
    py.detach(|| guard(|| f().map_err(Failure::Core)))
        .map_err(|e| to_pyerr(py, e))
}

/// Provider messages → a list of record dicts.
#[pyfunction]
#[pyo3(signature = (messages, source, system=None))]
pub fn from_provider<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyList>,
    source: &str,
    system: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = provider(py, source, "source")?;
    let sys = match system {
        Some(s) if !s.is_none() => Some(one_value(py, s, "system")?),
        _ => None,
    };
    let (msgs, out, _) = read_messages(py, messages, p, sys.as_ref(), true)?;
    let mut conv = ToPy::new(py);
    let items = out
        .iter()
        .map(|v| conv.value(v))
        .collect::<PyResult<Vec<_>>>()?;
    drop(conv);
    parallel::drop_later(out);
    parallel::drop_later(msgs.values);
    Ok(PyList::new(py, items)?.into_any())
}

fn report_dict<'py>(
    py: Python<'py>,
    report: &msgnorm_core::Report,
    counts: &providers::Counts,
    normalized: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let rep = PyDict::new(py);
    if normalized {
        for (k, v) in report.items() {
            rep.set_item(k, v)?;
        }
    }
    for (k, v) in counts {
        rep.set_item(*k, v)?;
    }
    Ok(rep)
}

/// `(strict, max_media)`: the options of the §4 steps a conversion takes.
type Options = (bool, Option<usize>);

fn api_options((strict, max_media): Options) -> ApiOptions {
    ApiOptions {
        strict,
        max_media,
        ..ApiOptions::default()
    }
}

/// `(name, store, continuation)`: the target and its Responses parameters.
type TargetArgs = (String, bool, Option<bool>);

fn target(py: Python<'_>, (name, store, continuation): TargetArgs) -> PyResult<Target> {
    Ok(Target {
        provider: provider(py, &name, "target")?,
        store,
        continuation,
    })
}

/// `(output, report)`: `records` normalized (unless `normalize` is false) and
/// written in `target`'s request shape. The system prompts are the records'
/// `system_prompt` records, then `system`.
#[pyfunction]
pub fn to_provider<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyList>,
    target: TargetArgs,
    system: Option<&Bound<'py, PyAny>>,
    normalize: bool,
    options: Options,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let t = self::target(py, target)?;
    let recs = list_values(py, records, "records")?;
    let extra = match system.filter(|s| !s.is_none()) {
        Some(s) => {
            let content = one_value(py, s, "system")?;
            if !matches!(content, Value::Str(_) | Value::Arr(_)) {
                let msg = "system must be a str or a list of text blocks";
                return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
            }
            Some(SystemPrompt {
                role: "system".into(),
                content,
            })
        }
        None => None,
    };
    let api = api_options(options);
    let (out, report, counts) = run(py, || {
        let mut report = msgnorm_core::Report::default();
        let mut counts = providers::Counts::new();
        let api = normalize.then_some(&api);
        let out = providers::request(
            &t,
            recs.values,
            recs.stable,
            extra,
            api,
            &mut report,
            &mut counts,
        )?;
        Ok((out, report, counts))
    })?;
    let rep = report_dict(py, &report, &counts, normalize)?;
    let obj = to_py(py, &out)?;
    parallel::drop_later(out);
    Ok((obj, rep))
}

/// `(output, report)`: provider messages → records → normalize_for_api → `target`.
#[pyfunction]
pub fn convert<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyList>,
    source: &str,
    target: TargetArgs,
    system: Option<&Bound<'py, PyAny>>,
    options: Options,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let src = provider(py, source, "source")?;
    let t = self::target(py, target)?;
    let sys = match system {
        Some(s) if !s.is_none() => Some(one_value(py, s, "system")?),
        _ => None,
    };
    // the records are converted on: no output shows their uuids
    let (msgs, recs, read) = read_messages(py, messages, src, sys.as_ref(), false)?;
    let api = api_options(options);
    let (out, same, report, counts) = run(py, || {
        let mut report = msgnorm_core::Report::default();
        let mut counts = read;
        // stable messages make stable records
        let source = Given {
            provider: src,
            messages: &msgs.values,
            system: sys.as_ref(),
            shared: Some(&msgs.exact),
        };
        let (out, as_given) = providers::convert_records(
            source,
            &t,
            recs,
            msgs.stable,
            &api,
            &mut report,
            &mut counts,
        )?;
        // the same format in and out: a message no step changed is the input's own
        let same = if as_given {
            let own = |(i, &e): (usize, &bool)| e.then_some(i);
            msgs.exact.iter().enumerate().map(own).collect()
        } else if src == t.provider {
            providers::unchanged_messages(&msgs.values, &msgs.exact, &out)
        } else {
            Vec::new()
        };
        Ok((out, same, report, counts))
    })?;
    let rep = report_dict(py, &report, &counts, true)?;
    let obj = out_to_py(py, &out, &same, messages)?;
    parallel::drop_later(out);
    parallel::drop_later(msgs.values);
    Ok((obj, rep))
}

/// The tool name `provider`'s output writes for `name` (unchanged when valid).
#[pyfunction]
pub fn tool_name<'py>(py: Python<'py>, name: &str, provider_name: &str) -> PyResult<String> {
    Ok(provider(py, provider_name, "provider")?
        .tool_name(name)
        .into_owned())
}
