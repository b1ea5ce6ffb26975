//! Amazon Bedrock Converse: `{"role", "content": [{"text"} | {"toolUse"} | ...]}`
//! messages and a separate `system` list. Binary payloads are bytes (as boto3
//! takes them); records hold them as base64.
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

pub mod media;
mod read;
pub mod rules;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;
use media::{DOCUMENT, IMAGE};

const ME: Provider = Provider::Bedrock;

/// `toolUseId`: 1 to 64 characters of `[a-zA-Z0-9_-]`.
pub const ID_LIMIT: usize = 64;

fn media_of(table: &[(&'static str, &'static str)], fmt: &str) -> Option<&'static str> {
    table.iter().find(|(f, _)| *f == fmt).map(|(_, m)| *m)
}

fn format_of(table: &[(&'static str, &'static str)], media: &str) -> Option<&'static str> {
    table.iter().find(|(_, m)| *m == media).map(|(f, _)| *f)
}

/// Sets `cache_control` on the last block (a `cachePoint` follows it).
fn cache_last(blocks: &mut [Value]) -> bool {
    match blocks.last_mut() {
        Some(Value::Obj(m)) if m.str("type") != Some("provider_part") => {
            m.set("cache_control", ephemeral());
            true
        }
        _ => false,
    }
}

fn ephemeral() -> Value {
    obj([("type", "ephemeral".into())])
}
