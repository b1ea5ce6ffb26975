//! OpenAI Responses API input items: messages, `function_call`,
//! `function_call_output`, `reasoning`, and any other item kept opaque.

use super::*;

const ME: Provider = Provider::OpenAIResponses;
/// `call_id`s are kept within this length (and `[a-zA-Z0-9_-]`).
pub const ID_LIMIT: usize = 64;

/// `{"type": "provider_part", "provider": ..., "item": item}`: a whole item.
fn item_part(item: &Value) -> Value {
    obj([
        ("type", "provider_part".into()),
        ("provider", ME.name().into()),
        ("item", item.clone()),
    ])
}

fn input_part(b: &Builder, i: usize, path: &str, p: &Value) -> Result<Value> {
    let Some(o) = p.as_obj() else {
        return Err(bad(i, path, "a content part must be an object"));
    };
    Ok(match o.str("type") {
        Some("input_text" | "output_text" | "text") => match o.str("text") {
            Some(t) => text_block(t),
            None => {
                return Err(bad(
                    i,
                    &format!("{path}.text"),
                    "missing required field (a string)",
                ))
            }
        },
        Some("input_image") => match o.str("image_url") {
            Some(url) => {
                let mut blk = match parse_data_url(url) {
                    Some((media, data)) => media_block("image", media, data),
                    None => url_block("image", url),
                };
                if let (Value::Obj(m), Some(rest)) =
                    (&mut blk, Some(o.without(&["type", "image_url"])))
                {
                    if !rest.is_empty() {
                        m.push("provider_data", b.data(rest));
                    }
                }
                blk
            }
            None => b.part(p.clone()),
        },
        Some("input_file") => match o.str("file_data").and_then(parse_data_url) {
            Some((media, data)) => {
                let mut blk = media_block("document", media, data);
                if let (Value::Obj(m), Some(name)) = (&mut blk, o.str("filename")) {
                    m.push("title", name);
                }
                blk
            }
            None => b.part(p.clone()),
        },
        Some(_) => b.part(p.clone()),
        None => {
            return Err(bad(
                i,
                &format!("{path}.type"),
                "missing required field (a string)",
            ))
        }
    })
}

fn content_in(b: &Builder, i: usize, c: Option<&Value>) -> Result<Value> {
    match c {
        Some(s @ Value::Str(_)) => Ok(s.clone()),
        Some(Value::Arr(a)) => Ok(Value::Arr(
            a.iter()
                .enumerate()
                .map(|(j, p)| input_part(b, i, &format!(".content[{j}]"), p))
                .collect::<Result<_>>()?,
        )),
        _ => Err(bad(
            i,
            ".content",
            "must be a string or a list of content parts",
        )),
    }
}

/// The assistant turn gathered so far becomes a record.
pub(super) fn flush(b: &mut Builder, pending: &mut Vec<Value>) {
    if !pending.is_empty() {
        b.message(true, Value::Arr(std::mem::take(pending)), None);
    }
}

pub(super) fn from(b: &mut Builder, c: &mut Carry, at: usize, items: &[Value]) -> Result<()> {
    let pending = &mut c.pending;
    for (i, it) in (at..).zip(items) {
        let Some(m) = it.as_obj() else {
            return Err(bad(i, "", "an input item must be an object"));
        };
        let ty = match m.str("type") {
            Some(t) => t,
            None if m.get("role").is_some() => "message",
            None => return Err(bad(i, ".type", "missing required field (a string)")),
        };
        match ty {
            "message" => match m.str("role") {
                Some(role @ ("system" | "developer")) => {
                    flush(b, pending);
                    let c = content_in(b, i, m.get("content"))?;
                    b.system(role, c);
                }
                Some("user") => {
                    flush(b, pending);
                    let c = content_in(b, i, m.get("content"))?;
                    let rest = m.without(&["content"]);
                    b.message(false, c, Some(Map(vec![("item".into(), Value::Obj(rest))])));
                }
                Some("assistant") => {
                    let rest = Value::Obj(m.without(&["content"]));
                    match m.get("content") {
                        Some(Value::Str(s)) => {
                            let mut t = text_block(s.clone());
                            let plain = m
                                .0
                                .iter()
                                .all(|(k, _)| matches!(k.as_ref(), "type" | "role" | "content"));
                            if let (Value::Obj(o), false) = (&mut t, plain) {
                                o.push("provider_data", b.data(Map(vec![("item".into(), rest)])));
                            }
                            pending.push(t);
                        }
                        Some(Value::Arr(a)) => {
                            for (j, p) in a.iter().enumerate() {
                                // the paths below are formatted only when an error is raised
                                let Some(po) = p.as_obj() else {
                                    return Err(bad(
                                        i,
                                        &format!(".content[{j}]"),
                                        "a content part must be an object",
                                    ));
                                };
                                let mut blk = match (po.str("type"), po.str("text")) {
                                    (Some("output_text" | "input_text"), Some(t)) => text_block(t),
                                    (Some("output_text" | "input_text"), None) => {
                                        return Err(bad(
                                            i,
                                            &format!(".content[{j}].text"),
                                            "missing required field (a string)",
                                        ))
                                    }
                                    _ => b.part(p.clone()),
                                };
                                let mut d = Map::new();
                                d.push("item", rest.clone());
                                d.push("part", Value::Obj(po.without(&["text"])));
                                if let Value::Obj(o) = &mut blk {
                                    o.push("provider_data", b.data(d));
                                }
                                pending.push(blk);
                            }
                        }
                        _ => {
                            return Err(bad(
                                i,
                                ".content",
                                "must be a string or a list of content parts",
                            ))
                        }
                    }
                }
                _ => {
                    return Err(bad(
                        i,
                        ".role",
                        "must be 'user', 'assistant', 'system' or 'developer'",
                    ))
                }
            },
            "function_call" => {
                let (Some(call_id), Some(name)) = (m.str("call_id"), m.str("name")) else {
                    let f = if m.str("call_id").is_none() {
                        ".call_id"
                    } else {
                        ".name"
                    };
                    return Err(bad(i, f, "missing required field (a string)"));
                };
                let args = m.str("arguments").unwrap_or("");
                let mut d = Map::new();
                d.push(
                    "item",
                    Value::Obj(m.without(&["call_id", "name", "arguments"])),
                );
                let input = match parse_args(args) {
                    Some(v) if v.to_json() == args => v,
                    Some(v) => {
                        d.push("arguments", args);
                        v
                    }
                    None => {
                        d.push("arguments", args);
                        Value::Obj(Map::new())
                    }
                };
                let mut blk = Map::with_capacity(5);
                blk.push("type", "tool_use");
                blk.push("id", call_id);
                blk.push("name", name);
                blk.push("input", input);
                blk.push("provider_data", b.data(d));
                pending.push(Value::Obj(blk));
            }
            "function_call_output" => {
                flush(b, pending);
                let Some(call_id) = m.str("call_id") else {
                    return Err(bad(i, ".call_id", "missing required field (a string)"));
                };
                let content = match m.get("output") {
                    Some(s @ Value::Str(_)) => s.clone(),
                    Some(Value::Arr(a)) => Value::Arr(
                        a.iter()
                            .enumerate()
                            .map(|(j, p)| input_part(b, i, &format!(".output[{j}]"), p))
                            .collect::<Result<_>>()?,
                    ),
                    _ => {
                        return Err(bad(
                            i,
                            ".output",
                            "must be a string or a list of content parts",
                        ))
                    }
                };
                let mut blk = Map::with_capacity(4);
                blk.push("type", "tool_result");
                blk.push("tool_use_id", call_id);
                blk.push("content", content);
                let rest = m.without(&["call_id", "output"]);
                blk.push(
                    "provider_data",
                    b.data(Map(vec![("item".into(), Value::Obj(rest))])),
                );
                b.message(false, Value::Arr(vec![Value::Obj(blk)]), None);
            }
            "reasoning" => {
                let mut text = Vec::new();
                if let Some(Value::Arr(s)) = m.get("summary") {
                    text.extend(
                        s.iter()
                            .filter_map(Value::as_obj)
                            .filter_map(|p| p.str("text")),
                    );
                }
                let sig = m.str("encrypted_content").unwrap_or("");
                let mut blk = Map::with_capacity(4);
                blk.push("type", "thinking");
                blk.push("thinking", text.join("\n\n"));
                blk.push("signature", sig);
                blk.push(
                    "provider_data",
                    b.data(Map(vec![("item".into(), it.clone())])),
                );
                pending.push(Value::Obj(blk));
            }
            t if t.ends_with("_output") => {
                flush(b, pending);
                b.message(false, Value::Arr(vec![item_part(it)]), None);
            }
            _ => pending.push(item_part(it)),
        }
    }
    Ok(())
}

fn user_part_out(b: &Map, counts: &mut Counts) -> Option<Value> {
    match b.str("type").unwrap_or("") {
        "text" => Some(obj([
            ("type", "input_text".into()),
            ("text", b.str("text").unwrap_or("").into()),
        ])),
        "image" => {
            let url = match source(b) {
                Source::Base64 { media, data } => data_url(media, data),
                Source::Url(u) => u.to_string(),
                _ => {
                    count(counts, "parts_dropped");
                    return None;
                }
            };
            let mut m = Map::new();
            m.push("type", "input_image");
            m.push("image_url", url);
            match data_from(b, ME) {
                Some(d) if data_fields(d).next().is_some() => m.extend_new(data_fields(d)),
                _ => m.push("detail", "auto"),
            }
            Some(Value::Obj(m))
        }
        "document" => match source(b) {
            Source::Base64 { media, data } => Some(obj([
                ("type", "input_file".into()),
                ("file_data", data_url(media, data).into()),
                ("filename", b.str("title").unwrap_or("document.pdf").into()),
            ])),
            Source::Text { data, .. } if !crate::model::is_blank(data) => {
                Some(obj([("type", "input_text".into()), ("text", data.into())]))
            }
            Source::Text { .. } => {
                count(counts, "blank_text_dropped");
                None
            }
            _ => {
                count(counts, "parts_dropped");
                None
            }
        },
        "provider_part" if origin(b) == Some(ME.name()) && b.get("part").is_some() => {
            b.get("part").cloned()
        }
        "thinking" | "redacted_thinking" => {
            count(counts, "thinking_dropped");
            None
        }
        _ => {
            count(counts, "parts_dropped");
            None
        }
    }
}

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
pub(super) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let ids = Ids::new(recs, ID_LIMIT);
    let mut out = Vec::with_capacity(recs.len() + system.len());
    for s in system {
        let content = match &s.content {
            Value::Arr(a) => Value::Arr(
                a.iter()
                    .filter_map(Value::as_obj)
                    .map(|b| {
                        obj([
                            ("type", "input_text".into()),
                            ("text", b.str("text").unwrap_or("").into()),
                        ])
                    })
                    .collect(),
            ),
            other => other.clone(),
        };
        let role = if s.role == "developer" {
            "developer"
        } else {
            "system"
        };
        out.push(message(role, content, None));
    }
    write_each(recs, ids, counts, &mut out, record);
    drop_unsendable_ids(&mut out, counts);
    Ok(Value::Arr(out))
}

/// One record's input items.
fn record(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>) {
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
                let id = ids.get(b.str("tool_use_id").unwrap_or(""), counts);
                let output = match b.get("content") {
                    Some(Value::Str(s)) => Value::Str(s.clone()),
                    Some(Value::Arr(a)) => Value::Arr(
                        a.iter()
                            .filter_map(Value::as_obj)
                            .filter_map(|x| user_part_out(x, counts))
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
                out.extend(b.get("item").cloned());
            }
            _ => parts.extend(user_part_out(b, counts)),
        }
    }
    if parts.is_empty() && out.len() == before {
        count(counts, "empty_filled");
        parts.push(obj([
            ("type", "input_text".into()),
            ("text", "(no content)".into()),
        ]));
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
        let output = crate::validate::openai_responses::is_output_item(&t, m.str("role"));
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
                m.set("call_id", ids.get(b.str("id").unwrap_or(""), counts));
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
                    out.extend(b.get("item").cloned());
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
