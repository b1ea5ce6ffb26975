use super::*;

fn chat() -> Vec<Value> {
    let src = r#"[
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call.with.dots", "type": "function",
             "function": {"name": "f", "arguments": "{\"a\":1}"}}]},
        {"role": "tool", "tool_call_id": "call.with.dots", "content": "ok"},
        {"role": "assistant", "content": "done"}
    ]"#;
    match Value::from_json(src).unwrap() {
        Value::Arr(a) => a,
        _ => unreachable!(),
    }
}

/// `convert` of an OpenAI Chat history to `target`: the output, the adapter's
/// counts and the steps' report.
fn convert_chat(history: &[Value], target: Provider) -> (Value, Counts, crate::Report) {
    let (mut report, mut counts) = (crate::Report::default(), Counts::new());
    let source = Given {
        provider: Provider::OpenAIChat,
        messages: history,
        system: None,
        shared: None,
    };
    let api = crate::ApiOptions::default();
    let out = convert(source, &Target::new(target), &api, &mut report, &mut counts).unwrap();
    (out, counts, report)
}

fn run(target: Provider) -> (Value, Counts) {
    let (out, counts, report) = convert_chat(&chat(), target);
    assert_eq!(report.dropped, 0, "the system prompt is carried");
    (out, counts)
}

/// The records of an OpenAI Chat history written for `target` by the writer
/// (no same-format gate), with the report and counts of that request.
fn written(history: &[Value], target: Provider) -> (Value, Counts, crate::Report) {
    let recs = from_provider(Provider::OpenAIChat, history, None).unwrap();
    let (mut report, mut counts) = (crate::Report::default(), Counts::new());
    let api = crate::ApiOptions::default();
    let t = Target::new(target);
    let out = super::request(&t, recs, false, None, Some(&api), &mut report, &mut counts).unwrap();
    (out, counts, report)
}

/// A chat history with what an adapter carries from one message to the
/// next: two calls answered in order, a legacy function_call answered by a
/// `function` message, an assistant turn of text and calls.
fn carried() -> Vec<Value> {
    let src = r#"[
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "looking", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{\"a\":1}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
        {"role": "assistant", "content": null,
         "function_call": {"name": "h", "arguments": "{}"}},
        {"role": "function", "name": "h", "content": "three"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "again"}
    ]"#;
    match Value::from_json(src).unwrap() {
        Value::Arr(a) => a,
        _ => unreachable!(),
    }
}

/// A provider output's message list and system parameter.
fn request(out: &Value) -> (Vec<Value>, Option<Value>) {
    let system = out
        .as_obj()
        .and_then(|m| m.get("system").or_else(|| m.get("system_instruction")))
        .cloned();
    (message_list(out).unwrap().to_vec(), system)
}

fn convert_carried(target: Provider) -> Value {
    convert_chat(&carried(), target).0
}

#[test]
fn records_are_the_same_fed_in_slices() {
    for p in Provider::ALL {
        let (messages, system) = match p {
            Provider::OpenAIChat => (carried(), None),
            _ => request(&convert_carried(p)),
        };
        let whole = from_provider(p, &messages, system.as_ref()).unwrap();
        for cut in 0..=messages.len() {
            let mut f = FromProvider::new(p, system.as_ref(), true).unwrap();
            f.feed(&messages[..cut]).unwrap();
            f.feed(&messages[cut..]).unwrap();
            assert!(f.finish() == whole, "{p:?}, cut before message {cut}");
        }
        let mut f = FromProvider::new(p, system.as_ref(), true).unwrap();
        messages.chunks(1).try_for_each(|m| f.feed(m)).unwrap();
        assert!(f.finish() == whole, "{p:?}, fed one message at a time");
    }
}

#[test]
fn an_error_in_a_later_slice_names_the_message_in_the_whole_list() {
    let mut f = FromProvider::new(Provider::OpenAIChat, None, true).unwrap();
    f.feed(&carried()[..3]).unwrap();
    let bad = Value::from_json(r#"{"role": "tool", "content": "x"}"#).unwrap();
    let e = f.feed(&[bad]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "messages[3].tool_call_id: missing required field (a string)"
    );
}

#[test]
fn conversion_does_not_depend_on_the_records_uuids() {
    // convert gives its records one placeholder uuid: no output shows them
    for p in Provider::ALL {
        // a request in its own format that needs no repair comes back as it came
        let as_given = p == Provider::OpenAIChat && replay::accepted(p, &carried(), None, false);
        let (want, counts, report) = if as_given {
            (
                Value::Arr(carried()),
                Counts::new(),
                crate::Report::default(),
            )
        } else {
            written(&carried(), p)
        };
        let (got, counts2, report2) = convert_chat(&carried(), p);
        assert!(
            got == want,
            "{p:?}: {} != {}",
            got.to_json(),
            want.to_json()
        );
        assert_eq!(report2.items(), report.items());
        assert_eq!(counts2, counts);
    }
}

#[test]
fn chat_ids_outside_the_charset_are_rewritten_in_pairs() {
    // the request as the API took it comes back as it came
    let (out, _) = run(Provider::OpenAIChat);
    assert!(out == Value::Arr(chat()));
    // records written for OpenAI Chat get ids of its charset
    let (out, counts, _) = written(&chat(), Provider::OpenAIChat);
    // '.' is outside [a-zA-Z0-9_-]: rewritten the same way in the call and the result
    let text = out.to_json();
    assert!(!text.contains("call.with.dots"), "{text}");
    assert_eq!(counts.get("ids_rewritten"), Some(&1));
    let Value::Arr(msgs) = out else { panic!() };
    assert_eq!(msgs.len(), 5);
    let call = msgs[2]
        .as_obj()
        .unwrap()
        .get("tool_calls")
        .unwrap()
        .as_arr()
        .unwrap()[0]
        .as_obj()
        .unwrap()
        .str("id")
        .unwrap()
        .to_string();
    assert_eq!(
        msgs[3].as_obj().unwrap().str("tool_call_id"),
        Some(call.as_str())
    );
    assert!(id_ok(&call, openai_chat::ID_LIMIT));
}

#[test]
fn every_target_gets_the_system_prompt_and_the_pair() {
    for p in Provider::ALL {
        let (out, _) = run(p);
        let text = out.to_json();
        assert!(text.contains("Be brief."), "{p:?}: {text}");
        assert!(text.contains("done"), "{p:?}: {text}");
    }
}

#[test]
fn unknown_message_shapes_name_the_field() {
    let bad = vec![Value::from_json(r#"{"role": "tool", "content": "x"}"#).unwrap()];
    let e = from_provider(Provider::OpenAIChat, &bad, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "messages[0].tool_call_id: missing required field (a string)"
    );
}

#[test]
fn unchanged_messages_are_found_in_order_past_merged_and_dropped_ones() {
    let input = chat();
    let usable = vec![true; input.len()];
    // the output drops the system message and changes the tool call
    let mut changed = input[2].clone();
    if let Value::Obj(m) = &mut changed {
        m.set("content", "now");
    }
    let out = Value::Arr(vec![
        input[1].clone(),
        changed,
        input[3].clone(),
        input[4].clone(),
    ]);
    assert_eq!(
        unchanged_messages(&input, &usable, &out),
        vec![Some(1), None, Some(3), Some(4)]
    );
    // an input that may not stand for itself is not handed back
    let mut usable = usable;
    usable[3] = false;
    assert_eq!(
        unchanged_messages(&input, &usable, &out),
        vec![Some(1), None, None, Some(4)]
    );
    // the message list of a target whose output is an object
    let mut m = Map::new();
    m.push("system", "s");
    m.push(
        "messages",
        Value::Arr(vec![input[1].clone(), input[4].clone()]),
    );
    assert_eq!(
        unchanged_messages(&input, &[true; 5], &Value::Obj(m)),
        vec![Some(1), Some(4)]
    );
}

#[test]
fn the_look_ahead_widens_after_misses() {
    // 40 inputs merged away before the last one: still found
    let input: Vec<Value> = (0..41).map(Value::Int).collect();
    let usable = vec![true; input.len()];
    let mut out: Vec<Value> = (0..20).map(|_| Value::Null).collect();
    out.push(Value::Int(40));
    let same = unchanged_messages(&input, &usable, &Value::Arr(out));
    assert_eq!(same.last(), Some(&Some(40)));
    assert!(same[..20].iter().all(Option::is_none));
}

#[test]
fn names_round_trip() {
    for p in Provider::ALL {
        assert_eq!(Provider::from_name(p.name()), Some(p));
    }
    assert_eq!(Provider::from_name("openai"), None);
}

#[test]
fn tool_names_map_to_valid_names() {
    let long = "x".repeat(100);
    for p in Provider::ALL {
        for name in [
            "get_weather",
            "get weather",
            "",
            "1st",
            "mcp:srv.tool",
            "ünï",
            &long,
        ] {
            let out = p.tool_name(name);
            assert!(p.tool_name_ok(&out), "{p:?} {name:?} -> {out:?}");
            assert_eq!(out == name, p.tool_name_ok(name));
            assert_eq!(p.tool_name(name), out, "a pure function");
        }
    }
    assert_eq!(
        Provider::Anthropic.tool_name("get weather"),
        "get_weather_".to_string() + &format!("{:08x}", crc32fast::hash(b"get weather"))
    );
    assert_ne!(
        Provider::Anthropic.tool_name("a b"),
        Provider::Anthropic.tool_name("a.b")
    );
    assert_eq!(Provider::Gemini.tool_name("mcp:srv.tool"), "mcp:srv.tool");
    assert!(Provider::Gemini.tool_name("1st").starts_with("_1st_"));
    assert_eq!(Provider::Bedrock.tool_name(&long).len(), 64);
}

/// A Chat history with an unanswered call and two adjacent user messages.
fn unanswered() -> Vec<Value> {
    let src = r#"[
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "user", "content": "never mind"}
    ]"#;
    match Value::from_json(src).unwrap() {
        Value::Arr(a) => a,
        _ => unreachable!(),
    }
}

#[test]
fn steps_that_leave_a_rule_broken_fall_back_to_the_whole_pipeline() {
    let history = unanswered();
    let source = Given {
        provider: Provider::OpenAIChat,
        messages: &history,
        system: None,
        shared: None,
    };
    let target = Target::new(Provider::OpenAIChat);
    let api = crate::ApiOptions::default();
    let records = || FromProvider::read(Provider::OpenAIChat, &history, None, false).unwrap();
    // the rule's own steps repair it
    let fired = replay::fired(Provider::OpenAIChat, &history, None, false);
    let ids: Vec<_> = fired.iter().map(|r| r.id).collect();
    assert_eq!(ids, ["openai-chat/tool-calls-without-response"]);
    let steps = replay::steps_of(&fired);
    assert_eq!(steps, crate::steps::Steps::PAIRING);
    match replay::selected(source, &target, records(), true, &api, steps).unwrap() {
        replay::Selected::Done(out, report, counts) => {
            assert_eq!(report.missing_results_inserted, 1);
            assert_eq!(report.users_merged, 0, "no fold ran");
            assert_eq!(counts.get("step_tool_pairing"), Some(&1));
            assert_eq!(message_list(&out).unwrap().len(), 5);
        }
        replay::Selected::Fallback(_) => panic!("tool pairing repairs an unanswered call"),
    }
    // steps that do not repair it: the rule still fires on their output, and
    // the records come back, read again, for the whole of SPEC §4
    let without = crate::steps::Steps::HYGIENE;
    match replay::selected(source, &target, records(), true, &api, without).unwrap() {
        replay::Selected::Fallback(recs) => assert_eq!(recs, records()),
        replay::Selected::Done(..) => panic!("hygiene does not answer a call"),
    }
}

#[test]
fn every_rule_msgnorm_repairs_names_its_steps_or_none() {
    use crate::steps::Steps;
    for p in Provider::ALL {
        for r in crate::validate::rules(p) {
            // a rule msgnorm does not repair runs no step
            if !r.repaired() {
                assert_eq!(r.steps, Steps::NONE, "{}", r.id);
            }
            // step 11 is an option of normalize_for_api, no rule's repair
            assert!(!r.steps.has(Steps::SHORT_IDS), "{}", r.id);
            // a repair that names a §4 step runs it (the repair texts cite them)
            if r.repair.starts_with("SPEC §4") {
                assert!(!r.steps.is_empty(), "{}: names a step but runs none", r.id);
            }
        }
    }
}
