//! `validate`: Python objects (or JSON text) → the core's value tree,
//! filtered to what the rules read (`validate::input`) → the provider's rule
//! table.

use crate::Failure;
use crate::{guard, to_pyerr};
use msgnorm_core::providers::value::{Map, SmolStr};
use msgnorm_core::validate::{self as v, key_of, KeyUse, Kind, Value, MAX_DEPTH};
use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

fn kind_of(obj: &Bound<'_, PyAny>) -> Kind {
    if obj.is_none() {
        Kind::Null
    } else if obj.is_instance_of::<PyBool>() {
        Kind::Bool
    } else if obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>() {
        Kind::Number
    } else if obj.is_instance_of::<PyString>() {
        Kind::String
    } else if obj.is_instance_of::<PyDict>() {
        Kind::Object
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        Kind::Array
    } else {
        Kind::Other
    }
}

fn text(s: &Bound<'_, PyString>) -> SmolStr {
    match s.to_str() {
        Ok(t) => SmolStr::new(t),
        // A lone surrogate: the rules only need the text's shape.
        Err(_) => SmolStr::new(s.to_string_lossy()),
    }
}

/// A list's or tuple's items as an array (an empty one past [`MAX_DEPTH`]:
/// the rules read its kind only).
fn array<'py>(
    items: impl ExactSizeIterator<Item = Bound<'py, PyAny>>,
    depth: usize,
) -> PyResult<Value> {
    if depth >= MAX_DEPTH {
        return Ok(Value::of_kind(Kind::Array));
    }
    let mut out = Vec::with_capacity(items.len());
    for x in items {
        out.push(to_value(&x, depth + 1)?);
    }
    Ok(Value::Arr(out))
}

/// A Python object as a value tree. Objects that are not JSON-shaped are read
/// through `model_dump` (pydantic models such as `google.genai.types.Content`)
/// or `msgspec.to_builtins` (msgnorm Structs); anything else is kept as its
/// kind ([`Value::of_kind`]), as are numbers and the values of the keys whose
/// kind alone a rule reads.
pub fn to_value(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if let Ok(d) = obj.cast::<PyDict>() {
        if depth >= MAX_DEPTH {
            return Ok(Value::of_kind(Kind::Object));
        }
        let mut kv = Vec::with_capacity(d.len());
        for (k, val) in d.iter() {
            let Ok(k) = k.cast::<PyString>() else {
                continue;
            };
            let Ok(key) = k.to_str() else { continue };
            let Some((used, key)) = key_of(key) else {
                continue;
            };
            let val = match used {
                KeyUse::Read => to_value(&val, depth + 1)?,
                KeyUse::Kind => Value::of_kind(kind_of(&val)),
            };
            kv.push((key.into(), val));
        }
        return Ok(Value::Obj(Map(kv)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(text(s)));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return array(l.iter(), depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return array(t.iter(), depth);
    }
    match kind_of(obj) {
        Kind::Null => return Ok(Value::Null),
        Kind::Bool => return Ok(Value::Bool(obj.is_truthy()?)),
        Kind::Number => return Ok(Value::of_kind(Kind::Number)),
        _ => {}
    }
    if depth < MAX_DEPTH {
        let py = obj.py();
        if obj.hasattr("model_dump")? {
            let kw = PyDict::new(py);
            kw.set_item("mode", "json")?;
            kw.set_item("exclude_none", true)?;
            let plain = obj.call_method("model_dump", (), Some(&kw))?;
            return to_value(&plain, depth);
        }
        if obj.hasattr("__struct_fields__")? {
            let plain = py
                .import("msgspec")?
                .getattr("to_builtins")?
                .call1((obj,))?;
            return to_value(&plain, depth);
        }
    }
    Ok(Value::of_kind(Kind::Other))
}

/// `[(index, path, rule, message, repair), ...]`, each rule's id and repair
/// made into a Python str once.
fn rows<'py>(py: Python<'py>, vs: Vec<v::Violation>) -> PyResult<Bound<'py, PyList>> {
    let mut strs: ahash::AHashMap<usize, Bound<'py, PyString>> = ahash::AHashMap::new();
    let mut intern = |s: &'static str| {
        strs.entry(s.as_ptr() as usize)
            .or_insert_with(|| PyString::new(py, s))
            .clone()
    };
    let list = PyList::empty(py);
    for x in vs {
        let row = (
            x.index,
            PyString::new(py, &x.path),
            intern(x.rule),
            PyString::new(py, &x.message),
            intern(x.repair),
        );
        list.append(row)?;
    }
    Ok(list)
}

/// `[(index, path, rule, message, repair), ...]`.
#[pyfunction]
#[pyo3(signature = (messages, provider, system=None, tools=None, store=true, model=None))]
pub fn validate<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    provider: &str,
    system: Option<&Bound<'py, PyAny>>,
    tools: Option<&Bound<'py, PyAny>>,
    store: bool,
    model: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let p = v::provider(provider).map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    let opt = |o: Option<&Bound<'py, PyAny>>| -> PyResult<Option<Value>> {
        match o {
            Some(o) if !o.is_none() => Ok(Some(to_value(o, 0)?)),
            _ => Ok(None),
        }
    };
    let system = opt(system)?;
    let tools = opt(tools)?;
    let params = v::Params {
        system: system.as_ref(),
        tools: tools.as_ref(),
        stateless: !store,
        model: model.and_then(msgnorm_core::providers::models::lookup),
    };
    let data: Option<&[u8]> = if let Ok(b) = messages.cast::<PyBytes>() {
        Some(b.as_bytes())
    } else if let Ok(s) = messages.cast::<PyString>() {
        match s.to_str() {
            Ok(t) => Some(t.as_bytes()),
            Err(_) => {
                let msg =
                    "messages: the str holds a lone surrogate, which is not valid Unicode text";
                return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
            }
        }
    } else {
        None
    };
    if let Some(data) = data {
        let r = py.detach(|| {
            guard(|| {
                let src = msgnorm_core::json::utf8(data)?;
                let items = v::parse_items(src)?;
                Ok(v::validate(p, &items, params))
            })
        });
        let vs = r.map_err(|e| to_pyerr(py, e))?;
        return rows(py, vs);
    }
    let items: Vec<Value> = if let Ok(l) = messages.cast::<PyList>() {
        let mut items = Vec::with_capacity(l.len());
        for x in l.iter() {
            items.push(to_value(&x, 1)?);
        }
        items
    } else if let Ok(t) = messages.cast::<PyTuple>() {
        t.iter().map(|x| to_value(&x, 1)).collect::<PyResult<_>>()?
    } else {
        let tname = messages.get_type().name()?;
        let msg =
            format!("messages: expected a list of messages, JSON bytes or a JSON str, not {tname}");
        return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
    };
    let r = py.detach(|| guard(|| Ok(v::validate(p, &items, params))));
    let vs = r.map_err(|e| to_pyerr(py, e))?;
    rows(py, vs)
}

/// Every rule: `[(provider, id, text, repair), ...]` in table order.
#[pyfunction]
pub fn rules() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    msgnorm_core::providers::Provider::ALL
        .into_iter()
        .flat_map(|p| {
            v::rules(p)
                .iter()
                .map(move |r| (p.name(), r.id, r.text, r.repair))
        })
        .collect()
}

/// docs/RULES.md.
#[pyfunction]
pub fn rules_markdown() -> String {
    v::rules_markdown()
}
