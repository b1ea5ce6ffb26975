//! A small validating JSON scanner over a `&str` (UTF-8 already checked).
//!
//! It parses only what the caller asks for and skips the rest, returning raw
//! slices, so a record is read in one pass and unchanged parts are written
//! back byte for byte (numbers of any size survive). Skipping is iterative:
//! nesting depth costs heap, not stack.

use crate::error::Error;
use std::borrow::Cow;

pub struct Parser<'a> {
    pub src: &'a str,
    b: &'a [u8],
    pub pos: usize,
}

/// What the next value is, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peek {
    Object,
    Array,
    String,
    Number,
    True,
    False,
    Null,
}

type R<T> = Result<T, Error>;

/// Bytes that end a plain run inside a string: `"`, `\\` and control characters.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The nesting a value tree is built to (the provider adapters' tree, and
/// the writer that drops repeated keys); deeper input is refused.
pub const MAX_DEPTH: usize = 500;

/// The index of the first byte at or after `i` that a JSON string escapes
/// (`"`, `\\`, a control character) ([`plain_run`]); `None` when there is none.
pub fn next_escape(b: &[u8], i: usize) -> Option<usize> {
    let k = i + plain_run(b.get(i..)?);
    (k < b.len()).then_some(k)
}

/// The length of the run at the start of `b` that a JSON string holds as it
/// is: up to the first `"`, `\\` or control character (all of `b` when there
/// is none). Eight bytes at a time (SWAR) for the first 64: a byte equal to `"`
/// or `\\`, or below 0x20, sets its high bit in `m`; the lowest such bit is
/// exact (a borrow only spreads upwards from a real match). A longer run (a
/// text): a SIMD search for the end, then one vectorized check for control
/// characters before it.
#[inline]
pub fn plain_run(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    let swar_end = b.len().min(64);
    while i + 8 <= swar_end {
        let chunk: [u8; 8] = b[i..i + 8].try_into().unwrap_or_default();
        let x = u64::from_le_bytes(chunk);
        let q = x ^ (LO * u64::from(b'"'));
        let s = x ^ (LO * u64::from(b'\\'));
        let m = (q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (x.wrapping_sub(LO * 0x20) & !x);
        let m = m & HI;
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    if i + 8 > b.len() {
        return i + b[i..]
            .iter()
            .position(|&c| STOP[c as usize])
            .unwrap_or(b.len() - i);
    }
    let rest = &b[i..];
    let n = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    if rest[..n].iter().fold(0xff, |m, &c| m.min(c)) < 0x20 {
        return i + rest[..n].iter().position(|&c| c < 0x20).unwrap_or(0);
    }
    i + n
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Self {
        Parser {
            src,
            b: src.as_bytes(),
            pos: 0,
        }
    }

    pub fn at(src: &'a str, pos: usize) -> Self {
        Parser {
            src,
            b: src.as_bytes(),
            pos,
        }
    }

    /// A JSON error at the current position.
    pub fn err(&self, msg: impl Into<String>) -> Error {
        error_at(self.src, self.pos, msg)
    }

    #[inline]
    pub fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if super::is_ws(c) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.b.len()
    }

    /// Skips white space and tells what the next value is.
    pub fn peek(&mut self) -> R<Peek> {
        self.ws();
        match self.b.get(self.pos) {
            Some(b'{') => Ok(Peek::Object),
            Some(b'[') => Ok(Peek::Array),
            Some(b'"') => Ok(Peek::String),
            Some(b'-' | b'0'..=b'9') => Ok(Peek::Number),
            Some(b't') => Ok(Peek::True),
            Some(b'f') => Ok(Peek::False),
            Some(b'n') => Ok(Peek::Null),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of input, expected a JSON value")),
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> R<()> {
        self.ws();
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else if self.pos >= self.b.len() {
            Err(self.err(format!("unexpected end of input, expected {what}")))
        } else {
            Err(self.err(format!("expected {what}")))
        }
    }

    pub fn begin_object(&mut self) -> R<()> {
        self.expect(b'{', "'{'")
    }

    pub fn begin_array(&mut self) -> R<()> {
        self.expect(b'[', "'['")
    }

    /// The next key of an object opened with `begin_object`, with the position
    /// where its raw text starts; `None` at the closing brace.
    pub fn next_key(&mut self, first: &mut bool) -> R<Option<(usize, Cow<'a, str>)>> {
        self.ws();
        match self.b.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !*first => {
                self.pos += 1;
                self.ws();
            }
            Some(b'"') if *first => {}
            None => return Err(self.err("unexpected end of input inside an object")),
            _ if *first => return Err(self.err("expected a string key or '}'")),
            _ => return Err(self.err("expected ',' or '}'")),
        }
        *first = false;
        if self.b.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string key"));
        }
        let start = self.pos;
        let key = self.string()?;
        self.expect(b':', "':'")?;
        self.ws();
        Ok(Some((start, key)))
    }

    /// Whether another element follows in an array opened with `begin_array`.
    pub fn next_elem(&mut self, first: &mut bool) -> R<bool> {
        self.ws();
        match self.b.get(self.pos) {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !*first => {
                self.pos += 1;
                self.ws();
                Ok(true)
            }
            None => Err(self.err("unexpected end of input inside an array")),
            _ if *first => {
                *first = false;
                Ok(true)
            }
            _ => Err(self.err("expected ',' or ']'")),
        }
    }

    /// A JSON string, unescaped (borrowed when it has no escapes).
    pub fn string(&mut self) -> R<Cow<'a, str>> {
        self.ws();
        if self.b.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string"));
        }
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes.
        self.scan_plain()?;
        if self.b.get(self.pos) == Some(&b'"') {
            let s = &self.src[start..self.pos];
            self.pos += 1;
            return Ok(Cow::Borrowed(s));
        }
        // Escapes: the string's end first (an escape is never shorter than
        // what it stands for, so the text fits in the escaped length), then
        // the text into one allocation. Grown by doubling instead, a long
        // text's buffers were fresh memory several times over.
        let esc = self.pos;
        self.pos = start - 1;
        let len = self.skip_string()?.len() - 2;
        self.pos = esc;
        let mut out = String::with_capacity(len);
        out.push_str(&self.src[start..self.pos]);
        loop {
            let run = self.pos;
            self.scan_plain()?;
            out.push_str(&self.src[run..self.pos]);
            if self.b.get(self.pos) == Some(&b'"') {
                self.pos += 1;
                return Ok(Cow::Owned(out));
            }
            self.pos += 1; // backslash
            let c = match self.b.get(self.pos) {
                Some(&c) => c,
                None => return Err(self.err("unexpected end of input inside a string")),
            };
            self.pos += 1;
            match c {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    out.push(self.unicode_escape()?);
                }
                _ => {
                    self.pos -= 1;
                    return Err(self.err("invalid escape in string"));
                }
            }
        }
    }

    /// Moves to the next `"` or `\\` inside a string, refusing control characters
    /// and the end of input on the way ([`plain_run`]).
    #[inline]
    fn scan_plain(&mut self) -> R<()> {
        let i = self.pos + plain_run(&self.b[self.pos..]);
        if i >= self.b.len() {
            self.pos = self.b.len();
            return Err(self.err("unexpected end of input inside a string"));
        }
        self.stop_at(i)
    }

    #[inline]
    fn stop_at(&mut self, i: usize) -> R<()> {
        self.pos = i;
        if self.b[i] < 0x20 {
            return Err(self.err("control character in string"));
        }
        Ok(())
    }

    /// The character of a `\\uXXXX` escape (the `\\u` already read), joining a
    /// surrogate pair; a lone surrogate is refused (it is not a character).
    fn unicode_escape(&mut self) -> R<char> {
        let hi = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if self.b.get(self.pos) != Some(&b'\\') || self.b.get(self.pos + 1) != Some(&b'u') {
                return Err(self.err("lone surrogate in \\u escape"));
            }
            self.pos += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(self.err("invalid low surrogate in \\u escape"));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else if (0xDC00..0xE000).contains(&hi) {
            return Err(self.err("lone surrogate in \\u escape"));
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| self.err("invalid \\u escape"))
    }

    fn hex4(&mut self) -> R<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.b.get(self.pos) {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.err("invalid \\u escape")),
            };
            v = v * 16 + u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }

    /// Skips a string, validating it, and returns its raw text (quotes included).
    fn skip_string(&mut self) -> R<&'a str> {
        let start = self.pos;
        self.pos += 1;
        loop {
            self.scan_plain()?;
            match self.b.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(&self.src[start..self.pos]);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.b.get(self.pos) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            self.unicode_escape()?;
                        }
                        _ => return Err(self.err("invalid escape in string")),
                    }
                }
                Some(&c) if c < 0x20 => return Err(self.err("control character in string")),
                Some(_) => self.pos += 1,
                None => return Err(self.err("unexpected end of input inside a string")),
            }
        }
    }

    /// Skips a JSON number (RFC 8259 grammar: no leading zeros, no `+`, a digit
    /// after `.` and in the exponent) and returns its raw text.
    fn skip_number(&mut self) -> R<&'a str> {
        let start = self.pos;
        let b = self.b;
        let digits = |p: &mut usize| {
            let s = *p;
            while b.get(*p).is_some_and(u8::is_ascii_digit) {
                *p += 1;
            }
            *p > s
        };
        let mut p = self.pos;
        if b.get(p) == Some(&b'-') {
            p += 1;
        }
        match b.get(p) {
            Some(b'0') => p += 1,
            Some(b'1'..=b'9') => {
                digits(&mut p);
            }
            _ => {
                self.pos = p;
                return Err(self.err("invalid number"));
            }
        }
        if b.get(p) == Some(&b'.') {
            p += 1;
            if !digits(&mut p) {
                self.pos = p;
                return Err(self.err("invalid number: expected a digit after '.'"));
            }
        }
        if matches!(b.get(p), Some(b'e' | b'E')) {
            p += 1;
            if matches!(b.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if !digits(&mut p) {
                self.pos = p;
                return Err(self.err("invalid number: expected a digit in the exponent"));
            }
        }
        self.pos = p;
        Ok(&self.src[start..p])
    }

    fn literal(&mut self, word: &'static str) -> R<&'a str> {
        let start = self.pos;
        if self.src[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(&self.src[start..self.pos])
        } else {
            Err(self
                .err("invalid literal (JSON has only true, false and null; no NaN or Infinity)"))
        }
    }

    /// Skips any value (iteratively: deep nesting uses heap), returning its raw text.
    #[inline]
    pub fn skip_value(&mut self) -> R<&'a str> {
        self.ws();
        // A string or a scalar (most of the fields a reader passes over) is
        // skipped directly; only a container needs the walk and its stack.
        match self.b.get(self.pos) {
            Some(b'"') => self.skip_string(),
            Some(b'-' | b'0'..=b'9') => self.skip_number(),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            _ => self.walk_value(&mut |_| {}),
        }
    }

    /// Past the `{` or `[` at the position: `true` if a member follows,
    /// `false` (and past it) if `close` ends the value at once.
    #[inline]
    fn open(&mut self, close: u8) -> bool {
        self.pos += 1;
        self.ws();
        if self.b.get(self.pos) == Some(&close) {
            self.pos += 1;
            false
        } else {
            true
        }
    }

    /// Skips a value, calling `f` on every scalar token (keys included), for §6's J().
    pub fn walk_value<F: FnMut(Token<'_>)>(&mut self, f: &mut F) -> R<&'a str> {
        self.ws();
        let start = self.pos;
        // Stack of open containers: true = object.
        let mut stack: Vec<bool> = Vec::new();
        // After a container opens or a comma, a value (or key) is expected.
        loop {
            // Expect a value.
            self.ws();
            let in_obj_key = stack.last() == Some(&true);
            if in_obj_key {
                // Object member: key, colon, value.
                if self.b.get(self.pos) != Some(&b'"') {
                    return Err(self.err("expected a string key"));
                }
                let raw = self.skip_string()?;
                f(Token::Str(raw));
                self.expect(b':', "':'")?;
                self.ws();
            }
            match self.peek()? {
                Peek::Object => {
                    if self.open(b'}') {
                        stack.push(true);
                        continue;
                    }
                }
                Peek::Array => {
                    if self.open(b']') {
                        stack.push(false);
                        continue;
                    }
                }
                Peek::String => {
                    let raw = self.skip_string()?;
                    f(Token::Str(raw));
                }
                Peek::Number => {
                    self.skip_number()?;
                    f(Token::Scalar);
                }
                Peek::True => {
                    self.literal("true")?;
                    f(Token::Scalar);
                }
                Peek::False => {
                    self.literal("false")?;
                    f(Token::Scalar);
                }
                Peek::Null => {
                    self.literal("null")?;
                    f(Token::Scalar);
                }
            }
            // A value ended: close containers or move to the next element.
            loop {
                let Some(&is_obj) = stack.last() else {
                    return Ok(&self.src[start..self.pos]);
                };
                self.ws();
                match self.b.get(self.pos) {
                    Some(b',') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'}') if is_obj => {
                        self.pos += 1;
                        stack.pop();
                    }
                    Some(b']') if !is_obj => {
                        self.pos += 1;
                        stack.pop();
                    }
                    None => return Err(self.err("unexpected end of input")),
                    _ if is_obj => return Err(self.err("expected ',' or '}'")),
                    _ => return Err(self.err("expected ',' or ']'")),
                }
            }
        }
    }

    /// A JSON integer (raw digits), or `None` after skipping any other value.
    pub fn int_or_skip(&mut self) -> R<Option<&'a str>> {
        if self.peek()? == Peek::Number {
            let raw = self.skip_number()?;
            if raw.bytes().all(|c| c == b'-' || c.is_ascii_digit()) {
                return Ok(Some(raw));
            }
            return Ok(None);
        }
        self.skip_value()?;
        Ok(None)
    }

    pub fn bool_or_skip(&mut self) -> R<Option<bool>> {
        match self.peek()? {
            Peek::True => {
                self.literal("true")?;
                Ok(Some(true))
            }
            Peek::False => {
                self.literal("false")?;
                Ok(Some(false))
            }
            _ => {
                self.skip_value()?;
                Ok(None)
            }
        }
    }
}

/// A scalar seen by `walk_value`.
pub enum Token<'s> {
    /// A string's raw text, quotes included.
    Str(&'s str),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

/// Code points of a raw JSON string (quotes included) once unescaped.
pub fn raw_string_len(raw: &str) -> u64 {
    // The raw text was validated when it was scanned: count its code points and
    // take off what each escape adds (`\n`: 2 bytes for 1 character, `\uXXXX`:
    // 6 for 1, a surrogate pair `\uXXXX\uXXXX`: 12 for 1). No allocation.
    let b = raw.as_bytes();
    if b.len() < 2 {
        return 0;
    }
    let inner = &b[1..b.len() - 1];
    let mut n = inner.iter().filter(|&&c| (c & 0xC0) != 0x80).count() as u64;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &inner[i..]) {
        let at = i + k;
        match inner.get(at + 1) {
            Some(b'u') => {
                let hi = hex_at(inner, at + 2);
                let pair = (0xD800..0xDC00).contains(&hi)
                    && inner.get(at + 6) == Some(&b'\\')
                    && inner.get(at + 7) == Some(&b'u');
                if pair {
                    n = n.saturating_sub(11);
                    i = at + 12;
                } else {
                    n = n.saturating_sub(5);
                    i = at + 6;
                }
            }
            Some(_) => {
                n = n.saturating_sub(1);
                i = at + 2;
            }
            None => break,
        }
        if i >= inner.len() {
            break;
        }
    }
    n
}

/// The value of the four hex digits at `at` (0 when they are not hex digits).
fn hex_at(b: &[u8], at: usize) -> u32 {
    let Some(d) = b.get(at..at + 4) else { return 0 };
    d.iter()
        .try_fold(0u32, |v, &c| Some(v * 16 + (c as char).to_digit(16)?))
        .unwrap_or(0)
}

/// Unicode code points of `s`.
pub fn count_chars(s: &str) -> u64 {
    // Code points = bytes that are not UTF-8 continuation bytes.
    s.bytes().filter(|&b| (b & 0xC0) != 0x80).count() as u64
}

/// 1-based line and column (in characters) of a byte position.
pub fn line_col(src: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(src.len());
    let mut p = pos;
    while !src.is_char_boundary(p) {
        p -= 1;
    }
    let before = &src[..p];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

pub fn error_at(src: &str, pos: usize, msg: impl Into<String>) -> Error {
    let (line, column) = line_col(src, pos);
    Error::Json {
        line,
        column,
        msg: msg.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(s: &str) -> Result<&str, Error> {
        let mut p = Parser::new(s);
        let r = p.skip_value()?;
        if !p.at_end() {
            return Err(p.err("trailing"));
        }
        Ok(r)
    }

    #[test]
    fn skips_valid_values() {
        for s in [
            "1",
            "-0.5e+10",
            "\"a\\u00e9\\ud83d\\ude00\"",
            "[1,[2,{\"a\":[]}],{}]",
            "{\"a\":{\"b\":null,\"c\":true}}",
            "123456789012345678901234567890",
        ] {
            assert_eq!(skip(s).unwrap(), s);
        }
    }

    #[test]
    fn rejects_invalid_values() {
        for s in [
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "NaN",
            "Infinity",
            "\"\\x\"",
            "\"\\ud800\"",
            "[",
            "{\"a\":1",
            "\"abc",
            "tru",
            "[1 2]",
        ] {
            assert!(skip(s).is_err(), "{s}");
        }
    }

    /// The direct skip of strings and scalars gives what the walk gives: the
    /// same raw text, or the same error at the same place.
    #[test]
    fn direct_skips_agree_with_the_walk() {
        for s in [
            " \"abc\" ",
            "\"a\\u00e9\\ud83d\\ude00\"",
            "\"a\\x\"",
            "\"\\ud800\"",
            "\"abc",
            "\"a\u{1}b\"",
            "-0.5e+10",
            "-",
            "1.",
            "1e",
            "01",
            "true",
            "tru",
            "false",
            "fals",
            "null",
            "nul",
            "NaN",
            "",
            "  ",
            "[1]",
        ] {
            let skip = Parser::new(s).skip_value().map_err(|e| format!("{e:?}"));
            let walk = Parser::new(s)
                .walk_value(&mut |_| {})
                .map_err(|e| format!("{e:?}"));
            assert_eq!(skip, walk, "{s:?}");
            let mut a = Parser::new(s);
            let mut b = Parser::new(s);
            let _ = a.skip_value();
            let _ = b.walk_value(&mut |_| {});
            assert_eq!(a.pos, b.pos, "{s:?}");
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let s = "[".repeat(200_000) + &"]".repeat(200_000);
        assert_eq!(skip(&s).unwrap().len(), 400_000);
    }

    #[test]
    fn strings_unescape() {
        let mut p = Parser::new("\"a\\n\\\"b\\ud83d\\ude00\"");
        assert_eq!(p.string().unwrap(), "a\n\"b😀");
    }

    #[test]
    fn line_and_column() {
        assert_eq!(line_col("ab\ncdé", 7), (2, 4));
        match skip("[1,\n  x]") {
            Err(Error::Json { line, column, .. }) => assert_eq!((line, column), (2, 3)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn raw_lengths_match_unescaped_lengths() {
        for raw in [
            "\"\"",
            "\"abc\"",
            "\"a\\nb\\\\c\\\"d\"",
            "\"\\u00e9x\"",
            "\"\\ud83d\\ude00\"",
            "\"é😀\\t\\ud83d\\ude00\\u0041\"",
            "\"\\\\u0041\"",
        ] {
            let mut p = Parser::new(raw);
            let unescaped = p.string().unwrap();
            assert_eq!(raw_string_len(raw), count_chars(&unescaped), "{raw}");
        }
    }

    #[test]
    fn counts_code_points() {
        assert_eq!(count_chars("a😀é"), 3);
        assert_eq!(raw_string_len("\"\\ud83d\\ude00x\""), 2);
    }
}
