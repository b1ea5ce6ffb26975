//! Errors of the core. The binding maps each variant to a Python exception.

use std::fmt;

/// Every failure the core can report. None of them is a panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A record breaks SPEC §1: `path` is e.g. `records[3].message.content`.
    InvalidRecord {
        index: usize,
        path: String,
        msg: String,
    },
    /// The input is not valid JSON; `line` and `column` are 1-based (column in characters).
    Json {
        line: usize,
        column: usize,
        msg: String,
    },
    /// `strict=True` and the record at `index` would need a tool-pairing repair.
    Pairing {
        index: usize,
        ids: Vec<String>,
        msg: String,
    },
    /// No safe suffix fits the token budget (SPEC §7).
    Budget { msg: String },
    /// An invalid argument (bad template, index out of range, non-hex id, ...).
    Value { msg: String },
}

impl Error {
    pub fn invalid(index: usize, path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::InvalidRecord {
            index,
            path: path.into(),
            msg: msg.into(),
        }
    }
    pub fn value(msg: impl Into<String>) -> Self {
        Error::Value { msg: msg.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidRecord { path, msg, .. } => write!(f, "{path}: {msg}"),
            Error::Json { line, column, msg } => {
                write!(f, "invalid JSON at line {line} column {column}: {msg}")
            }
            Error::Pairing { msg, .. } | Error::Budget { msg } | Error::Value { msg } => {
                f.write_str(msg)
            }
        }
    }
}

impl std::error::Error for Error {}

/// The error a caught panic becomes (its payload's message, when it has one).
pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::value(format!(
        "internal error in msgnorm's core (please report it): {what}"
    ))
}

pub type Result<T> = std::result::Result<T, Error>;
