//! What a session file is, from its head and tail only: at most 64 KiB from
//! each end and a `stat`, never the whole file (as the Agent SDK's
//! `list_sessions` reads them).

use crate::batch;
use crate::error::{Error, Result};
use crate::json::parse::{Parser, Peek};
use crate::usage::skim::{object, object_or_skip, skip, string_or_skip};
use memchr::memmem::Finder;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Bytes read from each end of a file.
pub const CHUNK: u64 = 64 * 1024;

/// The first user prompt is cut to this many characters.
const PROMPT_CHARS: usize = 200;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionInfo {
    pub session_id: Option<String>,
    pub custom_title: Option<String>,
    pub summary: Option<String>,
    pub first_prompt: Option<String>,
    /// The first record's timestamp.
    pub created: Option<String>,
    /// The last record's timestamp.
    pub last_timestamp: Option<String>,
    /// Seconds since the epoch.
    pub mtime: f64,
    pub size: u64,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    /// The last assistant reply's model (synthetic replies aside).
    pub model: Option<String>,
}

/// The fields one record gives.
#[derive(Default)]
struct Fields {
    kind: Option<String>,
    session_id: Option<String>,
    custom_title: Option<String>,
    summary: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    git_branch: Option<String>,
    model: Option<String>,
    prompt: Option<String>,
    skip_prompt: bool,
}

fn fields(line: &str, want_prompt: bool) -> Option<Fields> {
    let mut f = Fields::default();
    let mut p = Parser::new(line);
    if p.peek().ok()? != Peek::Object {
        return None;
    }
    let mut content: Option<String> = None;
    // A repeated key: the last value wins (SPEC §1), so each key's value is
    // kept apart until the line is read.
    let (mut custom, mut ai) = (None, None);
    let (mut meta, mut compact) = (false, false);
    object(&mut p, |k, p| {
        match k {
            "type" => f.kind = string_or_skip(p)?,
            "sessionId" => f.session_id = string_or_skip(p)?,
            "customTitle" => custom = string_or_skip(p)?,
            "aiTitle" => ai = string_or_skip(p)?,
            "summary" => f.summary = string_or_skip(p)?,
            "timestamp" => f.timestamp = string_or_skip(p)?,
            "cwd" => f.cwd = string_or_skip(p)?,
            "gitBranch" => f.git_branch = string_or_skip(p)?,
            "isMeta" => meta = p.bool_or_skip()? == Some(true),
            "isCompactSummary" => compact = p.bool_or_skip()? == Some(true),
            "message" => {
                (f.model, content) = (None, None);
                object_or_skip(p, |k, p| {
                    match k {
                        "model" => f.model = string_or_skip(p)?,
                        "content" if want_prompt => content = first_text(p)?,
                        _ => skip(p)?,
                    }
                    Ok(())
                })?;
            }
            _ => skip(p)?,
        }
        Ok(())
    })
    .ok()?;
    f.custom_title = custom.or(ai);
    f.skip_prompt = meta || compact;
    if f.kind.as_deref() != Some("summary") {
        f.summary = None;
    }
    if f.kind.as_deref() == Some("user") && !f.skip_prompt {
        f.prompt = content.and_then(|t| prompt(&t));
    }
    if f.kind.as_deref() != Some("assistant") || f.model.as_deref() == Some("<synthetic>") {
        f.model = None;
    }
    Some(f)
}

/// The first text of a content (a string, or the first `text` block; `None`
/// when the content holds a tool result).
fn first_text(p: &mut Parser<'_>) -> std::result::Result<Option<String>, Error> {
    match p.peek()? {
        Peek::String => Ok(Some(p.string()?.into_owned())),
        Peek::Array => {
            let mut out: Option<String> = None;
            let mut tool_result = false;
            p.begin_array()?;
            let mut first = true;
            while p.next_elem(&mut first)? {
                if p.peek()? != Peek::Object {
                    p.skip_value()?;
                    continue;
                }
                let mut kind: Option<String> = None;
                let mut text: Option<String> = None;
                object(p, |k, p| {
                    match k {
                        "type" => kind = string_or_skip(p)?,
                        "text" => text = string_or_skip(p)?,
                        _ => {
                            p.skip_value()?;
                        }
                    }
                    Ok(())
                })?;
                match kind.as_deref() {
                    Some("text") if out.is_none() => out = text,
                    Some("tool_result") => tool_result = true,
                    _ => {}
                }
            }
            Ok(if tool_result { None } else { out })
        }
        _ => {
            p.skip_value()?;
            Ok(None)
        }
    }
}

/// A prompt as a title: one line, at most [`PROMPT_CHARS`] characters; `None`
/// for an empty one or a command, caveat or reminder Claude Code wrote.
fn prompt(text: &str) -> Option<String> {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.is_empty() || one.starts_with('<') || one.starts_with("Caveat:") {
        return None;
    }
    if one.chars().count() > PROMPT_CHARS {
        let cut: String = one.chars().take(PROMPT_CHARS).collect();
        return Some(cut.trim_end().to_string() + "…");
    }
    Some(one)
}

fn complete_lines(chunk: &[u8], cut_head: bool, cut_tail: bool) -> Vec<&str> {
    let mut b = chunk;
    if cut_head {
        b = memchr::memchr(b'\n', b).map_or(&[][..], |i| &b[i + 1..]);
    }
    if cut_tail {
        b = memchr::memrchr(b'\n', b).map_or(&[][..], |i| &b[..i]);
    }
    let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
    let mut out = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', b).chain([b.len()]) {
        if let Ok(line) = std::str::from_utf8(&b[start..end]) {
            let line = line.trim_end_matches('\r');
            if !line.trim().is_empty() {
                out.push(line);
            }
        }
        start = end + 1;
    }
    out
}

/// The session of one file.
pub fn info(path: &PathBuf) -> Result<SessionInfo> {
    let fail = |e: std::io::Error| Error::value(format!("cannot read {}: {e}", path.display()));
    let mut file = std::fs::File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    let size = meta.len();
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64());
    // Up to two chunks the whole file is read: no line is cut between head and tail.
    let head_len = if size <= 2 * CHUNK { size } else { CHUNK };
    let mut head = Vec::with_capacity(head_len as usize);
    (&mut file)
        .take(head_len)
        .read_to_end(&mut head)
        .map_err(fail)?;
    let whole = (head.len() as u64) >= size;
    let mut tail = Vec::new();
    if !whole {
        file.seek(SeekFrom::Start(size.saturating_sub(CHUNK)))
            .map_err(fail)?;
        file.take(CHUNK).read_to_end(&mut tail).map_err(fail)?;
    }
    let head_lines = complete_lines(&head, false, !whole);
    let tail_lines = if whole {
        Vec::new()
    } else {
        complete_lines(&tail, true, false)
    };
    Ok(summarize(size, mtime, &head_lines, &tail_lines))
}

/// What the complete lines of a file's head and tail say (`tail` is empty when
/// the head is the whole file).
fn summarize(size: u64, mtime: f64, head_lines: &[&str], tail_lines: &[&str]) -> SessionInfo {
    let mut out = SessionInfo {
        size,
        mtime,
        ..SessionInfo::default()
    };
    // The first of each field, from the head (session and cwd also from the
    // tail): lines are read until every one is found.
    let firsts_found = |o: &SessionInfo| {
        o.session_id.is_some()
            && o.created.is_some()
            && o.cwd.is_some()
            && o.first_prompt.is_some()
            && o.git_branch.is_some()
    };
    for line in head_lines {
        if firsts_found(&out) {
            break;
        }
        if let Some(mut f) = fields(line, out.first_prompt.is_none()) {
            out.take_firsts(&mut f);
        }
    }
    for line in tail_lines {
        if out.session_id.is_some() && out.cwd.is_some() {
            break;
        }
        if let Some(f) = fields(line, false) {
            out.session_id = out.session_id.or(f.session_id);
            out.cwd = out.cwd.or(f.cwd);
        }
    }
    // The last of each field: lines from the end, the tail's then the head's,
    // until every one is found; a line that cannot hold a missing field is
    // passed over unread.
    let mut last = Lasts::default();
    for line in tail_lines.iter().rev() {
        last.read(line, true);
        if last.done(true) {
            break;
        }
    }
    if !last.done(false) {
        for line in head_lines.iter().rev() {
            last.read(line, false);
            if last.done(false) {
                break;
            }
        }
    }
    out.custom_title = last.custom_title;
    out.summary = last.summary;
    out.last_timestamp = last.timestamp;
    out.model = last.model;
    // A long file's branch is the tail's last one, when the tail names one.
    if last.branch.is_some() {
        out.git_branch = last.branch;
    }
    out
}

impl SessionInfo {
    /// The fields of a line read from the head that are still missing: the
    /// first session, timestamp, cwd, prompt and non-empty git branch.
    fn take_firsts(&mut self, f: &mut Fields) {
        self.session_id = self.session_id.take().or(f.session_id.take());
        self.created = self.created.take().or(f.timestamp.take());
        self.cwd = self.cwd.take().or(f.cwd.take());
        self.first_prompt = self.first_prompt.take().or(f.prompt.take());
        if f.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
            self.git_branch = self.git_branch.take().or(f.git_branch.take());
        }
    }
}

/// The last of each field, read from the end.
#[derive(Default)]
struct Lasts {
    custom_title: Option<String>,
    summary: Option<String>,
    timestamp: Option<String>,
    model: Option<String>,
    /// The tail's last non-empty git branch.
    branch: Option<String>,
}

impl Lasts {
    fn done(&self, in_tail: bool) -> bool {
        self.custom_title.is_some()
            && self.summary.is_some()
            && self.timestamp.is_some()
            && self.model.is_some()
            && (!in_tail || self.branch.is_some())
    }

    /// Whether `line` may hold a key that gives a missing field. A key
    /// written with `\u` escapes cannot be seen in the raw bytes: such a line
    /// is read.
    fn may_give(&self, line: &str, in_tail: bool) -> bool {
        type Finders = [Finder<'static>; 7];
        static FINDERS: OnceLock<Finders> = OnceLock::new();
        let [custom, ai, summary, timestamp, model, branch, escape] = FINDERS.get_or_init(|| {
            [
                &b"\"customTitle\""[..],
                b"\"aiTitle\"",
                b"\"summary\"",
                b"\"timestamp\"",
                b"\"model\"",
                b"\"gitBranch\"",
                b"\\u",
            ]
            .map(Finder::new)
        });
        let has = |f: &Finder<'_>| f.find(line.as_bytes()).is_some();
        (self.custom_title.is_none() && (has(custom) || has(ai)))
            || (self.summary.is_none() && has(summary))
            || (self.timestamp.is_none() && has(timestamp))
            || (self.model.is_none() && has(model))
            || (in_tail && self.branch.is_none() && has(branch))
            || has(escape)
    }

    fn read(&mut self, line: &str, in_tail: bool) {
        if !self.may_give(line, in_tail) {
            return;
        }
        let Some(f) = fields(line, false) else {
            return;
        };
        self.custom_title = self.custom_title.take().or(f.custom_title);
        self.summary = self.summary.take().or(f.summary);
        self.timestamp = self.timestamp.take().or(f.timestamp);
        self.model = self.model.take().or(f.model);
        if in_tail && f.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
            self.branch = self.branch.take().or(f.git_branch);
        }
    }
}

/// [`info`] of every path, on `threads` threads, in order.
pub fn list(paths: &[PathBuf], threads: usize) -> Result<Vec<SessionInfo>> {
    batch::map(paths, threads, info)?.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;

    /// SPEC §1: a repeated key takes its last value.
    #[test]
    fn a_repeated_key_takes_its_last_value() {
        let f = fields(
            r#"{"type":"user","isMeta":true,"isMeta":false,"customTitle":"a","customTitle":1,"aiTitle":"b","message":{"content":"old"},"message":{"content":"new prompt"}}"#,
            true,
        )
        .unwrap();
        assert_eq!(f.custom_title.as_deref(), Some("b"));
        assert_eq!(f.prompt.as_deref(), Some("new prompt"));
        let f = fields(
            r#"{"type":"assistant","message":{"model":"m"},"message":"x"}"#,
            true,
        )
        .unwrap();
        assert_eq!(f.model, None);
    }

    #[test]
    fn head_and_tail_of_a_long_file() {
        let mut text = String::new();
        text.push_str(r#"{"type":"user","sessionId":"s1","cwd":"/a","gitBranch":"main","timestamp":"2026-01-01T00:00:00Z","isMeta":true,"message":{"role":"user","content":"meta"}}"#);
        text.push('\n');
        text.push_str(r#"{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"text","text":"fix\nthe bug"}]}}"#);
        text.push('\n');
        let filler = format!(
            r#"{{"type":"assistant","timestamp":"2026-01-01T00:01:00Z","message":{{"model":"old","content":"{}"}}}}"#,
            "x".repeat(1000)
        );
        for _ in 0..300 {
            text.push_str(&filler);
            text.push('\n');
        }
        text.push_str(r#"{"type":"custom-title","customTitle":"My title","sessionId":"s1"}"#);
        text.push('\n');
        text.push_str(r#"{"type":"assistant","gitBranch":"dev","timestamp":"2026-01-02T00:00:00Z","message":{"model":"new","content":[]}}"#);
        text.push('\n');
        text.push_str(r#"{"type":"assistant","message":{"model":"<synthetic>","content":[]}}"#);
        text.push('\n');
        let dir = TempDir::new("listing");
        let i = info(&dir.file("s.jsonl", &text)).unwrap();
        assert_eq!(i.size, text.len() as u64);
        assert_eq!(i.session_id.as_deref(), Some("s1"));
        assert_eq!(i.first_prompt.as_deref(), Some("fix the bug"));
        assert_eq!(i.custom_title.as_deref(), Some("My title"));
        assert_eq!(i.created.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(i.last_timestamp.as_deref(), Some("2026-01-02T00:00:00Z"));
        assert_eq!(i.git_branch.as_deref(), Some("dev"));
        assert_eq!(i.model.as_deref(), Some("new"));
        assert_eq!(i.cwd.as_deref(), Some("/a"));
    }

    #[test]
    fn a_line_across_the_first_chunk_of_a_short_file_is_read() {
        let pad = format!(
            r#"{{"type":"x","p":"{}"}}"#,
            "y".repeat(CHUNK as usize - 40)
        );
        let title = r#"{"type":"custom-title","customTitle":"across"}"#;
        let text = format!("{pad}\n{title}\n{}\n", &pad[..30_000]);
        assert!(pad.len() < CHUNK as usize && pad.len() + title.len() > CHUNK as usize);
        let dir = TempDir::new("listing2");
        let path = dir.file("s.jsonl", &text);
        assert_eq!(info(&path).unwrap().custom_title.as_deref(), Some("across"));
    }

    /// Every line read in order, as the fields were first defined: the head's
    /// first and last of each field, then the tail's last ones.
    fn summarize_every_line(head_lines: &[&str], tail_lines: &[&str]) -> SessionInfo {
        let mut out = SessionInfo::default();
        for line in head_lines {
            let Some(mut f) = fields(line, out.first_prompt.is_none()) else {
                continue;
            };
            let timestamp = f.timestamp.clone();
            out.take_firsts(&mut f);
            f.timestamp = timestamp;
            out.custom_title = f.custom_title.or(out.custom_title);
            out.summary = f.summary.or(out.summary);
            out.last_timestamp = f.timestamp.or(out.last_timestamp);
            out.model = f.model.or(out.model);
        }
        let mut branch: Option<String> = None;
        for line in tail_lines {
            let Some(f) = fields(line, false) else {
                continue;
            };
            out.custom_title = f.custom_title.or(out.custom_title);
            out.summary = f.summary.or(out.summary);
            out.last_timestamp = f.timestamp.or(out.last_timestamp);
            out.model = f.model.or(out.model);
            if f.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
                branch = f.git_branch;
            }
            out.session_id = out.session_id.or(f.session_id);
            out.cwd = out.cwd.or(f.cwd);
        }
        if branch.is_some() {
            out.git_branch = branch;
        }
        out
    }

    /// A random record line: any of the fields present, some keys escaped,
    /// some lines broken.
    fn random_line(rng: &mut u64) -> String {
        let mut next = |n: u64| {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng % n
        };
        let kind = [
            "user",
            "assistant",
            "summary",
            "custom-title",
            "ai-title",
            "system",
        ][next(6) as usize];
        let mut parts = vec![format!(r#""type":"{kind}""#)];
        let fields = [
            ("sessionId", "s"),
            ("timestamp", "2026-01-01T00:00:0"),
            ("cwd", "/w"),
            ("gitBranch", "b"),
            ("customTitle", "t"),
            ("aiTitle", "a"),
            ("summary", "sum"),
            ("isMeta", ""),
        ];
        for (k, v) in fields {
            if next(3) == 0 {
                let key = if next(8) == 0 {
                    // the same key, its first letter escaped
                    format!("\\u{:04x}{}", k.as_bytes()[0], &k[1..])
                } else {
                    k.to_string()
                };
                let value = match (k, next(6)) {
                    ("isMeta", _) => "true".to_string(),
                    ("gitBranch", 0) => "\"\"".to_string(),
                    (_, 1) => "7".to_string(),
                    _ => format!("\"{v}{}\"", next(10)),
                };
                parts.push(format!("\"{key}\":{value}"));
            }
        }
        if next(2) == 0 {
            let model = ["m1", "m2", "<synthetic>"][next(3) as usize];
            let content = match next(3) {
                0 => format!("\"prompt {}\"", next(100)),
                1 => r#"[{"type":"text","text":"a\nb"}]"#.to_string(),
                _ => r#"[{"type":"tool_result","content":"x"}]"#.to_string(),
            };
            parts.push(format!(
                r#""message":{{"model":"{model}","content":{content}}}"#
            ));
        }
        let mut line = format!("{{{}}}", parts.join(","));
        if next(12) == 0 {
            line.truncate(line.len() / 2);
        }
        line
    }

    #[test]
    fn reading_from_both_ends_equals_reading_every_line() {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..3000 {
            let n_head = (round % 9) as usize;
            let n_tail = (round / 9 % 7) as usize;
            let head: Vec<String> = (0..n_head).map(|_| random_line(&mut rng)).collect();
            let tail: Vec<String> = (0..n_tail).map(|_| random_line(&mut rng)).collect();
            let head: Vec<&str> = head.iter().map(String::as_str).collect();
            let tail: Vec<&str> = tail.iter().map(String::as_str).collect();
            let got = summarize(1, 2.0, &head, &tail);
            let want = SessionInfo {
                size: 1,
                mtime: 2.0,
                ..summarize_every_line(&head, &tail)
            };
            assert_eq!(got, want, "head {head:#?}\ntail {tail:#?}");
        }
    }

    #[test]
    fn prompts() {
        assert_eq!(prompt("  a\n b "), Some("a b".into()));
        assert_eq!(prompt("<command-name>/x</command-name>"), None);
        assert_eq!(prompt(&"é".repeat(300)).unwrap().chars().count(), 201);
    }
}
