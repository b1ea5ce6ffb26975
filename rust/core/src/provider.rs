//! The model APIs msgnorm reads and writes besides its own records (Claude Code
//! transcript records, Anthropic-shaped content blocks).
//!
//! Names are the ones users pass as `source=` / `provider=` from Python.

/// A provider's message format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic Messages API: `{"role", "content"}` with a separate `system`.
    Anthropic,
    /// OpenAI Chat Completions messages.
    OpenAIChat,
    /// OpenAI Responses API input items.
    OpenAIResponses,
    /// Gemini `contents` (`{"role": "user"|"model", "parts"}`).
    Gemini,
    /// Amazon Bedrock Converse messages.
    Bedrock,
}

impl Provider {
    pub const ALL: [Provider; 5] = [
        Provider::Anthropic,
        Provider::OpenAIChat,
        Provider::OpenAIResponses,
        Provider::Gemini,
        Provider::Bedrock,
    ];

    /// The name users pass (`"openai-chat"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAIChat => "openai-chat",
            Provider::OpenAIResponses => "openai-responses",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
        }
    }

    /// The provider a name denotes; `None` for an unknown name (the caller
    /// lists [`Provider::ALL`] in its error).
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(Provider::from_name(p.name()), Some(p));
        }
        assert_eq!(Provider::from_name("openai"), None);
    }
}
