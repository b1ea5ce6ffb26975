//! Anthropic Messages API rules. Messages are `{"role", "content"}` objects;
//! msgnorm records (`{"type": "user"|"assistant", "message": {...}}`) are read
//! as `to_anthropic` would send them (other record types are not messages).

use crate::json::value::Value;
use crate::providers::provider::Provider;
use crate::providers::server_tools::is_result as is_server_result;
use crate::steps::Steps;
use crate::validate::engine::{blank, id_like, Ctx, Hit, Msg, Params, PathBase, Rule};
use ahash::AHashSet;

pub static RULES: &[Rule] = &[
    Rule {
        id: "anthropic/invalid-role",
        text: "messages.{i}.role: Input should be 'user', 'assistant' or 'system'",
        repair: "SPEC §4 returns only user and assistant records (step 3 drops system records, step 4 folds local commands into user turns); to_anthropic maps each to its role",
        steps: Steps::DROP.with(Steps::FOLD),
        check: invalid_role,
    },
    Rule {
        id: "anthropic/empty-content",
        text: "messages.{i}: all messages must have non-empty content except for the optional final assistant message",
        repair: "SPEC §4 step 7 (empty user content becomes `(no content)`) and step 9 (an empty non-final assistant gets `(no content)`)",
        steps: Steps::HYGIENE.with(Steps::EMPTY),
        check: empty_content,
    },
    Rule {
        id: "anthropic/tool-use-without-result",
        text: "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {x}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        repair: "SPEC §4 step 6 (tool pairing) inserts a `[Tool result missing due to internal error]` result for each unanswered id",
        steps: Steps::PAIRING,
        check: tool_use_without_result,
    },
    Rule {
        id: "anthropic/tool-result-not-first",
        text: "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {x}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        repair: "SPEC §4 step 4 (user merge) and step 6 (tool pairing) move `tool_result` blocks to the front of the user content",
        steps: Steps::FOLD.with(Steps::PAIRING),
        check: tool_result_not_first,
    },
    Rule {
        id: "anthropic/tool-result-without-use",
        text: "{p}: unexpected `tool_use_id` found in `tool_result` blocks: {x}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        repair: "SPEC §4 step 6 (tool pairing) removes `tool_result` blocks with no `tool_use` in the previous message",
        steps: Steps::PAIRING,
        check: tool_result_without_use,
    },
    Rule {
        id: "anthropic/tool-use-unique",
        text: "{p}: `tool_use` ids must be unique",
        repair: "SPEC §4 step 5 (assistant clean-up) removes a repeated `tool_use` id (the first wins); the rule holds within one message (an id reused by a later turn, once answered, is accepted)",
        steps: Steps::CLEANUP,
        check: tool_use_unique,
    },
    Rule {
        id: "anthropic/empty-text",
        text: "messages: text content blocks must be non-empty",
        repair: "SPEC §4 step 7 (content hygiene) removes empty and whitespace-only text blocks",
        steps: Steps::HYGIENE.with(Steps::EMPTY),
        check: empty_text,
    },
    Rule {
        id: "anthropic/whitespace-text",
        text: "messages: text content blocks must contain non-whitespace text",
        repair: "SPEC §4 step 7 (content hygiene) removes empty and whitespace-only text blocks (a blank user string becomes `(no content)`); not checked in an assistant message with server tool blocks (a web search replay, as the API wrote it)",
        steps: Steps::HYGIENE.with(Steps::EMPTY),
        check: whitespace_text,
    },
    Rule {
        id: "anthropic/final-assistant-trailing-whitespace",
        text: "messages: final assistant content cannot end with trailing whitespace",
        repair: "SPEC §4 step 8 (final assistant) strips trailing whitespace from the trailing text block",
        steps: Steps::FINAL,
        check: final_trailing_whitespace,
    },
    Rule {
        id: "anthropic/thinking-first",
        text: "messages.{i}.content.0.type: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking (found `{x}`)",
        repair: "none: signed thinking blocks are kept byte-identical and in place (SPEC §4 step 4 keeps the streamed block order); only the latest assistant message is checked (the API accepts earlier turns in any order), and server tool blocks may come before its first thinking block, as the API writes them",
        steps: Steps::NONE,
        check: thinking_first,
    },
    Rule {
        id: "anthropic/thinking-final-block",
        text: "messages.{i}: The final block in an assistant message cannot be `thinking`.",
        repair: "SPEC §4 step 8 (final assistant) drops the trailing thinking blocks of a final assistant record (a thinking block is no prefill), the blocks before them kept byte-identical",
        steps: Steps::FINAL,
        check: thinking_final_block,
    },
    Rule {
        id: "anthropic/tool-use-id-pattern",
        text: "{p}: String should match pattern '^[a-zA-Z0-9_-]+$'",
        repair: "none: ids pass through normalize_for_api unchanged (the other providers' output functions map ids)",
        steps: Steps::NONE,
        check: id_pattern,
    },
    Rule {
        id: "anthropic/tool-name-pattern",
        text: "{p}: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        repair: "to_provider maps an invalid name in the history to a valid one, the same for every call (`msgnorm.tool_name`); `msgnorm.rename_tools` maps the tool definitions the same way",
        steps: Steps::NONE,
        check: name_pattern,
    },
    Rule {
        id: "anthropic/tool-use-input-object",
        text: "{p}: Input should be a valid dictionary",
        repair: "none: tool inputs are kept as given",
        steps: Steps::NONE,
        check: input_object,
    },
    Rule {
        id: "anthropic/cache-control-limit",
        text: "A maximum of 4 blocks with cache_control may be provided. Found {x}.",
        repair: "to_anthropic keeps the last four `cache_control` markers of the system prompt and the messages and removes the earlier ones, counted as `cache_control_dropped` (a request with more is refused, so nothing the API accepted is lost; Conversation.cache_breakpoints() proposes at most 4)",
        steps: Steps::NONE,
        check: cache_control_limit,
    },
    Rule {
        id: "anthropic/server-tool-result-without-use",
        text: "{p}: unexpected `tool_use_id` found in `{t}` blocks: {x}. Each `{t}` block must have a corresponding `server_tool_use` block before it.",
        repair: "to_provider removes a server tool result (`*_tool_result` other than `tool_result`) with no `server_tool_use`/`mcp_tool_use` of its id before it in its message, counted as `server_results_removed`, then SPEC §4 step 5 removes a use left without its result (for other targets an answered pair becomes text, `server_tools_as_text`)",
        steps: Steps::CLEANUP,
        check: server_result_without_use,
    },
    Rule {
        id: "anthropic/server-tool-use-id-pattern",
        text: "{p}: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'",
        repair: "none: server tool ids are made by the API; a `server_tool_use` with another id was not, and cannot be replayed",
        steps: Steps::NONE,
        check: server_id_pattern,
    },
    Rule {
        id: "anthropic/too-many-messages",
        text: "messages: List should have at most 100000 items after validation, not {x}",
        repair: "none: shorten the history (`msgnorm.trim_to_budget` keeps each tool call with its result, `msgnorm.split_for_summary` gives the head to summarise)",
        steps: Steps::NONE,
        check: too_many_messages,
    },
    Rule {
        id: "anthropic/assistant-prefill",
        text: "This model does not support assistant message prefill. The conversation must end with a user message.",
        repair: "none: checked with a model that refuses a prefill (Claude 4.6 on; docs/PROVIDERS.md, Models); end the history with a user message",
        steps: Steps::NONE,
        check: super::model_rules::assistant_prefill,
    },
    Rule {
        id: "anthropic/system-message",
        text: "messages.{i}: role 'system' is not supported on this model",
        repair: "none: checked with a model that refuses a `system` message among the messages (before Claude Opus 4.8); move its text into the `system` parameter or a user message",
        steps: Steps::NONE,
        check: super::model_rules::system_message,
    },
    Rule {
        id: "anthropic/url-source",
        text: "{p}: URL sources are not supported",
        repair: "none: checked for a Bedrock (`anthropic.…`) or Vertex AI (`…@date`) model name; send the image or document as base64",
        steps: Steps::NONE,
        check: super::model_rules::url_source,
    },
];

/// The API's limit on the number of messages in one request.
pub const MAX_MESSAGES: usize = 100_000;

/// Messages from `{"role", "content"}` objects or msgnorm records.
pub fn prepare<'v>(items: &'v [Value], params: Params<'v>) -> Ctx<'v> {
    let mut msgs = Vec::with_capacity(items.len());
    for (index, raw) in items.iter().enumerate() {
        // A msgnorm record (SPEC §1): `type`, no `role`/`content` of its own.
        if raw.get("role").is_none() && raw.get("content").is_none() {
            if let Some(t) = raw.type_() {
                let m = raw.get("message").filter(|m| m.is_object());
                if let (Some(m), "user" | "assistant") = (m, t) {
                    msgs.push(Msg {
                        index,
                        raw: m,
                        role: Some(if t == "user" { "user" } else { "assistant" }),
                        blocks: m.list_at("content"),
                        kinds: kinds(m.list_at("content")),
                        path: PathBase::Record,
                    });
                }
                continue; // other record types are not sent (SPEC §4 step 3)
            }
        }
        msgs.push(Msg {
            index,
            raw,
            role: raw.str_at("role"),
            blocks: raw.list_at("content"),
            kinds: kinds(raw.list_at("content")),
            path: PathBase::Item("messages"),
        });
    }
    Ctx {
        msgs,
        system: params.system,
        tools: params.tools,
        len: items.len(),
        list_name: "messages",
        stateless: params.stateless,
        model: None,
        facts: crate::providers::facts::Facts::NONE,
    }
}

/// The block types of a content list, in one pass ([`Msg::kinds`]).
fn kinds(blocks: &[Value]) -> u8 {
    let mut k = 0;
    for b in blocks {
        k |= match b.type_() {
            Some("tool_use") => Msg::TOOL_USE,
            Some("tool_result") => {
                let inner = b.list_at("content");
                let cached = inner.iter().any(|i| i.has("cache_control"));
                Msg::TOOL_RESULT | if cached { Msg::CACHE } else { 0 }
            }
            Some("text") => Msg::TEXT,
            Some("thinking" | "redacted_thinking") => Msg::THINKING,
            _ => 0,
        };
        if b.has("cache_control") {
            k |= Msg::CACHE;
        }
    }
    k
}

fn invalid_role(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if !matches!(m.role, Some("user" | "assistant" | "system")) {
            out.push(Hit::at(m, ".role", m.role.unwrap_or("")));
        }
    }
}

fn content_empty(m: &Msg) -> bool {
    match m.raw.get("content") {
        None | Some(Value::Null) => true,
        Some(Value::Str(s)) => s.is_empty(),
        Some(Value::Arr(a)) => a.is_empty(),
        _ => false,
    }
}

fn empty_content(c: &Ctx, out: &mut Vec<Hit>) {
    let n = c.msgs.len();
    for (k, m) in c.msgs.iter().enumerate() {
        let final_assistant = k + 1 == n && m.role == Some("assistant");
        if !final_assistant && content_empty(m) {
            out.push(Hit::at(m, ".content", ""));
        }
    }
}

fn tool_use_ids<'v>(m: &Msg<'v>) -> impl Iterator<Item = (usize, &'v str)> {
    blocks_of(m, "tool_use", "id")
}

fn tool_result_ids<'v>(m: &Msg<'v>) -> impl Iterator<Item = (usize, &'v str)> {
    blocks_of(m, "tool_result", "tool_use_id")
}

/// `(position, block[key])` of the blocks of one type.
fn blocks_of<'v>(
    m: &Msg<'v>,
    ty: &'static str,
    key: &'static str,
) -> impl Iterator<Item = (usize, &'v str)> {
    m.blocks
        .iter()
        .enumerate()
        .filter(move |(_, b)| b.type_() == Some(ty))
        .map(move |(j, b)| (j, b.str_at(key).unwrap_or("")))
}

/// The turns of a conversation, found in one pass: a turn is a run of adjacent
/// user or assistant messages of one role (the API joins them); messages of
/// other roles are skipped, inside a turn or between two.
struct Turns {
    /// The turn of each message (`None`: a message of another role).
    of: Vec<Option<usize>>,
    /// `(first, last + 1)`: where each turn's messages lie in `Ctx::msgs`.
    spans: Vec<(usize, usize)>,
}

impl Turns {
    fn new(c: &Ctx) -> Self {
        let mut of = Vec::with_capacity(c.msgs.len());
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut role = None;
        for (k, m) in c.msgs.iter().enumerate() {
            if !matches!(m.role, Some("user" | "assistant")) {
                of.push(None);
                continue;
            }
            match spans.last_mut() {
                Some(span) if role == m.role => span.1 = k + 1,
                _ => spans.push((k, k + 1)),
            }
            role = m.role;
            of.push(Some(spans.len() - 1));
        }
        Turns { of, spans }
    }

    /// Into `set`, the ids `ids` finds in turn `t` (none when there is no such
    /// turn); `set` already holds them when `held` names turn `t` (`None`: an
    /// empty set), so every turn is read once however many messages ask for it.
    fn ids<'v, I: Iterator<Item = (usize, &'v str)>>(
        &self,
        c: &Ctx<'v>,
        t: Option<usize>,
        ids: impl Fn(&Msg<'v>) -> I,
        set: &mut AHashSet<&'v str>,
        held: &mut Option<usize>,
    ) {
        if *held == t {
            return;
        }
        set.clear();
        *held = t;
        let Some(&(first, end)) = t.and_then(|t| self.spans.get(t)) else {
            return;
        };
        let role = c.msgs[first].role;
        for m in c.msgs[first..end].iter().filter(|m| m.role == role) {
            set.extend(ids(m).map(|(_, id)| id));
        }
    }
}

fn tool_use_without_result(c: &Ctx, out: &mut Vec<Hit>) {
    let turns = Turns::new(c);
    let (mut answered, mut held) = (AHashSet::new(), None);
    for (k, m) in c.having(Msg::TOOL_USE) {
        if m.role != Some("assistant") {
            continue;
        }
        if tool_use_ids(m).next().is_none() {
            continue;
        }
        // the user turn after this assistant turn (turns alternate)
        let next = turns.of[k].map(|t| t + 1);
        turns.ids(c, next, tool_result_ids, &mut answered, &mut held);
        let mut missing = Vec::new();
        let mut first = None;
        for (j, id) in tool_use_ids(m) {
            if !answered.contains(id) {
                first.get_or_insert(j);
                missing.push(id);
            }
        }
        if let Some(j) = first {
            out.push(Hit::at(
                m,
                format_args!(".content[{j}]"),
                missing.join(", "),
            ));
        }
    }
}

fn tool_result_not_first(c: &Ctx, out: &mut Vec<Hit>) {
    for (_, m) in c.having(Msg::TOOL_RESULT) {
        if m.role != Some("user") {
            continue;
        }
        let mut other = false;
        for (j, b) in m.blocks.iter().enumerate() {
            if b.type_() == Some("tool_result") {
                if other {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}]"),
                        b.str_at("tool_use_id").unwrap_or(""),
                    ));
                }
            } else {
                other = true;
            }
        }
    }
}

fn tool_result_without_use(c: &Ctx, out: &mut Vec<Hit>) {
    let turns = Turns::new(c);
    let (mut calls, mut held) = (AHashSet::new(), None);
    for (k, m) in c.having(Msg::TOOL_RESULT) {
        if tool_result_ids(m).next().is_none() {
            continue;
        }
        // the assistant turn before this user turn (turns alternate); a result
        // in a message of another role is named whatever came before
        let user = m.role == Some("user");
        if user {
            let before = turns.of[k].and_then(|t| t.checked_sub(1));
            turns.ids(c, before, tool_use_ids, &mut calls, &mut held);
        }
        for (j, id) in tool_result_ids(m) {
            if !user || !calls.contains(id) {
                out.push(Hit::at(m, format_args!(".content[{j}]"), id));
            }
        }
    }
}

fn tool_use_unique(c: &Ctx, out: &mut Vec<Hit>) {
    // Within one message: an id reused by a later turn, once its call was
    // answered, is accepted (the API pairs a result with the message before it).
    let mut seen = AHashSet::new();
    for (_, m) in c.having(Msg::TOOL_USE) {
        seen.clear();
        for (j, id) in tool_use_ids(m) {
            if !seen.insert(id) {
                out.push(Hit::at(m, format_args!(".content[{j}]"), id));
            }
        }
    }
}

/// Text blocks of a content list and of the lists inside its tool results.
/// Where a text block is: its position, and its position inside a tool result's list.
struct TextAt(usize, Option<usize>);

impl std::fmt::Display for TextAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            None => write!(f, ".content[{}]", self.0),
            Some(k) => write!(f, ".content[{}].content[{k}]", self.0),
        }
    }
}

fn each_text<'v>(m: &Msg<'v>, mut f: impl FnMut(TextAt, &'v str, bool)) {
    for (j, b) in m.blocks.iter().enumerate() {
        match b.type_() {
            Some("text") => {
                if let Some(t) = b.str_at("text") {
                    f(TextAt(j, None), t, true);
                }
            }
            Some("tool_result") => {
                for (k, inner) in b.list_at("content").iter().enumerate() {
                    if inner.type_() == Some("text") {
                        if let Some(t) = inner.str_at("text") {
                            f(TextAt(j, Some(k)), t, false);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn empty_text(c: &Ctx, out: &mut Vec<Hit>) {
    for (_, m) in c.having(Msg::TEXT | Msg::TOOL_RESULT) {
        each_text(m, |path, t, _| {
            if t.is_empty() {
                out.push(Hit::at(m, path, ""));
            }
        });
    }
}

fn whitespace_text(c: &Ctx, out: &mut Vec<Hit>) {
    let n = c.msgs.len();
    for (k, m) in c.msgs.iter().enumerate() {
        // The final assistant message has its own rule (trailing white space).
        if k + 1 == n && m.role == Some("assistant") {
            continue;
        }
        if let Some(Value::Str(s)) = m.raw.get("content") {
            if !s.is_empty() && blank(s) {
                out.push(Hit::at(m, ".content", ""));
            }
        }
        // An assistant turn of server tool blocks (a web search replay) may
        // hold a blank text block between them, as the API wrote it.
        let server = m.role == Some("assistant") && m.blocks.iter().any(is_server_block);
        each_text(m, |path, t, top| {
            if top && !server && !t.is_empty() && blank(t) {
                out.push(Hit::at(m, path, ""));
            }
        });
    }
}

fn final_trailing_whitespace(c: &Ctx, out: &mut Vec<Hit>) {
    let Some(m) = c.msgs.last() else { return };
    if m.role != Some("assistant") {
        return;
    }
    let ends_ws = |s: &str| s.chars().next_back().is_some_and(crate::model::is_space);
    match m.raw.get("content") {
        Some(Value::Str(s)) if ends_ws(s) => out.push(Hit::at(m, ".content", "")),
        Some(Value::Arr(a)) => {
            if let Some(b) = a.last() {
                if b.type_() == Some("text") && b.str_at("text").is_some_and(ends_ws) {
                    out.push(Hit::at(m, format_args!(".content[{}]", a.len() - 1), ""));
                }
            }
        }
        _ => {}
    }
}

fn is_thinking(b: &Value) -> bool {
    matches!(b.type_(), Some("thinking" | "redacted_thinking"))
}

fn is_server_block(b: &Value) -> bool {
    b.type_()
        .is_some_and(|t| crate::providers::server_tools::is_use(t) || is_server_result(t))
}

fn thinking_first(c: &Ctx, out: &mut Vec<Hit>) {
    let Some(m) = c
        .msgs
        .iter()
        .rev()
        .find(|m| m.role == Some("assistant"))
        .filter(|m| m.may_have(Msg::THINKING))
    else {
        return;
    };
    if !m.blocks.iter().any(is_thinking) {
        return;
    }
    // Server tool blocks the API wrote before its (interleaved) thinking may
    // lead the message: a code execution call and its result, then thinking.
    if let Some((j, first)) = m
        .blocks
        .iter()
        .enumerate()
        .find(|(_, b)| !is_server_block(b))
    {
        if !is_thinking(first) {
            out.push(Hit::at(
                m,
                format_args!(".content[{j}]"),
                first.type_().unwrap_or(""),
            ));
        }
    }
}

fn thinking_final_block(c: &Ctx, out: &mut Vec<Hit>) {
    let Some(m) = c.msgs.last().filter(|m| m.role == Some("assistant")) else {
        return;
    };
    if let Some(last) = m.blocks.last().filter(|b| is_thinking(b)) {
        out.push(Hit::at(
            m,
            format_args!(".content[{}]", m.blocks.len() - 1),
            last.type_().unwrap_or(""),
        ));
    }
}

fn server_result_without_use(c: &Ctx, out: &mut Vec<Hit>) {
    // ids of the server tool uses since the last user message (the API joins
    // adjacent assistant messages into one turn)
    let mut open: AHashSet<&str> = AHashSet::new();
    for m in &c.msgs {
        if m.role != Some("assistant") {
            open.clear();
            continue;
        }
        for (j, b) in m.blocks.iter().enumerate() {
            let Some(t) = b.type_() else { continue };
            if matches!(t, "server_tool_use" | "mcp_tool_use") {
                if let Some(id) = b.str_at("id") {
                    open.insert(id);
                }
            } else if is_server_result(t) {
                let id = b.str_at("tool_use_id").unwrap_or("");
                if !open.contains(id) {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}]"),
                        format!("{t}\n{id}"),
                    ));
                }
            }
        }
    }
}

/// `^srvtoolu_[a-zA-Z0-9_]+$`.
pub fn server_id_ok(id: &str) -> bool {
    id.strip_prefix("srvtoolu_").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

fn server_id_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    for m in &c.msgs {
        if m.role != Some("assistant") {
            continue;
        }
        for (j, b) in m.blocks.iter().enumerate() {
            if b.type_() == Some("server_tool_use") {
                let id = b.str_at("id").unwrap_or("");
                if !server_id_ok(id) {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}].server_tool_use.id"),
                        id,
                    ));
                }
            }
        }
    }
}

fn too_many_messages(c: &Ctx, out: &mut Vec<Hit>) {
    let n = c.msgs.len();
    if n > MAX_MESSAGES {
        out.push(Hit::param("messages", n.to_string()));
    }
}

fn id_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    for (_, m) in c.having(Msg::TOOL_USE | Msg::TOOL_RESULT) {
        for (j, id) in tool_use_ids(m) {
            if !id_like(id, 1, usize::MAX) {
                out.push(Hit::at(m, format_args!(".content[{j}].tool_use.id"), id));
            }
        }
        for (j, id) in tool_result_ids(m) {
            if !id_like(id, 1, usize::MAX) {
                out.push(Hit::at(
                    m,
                    format_args!(".content[{j}].tool_result.tool_use_id"),
                    id,
                ));
            }
        }
    }
}

fn name_pattern(c: &Ctx, out: &mut Vec<Hit>) {
    for (k, t) in c.tool_list().iter().enumerate() {
        // Server tools (`web_search_20250305`, ...) have fixed names of their own.
        if matches!(t.type_(), None | Some("custom")) {
            let name = t.str_at("name").unwrap_or("");
            if !Provider::Anthropic.tool_name_ok(name) {
                out.push(Hit::param(format!("tools[{k}].name"), name));
            }
        }
    }
    for (_, m) in c.having(Msg::TOOL_USE) {
        for (j, b) in m.blocks.iter().enumerate() {
            if b.type_() == Some("tool_use") {
                let name = b.str_at("name").unwrap_or("");
                if !Provider::Anthropic.tool_name_ok(name) {
                    out.push(Hit::at(
                        m,
                        format_args!(".content[{j}].tool_use.name"),
                        name,
                    ));
                }
            }
        }
    }
}

fn input_object(c: &Ctx, out: &mut Vec<Hit>) {
    for (_, m) in c.having(Msg::TOOL_USE) {
        for (j, b) in m.blocks.iter().enumerate() {
            if b.type_() == Some("tool_use") && !b.get("input").is_some_and(Value::is_object) {
                out.push(Hit::at(m, format_args!(".content[{j}].tool_use.input"), ""));
            }
        }
    }
}

fn has_cc(b: &Value) -> bool {
    b.has("cache_control")
}

fn cache_control_limit(c: &Ctx, out: &mut Vec<Hit>) {
    // Where the 5th one is, and how many there are.
    let mut n = 0usize;
    let mut fifth: Option<(Option<usize>, String)> = None;
    let mut see = |index: Option<usize>, path: &dyn Fn() -> String| {
        n += 1;
        if n == 5 {
            fifth = Some((index, path()));
        }
    };
    for (k, t) in c.tool_list().iter().enumerate() {
        if has_cc(t) {
            see(None, &|| format!("tools[{k}].cache_control"));
        }
    }
    if let Some(Value::Arr(sys)) = c.system {
        for (k, b) in sys.iter().enumerate() {
            if has_cc(b) {
                see(None, &|| format!("system[{k}].cache_control"));
            }
        }
    }
    for m in &c.msgs {
        for (j, b) in m.blocks.iter().enumerate() {
            if has_cc(b) {
                see(Some(m.index), &|| {
                    m.path(format_args!(".content[{j}].cache_control"))
                });
            }
            if b.type_() == Some("tool_result") {
                for (k, inner) in b.list_at("content").iter().enumerate() {
                    if has_cc(inner) {
                        see(Some(m.index), &|| {
                            m.path(format_args!(".content[{j}].content[{k}].cache_control"))
                        });
                    }
                }
            }
        }
    }
    if let Some((index, path)) = fifth {
        let loc = path.replace('[', ".").replace(']', "");
        out.push(Hit {
            index,
            path,
            detail: n.to_string(),
            loc,
        });
    }
}
