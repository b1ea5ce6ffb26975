//! Records → the request shape.

use super::*;
use crate::error::Result;
use crate::providers::write_each::write_each;

/// `{"system"?, "messages"}`.
pub(crate) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let mut messages = write_each(recs, usize::MAX, counts, Vec::new(), record);
    let mut system = system_value(system);
    cache_control_last_four(system.as_mut(), &mut messages, counts);
    let mut out = Map::new();
    if let Some(s) = system {
        out.push("system", s);
    }
    out.push("messages", Value::Arr(messages));
    Ok(Value::Obj(out))
}

/// One record's message.
fn record(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, messages: &mut Vec<Value>) {
    if let Some(s) = &r.prompt {
        // a system prompt between turns stays there
        messages.push(obj([
            ("role", "system".into()),
            ("content", s.content.clone()),
        ]));
        return;
    }
    let content = match r.text {
        Some(t) => Value::from(t),
        None => {
            let mut out = Vec::with_capacity(r.blocks.len());
            for b in r.blocks.iter().filter_map(Value::as_obj) {
                if let Some(b) = block(b, Provider::Anthropic, ids, counts) {
                    out.push(b);
                }
            }
            if out.is_empty() {
                count(counts, "empty_filled");
                out.push(text_block("(no content)"));
            }
            Value::Arr(out)
        }
    };
    let role = if r.assistant { "assistant" } else { "user" };
    messages.push(obj([("role", role.into()), ("content", content)]));
}

/// One system prompt as given; several as one list of text blocks.
pub(crate) fn system_value(system: &[SystemPrompt]) -> Option<Value> {
    match system {
        [] => None,
        [one] => Some(one.content.clone()),
        many => Some(Value::Arr(
            many.iter()
                .flat_map(|s| match &s.content {
                    Value::Str(t) => string_blocks(t),
                    Value::Arr(a) => a.clone(),
                    _ => Vec::new(),
                })
                .collect(),
        )),
    }
}

/// An Anthropic-shaped block for Anthropic/Bedrock-family targets: ids
/// sanitised, `provider_data` removed, blocks from other providers dropped.
pub(crate) fn block(
    b: &Map,
    target: Provider,
    ids: &mut Ids,
    counts: &mut Counts,
) -> Option<Value> {
    let t = b.str("type").unwrap_or("");
    match t {
        "thinking" | "redacted_thinking" if !thinking_ok(b, target) => {
            count(counts, "thinking_dropped");
            return None;
        }
        "provider_part" => {
            count(counts, "parts_dropped");
            return None;
        }
        _ => {}
    }
    let mut m = if b.get("provider_data").is_some() {
        b.without(&["provider_data"])
    } else {
        b.clone()
    };
    // a tool id reused by a later turn goes back to Anthropic as it was sent
    // (from_provider made it unique in the records: `reuse_id`)
    let own = match target {
        Provider::Anthropic => data_from(b, target).and_then(|d| d.str("call_id")),
        _ => None,
    };
    for k in ["id", "tool_use_id"] {
        if let Some(id) = m.str(k) {
            if matches!(
                t,
                "tool_use" | "tool_result" | "server_tool_use" | "mcp_tool_use"
            ) || t.ends_with("_tool_result")
            {
                let new = ids.get(own.unwrap_or(id), counts);
                if new != id {
                    m.set(k, new);
                }
            }
        }
    }
    if t == "tool_use" {
        if let Some(name) = m.str("name") {
            let new = tool_name(name, target, counts);
            if new != name {
                m.set("name", new);
            }
        }
    }
    if t == "tool_result" {
        if let Some(Value::Arr(inner)) = m.get("content") {
            let cleaned: Vec<Value> = inner
                .iter()
                .filter_map(Value::as_obj)
                .filter_map(|x| block(x, target, ids, counts))
                .collect();
            m.set("content", Value::Arr(cleaned));
        }
    }
    Some(Value::Obj(m))
}

/// The API takes at most this many `cache_control` markers in a request.
pub const CACHE_CONTROL_MAX: usize = 4;

/// Keeps the last [`CACHE_CONTROL_MAX`] `cache_control` markers (system, then
/// messages, in request order; blocks inside a tool result after the result)
/// and removes the earlier ones, counted as `cache_control_dropped`.
fn cache_control_last_four(
    system: Option<&mut Value>,
    messages: &mut [Value],
    counts: &mut Counts,
) {
    fn marked(v: &Value) -> bool {
        v.as_obj().is_some_and(|b| b.get("cache_control").is_some())
    }
    fn n_in(blocks: &[Value]) -> usize {
        blocks
            .iter()
            .map(|b| {
                let inner = b
                    .as_obj()
                    .and_then(|b| b.get("content"))
                    .and_then(Value::as_arr)
                    .map_or(0, |a| a.iter().filter(|x| marked(x)).count());
                usize::from(marked(b)) + inner
            })
            .sum()
    }
    let content = |m: &Value| -> usize {
        m.as_obj()
            .and_then(|m| m.get("content"))
            .and_then(Value::as_arr)
            .map_or(0, n_in)
    };
    let sys_n = system.as_deref().and_then(Value::as_arr).map_or(0, n_in);
    let total = sys_n + messages.iter().map(content).sum::<usize>();
    if total <= CACHE_CONTROL_MAX {
        return;
    }
    // the first `total - 4` markers in request order are removed
    let mut remove = total - CACHE_CONTROL_MAX;
    let mut strip = |blocks: &mut Vec<Value>, remove: &mut usize| {
        for b in blocks.iter_mut() {
            if *remove == 0 {
                return;
            }
            let Value::Obj(b) = b else { continue };
            if b.remove("cache_control").is_some() {
                *remove -= 1;
                count(counts, "cache_control_dropped");
            }
            if let Some(Value::Arr(inner)) = b.get_mut("content") {
                for x in inner.iter_mut() {
                    if *remove == 0 {
                        return;
                    }
                    if let Value::Obj(x) = x {
                        if x.remove("cache_control").is_some() {
                            *remove -= 1;
                            count(counts, "cache_control_dropped");
                        }
                    }
                }
            }
        }
    };
    if let Some(Value::Arr(s)) = system {
        strip(s, &mut remove);
    }
    for m in messages.iter_mut() {
        if remove == 0 {
            break;
        }
        if let Value::Obj(m) = m {
            if let Some(Value::Arr(c)) = m.get_mut("content") {
                strip(c, &mut remove);
            }
        }
    }
}
