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
use std::collections::BTreeMap;
use std::path::PathBuf;

type R<T> = std::result::Result<T, Error>;

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

/// One assistant record's usage and what it is grouped by.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// `message.id` and `requestId` joined; `None` when the record has neither
    /// (it cannot be matched with another and counts on its own).
    pub key: Option<String>,
    pub model: String,
    pub usage: Totals,
    pub timestamp: Option<String>,
    pub session: Option<String>,
    pub cwd: Option<String>,
    /// A subagent's request: `isSidechain: true`, or read from a subagent file.
    pub sidechain: bool,
}

/// What one file gave.
#[derive(Debug, Default)]
pub struct FileScan {
    pub entries: Vec<Entry>,
    /// Lines that mention `"usage"` but are not valid JSON, or whose usage
    /// holds a count that is not a non-negative integer.
    pub lines_skipped: u64,
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

impl Agg {
    fn add(&mut self, e: &Entry) {
        self.total.add(&e.usage);
        self.models
            .entry(e.model.clone())
            .or_default()
            .add(&e.usage);
        if e.sidechain {
            self.subagents.add(&e.usage);
            self.subagent_models
                .entry(e.model.clone())
                .or_default()
                .add(&e.usage);
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

/// Reads `files` on `opts.threads` threads and sums their usage, each request once.
pub fn usage(files: &[FileIn], opts: &Options) -> Result<Summary> {
    let scans = batch::map(files, opts.threads, |f| {
        let data = std::fs::read(&f.path)
            .map_err(|e| Error::value(format!("cannot read {}: {e}", f.path.display())))?;
        Ok(scan(&data, f.agent))
    })?;
    let mut out = Summary {
        files: files.len(),
        ..Summary::default()
    };
    // (file, entry) kept per key; entries without a key count on their own.
    let mut kept: AHashMap<String, (usize, Entry)> = AHashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut loose: Vec<(usize, Entry)> = Vec::new();
    for (i, scan) in scans.into_iter().enumerate() {
        let scan = scan?;
        out.lines_skipped += scan.lines_skipped;
        for e in scan.entries {
            if e.model == "<synthetic>" {
                out.synthetic += 1;
                continue;
            }
            let Some(key) = e.key.clone() else {
                loose.push((i, e));
                continue;
            };
            match kept.get_mut(&key) {
                None => {
                    order.push(key.clone());
                    kept.insert(key, (i, e));
                }
                Some(old) => {
                    if better(&e, &old.1) {
                        *old = (i, e);
                    }
                }
            }
        }
    }
    let in_range = |e: &Entry| {
        if opts.since.is_none() && opts.until.is_none() {
            return true;
        }
        let Some(t) = e.timestamp.as_deref() else {
            return false;
        };
        opts.since.as_deref().is_none_or(|s| t >= s) && opts.until.as_deref().is_none_or(|u| t < u)
    };
    let chosen = order.iter().filter_map(|k| kept.get(k)).chain(loose.iter());
    for (file, e) in chosen {
        if !in_range(e) {
            continue;
        }
        out.total.add(e);
        if opts.group == Group::None {
            continue;
        }
        let f = &files[*file];
        let key = match opts.group {
            Group::None => continue,
            Group::Session => e.session.clone().unwrap_or_else(|| f.session.clone()),
            Group::Model => e.model.clone(),
            Group::Project => e.cwd.clone().unwrap_or_else(|| f.project.clone()),
            Group::Minute => e
                .timestamp
                .as_deref()
                .and_then(|t| t.get(..16))
                .unwrap_or("")
                .to_string(),
        };
        out.groups.entry(key).or_default().add(e);
    }
    Ok(out)
}

/// Whether `new` replaces `old` for the same request: more output tokens, or as
/// many and an earlier timestamp (the original rather than a replay).
fn better(new: &Entry, old: &Entry) -> bool {
    if new.usage.output_tokens != old.usage.output_tokens {
        return new.usage.output_tokens > old.usage.output_tokens;
    }
    match (&new.timestamp, &old.timestamp) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    }
}

/// The usage entries of one file's bytes, in file order.
pub fn scan(data: &[u8], agent: bool) -> FileScan {
    let mut out = FileScan::default();
    let finder = memchr::memmem::Finder::new(b"\"usage\"");
    let mut pos = 0;
    while pos < data.len() {
        let Some(i) = finder.find(&data[pos..]) else {
            break;
        };
        let at = pos + i;
        let start = memchr::memrchr(b'\n', &data[pos..at]).map_or(pos, |j| pos + j + 1);
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |j| at + j);
        let mut line = &data[start..end];
        if start == 0 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        scan_line(line, agent, &mut out);
        pos = end + 1;
    }
    out
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
            Ok(Some(e)) => out.entries.push(e),
            Ok(None) => {}
            Err(_) => {
                out.lines_skipped += 1;
                return;
            }
        }
    }
}

/// Calls `f` with each key of the object at `p`; `f` must read or skip the value.
pub(crate) fn object<'a>(
    p: &mut Parser<'a>,
    mut f: impl FnMut(&str, &mut Parser<'a>) -> R<()>,
) -> R<()> {
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        f(&key, p)?;
    }
    Ok(())
}

/// A string value, or `None` after skipping any other value.
pub(crate) fn string_or_skip(p: &mut Parser<'_>) -> R<Option<String>> {
    if p.peek()? == Peek::String {
        return Ok(Some(p.string()?.into_owned()));
    }
    p.skip_value()?;
    Ok(None)
}

/// A token count: a non-negative integer, or 0 for `null`.
fn count(p: &mut Parser<'_>) -> R<u64> {
    match p.peek()? {
        Peek::Null => {
            p.skip_value()?;
            Ok(0)
        }
        Peek::Number => {
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
            "cache_creation" if p.peek()? == Peek::Object => object(p, |k, p| {
                match k {
                    "ephemeral_5m_input_tokens" => t.cache_creation_5m_input_tokens = count(p)?,
                    "ephemeral_1h_input_tokens" => t.cache_creation_1h_input_tokens = count(p)?,
                    _ => {
                        p.skip_value()?;
                    }
                }
                Ok(())
            })?,
            "server_tool_use" if p.peek()? == Peek::Object => object(p, |k, p| {
                if p.peek()? == Peek::Number {
                    let n = count(p)?;
                    if n > 0 {
                        *t.server_tool_use.entry(k.to_string()).or_default() += n;
                    }
                } else {
                    p.skip_value()?;
                }
                Ok(())
            })?,
            _ => {
                p.skip_value()?;
            }
        }
        Ok(())
    })
}

/// One record: its entry when it is an assistant record with a usage object.
fn record(p: &mut Parser<'_>, agent: bool) -> R<Option<Entry>> {
    let mut e = Entry {
        sidechain: agent,
        ..Entry::default()
    };
    let mut is_assistant = false;
    let mut has_usage = false;
    let mut id: Option<String> = None;
    let mut request: Option<String> = None;
    object(p, |k, p| {
        match k {
            "type" => is_assistant = string_or_skip(p)?.as_deref() == Some("assistant"),
            "requestId" => request = string_or_skip(p)?,
            "timestamp" => e.timestamp = string_or_skip(p)?,
            "sessionId" => e.session = string_or_skip(p)?,
            "cwd" => e.cwd = string_or_skip(p)?,
            "isSidechain" => {
                if p.bool_or_skip()? == Some(true) {
                    e.sidechain = true;
                }
            }
            "message" if p.peek()? == Peek::Object => object(p, |k, p| {
                match k {
                    "id" => id = string_or_skip(p)?,
                    "model" => e.model = string_or_skip(p)?.unwrap_or_default(),
                    "usage" if p.peek()? == Peek::Object => {
                        has_usage = true;
                        usage_object(p, &mut e.usage)?;
                    }
                    _ => {
                        p.skip_value()?;
                    }
                }
                Ok(())
            })?,
            _ => {
                p.skip_value()?;
            }
        }
        Ok(())
    })?;
    if !is_assistant || !has_usage {
        return Ok(None);
    }
    e.usage.requests = 1;
    if id.is_some() || request.is_some() {
        let mut key = id.unwrap_or_default();
        key.push('\0');
        key.push_str(request.as_deref().unwrap_or(""));
        e.key = Some(key);
    }
    Ok(Some(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, req: &str, out: u64, ts: &str) -> String {
        format!(
            r#"{{"type":"assistant","timestamp":"{ts}","requestId":"{req}","sessionId":"s","message":{{"id":"{id}","model":"m","content":[{{"type":"text","text":"usage \"x\""}}],"usage":{{"input_tokens":3,"output_tokens":{out},"cache_creation_input_tokens":10,"cache_read_input_tokens":7,"cache_creation":{{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6}},"server_tool_use":{{"web_search_requests":1}}}}}}}}"#
        )
    }

    #[test]
    fn reads_usage_fields() {
        let data = line("a", "r", 5, "2026-01-01T00:00:00.000Z");
        let s = scan(data.as_bytes(), false);
        assert_eq!(s.lines_skipped, 0);
        assert_eq!(s.entries.len(), 1);
        let u = &s.entries[0].usage;
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_creation_5m_input_tokens,
                u.cache_creation_1h_input_tokens,
                u.cache_read_input_tokens,
                u.server_tool_use.get("web_search_requests").copied()
            ),
            (3, 5, 10, 4, 6, 7, Some(1))
        );
        assert_eq!(s.entries[0].key.as_deref(), Some("a\0r"));
    }

    #[test]
    fn skips_lines_without_usage_and_counts_broken_ones() {
        let data = format!(
            "{}\n{{\"type\":\"user\",\"message\":{{}}}}\n{{\"usage\": broken\n{{\"type\":\"assistant\",\"message\":{{\"usage\":{{\"output_tokens\":-1}}}}}}\n{}{}\n",
            line("a", "r", 1, "t1"),
            line("b", "r", 2, "t2"),
            line("c", "r", 3, "t3"),
        );
        let s = scan(data.as_bytes(), true);
        assert_eq!(s.lines_skipped, 2);
        let ids: Vec<_> = s.entries.iter().map(|e| e.key.clone().unwrap()).collect();
        assert_eq!(ids, ["a\0r", "b\0r", "c\0r"]);
        assert!(s.entries.iter().all(|e| e.sidechain));
    }

    #[test]
    fn keeps_the_most_output_once_across_files() {
        let dir = std::env::temp_dir().join(format!("msgnorm-usage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.jsonl");
        let b = dir.join("b.jsonl");
        let first = line("m1", "r1", 1, "2026-01-01T00:00:00.000Z");
        let last = line("m1", "r1", 9, "2026-01-01T00:00:01.000Z");
        std::fs::write(&a, format!("{first}\n{last}\n")).unwrap();
        std::fs::write(&b, format!("{first}\n{}\n", line("m2", "r2", 4, "t"))).unwrap();
        let files: Vec<FileIn> = [a, b]
            .iter()
            .map(|p| FileIn {
                path: p.clone(),
                agent: false,
                session: "x".into(),
                project: "p".into(),
            })
            .collect();
        let opts = Options {
            group: Group::Session,
            since: None,
            until: None,
            threads: 2,
        };
        let s = usage(&files, &opts).unwrap();
        assert_eq!(s.total.total.requests, 2);
        assert_eq!(s.total.total.output_tokens, 13);
        assert_eq!(s.total.total.input_tokens, 6);
        assert_eq!(s.groups.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
