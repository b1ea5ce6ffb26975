//! OpenAI Responses API input items: messages, `function_call`,
//! `function_call_output`, `reasoning`, and any other item kept opaque.
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

mod read;
pub mod rules;
pub mod stateless;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;

const ME: Provider = Provider::OpenAIResponses;

/// `call_id`s are kept within this length (and `[a-zA-Z0-9_-]`).
pub const ID_LIMIT: usize = 64;
