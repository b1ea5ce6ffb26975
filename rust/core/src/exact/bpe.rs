//! Byte-pair encoding counts of OpenAI's public encodings (`o200k_base`,
//! `cl100k_base`), read from their `.tiktoken` rank files at run time: the
//! tables are not part of the library.
//!
//! Text is split into pieces by the encoding's pattern, then each piece is
//! merged as tiktoken merges it (the adjacent pair of lowest rank first, the
//! leftmost of equal ranks). Only the number of tokens is kept.

use crate::error::{Error, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};
use std::collections::BinaryHeap;

type Rank = u32;
type Ranks = ahash::AHashMap<Vec<u8>, Rank>;

/// The encodings whose rank files [`Bpe::from_tiktoken`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
}

/// The letters of a word (`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` upper, `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` lower).
const O200K_UPPER: &str = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]";
const O200K_LOWER: &str = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]";
const O200K_SUFFIX: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?";

impl Encoding {
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name {
            "o200k_base" => Some(Encoding::O200kBase),
            "cl100k_base" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// How many ranks the encoding's file holds (special tokens are not in it).
    pub fn ranks(self) -> usize {
        match self {
            Encoding::O200kBase => 199_998,
            Encoding::Cl100kBase => 100_256,
        }
    }

    /// The encoding's split pattern with its last alternatives, `\s+(?!\S)`
    /// (and `\s` or `\s+`), written as one `\s+`: the look-ahead is applied
    /// by [`Splitter`]. tiktoken's possessive quantifiers are written plain:
    /// in these patterns a possessive and a greedy quantifier match the same
    /// (what follows each one cannot match what it gave back).
    fn pattern(self) -> String {
        match self {
            Encoding::O200kBase => format!(
                r"[^\r\n\p{{L}}\p{{N}}]?{u}*{l}+{s}|[^\r\n\p{{L}}\p{{N}}]?{u}+{l}*{s}|\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*|\s*[\r\n]+|\s+",
                u = O200K_UPPER,
                l = O200K_LOWER,
                s = O200K_SUFFIX
            ),
            Encoding::Cl100kBase => String::from(
                r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+",
            ),
        }
    }
}

/// An encoding's ranks and split pattern, built once and shared (it is `Sync`).
pub struct Bpe {
    encoding: Encoding,
    ranks: Ranks,
    split: Regex,
}

impl std::fmt::Debug for Bpe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bpe({})", self.encoding.name())
    }
}

impl Bpe {
    /// Reads a `.tiktoken` file (a line per token: its bytes in base64, a
    /// space, its rank) of `encoding`.
    pub fn from_tiktoken(encoding: Encoding, file: &[u8]) -> Result<Bpe> {
        let bad = |line: usize, what: &str| {
            Error::value(format!(
                "not a {} rank file: line {}: {what}",
                encoding.name(),
                line + 1
            ))
        };
        let mut ranks = Ranks::with_capacity(encoding.ranks());
        for (i, line) in file.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split(|&b| b == b' ');
            let (Some(token), Some(rank), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(bad(i, "expected a token and a rank"));
            };
            let token = STANDARD
                .decode(token)
                .map_err(|_| bad(i, "the token is not base64"))?;
            let rank: Rank = std::str::from_utf8(rank)
                .ok()
                .and_then(|r| r.trim_end_matches('\r').parse().ok())
                .ok_or_else(|| bad(i, "the rank is not a number"))?;
            if token.is_empty() || rank == Rank::MAX || ranks.insert(token, rank).is_some() {
                return Err(bad(i, "an empty, repeated or out-of-range token"));
            }
        }
        if ranks.len() != encoding.ranks() {
            return Err(Error::value(format!(
                "not the {} rank file: {} tokens, expected {}",
                encoding.name(),
                ranks.len(),
                encoding.ranks()
            )));
        }
        let split = Regex::new(&encoding.pattern()).map_err(|e| Error::value(e.to_string()))?;
        Ok(Bpe {
            encoding,
            ranks,
            split,
        })
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The number of tokens of `text` (tiktoken's `len(encode_ordinary(text))`).
    pub fn count(&self, text: &str) -> u64 {
        let mut n = 0u64;
        for piece in Splitter::new(&self.split, text) {
            let piece = piece.as_bytes();
            n += if self.ranks.contains_key(piece) {
                1
            } else {
                merged_len(&self.ranks, piece) as u64
            };
        }
        n
    }
}

/// The pieces of a text, as the encoding's pattern (with `\s+(?!\S)`) splits it.
struct Splitter<'r, 't> {
    re: &'r Regex,
    text: &'t str,
    at: usize,
}

impl<'r, 't> Splitter<'r, 't> {
    fn new(re: &'r Regex, text: &'t str) -> Self {
        Splitter { re, text, at: 0 }
    }
}

impl<'t> Iterator for Splitter<'_, 't> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.at >= self.text.len() {
            return None;
        }
        // Every character starts a piece of these patterns, so the next piece
        // starts where the last ended: an anchored search (no reverse scan
        // for the start). Were nothing to match there, the text up to the next
        // match is passed over, as an unanchored search does.
        let from = Input::new(self.text).range(self.at..);
        let m = self
            .re
            .find(from.clone().anchored(Anchored::Yes))
            .or_else(|| self.re.find(from))?;
        let (start, mut end) = (m.start(), m.end());
        let s = &self.text[start..end];
        // A run of white space matched by the last alternative (`\s+`): no
        // other alternative matches only white space without a line break.
        // Before a non-space character, `\s+(?!\S)` leaves the run's last
        // character to the next piece, unless the run is that one character.
        if end < self.text.len() && !s.contains(['\r', '\n']) && s.chars().all(char::is_whitespace)
        {
            let last = s.chars().next_back().map_or(0, char::len_utf8);
            if s.len() > last {
                end -= last;
            }
        }
        self.at = end;
        Some(&self.text[start..end])
    }
}

/// Pieces at least this long merge through a heap (`O(n log n)`) rather than
/// by scanning every pair for each merge (`O(n²)`, faster for short pieces).
const LARGE: usize = 128;

/// The number of tokens `piece` (not itself a token) merges into.
fn merged_len(ranks: &Ranks, piece: &[u8]) -> usize {
    if piece.len() < 2 {
        return piece.len();
    }
    if piece.len() >= LARGE {
        return merged_len_large(ranks, piece);
    }
    let rank = |a: usize, b: usize| ranks.get(&piece[a..b]).copied().unwrap_or(Rank::MAX);
    // parts[i] = (start of part i, rank of part i joined with part i + 1);
    // the last entry is the end of the piece.
    let mut parts: Vec<(usize, Rank)> = (0..piece.len() - 1).map(|i| (i, rank(i, i + 2))).collect();
    parts.push((piece.len() - 1, Rank::MAX));
    parts.push((piece.len(), Rank::MAX));
    // the rank of part i joined with part i + 1 once i + 1 and i + 2 are one part
    let joined = |parts: &[(usize, Rank)], i: usize| {
        if i + 3 < parts.len() {
            rank(parts[i].0, parts[i + 3].0)
        } else {
            Rank::MAX
        }
    };
    loop {
        let (mut best, mut at) = (Rank::MAX, 0);
        for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < best {
                (best, at) = (r, i);
            }
        }
        if best == Rank::MAX {
            break;
        }
        if at > 0 {
            parts[at - 1].1 = joined(&parts, at - 1);
        }
        parts[at].1 = joined(&parts, at);
        parts.remove(at + 1);
    }
    parts.len() - 1
}

/// [`merged_len`] of a long piece: the same merges in the same order (lowest
/// rank, then leftmost), the candidates in a heap, parts in a linked list.
fn merged_len_large(ranks: &Ranks, piece: &[u8]) -> usize {
    let n = piece.len();
    let rank = |a: usize, b: usize| ranks.get(&piece[a..b]).copied().unwrap_or(Rank::MAX);
    // part starting at byte i: next part's start (n at the end), previous
    // part's start (usize::MAX at the beginning), rank of it joined with the next
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut pair: Vec<Rank> = vec![Rank::MAX; n];
    let mut alive = vec![true; n];
    let mut heap = BinaryHeap::with_capacity(n);
    for (i, p) in pair.iter_mut().enumerate().take(n - 1) {
        *p = rank(i, i + 2);
        if *p != Rank::MAX {
            heap.push(std::cmp::Reverse((*p, i)));
        }
    }
    let mut parts = n;
    while let Some(std::cmp::Reverse((r, i))) = heap.pop() {
        if !alive[i] || pair[i] != r {
            continue; // stale: the part changed since this was pushed
        }
        let j = next[i];
        alive[j] = false;
        next[i] = next[j];
        if next[i] < n {
            prev[next[i]] = i;
        }
        parts -= 1;
        let end_of_next = |k: usize| if next[k] < n { next[next[k]] } else { n + 1 };
        for k in [prev[i], i] {
            if k == usize::MAX {
                continue;
            }
            let e = end_of_next(k);
            pair[k] = if e <= n { rank(k, e) } else { Rank::MAX };
            if pair[k] != Rank::MAX {
                heap.push(std::cmp::Reverse((pair[k], k)));
            }
        }
    }
    parts
}

#[cfg(test)]
#[path = "bpe_tests.rs"]
mod tests;
