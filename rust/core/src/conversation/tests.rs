//! The conversation's unit tests (§6.1: the prompt state kept lazily).
use super::*;
use crate::prompt::{prompt_json, Reported};

const USER: &str = r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"abcdefgh"}}"#;
const REPLY: &str = r#"{"type":"assistant","uuid":"a1","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"abcd"}],"usage":{"input_tokens":900,"output_tokens":20}}}"#;
const USER2: &str =
    r#"{"type":"user","uuid":"u2","message":{"role":"user","content":"abcdefghijkl"}}"#;

#[test]
fn prompt_state_catches_up_over_the_appends_since_the_last_call() {
    let mut c = Conversation::new(Settings::default()).unwrap();
    for r in [USER, REPLY, USER2] {
        c.append(r.as_bytes()).unwrap();
    }
    // appending left it untouched; the call takes in all three at once
    assert_eq!(c.prompt_seen, 0);
    let whole = format!("{USER}\n{REPLY}\n{USER2}");
    let want = prompt_json(&whole, &CountParams::default(), 0).unwrap();
    assert_eq!(want, 900 + 20 + 6);
    assert_eq!(c.prompt_tokens(0).unwrap(), want);
    assert_eq!(c.prompt_seen, 3);
    c.append(USER.as_bytes()).unwrap();
    assert_eq!(c.prompt_tokens(0).unwrap(), want + 5);
}

#[test]
fn record_usage_applies_where_it_was_given() {
    let mut c = Conversation::new(Settings::default()).unwrap();
    c.append(USER.as_bytes()).unwrap();
    c.record_usage(Reported {
        prompt: 1000,
        output: 1,
    })
    .unwrap();
    // the records before it were taken in; the next assistant record is its reply
    c.append(
        REPLY
            .replace(r#","usage":{"input_tokens":900,"output_tokens":20}"#, "")
            .as_bytes(),
    )
    .unwrap();
    c.append(USER2.as_bytes()).unwrap();
    // 1000 + the reply's estimate (1 + 3) over its reported 1 + "abcdefghijkl" (3 + 3)
    assert_eq!(c.prompt_tokens(0).unwrap(), 1000 + 4 + 6);
}
