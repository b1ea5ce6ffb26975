//! System prompts: the `system` records that hold a provider's system
//! parameter or a system message between turns, and what a provider takes
//! in its system text.

use super::server_tools;
use super::value::{Map, SmolStr, Value};
use crate::error::{Error, Result};

/// A system prompt: `role` is `system` or `developer` (OpenAI); `content` a
/// string or a list of Anthropic-shaped text blocks.
#[derive(Clone, Debug)]
pub struct SystemPrompt {
    pub role: String,
    pub content: Value,
}

impl SystemPrompt {
    /// The role an OpenAI system message takes for this prompt: `developer`
    /// or `system` (a record from another format may hold any role).
    pub fn openai_role(&self) -> &'static str {
        if self.role == "developer" {
            "developer"
        } else {
            "system"
        }
    }
}

/// The `system`/`system_prompt` records before a history's first turn: the
/// request's system parameter.
pub fn system_prompts(records: &[Value]) -> Vec<SystemPrompt> {
    records
        .iter()
        .filter_map(Value::as_obj)
        .take_while(|r| leads(r))
        .filter_map(prompt_of)
        .collect()
}

/// Whether a record is a system prompt that, before the first turn, is the
/// request's system parameter (not one that sat among the messages).
pub fn leads(r: &Map) -> bool {
    prompt_of(r).is_some() && r.get("in_messages").is_none()
}

/// A system prompt's content is a string or a list of blocks with a string
/// type, its text blocks with a string text (what every provider's system
/// parameter takes; the writers of the targets that take no other block
/// drop them, counted); anything else is refused, named.
pub(super) fn check_prompts(records: &[Value]) -> Result<()> {
    for (i, r) in records.iter().enumerate() {
        let Some(o) = r.as_obj().filter(|o| is_prompt(o)) else {
            continue;
        };
        match o.get("content") {
            None | Some(Value::Str(_)) => {}
            Some(Value::Arr(blocks)) => {
                for (j, b) in blocks.iter().enumerate() {
                    // text blocks with a string text; other system blocks
                    // (Anthropic's `tool_reference`, ...) go to the target
                    // that takes them
                    let ok = b.as_obj().is_some_and(|b| match b.str("type") {
                        Some("text") => b.str("text").is_some(),
                        Some(t) => system_block_ok(t),
                        None => false,
                    });
                    if !ok {
                        return Err(Error::invalid(
                            i,
                            format!("records[{i}].content[{j}]"),
                            "a system prompt block must be a text block with a string text (or a block the API takes in a system prompt, such as tool_reference)",
                        ));
                    }
                }
            }
            Some(_) => {
                return Err(Error::invalid(
                    i,
                    format!("records[{i}].content"),
                    "a system prompt's content must be a string or a list of text blocks",
                ))
            }
        }
    }
    Ok(())
}

/// Whether a block of type `t` may stand in a system prompt: text, and the
/// types the API takes there beside it (`tool_reference`, `tool_addition`)
/// or msgnorm does not know; not the blocks of messages (media, tool calls
/// and results, thinking, server tool blocks and their results, search
/// results, compaction), which the API refuses there.
pub fn system_block_ok(t: &str) -> bool {
    let message_block = matches!(
        t,
        "image"
            | "document"
            | "tool_use"
            | "tool_result"
            | "thinking"
            | "redacted_thinking"
            | "search_result"
            | "container_upload"
            | "compaction"
            | "provider_part"
    ) || server_tools::is_use(t)
        || t.ends_with("_result");
    !message_block
}

/// Whether a record is a `system`/`system_prompt` record.
pub(super) fn is_prompt(r: &Map) -> bool {
    r.str("type") == Some("system") && r.str("subtype") == Some("system_prompt")
}

/// The system prompt a `system`/`system_prompt` record holds.
pub fn prompt_of(r: &Map) -> Option<SystemPrompt> {
    if !is_prompt(r) {
        return None;
    }
    Some(SystemPrompt {
        role: r.str("role").unwrap_or("system").to_string(),
        content: r
            .get("content")
            .cloned()
            .unwrap_or(Value::Str(SmolStr::default())),
    })
}
