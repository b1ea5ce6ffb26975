//! Stateless replay (`store=False`): the server keeps nothing, so the input
//! may name no item the server would have to look up. Reasoning travels as its
//! `encrypted_content`, bound to the reasoning item's own id.

use super::super::{count, Counts, Value};

/// Items whose server-side id (`msg_…`, `fc_…`, `ctc_…`) is left out: the
/// server has no such item, and their id is optional in the input.
const UNSTORED: &[&str] = &[
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
];

/// A `to_openai_responses` output made for `store=False`: reasoning items
/// without `encrypted_content` are dropped (`reasoning_dropped`: the server
/// cannot fetch them), and messages and calls lose their server-side ids
/// (`item_ids_dropped`); a reasoning or compaction item keeps the id its
/// `encrypted_content` is bound to. An `item_reference` names a stored item
/// (`item_references_dropped`), and an `mcp_approval_response` whose
/// `mcp_approval_request` is not in the input answers one (`mcp_approvals_dropped`).
pub fn stateless(out: &mut Value, counts: &mut Counts) {
    let Value::Arr(items) = out else { return };
    let mut requests = std::collections::HashSet::new();
    items.retain(|it| {
        let Some(m) = it.as_obj() else { return true };
        let gone = match m.str("type") {
            Some("reasoning") if m.str("encrypted_content").is_none_or(str::is_empty) => {
                "reasoning_dropped"
            }
            Some("item_reference") => "item_references_dropped",
            Some("mcp_approval_request") => {
                requests.insert(m.str("id").unwrap_or("").to_owned());
                return true;
            }
            Some("mcp_approval_response")
                if !requests.contains(m.str("approval_request_id").unwrap_or("")) =>
            {
                "mcp_approvals_dropped"
            }
            _ => return true,
        };
        count(counts, gone);
        false
    });
    // a reasoning item the dropped items followed, with no output item after it now
    super::drop_unfollowed_reasoning(items, counts);
    for it in items.iter_mut() {
        let Value::Obj(m) = it else { continue };
        let t = match m.str("type") {
            Some(t) => t.to_owned(),
            None if m.get("role").is_some() => "message".to_owned(),
            None => String::new(),
        };
        let t = t.as_str();
        if UNSTORED.contains(&t) && m.remove("id").is_some() {
            count(counts, "item_ids_dropped");
            if t == "message" && m.str("role") == Some("assistant") {
                as_input_message(m);
            }
        }
    }
}

/// An output message without its id is an input message: its text (the
/// `output_text`/`refusal` parts, joined) as the content; `status` goes with
/// the id (the API sets both).
fn as_input_message(m: &mut super::super::Map) {
    let Some(Value::Arr(parts)) = m.get("content") else {
        return;
    };
    let mut texts = Vec::with_capacity(parts.len());
    for p in parts {
        let Some(p) = p.as_obj() else { return };
        match p.str("type") {
            Some("output_text") => texts.push(p.str("text").unwrap_or("")),
            Some("refusal") => texts.push(p.str("refusal").unwrap_or("")),
            _ => return,
        }
    }
    let text = texts.join("\n");
    drop(texts);
    m.set("content", text);
    m.remove("status");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_reasoning_and_server_ids_go_encrypted_reasoning_stays() {
        let mut out = Value::from_json(
            r#"[{"type":"message","role":"user","content":"q"},
                {"type":"reasoning","id":"rs_1","summary":[]},
                {"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAA"},
                {"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},
                {"type":"function_call_output","call_id":"c1","output":"ok"},
                {"type":"message","role":"assistant","id":"msg_1","content":[]},
                {"type":"compaction","id":"cmp_1","encrypted_content":"gBBB"}]"#,
        )
        .unwrap();
        let mut counts = Counts::new();
        stateless(&mut out, &mut counts);
        let text = out.to_json();
        assert!(!text.contains("rs_1") && !text.contains("fc_1") && !text.contains("msg_1"));
        assert!(text.contains(r#""id":"rs_2""#) && text.contains(r#""id":"cmp_1""#));
        assert!(text.contains(r#""call_id":"c1""#));
        assert!(text.contains(r#"{"type":"message","role":"assistant","content":""}"#));
        assert_eq!(counts.get("reasoning_dropped"), Some(&1));
        assert_eq!(counts.get("item_ids_dropped"), Some(&2));
    }

    #[test]
    fn references_and_unrequested_approvals_go_shell_ids_too() {
        let mut out = Value::from_json(
            r#"[{"type":"item_reference","id":"msg_9"},
                {"type":"mcp_approval_response","approval_request_id":"mcpr_0","approve":true},
                {"type":"mcp_approval_request","id":"mcpr_1","name":"f","arguments":"{}","server_label":"s"},
                {"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true},
                {"type":"shell_call","id":"sh_1","call_id":"c1","action":{"commands":["ls"]}}]"#,
        )
        .unwrap();
        let mut counts = Counts::new();
        stateless(&mut out, &mut counts);
        let text = out.to_json();
        assert!(!text.contains("msg_9") && !text.contains("mcpr_0") && !text.contains("sh_1"));
        assert!(text.contains(r#""approval_request_id":"mcpr_1""#));
        assert_eq!(counts.get("item_references_dropped"), Some(&1));
        assert_eq!(counts.get("mcp_approvals_dropped"), Some(&1));
        assert_eq!(counts.get("item_ids_dropped"), Some(&1));
    }
}
