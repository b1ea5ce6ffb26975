//! Provider adapters: provider messages → msgnorm records ([`from_provider`]) and
//! normalized records → a provider's request shape ([`to_provider`]).
//!
//! One room per provider (`<p>/read.rs`, `<p>/write.rs`, `<p>/rules.rs`: its
//! reader, its writer and its `validate` rules); what they share sits beside
//! them: blocks ([`blocks`]), tool ids ([`ids`]), the records a reader builds
//! ([`builder`]) and a writer reads ([`rec`]).
//!
//! Both work on a small owned [`Value`] tree. Records are the SPEC §1 shape
//! (`{"type", "uuid", "message": {"role", "content": [Anthropic-shaped blocks]}}`);
//! what a provider has and Anthropic-shaped blocks do not is kept in a block's
//! `provider_data` (`{"provider": name, ...}`) or in a `provider_part` block
//! (`{"type": "provider_part", "provider": name, "part": original}`), which only
//! that provider's output writes back. System prompts are `system` records with
//! `subtype: "system_prompt"` (docs/PROVIDERS.md).

pub mod anthropic;
pub mod bedrock;
pub mod blocks;
pub mod builder;
pub mod convert;
pub mod counts;
pub mod facts;
pub mod gemini;
pub mod ids;
pub mod input_items;
pub mod models;
pub mod openai_chat;
pub mod openai_responses;
pub mod provider;
pub mod rec;
pub mod records;
pub mod replay;
pub mod server_tools;
pub mod system;
pub mod value;
pub mod write_each;

pub use blocks::*;
pub use builder::Builder;
pub use convert::{
    convert, convert_records, from_provider, message_list, request, to_provider,
    unchanged_messages, Carry, FromProvider, Given, Target,
};
pub use counts::{add_counts, count, Counts};
pub use ids::*;
pub use provider::{id_ok, Provider, TOOL_NAME_MAX};
pub use rec::*;
pub use system::{leads, prompt_of, system_block_ok, system_prompts, SystemPrompt};
pub use value::{bad, message_objects, need_obj, need_str, Map, SmolStr, Value};

#[cfg(test)]
mod tests;
