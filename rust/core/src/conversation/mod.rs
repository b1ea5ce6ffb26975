//! `normalize_for_api` one turn at a time (docs/CONVERSATION.md).
//!
//! A [`Conversation`] keeps the records appended so far and the output of the
//! *settled* part of the history: the records before the latest turn start
//! whose output nothing that can follow may change. Each call normalizes only
//! the *open tail* (the records after that point), with what it needs of the
//! settled part: its last output record (an assistant reply without tool calls,
//! which stops every rule that looks backwards), the tool_use ids it holds (for
//! §4 step 5), the tombstones it held and how many media it holds (§4 step 7).
//! The result is byte for byte what `normalize_for_api` gives on the whole
//! history; the settled output never changes, except at a *rewrite*: a
//! tombstone naming a settled record, or the media limit crossed, makes the
//! whole history normalize again (counted in [`Conversation::rewrites`]).
//!
//! Settling is checked, not assumed: the tail after a candidate point is
//! normalized again on its own, and the point is taken only when that gives the
//! same output.

mod fields;
mod policy;
mod save;
mod texts;

pub use policy::{EditEvent, Policy};

use crate::cutoff;
use crate::error::{Error, Result};
use crate::json::{read_records, utf8, write_records, Raw, ReadOpts};
use crate::model::{BlockKind, Content, Kind, Record};
use crate::render::Templates;
use crate::steps::hygiene::media_in;
use crate::steps::NO_CONTENT;
use crate::{tokens, ApiOptions, CountParams, Report};
use ahash::AHashSet;
use std::borrow::Cow;
use texts::Texts;

type Rec<'a> = Record<'a, Raw<'a>>;

/// Settling points checked per call (each check normalizes the rest of the tail).
const MAX_TRIES: usize = 3;

/// The options a conversation is made with.
#[derive(Clone, Debug)]
pub struct Settings {
    pub strict: bool,
    pub max_media: Option<usize>,
    pub short_ids: bool,
    pub ensure_user_first: bool,
    /// `attachment_templates` overrides (§5).
    pub templates: Vec<(String, Option<String>)>,
    pub count: CountParams,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strict: false,
            max_media: Some(100),
            short_ids: false,
            ensure_user_first: true,
            templates: Vec::new(),
            count: CountParams::default(),
        }
    }
}

/// The normalized open tail, cached until the next append.
#[derive(Clone, Debug, Default)]
struct Tail {
    out: Texts,
    costs: Vec<u64>,
    turn: Vec<bool>,
    report: Report,
}

/// An incremental `normalize_for_api`: see the module documentation.
#[derive(Clone, Debug)]
pub struct Conversation {
    settings: Settings,
    opts: ApiOptions,
    input: Texts,
    settled_in: usize,
    out: Texts,
    costs: Vec<u64>,
    turn: Vec<bool>,
    /// Media in the settled output but its last record, and in that record.
    media_before_last: usize,
    media_last: usize,
    /// Whether the settled output may hold media the limit omitted (a full
    /// normalization omitted some): a tombstone in the open tail may then free
    /// room under the limit and bring them back, so it rewrites. Not saved: a
    /// loaded conversation assumes so while a limit is set.
    media_omitted: bool,
    tool_use_ids: AHashSet<String>,
    uuids: AHashSet<String>,
    /// uuids of the open tail's input records that make the settling point (the
    /// turn start after the settled part): a tombstone naming one of them may
    /// leave the settled part's last record the last of all, so it rewrites.
    point_uuids: Vec<String>,
    tombstoned: Vec<String>,
    /// The settled output's length after each time it grew.
    marks: Vec<usize>,
    rewrites: usize,
    tail: Option<Tail>,
    /// The context-editing policy and the edited output, if one is set.
    edited: Option<Box<policy::Edited>>,
    /// §6.1 over the input records `..prompt_seen`: the latest anchor and what
    /// follows it. Kept lazily: appending does not touch it; `prompt_tokens` and
    /// `record_usage` first take in the records appended since (the input keeps
    /// every record's JSON, so its usage, model and id are read then).
    /// Not saved: a loaded conversation reads it again from its input.
    prompt: crate::prompt::Prompt,
    prompt_seen: usize,
}

fn options(s: &Settings) -> Result<ApiOptions> {
    s.count.check()?;
    Ok(ApiOptions {
        strict: s.strict,
        max_media: s.max_media,
        short_ids: s.short_ids,
        ensure_user_first: s.ensure_user_first,
        templates: Templates::new(&s.templates)?,
        steps: crate::steps::Steps::ALL,
    })
}

/// The records of a JSON array of input records ([`Conversation::input_array`]);
/// none for none.
fn read_lines(lines: &str) -> Result<Vec<Rec<'_>>> {
    if lines == "[]" {
        return Ok(Vec::new());
    }
    read_records(lines, ReadOpts::default())
}

/// One record's JSON.
fn record_json(r: &Rec<'_>) -> Result<String> {
    let bytes = write_records(std::slice::from_ref(r))?;
    let inner = bytes
        .get(1..bytes.len().saturating_sub(1))
        .unwrap_or_default();
    String::from_utf8(inner.to_vec())
        .map_err(|_| Error::value("internal error: a record's JSON is not UTF-8"))
}

/// A user record that stops the §4 step 4 walk back: something in it besides
/// tool results and blank text.
/// Judged on the output, so a content that step 7 filled with `(no content)`
/// (blank when the walk ran) does not count.
fn stops_the_walk(r: &Rec<'_>) -> bool {
    let real = |t: &str| !crate::model::is_blank(t) && t != NO_CONTENT;
    match &r.content {
        Content::Str(s) => real(s),
        Content::Blocks(b) => b.iter().any(|b| match b.kind {
            BlockKind::ToolResult => false,
            BlockKind::Text => real(b.text_str()),
            _ => true,
        }),
    }
}

fn has_tool_use(r: &Rec<'_>) -> bool {
    r.content
        .blocks()
        .iter()
        .any(|b| b.kind == BlockKind::ToolUse)
}

/// Renames `records[i]` in an error to `records[i + base]`.
fn shift(e: Error, base: usize) -> Error {
    match e {
        Error::InvalidRecord { index, path, msg } => {
            let old = format!("records[{index}]");
            let new = format!("records[{}]", index + base);
            Error::InvalidRecord {
                index: index + base,
                path: path.replacen(&old, &new, 1),
                msg,
            }
        }
        Error::Pairing { index, ids, msg } => {
            let old = format!("records[{index}]");
            let new = format!("records[{}]", index + base);
            Error::Pairing {
                index: index + base,
                ids,
                msg: msg.replacen(&old, &new, 1),
            }
        }
        other => other,
    }
}

impl Conversation {
    pub fn new(settings: Settings) -> Result<Conversation> {
        let opts = options(&settings)?;
        Ok(Conversation {
            settings,
            opts,
            // The inside of a JSON array: a record may span lines.
            input: Texts::array(),
            settled_in: 0,
            out: Texts::array(),
            costs: Vec::new(),
            turn: Vec::new(),
            media_before_last: 0,
            media_last: 0,
            media_omitted: false,
            tool_use_ids: AHashSet::new(),
            uuids: AHashSet::new(),
            point_uuids: Vec::new(),
            tombstoned: Vec::new(),
            marks: Vec::new(),
            rewrites: 0,
            tail: None,
            edited: None,
            prompt: crate::prompt::Prompt::default(),
            prompt_seen: 0,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Appends records (a JSON array or JSON Lines), checked as §1 says: on an
    /// invalid record nothing is appended, and the error names it by its index in
    /// the whole history.
    pub fn append(&mut self, data: &[u8]) -> Result<usize> {
        let src = utf8(data)?;
        if crate::json::is_all_ws(src.as_bytes()) {
            return Ok(0);
        }
        let base = self.input.len();
        let recs = read_records(src, ReadOpts::default()).map_err(|e| shift(e, base))?;
        for r in &recs {
            self.input.push(r.orig.map_or("null", |o| o.text));
        }
        if !recs.is_empty() {
            self.tail = None;
            if let Some(e) = self.edited.as_mut() {
                e.tail = None;
            }
        }
        Ok(recs.len())
    }

    /// Input records `from..` as a JSON array.
    fn input_array(&self, from: usize) -> String {
        self.input.array_of(from, self.input.len())
    }

    /// Input records appended so far.
    pub fn input_len(&self) -> usize {
        self.input.len()
    }

    /// Output records that are settled: they stay byte for byte as they are
    /// until a rewrite.
    pub fn settled_len(&mut self) -> Result<usize> {
        self.update()?;
        Ok(self.out.len())
    }

    /// Times the whole history had to be normalized again.
    pub fn rewrites(&self) -> usize {
        self.rewrites
    }

    /// Output records in all.
    pub fn len(&mut self) -> Result<usize> {
        let tail = self.tail()?.out.len();
        Ok(self.out.len() + tail)
    }

    pub fn is_empty(&mut self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    fn tail(&mut self) -> Result<&Tail> {
        self.update()?;
        self.tail
            .as_ref()
            .ok_or_else(|| Error::value("internal error: no tail after an update"))
    }

    /// The repairs made in the open tail (the records since the settled part).
    pub fn tail_report(&mut self) -> Result<Report> {
        Ok(self.tail()?.report.clone())
    }

    /// The output's settled texts, costs, turn starts, tail and cache marks:
    /// the edited ones when a policy is set.
    fn parts(&self) -> (&Texts, &[u64], &[bool], Option<&Tail>, &[usize]) {
        match self.edited.as_deref() {
            Some(e) => (&e.out, &e.costs, &e.turn, e.tail.as_ref(), &e.marks),
            None => (
                &self.out,
                &self.costs,
                &self.turn,
                self.tail.as_ref(),
                &self.marks,
            ),
        }
    }

    /// The output, as `normalize_for_api` gives it on the whole history
    /// (edited by the policy, when one is set).
    pub fn for_api(&mut self) -> Result<Vec<u8>> {
        Ok(self.api_bytes()?.to_vec())
    }

    /// [`Conversation::for_api`] without a copy: the settled output's own buffer
    /// with the tail and `]` added (the slice is valid until the next call that
    /// takes `&mut self`). The work is the tail's size.
    pub fn api_bytes(&mut self) -> Result<&[u8]> {
        self.update()?;
        let (out, tail) = match self.edited.as_deref_mut() {
            Some(e) => (&mut e.out, e.tail.as_ref()),
            None => (&mut self.out, self.tail.as_ref()),
        };
        out.reseal();
        if let Some(t) = tail {
            out.text.push_str(&t.out.text);
        }
        if out.text.len() > 1 {
            out.text.pop(); // the last separator
        }
        out.text.push(']');
        Ok(out.text.as_bytes())
    }

    /// Output records `from..to` as a JSON array.
    pub fn json_range(&self, from: usize, to: usize) -> Vec<u8> {
        let (settled_out, _, _, tail, _) = self.parts();
        let settled = settled_out.len();
        let empty = Texts::default();
        let tail = tail.map_or(&empty, |t| &t.out);
        let to = to.min(settled + tail.len());
        let from = from.min(to);
        // The separators are there already: two copies at most.
        let a = settled_out.range(from.min(settled), to.min(settled));
        let b = tail.range(from.max(settled) - settled, to.max(settled) - settled);
        let mut out = Vec::with_capacity(a.len() + b.len() + 2);
        out.push(b'[');
        out.extend_from_slice(a.as_bytes());
        if let Some(last) = out.last_mut().filter(|_| !a.is_empty()) {
            *last = b','; // `api_bytes` may have left `]` in place of the separator
        }
        out.extend_from_slice(b.as_bytes());
        if out.len() > 1 {
            out.pop(); // the last separator
        }
        out.push(b']');
        out
    }

    /// The JSON of output record `i` (settled, then the tail).
    fn output(&self, i: usize) -> &str {
        let (out, _, _, tail, _) = self.parts();
        if i < out.len() {
            out.get(i)
        } else {
            tail.map_or("", |t| t.out.get(i - out.len()))
        }
    }

    /// Per output record: its tokens (§6) and whether it starts a turn (§7).
    pub fn costs(&mut self) -> Result<(Vec<u64>, Vec<bool>)> {
        self.update()?;
        let (_, c, t, tail, _) = self.parts();
        let mut costs = c.to_vec();
        let mut turn = t.to_vec();
        if let Some(tail) = tail {
            costs.extend_from_slice(&tail.costs);
            turn.extend_from_slice(&tail.turn);
        }
        Ok((costs, turn))
    }

    /// Tokens of the whole output (§6).
    pub fn count_tokens(&mut self) -> Result<u64> {
        self.update()?;
        let (_, c, _, tail, _) = self.parts();
        let tail: u64 = tail.map_or(0, |t| t.costs.iter().sum());
        Ok(c.iter().sum::<u64>() + tail)
    }

    /// §6.1: the size of the next request's prompt, from the input records;
    /// `extra` is the system prompt's and tools' tokens, added only where no
    /// reported usage anchors the size. O(records appended since the last call).
    pub fn prompt_tokens(&mut self, extra: u64) -> Result<u64> {
        self.catch_up_prompt()?;
        Ok(self.prompt.tokens(extra))
    }

    /// A provider's reported usage of the request made with the history so
    /// far (§6.1): it anchors the size as a record's usage would. The records
    /// appended before it are taken in first, so it applies at this point.
    pub fn record_usage(&mut self, usage: crate::prompt::Reported) -> Result<()> {
        self.catch_up_prompt()?;
        self.prompt.record_usage(usage);
        Ok(())
    }

    /// Takes the input records appended since the last call into §6.1's state,
    /// one [`crate::prompt::Prompt::push`] each, as over a whole history.
    fn catch_up_prompt(&mut self) -> Result<()> {
        let from = self.prompt_seen;
        if from >= self.input.len() {
            return Ok(());
        }
        let src = self.input_array(from);
        let recs = read_records(&src, ReadOpts::COUNT).map_err(|e| shift(e, from))?;
        let mut prompt = self.prompt.clone();
        for r in &recs {
            let raw = r.orig.map_or("{}", |o| o.text);
            let facts = crate::prompt::facts_of_raw(r, raw).map_err(|e| shift(e, from))?;
            prompt.push(tokens::record_tokens(r, &self.settings.count), &facts);
        }
        self.prompt = prompt;
        self.prompt_seen = self.input.len();
        Ok(())
    }

    /// §7 `trim_to_budget` on the output, from the cached costs: `(k, JSON)`.
    pub fn trim_to_budget(&mut self, max_tokens: u64, pin: usize) -> Result<(usize, Vec<u8>)> {
        let (costs, turn) = self.costs()?;
        let k = cutoff::find_cutoff(&costs, &turn, max_tokens, pin)?;
        let n = costs.len();
        let pin = pin.min(n);
        let joint = k > pin && pin > 0 && k < n;
        if !joint {
            let mut out = self.json_range(0, pin);
            let rest = self.json_range(k, n);
            splice(&mut out, &rest);
            return Ok((k, out));
        }
        // The records at the joint may merge (§7): the core's trim does it.
        // `[a, a, b]` trimmed to `[a] + [b]`: the core merges b into a.
        let a = self.output(pin - 1);
        let triple = format!("[{a},{a},{}]", self.output(k));
        let recs = read_records(&triple, ReadOpts::default())?;
        let joined = write_records(&cutoff::trim(recs, 1, 2))?;
        let mut out = self.json_range(0, pin - 1);
        splice(&mut out, &joined);
        splice(&mut out, &self.json_range(k + 1, n));
        Ok((k, out))
    }

    /// §7 `split_for_summary` on the output: `(records[pin..k], records[k..])`.
    pub fn split_for_summary(
        &mut self,
        keep_tokens: u64,
        pin: usize,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let (costs, turn) = self.costs()?;
        let k = cutoff::find_cutoff(&costs, &turn, keep_tokens, pin)?;
        let n = costs.len();
        Ok((self.json_range(pin.min(n), k), self.json_range(k, n)))
    }

    /// Up to 4 output positions to put Anthropic `cache_control` breakpoints on
    /// (the last block of that record): the ends of the last settled parts, newest
    /// first. Each stays valid across appends, until a rewrite.
    pub fn cache_breakpoints(&mut self) -> Result<Vec<usize>> {
        self.update()?;
        Ok(self
            .parts()
            .4
            .iter()
            .rev()
            .filter(|&&m| m > 0)
            .take(4)
            .map(|&m| m - 1)
            .collect())
    }

    /// Normalizes the open tail if something was appended since.
    fn update(&mut self) -> Result<()> {
        self.update_base()?;
        self.update_edited()
    }

    fn update_base(&mut self) -> Result<()> {
        if self.tail.is_some() {
            return Ok(());
        }
        let tail = match self.normalize_tail()? {
            Some(t) => t,
            None => {
                // The settled part would change: normalize the whole history again.
                self.unsettle();
                self.rewrites += 1;
                match self.normalize_tail()? {
                    Some(t) => t,
                    None => return Err(Error::value("internal error: a rewrite did not settle")),
                }
            }
        };
        self.tail = Some(tail);
        Ok(())
    }

    fn unsettle(&mut self) {
        self.settled_in = 0;
        self.out.clear();
        self.costs.clear();
        self.turn.clear();
        self.media_before_last = 0;
        self.media_last = 0;
        self.media_omitted = false;
        self.tool_use_ids.clear();
        self.uuids.clear();
        self.point_uuids.clear();
        self.tombstoned.clear();
        self.marks.clear();
    }

    /// The tail's output records (with the settled part's last one first, when
    /// there is one), normalized from input record `from` on.
    fn run<'s>(
        &self,
        from: usize,
        context: Option<&'s str>,
        lines: &'s str,
        tombstoned: &'s [String],
        report: &mut Report,
    ) -> Result<Vec<Rec<'s>>> {
        let mut recs: Vec<Rec<'s>> = Vec::new();
        for t in tombstoned {
            let mut r = Record::new(0, Kind::Tombstone, None);
            r.tombstone_of = Some(Cow::Borrowed(t.as_str()));
            recs.push(r);
        }
        if let Some(c) = context {
            recs.extend(read_records(c, ReadOpts::default())?);
        }
        for mut r in read_lines(lines).map_err(|e| shift(e, from))? {
            r.index += from;
            r.uuid_from += from;
            recs.push(r);
        }
        let mut opts = self.opts.clone();
        opts.ensure_user_first &= context.is_none();
        crate::normalize_after(recs, &opts, &self.tool_use_ids, report)
    }

    /// The open tail, normalized; settles what it can. `None` when the settled
    /// part would change (a rewrite is needed).
    fn normalize_tail(&mut self) -> Result<Option<Tail>> {
        let from = self.settled_in;
        let lines = self.input_array(from);
        let context = self
            .out
            .len()
            .checked_sub(1)
            .map(|i| self.out.get(i).to_owned());
        // A tombstone naming a settled record changes the settled part. Checked
        // before the tail runs: in strict mode the tail may raise where the
        // whole history raises earlier (the record the tombstone frees).
        if context.is_some() && self.tombstones_settled(&lines)? {
            return Ok(None);
        }
        // A tombstone in the tail takes its record's media out of the count:
        // media the limit omitted from the settled part may come back.
        if context.is_some() && self.media_omitted && self.opts.max_media.is_some() {
            let tail = read_lines(&lines)?;
            if tail.iter().any(|r| r.kind == Kind::Tombstone) {
                return Ok(None);
            }
        }
        let tombstoned = self.tombstoned.clone();
        let mut report = Report::default();
        let out = self.run(from, context.as_deref(), &lines, &tombstoned, &mut report)?;
        if context.is_none() && report.media_omitted > 0 {
            self.media_omitted = true;
        }
        let base = usize::from(context.is_some());
        // What else would change the settled part.
        if let Some(c) = context.as_deref() {
            // The settled part's last record comes through unchanged, or the
            // settled part would change.
            let first_ok = match out.first() {
                Some(r) => record_json(r)? == c,
                None => false,
            };
            if !first_ok {
                return Ok(None);
            }
            if let Some(limit) = self.opts.max_media {
                let tail_media: usize = out.iter().map(media_in).sum();
                if self.media_before_last + tail_media > limit {
                    return Ok(None);
                }
            }
        }
        let texts: Vec<String> = out.iter().map(record_json).collect::<Result<_>>()?;
        // The last turn start whose output can settle: a real prompt right after
        // an assistant reply that calls no tool.
        let candidates = (base + 1..out.len()).rev().filter(|&p| {
            out[p].kind == Kind::User
                && cutoff::is_turn_start(&out[p])
                && stops_the_walk(&out[p])
                && out[p - 1].kind == Kind::Assistant
                && !has_tool_use(&out[p - 1])
        });
        let segment = read_lines(&lines)?;
        let mut tries = 0;
        for p in candidates {
            // Where the input splits: the first input record that went into
            // out[p..] (a prompt merged into an attachment before it keeps its
            // uuid), else the one after the last that went into out[..p].
            let first_after = out[p..]
                .iter()
                .map(|r| r.index.min(r.uuid_from))
                .filter(|&i| i > from)
                .min();
            let after_last = out[base..p]
                .iter()
                .map(|r| r.index.max(r.uuid_from) + 1)
                .max();
            let mut splits: Vec<usize> = first_after.into_iter().chain(after_last).collect();
            splits.dedup();
            for j in splits {
                if j <= from || j >= self.input.len() || tries == MAX_TRIES {
                    continue;
                }
                tries += 1;
                // The tombstones the settled part will hold once it reaches `j`.
                let mut tombstoned = tombstoned.clone();
                tombstoned.extend(
                    segment
                        .iter()
                        .take(j - from)
                        .filter_map(|r| r.tombstone_of.as_deref().map(str::to_owned)),
                );
                let rest = self.input_array(j);
                let mut again = Report::default();
                let Ok(check) = self.run(j, Some(&texts[p - 1]), &rest, &tombstoned, &mut again)
                else {
                    continue;
                };
                let same = check.len() == out.len() - p + 1
                    && check[1..]
                        .iter()
                        .zip(&texts[p..])
                        .all(|(r, t)| record_json(r).ok().as_deref() == Some(t.as_str()));
                if same {
                    // The input records that make out[p]: from `j` to the first
                    // that went into a later output record.
                    let k = out[p + 1..]
                        .iter()
                        .map(|r| r.index.min(r.uuid_from))
                        .filter(|&i| i >= j)
                        .min()
                        .unwrap_or(self.input.len());
                    self.point_uuids = segment
                        .iter()
                        .skip(j - from)
                        .take(k.saturating_sub(j))
                        .filter_map(|r| r.uuid.as_deref().map(str::to_owned))
                        .collect();
                    self.settle(from, j, &out[base..p], &texts[base..p])?;
                    return Ok(Some(self.tail_of(&texts[p..], again)?));
                }
            }
            if tries == MAX_TRIES {
                break;
            }
        }
        Ok(Some(self.tail_of(&texts[base..], report)?))
    }

    fn tombstones_settled(&self, lines: &str) -> Result<bool> {
        if self.uuids.is_empty() && self.point_uuids.is_empty() {
            return Ok(false);
        }
        let recs = read_lines(lines)?;
        Ok(recs.iter().any(|r| {
            r.kind == Kind::Tombstone
                && r.tombstone_of.as_deref().is_some_and(|u| {
                    self.uuids.contains(u) || self.point_uuids.iter().any(|p| p == u)
                })
        }))
    }

    /// Output records `texts` (from input records `from..to`) become settled.
    fn settle(&mut self, from: usize, to: usize, recs: &[Rec<'_>], texts: &[String]) -> Result<()> {
        for r in recs {
            // §4 step 5 removes repeated tool_use ids of assistant records only.
            let blocks = if r.kind == Kind::Assistant {
                r.content.blocks()
            } else {
                &[]
            };
            for b in blocks {
                if b.kind == BlockKind::ToolUse {
                    if let Some(id) = b.id.as_deref() {
                        self.tool_use_ids.insert(id.to_owned());
                    }
                }
            }
            self.media_before_last += self.media_last;
            self.media_last = media_in(r);
        }
        let (costs, turn) = self.measure(texts)?;
        self.costs.extend(costs);
        self.turn.extend(turn);
        for t in texts {
            self.out.push(t);
        }
        let lines = self.input_array(from);
        let recs = read_lines(&lines)?;
        // A record a tombstone already names is out of the output for good: a
        // later tombstone naming it changes nothing settled.
        let named: AHashSet<&str> = recs
            .iter()
            .filter_map(|r| r.tombstone_of.as_deref())
            .chain(self.tombstoned.iter().map(String::as_str))
            .collect();
        let mut uuids = Vec::new();
        let mut tombs = Vec::new();
        for r in recs.iter().take(to - from) {
            if let Some(u) = r.uuid.as_deref() {
                if !named.contains(u) {
                    uuids.push(u.to_owned());
                }
            }
            if let Some(t) = r.tombstone_of.as_deref() {
                tombs.push(t.to_owned());
            }
        }
        self.uuids.extend(uuids);
        self.tombstoned.extend(tombs);
        self.settled_in = to;
        self.marks.push(self.out.len());
        Ok(())
    }

    fn measure(&self, texts: &[String]) -> Result<(Vec<u64>, Vec<bool>)> {
        if texts.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let joined = format!("[{}]", texts.join(","));
        let recs = read_records(&joined, ReadOpts::COUNT)?;
        let costs = tokens::per_record(&recs, &self.settings.count)?;
        let turn = recs.iter().map(cutoff::is_turn_start).collect();
        Ok((costs, turn))
    }

    fn tail_of(&self, texts: &[String], report: Report) -> Result<Tail> {
        let (costs, turn) = self.measure(texts)?;
        let mut out = Texts::new(',');
        for t in texts {
            out.push(t);
        }
        Ok(Tail {
            out,
            costs,
            turn,
            report,
        })
    }
}

/// Appends JSON array `b` to JSON array `a` (both `[...]`).
fn splice(a: &mut Vec<u8>, b: &[u8]) {
    let b_empty = b.len() <= 2;
    if b_empty {
        return;
    }
    let a_empty = a.len() <= 2;
    a.pop(); // ']'
    if !a_empty {
        a.push(b',');
    }
    a.extend_from_slice(&b[1..]);
}

#[cfg(test)]
mod tests;
