use super::*;
use crate::testing::TempDir;

fn line(id: &str, req: &str, out: u64, ts: &str) -> String {
    format!(
        r#"{{"type":"assistant","timestamp":"{ts}","requestId":"{req}","sessionId":"s","message":{{"id":"{id}","model":"m","content":[{{"type":"text","text":"usage \"x\""}}],"usage":{{"input_tokens":3,"output_tokens":{out},"cache_creation_input_tokens":10,"cache_read_input_tokens":7,"cache_creation":{{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6}},"server_tool_use":{{"web_search_requests":1}}}}}}}}"#
    )
}

#[test]
fn reads_usage_fields() {
    let data = line("a", "r", 5, "2026-01-01T00:00:00.000Z");
    let s = scan(data.as_bytes(), false);
    assert_eq!(s.lines_skipped, 0);
    assert_eq!(s.entries.len(), 1);
    let u = &s.entries[0].usage;
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.cache_creation_input_tokens,
            u.cache_creation_5m_input_tokens,
            u.cache_creation_1h_input_tokens,
            u.cache_read_input_tokens,
            u.server_tool_use.get("web_search_requests").copied()
        ),
        (3, 5, 10, 4, 6, 7, Some(1))
    );
    assert_eq!(s.opt(s.entries[0].key), Some("a\0r"));
}

#[test]
fn skips_lines_without_usage_and_counts_broken_ones() {
    let data = format!(
        "{}\n{{\"type\":\"user\",\"message\":{{}}}}\n{{\"usage\": broken\n{{\"type\":\"assistant\",\"message\":{{\"usage\":{{\"output_tokens\":-1}}}}}}\n{}{}\n",
        line("a", "r", 1, "t1"),
        line("b", "r", 2, "t2"),
        line("c", "r", 3, "t3"),
    );
    let s = scan(data.as_bytes(), true);
    assert_eq!(s.lines_skipped, 2);
    let ids: Vec<_> = s.entries.iter().map(|e| s.str(e.key.unwrap())).collect();
    assert_eq!(ids, ["a\0r", "b\0r", "c\0r"]);
    assert!(s.entries.iter().all(|e| e.sidechain));
}

#[test]
fn token_counts() {
    let read = |v: &str| {
        let src = format!("{v},");
        let mut p = Parser::new(&src);
        count(&mut p)
            .ok()
            .filter(|_| p.src[p.pos..].starts_with(','))
    };
    assert_eq!(read("0"), Some(0));
    assert_eq!(read("1234567"), Some(1_234_567));
    assert_eq!(read("null"), Some(0));
    assert_eq!(read("9999999999999999999"), Some(9_999_999_999_999_999_999));
    assert_eq!(read("18446744073709551615"), Some(u64::MAX));
    for bad in [
        "18446744073709551616",
        "-1",
        "-0",
        "1.0",
        "1e3",
        "2E1",
        "\"5\"",
        "true",
    ] {
        assert_eq!(read(bad), None, "{bad}");
    }
    // "01" reads as 0 followed by a stray digit, which the object refuses
    assert_eq!(read("01"), None);
}

#[test]
fn keys_and_scalars_read_in_place_agree_with_the_parser() {
    // (each object's keys, where it ends) or an error, both ways
    fn fast(src: &str) -> Option<(Vec<String>, usize)> {
        let mut p = Parser::new(src);
        let mut keys = Vec::new();
        object(&mut p, |k, p| {
            keys.push(k.to_string());
            skip(p)
        })
        .ok()?;
        Some((keys, p.pos))
    }
    fn strict(src: &str) -> Option<(Vec<String>, usize)> {
        let mut p = Parser::new(src);
        let mut keys = Vec::new();
        p.begin_object().ok()?;
        let mut first = true;
        while let Some((_, k)) = p.next_key(&mut first).ok()? {
            keys.push(k.into_owned());
            p.skip_value().ok()?;
        }
        Some((keys, p.pos))
    }
    for src in [
        r#"{"a":1,"b":"x","c":[1,{"d":null}],"e":true,"f":false,"g":-0.5e3}"#,
        r#"{ "a" : 1 , "b":	"x" ,
"c" :{} }"#,
        r#"{"a\u0062":1,"\n":2,"é":3}"#,
        r#"{}"#,
        r#"{ }"#,
        r#"{"a":12345678901234567890123}"#,
        r#"{"a":1.5,"b":2e3,"c":0,"d":-1}"#,
        r#"{"a":nul}"#,
        r#"{"a":1,}"#,
        r#"{,"a":1}"#,
        r#"{"a" 1}"#,
        r#"{"a":1 "b":2}"#,
        r#"{"a"#,
        r#"{"a":"#,
        r#"{"a":1"#,
        "{\"a\u{1}\":1}",
        r#"{"a":truex}"#,
        r#"{"a":01}"#,
    ] {
        assert_eq!(fast(src), strict(src), "{src}");
    }
}

#[test]
fn fast_skip_agrees_with_the_parser() {
    for v in [
        r#""a\n\"b\u00e9c""#,
        r#"[{"type":"text","text":"x\ty"},{"a":[1,2,{"b":"]}"}]}]"#,
        r#"{"k":"}","l":["[",{}]}"#,
        &format!(r#""{}\n{}""#, "x".repeat(100), "y".repeat(10)),
    ] {
        let src = format!("{v} ,");
        let mut p = Parser::new(&src);
        skip(&mut p).unwrap();
        assert_eq!(&src[..p.pos], v);
    }
    let deep = "[".repeat(200) + &"]".repeat(200);
    let mut p = Parser::new(&deep);
    skip(&mut p).unwrap();
    assert_eq!(p.pos, 400);
    for bad in [
        "[{]}",
        r#""a\u12""#,
        r#""a\x""#,
        "\"a\u{1}b\"",
        "[\"a\"}",
        "[\"a\"",
        "\"abc",
    ] {
        let mut p = Parser::new(bad);
        assert!(skip(&mut p).is_err(), "{bad}");
    }
}

#[test]
fn written_entries_read_back_the_same() {
    let sidechain = r#"{"type":"assistant","isSidechain":true,"message":{"model":"m","usage":{"output_tokens":2}}}"#;
    let lines = [line("a\\\"x", "r", 1, "t1"), line("a\\\"x", "r", 7, "t2")];
    let data = format!("{}\n{}\n{sidechain}\n", lines[0], lines[1]);
    let first = scan(data.as_bytes(), false);
    let written = write_entries(&first);
    let again = scan(&written, false);
    assert_eq!(again.entries.len(), 2);
    assert_eq!(again.opt(again.entries[0].key), Some("a\"x\0r"));
    assert_eq!(again.entries[0].usage, first.entries[1].usage);
    assert_eq!(again.opt(again.entries[0].timestamp), Some("t2"));
    assert_eq!(again.entries[1].key, None);
    assert!(again.entries[1].sidechain && !again.entries[0].sidechain);
    assert_eq!(write_entries(&again), written);
}

#[test]
fn a_file_read_in_pieces_gives_what_it_gives_whole() {
    let dir = TempDir::new("pieces");
    let mut text = String::from("\u{feff}");
    for i in 0..3000 {
        text.push_str(&line(&format!("m{}", i / 3), "r", i, "t"));
        text.push('\n');
        if i % 700 == 0 {
            // a line longer than a piece, and a broken one
            let pad = "y".repeat(PIECE + 1000);
            text.push_str(&format!(
                r#"{{"type":"assistant","message":{{"content":"{pad}","usage":{{"output_tokens":{i}}}}}}}"#
            ));
            text.push_str("\n{\"usage\": broken\n");
        }
    }
    text.push_str(&line("last", "r", 1, "t")); // no newline at the end
    let path = dir.file("s.jsonl", &text);
    let whole = scan(text.as_bytes(), false);
    let pieces = scan_file(&path, false).unwrap();
    assert_eq!(whole.lines_skipped, 5);
    assert_eq!(pieces.lines_skipped, whole.lines_skipped);
    assert_eq!(pieces.entries.len(), 3000 + 5 + 1);
    assert_eq!(pieces.entries.len(), whole.entries.len());
    for (a, b) in pieces.entries.iter().zip(&whole.entries) {
        assert_eq!(pieces.opt(a.key), whole.opt(b.key));
        assert_eq!(a.usage, b.usage);
    }
}

#[test]
fn keeps_the_most_output_once_across_files() {
    let dir = TempDir::new("usage");
    let first = line("m1", "r1", 1, "2026-01-01T00:00:00.000Z");
    let last = line("m1", "r1", 9, "2026-01-01T00:00:01.000Z");
    let a = dir.file("a.jsonl", &format!("{first}\n{last}\n"));
    let b = dir.file(
        "b.jsonl",
        &format!("{first}\n{}\n", line("m2", "r2", 4, "t")),
    );
    let files: Vec<FileIn> = [a, b]
        .iter()
        .map(|p| FileIn {
            path: p.clone(),
            agent: false,
            session: "x".into(),
            project: "p".into(),
        })
        .collect();
    let opts = Options {
        group: Group::Session,
        since: None,
        until: None,
        threads: 2,
    };
    let s = usage(&files, &opts).unwrap();
    assert_eq!(s.total.total.requests, 2);
    assert_eq!(s.total.total.output_tokens, 13);
    assert_eq!(s.total.total.input_tokens, 6);
    assert_eq!(s.groups.len(), 1);
}

/// SPEC §1: a repeated key takes its last value; a later `message` or `usage`
/// replaces all an earlier one gave.
#[test]
fn a_repeated_key_takes_its_last_value() {
    let one = |s: &str| {
        let s = scan(s.as_bytes(), false);
        s.entries.first().map(|e| {
            let u = &e.usage;
            (
                u.output_tokens,
                u.cache_creation_1h_input_tokens,
                u.server_tool_use.clone(),
            )
        })
    };
    let rec = |message: &str| format!(r#"{{"type":"assistant","message":{message}}}"#);
    // the last usage, the last server_tool_use count, the last cache_creation
    let got = one(&rec(
        r#"{"id":"m","usage":{"output_tokens":9,"cache_creation":{"ephemeral_1h_input_tokens":5}},"usage":{"output_tokens":2,"server_tool_use":{"web_search_requests":1,"web_search_requests":3},"cache_creation":{"ephemeral_1h_input_tokens":5},"cache_creation":{}}}"#,
    ));
    let sv = std::collections::BTreeMap::from([("web_search_requests".to_owned(), 3)]);
    assert_eq!(got, Some((2, 0, sv)));
    // a later message without usage: no usage at all
    assert_eq!(
        one(r#"{"type":"assistant","message":{"usage":{"output_tokens":2}},"message":{"id":"m"}}"#),
        None
    );
    assert_eq!(
        one(r#"{"type":"assistant","message":{"usage":{"output_tokens":2}},"message":"x"}"#),
        None
    );
    // a subagent's file: its requests are a subagent's whatever the last isSidechain
    let line = r#"{"type":"assistant","isSidechain":true,"isSidechain":false,"message":{"usage":{"output_tokens":2}}}"#;
    for agent in [false, true] {
        let s = scan(line.as_bytes(), agent);
        assert_eq!((s.entries.len(), s.lines_skipped), (1, 0));
        assert_eq!(s.entries[0].sidechain, agent);
    }
    // a later type
    assert_eq!(
        one(r#"{"type":"assistant","type":"user","message":{"usage":{"output_tokens":2}}}"#),
        None
    );
}
