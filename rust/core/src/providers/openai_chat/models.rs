//! OpenAI models (for both OpenAI formats, Chat Completions and Responses):
//! their token-counting family. No rule of either format depends on the
//! model yet.

use crate::providers::facts::{Facts, ModelRow};

const O200K: &str =
    "o200k_base encoding: openai/tiktoken model.py (MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING)";

macro_rules! openai {
    ($name:literal) => {
        ModelRow {
            name: $name,
            tokens: "o200k_base",
            facts: Facts::NONE,
            source: O200K,
        }
    };
}

pub static MODELS: &[ModelRow] = &[
    openai!("gpt-4o"),
    openai!("gpt-4o-mini"),
    openai!("gpt-4.1"),
    openai!("gpt-4.1-mini"),
    openai!("gpt-4.1-nano"),
    openai!("gpt-4.5"),
    openai!("gpt-5"),
    openai!("gpt-5-mini"),
    openai!("gpt-5-nano"),
    openai!("gpt-5-codex"),
    openai!("gpt-5.1"),
    openai!("gpt-5.2"),
    openai!("o1"),
    openai!("o1-mini"),
    openai!("o3"),
    openai!("o3-mini"),
    openai!("o4-mini"),
    openai!("codex-mini"),
    openai!("chatgpt-4o"),
];
