//! The adapters' value tree as a third backend of the one reader: record
//! values are read as core records without a JSON round trip, normalized, and
//! written back as values. A record no step changed is the input value itself,
//! moved; only the records and blocks the pipeline made or changed are built.

use super::value::{Map, Value};
use crate::error::{Error, Result};
use crate::json::parse::count_chars;
use crate::model::{AttValue, Block, BlockKind, Content, Meta, Record, Str};
use crate::read::{
    j_leaf, read_record, KeySet, Leaf, Mask, ReadError, ReadOpts, Source, Tally, ValueKind,
};
use crate::tokens::classes;
use std::borrow::Cow;

/// Reading record values: strings are borrowed from the tree, handles are the
/// values themselves.
pub struct ValueSource;

type VR<T> = std::result::Result<T, ReadError<Error>>;

impl<'a> Source<'a> for ValueSource {
    type Value = &'a Value;
    /// An object: the `Value::Obj` itself (so that it can be the handle).
    type Obj = &'a Value;
    type Whole = &'a Value;
    type Span = ();
    type Handle = &'a Value;
    type Error = Error;

    fn fork(&self) -> Self {
        ValueSource
    }
    #[inline]
    fn kind(&mut self, v: &&'a Value) -> VR<ValueKind> {
        Ok(match v {
            Value::Str(_) => ValueKind::Str,
            Value::Null => ValueKind::Null,
            Value::Arr(_) => ValueKind::Array,
            _ => ValueKind::Other,
        })
    }
    #[inline]
    fn object(&mut self, v: &&'a Value) -> VR<Option<&'a Value>> {
        Ok(matches!(v, Value::Obj(_)).then_some(*v))
    }
    #[inline]
    fn fields<K: KeySet, F>(&mut self, o: &'a Value, _mask: Mask, mut f: F) -> VR<&'a Value>
    where
        F: FnMut(&mut Self, K, &'a Value) -> VR<Mask>,
    {
        // As a streaming source: every key the set names, in order.
        if let Value::Obj(m) = o {
            for (k, v) in &m.0 {
                if let Some(k) = K::parse(k) {
                    f(self, k, v)?;
                }
            }
        }
        Ok(o)
    }
    #[inline]
    fn len_hint(&self, v: &&'a Value) -> usize {
        match v {
            Value::Arr(items) => items.len(),
            _ => 0,
        }
    }
    #[inline]
    fn array<F>(&mut self, v: &'a Value, mut f: F) -> VR<()>
    where
        F: FnMut(&mut Self, usize, &'a Value) -> VR<()>,
    {
        if let Value::Arr(items) = v {
            for (i, x) in items.iter().enumerate() {
                f(self, i, x)?;
            }
        }
        Ok(())
    }
    #[inline]
    fn string(&mut self, v: &'a Value, chars: bool) -> VR<Option<(Str<'a>, Tally)>> {
        Ok(match v {
            Value::Str(s) => Some((
                Cow::Borrowed(s.as_str()),
                if chars {
                    str_tally(s)
                } else {
                    Tally::default()
                },
            )),
            _ => None,
        })
    }
    #[inline]
    fn peek_str<T>(&mut self, v: &'a Value, f: impl FnOnce(&str) -> T) -> VR<Option<T>> {
        Ok(v.as_str().map(f))
    }
    #[inline]
    fn is_str(&mut self, v: &'a Value) -> VR<bool> {
        Ok(matches!(v, Value::Str(_)))
    }
    #[inline]
    fn str_chars(&mut self, v: &'a Value) -> VR<Option<Tally>> {
        Ok(v.as_str().map(str_tally))
    }
    #[inline]
    fn is_true(&mut self, v: &'a Value) -> VR<bool> {
        Ok(matches!(v, Value::Bool(true)))
    }
    #[inline]
    fn skip(&mut self, _v: &'a Value) -> VR<()> {
        Ok(())
    }
    fn j(&mut self, v: &'a Value) -> VR<Tally> {
        let mut t = Tally::default();
        j_of(v, &mut t);
        Ok(t)
    }
    fn j_whole(&mut self, w: &&'a Value) -> VR<Tally> {
        self.j(w)
    }
    #[inline]
    fn span(&self, _v: &&'a Value) {}
    #[inline]
    fn keep(&mut self, v: &'a Value) -> VR<&'a Value> {
        Ok(v)
    }
    #[inline]
    fn handle(&self, w: &'a Value, _hole: Option<()>) -> &'a Value {
        w
    }
    fn plain_str(h: &&'a Value) -> Option<Str<'a>> {
        h.as_str().map(Cow::Borrowed)
    }
    fn attachment(&mut self, v: &'a Value) -> VR<Option<Vec<(Str<'a>, AttValue<'a>)>>> {
        let Some(m) = v.as_obj() else {
            return Ok(None);
        };
        let fields =
            m.0.iter()
                .map(|(k, x)| {
                    let value = match x {
                        Value::Str(s) => AttValue::Str(Cow::Borrowed(s.as_str())),
                        Value::Int(i) => AttValue::Int(i.to_string()),
                        Value::Num(n) if is_integer_text(n) => AttValue::Int(n.clone()),
                        _ => AttValue::Other,
                    };
                    (Cow::Borrowed(&**k), value)
                })
                .collect();
        Ok(Some(fields))
    }
}

/// A number's text that is an integer (digits, an optional leading minus).
fn is_integer_text(n: &str) -> bool {
    let d = n.strip_prefix('-').unwrap_or(n);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// Code points and classes of a text.
fn str_tally(s: &str) -> Tally {
    let mut t = Tally {
        n: count_chars(s),
        ..Tally::default()
    };
    classes::tally_str(&mut t.cls, s);
    t
}

/// §6 J(v): code points of every string (keys too), one per other scalar;
/// and the characters by class, added to `t`.
fn j_of(v: &Value, t: &mut Tally) {
    match v {
        Value::Str(s) => leaf(t, s),
        // written to JSON as base64 text
        Value::Bytes(b) => {
            let n = b.len().div_ceil(3) as u64 * 4;
            t.n += j_leaf(Leaf::Str(n));
            t.cls.other = t.cls.other.saturating_add(n.min(u32::MAX as u64) as u32);
            t.cls.leaves = t.cls.leaves.saturating_add(1);
        }
        Value::Arr(a) => a.iter().for_each(|x| j_of(x, t)),
        Value::Obj(m) => m.0.iter().for_each(|(k, v)| {
            leaf(t, k);
            j_of(v, t)
        }),
        _ => {
            t.n += j_leaf(Leaf::Scalar);
            classes::leaf_scalar(&mut t.cls);
        }
    }
}

fn leaf(t: &mut Tally, s: &str) {
    t.n += j_leaf(Leaf::Str(count_chars(s)));
    classes::leaf_str(&mut t.cls, s);
}

/// A record read from values: its handles are the input values.
type VRec<'a> = Record<'a, &'a Value>;

/// One output record: the input value at an index, moved as it is, or one built.
enum Out {
    Moved(usize),
    Built(Value),
}

/// SPEC §4 `normalize_for_api` on record values. Records no step changed are
/// the input values themselves, moved out of `records` (left `null`); the
/// records the pipeline made or changed are built, sharing nothing.
/// `stable`: every record is known to be [`json_stable`].
pub fn normalize(
    records: &mut [Value],
    stable: bool,
    api: &crate::ApiOptions,
    report: &mut crate::Report,
) -> Result<Vec<Value>> {
    // A value JSON text cannot hold as it is (bytes, a non-finite float, a
    // repeated key) is read as the JSON backend would read its text.
    if !stable {
        for v in records.iter_mut() {
            if !json_stable(v) {
                *v = Value::from_json(&v.to_json())?;
            }
        }
    }
    let plan = {
        let recs = crate::parallel::split_map(records, |i, v| {
            read_record(&mut ValueSource, v, i, ReadOpts::default())
                .map_err(|e| e.record::<Error>(i, None))
        })?;
        let out = crate::normalize_for_api_report(recs, api, report)?;
        let mut moved = vec![false; records.len()];
        out.iter()
            .map(|r| plan_record(r, records, &mut moved))
            .collect::<Vec<Out>>()
    };
    Ok(plan
        .into_iter()
        .map(|o| match o {
            Out::Moved(i) => std::mem::replace(&mut records[i], Value::Null),
            Out::Built(v) => v,
        })
        .collect())
}

/// Reading `v`'s JSON text gives `v` back: no bytes (written as base64 text),
/// no non-finite float (written as `null`), no repeated key (the last one wins).
pub fn json_stable(v: &Value) -> bool {
    match v {
        Value::Bytes(_) => false,
        Value::Float(f) => f.is_finite(),
        Value::Arr(a) => a.iter().all(json_stable),
        Value::Obj(m) => {
            let keys = &m.0;
            keys.iter()
                .enumerate()
                .all(|(i, (k, x))| !keys[..i].iter().any(|(k2, _)| k2 == k) && json_stable(x))
        }
        _ => true,
    }
}

fn plan_record<'a>(r: &VRec<'a>, records: &'a [Value], moved: &mut [bool]) -> Out {
    let Some(orig) = r.orig else {
        return Out::Built(made_record(r));
    };
    let unchanged = !r.uuid_dirty && r.meta == Meta::Keep && !r.content_dirty;
    if unchanged || !r.kind.is_message() {
        let i = r.index;
        if records.get(i).is_some_and(|v| std::ptr::eq(v, orig)) && !moved[i] {
            moved[i] = true;
            return Out::Moved(i);
        }
        return Out::Built(orig.clone());
    }
    Out::Built(changed_record(r, orig))
}

/// A record the pipeline made: exactly type, uuid, message, timestamp, isMeta.
fn made_record(r: &VRec<'_>) -> Value {
    let mut message = Map::with_capacity(2);
    message.push("role", r.kind.role());
    message.push("content", content_value(&r.content));
    let mut m = Map::with_capacity(5);
    m.push("type", r.kind.role());
    m.push("uuid", r.uuid_str());
    m.push("message", message);
    if let Some(ts) = r.timestamp {
        m.push("timestamp", ts.clone());
    }
    if r.is_meta {
        m.push("isMeta", true);
    }
    Value::Obj(m)
}

/// An input record with its uuid, isMeta or content changed (keys in place).
fn changed_record(r: &VRec<'_>, orig: &Value) -> Value {
    let Value::Obj(m) = orig else {
        return orig.clone();
    };
    let mut out = Map::with_capacity(m.len() + 1);
    let (mut wrote_uuid, mut wrote_meta) = (false, false);
    for (k, v) in &m.0 {
        match &**k {
            "uuid" if r.uuid_dirty => {
                out.0.push((k.clone(), Value::from(r.uuid_str())));
                wrote_uuid = true;
            }
            "isMeta" if r.meta != Meta::Keep => {
                if r.meta == Meta::True {
                    out.0.push((k.clone(), Value::Bool(true)));
                    wrote_meta = true;
                }
            }
            "message" if r.content_dirty => {
                out.0.push((
                    k.clone(),
                    with_field(v, "content", content_value(&r.content)),
                ));
            }
            _ => out.0.push((k.clone(), v.clone())),
        }
    }
    if r.uuid_dirty && !wrote_uuid {
        out.push("uuid", r.uuid_str());
    }
    if r.meta == Meta::True && !wrote_meta {
        out.push("isMeta", true);
    }
    Value::Obj(out)
}

/// Object `v` with field `key` set to `new` (in place, or added last).
fn with_field(v: &Value, key: &'static str, new: Value) -> Value {
    let Value::Obj(m) = v else {
        return v.clone();
    };
    let mut out = Map::with_capacity(m.len() + 1);
    let mut new = Some(new);
    for (k, x) in &m.0 {
        if k == key {
            if let Some(n) = new.take() {
                out.0.push((k.clone(), n));
            }
        } else {
            out.0.push((k.clone(), x.clone()));
        }
    }
    if let Some(n) = new {
        out.push(key, n);
    }
    Value::Obj(out)
}

fn content_value(c: &Content<'_, &Value>) -> Value {
    match c {
        Content::Str(s) => Value::from(&**s),
        Content::Blocks(bs) => Value::Arr(bs.iter().map(block_value).collect()),
    }
}

fn block_value(b: &Block<'_, &Value>) -> Value {
    match (b.orig, b.dirty) {
        (Some(orig), false) => orig.clone(),
        (Some(orig), true) => match b.kind {
            BlockKind::Text => with_field(orig, "text", Value::from(b.text_str())),
            // a tool input cleared by context editing
            BlockKind::ToolUse => with_field(orig, "input", Value::Obj(Map::new())),
            _ => with_field(orig, "content", inner_value(b)),
        },
        (None, _) if b.kind == BlockKind::ToolResult => {
            let mut m = Map::with_capacity(4);
            m.push("type", "tool_result");
            m.push("tool_use_id", b.id.as_deref().unwrap_or(""));
            m.push("content", inner_value(b));
            if b.is_error {
                m.push("is_error", true);
            }
            Value::Obj(m)
        }
        (None, _) => {
            let mut m = Map::with_capacity(2);
            m.push("type", "text");
            m.push("text", b.text_str());
            Value::Obj(m)
        }
    }
}

fn inner_value(b: &Block<'_, &Value>) -> Value {
    b.inner.as_ref().map_or(Value::Null, content_value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(src: &str) -> Vec<Value> {
        match Value::from_json(src).unwrap() {
            Value::Arr(a) => a,
            _ => unreachable!(),
        }
    }

    /// [`normalize`] with the default options.
    fn defaults(recs: &mut [Value]) -> Result<Vec<Value>> {
        let api = crate::ApiOptions::default();
        normalize(recs, false, &api, &mut crate::Report::default())
    }

    /// The JSON backend's output for the same records, as values.
    fn through_json(src: &str, api: &crate::ApiOptions) -> (Vec<Value>, crate::Report) {
        let mut report = crate::Report::default();
        let out = crate::on_json::normalize_for_api(src.as_bytes(), api, &mut report).unwrap();
        (values(std::str::from_utf8(&out).unwrap()), report)
    }

    const HISTORY: &str = r#"[
        {"type":"user","uuid":"u1","timestamp":"t1","message":{"role":"user","content":"hi"}},
        {"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[
            {"type":"text","text":"let me look  "}]}},
        {"type":"assistant","uuid":"a2","message":{"id":"m1","role":"assistant","content":[
            {"type":"tool_use","id":"t1","name":"f","input":{"a":[1,2.5,null,true]}},
            {"type":"tool_use","id":"t2","name":"g","input":{}}]}},
        {"type":"user","uuid":"u2","isMeta":true,"message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":" "},{"type":"text","text":"ok"}]}]}},
        {"type":"attachment","uuid":"at","attachment":{"type":"todo_reminder","content":"x","itemCount":3}},
        {"type":"user","uuid":"u3","message":{"role":"user","content":"and then?"}},
        {"type":"system","uuid":"s","subtype":"local_command","content":"ls"},
        {"type":"assistant","uuid":"a3","message":{"role":"assistant","content":[{"type":"text","text":"done "}]}}
    ]"#;

    #[test]
    fn the_value_backend_gives_the_json_backends_output() {
        for api in [
            crate::ApiOptions::default(),
            crate::ApiOptions {
                max_media: Some(0),
                ensure_user_first: false,
                ..crate::ApiOptions::default()
            },
        ] {
            let (want, want_report) = through_json(HISTORY, &api);
            let mut recs = values(HISTORY);
            let mut report = crate::Report::default();
            let got = normalize(&mut recs, false, &api, &mut report).unwrap();
            assert!(want.len() >= 4 && report.items().iter().any(|(_, n)| *n > 0));
            assert_eq!(got, want);
            assert_eq!(report.items(), want_report.items());
        }
    }

    #[test]
    fn unchanged_records_are_moved_not_copied() {
        let src = r#"[
            {"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}},
            {"type":"progress","uuid":"p"},
            {"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"yes"}]}}
        ]"#;
        let mut recs = values(src);
        let want = values(src);
        let out = defaults(&mut recs).unwrap();
        assert_eq!(out, vec![want[0].clone(), want[2].clone()]);
        // moved out: the inputs left behind are null, the dropped one is not
        assert_eq!(recs[0], Value::Null);
        assert_eq!(recs[2], Value::Null);
        assert_eq!(recs[1], want[1]);
    }

    #[test]
    fn values_json_cannot_hold_are_read_as_their_json_text() {
        // bytes are base64 text, a repeated key keeps its last value
        let mut m = Map::new();
        m.push("type", "user");
        m.push("uuid", "u1");
        let mut message = Map::new();
        message.push("role", "user");
        message.push("content", "first");
        message
            .0
            .push(("content".into(), Value::Str("last".into())));
        m.push("message", message);
        m.push("blob", Value::Bytes(b"hi".to_vec()));
        let mut recs = vec![Value::Obj(m)];
        let out = defaults(&mut recs).unwrap();
        let want = values(
            r#"[{"type":"user","uuid":"u1","message":{"role":"user","content":"last"},"blob":"aGk="}]"#,
        );
        assert_eq!(out, want);
    }

    #[test]
    fn an_invalid_record_names_its_index_and_field() {
        let mut recs = values(r#"[{"type":"user","uuid":"u"},{"type":"assistant","uuid":5}]"#);
        let err = defaults(&mut recs).unwrap_err().to_string();
        assert!(err.contains("records[0].message"), "{err}");
    }
}
