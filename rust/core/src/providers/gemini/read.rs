//! Messages → records.

use super::*;
use crate::error::{Error, Result};

pub(crate) fn system_in(b: &mut Builder, s: &Value) -> Result<()> {
    let texts = match s {
        Value::Str(_) => {
            b.system("system", s.clone());
            return Ok(());
        }
        Value::Obj(c) => match c.get("parts") {
            Some(Value::Arr(p)) => p,
            // the API's JSON reader takes one value for a repeated field
            Some(one @ Value::Obj(_)) => std::slice::from_ref(one),
            _ => {
                return Err(Error::invalid(
                    0,
                    "system_instruction.parts",
                    "missing required field (a list)",
                ))
            }
        },
        Value::Arr(p) => p,
        other => {
            return Err(Error::invalid(
                0,
                "system_instruction",
                format!("must be a string or a Content, not {}", other.type_name()),
            ))
        }
    };
    let mut blocks = Vec::with_capacity(texts.len());
    for (j, p) in texts.iter().enumerate() {
        match p.as_obj().and_then(|p| p.str("text")) {
            Some(t) => blocks.push(text_block(t)),
            None => {
                return Err(Error::invalid(
                    0,
                    format!("system_instruction.parts[{j}].text"),
                    "a system instruction part must be a text part",
                ))
            }
        }
    }
    b.system("system", Value::Arr(blocks));
    Ok(())
}

fn with_data(b: &Builder, mut blk: Value, d: Map) -> Value {
    if let (Value::Obj(m), false) = (&mut blk, d.is_empty()) {
        m.push("provider_data", b.data(d));
    }
    blk
}

pub(crate) fn from(
    b: &mut Builder,
    carry: &mut Carry,
    at: usize,
    contents: &[Value],
) -> Result<()> {
    let (open, model_last) = (&mut carry.open, &mut carry.model_last);
    for (i, c) in (at..).zip(contents) {
        let Some(c) = c.as_obj() else {
            return Err(bad(i, "", "a content must be an object"));
        };
        // a content without a role is the user's (the API's default)
        let assistant = match c.get("role") {
            Some(Value::Str(r)) if r.as_str() == "model" => true,
            Some(Value::Str(r)) if matches!(r.as_str(), "user" | "function") => false,
            None | Some(Value::Null) => false,
            _ => return Err(bad(i, ".role", "must be 'user' or 'model'")),
        };
        // the API's JSON reader takes one part for the list of parts
        let parts: &[Value] = match c.get("parts") {
            Some(Value::Arr(parts)) => parts,
            Some(one @ Value::Obj(_)) => std::slice::from_ref(one),
            _ => return Err(bad(i, ".parts", "missing required field (a list)")),
        };
        // adjacent model contents are one turn: their calls stay open together
        let joins = assistant && *model_last;
        *model_last = assistant;
        if assistant && !joins {
            open.clear();
        }
        let mut blocks = Vec::with_capacity(parts.len());
        for (j, p) in parts.iter().enumerate() {
            // the paths below are formatted only when an error is raised
            let Some(p) = p.as_obj() else {
                return Err(bad(i, &format!(".parts[{j}]"), "a part must be an object"));
            };
            let sig = get(p, "thought_signature", "thoughtSignature").cloned();
            let mut d = Map::new();
            if let Some(s) = &sig {
                d.push("thought_signature", s.clone());
            }
            if let Some(t) = p.str("text") {
                if p.get("thought") == Some(&Value::Bool(true)) {
                    let mut m = Map::with_capacity(4);
                    m.push("type", "thinking");
                    m.push("thinking", t);
                    m.push(
                        "signature",
                        sig.as_ref().and_then(Value::as_str).unwrap_or(""),
                    );
                    m.push(
                        "provider_data",
                        b.data(Map(vec![("part".into(), Value::Obj(p.clone()))])),
                    );
                    blocks.push(Value::Obj(m));
                } else {
                    blocks.push(with_data(b, text_block(t), d));
                }
            } else if let Some(fc) = get(p, "function_call", "functionCall") {
                let at = || format!(".parts[{j}].function_call");
                let fc = need_obj(fc, i, at, "must be an object")?;
                let name = need_str(fc, "name", i, at)?;
                let id = match fc.str("id") {
                    Some(id) => id.to_string(),
                    None => {
                        d.push("no_id", true);
                        format!("gemini_call_{i}_{j}")
                    }
                };
                open.push((name.to_string(), id.clone()));
                // Args that are not an object are kept as given, as any tool
                // input is (`anthropic/tool-use-input-object` repairs nothing).
                let args = match fc.get("args") {
                    None | Some(Value::Null) => Value::Obj(Map::new()),
                    Some(a) => a.clone(),
                };
                let blk = obj([
                    ("type", "tool_use".into()),
                    ("id", id.into()),
                    ("name", name.into()),
                    ("input", args),
                ]);
                blocks.push(with_data(b, blk, d));
            } else if let Some(fr) = get(p, "function_response", "functionResponse") {
                let at = || format!(".parts[{j}].function_response");
                let fr = need_obj(fr, i, at, "must be an object")?;
                let name = need_str(fr, "name", i, at)?;
                let id = match fr.str("id") {
                    Some(id) => {
                        open.retain(|(_, o)| o != id);
                        id.to_string()
                    }
                    None => {
                        d.push("no_id", true);
                        match open.iter().position(|(n, _)| n == name) {
                            Some(k) => open.remove(k).1,
                            None => format!("gemini_call_{i}_{j}"),
                        }
                    }
                };
                let response = fr
                    .get("response")
                    .cloned()
                    .unwrap_or(Value::Obj(Map::new()));
                let text = match &response {
                    Value::Obj(r) if r.len() == 1 && r.str("output").is_some() => {
                        r.str("output").unwrap_or("").to_string()
                    }
                    other => other.to_json(),
                };
                d.push("response", response);
                let extra = fr.without(&["id", "name", "response"]);
                if !extra.is_empty() {
                    d.push("extra", Value::Obj(extra));
                }
                let blk = obj([
                    ("type", "tool_result".into()),
                    ("tool_use_id", id.into()),
                    ("content", text.into()),
                ]);
                blocks.push(with_data(b, blk, d));
            } else if let Some(inl) = get(p, "inline_data", "inlineData").and_then(Value::as_obj) {
                let media = get(inl, "mime_type", "mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("application/octet-stream");
                let data = match inl.get("data") {
                    Some(Value::Str(s)) => s.to_string(),
                    Some(Value::Bytes(x)) => value::base64_encode(x),
                    _ => {
                        return Err(bad(
                            i,
                            &format!(".parts[{j}].inline_data.data"),
                            "missing required field (base64 text)",
                        ))
                    }
                };
                let kind = if media.starts_with("image/") {
                    "image"
                } else {
                    "document"
                };
                blocks.push(with_data(b, media_block(kind, media, &data), d));
            } else {
                blocks.push(b.part(Value::Obj(p.clone())));
            }
        }
        if joins {
            if let Some(Value::Obj(r)) = b.out.last_mut() {
                if let Some(Value::Obj(m)) = r.get_mut("message") {
                    if let Some(Value::Arr(content)) = m.get_mut("content") {
                        content.extend(blocks);
                        continue;
                    }
                }
            }
        }
        b.message(assistant, Value::Arr(blocks), None);
    }
    Ok(())
}
