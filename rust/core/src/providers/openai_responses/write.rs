//! Records → the request shape.

use super::*;
use crate::error::Result;
use crate::providers::write_each::write_each;

fn input_text(t: SmolStr) -> Value {
    obj([("type", "input_text".into()), ("text", Value::Str(t))])
}

/// The Responses API's input content parts.
const PARTS: PartShape = PartShape {
    provider: ME,
    text: input_text,
    image: |url, data| {
        let mut m = Map::new();
        m.push("type", "input_image");
        m.push("image_url", url);
        match data {
            Some(d) if data_fields(d).next().is_some() => m.extend_new(data_fields(d)),
            _ => m.push("detail", "auto"),
        }
        Value::Obj(m)
    },
    file: |url, name| {
        obj([
            ("type", "input_file".into()),
            ("file_data", url.into()),
            ("filename", name.into()),
        ])
    },
};

fn message(role: &str, content: Value, template: Option<&Map>) -> Value {
    let mut m = match template {
        Some(t) => t.clone(),
        None => Map(vec![
            ("type".into(), "message".into()),
            ("role".into(), role.into()),
        ]),
    };
    m.set("content", content);
    Value::Obj(m)
}

/// A list of input items, system/developer messages first.
pub(crate) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let first = system.iter().map(|s| system_message(s, counts)).collect();
    let mut out = write_each(recs, ID_LIMIT, counts, first, record);
    drop_unsendable_ids(&mut out, counts);
    pair_tool_items(&mut out, counts);
    drop_unfollowed_reasoning(&mut out, counts);
    compaction_trigger_last(&mut out, counts);
    Ok(Value::Arr(out))
}

/// A reasoning item with an id must be followed by the item it reasoned
/// toward (an item of its response: not another reasoning item, not the
/// caller's input; an `item_reference` may name one): one that is not
/// ("provided without its required following item") is dropped, counted as
/// `reasoning_dropped`.
pub(crate) fn drop_unfollowed_reasoning(items: &mut Vec<Value>, counts: &mut Counts) {
    let kind = |v: &Value| -> (String, Option<String>) {
        let m = v.as_obj();
        let role = m.and_then(|m| m.str("role")).map(str::to_owned);
        let t = m.and_then(|m| m.str("type")).map(str::to_owned);
        (t.unwrap_or_else(|| "message".to_owned()), role)
    };
    let is_reasoning = |v: &Value| v.as_obj().and_then(|m| m.str("type")) == Some("reasoning");
    if !items.iter().any(is_reasoning) {
        return;
    }
    // (the API names the item by its id: one without, a stateless replay of
    // its encrypted_content, is kept in any number)
    let has_id = |v: &Value| {
        v.as_obj()
            .and_then(|m| m.str("id"))
            .is_some_and(|id| !id.is_empty())
    };
    let unfollowed: Vec<bool> = (0..items.len())
        .map(|k| {
            is_reasoning(&items[k])
                && has_id(&items[k])
                && !items.get(k + 1).is_some_and(|n| {
                    let (t, role) = kind(n);
                    t != "reasoning" && !super::rules::is_input_item(&t, role.as_deref())
                })
        })
        .collect();
    if unfollowed.contains(&true) {
        let mut k = 0;
        items.retain(|_| {
            k += 1;
            if unfollowed[k - 1] {
                count(counts, "reasoning_dropped");
            }
            !unfollowed[k - 1]
        });
    }
}

/// The call id and type of an item, when it is one of the client-run calls
/// answered by an output item of their own type ([`super::rules::PAIRED_CALLS`]):
/// `(call_id, is_output, pair index)`.
fn paired(v: &Value) -> Option<(&str, bool, usize)> {
    let m = v.as_obj()?;
    let t = m.str("type")?;
    let (k, (call, _, _)) = super::rules::PAIRED_CALLS
        .iter()
        .enumerate()
        .find(|(_, p)| p.0 == t || p.1 == t)?;
    Some((m.str("call_id").unwrap_or(""), t != *call, k))
}

/// The output item that answers an unanswered call of pair `k`: an error
/// result in the output's own shape (`[Tool result missing due to internal
/// error]`; a shell call exits 1, a patch failed).
fn missing_output(k: usize, call_id: &str) -> Value {
    let (_, t, _) = super::rules::PAIRED_CALLS[k];
    let missing = crate::steps::TOOL_RESULT_MISSING;
    let mut m = Map::with_capacity(4);
    m.push("type", t);
    m.push("call_id", call_id);
    match t {
        "shell_call_output" => {
            let mut exit = Map::with_capacity(2);
            exit.push("type", "exit");
            exit.push("exit_code", Value::Int(1));
            let mut chunk = Map::with_capacity(3);
            chunk.push("stdout", "");
            chunk.push("stderr", missing);
            chunk.push("outcome", Value::Obj(exit));
            m.push("output", Value::Arr(vec![Value::Obj(chunk)]));
        }
        "apply_patch_call_output" => {
            m.push("status", "failed");
            m.push("output", missing);
        }
        _ => m.push("output", missing),
    }
    Value::Obj(m)
}

/// Custom tool, shell and apply_patch calls and their outputs, paired as the
/// API reads them: an output with no call of its call_id before it is removed
/// (`item_outputs_removed`), and an unanswered call gets an error output right
/// after it (`item_outputs_inserted`).
fn pair_tool_items(out: &mut Vec<Value>, counts: &mut Counts) {
    if !out.iter().any(|v| paired(v).is_some()) {
        return;
    }
    let mut calls = std::collections::HashSet::new();
    out.retain(|v| match paired(v) {
        Some((id, false, k)) => {
            calls.insert((k, id.to_owned()));
            true
        }
        Some((id, true, k)) if !calls.contains(&(k, id.to_owned())) => {
            count(counts, "item_outputs_removed");
            false
        }
        _ => true,
    });
    let mut answered: std::collections::HashSet<(usize, String)> = out
        .iter()
        .filter_map(paired)
        .filter(|p| p.1)
        .map(|(id, _, k)| (k, id.to_owned()))
        .collect();
    let unanswered = |v: &Value, answered: &std::collections::HashSet<(usize, String)>| matches!(paired(v), Some((id, false, k)) if !answered.contains(&(k, id.to_owned())));
    if !out.iter().any(|v| unanswered(v, &answered)) {
        return;
    }
    let items = std::mem::take(out);
    out.reserve(items.len() + 1);
    for v in items {
        let insert = match paired(&v) {
            Some((id, false, k)) if answered.insert((k, id.to_owned())) => {
                Some(missing_output(k, id))
            }
            _ => None,
        };
        out.push(v);
        if let Some(o) = insert {
            count(counts, "item_outputs_inserted");
            out.push(o);
        }
    }
}

/// The `compaction_trigger` item must be the final input item: one is kept, at the end.
fn compaction_trigger_last(out: &mut Vec<Value>, counts: &mut Counts) {
    let is_trigger =
        |v: &Value| v.as_obj().and_then(|m| m.str("type")) == Some("compaction_trigger");
    let n = out.len();
    if n < 2 || !out[..n - 1].iter().any(is_trigger) {
        return;
    }
    let mut trigger = None;
    out.retain(|v| {
        if is_trigger(v) {
            count(counts, "compaction_trigger_moved");
            trigger.get_or_insert_with(|| v.clone());
            false
        } else {
            true
        }
    });
    out.extend(trigger);
}

/// A kept item, unless it is client-only (not a Responses input item type:
/// never sent, counted `client_only_dropped`).
fn sendable(item: Option<&Value>, counts: &mut Counts) -> Option<Value> {
    let item = item?;
    let t = item
        .as_obj()
        .and_then(|m| m.str("type"))
        .unwrap_or("message");
    if crate::providers::input_items::is_api_input_item(t) {
        Some(item.clone())
    } else {
        count(counts, "client_only_dropped");
        None
    }
}

/// A system or developer message item.
fn system_message(s: &SystemPrompt, counts: &mut Counts) -> Value {
    message(
        s.openai_role(),
        system_content(&s.content, input_text, counts),
        None,
    )
}

/// One record's input items (a system message between turns stays there).
fn record(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>) {
    if let Some(s) = &r.prompt {
        out.push(system_message(s, counts));
        return;
    }
    if r.assistant {
        assistant(r, ids, counts, out);
        return;
    }
    let template = r
        .data
        .filter(|d| d.str("provider") == Some(ME.name()))
        .and_then(|d| d.get("item"))
        .and_then(Value::as_obj);
    if let Some(t) = r.text {
        out.push(message("user", t.into(), template));
        return;
    }
    let mut parts = Vec::new();
    let before = out.len();
    for b in r.blocks.iter().filter_map(Value::as_obj) {
        match b.str("type") {
            Some("tool_result") => {
                let id = ids.get(own_id(b, "tool_use_id", ME), counts);
                let output = match b.get("content") {
                    Some(Value::Str(s)) => Value::Str(s.clone()),
                    Some(Value::Arr(a)) => Value::Arr(
                        a.iter()
                            .filter_map(Value::as_obj)
                            .filter_map(|x| user_part_out(x, &PARTS, counts))
                            .collect(),
                    ),
                    _ => Value::from(""),
                };
                let mut m = match data_from(b, ME)
                    .and_then(|d| d.get("item"))
                    .and_then(Value::as_obj)
                {
                    Some(t) => t.clone(),
                    None => Map(vec![("type".into(), "function_call_output".into())]),
                };
                m.set("call_id", id);
                m.set("output", output);
                out.push(Value::Obj(m));
            }
            Some("provider_part") if origin(b) == Some(ME.name()) && b.get("item").is_some() => {
                out.extend(sendable(b.get("item"), counts));
            }
            _ => parts.extend(user_part_out(b, &PARTS, counts)),
        }
    }
    if parts.is_empty() && out.len() == before {
        count(counts, "empty_filled");
        parts.push(input_text("(no content)".into()));
    }
    if !parts.is_empty() {
        out.push(message("user", Value::Arr(parts), template));
    }
}

/// Item ids the API would refuse, dropped (an input item's `id` is optional):
/// a repeated id ("Duplicate item found with id"), and, when the history uses
/// reasoning, the id of a replayed `function_call` with no reasoning item in its
/// response ("function_call was provided without its required 'reasoning'
/// item"): without its id the call is the caller's, linked to no reasoning.
fn drop_unsendable_ids(items: &mut [Value], counts: &mut Counts) {
    let kind = |m: &Map| -> String {
        m.str("type")
            .unwrap_or(if m.get("role").is_some() {
                "message"
            } else {
                ""
            })
            .to_owned()
    };
    let reasoning = items
        .iter()
        .filter_map(Value::as_obj)
        .any(|m| kind(m) == "reasoning");
    let mut seen = std::collections::HashSet::new();
    let mut reasoned = false;
    for item in items.iter_mut() {
        let Value::Obj(m) = item else { continue };
        let t = kind(m);
        let output = super::rules::is_output_item(&t, m.str("role"));
        if !output {
            reasoned = false;
        } else if t == "reasoning" {
            reasoned = true;
        }
        let Some(id) = m.str("id").map(str::to_owned) else {
            continue;
        };
        let orphan_call = reasoning && t == "function_call" && !reasoned;
        if !seen.insert(id) || orphan_call {
            m.remove("id");
            count(counts, "item_ids_dropped");
        }
    }
}

fn assistant(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>) {
    if let Some(t) = r.text {
        if !t.is_empty() {
            out.push(message("assistant", t.into(), None));
        }
        return;
    }
    // An output message item being built from consecutive text blocks of one item.
    let mut open: Option<(Map, Vec<Value>)> = None;
    let close = |open: &mut Option<(Map, Vec<Value>)>, out: &mut Vec<Value>| {
        if let Some((t, parts)) = open.take() {
            out.push(message("assistant", Value::Arr(parts), Some(&t)));
        }
    };
    let before = out.len();
    for b in r.blocks.iter().filter_map(Value::as_obj) {
        let data = data_from(b, ME);
        let item = data.and_then(|d| d.get("item")).and_then(Value::as_obj);
        match b.str("type").unwrap_or("") {
            "text" | "provider_part" if b.get("item").is_none() => {
                let is_text = b.str("type") == Some("text");
                if !is_text && origin(b) != Some(ME.name()) {
                    count(counts, "parts_dropped");
                    continue;
                }
                let Some(t) = item else {
                    close(&mut open, out);
                    out.push(message(
                        "assistant",
                        b.str("text").unwrap_or("").into(),
                        None,
                    ));
                    continue;
                };
                let part = if is_text {
                    let mut p = data
                        .and_then(|d| d.get("part"))
                        .and_then(Value::as_obj)
                        .cloned()
                        .unwrap_or_else(|| {
                            Map(vec![
                                ("type".into(), "output_text".into()),
                                ("annotations".into(), Value::Arr(vec![])),
                            ])
                        });
                    p.set("text", b.str("text").unwrap_or(""));
                    Value::Obj(p)
                } else {
                    b.get("part").cloned().unwrap_or(Value::Null)
                };
                let same = matches!(&open, Some((ot, _)) if ot == t);
                if !same {
                    close(&mut open, out);
                    open = Some((t.clone(), Vec::new()));
                }
                if let Some((_, parts)) = &mut open {
                    parts.push(part);
                }
            }
            "tool_use" => {
                close(&mut open, out);
                let mut m = match item {
                    Some(t) => t.clone(),
                    None => Map(vec![("type".into(), "function_call".into())]),
                };
                m.set("call_id", ids.get(own_id(b, "id", ME), counts));
                m.set("name", tool_name(b.str("name").unwrap_or(""), ME, counts));
                let args = match data.and_then(|d| d.str("arguments")) {
                    Some(a) => a.to_string(),
                    None => args_json(b.get("input")),
                };
                m.set("arguments", args);
                out.push(Value::Obj(m));
            }
            "thinking" => {
                close(&mut open, out);
                match item {
                    Some(it) if thinking_ok(b, ME) => out.push(Value::Obj(it.clone())),
                    _ => count(counts, "thinking_dropped"),
                }
            }
            "provider_part" => {
                close(&mut open, out);
                if origin(b) == Some(ME.name()) {
                    out.extend(sendable(b.get("item"), counts));
                } else {
                    count(counts, "parts_dropped");
                }
            }
            "redacted_thinking" => count(counts, "thinking_dropped"),
            _ => count(counts, "parts_dropped"),
        }
    }
    close(&mut open, out);
    if out.len() == before {
        count(counts, "empty_filled");
        out.push(message("assistant", "(no content)".into(), None));
    }
}
