//! The adapters' value tree ([`crate::json::value`], re-exported so that the
//! adapters' imports stay short) and the adapters' helpers for reading it.

use crate::error::{Error, Result};
pub use crate::json::value::*;

/// `Error::invalid` for `messages[i].path`.
pub fn bad(i: usize, path: &str, msg: impl Into<String>) -> Error {
    Error::invalid(i, format!("messages[{i}]{path}"), msg)
}

/// `o[key]` as a string, or the error naming `messages[i]<at()>.<key>` (the
/// path is made only for the error).
pub fn need_str<'v>(o: &'v Map, key: &str, i: usize, at: impl Fn() -> String) -> Result<&'v str> {
    o.str(key).ok_or_else(|| {
        bad(
            i,
            &format!("{}.{key}", at()),
            "missing required field (a string)",
        )
    })
}

/// `v` as an object, or the error naming `messages[i]<at()>`.
pub fn need_obj<'v>(v: &'v Value, i: usize, at: impl Fn() -> String, msg: &str) -> Result<&'v Map> {
    v.as_obj().ok_or_else(|| bad(i, &at(), msg))
}

/// The messages from index `at` on, each an object (or the error naming it).
pub fn message_objects(
    at: usize,
    messages: &[Value],
) -> impl Iterator<Item = Result<(usize, &Map)>> {
    (at..).zip(messages).map(|(i, m)| {
        Ok((
            i,
            need_obj(m, i, String::new, "a message must be an object")?,
        ))
    })
}
