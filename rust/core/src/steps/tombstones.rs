//! §4 step 1: drop every tombstone and every record whose uuid a tombstone names.
//!
//! The records stay where they are: a record a tombstone names becomes a
//! tombstone itself, and step 3 ([`super::drop`]) takes every tombstone out in
//! the one pass it makes anyway. Until then a tombstone is neither an
//! attachment nor a stop, so step 2 moves the other records as if it were gone.

use crate::model::{Kind, Record};
use crate::report::Report;
use ahash::AHashSet as HashSet;

pub fn run<H>(recs: &mut [Record<'_, H>], report: &mut Report) {
    // one look at the records when there is no tombstone (the common case)
    if !recs.iter().any(|r| r.kind == Kind::Tombstone) {
        return;
    }
    let dead: HashSet<String> = recs
        .iter()
        .filter(|r| r.kind == Kind::Tombstone)
        .filter_map(|r| r.tombstone_of.as_deref().map(str::to_owned))
        .collect();
    let mut gone = 0;
    for r in recs.iter_mut() {
        if r.kind != Kind::Tombstone && r.uuid.as_deref().is_some_and(|u| dead.contains(u)) {
            r.kind = Kind::Tombstone;
        }
        gone += usize::from(r.kind == Kind::Tombstone);
    }
    report.tombstoned += gone;
}
