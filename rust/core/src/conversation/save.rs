//! The saved form of a [`Conversation`] ([`Conversation::to_bytes`],
//! [`Conversation::from_bytes`]): a versioned binary format of the
//! conversation's plain data. Little-endian, length-prefixed fields (the
//! body) after a header line naming the version, and a CRC-32 at the end.
//!
//! - Version 3: the body compressed (LZ4 block; the body holds the input's
//!   and the output's JSON, which compress several times over), after its
//!   length; the CRC-32 covers the length and the compressed bytes.
//! - Version 2 (the body as it is) and version 1 (saved before
//!   context-editing policies, read as having none) still load.

use super::fields::{corrupt, Reader, Writer};
use super::{policy, Conversation, Settings, Texts};
use crate::error::Result;
use crate::tokens::{Family, Tokenizer};
use crate::CountParams;

const MAGIC: &[u8] = b"msgnorm-conversation/3\n";
/// Conversations saved before the body was compressed.
const MAGIC_V2: &[u8] = b"msgnorm-conversation/2\n";
/// LZ4 expands a block at most this many times (a length claimed beyond it is
/// damage, not a reason to allocate).
const MAX_EXPANSION: usize = 256;
/// Conversations saved before context-editing policies: read as having none.
const MAGIC_V1: &[u8] = b"msgnorm-conversation/1\n";

/// What precedes the CRC-32 at the end of `rest`, if the CRC matches.
fn checked(rest: &[u8]) -> Result<&[u8]> {
    let (body, crc) = rest
        .split_at_checked(rest.len().saturating_sub(8))
        .ok_or_else(|| corrupt("truncated"))?;
    let mut sum = [0u8; 8];
    sum.copy_from_slice(crc.get(..8).ok_or_else(|| corrupt("truncated"))?);
    if u64::from_le_bytes(sum) != u64::from(crc32fast::hash(body)) {
        return Err(corrupt("the checksum does not match"));
    }
    Ok(body)
}

impl Conversation {
    /// The conversation as plain data, for [`Conversation::from_bytes`] (a server
    /// can keep it between requests). The open tail is normalized again on load.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = self.body();
        let packed = lz4_flex::block::compress(&body);
        let mut w = Writer(Vec::with_capacity(MAGIC.len() + packed.len() + 16));
        w.0.extend_from_slice(MAGIC);
        w.usize(body.len());
        drop(body);
        w.0.extend_from_slice(&packed);
        drop(packed);
        let crc = crc32fast::hash(&w.0[MAGIC.len()..]);
        w.u64(u64::from(crc));
        w.0
    }

    /// The plain data, as version 2 saved it (without its header and CRC).
    fn body(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        let s = &self.settings;
        w.u64(u64::from(s.strict));
        match s.max_media {
            Some(m) => {
                w.u64(1);
                w.usize(m);
            }
            None => w.u64(0),
        }
        w.u64(u64::from(s.short_ids));
        // The tokenizer rides in the bits above this flag (0: the §6
        // formula, as every earlier save counted).
        w.u64(u64::from(s.ensure_user_first) | tokenizer_code(s.count.tokenizer) << 8);
        w.usize(s.templates.len());
        for (k, v) in &s.templates {
            w.bytes(k.as_bytes());
            w.opt_str(v.as_deref());
        }
        w.u64(s.count.chars_per_token.to_bits());
        w.u64(s.count.tokens_per_message);
        w.u64(s.count.tokens_per_image);
        w.u64(s.count.tokens_per_document);
        w.texts(&self.input);
        w.usize(self.settled_in);
        w.texts(&self.out);
        for &c in &self.costs {
            w.u64(c);
        }
        for &t in &self.turn {
            w.u64(u64::from(t));
        }
        w.usize(self.media_before_last);
        w.usize(self.media_last);
        w.strings(self.tool_use_ids.iter());
        w.strings(self.uuids.iter());
        w.strings(self.point_uuids.iter());
        w.strings(self.tombstoned.iter());
        w.usize(self.marks.len());
        for &m in &self.marks {
            w.usize(m);
        }
        w.usize(self.rewrites);
        policy::write(&mut w, self.edited.as_deref());
        w.0
    }

    /// A conversation saved by [`Conversation::to_bytes`]; damaged data is an error.
    pub fn from_bytes(data: &[u8]) -> Result<Conversation> {
        if let Some(rest) = data.strip_prefix(MAGIC) {
            let mut r = Reader {
                b: checked(rest)?,
                pos: 0,
            };
            let len = r.usize()?;
            let packed = &r.b[r.pos..];
            if len > packed.len().saturating_mul(MAX_EXPANSION) {
                return Err(corrupt("the length of the compressed data"));
            }
            let body = lz4_flex::block::decompress(packed, len)
                .map_err(|_| corrupt("the compressed data"))?;
            if body.len() != len {
                return Err(corrupt("the length of the compressed data"));
            }
            return Conversation::parse(&body, false);
        }
        if let Some(rest) = data.strip_prefix(MAGIC_V2) {
            return Conversation::parse(checked(rest)?, false);
        }
        let rest = data
            .strip_prefix(MAGIC_V1)
            .ok_or_else(|| corrupt("it does not start with the msgnorm header"))?;
        Conversation::parse(checked(rest)?, true)
    }

    /// The conversation of a body (version 2's layout, or version 1's).
    fn parse(body: &[u8], v1: bool) -> Result<Conversation> {
        let mut r = Reader { b: body, pos: 0 };
        let strict = r.flag()?;
        let max_media = if r.flag()? { Some(r.usize()?) } else { None };
        let short_ids = r.flag()?;
        let (ensure_user_first, tokenizer) = {
            let v = r.u64()?;
            let t = tokenizer_of_code(v >> 8);
            match (v & 0xff, t) {
                (0 | 1, Some(t)) => (v & 1 == 1, t),
                _ => return Err(corrupt("a flag")),
            }
        };
        let nt = r.count(16)?;
        let mut templates = Vec::with_capacity(nt);
        for _ in 0..nt {
            templates.push((r.string()?, r.opt_str()?));
        }
        let count = CountParams {
            chars_per_token: f64::from_bits(r.u64()?),
            tokens_per_message: r.u64()?,
            tokens_per_image: r.u64()?,
            tokens_per_document: r.u64()?,
            tokenizer,
        };
        let settings = Settings {
            strict,
            max_media,
            short_ids,
            ensure_user_first,
            templates,
            count,
        };
        let mut c = Conversation::new(settings)?;
        c.input = if v1 {
            // Saved as JSON Lines: each record on its own line.
            let lines = r.texts('\n')?;
            let mut t = Texts::array();
            for i in 0..lines.len() {
                t.push(lines.get(i));
            }
            t
        } else {
            r.texts(',')?
        };
        c.settled_in = r.usize()?;
        c.out = r.texts(',')?;
        let n = c.out.len();
        if c.settled_in > c.input.len() || n > 0 && c.settled_in == 0 {
            return Err(corrupt("the settled part"));
        }
        if n.saturating_mul(16) > body.len() {
            return Err(corrupt("a count larger than the data"));
        }
        c.costs = (0..n).map(|_| r.u64()).collect::<Result<_>>()?;
        c.turn = (0..n).map(|_| r.flag()).collect::<Result<_>>()?;
        c.media_before_last = r.usize()?;
        c.media_last = r.usize()?;
        // not saved: assumed while a limit is set (at worst a tombstone rewrites)
        c.media_omitted = c.opts.max_media.is_some();
        c.tool_use_ids = r.strings()?.into_iter().collect();
        c.uuids = r.strings()?.into_iter().collect();
        if !v1 {
            c.point_uuids = r.strings()?;
        }
        c.tombstoned = r.strings()?;
        let nm = r.count(8)?;
        c.marks = (0..nm).map(|_| r.usize()).collect::<Result<_>>()?;
        if c.marks.iter().any(|&m| m > n) {
            return Err(corrupt("the settled marks"));
        }
        c.rewrites = r.usize()?;
        if !v1 {
            c.edited = policy::read(&mut r, n, c.marks.len(), c.rewrites)?;
        }
        if r.pos != body.len() {
            return Err(corrupt("data after the end"));
        }
        Ok(c)
    }
}

/// The code of a tokenizer in a save.
fn tokenizer_code(t: Tokenizer) -> u64 {
    match t {
        Tokenizer::Chars => 0,
        Tokenizer::Auto => 1,
        Tokenizer::Family(Family::Claude) => 2,
        Tokenizer::Family(Family::O200k) => 3,
        Tokenizer::Family(Family::Gemini) => 4,
        Tokenizer::Cl100k => 5,
    }
}

fn tokenizer_of_code(c: u64) -> Option<Tokenizer> {
    [
        Tokenizer::Chars,
        Tokenizer::Auto,
        Tokenizer::Family(Family::Claude),
        Tokenizer::Family(Family::O200k),
        Tokenizer::Family(Family::Gemini),
    ]
    .into_iter()
    .find(|&t| tokenizer_code(t) == c)
}
