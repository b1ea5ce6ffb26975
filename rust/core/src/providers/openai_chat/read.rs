//! Messages → records.

use super::*;
use crate::error::Result;

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
    let at = || format!(".content[{j}]");
    let o = need_obj(p, i, at, "a content part must be an object")?;
    Ok(match o.str("type") {
        Some("text") => text_block(need_str(o, "text", i, at)?),
        Some("image_url") => {
            let Some(iu) = o.get("image_url").and_then(Value::as_obj) else {
                return Err(bad(
                    i,
                    &format!(".content[{j}].image_url"),
                    "missing required field (an object)",
                ));
            };
            let url = need_str(iu, "url", i, || format!("{}.image_url", at()))?;
            b.image(url, iu.without(&["url"]))
        }
        Some("file") => {
            let f = o.get("file").and_then(Value::as_obj);
            let doc = f.and_then(|f| Builder::document(f.str("file_data"), f.str("filename")));
            doc.unwrap_or_else(|| b.part(p.clone()))
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

pub(crate) fn from(b: &mut Builder, c: &mut Carry, at: usize, messages: &[Value]) -> Result<()> {
    let (legacy, reused) = (&mut c.legacy, &mut c.reused);
    for item in message_objects(at, messages) {
        let (i, m) = item?;
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
                            let at = || format!(".content[{j}]");
                            let o = need_obj(p, i, at, "a content part must be an object")?;
                            blocks.push(match o.str("type") {
                                Some("text") => text_block(need_str(o, "text", i, at)?),
                                _ => b.part(p.clone()),
                            });
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
                            let mut blk = tool_call(b, i, j, c)?;
                            if let Value::Obj(o) = &mut blk {
                                if let Some(new) = o.str("id").and_then(|id| reused.call(id)) {
                                    reuse_id(b, o, "id", new);
                                }
                            }
                            blocks.push(blk);
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
                // an empty reply stays an empty string (SPEC §4 step 4 reads it as no block)
                let empty = blocks.is_empty() && matches!(m.get("content"), Some(Value::Str(_)));
                b.message(
                    true,
                    if empty {
                        Value::from("")
                    } else {
                        Value::Arr(blocks)
                    },
                    extras(m, &["role", "content", "tool_calls", "function_call"]),
                );
            }
            Some("tool") => {
                let Some(id) = m
                    .str("tool_call_id")
                    .map_or_else(|| swe_agent_id(i, m), |s| Ok(Some(s)))?
                else {
                    return Err(bad(i, ".tool_call_id", "missing required field (a string)"));
                };
                let content =
                    text_of_parts(i, "content", m.get("content").unwrap_or(&Value::Null))?;
                let mut r = obj([
                    ("type", "tool_result".into()),
                    ("tool_use_id", id.into()),
                    ("content", content),
                ]);
                if let (Some(new), Value::Obj(o)) = (reused.result(id), &mut r) {
                    reuse_id(b, o, "tool_use_id", new);
                }
                b.message(
                    false,
                    Value::Arr(vec![r]),
                    extras(m, &["role", "content", "tool_call_id", "tool_call_ids"]),
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

/// SWE-agent trajectories name a tool message's call in a `tool_call_ids`
/// list: one id is that id; more are refused (a tool message answers one call).
fn swe_agent_id(i: usize, m: &Map) -> Result<Option<&str>> {
    let Some(Value::Arr(ids)) = m.get("tool_call_ids") else {
        return Ok(None);
    };
    match ids.as_slice() {
        [one] => match one.as_str() {
            Some(id) => Ok(Some(id)),
            None => Err(bad(i, ".tool_call_ids[0]", "must be a string")),
        },
        _ => Err(bad(
            i,
            ".tool_call_ids",
            format!(
                "a tool message answers one call: SWE-agent's tool_call_ids list is read when it holds one id, not {}",
                ids.len()
            ),
        )),
    }
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
