//! §4 step 4: fold into user/assistant records: user merges, streamed assistant
//! re-join, attachments and local commands become meta/plain user records.

use super::super::render::Templates;
use super::{Prehashed, Relay};
use crate::model::{Block, BlockKind, Content, Kind, Record, Str};
use crate::report::Report;
use ahash::AHashMap as HashMap;
use std::collections::HashMap as StdMap;
use std::hash::BuildHasherDefault;

/// *User merge* of `b` into `a` (§4 step 4). `seam` adds the `"\n"` between texts.
pub fn user_merge<'a, H>(a: &mut Record<'a, H>, b: Record<'a, H>, seam: bool) {
    let taken = std::mem::replace(a, Record::new(a.index, Kind::User, None));
    let mut run = UserRun::new(taken);
    run.merge(b, seam);
    *a = run.finish();
}

/// A user record that later user records are merged into, one [`user_merge`]
/// after another, in time linear in the blocks merged: the merged content is
/// kept as its `tool_result` blocks and the rest (the order `user_merge`
/// leaves: results first) and joined once, by [`UserRun::finish`].
pub struct UserRun<'a, H> {
    rec: Record<'a, H>,
    /// `(results, rest)` once something was merged.
    parts: Option<Parts<'a, H>>,
}

type Parts<'a, H> = (Vec<Block<'a, H>>, Vec<Block<'a, H>>);

impl<'a, H> UserRun<'a, H> {
    pub fn new(rec: Record<'a, H>) -> Self {
        UserRun { rec, parts: None }
    }

    pub fn merge(&mut self, b: Record<'a, H>, seam: bool) {
        let a = &mut self.rec;
        a.absorb(b.index, b.sources);
        let a_meta = a.is_meta;
        if a_meta {
            a.uuid = b.uuid;
            a.uuid_from = b.uuid_from;
            a.uuid_dirty = true;
        }
        a.set_meta(a_meta && b.is_meta);
        a.cost.add(b.cost);
        let b_blocks = b.content.into_blocks(false);
        let (results, rest) = match &mut self.parts {
            Some(parts) => {
                // the merged content's last block is the last of the rest (a
                // result is never a text)
                if seam {
                    add_seam(parts.1.last_mut(), b_blocks.first());
                }
                parts
            }
            None => {
                let mut blocks = std::mem::replace(&mut a.content, Content::Blocks(Vec::new()))
                    .into_blocks(false);
                if seam {
                    add_seam(blocks.last_mut(), b_blocks.first());
                }
                let parts = blocks
                    .into_iter()
                    .partition(|x| x.kind == BlockKind::ToolResult);
                self.parts.insert(parts)
            }
        };
        for x in b_blocks {
            if x.kind == BlockKind::ToolResult {
                results.push(x);
            } else {
                rest.push(x);
            }
        }
    }

    pub fn finish(self) -> Record<'a, H> {
        let mut rec = self.rec;
        if let Some((mut results, rest)) = self.parts {
            results.extend(rest);
            rec.set_content(Content::Blocks(results));
        }
        rec
    }

    /// The open run, if any, goes to the output: nothing merges into it any more.
    #[inline]
    pub(crate) fn close(open: &mut Option<Self>, out: &mut Relay<'a, H>) {
        if let Some(u) = open.take() {
            out.push(u.finish());
        }
    }
}

/// The `"\n"` a seam adds to the last text before a merged text.
fn add_seam<H>(last: Option<&mut Block<'_, H>>, first: Option<&Block<'_, H>>) {
    if let (Some(last), Some(first)) = (last, first) {
        if last.kind == BlockKind::Text && first.kind == BlockKind::Text {
            let mut t = last.text.take().unwrap_or_default().into_owned();
            t.push('\n');
            last.text = Some(Str::Owned(t));
            last.dirty = true;
        }
    }
}

/// Nothing but tool_result blocks and empty or whitespace-only text.
fn tool_results_only<H>(r: &Record<'_, H>) -> bool {
    match &r.content {
        Content::Str(s) => crate::model::is_blank(s),
        Content::Blocks(bs) => bs
            .iter()
            .all(|b| b.kind == BlockKind::ToolResult || b.is_blank_text()),
    }
}

/// Holds tool_result blocks and nothing else.
fn results_only<H>(r: &Record<'_, H>) -> bool {
    matches!(&r.content, Content::Blocks(bs)
        if !bs.is_empty() && bs.iter().all(|b| b.kind == BlockKind::ToolResult))
}

/// The part of the user merge that step 6 needs where the fold does not run
/// (`convert` running only the steps a request's rules name): a user record
/// of nothing but `tool_result` blocks is merged into the one before it when
/// that holds nothing but `tool_result` blocks too (OpenAI's tool messages,
/// one record each, are the results of one turn), counted in `users_merged`.
/// Other records stay as they are; after step 4 there is nothing to join.
pub fn join_results<'a, H>(recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    let mut out = Relay::new(recs);
    let mut open: Option<UserRun<'a, H>> = None;
    while let Some(r) = out.next_mut() {
        if r.kind == Kind::User && results_only(r) {
            let r = out.take();
            match &mut open {
                Some(u) => {
                    u.merge(r, false);
                    report.users_merged += 1;
                }
                None => open = Some(UserRun::new(r)),
            }
        } else {
            UserRun::close(&mut open, &mut out);
            out.keep();
        }
    }
    UserRun::close(&mut open, &mut out);
    out.finish()
}

pub fn run<'a, H>(
    recs: Vec<Record<'a, H>>,
    templates: &Templates,
    report: &mut Report,
) -> Vec<Record<'a, H>> {
    // the output is written into the slots of the records already read; a
    // record that goes out as it is stays where it is
    let mut out = Relay::new(recs);
    // The re-join walk stops at the last record that is neither an assistant nor
    // a tool-result-only user ("barrier"); `latest[id]` is the last assistant with
    // that message.id. Both make the walk O(1), whatever the history's shape.
    let mut barrier: Option<usize> = None;
    let mut latest = Latest::default();
    // The last user record, still open to merges: it goes to `out` (at index
    // `out.out_len()`) when an assistant record follows, or at the end.
    let mut open: Option<Open<'a, H>> = None;
    while let Some(r) = out.next_mut() {
        match r.kind {
            Kind::System if r.system_prompt => {
                // kept as it is, between the turns it sat between
                if let Some(u) = open.take() {
                    out.push(u.run.finish());
                }
                out.keep();
                barrier = Some(out.out_len() - 1);
                latest.forget();
                continue;
            }
            Kind::System => {
                let mut r = out.take();
                let content = std::mem::replace(&mut r.content, Content::Str(Str::Borrowed("")));
                let u =
                    Record::new_user(r.index, r.uuid.take(), r.timestamp.take(), false, content);
                push_user(&mut open, u, true, report);
            }
            Kind::User => push_user(&mut open, out.take(), true, report),
            Kind::Attachment => {
                let mut r = out.take();
                let Some(text) = templates.render(r.attachment_fields()) else {
                    report.attachments_dropped += 1;
                    continue;
                };
                let u = Record::new_user(
                    r.index,
                    r.uuid.take(),
                    r.timestamp.take(),
                    true,
                    Content::Blocks(vec![Block::new_text(text)]),
                );
                push_user(&mut open, u, false, report);
            }
            Kind::Assistant => {
                if let Content::Str(s) = &mut r.content {
                    let s = std::mem::take(s);
                    r.set_content(Content::Blocks(Content::Str(s).into_blocks(true)));
                }
                let id = r.message_id.clone();
                if let Some(id) = &id {
                    if let Some(i) = latest.get(id.hash(), id, &mut out) {
                        if barrier.is_none_or(|b| i > b) {
                            let mut r = out.take();
                            let target = out.out_mut(i);
                            target.absorb(r.index, r.sources.take());
                            let blocks = match r.content {
                                Content::Blocks(b) => b,
                                Content::Str(_) => Vec::new(),
                            };
                            target.blocks_mut().extend(blocks);
                            target.cost.add(r.cost);
                            report.assistant_fragments_joined += 1;
                            continue;
                        }
                    }
                }
                if let Some(u) = open.take() {
                    out.push(u.run.finish());
                }
                if let Some(id) = &id {
                    let at = out.out_len();
                    latest.insert(id.hash(), id.text(), at, &mut out);
                }
                out.keep();
            }
            _ => drop(out.take()),
        }
        if open.as_ref().is_some_and(|u| !u.results_only) {
            barrier = Some(out.out_len());
            // Nothing before the barrier joins again: forget it, so the map
            // holds one stretch of replies, not the whole history's ids.
            latest.forget();
        }
    }
    if let Some(u) = open {
        out.push(u.run.finish());
    }
    out.finish()
}

/// `latest` of [`run`]: the output index of the last assistant record with a
/// `message.id`, by that id, since the barrier. The map holds the id's hash,
/// computed where the record was read ([`crate::model::MessageId`]), not the
/// id: neither a lookup that misses nor the map's growth reads an id's text
/// from the input (a run of a million replies with distinct ids would read
/// each one from all over the input). A hit is checked against the record's
/// own id; ids whose hashes collide go to `spill`.
#[derive(Default)]
struct Latest<'a> {
    by_hash: StdMap<u64, usize, BuildHasherDefault<Prehashed>>,
    spill: HashMap<Str<'a>, usize>,
}

impl<'a> Latest<'a> {
    fn get<H>(&self, h: u64, id: &str, out: &mut Relay<'a, H>) -> Option<usize> {
        let &i = self.by_hash.get(&h)?;
        if out.out_mut(i).message_id.as_deref() == Some(id) {
            Some(i)
        } else {
            self.spill.get(id).copied()
        }
    }

    fn insert<H>(&mut self, h: u64, id: &Str<'a>, at: usize, out: &mut Relay<'a, H>) {
        match self.by_hash.entry(h) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(at);
            }
            std::collections::hash_map::Entry::Occupied(mut e) => {
                if out.out_mut(*e.get()).message_id.as_deref() == Some(id) {
                    e.insert(at);
                } else {
                    self.spill.insert(id.clone(), at);
                }
            }
        }
    }

    /// Forgets every id (a barrier); a map that grew is freed, not kept.
    fn forget(&mut self) {
        if !self.by_hash.is_empty() {
            self.by_hash = StdMap::default();
            self.spill = HashMap::new();
        }
    }
}

/// The open user record of [`run`] and whether it holds only tool results and
/// blank text (a seam keeps a blank text blank and a non-blank one non-blank).
struct Open<'a, H> {
    run: UserRun<'a, H>,
    results_only: bool,
}

fn push_user<'a, H>(
    open: &mut Option<Open<'a, H>>,
    u: Record<'a, H>,
    seam: bool,
    report: &mut Report,
) {
    match open {
        Some(o) => {
            o.results_only = o.results_only && tool_results_only(&u);
            o.run.merge(u, seam);
            report.users_merged += 1;
        }
        None => {
            let results_only = tool_results_only(&u);
            *open = Some(Open {
                run: UserRun::new(u),
                results_only,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Latest, Relay};
    use crate::model::{Kind, MessageId, Record, Str};

    #[test]
    fn ids_whose_hashes_collide_are_kept_apart() {
        let mut recs: Vec<Record<'static, ()>> = (0..3)
            .map(|i| Record::new(i, Kind::Assistant, None))
            .collect();
        for (r, id) in recs.iter_mut().zip(["a", "b", "a"]) {
            r.message_id = Some(MessageId::new(Str::Borrowed(id)));
        }
        let mut out = Relay::new(recs);
        let mut latest = Latest::default();
        // every id given the same hash
        for at in 0..3 {
            let id = out.next_mut().unwrap().message_id.clone().unwrap();
            latest.insert(7, id.text(), at, &mut out);
            out.keep();
        }
        assert_eq!(latest.get(7, "a", &mut out), Some(2));
        assert_eq!(latest.get(7, "b", &mut out), Some(1));
        assert_eq!(latest.get(7, "c", &mut out), None);
        assert_eq!(latest.get(8, "a", &mut out), None);
        latest.forget();
        assert_eq!(latest.get(7, "a", &mut out), None);
        assert_eq!(latest.get(7, "b", &mut out), None);
    }
}
