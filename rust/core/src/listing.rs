//! What a session file is, from its head and tail only: at most 64 KiB from
//! each end and a `stat`, never the whole file (as the Agent SDK's
//! `list_sessions` reads them).

use crate::batch;
use crate::error::{Error, Result};
use crate::json::parse::{Parser, Peek};
use crate::usage::{object, skip, string_or_skip};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

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
    object(&mut p, |k, p| {
        match k {
            "type" => f.kind = string_or_skip(p)?,
            "sessionId" => f.session_id = string_or_skip(p)?,
            "customTitle" | "aiTitle" => {
                let t = string_or_skip(p)?;
                if k == "customTitle" || f.custom_title.is_none() {
                    f.custom_title = t.or(f.custom_title.take());
                }
            }
            "summary" => f.summary = string_or_skip(p)?,
            "timestamp" => f.timestamp = string_or_skip(p)?,
            "cwd" => f.cwd = string_or_skip(p)?,
            "gitBranch" => f.git_branch = string_or_skip(p)?,
            "isMeta" | "isCompactSummary" => {
                if p.bool_or_skip()? == Some(true) {
                    f.skip_prompt = true;
                }
            }
            "message" if p.peek()? == Peek::Object => object(p, |k, p| {
                match k {
                    "model" => f.model = string_or_skip(p)?,
                    "content" if want_prompt => content = first_text(p)?,
                    _ => skip(p)?,
                }
                Ok(())
            })?,
            _ => skip(p)?,
        }
        Ok(())
    })
    .ok()?;
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
    b.split(|&c| c == b'\n')
        .filter_map(|l| std::str::from_utf8(l).ok())
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect()
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
    let mut out = SessionInfo {
        size,
        mtime,
        ..SessionInfo::default()
    };
    let head_lines = complete_lines(&head, false, !whole);
    let tail_lines = if whole {
        Vec::new()
    } else {
        complete_lines(&tail, true, false)
    };
    // The head, in order: the first of each field.
    for line in &head_lines {
        let Some(f) = fields(line, out.first_prompt.is_none()) else {
            continue;
        };
        out.session_id = out.session_id.or(f.session_id);
        out.created = out.created.or(f.timestamp.clone());
        out.cwd = out.cwd.or(f.cwd);
        out.first_prompt = out.first_prompt.or(f.prompt);
        if f.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
            out.git_branch = out.git_branch.or(f.git_branch);
        }
        // In a short file the head is also the tail: the last of these wins.
        if f.custom_title.is_some() {
            out.custom_title = f.custom_title;
        }
        if f.summary.is_some() {
            out.summary = f.summary;
        }
        if f.timestamp.is_some() {
            out.last_timestamp = f.timestamp;
        }
        if f.model.is_some() {
            out.model = f.model;
        }
    }
    // The tail: the last of each field.
    let mut branch: Option<String> = None;
    for line in &tail_lines {
        let Some(f) = fields(line, false) else {
            continue;
        };
        if f.custom_title.is_some() {
            out.custom_title = f.custom_title;
        }
        if f.summary.is_some() {
            out.summary = f.summary;
        }
        if f.timestamp.is_some() {
            out.last_timestamp = f.timestamp;
        }
        if f.model.is_some() {
            out.model = f.model;
        }
        if f.git_branch.as_deref().is_some_and(|b| !b.is_empty()) {
            branch = f.git_branch;
        }
        out.session_id = out.session_id.or(f.session_id);
        out.cwd = out.cwd.or(f.cwd);
    }
    if branch.is_some() {
        out.git_branch = branch;
    }
    Ok(out)
}

/// [`info`] of every path, on `threads` threads, in order.
pub fn list(paths: &[PathBuf], threads: usize) -> Result<Vec<SessionInfo>> {
    batch::map(paths, threads, info)?.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_of_a_long_file() {
        let dir = std::env::temp_dir().join(format!("msgnorm-listing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
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
        std::fs::write(&path, &text).unwrap();
        let i = info(&path).unwrap();
        assert_eq!(i.size, text.len() as u64);
        assert_eq!(i.session_id.as_deref(), Some("s1"));
        assert_eq!(i.first_prompt.as_deref(), Some("fix the bug"));
        assert_eq!(i.custom_title.as_deref(), Some("My title"));
        assert_eq!(i.created.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(i.last_timestamp.as_deref(), Some("2026-01-02T00:00:00Z"));
        assert_eq!(i.git_branch.as_deref(), Some("dev"));
        assert_eq!(i.model.as_deref(), Some("new"));
        assert_eq!(i.cwd.as_deref(), Some("/a"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_across_the_first_chunk_of_a_short_file_is_read() {
        let dir = std::env::temp_dir().join(format!("msgnorm-listing2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        let pad = format!(
            r#"{{"type":"x","p":"{}"}}"#,
            "y".repeat(CHUNK as usize - 40)
        );
        let title = r#"{"type":"custom-title","customTitle":"across"}"#;
        let text = format!("{pad}\n{title}\n{}\n", &pad[..30_000]);
        assert!(pad.len() < CHUNK as usize && pad.len() + title.len() > CHUNK as usize);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(info(&path).unwrap().custom_title.as_deref(), Some("across"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn prompts() {
        assert_eq!(prompt("  a\n b "), Some("a b".into()));
        assert_eq!(prompt("<command-name>/x</command-name>"), None);
        assert_eq!(prompt(&"é".repeat(300)).unwrap().chars().count(), 201);
    }
}
