//! Anthropic rules that depend on the model the request goes to
//! ([`super::models`]) or on its endpoint (Bedrock, Vertex): without a model
//! the tables know, none of them fires.

use crate::providers::models::Endpoint;
use crate::validate::{Ctx, Hit, Msg, Value};

/// A final assistant message (a prefill), where the model refuses one.
pub fn assistant_prefill(c: &Ctx, out: &mut Vec<Hit>) {
    if c.facts.prefill != Some(false) {
        return;
    }
    if let Some(m) = c.msgs.last().filter(|m| m.role == Some("assistant")) {
        out.push(Hit::at(m, "", ""));
    }
}

/// A `system` message among the messages, where the model refuses one.
pub fn system_message(c: &Ctx, out: &mut Vec<Hit>) {
    if c.facts.system_messages != Some(false) {
        return;
    }
    for m in c.msgs.iter().filter(|m| m.role == Some("system")) {
        out.push(Hit::at(m, ".role", ""));
    }
}

/// An image or document with a `url` source, sent to Bedrock or Vertex AI
/// (the Claude API takes URL sources; the cloud endpoints take base64 only).
pub fn url_source(c: &Ctx, out: &mut Vec<Hit>) {
    let cloud = c
        .model
        .is_some_and(|m| matches!(m.endpoint, Endpoint::Bedrock | Endpoint::Vertex));
    if !cloud {
        return;
    }
    let url = |b: &Value| {
        matches!(b.type_(), Some("image" | "document"))
            && b.get("source").and_then(Value::type_) == Some("url")
    };
    for m in &c.msgs {
        for (j, b) in m.blocks.iter().enumerate() {
            if url(b) {
                out.push(Hit::at(m, format_args!(".content[{j}].source"), ""));
            }
            if m.may_have(Msg::TOOL_RESULT) && b.type_() == Some("tool_result") {
                for (k, inner) in b.list_at("content").iter().enumerate() {
                    if url(inner) {
                        out.push(Hit::at(
                            m,
                            format_args!(".content[{j}].content[{k}].source"),
                            "",
                        ));
                    }
                }
            }
        }
    }
}
