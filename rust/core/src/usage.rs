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

/// Reads and scans `files` (`(path, is a subagent file)`) on `threads` threads:
/// each file's requests as [`write_entries`] writes them, and its skipped lines.
pub fn scan_files(files: &[(PathBuf, bool)], threads: usize) -> Result<Vec<(Vec<u8>, u64)>> {
    batch::map(files, threads, |(path, agent)| {
        let data = std::fs::read(path)
            .map_err(|e| Error::value(format!("cannot read {}: {e}", path.display())))?;
        let scan = scan(&data, *agent);
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
        match e.key.as_deref() {
            Some(k) => match at.get(k) {
                Some(&i) => {
                    if better(e, keep[i]) {
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
        let (id, request) = match e.key.as_deref() {
            Some(k) => {
                let (a, b) = k.split_once('\0').unwrap_or((k, ""));
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        opt(&mut out, "requestId", request);
        opt(&mut out, "timestamp", e.timestamp.as_deref());
        opt(&mut out, "sessionId", e.session.as_deref());
        opt(&mut out, "cwd", e.cwd.as_deref());
        if e.sidechain {
            out.extend_from_slice(b",\"isSidechain\":true");
        }
        out.extend_from_slice(b",\"message\":{\"model\":");
        write_str(&mut out, &e.model);
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

/// Skips the value at `p` quickly: a string or a container is crossed by
/// hopping between quotes and backslashes (strings are checked: escapes and
/// control characters; brackets must match), which is several times faster
/// than [`Parser::skip_value`] on text full of escapes. Commas, colons and
/// scalars inside the value are not checked. Anything else, or a value that
/// fails these checks, goes through the strict parser (and its error).
pub(crate) fn skip(p: &mut Parser<'_>) -> R<()> {
    p.ws();
    match skip_fast(p.src.as_bytes(), p.pos) {
        Some(end) => {
            p.pos = end;
            Ok(())
        }
        None => p.skip_value().map(|_| ()),
    }
}

/// The end of the string or container starting at `i`, or `None` (also past
/// 128 levels of nesting: the strict parser takes those).
fn skip_fast(b: &[u8], mut i: usize) -> Option<usize> {
    // The open containers as bits (1: an object), without allocating.
    let mut open: u128 = 0;
    let mut depth = 0u32;
    match b.get(i)? {
        b'"' | b'[' | b'{' => {}
        _ => return None,
    }
    loop {
        let c = *b.get(i)?;
        match c {
            b'"' => i = skip_str(b, i + 1)?,
            b'[' | b'{' => {
                if depth == 128 {
                    return None;
                }
                open = (open << 1) | u128::from(c == b'{');
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                if depth == 0 || (open & 1 == 1) != (c == b'}') {
                    return None;
                }
                open >>= 1;
                depth -= 1;
                i += 1;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

/// The position after the closing quote of a string whose text starts at `i`.
fn skip_str(b: &[u8], mut i: usize) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    loop {
        // Short runs (between escapes) word by word, long ones with memchr2.
        let mut stop = None;
        let mut j = i;
        while j + 8 <= b.len() && j < i + 64 {
            let x = u64::from_le_bytes(b[j..j + 8].try_into().ok()?);
            let q = x ^ (LO * u64::from(b'"'));
            let s = x ^ (LO * u64::from(b'\\'));
            let m = ((q.wrapping_sub(LO) & !q)
                | (s.wrapping_sub(LO) & !s)
                | (x.wrapping_sub(LO * 0x20) & !x))
                & HI;
            if m != 0 {
                stop = Some(j + (m.trailing_zeros() / 8) as usize);
                break;
            }
            j += 8;
        }
        let at = match stop {
            Some(at) => at,
            None => {
                let rest = b.get(j..)?;
                let n = memchr::memchr2(b'"', b'\\', rest)?;
                if rest[..n].iter().fold(0xff, |m, &c| m.min(c)) < 0x20 {
                    return None;
                }
                j + n
            }
        };
        match b[at] {
            b'"' => return Some(at + 1),
            b'\\' => match b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = at + 2,
                b'u' => {
                    let hex = b.get(at + 2..at + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i = at + 6;
                }
                _ => return None,
            },
            _ => return None, // a control character
        }
    }
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
                    _ => skip(p)?,
                }
                Ok(())
            })?,
            _ => skip(p)?,
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
    fn fast_skip_agrees_with_the_parser() {
        for v in [
            r#""a\n\"b\u00e9c""#,
            r#"[{"type":"text","text":"x\ty"},{"a":[1,2,{"b":"]}"}]}]"#,
            r#"{"k":"}","l":["[",{}]}"#,
            &format!(r#""{}\n{}""#, "x".repeat(100), "y".repeat(10)),
        ] {
            let src = format!("{v} ,");
            let mut p = Parser::new(&src);
            skip(&mut p).unwrap();
            assert_eq!(&src[..p.pos], v);
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        let mut p = Parser::new(&deep);
        skip(&mut p).unwrap();
        assert_eq!(p.pos, 400);
        for bad in [
            "[{]}",
            r#""a\u12""#,
            r#""a\x""#,
            "\"a\u{1}b\"",
            "[\"a\"}",
            "[\"a\"",
            "\"abc",
        ] {
            let mut p = Parser::new(bad);
            assert!(skip(&mut p).is_err(), "{bad}");
        }
    }

    #[test]
    fn written_entries_read_back_the_same() {
        let data = format!(
            "{}\n{}\n{}\n",
            line("a\\\"x", "r", 1, "t1"),
            line("a\\\"x", "r", 7, "t2"),
            r#"{"type":"assistant","isSidechain":true,"message":{"model":"m","usage":{"output_tokens":2}}}"#
        );
        let first = scan(data.as_bytes(), false);
        let written = write_entries(&first);
        let again = scan(&written, false);
        assert_eq!(again.entries.len(), 2);
        assert_eq!(again.entries[0].key.as_deref(), Some("a\"x\0r"));
        assert_eq!(again.entries[0].usage, first.entries[1].usage);
        assert_eq!(again.entries[0].timestamp.as_deref(), Some("t2"));
        assert_eq!(again.entries[1].key, None);
        assert!(again.entries[1].sidechain && !again.entries[0].sidechain);
        assert_eq!(write_entries(&again), written);
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
