use super::*;

/// The hits of `p`'s rules on `json` read filtered (`validate_json`), after
/// checking that the whole tree (as the adapters read it, and as `convert`
/// checks it) gets the same violations.
fn rules_hit(
    p: &str,
    json: &str,
    tools: Option<&str>,
) -> Vec<(Option<usize>, String, &'static str)> {
    let p = provider(p).unwrap();
    let filtered = validate_json(p, json.as_bytes(), None, tools.map(str::as_bytes)).unwrap();
    let whole = Value::from_json(json).unwrap();
    let tools = tools.map(|t| Value::from_json(t).unwrap());
    let params = Params {
        tools: tools.as_ref(),
        ..Params::default()
    };
    assert_eq!(validate(p, whole.as_arr().unwrap(), params), filtered);
    filtered
        .into_iter()
        .map(|v| (v.index, v.path, v.rule))
        .collect()
}

/// The values whose kind alone a rule reads give the verdict of each kind,
/// read filtered or whole.
#[test]
fn kind_only_values() {
    let h = r#"[{"role":"user","content":"q"},
        {"role":"assistant","content":[
            {"type":"tool_use","id":"a","name":"f","input":{"x":[1]}},
            {"type":"tool_use","id":"b","name":"f","input":"{}"},
            {"type":"tool_use","id":"c","name":"f","input":null},
            {"type":"tool_use","id":"d","name":"f","input":[]},
            {"type":"tool_use","id":"e","name":"f","input":0}]},
        {"role":"user","content":[
            {"type":"tool_result","tool_use_id":"a"},{"type":"tool_result","tool_use_id":"b"},
            {"type":"tool_result","tool_use_id":"c"},{"type":"tool_result","tool_use_id":"d"},
            {"type":"tool_result","tool_use_id":"e"}]}]"#;
    let bad: Vec<_> = rules_hit("anthropic", h, None)
        .into_iter()
        .filter(|x| x.2 == "anthropic/tool-use-input-object")
        .map(|x| x.1)
        .collect();
    let at = |j: usize| format!("messages[1].content[{j}].tool_use.input");
    assert_eq!(bad, [at(1), at(2), at(3), at(4)]);
    let chat = r#"[{"role":"user","content":"q"},
        {"role":"assistant","content":null,"refusal":"no"},
        {"role":"user","content":"q"},
        {"role":"assistant","content":null,"refusal":null},
        {"role":"user","content":"q"},
        {"role":"assistant","content":null,"audio":{"id":"x"}}]"#;
    let null: Vec<_> = rules_hit("openai-chat", chat, None)
        .into_iter()
        .filter(|x| x.2 == "openai-chat/content-null")
        .collect();
    assert_eq!(
        null,
        [(
            Some(3),
            "messages[3].content".to_string(),
            "openai-chat/content-null"
        )]
    );
}

/// A rule's hit at `messages[i].content[j]`.
fn hit(i: usize, j: usize, rule: &'static str) -> (Option<usize>, String, &'static str) {
    (Some(i), format!("messages[{i}].content[{j}]"), rule)
}

/// A call without a result, a result after other content, a result naming no call.
const PAIRING: &str = r#"[{"role":"user","content":"q"},
    {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
    {"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"t2"}]}]"#;

/// Pairing reads turns: adjacent messages of one role are one turn (a message
/// of another role inside a run does not split it), so a call is answered by
/// any result of the next user turn and a result by any call of the turn
/// before; a result outside a user message is named whatever came before.
const PAIRING_BY_TURNS: &str = r#"[{"role":"user","content":"q"},
    {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},
    {"role":"system","content":"between"},
    {"role":"assistant","content":[{"type":"tool_use","id":"b","name":"f","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"b"}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"a"},{"type":"tool_result","tool_use_id":"c"}]},
    {"role":"assistant","content":[{"type":"tool_use","id":"d","name":"f","input":{}}]},
    {"role":"assistant","content":[{"type":"tool_result","tool_use_id":"d"}]},
    {"role":"user","content":[{"type":"text","text":"no results"}]}]"#;

#[test]
fn anthropic_pairing() {
    for (history, want) in [
        (
            PAIRING,
            vec![
                hit(1, 0, "anthropic/tool-use-without-result"),
                hit(2, 1, "anthropic/tool-result-not-first"),
                hit(2, 1, "anthropic/tool-result-without-use"),
            ],
        ),
        (
            PAIRING_BY_TURNS,
            vec![
                hit(5, 1, "anthropic/tool-result-without-use"),
                hit(6, 0, "anthropic/tool-use-without-result"),
                hit(7, 0, "anthropic/tool-result-without-use"),
            ],
        ),
    ] {
        assert_eq!(rules_hit("anthropic", history, None), want, "{history}");
    }
}

#[test]
fn message_text_fills_the_place_and_ids() {
    let h = r#"[{"role":"user","content":"q"},
        {"role":"assistant","content":[{"type":"tool_use","id":"a.b","name":"f","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"a.b"}]}]"#;
    let v = validate_json(Provider::Anthropic, h.as_bytes(), None, None).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(
        v[0].message,
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    );
}

#[test]
fn openai_chat_runs() {
    let h = r#"[{"role":"user","content":"q"},
        {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"c1","content":"r"},
        {"role":"tool","tool_call_id":"c1","content":"r"},
        {"role":"user","content":"q"},
        {"role":"tool","tool_call_id":"c1","content":"r"}]"#;
    let rules: Vec<_> = rules_hit("openai-chat", h, None)
        .into_iter()
        .map(|h| h.2)
        .collect();
    assert_eq!(
        rules,
        // the last answers no pending call: not a second response to one
        vec![
            "openai-chat/duplicate-tool-response",
            "openai-chat/tool-without-tool-calls",
        ]
    );
}

#[test]
fn bedrock_needs_tool_config() {
    let h = r#"[{"role":"user","content":[{"text":"q"}]},
        {"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}]},
        {"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":""}]}}]}]"#;
    assert_eq!(
        rules_hit("bedrock", h, None),
        vec![hit(1, 0, "bedrock/tool-config-required")]
    );
    let tools = r#"{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{}}}}]}"#;
    assert_eq!(rules_hit("bedrock", h, Some(tools)), vec![]);
}

#[test]
fn gemini_and_responses() {
    let h = r#"[{"role":"user","parts":[{"text":"q"}]},
        {"role":"model","parts":[{"function_call":{"name":"f","args":{}}}]},
        {"role":"user","parts":[{"function_response":{"name":"f","response":{}}}]}]"#;
    assert_eq!(rules_hit("gemini", h, None), vec![]);
    let h = r#"[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[]}]"#;
    assert_eq!(
        rules_hit("openai-responses", h, None),
        vec![(
            Some(1),
            "input[1]".into(),
            "openai-responses/reasoning-without-following"
        )]
    );
}

#[test]
fn markdown_lists_every_rule() {
    let md = rules_markdown();
    for p in Provider::ALL {
        for r in rules(p) {
            assert!(md.contains(&format!("`{}`", r.id)), "{}", r.id);
        }
    }
}
