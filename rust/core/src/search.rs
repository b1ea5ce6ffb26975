//! Search across session files: the text of user and assistant messages (and,
//! on request, tool inputs and results), matched on the decoded text.
//!
//! A plain query is a case-insensitive substring. The raw bytes are searched
//! first for the longest part of the query that JSON never escapes (ASCII other
//! than `"`, `\`, `/` and control characters), so only lines that can match are
//! decoded; the match itself is made on the decoded strings, escapes included.
//! A regular expression (the `regex` crate's syntax) decodes every message line.

use crate::batch;
use crate::error::{Error, Result};
use crate::json::parse::{Parser, Peek};
use crate::usage::skim::{object, object_or_skip, skip, string_or_skip};
use crate::usage::with_file;
use regex::{bytes, Regex, RegexBuilder};
use std::path::PathBuf;

type R<T> = std::result::Result<T, Error>;

/// Characters on each side of a match in a snippet.
const CONTEXT: usize = 60;

#[derive(Clone, Debug)]
pub struct Options {
    pub pattern: String,
    pub regex: bool,
    pub tools: bool,
    pub threads: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub file: usize,
    /// 1-based line of the record.
    pub line: usize,
    pub session: Option<String>,
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    /// `user` or `assistant`.
    pub role: String,
    /// Where the match is: `text`, `tool_use` or `tool_result`.
    pub field: String,
    /// The match with up to 60 characters on each side, on one line.
    pub snippet: String,
}

struct Matcher {
    text: Regex,
    raw: Option<bytes::Regex>,
    tools: bool,
}

fn safe(c: char) -> bool {
    c.is_ascii() && !c.is_ascii_control() && c != '"' && c != '\\' && c != '/'
}

impl Matcher {
    fn new(opts: &Options) -> Result<Matcher> {
        if opts.pattern.is_empty() {
            return Err(Error::value("the search query is empty"));
        }
        let bad = |e: regex::Error| Error::value(format!("invalid pattern: {e}"));
        if opts.regex {
            let text = Regex::new(&opts.pattern).map_err(bad)?;
            return Ok(Matcher {
                text,
                raw: None,
                tools: opts.tools,
            });
        }
        let text = RegexBuilder::new(&regex::escape(&opts.pattern))
            .case_insensitive(true)
            .build()
            .map_err(bad)?;
        // The longest run of characters that JSON text holds as they are.
        let run = opts
            .pattern
            .split(|c: char| !safe(c))
            .max_by_key(|s| s.len())
            .unwrap_or("");
        let raw = if run.is_empty() {
            None
        } else {
            Some(
                bytes::RegexBuilder::new(&regex::escape(run))
                    .case_insensitive(true)
                    .build()
                    .map_err(bad)?,
            )
        };
        Ok(Matcher {
            text,
            raw,
            tools: opts.tools,
        })
    }
}

/// Searches `paths` on `opts.threads` threads; hits in file and line order.
pub fn search(paths: &[PathBuf], opts: &Options) -> Result<Vec<Hit>> {
    let m = Matcher::new(opts)?;
    let per_file = batch::map(paths, opts.threads, |path| {
        with_file(path, |data| search_bytes(data, &m))
    })?;
    let mut out = Vec::new();
    for (i, hits) in per_file.into_iter().enumerate() {
        for mut h in hits? {
            h.file = i;
            out.push(h);
        }
    }
    Ok(out)
}

fn search_bytes(data: &[u8], m: &Matcher) -> Vec<Hit> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut line_no = 1;
    let mut counted = 0;
    while pos < data.len() {
        let (start, end) = match &m.raw {
            Some(raw) => {
                let Some(found) = raw.find_at(data, pos) else {
                    break;
                };
                let at = found.start();
                let start = memchr::memrchr(b'\n', &data[pos..at]).map_or(pos, |j| pos + j + 1);
                let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |j| at + j);
                (start, end)
            }
            None => {
                let end = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |j| pos + j);
                (pos, end)
            }
        };
        line_no += memchr::memchr_iter(b'\n', &data[counted..start]).count();
        counted = start;
        let mut line = &data[start..end];
        if start == 0 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if let Ok(text) = std::str::from_utf8(line) {
            if let Ok(Some(mut hit)) = record(text, m) {
                hit.line = line_no;
                out.push(hit);
            }
        }
        pos = end + 1;
    }
    out
}

/// Finds the pattern in `s`: the snippet around the first match.
fn find(m: &Matcher, s: &str) -> Option<String> {
    let found = m.text.find(s)?;
    let mut a = found.start();
    for _ in 0..CONTEXT {
        match s[..a].chars().next_back() {
            Some(c) => a -= c.len_utf8(),
            None => break,
        }
    }
    let mut b = found.end();
    for _ in 0..CONTEXT {
        match s[b..].chars().next() {
            Some(c) => b += c.len_utf8(),
            None => break,
        }
    }
    let mut snippet: String = s[a..b].split_whitespace().collect::<Vec<_>>().join(" ");
    if a > 0 {
        snippet.insert(0, '…');
    }
    if b < s.len() {
        snippet.push('…');
    }
    Some(snippet)
}

/// Every string inside a value, decoded, searched in order.
fn strings(p: &mut Parser<'_>, m: &Matcher) -> R<Option<String>> {
    let mut hit = None;
    let mut err = None;
    p.walk_value(&mut |t| {
        if hit.is_some() || err.is_some() {
            return;
        }
        if let crate::json::parse::Token::Str(raw) = t {
            match Parser::new(raw).string() {
                Ok(s) => hit = find(m, &s),
                Err(e) => err = Some(e),
            }
        }
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(hit),
    }
}

/// A tool result's content: a string or blocks with text.
fn result_content(p: &mut Parser<'_>, m: &Matcher) -> R<Option<String>> {
    match p.peek()? {
        Peek::String => Ok(find(m, &p.string()?)),
        Peek::Array => content(p, m, false).map(|h| h.map(|(_, s)| s)),
        _ => {
            p.skip_value()?;
            Ok(None)
        }
    }
}

/// The first match in a message content: `(field, snippet)`.
fn content(p: &mut Parser<'_>, m: &Matcher, tools: bool) -> R<Option<(&'static str, String)>> {
    match p.peek()? {
        Peek::String => Ok(find(m, &p.string()?).map(|s| ("text", s))),
        Peek::Array => {
            let mut hit = None;
            p.begin_array()?;
            let mut first = true;
            while p.next_elem(&mut first)? {
                if hit.is_some() || p.peek()? != Peek::Object {
                    p.skip_value()?;
                    continue;
                }
                // Keys come in any order: keep the raw text of what may be searched.
                let mut kind: Option<String> = None;
                let mut text: Option<String> = None;
                let mut input: Option<(usize, usize)> = None;
                let mut inner: Option<(usize, usize)> = None;
                let src = p.src;
                object(p, |k, p| {
                    match k {
                        "type" => kind = string_or_skip(p)?,
                        "text" => text = string_or_skip(p)?,
                        "input" | "content" if tools => {
                            p.ws();
                            let start = p.pos;
                            p.skip_value()?;
                            let span = Some((start, p.pos));
                            if k == "input" {
                                input = span;
                            } else {
                                inner = span;
                            }
                        }
                        _ => {
                            p.skip_value()?;
                        }
                    }
                    Ok(())
                })?;
                hit = match kind.as_deref() {
                    Some("text") => text.and_then(|t| find(m, &t)).map(|s| ("text", s)),
                    Some("tool_use" | "server_tool_use") if tools => match input {
                        Some((a, _)) => {
                            strings(&mut Parser::at(src, a), m)?.map(|s| ("tool_use", s))
                        }
                        None => None,
                    },
                    Some(k) if tools && k.ends_with("tool_result") => match inner {
                        Some((a, _)) => {
                            result_content(&mut Parser::at(src, a), m)?.map(|s| ("tool_result", s))
                        }
                        None => None,
                    },
                    _ => None,
                };
            }
            Ok(hit)
        }
        _ => {
            p.skip_value()?;
            Ok(None)
        }
    }
}

/// One line: a hit when it is a user or assistant record whose text matches.
fn record(line: &str, m: &Matcher) -> R<Option<Hit>> {
    let mut p = Parser::new(line);
    if p.peek()? != Peek::Object {
        return Ok(None);
    }
    let mut hit = Hit {
        file: 0,
        line: 0,
        session: None,
        uuid: None,
        timestamp: None,
        role: String::new(),
        field: String::new(),
        snippet: String::new(),
    };
    let mut kind: Option<String> = None;
    let mut found: Option<(&'static str, String)> = None;
    object(&mut p, |k, p| {
        match k {
            "type" => kind = string_or_skip(p)?,
            "uuid" => hit.uuid = string_or_skip(p)?,
            "timestamp" => hit.timestamp = string_or_skip(p)?,
            "sessionId" => hit.session = string_or_skip(p)?,
            // A repeated key: the last value wins (SPEC §1).
            "message" => {
                found = None;
                object_or_skip(p, |k, p| {
                    if k == "content" {
                        found = content(p, m, m.tools)?;
                    } else {
                        skip(p)?;
                    }
                    Ok(())
                })?;
            }
            _ => skip(p)?,
        }
        Ok(())
    })?;
    let role = match kind.as_deref() {
        Some(r @ ("user" | "assistant")) => r,
        _ => return Ok(None),
    };
    let Some((field, snippet)) = found else {
        return Ok(None);
    };
    hit.role = role.to_string();
    hit.field = field.to_string();
    hit.snippet = snippet;
    Ok(Some(hit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(q: &str, regex: bool, tools: bool) -> Matcher {
        Matcher::new(&Options {
            pattern: q.into(),
            regex,
            tools,
            threads: 1,
        })
        .unwrap()
    }

    const DATA: &str = concat!(
        r#"{"type":"summary","summary":"Needle in summary"}"#,
        "\n",
        r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"find the \"NeeDle\" here"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"u2","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"grep needle"}}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text":"caf\u00e9 \/ path"}]}}"#,
        "\n",
    );

    /// SPEC §1: a repeated key takes its last value.
    #[test]
    fn a_repeated_key_takes_its_last_value() {
        let m = opts("needle", false, false);
        let data = concat!(
            r#"{"type":"user","message":{"content":"needle"},"message":{"content":"hay"}}"#,
            "\n",
            r#"{"type":"user","message":{"content":"needle"},"message":1}"#,
            "\n",
            r#"{"type":"assistant","uuid":"x","uuid":"y","message":{"content":"hay","content":"a needle"}}"#,
            "\n",
        );
        let hits = search_bytes(data.as_bytes(), &m);
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].line, hits[0].uuid.as_deref()), (3, Some("y")));
    }

    #[test]
    fn finds_decoded_text_case_insensitively() {
        let hits = search_bytes(DATA.as_bytes(), &opts("needle", false, false));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].uuid.as_deref(), Some("u1"));
        assert_eq!(hits[0].line, 2);
        assert_eq!(hits[0].snippet, "find the \"NeeDle\" here");
        let hits = search_bytes(DATA.as_bytes(), &opts("needle", false, true));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[1].field, "tool_use");
        assert_eq!(hits[1].line, 3);
        // escapes in the raw text: \u00e9 and \/
        let hits = search_bytes(DATA.as_bytes(), &opts("CAFÉ / p", false, false));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].uuid.as_deref(), Some("u3"));
        let hits = search_bytes(DATA.as_bytes(), &opts("\"needle\"", false, false));
        assert_eq!(hits.len(), 1);
    }

    #[test]
    fn regex_and_errors() {
        let hits = search_bytes(DATA.as_bytes(), &opts(r"caf. /", true, false));
        assert_eq!(hits.len(), 1);
        assert!(Matcher::new(&Options {
            pattern: "(".into(),
            regex: true,
            tools: false,
            threads: 1
        })
        .is_err());
    }
}
