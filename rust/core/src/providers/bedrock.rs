//! Amazon Bedrock Converse: `{"role", "content": [{"text"} | {"toolUse"} | ...]}`
//! messages and a separate `system` list. Binary payloads are bytes (as boto3
//! takes them); records hold them as base64.

use super::*;

const ME: Provider = Provider::Bedrock;
/// `toolUseId`: 1 to 64 characters of `[a-zA-Z0-9_-]`.
pub const ID_LIMIT: usize = 64;

pub(super) const IMAGE: [(&str, &str); 4] = [
    ("png", "image/png"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
];
pub(super) const DOCUMENT: [(&str, &str); 9] = [
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("html", "text/html"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
];

fn media_of(table: &[(&'static str, &'static str)], fmt: &str) -> Option<&'static str> {
    table.iter().find(|(f, _)| *f == fmt).map(|(_, m)| *m)
}
fn format_of(table: &[(&'static str, &'static str)], media: &str) -> Option<&'static str> {
    table.iter().find(|(_, m)| *m == media).map(|(f, _)| *f)
}

fn b64(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Bytes(b) => Some(value::base64_encode(b)),
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

fn ephemeral() -> Value {
    obj([("type", "ephemeral".into())])
}

/// Sets `cache_control` on the last block (a `cachePoint` follows it).
fn cache_last(blocks: &mut [Value]) -> bool {
    match blocks.last_mut() {
        Some(Value::Obj(m)) if m.str("type") != Some("provider_part") => {
            m.set("cache_control", ephemeral());
            true
        }
        _ => false,
    }
}

pub(super) fn system_in(b: &mut Builder, s: &Value) -> Result<()> {
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
            (Some(media), Some(data)) => out.push(media_block("image", media, &data)),
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
        out.push(blk);
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
        let Some(id) = tr.str("toolUseId") else {
            return Err(bad(
                i,
                &format!("{path}.toolResult.toolUseId"),
                "missing required field (a string)",
            ));
        };
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

pub(super) fn from(b: &mut Builder, at: usize, messages: &[Value]) -> Result<()> {
    for (i, m) in (at..).zip(messages) {
        let Some(m) = m.as_obj() else {
            return Err(bad(i, "", "a message must be an object"));
        };
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
        for (j, c) in content.iter().enumerate() {
            content_block(b, i, &format!(".content[{j}]"), c, &mut blocks)?;
        }
        b.message(assistant, Value::Arr(blocks), None);
    }
    Ok(())
}

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
}

impl Out<'_> {
    fn block(&mut self, b: &Map, out: &mut Vec<Value>) {
        let t = b.str("type").unwrap_or("");
        let before = out.len();
        match t {
            "text" => {
                let text = b.str("text").unwrap_or("");
                if let Some(j) = data_from(b, ME).and_then(|d| d.get("json")) {
                    out.push(obj([("json", j.clone())]));
                } else if is_blank_str(text) {
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
pub(super) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let mut o = Out {
        ids: Ids::new(recs, ID_LIMIT),
        counts,
        docs: 0,
    };
    let mut messages: Vec<Value> = Vec::with_capacity(recs.len());
    let mut last_role = "";
    for r in recs {
        let role = if r.assistant { "assistant" } else { "user" };
        let mut content = Vec::with_capacity(r.blocks.len().max(1));
        if let Some(t) = r.text {
            if !is_blank_str(t) {
                content.push(obj([("text", t.into())]));
            }
        }
        for b in r.blocks.iter().filter_map(Value::as_obj) {
            o.block(b, &mut content);
        }
        if content.is_empty() {
            count(o.counts, "empty_filled");
            content.push(obj([("text", "(no content)".into())]));
        }
        if role == last_role {
            if let Some(Value::Obj(prev)) = messages.last_mut() {
                if let Some(Value::Arr(c)) = prev.get_mut("content") {
                    count(o.counts, "messages_merged");
                    c.extend(content);
                    continue;
                }
            }
        }
        last_role = role;
        messages.push(obj([
            ("role", role.into()),
            ("content", Value::Arr(content)),
        ]));
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
