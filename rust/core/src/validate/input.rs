//! What the rules read of a request given as JSON text or Python objects:
//! the one value tree ([`Value`]) filtered to the keys some rule reads, built
//! from JSON text ([`parse_items`]) or, in the binding, from Python objects.
//!
//! A value whose kind alone is read (a [`KIND_KEYS`] key's, one past
//! [`MAX_DEPTH`], a number) is held as [`Value::of_kind`]: the smallest value
//! of its kind, allocating nothing. The rules read such a value only through
//! its kind (`has`, `is_object`, `kind`), so they give the verdict they give
//! on the whole value; a filtered tree is read by the rules and never written.

use crate::error::Result;
use crate::json::parse::{Parser, Peek};
use crate::json::value::{Key, Kind, Map, SmolStr, Value};
use std::borrow::Cow;

/// Nesting below this depth is not read (its kind is kept): provider rules look
/// at messages, blocks and the blocks nested in tool results, not deeper.
pub const MAX_DEPTH: usize = 48;

/// The key tables ([`READ_KEYS`], [`KIND_KEYS`]) and [`key_of`] from one list.
macro_rules! key_tables {
    (read: $($r:literal,)* kind: $($k:literal,)*) => {
        /// The keys whose values some rule reads. The value of a [`KIND_KEYS`] key is
        /// skipped, keeping its kind; any other key is skipped and left out (tool
        /// inputs, base64 data, schemas, every field of a transcript record besides
        /// `type` and `message`): the tree holds only what the rules look at.
        pub const READ_KEYS: &[&str] = &[$($r,)*];

        /// The keys whose presence (and kind) some rule reads, but not their value.
        pub const KIND_KEYS: &[&str] = &[$($k,)*];

        /// What the tree keeps of the value of `key`, and the key as the tree holds
        /// it: the same text from the key tables, not from the input. Every rule's
        /// lookup compares keys; the tables' few strings stay in cache where the
        /// input's copies of them, one per object, would each be a cache miss.
        /// `None`: no rule looks at the key, and the tree leaves it out.
        pub fn key_of(key: &str) -> Option<(KeyUse, &'static str)> {
            // A `match` on the literals: the compiler dispatches on the length
            // first, where a scan of the tables compares each key with all of them.
            match key {
                $($r => Some((KeyUse::Read, $r)),)*
                $($k => Some((KeyUse::Kind, $k)),)*
                _ => None,
            }
        }
    };
}

key_tables! {
    read:
    "role",
    "content",
    "type",
    "text",
    "id",
    "name",
    "tool_use_id",
    "message",
    "tool_calls",
    "function",
    "tool_call_id",
    "call_id",
    "parts",
    "functionCall",
    "function_call",
    "functionResponse",
    "function_response",
    "toolUse",
    "toolResult",
    "toolUseId",
    "tools",
    "toolSpec",
    "functionDeclarations",
    "function_declarations",
    "approval_request_id",
    "source",
    "model",
    kind:
    "input",
    "cache_control",
    "thoughtSignature",
    "thought_signature",
    "refusal",
    "audio",
    "encrypted_content",
}

/// What the tree keeps of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// The value (a rule reads it).
    Read,
    /// Its kind only ([`Value::of_kind`]).
    Kind,
}

/// One JSON value from the parser, skipping what no rule reads.
pub fn parse_value(p: &mut Parser<'_>, depth: usize) -> Result<Value> {
    parse_in(p, depth, &mut Scratch::default())
}

/// Stacks the elements of the open containers, so that each container is
/// allocated once, at its exact size, when it closes.
#[derive(Default)]
struct Scratch {
    kv: Vec<(Key, Value)>,
    items: Vec<Value>,
}

/// A member of the object whose members are `kv[start..]`: a repeated key
/// takes the last value, where the key first appeared (SPEC §1, as Python's
/// `json` reads it).
#[inline]
fn put(kv: &mut Vec<(Key, Value)>, start: usize, key: &'static str, v: Value) {
    match kv[start..].iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = v,
        None => kv.push((Cow::Borrowed(key), v)),
    }
}

fn parse_in(p: &mut Parser<'_>, depth: usize, s: &mut Scratch) -> Result<Value> {
    let peek = p.peek()?;
    if depth >= MAX_DEPTH && matches!(peek, Peek::Object | Peek::Array) {
        p.skip_value()?;
        return Ok(Value::of_kind(peek_kind(peek)));
    }
    Ok(match peek {
        Peek::Object => {
            p.begin_object()?;
            let start = s.kv.len();
            let mut first = true;
            while let Some((_, key)) = p.next_key(&mut first)? {
                match key_of(&key) {
                    Some((KeyUse::Read, key)) => {
                        let v = parse_in(p, depth + 1, s)?;
                        put(&mut s.kv, start, key, v);
                    }
                    Some((KeyUse::Kind, key)) => {
                        let k = peek_kind(p.peek()?);
                        p.skip_value()?;
                        put(&mut s.kv, start, key, Value::of_kind(k));
                    }
                    None => {
                        p.skip_value()?;
                    }
                }
            }
            Value::Obj(Map(s.kv.drain(start..).collect()))
        }
        Peek::Array => {
            p.begin_array()?;
            let start = s.items.len();
            let mut first = true;
            while p.next_elem(&mut first)? {
                let v = parse_in(p, depth + 1, s)?;
                s.items.push(v);
            }
            Value::Arr(s.items.drain(start..).collect())
        }
        Peek::String => Value::Str(SmolStr::new(&*p.string()?)),
        Peek::Number => {
            p.skip_value()?;
            Value::of_kind(Kind::Number)
        }
        Peek::True | Peek::False => {
            p.skip_value()?;
            Value::Bool(peek == Peek::True)
        }
        Peek::Null => {
            p.skip_value()?;
            Value::Null
        }
    })
}

fn peek_kind(p: Peek) -> Kind {
    match p {
        Peek::Object => Kind::Object,
        Peek::Array => Kind::Array,
        Peek::String => Kind::String,
        Peek::Number => Kind::Number,
        Peek::True | Peek::False => Kind::Bool,
        Peek::Null => Kind::Null,
    }
}

/// The items of a JSON array, or of JSON Lines (one value a line).
pub fn parse_items(src: &str) -> Result<Vec<Value>> {
    let mut p = Parser::new(src);
    let mut items = Vec::new();
    let mut scratch = Scratch::default();
    if p.peek()? == Peek::Array {
        p.begin_array()?;
        let mut first = true;
        while p.next_elem(&mut first)? {
            items.push(parse_in(&mut p, 1, &mut scratch)?);
        }
        if !p.at_end() {
            return Err(p.err("unexpected data after the JSON array"));
        }
    } else {
        while !p.at_end() {
            items.push(parse_in(&mut p, 1, &mut scratch)?);
        }
    }
    Ok(items)
}
