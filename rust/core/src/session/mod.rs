//! Claude Code session files → threads (SPEC §8, `docs/SPEC.md`).
//!
//! A session file is not a flat list: its records form a tree through
//! `parentUuid`. Forks (an edited or retried prompt), subagent sidechains,
//! parallel tool calls and compactions all live in it. [`load`] reads one or
//! more files forgivingly ([`lines`]), pools their records (a uuid replayed in
//! several files is kept once), finds every thread ([`tree`]) and returns the
//! chosen one's records in order, ready for [`crate::normalize_for_api`].
//!
//! Every walk is iterative and remembers what it has seen: cycles, missing
//! parents and chains of millions of records never hang or recurse.

pub mod codex;
pub mod compact;
pub mod fit;
pub mod lines;
pub mod tree;

pub use fit::Fit;

use crate::error::{Error, Result};
use crate::json::Raw;
use crate::model::Record;

/// One input file: its display name, its bytes, and the agent id its name
/// gives (`agent-<id>.jsonl`), if any.
#[derive(Clone, Copy, Debug)]
pub struct SourceFile<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
    pub agent_id: Option<&'a str>,
}

/// A line that was left out or read in an unusual way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIssue {
    /// Index into the loaded files.
    pub file: usize,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters; `None` for the whole line.
    pub column: Option<usize>,
    pub reason: String,
}

/// What loading found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub lines: usize,
    pub records: usize,
    /// Lines (or records of a line) that were left out.
    pub skipped: Vec<LineIssue>,
    /// Lines holding several JSON values, each read as a record.
    pub repaired: Vec<LineIssue>,
    /// Records whose uuid an earlier record already had (the last one is kept).
    pub duplicate_uuids: usize,
    /// `parentUuid` (or `logicalParentUuid`) values naming no record.
    pub missing_parents: usize,
    /// Walks that met a record again (a `parentUuid` cycle).
    pub cycles: usize,
    /// Records of parallel tool turns put back on the chosen thread.
    pub recovered: usize,
    /// Compactions on the chosen thread's whole history.
    pub compactions: usize,
    /// Records of the chosen thread left out because they precede its last compaction.
    pub before_compaction: usize,
    /// Records of partial compactions' preserved segments relinked after their summary.
    pub preserved: usize,
    /// Preserved segments left as written (their metadata names a missing
    /// record or its `tailUuid`→`headUuid` walk breaks).
    pub unlinked_segments: usize,
    /// `microcompact_boundary` records on the chosen thread.
    pub microcompactions: usize,
    /// Tool call ids of results on the chosen thread that a microcompaction
    /// after them cleared (in order).
    pub cleared_results: Vec<String>,
    /// Codex rollouts: response items that are no API input (`ghost_snapshot`,
    /// ...), left out.
    pub client_only: usize,
}

impl Report {
    fn skip(&mut self, file: usize, line: usize, column: Option<usize>, reason: String) {
        self.skipped.push(LineIssue {
            file,
            line,
            column,
            reason,
        });
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadKind {
    /// The conversation Claude Code would resume: the latest main-chain leaf.
    Main,
    /// Another leaf of the main conversation (an abandoned fork).
    Branch,
    /// The latest leaf of another session (when several files are loaded).
    Session,
    /// A subagent's conversation (sidechain records, or a subagent file).
    Agent,
}

impl ThreadKind {
    pub fn name(self) -> &'static str {
        match self {
            ThreadKind::Main => "main",
            ThreadKind::Branch => "branch",
            ThreadKind::Session => "session",
            ThreadKind::Agent => "agent",
        }
    }
}

/// One thread of the loaded session(s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// What `thread=` takes to select it: `main`, a leaf uuid, a session id or an agent id.
    pub id: String,
    pub kind: ThreadKind,
    pub leaf: Option<String>,
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub file: Option<usize>,
    /// Records on its path from its start (after the last compaction) to its leaf;
    /// for the chosen thread, the records returned.
    pub records: usize,
    pub first_prompt: String,
    pub last_timestamp: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Options<'t> {
    /// `main`, an agent id, a session id, or a record uuid.
    pub thread: &'t str,
    /// Start at the last compaction (what Claude Code sends); else follow
    /// `logicalParentUuid` across compactions for the whole history.
    pub after_compaction: bool,
    /// Raise on the first broken line instead of skipping it.
    pub raise: bool,
    /// The records returned become Python objects of these limits: a record of
    /// the thread that cannot is left out like a broken line ([`fit`]).
    pub fit: Option<Fit>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            thread: "main",
            after_compaction: true,
            raise: false,
            fit: None,
        }
    }
}

/// The loaded pool of records and the chosen thread.
pub struct Loaded<'a> {
    /// Every record read, files in order (oldest first).
    pub records: Vec<Record<'a, Raw<'a>>>,
    /// Per record: its file and line.
    pub origin: Vec<(usize, usize)>,
    /// The chosen thread: indices into `records`, in order.
    pub chain: Vec<usize>,
    pub threads: Vec<Thread>,
    /// Index into `threads` of the chosen one.
    pub chosen: usize,
    pub report: Report,
}

impl<'a> Loaded<'a> {
    /// The size of [`Loaded::write_chain`]'s output.
    pub fn chain_len(&self) -> usize {
        let texts: usize = self
            .chain
            .iter()
            .map(|&i| out_text(&self.records[i]).len())
            .sum();
        texts + self.chain.len().saturating_sub(1) + 2
    }

    /// Writes the chosen thread's records as a JSON array into `buf`, which
    /// must be [`Loaded::chain_len`] bytes long.
    pub fn write_chain_into(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() != self.chain_len() {
            return Err(Error::value(
                "internal error: the output buffer does not fit the thread",
            ));
        }
        let mut pos = 0;
        let mut put = |bytes: &[u8]| {
            buf[pos..pos + bytes.len()].copy_from_slice(bytes);
            pos += bytes.len();
        };
        put(b"[");
        for (k, &i) in self.chain.iter().enumerate() {
            if k > 0 {
                put(b",");
            }
            put(out_text(&self.records[i]).as_bytes());
        }
        put(b"]");
        Ok(())
    }

    /// The chosen thread's records as a JSON array, each exactly as written
    /// (a record that repeats a key: as Python's `json` reads it, SPEC §1).
    pub fn write_chain(&self) -> Vec<u8> {
        let mut out = vec![0; self.chain_len()];
        // The buffer is sized by `chain_len`: writing cannot fail.
        self.write_chain_into(&mut out)
            .map_or_else(|_| Vec::new(), |()| out)
    }

    /// The chosen thread's records, moved out of the pool.
    pub fn into_chain(self) -> Vec<Record<'a, Raw<'a>>> {
        let mut slots: Vec<Option<Record<'a, Raw<'a>>>> =
            self.records.into_iter().map(Some).collect();
        self.chain
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
            .collect()
    }
}

fn raw_text<'a>(r: &Record<'a, Raw<'a>>) -> &'a str {
    r.orig.map_or("null", |o| o.text)
}

/// A record's text in the output: as written, or, when it repeats a key,
/// without the members a later one of their key shadows (SPEC §1).
fn out_text<'a>(r: &Record<'a, Raw<'a>>) -> std::borrow::Cow<'a, str> {
    match r.orig {
        Some(o) if o.dup => {
            let mut v = Vec::with_capacity(o.text.len());
            // The text was read as JSON: writing it again cannot fail.
            match crate::json::write::write_dedup(&mut v, o.text).map(|()| String::from_utf8(v)) {
                Ok(Ok(s)) => std::borrow::Cow::Owned(s),
                _ => std::borrow::Cow::Borrowed(o.text),
            }
        }
        _ => std::borrow::Cow::Borrowed(raw_text(r)),
    }
}

/// Loads session files (a session, its subagent files, or every session of a
/// project directory) and picks a thread (SPEC §8).
pub fn load<'a>(files: &[SourceFile<'a>], opts: &Options<'_>) -> Result<Loaded<'a>> {
    let mut report = Report::default();
    let mut per_file = Vec::with_capacity(files.len());
    for (k, f) in files.iter().enumerate() {
        let read =
            lines::read_file(f.data, k, opts.raise, &mut report).map_err(|e| in_file(e, f))?;
        per_file.push(read);
    }
    // Oldest file first: a leaf's position decides which is the latest.
    let mut order: Vec<usize> = (0..files.len()).collect();
    let newest: Vec<Option<&str>> = per_file
        .iter()
        .map(|f| {
            f.records
                .iter()
                .filter_map(|r| r.links.as_ref()?.timestamp.as_deref())
                .max()
        })
        .collect();
    order.sort_by(|&a, &b| {
        newest[a]
            .cmp(&newest[b])
            .then_with(|| files[a].name.cmp(files[b].name))
    });
    // The pool in that order, each vector sized once (a single file's records
    // are moved, not copied: at a million records they are a quarter gigabyte).
    let total: usize = per_file.iter().map(|f| f.records.len()).sum();
    let mut records = Vec::new();
    let mut origin = Vec::with_capacity(total);
    let mut file_agent = Vec::with_capacity(total);
    let mut packs = Vec::new();
    let mut slots: Vec<Option<lines::FileRecords<'a>>> = per_file.into_iter().map(Some).collect();
    for &k in &order {
        let Some(f) = slots[k].take() else { continue };
        origin.extend(f.lines.iter().map(|&line| (k, line)));
        file_agent.extend(f.lines.iter().map(|_| files[k].agent_id));
        if records.is_empty() {
            records = f.records;
            records.reserve_exact(total - records.len());
            packs = f.packs;
            packs.reserve_exact(total - packs.len());
        } else {
            records.extend(f.records);
            packs.extend(f.packs);
        }
    }
    report.records = records.len();
    let read = report.clone();
    let (mut chain, mut threads, mut chosen) =
        tree::choose(&records, &origin, &file_agent, &packs, opts, &mut report)?;
    if let Some(limits) = opts.fit {
        // The chosen thread first; should leaving its unfit records out bring
        // others onto it, every record: at most three choices in all.
        let mut dropped: Vec<LineIssue> = Vec::new();
        for round in 0..2 {
            let check = |i: usize| fit::unfit(raw_text(&records[i]), limits).map(|w| (i, w));
            let mut unfit: Vec<(usize, String)> = chain.iter().filter_map(|&i| check(i)).collect();
            if unfit.is_empty() {
                break;
            }
            if round > 0 {
                unfit = (0..records.len()).filter_map(check).collect();
            }
            unfit.sort_by_key(|u| u.0);
            let mut keep = vec![true; records.len()];
            for (i, reason) in unfit {
                let (file, line) = origin[i];
                if opts.raise {
                    return Err(Error::value(format!(
                        "line {line} of {}: {reason}",
                        files[file].name
                    )));
                }
                keep[i] = false;
                dropped.push(LineIssue {
                    file,
                    line,
                    column: None,
                    reason,
                });
            }
            keep_marked(&mut records, &keep);
            keep_marked(&mut origin, &keep);
            keep_marked(&mut file_agent, &keep);
            keep_marked(&mut packs, &keep);
            report = read.clone();
            report.records = records.len();
            report.skipped.extend(dropped.iter().cloned());
            (chain, threads, chosen) =
                tree::choose(&records, &origin, &file_agent, &packs, opts, &mut report)?;
        }
        if !dropped.is_empty() {
            report.skipped.sort_by_key(|i| (i.file, i.line));
        }
    }
    Ok(Loaded {
        records,
        origin,
        chain,
        threads,
        chosen,
        report,
    })
}

/// Keeps the items of `v` whose place in `keep` is `true` (the pool's parallel
/// vectors, thinned alike).
fn keep_marked<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut k = keep.iter();
    v.retain(|_| *k.next().unwrap_or(&true));
}

/// Names the file in an error raised while reading it.
fn in_file(e: Error, f: &SourceFile<'_>) -> Error {
    match e {
        Error::Json { line, column, msg } => Error::Json {
            line,
            column,
            msg: format!("{msg} (in {})", f.name),
        },
        Error::InvalidRecord { index, path, msg } => Error::InvalidRecord {
            index,
            path,
            msg: format!("{msg} (in {})", f.name),
        },
        other => other,
    }
}
