//! SPEC §6: the character classes a calibrated estimate counts, tallied in
//! the one pass that reads each string (§6 "Tokenizer families").

use crate::model::Classes;

/// Class of an ASCII byte: 0 letter, 1 digit, 2 punctuation, 3 space, 4 newline.
const LETTER: u8 = 0;
const DIGIT: u8 = 1;
const PUNCT: u8 = 2;
const SPACE: u8 = 3;
const NEWLINE: u8 = 4;
/// The last character's class after a second space or tab in a row (the run
/// is a gap: counted once).
const GAP: u8 = 6;

static ASCII: [u8; 128] = {
    let mut t = [PUNCT; 128];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = if c.is_ascii_alphabetic() {
            LETTER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c == b'\n' {
            NEWLINE
        } else if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0b || c == 0x0c {
            SPACE
        } else {
            PUNCT
        };
        i += 1;
    }
    t
};

/// Whether code point `c` is CJK (Han, kana, Hangul, CJK symbols, full-width forms).
#[inline]
pub fn is_cjk(c: u32) -> bool {
    matches!(c, 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF)
}

/// Whether code point `c` is kana (hiragana, katakana, their half-width forms).
#[inline]
pub fn is_kana(c: u32) -> bool {
    matches!(c, 0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

/// Whether code point `c` is Hangul (syllables and jamo).
#[inline]
pub fn is_hangul(c: u32) -> bool {
    matches!(c, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

/// A tally in progress: the classes so far and the class of the last
/// character. The characters compact JSON escapes (quotes, backslashes,
/// control characters) are counted as `escapes` in every string; the reader
/// keeps them only for the strings of structured values (J()'s leaves), which
/// the content text writes as JSON ([`Classes::text`] drops them for a text).
struct Tallier<'c> {
    c: &'c mut Classes,
    prev: u8,
    /// Escapes so far (added to `c` when the tally ends: a table lookup and
    /// an add a byte, no branch).
    esc: u64,
}

/// 1 for the ASCII characters compact JSON escapes: control characters,
/// quotes, backslashes.
static ESCAPED: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = (i < 0x20 || i == b'"' as usize || i == b'\\' as usize) as u8;
        i += 1;
    }
    t
};

impl<'c> Tallier<'c> {
    fn new(c: &'c mut Classes) -> Self {
        Tallier {
            c,
            prev: 255,
            esc: 0,
        }
    }
}

impl Drop for Tallier<'_> {
    fn drop(&mut self) {
        let n = u32::try_from(self.esc).unwrap_or(u32::MAX);
        self.c.escapes = self.c.escapes.saturating_add(n);
    }
}

impl Tallier<'_> {
    #[inline]
    fn ascii(&mut self, b: u8) {
        let k = ASCII[b as usize];
        self.esc += u64::from(ESCAPED[b as usize]);
        let c = &mut *self.c;
        match k {
            LETTER => {
                c.letters = c.letters.saturating_add(1);
                if self.prev != LETTER {
                    c.words = c.words.saturating_add(1);
                }
            }
            DIGIT => {
                c.digits = c.digits.saturating_add(1);
                if self.prev != DIGIT {
                    c.numbers = c.numbers.saturating_add(1);
                }
            }
            PUNCT => {
                c.punct = c.punct.saturating_add(1);
                if self.prev != PUNCT {
                    c.puncts = c.puncts.saturating_add(1);
                }
            }
            SPACE => match self.prev {
                SPACE => {
                    c.gaps = c.gaps.saturating_add(1);
                    self.prev = GAP;
                    return;
                }
                GAP => return,
                _ => c.spaces = c.spaces.saturating_add(1),
            },
            _ => c.newlines = c.newlines.saturating_add(1),
        }
        self.prev = k;
    }
    #[inline]
    fn code_point(&mut self, cp: u32) {
        if cp < 128 {
            return self.ascii(cp as u8);
        }
        if (0xC0..0x800).contains(&cp) && cp != 0xD7 && cp != 0xF7 {
            // a letter of a 2-byte script: part of a word
            let c = &mut *self.c;
            c.letters = c.letters.saturating_add(1);
            if self.prev != LETTER {
                c.words = c.words.saturating_add(1);
            }
            self.prev = LETTER;
            return;
        }
        if is_kana(cp) {
            self.c.kana = self.c.kana.saturating_add(1);
        } else if is_hangul(cp) {
            self.c.hangul = self.c.hangul.saturating_add(1);
        } else if is_cjk(cp) {
            self.c.cjk = self.c.cjk.saturating_add(1);
            if super::han::is_rare(cp) {
                self.c.rare_han = self.c.rare_han.saturating_add(1);
            }
        } else {
            self.c.other = self.c.other.saturating_add(1);
        }
        self.prev = 5;
    }
    /// The non-ASCII character starting at `b[0]`: its length in bytes.
    #[inline]
    fn utf8(&mut self, b: &[u8]) -> usize {
        let (n, init) = match b[0] {
            x if x >= 0xF0 => (4, (x & 0x07) as u32),
            x if x >= 0xE0 => (3, (x & 0x0F) as u32),
            x => (2, (x & 0x1F) as u32),
        };
        let n = n.min(b.len());
        let cp = b[1..n]
            .iter()
            .fold(init, |v, &x| (v << 6) | (x & 0x3F) as u32);
        self.code_point(cp);
        n
    }
}

/// Adds the classes of text `s` to `c`.
pub fn tally_str(c: &mut Classes, s: &str) {
    let b = s.as_bytes();
    let mut t = Tallier::new(c);
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x < 128 {
            t.ascii(x);
            i += 1;
        } else {
            i += t.utf8(&b[i..]);
        }
    }
}

/// Adds the classes of a raw JSON string (quotes included, already
/// validated) to `c`, as its unescaped text.
pub fn tally_raw(c: &mut Classes, raw: &str) {
    let b = raw.as_bytes();
    if b.len() < 2 {
        return;
    }
    let b = &b[1..b.len() - 1];
    let mut t = Tallier::new(c);
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => t.ascii(b'\n'),
                b't' => t.ascii(b'\t'),
                b'r' => t.ascii(b'\r'),
                b'b' => t.ascii(0x08),
                b'f' => t.ascii(0x0C),
                b'u' => {
                    let hi = hex(b, i + 2);
                    if (0xD800..0xDC00).contains(&hi) && b.get(i + 6) == Some(&b'\\') {
                        let lo = hex(b, i + 8);
                        t.code_point(
                            0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF),
                        );
                        i += 12;
                    } else {
                        t.code_point(hi);
                        i += 6;
                    }
                    continue;
                }
                e => t.ascii(e),
            }
            i += 2;
        } else if x < 128 {
            t.ascii(x);
            i += 1;
        } else {
            i += t.utf8(&b[i..]);
        }
    }
}

fn hex(b: &[u8], at: usize) -> u32 {
    let Some(d) = b.get(at..at + 4) else { return 0 };
    d.iter()
        .try_fold(0u32, |v, &c| Some(v * 16 + (c as char).to_digit(16)?))
        .unwrap_or(0)
}

/// A string leaf of a structured value (a tool call's input): its text and,
/// as compact JSON writes it, two quotes and a separator.
pub fn leaf_str(c: &mut Classes, s: &str) {
    tally_str(c, s);
    c.leaves = c.leaves.saturating_add(1);
}

/// A number, boolean or null leaf of a structured value.
pub fn leaf_scalar(c: &mut Classes) {
    c.leaves = c.leaves.saturating_add(1);
    c.scalars = c.scalars.saturating_add(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(s: &str) -> Classes {
        let mut c = Classes::default();
        tally_str(&mut c, s);
        c
    }

    #[test]
    fn classes_of_a_mixed_text() {
        let c = of("Hello, world 42!\n  日本語 é → x1.5 ひらカナ 한국어");
        assert_eq!((c.letters, c.words), (12, 4));
        assert_eq!((c.digits, c.numbers), (4, 3));
        assert_eq!((c.punct, c.puncts), (3, 3));
        assert_eq!(c.spaces, 8);
        assert_eq!(c.newlines, 1);
        assert_eq!((c.cjk, c.kana, c.hangul), (3, 4, 3));
        assert_eq!(c.other, 1);
        // "  " after the newline is a gap; 日本語 are o200k tokens of their own
        assert_eq!((c.gaps, c.rare_han), (1, 0));
    }

    #[test]
    fn a_run_of_spaces_is_one_gap_however_long() {
        let c = of("a b  c\t\t\td    e \tf");
        assert_eq!(c.spaces, 5);
        assert_eq!(c.gaps, 4);
        assert_eq!(of("x y z").gaps, 0);
        // a rare Han character is counted in cjk and in rare_han
        let h = of("幾的鬱");
        assert_eq!((h.cjk, h.rare_han), (3, 2));
    }

    #[test]
    fn escapes_are_counted_alike_in_a_text_and_its_raw_json() {
        let s = "say \"hi\"\n\tat C:\\x/y \u{1}\u{8}\u{c}";
        let a = of(s);
        assert_eq!(a.escapes, 8);
        let mut b = Classes::default();
        let raw = quote(s)
            .replace('\u{1}', "\\u0001")
            .replace('\u{8}', "\\b")
            .replace('\u{c}', "\\f");
        tally_raw(&mut b, &raw);
        assert_eq!(a, b, "{raw}");
        // a text keeps none of them
        assert_eq!(a.text().escapes, 0);
        assert_eq!(Classes { escapes: 0, ..a }, a.text());
    }

    fn quote(s: &str) -> String {
        let mut o = String::from("\"");
        for ch in s.chars() {
            match ch {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                '\n' => o.push_str("\\n"),
                '\t' => o.push_str("\\t"),
                c => o.push(c),
            }
        }
        o.push('"');
        o
    }

    #[test]
    fn a_raw_string_tallies_as_its_text() {
        for s in [
            "a\nb",
            "x \"q\" \\ y",
            "日本 \u{1F600} é",
            "tab\there",
            "幾鬱的  x\t\t y",
        ] {
            let raw = quote(s);
            let mut c = Classes::default();
            tally_raw(&mut c, &raw);
            assert_eq!(c, of(s), "{s:?}");
            // escaped non-ASCII too
            let esc: String = raw
                .chars()
                .flat_map(|ch| {
                    if (ch as u32) < 128 {
                        vec![ch.to_string()]
                    } else {
                        let mut b = [0u16; 2];
                        ch.encode_utf16(&mut b)
                            .iter()
                            .map(|u| format!("\\u{u:04x}"))
                            .collect()
                    }
                })
                .collect();
            let mut e = Classes::default();
            tally_raw(&mut e, &esc);
            assert_eq!(e, of(s), "{esc}");
        }
    }
}
