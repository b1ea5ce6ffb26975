//! Records → the request shape.

use super::*;
use crate::error::Result;

/// A document `name`: Bedrock takes letters, digits, single spaces, hyphens,
/// parentheses and square brackets.
fn doc_name(title: Option<&str>, n: usize) -> String {
    let cleaned: String = title
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " -()[]".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if cleaned.is_empty() {
        format!("document-{n}")
    } else {
        cleaned
    }
}

/// The bytes of base64 `data` (`None`: not base64, the block is dropped).
fn bytes_of(data: &str) -> Option<Value> {
    value::base64_decode(data).map(Value::Bytes)
}

struct Out<'c> {
    ids: Ids,
    counts: &'c mut Counts,
    docs: usize,
    /// The message being written holds a text that is not blank: white space
    /// beside it is taken (blank text alone, or empty text, is refused).
    beside_text: bool,
}

impl Out<'_> {
    fn block(&mut self, b: &Map, out: &mut Vec<Value>) {
        let t = b.str("type").unwrap_or("");
        let before = out.len();
        let own = data_from(b, ME).and_then(|d| d.get("block"));
        match t {
            "image" | "document" if own.is_some() => {
                self.docs += usize::from(t == "document");
                out.extend(own.cloned());
            }
            "text" => {
                let text = b.str("text").unwrap_or("");
                if let Some(j) = data_from(b, ME).and_then(|d| d.get("json")) {
                    out.push(obj([("json", j.clone())]));
                } else if text.is_empty() || (is_blank_str(text) && !self.beside_text) {
                    count(self.counts, "blank_text_dropped");
                } else {
                    out.push(obj([("text", text.into())]));
                }
            }
            "image" => match source(b) {
                Source::Base64 { media, data } => {
                    match (format_of(&IMAGE, media), bytes_of(data)) {
                        (Some(fmt), Some(bytes)) => out.push(obj([(
                            "image",
                            obj([("format", fmt.into()), ("source", obj([("bytes", bytes)]))]),
                        )])),
                        (_, None) => count(self.counts, "invalid_media_dropped"),
                        (None, _) => count(self.counts, "parts_dropped"),
                    }
                }
                _ => count(self.counts, "parts_dropped"),
            },
            "document" => {
                self.docs += 1;
                let name = doc_name(b.str("title"), self.docs);
                let (fmt, src) = match source(b) {
                    Source::Base64 { media, data } => (
                        format_of(&DOCUMENT, media),
                        bytes_of(data).map(|x| obj([("bytes", x)])),
                    ),
                    Source::Text { media, data } => (
                        format_of(&DOCUMENT, media).or(Some("txt")),
                        Some(obj([("text", data.into())])),
                    ),
                    _ => (None, None),
                };
                match (fmt, src) {
                    (Some(fmt), Some(src)) => out.push(obj([(
                        "document",
                        obj([
                            ("format", fmt.into()),
                            ("name", name.into()),
                            ("source", src),
                        ]),
                    )])),
                    _ => count(self.counts, "parts_dropped"),
                }
            }
            "tool_use" => {
                let id = self.ids.get(b.str("id").unwrap_or(""), self.counts);
                out.push(obj([(
                    "toolUse",
                    obj([
                        ("toolUseId", id.into()),
                        (
                            "name",
                            tool_name(b.str("name").unwrap_or(""), ME, self.counts).into(),
                        ),
                        (
                            "input",
                            b.get("input").cloned().unwrap_or(Value::Obj(Map::new())),
                        ),
                    ]),
                )]));
            }
            "tool_result" => {
                let id = self
                    .ids
                    .get(b.str("tool_use_id").unwrap_or(""), self.counts);
                let mut inner = Vec::new();
                match b.get("content") {
                    Some(Value::Str(s)) if !is_blank_str(s) => {
                        inner.push(obj([("text", s.as_str().into())]))
                    }
                    Some(Value::Arr(a)) => {
                        for x in a.iter().filter_map(Value::as_obj) {
                            self.block(x, &mut inner);
                        }
                    }
                    _ => {}
                }
                let mut tr = Map::new();
                tr.push("toolUseId", id);
                tr.push("content", Value::Arr(inner));
                if b.get("is_error") == Some(&Value::Bool(true)) {
                    tr.push("status", "error");
                } else if let Some(s) = data_from(b, ME).and_then(|d| d.get("status")) {
                    tr.push("status", s.clone());
                }
                out.push(obj([("toolResult", Value::Obj(tr))]));
            }
            "thinking" if thinking_ok(b, ME) => {
                let mut rt = Map::new();
                rt.push("text", b.str("thinking").unwrap_or(""));
                if let Some(s) = b.str("signature").filter(|s| !s.is_empty()) {
                    rt.push("signature", s);
                }
                out.push(obj([(
                    "reasoningContent",
                    obj([("reasoningText", Value::Obj(rt))]),
                )]));
            }
            "redacted_thinking" if thinking_ok(b, ME) => {
                let data = b.str("data").unwrap_or("");
                out.push(obj([(
                    "reasoningContent",
                    obj([(
                        "redactedContent",
                        bytes_of(data).unwrap_or_else(|| Value::Bytes(data.as_bytes().to_vec())),
                    )]),
                )]));
            }
            "thinking" | "redacted_thinking" => count(self.counts, "thinking_dropped"),
            "provider_part" if origin(b) == Some(ME.name()) => out.extend(b.get("part").cloned()),
            _ => count(self.counts, "parts_dropped"),
        }
        if out.len() > before && b.get("cache_control").is_some() {
            out.push(obj([("cachePoint", obj([("type", "default".into())]))]));
        }
    }
}

fn is_blank_str(s: &str) -> bool {
    crate::model::is_blank(s)
}

/// `{"system"?, "messages"}`; adjacent messages of one role are merged.
pub(crate) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let mut o = Out {
        ids: Ids::new(recs, ID_LIMIT).with_dots(),
        counts,
        docs: 0,
        beside_text: false,
    };
    let mut messages: Vec<Value> = Vec::with_capacity(recs.len());
    for r in recs {
        let role = if r.assistant { "assistant" } else { "user" };
        let mut content = Vec::with_capacity(r.blocks.len().max(1));
        if let Some(t) = r.text {
            if !is_blank_str(t) {
                content.push(obj([("text", t.into())]));
            }
        }
        o.beside_text = r.blocks.iter().filter_map(Value::as_obj).any(|b| {
            b.str("type") == Some("text") && b.str("text").is_some_and(|t| !is_blank_str(t))
        });
        for b in r.blocks.iter().filter_map(Value::as_obj) {
            o.block(b, &mut content);
        }
        push_turn(&mut messages, role, "content", content, o.counts);
    }
    let mut out = Map::new();
    if !system.is_empty() {
        let mut sys = Vec::new();
        for s in system {
            match &s.content {
                // a blank prompt is dropped as a blank text block is (Bedrock
                // refuses blank text), so that convert(x, bedrock, bedrock) of the
                // output is the output again
                Value::Str(t) if is_blank_str(t) => count(o.counts, "blank_text_dropped"),
                Value::Str(t) => sys.push(obj([("text", t.as_str().into())])),
                Value::Arr(a) => {
                    for b in a.iter().filter_map(Value::as_obj) {
                        o.block(b, &mut sys);
                    }
                }
                _ => {}
            }
        }
        out.push("system", Value::Arr(sys));
    }
    out.push("messages", Value::Arr(messages));
    Ok(Value::Obj(out))
}
