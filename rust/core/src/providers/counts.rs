//! What the output adapters changed or could not carry, counted by rule name.

use std::collections::BTreeMap;

/// What the output adapters changed or could not carry, by rule name.
pub type Counts = BTreeMap<&'static str, u64>;

pub fn count(c: &mut Counts, k: &'static str) {
    *c.entry(k).or_insert(0) += 1;
}

/// `more` added into `c`.
pub fn add_counts(c: &mut Counts, more: Counts) {
    for (k, n) in more {
        *c.entry(k).or_insert(0) += n;
    }
}
