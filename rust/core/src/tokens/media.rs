//! SPEC §6.2: an image's tokens from its size, per tokenizer family. The size
//! is read from the PNG, JPEG, GIF or WebP header at the start of a base64
//! `source.data`: only the few base64 characters that hold the bytes asked
//! for are decoded (a JPEG's segments are stepped over, not decoded), so the
//! cost does not grow with the image.

use crate::model::{Family, ImageCost};

/// How many bytes into the image a header is looked for (a JPEG's frame
/// header may follow large metadata segments).
const MAX_OFFSET: usize = 1 << 20;
/// How many JPEG segments are stepped over before giving up.
const MAX_SEGMENTS: usize = 256;

/// The decoded bytes of a base64 text, read at random: byte `i` decodes the
/// one group of four characters that holds it.
struct B64<'s> {
    s: &'s [u8],
}

#[inline]
fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

impl B64<'_> {
    /// Byte `i`; `None` past the end or at a character that is not base64
    /// (padding, whitespace: a header is not read through them).
    fn byte(&self, i: usize) -> Option<u8> {
        let q = i / 3;
        let at = q.checked_mul(4)?;
        let g = self.s.get(at..at.checked_add(4)?)?;
        let need = i % 3 + 2; // characters of the group that byte `i` needs
        let mut v: u32 = 0;
        for &c in &g[..need] {
            v = (v << 6) | sextet(c)?;
        }
        v <<= 6 * (4 - need) as u32;
        Some((v >> (16 - 8 * (i % 3))) as u8)
    }
    fn bytes<const N: usize>(&self, i: usize) -> Option<[u8; N]> {
        let mut out = [0u8; N];
        for (k, b) in out.iter_mut().enumerate() {
            *b = self.byte(i.checked_add(k)?)?;
        }
        Some(out)
    }
    fn be16(&self, i: usize) -> Option<u32> {
        self.bytes::<2>(i).map(|b| u32::from(u16::from_be_bytes(b)))
    }
    fn le16(&self, i: usize) -> Option<u32> {
        self.bytes::<2>(i).map(|b| u32::from(u16::from_le_bytes(b)))
    }
    fn le24(&self, i: usize) -> Option<u32> {
        self.bytes::<3>(i)
            .map(|b| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
    }
}

/// `(width, height)` of the PNG, JPEG, GIF or WebP image whose base64 text is
/// `data`; `None` when no header of these is found or it is cut short, or a
/// side is 0.
pub fn image_size(data: &str) -> Option<(u32, u32)> {
    let b = B64 { s: data.as_bytes() };
    let head = b.bytes::<4>(0)?;
    let (w, h) = match head {
        [0x89, b'P', b'N', b'G'] => {
            // signature (8), IHDR length and type (8), then width, height
            if &b.bytes::<4>(12)? != b"IHDR" {
                return None;
            }
            let w = u32::from_be_bytes(b.bytes::<4>(16)?);
            let h = u32::from_be_bytes(b.bytes::<4>(20)?);
            (w, h)
        }
        [b'G', b'I', b'F', b'8'] => (b.le16(6)?, b.le16(8)?),
        [0xFF, 0xD8, 0xFF, _] => jpeg(&b)?,
        [b'R', b'I', b'F', b'F'] => webp(&b)?,
        _ => return None,
    };
    (w > 0 && h > 0).then_some((w, h))
}

/// A JPEG's frame header (SOF0..SOF15 but DHT, JPG, DAC): its segments are
/// stepped over by their lengths.
fn jpeg(b: &B64<'_>) -> Option<(u32, u32)> {
    let mut i = 2usize;
    for _ in 0..MAX_SEGMENTS {
        if i > MAX_OFFSET || b.byte(i)? != 0xFF {
            return None;
        }
        // fill bytes before a marker
        let mut m = b.byte(i + 1)?;
        while m == 0xFF {
            i += 1;
            if i > MAX_OFFSET {
                return None;
            }
            m = b.byte(i + 1)?;
        }
        i += 2;
        match m {
            // markers without a length
            0x01 | 0xD0..=0xD7 => continue,
            0xD8..=0xDA => return None,
            0xC0..=0xCF if !matches!(m, 0xC4 | 0xC8 | 0xCC) => {
                // length (2), precision (1), height (2), width (2)
                return Some((b.be16(i + 5)?, b.be16(i + 3)?));
            }
            _ => {
                let len = b.be16(i)? as usize;
                if len < 2 {
                    return None;
                }
                i += len;
            }
        }
    }
    None
}

/// A WebP's size from its first chunk: lossy (`VP8 `), lossless (`VP8L`) or
/// extended (`VP8X`, the canvas).
fn webp(b: &B64<'_>) -> Option<(u32, u32)> {
    if &b.bytes::<4>(8)? != b"WEBP" {
        return None;
    }
    match &b.bytes::<4>(12)? {
        b"VP8 " => {
            // chunk size (4), frame tag (3), start code 9d 01 2a, then 14-bit sides
            if b.bytes::<3>(23)? != [0x9D, 0x01, 0x2A] {
                return None;
            }
            Some((b.le16(26)? & 0x3FFF, b.le16(28)? & 0x3FFF))
        }
        b"VP8L" => {
            if b.byte(20)? != 0x2F {
                return None;
            }
            let v = u32::from_le_bytes(b.bytes::<4>(21)?);
            Some(((v & 0x3FFF) + 1, ((v >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((b.le24(24)? + 1, b.le24(27)? + 1)),
        _ => None,
    }
}

/// `(w, h)` scaled by `s` (< 1), each side at least 1 pixel.
fn scaled(w: u32, h: u32, s: f64) -> (f64, f64) {
    (
        (w as f64 * s).floor().max(1.0),
        (h as f64 * s).floor().max(1.0),
    )
}

/// Anthropic ("Vision"): an image whose long edge is over 1,568 pixels is
/// scaled down to it, keeping its aspect; then `w * h / 750` tokens, at most
/// ~1,600 (a larger image is scaled down to that size).
pub fn claude_tokens(w: u32, h: u32) -> u32 {
    let long = w.max(h) as f64;
    let (w, h) = if long > 1568.0 {
        scaled(w, h, 1568.0 / long)
    } else {
        (w as f64, h as f64)
    };
    ((w * h / 750.0).ceil() as u32).min(1600)
}

/// OpenAI (detail `high` or `auto`): fitted within 2048x2048, then scaled so
/// the short side is at most 768; 85 + 170 per 512-pixel tile. `low`: 85.
pub fn o200k_tokens(w: u32, h: u32, low: bool) -> u32 {
    if low {
        return 85;
    }
    let (mut w, mut h) = (w as f64, h as f64);
    let long = w.max(h);
    if long > 2048.0 {
        let s = 2048.0 / long;
        (w, h) = ((w * s).floor().max(1.0), (h * s).floor().max(1.0));
    }
    let short = w.min(h);
    if short > 768.0 {
        let s = 768.0 / short;
        (w, h) = ((w * s).floor().max(1.0), (h * s).floor().max(1.0));
    }
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    85 + 170 * tiles as u32
}

/// Gemini: 258 when both sides are at most 384 pixels, else 258 per
/// 768x768 tile.
pub fn gemini_tokens(w: u32, h: u32) -> u32 {
    if w <= 384 && h <= 384 {
        return 258;
    }
    let tiles = u64::from(w.div_ceil(768)) * u64::from(h.div_ceil(768));
    u32::try_from(tiles.saturating_mul(258)).unwrap_or(u32::MAX)
}

/// The cost of one image of `(w, h)` pixels; `low`: OpenAI's `detail: "low"`.
pub fn image_cost(w: u32, h: u32, low: bool) -> ImageCost {
    let mut tokens = [0u32; 3];
    tokens[Family::Claude as usize] = claude_tokens(w, h);
    tokens[Family::O200k as usize] = o200k_tokens(w, h, low);
    tokens[Family::Gemini as usize] = gemini_tokens(w, h);
    ImageCost { sized: 1, tokens }
}

#[cfg(test)]
#[path = "media_tests.rs"]
mod tests;
