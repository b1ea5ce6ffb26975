//! SPEC §6: a record's content as the "o200k_base" family reads it (and as
//! the exact counter encodes it): its text blocks; a tool call as its name
//! and its input as compact JSON; a tool result's text; joined by newlines.

use crate::error::Result;
use crate::json::parse::{Parser, Peek};
use crate::json::read::{read_records, Raw};
use crate::model::{Block, BlockKind, Content};
use crate::read::ReadOpts;

/// The content text of each record of a JSON text (an array or JSON Lines):
/// `None` for a record that is not a message.
pub fn content_texts(src: &str) -> Result<Vec<Option<String>>> {
    let recs = read_records(src, ReadOpts::COUNT)?;
    recs.iter()
        .map(|r| {
            if !r.kind.is_message() {
                return Ok(None);
            }
            let mut parts: Vec<String> = Vec::new();
            content_parts(&r.content, &mut parts)?;
            Ok(Some(parts.join("\n")))
        })
        .collect()
}

fn content_parts(c: &Content<'_, Raw<'_>>, out: &mut Vec<String>) -> Result<()> {
    match c {
        Content::Str(s) => out.push(s.to_string()),
        Content::Blocks(bs) => {
            for b in bs {
                block_parts(b, out)?;
            }
        }
    }
    Ok(())
}

fn block_parts(b: &Block<'_, Raw<'_>>, out: &mut Vec<String>) -> Result<()> {
    match b.kind {
        BlockKind::Text => out.push(b.text.as_deref().unwrap_or("").to_owned()),
        BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => {
            if let Some(raw) = &b.orig {
                let (name, input) = call_of(raw.text)?;
                out.push(name);
                out.push(input);
            }
        }
        BlockKind::ToolResult => {
            if let Some(inner) = &b.inner {
                content_parts(inner, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A tool call's name and its input as compact JSON (`{}` when absent).
fn call_of(raw: &str) -> Result<(String, String)> {
    let mut p = Parser::new(raw);
    p.begin_object()?;
    let (mut name, mut input) = (String::new(), String::from("{}"));
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "name" if p.peek()? == Peek::String => name = p.string()?.into_owned(),
            "input" => input = compact(p.skip_value()?),
            _ => {
                p.skip_value()?;
            }
        }
    }
    Ok((name, input))
}

/// A JSON text without the whitespace between its tokens.
pub fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_str = false;
    let mut esc = false;
    for ch in raw.chars() {
        if in_str {
            out.push(ch);
            if esc {
                esc = false;
            } else if ch == '\\' {
                esc = true;
            } else if ch == '"' {
                in_str = false;
            }
        } else if !matches!(ch, ' ' | '\t' | '\n' | '\r') {
            if ch == '"' {
                in_str = true;
            }
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_text_of_each_kind() {
        let src = r#"[{"type":"summary","summary":"s"},
        {"type":"user","uuid":"u1","message":{"role":"user","content":"hi there"}},
        {"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[
          {"type":"thinking","thinking":"hmm","signature":"x"},
          {"type":"text","text":"Let me look."},
          {"type":"tool_use","id":"t1","name":"Read","input":{ "path" : "a b.txt", "n": [1, 2] }}]}},
        {"type":"user","uuid":"u2","message":{"role":"user","content":[
          {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"line 1"}]},
          {"type":"text","text":"next"}]}}]"#;
        let t = content_texts(src).unwrap();
        assert_eq!(t[0], None);
        assert_eq!(t[1].as_deref(), Some("hi there"));
        assert_eq!(
            t[2].as_deref(),
            Some("Let me look.\nRead\n{\"path\":\"a b.txt\",\"n\":[1,2]}")
        );
        assert_eq!(t[3].as_deref(), Some("line 1\nnext"));
    }
}
