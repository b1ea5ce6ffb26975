//! SPEC §6: the weights of each tokenizer family's calibrated estimate, as
//! `benches/calibrate_tokens.py` fitted them (its output is pasted here).

use super::Family;
use crate::model::Cost;

/// A family's estimate: tokens per character class, per block, tool call and
/// tool result, per message, and per image (whose size cannot be read) and document.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// letters, words, digits, numbers, punct, puncts, spaces, newlines, cjk, other, leaves, scalars
    pub cls: [f64; 12],
    pub block: f64,
    pub call: f64,
    pub result: f64,
    pub message: u64,
    pub image: u64,
    pub document: u64,
}

// BEGIN FITTED WEIGHTS
// o200k_base: fitted on exact counts (benches/calibrate_tokens.py o200k);
// held out: median error 6.0%, 78% of messages within 10%, summed 1.013.
pub const O200K: Weights = Weights {
    cls: [
        0.0449, 0.7544, 0.0633, 1.3206, 0.0795, 0.6701, 0.0000, 2.0320, 0.7324, 1.8913, 1.2187,
        0.0000,
    ],
    block: 0.0,
    call: 2.4550,
    result: 0.0794,
    message: 3,
    // an image whose size cannot be read (else tokens/media.rs): OpenAI's
    // price of a 1024x1024 image at high detail, 85 + 170 per 512-pixel tile
    image: 765,
    document: 3000,
};

// claude: fitted on billed prompt growth (benches/calibrate_tokens.py claude),
// scaled to a median ratio of 1.05; held out: median 1.045, summed 0.943.
// The billed data holds no CJK: CJK and digits are o200k's times 1.35, the
// ratio of Claude's tokens to o200k's on the same English text.
pub const CLAUDE: Weights = Weights {
    cls: [
        0.1893, 0.2035, 0.0855, 1.0923, 0.2693, 1.0259, 0.0000, 1.4171, 0.9887, 1.7325, 6.1297,
        10.0511,
    ],
    block: 2.6999,
    call: 21.5659,
    result: 21.5659,
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
        0.0449, 0.7544, 1.0, 0.0, 0.0795, 0.6701, 0.0000, 2.0320, 0.7324, 1.8913, 1.2187, 0.0000,
    ],
    block: 0.0,
    call: 2.4550,
    result: 0.0794,
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
        k.other, k.leaves, k.scalars,
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
