//! The rule engine: what a check reads ([`Ctx`], one [`Msg`] a message),
//! what it reports ([`Hit`]) and a provider table's row ([`Rule`]). The
//! tables themselves are in each provider's room (`providers/<p>/rules.rs`),
//! which depend on this room; this room depends on no provider.

use crate::json::value::Value;
use crate::providers::facts::{Facts, Model};
use crate::providers::provider::Provider;

/// One message as the rules see it.
pub struct Msg<'v> {
    /// Position in the input list.
    pub index: usize,
    /// The provider-native message / item / content object.
    pub raw: &'v Value,
    /// `raw["role"]` (for a msgnorm record: its `type`).
    pub role: Option<&'v str>,
    /// The content blocks (`content` or `parts`) when they are a list.
    pub blocks: &'v [Value],
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

impl Msg<'_> {
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
pub struct Ctx<'v> {
    pub msgs: Vec<Msg<'v>>,
    /// `system` (Anthropic) / `system_instruction` (Gemini) / `system` (Bedrock).
    pub system: Option<&'v Value>,
    /// `tools` (a list), or Bedrock's `toolConfig` (an object with `tools`).
    pub tools: Option<&'v Value>,
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

impl<'v> Ctx<'v> {
    /// The messages, with their positions, that may hold a block of one of
    /// `kinds` ([`Msg::may_have`]): the ones a rule about those blocks reads.
    pub fn having(&self, kinds: u8) -> impl Iterator<Item = (usize, &Msg<'v>)> {
        self.msgs
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.may_have(kinds))
    }

    /// The tool definitions (`tools`, or `toolConfig.tools`).
    pub fn tool_list(&self) -> &'v [Value] {
        match self.tools {
            Some(Value::Arr(a)) => a,
            Some(v @ Value::Obj(_)) => v.list_at("tools"),
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
    pub fn at(m: &Msg<'_>, rest: impl std::fmt::Display, detail: impl Into<String>) -> Hit {
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
    /// The SPEC §4 steps that repair it, which `convert` runs when the rule
    /// fires ([`Steps::NONE`](crate::steps::Steps::NONE): the reader or the
    /// writer repairs it, or nothing does).
    pub steps: crate::steps::Steps,
    pub check: fn(&Ctx<'_>, &mut Vec<Hit>),
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

/// What the request holds besides the messages.
#[derive(Default, Clone, Copy)]
pub struct Params<'v> {
    pub system: Option<&'v Value>,
    pub tools: Option<&'v Value>,
    /// OpenAI Responses `store=false`: the rules of a stateless replay apply.
    pub stateless: bool,
    /// The model the request goes to ([`crate::providers::models::lookup`]):
    /// its rules apply. `None`: for msgnorm records, the model of the last
    /// assistant record (`message.model`) the tables know, if any.
    pub model: Option<Model>,
}

/// Messages of a provider whose list items are the messages themselves.
pub fn prepare_plain<'v>(
    items: &'v [Value],
    params: Params<'v>,
    list_name: &'static str,
    blocks_key: &str,
) -> Ctx<'v> {
    let msgs = items
        .iter()
        .enumerate()
        .map(|(index, raw)| Msg {
            index,
            raw,
            role: raw.str_at("role"),
            blocks: match raw.get(blocks_key) {
                Some(Value::Arr(a)) => a,
                // Gemini: the API's JSON reader takes one part for the list
                Some(one @ Value::Obj(_)) if blocks_key == "parts" => std::slice::from_ref(one),
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
