//! Exact token counts of OpenAI's public encodings (SPEC §6.2): the BPE merge
//! over rank files read at run time ([`bpe`]), of each record's content text
//! ([`content`]).

pub mod bpe;
pub mod content;

pub use bpe::{Bpe, Encoding};
pub use content::content_text;

use crate::error::Result;
use crate::providers::value::Value;

/// Tokens a message adds besides its content.
pub const TOKENS_PER_MESSAGE: u64 = 3;

/// The records of a JSON array, or of JSON Lines (one value per non-blank line).
pub fn json_records(json: &str) -> Result<Vec<Value>> {
    if let Ok(Value::Arr(records)) = Value::from_json(json) {
        return Ok(records);
    }
    json.lines()
        .filter(|l| !l.trim().is_empty())
        .map(Value::from_json)
        .collect()
}

/// Exact tokens of each record of a JSON array or JSON Lines: 0 for a record
/// that is not a message, else the tokens of its content text + 3.
pub fn record_counts(bpe: &Bpe, json: &str) -> Result<Vec<u64>> {
    Ok(json_records(json)?
        .iter()
        .map(|r| match content_text(r) {
            Some(text) => bpe.count(&text) + TOKENS_PER_MESSAGE,
            None => 0,
        })
        .collect())
}
