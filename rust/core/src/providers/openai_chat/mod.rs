//! OpenAI Chat Completions messages: `system`/`developer`/`user`/`assistant`
//! (with `tool_calls`)/`tool` and the legacy `function` role.
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

pub mod models;
mod read;
pub mod rules;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;

const ME: Provider = Provider::OpenAIChat;

/// `tool_calls[].id` may hold at most 40 characters.
pub const ID_LIMIT: usize = 40;
