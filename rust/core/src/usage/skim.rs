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
