//! The save format's fields ([`super::save`]): little-endian,
//! length-prefixed numbers, bytes and strings, written by [`Writer`] and read
//! back by [`Reader`], which names the damage it meets ([`corrupt`]).

use super::texts::Texts;
use crate::error::{Error, Result};

/// Little-endian, length-prefixed fields: the conversation's plain data.
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.usize(b.len());
        self.0.extend_from_slice(b);
    }
    pub(super) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u64(1);
                self.bytes(s.as_bytes());
            }
            None => self.u64(0),
        }
    }
    pub(super) fn texts(&mut self, t: &Texts) {
        self.bytes(t.sealed().as_bytes());
        self.usize(t.starts.len());
        for &s in &t.starts {
            self.usize(s);
        }
    }
    pub(super) fn strings<'x>(&mut self, items: impl ExactSizeIterator<Item = &'x String>) {
        self.usize(items.len());
        for s in items {
            self.bytes(s.as_bytes());
        }
    }
}

pub(super) struct Reader<'b> {
    pub(super) b: &'b [u8],
    pub(super) pos: usize,
}

pub(super) fn corrupt(what: &str) -> Error {
    Error::value(format!(
        "not a saved msgnorm conversation (or a damaged one): {what}"
    ))
}

impl<'b> Reader<'b> {
    pub(super) fn u64(&mut self) -> Result<u64> {
        let end = self.pos.checked_add(8).ok_or_else(|| corrupt("length"))?;
        let raw = self
            .b
            .get(self.pos..end)
            .ok_or_else(|| corrupt("truncated"))?;
        self.pos = end;
        let mut a = [0u8; 8];
        a.copy_from_slice(raw);
        Ok(u64::from_le_bytes(a))
    }
    pub(super) fn usize(&mut self) -> Result<usize> {
        usize::try_from(self.u64()?).map_err(|_| corrupt("a number out of range"))
    }
    pub(super) fn flag(&mut self) -> Result<bool> {
        match self.u64()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("a flag")),
        }
    }
    pub(super) fn bytes(&mut self) -> Result<&'b [u8]> {
        let n = self.usize()?;
        let end = self.pos.checked_add(n).ok_or_else(|| corrupt("length"))?;
        let raw = self
            .b
            .get(self.pos..end)
            .ok_or_else(|| corrupt("truncated"))?;
        self.pos = end;
        Ok(raw)
    }
    pub(super) fn string(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| corrupt("text is not UTF-8"))
    }
    pub(super) fn opt_str(&mut self) -> Result<Option<String>> {
        if self.flag()? {
            Ok(Some(self.string()?))
        } else {
            Ok(None)
        }
    }
    pub(super) fn count(&mut self, each: usize) -> Result<usize> {
        let n = self.usize()?;
        if n.saturating_mul(each) > self.b.len() - self.pos.min(self.b.len()) {
            return Err(corrupt("a count larger than the data"));
        }
        Ok(n)
    }
    pub(super) fn texts(&mut self, sep: char) -> Result<Texts> {
        let text = self.string()?;
        let n = self.count(8)?;
        let mut starts = Vec::with_capacity(n);
        for _ in 0..n {
            starts.push(self.usize()?);
        }
        let b = text.as_bytes();
        let lead = usize::from(sep == ',');
        let ok = starts.first() == Some(&lead)
            && text.get(..lead) == Some(if lead == 1 { "[" } else { "" })
            && starts.last() == Some(&text.len())
            && starts
                .windows(2)
                .all(|w| w[0] < w[1] && b.get(w[1] - 1) == Some(&(sep as u8)))
            && starts.iter().all(|&s| text.is_char_boundary(s));
        if !ok {
            return Err(corrupt("record offsets"));
        }
        Ok(Texts { text, starts, sep })
    }
    pub(super) fn strings(&mut self) -> Result<Vec<String>> {
        let n = self.count(8)?;
        (0..n).map(|_| self.string()).collect()
    }
}
