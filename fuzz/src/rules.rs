//! The `rules` target: histories built from the fuzz bytes out of the block
//! and item types the provider rules are about (thinking, server tool pairs
//! and lone results, compaction and fallback blocks, `cache_control`), written
//! for every provider; the output must break no rule of its target that
//! msgnorm repairs (docs/RULES.md), and the stateless Responses replay must
//! hold no reasoning without `encrypted_content`.

use msgnorm_core::providers::{self, openai_responses::stateless::stateless, Provider, Value};
use msgnorm_core::validate::{validate_json, Violation};
use msgnorm_core::{ApiOptions, Report};

/// Records from the bytes: each byte adds one block (its low four bits pick
/// the kind, bit 4 puts `cache_control` on it, bit 7 starts a new record).
pub fn records(data: &[u8]) -> Vec<Value> {
    let mut out: Vec<(bool, Vec<String>)> = Vec::new();
    let (mut tool, mut server) = (0usize, 0usize);
    for (k, &b) in data.iter().enumerate().take(512) {
        let cc = if b & 16 != 0 {
            r#","cache_control":{"type":"ephemeral"}"#
        } else {
            ""
        };
        let (assistant, block) = match b & 15 {
            0 => (false, format!(r#"{{"type":"text","text":"q{k}"{cc}}}"#)),
            1 => (
                false,
                format!(
                    r#"{{"type":"tool_result","tool_use_id":"toolu_{tool}","content":"r"{cc}}}"#
                ),
            ),
            2 => (true, format!(r#"{{"type":"text","text":"a{k} "{cc}}}"#)),
            3 => (
                true,
                r#"{"type":"thinking","thinking":"hm","signature":"Sig"}"#.to_string(),
            ),
            4 => {
                tool += 1;
                (
                    true,
                    format!(
                        r#"{{"type":"tool_use","id":"toolu_{tool}","name":"f","input":{{}}{cc}}}"#
                    ),
                )
            }
            5 => {
                server += 1;
                (
                    true,
                    format!(
                        r#"{{"type":"server_tool_use","id":"srvtoolu_{server}","name":"web_search","input":{{"query":"x"}}}}"#
                    ),
                )
            }
            6 => (
                true,
                format!(
                    r#"{{"type":"web_search_tool_result","tool_use_id":"srvtoolu_{server}","content":[{{"type":"web_search_result","url":"https://e.x","title":"t{k}","encrypted_content":"E"}}]}}"#
                ),
            ),
            7 => (
                true,
                r#"{"type":"compaction","content":"summary"}"#.to_string(),
            ),
            8 => (true, r#"{"type":"compaction","content":null}"#.to_string()),
            9 => (true, r#"{"type":"fallback","model":"m"}"#.to_string()),
            10 => (
                true,
                r#"{"type":"redacted_thinking","data":"R"}"#.to_string(),
            ),
            11 => (
                true,
                format!(
                    r#"{{"type":"advisor_tool_result","tool_use_id":"srvtoolu_{}","content":{{"type":"advisor_result","text":"t"}}}}"#,
                    server + 1
                ),
            ),
            12 => (
                true,
                format!(
                    r#"{{"type":"mcp_tool_use","id":"mcptoolu_{k}","name":"m","server_name":"s","input":{{}}}}"#
                ),
            ),
            13 => (
                true,
                format!(
                    r#"{{"type":"mcp_tool_result","tool_use_id":"mcptoolu_{}","content":"ok"}}"#,
                    k.saturating_sub(1)
                ),
            ),
            14 => (false, r#"{"type":"text","text":"  "}"#.to_string()),
            _ => (
                true,
                r#"{"type":"thinking","thinking":"","signature":""}"#.to_string(),
            ),
        };
        match out.last_mut() {
            Some((a, blocks)) if *a == assistant && b & 128 == 0 => blocks.push(block),
            _ => out.push((assistant, vec![block])),
        }
    }
    out.iter()
        .enumerate()
        .map(|(i, (assistant, blocks))| {
            let role = if *assistant { "assistant" } else { "user" };
            let text = format!(
                r#"{{"type":"{role}","uuid":"u{i}","message":{{"id":"msg_{i}","role":"{role}","content":[{}]}}}}"#,
                blocks.join(",")
            );
            Value::from_json(&text).expect("the records are JSON")
        })
        .collect()
}

/// What `validate` names in `out` that msgnorm repairs (none is expected).
fn repaired_violations(p: Provider, out: &Value) -> Vec<Violation> {
    let messages = Value::Arr(providers::message_list(out).unwrap_or(&[]).to_vec());
    let system = out
        .as_obj()
        .and_then(|m| m.get("system").or_else(|| m.get("system_instruction")))
        .map(Value::to_json);
    validate_json(
        p,
        messages.to_json().as_bytes(),
        system.as_deref().map(str::as_bytes),
        None,
    )
    .expect("to_provider's output is JSON")
    .into_iter()
    .filter(|v| !v.repair.starts_with("none"))
    .collect()
}

pub fn rules(data: &[u8]) {
    let recs = records(data);
    for p in Provider::ALL {
        let mut counts = providers::Counts::new();
        let out = providers::normalize_to_provider(
            p,
            recs.clone(),
            false,
            None,
            Some(&ApiOptions::default()),
            &mut Report::default(),
            &mut counts,
        )
        .unwrap_or_else(|e| panic!("to_provider({}) refuses well-formed records: {e}", p.name()));
        let found = repaired_violations(p, &out);
        assert!(
            found.is_empty(),
            "to_provider({}) output breaks rules msgnorm repairs: {found:?}\n{}",
            p.name(),
            out.to_json()
        );
        if p == Provider::OpenAIResponses {
            let mut replay = out;
            stateless(&mut replay, &mut counts);
            let bare = providers::message_list(&replay)
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_obj)
                .any(|m| {
                    m.str("type") == Some("reasoning") && m.str("encrypted_content").is_none()
                });
            assert!(
                !bare,
                "store=False replay holds bare reasoning: {}",
                replay.to_json()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kind_and_pair_of_kinds() {
        for a in 0u8..=255 {
            super::rules(&[a]);
            for b in 0u8..16 {
                super::rules(&[a, b, a ^ 0x80, b | 0x10, 4, 1, 5, 6, 2]);
            }
        }
    }
}
