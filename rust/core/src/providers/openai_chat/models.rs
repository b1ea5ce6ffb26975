//! OpenAI models (for both OpenAI formats, Chat Completions and Responses):
//! their token-counting family. No rule of either format depends on the
//! model yet.

use crate::providers::facts::{model_table, Facts, ModelRow};

const O200K: &str =
    "o200k_base encoding: openai/tiktoken model.py (MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING)";

pub static MODELS: &[ModelRow] = model_table!(
    "o200k_base",
    [
        ("gpt-4o", Facts::NONE, O200K),
        ("gpt-4o-mini", Facts::NONE, O200K),
        ("gpt-4.1", Facts::NONE, O200K),
        ("gpt-4.1-mini", Facts::NONE, O200K),
        ("gpt-4.1-nano", Facts::NONE, O200K),
        ("gpt-4.5", Facts::NONE, O200K),
        ("gpt-5", Facts::NONE, O200K),
        ("gpt-5-mini", Facts::NONE, O200K),
        ("gpt-5-nano", Facts::NONE, O200K),
        ("gpt-5-codex", Facts::NONE, O200K),
        ("gpt-5.1", Facts::NONE, O200K),
        ("gpt-5.2", Facts::NONE, O200K),
        ("o1", Facts::NONE, O200K),
        ("o1-mini", Facts::NONE, O200K),
        ("o3", Facts::NONE, O200K),
        ("o3-mini", Facts::NONE, O200K),
        ("o4-mini", Facts::NONE, O200K),
        ("codex-mini", Facts::NONE, O200K),
        ("chatgpt-4o", Facts::NONE, O200K),
    ]
);
