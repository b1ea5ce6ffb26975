//! Gemini models: which require thought signatures on function calls, and
//! their token-counting family.

use crate::providers::facts::{model_table, Facts, ModelRow};

/// Signatures on function calls not required (Gemini before 3).
const BEFORE_3: Facts = Facts {
    thought_signatures: Some(false),
    ..Facts::NONE
};

/// Signatures on function calls required (Gemini 3 on).
const FROM_3: Facts = Facts {
    thought_signatures: Some(true),
    ..Facts::NONE
};

const OPTIONAL: &str = "thought signatures optional before Gemini 3: ai.google.dev/gemini-api/docs/thought-signatures (\"Gemini 3 ... strict validation\"; 2.5 models return them, and requests without them are accepted)";
const REQUIRED: &str = "thought signatures required on function calls from Gemini 3 on: ai.google.dev/gemini-api/docs/thought-signatures; erain/glue v1.8.0 release notes (gemini-3.1-pro-preview, 400 \"Function call is missing a thought_signature\")";

pub static MODELS: &[ModelRow] = model_table!(
    "gemini",
    [
        ("gemini-1.5-pro", BEFORE_3, OPTIONAL),
        ("gemini-1.5-flash", BEFORE_3, OPTIONAL),
        ("gemini-2.0-flash", BEFORE_3, OPTIONAL),
        ("gemini-2.5-pro", BEFORE_3, OPTIONAL),
        ("gemini-2.5-flash", BEFORE_3, OPTIONAL),
        ("gemini-2.5-flash-lite", BEFORE_3, OPTIONAL),
        ("gemini-3-pro", FROM_3, REQUIRED),
        ("gemini-3-flash", FROM_3, REQUIRED),
        ("gemini-3.1-pro", FROM_3, REQUIRED),
        ("gemini-3.1-flash", FROM_3, REQUIRED),
    ]
);
