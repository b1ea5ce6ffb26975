//! Claude models: which take an assistant prefill and a `system` message
//! among the messages, and their token-counting family. The endpoint a model
//! name denotes (Bedrock, Vertex) decides the image source kinds
//! ([`super::model_rules`]).

use crate::providers::facts::{model_table, Facts, ModelRow};

/// Prefill taken, no `system` message among the messages: every Claude before 4.6.
const UP_TO_4_5: Facts = Facts {
    prefill: Some(true),
    system_messages: Some(false),
    ..Facts::NONE
};

/// Claude 4.6 and 4.7: prefill refused, no `system` message among the messages.
const FROM_4_6: Facts = Facts {
    prefill: Some(false),
    system_messages: Some(false),
    ..Facts::NONE
};

const BEFORE_4_6: &str = "prefill taken before Claude 4.6: platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6 (breaking changes); `system` among the messages refused before Opus 4.8 (\"role 'system' is not supported on this model\", docs.rs/gproxy-transform claude_mid_conv_system)";
const SINCE_4_6: &str = "prefill refused from Claude 4.6 on (\"This model does not support assistant message prefill\"): platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6, docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-opus-4-7, llm-exe/llm-exe#503; `system` among the messages refused before Opus 4.8 (docs.rs/gproxy-transform claude_mid_conv_system)";

pub static MODELS: &[ModelRow] = model_table!(
    "claude",
    [
        ("claude-3-haiku", UP_TO_4_5, BEFORE_4_6),
        ("claude-3-sonnet", UP_TO_4_5, BEFORE_4_6),
        ("claude-3-opus", UP_TO_4_5, BEFORE_4_6),
        ("claude-3-5-haiku", UP_TO_4_5, BEFORE_4_6),
        ("claude-3-5-sonnet", UP_TO_4_5, BEFORE_4_6),
        ("claude-3-7-sonnet", UP_TO_4_5, BEFORE_4_6),
        ("claude-sonnet-4", UP_TO_4_5, BEFORE_4_6),
        ("claude-opus-4", UP_TO_4_5, BEFORE_4_6),
        ("claude-opus-4-1", UP_TO_4_5, BEFORE_4_6),
        ("claude-sonnet-4-5", UP_TO_4_5, BEFORE_4_6),
        ("claude-haiku-4-5", UP_TO_4_5, BEFORE_4_6),
        ("claude-opus-4-5", UP_TO_4_5, BEFORE_4_6),
        ("claude-opus-4-6", FROM_4_6, SINCE_4_6),
        ("claude-sonnet-4-6", FROM_4_6, SINCE_4_6),
        ("claude-opus-4-7", FROM_4_6, SINCE_4_6),
        (
            "claude-opus-4-8",
            Facts {
                prefill: Some(false),
                system_messages: Some(true),
                ..Facts::NONE
            },
            "prefill refused (livekit/agents#7217: Claude 4.7/4.8/5 refuse it); a `system` message among the messages taken from Opus 4.8 on (docs.rs/gproxy-transform claude_mid_conv_system)"
        ),
        // Claude 5: prefill refused; whether a `system` message among the
        // messages is taken is not shown by a public source we found (not checked).
        (
            "claude-sonnet-5",
            Facts {
                prefill: Some(false),
                system_messages: None,
                ..Facts::NONE
            },
            "prefill refused: livekit/agents#7217 (Claude 4.7/4.8/5 answer \"does not support assistant message prefill\")"
        ),
        (
            "claude-opus-5",
            Facts {
                prefill: Some(false),
                system_messages: None,
                ..Facts::NONE
            },
            "prefill refused: livekit/agents#7217 (Claude 4.7/4.8/5 answer \"does not support assistant message prefill\")"
        ),
    ]
);
