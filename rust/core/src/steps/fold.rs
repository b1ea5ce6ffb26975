//! §4 step 4: fold into user/assistant records: user merges, streamed assistant
//! re-join, attachments and local commands become meta/plain user records.

use super::super::render::Templates;
use crate::model::{Block, BlockKind, Content, Kind, Record, Str};
use crate::report::Report;
use ahash::AHashMap as HashMap;

/// *User merge* of `b` into `a` (§4 step 4). `seam` adds the `"\n"` between texts.
pub fn user_merge<'a, H>(a: &mut Record<'a, H>, b: Record<'a, H>, seam: bool) {
    let a_meta = a.is_meta;
    let mut blocks =
        std::mem::replace(&mut a.content, Content::Blocks(Vec::new())).into_blocks(false);
    let b_blocks = b.content.into_blocks(false);
    if seam {
        if let (Some(last), Some(first)) = (blocks.last_mut(), b_blocks.first()) {
            if last.kind == BlockKind::Text && first.kind == BlockKind::Text {
                let mut t = last.text.take().unwrap_or_default().into_owned();
                t.push('\n');
                last.text = Some(Str::Owned(t));
                last.dirty = true;
            }
        }
    }
    blocks.extend(b_blocks);
    if blocks.iter().any(|b| b.kind == BlockKind::ToolResult) {
        let (mut results, rest): (Vec<_>, Vec<_>) = blocks
            .into_iter()
            .partition(|b| b.kind == BlockKind::ToolResult);
        results.extend(rest);
        blocks = results;
    }
    a.set_content(Content::Blocks(blocks));
    if a_meta {
        a.uuid = b.uuid;
        a.uuid_from = b.uuid_from;
        a.uuid_dirty = true;
    }
    a.set_meta(a_meta && b.is_meta);
    a.cost.add(b.cost);
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

pub fn run<'a, H>(
    recs: Vec<Record<'a, H>>,
    templates: &Templates,
    report: &mut Report,
) -> Vec<Record<'a, H>> {
    let mut out: Vec<Record<'a, H>> = Vec::with_capacity(recs.len());
    // The re-join walk stops at the last record that is neither an assistant nor
    // a tool-result-only user ("barrier"); `latest[id]` is the last assistant with
    // that message.id. Both make the walk O(1), whatever the history's shape.
    let mut barrier: Option<usize> = None;
    let mut latest: HashMap<Str<'a>, usize> = HashMap::new();
    for mut r in recs {
        match r.kind {
            Kind::System => {
                let content = std::mem::replace(&mut r.content, Content::Str(Str::Borrowed("")));
                let u =
                    Record::new_user(r.index, r.uuid.take(), r.timestamp.take(), false, content);
                push_user(&mut out, u, true, report);
            }
            Kind::User => push_user(&mut out, r, true, report),
            Kind::Attachment => {
                let Some(text) = templates.render(&r.attachment) else {
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
                push_user(&mut out, u, false, report);
            }
            Kind::Assistant => {
                if let Content::Str(s) = &mut r.content {
                    let s = std::mem::take(s);
                    r.set_content(Content::Blocks(Content::Str(s).into_blocks(true)));
                }
                if let Some(id) = r.message_id.clone() {
                    if let Some(&i) = latest.get(&id) {
                        if barrier.is_none_or(|b| i > b) {
                            let blocks = match r.content {
                                Content::Blocks(b) => b,
                                Content::Str(_) => Vec::new(),
                            };
                            let target = &mut out[i];
                            target.blocks_mut().extend(blocks);
                            target.cost.add(r.cost);
                            report.assistant_fragments_joined += 1;
                            continue;
                        }
                    }
                    latest.insert(id, out.len());
                }
                out.push(r);
            }
            _ => {}
        }
        if let Some(last) = out.last() {
            if last.kind == Kind::User && !tool_results_only(last) {
                barrier = Some(out.len() - 1);
            }
        }
    }
    out
}

fn push_user<'a, H>(
    out: &mut Vec<Record<'a, H>>,
    u: Record<'a, H>,
    seam: bool,
    report: &mut Report,
) {
    match out.last_mut() {
        Some(prev) if prev.kind == Kind::User => {
            user_merge(prev, u, seam);
            report.users_merged += 1;
        }
        _ => out.push(u),
    }
}
