//! The content text that exact counts are taken of (SPEC §6.2): a message's
//! text blocks; a tool call as its name followed by its input as compact
//! JSON; a tool result's text; joined by newlines.

use crate::model::{BlockKind, Kind};
use crate::providers::value::{Map, Value};

/// The content text of a record; `None` for a record that is not a message.
pub fn content_text(record: &Value) -> Option<String> {
    let r = record.as_obj()?;
    if !Kind::from_type(r.str("type")?).is_message() {
        return None;
    }
    let mut out = Parts::default();
    if let Some(content) = r.obj("message").and_then(|m| m.get("content")) {
        out.content(content);
    }
    Some(out.text)
}

#[derive(Default)]
struct Parts {
    text: String,
    any: bool,
}

impl Parts {
    /// Starts the next part (a newline between parts).
    fn part(&mut self) -> &mut String {
        if self.any {
            self.text.push('\n');
        }
        self.any = true;
        &mut self.text
    }

    fn content(&mut self, v: &Value) {
        match v {
            Value::Str(s) => self.part().push_str(s),
            Value::Arr(blocks) => {
                for b in blocks.iter().filter_map(Value::as_obj) {
                    self.block(b);
                }
            }
            _ => {}
        }
    }

    fn block(&mut self, b: &Map) {
        match BlockKind::from_type(b.str("type").unwrap_or("")) {
            BlockKind::Text => {
                if let Some(t) = b.str("text") {
                    self.part().push_str(t);
                }
            }
            BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => {
                let out = self.part();
                out.push_str(b.str("name").unwrap_or(""));
                if let Some(input) = b.get("input") {
                    input.write_json(out);
                }
            }
            BlockKind::ToolResult | BlockKind::ServerResult => {
                if let Some(c) = b.get("content") {
                    self.content(c);
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
        content_text(&Value::from_json(json).unwrap())
    }

    #[test]
    fn string_content_is_the_text() {
        let r = r#"{"type":"user","message":{"role":"user","content":"hi there"}}"#;
        assert_eq!(text(r).as_deref(), Some("hi there"));
    }

    #[test]
    fn blocks_join_by_newlines() {
        let r = r#"{"type":"assistant","message":{"role":"assistant","content":[
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
        let r = r#"{"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"one"},
            {"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"two"},{"type":"text","text":"three"}]},
            {"type":"text","text":"日本"}]}}"#;
        assert_eq!(text(r).as_deref(), Some("one\ntwo\nthree\n日本"));
    }

    #[test]
    fn only_messages_have_content_text() {
        assert_eq!(text(r#"{"type":"system","content":"x"}"#), None);
        assert_eq!(text(r#"{"type":"summary","summary":"x"}"#), None);
        let empty = r#"{"type":"user","message":{"role":"user","content":[]}}"#;
        assert_eq!(text(empty).as_deref(), Some(""));
    }
}
