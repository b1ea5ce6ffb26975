//! SPEC §6: the character classes a calibrated estimate counts, tallied in
//! the one pass that reads each string (§6 "Tokenizer families").

use crate::model::Classes;

/// Class of an ASCII byte: 0 letter, 1 digit, 2 punctuation, 3 space, 4 newline.
const LETTER: u8 = 0;
const DIGIT: u8 = 1;
const PUNCT: u8 = 2;
const SPACE: u8 = 3;
const NEWLINE: u8 = 4;

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

/// A tally in progress, in local counters added to the [`Classes`] when it
/// ends: per ASCII class, its characters and the runs of it (a run starts
/// where the class differs from the last character's); the class of the last
/// character; the characters compact JSON escapes (quotes, backslashes,
/// control characters), counted in every string — the reader keeps them only
/// for the strings of structured values (J()'s leaves), which the content
/// text writes as JSON ([`Classes::text`] drops them for a text). An ASCII
/// character costs two table reads and three adds, no branch. A run of two
/// or more spaces or tabs is also one gap: `pair` says whether the last two
/// characters were spaces.
struct Tallier<'c> {
    c: &'c mut Classes,
    prev: u8,
    pair: u64,
    gaps: u64,
    /// Characters and runs per ASCII class (index 5: any other character).
    n: [u64; 6],
    runs: [u64; 6],
    esc: u64,
    /// Non-ASCII characters: 2-byte letters are in `n[LETTER]`; these are the rest.
    cjk: u64,
    /// Han characters o200k_base has no token of their own for (also in `cjk`).
    rare_han: u64,
    kana: u64,
    hangul: u64,
    other: u64,
}

/// The class of a character that is neither ASCII nor a 2-byte letter.
const WIDE: u8 = 5;

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

/// Bits per packed count ([`PACKED`]), the largest count a field holds, and
/// the bytes counted before the fields are unpacked.
const FIELD: u32 = 10;
const FIELD_MAX: u64 = (1 << FIELD) - 1;
const CHUNK: usize = FIELD_MAX as usize;

/// Per ASCII byte: 1 in the 10-bit field of its class (letter, digit,
/// punctuation, space, newline: fields 0 to 4), and 1 in field 5 when compact
/// JSON escapes it.
static PACKED: [u64; 128] = {
    let mut t = [0u64; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = (1u64 << (FIELD * ASCII[i] as u32)) | ((ESCAPED[i] as u64) << (FIELD * WIDE as u32));
        i += 1;
    }
    t
};

/// The class fields of a [`PACKED`] entry.
const CLASSES: u64 = (1 << (FIELD * WIDE as u32)) - 1;

/// Adds `n` to a saturating count.
#[inline]
fn add(f: &mut u32, n: u64) {
    *f = f.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
}

impl<'c> Tallier<'c> {
    fn new(c: &'c mut Classes) -> Self {
        Tallier {
            c,
            prev: 255,
            pair: 0,
            gaps: 0,
            n: [0; 6],
            runs: [0; 6],
            esc: 0,
            cjk: 0,
            rare_han: 0,
            kana: 0,
            hangul: 0,
            other: 0,
        }
    }
}

impl Drop for Tallier<'_> {
    fn drop(&mut self) {
        let c = &mut *self.c;
        add(&mut c.letters, self.n[LETTER as usize]);
        add(&mut c.words, self.runs[LETTER as usize]);
        add(&mut c.digits, self.n[DIGIT as usize]);
        add(&mut c.numbers, self.runs[DIGIT as usize]);
        add(&mut c.punct, self.n[PUNCT as usize]);
        add(&mut c.puncts, self.runs[PUNCT as usize]);
        add(&mut c.spaces, self.runs[SPACE as usize]);
        add(&mut c.newlines, self.n[NEWLINE as usize]);
        add(&mut c.cjk, self.cjk);
        add(&mut c.kana, self.kana);
        add(&mut c.hangul, self.hangul);
        add(&mut c.other, self.other);
        add(&mut c.escapes, self.esc);
        add(&mut c.rare_han, self.rare_han);
        add(&mut c.gaps, self.gaps);
    }
}

impl Tallier<'_> {
    /// A character of class `k`.
    #[inline(always)]
    fn class(&mut self, k: u8) {
        self.n[k as usize] += 1;
        self.runs[k as usize] += u64::from(k != self.prev);
        let pair = u64::from((k == SPACE) & (self.prev == SPACE));
        self.gaps += pair & !self.pair;
        self.pair = pair;
        self.prev = k;
    }
    #[inline(always)]
    fn ascii(&mut self, b: u8) {
        let b = b & 0x7F;
        self.esc += u64::from(ESCAPED[b as usize]);
        self.class(ASCII[b as usize]);
    }
    /// A run of ASCII bytes: a short one a byte at a time ([`Self::ascii_packed`]),
    /// a longer one in blocks ([`Self::ascii_blocks`]).
    #[inline]
    fn ascii_run(&mut self, run: &[u8]) {
        if run.len() < SHORT {
            self.ascii_packed(run);
        } else {
            self.ascii_blocks(run);
        }
    }

    /// A run of ASCII bytes, counted in two registers: per byte, its packed
    /// entry of [`PACKED`] is added to the characters, and (its class bits
    /// only) to the runs when its class differs from the last byte's; the
    /// 10-bit fields are unpacked every [`CHUNK`] bytes, before one can
    /// overflow. A gap starts where a space follows a space that did not.
    #[inline]
    fn ascii_packed(&mut self, run: &[u8]) {
        const SPACE_BIT: u64 = 1 << (FIELD * SPACE as u32);
        if run.is_empty() {
            return;
        }
        let mut prev = if self.prev < WIDE {
            1u64 << (FIELD * u32::from(self.prev))
        } else {
            0
        };
        let (mut pair, mut gaps) = (self.pair, 0u64);
        for chunk in run.chunks(CHUNK) {
            let (mut n, mut runs) = (0u64, 0u64);
            for &b in chunk {
                let one = PACKED[(b & 0x7F) as usize];
                n += one;
                let class = one & CLASSES;
                runs += class * u64::from(class != prev);
                let both = u64::from((class == SPACE_BIT) & (prev == SPACE_BIT));
                gaps += both & !pair;
                pair = both;
                prev = class;
            }
            for k in 0..WIDE as usize {
                self.n[k] += (n >> (FIELD as usize * k)) & FIELD_MAX;
                self.runs[k] += (runs >> (FIELD as usize * k)) & FIELD_MAX;
            }
            self.esc += (n >> (FIELD * u32::from(WIDE))) & FIELD_MAX;
        }
        (self.pair, self.gaps) = (pair, self.gaps + gaps);
        // the last byte is read last, when the run is in the cache
        self.prev = run
            .last()
            .map_or(self.prev, |&b| ASCII[(b & 0x7F) as usize]);
    }

    /// A run of ASCII bytes in blocks of [`BLOCK`]: each byte's class is
    /// computed from the byte itself, and every count is a sum of 0/1 flags
    /// over the block, of the byte and the one or two before it (a run starts
    /// where a class follows another; a gap where a space follows a space
    /// that did not follow a space). With no table and nothing carried from
    /// one byte to the next, the compiler reads a block 16 bytes at a time.
    /// The two characters before the run enter as bytes of their class.
    fn ascii_blocks(&mut self, run: &[u8]) {
        if run.is_empty() {
            return;
        }
        let mut p1 = match self.prev {
            LETTER => b'a',
            DIGIT => b'0',
            PUNCT => b'!',
            SPACE => b' ',
            NEWLINE => b'\n',
            _ => 0x80,
        };
        let mut p2 = if self.pair != 0 { b' ' } else { b'a' };
        let mut buf = [0u8; BLOCK + 2];
        for blk in run.chunks(BLOCK) {
            let n = blk.len();
            buf[0] = p2;
            buf[1] = p1;
            buf[2..n + 2].copy_from_slice(blk);
            let mut sum = [0u8; 10];
            let bytes = buf[..n].iter().zip(&buf[1..n + 1]).zip(&buf[2..n + 2]);
            for ((&x2, &x1), &x0) in bytes {
                let (l0, d0, s0, n0, q0) = ascii_flags(x0);
                let (l1, d1, s1, _, q1) = ascii_flags(x1);
                let s2 = ascii_flags(x2).2;
                let esc = u8::from((x0 < 0x20) | (x0 == b'"') | (x0 == b'\\'));
                sum[0] += l0;
                sum[1] += d0;
                sum[2] += q0;
                sum[3] += n0;
                sum[4] += esc;
                sum[5] += l0 & !l1 & 1;
                sum[6] += d0 & !d1 & 1;
                sum[7] += q0 & !q1 & 1;
                sum[8] += s0 & !s1 & 1;
                sum[9] += s0 & s1 & !s2 & 1;
            }
            self.n[LETTER as usize] += u64::from(sum[0]);
            self.n[DIGIT as usize] += u64::from(sum[1]);
            self.n[PUNCT as usize] += u64::from(sum[2]);
            self.n[NEWLINE as usize] += u64::from(sum[3]);
            self.esc += u64::from(sum[4]);
            self.runs[LETTER as usize] += u64::from(sum[5]);
            self.runs[DIGIT as usize] += u64::from(sum[6]);
            self.runs[PUNCT as usize] += u64::from(sum[7]);
            self.runs[SPACE as usize] += u64::from(sum[8]);
            self.gaps += u64::from(sum[9]);
            (p2, p1) = (buf[n], buf[n + 1]);
        }
        self.pair = u64::from(ascii_flags(p1).2 & ascii_flags(p2).2);
        self.prev = ASCII[(p1 & 0x7F) as usize];
    }
    #[inline]
    fn code_point(&mut self, cp: u32) {
        if cp < 128 {
            return self.ascii(cp as u8);
        }
        if (0xC0..0x800).contains(&cp) && cp != 0xD7 && cp != 0xF7 {
            // a letter of a 2-byte script: part of a word
            return self.class(LETTER);
        }
        if is_kana(cp) {
            self.kana += 1;
        } else if is_hangul(cp) {
            self.hangul += 1;
        } else if is_cjk(cp) {
            self.cjk += 1;
            self.rare_han += u64::from(super::han::is_rare(cp));
        } else {
            self.other += 1;
        }
        self.pair = 0;
        self.prev = WIDE;
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

/// Runs shorter than this are tallied a byte at a time.
const SHORT: usize = 32;
/// Bytes a block holds: its 0/1 sums fit a byte.
const BLOCK: usize = 255;

/// A byte's class flags, 0 or 1: letter, digit, space, newline,
/// punctuation ([`ASCII`]'s classes); a byte of 128 or more has none.
#[inline(always)]
fn ascii_flags(b: u8) -> (u8, u8, u8, u8, u8) {
    let letter = u8::from((b | 0x20).wrapping_sub(b'a') < 26);
    let digit = u8::from(b.wrapping_sub(b'0') < 10);
    let newline = u8::from(b == b'\n');
    let space = u8::from((b == b' ') | ((b.wrapping_sub(9) < 5) & (b != b'\n')));
    let punct = u8::from(b < 128) & !(letter | digit | newline | space) & 1;
    (letter, digit, space, newline, punct)
}

/// The length of the run of ASCII bytes `b` starts with (8 bytes at a time).
#[inline]
fn ascii_len(b: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    for chunk in b.chunks_exact(8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0x80; 8]));
        if w & HIGH != 0 {
            return i + (w & HIGH).trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    while i < b.len() && b[i] < 128 {
        i += 1;
    }
    i
}

/// Adds the classes of text `s` to `c`.
pub fn tally_str(c: &mut Classes, s: &str) {
    let b = s.as_bytes();
    let mut t = Tallier::new(c);
    let mut i = 0;
    while i < b.len() {
        let run = ascii_len(&b[i..]);
        t.ascii_run(&b[i..i + run]);
        i += run;
        if i < b.len() {
            i += t.utf8(&b[i..]);
        }
    }
}

/// [`tally_str`] of a text whose length in characters, `chars`, is known (a
/// Python str's): one with as many characters as bytes is ASCII, and is read
/// in one pass, with no search for the end of its ASCII run.
pub fn tally_counted(c: &mut Classes, s: &str, chars: u64) {
    if s.len() as u64 == chars {
        Tallier::new(c).ascii_run(s.as_bytes());
    } else {
        tally_str(c, s);
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
            // up to the next escape or non-ASCII byte (at least this byte: a
            // backslash that ends the string is itself)
            let run = b[i..]
                .iter()
                .position(|&y| y == b'\\' || y >= 128)
                .unwrap_or(b.len() - i)
                .max(1);
            t.ascii_run(&b[i..i + run]);
            i += run;
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
        // a letter between two runs of spaces parts them: two gaps
        assert_eq!(of("  é  ").gaps, 2);
        // a rare Han character is counted in cjk and in rare_han
        let h = of("幾的鬱");
        assert_eq!((h.cjk, h.rare_han), (3, 2));
    }

    /// The tally one character at a time, as written from the definitions.
    fn reference(s: &str) -> Classes {
        let mut c = Classes::default();
        let mut prev = 255u8;
        let mut pair = false;
        for ch in s.chars() {
            let cp = ch as u32;
            let k = if cp < 128 {
                let b = cp as u8;
                c.escapes += u32::from(b < 0x20 || b == b'"' || b == b'\\');
                ASCII[b as usize]
            } else if (0xC0..0x800).contains(&cp) && cp != 0xD7 && cp != 0xF7 {
                LETTER
            } else {
                if is_kana(cp) {
                    c.kana += 1;
                } else if is_hangul(cp) {
                    c.hangul += 1;
                } else if is_cjk(cp) {
                    c.cjk += 1;
                    c.rare_han += u32::from(super::super::han::is_rare(cp));
                } else {
                    c.other += 1;
                }
                WIDE
            };
            // a second space in a row starts a gap; later ones continue it
            let both = k == SPACE && prev == SPACE;
            c.gaps += u32::from(both && !pair);
            pair = both;
            let new = k != prev;
            match k {
                LETTER => (c.letters, c.words) = (c.letters + 1, c.words + u32::from(new)),
                DIGIT => (c.digits, c.numbers) = (c.digits + 1, c.numbers + u32::from(new)),
                PUNCT => (c.punct, c.puncts) = (c.punct + 1, c.puncts + u32::from(new)),
                SPACE => c.spaces += u32::from(new),
                NEWLINE => c.newlines += 1,
                _ => {}
            }
            prev = k;
        }
        c
    }

    #[test]
    fn the_run_at_a_time_tally_is_the_character_at_a_time_one() {
        let pieces = [
            "word",
            " ",
            "  ",
            "\n",
            "\t",
            "42",
            "3.5",
            "\"",
            "\\",
            "\u{1}",
            "é",
            "Ωμέγα",
            "日本",
            "幾鬱",
            "カナ",
            "한",
            "\u{1F600}",
            "→",
            "×",
            "abcdefgh",
            "ABCDEFGHIJKLMNOPQ",
            "{}[]:,",
        ];
        // every order of pieces at every offset modulo 8
        let mut seed = 7u64;
        for len in 0..200 {
            let mut s = "x".repeat(len % 9);
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            assert_eq!(of(&s), reference(&s), "{s:?}");
            let mut counted = Classes::default();
            tally_counted(&mut counted, &s, s.chars().count() as u64);
            assert_eq!(counted, reference(&s), "{s:?}");
        }
        // runs longer than a packed field holds, across chunk ends
        for s in [
            "a".repeat(5000),
            "\"".repeat(2047),
            format!("{}é{}", "ab 1\n".repeat(900), " ".repeat(3000)),
        ] {
            assert_eq!(of(&s), reference(&s));
            let mut raw = Classes::default();
            tally_raw(&mut raw, &quote(&s));
            assert_eq!(raw, reference(&s));
        }
        // random ASCII (every byte, spaces and letters often) around the
        // block and short-run lengths, alone and after a tally in progress
        for len in [1, 31, 32, 33, 254, 255, 256, 511, 600, 1000] {
            for _ in 0..20 {
                let s: String = (0..len)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        match (seed >> 33) % 4 {
                            0 => ' ',
                            1 => 'a',
                            _ => char::from((seed >> 40) as u8 & 0x7F),
                        }
                    })
                    .collect();
                for text in [
                    s.clone(),
                    format!("é {s}"),
                    format!("x  {s}"),
                    format!("{s}\t{s}"),
                ] {
                    assert_eq!(of(&text), reference(&text), "{text:?}");
                    let mut counted = Classes::default();
                    tally_counted(&mut counted, &text, text.chars().count() as u64);
                    assert_eq!(counted, reference(&text), "{text:?}");
                    let mut raw = Classes::default();
                    tally_raw(&mut raw, &quote(&text));
                    assert_eq!(raw, reference(&text), "{text:?}");
                }
            }
        }
        assert_eq!(ascii_len(b"abcdefgh\xC3\xA9"), 8);
        assert_eq!(ascii_len(b"abc\xC3\xA9defghij"), 3);
        assert_eq!(ascii_len(b"abcdefghijk"), 11);
        assert_eq!(ascii_len(b""), 0);
    }

    #[test]
    fn counts_saturate() {
        let mut c = Classes {
            letters: u32::MAX - 1,
            ..Classes::default()
        };
        tally_str(&mut c, "abcd");
        assert_eq!((c.letters, c.words), (u32::MAX, 1));
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
