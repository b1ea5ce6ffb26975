//! OpenAI Chat Completions messages: `system`/`developer`/`user`/`assistant`
//! (with `tool_calls`)/`tool` and the legacy `function` role.

use super::*;

const ME: Provider = Provider::OpenAIChat;
/// `tool_calls[].id` may hold at most 40 characters.
pub const ID_LIMIT: usize = 40;

fn text_of_parts(i: usize, field: &str, c: &Value) -> Result<Value> {
    match c {
        Value::Str(_) => Ok(c.clone()),
        Value::Arr(a) => {
            let mut out = Vec::with_capacity(a.len());
            for (j, p) in a.iter().enumerate() {
                let p = p.as_obj().filter(|p| p.str("type") == Some("text"));
                match p.and_then(|p| p.str("text")) {
                    Some(t) => out.push(text_block(t)),
                    None => {
                        return Err(bad(
                            i,
                            &format!(".{field}[{j}]"),
                            "must be a text part {\"type\": \"text\", \"text\": str}",
                        ))
                    }
                }
            }
            Ok(Value::Arr(out))
        }
        other => Err(bad(
            i,
            &format!(".{field}"),
            format!(
                "must be a string or a list of text parts, not {}",
                other.type_name()
            ),
        )),
    }
}

/// Fields of a message that records have no place for, kept in `provider_data`.
fn extras(m: &Map, known: &[&str]) -> Option<Map> {
    let rest = m.without(known);
    (!rest.is_empty()).then_some(rest)
}

fn user_part(b: &Builder, i: usize, j: usize, p: &Value) -> Result<Value> {
    let Some(o) = p.as_obj() else {
        return Err(bad(
            i,
            &format!(".content[{j}]"),
            "a content part must be an object",
        ));
    };
    Ok(match o.str("type") {
        Some("text") => match o.str("text") {
            Some(t) => text_block(t),
            None => {
                return Err(bad(
                    i,
                    &format!(".content[{j}].text"),
                    "missing required field (a string)",
                ))
            }
        },
        Some("image_url") => {
            let Some(iu) = o.get("image_url").and_then(Value::as_obj) else {
                return Err(bad(
                    i,
                    &format!(".content[{j}].image_url"),
                    "missing required field (an object)",
                ));
            };
            let Some(url) = iu.str("url") else {
                return Err(bad(
                    i,
                    &format!(".content[{j}].image_url.url"),
                    "missing required field (a string)",
                ));
            };
            let mut blk = match parse_data_url(url) {
                Some((media, data)) => media_block("image", media, data),
                None => url_block("image", url),
            };
            if let Some(rest) = extras(iu, &["url"]) {
                if let Value::Obj(m) = &mut blk {
                    m.push("provider_data", b.data(rest));
                }
            }
            blk
        }
        Some("file") => {
            let f = o.get("file").and_then(Value::as_obj);
            match f.and_then(|f| Some((f.str("file_data")?, f))) {
                Some((fd, f)) if parse_data_url(fd).is_some() => {
                    let (media, data) = parse_data_url(fd).unwrap_or_default();
                    let mut blk = media_block("document", media, data);
                    if let (Value::Obj(m), Some(name)) = (&mut blk, f.str("filename")) {
                        m.push("title", name);
                    }
                    blk
                }
                _ => b.part(p.clone()),
            }
        }
        Some(_) => b.part(p.clone()),
        None => {
            return Err(bad(
                i,
                &format!(".content[{j}].type"),
                "missing required field (a string)",
            ))
        }
    })
}

pub(super) fn from(b: &mut Builder, c: &mut Carry, at: usize, messages: &[Value]) -> Result<()> {
    let legacy = &mut c.legacy;
    for (i, m) in (at..).zip(messages) {
        let Some(m) = m.as_obj() else {
            return Err(bad(i, "", "a message must be an object"));
        };
        match m.str("role") {
            Some(role @ ("system" | "developer")) => {
                let c = m.get("content").unwrap_or(&Value::Null);
                let content = text_of_parts(i, "content", c)?;
                b.system(role, content);
            }
            Some("user") => {
                let content = match m.get("content") {
                    Some(c @ Value::Str(_)) => c.clone(),
                    Some(Value::Arr(a)) => Value::Arr(
                        a.iter()
                            .enumerate()
                            .map(|(j, p)| user_part(b, i, j, p))
                            .collect::<Result<_>>()?,
                    ),
                    _ => {
                        return Err(bad(
                            i,
                            ".content",
                            "must be a string or a list of content parts",
                        ))
                    }
                };
                b.message(false, content, extras(m, &["role", "content"]));
            }
            Some("assistant") => {
                let mut blocks = Vec::new();
                match m.get("content") {
                    None | Some(Value::Null) => {}
                    Some(Value::Str(s)) => blocks.extend(string_blocks(s)),
                    Some(Value::Arr(a)) => {
                        for (j, p) in a.iter().enumerate() {
                            let Some(o) = p.as_obj() else {
                                return Err(bad(
                                    i,
                                    &format!(".content[{j}]"),
                                    "a content part must be an object",
                                ));
                            };
                            match (o.str("type"), o.str("text")) {
                                (Some("text"), Some(t)) => blocks.push(text_block(t)),
                                (Some("text"), None) => {
                                    return Err(bad(
                                        i,
                                        &format!(".content[{j}].text"),
                                        "missing required field (a string)",
                                    ))
                                }
                                _ => blocks.push(b.part(p.clone())),
                            }
                        }
                    }
                    Some(other) => {
                        return Err(bad(
                            i,
                            ".content",
                            format!(
                                "must be a string, a list of parts or null, not {}",
                                other.type_name()
                            ),
                        ))
                    }
                }
                match m.get("tool_calls") {
                    None | Some(Value::Null) => {}
                    Some(Value::Arr(calls)) => {
                        for (j, c) in calls.iter().enumerate() {
                            blocks.push(tool_call(b, i, j, c)?);
                        }
                    }
                    Some(_) => return Err(bad(i, ".tool_calls", "must be a list")),
                }
                if let Some(fc) = m.get("function_call").filter(|v| !v.is_null()) {
                    let id = format!("call_legacy_{i}");
                    let Some(f) = fc.as_obj() else {
                        return Err(bad(i, ".function_call", "must be an object"));
                    };
                    let mut call = Map::new();
                    call.push("id", id.clone());
                    call.push("type", "function");
                    call.push("function", Value::Obj(f.clone()));
                    let mut blk = tool_call(b, i, 0, &Value::Obj(call))?;
                    if let Value::Obj(o) = &mut blk {
                        // one provider_data: tool_call's may hold the arguments' own text
                        match o.get_mut("provider_data") {
                            Some(Value::Obj(d)) => d.push("legacy_function_call", true),
                            _ => {
                                let mut d = Map::new();
                                d.push("legacy_function_call", true);
                                o.push("provider_data", b.data(d));
                            }
                        }
                    }
                    blocks.push(blk);
                    *legacy = Some(id);
                }
                b.message(
                    true,
                    Value::Arr(blocks),
                    extras(m, &["role", "content", "tool_calls", "function_call"]),
                );
            }
            Some("tool") => {
                let Some(id) = m.str("tool_call_id") else {
                    return Err(bad(i, ".tool_call_id", "missing required field (a string)"));
                };
                let content =
                    text_of_parts(i, "content", m.get("content").unwrap_or(&Value::Null))?;
                let r = obj([
                    ("type", "tool_result".into()),
                    ("tool_use_id", id.into()),
                    ("content", content),
                ]);
                b.message(
                    false,
                    Value::Arr(vec![r]),
                    extras(m, &["role", "content", "tool_call_id"]),
                );
            }
            Some("function") => {
                let Some(id) = legacy.take() else {
                    return Err(bad(i, ".role", "a 'function' message must follow an assistant message with a function_call"));
                };
                let content =
                    text_of_parts(i, "content", m.get("content").unwrap_or(&Value::Null))?;
                let r = obj([
                    ("type", "tool_result".into()),
                    ("tool_use_id", id.into()),
                    ("content", content),
                ]);
                b.message(false, Value::Arr(vec![r]), None);
            }
            _ => {
                return Err(bad(
                    i,
                    ".role",
                    "must be one of 'system', 'developer', 'user', 'assistant', 'tool', 'function'",
                ))
            }
        }
    }
    Ok(())
}

fn tool_call(b: &Builder, i: usize, j: usize, c: &Value) -> Result<Value> {
    // formatted only when an error is raised
    let path = || format!(".tool_calls[{j}]");
    let Some(c) = c.as_obj() else {
        return Err(bad(i, &path(), "a tool call must be an object"));
    };
    let Some(id) = c.str("id") else {
        return Err(bad(
            i,
            &format!("{}.id", path()),
            "missing required field (a string)",
        ));
    };
    let Some(f) = c.get("function").and_then(Value::as_obj) else {
        return Err(bad(
            i,
            &format!("{}.function", path()),
            "missing required field (an object)",
        ));
    };
    let Some(name) = f.str("name") else {
        return Err(bad(
            i,
            &format!("{}.function.name", path()),
            "missing required field (a string)",
        ));
    };
    let args = f.str("arguments").unwrap_or("");
    let mut blk = Map::with_capacity(5);
    blk.push("type", "tool_use");
    blk.push("id", id);
    blk.push("name", name);
    match parse_args(args) {
        Some(v) if v.to_json() == args => blk.push("input", v),
        Some(v) => {
            blk.push("input", v);
            blk.push(
                "provider_data",
                b.data(Map(vec![("arguments".into(), args.into())])),
            );
        }
        None => {
            blk.push("input", Value::Obj(Map::new()));
            blk.push(
                "provider_data",
                b.data(Map(vec![("arguments".into(), args.into())])),
            );
        }
    }
    Ok(Value::Obj(blk))
}

fn part_text(t: impl Into<SmolStr>) -> Value {
    obj([("type", "text".into()), ("text", Value::Str(t.into()))])
}

/// A user-side block as a chat content part (`None`: the target has no shape for it).
pub(super) fn user_part_out(b: &Map, counts: &mut Counts) -> Option<Value> {
    match b.str("type").unwrap_or("") {
        "text" => Some(part_text(b.text("text").clone())),
        "image" => {
            let url = match source(b) {
                Source::Base64 { media, data } => data_url(media, data),
                Source::Url(u) => u.to_string(),
                _ => {
                    count(counts, "parts_dropped");
                    return None;
                }
            };
            let mut iu = Map::new();
            iu.push("url", url);
            if let Some(d) = data_from(b, ME) {
                iu.extend_new(data_fields(d));
            }
            Some(obj([
                ("type", "image_url".into()),
                ("image_url", Value::Obj(iu)),
            ]))
        }
        "document" => match source(b) {
            Source::Base64 { media, data } => {
                let name = b.str("title").unwrap_or("document.pdf");
                Some(obj([
                    ("type", "file".into()),
                    (
                        "file",
                        obj([
                            ("file_data", data_url(media, data).into()),
                            ("filename", name.into()),
                        ]),
                    ),
                ]))
            }
            Source::Text { data, .. } if !crate::model::is_blank(data) => Some(part_text(data)),
            Source::Text { .. } => {
                count(counts, "blank_text_dropped");
                None
            }
            _ => {
                count(counts, "parts_dropped");
                None
            }
        },
        "provider_part" if origin(b) == Some(ME.name()) => b.get("part").cloned(),
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

fn with_extras(mut m: Map, data: Option<&Map>) -> Value {
    if let Some(d) = data.filter(|d| d.str("provider") == Some(ME.name())) {
        m.extend_new(data_fields(d));
    }
    Value::Obj(m)
}

/// A plain list of chat messages, system/developer messages first.
pub(super) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let ids = Ids::new(recs, ID_LIMIT);
    let mut out = Vec::with_capacity(recs.len() + system.len());
    for s in system {
        let content = match &s.content {
            Value::Arr(a) => Value::Arr(
                a.iter()
                    .filter_map(Value::as_obj)
                    .map(|b| part_text(b.text("text").clone()))
                    .collect(),
            ),
            other => other.clone(),
        };
        out.push(obj([
            // the two roles a system prompt has here (from another format's record it may hold any)
            (
                "role",
                if s.role == "developer" {
                    "developer"
                } else {
                    "system"
                }
                .into(),
            ),
            ("content", content),
        ]));
    }
    write_each(recs, ids, counts, &mut out, record);
    Ok(Value::Arr(out))
}

/// One record's messages: an assistant message, or a user message and the
/// tool messages of its results.
fn record(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>) {
    if r.assistant {
        out.push(assistant(r, ids, counts));
        return;
    }
    if let Some(t) = r.text {
        out.push(with_extras(
            Map(vec![
                ("role".into(), "user".into()),
                ("content".into(), t.into()),
            ]),
            r.data,
        ));
        return;
    }
    let mut parts = Vec::new();
    let mut moved = Vec::new();
    let before = out.len();
    for b in r.blocks.iter().filter_map(Value::as_obj) {
        if b.str("type") == Some("tool_result") {
            let id = ids.get(b.str("tool_use_id").unwrap_or(""), counts);
            let content = match b.get("content") {
                Some(Value::Str(s)) => Value::Str(s.clone()),
                Some(Value::Arr(a)) => {
                    let mut texts = Vec::new();
                    for x in a.iter().filter_map(Value::as_obj) {
                        if x.str("type") == Some("text") {
                            texts.push(part_text(x.text("text").clone()));
                        } else if let Some(p) = user_part_out(x, counts) {
                            count(counts, "media_moved");
                            moved.push(p);
                        }
                    }
                    Value::Arr(texts)
                }
                _ => Value::from(""),
            };
            out.push(obj([
                ("role", "tool".into()),
                ("tool_call_id", id.into()),
                ("content", content),
            ]));
        } else if let Some(p) = user_part_out(b, counts) {
            parts.push(p);
        }
    }
    moved.extend(parts);
    if moved.is_empty() && out.len() == before {
        count(counts, "empty_filled");
        moved.push(part_text("(no content)"));
    }
    if !moved.is_empty() {
        out.push(with_extras(
            Map(vec![
                ("role".into(), "user".into()),
                ("content".into(), Value::Arr(moved)),
            ]),
            r.data,
        ));
    }
}

fn assistant(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts) -> Value {
    let mut parts = Vec::new();
    let mut only_text = true;
    let mut calls = Vec::new();
    if let Some(t) = r.text {
        if !t.is_empty() {
            parts.push(part_text(t.clone()));
        }
    }
    for b in r.blocks.iter().filter_map(Value::as_obj) {
        match b.str("type").unwrap_or("") {
            "text" => parts.push(part_text(b.text("text").clone())),
            "tool_use" => {
                let id = ids.get(b.str("id").unwrap_or(""), counts);
                let args = match data_from(b, ME).and_then(|d| d.str("arguments")) {
                    Some(a) => a.to_string(),
                    None => args_json(b.get("input")),
                };
                let f = obj([
                    (
                        "name",
                        tool_name(b.str("name").unwrap_or(""), ME, counts).into(),
                    ),
                    ("arguments", args.into()),
                ]);
                calls.push(obj([
                    ("id", id.into()),
                    ("type", "function".into()),
                    ("function", f),
                ]));
            }
            "provider_part" if origin(b) == Some(ME.name()) => {
                only_text = false;
                parts.extend(b.get("part").cloned());
            }
            "thinking" | "redacted_thinking" => count(counts, "thinking_dropped"),
            _ => count(counts, "parts_dropped"),
        }
    }
    let content = match parts.len() {
        0 if !calls.is_empty() => Value::Null,
        0 => {
            count(counts, "empty_filled");
            Value::Str("(no content)".into())
        }
        1 if only_text => parts[0]
            .as_obj()
            .and_then(|p| p.get("text"))
            .cloned()
            .unwrap_or(Value::Null),
        _ => Value::Arr(parts),
    };
    let mut m = Map::with_capacity(3);
    m.push("role", "assistant");
    m.push("content", content);
    if !calls.is_empty() {
        m.push("tool_calls", Value::Arr(calls));
    }
    with_extras(m, r.data)
}
