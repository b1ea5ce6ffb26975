//! SPEC §6: token counts from the costs the backends gathered: the §6
//! formula ("chars") or an estimate calibrated to a tokenizer family.

pub mod classes;
pub mod han;
pub mod media;
mod weights;

use crate::error::{Error, Result};
use crate::model::{Classes, Cost, Record};

/// The tokenizer family type lives beside the costs it reads ([`crate::model`]):
/// the model knows nothing of this module.
pub use crate::model::Family;

impl Family {
    /// The family of a model name: `claude-*`, `gpt-*`/`o1`/`o3`/`o4`/`chatgpt-*`
    /// and `gemini-*`, with or without a date suffix, and in their Bedrock
    /// (`anthropic.claude-...`, `us.anthropic.claude-...`, `openai.gpt-...`) and
    /// Vertex (`claude-...@date`, `publishers/google/models/gemini-...`) forms.
    /// A model the providers' model tables list takes its row's family
    /// ([`crate::providers::models::token_family`]); others, by these names.
    pub fn of_model(model: &str) -> Option<Family> {
        match crate::providers::models::token_family(model) {
            Some("claude") => return Some(Family::Claude),
            Some("o200k_base") => return Some(Family::O200k),
            Some("gemini") => return Some(Family::Gemini),
            _ => {}
        }
        let base = model.rsplit('/').next().unwrap_or(model);
        let base = base.to_ascii_lowercase();
        if base.contains("claude") {
            return Some(Family::Claude);
        }
        if base.contains("gemini") {
            return Some(Family::Gemini);
        }
        // Bedrock's regional and provider prefixes
        let name = base.rsplit("openai.").next().unwrap_or(&base);
        let o_series = |n: &str| {
            let b = n.as_bytes();
            b.len() >= 2 && b[0] == b'o' && b[1].is_ascii_digit()
        };
        if name.starts_with("gpt-")
            || name.starts_with("chatgpt-")
            || name.starts_with("codex-")
            || o_series(name)
        {
            return Some(Family::O200k);
        }
        None
    }
}

/// What `tokenizer=` names (SPEC §6): the §6 formula, a family's calibrated
/// estimate, or `Auto`: the family of the records' latest `message.model`,
/// else Claude's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    Auto,
    Chars,
    Family(Family),
    /// OpenAI's cl100k_base: counted only exactly (`exact=True`, in Python).
    Cl100k,
}

impl Tokenizer {
    pub fn parse(s: &str) -> Option<Tokenizer> {
        Some(match s {
            "auto" => Tokenizer::Auto,
            "chars" => Tokenizer::Chars,
            "claude" => Tokenizer::Family(Family::Claude),
            "o200k_base" => Tokenizer::Family(Family::O200k),
            "gemini" => Tokenizer::Family(Family::Gemini),
            "cl100k_base" => Tokenizer::Cl100k,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Auto => "auto",
            Tokenizer::Chars => "chars",
            Tokenizer::Family(Family::Claude) => "claude",
            Tokenizer::Family(Family::O200k) => "o200k_base",
            Tokenizer::Family(Family::Gemini) => "gemini",
            Tokenizer::Cl100k => "cl100k_base",
        }
    }
}

/// The family `Auto` takes for records: that of the latest record with a
/// known model, else Claude's.
pub fn auto_family<H>(recs: &[Record<'_, H>]) -> Family {
    recs.iter()
        .rev()
        .find_map(|r| r.family)
        .unwrap_or(Family::Claude)
}

#[derive(Clone, Copy, Debug)]
pub struct CountParams {
    pub chars_per_token: f64,
    pub tokens_per_message: u64,
    pub tokens_per_image: u64,
    pub tokens_per_document: u64,
    /// The core's default is the §6 formula; the Python API's is `Auto`.
    pub tokenizer: Tokenizer,
}

impl Default for CountParams {
    fn default() -> Self {
        CountParams {
            chars_per_token: 4.0,
            tokens_per_message: 3,
            tokens_per_image: 1600,
            tokens_per_document: 3000,
            tokenizer: Tokenizer::Chars,
        }
    }
}

impl CountParams {
    pub fn check(&self) -> Result<()> {
        if !(self.chars_per_token.is_finite() && self.chars_per_token > 0.0) {
            return Err(Error::value(format!(
                "chars_per_token must be a finite number > 0, not {}",
                self.chars_per_token
            )));
        }
        if self.tokenizer == Tokenizer::Cl100k {
            return Err(Error::value(
                "tokenizer='cl100k_base' is counted only exactly (exact=True)",
            ));
        }
        Ok(())
    }
    /// These parameters with `Auto` resolved for `recs`.
    pub fn resolved<H>(&self, recs: &[Record<'_, H>]) -> CountParams {
        let mut p = *self;
        if p.tokenizer == Tokenizer::Auto {
            p.tokenizer = Tokenizer::Family(auto_family(recs));
        }
        p
    }
    /// With `Auto` resolved to `f`.
    pub fn resolved_to(&self, f: Family) -> CountParams {
        let mut p = *self;
        if p.tokenizer == Tokenizer::Auto {
            p.tokenizer = Tokenizer::Family(f);
        }
        p
    }
}

/// Tokens of each record: 0 for non-messages, else the §6 formula
/// (`ceil(chars / chars_per_token) + fixed + tokens_per_message`) or the
/// tokenizer family's estimate (`Auto` resolved over `recs`).
pub fn per_record<H>(recs: &[Record<'_, H>], p: &CountParams) -> Result<Vec<u64>> {
    p.check()?;
    let p = p.resolved(recs);
    Ok(recs.iter().map(|r| record_tokens(r, &p)).collect())
}

/// [`per_record`] of one record; `p` must be valid ([`CountParams::check`]);
/// an unresolved `Auto` counts as Claude's.
#[inline]
pub fn record_tokens<H>(r: &Record<'_, H>, p: &CountParams) -> u64 {
    if !r.kind.is_message() {
        return 0;
    }
    cost_tokens(&r.cost, p)
}

/// Tokens of a message of cost `c` (its per-message tokens included).
#[inline]
pub fn cost_tokens(c: &Cost, p: &CountParams) -> u64 {
    match p.tokenizer {
        Tokenizer::Chars => {
            let text = (c.chars as f64 / p.chars_per_token).ceil() as u64;
            text.saturating_add(c.images.saturating_mul(p.tokens_per_image))
                .saturating_add(c.documents.saturating_mul(p.tokens_per_document))
                .saturating_add(p.tokens_per_message)
        }
        Tokenizer::Auto | Tokenizer::Cl100k => weights::estimate(c, Family::Claude),
        Tokenizer::Family(f) => weights::estimate(c, f),
    }
}

/// Tokens of a bare text (a system prompt, a tool schema's JSON): no
/// per-message tokens; an unresolved `Auto` counts as Claude's.
pub fn text_tokens(s: &str, p: &CountParams) -> u64 {
    match p.tokenizer {
        Tokenizer::Chars => (s.chars().count() as f64 / p.chars_per_token).ceil() as u64,
        Tokenizer::Auto | Tokenizer::Family(_) | Tokenizer::Cl100k => {
            let f = match p.tokenizer {
                Tokenizer::Family(f) => f,
                _ => Family::Claude,
            };
            let c = Cost {
                cls: classes_of(s),
                ..Cost::default()
            };
            weights::estimate(&c, f).saturating_sub(weights::of(f).message)
        }
    }
}

/// The classes of a text, for a part a step writes (a placeholder).
pub fn classes_of(s: &str) -> Classes {
    let mut c = Classes::default();
    classes::tally_str(&mut c, s);
    c.text()
}

#[cfg(test)]
mod tests {
    use super::Family;

    #[test]
    fn the_family_of_a_listed_model_is_its_table_row() {
        for (model, want) in [
            ("claude-sonnet-4-5-20250929", Family::Claude),
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                Family::Claude,
            ),
            ("gemini-2.5-flash", Family::Gemini),
            ("gpt-4o-2024-08-06", Family::O200k),
        ] {
            let row = crate::providers::models::token_family(model);
            assert!(row.is_some(), "{model} is not in the model tables");
            assert_eq!(Family::of_model(model), Some(want), "{model}");
        }
        // names the tables do not list fall back on the family's names
        assert_eq!(Family::of_model("claude-future-9"), Some(Family::Claude));
        assert_eq!(Family::of_model("o9-mini"), Some(Family::O200k));
        assert_eq!(Family::of_model("llama-3"), None);
    }

    #[test]
    fn chars_reads_no_classes_and_counts_the_same() {
        use crate::json::{read_records, ReadOpts};
        use crate::tokens::{per_record, CountParams, Tokenizer};
        let src = r#"[{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"text","text":"héllo 世界 42"},{"type":"tool_result","tool_use_id":"t","content":"ok"}]}},{"type":"assistant","uuid":"a","message":{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t","name":"Read","input":{"path":"/x","n":[1,2]}}]}}]"#;
        let chars = CountParams {
            tokenizer: Tokenizer::Chars,
            ..CountParams::default()
        };
        let with = read_records(src, ReadOpts::COUNT).unwrap();
        let without = read_records(src, ReadOpts::counting(&chars)).unwrap();
        assert!(!ReadOpts::counting(&chars).classes && ReadOpts::COUNT.classes);
        for (w, o) in with.iter().zip(&without) {
            assert_eq!(w.cost.chars, o.cost.chars);
            assert_eq!(o.cost.cls, crate::model::Classes::default());
        }
        assert_ne!(with[0].cost.cls, crate::model::Classes::default());
        let p = chars.resolved(&with);
        assert_eq!(
            per_record(&with, &p).unwrap(),
            per_record(&without, &p).unwrap()
        );
    }

    #[test]
    fn any_model_name_is_read_without_a_panic() {
        // a cut inside a character (fuzz regression `budget/chars-tokenizer-trim`)
        for name in [
            "claude-😀sonnet-4-5",
            "😀😀😀😀",
            "é-2025-09-2é",
            "a😀-v1:0@x",
            "",
        ] {
            let _ = Family::of_model(name);
            let _ = crate::providers::models::lookup(name);
        }
        assert_eq!(
            Family::of_model("claude-😀sonnet-4-5"),
            Some(Family::Claude)
        );
    }
}
