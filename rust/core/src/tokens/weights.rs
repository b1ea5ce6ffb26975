//! SPEC §6: the weights of each tokenizer family's calibrated estimate, as
//! `benches/calibrate_tokens.py` fitted them (its output is pasted here).

use super::Family;
use crate::model::Cost;

/// A family's estimate: tokens per character class, per block, tool call and
/// tool result, per message, and per image and document.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// letters, words, digits, punct, spaces, newlines, cjk, other, leaves, scalars
    pub cls: [f64; 10],
    pub block: f64,
    pub call: f64,
    pub result: f64,
    pub message: u64,
    pub image: u64,
    pub document: u64,
}

// BEGIN FITTED WEIGHTS
pub const O200K: Weights = Weights {
    cls: [0.02, 0.95, 0.34, 0.75, 0.12, 0.6, 0.85, 0.6, 1.0, 0.0],
    block: 0.0,
    call: 1.0,
    result: 0.0,
    message: 3,
    image: 765,
    document: 3000,
};

pub const CLAUDE: Weights = Weights {
    cls: [0.03, 1.1, 0.5, 0.9, 0.15, 0.7, 1.2, 0.8, 1.2, 0.0],
    block: 3.0,
    call: 10.0,
    result: 5.0,
    message: 4,
    image: 1600,
    document: 3000,
};

pub const GEMINI: Weights = Weights {
    cls: [0.02, 1.0, 1.0, 0.8, 0.12, 0.6, 0.9, 0.6, 1.0, 0.0],
    block: 0.0,
    call: 2.0,
    result: 2.0,
    message: 4,
    image: 258,
    document: 3000,
};
// END FITTED WEIGHTS

pub fn of(f: Family) -> &'static Weights {
    match f {
        Family::Claude => &CLAUDE,
        Family::O200k => &O200K,
        Family::Gemini => &GEMINI,
    }
}

/// The estimate of a message of cost `c` under `w`: rounded up, and never
/// below what its media cost.
#[inline]
pub fn estimate(c: &Cost, w: &Weights) -> u64 {
    let k = &c.cls;
    let x = [
        k.letters, k.words, k.digits, k.punct, k.spaces, k.newlines, k.cjk, k.other, k.leaves,
        k.scalars,
    ];
    let mut t = 0.0;
    for i in 0..10 {
        t += w.cls[i] * x[i] as f64;
    }
    t += w.block * c.blocks as f64 + w.call * c.calls as f64 + w.result * c.results as f64;
    (t.ceil().max(0.0) as u64)
        .saturating_add(c.images.saturating_mul(w.image))
        .saturating_add(c.documents.saturating_mul(w.document))
        .saturating_add(w.message)
}
