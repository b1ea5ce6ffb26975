//! Exact token counts of OpenAI's public encodings (SPEC §6.2): the BPE merge
//! over rank files read at run time ([`bpe`]), of each record's content text
//! ([`content`]).

pub mod bpe;
pub mod content;

pub use bpe::{Bpe, Encoding};
pub use content::content_text;

use crate::error::{Error, Result};
use crate::providers::value::Value;

/// Tokens a message adds besides its content.
pub const TOKENS_PER_MESSAGE: u64 = 3;

/// Exact tokens of each record of a JSON array of records: 0 for a record
/// that is not a message, else the tokens of its content text + 3.
pub fn record_counts(bpe: &Bpe, json: &str) -> Result<Vec<u64>> {
    let Value::Arr(records) = Value::from_json(json)? else {
        return Err(Error::value("records: expected a JSON array of records"));
    };
    Ok(records
        .iter()
        .map(|r| match content_text(r) {
            Some(text) => bpe.count(&text) + TOKENS_PER_MESSAGE,
            None => 0,
        })
        .collect())
}
