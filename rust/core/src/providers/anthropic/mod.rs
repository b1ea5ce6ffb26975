//! Anthropic Messages API: `{"role", "content"}` messages and a separate `system`.
//! Records already hold Anthropic-shaped blocks, so this adapter mostly copies.
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

mod model_rules;
pub mod models;
mod read;
pub mod rules;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;
