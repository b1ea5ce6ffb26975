//! Records → JSON text. Unchanged records and blocks are copied byte for byte.

use super::parse::{next_escape, Parser};
use super::raw::Raw;
use crate::error::Result;
use crate::model::{Block, BlockKind, Content, Meta, Record};
use std::borrow::Cow;

/// Writes `s` as a JSON string ([`escape`]).
pub fn write_str(out: &mut impl Sink, s: &str) {
    out.byte(b'"');
    escape(s, |piece| out.put(piece.as_bytes()));
    out.byte(b'"');
}

/// `s` as the pieces of a JSON string's contents, in order: its plain runs
/// ([`super::parse::plain_run`]) as they are, and each byte between them escaped (`\"`,
/// `\\`, `\n`, `\r`, `\t`, other control characters as `\u00XX`). The one
/// escaper of every JSON writer.
pub fn escape(s: &str, mut piece: impl FnMut(&str)) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    let mut run = 0;
    while let Some(i) = next_escape(b, run) {
        // `i` is at an ASCII byte: a character boundary
        if let Some(plain) = s.get(run..i).filter(|p| !p.is_empty()) {
            piece(plain);
        }
        let c = b[i];
        let hex = [
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(c >> 4) as usize],
            HEX[(c & 0xf) as usize],
        ];
        piece(match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            _ => std::str::from_utf8(&hex).unwrap_or_default(),
        });
        run = i + 1;
    }
    if let Some(plain) = s.get(run..).filter(|p| !p.is_empty()) {
        piece(plain);
    }
}

/// Where JSON text goes: a `Vec`, a byte counter, or a buffer of known size.
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);
    fn byte(&mut self, c: u8) {
        self.put(&[c]);
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn byte(&mut self, c: u8) {
        self.push(c);
    }
}

/// Counts the bytes that would be written.
#[derive(Default)]
pub struct Count(pub usize);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
    fn byte(&mut self, _: u8) {
        self.0 += 1;
    }
}

/// Fills a buffer whose size was counted first; more bytes than fit are
/// noted, never written out of bounds.
pub struct Fill<'b> {
    buf: &'b mut [u8],
    pos: usize,
    overflow: bool,
}

impl Sink for Fill<'_> {
    fn put(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.pos..self.pos + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.pos += bytes.len();
            }
            None => self.overflow = true,
        }
    }
}

/// The size of [`write_records`]' output, without building it.
pub fn records_len(recs: &[Record<'_, Raw<'_>>]) -> Result<usize> {
    let mut n = Count::default();
    write_array(&mut n, recs)?;
    Ok(n.0)
}

/// [`write_records`] into a buffer of exactly [`records_len`] bytes.
pub fn write_records_into(recs: &[Record<'_, Raw<'_>>], buf: &mut [u8]) -> Result<()> {
    let len = buf.len();
    let mut fill = Fill {
        buf,
        pos: 0,
        overflow: false,
    };
    write_array(&mut fill, recs)?;
    if fill.overflow || fill.pos != len {
        return Err(crate::Error::value(
            "internal error: the output's size changed between counting and writing",
        ));
    }
    Ok(())
}

fn write_array(out: &mut impl Sink, recs: &[Record<'_, Raw<'_>>]) -> Result<()> {
    write_list(out, recs, write_record)
}

/// `[a,b,...]`: each item written by `item`.
#[inline]
fn write_list<S: Sink, T>(
    out: &mut S,
    items: &[T],
    mut item: impl FnMut(&mut S, &T) -> Result<()>,
) -> Result<()> {
    out.byte(b'[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        item(out, x)?;
    }
    out.byte(b']');
    Ok(())
}

/// The records as one JSON array.
pub fn write_records(recs: &[Record<'_, Raw<'_>>]) -> Result<Vec<u8>> {
    let cap: usize = recs
        .iter()
        .map(|r| r.orig.map_or(64, |o| o.text.len() + 16))
        .sum();
    let mut out = Vec::with_capacity(cap + 2);
    write_array(&mut out, recs)?;
    Ok(out)
}

pub fn write_record(out: &mut impl Sink, r: &Record<'_, Raw<'_>>) -> Result<()> {
    let Some(orig) = r.orig else {
        // A record the pipeline made: exactly type, uuid, message, timestamp, isMeta.
        out.put(b"{\"type\":");
        write_str(out, r.kind.role());
        out.put(b",\"uuid\":");
        write_str(out, r.uuid_str());
        out.put(b",\"message\":{\"role\":");
        write_str(out, r.kind.role());
        out.put(b",\"content\":");
        write_content(out, &r.content)?;
        out.byte(b'}');
        if let Some(ts) = r.timestamp {
            out.put(b",\"timestamp\":");
            out.put(ts.text.as_bytes());
        }
        if r.is_meta {
            out.put(b",\"isMeta\":true");
        }
        out.byte(b'}');
        return Ok(());
    };
    if !r.uuid_dirty && r.meta == Meta::Keep && !orig.dup {
        match (r.content_dirty, orig.hole()) {
            (false, _) => {
                out.put(orig.text.as_bytes());
                return Ok(());
            }
            (true, Some((s, e))) => {
                // Only the content changed: splice it in.
                out.put(&orig.text.as_bytes()[..s]);
                write_content(out, &r.content)?;
                out.put(&orig.text.as_bytes()[e..]);
                return Ok(());
            }
            (true, None) => {}
        }
    }
    let mut o = Rewrite::open(out, orig.text, orig.dup)?;
    let (mut wrote_uuid, mut wrote_meta) = (false, false);
    while let Some((kraw, key, raw)) = o.next()? {
        match &*key {
            "uuid" if r.uuid_dirty => {
                o.key(out, kraw);
                write_str(out, r.uuid_str());
                wrote_uuid = true;
            }
            "isMeta" if r.meta != Meta::Keep => {
                if r.meta == Meta::True {
                    o.member(out, "\"isMeta\"", "true")?;
                    wrote_meta = true;
                }
            }
            "message" if r.content_dirty => {
                o.key(out, kraw);
                write_message(out, raw, &r.content, orig.dup)?;
            }
            _ => o.member(out, kraw, raw)?,
        }
    }
    if r.uuid_dirty && !wrote_uuid {
        o.key(out, "\"uuid\"");
        write_str(out, r.uuid_str());
    }
    if r.meta == Meta::True && !wrote_meta {
        o.member(out, "\"isMeta\"", "true")?;
    }
    o.close(out);
    Ok(())
}

/// An object of the input written again member by member, some of them
/// changed: its parser, and how many members the output has so far.
///
/// An object that repeats a key (`dedup`) is written as Python's `json` reads
/// it (SPEC §1): each key once, where it first appears, with its last value,
/// and every value below it written the same way.
struct Rewrite<'s> {
    p: Parser<'s>,
    src: &'s str,
    first: bool,
    n: usize,
    /// With `dedup`: the members to write, listed once the object was read.
    members: Option<std::vec::IntoIter<Member<'s>>>,
}

/// A member of an object: its raw key (quotes included), the key, its raw value.
type Member<'s> = (&'s str, Cow<'s, str>, &'s str);

impl<'s> Rewrite<'s> {
    /// Opens the object `src`, and one in the output.
    fn open(out: &mut impl Sink, src: &'s str, dedup: bool) -> Result<Self> {
        let mut p = Parser::new(src);
        p.begin_object()?;
        let mut o = Rewrite {
            p,
            src,
            first: true,
            n: 0,
            members: None,
        };
        if dedup {
            o.members = Some(o.members_dedup()?.into_iter());
        }
        out.byte(b'{');
        Ok(o)
    }

    /// The members of the object, each key once: where it first appears, with
    /// its last value.
    fn members_dedup(&mut self) -> Result<Vec<Member<'s>>> {
        let mut all: Vec<Member<'s>> = Vec::new();
        while let Some(m) = self.next_raw()? {
            match all.iter_mut().find(|x| x.1 == m.1) {
                Some(slot) => slot.2 = m.2,
                None => all.push(m),
            }
        }
        Ok(all)
    }

    fn next_raw(&mut self) -> Result<Option<Member<'s>>> {
        let Some((start, key)) = self.p.next_key(&mut self.first)? else {
            return Ok(None);
        };
        let mut k = Parser::at(self.src, start);
        let _ = k.string();
        let kraw = &self.src[start..k.pos];
        Ok(Some((kraw, key, self.p.skip_value()?)))
    }

    /// The next member of the input: its raw key (quotes included), the key,
    /// and its raw value.
    fn next(&mut self) -> Result<Option<Member<'s>>> {
        match &mut self.members {
            Some(it) => Ok(it.next()),
            None => self.next_raw(),
        }
    }

    /// Starts an output member of raw key `kraw`: its value follows.
    fn key(&mut self, out: &mut impl Sink, kraw: &str) {
        if self.n > 0 {
            out.byte(b',');
        }
        self.n += 1;
        out.put(kraw.as_bytes());
        out.byte(b':');
    }

    /// An output member of raw key `kraw` and raw value `raw` (written
    /// without repeated keys when the object had one).
    fn member(&mut self, out: &mut impl Sink, kraw: &str, raw: &str) -> Result<()> {
        self.key(out, kraw);
        if self.members.is_some() {
            write_dedup(out, raw)
        } else {
            out.put(raw.as_bytes());
            Ok(())
        }
    }

    fn close(self, out: &mut impl Sink) {
        out.byte(b'}');
    }
}

/// The JSON value `raw` written as Python's `json` reads it (SPEC §1): in
/// every object each key once, where it first appears, with its last value.
pub fn write_dedup(out: &mut impl Sink, raw: &str) -> Result<()> {
    write_dedup_in(out, raw, 0)
}

fn write_dedup_in(out: &mut impl Sink, raw: &str, depth: usize) -> Result<()> {
    use super::parse::Peek;
    let mut p = Parser::new(raw);
    if depth > super::parse::MAX_DEPTH {
        return Err(p.err("nesting too deep"));
    }
    match p.peek()? {
        Peek::Object => {
            let mut o = Rewrite::open(out, raw, true)?;
            while let Some((kraw, _, v)) = o.next()? {
                o.key(out, kraw);
                write_dedup_in(out, v, depth + 1)?;
            }
            o.close(out);
        }
        Peek::Array => {
            p.begin_array()?;
            out.byte(b'[');
            let mut first = true;
            let mut n = 0;
            while p.next_elem(&mut first)? {
                if n > 0 {
                    out.byte(b',');
                }
                n += 1;
                write_dedup_in(out, p.skip_value()?, depth + 1)?;
            }
            out.byte(b']');
        }
        _ => out.put(p.skip_value()?.as_bytes()),
    }
    Ok(())
}

/// A `message` object with its `content` replaced.
fn write_message(
    out: &mut impl Sink,
    raw: &str,
    content: &Content<'_, Raw<'_>>,
    dedup: bool,
) -> Result<()> {
    let mut o = Rewrite::open(out, raw, dedup)?;
    while let Some((kraw, key, v)) = o.next()? {
        if key == "content" {
            o.key(out, kraw);
            write_content(out, content)?;
        } else {
            o.member(out, kraw, v)?;
        }
    }
    o.close(out);
    Ok(())
}

pub fn write_content(out: &mut impl Sink, c: &Content<'_, Raw<'_>>) -> Result<()> {
    match c {
        Content::Str(s) => write_str(out, s),
        Content::Blocks(bs) => write_list(out, bs, write_block)?,
    }
    Ok(())
}

pub fn write_block(out: &mut impl Sink, b: &Block<'_, Raw<'_>>) -> Result<()> {
    match (b.orig, b.dirty) {
        (Some(orig), false) if orig.dup => write_dedup(out, orig.text)?,
        (Some(orig), false) => out.put(orig.text.as_bytes()),
        (
            Some(
                orig @ Raw {
                    text,
                    hole: Some(_),
                    dup: false,
                },
            ),
            true,
        ) => {
            let (s, e) = orig.hole().unwrap_or_default();
            out.put(&text.as_bytes()[..s]);
            write_field(out, b)?;
            out.put(&text.as_bytes()[e..]);
        }
        (
            Some(Raw {
                text: orig, dup, ..
            }),
            true,
        ) => {
            // A changed text (text block), content (tool_result) or input
            // (tool_use, cleared to `{}`): rewrite that field.
            let field = match b.kind {
                BlockKind::Text => "text",
                BlockKind::ToolUse => "input",
                _ => "content",
            };
            let mut o = Rewrite::open(out, orig, dup)?;
            let mut wrote = false;
            while let Some((kraw, key, v)) = o.next()? {
                if key == field {
                    o.key(out, kraw);
                    write_field(out, b)?;
                    wrote = true;
                } else {
                    o.member(out, kraw, v)?;
                }
            }
            if !wrote {
                o.key(out, &format!("\"{field}\""));
                write_field(out, b)?;
            }
            o.close(out);
        }
        (None, _) => match b.kind {
            BlockKind::ToolResult => {
                out.put(b"{\"type\":\"tool_result\",\"tool_use_id\":");
                write_str(out, b.id.as_deref().unwrap_or(""));
                out.put(b",\"content\":");
                write_field(out, b)?;
                if b.is_error {
                    out.put(b",\"is_error\":true");
                }
                out.byte(b'}');
            }
            _ => {
                out.put(b"{\"type\":\"text\",\"text\":");
                write_str(out, b.text_str());
                out.byte(b'}');
            }
        },
    }
    Ok(())
}

/// The changed field's value: a text block's text, a tool_result's content,
/// or a cleared tool_use's input.
fn write_field(out: &mut impl Sink, b: &Block<'_, Raw<'_>>) -> Result<()> {
    if b.kind == BlockKind::ToolUse {
        out.put(b"{}");
        Ok(())
    } else if b.kind == BlockKind::Text {
        write_str(out, b.text_str());
        Ok(())
    } else {
        match &b.inner {
            Some(c) => write_content(out, c),
            None => {
                out.put(b"null");
                Ok(())
            }
        }
    }
}

/// `{"role": type, "content": message.content}` for each record (§4, `to_anthropic`).
pub fn write_anthropic(recs: &[Record<'_, Raw<'_>>]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(
        recs.iter()
            .map(|r| r.orig.map_or(64, |o| o.text.len()))
            .sum(),
    );
    crate::model::check_anthropic_messages(recs)?;
    out.byte(b'[');
    for (i, r) in recs.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        out.put(b"{\"role\":");
        write_str(&mut out, r.kind.role());
        out.put(b",\"content\":");
        match r
            .orig
            .filter(|o| !o.dup)
            .and_then(|o| o.hole().map(|(s, e)| &o.text[s..e]))
        {
            Some(raw) if !r.content_dirty => out.put(raw.as_bytes()),
            _ => write_content(&mut out, &r.content)?,
        }
        out.byte(b'}');
    }
    out.byte(b']');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every writer escapes a string the same way (the provider tree's
    /// `write_json_str` and this module's `write_str` share [`escape`]), and
    /// the parser reads back what they wrote, wherever the escape falls
    /// (the first 64 bytes are scanned eight at a time, the rest otherwise).
    #[test]
    fn one_escaper_for_every_writer() {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1f}", "é", "😀", "\u{7f}",
        ];
        for at in [0, 1, 7, 8, 9, 63, 64, 65, 200] {
            for sp in specials {
                let s = format!("{}{sp}{}", "a".repeat(at), "b".repeat(at % 5));
                let mut bytes = Vec::new();
                write_str(&mut bytes, &s);
                let mut text = String::new();
                crate::providers::value::write_json_str(&mut text, &s);
                assert_eq!(bytes, text.as_bytes(), "{s:?}");
                let mut p = Parser::new(&text);
                assert_eq!(p.string().unwrap(), s);
                assert!(!text[1..text.len() - 1].contains(|c: char| c < ' '));
            }
        }
        let mut out = Vec::new();
        write_str(&mut out, "\u{0}\u{8}\u{c}\u{1b}");
        assert_eq!(out, br#""\u0000\u0008\u000c\u001b""#);
    }
}
