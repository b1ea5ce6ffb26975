//! JSON text (an array, or JSON Lines) → records, in one pass per record: the
//! framing (array or lines, invalid records deferred so that JSON errors win,
//! UTF-8) and [`JsonSource`], the JSON backend of the one record reader
//! ([`crate::read::record`]).

use super::parse::{count_chars, error_at, raw_string_len, Parser, Peek, Token};
use super::raw::Raw;
use crate::error::{Error, Result};
use crate::model::{AttValue, Record, Str};
pub use crate::read::ReadOpts;
use crate::read::{self, j_leaf, KeySet, Leaf, Mask, ReadError, Source, Tally, ValueKind};
use crate::tokens::classes;
use std::borrow::Cow;
use std::cell::Cell;

/// Checks UTF-8, reporting the line and column of the first bad byte.
pub fn utf8(data: &[u8]) -> Result<&str> {
    std::str::from_utf8(data).map_err(|e| {
        let ok = e.valid_up_to();
        // SAFETY-free: the prefix is valid UTF-8 by `valid_up_to`.
        let prefix = std::str::from_utf8(&data[..ok]).unwrap_or("");
        let mut err = error_at(prefix, ok, "invalid UTF-8");
        if let Error::Json { msg, .. } = &mut err {
            *msg = "invalid UTF-8 byte sequence".into();
        }
        err
    })
}

/// The records of a JSON array, or of JSON Lines (one value per non-blank line).
pub fn read_records<'a>(src: &'a str, opts: ReadOpts) -> Result<Vec<Record<'a, Raw<'a>>>> {
    let mut p = Parser::new(src);
    if p.at_end() {
        return Err(p.err("empty input: expected a JSON array or JSON Lines"));
    }
    if p.peek()? == Peek::Array {
        let mut recs = Vec::new();
        let mut bad = None;
        p.begin_array()?;
        let mut first = true;
        let mut i = 0;
        while p.next_elem(&mut first)? {
            if let Some(r) = record_or_defer(&mut p, i, opts, None, &mut bad)? {
                recs.push(r);
            }
            i += 1;
        }
        if p.at_end() {
            return match bad {
                Some(e) => Err(e),
                None => Ok(recs),
            };
        }
        // More after the array: the input is JSON Lines whose first line is an array.
    }
    read_lines(src, opts)
}

fn read_lines<'a>(src: &'a str, opts: ReadOpts) -> Result<Vec<Record<'a, Raw<'a>>>> {
    let mut recs = Vec::new();
    let mut start = 0;
    let mut line_no = 0;
    let mut i = 0;
    let mut bad = None;
    while start < src.len() {
        line_no += 1;
        let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        // Parse within the line only.
        let mut p = Parser::at(&src[..end], start);
        if !p.at_end() {
            if let Some(r) = record_or_defer(&mut p, i, opts, Some(line_no), &mut bad)? {
                recs.push(r);
            }
            i += 1;
            if !p.at_end() {
                return Err(p.err("unexpected data after the JSON value on this line"));
            }
        }
        start = end + 1;
    }
    if let Some(e) = bad {
        return Err(e);
    }
    Ok(recs)
}

/// Reads one record. An invalid record is skipped and remembered (the first one
/// is raised once the whole input is known to be valid JSON: JSON errors win).
fn record_or_defer<'a>(
    p: &mut Parser<'a>,
    i: usize,
    opts: ReadOpts,
    line: Option<usize>,
    bad: &mut Option<Error>,
) -> Result<Option<Record<'a, Raw<'a>>>> {
    p.ws();
    let start = p.pos;
    match read_record(p, i, opts, line) {
        Ok(r) if bad.is_none() => Ok(Some(r)),
        Ok(_) => Ok(None),
        Err(e @ Error::InvalidRecord { .. }) => {
            p.pos = start;
            p.skip_value()?;
            bad.get_or_insert(e);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Reads the record at the parser's position (SPEC §1): a JSON error, or an
/// invalid record naming `records[index]` (and `line`, for JSON Lines).
///
/// A record is read in one pass. When an object in it repeats a key the
/// reader looks at, or the record is invalid, that pass stops and the record
/// is read again, each object's members first listed so that only the last
/// value of a key is read (SPEC §1: the last value wins, as Python's `json`
/// reads it).
pub(crate) fn read_record<'a>(
    p: &mut Parser<'a>,
    index: usize,
    opts: ReadOpts,
    line: Option<usize>,
) -> Result<Record<'a, Raw<'a>>> {
    p.ws();
    let v = p.pos;
    let dup = Cell::new(false);
    let mut src = JsonSource {
        p: Parser::at(p.src, v),
        dedup: false,
        dup: &dup,
        classes: opts.classes,
    };
    let mut r = read::read_record(&mut src, v, index, opts);
    // A refusal may come from a value a later member shadows (the pass stops
    // there, before it meets the repeated key): an invalid record is read
    // again the same way, to judge only the last values.
    if dup.get() || matches!(r, Err(ReadError::Invalid(_))) {
        src = JsonSource {
            p: Parser::at(p.src, v),
            dedup: true,
            dup: &dup,
            classes: opts.classes,
        };
        r = read::read_record(&mut src, v, index, opts);
    }
    p.pos = src.p.pos;
    r.map_err(|e| e.record(index, line))
}

/// JSON text as a [`Source`]: a value is its position in the text; reading
/// it moves the parser past it (one pass; a value read again is re-parsed by
/// a fork).
struct JsonSource<'a, 'f> {
    p: Parser<'a>,
    /// Each object's members are listed first and only the last value of a
    /// key is read.
    dedup: bool,
    /// Set (in one pass) when an object repeats a key the reader looks at.
    dup: &'f Cell<bool>,
    /// Count characters by class too ([`ReadOpts::classes`]).
    classes: bool,
}

type JR<T> = std::result::Result<T, ReadError<Error>>;

impl<'a> Source<'a> for JsonSource<'a, '_> {
    type Value = usize;
    type Obj = usize;
    type Whole = (usize, usize);
    type Span = (usize, usize);
    type Handle = Raw<'a>;
    type Error = Error;

    fn fork(&self) -> Self {
        JsonSource {
            p: Parser::at(self.p.src, self.p.pos),
            dedup: self.dedup,
            dup: self.dup,
            classes: self.classes,
        }
    }
    #[inline]
    fn kind(&mut self, v: &usize) -> JR<ValueKind> {
        self.p.pos = *v;
        Ok(match self.p.peek()? {
            Peek::String => ValueKind::Str,
            Peek::Null => ValueKind::Null,
            Peek::Array => ValueKind::Array,
            _ => ValueKind::Other,
        })
    }
    #[inline]
    fn object(&mut self, v: &usize) -> JR<Option<usize>> {
        self.p.pos = *v;
        Ok((self.p.peek()? == Peek::Object).then_some(*v))
    }
    #[inline]
    fn fields<K: KeySet, F>(&mut self, o: usize, _mask: Mask, mut f: F) -> JR<(usize, usize)>
    where
        F: FnMut(&mut Self, K, usize) -> JR<Mask>,
    {
        self.p.pos = o;
        self.p.begin_object()?;
        let mut first = true;
        if self.dedup {
            return self.fields_dedup(o, f);
        }
        let mut seen: Mask = 0;
        while let Some((_, key)) = self.p.next_key(&mut first)? {
            self.p.ws();
            let at = self.p.pos;
            if let Some(k) = K::parse(&key) {
                if seen & k.bit() != 0 {
                    // A repeated key: the record is read again (see read_record).
                    self.dup.set(true);
                    return Err(ReadError::Source(Error::value("a repeated key")));
                }
                seen |= k.bit();
                f(self, k, at)?;
            }
            if self.p.pos == at {
                self.p.skip_value()?;
            }
        }
        Ok((o, self.p.pos))
    }
    #[inline]
    fn array<F>(&mut self, v: usize, mut f: F) -> JR<()>
    where
        F: FnMut(&mut Self, usize, usize) -> JR<()>,
    {
        self.p.pos = v;
        self.p.begin_array()?;
        let mut first = true;
        let mut j = 0;
        while self.p.next_elem(&mut first)? {
            self.p.ws();
            let at = self.p.pos;
            f(self, j, at)?;
            if self.p.pos == at {
                self.p.skip_value()?;
            }
            j += 1;
        }
        Ok(())
    }
    #[inline]
    fn string(&mut self, v: usize, chars: bool) -> JR<Option<(Str<'a>, Tally)>> {
        self.p.pos = v;
        if self.p.peek()? == Peek::String {
            let s = self.p.string()?;
            let mut t = Tally::default();
            if chars {
                t.n = count_chars(&s);
                if self.classes {
                    classes::tally_str(&mut t.cls, &s);
                }
            }
            Ok(Some((s, t)))
        } else {
            self.p.skip_value()?;
            Ok(None)
        }
    }
    #[inline]
    fn peek_str<T>(&mut self, v: usize, f: impl FnOnce(&str) -> T) -> JR<Option<T>> {
        self.p.pos = v;
        if self.p.peek()? == Peek::String {
            Ok(Some(f(&self.p.string()?)))
        } else {
            self.p.skip_value()?;
            Ok(None)
        }
    }
    #[inline]
    fn is_str(&mut self, v: usize) -> JR<bool> {
        self.p.pos = v;
        let is = self.p.peek()? == Peek::String;
        self.p.skip_value()?;
        Ok(is)
    }
    #[inline]
    fn str_chars(&mut self, v: usize) -> JR<Option<Tally>> {
        self.p.pos = v;
        let is = self.p.peek()? == Peek::String;
        let raw = self.p.skip_value()?;
        Ok(is.then(|| {
            let mut t = Tally {
                n: raw_string_len(raw),
                ..Tally::default()
            };
            if self.classes {
                classes::tally_raw(&mut t.cls, raw);
            }
            t
        }))
    }
    #[inline]
    fn is_true(&mut self, v: usize) -> JR<bool> {
        self.p.pos = v;
        Ok(self.p.bool_or_skip()? == Some(true))
    }
    #[inline]
    fn skip(&mut self, v: usize) -> JR<()> {
        self.p.pos = v;
        self.p.skip_value()?;
        Ok(())
    }
    fn j(&mut self, v: usize) -> JR<Tally> {
        self.p.pos = v;
        if self.dedup {
            // J() of the value as Python's json reads it (SPEC §1, A27).
            let raw = self.p.skip_value()?;
            return Ok(j_dedup(raw, self.classes)?);
        }
        Ok(j_tally(&mut self.p, self.classes)?)
    }
    fn j_whole(&mut self, w: &(usize, usize)) -> JR<Tally> {
        if self.dedup {
            return Ok(j_dedup(&self.p.src[w.0..w.1], self.classes)?);
        }
        Ok(j_tally(&mut Parser::at(self.p.src, w.0), self.classes)?)
    }
    #[inline]
    fn span(&self, v: &usize) -> (usize, usize) {
        (*v, self.p.pos)
    }
    #[inline]
    fn keep(&mut self, v: usize) -> JR<Raw<'a>> {
        self.p.pos = v;
        Ok(Raw::plain(self.p.skip_value()?))
    }
    #[inline]
    fn handle(&self, (start, end): (usize, usize), hole: Option<(usize, usize)>) -> Raw<'a> {
        Raw::with_hole(&self.p.src[start..end], start, hole, self.dedup)
    }
    fn plain_str(h: &Raw<'a>) -> Option<Str<'a>> {
        plain_string(h.text)
    }
    fn attachment(&mut self, v: usize) -> JR<Option<Vec<(Str<'a>, AttValue<'a>)>>> {
        self.p.pos = v;
        if self.p.peek()? == Peek::Object {
            let (fields, repeated) = read_attachment(&mut self.p)?;
            if repeated && !self.dedup {
                // The record is read again, to be written without the shadowed member.
                self.dup.set(true);
                return Err(ReadError::Source(Error::value("a repeated key")));
            }
            Ok(Some(fields))
        } else {
            self.p.skip_value()?;
            Ok(None)
        }
    }
}

impl<'a> JsonSource<'a, '_> {
    /// [`Source::fields`] of an object whose members are listed first (its
    /// `{` read): `f` is called once per key the reader looks at, in the
    /// order keys first appear, with the key's last value: the object Python's
    /// `json` reads. A value that another of its key shadows is checked as
    /// JSON only.
    fn fields_dedup<K: KeySet, F>(&mut self, o: usize, mut f: F) -> JR<(usize, usize)>
    where
        F: FnMut(&mut Self, K, usize) -> JR<Mask>,
    {
        // Masks are 32 bits: at most 32 keys in a set.
        let mut last = [usize::MAX; 32];
        let mut order: Vec<K> = Vec::new();
        let mut first = true;
        while let Some((_, key)) = self.p.next_key(&mut first)? {
            self.p.ws();
            if let Some(k) = K::parse(&key) {
                if last[k.index()] == usize::MAX {
                    order.push(k);
                }
                last[k.index()] = self.p.pos;
            }
            self.p.skip_value()?;
        }
        let end = self.p.pos;
        for k in order {
            f(self, k, last[k.index()])?;
        }
        self.p.pos = end;
        Ok((o, end))
    }
}

/// The text of a JSON string written without escapes (`"…"`), else `None`.
fn plain_string(raw: &str) -> Option<Str<'_>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then_some(Cow::Borrowed(inner))
}

/// An attachment's fields, and whether a key was repeated.
#[allow(clippy::type_complexity)]
fn read_attachment<'a>(p: &mut Parser<'a>) -> Result<(Vec<(Str<'a>, AttValue<'a>)>, bool)> {
    let mut repeated = false;
    let mut fields: Vec<(Str<'a>, AttValue<'a>)> = Vec::new();
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        let v = match p.peek()? {
            Peek::String => AttValue::Str(p.string()?),
            Peek::Number => match p.int_or_skip()? {
                Some(digits) => AttValue::Int(digits.to_string()),
                None => AttValue::Other,
            },
            _ => {
                p.skip_value()?;
                AttValue::Other
            }
        };
        // A repeated key: the last value, where the key first appeared (SPEC §1).
        match fields.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => {
                slot.1 = v;
                repeated = true;
            }
            None => fields.push((key, v)),
        }
    }
    Ok((fields, repeated))
}

/// §6 J(value) of the value at the parser's position, skipping it.
pub fn j_of(p: &mut Parser<'_>) -> Result<u64> {
    let mut j = 0u64;
    p.walk_value(&mut |t| {
        j += j_leaf(match t {
            Token::Str(raw) => Leaf::Str(raw_string_len(raw)),
            Token::Scalar => Leaf::Scalar,
        })
    })?;
    Ok(j)
}

/// §6 J() of the value at the parser's position and, with `classes`, its
/// characters by class (one walk), skipping it.
pub fn j_tally(p: &mut Parser<'_>, classes: bool) -> Result<Tally> {
    if !classes {
        return Ok(Tally {
            n: j_of(p)?,
            ..Tally::default()
        });
    }
    let mut t = Tally::default();
    p.walk_value(&mut |tok| match tok {
        Token::Str(raw) => {
            t.n += j_leaf(Leaf::Str(raw_string_len(raw)));
            classes::tally_raw(&mut t.cls, raw);
            t.cls.leaves = t.cls.leaves.saturating_add(1);
        }
        Token::Scalar => {
            t.n += j_leaf(Leaf::Scalar);
            classes::leaf_scalar(&mut t.cls);
        }
    })?;
    Ok(t)
}

/// §6 J() of a value of a record that repeats a key: of the value each key
/// once, with its last value.
fn j_dedup(raw: &str, classes: bool) -> Result<Tally> {
    let mut once = Vec::with_capacity(raw.len());
    super::write::write_dedup(&mut once, raw)?;
    let once = std::str::from_utf8(&once).map_err(|_| Error::value("internal error: not UTF-8"))?;
    j_tally(&mut Parser::new(once), classes)
}

/// A tool_use block's `name` (its §6 length) and whether its `input` is `{}`,
/// for context editing ([`crate::editing`]).
pub fn tool_use_info(raw: &Raw<'_>) -> Result<crate::editing::ToolUseInfo> {
    let mut info = crate::editing::ToolUseInfo::default();
    let mut p = Parser::new(raw.text);
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "name" if p.peek()? == Peek::String => {
                let name = p.string()?;
                info.name_chars = count_chars(&name);
                info.name = name.into_owned();
            }
            "name" => {
                // A repeated key: the last value wins (SPEC §1).
                info.name.clear();
                info.name_chars = j_of(&mut p)?;
            }
            "input" => {
                let v = p.skip_value()?;
                info.input_empty = v.bytes().filter(|&c| !super::is_ws(c)).eq(*b"{}");
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BlockKind, Content};

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_hole_beyond_32_bits_is_left_to_the_writer() {
        let r = Raw::with_hole("{}", 10, Some((12, 14)), false);
        assert_eq!(r.hole, Some((2, 4)));
        assert_eq!(r.hole(), Some((2, 4)));
        // offsets that do not fit 32 bits: no hole, the writer rewrites the field
        assert_eq!(
            Raw::with_hole("{}", 0, Some((1, 1 << 32)), false).hole(),
            None
        );
        assert_eq!(
            Raw::with_hole("{}", 0, Some((1 << 33, 1 << 34)), false).hole(),
            None
        );
    }

    /// Fuzz regression (fuzz/regressions/normalize_for_api/top-level-content): a
    /// user record's top-level `content` key after `message` is an extra field, not
    /// its content; it used to replace `message.content`.
    #[test]
    fn top_level_content_of_a_user_record_is_not_its_content() {
        for src in [
            r#"[{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"content":"zz"}]"#,
            r#"[{"type":"user","uuid":"u","content":"zz","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}]"#,
            r#"[{"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"content":"zz","type":"user","uuid":"u"}]"#,
        ] {
            for count in [false, true] {
                let recs = read_records(
                    src,
                    ReadOpts {
                        count,
                        ..ReadOpts::default()
                    },
                )
                .unwrap();
                let blocks = recs[0].content.blocks();
                assert_eq!(blocks.len(), 1, "{src}");
                assert_eq!(blocks[0].kind, BlockKind::ToolResult, "{src}");
            }
        }
    }

    /// A content list of one block holds room for one (a first push reserves
    /// four: at a million records that room was more memory than the
    /// records); longer lists hold at least their blocks.
    #[test]
    fn a_content_list_is_sized_to_its_blocks() {
        let one = r#"{"type":"assistant","uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}"#;
        let recs = read_records(one, ReadOpts::default()).unwrap();
        let Content::Blocks(b) = &recs[0].content else {
            panic!("blocks expected");
        };
        assert_eq!((b.len(), b.capacity()), (1, 1));
        let three = r#"{"type":"assistant","uuid":"a","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b\nc"},{"type":"text","text":"d"}]}}"#;
        let recs = read_records(three, ReadOpts::default()).unwrap();
        let texts: Vec<_> = recs[0]
            .content
            .blocks()
            .iter()
            .map(|b| b.text_str().to_owned())
            .collect();
        assert_eq!(texts, ["a", "b\nc", "d"]);
    }

    /// A string with escapes is unescaped into one allocation of at most its
    /// escaped length, whatever the escapes.
    #[test]
    fn an_escaped_string_is_read_whole() {
        for (json, text) in [
            (r#""a\nb""#, "a\nb"),
            (r#""\u00e9\ud83d\ude00x""#, "\u{e9}\u{1f600}x"),
            (
                r#""plain then \" and \\ and \/""#,
                "plain then \" and \\ and /",
            ),
        ] {
            let mut p = crate::json::parse::Parser::new(json);
            let s = p.string().unwrap();
            assert_eq!(s, text, "{json}");
            assert!(s.len() <= json.len() - 2, "{json}");
        }
        // errors after an escape are the parser's, at the same place
        let mut p = crate::json::parse::Parser::new(r#""a\n\q""#);
        assert!(p
            .string()
            .unwrap_err()
            .to_string()
            .contains("invalid escape"));
    }

    #[test]
    fn top_level_content_of_a_system_record_is_its_content() {
        for src in [
            r#"{"type":"system","uuid":"s","subtype":"local_command","content":"ls"}"#,
            r#"{"content":"ls","subtype":"local_command","uuid":"s","type":"system"}"#,
        ] {
            let recs = read_records(src, ReadOpts::default()).unwrap();
            assert!(
                matches!(&recs[0].content, Content::Str(s) if s == "ls"),
                "{src}"
            );
        }
    }

    fn normalize(src: &str) -> std::result::Result<String, String> {
        crate::on_json::normalize_for_api(
            src.as_bytes(),
            &crate::ApiOptions::default(),
            &mut crate::Report::default(),
        )
        .map(|b| String::from_utf8(b).unwrap())
        .map_err(|e| e.to_string())
    }

    /// SPEC §1: a repeated key takes its last value, in every object the
    /// reader looks into, whatever the order of the keys.
    #[test]
    fn a_repeated_key_takes_its_last_value() {
        let recs = read_records(
            r#"{"type":"system","type":"user","uuid":"x","uuid":"u","message":"","message":{"role":"user","content":"a","content":[{"type":"text","text":"b","text":"c"}]}}"#,
            ReadOpts::default(),
        )
        .unwrap();
        assert_eq!(recs[0].kind, crate::model::Kind::User);
        assert_eq!(recs[0].uuid_str(), "u");
        assert_eq!(recs[0].content.blocks()[0].text_str(), "c");
        assert!(recs[0].orig.unwrap().dup);
        // the value the last one shadows may be anything valid as JSON
        let recs = read_records(
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":{"x":1}},"message":{"role":"user","content":"ok"}}"#,
            ReadOpts::COUNT,
        )
        .unwrap();
        assert!(matches!(&recs[0].content, Content::Str(s) if s == "ok"));
        // and the last one is judged: a bad last value is refused even after a good one
        let err = read_records(
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":"ok"},"message":""}"#,
            ReadOpts::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("records[0].message"), "{err}");
        // a bad value shadowed by a later one, met before the repeated key
        let recs = read_records(
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":[1],"content":"ok"}}"#,
            ReadOpts::default(),
        )
        .unwrap();
        assert!(matches!(&recs[0].content, Content::Str(s) if s == "ok"));
        // a record without a repeated key is read in one pass and copied as it is
        let recs = read_records(
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":"ok"}}"#,
            ReadOpts::default(),
        )
        .unwrap();
        assert!(!recs[0].orig.unwrap().dup);
        // an attachment's fields: the last value, where the key first appeared
        let recs = read_records(
            r#"{"type":"attachment","uuid":"a","attachment":{"type":1,"n":2,"type":"file"}}"#,
            ReadOpts::default(),
        )
        .unwrap();
        let f = recs[0].attachment_fields();
        assert_eq!(f.len(), 2);
        assert!(matches!(&f[0], (k, AttValue::Str(v)) if k == "type" && v == "file"));
    }

    /// The fuzz `session` target's input (fuzz/regressions/session/repeated-message):
    /// a record whose `message` is repeated, the first one a string. Its text,
    /// as JSON Lines or an array, and the output written from it, read alike;
    /// the output holds each key once.
    #[test]
    fn a_record_with_a_repeated_key_is_written_without_the_shadowed_member() {
        let l1 = r#"{"message":"","type":"user","message":{"role":"r","content":""},"uuid":"c"}"#;
        let l2 = r#"{"h":"","type":"user","message":{"role":"u","content":"G."},"uuid":""}"#;
        let want = r#"[{"message":{"role":"r","content":[{"type":"text","text":"G."}]},"type":"user","uuid":"c"}]"#;
        assert_eq!(normalize(&format!("{l1}\n{l2}")).unwrap(), want);
        assert_eq!(normalize(&format!("[{l1},\n{l2}]")).unwrap(), want);
        assert_eq!(normalize(want).unwrap(), want);
        // not merged: written again whole, each key once
        assert_eq!(
            normalize(l1).unwrap(),
            r#"[{"message":{"role":"r","content":"(no content)"},"type":"user","uuid":"c"}]"#
        );
        // unchanged, nested: every object below the record too
        let rec = r#"{"type":"assistant","uuid":"a","x":[{"k":1,"k":2}],"message":{"role":"assistant","content":[{"type":"tool_use","id":"t","id":"t1","name":"n","input":{"a":1,"a":{"b":2,"b":3}}}]}}"#;
        let out = normalize(&format!(
            "{rec}\n{}",
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}}"#
        ))
        .unwrap();
        assert!(out.contains(r#",{"type":"assistant","uuid":"a","x":[{"k":2}],"message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"n","input":{"a":{"b":3}}}]}},{"type":"user","#), "{out}");
    }

    /// The error of JSON Lines with junk after a record names where the junk is.
    #[test]
    fn junk_after_a_record_is_named_where_it_is() {
        let l1 = r#"{"message":"","type":"user","message":{"role":"r","content":""},"uuid":"c"}"#;
        let l2 = r#"{"h":"","type":"user","message":{"role":"u","content":"G."},"uuid":""}]"#;
        let err = normalize(&format!("{l1}\n{l2}")).unwrap_err();
        assert!(err.contains("line 2 column 71"), "{err}");
    }
}
