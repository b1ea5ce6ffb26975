//! Messages → records.

use super::*;
use crate::error::{Error, Result};

fn b64(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Bytes(b) => Some(value::base64_encode(b)),
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

pub(crate) fn system_in(b: &mut Builder, s: &Value) -> Result<()> {
    let Value::Arr(items) = s else {
        return Err(Error::invalid(
            0,
            "system",
            format!("must be a list of system blocks, not {}", s.type_name()),
        ));
    };
    let mut blocks = Vec::with_capacity(items.len());
    for it in items {
        let Some(m) = it.as_obj() else {
            return Err(Error::invalid(
                0,
                "system",
                "a system block must be an object",
            ));
        };
        if let Some(t) = m.str("text") {
            blocks.push(text_block(t));
        } else if m.get("cachePoint").is_some() && cache_last(&mut blocks) {
        } else {
            blocks.push(b.part(it.clone()));
        }
    }
    b.system("system", Value::Arr(blocks));
    Ok(())
}

/// `blk` with the Bedrock block it was read from, which the Bedrock writer
/// writes back as given: base64 text stays text, and the block's other
/// fields (`citations`, `name`) stay. A block of bytes is not kept (records
/// hold no bytes): the writer makes bytes of its base64 again.
fn with_own(b: &Builder, mut blk: Value, own: &Value) -> Value {
    let bytes = |o: &Map| {
        o.get("source")
            .and_then(Value::as_obj)
            .and_then(|s| s.get("bytes"))
            .is_some_and(|x| matches!(x, Value::Bytes(_)))
    };
    let inner = own.as_obj().and_then(|o| {
        o.get("image")
            .or_else(|| o.get("document"))
            .and_then(Value::as_obj)
    });
    if inner.is_some_and(bytes) {
        return blk;
    }
    if let Value::Obj(o) = &mut blk {
        o.push(
            "provider_data",
            b.data(Map(vec![("block".into(), own.clone())])),
        );
    }
    blk
}

/// The ids of the server-side tool calls of an assistant message: a
/// `toolUse` whose `toolResult` the model wrote in the same message (Nova's
/// `nova_code_interpreter` and `nova_grounding` system tools).
fn server_ids(content: &[Value]) -> Vec<&str> {
    let results: Vec<&str> = content
        .iter()
        .filter_map(|c| block_id(c, "toolResult"))
        .collect();
    content
        .iter()
        .filter_map(|c| block_id(c, "toolUse"))
        .filter(|u| results.contains(u))
        .collect()
}

/// The `toolUseId` of a `toolUse` or `toolResult` block (`key`).
fn block_id<'v>(c: &'v Value, key: &str) -> Option<&'v str> {
    c.as_obj()
        .and_then(|o| o.get(key))
        .and_then(Value::as_obj)
        .and_then(|x| x.str("toolUseId"))
}

fn content_block(b: &Builder, i: usize, path: &str, v: &Value, out: &mut Vec<Value>) -> Result<()> {
    let Some(m) = v.as_obj() else {
        return Err(bad(i, path, "a content block must be an object"));
    };
    if let Some(t) = m.str("text") {
        out.push(text_block(t));
    } else if let Some(img) = m.get("image").and_then(Value::as_obj) {
        let fmt = img.str("format").unwrap_or("");
        let src = img.get("source").and_then(Value::as_obj);
        match (media_of(&IMAGE, fmt), b64(src.and_then(|s| s.get("bytes")))) {
            (Some(media), Some(data)) => {
                out.push(with_own(b, media_block("image", media, &data), v))
            }
            _ => out.push(b.part(v.clone())),
        }
    } else if let Some(doc) = m.get("document").and_then(Value::as_obj) {
        let fmt = doc.str("format").unwrap_or("txt");
        let src = doc.get("source").and_then(Value::as_obj);
        let mut blk = match (media_of(&DOCUMENT, fmt), src) {
            (Some(media), Some(s)) if s.get("bytes").is_some() => {
                media_block("document", media, &b64(s.get("bytes")).unwrap_or_default())
            }
            (Some(media), Some(s)) if s.str("text").is_some() => obj([
                ("type", "document".into()),
                (
                    "source",
                    obj([
                        ("type", "text".into()),
                        ("media_type", media.into()),
                        ("data", s.str("text").unwrap_or("").into()),
                    ]),
                ),
            ]),
            _ => {
                out.push(b.part(v.clone()));
                return Ok(());
            }
        };
        if let (Value::Obj(o), Some(name)) = (&mut blk, doc.str("name")) {
            o.push("title", name);
        }
        out.push(with_own(b, blk, v));
    } else if ["toolUse", "toolResult"].iter().any(|k| {
        m.get(k)
            .and_then(Value::as_obj)
            .is_some_and(|o| o.get("type").is_some())
    }) {
        // a system tool's use or result (Nova's code interpreter: `server_tool_use`,
        // `nova_code_interpreter_result`): the service ran it; kept as it is
        out.push(b.part(v.clone()));
    } else if let Some(tu) = m.get("toolUse").and_then(Value::as_obj) {
        let (Some(id), Some(name)) = (tu.str("toolUseId"), tu.str("name")) else {
            return Err(bad(
                i,
                &format!("{path}.toolUse"),
                "toolUseId and name are required strings",
            ));
        };
        out.push(obj([
            ("type", "tool_use".into()),
            ("id", id.into()),
            ("name", name.into()),
            (
                "input",
                tu.get("input").cloned().unwrap_or(Value::Obj(Map::new())),
            ),
        ]));
    } else if let Some(tr) = m.get("toolResult").and_then(Value::as_obj) {
        let id = need_str(tr, "toolUseId", i, || format!("{path}.toolResult"))?;
        let mut inner = Vec::new();
        if let Some(Value::Arr(c)) = tr.get("content") {
            for (k, x) in c.iter().enumerate() {
                let xp = format!("{path}.toolResult.content[{k}]");
                match x.as_obj().and_then(|o| o.get("json")) {
                    Some(j) => {
                        let mut t = text_block(j.to_json());
                        if let Value::Obj(o) = &mut t {
                            o.push(
                                "provider_data",
                                b.data(Map(vec![("json".into(), j.clone())])),
                            );
                        }
                        inner.push(t);
                    }
                    None => content_block(b, i, &xp, x, &mut inner)?,
                }
            }
        }
        let mut blk = Map::new();
        blk.push("type", "tool_result");
        blk.push("tool_use_id", id);
        blk.push("content", Value::Arr(inner));
        match tr.str("status") {
            Some("error") => blk.push("is_error", true),
            Some(s) => blk.push(
                "provider_data",
                b.data(Map(vec![("status".into(), s.into())])),
            ),
            None => {}
        }
        out.push(Value::Obj(blk));
    } else if let Some(rc) = m.get("reasoningContent").and_then(Value::as_obj) {
        if let Some(rt) = rc.get("reasoningText").and_then(Value::as_obj) {
            let mut blk = Map::new();
            blk.push("type", "thinking");
            blk.push("thinking", rt.str("text").unwrap_or(""));
            blk.push("signature", rt.str("signature").unwrap_or(""));
            out.push(Value::Obj(blk));
        } else if let Some(data) = b64(rc.get("redactedContent")) {
            out.push(obj([
                ("type", "redacted_thinking".into()),
                ("data", data.into()),
            ]));
        } else {
            out.push(b.part(v.clone()));
        }
    } else if m.get("cachePoint").is_some() && cache_last(out) {
    } else {
        out.push(b.part(v.clone()));
    }
    Ok(())
}

pub(crate) fn from(b: &mut Builder, at: usize, messages: &[Value]) -> Result<()> {
    for item in message_objects(at, messages) {
        let (i, m) = item?;
        let assistant = match m.str("role") {
            Some("user") => false,
            Some("assistant") => true,
            _ => return Err(bad(i, ".role", "must be 'user' or 'assistant'")),
        };
        let Some(Value::Arr(content)) = m.get("content") else {
            return Err(bad(
                i,
                ".content",
                "missing required field (a list of content blocks)",
            ));
        };
        let mut blocks = Vec::with_capacity(content.len());
        // a server-side call and its result stay as given (Bedrock only)
        let server = if assistant {
            server_ids(content)
        } else {
            Vec::new()
        };
        let is_server = |c: &Value| {
            ["toolUse", "toolResult"]
                .iter()
                .any(|k| block_id(c, k).is_some_and(|id| server.contains(&id)))
        };
        for (j, c) in content.iter().enumerate() {
            if !server.is_empty() && is_server(c) {
                blocks.push(b.part(c.clone()));
                continue;
            }
            content_block(b, i, &format!(".content[{j}]"), c, &mut blocks)?;
        }
        b.message(assistant, Value::Arr(blocks), None);
    }
    Ok(())
}
