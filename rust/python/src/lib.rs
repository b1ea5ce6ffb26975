//! Python bindings of msgnorm: conversion and dispatch only; the algorithms
//! live in `msgnorm-core`.
//!
//! The binding keeps to CPython's C API: objects are reached through its
//! functions, never by reading their memory, and a call changes no state of
//! the interpreter's own. Every `unsafe` block says why it holds (the lints
//! below) and is reached by a test: the allocator's and the Arrow C
//! interfaces' by this crate's unit tests (`cargo test --workspace`), the rest
//! by the Python tests that call through them.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod alloc;
mod api;
mod args;
mod arrow;
mod arrow_ffi;
mod batch;
mod budget;
mod conversation;
mod editing;
mod errors;
mod exact;
mod fields;
mod fresh;
mod input;
mod providers;
mod read;
mod session;
mod usage;
mod validate;
mod view;
mod write;

/// The Rust side's allocator (see alloc.rs).
#[global_allocator]
static GLOBAL: alloc::Split = alloc::Split;

// What every module fails with and how it reaches Python.
pub(crate) use errors::{guard, to_pyerr, Failure};
use pyo3::prelude::*;

/// Forces a panic inside the guarded core path: tests prove it becomes a `MsgnormError`.
#[pyfunction]
fn _force_panic(py: Python<'_>, message: &str) -> PyResult<()> {
    let m = message.to_string();
    py.detach(|| guard(|| -> Result<(), Failure> { panic!("{m}") }))
        .map_err(|e| to_pyerr(py, e))
}

// The module runs without the GIL on a free-threaded CPython (3.14t): it keeps
// no state of its own outside a call but `PyOnceLock` tables (made once,
// thread-safe); a call reads its input through PyO3's API (on a free-threaded
// build, a list's items and a dict's entries come as strong references, under
// the object's own lock); the `#[pyclass]`es are `frozen`, their state behind a
// `Mutex` (a `Conversation` used from two threads runs one call at a time);
// the core's shared structures are `OnceLock`s and `Mutex`es.
#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(api::normalize_for_api, m)?)?;
    m.add_function(wrap_pyfunction!(api::normalize_for_api_report, m)?)?;
    m.add_function(wrap_pyfunction!(budget::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(budget::prompt_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(budget::content_texts, m)?)?;
    m.add_function(wrap_pyfunction!(budget::_token_features, m)?)?;
    m.add_function(wrap_pyfunction!(args::counting, m)?)?;
    m.add_function(wrap_pyfunction!(args::max_media_arg, m)?)?;
    m.add_function(wrap_pyfunction!(args::count_arg, m)?)?;
    m.add_function(wrap_pyfunction!(api::normalize_messages, m)?)?;
    m.add_function(wrap_pyfunction!(budget::count_tokens_per_record, m)?)?;
    m.add_function(wrap_pyfunction!(budget::find_cutoff, m)?)?;
    m.add_function(wrap_pyfunction!(budget::trim_to_budget, m)?)?;
    m.add_function(wrap_pyfunction!(budget::split_for_summary, m)?)?;
    m.add_function(wrap_pyfunction!(api::to_anthropic, m)?)?;
    m.add_function(wrap_pyfunction!(api::validate_records, m)?)?;
    m.add_function(wrap_pyfunction!(providers::from_provider, m)?)?;
    m.add_function(wrap_pyfunction!(providers::to_provider, m)?)?;
    m.add_function(wrap_pyfunction!(providers::convert, m)?)?;
    m.add_function(wrap_pyfunction!(providers::tool_name, m)?)?;
    m.add_function(wrap_pyfunction!(editing::clear_context, m)?)?;
    m.add_function(wrap_pyfunction!(api::render_attachment, m)?)?;
    m.add_function(wrap_pyfunction!(api::derive_uuid, m)?)?;
    m.add_function(wrap_pyfunction!(api::derive_short_message_id, m)?)?;
    m.add_function(wrap_pyfunction!(session::load_session, m)?)?;
    m.add_function(wrap_pyfunction!(usage::usage_scan, m)?)?;
    m.add_function(wrap_pyfunction!(usage::session_infos, m)?)?;
    m.add_function(wrap_pyfunction!(usage::search_files, m)?)?;
    m.add_function(wrap_pyfunction!(usage::usage_entries, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(batch::default_num_threads, m)?)?;
    m.add_class::<conversation::Conversation>()?;
    m.add_class::<exact::Bpe>()?;
    m.add_class::<arrow_ffi::ArrowArray>()?;
    m.add_class::<arrow_ffi::ArrowStream>()?;
    m.add_function(wrap_pyfunction!(arrow::arrow_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate::rules, m)?)?;
    m.add_function(wrap_pyfunction!(validate::rules_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(_force_panic, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the Cargo profile of this build (build.rs): `release`, `dist`, `dev`
    m.add("BUILD_PROFILE", env!("MSGNORM_BUILD_PROFILE"))?;
    Ok(())
}
