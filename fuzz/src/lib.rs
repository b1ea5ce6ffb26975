//! Fuzz checks of msgnorm-core's JSON entry points (`msgnorm_core::on_json`).
//!
//! Every check takes arbitrary bytes and asserts invariants, not just "no panic":
//!
//! - an error is one the entry point documents (a `Pairing` error only with
//!   `strict`, a `Budget` error only from the budget functions, 1-based JSON
//!   line and column, an `InvalidRecord` path that starts with `records[index]`);
//! - the reader refuses exactly the inputs serde_json (an outside oracle)
//!   refuses, but lone-surrogate escapes, which it refuses on purpose;
//! - any JSON output is a valid JSON array (checked by serde_json,
//!   [`validate_json`]) and reads back with the core's own reader;
//! - `normalize_for_api`'s output has SPEC §4's guarantees and is a fixed point:
//!   run again (also with `strict=True`) it comes back byte for byte;
//! - `normalize_messages` yields one block per user/assistant record;
//! - counts, cut-offs and splits agree with each other (SPEC §6, §7).
//!
//! The same functions back the libFuzzer targets (`fuzz_targets/`), the seeded
//! random driver (`src/bin/smoke.rs`) and the seed replay test (`tests/replay.rs`).

pub mod rules;

use msgnorm_core::json::{is_all_ws, is_ws, read_records, utf8, ReadOpts};
use msgnorm_core::model::{is_blank, BlockKind, Content, Kind, Record};
use msgnorm_core::providers::Provider;
use msgnorm_core::providers::{self, records::json_stable, Value};
use msgnorm_core::session::{self, Options, SourceFile};
use msgnorm_core::{on_json, ApiOptions, CountParams, Error, Report};
use std::collections::HashSet;

/// Options picked by the first input byte, so one target covers the variations.
pub fn api_options(flags: u8) -> ApiOptions {
    ApiOptions {
        strict: flags & 1 != 0,
        short_ids: flags & 2 != 0,
        max_media: match (flags >> 2) & 3 {
            0 => Some(100),
            1 => None,
            2 => Some(0),
            _ => Some(1),
        },
        ensure_user_first: flags & 16 == 0,
        ..ApiOptions::default()
    }
}

fn split_first(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&b, rest)) => (b, rest),
        None => (0, data),
    }
}

/// Errors every JSON entry point may raise: bad JSON or an invalid record.
fn check_input_error(e: &Error, what: &str) {
    match e {
        Error::Json { line, column, .. } => {
            assert!(
                *line >= 1 && *column >= 1,
                "{what}: JSON error at {line}:{column}"
            );
        }
        Error::InvalidRecord { index, path, .. } => {
            let head = format!("records[{index}]");
            assert!(
                path.starts_with(&head),
                "{what}: error path {path:?} does not start with {head:?}"
            );
        }
        other => panic!("{what}: unexpected error {other:?}"),
    }
}

/// Whether `b` is one JSON text, by serde_json: an outside oracle (as jiter's
/// `compare_to_serde.rs`), not a second hand-written validator. Past serde_json's
/// recursion limit the check runs again without it, on a thread with a stack big
/// enough for any input the fuzzers make.
pub fn validate_json(b: &[u8]) -> Result<(), String> {
    fn run(b: &[u8], unbounded: bool) -> Result<(), serde_json::Error> {
        use serde::Deserialize;
        let mut de = serde_json::Deserializer::from_slice(b);
        if unbounded {
            de.disable_recursion_limit();
        }
        serde::de::IgnoredAny::deserialize(&mut de)?;
        de.end()
    }
    match run(b, false) {
        Ok(()) => Ok(()),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let owned = b.to_vec();
            std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn(move || run(&owned, true).map_err(|e| e.to_string()))
                .expect("a validation thread")
                .join()
                .expect("the validation thread")
        }
        Err(e) => Err(e.to_string()),
    }
}

/// serde_json's verdict on an input read the way the core reads it: one JSON
/// array, else JSON Lines (each line that is not JSON white space only, by the
/// core's one definition [`is_ws`], one JSON text). `None`
/// where the two are known to differ on purpose: an empty input (the core
/// refuses it: there are no records) and a UTF-8 byte order mark (the core
/// skips it, as Claude Code's files may start with one).
fn serde_verdict(input: &[u8]) -> Option<bool> {
    if is_all_ws(input) || input.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    if std::str::from_utf8(input).is_err() {
        return Some(false);
    }
    let first = input.iter().find(|&&c| !is_ws(c));
    if first == Some(&b'[') && validate_json(input).is_ok() {
        return Some(true);
    }
    Some(
        input
            .split(|&c| c == b'\n')
            .filter(|l| !is_all_ws(l))
            .all(|l| validate_json(l).is_ok()),
    )
}

/// Whether `b` holds a `\uD800`-`\uDFFF` escape.
fn has_surrogate_escape(b: &[u8]) -> bool {
    b.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

/// The core's reader refuses exactly the inputs serde_json refuses.
fn check_against_serde<T>(input: &[u8], result: &Result<T, Error>, what: &str) {
    let Some(valid) = serde_verdict(input) else {
        return;
    };
    let refused = matches!(result, Err(Error::Json { .. }));
    // A difference on purpose: a `\u` escape of a lone surrogate is valid JSON
    // syntax (RFC 8259 leaves its meaning open; serde_json, skipping strings,
    // accepts it) but no Unicode text, so the core refuses it.
    if let Err(Error::Json { msg, .. }) = result {
        if msg.contains("lone surrogate") || msg.contains("low surrogate") {
            assert!(
                has_surrogate_escape(input),
                "{what}: a lone-surrogate error without such an escape"
            );
            return;
        }
    }
    assert!(
        valid != refused,
        "{what}: serde_json says the input is {}valid JSON, the core {}: {:?}\n{}",
        if valid { "" } else { "not " },
        match result {
            Err(e) => format!("refuses it ({e})"),
            Ok(_) => "accepts it".to_owned(),
        },
        result.as_ref().err(),
        String::from_utf8_lossy(input)
    );
}

/// A JSON array output: valid JSON, an array, and readable by the core.
fn read_back<'a>(out: &'a [u8], what: &str) -> Vec<Record<'a, msgnorm_core::json::Raw<'a>>> {
    if let Err(e) = validate_json(out) {
        panic!(
            "{what}: output is not valid JSON: {e}\n{}",
            String::from_utf8_lossy(out)
        );
    }
    assert!(out.first() == Some(&b'['), "{what}: output is not an array");
    let src = utf8(out).expect("validated as UTF-8");
    match read_records(
        src,
        ReadOpts {
            count: true,
            ..ReadOpts::default()
        },
    ) {
        Ok(recs) => recs,
        Err(e) => panic!(
            "{what}: the core cannot read its own output: {e}\n{}",
            String::from_utf8_lossy(out)
        ),
    }
}

fn blocks<'r, 'a, H>(c: &'r Content<'a, H>) -> &'r [msgnorm_core::model::Block<'a, H>] {
    c.blocks()
}

/// SPEC §4's guarantees on a normalize_for_api output, in the scope of
/// SPEC decision A23 (tool_use blocks of assistant records,
/// tool_result blocks of user records).
/// A provider's system prompt (kept in place by §4 step 3, blank ones dropped)
/// goes to the request's system parameter: the guarantees' "first" and "last"
/// are of the other records.
fn check_api_guarantees<H>(recs: &[Record<'_, H>], opts: &ApiOptions) {
    let first = recs.iter().position(|r| !r.is_system_prompt());
    let last_message = recs.iter().rposition(|r| !r.is_system_prompt());
    let mut tool_use_ids = HashSet::new();
    for (i, r) in recs.iter().enumerate() {
        if r.is_system_prompt() {
            assert!(
                !matches!(&r.content, Content::Str(s) if is_blank(s)),
                "system prompt record {i} is blank"
            );
            continue;
        }
        assert!(r.kind.is_message(), "record {i} is {:?}", r.kind);
        if Some(i) == first && opts.ensure_user_first {
            assert_eq!(
                r.kind,
                Kind::User,
                "the output does not start with a user record"
            );
        }
        if i > 0 {
            assert!(
                !(r.kind == Kind::User && recs[i - 1].kind == Kind::User),
                "user records {} and {i} are adjacent",
                i - 1
            );
        }
        let last = Some(i) == last_message;
        if r.kind == Kind::User || !last {
            assert!(!r.content.is_empty(), "record {i} has empty content");
        }
        let bs = blocks(&r.content);
        if r.kind == Kind::Assistant {
            let uses: Vec<&str> = bs
                .iter()
                .filter(|b| b.kind == BlockKind::ToolUse)
                .map(|b| b.id.as_deref().unwrap_or(""))
                .collect();
            for id in &uses {
                assert!(
                    tool_use_ids.insert(id.to_string()),
                    "tool_use id {id:?} repeats"
                );
            }
            // A tool_result inside an assistant content is out of the
            // guarantees' scope (SPEC decision A23): passed through.
            if !uses.is_empty() {
                let next = recs.get(i + 1).unwrap_or_else(|| {
                    panic!("assistant record {i} has tool_use blocks and no next record")
                });
                assert_eq!(next.kind, Kind::User, "record {} answers record {i}", i + 1);
            }
            let answers: Vec<&str> = match recs.get(i + 1) {
                Some(n) if n.kind == Kind::User => blocks(&n.content)
                    .iter()
                    .filter(|b| b.kind == BlockKind::ToolResult)
                    .map(|b| b.id.as_deref().unwrap_or(""))
                    .collect(),
                _ => Vec::new(),
            };
            let mut a = answers.clone();
            let mut u = uses.clone();
            a.sort_unstable();
            u.sort_unstable();
            assert_eq!(
                a,
                u,
                "record {} does not answer record {i} exactly once",
                i + 1
            );
            if let Some(n) = recs.get(i + 1) {
                let nb = blocks(&n.content);
                let k = answers.len();
                assert!(
                    nb.iter().take(k).all(|b| b.kind == BlockKind::ToolResult),
                    "record {}'s tool_result blocks do not come first",
                    i + 1
                );
            }
        } else {
            let prev_assistant = i > 0 && recs[i - 1].kind == Kind::Assistant;
            if !prev_assistant {
                assert!(
                    !bs.iter().any(|b| b.kind == BlockKind::ToolResult),
                    "user record {i} holds a tool_result that answers nothing"
                );
            }
        }
    }
}

/// The `normalize_for_api` target: first byte = options, the rest = JSON input.
pub fn normalize_for_api(data: &[u8]) {
    let (flags, input) = split_first(data);
    let opts = api_options(flags);
    let mut report = Report::default();
    let result = on_json::normalize_for_api(input, &opts, &mut report);
    check_against_serde(input, &result, "normalize_for_api");
    let out = match result {
        Ok(out) => out,
        Err(Error::Pairing { index, ids, .. }) => {
            assert!(
                opts.strict,
                "PairingError without strict (index {index}, ids {ids:?})"
            );
            return;
        }
        Err(e) => return check_input_error(&e, "normalize_for_api"),
    };
    let recs = read_back(&out, "normalize_for_api");
    check_api_guarantees(&recs, &opts);
    // The output holds only messages and a provider's system prompts: the
    // Messages API mapping takes all of it, or, with a system prompt among the
    // records, refuses that one by name (to_provider writes it, as `system`).
    let prompt = recs.iter().position(|r| r.is_system_prompt());
    match (on_json::to_anthropic(&out), prompt) {
        (Ok(msgs), None) => {
            if let Err(e) = validate_json(&msgs) {
                panic!("to_anthropic: output is not valid JSON: {e}");
            }
        }
        (Err(Error::InvalidRecord { index, msg, .. }), Some(i))
            if msg.contains("system prompt") && recs[i].index == index => {}
        (Ok(_), Some(i)) => panic!("to_anthropic wrote system prompt record {i}"),
        (Err(e), _) => panic!("to_anthropic refuses normalize_for_api's output: {e}"),
    }
    if opts.short_ids {
        return;
    }
    // A fixed point: once normalized, nothing is left to repair, even strictly.
    for strict in [false, true] {
        let again_opts = ApiOptions {
            strict,
            ..opts.clone()
        };
        match on_json::normalize_for_api(&out, &again_opts, &mut Report::default()) {
            Ok(again) => assert!(
                again == out,
                "normalize_for_api is not idempotent (strict={strict}):\nonce:  {}\ntwice: {}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&again)
            ),
            Err(e) => panic!(
                "normalize_for_api fails on its own output (strict={strict}): {e}\n{}",
                String::from_utf8_lossy(&out)
            ),
        }
    }
}

/// The `normalize_messages` target (SPEC §3).
pub fn normalize_messages(data: &[u8]) {
    let out = match on_json::normalize_messages(data) {
        Ok(out) => out,
        Err(e) => return check_input_error(&e, "normalize_messages"),
    };
    let recs = read_back(&out, "normalize_messages");
    let src = utf8(data).expect("the input was read");
    let input = read_records(src, ReadOpts::default()).expect("the input was read");
    let others_in = input.iter().filter(|r| !r.kind.is_message()).count();
    let others_out = recs.iter().filter(|r| !r.kind.is_message()).count();
    assert_eq!(
        others_in, others_out,
        "records other than user/assistant were lost"
    );
    let blocks_in: usize = input
        .iter()
        .filter(|r| r.kind.is_message())
        .map(|r| match &r.content {
            Content::Str(s) => usize::from(!s.is_empty()),
            Content::Blocks(b) => b.len(),
        })
        .sum();
    let msgs_out = recs.iter().filter(|r| r.kind.is_message()).count();
    assert_eq!(
        blocks_in, msgs_out,
        "not one output record per content block"
    );
    for (i, r) in recs.iter().enumerate() {
        if r.kind.is_message() {
            assert!(
                matches!(&r.content, Content::Blocks(b) if b.len() == 1),
                "output record {i} does not hold exactly one block"
            );
        }
    }
}

fn count_params(b: u8) -> CountParams {
    CountParams {
        chars_per_token: [4.0, 1.0, 0.5, 3.7][usize::from(b & 3)],
        tokens_per_message: u64::from((b >> 2) & 7),
        tokens_per_image: 1600,
        tokens_per_document: 3000,
        // the §6 formula, whose invariants the targets check
        tokenizer: msgnorm_core::tokens::Tokenizer::Chars,
    }
}

/// The `count_tokens` target (SPEC §6): one count per record, 0 for non-messages.
pub fn count_tokens(data: &[u8]) {
    let (b, input) = split_first(data);
    let p = count_params(b);
    let result = on_json::count_tokens_per_record(input, &p);
    check_against_serde(input, &result, "count_tokens_per_record");
    let costs = match result {
        Ok(c) => c,
        Err(e) => return check_input_error(&e, "count_tokens_per_record"),
    };
    let recs = read_records(utf8(input).expect("read"), ReadOpts::default()).expect("read");
    assert_eq!(costs.len(), recs.len(), "one count per record");
    for (i, (r, c)) in recs.iter().zip(&costs).enumerate() {
        if r.kind.is_message() {
            assert!(
                *c >= p.tokens_per_message,
                "record {i}: {c} < tokens_per_message"
            );
        } else {
            assert_eq!(*c, 0, "record {i} is no message but costs {c}");
        }
    }
    // find_cutoff with an unlimited budget keeps everything.
    assert_eq!(on_json::find_cutoff(input, u64::MAX, 0, &p), Ok(0));
}

/// The `budget` target (SPEC §7): find_cutoff, trim_to_budget and split_for_summary agree.
pub fn budget(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let max_tokens = u64::from(u16::from_le_bytes([data[0], data[1]]) >> 4);
    let pin = usize::from(data[1] & 3);
    let p = count_params(data[2]);
    let input = &data[3..];
    let result = on_json::count_tokens_per_record(input, &p);
    check_against_serde(input, &result, "count_tokens_per_record");
    let costs = match result {
        Ok(c) => c,
        Err(e) => {
            check_input_error(&e, "count_tokens_per_record");
            // All three entry points refuse the same input.
            assert!(on_json::find_cutoff(input, max_tokens, pin, &p).is_err());
            assert!(on_json::trim_to_budget(input, max_tokens, pin, &p).is_err());
            assert!(on_json::split_for_summary(input, max_tokens, pin, &p).is_err());
            return;
        }
    };
    let n = costs.len();
    let k = match on_json::find_cutoff(input, max_tokens, pin, &p) {
        Ok(k) => k,
        Err(Error::Budget { .. }) => {
            let all: u64 = costs.iter().sum();
            assert!(
                pin > n || all > max_tokens,
                "BudgetError though everything fits"
            );
            assert!(matches!(
                on_json::trim_to_budget(input, max_tokens, pin, &p),
                Err(Error::Budget { .. })
            ));
            assert!(matches!(
                on_json::split_for_summary(input, max_tokens, pin, &p),
                Err(Error::Budget { .. })
            ));
            return;
        }
        Err(Error::Value { .. }) => {
            assert!(pin > n, "a Value error with pin {pin} <= {n}");
            return;
        }
        Err(e) => panic!("find_cutoff: unexpected error {e:?}"),
    };
    assert!(pin <= k && k <= n, "k = {k} out of [{pin}, {n}]");
    let recs = read_records(utf8(input).expect("read"), ReadOpts::default()).expect("read");
    let turn = |i: usize| msgnorm_core::cutoff::is_turn_start(&recs[i]);
    assert!(k == pin || turn(k), "k = {k} is not a turn start");
    let pinned: u64 = costs[..pin].iter().sum();
    let kept = |k: usize| pinned + costs[k..].iter().sum::<u64>();
    assert!(kept(k) <= max_tokens, "the cut at {k} does not fit");
    for j in pin..k {
        if j == pin || turn(j) {
            assert!(kept(j) > max_tokens, "a smaller cut {j} < {k} fits");
        }
    }

    let (k2, trimmed) = on_json::trim_to_budget(input, max_tokens, pin, &p).expect("k was found");
    assert_eq!(k, k2, "trim_to_budget and find_cutoff disagree");
    let out = read_back(&trimmed, "trim_to_budget");
    let merged = usize::from(
        k > pin
            && pin > 0
            && k < n
            && recs[pin - 1].kind == Kind::User
            && recs[k].kind == Kind::User,
    );
    assert_eq!(
        out.len(),
        pin + (n - k) - merged,
        "trim_to_budget kept the wrong records"
    );
    let tcost: u64 = on_json::count_tokens_per_record(&trimmed, &p)
        .expect("the trimmed output counts")
        .iter()
        .sum();
    assert!(
        tcost <= max_tokens,
        "trimmed output costs {tcost} > {max_tokens}"
    );

    let (head, tail) = on_json::split_for_summary(input, max_tokens, pin, &p).expect("k was found");
    let h = read_back(&head, "split_for_summary head");
    let t = read_back(&tail, "split_for_summary tail");
    assert_eq!(h.len(), k - pin, "head length");
    assert_eq!(t.len(), n - k, "tail length");
    let hc: u64 = on_json::count_tokens_per_record(&head, &p)
        .expect("head counts")
        .iter()
        .sum();
    let tc: u64 = on_json::count_tokens_per_record(&tail, &p)
        .expect("tail counts")
        .iter()
        .sum();
    assert_eq!(hc, costs[pin..k].iter().sum::<u64>(), "head cost");
    assert_eq!(tc, costs[k..].iter().sum::<u64>(), "tail cost");
}

/// A fuzz check: takes the raw fuzz input, panics when an invariant breaks.
pub type Check = fn(&[u8]);

/// The targets by name, for the smoke driver and the replay test.
/// The `session` target (docs/SPEC.md §8): first byte = options, the rest = a
/// session file. Skip mode never fails and returns a thread `normalize_for_api`
/// takes; raise mode fails exactly where skip mode skipped; every listed thread
/// can be chosen; loading the file twice keeps every record once.
pub fn session(data: &[u8]) {
    let (flags, input) = split_first(data);
    let opts = Options {
        thread: "main",
        after_compaction: flags & 1 == 0,
        raise: false,
        fit: None,
    };
    let one = [SourceFile {
        name: "s.jsonl",
        data: input,
        agent_id: None,
    }];
    let l = match session::load(&one, &opts) {
        Ok(l) => l,
        Err(e) => panic!("load_session failed with errors=skip: {e}"),
    };
    let mut seen = HashSet::new();
    for &i in &l.chain {
        assert!(i < l.records.len(), "chain index {i} out of range");
        assert!(seen.insert(i), "record {i} twice on the thread");
    }
    assert_eq!(l.threads[l.chosen].records, l.chain.len(), "thread size");
    let out = l.write_chain();
    if let Err(e) = validate_json(&out) {
        panic!("the thread is not valid JSON: {e}");
    }
    if let Err(e) = on_json::normalize_for_api(&out, &ApiOptions::default(), &mut Report::default())
    {
        panic!("normalize_for_api refuses a loaded thread: {e}");
    }
    same_through_serde(input);
    let strict = Options {
        raise: true,
        ..opts.clone()
    };
    match session::load(&one, &strict) {
        Ok(s) => {
            assert!(
                l.report.skipped.is_empty(),
                "raise mode passed a skipped line"
            );
            assert_eq!(s.chain, l.chain, "raise mode chose another thread");
        }
        Err(Error::Json { line, .. }) => assert_eq!(
            l.report.skipped.first().map(|i| i.line),
            Some(line),
            "raise mode stopped at another line than skip mode skipped"
        ),
        Err(e @ Error::InvalidRecord { .. }) => {
            assert!(
                !l.report.skipped.is_empty(),
                "raise mode: {e}, skip mode skipped nothing"
            )
        }
        Err(e) => panic!("unexpected error in raise mode: {e}"),
    }
    for t in &l.threads {
        let pick = Options {
            thread: &t.id,
            ..opts.clone()
        };
        if let Err(e) = session::load(&one, &pick) {
            panic!("listed thread {:?} cannot be chosen: {e}", t.id);
        }
    }
    let twice = [one[0], one[0]];
    match session::load(&twice, &opts) {
        Ok(d) => {
            let ids = |x: &session::Loaded<'_>| -> HashSet<String> {
                x.chain
                    .iter()
                    .filter_map(|&i| x.records[i].uuid.as_deref().map(str::to_owned))
                    .collect()
            };
            assert_eq!(ids(&d), ids(&l), "a file loaded twice gives another thread");
        }
        Err(e) => panic!("loading a file twice failed: {e}"),
    }
}

/// SPEC §1 (A27): `normalize_for_api` of JSON Lines and of the lines as
/// serde_json's `Value` reads and writes them (a repeated key: the last value,
/// once) give one result: the same output as JSON values, or an invalid
/// record at the same index and path. Inputs serde_json refuses are passed
/// over (the `normalize_for_api` target compares refusals).
fn same_through_serde(input: &[u8]) {
    use serde_json::Value as J;
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let mut lines = Vec::new();
    for line in text.split('\n') {
        if is_all_ws(line.as_bytes()) {
            continue;
        }
        match serde_json::from_str::<J>(line) {
            Ok(v) => lines.push(v.to_string()),
            Err(_) => return,
        }
    }
    if lines.is_empty() {
        return;
    }
    let api = ApiOptions::default();
    let a = on_json::normalize_for_api(input, &api, &mut Report::default());
    let b = on_json::normalize_for_api(lines.join("\n").as_bytes(), &api, &mut Report::default());
    let json = |o: &[u8]| serde_json::from_slice::<J>(o).ok();
    match (&a, &b) {
        (Ok(x), Ok(y)) => {
            if let (Some(x), Some(y)) = (json(x), json(y)) {
                assert_eq!(
                    x, y,
                    "the same records through serde_json give another output"
                );
            }
        }
        (
            Err(Error::InvalidRecord {
                index: i, path: p, ..
            }),
            Err(Error::InvalidRecord {
                index: j, path: q, ..
            }),
        ) => assert_eq!(
            (i, p),
            (j, q),
            "the same records through serde_json: another error"
        ),
        _ => panic!("the same records through serde_json: {a:?} and {b:?}"),
    }
}

/// `conversation::Conversation`: the input's records appended in chunks (sizes
/// from the first byte), with a context-editing policy when bit 0 is set.
/// Without one, the output after every append is the batch `normalize_for_api`
/// of the records so far, byte for byte; with one, it is a fixed point of
/// `normalize_for_api` (the §4 guarantees hold) and never has more tokens than
/// the batch output. Either way the settled output changes only at a counted
/// rewrite or a recorded event, a saved conversation restores to the same
/// output, and damaged saved data is refused, never a panic.
pub fn conversation(data: &[u8]) {
    use msgnorm_core::conversation::{Conversation, Policy, Settings};
    use msgnorm_core::editing::{ClearInputs, ThinkingOptions, ToolOptions, Trigger};
    let (flags, input) = split_first(data);
    let Ok(src) = utf8(input) else { return };
    let Ok(recs) = read_records(src, ReadOpts::default()) else {
        return;
    };
    let lines: Vec<&str> = recs.iter().filter_map(|r| r.orig.map(|o| o.text)).collect();
    let mut conv = Conversation::new(Settings::default()).expect("settings");
    let policy = flags & 1 == 1;
    if policy {
        let trigger = if flags & 2 == 0 {
            Trigger::InputTokens(u64::from(flags >> 3) * 8)
        } else {
            Trigger::ToolUses(u64::from(flags >> 5))
        };
        conv.set_policy(Some(Policy {
            trigger,
            clear_at_least: u64::from(flags & 4) * 4,
            tools: Some(ToolOptions {
                trigger,
                keep: usize::from(flags >> 6),
                clear_at_least: 0,
                exclude_tools: vec!["Keep".into()],
                clear_inputs: if flags & 16 == 0 {
                    ClearInputs::None
                } else {
                    ClearInputs::All
                },
                placeholder: "[cleared]".into(),
            }),
            thinking: Some(ThinkingOptions {
                keep_turns: Some(usize::from(flags >> 7)),
            }),
        }))
        .expect("policy");
    }
    let step = 1 + usize::from(flags >> 4);
    let mut settled: Vec<u8> = Vec::new();
    let (mut rewrites, mut events) = (0, 0);
    let mut at = 0;
    while at < lines.len() {
        let end = (at + step).min(lines.len());
        let chunk = format!("[{}]", lines[at..end].join(","));
        conv.append(chunk.as_bytes())
            .expect("records read once read again");
        at = end;
        let so_far = format!("[{}]", lines[..at].join(","));
        let batch = on_json::normalize_for_api(
            so_far.as_bytes(),
            &ApiOptions::default(),
            &mut Report::default(),
        );
        let out = match (conv.for_api(), batch) {
            (Ok(o), Ok(b)) => {
                if !policy {
                    assert_eq!(o, b, "the conversation differs from the batch call");
                } else {
                    let again = on_json::normalize_for_api(
                        &o,
                        &ApiOptions::default(),
                        &mut Report::default(),
                    )
                    .expect("the edited output normalizes");
                    assert_eq!(again, o, "the edited output is not a fixed point");
                    let p = CountParams::default();
                    let t = |x: &[u8]| -> u64 {
                        on_json::count_tokens_per_record(x, &p)
                            .expect("count")
                            .iter()
                            .sum()
                    };
                    assert!(t(&o) <= t(&b), "editing raised the token count");
                }
                o
            }
            (Err(_), Err(_)) => return, // both refuse (the same record)
            (a, b) => panic!("conversation {:?} but batch {:?}", a.err(), b.err()),
        };
        let n = conv.settled_len().expect("settled");
        let ev = conv.edits().expect("edits").len();
        let now: Vec<u8> = conv.json_range(0, n);
        if conv.rewrites() == rewrites && ev == events && !settled.is_empty() {
            let prefix = &settled[..settled.len() - 1];
            assert!(
                now.starts_with(prefix),
                "the settled output changed without a rewrite or an event"
            );
        }
        rewrites = conv.rewrites();
        events = ev;
        settled = now;
        let saved = conv.to_bytes();
        let mut back = Conversation::from_bytes(&saved).expect("a saved conversation loads");
        assert_eq!(
            back.for_api().expect("restored"),
            out,
            "restored differently"
        );
        let mut bad = saved.clone();
        let i = usize::from(flags) * 7919 % bad.len();
        bad[i] ^= 0x5a;
        let _ = Conversation::from_bytes(&bad); // an error, never a panic
        bad.truncate(i);
        assert!(
            Conversation::from_bytes(&bad).is_err(),
            "truncated data loaded"
        );
    }
}

/// A provider request's message list and its separate system prompt.
fn request_parts(out: &Value) -> (Vec<Value>, Option<Value>) {
    let messages = providers::message_list(out)
        .unwrap_or_else(|| panic!("provider output without a message list: {}", out.to_json()))
        .to_vec();
    let system = out
        .as_obj()
        .and_then(|m| m.get("system").or_else(|| m.get("system_instruction")))
        .cloned();
    (messages, system)
}

/// `to_provider` of `records` (no extra system prompt), its counts added to `counts`.
pub(crate) fn to_provider(
    p: Provider,
    records: Vec<Value>,
    stable: bool,
    opts: &ApiOptions,
    counts: &mut providers::Counts,
) -> Result<Value, Error> {
    let mut report = Report::default();
    let t = providers::Target::new(p);
    providers::request(&t, records, stable, None, Some(opts), &mut report, counts)
}

/// The `providers` target: JSON records (first byte = options) written in each
/// provider's shape; that output must read back with `from_provider`, convert to
/// every other provider as valid JSON, and be a fixed point of `convert` into
/// its own format.
pub fn providers(data: &[u8]) {
    let (flags, input) = split_first(data);
    // Not strict (it only refuses; the repairs are the point) and no short ids
    // (their tags are added on every pass, so no fixed point is expected).
    let opts = api_options(flags & !3);
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let Ok(Value::Arr(records)) = Value::from_json(text) else {
        return;
    };
    for p in Provider::ALL {
        let out = match to_provider(
            p,
            records.clone(),
            false,
            &opts,
            &mut providers::Counts::new(),
        ) {
            Ok(out) => out,
            Err(e) => return check_input_error(&e, "to_provider"),
        };
        if let Err(e) = validate_json(out.to_json().as_bytes()) {
            panic!("to_provider({}): output is not valid JSON: {e}", p.name());
        }
        let (messages, system) = request_parts(&out);
        let recs = providers::from_provider(p, &messages, system.as_ref()).unwrap_or_else(|e| {
            panic!(
                "from_provider({}) refuses to_provider's output: {e}\n{}",
                p.name(),
                out.to_json()
            )
        });
        // stable messages make stable records (the binding relies on it)
        let stable = messages.iter().all(json_stable) && system.as_ref().is_none_or(json_stable);
        assert!(
            !stable || recs.iter().all(json_stable),
            "from_provider({}) makes a record JSON text cannot hold from stable messages",
            p.name()
        );
        for q in Provider::ALL {
            let again = to_provider(
                q,
                recs.clone(),
                stable,
                &opts,
                &mut providers::Counts::new(),
            )
            .unwrap_or_else(|e| {
                panic!(
                    "convert {} -> {} fails on to_provider's output: {e}\n{}",
                    p.name(),
                    q.name(),
                    out.to_json()
                )
            });
            if q == p {
                assert!(
                    again == out,
                    "convert {0} -> {0} is not a fixed point:\nonce:  {1}\ntwice: {2}",
                    p.name(),
                    out.to_json(),
                    again.to_json()
                );
            } else if let Err(e) = validate_json(again.to_json().as_bytes()) {
                panic!("convert {} -> {}: not valid JSON: {e}", p.name(), q.name());
            }
        }
    }
}

pub const TARGETS: &[(&str, Check)] = &[
    ("normalize_for_api", normalize_for_api),
    ("normalize_messages", normalize_messages),
    ("count_tokens", count_tokens),
    ("budget", budget),
    ("session", session),
    ("conversation", conversation),
    ("providers", providers),
    ("rules", rules::rules),
];

#[cfg(test)]
mod tests {
    use super::validate_json;

    #[test]
    fn validator() {
        for ok in [
            "[]",
            "{}",
            " [1, -0, 2.5e-3, \"a\\u00e9\\n\", true, false, null, {\"k\": []}] ",
            "[[[[]]]]",
        ] {
            assert!(validate_json(ok.as_bytes()).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "[",
            "[1,]",
            "{\"a\"}",
            "[01]",
            "[1.]",
            "NaN",
            "[\"\t\"]",
            "[] []",
            "{,}",
            "[\"\\x\"]",
            "{\"a\":1,}",
            "[-]",
            "tru",
        ] {
            assert!(validate_json(bad.as_bytes()).is_err(), "{bad}");
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(validate_json(deep.as_bytes()).is_ok());
    }
}
