//! What a provider's model table holds: a row per model with the facts
//! that decide which rules its API applies ([`Facts`]), and a model as a
//! request names it ([`Model`]). The tables are in each provider's room;
//! [`super::models`] finds a name in them.

use super::provider::Provider;

/// Where an Anthropic-format request goes: the endpoint decides some rules
/// (which image source kinds it takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// The provider's own API (`api.anthropic.com`, OpenAI, Gemini API).
    Api,
    /// Amazon Bedrock (`anthropic.…-v1:0`, `us.anthropic.…`).
    Bedrock,
    /// Google Vertex AI (`…@20250929`).
    Vertex,
}

/// What a model's API does with a history, where it depends on the model.
/// `None`: not known (no rule reading the fact fires).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Facts {
    /// Anthropic: takes a final assistant message (prefill).
    pub prefill: Option<bool>,
    /// Anthropic: takes a `system` message among the messages.
    pub system_messages: Option<bool>,
    /// Gemini: requires a thought signature on each step's first function
    /// call of the current turn.
    pub thought_signatures: Option<bool>,
}

impl Facts {
    /// No fact known.
    pub const NONE: Facts = Facts {
        prefill: None,
        system_messages: None,
        thought_signatures: None,
    };
}

/// One row of a provider's model table.
#[derive(Debug)]
pub struct ModelRow {
    /// The base name (no date, no endpoint form).
    pub name: &'static str,
    /// The token-counting family: `"claude"`, `"o200k_base"` or `"gemini"`.
    pub tokens: &'static str,
    pub facts: Facts,
    /// The public source that shows the facts.
    pub source: &'static str,
}

/// A provider's model table: rows of one token-counting family, each
/// `(name, facts, source)`.
macro_rules! model_table {
    ($tokens:literal, [$(($name:literal, $facts:expr, $source:expr)),* $(,)?]) => {
        &[$($crate::providers::facts::ModelRow {
            name: $name,
            tokens: $tokens,
            facts: $facts,
            source: $source,
        }),*]
    };
}
pub(crate) use model_table;

/// A model the tables know, as a request names it.
#[derive(Clone, Copy, Debug)]
pub struct Model {
    /// Whose table the row is in (the request format whose rules it decides).
    pub provider: Provider,
    pub row: &'static ModelRow,
    pub endpoint: Endpoint,
}

impl Model {
    /// The facts of the model when a request of format `p` goes to it (none
    /// when the model is another provider's: an OpenAI model named in an
    /// Anthropic request decides no Anthropic rule).
    pub fn facts_for(&self, p: Provider) -> Facts {
        let same = self.provider == p
            || (self.provider == Provider::OpenAIChat && p == Provider::OpenAIResponses);
        if same {
            self.row.facts
        } else {
            Facts::NONE
        }
    }
}
