//! `validate`: the provider rules a message history breaks, named before the
//! provider answers 400.
//!
//! Each provider has one declarative table of [`Rule`]s (`providers/<p>/rules.rs`): the
//! rule id, the provider's own error text, the repair msgnorm applies, and the
//! check. Checks read a small [`Value`] tree built from JSON text
//! ([`parse_items`]) or, in the binding, from Python objects. Every check is one
//! linear pass; nothing is changed.

use crate::error::{Error, Result};
use crate::json::parse::{Parser, Peek};
use crate::providers::models::{Facts, Model};
use crate::providers::{anthropic, bedrock, gemini, openai_chat, openai_responses, Provider};
use std::borrow::Cow;

/// Nesting below this depth is not read (its kind is kept): provider rules look
/// at messages, blocks and the blocks nested in tool results, not deeper.
pub const MAX_DEPTH: usize = 48;

/// The keys whose values some rule reads. The value of a [`KIND_KEYS`] key is
/// skipped, keeping its kind; any other key is skipped and left out (tool
/// inputs, base64 data, schemas, every field of a transcript record besides
/// `type` and `message`): the tree holds only what the rules look at.
pub const READ_KEYS: &[&str] = &[
    "role",
    "content",
    "type",
    "text",
    "id",
    "name",
    "tool_use_id",
    "message",
    "tool_calls",
    "function",
    "tool_call_id",
    "call_id",
    "parts",
    "functionCall",
    "function_call",
    "functionResponse",
    "function_response",
    "toolUse",
    "toolResult",
    "toolUseId",
    "tools",
    "toolSpec",
    "functionDeclarations",
    "function_declarations",
    "approval_request_id",
    "source",
    "model",
];

/// The keys whose presence (and kind) some rule reads, but not their value.
pub const KIND_KEYS: &[&str] = &[
    "input",
    "cache_control",
    "thoughtSignature",
    "thought_signature",
    "refusal",
    "audio",
    "encrypted_content",
];

/// What the tree keeps of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// The value (a rule reads it).
    Read,
    /// Its kind only ([`Value::Skipped`]).
    Kind,
}

/// What the tree keeps of the value of `key`, and the key as the tree holds
/// it: the same text from the key tables, not from the input. Every rule's
/// lookup compares keys; the tables' few strings stay in cache where the
/// input's copies of them, one per object, would each be a cache miss.
/// `None`: no rule looks at the key, and the tree leaves it out.
pub fn key_of(key: &str) -> Option<(KeyUse, &'static str)> {
    if let Some(k) = READ_KEYS.iter().find(|k| **k == key) {
        Some((KeyUse::Read, k))
    } else {
        KIND_KEYS
            .iter()
            .find(|k| **k == key)
            .map(|k| (KeyUse::Kind, *k))
    }
}

/// What kind of JSON value a skipped value was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
    /// A Python object that is none of the JSON kinds.
    Other,
}

/// A minimal JSON value tree (strings borrowed from JSON text where possible).
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// Numbers are never inspected.
    Number,
    Str(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
    /// Present but not read (the value of a [`KIND_KEYS`] key, or one beyond [`MAX_DEPTH`]).
    Skipped(Kind),
}

impl<'a> Value<'a> {
    /// The value of `key` in an object (the first one, as JSON parsers differ on repeats).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The first of two spellings of a key (`functionCall` / `function_call`).
    pub fn get2(&self, a: &str, b: &str) -> Option<&Value<'a>> {
        self.get(a).or_else(|| self.get(b))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number => Kind::Number,
            Value::Str(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
            Value::Skipped(k) => *k,
        }
    }

    pub fn is_object(&self) -> bool {
        self.kind() == Kind::Object
    }

    /// `self[key]` as a str.
    pub fn str_at(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// `self["type"]`.
    pub fn type_(&self) -> Option<&str> {
        self.str_at("type")
    }

    /// Whether `key` is present and not null.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| v.kind() != Kind::Null)
    }

    /// The elements of `self[key]` when it is a list (else none).
    pub fn list_at(&self, key: &str) -> &[Value<'a>] {
        self.get(key).and_then(Value::as_array).unwrap_or(&[])
    }
}

/// One JSON value from the parser, skipping what no rule reads.
pub fn parse_value<'a>(p: &mut Parser<'a>, depth: usize) -> Result<Value<'a>> {
    parse_in(p, depth, &mut Scratch::default())
}

/// Stacks the elements of the open containers, so that each container is
/// allocated once, at its exact size, when it closes.
#[derive(Default)]
struct Scratch<'a> {
    kv: Vec<(Cow<'a, str>, Value<'a>)>,
    items: Vec<Value<'a>>,
}

/// A member of the object whose members are `kv[start..]`: a repeated key
/// takes the last value, where the key first appeared (SPEC §1, as Python's
/// `json` reads it).
#[inline]
fn put<'a>(kv: &mut Vec<(Cow<'a, str>, Value<'a>)>, start: usize, key: &'static str, v: Value<'a>) {
    match kv[start..].iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = v,
        None => kv.push((Cow::Borrowed(key), v)),
    }
}

fn parse_in<'a>(p: &mut Parser<'a>, depth: usize, s: &mut Scratch<'a>) -> Result<Value<'a>> {
    let peek = p.peek()?;
    if depth >= MAX_DEPTH && matches!(peek, Peek::Object | Peek::Array) {
        p.skip_value()?;
        return Ok(Value::Skipped(peek_kind(peek)));
    }
    Ok(match peek {
        Peek::Object => {
            p.begin_object()?;
            let start = s.kv.len();
            let mut first = true;
            while let Some((_, key)) = p.next_key(&mut first)? {
                match key_of(&key) {
                    Some((KeyUse::Read, key)) => {
                        let v = parse_in(p, depth + 1, s)?;
                        put(&mut s.kv, start, key, v);
                    }
                    Some((KeyUse::Kind, key)) => {
                        let k = peek_kind(p.peek()?);
                        p.skip_value()?;
                        put(&mut s.kv, start, key, Value::Skipped(k));
                    }
                    None => {
                        p.skip_value()?;
                    }
                }
            }
            Value::Object(s.kv.drain(start..).collect())
        }
        Peek::Array => {
            p.begin_array()?;
            let start = s.items.len();
            let mut first = true;
            while p.next_elem(&mut first)? {
                let v = parse_in(p, depth + 1, s)?;
                s.items.push(v);
            }
            Value::Array(s.items.drain(start..).collect())
        }
        Peek::String => Value::Str(p.string()?),
        Peek::Number => {
            p.skip_value()?;
            Value::Number
        }
        Peek::True | Peek::False => {
            p.skip_value()?;
            Value::Bool(peek == Peek::True)
        }
        Peek::Null => {
            p.skip_value()?;
            Value::Null
        }
    })
}

fn peek_kind(p: Peek) -> Kind {
    match p {
        Peek::Object => Kind::Object,
        Peek::Array => Kind::Array,
        Peek::String => Kind::String,
        Peek::Number => Kind::Number,
        Peek::True | Peek::False => Kind::Bool,
        Peek::Null => Kind::Null,
    }
}

/// The items of a JSON array, or of JSON Lines (one value a line).
pub fn parse_items(src: &str) -> Result<Vec<Value<'_>>> {
    let mut p = Parser::new(src);
    let mut items = Vec::new();
    let mut scratch = Scratch::default();
    if p.peek()? == Peek::Array {
        p.begin_array()?;
        let mut first = true;
        while p.next_elem(&mut first)? {
            items.push(parse_in(&mut p, 1, &mut scratch)?);
        }
        if !p.at_end() {
            return Err(p.err("unexpected data after the JSON array"));
        }
    } else {
        while !p.at_end() {
            items.push(parse_in(&mut p, 1, &mut scratch)?);
        }
    }
    Ok(items)
}

/// One message as the rules see it.
pub struct Msg<'v, 'a> {
    /// Position in the input list.
    pub index: usize,
    /// The provider-native message / item / content object.
    pub raw: &'v Value<'a>,
    /// `raw["role"]` (for a msgnorm record: its `type`).
    pub role: Option<&'v str>,
    /// The content blocks (`content` or `parts`) when they are a list.
    pub blocks: &'v [Value<'a>],
    /// Which block types [`Msg::blocks`] holds (`Msg::ANY`: not summed up), so
    /// that rules skip messages without the blocks they look at.
    pub kinds: u8,
    /// The path of the message itself, e.g. `messages[3]` or `records[3].message`.
    pub path: PathBase,
}

/// How a message's path starts.
#[derive(Clone, Copy, Debug)]
pub enum PathBase {
    /// `<name>[i]`
    Item(&'static str),
    /// `records[i].message`
    Record,
}

impl Msg<'_, '_> {
    pub const TOOL_USE: u8 = 1;
    pub const TOOL_RESULT: u8 = 2;
    pub const TEXT: u8 = 4;
    pub const THINKING: u8 = 8;
    /// A block (or a block in a tool result's list) with `cache_control`.
    pub const CACHE: u8 = 16;
    pub const ANY: u8 = u8::MAX;

    /// Whether the message may hold a block of one of `kinds`.
    pub fn may_have(&self, kinds: u8) -> bool {
        self.kinds & kinds != 0
    }

    /// The path of this message followed by `rest` (e.g. `.content[1]`).
    pub fn path(&self, rest: impl std::fmt::Display) -> String {
        match self.path {
            PathBase::Item(name) => format!("{name}[{}]{rest}", self.index),
            PathBase::Record => format!("records[{}].message{rest}", self.index),
        }
    }
}

/// What the checks read: the messages plus the request's other parameters.
pub struct Ctx<'v, 'a> {
    pub msgs: Vec<Msg<'v, 'a>>,
    /// `system` (Anthropic) / `system_instruction` (Gemini) / `system` (Bedrock).
    pub system: Option<&'v Value<'a>>,
    /// `tools` (a list), or Bedrock's `toolConfig` (an object with `tools`).
    pub tools: Option<&'v Value<'a>>,
    /// Number of input items (messages not taking part, e.g. dropped record types, count too).
    pub len: usize,
    /// Name of the messages parameter: `messages`, `input`, `contents`.
    pub list_name: &'static str,
    /// The request is stateless (OpenAI Responses `store=false`): the server
    /// holds no item the input names.
    pub stateless: bool,
    /// The model the request goes to, if the model tables know it.
    pub model: Option<Model>,
    /// What that model's API does where it depends on the model
    /// ([`Facts::NONE`] without a model: no such rule fires).
    pub facts: Facts,
}

impl<'v, 'a> Ctx<'v, 'a> {
    /// The tool definitions (`tools`, or `toolConfig.tools`).
    pub fn tool_list(&self) -> &'v [Value<'a>] {
        match self.tools {
            Some(Value::Array(a)) => a,
            Some(v @ Value::Object(_)) => v.list_at("tools"),
            _ => &[],
        }
    }

    /// Each message without blocks: a hit at its `field` (`.content`, `.parts`).
    pub fn empty_messages(&self, field: &str, out: &mut Vec<Hit>) {
        for m in &self.msgs {
            if m.blocks.is_empty() {
                out.push(Hit::at(m, field, ""));
            }
        }
    }

    /// Each tool definition's `key` object (Bedrock's `toolSpec`, OpenAI
    /// Chat's `function`) whose name `p` refuses: a hit at `{list}[k].{key}.name`.
    pub fn declared_tool_names(&self, p: Provider, list: &str, key: &str, out: &mut Vec<Hit>) {
        for (k, t) in self.tool_list().iter().enumerate() {
            if let Some(spec) = t.get(key) {
                let name = spec.str_at("name").unwrap_or("");
                if !p.tool_name_ok(name) {
                    out.push(Hit::param(
                        format!("{list}[{k}].{key}.name"),
                        format!("{name:?}"),
                    ));
                }
            }
        }
    }
}

/// A rule broken at one place, as a check reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Message index (`None`: the `system` or `tools` parameter, or the list as a whole).
    pub index: Option<usize>,
    pub path: String,
    /// Fills `{x}` in the rule's text (ids, a role, a count, ...).
    pub detail: String,
    /// Fills `{p}`: the place in the provider's own notation, e.g. `messages.3.content.1`.
    pub loc: String,
}

impl Hit {
    pub fn at(m: &Msg<'_, '_>, rest: impl std::fmt::Display, detail: impl Into<String>) -> Hit {
        let rest = rest.to_string();
        let name = match m.path {
            PathBase::Item(name) => name,
            PathBase::Record => "messages",
        };
        let loc = format!(
            "{name}.{}{}",
            m.index,
            rest.replace('[', ".").replace(']', "")
        );
        Hit {
            index: Some(m.index),
            path: m.path(&rest),
            detail: detail.into(),
            loc,
        }
    }

    /// A hit outside the messages (the `system` or `tools` parameter, the list itself).
    pub fn param(path: impl Into<String>, detail: impl Into<String>) -> Hit {
        let path = path.into();
        let loc = path.replace('[', ".").replace(']', "");
        Hit {
            index: None,
            path,
            detail: detail.into(),
            loc,
        }
    }
}

/// One row of a provider's rule table.
pub struct Rule {
    /// `provider/short-name`.
    pub id: &'static str,
    /// The provider's own error text; `{i}` is the message index, `{p}` the
    /// place in the provider's notation, `{x}` the detail.
    pub text: &'static str,
    /// The repair msgnorm applies, naming the SPEC step or adapter rule
    /// (starting with "none" when msgnorm does not repair it).
    pub repair: &'static str,
    pub check: fn(&Ctx<'_, '_>, &mut Vec<Hit>),
}

impl Rule {
    /// Whether msgnorm's pipeline repairs what this rule names.
    pub fn repaired(&self) -> bool {
        !self.repair.starts_with("none")
    }
}

/// A rule broken at one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub index: Option<usize>,
    pub path: String,
    pub rule: &'static str,
    pub message: String,
    pub repair: &'static str,
}

/// The rule table of a provider.
pub fn rules(p: Provider) -> &'static [Rule] {
    match p {
        Provider::Anthropic => anthropic::rules::RULES,
        Provider::OpenAIChat => openai_chat::rules::RULES,
        Provider::OpenAIResponses => openai_responses::rules::RULES,
        Provider::Gemini => gemini::rules::RULES,
        Provider::Bedrock => bedrock::rules::RULES,
    }
}

/// What the request holds besides the messages.
#[derive(Default, Clone, Copy)]
pub struct Params<'v, 'a> {
    pub system: Option<&'v Value<'a>>,
    pub tools: Option<&'v Value<'a>>,
    /// OpenAI Responses `store=false`: the rules of a stateless replay apply.
    pub stateless: bool,
    /// The model the request goes to ([`crate::providers::models::lookup`]):
    /// its rules apply. `None`: for msgnorm records, the model of the last
    /// assistant record (`message.model`) the tables know, if any.
    pub model: Option<Model>,
}

/// Every violation of `p`'s rules in `items`, ordered by message index (rules
/// in table order within a message; `system`/`tools` ones first).
pub fn validate<'a>(p: Provider, items: &[Value<'a>], params: Params<'_, 'a>) -> Vec<Violation> {
    let ctx = prepare(p, items, params);
    let mut out = Vec::new();
    let mut hits = Vec::new();
    for rule in rules(p) {
        (rule.check)(&ctx, &mut hits);
        for h in hits.drain(..) {
            out.push(Violation {
                index: h.index,
                message: render(rule.text, h.index, &h.loc, &h.detail),
                path: h.path,
                rule: rule.id,
                repair: rule.repair,
            });
        }
    }
    out.sort_by_key(|v| v.index.map_or(0, |i| i + 1));
    out
}

/// Whether `items` break a rule of `p`'s that msgnorm repairs ([`Rule::repaired`]);
/// stops at the first such rule that fires.
pub fn needs_repair<'a>(p: Provider, items: &[Value<'a>], params: Params<'_, 'a>) -> bool {
    let n = needs(p, items, params);
    n.steps || n.edge
}

/// Rules whose repair is the reader's or the writer's alone (the item is
/// left out as it is read): a request that breaks only these needs no SPEC
/// §4 step, and gets none.
pub const EDGE_REPAIRS: &[&str] = &["openai-responses/client-only-item"];

/// Which repairs a request needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// A repaired rule that the SPEC §4 steps repair fires.
    pub steps: bool,
    /// A rule of [`EDGE_REPAIRS`] fires.
    pub edge: bool,
}

/// [`Needs`] of `items`: stops at the first rule that needs the steps.
pub fn needs<'a>(p: Provider, items: &[Value<'a>], params: Params<'_, 'a>) -> Needs {
    let ctx = prepare(p, items, params);
    let mut hits = Vec::new();
    let mut out = Needs::default();
    for rule in rules(p).iter().filter(|r| r.repaired()) {
        (rule.check)(&ctx, &mut hits);
        if hits.is_empty() {
            continue;
        }
        hits.clear();
        if EDGE_REPAIRS.contains(&rule.id) {
            out.edge = true;
        } else {
            out.steps = true;
            break;
        }
    }
    out
}

fn prepare<'v, 'a>(p: Provider, items: &'v [Value<'a>], params: Params<'v, 'a>) -> Ctx<'v, 'a> {
    let model = params.model.or_else(|| records_model(p, items));
    let mut ctx = match p {
        Provider::Anthropic => anthropic::rules::prepare(items, params),
        Provider::OpenAIChat => prepare_plain(items, params, "messages", "content"),
        Provider::OpenAIResponses => prepare_plain(items, params, "input", "content"),
        Provider::Gemini => prepare_plain(items, params, "contents", "parts"),
        Provider::Bedrock => prepare_plain(items, params, "messages", "content"),
    };
    ctx.facts = model.map_or(Facts::NONE, |m| m.facts_for(p));
    ctx.model = model;
    ctx
}

/// The model of the last msgnorm assistant record whose `message.model` the
/// model tables know (Anthropic: records are read as `to_anthropic` sends them).
fn records_model(p: Provider, items: &[Value<'_>]) -> Option<Model> {
    if p != Provider::Anthropic {
        return None;
    }
    items
        .iter()
        .rev()
        .filter(|r| r.get("role").is_none() && r.type_() == Some("assistant"))
        .filter_map(|r| r.get("message")?.str_at("model"))
        .find_map(crate::providers::models::lookup)
}

/// [`validate`] on JSON text: `data` is a JSON array or JSON Lines; `system`
/// and `tools` are JSON texts.
pub fn validate_json(
    p: Provider,
    data: &[u8],
    system: Option<&[u8]>,
    tools: Option<&[u8]>,
) -> Result<Vec<Violation>> {
    let src = crate::json::utf8(data)?;
    let items = parse_items(src)?;
    let system = system.map(one_value).transpose()?;
    let tools = tools.map(one_value).transpose()?;
    let params = Params {
        system: system.as_ref(),
        tools: tools.as_ref(),
        stateless: false,
        model: None,
    };
    Ok(validate(p, &items, params))
}

/// One JSON value (the whole text).
fn one_value(b: &[u8]) -> Result<Value<'_>> {
    let s = crate::json::utf8(b)?;
    let mut p = Parser::new(s);
    let v = parse_value(&mut p, 0)?;
    if !p.at_end() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(v)
}

/// A provider from its name, with the error users see for an unknown one.
pub fn provider(name: &str) -> Result<Provider> {
    Provider::from_name(name).ok_or_else(|| {
        let names: Vec<_> = Provider::ALL
            .iter()
            .map(|p| format!("{:?}", p.name()))
            .collect();
        Error::value(format!(
            "provider: unknown provider {name:?}; expected one of {}",
            names.join(", ")
        ))
    })
}

/// A rule's text with its places filled. `{t}` (a block type) is the part of
/// the detail before its first newline, and `{x}` the rest.
fn render(text: &str, index: Option<usize>, loc: &str, detail: &str) -> String {
    use std::fmt::Write;
    let (kind, detail) = match detail.split_once('\n') {
        Some((k, d)) if text.contains("{t}") => (k, d),
        _ => ("", detail),
    };
    let mut out = String::with_capacity(text.len() + loc.len() + detail.len());
    let mut rest = text;
    while let Some(k) = rest.find('{') {
        out.push_str(&rest[..k]);
        let tail = &rest[k..];
        if tail.starts_with("{i}") {
            match index {
                Some(i) => {
                    let _ = write!(out, "{i}");
                }
                None => out.push('-'),
            }
        } else if tail.starts_with("{p}") {
            out.push_str(loc);
        } else if tail.starts_with("{x}") {
            out.push_str(detail);
        } else if tail.starts_with("{t}") {
            out.push_str(kind);
        } else {
            out.push('{');
            rest = &tail[1..];
            continue;
        }
        rest = &tail[3..];
    }
    out.push_str(rest);
    out
}

/// Messages of a provider whose list items are the messages themselves.
fn prepare_plain<'v, 'a>(
    items: &'v [Value<'a>],
    params: Params<'v, 'a>,
    list_name: &'static str,
    blocks_key: &str,
) -> Ctx<'v, 'a> {
    let msgs = items
        .iter()
        .enumerate()
        .map(|(index, raw)| Msg {
            index,
            raw,
            role: raw.str_at("role"),
            blocks: match raw.get(blocks_key) {
                Some(Value::Array(a)) => a,
                // Gemini: the API's JSON reader takes one part for the list
                Some(one @ Value::Object(_)) if blocks_key == "parts" => std::slice::from_ref(one),
                _ => &[],
            },
            kinds: Msg::ANY,
            path: PathBase::Item(list_name),
        })
        .collect();
    Ctx {
        msgs,
        system: params.system,
        tools: params.tools,
        len: items.len(),
        list_name,
        stateless: params.stateless,
        model: None,
        facts: Facts::NONE,
    }
}

/// `^[a-zA-Z0-9_-]+$` with a length range in bytes (the pattern is ASCII).
pub fn id_like(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub use crate::model::is_blank as blank;

/// The Markdown table of every provider's rules (docs/RULES.md).
pub fn rules_markdown() -> String {
    let mut s = String::from(
        "# Provider rules\n\n\
         `msgnorm.validate(messages, provider=...)` checks these rules; `msgnorm check FILE \
         --provider P` does the same from the command line. *Repair* says what msgnorm does \
         about it (`normalize_for_api`, SPEC §4, then the provider's output function); \
         \"none\" means the history must be fixed at its source. In the error texts, \
         `{i}` stands for the message index, `{p}` for the place in the provider's notation \
         (`messages.3.content.1`), `{t}` for a block type and `{x}` for the ids, role or \
         count named. Rules marked \"checked with a model\" fire only when \
         `model=` names a model msgnorm knows (docs/PROVIDERS.md, Models).\n\n\
         This file is generated by `msgnorm rules --markdown`.\n",
    );
    for p in Provider::ALL {
        s.push_str(&format!("\n## {}\n\n", p.name()));
        s.push_str("| rule | provider's error | repair |\n|---|---|---|\n");
        for r in rules(p) {
            s.push_str(&format!(
                "| `{}` | {} | {} |\n",
                r.id,
                md_cell(r.text),
                md_cell(r.repair)
            ));
        }
    }
    s
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod provider_tests;
