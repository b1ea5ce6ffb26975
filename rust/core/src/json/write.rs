//! Records → JSON text. Unchanged records and blocks are copied byte for byte.

use super::parse::Parser;
use super::read::Raw;
use crate::error::Result;
use crate::model::{Block, BlockKind, Content, Kind, Meta, Record};

/// Writes `s` as a JSON string.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[run..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 0xf) as usize]);
        } else {
            out.extend_from_slice(esc);
        }
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
    out.push(b'"');
}

/// The records as one JSON array.
pub fn write_records(recs: &[Record<'_, Raw<'_>>]) -> Result<Vec<u8>> {
    let cap: usize = recs
        .iter()
        .map(|r| r.orig.map_or(64, |o| o.text.len() + 16))
        .sum();
    let mut out = Vec::with_capacity(cap + 2);
    out.push(b'[');
    for (i, r) in recs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_record(&mut out, r)?;
    }
    out.push(b']');
    Ok(out)
}

pub fn write_record(out: &mut Vec<u8>, r: &Record<'_, Raw<'_>>) -> Result<()> {
    let Some(orig) = r.orig else {
        // A record the pipeline made: exactly type, uuid, message, timestamp, isMeta.
        out.extend_from_slice(b"{\"type\":");
        write_str(
            out,
            if r.kind == Kind::Assistant {
                "assistant"
            } else {
                "user"
            },
        );
        out.extend_from_slice(b",\"uuid\":");
        write_str(out, r.uuid_str());
        out.extend_from_slice(b",\"message\":{\"role\":");
        write_str(
            out,
            if r.kind == Kind::Assistant {
                "assistant"
            } else {
                "user"
            },
        );
        out.extend_from_slice(b",\"content\":");
        write_content(out, &r.content)?;
        out.push(b'}');
        if let Some(ts) = r.timestamp {
            out.extend_from_slice(b",\"timestamp\":");
            out.extend_from_slice(ts.text.as_bytes());
        }
        if r.is_meta {
            out.extend_from_slice(b",\"isMeta\":true");
        }
        out.push(b'}');
        return Ok(());
    };
    if !r.uuid_dirty && r.meta == Meta::Keep {
        match (r.content_dirty, orig.hole) {
            (false, _) => {
                out.extend_from_slice(orig.text.as_bytes());
                return Ok(());
            }
            (true, Some((s, e))) => {
                // Only the content changed: splice it in.
                out.extend_from_slice(&orig.text.as_bytes()[..s]);
                write_content(out, &r.content)?;
                out.extend_from_slice(&orig.text.as_bytes()[e..]);
                return Ok(());
            }
            (true, None) => {}
        }
    }
    let orig = orig.text;
    let mut p = Parser::new(orig);
    p.begin_object()?;
    out.push(b'{');
    let mut first = true;
    let mut n = 0;
    let mut wrote_uuid = false;
    let mut wrote_meta = false;
    while let Some((kstart, key)) = p.next_key(&mut first)? {
        let kraw = key_raw(orig, kstart);
        let vstart = p.pos;
        match &*key {
            "uuid" if r.uuid_dirty => {
                p.skip_value()?;
                sep(out, &mut n);
                out.extend_from_slice(kraw.as_bytes());
                out.push(b':');
                write_str(out, r.uuid_str());
                wrote_uuid = true;
            }
            "isMeta" if r.meta != Meta::Keep => {
                p.skip_value()?;
                if r.meta == Meta::True {
                    sep(out, &mut n);
                    out.extend_from_slice(b"\"isMeta\":true");
                    wrote_meta = true;
                }
            }
            "message" if r.content_dirty => {
                let raw = p.skip_value()?;
                sep(out, &mut n);
                out.extend_from_slice(kraw.as_bytes());
                out.push(b':');
                write_message(out, raw, &r.content)?;
            }
            _ => {
                let raw = p.skip_value()?;
                debug_assert_eq!(vstart + raw.len(), p.pos);
                sep(out, &mut n);
                out.extend_from_slice(kraw.as_bytes());
                out.push(b':');
                out.extend_from_slice(raw.as_bytes());
            }
        }
    }
    if r.uuid_dirty && !wrote_uuid {
        sep(out, &mut n);
        out.extend_from_slice(b"\"uuid\":");
        write_str(out, r.uuid_str());
    }
    if r.meta == Meta::True && !wrote_meta {
        sep(out, &mut n);
        out.extend_from_slice(b"\"isMeta\":true");
    }
    out.push(b'}');
    Ok(())
}

fn sep(out: &mut Vec<u8>, n: &mut usize) {
    if *n > 0 {
        out.push(b',');
    }
    *n += 1;
}

/// The raw text of the key starting at `start` (quotes included).
fn key_raw(src: &str, start: usize) -> &str {
    let mut p = Parser::at(src, start);
    let _ = p.string();
    &src[start..p.pos]
}

/// A `message` object with its `content` replaced.
fn write_message(out: &mut Vec<u8>, raw: &str, content: &Content<'_, Raw<'_>>) -> Result<()> {
    let mut p = Parser::new(raw);
    p.begin_object()?;
    out.push(b'{');
    let mut first = true;
    let mut n = 0;
    while let Some((kstart, key)) = p.next_key(&mut first)? {
        let kraw = key_raw(raw, kstart);
        let v = p.skip_value()?;
        sep(out, &mut n);
        out.extend_from_slice(kraw.as_bytes());
        out.push(b':');
        if key == "content" {
            write_content(out, content)?;
        } else {
            out.extend_from_slice(v.as_bytes());
        }
    }
    out.push(b'}');
    Ok(())
}

pub fn write_content(out: &mut Vec<u8>, c: &Content<'_, Raw<'_>>) -> Result<()> {
    match c {
        Content::Str(s) => write_str(out, s),
        Content::Blocks(bs) => {
            out.push(b'[');
            for (i, b) in bs.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_block(out, b)?;
            }
            out.push(b']');
        }
    }
    Ok(())
}

pub fn write_block(out: &mut Vec<u8>, b: &Block<'_, Raw<'_>>) -> Result<()> {
    match (b.orig, b.dirty) {
        (Some(orig), false) => out.extend_from_slice(orig.text.as_bytes()),
        (
            Some(Raw {
                text,
                hole: Some((s, e)),
            }),
            true,
        ) => {
            out.extend_from_slice(&text.as_bytes()[..s]);
            write_field(out, b)?;
            out.extend_from_slice(&text.as_bytes()[e..]);
        }
        (Some(Raw { text: orig, .. }), true) => {
            // A changed text (text block) or content (tool_result): rewrite that field.
            let field = if b.kind == BlockKind::Text {
                "text"
            } else {
                "content"
            };
            let mut p = Parser::new(orig);
            p.begin_object()?;
            out.push(b'{');
            let mut first = true;
            let mut n = 0;
            let mut wrote = false;
            while let Some((kstart, key)) = p.next_key(&mut first)? {
                let kraw = key_raw(orig, kstart);
                let v = p.skip_value()?;
                sep(out, &mut n);
                out.extend_from_slice(kraw.as_bytes());
                out.push(b':');
                if key == field {
                    write_field(out, b)?;
                    wrote = true;
                } else {
                    out.extend_from_slice(v.as_bytes());
                }
            }
            if !wrote {
                sep(out, &mut n);
                write_str(out, field);
                out.push(b':');
                write_field(out, b)?;
            }
            out.push(b'}');
        }
        (None, _) => match b.kind {
            BlockKind::ToolResult => {
                out.extend_from_slice(b"{\"type\":\"tool_result\",\"tool_use_id\":");
                write_str(out, b.id.as_deref().unwrap_or(""));
                out.extend_from_slice(b",\"content\":");
                write_field(out, b)?;
                if b.is_error {
                    out.extend_from_slice(b",\"is_error\":true");
                }
                out.push(b'}');
            }
            _ => {
                out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
                write_str(out, b.text_str());
                out.push(b'}');
            }
        },
    }
    Ok(())
}

/// The changed field's value: a text block's text, or a tool_result's content.
fn write_field(out: &mut Vec<u8>, b: &Block<'_, Raw<'_>>) -> Result<()> {
    if b.kind == BlockKind::Text {
        write_str(out, b.text_str());
        Ok(())
    } else {
        match &b.inner {
            Some(c) => write_content(out, c),
            None => {
                out.extend_from_slice(b"null");
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
    out.push(b'[');
    for (i, r) in recs.iter().enumerate() {
        if !r.kind.is_message() {
            return Err(crate::Error::invalid(
                r.index,
                format!("records[{}].type", r.index),
                "to_anthropic takes user and assistant records only (run normalize_for_api first)",
            ));
        }
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"role\":");
        write_str(
            &mut out,
            if r.kind == Kind::User {
                "user"
            } else {
                "assistant"
            },
        );
        out.extend_from_slice(b",\"content\":");
        match r.orig.and_then(|o| o.hole.map(|(s, e)| &o.text[s..e])) {
            Some(raw) if !r.content_dirty => out.extend_from_slice(raw.as_bytes()),
            _ => write_content(&mut out, &r.content)?,
        }
        out.push(b'}');
    }
    out.push(b']');
    Ok(out)
}
