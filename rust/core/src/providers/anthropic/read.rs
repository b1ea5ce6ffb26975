//! Messages → records.

use super::*;
use crate::error::{Error, Result};

pub(crate) fn system_in(b: &mut Builder, s: &Value) -> Result<()> {
    match s {
        Value::Str(_) => b.system("system", s.clone()),
        Value::Arr(a) => {
            // text blocks, and the blocks the API takes beside them
            // (`tool_reference`, `tool_addition`, ...), kept as given
            for (j, blk) in a.iter().enumerate() {
                let Some(o) = blk
                    .as_obj()
                    .filter(|o| o.str("type").is_some_and(super::system_block_ok))
                else {
                    return Err(Error::invalid(
                        0,
                        format!("system[{j}]"),
                        "a system block must be a text block (or a block the API takes in a system prompt, such as tool_reference)",
                    ));
                };
                if o.str("type") == Some("text") && o.str("text").is_none() {
                    return Err(Error::invalid(
                        0,
                        format!("system[{j}].text"),
                        "a text block's text must be a string",
                    ));
                }
            }
            b.system("system", s.clone())
        }
        other => {
            return Err(Error::invalid(
                0,
                "system",
                format!(
                    "must be a string or a list of text blocks, not {}",
                    other.type_name()
                ),
            ))
        }
    }
    Ok(())
}

/// `content` with the tool ids reused by a later turn made unique
/// ([`Reused`]): a `tool_use` of an assistant message, a `tool_result` of a
/// user message. `None` when no id changes.
fn reuse_ids(
    b: &Builder,
    reused: &mut Reused,
    assistant: bool,
    content: &[Value],
) -> Option<Vec<Value>> {
    let mut out: Option<Vec<Value>> = None;
    for (j, blk) in content.iter().enumerate() {
        let Some(o) = blk.as_obj() else { continue };
        let (key, new) = match (assistant, o.str("type")) {
            (true, Some("tool_use")) => ("id", o.str("id").and_then(|id| reused.call(id))),
            (false, Some("tool_result")) => (
                "tool_use_id",
                o.str("tool_use_id").and_then(|id| reused.result(id)),
            ),
            _ => continue,
        };
        if let Some(new) = new {
            let blocks = out.get_or_insert_with(|| content.to_vec());
            if let Value::Obj(o) = &mut blocks[j] {
                reuse_id(b, o, key, new);
            }
        }
    }
    out
}

pub(crate) fn from(b: &mut Builder, c: &mut Carry, at: usize, messages: &[Value]) -> Result<()> {
    for item in message_objects(at, messages) {
        let (i, m) = item?;
        if m.str("role") == Some("system") {
            // a system message in the conversation: kept where it is
            match m.get("content") {
                Some(c @ (Value::Str(_) | Value::Arr(_))) => {
                    b.system_in_messages("system", c.clone())
                }
                _ => {
                    return Err(bad(
                        i,
                        ".content",
                        "must be a string or a list of text blocks",
                    ))
                }
            }
            continue;
        }
        let assistant = match m.str("role") {
            Some("user") => false,
            Some("assistant") => true,
            _ => return Err(bad(i, ".role", "must be 'user', 'assistant' or 'system'")),
        };
        let content = match m.get("content") {
            Some(c @ Value::Str(_)) => c.clone(),
            Some(Value::Arr(a)) => {
                for (j, blk) in a.iter().enumerate() {
                    if blk.as_obj().and_then(|o| o.str("type")).is_none() {
                        return Err(bad(
                            i,
                            &format!(".content[{j}]"),
                            "a block must be an object with a string type",
                        ));
                    }
                }
                match reuse_ids(b, &mut c.reused, assistant, a) {
                    Some(blocks) => Value::Arr(blocks),
                    None => Value::Arr(a.clone()),
                }
            }
            _ => return Err(bad(i, ".content", "must be a string or a list of blocks")),
        };
        b.message(assistant, content, None);
    }
    Ok(())
}
