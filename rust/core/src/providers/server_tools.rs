//! Anthropic server tools (web search, web fetch, code execution, tool search,
//! advisor, MCP) for targets that cannot take them: a pair of a
//! `server_tool_use` (or `mcp_tool_use`) and its result becomes one text block
//! the model can still read (the call, then what it returned), never an
//! invented tool call or result. For every target, a result with no use
//! before it in its message is removed.

use super::value::{Map, Value};
use super::{count, text_block, Counts, Provider};

pub fn is_use(t: &str) -> bool {
    matches!(t, "server_tool_use" | "mcp_tool_use")
}

/// `*_tool_result` other than `tool_result`.
pub fn is_result(t: &str) -> bool {
    t != "tool_result" && t.ends_with("_tool_result")
}

fn has_server_blocks(r: &Value) -> bool {
    r.as_obj().is_some_and(|r| {
        r.assistant_blocks()
            .iter()
            .filter_map(|b| b.as_obj()?.str("type"))
            .any(|t| is_use(t) || is_result(t))
    })
}

/// Rewrites the server tool blocks of normalized assistant records for
/// `target` (nothing for Anthropic, which takes them): each answered use and
/// its result become a text block where the result was
/// (`server_tools_as_text`); a result without its use is removed
/// (`server_results_removed`); an unanswered use is left to SPEC §4 step 5.
pub fn as_text(target: Provider, records: &mut [Value], counts: &mut Counts) {
    for r in records.iter_mut() {
        if !has_server_blocks(r) {
            continue;
        }
        let Value::Obj(r) = r else { continue };
        let Some(Value::Obj(msg)) = r.get_mut("message") else {
            continue;
        };
        let Some(Value::Arr(blocks)) = msg.get_mut("content") else {
            continue;
        };
        if target == Provider::Anthropic {
            remove_lone_results(blocks, counts);
        } else {
            rewrite(blocks, counts);
        }
    }
}

/// Anthropic takes server tool blocks as they are, but not a result without
/// its use before it (`server_results_removed`). A use left without its
/// result stays: the API takes a server call in flight.
fn remove_lone_results(blocks: &mut Vec<Value>, counts: &mut Counts) {
    let mut uses: Vec<String> = Vec::new();
    blocks.retain(|v| {
        let Some(b) = v.as_obj() else { return true };
        let t = b.str("type").unwrap_or("");
        if is_use(t) {
            uses.extend(b.str("id").map(str::to_string));
        } else if is_result(t)
            && !uses
                .iter()
                .any(|u| Some(u.as_str()) == b.str("tool_use_id"))
        {
            count(counts, "server_results_removed");
            return false;
        }
        true
    });
}

fn rewrite(blocks: &mut Vec<Value>, counts: &mut Counts) {
    let answered: Vec<String> = blocks
        .iter()
        .filter_map(Value::as_obj)
        .filter(|b| b.str("type").is_some_and(is_result))
        .filter_map(|b| b.str("tool_use_id").map(str::to_string))
        .collect();
    // the uses seen so far: id -> (name, input)
    let mut uses: Vec<(String, String)> = Vec::new();
    let old = std::mem::take(blocks);
    for v in old {
        let Some(b) = v.as_obj() else {
            blocks.push(v);
            continue;
        };
        let t = b.str("type").unwrap_or("");
        if is_use(t) {
            let id = b.str("id").unwrap_or("");
            if answered.iter().any(|a| a == id) {
                uses.push((id.to_string(), call_line(b)));
                continue; // told with its result
            }
        } else if is_result(t) {
            let id = b.str("tool_use_id").unwrap_or("");
            match uses.iter().position(|(u, _)| u == id) {
                Some(k) => {
                    let call = uses.swap_remove(k).1;
                    blocks.push(text_block(format!("{call}\n{}", readable(b))));
                    count(counts, "server_tools_as_text");
                }
                None => count(counts, "server_results_removed"),
            }
            continue;
        }
        blocks.push(v);
    }
}

/// `[web_search {"query":"..."}]`: the tool and what it was asked.
fn call_line(b: &Map) -> String {
    let mut name = b.str("name").unwrap_or("server tool").to_string();
    if let Some(server) = b.str("server_name") {
        name = format!("{server}/{name}");
    }
    match b.get("input") {
        Some(input) => format!("[{name} {}]", input.to_json()),
        None => format!("[{name}]"),
    }
}

/// The readable strings of a result (titles, URLs, text, output, error
/// codes), one a line; opaque fields (encrypted content, base64 data) are left out.
fn readable(b: &Map) -> String {
    let mut lines = Vec::new();
    if let Some(c) = b.get("content") {
        strings(c, &mut lines, 0);
    }
    if lines.is_empty() {
        "(no output)".to_string()
    } else {
        lines.join("\n")
    }
}

const OPAQUE: &[&str] = &[
    "type",
    "encrypted_content",
    "encrypted_index",
    "signature",
    "data",
    "media_type",
    "file_id",
    "tool_use_id",
    "page_age",
    "cache_control",
    "citations",
];

fn strings(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Value::Str(s) if !crate::model::is_blank(s) => out.push(s.to_string()),
        Value::Arr(a) => a.iter().for_each(|x| strings(x, out, depth + 1)),
        Value::Obj(m) => {
            // a text document's data is its text
            if m.str("type") == Some("text") && m.str("media_type").is_some() {
                if let Some(d) = m.str("data") {
                    out.push(d.to_string());
                }
            }
            for (k, x) in m.iter() {
                if OPAQUE.contains(&k) {
                    continue;
                }
                match (k, x) {
                    ("error_code", Value::Str(s)) => out.push(format!("error: {s}")),
                    _ => strings(x, out, depth + 1),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(content: &str) -> Value {
        Value::from_json(&format!(
            r#"{{"type":"assistant","uuid":"u","message":{{"role":"assistant","content":{content}}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_pair_becomes_text_and_a_lone_result_goes() {
        let mut recs = vec![rec(
            r#"[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rain"}},
                {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[
                    {"type":"web_search_result","title":"Rain","url":"https://x.test","encrypted_content":"Eq"}]},
                {"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_2","content":{}},
                {"type":"text","text":"It rains."}]"#,
        )];
        let mut counts = Counts::new();
        as_text(Provider::OpenAIChat, &mut recs, &mut counts);
        let text = recs[0].to_json();
        assert!(
            text.contains(r#"[web_search {\"query\":\"rain\"}]\nRain\nhttps://x.test"#),
            "{text}"
        );
        assert!(!text.contains("Eq") && !text.contains("srvtoolu"), "{text}");
        assert_eq!(counts.get("server_tools_as_text"), Some(&1));
        assert_eq!(counts.get("server_results_removed"), Some(&1));
        // Anthropic takes a pair as it is, but not a result before its use
        let pair = r#"{"type":"server_tool_use","id":"x","name":"web_fetch","input":{}},
                      {"type":"web_fetch_tool_result","tool_use_id":"x"}"#;
        let mut recs2 = vec![rec(&format!("[{pair}]"))];
        let before = recs2.clone();
        as_text(Provider::Anthropic, &mut recs2, &mut counts);
        assert!(recs2 == before);
        let late = r#"[{"type":"web_fetch_tool_result","tool_use_id":"x"},
                       {"type":"server_tool_use","id":"x","name":"web_fetch","input":{}}]"#;
        let mut recs3 = vec![rec(late)];
        as_text(Provider::Anthropic, &mut recs3, &mut counts);
        assert!(!recs3[0].to_json().contains("web_fetch_tool_result"));
        assert_eq!(counts.get("server_results_removed"), Some(&2));
    }

    #[test]
    fn errors_and_code_output_are_read() {
        let mut recs = vec![rec(
            r#"[{"type":"server_tool_use","id":"s1","name":"code_execution","input":{"code":"print(1)"}},
                {"type":"code_execution_tool_result","tool_use_id":"s1","content":{"type":"code_execution_result","stdout":"1\n","stderr":"","return_code":0}},
                {"type":"server_tool_use","id":"s2","name":"web_search","input":{}},
                {"type":"web_search_tool_result","tool_use_id":"s2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}]"#,
        )];
        let mut counts = Counts::new();
        as_text(Provider::Gemini, &mut recs, &mut counts);
        let text = recs[0].to_json();
        assert!(text.contains(r#"print(1)\"}]\n1\n"#), "{text}");
        assert!(text.contains("error: max_uses_exceeded"), "{text}");
        assert_eq!(counts.get("server_tools_as_text"), Some(&2));
    }
}
