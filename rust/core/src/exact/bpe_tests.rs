//! The counts against tiktoken-rs (a dev-dependency: the same merge as
//! tiktoken, with fancy-regex's look-ahead), on texts written to hit each
//! alternative of the patterns and on generated texts.

use super::*;
use std::sync::OnceLock;

/// The rank file of `enc` as tiktoken writes it, rebuilt from tiktoken-rs's
/// tables (its files are not exported; its decoder is).
fn rank_file(core: &tiktoken_rs::CoreBPE, enc: Encoding) -> Vec<u8> {
    let mut out = Vec::new();
    for r in 0..enc.ranks() as u32 {
        let bytes = core.decode_bytes(&[r]).expect("a rank of the table");
        out.extend_from_slice(STANDARD.encode(bytes).as_bytes());
        out.extend_from_slice(format!(" {r}\n").as_bytes());
    }
    out
}

struct Pair {
    ours: Bpe,
    theirs: tiktoken_rs::CoreBPE,
}

fn pair(enc: Encoding) -> &'static Pair {
    static O200K: OnceLock<Pair> = OnceLock::new();
    static CL100K: OnceLock<Pair> = OnceLock::new();
    let cell = match enc {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    cell.get_or_init(|| {
        let theirs = match enc {
            Encoding::O200kBase => tiktoken_rs::o200k_base(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        }
        .unwrap();
        let ours = Bpe::from_tiktoken(enc, &rank_file(&theirs, enc)).unwrap();
        Pair { ours, theirs }
    })
}

const TEXTS: &[&str] = &[
    "",
    " ",
    "Hello, world! It's a test; we'll see what they've done.",
    "I'M SHOUTING and You're Whispering, DON'T",
    "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n",
    "def f(x):\n\treturn x  \n\n\n   # trailing   \n",
    "日本語の文章です。中文句子，还有한국어 문장도 있습니다.",
    "emoji 🎉🎉 mixed 👩‍👩‍👧 families and flags 🇫🇷🇯🇵",
    "{\"path\":\"/tmp/a.txt\",\"lines\":[1,2,3],\"ok\":true}",
    "{\n  \"path\": \"/tmp/a.txt\",\n  \"n\": 12345678\n}",
    "a     b\t\t\tc\r\n\r\nd  \u{3000}\u{3000}e\u{a0}\u{a0}f",
    "trailing spaces at the end      ",
    "     leading spaces",
    "\n\n\n   \n\t\n",
    "digits 1234567890 and 3.14159 and 1,000,000",
    "combining: e\u{301}e\u{301}\u{302} Zalgo Z\u{35b}\u{35c}a\u{35d}",
    "Ελληνικά κείμενα και кириллица, עברית, العربية, हिन्दी",
    "path/to/file.rs:12:5 -> src//lib.rs///",
    "MixedCASEWordsAndCamelCaseIdentifiersLikeHTTPServerError",
];

fn check(enc: Encoding, text: &str) {
    let p = pair(enc);
    let want = p.theirs.encode_ordinary(text).len() as u64;
    assert_eq!(p.ours.count(text), want, "{} of {text:?}", enc.name());
}

#[test]
fn hand_written_texts_match_tiktoken() {
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for t in TEXTS {
            check(enc, t);
        }
    }
}

#[test]
fn long_pieces_match_tiktoken() {
    // pieces past LARGE bytes merge through the heap
    let long = [
        "x".repeat(1000),
        "ab".repeat(300),
        " ".repeat(500) + "z",
        "\n".repeat(300),
        "=-".repeat(200),
        "字".repeat(400),
        "🎉".repeat(100),
        "aGVsbG8gd29ybGQ".repeat(40),
    ];
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for t in &long {
            check(enc, t);
        }
    }
}

#[test]
fn heap_merge_equals_scan_merge() {
    let p = pair(Encoding::O200kBase);
    for piece in [
        "abcabcabc",
        "zzzzzzzzzzzzzzzzzzzz",
        "ÿÿÿ字字🎉",
        "the quick brown",
    ] {
        let b = piece.as_bytes();
        assert_eq!(
            merged_len_large(&p.ours.ranks, b),
            merged_len(&p.ours.ranks, b)
        );
    }
}

#[test]
fn generated_texts_match_tiktoken() {
    const PALETTE: &[&str] = &[
        "a", "Z", "é", "ß", "'s", "'LL", " ", "  ", "\t", "\n", "\r\n", "\u{3000}", "1", "23", "٣",
        ".", ",", "!", "/", "{", "\"", "字", "の", "한", "🎉", "\u{301}", "ǅ", "ʰ", "_",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize
    };
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for _ in 0..400 {
            let len = next() % 40;
            let text: String = (0..len).map(|_| PALETTE[next() % PALETTE.len()]).collect();
            check(enc, &text);
        }
    }
}

#[test]
fn a_bad_rank_file_is_an_error() {
    let e = Bpe::from_tiktoken(Encoding::O200kBase, b"YQ== 0\nYg== x\n").unwrap_err();
    assert!(
        e.to_string().contains("line 2: the rank is not a number"),
        "{e}"
    );
    let e = Bpe::from_tiktoken(Encoding::O200kBase, b"YQ== 0\n!!! 1\n").unwrap_err();
    assert!(
        e.to_string().contains("line 2: the token is not base64"),
        "{e}"
    );
    let e = Bpe::from_tiktoken(Encoding::O200kBase, b"YQ== 0\nYQ== 1\n").unwrap_err();
    assert!(e.to_string().contains("repeated"), "{e}");
    let e = Bpe::from_tiktoken(Encoding::Cl100kBase, b"YQ== 0\n").unwrap_err();
    assert!(e.to_string().contains("1 tokens, expected 100256"), "{e}");
    let e = Bpe::from_tiktoken(Encoding::Cl100kBase, b"YQ==\n").unwrap_err();
    assert!(e.to_string().contains("expected a token and a rank"), "{e}");
}
