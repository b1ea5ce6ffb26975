//! The content text that exact counts are taken of (SPEC §6.3): a message's
//! text blocks; a tool call as its name followed by its input as compact
//! JSON; a tool result's text; joined by newlines.

use crate::json::Raw;
use crate::model::{Block, BlockKind, Content, Record};
use crate::providers::value::Value;

/// The content text of a record read from JSON text ([`crate::json::read_records`]);
/// `None` for a record that is not a message.
pub fn content_text(record: &Record<'_, Raw<'_>>) -> Option<String> {
    content_text_with(record, |orig, out| {
        // the block as it was read (checked JSON): its name and input
        let Ok(Value::Obj(block)) = Value::from_json(orig.text) else {
            return;
        };
        out.push_str(block.str("name").unwrap_or(""));
        if let Some(input) = block.get("input") {
            input.write_json(out);
        }
    })
}

/// The content text of a record read by any reader; `None` for a record that
/// is not a message. `call` writes a tool call's part from its original block
/// (`orig`): its `name` (nothing when it is not a string), then its `input` as
/// compact JSON ([`Value::write_json`]; nothing when absent).
pub fn content_text_with<H>(
    record: &Record<'_, H>,
    mut call: impl FnMut(&H, &mut String),
) -> Option<String> {
    if !record.kind.is_message() {
        return None;
    }
    let mut out = Parts {
        text: String::new(),
        any: false,
        call: &mut call,
    };
    out.content(&record.content);
    Some(out.text)
}

/// Tokens of a record whose content text is `text` ([`content_text`]): 0 for
/// a record that is not a message (`None`), else the text's + 3.
pub fn record_count(bpe: &crate::exact::Bpe, text: Option<&str>) -> u64 {
    text.map_or(0, |t| bpe.count(t) + crate::exact::TOKENS_PER_MESSAGE)
}

struct Parts<'f, F> {
    text: String,
    any: bool,
    call: &'f mut F,
}

impl<F> Parts<'_, F> {
    /// Starts the next part (a newline between parts).
    fn part(&mut self) -> &mut String {
        if self.any {
            self.text.push('\n');
        }
        self.any = true;
        &mut self.text
    }

    fn content<H>(&mut self, c: &Content<'_, H>)
    where
        F: FnMut(&H, &mut String),
    {
        match c {
            Content::Str(s) => self.part().push_str(s),
            Content::Blocks(blocks) => blocks.iter().for_each(|b| self.block(b)),
        }
    }

    fn block<H>(&mut self, b: &Block<'_, H>)
    where
        F: FnMut(&H, &mut String),
    {
        match b.kind {
            BlockKind::Text => self.part().push_str(b.text_str()),
            BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => {
                self.part();
                if let Some(orig) = &b.orig {
                    (self.call)(orig, &mut self.text);
                }
            }
            BlockKind::ToolResult => {
                if let Some(inner) = &b.inner {
                    self.content(inner);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(json: &str) -> Option<String> {
        let json = format!("[{json}]");
        let recs = crate::json::read_records(&json, crate::json::ReadOpts::COUNT).unwrap();
        assert_eq!(recs.len(), 1);
        content_text(&recs[0])
    }

    #[test]
    fn string_content_is_the_text() {
        let r = r#"{"type":"user","uuid":"u","message":{"role":"user","content":"hi there"}}"#;
        assert_eq!(text(r).as_deref(), Some("hi there"));
    }

    #[test]
    fn blocks_join_by_newlines() {
        let r = r#"{"type":"assistant","uuid":"a","message":{"role":"assistant","content":[
            {"type":"thinking","thinking":"not counted","signature":"s"},
            {"type":"text","text":"Reading it."},
            {"type":"tool_use","id":"t1","name":"Read","input":{"path":"/a b","n":[1,2.5,null,true],"s":"q\"\n"}},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}"#;
        let want =
            "Reading it.\nRead{\"path\":\"/a b\",\"n\":[1,2.5,null,true],\"s\":\"q\\\"\\n\"}";
        assert_eq!(text(r).as_deref(), Some(want));
    }

    #[test]
    fn tool_results_give_their_text() {
        let r = r#"{"type":"user","uuid":"u","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"one"},
            {"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"two"},{"type":"text","text":"three"}]},
            {"type":"text","text":"日本"}]}}"#;
        assert_eq!(text(r).as_deref(), Some("one\ntwo\nthree\n日本"));
    }

    #[test]
    fn only_messages_have_content_text() {
        assert_eq!(
            text(r#"{"type":"system","uuid":"s","subtype":"informational","content":"x"}"#),
            None
        );
        assert_eq!(text(r#"{"type":"summary","summary":"x"}"#), None);
        let empty = r#"{"type":"user","uuid":"u","message":{"role":"user","content":[]}}"#;
        assert_eq!(text(empty).as_deref(), Some(""));
    }
}
