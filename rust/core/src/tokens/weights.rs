//! SPEC §6: the weights of each tokenizer family's calibrated estimate, as
//! `benches/calibrate_tokens.py` fitted them (its output is pasted here).

use super::Family;
use crate::model::Cost;

/// A family's estimate: tokens per character class, per block, tool call and
/// tool result, per message, and per image (whose size cannot be read) and document.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// letters, words, digits, numbers, punct, puncts, spaces, newlines, cjk
    /// (Han), kana, hangul, other, leaves, scalars, escapes, rare_han, gaps
    pub cls: [f64; 17],
    pub block: f64,
    pub call: f64,
    pub result: f64,
    pub message: u64,
    pub image: u64,
    pub document: u64,
}

// BEGIN FITTED WEIGHTS
// o200k_base: fitted on exact counts (benches/calibrate_tokens.py o200k),
// a Han character's cjk + rare_han capped at 3; held out: median error 3.4%,
// 91.3% of messages within 10%, summed 0.993; CJK prose median ratio 1.003
// (92.0% within 10%), compact JSON 1.000 (94.7%).
pub const O200K: Weights = Weights {
    cls: [
        0.0924, 0.5166, 0.0234, 1.5068, 0.1274, 0.5660, 0.1835, 0.3600, 0.7621, 0.6882, 0.6407,
        0.7880, 0.9538, 0.0000, 0.4957, 2.2379, 1.2872,
    ],
    block: 0.0,
    call: 0.0,
    result: 0.3029,
    message: 3,
    // an image whose size cannot be read (else tokens/media.rs): OpenAI's
    // price of a 1024x1024 image at high detail, 85 + 170 per 512-pixel tile
    image: 765,
    document: 3000,
};

// claude: fitted on billed prompt growth (benches/calibrate_tokens.py claude),
// scaled to a median ratio of 1.05 and a summed ratio of at least 1.0 on the
// fitted files (the summed asked more: x1.073); held out: median 1.097,
// summed 0.999, whole sessions (within one model, no compaction between)
// median 1.051 (11 sessions). The billed data holds no CJK and few other
// scripts: CJK, kana, Hangul, rare Han, other non-ASCII characters and digits
// are o200k's times 1.35, the ratio of Claude's tokens to o200k's on the same
// English text.
pub const CLAUDE: Weights = Weights {
    cls: [
        0.2473, 0.1751, 0.0316, 1.0791, 0.3580, 0.7312, 0.0000, 0.1428, 1.0288, 0.9291, 0.8649,
        1.0638, 6.2325, 10.3745, 0.3232, 3.0212, 1.3990,
    ],
    block: 0.0762,
    call: 24.8472,
    result: 24.8472,
    message: 4,
    // an image whose size cannot be read (else tokens/media.rs): Anthropic's
    // w*h/750 at its size limit, about 1,600
    image: 1600,
    document: 3000,
};

// gemini: no billed data; o200k's weights with every digit a token of its own
// (Gemini's SentencePiece splits numbers into digits).
pub const GEMINI: Weights = Weights {
    cls: [
        0.0924, 0.5166, 1.0, 0.0, 0.1274, 0.5660, 0.1835, 0.3600, 0.7621, 0.6882, 0.6407, 0.7880,
        0.9538, 0.0000, 0.4957, 2.2379, 1.2872,
    ],
    block: 0.0,
    call: 0.0,
    result: 0.3029,
    message: 3,
    // an image whose size cannot be read (else tokens/media.rs): one 768x768
    // tile, 258; 258 per PDF page
    image: 258,
    document: 258,
};
// END FITTED WEIGHTS

pub fn of(f: Family) -> &'static Weights {
    match f {
        Family::Claude => &CLAUDE,
        Family::O200k => &O200K,
        Family::Gemini => &GEMINI,
    }
}

/// The estimate of a message of cost `c` in family `f`: rounded up, and never
/// below what its media cost.
#[inline]
pub fn estimate(c: &Cost, f: Family) -> u64 {
    let w = of(f);
    let k = &c.cls;
    let x = [
        k.letters, k.words, k.digits, k.numbers, k.punct, k.puncts, k.spaces, k.newlines, k.cjk,
        k.kana, k.hangul, k.other, k.leaves, k.scalars, k.escapes, k.rare_han, k.gaps,
    ];
    let mut t: f64 = w.cls.iter().zip(x).map(|(w, n)| w * n as f64).sum();
    t += w.block * c.blocks as f64 + w.call * c.calls as f64 + w.result * c.results as f64;
    // images whose size was read cost what the family charges for it; the
    // others, the family's flat rate
    let flat = c.images.saturating_sub(u64::from(c.media.sized));
    (t.ceil().max(0.0) as u64)
        .saturating_add(flat.saturating_mul(w.image))
        .saturating_add(c.media.tokens(f))
        .saturating_add(c.documents.saturating_mul(w.document))
        .saturating_add(w.message)
}
