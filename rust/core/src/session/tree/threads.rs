//! The threads of a session (main, other sessions, branches, agents), the
//! first prompt each is listed with, and the chosen thread walked.

use super::*;
use crate::error::{Error, Result};
use crate::model::Content;
use crate::session::{Thread, ThreadKind};

/// The first prompt shown in a thread listing is cut to this many characters.
const PROMPT_CHARS: usize = 200;

/// What a listing can show of a user record: a real prompt, or the name of a
/// slash command (shown only when the thread has no real prompt).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Prompt {
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
pub(super) fn prompt_of<'r>(r: &'r Rec<'_>) -> Option<(Prompt, &'r str)> {
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

/// Finds every thread and walks the chosen one: `(chain, threads, chosen)`.
pub fn choose(
    recs: &[Rec<'_>],
    origin: &[(usize, usize)],
    file_agent: &[Option<&str>],
    packs: &[Packs],
    opts: &Options<'_>,
    report: &mut Report,
) -> Result<(Vec<usize>, Vec<Thread>, usize)> {
    let tree = Tree::new(recs, packs, opts.after_compaction, report);
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
            last_timestamp: recs.get(inf.last_ts).and_then(timestamp).map(str::to_owned),
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
        let leaf = threads[k].leaf.as_deref().and_then(|u| tree.find(u));
        (k, leaf)
    } else if let Some(i) = tree.find(opts.thread) {
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

impl Tree<'_, '_> {
    /// Per node: records since its thread's start, its first prompt, its latest
    /// timestamp. One pass over every node; counts each `parentUuid` cycle once.
    pub(super) fn infos(&self, cut: bool, report: &mut Report) -> Vec<Info> {
        let empty = Info {
            count: 0,
            first_prompt: NONE,
            first_command: NONE,
            last_ts: NONE,
        };
        self.memo(
            |i| self.full_parent(i),
            empty,
            |i, base| {
                let r = &self.recs[i];
                // Read only while the thread has no prompt of that kind yet
                // (a record's text is a cache miss at a million records).
                let wanted = base.first_prompt == NONE || base.first_command == NONE;
                let prompt = if wanted {
                    prompt_of(r).map(|p| p.0)
                } else {
                    None
                };
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
                    last_ts: self.later(base.last_ts, i),
                }
            },
            || report.cycles += 1,
        )
    }
}
