//! Gemini `contents` (`{"role": "user"|"model", "parts"}`) and `system_instruction`.
//! Input parts may use the REST API's camelCase or the Python SDK's snake_case
//! keys; output uses snake_case (what `google.genai.types` documents).
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

mod read;
pub mod rules;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;

const ME: Provider = Provider::Gemini;

/// `k` in snake_case or its camelCase spelling.
fn get<'v>(m: &'v Map, snake: &str, camel: &str) -> Option<&'v Value> {
    m.get(snake).or_else(|| m.get(camel))
}
