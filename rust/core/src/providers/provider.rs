//! The provider enum: the model APIs msgnorm reads and writes, their names
//! and their tool-name rules.

use super::value::Value;

/// The model APIs msgnorm reads and writes besides its own records (Claude Code
/// transcript records, Anthropic-shaped content blocks).
///
/// Names are the ones users pass as `source=` / `provider=` from Python.
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
    /// Whether the target's rules refuse `records` (a provider's history
    /// read by [`FromProvider`]) for starting with an assistant message
    /// (docs/RULES.md): only then does [`convert`] put a user turn before it
    /// (SPEC §4 step 10). Gemini refuses a first model turn with a function
    /// call (`gemini/function-call-placement`); Anthropic, OpenAI Chat,
    /// Responses and Bedrock take such a history (recorded 200s: Anthropic's
    /// own API has taken an assistant first message since late 2024).
    pub fn needs_user_first(self, records: &[Value]) -> bool {
        let first = || {
            records
                .iter()
                .filter_map(Value::as_obj)
                .find(|r| matches!(r.str("type"), Some("user" | "assistant")))
        };
        match self {
            Provider::Gemini => first().is_some_and(|r| {
                r.assistant_blocks()
                    .iter()
                    .filter_map(Value::as_obj)
                    .any(|b| b.str("type") == Some("tool_use"))
            }),
            Provider::Anthropic
            | Provider::OpenAIChat
            | Provider::OpenAIResponses
            | Provider::Bedrock => false,
        }
    }

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

    /// Whether the provider accepts `name` as a tool (function) name: 1 to 64
    /// characters of `[a-zA-Z0-9_-]`; Gemini also takes `.` and `:` but wants
    /// a letter or `_` first.
    pub fn tool_name_ok(self, name: &str) -> bool {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > TOOL_NAME_MAX {
            return false;
        }
        match self {
            Provider::Gemini => {
                (b[0].is_ascii_alphabetic() || b[0] == b'_')
                    && b.iter().all(|&c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
                    })
            }
            _ => b
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-'),
        }
    }

    /// The name the provider's output writes for the tool `name`: `name`
    /// itself when [`Provider::tool_name_ok`], else its allowed characters
    /// (others become `_`), cut to 55 bytes, then `_` and the CRC-32 of the
    /// whole name in hex. A pure function of the name, so calls, results and
    /// the caller's tool definitions (Python `rename_tools`) map the same way
    /// on every request; two names map to one only if their CRC-32s and
    /// kept prefixes both agree.
    pub fn tool_name(self, name: &str) -> std::borrow::Cow<'_, str> {
        if self.tool_name_ok(name) {
            return std::borrow::Cow::Borrowed(name);
        }
        let allowed = |c: char| match self {
            Provider::Gemini => c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'),
            _ => c.is_ascii_alphanumeric() || c == '_' || c == '-',
        };
        let mut out = String::with_capacity(TOOL_NAME_MAX);
        if self == Provider::Gemini
            && !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            out.push('_');
        }
        for c in name.chars() {
            if out.len() >= TOOL_NAME_MAX - 9 {
                break;
            }
            out.push(if allowed(c) { c } else { '_' });
        }
        out.push_str(&format!("_{:08x}", crc32fast::hash(name.as_bytes())));
        std::borrow::Cow::Owned(out)
    }
}

/// The longest tool name every provider accepts.
pub const TOOL_NAME_MAX: usize = 64;

/// Whether every provider takes `id` as a tool call id: 1 to `limit` bytes
/// of `[a-zA-Z0-9_-]`.
pub fn id_ok(id: &str, limit: usize) -> bool {
    !id.is_empty()
        && id.len() <= limit
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}
