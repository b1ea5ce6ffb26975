//! SPEC §6: approximate token counts from the costs the backends gathered.

use crate::error::{Error, Result};
use crate::model::Record;

#[derive(Clone, Copy, Debug)]
pub struct CountParams {
    pub chars_per_token: f64,
    pub tokens_per_message: u64,
    pub tokens_per_image: u64,
    pub tokens_per_document: u64,
}

impl Default for CountParams {
    fn default() -> Self {
        CountParams {
            chars_per_token: 4.0,
            tokens_per_message: 3,
            tokens_per_image: 1600,
            tokens_per_document: 3000,
        }
    }
}

impl CountParams {
    pub fn check(&self) -> Result<()> {
        if !(self.chars_per_token.is_finite() && self.chars_per_token > 0.0) {
            return Err(Error::value(format!(
                "chars_per_token must be a finite number > 0, not {}",
                self.chars_per_token
            )));
        }
        Ok(())
    }
}

/// Tokens of each record: 0 for non-messages, else
/// `ceil(chars / chars_per_token) + fixed + tokens_per_message`.
pub fn per_record<H>(recs: &[Record<'_, H>], p: &CountParams) -> Result<Vec<u64>> {
    p.check()?;
    Ok(recs.iter().map(|r| record_tokens(r, p)).collect())
}

/// [`per_record`] of one record; `p` must be valid ([`CountParams::check`]).
#[inline]
pub fn record_tokens<H>(r: &Record<'_, H>, p: &CountParams) -> u64 {
    if !r.kind.is_message() {
        return 0;
    }
    let c = r.cost;
    let text = (c.chars as f64 / p.chars_per_token).ceil() as u64;
    text.saturating_add(c.images.saturating_mul(p.tokens_per_image))
        .saturating_add(c.documents.saturating_mul(p.tokens_per_document))
        .saturating_add(p.tokens_per_message)
}
