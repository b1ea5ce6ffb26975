//! Records → the request shape.

use super::*;
use crate::error::Result;
use crate::providers::write_each::write_each;

fn part_text(t: SmolStr) -> Value {
    obj([("type", "text".into()), ("text", Value::Str(t))])
}

/// Chat Completions' content parts.
pub(crate) const PARTS: PartShape = PartShape {
    provider: ME,
    text: part_text,
    image: |url, data| {
        let mut iu = Map::new();
        iu.push("url", url);
        if let Some(d) = data {
            iu.extend_new(data_fields(d));
        }
        obj([("type", "image_url".into()), ("image_url", Value::Obj(iu))])
    },
    file: |url, name| {
        obj([
            ("type", "file".into()),
            (
                "file",
                obj([("file_data", url.into()), ("filename", name.into())]),
            ),
        ])
    },
};

fn with_extras(mut m: Map, data: Option<&Map>) -> Value {
    if let Some(d) = data.filter(|d| d.str("provider") == Some(ME.name())) {
        m.extend_new(data_fields(d));
    }
    Value::Obj(m)
}

/// A plain list of chat messages, system/developer messages first.
pub(crate) fn to(recs: &[Rec<'_>], system: &[SystemPrompt], counts: &mut Counts) -> Result<Value> {
    let first = system.iter().map(|s| system_message(s, counts)).collect();
    Ok(Value::Arr(write_each(
        recs, ID_LIMIT, counts, first, record,
    )))
}

/// A system or developer message.
fn system_message(s: &SystemPrompt, counts: &mut Counts) -> Value {
    let content = system_content(&s.content, part_text, counts);
    obj([("role", s.openai_role().into()), ("content", content)])
}

/// One record's messages: an assistant message, or a user message and the
/// tool messages of its results, or a system message between turns.
fn record(r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>) {
    if let Some(s) = &r.prompt {
        out.push(system_message(s, counts));
        return;
    }
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
            let id = ids.get(own_id(b, "tool_use_id", ME), counts);
            let content = match b.get("content") {
                Some(Value::Str(s)) => Value::Str(s.clone()),
                Some(Value::Arr(a)) => {
                    let mut texts = Vec::new();
                    for x in a.iter().filter_map(Value::as_obj) {
                        if x.str("type") == Some("text") {
                            texts.push(part_text(x.text("text").clone()));
                        } else if let Some(p) = user_part_out(x, &PARTS, counts) {
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
        } else if let Some(p) = user_part_out(b, &PARTS, counts) {
            parts.push(p);
        }
    }
    moved.extend(parts);
    if moved.is_empty() && out.len() == before {
        count(counts, "empty_filled");
        moved.push(part_text("(no content)".into()));
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
                let id = ids.get(own_id(b, "id", ME), counts);
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
        // an empty string as it came (a record no step filled)
        0 if r.blocks.is_empty() && r.text.is_some_and(|t| t.is_empty()) => Value::from(""),
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
