//! A §1 violation, located from the inside out: the reader that finds it knows
//! only the field it was reading (`text`); each enclosing reader pushes its own
//! segment (`[0]`, `content`, `message`) as the error propagates, and the
//! record's reader finally names `records[i]`. Nothing is formatted unless an
//! error is raised.

use crate::error::Error;
use std::fmt::{Display, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seg {
    Key(&'static str),
    Index(usize),
}

/// A §1 violation and its location below the record (innermost segment first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    msg: &'static str,
    segs: Vec<Seg>,
}

impl Invalid {
    /// A violation of the value being read itself.
    #[cold]
    #[inline(never)]
    pub fn new(msg: &'static str) -> Self {
        Invalid {
            msg,
            segs: Vec::new(),
        }
    }
    /// A violation of field `key` of the object being read.
    #[cold]
    #[inline(never)]
    pub fn at(key: &'static str, msg: &'static str) -> Self {
        Invalid {
            msg,
            segs: vec![Seg::Key(key)],
        }
    }
    /// The same violation, seen from the object that holds it under `key`.
    #[cold]
    #[must_use]
    pub fn key(mut self, key: &'static str) -> Self {
        self.segs.push(Seg::Key(key));
        self
    }
    /// The same violation, seen from the array that holds it at `i`.
    #[cold]
    #[must_use]
    pub fn index(mut self, i: usize) -> Self {
        self.segs.push(Seg::Index(i));
        self
    }
    /// `Err` of a reader failing with this violation.
    #[cold]
    pub fn err<T, E>(self) -> Result<T, ReadError<E>> {
        Err(ReadError::Invalid(self))
    }
    pub fn msg(&self) -> &'static str {
        self.msg
    }
    /// The path below `root` (`root.message.content[0]`).
    #[cold]
    pub fn path(&self, root: impl Display) -> String {
        let mut s = root.to_string();
        for seg in self.segs.iter().rev() {
            // Writing to a String cannot fail.
            let _ = match seg {
                Seg::Key(k) => write!(s, ".{k}"),
                Seg::Index(i) => write!(s, "[{i}]"),
            };
        }
        s
    }
    /// The error of record `index` (`records[index]…`); `line`: the JSON Lines
    /// line it is on, added to the message.
    #[cold]
    #[inline(never)]
    pub fn record(self, index: usize, line: Option<usize>) -> Error {
        let path = self.path(format_args!("records[{index}]"));
        let msg = match line {
            Some(l) => format!("{} (line {l})", self.msg),
            None => self.msg.to_string(),
        };
        Error::invalid(index, path, msg)
    }
    /// The error of a value named `root` outside any record (an argument).
    #[cold]
    pub fn named(self, root: &str) -> Error {
        Error::invalid(0, self.path(root), self.msg)
    }
}

/// What a reader fails with: a §1 violation (located later), or its source's
/// own error (`E`: invalid JSON, a Python exception).
#[derive(Debug)]
pub enum ReadError<E> {
    Invalid(Invalid),
    Source(E),
}

impl<E> From<E> for ReadError<E> {
    #[inline]
    fn from(e: E) -> Self {
        ReadError::Source(e)
    }
}

impl<E> ReadError<E> {
    /// The error of record `index` (see [`Invalid::record`]).
    #[inline]
    pub fn record<F: From<Error> + From<E>>(self, index: usize, line: Option<usize>) -> F {
        match self {
            ReadError::Invalid(i) => i.record(index, line).into(),
            ReadError::Source(e) => e.into(),
        }
    }
}

/// Pushing an outer segment onto the location of a failed read.
pub trait Within: Sized {
    fn key(self, key: &'static str) -> Self;
    fn index(self, i: usize) -> Self;
}

impl<T> Within for Result<T, Invalid> {
    #[inline]
    fn key(self, key: &'static str) -> Self {
        self.map_err(|e| e.key(key))
    }
    #[inline]
    fn index(self, i: usize) -> Self {
        self.map_err(|e| e.index(i))
    }
}

impl<T, E> Within for Result<T, ReadError<E>> {
    #[inline]
    fn key(self, key: &'static str) -> Self {
        match self {
            Err(ReadError::Invalid(i)) => Err(ReadError::Invalid(i.key(key))),
            r => r,
        }
    }
    #[inline]
    fn index(self, i: usize) -> Self {
        match self {
            Err(ReadError::Invalid(v)) => Err(ReadError::Invalid(v.index(i))),
            r => r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_built_from_the_inside_out() {
        let e = Invalid::at("text", "must be a string")
            .index(2)
            .key("content")
            .key("message")
            .record(7, None);
        assert_eq!(
            e.to_string(),
            "records[7].message.content[2].text: must be a string"
        );
        let e = Invalid::new("a block must be a JSON object")
            .index(0)
            .key("content")
            .record(1, Some(3));
        assert_eq!(
            e,
            Error::invalid(
                1,
                "records[1].content[0]",
                "a block must be a JSON object (line 3)"
            )
        );
    }
}
