//! The `parentUuid` tree of a pool of session records: leaf choice, chain
//! walk, compaction cut, parallel tool-turn recovery and the list of threads.
//!
//! The main thread is chosen the way Claude Code resumes a session (and the
//! official Agent SDK's `get_session_messages` reads it): every terminal
//! record (no record names it as parent) leads to its nearest user/assistant
//! ancestor, a *leaf*; the latest leaf in file order that is not a sidechain,
//! a teammate's or meta wins; its `parentUuid` chain, root first, is the
//! thread. Every walk is iterative and remembers what it has seen.

use super::{compact, Options, Report, Thread, ThreadKind};
use crate::error::{Error, Result};
use crate::json::Raw;
use crate::model::{BlockKind, Content, Kind, Links, Record};
use ahash::{AHashMap, AHashSet};
use std::collections::hash_map::Entry;

const NONE: usize = usize::MAX;

/// A thread walked to its root, with its parallel tool records put back.
struct Walked {
    chain: Vec<usize>,
    /// The records the `parentUuid` walk itself reached.
    on_walk: Vec<bool>,
}
/// The first prompt shown in a thread listing is cut to this many characters.
const PROMPT_CHARS: usize = 200;

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

/// What a listing can show of a user record: a real prompt, or the name of a
/// slash command (shown only when the thread has no real prompt).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Text,
    Command,
}

/// Texts Claude Code writes into user records that are not what the user typed.
const NOT_A_PROMPT: [&str; 7] = [
    "<local-command-stdout>",
    "<session-start-hook>",
    "<tick>",
    "<goal>",
    "[Request interrupted by user",
    "<ide_opened_file>",
    "<ide_selection>",
];

/// The first text of a user record that can name its thread, and what it is.
fn prompt_of<'r>(r: &'r Rec<'_>) -> Option<(Prompt, &'r str)> {
    if r.kind != Kind::User || r.is_meta || links(r).is_some_and(|l| l.compact_summary) {
        return None;
    }
    if r.content.has_tool_result() {
        return None;
    }
    let texts: Vec<&str> = match &r.content {
        Content::Str(s) => vec![s.as_ref()],
        Content::Blocks(b) => b
            .iter()
            .filter(|b| b.kind == BlockKind::Text)
            .map(|b| b.text_str())
            .collect(),
    };
    let mut command = None;
    for t in texts {
        let t = t.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(name) = command_name(t) {
            command.get_or_insert(name);
            continue;
        }
        if NOT_A_PROMPT.iter().any(|p| t.starts_with(p)) {
            continue;
        }
        return Some((Prompt::Text, t));
    }
    command.map(|c| (Prompt::Command, c))
}

fn command_name(t: &str) -> Option<&str> {
    let start = t.find("<command-name>")? + "<command-name>".len();
    let len = t[start..].find("</command-name>")?;
    Some(&t[start..start + len])
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

    /// Puts back the tool calls and results of parallel tool turns that the
    /// walk left on sibling branches (as the Agent SDK's
    /// `_recover_orphaned_parallel_tool_results` does).
    ///
    /// A reply with N parallel tool calls is N assistant records sharing
    /// `message.id`, chained one after another; each result's `parentUuid` is
    /// its own call's record, so the results fan out and the walk keeps one.
    /// Every record of the reply and every result is put back right after the
    /// reply's last record on the chain.
    fn recover(&self, chain: Vec<usize>, seen: &mut [bool]) -> Vec<usize> {
        let recs = self.recs;
        let n = recs.len();
        // One group per reply on the thread, in order; its anchor is its last record there.
        let mut gid: AHashMap<&str, usize> = AHashMap::new();
        let mut anchor: Vec<usize> = Vec::new();
        for &i in &chain {
            if let Some(m) = message_id(&recs[i]) {
                match gid.entry(m) {
                    Entry::Vacant(e) => {
                        e.insert(anchor.len());
                        anchor.push(i);
                    }
                    Entry::Occupied(e) => anchor[*e.get()] = i,
                }
            }
        }
        if anchor.is_empty() {
            return chain;
        }
        // Every record of those replies; the record that made each tool call
        // (NONE: claimed by two replies, never used); the tool-result records.
        let mut group = vec![NONE; n];
        let mut members: Vec<(usize, usize)> = Vec::new();
        let mut owner: AHashMap<&str, usize> = AHashMap::new();
        let mut results = Vec::new();
        for &i in &self.live {
            let r = &recs[i];
            if let Some(m) = message_id(r) {
                if let Some(&g) = gid.get(m) {
                    group[i] = g;
                    members.push((g, i));
                }
                for call in block_ids(r, BlockKind::ToolUse) {
                    let o = owner.entry(call).or_insert(i);
                    if *o != i {
                        let same = *o != NONE && message_id(&recs[*o]) == Some(m);
                        *o = if same { i } else { NONE };
                    }
                }
            } else if is_tool_result_entry(r) {
                results.push(i);
            }
        }
        members.sort_by_key(|&(g, _)| g); // stable: file order within a reply
        let mut first_member = vec![0; anchor.len() + 1];
        for &(g, _) in &members {
            first_member[g + 1] += 1;
        }
        for g in 0..anchor.len() {
            first_member[g + 1] += first_member[g];
        }
        // Results under the reply records they may belong to: their parent, their
        // sourceToolAssistantUUID and the owner of each call they answer (the last
        // two only when the same agent wrote both).
        let mut under: Vec<(usize, usize)> = Vec::new();
        for &res in &results {
            let r = &recs[res];
            let p = self.parent[res];
            if p != NONE && group[p] != NONE {
                under.push((p, res));
            }
            if let Some(&s) = links(r)
                .and_then(|l| l.source_assistant.as_deref())
                .and_then(|src| self.by_uuid.get(src))
            {
                if group[s] != NONE && same_writer(r, &recs[s]) {
                    under.push((s, res));
                }
            }
            for call in block_ids(r, BlockKind::ToolResult) {
                if let Some(&o) = owner.get(call) {
                    if o != NONE && group[o] != NONE && same_writer(r, &recs[o]) {
                        under.push((o, res));
                    }
                }
            }
        }
        under.sort_by_key(|&(a, _)| a); // stable: as indexed
        let results_of = |a: usize| {
            let lo = under.partition_point(|&(x, _)| x < a);
            let hi = under.partition_point(|&(x, _)| x <= a);
            under[lo..hi].iter().map(|&(_, res)| res)
        };
        let mut collected = vec![NONE; n];
        let mut added = 0;
        let mut answered_on_chain: Option<AHashSet<&str>> = None;
        let mut inserts: AHashMap<usize, Vec<usize>> = AHashMap::new();
        for (g, &anchor_at) in anchor.iter().enumerate() {
            let group_members = &members[first_member[g]..first_member[g + 1]];
            let mut lost_siblings: Vec<usize> = group_members
                .iter()
                .map(|&(_, m)| m)
                .filter(|&m| !seen[m])
                .collect();
            let mut lost_results = Vec::new();
            let mut strays = Vec::new();
            for &(_, m) in group_members {
                for res in results_of(m) {
                    if seen[res] || collected[res] == g {
                        continue;
                    }
                    collected[res] = g;
                    let p = self.parent[res];
                    if p != NONE && group[p] == g {
                        lost_results.push(res);
                    } else {
                        strays.push(res);
                    }
                }
            }
            if !strays.is_empty() {
                let on_chain = answered_on_chain.get_or_insert_with(|| {
                    chain
                        .iter()
                        .flat_map(|&i| block_ids(&recs[i], BlockKind::ToolResult))
                        .collect()
                });
                let mut answered = on_chain.clone();
                for &res in &lost_results {
                    answered.extend(block_ids(&recs[res], BlockKind::ToolResult));
                }
                strays.sort_by_key(|&s| self.live_pos[s]);
                for res in strays {
                    let opens = block_ids(&recs[res], BlockKind::ToolResult).any(|call| {
                        !answered.contains(call)
                            && owner.get(call).is_some_and(|&o| o != NONE && group[o] == g)
                    });
                    if opens {
                        answered.extend(block_ids(&recs[res], BlockKind::ToolResult));
                        lost_results.push(res);
                    }
                }
            }
            if lost_siblings.is_empty() && lost_results.is_empty() {
                continue;
            }
            let ts = |i: &usize| timestamp(&recs[*i]).unwrap_or("");
            lost_siblings.sort_by_key(ts);
            lost_results.sort_by_key(ts);
            lost_siblings.extend(lost_results);
            for &i in &lost_siblings {
                seen[i] = true;
            }
            added += lost_siblings.len();
            inserts.insert(anchor_at, lost_siblings);
        }
        if inserts.is_empty() {
            return chain;
        }
        let mut out = Vec::with_capacity(chain.len() + added);
        for i in chain {
            out.push(i);
            if let Some(more) = inserts.remove(&i) {
                out.extend(more);
            }
        }
        out
    }
}

/// Finds every thread and walks the chosen one: `(chain, threads, chosen)`.
pub fn choose(
    recs: &[Rec<'_>],
    origin: &[(usize, usize)],
    file_agent: &[Option<&str>],
    opts: &Options<'_>,
    report: &mut Report,
) -> Result<(Vec<usize>, Vec<Thread>, usize)> {
    let tree = Tree::new(recs, opts.after_compaction, report);
    let info = tree.infos(opts.after_compaction, report);
    let leaves = tree.leaves();
    let is_agent =
        |i: usize| sidechain(&recs[i]) || team(&recs[i]).is_some() || file_agent[i].is_some();
    let main_ok = |i: usize| !is_agent(i) && !recs[i].is_meta;
    let main = leaves
        .iter()
        .copied()
        .filter(|&i| main_ok(i))
        .max()
        .or_else(|| leaves.iter().copied().max());

    let thread_of = |leaf: usize, id: String, kind: ThreadKind, agent: Option<String>| {
        let inf = info[leaf];
        let r = &recs[leaf];
        Thread {
            id,
            kind,
            leaf: r.uuid.as_deref().map(str::to_owned),
            session_id: links(r)
                .and_then(|l| l.session_id.as_deref())
                .map(str::to_owned),
            agent_id: agent,
            file: origin.get(leaf).map(|o| o.0),
            records: inf.count,
            first_prompt: [inf.first_prompt, inf.first_command]
                .into_iter()
                .find(|&i| i != NONE)
                .and_then(|i| prompt_of(&recs[i]))
                .map(|(_, t)| one_line(t, PROMPT_CHARS))
                .unwrap_or_default(),
            last_timestamp: inf.last_ts.map(str::to_owned),
        }
    };

    let flat = tree.is_flat();
    // The main thread, walked: a leaf on it (a parallel tool result the walk did
    // not take, a call with progress records) is no branch.
    let main_walk = match main {
        Some(m) if !flat => Some(tree.walk(m)),
        _ => None,
    };
    let mut on_main = vec![false; recs.len()];
    if let Some(w) = &main_walk {
        for &i in &w.chain {
            on_main[i] = true;
        }
    }
    let mut threads = Vec::new();
    match main {
        Some(m) => threads.push(thread_of(m, "main".into(), ThreadKind::Main, None)),
        None => threads.push(Thread {
            id: "main".into(),
            kind: ThreadKind::Main,
            leaf: None,
            session_id: None,
            agent_id: None,
            file: None,
            records: 0,
            first_prompt: String::new(),
            last_timestamp: None,
        }),
    }
    // Other sessions' latest leaves, and the remaining branches.
    let main_session = main.and_then(|m| links(&recs[m]).and_then(|l| l.session_id.as_deref()));
    let mut best_of_session: AHashMap<&str, usize> = AHashMap::new();
    for &l in leaves
        .iter()
        .filter(|&&l| !flat && main_ok(l) && !on_main[l])
    {
        let s = links(&recs[l])
            .and_then(|x| x.session_id.as_deref())
            .unwrap_or("");
        if !s.is_empty() && Some(s) != main_session {
            let b = best_of_session.entry(s).or_insert(l);
            *b = (*b).max(l);
        }
    }
    let session_leaves: AHashSet<usize> = best_of_session.values().copied().collect();
    let mut sessions: Vec<(&str, usize)> = best_of_session.into_iter().collect();
    sessions.sort_by_key(|&(_, l)| l);
    for (s, l) in sessions {
        threads.push(thread_of(l, s.to_owned(), ThreadKind::Session, None));
    }
    // A leaf that a compaction continues (a `logicalParentUuid` names it) is not a branch.
    let continued: AHashSet<usize> = tree
        .logical
        .iter()
        .copied()
        .filter(|&j| j != NONE)
        .chain(tree.superseded.iter().copied())
        .collect();
    for &l in leaves
        .iter()
        .filter(|&&l| !flat && !is_agent(l) && !on_main[l] && !continued.contains(&l))
    {
        if !session_leaves.contains(&l) {
            let id = recs[l].uuid.as_deref().unwrap_or("").to_owned();
            threads.push(thread_of(l, id, ThreadKind::Branch, None));
        }
    }
    // Agents: one thread per agent, ending at its last user/assistant record.
    let mut roots: Option<Vec<usize>> = None;
    let mut agent_leaf: AHashMap<String, usize> = AHashMap::new();
    let mut agent_order: Vec<String> = Vec::new();
    for &i in &tree.live {
        if !(is_agent(i) && recs[i].kind.is_message()) {
            continue;
        }
        let key = match agent_id(&recs[i]).or(file_agent[i]).or(team(&recs[i])) {
            Some(k) => k.to_owned(),
            None => {
                let roots = roots.get_or_insert_with(|| root_of(&tree));
                let root = roots[i];
                recs.get(root)
                    .and_then(|r| r.uuid.as_deref())
                    .unwrap_or("")
                    .to_owned()
            }
        };
        match agent_leaf.get_mut(&key) {
            Some(l) => *l = (*l).max(i),
            None => {
                agent_order.push(key.clone());
                agent_leaf.insert(key, i);
            }
        }
    }
    for key in agent_order {
        let l = agent_leaf[&key];
        threads.push(thread_of(l, key.clone(), ThreadKind::Agent, Some(key)));
    }

    // The chosen thread.
    let (chosen, leaf) = if opts.thread == "main" || Some(opts.thread) == main_session {
        (0, main)
    } else if let Some(k) = threads.iter().position(|t| t.id == opts.thread) {
        let leaf = threads[k]
            .leaf
            .as_deref()
            .and_then(|u| tree.by_uuid.get(u))
            .copied();
        (k, leaf)
    } else if let Some(&i) = tree.by_uuid.get(opts.thread) {
        threads.push(thread_of(
            i,
            opts.thread.to_owned(),
            ThreadKind::Branch,
            None,
        ));
        (threads.len() - 1, Some(i))
    } else {
        let known: Vec<&str> = threads.iter().map(|t| t.id.as_str()).take(20).collect();
        return Err(Error::value(format!(
            "no thread {:?} in this session: choose \"main\", an agent id, a session id or a record uuid (threads: {})",
            opts.thread,
            known.join(", ")
        )));
    };
    let chain = match leaf {
        // A file whose records name no parent at all is a flat transcript (written
        // by another tool), not a tree: its thread is its records in file order.
        _ if chosen == 0 && flat => tree
            .live
            .iter()
            .copied()
            .filter(|&i| !is_agent(i))
            .collect(),
        Some(l) => {
            let walked = match main_walk {
                Some(w) if chosen == 0 => w,
                _ => tree.walk(l),
            };
            tree.cut(walked, opts, report)
        }
        None => Vec::new(),
    };
    threads[chosen].records = chain.len();
    Ok((chain, threads, chosen))
}

/// Per live node, the root of its `parentUuid` chain (for sidechains that carry no agent id).
fn root_of(tree: &Tree<'_, '_>) -> Vec<usize> {
    tree.memo(
        |i| tree.parent[i],
        NONE,
        |i, above| if above == NONE { i } else { above },
        || {},
    )
}

/// `text` on one line (newlines become spaces), cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line,
    }
}
