//! msgnorm's core: normalization of LLM agent message histories (see docs/SPEC.md).
//!
//! Pure Rust, no Python: the pipeline works on [`model::Record`]s that carry a
//! handle to their original object; [`json`] is the backend for JSON text, the
//! Python binding crate adds one for Python objects.

#![forbid(unsafe_code)]

pub mod batch;
pub mod conversation;
pub mod cutoff;
pub mod editing;
pub mod error;
pub mod exact;
pub mod ids;
pub mod json;
pub mod listing;
pub mod model;
pub mod parallel;
pub mod prompt;
pub mod providers;
pub mod read;
pub mod render;
pub mod report;
pub mod search;
pub mod session;
pub mod split;
pub mod steps;
#[cfg(test)]
pub(crate) mod testing;
pub mod tokens;
pub mod usage;
pub mod validate;

pub use error::{Error, Result};
pub use render::Templates;
pub use report::Report;
pub use tokens::CountParams;

use model::Record;

/// Options of `normalize_for_api` (SPEC §4).
#[derive(Clone, Debug)]
pub struct ApiOptions {
    pub strict: bool,
    pub max_media: Option<usize>,
    pub short_ids: bool,
    pub ensure_user_first: bool,
    pub templates: Templates,
    /// The steps that run ([`steps::Steps::ALL`] for `normalize_for_api`;
    /// `convert` runs those the rules a request breaks name).
    pub steps: steps::Steps,
}

/// `normalize_for_api`'s default `max_media` (SPEC §4 step 7): image and
/// document blocks beyond the first 100 are replaced by a text.
pub const DEFAULT_MAX_MEDIA: Option<usize> = Some(100);

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            strict: false,
            max_media: DEFAULT_MAX_MEDIA,
            short_ids: false,
            ensure_user_first: true,
            templates: Templates::default(),
            steps: steps::Steps::ALL,
        }
    }
}

/// SPEC §4, all eleven steps in order.
pub fn normalize_for_api<'a, H: Clone>(
    recs: Vec<Record<'a, H>>,
    opts: &ApiOptions,
) -> Result<Vec<Record<'a, H>>> {
    normalize_for_api_report(recs, opts, &mut Report::default())
}

/// [`normalize_for_api`], counting every rule that fired into `report`.
pub fn normalize_for_api_report<'a, H: Clone>(
    recs: Vec<Record<'a, H>>,
    opts: &ApiOptions,
    report: &mut Report,
) -> Result<Vec<Record<'a, H>>> {
    normalize_after(recs, opts, &ahash::AHashSet::new(), report)
}

/// [`normalize_for_api_report`] on records that follow a settled part of the
/// history whose output holds the tool_use ids `before` (§4 step 5 sees them);
/// the incremental [`conversation::Conversation`] runs it on its open tail.
pub fn normalize_after<'a, H: Clone>(
    mut recs: Vec<Record<'a, H>>,
    opts: &ApiOptions,
    before: &ahash::AHashSet<String>,
    report: &mut Report,
) -> Result<Vec<Record<'a, H>>> {
    use steps::Steps;
    let on = |s: Steps| opts.steps.has(s);
    if on(Steps::DROP) {
        steps::tombstones::run(&mut recs, report);
        // steps 2 and 3, in one pass
        recs = steps::attachments::run(recs, report);
    }
    if on(Steps::FOLD) {
        recs = steps::fold::run(recs, &opts.templates, report);
    }
    if on(Steps::CLEANUP) {
        recs = steps::assistant_cleanup::run_after(recs, opts.strict, report, before)?;
    }
    if on(Steps::PAIRING) {
        if !on(Steps::FOLD) {
            // the results of one turn as one record, as step 6 reads them
            recs = steps::fold::join_results(recs, report);
        }
        recs = steps::tool_pairing::run(recs, opts.strict, report)?;
    }
    if on(Steps::HYGIENE) {
        steps::hygiene::run(&mut recs, opts.max_media, report);
    }
    if on(Steps::FINAL) {
        steps::final_assistant::run(&mut recs, report);
    }
    if on(Steps::EMPTY) {
        steps::empty_content::run(&mut recs, report);
    }
    if opts.ensure_user_first && on(Steps::USER_FIRST) {
        steps::user_first::run(&mut recs, report);
    }
    if opts.short_ids && on(Steps::SHORT_IDS) {
        steps::short_ids::run(&mut recs)?;
    }
    Ok(recs)
}

/// Turn-start flags and token costs of records, for §7.
pub fn costs_and_turns<H>(
    recs: &[Record<'_, H>],
    p: &CountParams,
) -> Result<(Vec<u64>, Vec<bool>)> {
    let costs = tokens::per_record(recs, p)?;
    let turns = recs.iter().map(cutoff::is_turn_start).collect();
    Ok((costs, turns))
}

/// The §7 cut-off `k` of records: the smallest safe `k` such that
/// `records[..pin] + records[k..]` fits in `max_tokens`.
pub fn cutoff_of<H>(
    recs: &[Record<'_, H>],
    max_tokens: u64,
    pin: usize,
    p: &CountParams,
) -> Result<usize> {
    let (costs, turns) = costs_and_turns(recs, p)?;
    cutoff::find_cutoff(&costs, &turns, max_tokens, pin)
}

/// `(k, records[..pin] + records[k..])`, the joint user-merged (§7).
pub fn trim_to_budget<'a, H>(
    recs: Vec<Record<'a, H>>,
    max_tokens: u64,
    pin: usize,
    p: &CountParams,
) -> Result<(usize, Vec<Record<'a, H>>)> {
    let k = cutoff_of(&recs, max_tokens, pin, p)?;
    Ok((k, cutoff::trim(recs, pin, k)))
}

/// Records, as the operations take and return them.
pub type Records<'a, H> = Vec<Record<'a, H>>;

/// `(records[pin..k], records[k..])`: what to summarise and what to keep (§7).
pub fn split_for_summary<'a, H>(
    mut recs: Vec<Record<'a, H>>,
    keep_tokens: u64,
    pin: usize,
    p: &CountParams,
) -> Result<(Records<'a, H>, Records<'a, H>)> {
    let k = cutoff_of(&recs, keep_tokens, pin, p)?;
    let pin = pin.min(recs.len());
    let tail = recs.split_off(k);
    recs.drain(..pin);
    Ok((recs, tail))
}

/// Entry points on JSON text: input is a JSON array or JSON Lines, output a
/// JSON array. Each reads the records, runs the operation above that the
/// binding runs on either source, and writes the result.
pub mod on_json {
    use super::*;
    use crate::json::{read_records, utf8, write_records, ReadOpts};

    pub fn normalize_for_api(
        data: &[u8],
        opts: &ApiOptions,
        report: &mut Report,
    ) -> Result<Vec<u8>> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::default())?;
        write_records(&super::normalize_for_api_report(recs, opts, report)?)
    }

    /// SPEC §1 on JSON text, nothing else: the number of records, or the error
    /// every other entry point raises for the same input.
    pub fn validate(data: &[u8]) -> Result<usize> {
        let src = utf8(data)?;
        Ok(read_records(src, ReadOpts::default())?.len())
    }

    pub fn normalize_messages(data: &[u8]) -> Result<Vec<u8>> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::default())?;
        write_records(&split::normalize_messages(recs)?)
    }

    pub fn count_tokens_per_record(data: &[u8], p: &CountParams) -> Result<Vec<u64>> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::counting(p))?;
        tokens::per_record(&recs, p)
    }

    pub fn find_cutoff(data: &[u8], max_tokens: u64, pin: usize, p: &CountParams) -> Result<usize> {
        let src = utf8(data)?;
        cutoff_of(
            &read_records(src, ReadOpts::counting(p))?,
            max_tokens,
            pin,
            p,
        )
    }

    /// `(k, records[..pin] + records[k..])`.
    pub fn trim_to_budget(
        data: &[u8],
        max_tokens: u64,
        pin: usize,
        p: &CountParams,
    ) -> Result<(usize, Vec<u8>)> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::counting(p))?;
        let (k, out) = super::trim_to_budget(recs, max_tokens, pin, p)?;
        Ok((k, write_records(&out)?))
    }

    /// The main thread of a session file (after its last compaction, broken lines
    /// skipped, docs/SPEC.md §8), then [`normalize_for_api`](self::normalize_for_api).
    pub fn normalize_session(
        data: &[u8],
        opts: &ApiOptions,
        report: &mut Report,
    ) -> Result<Vec<u8>> {
        let file = crate::session::SourceFile {
            name: "session",
            data,
            agent_id: None,
        };
        let loaded = crate::session::load(&[file], &crate::session::Options::default())?;
        write_records(&super::normalize_for_api_report(
            loaded.into_chain(),
            opts,
            report,
        )?)
    }

    /// [`count_tokens_per_record`](self::count_tokens_per_record) of a session
    /// file's main thread (after its last compaction).
    pub fn count_session_tokens(data: &[u8], p: &CountParams) -> Result<Vec<u64>> {
        let file = crate::session::SourceFile {
            name: "session",
            data,
            agent_id: None,
        };
        let loaded = crate::session::load(&[file], &crate::session::Options::default())?;
        // The loader does not count: the thread's text is read again with costs.
        count_tokens_per_record(&loaded.write_chain(), p)
    }

    /// Context editing (issue 15): clears tool results/inputs and thinking.
    pub fn clear_context(
        data: &[u8],
        tools: Option<&crate::editing::ToolOptions>,
        thinking: Option<crate::editing::ThinkingOptions>,
    ) -> Result<(Vec<u8>, crate::editing::EditReport)> {
        if let Some(t) = tools {
            t.check()?;
        }
        let src = utf8(data)?;
        let mut recs = read_records(src, ReadOpts::COUNT)?;
        let report = crate::editing::edit(
            &mut recs,
            tools,
            thinking,
            &CountParams::default(),
            &crate::json::tool_use_info,
            None,
        )?;
        Ok((write_records(&recs)?, report))
    }

    /// `[{"role": type, "content": message.content}, ...]` of user/assistant records.
    pub fn to_anthropic(data: &[u8]) -> Result<Vec<u8>> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::default())?;
        crate::json::write::write_anthropic(&recs)
    }

    /// `(records[pin..k], records[k..])`.
    pub fn split_for_summary(
        data: &[u8],
        keep_tokens: u64,
        pin: usize,
        p: &CountParams,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let src = utf8(data)?;
        let recs = read_records(src, ReadOpts::counting(p))?;
        let (head, tail) = super::split_for_summary(recs, keep_tokens, pin, p)?;
        Ok((write_records(&head)?, write_records(&tail)?))
    }
}
