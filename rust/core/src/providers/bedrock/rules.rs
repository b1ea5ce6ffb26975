//! Amazon Bedrock Converse `messages` rules (`toolConfig` passed as `tools`).

use crate::json::value::Value;
use crate::providers::provider::Provider;
use crate::steps::Steps;
use crate::validate::engine::{blank, Ctx, Hit, Msg, Rule};
use ahash::AHashSet;

pub static RULES: &[Rule] = &[
    Rule {
        id: "bedrock/invalid-role",
        text: "Value '{x}' at 'messages.{i}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]",
        repair: "none: from_provider refuses a message with another role (InvalidRecordError naming it); to_bedrock writes only user and assistant messages and puts system text in `system`",
        steps: Steps::NONE,
        check: invalid_role,
    },
    Rule {
        id: "bedrock/roles-alternate",
        text: "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
        repair: "SPEC §4 step 4 (fold) merges adjacent user records and joins streamed assistant records; to_bedrock merges adjacent assistant messages",
        steps: Steps::FOLD,
        check: roles_alternate,
    },
    Rule {
        id: "bedrock/empty-content",
        text: "The content field in the Message object at messages.{i} is empty. Add a ContentBlock object to the content field and try again.",
        repair: "SPEC §4 step 7 (empty user content becomes `(no content)`) and steps 8-9 (an empty assistant gets text)",
        steps: Steps::HYGIENE.with(Steps::FINAL).with(Steps::EMPTY),
        check: empty_content,
    },
    Rule {
        id: "bedrock/blank-text",
        text: "The text field in the ContentBlock object at messages.{i}.content.{x} is blank. Add text to the text field, and try again.",
        repair: "SPEC §4 step 7 (content hygiene) removes empty and whitespace-only text blocks (the API refuses an empty text, and a white-space text in a message with no other text; it accepts white space beside other text)",
        steps: Steps::HYGIENE.with(Steps::FINAL).with(Steps::EMPTY),
        check: blank_text,
    },
    Rule {
        id: "bedrock/tool-use-without-result",
        text: "Expected toolResult blocks at messages.{i}.content for the following Ids: {x}",
        repair: "SPEC §4 step 6 (tool pairing) inserts a missing result for each unanswered toolUse",
        steps: Steps::PAIRING,
        check: use_without_result,
    },
    Rule {
        id: "bedrock/tool-result-count",
        text: "The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse blocks of previous turn.",
        repair: "SPEC §4 step 6 (tool pairing) removes results for ids the previous turn did not use, and repeats",
        steps: Steps::PAIRING,
        check: result_count,
    },
    Rule {
        id: "bedrock/duplicate-tool-use-id",
                text: "The toolUse blocks at messages.{i}.content contain duplicate Ids: {x}",
        repair: "SPEC §4 step 5 (assistant clean-up) removes a repeated tool use id (the first wins)",
        steps: Steps::CLEANUP,
        check: duplicate_use_id,
    },
    Rule {
        id: "bedrock/duplicate-tool-result-id",
        text: "The toolResult blocks at messages.{i}.content contain duplicate Ids: {x}",
        repair: "SPEC §4 step 6 (tool pairing) removes repeated results for an id",
        steps: Steps::PAIRING,
        check: duplicate_result_id,
    },
    Rule {
        id: "bedrock/tool-use-id-pattern",
        text: "Value at 'messages.{i}.member.content.member.{x}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+ and have length between 1 and 64",
        repair: "to_bedrock maps ids to 1-64 characters of [a-zA-Z0-9_.:-], the same way for toolUse and toolResult (adapter rule: tool ids)",
        steps: Steps::NONE,
        check: id_pattern,
    },
    Rule {
        id: "bedrock/tool-config-required",
        text: "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
        repair: "none: pass the tools (`toolConfig`) with a history that holds tool blocks",
        steps: Steps::NONE,
        check: tool_config_required,
    },
    Rule {
        id: "bedrock/tool-name-pattern",
        text: "Value {x} at '{p}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+ and have length between 1 and 64",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        steps: Steps::NONE,
        check: name_pattern,
    },
];

fn invalid_role(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if !matches!(m.role, Some("user" | "assistant")) {
            out.push(Hit::at(m, ".role", m.role.unwrap_or("")));
        }
    }
}

fn roles_alternate(c: &Ctx, out: &mut Vec<Hit>) {
    for w in c.msgs.windows(2) {
        if w[0].role.is_some() && w[0].role == w[1].role {
            out.push(Hit::at(&w[1], ".role", ""));
        }
    }
}

fn empty_content(c: &Ctx, out: &mut Vec<Hit>) {
    c.empty_messages(".content", out);
}

fn blank_text(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        // White space beside other text is accepted (a "\n" between a
        // document and a question); an empty text, or a message whose text is
        // all white space, is not.
        let other_text = m
            .blocks
            .iter()
            .any(|b| b.str_at("text").is_some_and(|t| !blank(t)));
        for (j, b) in m.blocks.iter().enumerate() {
            let refused = |t: &str| t.is_empty() || (!other_text && blank(t));
            if b.str_at("text").is_some_and(refused) {
                out.push(Hit::at(
                    m,
                    format_args!(".content[{j}].text"),
                    j.to_string(),
                ));
            }
        }
    }
}

/// The client tool uses (results) of a message. A block with a `type` is a
/// system tool's (Nova's code interpreter: `server_tool_use` and its
/// `nova_code_interpreter_result`, both in the assistant message): the
/// service runs it and pairs it itself.
fn ids_of<'v>(m: &Msg<'v>, key: &str) -> Vec<(usize, &'v str)> {
    m.blocks
        .iter()
        .enumerate()
        .filter_map(|(j, b)| b.get(key).map(|u| (j, u)))
        .filter(|(_, u)| u.get("type").is_none())
        .map(|(j, u)| (j, u.str_at("toolUseId").unwrap_or("")))
        .collect()
}

/// The ids of the server-side tool calls of a message: a `toolUse` whose
/// `toolResult` is in the same message (Nova's `nova_code_interpreter` and
/// `nova_grounding` system tools write `type: "server_tool_use"` and their
/// result next to it). They take no part in the client's turn pairing.
fn server_ids<'v>(m: &Msg<'v>) -> AHashSet<&'v str> {
    let results: AHashSet<&str> = ids_of(m, "toolResult")
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    ids_of(m, "toolUse")
        .into_iter()
        .map(|(_, id)| id)
        .filter(|id| results.contains(id))
        .collect()
}

/// The client tool calls of a message (not the server-side ones).
fn client_uses<'v>(m: &Msg<'v>) -> Vec<(usize, &'v str)> {
    let server = server_ids(m);
    let mut used = ids_of(m, "toolUse");
    used.retain(|(_, id)| !server.contains(id));
    used
}

/// The client tool results of a message (not those of its own server calls).
fn client_results<'v>(m: &Msg<'v>) -> Vec<(usize, &'v str)> {
    let server = server_ids(m);
    let mut results = ids_of(m, "toolResult");
    results.retain(|(_, id)| !server.contains(id));
    results
}

fn use_without_result(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, m) in c.msgs.iter().enumerate() {
        let used = client_uses(m);
        if used.is_empty() {
            continue;
        }
        let Some(next) = c.msgs.get(k + 1) else {
            continue; // a last toolUse turn awaits its results
        };
        let answered: AHashSet<&str> = client_results(next).into_iter().map(|(_, id)| id).collect();
        let missing: Vec<&str> = used
            .into_iter()
            .map(|(_, id)| id)
            .filter(|id| !answered.contains(id))
            .collect();
        if !missing.is_empty() {
            out.push(Hit::at(next, ".content", missing.join(", ")));
        }
    }
}

fn result_count(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, m) in c.msgs.iter().enumerate() {
        let n = client_results(m).len();
        let before = k
            .checked_sub(1)
            .map_or(0, |p| client_uses(&c.msgs[p]).len());
        if n > before {
            out.push(Hit::at(m, ".content", ""));
        }
    }
}

fn duplicates(c: &Ctx, key: &str, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        let mut seen = AHashSet::new();
        for (j, id) in ids_of(m, key) {
            if !seen.insert(id) {
                out.push(Hit::at(
                    m,
                    format_args!(".content[{j}].{key}.toolUseId"),
                    id,
                ));
            }
        }
    }
}

fn duplicate_use_id(c: &Ctx, out: &mut Vec<Hit>) {
    duplicates(c, "toolUse", out);
}

fn duplicate_result_id(c: &Ctx, out: &mut Vec<Hit>) {
    duplicates(c, "toolResult", out);
}

fn id_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        for key in ["toolUse", "toolResult"] {
            for (j, id) in ids_of(m, key) {
                // the service model's pattern: [a-zA-Z0-9_.:-]+
                let ok = (1..=64).contains(&id.len())
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b));
                if !ok {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}].{key}.toolUseId"),
                        format!("{key}.toolUseId"),
                    ));
                }
            }
        }
    }
}

fn tool_config_required(c: &Ctx, out: &mut Vec<Hit>) {
    if c.tools.is_some_and(|t| !matches!(t, Value::Null)) {
        return;
    }
    for m in &c.msgs {
        for (j, b) in m.blocks.iter().enumerate() {
            if b.get("toolUse").is_some() || b.get("toolResult").is_some() {
                out.push(Hit::at(m, format_args!(".content[{j}]"), ""));
                return;
            }
        }
    }
}

fn name_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    c.declared_tool_names(Provider::Bedrock, "toolConfig.tools", "toolSpec", out);
    for m in &c.msgs {
        for (j, b) in m.blocks.iter().enumerate() {
            if let Some(tu) = b.get("toolUse") {
                let name = tu.str_at("name").unwrap_or("");
                if !Provider::Bedrock.tool_name_ok(name) {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}].toolUse.name"),
                        format!("{name:?}"),
                    ));
                }
            }
        }
    }
}
