//! Anthropic rules that depend on the model the request goes to
//! ([`super::models`]) or on its endpoint (Bedrock, Vertex): without a model
//! the tables know, none of them fires.

use crate::json::value::Value;
use crate::providers::facts::Endpoint;
use crate::validate::engine::{Ctx, Hit, Msg};

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

#[cfg(test)]
mod tests {
    use crate::providers::{models::lookup, Provider};
    use crate::validate::{parse_items, validate, Params};

    fn rules(json: &str, model: Option<&str>) -> Vec<&'static str> {
        let items = parse_items(json).unwrap();
        let params = Params {
            model: model.and_then(lookup),
            ..Params::default()
        };
        validate(Provider::Anthropic, &items, params)
            .into_iter()
            .map(|v| v.rule)
            .collect()
    }

    const PREFILL: &str = r#"[{"role":"user","content":"q"},{"role":"assistant","content":"The"}]"#;
    const SYSTEM: &str = r#"[{"role":"user","content":"q"},{"role":"system","content":"s"},{"role":"user","content":"q"}]"#;
    const URL: &str = r#"[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x.test/a.png"}}]}]"#;

    /// `(history, model, the rule it breaks)`: prefill and `system` messages
    /// by the model's facts, URL image sources by the endpoint its name denotes.
    #[test]
    fn rules_by_model() {
        for (history, model, want) in [
            (PREFILL, Some("claude-opus-4-6"), Some("assistant-prefill")),
            (PREFILL, Some("claude-sonnet-4-5-20250929"), None),
            (PREFILL, None, None),
            (SYSTEM, Some("claude-sonnet-4-5"), Some("system-message")),
            (SYSTEM, Some("claude-opus-4-8"), None),
            (SYSTEM, Some("claude-sonnet-5"), None),
            (SYSTEM, None, None),
            (
                URL,
                Some("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
                Some("url-source"),
            ),
            (URL, Some("claude-sonnet-4-5@20250929"), Some("url-source")),
            (URL, Some("claude-sonnet-4-5"), None),
            (URL, None, None),
        ] {
            let want: Vec<String> = want.map(|r| format!("anthropic/{r}")).into_iter().collect();
            assert_eq!(rules(history, model), want, "{history} {model:?}");
        }
    }

    #[test]
    fn records_name_their_model() {
        let records = r#"[{"type":"user","message":{"role":"user","content":"q"}},
            {"type":"assistant","message":{"role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"The"}]}}]"#;
        assert_eq!(rules(records, None), ["anthropic/assistant-prefill"]);
        assert!(rules(records, Some("claude-haiku-4-5")).is_empty());
    }
}
