//! Parallel tool turns put back on a walked thread (the records the
//! `parentUuid` walk left on sibling branches).

use super::*;

impl Tree<'_, '_> {
    /// Puts back the tool calls and results of parallel tool turns that the
    /// walk left on sibling branches (as the Agent SDK's
    /// `_recover_orphaned_parallel_tool_results` does).
    ///
    /// A reply with N parallel tool calls is N assistant records sharing
    /// `message.id`, chained one after another; each result's `parentUuid` is
    /// its own call's record, so the results fan out and the walk keeps one.
    /// Every record of the reply and every result is put back right after the
    /// reply's last record on the chain.
    pub(super) fn recover(&self, chain: Vec<usize>, seen: &mut [bool]) -> Vec<usize> {
        let recs = self.recs;
        let n = recs.len();
        // Nothing can be put back when every record that could be (a reply's
        // record, a tool result) is on the thread already: a history without
        // forks, the common case, costs one pass that reads no text.
        let off_thread = |i: &usize| {
            !seen[*i] && (message_id(&recs[*i]).is_some() || is_tool_result_entry(&recs[*i]))
        };
        if !self.live.iter().any(off_thread) {
            return chain;
        }
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
            if let Some(s) = links(r)
                .and_then(|l| l.source_assistant.as_deref())
                .and_then(|src| self.find(src))
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
