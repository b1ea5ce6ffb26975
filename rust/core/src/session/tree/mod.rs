//! The `parentUuid` tree of a pool of session records: leaf choice, chain
//! walk, compaction cut, parallel tool-turn recovery and the list of threads.
//!
//! The main thread is chosen the way Claude Code resumes a session (and the
//! official Agent SDK's `get_session_messages` reads it): every terminal
//! record (no record names it as parent) leads to its nearest user/assistant
//! ancestor, a *leaf*; the latest leaf in file order that is not a sidechain,
//! a teammate's or meta wins; its `parentUuid` chain, root first, is the
//! thread. Every walk is iterative and remembers what it has seen.
//!
//! `recover.rs`: the parallel tool turns put back on a walked thread;
//! `threads.rs`: the list of threads, their first prompts, and the chosen one.

mod recover;
mod threads;

pub use threads::choose;

use super::{compact, Options, Report};
use crate::json::Raw;
use crate::model::{BlockKind, Kind, Links, Record};
use ahash::{AHashMap, AHashSet};
use std::collections::hash_map::Entry;

const NONE: usize = usize::MAX;

/// How many of the live nodes just before a record are compared with its
/// parent's uuid before the uuid map is asked.
const NEAR: usize = 4;

/// A canonical lowercase UUID (`8-4-4-4-12` hex digits, what Claude Code
/// writes) packed into 16 bytes. The packing is one-to-one: two packed uuids
/// are equal exactly when their texts are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed(u64, u64);

/// A uuid as the tree's map key: packed, so that a probe compares two words
/// in the table instead of reading the stored key's text back from the input
/// (a cache miss per lookup at a million records); any other string as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key<'r> {
    Packed(Packed),
    Text(&'r str),
}

/// Digit value of a lowercase hex digit, or 16.
const HEX: [u8; 256] = {
    let mut t = [16u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// `s` packed, if it is a canonical lowercase UUID.
pub fn pack(s: &str) -> Option<Packed> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let mut words = [0u64; 2];
    let mut digits = 0;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            continue;
        }
        let d = HEX[usize::from(c)];
        if d > 15 {
            return None;
        }
        let w = &mut words[digits / 16];
        *w = (*w << 4) | u64::from(d);
        digits += 1;
    }
    Some(Packed(words[0], words[1]))
}

fn key(s: &str) -> Key<'_> {
    pack(s).map_or(Key::Text(s), Key::Packed)
}

/// A timestamp of at most 32 bytes as a key that orders like its text: its
/// bytes zero-padded, then its length (of two texts equal but for the
/// padding, the shorter is a prefix of the other and sorts first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp([u64; 4], u8);

/// `s` as a [`Stamp`], if it is at most 32 bytes long.
pub fn stamp(s: &str) -> Option<Stamp> {
    let b = s.as_bytes();
    let len = u8::try_from(b.len()).ok().filter(|&n| n <= 32)?;
    let mut buf = [0u8; 32];
    buf[..b.len()].copy_from_slice(b);
    let mut words = [0u64; 4];
    for (w, c) in words.iter_mut().zip(buf.chunks_exact(8)) {
        *w = c.iter().fold(0, |acc, &x| (acc << 8) | u64::from(x));
    }
    Some(Stamp(words, len))
}

/// A record's `uuid`, `parentUuid` and `timestamp`, packed by the reader while
/// their text is in cache: a later pass over a million records that reads them
/// from the input again misses the cache (and the TLB) on every record.
/// `None`: absent, or not packable (the tree then reads the text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packs {
    pub uuid: Option<Packed>,
    pub parent: Option<Packed>,
    pub timestamp: Option<Stamp>,
}

impl Packs {
    pub fn of(r: &Rec<'_>) -> Packs {
        Packs {
            uuid: r.uuid.as_deref().and_then(pack),
            parent: links(r).and_then(|l| l.parent.as_deref()).and_then(pack),
            timestamp: timestamp(r).and_then(stamp),
        }
    }
}

/// A thread walked to its root, with its parallel tool records put back.
struct Walked {
    chain: Vec<usize>,
    /// The records the `parentUuid` walk itself reached.
    on_walk: Vec<bool>,
}

type Rec<'a> = Record<'a, Raw<'a>>;

/// Walk state of a node in the memo pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    New,
    Walking,
    Done,
}

/// Per-node facts the thread listing needs, computed once for every node.
#[derive(Clone, Copy)]
struct Info {
    /// Records from the thread's start (its root, or its last compaction) to here.
    count: usize,
    /// The first record with a real prompt, and the first with a slash command.
    first_prompt: usize,
    first_command: usize,
    /// The record with the latest `timestamp` (the first of equal ones).
    last_ts: usize,
}

struct Tree<'r, 'a> {
    recs: &'r [Rec<'a>],
    /// Per record, as [`Packs::of`] gives them (empty: the text is read).
    packs: &'r [Packs],
    /// Live nodes (the last record of each uuid) in order of the uuid's first appearance.
    live: Vec<usize>,
    /// Position of each live node in `live` (file order of first appearance).
    live_pos: Vec<usize>,
    by_uuid: AHashMap<Key<'r>, usize>,
    parent: Vec<usize>,
    logical: Vec<usize>,
    /// Some record names it as its `parentUuid`.
    has_child: Vec<bool>,
    /// Records a partial compaction's preserved segment was relinked away from
    /// (what the compaction summarized ends there): no branch ends at them.
    superseded: Vec<usize>,
}

fn links<'r, 'a>(r: &'r Rec<'a>) -> Option<&'r Links<'a>> {
    r.links.as_deref()
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

fn parent_str<'r>(r: &'r Rec<'_>) -> Option<&'r str> {
    non_empty(links(r).and_then(|l| l.parent.as_deref()))
}

fn is_member(r: &Rec<'_>) -> bool {
    matches!(
        r.kind,
        Kind::User | Kind::Assistant | Kind::Progress | Kind::System | Kind::Attachment
    ) && r.uuid.is_some()
}

fn sidechain(r: &Rec<'_>) -> bool {
    links(r).is_some_and(|l| l.sidechain)
}

fn team<'r>(r: &'r Rec<'_>) -> Option<&'r str> {
    non_empty(links(r).and_then(|l| l.team.as_deref()))
}

fn agent_id<'r>(r: &'r Rec<'_>) -> Option<&'r str> {
    links(r).and_then(|l| l.agent_id.as_deref())
}

fn timestamp<'r>(r: &'r Rec<'_>) -> Option<&'r str> {
    links(r).and_then(|l| l.timestamp.as_deref())
}

fn message_id<'r>(r: &'r Rec<'_>) -> Option<&'r str> {
    if r.kind != Kind::Assistant {
        return None;
    }
    non_empty(r.message_id.as_deref())
}

fn block_ids<'r>(r: &'r Rec<'_>, kind: BlockKind) -> impl Iterator<Item = &'r str> {
    r.content
        .blocks()
        .iter()
        .filter(move |b| b.kind == kind)
        .filter_map(|b| b.id.as_deref())
}

fn is_tool_result_entry(r: &Rec<'_>) -> bool {
    r.kind == Kind::User && parent_str(r).is_some() && r.content.has_tool_result()
}

fn same_writer(a: &Rec<'_>, b: &Rec<'_>) -> bool {
    sidechain(a) == sidechain(b) && agent_id(a) == agent_id(b)
}

fn is_boundary(r: &Rec<'_>) -> bool {
    r.kind == Kind::System && links(r).is_some_and(|l| l.compact_boundary)
}

impl<'r, 'a> Tree<'r, 'a> {
    /// `packs`: per record, as [`Packs::of`] gives them (or empty: the tree
    /// reads every uuid's text).
    fn new(recs: &'r [Rec<'a>], packs: &'r [Packs], relink: bool, report: &mut Report) -> Self {
        let n = recs.len();
        let mut by_uuid: AHashMap<Key<'r>, usize> = AHashMap::with_capacity(n);
        let mut live: Vec<usize> = Vec::with_capacity(n);
        // The key of each live node, beside `live`.
        let mut live_keys: Vec<Key<'r>> = Vec::with_capacity(n);
        for (i, r) in recs.iter().enumerate() {
            if !is_member(r) {
                continue;
            }
            let k = match packs.get(i).and_then(|p| p.uuid) {
                Some(p) => Key::Packed(p),
                None => match r.uuid.as_deref() {
                    Some(u) => key(u),
                    None => continue,
                },
            };
            match by_uuid.entry(k) {
                Entry::Vacant(e) => {
                    e.insert(i);
                    live.push(i);
                    live_keys.push(k);
                }
                Entry::Occupied(mut e) => {
                    report.duplicate_uuids += 1;
                    e.insert(i);
                }
            }
        }
        if report.duplicate_uuids > 0 {
            // The last copy of a uuid is the live one, at its first copy's place.
            for (k, slot) in live.iter_mut().enumerate() {
                *slot = by_uuid[&live_keys[k]];
            }
        }
        let mut live_pos = vec![NONE; n];
        let mut parent = vec![NONE; n];
        let mut logical = vec![NONE; n];
        for (k, &i) in live.iter().enumerate() {
            live_pos[i] = k;
            let r = &recs[i];
            let pk = match packs.get(i).and_then(|p| p.parent) {
                Some(p) => Some(Key::Packed(p)),
                None => parent_str(r).map(key),
            };
            if let Some(pk) = pk {
                // A record is written after its parent, most often right after
                // it: the last few live nodes are looked at before the map.
                let near = live_keys[k.saturating_sub(NEAR)..k]
                    .iter()
                    .rposition(|&q| q == pk)
                    .map(|m| live[k.saturating_sub(NEAR) + m]);
                match near.or_else(|| by_uuid.get(&pk).copied()) {
                    Some(j) => parent[i] = j,
                    None => report.missing_parents += 1,
                }
            } else if let Some(lp) = non_empty(links(r).and_then(|l| l.logical_parent.as_deref())) {
                match by_uuid.get(&key(lp)) {
                    Some(&j) => logical[i] = j,
                    None => report.missing_parents += 1,
                }
            }
        }
        let mut tree = Tree {
            recs,
            packs,
            live,
            live_pos,
            by_uuid,
            parent,
            logical,
            has_child: Vec::new(),
            superseded: Vec::new(),
        };
        if relink {
            tree.relink_preserved(report);
        }
        let mut has_child = vec![false; n];
        for &i in &tree.live {
            if tree.parent[i] != NONE {
                has_child[tree.parent[i]] = true;
            }
        }
        let (recs, live_pos, by_uuid) = (tree.recs, &tree.live_pos, &tree.by_uuid);
        if report.duplicate_uuids > 0 {
            // An earlier copy of a uuid still names its parent.
            for (i, r) in recs.iter().enumerate() {
                if live_pos[i] == NONE && is_member(r) {
                    if let Some(&j) = parent_str(r).and_then(|p| by_uuid.get(&key(p))) {
                        has_child[j] = true;
                    }
                }
            }
        }
        tree.has_child = has_child;
        tree
    }

    /// Partial compaction, as Claude Code resumes it: the last compact boundary
    /// of each session (and agent) that names a preserved segment has its
    /// segment relinked after the anchor (the summary, or the boundary): the
    /// head's parent becomes the anchor, the anchor's other children continue
    /// from the tail, and the boundary's history continues where the segment
    /// used to start. A segment whose `tailUuid`→`headUuid` walk breaks (or
    /// that names a missing record, or would close a loop) is left as written
    /// and counted in `report.unlinked_segments`.
    fn relink_preserved(&mut self, report: &mut Report) {
        let recs = self.recs;
        let mut last: AHashMap<(Option<&str>, Option<&str>), usize> = AHashMap::new();
        for &i in &self.live {
            let r = &recs[i];
            if is_boundary(r) {
                let sid = links(r).and_then(|l| l.session_id.as_deref());
                last.insert((sid, agent_id(r)), i);
            }
        }
        let mut boundaries: Vec<usize> = last.into_values().collect();
        boundaries.sort_unstable();
        for b in boundaries {
            let Some(p) = compact::preserved(&recs[b]) else {
                continue;
            };
            match self.segment(&p) {
                Some((anchor, head, tail, members)) => {
                    let before = self.parent[head];
                    self.parent[head] = anchor;
                    for k in 0..self.live.len() {
                        let j = self.live[k];
                        if j != head && self.parent[j] == anchor {
                            self.parent[j] = tail;
                        }
                    }
                    if self.parent[b] == NONE {
                        self.logical[b] = before;
                    }
                    if before != NONE {
                        self.superseded.push(before);
                    }
                    report.preserved += members;
                }
                None => report.unlinked_segments += 1,
            }
        }
    }

    /// `(anchor, head, tail, records in the segment)` when the segment can be
    /// relinked: every uuid is a record, the walk from the tail reaches the
    /// head, and the anchor is neither in the segment nor below it.
    fn segment(&self, p: &compact::Preserved) -> Option<(usize, usize, usize, usize)> {
        let get = |u: &str| self.find(u);
        let (anchor, head, tail) = (get(&p.anchor)?, get(&p.head)?, get(&p.tail)?);
        if p.listed.iter().any(|u| get(u).is_none()) {
            return None;
        }
        let mut members = AHashSet::new();
        let mut cur = tail;
        loop {
            if cur == NONE || cur == anchor || !members.insert(cur) {
                return None;
            }
            if cur == head {
                break;
            }
            cur = self.parent[cur];
        }
        // The anchor must not hang below the segment (the relink would close a
        // loop); the boundary's own history (`logicalParentUuid`) is redirected.
        let mut up = anchor;
        let mut steps = 0;
        while up != NONE && steps <= self.live.len() {
            if members.contains(&up) {
                return None;
            }
            up = self.parent[up];
            steps += 1;
        }
        Some((anchor, head, tail, members.len()))
    }

    /// The live record of a uuid.
    fn find(&self, u: &str) -> Option<usize> {
        self.by_uuid.get(&key(u)).copied()
    }

    /// No record's `parentUuid` (or `logicalParentUuid`) names a record of the pool.
    fn is_flat(&self) -> bool {
        self.live.len() > 1
            && self
                .live
                .iter()
                .all(|&i| self.parent[i] == NONE && self.logical[i] == NONE)
    }

    /// The parent on the whole history: `parentUuid`, or across a compaction.
    fn full_parent(&self, i: usize) -> usize {
        if self.parent[i] != NONE {
            self.parent[i]
        } else {
            self.logical[i]
        }
    }

    /// Where a thread that does not cross compactions starts.
    fn is_cut(&self, i: usize) -> bool {
        is_boundary(&self.recs[i]) || self.logical[i] != NONE
    }

    /// Leaves: each terminal's nearest user/assistant ancestor (by `parentUuid`).
    fn leaves(&self) -> Vec<usize> {
        let nearest = self.memo(
            |i| self.parent[i],
            NONE,
            |i, above| {
                if self.recs[i].kind.is_message() {
                    i
                } else {
                    above // NONE past a cycle: no leaf, like Claude Code
                }
            },
            || {},
        );
        let mut is_leaf = vec![false; self.recs.len()];
        for &t in &self.live {
            if !self.has_child[t] && nearest[t] != NONE {
                is_leaf[nearest[t]] = true;
            }
        }
        (0..is_leaf.len()).filter(|&i| is_leaf[i]).collect()
    }

    /// A value for every live node, computed from the value of the node above it
    /// (`up`; `empty` at a root or where a walk closes a cycle, which `on_cycle`
    /// hears of once). Each node is computed once, walking iteratively.
    fn memo<T: Copy>(
        &self,
        up: impl Fn(usize) -> usize,
        empty: T,
        mut f: impl FnMut(usize, T) -> T,
        mut on_cycle: impl FnMut(),
    ) -> Vec<T> {
        let n = self.recs.len();
        let mut value = vec![empty; n];
        let mut state = vec![Seen::New; n];
        let mut path = Vec::new();
        for &start in &self.live {
            let mut cur = start;
            let mut base = empty;
            while cur != NONE {
                match state[cur] {
                    Seen::Done => {
                        base = value[cur];
                        break;
                    }
                    Seen::Walking => {
                        on_cycle();
                        break;
                    }
                    Seen::New => {}
                }
                state[cur] = Seen::Walking;
                path.push(cur);
                cur = up(cur);
            }
            while let Some(i) = path.pop() {
                base = f(i, base);
                value[i] = base;
                state[i] = Seen::Done;
            }
        }
        value
    }

    /// Of two records (`NONE`: none), the one with the later `timestamp`; on a
    /// tie, or when `j` has none, `i`.
    fn later(&self, i: usize, j: usize) -> usize {
        if i == NONE {
            return if timestamp(&self.recs[j]).is_some() {
                j
            } else {
                NONE
            };
        }
        let packed = |k: usize| self.packs.get(k).and_then(|p| p.timestamp);
        let j_later = match (packed(i), packed(j)) {
            (Some(a), Some(b)) => b > a,
            _ => timestamp(&self.recs[j]) > timestamp(&self.recs[i]),
        };
        if j_later {
            j
        } else {
            i
        }
    }

    /// The whole thread ending at `leaf`, root first, across compactions, with the
    /// records of its parallel tool turns put back.
    fn walk(&self, leaf: usize) -> Walked {
        let n = self.recs.len();
        let mut on_walk = vec![false; n];
        let mut chain = Vec::new();
        let mut cur = leaf;
        while cur != NONE {
            if on_walk[cur] {
                break; // the cycle is counted by `infos`
            }
            on_walk[cur] = true;
            chain.push(cur);
            cur = self.full_parent(cur);
        }
        chain.reverse();
        let mut seen = on_walk.clone();
        let chain = self.recover(chain, &mut seen);
        Walked { chain, on_walk }
    }

    /// The records of `w` that the chosen options return, and the report's counts.
    fn cut(&self, w: Walked, opts: &Options<'_>, report: &mut Report) -> Vec<usize> {
        let Walked { mut chain, on_walk } = w;
        report.compactions = chain.iter().filter(|&&i| self.is_cut(i)).count();
        if opts.after_compaction {
            if let Some(k) = chain.iter().rposition(|&i| self.is_cut(i)) {
                report.before_compaction = k;
                chain.drain(..k);
            }
        }
        report.recovered = chain.iter().filter(|&&i| !on_walk[i]).count();
        self.microcompactions(&chain, report);
        chain
    }

    /// Microcompactions on the returned records: each `microcompact_boundary`
    /// is kept inline; the results before it that it cleared (by tool call id)
    /// are listed in `report.cleared_results`.
    fn microcompactions(&self, chain: &[usize], report: &mut Report) {
        // The boundaries first: a thread without one (most) reads no result's id.
        let mut bounds: Vec<(usize, Vec<String>)> = chain
            .iter()
            .enumerate()
            .filter_map(|(k, &i)| compact::microcompacted(&self.recs[i]).map(|ids| (k, ids)))
            .collect();
        let Some(&(last, _)) = bounds.last() else {
            return;
        };
        bounds.reverse();
        let mut answered: AHashSet<&str> = AHashSet::new();
        let mut cleared: AHashSet<String> = AHashSet::new();
        for (k, &i) in chain[..=last].iter().enumerate() {
            let r = &self.recs[i];
            if r.kind == Kind::User {
                answered.extend(block_ids(r, BlockKind::ToolResult));
            } else if bounds.last().is_some_and(|b| b.0 == k) {
                let Some((_, ids)) = bounds.pop() else { break };
                report.microcompactions += 1;
                for id in ids {
                    if answered.contains(id.as_str()) && cleared.insert(id.clone()) {
                        report.cleared_results.push(id);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{load, Options, SourceFile};

    /// A canonical uuid from a number: distinct numbers give distinct texts.
    fn uuid(n: u128) -> String {
        let h = format!("{n:032x}");
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }

    #[test]
    fn packing_is_one_to_one_and_only_for_canonical_uuids() {
        let texts: Vec<String> = (0..2000u128)
            .map(|k| uuid(k.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
            .collect();
        let packed: AHashSet<Packed> = texts.iter().filter_map(|t| pack(t)).collect();
        assert_eq!(packed.len(), texts.len());
        assert_eq!(pack(&texts[7]), pack(&texts[7].clone()));
        let canonical = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assert!(pack(canonical).is_some());
        for other in [
            "0F8FAD5B-D9CB-469F-A165-70867728950E", // upper case is another text
            "0f8fad5bd9cb-469f-a165-70867728950e-",
            "0f8fad5b-d9cb-469f-a165-70867728950",
            "0f8fad5b-d9cb-469f-a165-70867728950e0",
            "0f8fad5b-d9cb-469f-a165-70867728950g",
            "",
        ] {
            assert_eq!(pack(other), None, "{other}");
            assert_eq!(key(other), Key::Text(other));
        }
    }

    #[test]
    fn stamps_order_like_their_texts() {
        let texts = [
            "",
            "2026",
            "2026-01-01",
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00.000Z",
            "2026-01-01T00:00:00.001Z",
            "2026-01-01T00:00:00.001Z\u{0}",
            "2026-01-01T00:00:00.001+00:00",
            "2026-11-26T15:47:56.123456789+01:00", // 35 bytes: not packed
            "a",
            "a\u{0}",
            "a\u{0}b",
            "ab",
            "\u{0}",
            "\u{7f}\u{7f}",
            "é",
        ];
        for a in texts {
            for b in texts {
                match (stamp(a), stamp(b)) {
                    (Some(x), Some(y)) => assert_eq!(x.cmp(&y), a.cmp(b), "{a:?} {b:?}"),
                    (x, y) => assert!(a.len() > 32 && x.is_none() || b.len() > 32 && y.is_none()),
                }
            }
        }
    }

    fn line(uuid: &str, parent: Option<&str>, ts: &str) -> String {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"user","uuid":"{uuid}","parentUuid":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"{uuid}"}}}}"#
        )
    }

    /// `(chain, threads, chosen, report)` of one file's text.
    fn load_one(src: &str) -> (Vec<usize>, Vec<crate::session::Thread>, usize, Report) {
        let files = [SourceFile {
            name: "s.jsonl",
            data: src.as_bytes(),
            agent_id: None,
        }];
        let l = load(&files, &Options::default()).expect("loads");
        (l.chain, l.threads, l.chosen, l.report)
    }

    #[test]
    fn packed_and_written_uuids_and_timestamps_mix() {
        // Canonical uuids (packed), an upper-case one and a short id (read as
        // written), and timestamps of which the latest is too long to pack.
        let (a, b) = (uuid(1), uuid(2));
        let upper = uuid(3).to_uppercase();
        let src = [
            line(&a, None, "2026-01-01T00:00:01Z"),
            line(&upper, Some(&a), "2026-01-01T00:00:04.123456789012345Z"),
            line("short", Some(&upper), "2026-01-01T00:00:02Z"),
            line(&b, Some("short"), "2026-01-01T00:00:03Z"),
        ]
        .join("\n");
        let (chain, threads, chosen, report) = load_one(&src);
        assert_eq!(chain, vec![0, 1, 2, 3]);
        assert_eq!(report.missing_parents, 0);
        let main = &threads[chosen];
        assert_eq!(
            main.last_timestamp.as_deref(),
            Some("2026-01-01T00:00:04.123456789012345Z")
        );
        // the same history with the record of the latest time last
        let src = [
            line(&a, None, "2026-01-01T00:00:01Z"),
            line(&b, Some(&a), "2026-01-01T00:00:03Z"),
            line("short", Some(&b), "2026-01-01T00:00:02Z"),
        ]
        .join("\n");
        let (_, threads, chosen, _) = load_one(&src);
        assert_eq!(
            threads[chosen].last_timestamp.as_deref(),
            Some("2026-01-01T00:00:03Z")
        );
    }
}
