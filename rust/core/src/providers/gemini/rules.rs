//! Gemini `contents` rules (camelCase and snake_case keys alike, as the SDK takes both).

use crate::json::value::Value;
use crate::providers::provider::Provider;
use crate::steps::Steps;
use crate::validate::engine::{Ctx, Hit, Msg, Rule};

pub static RULES: &[Rule] = &[
    Rule {
        id: "gemini/invalid-role",
        text: "Please use a valid role: user, model.",
        repair: "none: from_provider refuses a content with another role (InvalidRecordError naming it; a content without a role is the user's, as the API reads it); to_gemini writes assistant turns as `model` and system text as `system_instruction`",
        steps: Steps::NONE,
        check: invalid_role,
    },
    Rule {
        id: "gemini/empty-parts",
        text: "contents.parts must not be empty.",
        repair: "SPEC §4 step 7 (empty user content becomes `(no content)`) and step 9 (an empty non-final assistant gets `(no content)`)",
        steps: Steps::HYGIENE.with(Steps::EMPTY),
        check: empty_parts,
    },
    Rule {
        id: "gemini/function-call-placement",
        text: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        repair: "SPEC §4 step 10 (user first) and step 4 (fold): the turn before an assistant turn is a user turn; to_gemini merges adjacent model turns (adjacent contents of one role are one turn: the API joins them)",
        steps: Steps::FOLD.with(Steps::USER_FIRST),
        check: call_placement,
    },
    Rule {
        id: "gemini/function-response-placement",
        text: "Please ensure that function response turn comes immediately after a function call turn.",
        repair: "SPEC §4 step 6 (tool pairing) removes results whose previous turn made no call",
        steps: Steps::PAIRING,
        check: response_placement,
    },
    Rule {
        id: "gemini/function-response-count",
        text: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
        repair: "SPEC §4 step 6 (tool pairing) answers every call exactly once in the next turn (adjacent contents of one role are one turn: calls in two model contents are answered by one user content)",
        steps: Steps::PAIRING,
        check: response_count,
    },
    Rule {
        id: "gemini/thought-signature",
        text: "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `{x}`",
        repair: "none: checked with a model that requires signatures (Gemini 3 on); a signature cannot be made up; to_gemini keeps the signatures it is given byte-identical and in place",
        steps: Steps::NONE,
        check: thought_signature,
    },
    Rule {
        id: "gemini/function-name",
        text: "Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64. ({x})",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        steps: Steps::NONE,
        check: function_name,
    },
];

fn calls(m: &Msg) -> usize {
    m.blocks
        .iter()
        .filter(|p| p.get2("functionCall", "function_call").is_some())
        .count()
}

fn responses(m: &Msg) -> usize {
    m.blocks
        .iter()
        .filter(|p| p.get2("functionResponse", "function_response").is_some())
        .count()
}

fn invalid_role(c: &Ctx, out: &mut Vec<Hit>) {
    // A content may leave the role out (the API reads it as the user's).
    for m in &c.msgs {
        let ok = match m.role {
            Some(r) => matches!(r, "user" | "model"),
            None => !m.raw.has("role"),
        };
        if !ok {
            out.push(Hit::at(m, ".role", m.role.unwrap_or("")));
        }
    }
}

fn empty_parts(c: &Ctx, out: &mut Vec<Hit>) {
    c.empty_messages(".parts", out);
}

/// Adjacent contents of one role, read as one turn: the API joins them (a
/// model turn may come as several contents, each with its own function
/// call, answered by one user content that holds every response).
struct Turn<'c, 'v> {
    role: &'v str,
    msgs: &'c [Msg<'v>],
    calls: usize,
    responses: usize,
}

impl<'c, 'v> Turn<'c, 'v> {
    /// The first content of the turn that holds a part `has` counts.
    fn first(&self, has: fn(&Msg) -> usize) -> &'c Msg<'v> {
        self.msgs
            .iter()
            .find(|m| has(m) > 0)
            .unwrap_or(&self.msgs[0])
    }
}

fn turns<'c, 'v>(c: &'c Ctx<'v>) -> Vec<Turn<'c, 'v>> {
    let mut out: Vec<Turn> = Vec::new();
    let mut start = 0;
    while start < c.msgs.len() {
        // a content without a role is the user's (a single-turn request)
        let role = c.msgs[start].role.unwrap_or("user");
        let mut end = start + 1;
        while end < c.msgs.len() && c.msgs[end].role.unwrap_or("user") == role {
            end += 1;
        }
        let msgs = &c.msgs[start..end];
        out.push(Turn {
            role,
            msgs,
            calls: msgs.iter().map(calls).sum(),
            responses: msgs.iter().map(responses).sum(),
        });
        start = end;
    }
    out
}

fn call_placement(c: &Ctx, out: &mut Vec<Hit>) {
    let turns = turns(c);
    for (k, t) in turns.iter().enumerate() {
        if t.calls > 0 && !(k > 0 && turns[k - 1].role == "user") {
            out.push(Hit::at(t.first(calls), "", ""));
        }
    }
}

fn response_placement(c: &Ctx, out: &mut Vec<Hit>) {
    let turns = turns(c);
    for (k, t) in turns.iter().enumerate() {
        if t.responses > 0 && !(k > 0 && turns[k - 1].calls > 0) {
            out.push(Hit::at(t.first(responses), "", ""));
        }
    }
}

fn response_count(c: &Ctx, out: &mut Vec<Hit>) {
    let turns = turns(c);
    for (k, t) in turns.iter().enumerate() {
        if t.calls == 0 {
            continue;
        }
        // The last turn may be a call awaiting its response.
        if let Some(next) = turns.get(k + 1) {
            if next.responses != t.calls {
                out.push(Hit::at(&next.msgs[0], ".parts", ""));
            }
        }
    }
}

fn signed(p: &Value) -> bool {
    p.get2("thoughtSignature", "thought_signature")
        .is_some_and(|s| s.kind() == crate::json::value::Kind::String)
}

fn thought_signature(c: &Ctx, out: &mut Vec<Hit>) {
    // Required from Gemini 3 on (docs/PROVIDERS.md, Models): a model
    // before it takes calls without signatures, and without a model the rule
    // does not fire.
    if c.facts.thought_signatures != Some(true) {
        return;
    }
    // The current turn starts after the last user content that is not only
    // function responses; in it, every model step's first function call must be signed.
    let start = c
        .msgs
        .iter()
        .rposition(|m| m.role == Some("user") && responses(m) < m.blocks.len().max(1))
        .map_or(0, |k| k + 1);
    for m in &c.msgs[start..] {
        if m.role != Some("model") {
            continue;
        }
        let first = m
            .blocks
            .iter()
            .enumerate()
            .find(|(_, p)| p.get2("functionCall", "function_call").is_some());
        if let Some((j, p)) = first {
            if !signed(p) {
                let name = p
                    .get2("functionCall", "function_call")
                    .and_then(|f| f.str_at("name"))
                    .unwrap_or("");
                out.push(Hit::at(m, format_args!(".parts[{j}]"), name));
            }
        }
    }
}

fn function_name(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, t) in c.tool_list().iter().enumerate() {
        for (j, f) in t
            .get2("functionDeclarations", "function_declarations")
            .and_then(Value::as_arr)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let name = f.str_at("name").unwrap_or("");
            if !Provider::Gemini.tool_name_ok(name) {
                out.push(Hit::param(
                    format!("tools[{k}].function_declarations[{j}].name"),
                    format!("{name:?}"),
                ));
            }
        }
    }
}
