//! OpenAI Responses API `input` item rules.

use crate::providers::Provider;
use crate::validate::{Ctx, Hit, Msg, Rule};
use ahash::AHashSet;

pub static RULES: &[Rule] = &[
    Rule {
        id: "openai-responses/invalid-role",
        text: "Invalid value: '{x}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
        repair: "none: from_provider refuses a message with another role (InvalidRecordError naming it); to_openai_responses writes only these roles",
        check: invalid_role,
    },
    Rule {
        id: "openai-responses/reasoning-without-following",
        text: "Item '{x}' of type 'reasoning' was provided without its required following item.",
        repair: "to_openai_responses drops the item id of a replayed function_call that has no reasoning item in its response (the call is then the caller's)",
        check: reasoning_without_following,
    },
    Rule {
        id: "openai-responses/function-call-without-reasoning",
        text: "Item '{x}' of type 'function_call' was provided without its required 'reasoning' item.",
        repair: "to_openai_responses drops the item id of a replayed function_call that has no reasoning item in its response (the call is then the caller's)",
        check: call_without_reasoning,
    },
    Rule {
        id: "openai-responses/function-call-output-without-call",
        text: "No tool call found for function call output with call_id {x}.",
        repair: "SPEC §4 step 6 (tool pairing) removes results with no call before them",
        check: output_without_call,
    },
    Rule {
        id: "openai-responses/function-call-without-output",
        text: "No tool output found for function call {x}.",
        repair: "SPEC §4 step 6 (tool pairing) inserts a missing result for each unanswered call",
        check: call_without_output,
    },
    Rule {
        id: "openai-responses/duplicate-item-id",
        text: "Duplicate item found with id {x}. Remove duplicate items from your input and try again.",
        repair: "SPEC §4 step 5 (assistant clean-up) removes repeated calls; to_openai_responses drops an item id seen before",
        check: duplicate_item_id,
    },
    Rule {
        id: "openai-responses/client-only-item",
        text: "Invalid value: '{x}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning', and the other input item types.",
        repair: "from_provider and to_openai_responses never send an item that is not a Responses input item type (a client's own, such as Codex's ghost_snapshot), counted client_only_dropped",
        check: client_only_item,
    },
    Rule {
        id: "openai-responses/function-name-pattern",
        text: "Invalid '{p}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        check: function_name_pattern,
    },
    Rule {
        id: "openai-responses/compaction-trigger-last",
        text: "The 'compaction_trigger' item must be the final input item.",
        repair: "to_openai_responses moves a `compaction_trigger` item to the end of the input (one is kept), counted as `compaction_trigger_moved`",
        check: compaction_trigger_last,
    },
];

fn compaction_trigger_last(c: &Ctx, out: &mut Vec<Hit>) {
    let n = c.msgs.len();
    for (k, m) in c.msgs.iter().enumerate() {
        if k + 1 < n && m.raw.type_() == Some("compaction_trigger") {
            out.push(Hit::at(m, "", "compaction_trigger"));
        }
    }
}

fn function_name_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, t) in c.tool_list().iter().enumerate() {
        if matches!(t.type_(), Some("function") | Some("custom")) {
            let name = t.str_at("name").unwrap_or("");
            if !Provider::OpenAIResponses.tool_name_ok(name) {
                out.push(Hit::param(format!("tools[{k}].name"), format!("{name:?}")));
            }
        }
    }
    for m in &c.msgs {
        if item_type(m) == "function_call" {
            let name = m.raw.str_at("name").unwrap_or("");
            if !Provider::OpenAIResponses.tool_name_ok(name) {
                out.push(Hit::at(m, ".name", format!("{name:?}")));
            }
        }
    }
}

/// An item's type (`message` when it has only a role, as the API reads it).
fn item_type<'v>(m: &Msg<'v, '_>) -> &'v str {
    m.raw
        .type_()
        .unwrap_or(if m.role.is_some() { "message" } else { "" })
}

/// Items the model produced (parts of a response), as opposed to the caller's input.
fn is_output(m: &Msg) -> bool {
    is_output_item(item_type(m), m.role)
}

/// Whether an item of type `t` (and `role`, for messages) is one a response
/// produced: its messages, reasoning and calls, not the caller's outputs. The
/// Responses writer drops ids by the same reading.
pub fn is_output_item(t: &str, role: Option<&str>) -> bool {
    match t {
        "message" => role == Some("assistant"),
        "function_call_output"
        | "custom_tool_call_output"
        | "computer_call_output"
        | "local_shell_call_output"
        | "mcp_approval_response"
        | "item_reference" => false,
        t => t.ends_with("_call") || t == "reasoning",
    }
}

fn invalid_role(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if item_type(m) == "message"
            && !matches!(m.role, Some("user" | "assistant" | "system" | "developer"))
        {
            out.push(Hit::at(m, ".role", m.role.unwrap_or("")));
        }
    }
}

fn client_only_item(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        let t = item_type(m);
        if !t.is_empty() && !crate::providers::input_items::is_api_input_item(t) {
            out.push(Hit::at(m, ".type", t));
        }
    }
}

fn id_of<'v>(m: &Msg<'v, '_>) -> &'v str {
    m.raw.str_at("id").unwrap_or("")
}

fn reasoning_without_following(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, m) in c.msgs.iter().enumerate() {
        if item_type(m) != "reasoning" {
            continue;
        }
        let ok = c
            .msgs
            .get(k + 1)
            .is_some_and(|n| is_output(n) && item_type(n) != "reasoning");
        if !ok {
            out.push(Hit::at(m, "", id_of(m)));
        }
    }
}

fn call_without_reasoning(c: &Ctx, out: &mut Vec<Hit>) {
    // Only detectable when the history shows reasoning was used.
    if !c.msgs.iter().any(|m| item_type(m) == "reasoning") {
        return;
    }
    // A function_call with an item id (`fc_…`, i.e. replayed from a
    // response) needs a reasoning item before it in its turn: since the last
    // input that is not a call's output (clients put each output right after
    // its call, so one response's items may sit between outputs).
    let mut reasoned = false;
    for m in &c.msgs {
        if !is_output(m) {
            if item_type(m) != "function_call_output" {
                reasoned = false;
            }
            continue;
        }
        match item_type(m) {
            "reasoning" => reasoned = true,
            "function_call" if !reasoned && m.raw.str_at("id").is_some() => {
                out.push(Hit::at(m, "", id_of(m)))
            }
            _ => {}
        }
    }
}

fn output_without_call(c: &Ctx, out: &mut Vec<Hit>) {
    let mut calls = AHashSet::new();
    for m in &c.msgs {
        match item_type(m) {
            "function_call" => {
                if let Some(id) = m.raw.str_at("call_id") {
                    calls.insert(id);
                }
            }
            "function_call_output" => {
                let id = m.raw.str_at("call_id").unwrap_or("");
                if !calls.contains(id) {
                    out.push(Hit::at(m, ".call_id", id));
                }
            }
            _ => {}
        }
    }
}

fn call_without_output(c: &Ctx, out: &mut Vec<Hit>) {
    let answered: AHashSet<&str> = c
        .msgs
        .iter()
        .filter(|m| item_type(m) == "function_call_output")
        .filter_map(|m| m.raw.str_at("call_id"))
        .collect();
    for m in &c.msgs {
        if item_type(m) == "function_call" {
            let id = m.raw.str_at("call_id").unwrap_or("");
            if !answered.contains(id) {
                out.push(Hit::at(m, ".call_id", id));
            }
        }
    }
}

fn duplicate_item_id(c: &Ctx, out: &mut Vec<Hit>) {
    let mut seen = AHashSet::new();
    for m in &c.msgs {
        if let Some(id) = m.raw.str_at("id") {
            if !seen.insert(id) {
                out.push(Hit::at(m, ".id", id));
            }
        }
    }
}
