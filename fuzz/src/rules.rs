//! The `rules` target: histories built from the fuzz bytes out of the block
//! and item types the provider rules are about (thinking, server tool pairs
//! and lone results, compaction and fallback blocks, `cache_control`), written
//! for every provider; the output must break no rule of its target that
//! msgnorm repairs (docs/RULES.md), and the stateless Responses replay must
//! hold no reasoning without `encrypted_content`. The same bytes also make a
//! Responses input of replay items (reasoning with and without
//! `encrypted_content`, messages and calls with server ids, shell, apply_patch
//! and custom tool calls and outputs, MCP approvals, item references, image
//! calls): converted to Responses with and without `store`, the output breaks
//! no rule msgnorm repairs, the stateless ones included.
//!
//! Each execution checks one of those six: the first byte picks a provider
//! for the history (0-4) or the Responses replay items (5), the rest are the
//! blocks or items, at most [`MAX_BLOCKS`] of them. Every check still runs in
//! full; an execution no longer writes and validates one long history six
//! ways (up to 512 blocks for five providers and 256 items: about 60
//! executions a second under libFuzzer, too slow to explore), and libFuzzer
//! reaches each check through the inputs whose coverage is its own.

use crate::to_provider;
use msgnorm_core::providers::{self, openai_responses::stateless::stateless, Provider, Value};
use msgnorm_core::validate::{self as rules_, parse_items, validate_json, Params, Violation};
use msgnorm_core::{ApiOptions, Report};

/// The most blocks (of a history) or items (of a Responses input) one input
/// makes: the rules are about neighbouring blocks, records and pairs, which
/// a few dozen blocks hold in every arrangement; a longer input only costs
/// time.
pub const MAX_BLOCKS: usize = 64;

/// Records from the bytes: each byte adds one block (its low four bits pick
/// the kind, bit 4 puts `cache_control` on it, bit 7 starts a new record).
pub fn records(data: &[u8]) -> Vec<Value> {
    let mut out: Vec<(bool, Vec<String>)> = Vec::new();
    let (mut tool, mut server) = (0usize, 0usize);
    for (k, &b) in data.iter().enumerate().take(MAX_BLOCKS) {
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

/// Responses input items from the bytes: each byte one item (its low four
/// bits pick the kind, bit 4 gives it a server-side id where it may have one).
pub fn responses_items(data: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    for (k, &b) in data.iter().enumerate().take(MAX_BLOCKS) {
        let id = |prefix: &str| {
            if b & 16 != 0 {
                format!(r#","id":"{prefix}_{k}""#)
            } else {
                String::new()
            }
        };
        let prev = k.saturating_sub(1);
        let text = match b & 15 {
            0 => format!(r#"{{"type":"message","role":"user","content":"q{k}"}}"#),
            1 => format!(r#"{{"type":"reasoning","id":"rs_{k}","summary":[]}}"#),
            2 => format!(
                r#"{{"type":"reasoning","id":"rs_{k}","summary":[],"encrypted_content":"gA{k}"}}"#
            ),
            3 => format!(
                r#"{{"type":"message","role":"assistant"{},"content":[{{"type":"output_text","text":"a{k}","annotations":[]}}]}}"#,
                id("msg")
            ),
            4 => format!(
                r#"{{"type":"function_call"{},"call_id":"c{k}","name":"f","arguments":"{{}}"}}"#,
                id("fc")
            ),
            5 => format!(r#"{{"type":"function_call_output","call_id":"c{prev}","output":"r"}}"#),
            6 => format!(
                r#"{{"type":"shell_call"{},"call_id":"c{k}","action":{{"commands":["ls"]}}}}"#,
                id("sh")
            ),
            7 => format!(
                r#"{{"type":"shell_call_output","call_id":"c{prev}","output":[{{"stdout":"","stderr":"","outcome":{{"type":"exit","exit_code":0}}}}]}}"#
            ),
            8 => format!(
                r#"{{"type":"apply_patch_call"{},"call_id":"c{k}","status":"completed","operation":{{"type":"delete_file","path":"a"}}}}"#,
                id("apc")
            ),
            9 => format!(
                r#"{{"type":"apply_patch_call_output","call_id":"c{prev}","status":"completed"}}"#
            ),
            10 => format!(
                r#"{{"type":"custom_tool_call"{},"call_id":"c{k}","name":"g","input":"x"}}"#,
                id("ctc")
            ),
            11 => {
                format!(r#"{{"type":"custom_tool_call_output","call_id":"c{prev}","output":"r"}}"#)
            }
            12 => format!(
                r#"{{"type":"mcp_approval_request","id":"mcpr_{k}","name":"m","arguments":"{{}}","server_label":"s"}}"#
            ),
            13 => format!(
                r#"{{"type":"mcp_approval_response","approval_request_id":"mcpr_{prev}","approve":true}}"#
            ),
            14 => format!(r#"{{"type":"item_reference","id":"msg_{prev}"}}"#),
            _ => format!(
                r#"{{"type":"image_generation_call","id":"ig_{k}","result":"iV","status":"completed"}}"#
            ),
        };
        out.push(Value::from_json(&text).expect("the items are JSON"));
    }
    out
}

/// Repaired rules the (stateless, with `store=false`) Responses input breaks.
fn responses_violations(out: &Value, stateless: bool) -> Vec<Violation> {
    let text = out.to_json();
    let items = parse_items(&text).expect("to_provider's output is JSON");
    let params = Params {
        stateless,
        ..Params::default()
    };
    rules_::validate(Provider::OpenAIResponses, &items, params)
        .into_iter()
        .filter(|v| !v.repair.starts_with("none"))
        .collect()
}

fn responses(data: &[u8]) {
    let items = responses_items(data);
    let p = Provider::OpenAIResponses;
    let Ok(recs) = providers::from_provider(p, &items, None) else {
        return; // (every item is well-formed: from_provider reads them all)
    };
    let mut counts = providers::Counts::new();
    let out = to_provider(p, recs.clone(), false, &ApiOptions::default(), &mut counts)
        .expect("to_provider takes from_provider's records");
    let found = responses_violations(&out, false);
    assert!(found.is_empty(), "{found:?}\n{}", out.to_json());
    // a stateless request continues no stored response: its leading outputs go too
    let t = providers::Target {
        store: false,
        ..providers::Target::new(p)
    };
    let opts = ApiOptions::default();
    let replay = providers::request(
        &t,
        recs,
        false,
        None,
        Some(&opts),
        &mut Report::default(),
        &mut counts,
    )
    .expect("to_provider takes from_provider's records");
    let found = responses_violations(&replay, true);
    assert!(
        found.is_empty(),
        "store=False: {found:?}\n{}",
        replay.to_json()
    );
}

/// The check of the first byte's choice (see the module's doc).
pub fn rules(data: &[u8]) {
    let (choice, rest) = match data.split_first() {
        Some((&b, rest)) => (usize::from(b) % (Provider::ALL.len() + 1), rest),
        None => (0, data),
    };
    match Provider::ALL.get(choice) {
        Some(&p) => history(p, &records(rest)),
        None => responses(rest),
    }
}

/// `to_provider(p)` of the records breaks no rule of `p` that msgnorm
/// repairs; for Responses, the stateless replay holds no bare reasoning.
fn history(p: Provider, recs: &[Value]) {
    let mut counts = providers::Counts::new();
    let out = to_provider(p, recs.to_vec(), false, &ApiOptions::default(), &mut counts)
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
            .any(|m| m.str("type") == Some("reasoning") && m.str("encrypted_content").is_none());
        assert!(
            !bare,
            "store=False replay holds bare reasoning: {}",
            replay.to_json()
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kind_and_pair_of_kinds() {
        // every choice (the first byte) with every block or item and pair of them
        for choice in 0u8..6 {
            for a in 0u8..=255 {
                super::rules(&[choice, a]);
                for b in 0u8..16 {
                    super::rules(&[choice, a, b, a ^ 0x80, b | 0x10, 4, 1, 5, 6, 2]);
                }
            }
        }
    }
}
