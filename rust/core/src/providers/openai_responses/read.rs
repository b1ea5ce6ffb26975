//! Messages → records.

use super::*;
use crate::error::Result;
use crate::providers::input_items::is_api_input_item;

/// `{"type": "provider_part", "provider": ..., "item": item}`: a whole item.
fn item_part(item: &Value) -> Value {
    obj([
        ("type", "provider_part".into()),
        ("provider", ME.name().into()),
        ("item", item.clone()),
    ])
}

fn input_part(b: &Builder, i: usize, path: &str, p: &Value) -> Result<Value> {
    let o = need_obj(
        p,
        i,
        || path.to_string(),
        "a content part must be an object",
    )?;
    Ok(match o.str("type") {
        Some("input_text" | "output_text" | "text") => {
            text_block(need_str(o, "text", i, || path.to_string())?)
        }
        Some("input_image") => match o.str("image_url") {
            Some(url) => b.image(url, o.without(&["type", "image_url"])),
            None => b.part(p.clone()),
        },
        Some("input_file") => Builder::document(o.str("file_data"), o.str("filename"))
            .unwrap_or_else(|| b.part(p.clone())),
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
pub(crate) fn flush(b: &mut Builder, pending: &mut Vec<Value>) {
    if !pending.is_empty() {
        b.message(true, Value::Arr(std::mem::take(pending)), None);
    }
}

pub(crate) fn from(b: &mut Builder, c: &mut Carry, at: usize, items: &[Value]) -> Result<()> {
    let (pending, reused) = (&mut c.pending, &mut c.reused);
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
                if let Some(new) = reused.call(call_id) {
                    reuse_id(b, &mut blk, "id", new);
                }
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
                if let Some(new) = reused.result(call_id) {
                    reuse_id(b, &mut blk, "tool_use_id", new);
                }
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
            // a client's own item (Codex `ghost_snapshot`): never sent
            t if !is_api_input_item(t) => count(&mut b.counts, "client_only_dropped"),
            t if t.ends_with("_output") => {
                flush(b, pending);
                b.message(false, Value::Arr(vec![item_part(it)]), None);
            }
            _ => pending.push(item_part(it)),
        }
    }
    Ok(())
}
