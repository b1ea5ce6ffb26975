//! OpenAI Chat Completions `messages` rules.

use crate::json::value::Value;
use crate::providers::provider::Provider;
use crate::steps::Steps;
use crate::validate::engine::{Ctx, Hit, Rule};
use ahash::AHashSet;

pub static RULES: &[Rule] = &[
    Rule {
        id: "openai-chat/empty-messages",
        text: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        repair: "none: there is nothing to send",
        steps: Steps::NONE,
        check: empty_messages,
    },
    Rule {
        id: "openai-chat/invalid-role",
        text: "Invalid value: '{x}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        repair: "none: from_provider refuses a message with another role (InvalidRecordError naming it); to_openai_chat writes only these roles",
        steps: Steps::NONE,
        check: invalid_role,
    },
    Rule {
        id: "openai-chat/content-null",
        text: "Invalid value for 'content': expected a string, got null.",
        repair: "SPEC §4 steps 7 and 9 give empty content `(no content)`; to_openai_chat writes null content only on an assistant message with tool_calls",
        steps: Steps::HYGIENE.with(Steps::EMPTY),
        check: content_null,
    },
    Rule {
        id: "openai-chat/tool-calls-without-response",
        text: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {x}",
        repair: "SPEC §4 step 6 (tool pairing) inserts a missing result for each unanswered call; to_openai_chat writes results as tool messages right after their call",
        steps: Steps::PAIRING,
        check: calls_without_response,
    },
    Rule {
        id: "openai-chat/tool-without-tool-calls",
        text: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        repair: "SPEC §4 step 6 (tool pairing) removes results whose previous message has no call",
        steps: Steps::PAIRING,
        check: tool_without_calls,
    },
    Rule {
        id: "openai-chat/tool-call-id-not-found",
        text: "Invalid parameter: 'tool_call_id' of '{x}' not found in 'tool_calls' of previous message.",
        repair: "SPEC §4 step 6 (tool pairing) removes results for ids the previous call did not make",
        steps: Steps::PAIRING,
        check: tool_call_id_not_found,
    },
    Rule {
        id: "openai-chat/tool-call-id-missing",
        text: "Missing required parameter: 'messages[{i}].tool_call_id'.",
        repair: "none: from_provider refuses a tool message without its tool_call_id (InvalidRecordError naming it); to_openai_chat writes the id of the call on every tool message",
        steps: Steps::NONE,
        check: tool_call_id_missing,
    },
    Rule {
        id: "openai-chat/tool-call-id-length",
        text: "Invalid 'messages[{i}].tool_calls[].id': string too long. Expected a string with maximum length 40, but got a string with length {x} instead.",
        repair: "to_openai_chat maps longer ids to at most 40 characters, the same way for calls and results (adapter rule: tool ids)",
        steps: Steps::NONE,
        check: tool_call_id_length,
    },
    Rule {
        id: "openai-chat/duplicate-tool-response",
        text: "Invalid parameter: Duplicate value for 'tool_call_id' of {x} and messages[{i}].",
        repair: "SPEC §4 step 6 (tool pairing) removes repeated results for an id; an id reused by a later assistant message is a new call (from_provider gives it a unique id in the records, and to_openai_chat writes the original back)",
        steps: Steps::PAIRING,
        check: duplicate_call_id,
    },
    Rule {
        id: "openai-chat/function-name-pattern",
        text: "Invalid 'tools[].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'. ({x})",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        steps: Steps::NONE,
        check: function_name_pattern,
    },
];

fn empty_messages(c: &Ctx, out: &mut Vec<Hit>) {
    if c.len == 0 {
        out.push(Hit::param("messages", ""));
    }
}

fn invalid_role(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if !matches!(
            m.role,
            Some("system" | "developer" | "user" | "assistant" | "tool" | "function")
        ) {
            out.push(Hit::at(m, ".role", m.role.unwrap_or("")));
        }
    }
}

fn has_calls(v: &Value) -> bool {
    !v.list_at("tool_calls").is_empty()
}

fn content_null(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if matches!(m.raw.get("content"), None | Some(Value::Null)) {
            let allowed = m.role == Some("assistant")
                && (has_calls(m.raw)
                    || m.raw.has("function_call")
                    || m.raw.has("refusal")
                    || m.raw.has("audio"));
            if !allowed && m.role != Some("function") {
                out.push(Hit::at(m, ".content", ""));
            }
        }
    }
}

fn call_ids(v: &Value) -> impl Iterator<Item = (usize, &str)> {
    v.list_at("tool_calls")
        .iter()
        .enumerate()
        .map(|(j, c)| (j, c.str_at("id").unwrap_or("")))
}

fn calls_without_response(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, m) in c.msgs.iter().enumerate() {
        if m.role != Some("assistant") || !has_calls(m.raw) {
            continue;
        }
        let answered: AHashSet<&str> = c.msgs[k + 1..]
            .iter()
            .take_while(|n| n.role == Some("tool"))
            .filter_map(|n| n.raw.str_at("tool_call_id"))
            .collect();
        let missing: Vec<&str> = call_ids(m.raw)
            .map(|(_, id)| id)
            .filter(|id| !answered.contains(id))
            .collect();
        if !missing.is_empty() {
            out.push(Hit::at(m, ".tool_calls", missing.join(", ")));
        }
    }
}

/// For each message, the position (in `c.msgs`) of the assistant message with
/// tool_calls that the run of tool messages it sits in follows (one pass).
fn answered_calls(c: &Ctx) -> Vec<Option<usize>> {
    let mut last = None;
    c.msgs
        .iter()
        .enumerate()
        .map(|(k, m)| {
            if m.role == Some("tool") {
                last
            } else {
                last = (m.role == Some("assistant") && has_calls(m.raw)).then_some(k);
                None
            }
        })
        .collect()
}

fn tool_without_calls(c: &Ctx, out: &mut Vec<Hit>) {
    for (m, a) in c.msgs.iter().zip(answered_calls(c)) {
        if m.role == Some("tool") && a.is_none() {
            out.push(Hit::at(m, "", ""));
        }
    }
}

fn tool_call_id_not_found(c: &Ctx, out: &mut Vec<Hit>) {
    // The calls of the current assistant message, collected once per run.
    let mut calls: AHashSet<&str> = AHashSet::new();
    let mut run_of = None;
    for (m, a) in c.msgs.iter().zip(answered_calls(c)) {
        let (Some(a), Some(id)) = (a, m.raw.str_at("tool_call_id")) else {
            continue; // not a tool message, or another rule names it
        };
        if run_of != Some(a) {
            calls.clear();
            calls.extend(call_ids(c.msgs[a].raw).map(|(_, id)| id));
            run_of = Some(a);
        }
        if !calls.contains(id) {
            out.push(Hit::at(m, ".tool_call_id", id));
        }
    }
}

fn tool_call_id_missing(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if m.role == Some("tool") && m.raw.str_at("tool_call_id").is_none() {
            out.push(Hit::at(m, ".tool_call_id", ""));
        }
    }
}

fn tool_call_id_length(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        for (j, id) in call_ids(m.raw) {
            let n = id.chars().count();
            if n > 40 {
                out.push(Hit::at(
                    m,
                    format_args!(".tool_calls[{j}].id"),
                    n.to_string(),
                ));
            }
        }
    }
}

fn duplicate_call_id(c: &Ctx, out: &mut Vec<Hit>) {
    // Tool messages answering the same pending call: two in one run after
    // the same assistant message (the first one's index is named). An id
    // reused by a later assistant message is a new call, answered anew.
    let mut seen = ahash::AHashMap::new();
    let mut run_of = None;
    for (m, a) in c.msgs.iter().zip(answered_calls(c)) {
        if m.role != Some("tool") {
            continue;
        }
        if run_of != Some(a) {
            seen.clear();
            run_of = Some(a);
        }
        if let Some(id) = m.raw.str_at("tool_call_id") {
            if let Some(first) = seen.get(id) {
                out.push(Hit::at(
                    m,
                    ".tool_call_id",
                    format!("'{id}', in messages[{first}]"),
                ));
            } else {
                seen.insert(id, m.index);
            }
        }
    }
}

fn function_name_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    c.declared_tool_names(Provider::OpenAIChat, "tools", "function", out);
    for m in &c.msgs {
        for (j, call) in m.raw.list_at("tool_calls").iter().enumerate() {
            let name = call
                .get("function")
                .and_then(|f| f.str_at("name"))
                .unwrap_or("");
            if !Provider::OpenAIChat.tool_name_ok(name) {
                out.push(Hit::at(
                    m,
                    format_args!(".tool_calls[{j}].function.name"),
                    format!("{name:?}"),
                ));
            }
        }
    }
}
