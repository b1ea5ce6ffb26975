//! §4 step 1: drop every tombstone and every record whose uuid a tombstone names.

use crate::model::{Kind, Record};
use crate::report::Report;
use ahash::AHashSet as HashSet;

pub fn run<'a, H>(recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    // one look at the records when there is no tombstone (the common case)
    if !recs.iter().any(|r| r.kind == Kind::Tombstone) {
        return recs;
    }
    let dead: HashSet<String> = recs
        .iter()
        .filter(|r| r.kind == Kind::Tombstone)
        .filter_map(|r| r.tombstone_of.as_deref().map(str::to_owned))
        .collect();
    let before = recs.len();
    let out: Vec<_> = recs
        .into_iter()
        .filter(|r| {
            r.kind != Kind::Tombstone && !r.uuid.as_deref().is_some_and(|u| dead.contains(u))
        })
        .collect();
    report.tombstoned += before - out.len();
    out
}
