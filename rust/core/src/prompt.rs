//! SPEC §6.1: the size of the next request's prompt, anchored on the usage the
//! provider reported for an earlier request.
//!
//! [`Prompt`] is fed one record at a time (its §6 tokens and its [`Facts`]) and
//! keeps only the latest anchor and the estimate of the records since it, so
//! a whole history and an incremental conversation give the same number.

use crate::error::Result;
use crate::json::parse::{Parser, Peek};
use crate::json::{read_records, Raw, ReadOpts};
use crate::model::{Kind, Record};
use crate::tokens::{record_tokens, CountParams};
use crate::usage::count;
use crate::usage::skim::{message, next_key, object, skip, str_or_skip};
use std::borrow::Cow;

type R<T> = std::result::Result<T, crate::error::Error>;

/// The model of the replies Claude Code makes itself (never a request).
const SYNTHETIC: &str = "<synthetic>";

/// What one request reported: its prompt and its reply, in tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reported {
    pub prompt: u64,
    pub output: u64,
}

/// The token counts of a `usage` object that §6.1 reads, by provider shape.
#[derive(Clone, Copy, Debug, Default)]
pub struct UsageKeys {
    input: Option<u64>,
    cache_creation: Option<u64>,
    cache_read: Option<u64>,
    output: Option<u64>,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_token_count: Option<u64>,
    candidates_token_count: Option<u64>,
}

impl UsageKeys {
    /// Takes `key`'s count if §6.1 reads that key; whether it does.
    pub fn set(&mut self, key: &str, v: u64) -> bool {
        let slot = match key {
            "input_tokens" => &mut self.input,
            "cache_creation_input_tokens" => &mut self.cache_creation,
            "cache_read_input_tokens" => &mut self.cache_read,
            "output_tokens" => &mut self.output,
            "prompt_tokens" => &mut self.prompt_tokens,
            "completion_tokens" => &mut self.completion_tokens,
            "promptTokenCount" => &mut self.prompt_token_count,
            "candidatesTokenCount" => &mut self.candidates_token_count,
            _ => return false,
        };
        *slot = Some(v);
        true
    }

    /// The request's prompt and reply: Anthropic's `input_tokens` +
    /// `cache_creation_input_tokens` + `cache_read_input_tokens` (OpenAI
    /// Responses' `input_tokens`), else OpenAI Chat's `prompt_tokens`, else
    /// Gemini's `promptTokenCount`; the reply `output_tokens`, else
    /// `completion_tokens`, else `candidatesTokenCount`. `None` when no prompt
    /// was reported or it is 0 (a placeholder, not a request).
    pub fn reported(&self) -> Option<Reported> {
        let prompt =
            if self.input.is_some() || self.cache_creation.is_some() || self.cache_read.is_some() {
                let sum = |v: Option<u64>| v.unwrap_or(0);
                sum(self.input)
                    .saturating_add(sum(self.cache_creation))
                    .saturating_add(sum(self.cache_read))
            } else {
                self.prompt_tokens.or(self.prompt_token_count)?
            };
        if prompt == 0 {
            return None;
        }
        let output = self
            .output
            .or(self.completion_tokens)
            .or(self.candidates_token_count)
            .unwrap_or(0);
        Some(Reported { prompt, output })
    }
}

/// What §6.1 reads of a record besides its tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts<'a> {
    pub kind: Kind,
    /// `message.id` of an assistant record.
    pub message_id: Option<Cow<'a, str>>,
    /// `message.model` of an assistant record.
    pub model: Option<Cow<'a, str>>,
    /// `message.usage` of an assistant record, when it reports a request.
    pub usage: Option<Reported>,
    /// A compaction: a `system` record with `subtype: "compact_boundary"`, or
    /// a record with `isCompactSummary: true`.
    pub boundary: bool,
}

impl Facts<'_> {
    pub fn of_kind(kind: Kind) -> Self {
        Facts {
            kind,
            message_id: None,
            model: None,
            usage: None,
            boundary: false,
        }
    }
}

/// The latest request whose usage was reported, and what follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Anchor {
    id: Option<String>,
    model: Option<String>,
    reported: Reported,
    /// §6 tokens of the reply's own records (every record of its `message.id`).
    reply: u64,
    /// §6 tokens of the other records after the reply's first.
    after: u64,
    /// Reported by [`Prompt::record_usage`] before its reply was appended:
    /// the next assistant record is the reply.
    pending: bool,
}

/// §6.1's running state over a history: see the module documentation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    /// §6 tokens of the records since the last compaction.
    since: u64,
    anchor: Option<Anchor>,
    /// The assistant records at the end of the history: their §6 tokens,
    /// the last one's `message.id` and `message.model`.
    trail: u64,
    trail_id: Option<String>,
    trail_model: Option<String>,
}

impl Prompt {
    /// Takes in the next record: its §6 tokens and its facts.
    pub fn push(&mut self, tokens: u64, f: &Facts<'_>) {
        if f.boundary {
            *self = Prompt::default();
        }
        self.since = self.since.saturating_add(tokens);
        if f.kind == Kind::Assistant {
            self.trail = self.trail.saturating_add(tokens);
            if f.message_id.is_some() {
                self.trail_id = f.message_id.as_deref().map(str::to_string);
            }
            if f.model.is_some() {
                self.trail_model = f.model.as_deref().map(str::to_string);
            }
        } else if f.kind.is_message() {
            self.trail = 0;
            self.trail_id = None;
            self.trail_model = None;
        }
        if f.kind == Kind::Assistant && f.model.as_deref() != Some(SYNTHETIC) {
            if let Some(a) = self.anchor.as_mut() {
                if a.pending && f.usage.is_none() {
                    // the reply of a usage recorded before it was appended
                    a.pending = false;
                    a.id = f.message_id.as_deref().map(str::to_string);
                    a.model = f.model.as_deref().map(str::to_string);
                    a.reply = tokens;
                    return;
                }
                if a.id.is_some() && a.id.as_deref() == f.message_id.as_deref() {
                    // the same streamed reply: one request, its largest output
                    a.reply = a.reply.saturating_add(tokens);
                    if let Some(u) = f.usage {
                        a.reported.output = a.reported.output.max(u.output);
                    }
                    return;
                }
            }
            if let Some(u) = f.usage {
                self.anchor = Some(Anchor {
                    id: f.message_id.as_deref().map(str::to_string),
                    model: f.model.as_deref().map(str::to_string),
                    reported: u,
                    reply: tokens,
                    after: 0,
                    pending: false,
                });
                return;
            }
            let switched = self
                .anchor
                .as_ref()
                .is_some_and(|a| matches!((&a.model, &f.model), (Some(a), Some(b)) if a != b));
            if switched {
                // another model reads the whole history, in its own tokens
                self.anchor = None;
                return;
            }
        }
        if let Some(a) = self.anchor.as_mut() {
            a.after = a.after.saturating_add(tokens);
        }
    }

    /// A provider's reported usage of the request made with the history so
    /// far: the assistant records at its end, if any, are that request's
    /// reply; else the next assistant record appended is.
    pub fn record_usage(&mut self, u: Reported) {
        let pending = self.trail == 0;
        self.anchor = Some(Anchor {
            id: if pending { None } else { self.trail_id.clone() },
            model: if pending {
                None
            } else {
                self.trail_model.clone()
            },
            reported: u,
            reply: self.trail,
            after: 0,
            pending,
        });
    }

    /// The next request's prompt: the anchor's prompt + its reply + the
    /// records after it; without an anchor the estimate of the records since
    /// the last compaction + `extra` (the system prompt and tools).
    pub fn tokens(&self, extra: u64) -> u64 {
        match &self.anchor {
            Some(a) => a
                .reported
                .prompt
                .saturating_add(a.reported.output.max(a.reply))
                .saturating_add(a.after),
            None => self.since.saturating_add(extra),
        }
    }

    /// Whether a reported usage anchors the size.
    pub fn anchored(&self) -> bool {
        self.anchor.is_some()
    }
}

/// The §6.1 facts of a record read from JSON, from its raw text.
pub fn facts_of_raw<'a, H>(r: &Record<'a, H>, raw: &'a str) -> Result<Facts<'a>> {
    let mut f = Facts::of_kind(r.kind);
    match r.kind {
        Kind::Assistant | Kind::System => {}
        _ => {
            // only a compaction summary matters here
            if memchr::memmem::find(raw.as_bytes(), b"\"isCompactSummary\"").is_none() {
                return Ok(f);
            }
        }
    }
    let mut p = Parser::new(raw);
    skim_record(&mut p, &mut f)?;
    Ok(f)
}

fn skim_record<'a>(p: &mut Parser<'a>, f: &mut Facts<'a>) -> R<()> {
    p.begin_object()?;
    let mut first = true;
    while let Some(k) = next_key(p, &mut first)? {
        match &*k {
            "isCompactSummary" => {
                if p.bool_or_skip()? == Some(true) {
                    f.boundary = true;
                }
            }
            "subtype" if f.kind == Kind::System => {
                if str_or_skip(p)?.as_deref() == Some("compact_boundary") {
                    f.boundary = true;
                }
            }
            "message" if f.kind == Kind::Assistant && p.peek()? == Peek::Object => {
                message(p, &mut f.message_id, &mut f.model, |p| {
                    if p.peek()? != Peek::Object {
                        return skip(p);
                    }
                    let mut u = UsageKeys::default();
                    object(p, |k, p| {
                        if p.peek()? == Peek::Number {
                            // a count that is not a non-negative integer is not read
                            if let Ok(v) = count(p) {
                                u.set(k, v);
                            }
                        } else {
                            p.skip_value()?;
                        }
                        Ok(())
                    })?;
                    f.usage = u.reported();
                    Ok(())
                })?;
            }
            _ => skip(p)?,
        }
    }
    Ok(())
}

/// §6 tokens of a system prompt and tool schemas (their characters), sent only
/// where no anchor covers them.
pub fn extra_tokens(texts: &[&str], p: &CountParams) -> Result<u64> {
    p.check()?;
    Ok(texts
        .iter()
        .map(|t| crate::tokens::text_tokens(t, p))
        .fold(0u64, u64::saturating_add))
}

/// [`Prompt`] over records read from JSON (an array or JSON Lines).
pub fn prompt_json(src: &str, p: &CountParams, extra: u64) -> Result<u64> {
    p.check()?;
    let recs = read_records(src, ReadOpts::counting(p))?;
    prompt_of(&recs, p).map(|s| s.tokens(extra))
}

/// [`Prompt`] over records read from JSON.
pub fn prompt_of<'a>(recs: &[Record<'a, Raw<'a>>], p: &CountParams) -> Result<Prompt> {
    let mut s = Prompt::default();
    let p = &p.resolved(recs);
    for r in recs {
        let raw = r.orig.map_or("{}", |o| o.text);
        s.push(record_tokens(r, p), &facts_of_raw(r, raw)?);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str) -> u64 {
        prompt_json(src, &CountParams::default(), 7).unwrap()
    }

    const USER: &str =
        r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"abcdefgh"}}"#;

    fn reply(id: &str, model: &str, usage: &str, text: &str) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"a-{id}-{text}","message":{{"id":"{id}","model":"{model}","role":"assistant","content":[{{"type":"text","text":"{text}"}}],"usage":{{{usage}}}}}}}"#
        )
    }

    #[test]
    fn nothing_reported_is_the_estimate_plus_extra() {
        // "abcdefgh": 2 + 3 per message
        assert_eq!(at(USER), 5 + 7);
    }

    #[test]
    fn streamed_reply_counts_once_with_its_largest_output() {
        let u1 = r#""input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":1"#;
        let u2 = r#""input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":50"#;
        let src = format!(
            "{USER}\n{}\n{}\n{USER}",
            reply("m1", "claude-x", u1, "a"),
            reply("m1", "claude-x", u2, "b")
        );
        assert_eq!(at(&src), 1110 + 50 + 5);
    }

    #[test]
    fn a_truncated_output_gives_way_to_the_reply_estimate() {
        let u = r#""input_tokens":100,"output_tokens":1"#;
        let long = "x".repeat(400);
        let src = format!("{USER}\n{}", reply("m1", "claude-x", u, &long));
        assert_eq!(at(&src), 100 + 100 + 3);
    }

    #[test]
    fn compaction_and_model_switch_drop_the_anchor() {
        let u = r#""input_tokens":1000,"output_tokens":5"#;
        let boundary = r#"{"type":"system","uuid":"s1","subtype":"compact_boundary","content":"Conversation compacted"}"#;
        let src = format!(
            "{USER}\n{}\n{boundary}\n{USER}",
            reply("m1", "claude-x", u, "a")
        );
        assert_eq!(at(&src), 5 + 7);
        let other = reply("m2", "claude-y", "", "abcd");
        let src = format!("{USER}\n{}\n{other}", reply("m1", "claude-x", u, "a"));
        // the whole history estimated: 5 + 4 + 4, and the extra
        assert_eq!(at(&src), 5 + 4 + 4 + 7);
    }

    #[test]
    fn provider_shapes() {
        let cases = [
            (
                ("prompt_tokens", 40),
                ("completion_tokens", 2),
                Some((40, 2)),
            ),
            (
                ("promptTokenCount", 30),
                ("candidatesTokenCount", 3),
                Some((30, 3)),
            ),
            (("input_tokens", 0), ("output_tokens", 0), None),
        ];
        for ((pk, pv), (ok, ov), want) in cases {
            let mut k = UsageKeys::default();
            k.set(pk, pv);
            k.set(ok, ov);
            let want = want.map(|(prompt, output)| Reported { prompt, output });
            assert_eq!(k.reported(), want, "{pk}, {ok}");
        }
    }
}
