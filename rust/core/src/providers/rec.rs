//! Normalized records as every writer reads them ([`Rec`]).

use super::value::{Map, SmolStr, Value};
use super::{dropped_by, id_ok, leads, prompt_of, server_tools, Provider, SystemPrompt};
use crate::error::{Error, Result};
use crate::parallel::split_map;

/// One record as the output adapters read it.
#[derive(Clone)]
pub struct Rec<'v> {
    pub index: usize,
    pub assistant: bool,
    /// A string content (kept a string where the target can take one).
    pub text: Option<&'v SmolStr>,
    pub blocks: &'v [Value],
    /// The record's `provider_data`, if any.
    pub data: Option<&'v Map>,
    /// The longest tool id (`id`, `tool_use_id`) of its blocks, or
    /// `usize::MAX` when one is empty or has a character no target takes,
    /// or a call or a result has none.
    pub longest_id: usize,
    /// Whether the target has no shape for one of its blocks ([`dropped_by`]).
    pub drops: bool,
    /// A system prompt between turns (a `system`/`system_prompt` record),
    /// written in place where the target has a system message.
    pub prompt: Option<SystemPrompt>,
}

/// The records as `target`'s writer reads them (the system prompts before
/// the first turn are left out: they are the request's system parameter).
pub fn read_records(records: &[Value], target: Provider) -> Result<Vec<Rec<'_>>> {
    let read = split_map(records, |i, r| read_record(i, r, target))?;
    let lead = records
        .iter()
        .take_while(|r| r.as_obj().is_some_and(leads))
        .count();
    Ok(read.into_iter().skip(lead).collect())
}

fn read_record(i: usize, r: &Value, target: Provider) -> Result<Rec<'_>> {
    let inv = |path: &str, msg: &str| Error::invalid(i, format!("records[{i}]{path}"), msg);
    let Some(r) = r.as_obj() else {
        return Err(inv("", "a record must be an object"));
    };
    let assistant = match r.str("type") {
        Some("user") => false,
        Some("assistant") => true,
        Some("system") if r.str("subtype") == Some("system_prompt") => {
            return Ok(Rec {
                index: i,
                assistant: false,
                text: None,
                blocks: &[],
                data: None,
                longest_id: 0,
                drops: false,
                prompt: prompt_of(r),
            })
        }
        _ => return Err(inv(
            ".type",
            "provider output takes user and assistant records only (normalize_for_api's output)",
        )),
    };
    let Some(msg) = r.get("message").and_then(Value::as_obj) else {
        return Err(inv(".message", "missing required field (an object)"));
    };
    static EMPTY: SmolStr = SmolStr::new_inline("");
    let (text, blocks): (Option<&SmolStr>, &[Value]) = match msg.get("content") {
        Some(Value::Str(s)) => (Some(s), &[]),
        Some(Value::Arr(a)) => (None, a.as_slice()),
        Some(Value::Null) | None => (Some(&EMPTY), &[]),
        Some(_) => {
            return Err(inv(
                ".message.content",
                "must be a string or a list of blocks",
            ))
        }
    };
    let (mut longest_id, mut drops) = (0, false);
    // server tool uses so far: a server result needs its use before it
    let mut server_uses: Vec<&str> = Vec::new();
    for (j, b) in blocks.iter().enumerate() {
        let Some((b, t)) = b.as_obj().and_then(|o| Some((o, o.str("type")?))) else {
            return Err(inv(
                &format!(".message.content[{j}]"),
                "a block must be an object with a string type",
            ));
        };
        let ids = [b.str("id"), b.str("tool_use_id")];
        for id in ids.into_iter().flatten() {
            let len = if id_ok(id, usize::MAX) {
                id.len()
            } else {
                usize::MAX
            };
            longest_id = longest_id.max(len);
        }
        // a writer gives a call or a result without its id the id of ""
        if ids == [None, None] && matches!(t, "tool_use" | "tool_result") {
            longest_id = usize::MAX;
        }
        drops |= dropped_by(target, b, assistant).is_some();
        if assistant && server_tools::is_use(t) {
            server_uses.extend(b.str("id"));
        } else if assistant && server_tools::is_result(t) {
            drops |= !server_uses.contains(&b.str("tool_use_id").unwrap_or(""));
        }
    }
    Ok(Rec {
        index: i,
        assistant,
        text,
        blocks,
        data: r.get("provider_data").and_then(Value::as_obj),
        longest_id,
        drops,
        prompt: None,
    })
}
