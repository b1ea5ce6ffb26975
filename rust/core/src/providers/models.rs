//! Models by name: the facts about a model that decide which rules its API
//! applies to a history, and the token-counting family it belongs to.
//!
//! Each provider keeps its own table (`anthropic/models.rs`,
//! `gemini/models.rs`, `openai_chat/models.rs` for both OpenAI formats), one
//! row per model (or model line), each naming the public source that shows
//! its facts. A fact left `None` is not known: the rule that reads it does
//! not fire for that model, as no rule that only some models enforce fires
//! without a model.
//!
//! A name is matched as users write it: with or without a date suffix
//! (`claude-sonnet-4-5-20250929`), in its Bedrock (`anthropic.…-v1:0`,
//! `us.anthropic.…`) and Vertex (`…@20250929`) forms, with Gemini's
//! `models/` prefix. A row's name matches the whole base name, or its start
//! followed by `-` and a word that is not a version number
//! (`gemini-2.5-flash-preview-05-20`, `claude-3-5-sonnet-v2@20241022`), so
//! an unknown later version (`claude-opus-4-9`) matches no row.

pub use super::facts::{Endpoint, Facts, Model, ModelRow};
use super::provider::Provider;

/// Bedrock's cross-region inference prefixes (`us.anthropic.…`).
const REGIONS: &[&str] = &[
    "us.", "eu.", "apac.", "au.", "jp.", "ca.", "global.", "us-gov.",
];

/// The base name of `name` and the endpoint its form names.
fn base(name: &str) -> (&str, Endpoint) {
    let mut s = name.trim();
    let mut endpoint = Endpoint::Api;
    for prefix in [
        "models/",
        "publishers/anthropic/models/",
        "publishers/google/models/",
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest;
        }
    }
    // Bedrock: [region.]anthropic.<name>[-v1:0]
    let mut t = s;
    for r in REGIONS {
        if let Some(rest) = t.strip_prefix(r) {
            t = rest;
            break;
        }
    }
    if let Some(rest) = t.strip_prefix("anthropic.") {
        endpoint = Endpoint::Bedrock;
        s = rest;
        // -v1:0, -v2:0, -v1
        if let Some(k) = s.rfind("-v") {
            let tail = &s[k + 2..];
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit() || b == b':') {
                s = &s[..k];
            }
        }
    }
    // Vertex: <name>@<date> (or @latest, @default)
    if let Some(k) = s.find('@') {
        endpoint = Endpoint::Vertex;
        s = &s[..k];
    }
    // a date suffix: -20250929 or -2025-09-29
    if let Some(k) = s.rfind('-') {
        let tail = &s[k + 1..];
        if tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()) {
            s = &s[..k];
        }
    }
    // (a name is any text: the cut must fall between two characters)
    if s.len() > 11 && s.is_char_boundary(s.len() - 11) {
        let (head, tail) = s.split_at(s.len() - 11);
        let b = tail.as_bytes();
        if b[0] == b'-'
            && b[5] == b'-'
            && b[8] == b'-'
            && tail[1..5].bytes().all(|c| c.is_ascii_digit())
            && tail[6..8].bytes().all(|c| c.is_ascii_digit())
            && tail[9..].bytes().all(|c| c.is_ascii_digit())
        {
            s = head;
        }
    }
    (s, endpoint)
}

/// Whether `row` names `name` (a base name): the whole of it, or its start
/// followed by `-` and a word that does not start with a digit.
fn matches(row: &str, name: &str) -> bool {
    match name.strip_prefix(row) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('-')
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_alphabetic())),
        None => false,
    }
}

/// Each provider's table, in lookup order.
fn tables() -> [(Provider, &'static [ModelRow]); 3] {
    [
        (Provider::Anthropic, super::anthropic::models::MODELS),
        (Provider::Gemini, super::gemini::models::MODELS),
        (Provider::OpenAIChat, super::openai_chat::models::MODELS),
    ]
}

/// The model `name` denotes, if a table knows it (the longest matching row).
pub fn lookup(name: &str) -> Option<Model> {
    let (b, endpoint) = base(name);
    if b.is_empty() {
        return None;
    }
    let mut best: Option<Model> = None;
    for (provider, rows) in tables() {
        for row in rows {
            let longer = best.is_none_or(|m| row.name.len() > m.row.name.len());
            if longer && matches(row.name, b) {
                best = Some(Model {
                    provider,
                    row,
                    endpoint,
                });
            }
        }
    }
    best
}

/// The token-counting family of `model` (`"claude"`, `"o200k_base"`,
/// `"gemini"`), read from the model tables; `None` for a model they do not know.
pub fn token_family(model: &str) -> Option<&'static str> {
    lookup(model).map(|m| m.row.tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_every_form() {
        for (name, row, endpoint) in [
            ("claude-sonnet-4-5", "claude-sonnet-4-5", Endpoint::Api),
            (
                "claude-sonnet-4-5-20250929",
                "claude-sonnet-4-5",
                Endpoint::Api,
            ),
            (
                "anthropic.claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5",
                Endpoint::Bedrock,
            ),
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5",
                Endpoint::Bedrock,
            ),
            (
                "global.anthropic.claude-opus-4-6-v1",
                "claude-opus-4-6",
                Endpoint::Bedrock,
            ),
            (
                "claude-sonnet-4-5@20250929",
                "claude-sonnet-4-5",
                Endpoint::Vertex,
            ),
            (
                "claude-3-5-sonnet-v2@20241022",
                "claude-3-5-sonnet",
                Endpoint::Vertex,
            ),
            ("claude-opus-4-20250514", "claude-opus-4", Endpoint::Api),
            ("claude-opus-4-1-20250805", "claude-opus-4-1", Endpoint::Api),
            ("models/gemini-2.5-flash", "gemini-2.5-flash", Endpoint::Api),
            (
                "gemini-2.5-flash-lite",
                "gemini-2.5-flash-lite",
                Endpoint::Api,
            ),
            (
                "gemini-2.5-flash-preview-05-20",
                "gemini-2.5-flash",
                Endpoint::Api,
            ),
            ("gemini-3-pro-preview", "gemini-3-pro", Endpoint::Api),
            ("gpt-4o-2024-08-06", "gpt-4o", Endpoint::Api),
            ("gpt-5-mini", "gpt-5-mini", Endpoint::Api),
        ] {
            let m = lookup(name).unwrap_or_else(|| panic!("{name} not found"));
            assert_eq!((m.row.name, m.endpoint), (row, endpoint), "{name}");
        }
    }

    #[test]
    fn unknown_later_versions_match_no_row() {
        for name in [
            "claude-opus-4-9",
            "claude-sonnet-4-7",
            "gemini-9-pro",
            "",
            "llama-3",
        ] {
            assert!(lookup(name).is_none(), "{name}");
        }
    }

    #[test]
    fn token_families_come_from_the_tables() {
        assert_eq!(token_family("claude-haiku-4-5-20251001"), Some("claude"));
        assert_eq!(
            token_family("us.anthropic.claude-opus-4-8-v1:0"),
            Some("claude")
        );
        assert_eq!(token_family("gpt-4.1-mini"), Some("o200k_base"));
        assert_eq!(token_family("o3"), Some("o200k_base"));
        assert_eq!(token_family("gemini-3-flash-preview"), Some("gemini"));
        assert_eq!(token_family("mistral-large"), None);
        for (p, rows) in tables() {
            for r in rows {
                assert!(
                    matches!(r.tokens, "claude" | "o200k_base" | "gemini"),
                    "{}",
                    r.name
                );
                assert!(!r.source.is_empty(), "{} has no source", r.name);
                assert_eq!(
                    lookup(r.name).map(|m| (m.provider, m.row.name)),
                    Some((p, r.name))
                );
            }
        }
    }

    #[test]
    fn facts_only_for_their_own_format() {
        let m = lookup("claude-opus-4-6").unwrap();
        assert_eq!(m.facts_for(Provider::Anthropic).prefill, Some(false));
        assert_eq!(m.facts_for(Provider::Gemini), Facts::NONE);
    }
}
