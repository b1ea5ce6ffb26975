//! Records → the request shape.

use super::*;
use crate::error::Result;
use ahash::AHashMap;

/// A part of the given fields ([`obj`]), with the block's thought signature if it has one.
fn part<const N: usize>(fields: [(&'static str, Value); N], data: Option<&Map>) -> Value {
    let mut part = obj(fields);
    if let (Value::Obj(m), Some(s)) = (&mut part, data.and_then(|d| d.get("thought_signature"))) {
        m.push("thought_signature", s.clone());
    }
    part
}

fn inline(media: &str, data: &str) -> Value {
    obj([("mime_type", media.into()), ("data", data.into())])
}

/// The parts of one block into `out`; media inside a tool result go to `moved`
/// (written after all of the turn's function responses).
fn block_parts(
    b: &Map,
    names: &AHashMap<String, String>,
    counts: &mut Counts,
    out: &mut Vec<Value>,
    moved: &mut Vec<Value>,
) {
    let data = data_from(b, ME);
    match b.str("type").unwrap_or("") {
        "text" => {
            let t = b.str("text").unwrap_or("");
            if !t.is_empty() {
                out.push(part([("text", t.into())], data));
            }
        }
        "thinking" => match data.and_then(|d| d.get("part")) {
            Some(p) if thinking_ok(b, ME) => out.push(p.clone()),
            _ => count(counts, "thinking_dropped"),
        },
        "redacted_thinking" => count(counts, "thinking_dropped"),
        "tool_use" => {
            let mut fc = Map::new();
            if data.is_none_or(|d| d.get("no_id").is_none()) {
                fc.push("id", b.str("id").unwrap_or(""));
            }
            fc.push("name", tool_name(b.str("name").unwrap_or(""), ME, counts));
            // no input reads back as `{}`: write it so
            let args = match b.get("input") {
                None | Some(Value::Null) => Value::Obj(Map::new()),
                Some(a) => a.clone(),
            };
            fc.push("args", args);
            out.push(part([("function_call", Value::Obj(fc))], data));
        }
        "tool_result" => {
            let id = b.str("tool_use_id").unwrap_or("");
            let mut fr = Map::new();
            if data.is_none_or(|d| d.get("no_id").is_none()) {
                fr.push("id", id);
            }
            let name = data
                .and_then(|d| d.str("name"))
                .or_else(|| names.get(id).map(String::as_str))
                .unwrap_or("unknown_function");
            // the call's name as the call writes it, not counted twice
            fr.push("name", ME.tool_name(name).into_owned());
            let response = match data.and_then(|d| d.get("response")) {
                Some(r) => r.clone(),
                None => {
                    let key = if b.get("is_error") == Some(&Value::Bool(true)) {
                        "error"
                    } else {
                        "output"
                    };
                    obj([(key, result_text(b.get("content")).into())])
                }
            };
            fr.push("response", response);
            if let Some(Value::Obj(extra)) = data.and_then(|d| d.get("extra")) {
                fr.extend_new(extra.iter());
            }
            out.push(part([("function_response", Value::Obj(fr))], data));
            if let Some(Value::Arr(inner)) = b.get("content") {
                for x in inner.iter().filter_map(Value::as_obj) {
                    match x.str("type") {
                        Some("text") => {}
                        // media move after the turn's responses; no other block
                        // (a call, a result, thinking) has a place in a result
                        Some("image" | "document") => {
                            count(counts, "media_moved");
                            let mut none = Vec::new();
                            block_parts(x, names, counts, moved, &mut none);
                        }
                        _ => count(counts, "parts_dropped"),
                    }
                }
            }
        }
        "image" | "document" => match source(b) {
            Source::Base64 { data: d, .. } if value::base64_decode(d).is_none() => {
                count(counts, "invalid_media_dropped")
            }
            Source::Base64 { media, data: d } => {
                out.push(part([("inline_data", inline(media, d))], data))
            }
            Source::Text { data: d, .. } if !crate::model::is_blank(d) => {
                out.push(part([("text", d.into())], None))
            }
            Source::Text { .. } => count(counts, "blank_text_dropped"),
            Source::Url(u) => {
                let mut fd = Map::new();
                fd.push("file_uri", u);
                out.push(part([("file_data", Value::Obj(fd))], None))
            }
            _ => count(counts, "parts_dropped"),
        },
        "provider_part" if origin(b) == Some(ME.name()) => out.extend(b.get("part").cloned()),
        _ => count(counts, "parts_dropped"),
    }
}

/// `{"system_instruction"?, "contents"}`; adjacent turns of one role are merged.
pub(crate) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let mut names: AHashMap<String, String> = AHashMap::new();
    for r in recs.iter().filter(|r| r.assistant) {
        for b in r.blocks.iter().filter_map(Value::as_obj) {
            // the name the call is written with (a missing name as the call writes it)
            if let (Some("tool_use"), Some(id)) = (b.str("type"), b.str("id")) {
                names.insert(id.to_string(), b.str("name").unwrap_or("").to_string());
            }
        }
    }
    let mut contents: Vec<Value> = Vec::with_capacity(recs.len());
    for r in recs {
        let role = if r.assistant { "model" } else { "user" };
        let mut parts = Vec::with_capacity(r.blocks.len().max(1));
        if let Some(t) = r.text {
            if !t.is_empty() {
                parts.push(obj([("text", t.into())]));
            }
        }
        let mut moved = Vec::new();
        for b in r.blocks.iter().filter_map(Value::as_obj) {
            if b.str("type") != Some("tool_result") && !moved.is_empty() {
                parts.append(&mut moved);
            }
            block_parts(b, &names, counts, &mut parts, &mut moved);
        }
        parts.append(&mut moved);
        push_turn(&mut contents, role, "parts", parts, counts);
    }
    let mut out = Map::new();
    if !system.is_empty() {
        let mut parts = Vec::new();
        for s in system {
            match &s.content {
                Value::Str(t) => parts.push(obj([("text", t.as_str().into())])),
                Value::Arr(a) => {
                    for b in a.iter().filter_map(Value::as_obj) {
                        // a block other than text has no shape in a system instruction
                        match b.str("text").filter(|_| b.str("type") == Some("text")) {
                            Some(t) => parts.push(obj([("text", t.into())])),
                            None => count(counts, "parts_dropped"),
                        }
                    }
                }
                _ => {}
            }
        }
        out.push("system_instruction", obj([("parts", Value::Arr(parts))]));
    }
    out.push("contents", Value::Arr(contents));
    Ok(Value::Obj(out))
}
