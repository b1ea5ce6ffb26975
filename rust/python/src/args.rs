//! The public functions' keyword arguments: each default is declared once, in
//! a `#[pyo3(signature = ...)]`, and each check once, here (used with
//! `#[pyo3(from_py_with = ...)]`). A bad value raises `ValueError` naming the
//! argument.

use crate::errors::{to_pyerr, Failure};
use msgnorm_core::tokens::Tokenizer;
use msgnorm_core::{ApiOptions, CountParams, Error, Templates};
use pyo3::exceptions::PyTypeError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

/// An int argument beyond 64 bits means the same as the largest one the core takes.
const U64_CAP: u64 = u64::MAX;
/// The largest count of records (or media) an argument may name.
const USIZE_CAP: u64 = i64::MAX as u64;

fn is_int(ob: &Bound<'_, PyAny>) -> bool {
    ob.cast::<PyInt>().is_ok() && ob.cast::<PyBool>().is_err()
}

/// An int >= 0 (a bool is not one), capped at `cap`; else `None`.
fn nonneg(ob: &Bound<'_, PyAny>, cap: u64) -> PyResult<Option<u64>> {
    if !is_int(ob) {
        return Ok(None);
    }
    if let Ok(v) = ob.extract::<u64>() {
        return Ok(Some(v.min(cap)));
    }
    // beyond 64 bits: the cap when positive
    Ok(ob.gt(0)?.then_some(cap))
}

fn bad(name: &str, ob: &Bound<'_, PyAny>, what: &str) -> PyErr {
    match ob.repr() {
        Ok(r) => PyValueError::new_err(format!("{name} must be {what}, not {r}")),
        Err(e) => e,
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Defines `fn $f(ob) -> PyResult<$t>`: an int >= 0 named `$name`.
macro_rules! nonneg_arg {
    ($f:ident, $name:literal, u64) => {
        pub fn $f(ob: &Bound<'_, PyAny>) -> PyResult<u64> {
            nonneg(ob, U64_CAP)?.ok_or_else(|| bad($name, ob, "an int >= 0"))
        }
    };
    ($f:ident, $name:literal, usize) => {
        pub fn $f(ob: &Bound<'_, PyAny>) -> PyResult<usize> {
            nonneg(ob, USIZE_CAP)?
                .map(to_usize)
                .ok_or_else(|| bad($name, ob, "an int >= 0"))
        }
    };
}

nonneg_arg!(max_tokens, "max_tokens", u64);
nonneg_arg!(keep_tokens, "keep_tokens", u64);
nonneg_arg!(pin, "pin", usize);
nonneg_arg!(tokens_per_message, "tokens_per_message", u64);
nonneg_arg!(tokens_per_image, "tokens_per_image", u64);
nonneg_arg!(tokens_per_document, "tokens_per_document", u64);

/// `max_media`: an int >= 0, or `None` (no limit).
pub fn max_media(ob: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if ob.is_none() {
        return Ok(None);
    }
    match nonneg(ob, USIZE_CAP)? {
        Some(v) => Ok(Some(to_usize(v))),
        None => Err(bad("max_media", ob, "an int >= 0 or None")),
    }
}

/// `chars_per_token`: a number (int or float, not a bool); the core checks it is > 0.
pub fn chars_per_token(ob: &Bound<'_, PyAny>) -> PyResult<f64> {
    if ob.cast::<PyFloat>().is_ok() || is_int(ob) {
        if let Ok(v) = ob.extract::<f64>() {
            return Ok(v);
        }
    }
    Err(bad("chars_per_token", ob, "a number > 0"))
}

/// A flag: any object, by its truth value (as `if x:` reads it).
pub fn flag(ob: &Bound<'_, PyAny>) -> PyResult<bool> {
    ob.is_truthy()
}

/// `tokenizer`: one of the names [`Tokenizer::parse`] knows.
pub fn tokenizer(s: &str) -> PyResult<Tokenizer> {
    Tokenizer::parse(s).ok_or_else(|| {
        PyValueError::new_err(format!(
            "tokenizer must be one of 'auto', 'claude', 'o200k_base', 'gemini', 'chars' \
             (or 'cl100k_base' with exact=True), not {s:?}"
        ))
    })
}

/// Defines `fn $f(ob) -> PyResult<Option<$t>>`: `None`, or what `$check` accepts.
macro_rules! optional_arg {
    ($f:ident, $check:ident, $t:ty) => {
        pub fn $f(ob: &Bound<'_, PyAny>) -> PyResult<Option<$t>> {
            if ob.is_none() {
                return Ok(None);
            }
            $check(ob).map(Some)
        }
    };
}

optional_arg!(opt_chars_per_token, chars_per_token, f64);
optional_arg!(opt_tokens_per_message, tokens_per_message, u64);
optional_arg!(opt_tokens_per_image, tokens_per_image, u64);
optional_arg!(opt_tokens_per_document, tokens_per_document, u64);

/// SPEC §6: the counting parameters of `tokenizer` and the four §6 options.
/// Any §6 option selects `"chars"` (the §6 formula); one passed with a
/// tokenizer family is a `TypeError`. The options left `None` take §6's
/// defaults.
pub fn count_params(
    tokenizer: Tokenizer,
    chars_per_token: Option<f64>,
    tokens_per_message: Option<u64>,
    tokens_per_image: Option<u64>,
    tokens_per_document: Option<u64>,
) -> PyResult<CountParams> {
    let given = [
        ("chars_per_token", chars_per_token.is_some()),
        ("tokens_per_message", tokens_per_message.is_some()),
        ("tokens_per_image", tokens_per_image.is_some()),
        ("tokens_per_document", tokens_per_document.is_some()),
    ];
    let tokenizer = match given.iter().find(|g| g.1) {
        None => tokenizer,
        Some(_) if matches!(tokenizer, Tokenizer::Auto | Tokenizer::Chars) => Tokenizer::Chars,
        Some((name, _)) => {
            return Err(PyTypeError::new_err(format!(
                "{name} is an option of tokenizer='chars' (the SPEC §6 formula), \
                 not of tokenizer={:?}",
                tokenizer.name()
            )))
        }
    };
    let d = CountParams::default();
    Ok(CountParams {
        chars_per_token: chars_per_token.unwrap_or(d.chars_per_token),
        tokens_per_message: tokens_per_message.unwrap_or(d.tokens_per_message),
        tokens_per_image: tokens_per_image.unwrap_or(d.tokens_per_image),
        tokens_per_document: tokens_per_document.unwrap_or(d.tokens_per_document),
        tokenizer,
    })
}

/// The SPEC §6 counting options, checked, as the core takes them (for the
/// Python functions that pass them on: batch, Arrow, Conversation).
#[pyfunction]
#[pyo3(name = "_counting")]
#[pyo3(signature = (
    tokenizer="auto", chars_per_token=None, tokens_per_message=None,
    tokens_per_image=None, tokens_per_document=None,
))]
pub fn counting(
    py: Python<'_>,
    tokenizer: &str,
    #[pyo3(from_py_with = opt_chars_per_token)] chars_per_token: Option<f64>,
    #[pyo3(from_py_with = opt_tokens_per_message)] tokens_per_message: Option<u64>,
    #[pyo3(from_py_with = opt_tokens_per_image)] tokens_per_image: Option<u64>,
    #[pyo3(from_py_with = opt_tokens_per_document)] tokens_per_document: Option<u64>,
) -> PyResult<Counting> {
    let p = count_params(
        self::tokenizer(tokenizer)?,
        chars_per_token,
        tokens_per_message,
        tokens_per_image,
        tokens_per_document,
    )?;
    p.check().map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    Ok((
        p.chars_per_token,
        p.tokens_per_message,
        p.tokens_per_image,
        p.tokens_per_document,
        p.tokenizer.name().to_owned(),
    ))
}

/// `max_media`, checked, as the core takes it.
#[pyfunction]
#[pyo3(name = "_max_media")]
pub fn max_media_arg(#[pyo3(from_py_with = max_media)] value: Option<usize>) -> Option<usize> {
    value
}

/// An int >= 0 named `name`, checked and capped (at the largest count of
/// records when `records`, else at 2**64 - 1).
#[pyfunction]
#[pyo3(name = "_count")]
pub fn count_arg(name: &str, value: &Bound<'_, PyAny>, records: bool) -> PyResult<u64> {
    let cap = if records { USIZE_CAP } else { U64_CAP };
    nonneg(value, cap)?.ok_or_else(|| bad(name, value, "an int >= 0"))
}

pub(crate) fn templates(py: Python<'_>, t: Option<&Bound<'_, PyDict>>) -> PyResult<Templates> {
    let overrides = template_overrides(py, t)?;
    Templates::new(&overrides).map_err(|e| to_pyerr(py, Failure::Core(e)))
}

/// `attachment_templates` as the core takes them: `(type, template or None)`.
pub(crate) fn template_overrides(
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
/// The §4 options as the Python wrappers pass them to the batch, Arrow and
/// conversation entry points, checked: `(strict, max_media, short_ids,
/// ensure_user_first, attachment_templates)`.
pub(crate) type ApiArgs<'py> = (bool, Option<usize>, bool, bool, Option<Bound<'py, PyDict>>);

/// [`ApiArgs`] as the core's options.
pub(crate) fn api_args(
    py: Python<'_>,
    (strict, max_media, short_ids, ensure_user_first, t): ApiArgs<'_>,
) -> PyResult<ApiOptions> {
    api_options(
        py,
        (strict, max_media, short_ids, ensure_user_first),
        t.as_ref(),
    )
}

pub(crate) fn api_options(
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
        steps: msgnorm_core::steps::Steps::ALL,
    })
}

/// `attachment_templates` as a dict (any mapping is copied into one).
pub(crate) fn templates_dict<'py>(
    t: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
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

/// `(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document,
/// tokenizer)`, as [`counting`] checked them.
pub(crate) type Counting = (f64, u64, u64, u64, String);

pub(crate) fn params(
    (chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document, tokenizer): Counting,
) -> CountParams {
    CountParams {
        chars_per_token,
        tokens_per_message,
        tokens_per_image,
        tokens_per_document,
        tokenizer: Tokenizer::parse(&tokenizer).unwrap_or(Tokenizer::Auto),
    }
}
