//! Anthropic-shaped blocks as every provider's reader makes them and every
//! writer reads them: small constructors, `provider_data` access, media
//! sources, and which blocks a target has no shape for ([`dropped_by`]).

use super::bedrock::media as bedrock;
use super::value::{self, Map, SmolStr, Value};
use super::{count, Counts, Provider};
use std::borrow::Cow;

/// `{"type": "text", "text": t}`.
pub fn text_block(t: impl Into<SmolStr>) -> Value {
    let mut m = Map::with_capacity(2);
    m.push("type", "text");
    m.push("text", Value::Str(t.into()));
    Value::Obj(m)
}

/// An object of the given fields, in order (one allocation: the array's size is known).
pub fn obj<const N: usize>(fields: [(&'static str, Value); N]) -> Value {
    Value::Obj(Map(fields
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect()))
}

/// The provider a block's `provider_data` (or a `provider_part`) came from.
pub fn origin(b: &Map) -> Option<&str> {
    if b.str("type") == Some("provider_part") {
        return b.str("provider");
    }
    b.get("provider_data")
        .and_then(Value::as_obj)
        .and_then(|d| d.str("provider"))
}

/// A block's `provider_data` when it came from `p`.
pub fn data_from(b: &Map, p: Provider) -> Option<&Map> {
    b.get("provider_data")
        .and_then(Value::as_obj)
        .filter(|d| d.str("provider") == Some(p.name()))
}

/// The provider's own fields kept in a `provider_data` ([`Builder::data`]).
pub fn data_fields(d: &Map) -> impl Iterator<Item = (&str, &Value)> {
    d.0.iter().filter(|(k, _)| k != "provider").map(|(k, v)| {
        let k: &str = k;
        (k.strip_prefix('~').unwrap_or(k), v)
    })
}

/// How one of OpenAI's request formats spells a user content part: Chat
/// Completions and Responses differ in the names and nesting only.
pub struct PartShape {
    pub provider: Provider,
    /// A text part.
    pub text: fn(SmolStr) -> Value,
    /// An image part from its URL (a `data:` URL for base64) and the block's
    /// own `provider_data`.
    pub image: fn(String, Option<&Map>) -> Value,
    /// A file part from its `data:` URL and file name.
    pub file: fn(String, &str) -> Value,
}

/// A user-side block as an OpenAI content part (`None`: the target has no
/// shape for it, counted).
pub fn user_part_out(b: &Map, shape: &PartShape, counts: &mut Counts) -> Option<Value> {
    let mut drop = |k: &'static str| {
        count(counts, k);
        None
    };
    let me = shape.provider;
    match b.str("type").unwrap_or("") {
        "text" => Some((shape.text)(b.text("text").clone())),
        "image" => {
            let url = match source(b) {
                Source::Base64 { media, data } => data_url(media, data),
                Source::Url(u) => u.to_string(),
                _ => return drop("parts_dropped"),
            };
            Some((shape.image)(url, data_from(b, me)))
        }
        "document" => match source(b) {
            Source::Base64 { media, data } => Some((shape.file)(
                data_url(media, data),
                b.str("title").unwrap_or("document.pdf"),
            )),
            Source::Text { data, .. } if !crate::model::is_blank(data) => {
                Some((shape.text)(data.into()))
            }
            Source::Text { .. } => drop("blank_text_dropped"),
            _ => drop("parts_dropped"),
        },
        "provider_part" if origin(b) == Some(me.name()) && b.get("part").is_some() => {
            b.get("part").cloned()
        }
        "thinking" | "redacted_thinking" => drop("thinking_dropped"),
        _ => drop("parts_dropped"),
    }
}

/// A system prompt's content with its text blocks as the target's text parts;
/// other blocks (Anthropic's `tool_reference`, ...) have no shape in the
/// target and are dropped, counted as `parts_dropped`.
pub fn system_content(content: &Value, text: fn(SmolStr) -> Value, counts: &mut Counts) -> Value {
    match content {
        Value::Arr(a) => {
            let mut out = Vec::with_capacity(a.len());
            for b in a.iter().filter_map(Value::as_obj) {
                match b.str("text").filter(|_| b.str("type") == Some("text")) {
                    Some(_) => out.push(text(b.text("text").clone())),
                    None => count(counts, "parts_dropped"),
                }
            }
            Value::Arr(out)
        }
        other => other.clone(),
    }
}

/// Appends a `{"role": role, key: items}` turn (Bedrock's and Gemini's
/// shape): an empty one filled with `(no content)` (`empty_filled`), merged
/// into the previous turn when that has the same role (`messages_merged`).
pub fn push_turn(
    out: &mut Vec<Value>,
    role: &'static str,
    key: &'static str,
    mut items: Vec<Value>,
    counts: &mut Counts,
) {
    if items.is_empty() {
        count(counts, "empty_filled");
        items.push(obj([("text", "(no content)".into())]));
    }
    if let Some(Value::Obj(prev)) = out.last_mut() {
        if prev.str("role") == Some(role) {
            if let Some(Value::Arr(p)) = prev.get_mut(key) {
                count(counts, "messages_merged");
                p.extend(items);
                return;
            }
        }
    }
    let mut m = Map::with_capacity(2);
    m.push("role", role);
    m.push(key, Value::Arr(items));
    out.push(Value::Obj(m));
}

/// A string content as blocks (none when empty).
pub fn string_blocks(s: &SmolStr) -> Vec<Value> {
    if s.is_empty() {
        Vec::new()
    } else {
        vec![text_block(s.clone())]
    }
}

/// `data:<media>;base64,<data>`.
pub fn data_url(media: &str, data: &str) -> String {
    format!("data:{media};base64,{data}")
}

/// `(media type, base64 data)` of a `data:` URL.
pub fn parse_data_url(u: &str) -> Option<(&str, &str)> {
    let rest = u.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media = head.strip_suffix(";base64")?;
    Some((media, data))
}

/// An Anthropic `image`/`document` block for a base64 payload or URL.
pub fn media_block(kind: &str, media: &str, data: &str) -> Value {
    obj([
        ("type", kind.into()),
        (
            "source",
            obj([
                ("type", "base64".into()),
                ("media_type", media.into()),
                ("data", data.into()),
            ]),
        ),
    ])
}

pub fn url_block(kind: &str, url: &str) -> Value {
    obj([
        ("type", kind.into()),
        ("source", obj([("type", "url".into()), ("url", url.into())])),
    ])
}

/// What an `image`/`document` block's `source` holds.
pub enum Source<'v> {
    Base64 { media: &'v str, data: &'v str },
    Url(&'v str),
    Text { media: &'v str, data: &'v str },
    Other,
}

pub fn source(b: &Map) -> Source<'_> {
    let Some(s) = b.get("source").and_then(Value::as_obj) else {
        return Source::Other;
    };
    match s.str("type") {
        Some("base64") => Source::Base64 {
            media: s.str("media_type").unwrap_or("application/octet-stream"),
            data: s.str("data").unwrap_or(""),
        },
        Some("url") => s.str("url").map_or(Source::Other, Source::Url),
        Some("text") => Source::Text {
            media: s.str("media_type").unwrap_or("text/plain"),
            data: s.str("data").unwrap_or(""),
        },
        _ => Source::Other,
    }
}

/// Texts of a tool_result's content (string, or its text blocks joined by "\n").
pub fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Arr(a)) => a
            .iter()
            .filter_map(Value::as_obj)
            .filter(|b| b.str("type") == Some("text"))
            .filter_map(|b| b.str("text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A target's rule for signed thinking: kept when it came from a provider
/// whose signatures the target verifies.
pub fn thinking_ok(b: &Map, target: Provider) -> bool {
    let o = origin(b);
    match target {
        Provider::Anthropic | Provider::Bedrock => {
            matches!(o, None | Some("anthropic") | Some("bedrock"))
        }
        _ => o == Some(target.name()),
    }
}

/// A JSON object text, for tool call `arguments`.
pub fn args_json(input: Option<&Value>) -> String {
    match input {
        Some(v) => v.to_json(),
        None => "{}".to_string(),
    }
}

/// `arguments` text → a tool_use `input` (an object), or `None` when it is not
/// a JSON object (the caller keeps the text).
pub fn parse_args(s: &str) -> Option<Value> {
    match Value::from_json(s) {
        Ok(v @ Value::Obj(_)) => Some(v),
        _ => None,
    }
}

/// Why `target` has no shape for a block (`None`: it carries it). The output
/// adapters drop such blocks; [`prune`] drops them before normalization.
pub fn dropped_by(target: Provider, b: &Map, assistant: bool) -> Option<&'static str> {
    let t = b.str("type").unwrap_or("");
    let b64_ok = |d: &str| value::base64_decode(d).is_some();
    if target != Provider::Anthropic {
        // what a role cannot hold in the target
        let misplaced = match (assistant, t) {
            (true, "tool_result") | (false, "tool_use") => true,
            (true, "image" | "document") => {
                matches!(target, Provider::OpenAIChat | Provider::OpenAIResponses)
            }
            (false, "thinking" | "redacted_thinking") => true,
            _ => false,
        };
        if misplaced {
            return Some(if t.contains("thinking") {
                "thinking_dropped"
            } else {
                "parts_dropped"
            });
        }
    }
    if t == "compaction" && b.get("content").is_none_or(Value::is_null) {
        // a failed compaction: nothing to echo
        return Some("compaction_dropped");
    }
    match t {
        "text" | "tool_use" | "tool_result" => None,
        "thinking" | "redacted_thinking" => {
            let ok = thinking_ok(b, target)
                && match target {
                    Provider::Anthropic | Provider::Bedrock => true,
                    Provider::OpenAIResponses | Provider::Gemini => {
                        t == "thinking" && data_from(b, target).is_some()
                    }
                    Provider::OpenAIChat => false,
                };
            (!ok).then_some("thinking_dropped")
        }
        "provider_part" => (origin(b) != Some(target.name())).then_some("parts_dropped"),
        "image" | "document" if target == Provider::Anthropic => None,
        "image" | "document" => match (source(b), target) {
            (Source::Base64 { data, .. }, Provider::Gemini | Provider::Bedrock)
                if !b64_ok(data) =>
            {
                Some("invalid_media_dropped")
            }
            (Source::Base64 { media, .. }, Provider::Bedrock) => {
                let table: &[(&str, &str)] = if t == "image" {
                    &bedrock::IMAGE
                } else {
                    &bedrock::DOCUMENT
                };
                (!table.iter().any(|(_, m)| *m == media)).then_some("parts_dropped")
            }
            (Source::Base64 { .. }, _) => None,
            (Source::Text { data, .. }, _) if model_blank(data) => Some("blank_text_dropped"),
            (Source::Text { .. }, _) => (t != "document").then_some("parts_dropped"),
            (Source::Url(_), Provider::Bedrock) => Some("parts_dropped"),
            (Source::Url(_), _) => {
                (t == "document" && target != Provider::Gemini).then_some("parts_dropped")
            }
            (Source::Other, _) => Some("parts_dropped"),
        },
        _ => (target != Provider::Anthropic).then_some("parts_dropped"),
    }
}

fn model_blank(s: &str) -> bool {
    crate::model::is_blank(s)
}

/// Drops the blocks `target` has no shape for (counted by reason), once
/// the server tools' blocks are text where the target needs them
/// ([`super::server_tools::as_text`], the caller's first step).
/// Dropping can leave what normalize_for_api repairs (an assistant with
/// nothing but thinking, trailing whitespace now final, an empty user
/// record), so the caller normalizes the pruned records again.
pub fn prune(target: Provider, records: &mut [Value], counts: &mut Counts) {
    for v in records.iter_mut() {
        let Value::Obj(r) = v else { continue };
        let assistant = r.str("type") == Some("assistant");
        let Some(Value::Obj(msg)) = r.get_mut("message") else {
            continue;
        };
        if let Some(Value::Arr(blocks)) = msg.get_mut("content") {
            blocks.retain(
                |b| match b.as_obj().and_then(|b| dropped_by(target, b, assistant)) {
                    Some(why) => {
                        count(counts, why);
                        false
                    }
                    None => true,
                },
            );
        }
    }
}
