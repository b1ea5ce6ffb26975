use super::*;
use crate::json::value::Map;

#[test]
fn parses_and_skips() {
    let v = parse_items(
        r#"[{"content": [1, true, null, "x\n"], "input": {"deep": [1]}, "uuid": "u"}]"#,
    )
    .unwrap();
    assert_eq!(v.len(), 1);
    // a kind-only key: the smallest value of its kind
    assert_eq!(v[0].get("input"), Some(&Value::Obj(Map::new())));
    assert_eq!(v[0].get("input").map(Value::kind), Some(Kind::Object));
    assert_eq!(v[0].get("uuid"), None);
    let a = v[0].list_at("content");
    assert_eq!(a[1], Value::Bool(true));
    assert_eq!(a[3].as_str(), Some("x\n"));
}

#[test]
fn json_lines_and_depth() {
    let v = parse_items("{\"a\":1}\n{\"b\":2}\n").unwrap();
    assert_eq!(v.len(), 2);
    let deep = format!("[{}{}]", "[".repeat(100_000), "]".repeat(100_000));
    let v = parse_items(&deep).unwrap();
    assert_eq!(v.len(), 1);
    // past the depth cut: an empty value of the kind
    let mut x = &v[0];
    for _ in 1..MAX_DEPTH {
        x = &x.as_arr().unwrap()[0];
    }
    assert_eq!(x, &Value::Arr(Vec::new()));
    assert!(parse_items("[1,").is_err());
    assert!(parse_items("[1] x").is_err());
}

#[test]
fn table_ids_are_unique_and_prefixed() {
    let mut seen = std::collections::HashSet::new();
    for p in Provider::ALL {
        for r in rules(p) {
            assert!(r.id.starts_with(&format!("{}/", p.name())), "{}", r.id);
            assert!(seen.insert(r.id), "{}", r.id);
        }
    }
}
