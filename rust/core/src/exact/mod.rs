//! Exact token counts of OpenAI's public encodings (SPEC §6.3): the BPE merge
//! over rank files read at run time ([`bpe`]), of each record's content text
//! ([`content`]).

pub mod bpe;
pub mod content;

pub use bpe::{Bpe, Encoding};
pub use content::{content_text, content_text_with, record_count};

use crate::error::Result;
use crate::json::ReadOpts;

/// Tokens a message adds besides its content.
pub const TOKENS_PER_MESSAGE: u64 = 3;

/// Exact tokens of each record of JSON text (an array or JSON Lines, read and
/// checked as every count function reads it): 0 for a record that is not a
/// message, else the tokens of its content text + 3.
pub fn record_counts(bpe: &Bpe, json: &str) -> Result<Vec<u64>> {
    Ok(content_texts(json)?
        .iter()
        .map(|t| record_count(bpe, t.as_deref()))
        .collect())
}

/// The content text of each record of JSON text; `None` for a record that is not a message.
pub fn content_texts(json: &str) -> Result<Vec<Option<String>>> {
    let records = crate::json::read_records(json, ReadOpts::COUNT)?;
    Ok(records.iter().map(content_text).collect())
}
