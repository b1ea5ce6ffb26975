//! SPEC §7: the safe cut-off, trimming and the summary split, in linear time.

use crate::error::{Error, Result};
use crate::model::{BlockKind, Kind, Record};
use crate::steps::fold::user_merge;

/// A user record with no tool_result block.
pub fn is_turn_start<H>(r: &Record<'_, H>) -> bool {
    r.kind == Kind::User
        && !r
            .content
            .blocks()
            .iter()
            .any(|b| b.kind == BlockKind::ToolResult)
}

/// The smallest `k >= pin` with `k == pin` or `records[k]` a turn start such that the
/// first `pin` records plus `records[k..]` cost at most `max_tokens`.
pub fn find_cutoff(
    costs: &[u64],
    turn_start: &[bool],
    max_tokens: u64,
    pin: usize,
) -> Result<usize> {
    let n = costs.len();
    if pin > n {
        return Err(Error::value(format!(
            "pin must satisfy 0 <= pin <= len(records) = {n}, not {pin}"
        )));
    }
    let pinned: u64 = costs[..pin].iter().fold(0u64, |a, &c| a.saturating_add(c));
    // Tokens of records[k..], walked from k = pin upwards.
    let mut suffix: u64 = costs[pin..].iter().fold(0u64, |a, &c| a.saturating_add(c));
    for k in pin..=n {
        if (k == pin || (k < n && turn_start[k])) && pinned.saturating_add(suffix) <= max_tokens {
            return Ok(k);
        }
        if k < n {
            suffix -= costs[k].min(suffix);
        }
    }
    Err(Error::Budget {
        msg: format!(
            "no safe cut-off fits {max_tokens} tokens: the {pin} pinned records cost {pinned} and no \
             suffix starting at a user turn fits beside them"
        ),
    })
}

/// `records[..pin] + records[k..]`, user-merging the two records at the joint
/// when something was cut and both are user records.
pub fn trim<'a, H>(recs: Vec<Record<'a, H>>, pin: usize, k: usize) -> Vec<Record<'a, H>> {
    let pin = pin.min(recs.len());
    let k = k.max(pin);
    let mut out: Vec<Record<'a, H>> = Vec::with_capacity(pin + recs.len() - k);
    for (i, r) in recs.into_iter().enumerate() {
        if i < pin {
            out.push(r);
        } else if i >= k {
            if i == k && k > pin && pin > 0 && r.kind == Kind::User {
                if let Some(prev) = out.last_mut() {
                    if prev.kind == Kind::User {
                        user_merge(prev, r, true);
                        continue;
                    }
                }
            }
            out.push(r);
        }
    }
    out
}
