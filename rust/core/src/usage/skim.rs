//! Reading a few fields of a JSON line fast: keys read in place, values not
//! wanted skipped by hopping between quotes and backslashes. Usage, listing
//! and search read Claude Code records with these.

use crate::error::Error;
use crate::json::is_ws;
use crate::json::parse::{next_escape, Parser, Peek};
use std::borrow::Cow;

type R<T> = std::result::Result<T, Error>;

/// Calls `f` with each key of the object at `p`; `f` must read or skip the value.
pub(crate) fn object<'a>(
    p: &mut Parser<'a>,
    mut f: impl FnMut(&str, &mut Parser<'a>) -> R<()>,
) -> R<()> {
    p.begin_object()?;
    let mut first = true;
    while let Some(key) = next_key(p, &mut first)? {
        f(&key, p)?;
    }
    Ok(())
}

/// [`object`] when the value at `p` is an object; any other value is skipped.
#[inline]
pub(crate) fn object_or_skip<'a>(
    p: &mut Parser<'a>,
    f: impl FnMut(&str, &mut Parser<'a>) -> R<()>,
) -> R<()> {
    if p.peek()? != Peek::Object {
        return skip(p);
    }
    object(p, f)
}

/// A record's `message` object at `p` (the caller has checked it is one): its
/// `id` and `model` strings (`None` when another value) are stored, its
/// `usage` value is given to `usage` (which must read or skip it), and any
/// other key's value is skipped. A repeated key: the last value wins.
#[inline]
pub(crate) fn message<'a>(
    p: &mut Parser<'a>,
    id: &mut Option<Cow<'a, str>>,
    model: &mut Option<Cow<'a, str>>,
    mut usage: impl FnMut(&mut Parser<'a>) -> R<()>,
) -> R<()> {
    p.begin_object()?;
    let mut first = true;
    while let Some(k) = next_key(p, &mut first)? {
        match &*k {
            "id" => *id = str_or_skip(p)?,
            "model" => *model = str_or_skip(p)?,
            "usage" => usage(p)?,
            _ => skip(p)?,
        }
    }
    Ok(())
}

/// [`Parser::next_key`] without its position, read in place when the key has
/// no escape; anything else through the parser, with its checks and errors.
#[inline]
pub(crate) fn next_key<'a>(p: &mut Parser<'a>, first: &mut bool) -> R<Option<Cow<'a, str>>> {
    let b = p.src.as_bytes();
    let ws = |mut i: usize| {
        while b.get(i).is_some_and(|&c| is_ws(c)) {
            i += 1;
        }
        i
    };
    let mut at = ws(p.pos);
    match b.get(at) {
        Some(b'"') if *first => {}
        Some(b',') if !*first => at = ws(at + 1),
        _ => return Ok(p.next_key(first)?.map(|(_, k)| k)),
    }
    if b.get(at) != Some(&b'"') {
        return Ok(p.next_key(first)?.map(|(_, k)| k));
    }
    let text = at + 1;
    let end = match next_escape(b, text) {
        Some(end) if b[end] == b'"' => end,
        _ => return Ok(p.next_key(first)?.map(|(_, k)| k)),
    };
    let colon = ws(end + 1);
    if b.get(colon) != Some(&b':') {
        return Ok(p.next_key(first)?.map(|(_, k)| k));
    }
    *first = false;
    p.pos = ws(colon + 1);
    Ok(Some(Cow::Borrowed(&p.src[text..end])))
}

/// Skips the value at `p` quickly: a string or a container is crossed by
/// hopping between quotes and backslashes (strings are checked: escapes and
/// control characters; brackets must match), which is several times faster
/// than [`Parser::skip_value`] on text full of escapes. Commas, colons and
/// scalars inside the value are not checked. `true`, `false`, `null` and
/// plain integers are read in place; anything else, or a value that fails
/// these checks, goes through the strict parser (and its error).
pub(crate) fn skip(p: &mut Parser<'_>) -> R<()> {
    p.ws();
    let b = p.src.as_bytes();
    let rest = &b[p.pos..];
    let end = match rest.first() {
        Some(b'n') if rest.starts_with(b"null") => Some(p.pos + 4),
        Some(b't') if rest.starts_with(b"true") => Some(p.pos + 4),
        Some(b'f') if rest.starts_with(b"false") => Some(p.pos + 5),
        Some(b'1'..=b'9') => {
            let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            match rest.get(n) {
                Some(b'.' | b'e' | b'E') => None,
                _ => Some(p.pos + n),
            }
        }
        _ => skip_fast(b, p.pos),
    };
    match end {
        Some(end) => {
            p.pos = end;
            Ok(())
        }
        None => p.skip_value().map(|_| ()),
    }
}

/// The end of the string or container starting at `i`, or `None` (also past
/// 128 levels of nesting: the strict parser takes those).
fn skip_fast(b: &[u8], mut i: usize) -> Option<usize> {
    // The open containers as bits (1: an object), without allocating.
    let mut open: u128 = 0;
    let mut depth = 0u32;
    match b.get(i)? {
        b'"' | b'[' | b'{' => {}
        _ => return None,
    }
    loop {
        let c = *b.get(i)?;
        match c {
            b'"' => i = skip_str(b, i + 1)?,
            b'[' | b'{' => {
                if depth == 128 {
                    return None;
                }
                open = (open << 1) | u128::from(c == b'{');
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                if depth == 0 || (open & 1 == 1) != (c == b'}') {
                    return None;
                }
                open >>= 1;
                depth -= 1;
                i += 1;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

/// The position after the closing quote of a string whose text starts at `i`.
fn skip_str(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        // Short runs (between escapes) word by word, long ones with memchr2.
        let near = &b[..b.len().min(i + 64)];
        let at = match next_escape(near, i) {
            Some(at) => at,
            None => {
                let from = near.len();
                let rest = b.get(from..)?;
                let n = memchr::memchr2(b'"', b'\\', rest)?;
                if rest[..n].iter().fold(0xff, |m, &c| m.min(c)) < 0x20 {
                    return None;
                }
                from + n
            }
        };
        match b[at] {
            b'"' => return Some(at + 1),
            b'\\' => match b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = at + 2,
                b'u' => {
                    let hex = b.get(at + 2..at + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i = at + 6;
                }
                _ => return None,
            },
            _ => return None, // a control character
        }
    }
}

/// A string value, or `None` after skipping any other value.
pub(crate) fn string_or_skip(p: &mut Parser<'_>) -> R<Option<String>> {
    Ok(str_or_skip(p)?.map(Cow::into_owned))
}

/// A string value (borrowed unless it holds escapes), or `None` after skipping
/// any other value.
pub(crate) fn str_or_skip<'a>(p: &mut Parser<'a>) -> R<Option<Cow<'a, str>>> {
    if p.peek()? == Peek::String {
        return Ok(Some(p.string()?));
    }
    p.skip_value()?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::{message, object_or_skip, skip, str_or_skip};
    use crate::json::parse::Parser;

    #[test]
    fn object_or_skip_reads_an_object_and_passes_over_anything_else() {
        for (line, want) in [
            (
                r#"{"a": "x", "b": [1, {"c": 2}], "a": "y"} ,"#,
                vec!["a=x", "b", "a=y"],
            ),
            (r#""{\"a\": 1}" ,"#, vec![]),
            ("[1, 2] ,", vec![]),
            ("null ,", vec![]),
        ] {
            let mut p = Parser::new(line);
            let mut keys = Vec::new();
            object_or_skip(&mut p, |k, p| {
                match str_or_skip(p)? {
                    Some(v) => keys.push(format!("{k}={v}")),
                    None => keys.push(k.to_string()),
                }
                Ok(())
            })
            .unwrap();
            assert_eq!(keys, want, "{line}");
            // the whole value was read: what follows it is next
            assert_eq!(line[p.pos..].trim_start(), ",", "{line}");
        }
        let mut p = Parser::new(r#"{"a": tru}"#);
        assert!(object_or_skip(&mut p, |_, p| skip(p)).is_err());
    }

    #[test]
    fn message_keeps_the_last_id_and_model_and_hands_over_usage() {
        let line = r#"{"id": "m1", "usage": {"n": 1}, "model": 7, "x": {"id": "no"}, "id": "m2", "usage": 3, "model": "c"}"#;
        let mut p = Parser::new(line);
        let (mut id, mut model) = (Some("before".into()), None);
        let mut usages = Vec::new();
        message(&mut p, &mut id, &mut model, |p| {
            let at = p.pos;
            skip(p)?;
            usages.push(p.src[at..p.pos].to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(id.as_deref(), Some("m2"));
        assert_eq!(model.as_deref(), Some("c"));
        assert_eq!(usages, vec![r#"{"n": 1}"#, "3"]);
        assert_eq!(p.pos, line.len());

        // a usage reader's error is the message's error
        let mut p = Parser::new(r#"{"usage": {}}"#);
        let (mut id, mut model) = (None, None);
        let err = message(&mut p, &mut id, &mut model, |_| {
            Err(crate::error::Error::value("bad usage"))
        });
        assert!(err.is_err());
    }
}
