//! OpenAI Responses API `input` item rules.

use crate::providers::provider::Provider;
use crate::steps::Steps;
use crate::validate::engine::{Ctx, Hit, Msg, Rule};
use ahash::AHashSet;

pub static RULES: &[Rule] = &[
    Rule {
        id: "openai-responses/invalid-role",
        text: "Invalid value: '{x}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
        repair: "none: from_provider refuses a message with another role (InvalidRecordError naming it); to_openai_responses writes only these roles",
        steps: Steps::NONE,
        check: invalid_role,
    },
    Rule {
        id: "openai-responses/reasoning-without-following",
        text: "Item '{x}' of type 'reasoning' was provided without its required following item.",
        repair: "to_openai_responses drops a reasoning item with an id that no output item (a message, a call, an MCP request, an item type msgnorm does not know) or item_reference follows, counted as `reasoning_dropped`; a reasoning item without an id (a stateless replay of its `encrypted_content`) is not held to the rule, in any number",
        steps: Steps::NONE,
        check: reasoning_without_following,
    },
    Rule {
        id: "openai-responses/function-call-without-reasoning",
        text: "Item '{x}' of type 'function_call' was provided without its required 'reasoning' item.",
        repair: "checked with store=False only (with stored responses the server holds the reasoning); to_provider(..., store=False) sends no server-side id of a function_call (`item_ids_dropped`), and to_openai_responses drops the id of a replayed function_call with no reasoning item in its response (the call is then the caller's)",
        steps: Steps::NONE,
        check: call_without_reasoning,
    },
    Rule {
        id: "openai-responses/item-without-reasoning",
        text: "Item '{x}' of type '{t}' was provided without its required 'reasoning' item.",
        repair: "checked with store=False only (with stored responses the server holds the reasoning): to_provider(..., store=False) sends no server-side id of a message, custom tool, shell or apply_patch call (`item_ids_dropped`; an assistant message without its id is an input message)",
        steps: Steps::NONE,
        check: item_without_reasoning,
    },
    Rule {
        id: "openai-responses/required-id-item-without-reasoning",
        text: "Item '{x}' of type '{t}' was provided without its required 'reasoning' item.",
        repair: "none: checked with store=False only; the API requires the id of this item type (image_generation_call, mcp_call, mcp_approval_request, the hosted tools' calls), so keep its reasoning: request it with include=[\"reasoning.encrypted_content\"]",
        steps: Steps::NONE,
        check: required_id_item_without_reasoning,
    },
    Rule {
        id: "openai-responses/item-not-stored",
        text: "Item with id '{x}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        repair: "checked with store=False only: to_provider(..., store=False) drops a reasoning item without `encrypted_content` (`reasoning_dropped`) and an `item_reference` (`item_references_dropped`), which name an item only the server could hold",
        steps: Steps::NONE,
        check: item_not_stored,
    },
    Rule {
        id: "openai-responses/tool-call-without-output",
        text: "No tool output found for {t} call {x}.",
        repair: "to_openai_responses puts an output item right after an unanswered custom tool, shell or apply_patch call (an error output: `[Tool result missing due to internal error]`, a failed patch, exit code 1), counted as `item_outputs_inserted`",
        steps: Steps::NONE,
        check: tool_call_without_output,
    },
    Rule {
        id: "openai-responses/tool-output-without-call",
        text: "No tool call found for {t} call output with call_id {x}.",
        repair: "to_openai_responses removes a custom tool, shell or apply_patch call output with no call of its call_id before it, counted as `item_outputs_removed`",
        steps: Steps::NONE,
        check: tool_output_without_call,
    },
    Rule {
        id: "openai-responses/mcp-approval-response-without-request",
        text: "Item with id '{x}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        repair: "checked with store=False only (a stored response may hold the request): to_provider(..., store=False) drops an `mcp_approval_response` whose `mcp_approval_request` is not in the input, counted as `mcp_approvals_dropped`",
        steps: Steps::NONE,
        check: approval_without_request,
    },
    Rule {
        id: "openai-responses/function-call-output-without-call",
        text: "No tool call found for function call output with call_id {x}.",
        repair: "SPEC §4 step 6 (tool pairing) removes results with no call before them (outputs at the head of the input continue a stored response and are checked with store=False only)",
        steps: Steps::PAIRING,
        check: output_without_call,
    },
    Rule {
        id: "openai-responses/function-call-without-output",
        text: "No tool output found for function call {x}.",
        repair: "SPEC §4 step 6 (tool pairing) inserts a missing result for each unanswered call",
        steps: Steps::PAIRING,
        check: call_without_output,
    },
    Rule {
        id: "openai-responses/duplicate-item-id",
        text: "Duplicate item found with id {x}. Remove duplicate items from your input and try again.",
        repair: "SPEC §4 step 5 (assistant clean-up) removes repeated calls; to_openai_responses drops an item id seen before",
        steps: Steps::CLEANUP,
        check: duplicate_item_id,
    },
    Rule {
        id: "openai-responses/client-only-item",
        text: "Invalid value: '{x}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning', and the other input item types.",
        repair: "from_provider and to_openai_responses never send an item that is not a Responses input item type (a client's own, such as Codex's ghost_snapshot), counted client_only_dropped",
        steps: Steps::NONE,
        check: client_only_item,
    },
    Rule {
        id: "openai-responses/function-name-pattern",
        text: "Invalid '{p}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        steps: Steps::NONE,
        check: function_name_pattern,
    },
    Rule {
        id: "openai-responses/compaction-trigger-last",
        text: "The 'compaction_trigger' item must be the final input item.",
        repair: "to_openai_responses moves a `compaction_trigger` item to the end of the input (one is kept), counted as `compaction_trigger_moved`",
        steps: Steps::NONE,
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
fn item_type<'v>(m: &Msg<'v>) -> &'v str {
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
        t => {
            t.ends_with("_call")
                || matches!(t, "reasoning" | "mcp_approval_request" | "mcp_list_tools")
        }
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

fn id_of<'v>(m: &Msg<'v>) -> &'v str {
    m.raw.str_at("id").unwrap_or("")
}

/// Whether an item of type `t` (and `role`, for messages) is the caller's
/// input: a message of another role than `assistant`, a call's output, an
/// approval response.
pub fn is_input_item(t: &str, role: Option<&str>) -> bool {
    match t {
        "message" => role != Some("assistant"),
        "mcp_approval_response" => true,
        t => t.ends_with("_output"),
    }
}

fn reasoning_without_following(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, m) in c.msgs.iter().enumerate() {
        // The API names the item by its id: a reasoning item without one (a
        // stateless replay of `encrypted_content`) is not held to the rule.
        if item_type(m) != "reasoning" || id_of(m).is_empty() {
            continue;
        }
        // What follows is an item of the same response: any item but another
        // reasoning item and the caller's input (new item types such as
        // `program` included; an item_reference names one the server has).
        let ok = c.msgs.get(k + 1).is_some_and(|n| {
            let t = item_type(n);
            t != "reasoning" && !t.is_empty() && !is_input_item(t, n.role)
        });
        if !ok {
            out.push(Hit::at(m, "", id_of(m)));
        }
    }
}

fn call_without_reasoning(c: &Ctx, out: &mut Vec<Hit>) {
    unreasoned(c, |t| t == "function_call", |m| id_of(m).to_owned(), out);
}

/// Output items whose `id` the input may leave out (the stateless writer does).
pub const ID_OPTIONAL: &[&str] = &[
    "message",
    "function_call",
    "custom_tool_call",
    "shell_call",
    "apply_patch_call",
];

fn item_without_reasoning(c: &Ctx, out: &mut Vec<Hit>) {
    let opt = |t: &str| t != "function_call" && ID_OPTIONAL.contains(&t);
    unreasoned(c, opt, |m| format!("{}\n{}", item_type(m), id_of(m)), out);
}

fn required_id_item_without_reasoning(c: &Ctx, out: &mut Vec<Hit>) {
    // (a tool list is the server's, made before the model reasons)
    let req = |t: &str| !matches!(t, "reasoning" | "mcp_list_tools") && !ID_OPTIONAL.contains(&t);
    unreasoned(c, req, |m| format!("{}\n{}", item_type(m), id_of(m)), out);
}

/// With `store=false`: an output item of a kind `which` picks, replayed with
/// its item id (`fc_…`, `msg_…`: from a response), and no reasoning item
/// before it in its turn. A turn runs from the last input that is not a
/// call's output (clients put each output right after its call, so one
/// response's items may sit between outputs). Only detectable when the
/// history shows reasoning was used.
fn unreasoned(
    c: &Ctx,
    which: impl Fn(&str) -> bool,
    detail: impl Fn(&Msg) -> String,
    out: &mut Vec<Hit>,
) {
    if !c.stateless || !c.msgs.iter().any(|m| item_type(m) == "reasoning") {
        return;
    }
    let mut reasoned = false;
    for m in &c.msgs {
        let t = item_type(m);
        if !is_output(m) {
            if !t.ends_with("_output") {
                reasoned = false;
            }
            continue;
        }
        if t == "reasoning" {
            reasoned = true;
        } else if !reasoned && which(t) && m.raw.str_at("id").is_some() {
            out.push(Hit::at(m, "", detail(m)));
        }
    }
}

fn item_not_stored(c: &Ctx, out: &mut Vec<Hit>) {
    if !c.stateless {
        return;
    }
    for m in &c.msgs {
        let lookup = match item_type(m) {
            "reasoning" => !m.raw.has("encrypted_content"),
            "item_reference" => true,
            _ => false,
        };
        if lookup {
            out.push(Hit::at(m, ".id", id_of(m)));
        }
    }
}

/// Client-run calls answered by an output item of their own type: the call
/// type, its output type, and the words the API names them with.
pub const PAIRED_CALLS: &[(&str, &str, &str)] = &[
    ("custom_tool_call", "custom_tool_call_output", "custom tool"),
    ("shell_call", "shell_call_output", "shell"),
    ("apply_patch_call", "apply_patch_call_output", "apply patch"),
];

fn tool_call_without_output(c: &Ctx, out: &mut Vec<Hit>) {
    unpaired(c, out, true);
}

fn tool_output_without_call(c: &Ctx, out: &mut Vec<Hit>) {
    unpaired(c, out, false);
}

/// The paired items with no partner: with `calls`, each call whose output is
/// nowhere in the input; else each output no earlier call of its id answers.
fn unpaired(c: &Ctx, out: &mut Vec<Hit>, calls: bool) {
    let key = |m| (item_type(m), m.raw.str_at("call_id").unwrap_or(""));
    // (call type, call_id) of the partners found
    let mut partners = AHashSet::new();
    if calls {
        for m in &c.msgs {
            let (t, id) = key(m);
            if let Some(p) = PAIRED_CALLS.iter().find(|p| p.1 == t) {
                partners.insert((p.0, id));
            }
        }
    }
    for m in &c.msgs {
        let (t, id) = key(m);
        let Some(p) = PAIRED_CALLS
            .iter()
            .find(|p| t == if calls { p.0 } else { p.1 })
        else {
            if !calls && PAIRED_CALLS.iter().any(|p| p.0 == t) {
                partners.insert((t, id));
            }
            continue;
        };
        if !partners.contains(&(p.0, id)) {
            out.push(Hit::at(m, ".call_id", format!("{}\n{id}", p.2)));
        }
    }
}

fn approval_without_request(c: &Ctx, out: &mut Vec<Hit>) {
    if !c.stateless {
        return;
    }
    let mut requests = AHashSet::new();
    for m in &c.msgs {
        match item_type(m) {
            "mcp_approval_request" => {
                requests.insert(id_of(m));
            }
            "mcp_approval_response" => {
                let id = m.raw.str_at("approval_request_id").unwrap_or("");
                if !requests.contains(id) {
                    out.push(Hit::at(m, ".approval_request_id", id));
                }
            }
            _ => {}
        }
    }
}

fn output_without_call(c: &Ctx, out: &mut Vec<Hit>) {
    let mut calls = AHashSet::new();
    // Outputs at the head of the input, before any other item, answer the calls
    // of a stored response the request continues (`previous_response_id`,
    // `conversation`): a stateless request has none to continue.
    let mut head = !c.stateless;
    for m in &c.msgs {
        match item_type(m) {
            // a client tool search call is answered by a function_call_output
            "function_call" | "tool_search_call" => {
                head = false;
                if let Some(id) = m.raw.str_at("call_id") {
                    calls.insert(id);
                }
            }
            "function_call_output" => {
                let id = m.raw.str_at("call_id").unwrap_or("");
                if !head && !calls.contains(id) {
                    out.push(Hit::at(m, ".call_id", id));
                }
            }
            _ => head = false,
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
