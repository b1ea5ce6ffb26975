//! Exact token usage of Claude Code sessions: one entry per API request.
//!
//! A streamed reply is written as several assistant records that share
//! `message.id` and `requestId`; each carries the usage known when it was
//! written, so `output_tokens` only grows and the record with the most output
//! tokens is the request's true usage. Resumed sessions replay the same requests
//! in other files, so the entries are kept once across all files read.
//!
//! One pass over each file's raw bytes: only lines that contain `"usage"` are
//! decoded (found with `memmem`), and of those only the fields usage needs.
//! Files are read and scanned on the core's private pool ([`crate::batch`]).

use crate::batch;
use crate::error::{Error, Result};
use crate::json::parse::{Parser, Peek};
use ahash::AHashMap;
use std::borrow::Cow;
use std::collections::hash_map::Entry as Entry_;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

type R<T> = std::result::Result<T, Error>;

pub(crate) mod skim;
use skim::{message, next_key, object, object_or_skip, skip, str_or_skip};

/// Token counts of one request, or the sum of many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_creation_5m_input_tokens: u64,
    pub cache_creation_1h_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// `usage.server_tool_use` counts by kind (`web_search_requests`, ...).
    pub server_tool_use: BTreeMap<String, u64>,
    pub requests: u64,
}

impl Totals {
    pub fn add(&mut self, o: &Totals) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
        self.cache_creation_5m_input_tokens += o.cache_creation_5m_input_tokens;
        self.cache_creation_1h_input_tokens += o.cache_creation_1h_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
        for (k, v) in &o.server_tool_use {
            *self.server_tool_use.entry(k.clone()).or_default() += v;
        }
        self.requests += o.requests;
    }
}

/// A string of a [`FileScan`], as a range of its `text`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    start: usize,
    end: usize,
}

/// One assistant record's usage and what it is grouped by; its strings are
/// spans of the file's [`FileScan::text`].
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// `message.id` and `requestId` joined by NUL; `None` when the record has
    /// neither (it cannot be matched with another and counts on its own).
    pub key: Option<Span>,
    pub model: Span,
    pub usage: Totals,
    pub timestamp: Option<Span>,
    pub session: Option<Span>,
    pub cwd: Option<Span>,
    /// A subagent's request: `isSidechain: true`, or read from a subagent file.
    pub sidechain: bool,
}

/// What one file gave: every usage record in file order (a request streamed
/// over several records has one entry per record), their strings in one text.
#[derive(Debug, Default)]
pub struct FileScan {
    pub entries: Vec<Entry>,
    /// The strings of the entries, one after another (a model, session or cwd
    /// that repeats the previous entry's is kept once).
    pub text: String,
    /// Lines that mention `"usage"` but are not valid JSON, or whose usage
    /// holds a count that is not a non-negative integer.
    pub lines_skipped: u64,
}

impl FileScan {
    /// The text of a span.
    pub fn str(&self, s: Span) -> &str {
        &self.text[s.start..s.end]
    }

    fn opt(&self, s: Option<Span>) -> Option<&str> {
        s.map(|s| self.str(s))
    }

    /// `s` added to the text (or the span of `last` when it holds the same).
    fn push(&mut self, s: &str, last: Option<Span>) -> Span {
        if let Some(l) = last {
            if self.str(l) == s {
                return l;
            }
        }
        let start = self.text.len();
        self.text.push_str(s);
        Span {
            start,
            end: self.text.len(),
        }
    }
}

/// One file to read, with what its records are grouped by when they do not say.
#[derive(Clone, Debug)]
pub struct FileIn {
    pub path: PathBuf,
    /// A subagent's file: every request in it is a subagent's.
    pub agent: bool,
    pub session: String,
    pub project: String,
}

/// How entries are grouped besides the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    None,
    Session,
    Model,
    Project,
    /// By the timestamp's first 16 characters (`YYYY-MM-DDTHH:MM`, UTC): the
    /// caller merges minutes into days of its own time zone.
    Minute,
}

impl Group {
    pub fn parse(s: &str) -> Result<Group> {
        Ok(match s {
            "" | "none" => Group::None,
            "session" => Group::Session,
            "model" => Group::Model,
            "project" => Group::Project,
            "minute" => Group::Minute,
            _ => {
                return Err(Error::value(format!(
                    "by must be one of session, day, model, project, not {s:?}"
                )))
            }
        })
    }
}

/// Usage of a set of requests: the total, per model, and the subagents' share.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agg {
    pub total: Totals,
    pub models: BTreeMap<String, Totals>,
    pub subagents: Totals,
    pub subagent_models: BTreeMap<String, Totals>,
}

/// The totals of `key` in `m`, added when missing (without allocating when present).
fn slot<'m>(m: &'m mut BTreeMap<String, Totals>, key: &str) -> &'m mut Totals {
    if !m.contains_key(key) {
        m.insert(key.to_string(), Totals::default());
    }
    m.get_mut(key).expect("inserted above")
}

impl Agg {
    fn add(&mut self, e: &Entry, model: &str) {
        self.total.add(&e.usage);
        slot(&mut self.models, model).add(&e.usage);
        if e.sidechain {
            self.subagents.add(&e.usage);
            slot(&mut self.subagent_models, model).add(&e.usage);
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub group: Group,
    /// Only requests at or after this UTC timestamp (ISO 8601, `...Z`).
    pub since: Option<String>,
    /// Only requests before this UTC timestamp.
    pub until: Option<String>,
    pub threads: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub total: Agg,
    pub groups: BTreeMap<String, Agg>,
    pub files: usize,
    pub lines_skipped: u64,
    /// Synthetic replies (`model: "<synthetic>"`) left out.
    pub synthetic: u64,
}

thread_local! {
    /// Each thread's file buffer, kept from one file to the next.
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A buffer kept past this many bytes of capacity is given back after use.
const KEEP: usize = 64 << 20;

/// `f` with this thread's reused buffer, emptied (a nested call gets a new one).
fn with_buffer<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    BUFFER.with(|cell| {
        let mut own = Vec::new();
        let mut held = cell.try_borrow_mut().ok();
        let buf = held.as_deref_mut().unwrap_or(&mut own);
        buf.clear();
        let out = f(buf);
        if buf.capacity() > KEEP {
            *buf = Vec::new();
        }
        out
    })
}

fn read_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::value(format!("cannot read {}: {e}", path.display()))
}

/// `f` on the whole content of the file at `path`, read with one `read` into
/// this thread's reused buffer (no allocation, no page faults after the first
/// files).
pub(crate) fn with_file<T>(path: &Path, f: impl FnOnce(&[u8]) -> T) -> Result<T> {
    with_buffer(|buf| {
        std::fs::File::open(path)
            .and_then(|mut file| file.read_to_end(buf))
            .map_err(read_error(path))?;
        Ok(f(buf))
    })
}

/// Bytes read at a time by [`scan_file`]: the lines read are still in the
/// core's cache when they are searched and parsed.
const PIECE: usize = 256 << 10;

/// [`scan`] of the file at `path`, read a piece at a time (whole lines) into
/// this thread's reused buffer.
pub fn scan_file(path: &Path, agent: bool) -> Result<FileScan> {
    let fail = read_error(path);
    with_buffer(|buf| {
        let mut file = std::fs::File::open(path).map_err(&fail)?;
        let mut out = FileScan::default();
        let mut start = true;
        loop {
            let had = buf.len();
            let n = (&mut file)
                .take(PIECE as u64)
                .read_to_end(buf)
                .map_err(&fail)?;
            let end = n < PIECE;
            // Whole lines only; the rest waits for the next piece.
            let upto = if end {
                buf.len()
            } else {
                match memchr::memrchr(b'\n', &buf[had..]) {
                    Some(j) => had + j + 1,
                    None => continue,
                }
            };
            scan_into(&buf[..upto], agent, start, &mut out);
            if end {
                return Ok(out);
            }
            start = false;
            buf.drain(..upto);
        }
    })
}

/// Reads `files` on `opts.threads` threads and sums their usage, each request once.
pub fn usage(files: &[FileIn], opts: &Options) -> Result<Summary> {
    let scans = batch::map(files, opts.threads, |f| scan_file(&f.path, f.agent))?
        .into_iter()
        .collect::<Result<Vec<FileScan>>>()?;
    let mut out = Summary {
        files: files.len(),
        ..Summary::default()
    };
    // (file, entry) kept per key; entries without a key count on their own.
    let n: usize = scans.iter().map(|s| s.entries.len()).sum();
    // Per key, its slot in `slots`: the (file, entry) kept so far.
    let mut kept: AHashMap<&str, usize> = AHashMap::with_capacity(n);
    let mut slots: Vec<(usize, usize)> = Vec::with_capacity(n);
    let mut loose: Vec<(usize, usize)> = Vec::new();
    for (i, scan) in scans.iter().enumerate() {
        out.lines_skipped += scan.lines_skipped;
        // The slot of the previous keyed entry: the records of a streamed reply
        // follow each other and share their key's span (no second lookup).
        let mut previous: Option<(Span, usize)> = None;
        for (j, e) in scan.entries.iter().enumerate() {
            if scan.str(e.model) == SYNTHETIC {
                out.synthetic += 1;
                continue;
            }
            let Some(key) = e.key else {
                loose.push((i, j));
                continue;
            };
            let slot = match previous {
                Some((k, slot)) if k == key => slot,
                _ => match kept.entry(scan.str(key)) {
                    Entry_::Vacant(v) => {
                        v.insert(slots.len());
                        previous = Some((key, slots.len()));
                        slots.push((i, j));
                        continue;
                    }
                    Entry_::Occupied(o) => *o.get(),
                },
            };
            let (fi, fj) = slots[slot];
            if better(scan, e, &scans[fi], &scans[fi].entries[fj]) {
                slots[slot] = (i, j);
            }
            previous = Some((key, slot));
        }
    }
    let in_range = |t: Option<&str>| {
        if opts.since.is_none() && opts.until.is_none() {
            return true;
        }
        let Some(t) = t else {
            return false;
        };
        opts.since.as_deref().is_none_or(|s| t >= s) && opts.until.as_deref().is_none_or(|u| t < u)
    };
    for &(i, j) in slots.iter().chain(loose.iter()) {
        let scan = &scans[i];
        let e = &scan.entries[j];
        let timestamp = scan.opt(e.timestamp);
        if !in_range(timestamp) {
            continue;
        }
        let model = scan.str(e.model);
        out.total.add(e, model);
        let key = match opts.group {
            Group::None => continue,
            Group::Session => scan.opt(e.session).unwrap_or(&files[i].session),
            Group::Model => model,
            Group::Project => scan.opt(e.cwd).unwrap_or(&files[i].project),
            Group::Minute => timestamp.and_then(|t| t.get(..16)).unwrap_or(""),
        };
        if !out.groups.contains_key(key) {
            out.groups.insert(key.to_string(), Agg::default());
        }
        out.groups
            .get_mut(key)
            .expect("inserted above")
            .add(e, model);
    }
    Ok(out)
}

/// The model of synthetic replies, which are left out.
const SYNTHETIC: &str = "<synthetic>";

/// Reads and scans `files` (`(path, is a subagent file)`) on `threads` threads:
/// each file's requests as [`write_entries`] writes them, and its skipped lines.
pub fn scan_files(files: &[(PathBuf, bool)], threads: usize) -> Result<Vec<(Vec<u8>, u64)>> {
    batch::map(files, threads, |(path, agent)| {
        let scan = scan_file(path, *agent)?;
        Ok((write_entries(&scan), scan.lines_skipped))
    })?
    .into_iter()
    .collect()
}

/// A file's requests as JSON Lines that [`scan`] reads back to the same entries:
/// one minimal assistant record per request (the one [`usage`] would keep of
/// this file), in file order. A per-file cache stores this instead of the file.
pub fn write_entries(scan: &FileScan) -> Vec<u8> {
    use crate::json::write_str;
    let mut at: AHashMap<&str, usize> = AHashMap::new();
    let mut keep: Vec<&Entry> = Vec::new();
    for e in &scan.entries {
        match e.key.map(|k| scan.str(k)) {
            Some(k) => match at.get(k) {
                Some(&i) => {
                    if better(scan, e, scan, keep[i]) {
                        keep[i] = e;
                    }
                }
                None => {
                    at.insert(k, keep.len());
                    keep.push(e);
                }
            },
            None => keep.push(e),
        }
    }
    let mut out: Vec<u8> = Vec::new();
    let opt = |out: &mut Vec<u8>, name: &str, v: Option<&str>| {
        if let Some(v) = v {
            out.extend_from_slice(format!(",\"{name}\":").as_bytes());
            write_str(out, v);
        }
    };
    for e in keep {
        out.extend_from_slice(b"{\"type\":\"assistant\"");
        let (id, request) = match scan.opt(e.key) {
            Some(k) => {
                let (a, b) = k.split_once('\0').unwrap_or((k, ""));
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        opt(&mut out, "requestId", request);
        opt(&mut out, "timestamp", scan.opt(e.timestamp));
        opt(&mut out, "sessionId", scan.opt(e.session));
        opt(&mut out, "cwd", scan.opt(e.cwd));
        if e.sidechain {
            out.extend_from_slice(b",\"isSidechain\":true");
        }
        out.extend_from_slice(b",\"message\":{\"model\":");
        write_str(&mut out, scan.str(e.model));
        opt(&mut out, "id", id);
        let u = &e.usage;
        out.extend_from_slice(
            format!(
                ",\"usage\":{{\"input_tokens\":{},\"output_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{},\"ephemeral_1h_input_tokens\":{}}},\"server_tool_use\":{{",
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_5m_input_tokens,
                u.cache_creation_1h_input_tokens
            )
            .as_bytes(),
        );
        for (i, (k, v)) in u.server_tool_use.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(&mut out, k);
            out.extend_from_slice(format!(":{v}").as_bytes());
        }
        out.extend_from_slice(b"}}}}\n");
    }
    out
}

/// Whether `new` (of file `ns`) replaces `old` (of file `os`) for the same
/// request: more output tokens, or as many and an earlier timestamp (the
/// original rather than a replay).
fn better(ns: &FileScan, new: &Entry, os: &FileScan, old: &Entry) -> bool {
    if new.usage.output_tokens != old.usage.output_tokens {
        return new.usage.output_tokens > old.usage.output_tokens;
    }
    match (ns.opt(new.timestamp), os.opt(old.timestamp)) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    }
}

/// The usage entries of one file's bytes, in file order.
pub fn scan(data: &[u8], agent: bool) -> FileScan {
    let mut out = FileScan::default();
    scan_into(data, agent, true, &mut out);
    out
}

/// The usage entries of whole lines of a file (`start`: its first ones) added to `out`.
fn scan_into(data: &[u8], agent: bool, start: bool, out: &mut FileScan) {
    let finder = memchr::memmem::Finder::new(b"\"usage\"");
    let mut pos = 0;
    while pos < data.len() {
        let Some(i) = finder.find(&data[pos..]) else {
            break;
        };
        let at = pos + i;
        let from = memchr::memrchr(b'\n', &data[pos..at]).map_or(pos, |j| pos + j + 1);
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |j| at + j);
        let mut line = &data[from..end];
        if start && from == 0 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        scan_line(line, agent, out);
        pos = end + 1;
    }
}

fn scan_line(line: &[u8], agent: bool, out: &mut FileScan) {
    let Ok(text) = std::str::from_utf8(line) else {
        out.lines_skipped += 1;
        return;
    };
    let mut p = Parser::new(text);
    // A line may hold records written back to back (`}{`): read each.
    while !p.at_end() {
        match p.peek() {
            Ok(Peek::Object) => {}
            _ => {
                out.lines_skipped += 1;
                return;
            }
        }
        match record(&mut p, agent) {
            Ok(Some(r)) => r.add_to(out),
            Ok(None) => {}
            Err(_) => {
                out.lines_skipped += 1;
                return;
            }
        }
    }
}

/// A token count: a non-negative integer, or 0 for `null`.
pub(crate) fn count(p: &mut Parser<'_>) -> R<u64> {
    match p.peek()? {
        Peek::Null => {
            p.skip_value()?;
            Ok(0)
        }
        Peek::Number => {
            // The common case read in place: up to 19 digits, no leading zero,
            // no fraction or exponent; anything else through the parser.
            let b = &p.src.as_bytes()[p.pos..];
            let n = b.iter().take(20).take_while(|c| c.is_ascii_digit()).count();
            let plain = (1..20).contains(&n)
                && (b[0] != b'0' || n == 1)
                && !matches!(b.get(n), Some(b'.' | b'e' | b'E'));
            if plain {
                p.pos += n;
                return Ok(b[..n]
                    .iter()
                    .fold(0u64, |v, &c| v * 10 + u64::from(c - b'0')));
            }
            let raw = p.skip_value()?;
            raw.parse::<u64>()
                .map_err(|_| p.err("a token count must be a non-negative integer"))
        }
        _ => Err(p.err("a token count must be a non-negative integer")),
    }
}

fn usage_object(p: &mut Parser<'_>, t: &mut Totals) -> R<()> {
    object(p, |k, p| {
        match k {
            "input_tokens" => t.input_tokens = count(p)?,
            "output_tokens" => t.output_tokens = count(p)?,
            "cache_creation_input_tokens" => t.cache_creation_input_tokens = count(p)?,
            "cache_read_input_tokens" => t.cache_read_input_tokens = count(p)?,
            // A repeated key: the last value wins (SPEC §1), so each object
            // starts from nothing.
            "cache_creation" => {
                t.cache_creation_5m_input_tokens = 0;
                t.cache_creation_1h_input_tokens = 0;
                cache_creation(p, t)?;
            }
            "server_tool_use" => {
                t.server_tool_use.clear();
                server_tool_use(p, t)?;
            }
            _ => {
                p.skip_value()?;
            }
        }
        Ok(())
    })
}

fn cache_creation(p: &mut Parser<'_>, t: &mut Totals) -> R<()> {
    object_or_skip(p, |k, p| {
        match k {
            "ephemeral_5m_input_tokens" => t.cache_creation_5m_input_tokens = count(p)?,
            "ephemeral_1h_input_tokens" => t.cache_creation_1h_input_tokens = count(p)?,
            _ => {
                p.skip_value()?;
            }
        }
        Ok(())
    })
}

fn server_tool_use(p: &mut Parser<'_>, t: &mut Totals) -> R<()> {
    object_or_skip(p, |k, p| {
        if p.peek()? == Peek::Number {
            let n = count(p)?;
            if n > 0 {
                t.server_tool_use.insert(k.to_string(), n);
            } else {
                t.server_tool_use.remove(k);
            }
        } else {
            // Not a count: the key counts nothing, as if absent.
            t.server_tool_use.remove(k);
            p.skip_value()?;
        }
        Ok(())
    })
}
/// What one record gives, its strings borrowed from the line.
#[derive(Default)]
struct Record<'a> {
    id: Option<Cow<'a, str>>,
    request: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    timestamp: Option<Cow<'a, str>>,
    session: Option<Cow<'a, str>>,
    cwd: Option<Cow<'a, str>>,
    usage: Totals,
    sidechain: bool,
}

impl Record<'_> {
    /// This record as an entry of `out` (its strings added to `out.text`).
    fn add_to(self, out: &mut FileScan) {
        let last = out.entries.last().cloned().unwrap_or_default();
        let key = if self.id.is_some() || self.request.is_some() {
            let start = out.text.len();
            out.text.push_str(self.id.as_deref().unwrap_or(""));
            out.text.push('\0');
            out.text.push_str(self.request.as_deref().unwrap_or(""));
            let new = Span {
                start,
                end: out.text.len(),
            };
            // the records of one streamed reply follow each other: one key
            match last.key {
                Some(k) if out.str(k) == out.str(new) => {
                    out.text.truncate(start);
                    Some(k)
                }
                _ => Some(new),
            }
        } else {
            None
        };
        let model = out.push(self.model.as_deref().unwrap_or(""), Some(last.model));
        let timestamp = self.timestamp.map(|t| out.push(&t, None));
        let session = self.session.map(|s| out.push(&s, last.session));
        let cwd = self.cwd.map(|c| out.push(&c, last.cwd));
        out.entries.push(Entry {
            key,
            model,
            usage: self.usage,
            timestamp,
            session,
            cwd,
            sidechain: self.sidechain,
        });
    }
}

/// One record: what it gives when it is an assistant record with a usage object.
fn record<'a>(p: &mut Parser<'a>, agent: bool) -> R<Option<Record<'a>>> {
    let mut r = Record {
        sidechain: agent,
        ..Record::default()
    };
    let mut is_assistant = false;
    let mut has_usage = false;
    p.begin_object()?;
    let mut first = true;
    while let Some(k) = next_key(p, &mut first)? {
        match &*k {
            "type" => is_assistant = str_or_skip(p)?.as_deref() == Some("assistant"),
            "requestId" => r.request = str_or_skip(p)?,
            "timestamp" => r.timestamp = str_or_skip(p)?,
            "sessionId" => r.session = str_or_skip(p)?,
            "cwd" => r.cwd = str_or_skip(p)?,
            "isSidechain" => {
                // read whatever the file says: the value must be passed over
                let on = p.bool_or_skip()? == Some(true);
                r.sidechain = agent || on;
            }
            // A repeated key: the last value wins (SPEC §1): a later `message`
            // or `usage` replaces all an earlier one gave.
            "message" => {
                (r.id, r.model, r.usage, has_usage) = (None, None, Totals::default(), false);
                if p.peek()? != Peek::Object {
                    skip(p)?;
                    continue;
                }
                message(p, &mut r.id, &mut r.model, |p| {
                    r.usage = Totals::default();
                    has_usage = p.peek()? == Peek::Object;
                    if has_usage {
                        usage_object(p, &mut r.usage)
                    } else {
                        skip(p)
                    }
                })?;
            }
            _ => skip(p)?,
        }
    }
    if !is_assistant || !has_usage {
        return Ok(None);
    }
    r.usage.requests = 1;
    Ok(Some(r))
}

#[cfg(test)]
mod tests;
