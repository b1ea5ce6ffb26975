//! §4 step 5: duplicate tool_use ids, unanswered server tool uses, thinking-only
//! assistant records; then user records made adjacent are merged.

use super::fold::UserRun;
use super::{IdSet, Relay, TOOL_USE_INTERRUPTED};
use crate::error::{Error, Result};
use crate::model::{Block, BlockKind, Kind, Record};
use crate::report::Report;
use ahash::AHashSet as HashSet;

pub fn run<'a, H>(
    recs: Vec<Record<'a, H>>,
    strict: bool,
    report: &mut Report,
) -> Result<Vec<Record<'a, H>>> {
    run_after(recs, strict, report, &HashSet::new())
}

/// [`run`] on records that follow others whose tool_use ids are `before`
/// (an incremental conversation's settled part).
pub fn run_after<'a, H>(
    recs: Vec<Record<'a, H>>,
    strict: bool,
    report: &mut Report,
    before: &HashSet<String>,
) -> Result<Vec<Record<'a, H>>> {
    let mut seen = Seen {
        now: IdSet::default(),
        before,
    };
    // The last user record, open to merges while dropped assistants make the
    // next user record adjacent to it.
    let mut open: Option<UserRun<'a, H>> = None;
    // whether an assistant record was dropped since the open user record:
    // only then is the next user record merged into it (records that came
    // in adjacent are the fold's, step 4, which `convert` may not run)
    let mut joined = false;
    // the final turn: system_prompt records after it go to the system parameter
    let last = super::last_turn(&recs).unwrap_or(usize::MAX);
    // the output is written into the slots of the records already read; a
    // record that goes out as it is stays where it is
    let mut out = Relay::new(recs);
    let mut k = 0;
    while let Some(r) = out.next_mut() {
        k += 1;
        let k = k - 1;
        if r.kind == Kind::Assistant {
            if !clean(r, &mut seen, strict, k == last, report)? {
                report.thinking_only_dropped += 1;
                drop(out.take());
                joined = true;
                continue;
            }
            UserRun::close(&mut open, &mut out);
            out.keep();
        } else if r.kind == Kind::User {
            let r = out.take();
            match &mut open {
                Some(u) if joined => {
                    u.merge(r, true);
                    report.users_merged += 1;
                }
                _ => {
                    UserRun::close(&mut open, &mut out);
                    open = Some(UserRun::new(r));
                }
            }
            joined = false;
        } else {
            UserRun::close(&mut open, &mut out);
            out.keep();
        }
    }
    UserRun::close(&mut open, &mut out);
    Ok(out.finish())
}

/// Cleans one assistant record; `false` when it is to be dropped. `paused`:
/// the record ends the history, so server and MCP tool uses at its end
/// without a result are a paused turn (`pause_turn`) or a call in flight,
/// which the API resumes: they are kept.
fn clean<'a, H>(
    r: &mut Record<'a, H>,
    seen: &mut Seen<'a, '_>,
    strict: bool,
    paused: bool,
    report: &mut Report,
) -> Result<bool> {
    if fast_path(r, seen) {
        return Ok(!only_thinking(r));
    }
    let blocks = r.content.blocks();
    let needs_server_check = blocks
        .iter()
        .any(|b| matches!(b.kind, BlockKind::ServerToolUse | BlockKind::McpToolUse));
    let server_results: HashSet<&str> = if needs_server_check {
        blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ServerResult)
            .filter_map(|b| b.id.as_deref())
            .collect()
    } else {
        HashSet::new()
    };
    // the unanswered server uses that end a paused turn: from here on. A
    // record that also holds a client tool_use is not a paused turn: its
    // missing result is inserted after it (step 6), so it would no longer end
    // the history and a second pass would remove the uses.
    let paused = paused && !blocks.iter().any(|b| b.kind == BlockKind::ToolUse);
    let tail = if paused {
        blocks.len()
            - blocks
                .iter()
                .rev()
                .take_while(|b| {
                    matches!(b.kind, BlockKind::ServerToolUse | BlockKind::McpToolUse)
                        && !b
                            .id
                            .as_deref()
                            .is_some_and(|id| server_results.contains(id))
                })
                .count()
    } else {
        blocks.len()
    };
    let mut keep = Vec::with_capacity(blocks.len());
    let mut removed: Vec<String> = Vec::new();
    let mut dup = false;
    for (j, b) in blocks.iter().enumerate() {
        let ok = match b.kind {
            BlockKind::ToolUse => {
                let id = b.id.clone().unwrap_or_default();
                if seen.contains(&id) {
                    dup = true;
                    report.duplicate_tool_uses_removed += 1;
                    false
                } else {
                    seen.now.insert(id);
                    true
                }
            }
            BlockKind::ServerToolUse | BlockKind::McpToolUse => {
                let ok = j >= tail
                    || b.id
                        .as_deref()
                        .is_some_and(|id| server_results.contains(id));
                if !ok {
                    report.unanswered_server_tool_uses_removed += 1;
                }
                ok
            }
            _ => true,
        };
        if !ok {
            removed.push(b.id.as_deref().unwrap_or_default().to_string());
        }
        keep.push(ok);
    }
    if !removed.is_empty() {
        if strict {
            let what = if dup {
                "a tool_use id that already appeared"
            } else {
                "a server tool use without its result"
            };
            return Err(Error::Pairing {
                index: r.uuid_from,
                msg: format!(
                    "records[{}]: {what} ({}); strict mode repairs nothing",
                    r.uuid_from,
                    removed.join(", ")
                ),
                ids: removed,
            });
        }
        let had = keep.len();
        let mut it = keep.into_iter();
        let blocks = r.blocks_mut();
        blocks.retain(|_| it.next().unwrap_or(true));
        if blocks.is_empty() && had > 0 {
            blocks.push(Block::new_text(TOOL_USE_INTERRUPTED));
        }
    }
    Ok(!only_thinking(r))
}

/// Non-empty, and nothing but thinking and blank text.
fn only_thinking<H>(r: &Record<'_, H>) -> bool {
    let bs = r.content.blocks();
    !bs.is_empty() && bs.iter().all(|b| b.kind.is_thinking() || b.is_blank_text())
}

/// The common case, without allocating: no server tool use and no repeated
/// tool_use id (the ids are recorded as seen). `false` leaves `seen` as it was.
fn fast_path<'a, H>(r: &Record<'a, H>, seen: &mut Seen<'a, '_>) -> bool {
    let blocks = r.content.blocks();
    if blocks
        .iter()
        .any(|b| matches!(b.kind, BlockKind::ServerToolUse | BlockKind::McpToolUse))
    {
        return false;
    }
    let uses = || blocks.iter().filter(|b| b.kind == BlockKind::ToolUse);
    for (added, b) in uses().enumerate() {
        let id = b.id.clone().unwrap_or_default();
        if seen.contains(&id) {
            // Undo: the slow path records the ids itself.
            for b in uses().take(added) {
                seen.now.remove(b.id.as_deref().unwrap_or_default());
            }
            return false;
        }
        seen.now.insert(id);
    }
    true
}

/// The tool_use ids met so far: in this call, and before it.
struct Seen<'a, 'b> {
    now: IdSet<'a>,
    before: &'b HashSet<String>,
}

impl Seen<'_, '_> {
    fn contains(&self, id: &str) -> bool {
        self.now.contains(id) || (!self.before.is_empty() && self.before.contains(id))
    }
}
