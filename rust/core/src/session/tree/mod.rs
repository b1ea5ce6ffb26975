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
use threads::{prompt_of, Prompt};

use super::{compact, Options, Report};
use crate::json::Raw;
use crate::model::{BlockKind, Kind, Links, Record};
use ahash::{AHashMap, AHashSet};
use std::collections::hash_map::Entry;

const NONE: usize = usize::MAX;

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
struct Info<'r> {
    /// Records from the thread's start (its root, or its last compaction) to here.
    count: usize,
    /// The first record with a real prompt, and the first with a slash command.
    first_prompt: usize,
    first_command: usize,
    last_ts: Option<&'r str>,
}

struct Tree<'r, 'a> {
    recs: &'r [Rec<'a>],
    /// Live nodes (the last record of each uuid) in order of the uuid's first appearance.
    live: Vec<usize>,
    /// Position of each live node in `live` (file order of first appearance).
    live_pos: Vec<usize>,
    by_uuid: AHashMap<&'r str, usize>,
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
    fn new(recs: &'r [Rec<'a>], relink: bool, report: &mut Report) -> Self {
        let n = recs.len();
        let mut by_uuid: AHashMap<&'r str, usize> = AHashMap::with_capacity(n);
        let mut live: Vec<usize> = Vec::with_capacity(n);
        for (i, r) in recs.iter().enumerate() {
            if !is_member(r) {
                continue;
            }
            let Some(u) = r.uuid.as_deref() else { continue };
            match by_uuid.entry(u) {
                Entry::Vacant(e) => {
                    e.insert(i);
                    live.push(i);
                }
                Entry::Occupied(mut e) => {
                    report.duplicate_uuids += 1;
                    e.insert(i);
                }
            }
        }
        if report.duplicate_uuids > 0 {
            // The last copy of a uuid is the live one, at its first copy's place.
            for slot in &mut live {
                if let Some(u) = recs[*slot].uuid.as_deref() {
                    *slot = by_uuid[u];
                }
            }
        }
        let mut live_pos = vec![NONE; n];
        let mut parent = vec![NONE; n];
        let mut logical = vec![NONE; n];
        for (k, &i) in live.iter().enumerate() {
            live_pos[i] = k;
            let r = &recs[i];
            if let Some(p) = parent_str(r) {
                match by_uuid.get(p) {
                    Some(&j) => parent[i] = j,
                    None => report.missing_parents += 1,
                }
            } else if let Some(lp) = non_empty(links(r).and_then(|l| l.logical_parent.as_deref())) {
                match by_uuid.get(lp) {
                    Some(&j) => logical[i] = j,
                    None => report.missing_parents += 1,
                }
            }
        }
        let mut tree = Tree {
            recs,
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
                    if let Some(&j) = parent_str(r).and_then(|p| by_uuid.get(p)) {
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
        let get = |u: &str| self.by_uuid.get(u).copied();
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

    /// Per node: records since its thread's start, its first prompt, its latest
    /// timestamp. One pass over every node; counts each `parentUuid` cycle once.
    fn infos(&self, cut: bool, report: &mut Report) -> Vec<Info<'r>> {
        let empty = Info {
            count: 0,
            first_prompt: NONE,
            first_command: NONE,
            last_ts: None,
        };
        self.memo(
            |i| self.full_parent(i),
            empty,
            |i, base| {
                let r = &self.recs[i];
                let prompt = prompt_of(r).map(|p| p.0);
                let first = |have: usize, kind: Prompt| {
                    if have == NONE && prompt == Some(kind) {
                        i
                    } else {
                        have
                    }
                };
                Info {
                    count: if cut && self.is_cut(i) {
                        1
                    } else {
                        base.count + 1
                    },
                    first_prompt: first(base.first_prompt, Prompt::Text),
                    first_command: first(base.first_command, Prompt::Command),
                    last_ts: base.last_ts.max(timestamp(r)),
                }
            },
            || report.cycles += 1,
        )
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
        let mut answered: AHashSet<&str> = AHashSet::new();
        let mut cleared: AHashSet<String> = AHashSet::new();
        for &i in chain {
            let r = &self.recs[i];
            if r.kind == Kind::User {
                answered.extend(block_ids(r, BlockKind::ToolResult));
            } else if let Some(ids) = compact::microcompacted(r) {
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
