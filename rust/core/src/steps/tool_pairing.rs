//! §4 step 6: every tool_use answered exactly once, by the next record.

use super::{Relay, NO_CONTENT, ORPHANED_TOOL_RESULT, TOOL_RESULT_MISSING};
use crate::error::{Error, Result};
use crate::ids::uuid5_url;
use crate::model::{Block, BlockKind, Content, Kind, Record, Str};
use crate::report::Report;
use ahash::AHashSet as HashSet;

pub fn run<'a, H: Clone>(
    recs: Vec<Record<'a, H>>,
    strict: bool,
    report: &mut Report,
) -> Result<Vec<Record<'a, H>>> {
    // the output is written into the slots of the records already read (an
    // inserted record waits for a free one); a record that goes out as it is
    // stays where it is
    let mut out = Relay::new(recs);
    loop {
        let first = out.out_len() == 0;
        let Some(r) = out.next_mut() else { break };
        if r.kind != Kind::Assistant {
            // A user record whose previous output record is not an assistant
            // (one after an assistant is handled with it, below).
            if matches!(r.content, Content::Blocks(_)) && r.content.has_tool_result() {
                if strict {
                    let ids = result_ids(r);
                    return Err(pairing(
                        r.uuid_from,
                        ids,
                        "tool_result without a tool_use just before it",
                    ));
                }
                let blocks = r.blocks_mut();
                let before = blocks.len();
                blocks.retain(|b| b.kind != BlockKind::ToolResult);
                report.orphan_results_removed += before - blocks.len();
                if blocks.is_empty() {
                    if !first {
                        drop(out.take());
                        continue;
                    }
                    blocks.push(Block::new_text(ORPHANED_TOOL_RESULT));
                }
            }
            out.keep();
            continue;
        }
        let tool_ids: Vec<Str<'a>> = r
            .content
            .blocks()
            .iter()
            .filter(|b| b.kind == BlockKind::ToolUse)
            .map(|b| b.id.clone().unwrap_or_default())
            .collect();
        out.keep();
        let at = out.out_len() - 1;
        if let Some(u) = out.next_mut().filter(|n| n.kind == Kind::User) {
            if !tool_ids.is_empty() || u.content.has_tool_result() {
                pair(&tool_ids, u, strict, report)?;
            }
            out.keep();
        } else if !tool_ids.is_empty() {
            let a = out.out_mut(at);
            if strict {
                let ids = tool_ids.iter().map(|s| s.to_string()).collect();
                return Err(pairing(
                    a.uuid_from,
                    ids,
                    "tool_use without a tool_result in the next record",
                ));
            }
            let uuid = uuid5_url(&format!("msgnorm:tool-results:{}", a.uuid_str()));
            report.missing_results_inserted += tool_ids.len();
            let results = tool_ids
                .into_iter()
                .map(|id| Block::new_error_result(id, TOOL_RESULT_MISSING))
                .collect();
            let ts = a.timestamp.clone();
            let index = a.index;
            out.push(
                Record::new_user(
                    index,
                    Some(Str::Owned(uuid)),
                    ts,
                    true,
                    Content::Blocks(results),
                )
                .inserted(),
            );
        }
    }
    Ok(out.finish())
}

fn pairing(index: usize, ids: Vec<String>, what: &str) -> Error {
    Error::Pairing {
        index,
        msg: format!(
            "records[{index}]: {what} ({}); strict mode repairs nothing",
            ids.join(", ")
        ),
        ids,
    }
}

fn result_ids<H>(r: &Record<'_, H>) -> Vec<String> {
    r.content
        .blocks()
        .iter()
        .filter(|b| b.kind == BlockKind::ToolResult)
        .map(|b| b.id.as_deref().unwrap_or_default().to_string())
        .collect()
}

/// The common case, checked without allocating: the content is a list that
/// starts with exactly one result per id, in `tool_use` order, and holds no
/// other result.
fn already_paired<H>(tool_ids: &[Str<'_>], content: &Content<'_, H>) -> bool {
    let Content::Blocks(blocks) = content else {
        return false;
    };
    if blocks.len() < tool_ids.len() {
        return false;
    }
    let (head, rest) = blocks.split_at(tool_ids.len());
    head.iter()
        .zip(tool_ids)
        .all(|(b, id)| b.kind == BlockKind::ToolResult && b.id.as_deref() == Some(id.as_ref()))
        && !rest.iter().any(|b| b.kind == BlockKind::ToolResult)
}

/// Makes `u` answer exactly `tool_ids`, results first.
fn pair<'a, H>(
    tool_ids: &[Str<'a>],
    u: &mut Record<'a, H>,
    strict: bool,
    report: &mut Report,
) -> Result<()> {
    if already_paired(tool_ids, &u.content) {
        return Ok(());
    }
    let wanted: HashSet<&str> = tool_ids.iter().map(|s| s.as_ref()).collect();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut removed: Vec<String> = Vec::new();
    let mut keep: Vec<bool> = Vec::new();
    let mut results_first = true;
    let mut seen_other = false;
    for b in u.content.blocks() {
        if b.kind == BlockKind::ToolResult {
            let id = b.id.as_deref().unwrap_or_default();
            if wanted.contains(id) && answered.insert(id) {
                keep.push(true);
                if seen_other {
                    results_first = false;
                }
            } else {
                removed.push(id.to_string());
                keep.push(false);
            }
        } else {
            seen_other = true;
            keep.push(true);
        }
    }
    let missing: Vec<Str<'a>> = tool_ids
        .iter()
        .filter(|id| !answered.contains(id.as_ref()))
        .cloned()
        .collect();
    if strict && (!removed.is_empty() || !missing.is_empty() || !results_first) {
        // The user record would change: the missing ids (tool_use order) then the
        // removed ones, or, when only the order would change, all its results.
        let mut ids: Vec<String> = missing.iter().map(|s| s.to_string()).collect();
        ids.extend(removed);
        if ids.is_empty() {
            ids = result_ids(u);
        }
        return Err(pairing(
            u.uuid_from,
            ids,
            "the record after a tool_use must hold exactly its tool_results, first",
        ));
    }
    let removed_count = removed.len();
    let is_str = matches!(u.content, Content::Str(_));
    if removed.is_empty() && missing.is_empty() && results_first && !is_str {
        return Ok(());
    }
    let old = std::mem::replace(&mut u.content, Content::Blocks(Vec::new())).into_blocks(false);
    report.missing_results_inserted += missing.len();
    report.stray_results_removed += removed_count;
    let mut results: Vec<Block<'a, H>> = missing
        .into_iter()
        .map(|id| Block::new_error_result(id, TOOL_RESULT_MISSING))
        .collect();
    let mut rest = Vec::new();
    let mut k = keep.into_iter();
    for b in old {
        // A string content has no `keep` entry: its text block is kept.
        if !k.next().unwrap_or(true) {
            continue;
        }
        if b.kind == BlockKind::ToolResult {
            results.push(b);
        } else {
            rest.push(b);
        }
    }
    results.extend(rest);
    if results.is_empty() {
        results.push(Block::new_text(NO_CONTENT));
        report.no_content_filled += 1;
        u.set_meta(true);
    }
    u.set_content(Content::Blocks(results));
    Ok(())
}
