//! `validate`: the provider rules a message history breaks, named before the
//! provider answers 400.
//!
//! Each provider has one declarative table of [`Rule`]s (`providers/<p>/rules.rs`): the
//! rule id, the provider's own error text, the repair msgnorm applies, and the
//! check. Checks read a small [`Value`] tree built from JSON text
//! ([`parse_items`]) or, in the binding, from Python objects. Every check is one
//! linear pass; nothing is changed.

pub mod engine;
pub mod input;

pub use crate::json::value::{Kind, Value};
pub use engine::*;
pub use input::*;

use crate::error::{Error, Result};
use crate::json::parse::Parser;
use crate::providers::facts::{Facts, Model};
use crate::providers::provider::Provider;
use crate::providers::{anthropic, bedrock, gemini, openai_chat, openai_responses};

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

/// Every violation of `p`'s rules in `items`, ordered by message index (rules
/// in table order within a message; `system`/`tools` ones first).
pub fn validate(p: Provider, items: &[Value], params: Params<'_>) -> Vec<Violation> {
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
pub fn needs_repair(p: Provider, items: &[Value], params: Params<'_>) -> bool {
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
pub fn needs(p: Provider, items: &[Value], params: Params<'_>) -> Needs {
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

/// The rules' context of `items` (a provider's [`Ctx`]).
pub(crate) fn prepare<'v>(p: Provider, items: &'v [Value], params: Params<'v>) -> Ctx<'v> {
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
fn records_model(p: Provider, items: &[Value]) -> Option<Model> {
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
fn one_value(b: &[u8]) -> Result<Value> {
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
