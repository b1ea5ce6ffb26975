//! The JSON value tree (objects keep their key order): the provider adapters
//! read and build it, the rule engine reads it (built whole from a request,
//! or filtered to what the rules read: `validate::input`), the bindings
//! convert to and from it.

use crate::error::Result;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine as _};
pub use smol_str::SmolStr;
use std::borrow::Cow;

/// An object key: the keys the adapters read and write are static strings
/// (no allocation per object); any other key is owned.
pub type Key = Cow<'static, str>;

/// `s` as a [`Key`], borrowed when it is one of the known keys.
pub fn key(s: &str) -> Key {
    // A `match` on the literals: the compiler dispatches on the length first.
    macro_rules! known {
        ($($k:literal,)*) => {
            match s {
                $($k => Cow::Borrowed($k),)*
                _ => Cow::Owned(s.to_owned()),
            }
        };
    }
    known! {
        "type",
        "text",
        "role",
        "content",
        "id",
        "name",
        "input",
        "tool_use_id",
        "message",
        "uuid",
        "source",
        "media_type",
        "data",
        "is_error",
        "signature",
        "thinking",
        "provider_data",
        "provider",
        "subtype",
        "tool_calls",
        "tool_call_id",
        "function",
        "arguments",
        "image_url",
        "url",
        "detail",
        "call_id",
        "output",
        "parts",
        "function_call",
        "function_response",
        "args",
        "response",
        "inline_data",
        "mime_type",
        "thought",
        "thought_signature",
        "summary",
        "encrypted_content",
        "status",
        "annotations",
        "toolUse",
        "toolUseId",
        "toolResult",
        "json",
        "image",
        "format",
        "bytes",
        "document",
        "title",
        "cache_control",
        "part",
        "item",
        "parentUuid",
        "sessionId",
        "timestamp",
        "isMeta",
        "model",
        "usage",
        "requestId",
        "cwd",
        "version",
        "gitBranch",
        "userType",
        "isSidechain",
        "no_id",
        "refusal",
        "system",
        "messages",
        "contents",
        "system_instruction",
        "reasoningContent",
        "reasoningText",
        "cachePoint",
        "file",
        "file_data",
        "filename",
        "input_tokens",
        "output_tokens",
        "stop_reason",
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A number that fits neither `i64` nor `f64` exactly, as its decimal text.
    Num(String),
    /// Text: up to 23 bytes inline, longer text shared (a clone is a
    /// reference count, not a copy: records and outputs repeat their input's text).
    Str(SmolStr),
    /// Raw bytes (Bedrock's blobs); written to JSON as base64.
    Bytes(Vec<u8>),
    Arr(Vec<Value>),
    Obj(Map),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            // A text and its clone share their bytes: equal without reading them.
            (Value::Str(a), Value::Str(b)) => {
                a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a == b)
            }
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Arr(a), Value::Arr(b)) => a == b,
            (Value::Obj(a), Value::Obj(b)) => a == b,
            _ => false,
        }
    }
}

/// An object: keys in insertion order (messages are small, so lookups scan).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map(pub Vec<(Key, Value)>);

impl Map {
    pub fn new() -> Self {
        Map(Vec::new())
    }
    pub fn with_capacity(n: usize) -> Self {
        Map(Vec::with_capacity(n))
    }
    pub fn get(&self, k: &str) -> Option<&Value> {
        self.0
            .iter()
            .find(|(name, _)| name.as_ref() == k)
            .map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.0
            .iter_mut()
            .find(|(name, _)| name.as_ref() == k)
            .map(|(_, v)| v)
    }
    /// Sets `k` (replacing an existing value in place).
    pub fn set(&mut self, k: &str, v: impl Into<Value>) {
        let v = v.into();
        match self.get_mut(k) {
            Some(slot) => *slot = v,
            None => self.0.push((key(k), v)),
        }
    }
    /// Appends `k` without checking for an existing key (for fresh objects).
    pub fn push(&mut self, k: &'static str, v: impl Into<Value>) {
        self.0.push((Cow::Borrowed(k), v.into()));
    }
    /// Adds the fields the object does not have yet (a field written from the
    /// record itself wins over a copy kept in `provider_data`).
    pub fn extend_new<'a>(&mut self, fields: impl IntoIterator<Item = (&'a str, &'a Value)>) {
        for (k, v) in fields {
            if self.get(k).is_none() {
                self.0.push((key(k), v.clone()));
            }
        }
    }
    /// The fields as `(key, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
    pub fn remove(&mut self, k: &str) -> Option<Value> {
        let i = self.0.iter().position(|(name, _)| name.as_ref() == k)?;
        Some(self.0.remove(i).1)
    }
    pub fn str(&self, k: &str) -> Option<&str> {
        self.get(k).and_then(Value::as_str)
    }
    /// The string at `k` as it is held (a clone is cheap), or `""`.
    pub fn text(&self, k: &str) -> &SmolStr {
        static EMPTY: SmolStr = SmolStr::new_inline("");
        match self.get(k) {
            Some(Value::Str(s)) => s,
            _ => &EMPTY,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// The object at `k`.
    pub fn obj(&self, k: &str) -> Option<&Map> {
        self.get(k).and_then(Value::as_obj)
    }
    /// An assistant record's `message.content` blocks (none for any other record).
    pub fn assistant_blocks(&self) -> &[Value] {
        self.blocks_of("assistant")
    }
    /// A `ty` record's `message.content` blocks (none for any other record or
    /// a string content).
    pub fn blocks_of(&self, ty: &str) -> &[Value] {
        if self.str("type") != Some(ty) {
            return &[];
        }
        self.obj("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_arr)
            .unwrap_or(&[])
    }

    /// A copy without the listed keys.
    pub fn without(&self, keys: &[&str]) -> Map {
        Map(self
            .0
            .iter()
            .filter(|(k, _)| !keys.contains(&k.as_ref()))
            .cloned()
            .collect())
    }
}

/// `impl From<T> for Value` for each `T => |x| value`.
macro_rules! value_from {
    ($($t:ty => |$x:ident| $e:expr),+ $(,)?) => {
        $(impl From<$t> for Value {
            fn from($x: $t) -> Self {
                $e
            }
        })+
    };
}
value_from! {
    &str => |s| Value::Str(SmolStr::new(s)),
    String => |s| Value::Str(SmolStr::from(s)),
    &SmolStr => |s| Value::Str(s.clone()),
    SmolStr => |s| Value::Str(s),
    bool => |b| Value::Bool(b),
    Map => |m| Value::Obj(m),
    Vec<Value> => |v| Value::Arr(v),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_obj(&self) -> Option<&Map> {
        match self {
            Value::Obj(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_arr(&self) -> Option<&[Value]> {
        match self {
            Value::Arr(a) => Some(a),
            _ => None,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a bool",
            Value::Int(_) | Value::Float(_) | Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Arr(_) => "a list",
            Value::Obj(_) => "an object",
        }
    }

    /// Compact JSON text (`{"a":1}`), non-ASCII kept, bytes as base64.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    pub fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                use std::fmt::Write;
                let _ = write!(out, "{i}");
            }
            Value::Float(f) => {
                if f.is_finite() {
                    let s = format!("{f:?}");
                    out.push_str(&s);
                } else {
                    out.push_str("null");
                }
            }
            Value::Num(n) => out.push_str(n),
            Value::Str(s) => write_json_str(out, s),
            Value::Bytes(b) => write_json_str(out, &base64_encode(b)),
            Value::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
            Value::Obj(m) => {
                out.push('{');
                for (i, (k, v)) in m.0.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_str(out, k);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// Parses JSON text (a tool call's `arguments`).
    pub fn from_json(src: &str) -> Result<Value> {
        let mut p = crate::json::parse::Parser::new(src);
        let v = parse_value(&mut p, 0)?;
        if !p.at_end() {
            return Err(p.err("extra data after the JSON value"));
        }
        Ok(v)
    }

    /// Feeds every string and number of the value into `h` (for derived uuids).
    pub fn hash_into(&self, h: &mut crc32fast::Hasher) {
        match self {
            Value::Null => h.update(b"n"),
            Value::Bool(b) => h.update(if *b { b"t" } else { b"f" }),
            Value::Int(i) => h.update(&i.to_le_bytes()),
            Value::Float(f) => h.update(&f.to_le_bytes()),
            Value::Num(n) => h.update(n.as_bytes()),
            Value::Str(s) => {
                h.update(b"s");
                h.update(s.as_bytes())
            }
            Value::Bytes(b) => h.update(b),
            Value::Arr(a) => {
                h.update(b"[");
                a.iter().for_each(|v| v.hash_into(h));
            }
            Value::Obj(m) => {
                h.update(b"{");
                for (k, v) in &m.0 {
                    h.update(k.as_bytes());
                    v.hash_into(h);
                }
            }
        }
    }
}

/// What kind of JSON value a value is, as the rules read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
    /// No JSON kind: bytes, or a Python object that is none of the JSON kinds.
    Other,
}

/// The read helpers of the rules (and of any reader of a request).
impl Value {
    /// The value of `key` in an object (the first one, as [`Map::get`]).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_obj()?.get(key)
    }

    /// The first of two spellings of a key (`functionCall` / `function_call`).
    pub fn get2(&self, a: &str, b: &str) -> Option<&Value> {
        self.get(a).or_else(|| self.get(b))
    }

    /// `self[key]` as a str.
    pub fn str_at(&self, key: &str) -> Option<&str> {
        self.as_obj()?.str(key)
    }

    /// `self["type"]`.
    pub fn type_(&self) -> Option<&str> {
        self.str_at("type")
    }

    /// Whether `key` is present and not null.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| !v.is_null())
    }

    /// The elements of `self[key]` when it is a list (else none).
    pub fn list_at(&self, key: &str) -> &[Value] {
        self.get(key).and_then(Value::as_arr).unwrap_or(&[])
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Obj(_))
    }

    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) | Value::Float(_) | Value::Num(_) => Kind::Number,
            Value::Str(_) => Kind::String,
            Value::Bytes(_) => Kind::Other,
            Value::Arr(_) => Kind::Array,
            Value::Obj(_) => Kind::Object,
        }
    }

    /// The smallest value of `kind`, allocating nothing: what a filtered tree
    /// (`validate::input`) holds where the rules read a value's kind only.
    /// Such a tree is read by the rules and never written.
    pub fn of_kind(kind: Kind) -> Value {
        match kind {
            Kind::Object => Value::Obj(Map::new()),
            Kind::Array => Value::Arr(Vec::new()),
            Kind::String => Value::Str(SmolStr::default()),
            Kind::Number => Value::Int(0),
            Kind::Bool => Value::Bool(false),
            Kind::Null => Value::Null,
            Kind::Other => Value::Bytes(Vec::new()),
        }
    }
}

pub use crate::json::parse::MAX_DEPTH;

fn parse_value(p: &mut crate::json::parse::Parser<'_>, depth: usize) -> Result<Value> {
    use crate::json::parse::Peek;
    if depth > MAX_DEPTH {
        return Err(p.err("nesting too deep"));
    }
    Ok(match p.peek()? {
        Peek::Object => {
            p.begin_object()?;
            let mut m = Map::new();
            let mut first = true;
            while let Some((_, k)) = p.next_key(&mut first)? {
                let v = parse_value(p, depth + 1)?;
                match m.get_mut(&k) {
                    Some(slot) => *slot = v, // a repeated key: the last one wins
                    None => m.0.push((key(&k), v)),
                }
            }
            Value::Obj(m)
        }
        Peek::Array => {
            p.begin_array()?;
            let mut a = Vec::new();
            let mut first = true;
            while p.next_elem(&mut first)? {
                a.push(parse_value(p, depth + 1)?);
            }
            Value::Arr(a)
        }
        Peek::String => Value::from(&*p.string()?),
        Peek::Number => {
            let raw = p.skip_value()?;
            if let Ok(i) = raw.parse::<i64>() {
                Value::Int(i)
            } else {
                match raw.parse::<f64>() {
                    Ok(f)
                        if f.is_finite()
                            && !raw.bytes().all(|c| c == b'-' || c.is_ascii_digit()) =>
                    {
                        Value::Float(f)
                    }
                    _ => Value::Num(raw.to_string()),
                }
            }
        }
        Peek::True | Peek::False | Peek::Null => {
            let raw = p.skip_value()?;
            match raw {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::Null,
            }
        }
    })
}

/// `s` as a JSON string ([`crate::json::write::escape`]'s pieces).
pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    crate::json::write::escape(s, |piece| out.push_str(piece));
    out.push('"');
}

/// The decoders: one per alphabet, each strict (only its own 64 characters,
/// no bits left over in the last character), padding either canonical or
/// left out. Protobuf's JSON mapping (Gemini's `inline_data.data`) takes
/// either alphabet with or without padding; Anthropic, OpenAI and Bedrock
/// send the standard one.
const DECODE_STANDARD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);
const DECODE_URL_SAFE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Standard base64 with padding.
pub fn base64_encode(data: &[u8]) -> String {
    STANDARD.encode(data)
}

/// Base64 in the standard or the URL-safe alphabet (one of them, not a mix),
/// with canonical padding or none; `None` when it is not base64.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    DECODE_STANDARD
        .decode(s)
        .or_else(|_| DECODE_URL_SAFE.decode(s))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..20u8 {
            let data: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            let e = base64_encode(&data);
            assert_eq!(base64_decode(&e).unwrap(), data);
        }
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert!(base64_decode("a$b").is_none());
        assert!(base64_decode("R0lGOD").is_none());
        assert_eq!(base64_decode("aGk").unwrap(), b"hi");
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
        // either alphabet, each on its own
        assert_eq!(base64_decode("+/+/").unwrap(), [0xfb, 0xff, 0xbf]);
        assert_eq!(base64_decode("-_-_").unwrap(), [0xfb, 0xff, 0xbf]);
        assert!(base64_decode("+_-/").is_none(), "mixed alphabets");
        // padding: canonical or none, never a run of `=` or padding inside
        assert!(base64_decode("aGk==").is_none());
        assert!(base64_decode("aGVsbG8===").is_none());
        assert!(base64_decode("aG=k").is_none());
        assert!(base64_decode("=").is_none());
        // bits left over in the last character
        assert!(base64_decode("aGl=").is_none());
        assert_eq!(base64_decode("").unwrap(), b"");
    }

    #[test]
    fn json_round_trips() {
        let src = r#"{"a":[1,2.5,"x\n",true,null,{"b":-3}],"c":"é"}"#;
        assert_eq!(Value::from_json(src).unwrap().to_json(), src);
        let esc = r#"["q\"b\\c\u0001\r\t\u001f end","plain","\n"]"#;
        assert_eq!(Value::from_json(esc).unwrap().to_json(), esc);
        assert!(Value::from_json("{").is_err());
    }

    #[test]
    fn strings_are_escaped_wherever_the_escape_falls() {
        fn plain(s: &str) -> String {
            let mut out = String::from('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        for len in 0..40 {
            for at in 0..len {
                for esc in ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é', ' ', '\u{7f}'] {
                    let s: String = (0..len)
                        .map(|k| {
                            if k == at {
                                esc
                            } else {
                                (b'a' + (k % 26) as u8) as char
                            }
                        })
                        .collect();
                    let mut out = String::new();
                    write_json_str(&mut out, &s);
                    assert_eq!(out, plain(&s), "{s:?}");
                }
            }
        }
        assert!(Value::from_json("1 2").is_err());
    }
}
