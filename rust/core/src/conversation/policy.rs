//! Context editing as a policy of a [`Conversation`] (docs/CONVERSATION.md,
//! "Context editing").
//!
//! The output is the normalized history with what earlier *events* cleared
//! applied again (the [`Sticky`] state: tool_use ids and assistant uuids), so
//! that the settled output stays byte for byte as it is between events. An
//! event fires when the output read after an append is over the policy's
//! trigger and [`crate::editing::edit`] on that output would free at
//! least `clear_at_least` tokens; it changes the output from its
//! `first_changed` record on, which is where the provider's prompt cache is
//! invalidated, and is recorded in [`Conversation::edits`].

use super::{Conversation, Rec, Tail, Texts};
use crate::editing::{
    self, apply_sticky, current_loop, ClearInputs, EditReport, Sticky, ThinkingOptions,
    ToolOptions, Touched, Trigger,
};
use crate::error::Result;
use crate::json::{read_records, tool_use_info, ReadOpts};
use crate::model::{BlockKind, Kind};
use crate::{cutoff, tokens};

/// What a conversation clears, and when.
#[derive(Clone, Debug)]
pub struct Policy {
    /// When an event may fire: output tokens (§6, the conversation's counting
    /// parameters) over a number, or more `tool_use` blocks than a number among
    /// those no event has reached yet.
    pub trigger: Trigger,
    /// An event fires only if it frees at least this many tokens (results,
    /// inputs and thinking together).
    pub clear_at_least: u64,
    /// Tool results (and inputs) to clear; its own `trigger` and
    /// `clear_at_least` are not used.
    pub tools: Option<ToolOptions>,
    pub thinking: Option<ThinkingOptions>,
}

/// One time the policy fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditEvent {
    /// Records appended when it fired.
    pub input_len: usize,
    /// What it cleared; `first_changed` is an output position.
    pub report: EditReport,
}

/// The edited output: the policy, what it cleared so far, and the edited form
/// of the settled output (rebuilt from an event's first changed record on).
#[derive(Clone, Debug)]
pub(super) struct Edited {
    pub policy: Policy,
    pub sticky: Sticky,
    pub events: Vec<EditEvent>,
    /// Cache breakpoints of the edited output (those of the normalized output
    /// that no event has invalidated since).
    pub marks: Vec<usize>,
    /// The base conversation's marks seen so far, and its rewrites.
    pub marks_seen: usize,
    pub rewrites_seen: usize,
    pub out: Texts,
    pub costs: Vec<u64>,
    pub turn: Vec<bool>,
    /// tool_use blocks per settled record that no event has reached.
    pub live: Vec<u64>,
    /// The last settled record with a tool_use block.
    pub last_loop: Option<usize>,
    pub tail: Option<Tail>,
    pub tail_live: u64,
}

impl Edited {
    pub fn new(policy: Policy) -> Edited {
        Edited {
            policy,
            sticky: Sticky::default(),
            events: Vec::new(),
            marks: Vec::new(),
            marks_seen: 0,
            rewrites_seen: 0,
            out: Texts::array(),
            costs: Vec::new(),
            turn: Vec::new(),
            live: Vec::new(),
            last_loop: None,
            tail: None,
            tail_live: 0,
        }
    }

    fn placeholder(&self) -> &str {
        self.policy
            .tools
            .as_ref()
            .map_or(crate::editing::DEFAULT_PLACEHOLDER, |t| {
                t.placeholder.as_str()
            })
    }

    fn truncate(&mut self, n: usize) {
        self.out.truncate(n);
        self.costs.truncate(n);
        self.turn.truncate(n);
        self.live.truncate(n);
        self.last_loop = self.last_loop.filter(|&i| i < n);
    }
}

fn live_uses(r: &Rec<'_>, sticky: &Sticky) -> u64 {
    r.content
        .blocks()
        .iter()
        .filter(|b| {
            b.kind == BlockKind::ToolUse
                && !b
                    .id
                    .as_deref()
                    .is_some_and(|id| sticky.handled.contains(id))
        })
        .count() as u64
}

fn has_tool_use(r: &Rec<'_>) -> bool {
    r.kind == Kind::Assistant
        && r.content
            .blocks()
            .iter()
            .any(|b| b.kind == BlockKind::ToolUse)
}

/// Edited records `json` (a JSON array of output records starting at output
/// position `at`): texts, costs, turn starts and live tool uses. `loop_at` is
/// the current tool loop's position in the whole output, if known.
///
/// Until an event has cleared something the edited records are the normalized
/// ones: `base` (their costs and turn starts) is taken as it is.
#[allow(clippy::type_complexity)]
fn edit_texts(
    e: &Edited,
    json: &str,
    at: usize,
    loop_at: Option<usize>,
    p: &tokens::CountParams,
    base: (&Texts, usize, usize, &[u64], &[bool]),
) -> Result<(Vec<String>, Vec<u64>, Vec<bool>, Vec<u64>)> {
    if e.sticky.is_empty() {
        let (texts, i, j, costs, turn) = base;
        let live = match e.policy.trigger {
            // Live tool uses are all of them: count them only where the trigger needs it.
            Trigger::ToolUses(_) => read_records(json, ReadOpts::default())?
                .iter()
                .map(|r| live_uses(r, &e.sticky))
                .collect(),
            Trigger::InputTokens(_) => vec![0; j - i],
        };
        return Ok((
            (i..j).map(|k| texts.get(k).to_owned()).collect(),
            costs.to_vec(),
            turn.to_vec(),
            live,
        ));
    }
    let mut recs = read_records(json, ReadOpts::COUNT)?;
    let answer_at = loop_at
        .map(|i| i + 1)
        .filter(|&j| j >= at && recs.get(j - at).is_some_and(|r| r.kind == Kind::User));
    let protected = |i: usize| Some(i + at) == loop_at || Some(i + at) == answer_at;
    apply_sticky(
        &mut recs,
        &e.sticky,
        e.placeholder(),
        &protected,
        &tool_use_info,
    )?;
    let costs = tokens::per_record(&recs, p)?;
    let turn = recs.iter().map(cutoff::is_turn_start).collect();
    let live = recs.iter().map(|r| live_uses(r, &e.sticky)).collect();
    let texts = recs
        .iter()
        .map(super::record_json)
        .collect::<Result<Vec<_>>>()?;
    Ok((texts, costs, turn, live))
}

impl Conversation {
    /// Sets (or, with `None`, removes) the context-editing policy. What earlier
    /// events cleared is forgotten.
    pub fn set_policy(&mut self, policy: Option<Policy>) -> Result<()> {
        if let Some(t) = policy.as_ref().and_then(|p| p.tools.as_ref()) {
            t.check()?;
        }
        self.edited = policy.map(|p| Box::new(Edited::new(p)));
        Ok(())
    }

    pub fn policy(&self) -> Option<&Policy> {
        self.edited.as_ref().map(|e| &e.policy)
    }

    /// The times the policy fired, oldest first.
    pub fn edits(&mut self) -> Result<&[EditEvent]> {
        self.update()?;
        Ok(self.edited.as_ref().map_or(&[], |e| e.events.as_slice()))
    }

    /// What earlier events cleared (empty without a policy).
    pub fn sticky(&self) -> Option<&Sticky> {
        self.edited.as_ref().map(|e| &e.sticky)
    }

    /// Brings the edited output up to date with the normalized one, and fires
    /// the policy if it must.
    pub(super) fn update_edited(&mut self) -> Result<()> {
        let Some(mut e) = self.edited.take() else {
            return Ok(());
        };
        let r = self.loop_came_back(&e).and_then(|back| {
            if back {
                // The edited settled output changes: a rewrite, edited again
                // from the start.
                self.rewrites += 1;
            }
            self.refresh_edited(&mut e)
        });
        self.edited = Some(e);
        r
    }

    /// Whether the current tool loop is an edited settled record again, and
    /// an earlier event cleared something in it: a later loop went (a
    /// tombstone removed the reply that held it). The current loop is never
    /// touched, so what was cleared in it comes back.
    fn loop_came_back(&self, e: &Edited) -> Result<bool> {
        let Some(l) = e.last_loop else {
            return Ok(false);
        };
        if e.sticky.is_empty() || e.tail.is_some() {
            return Ok(false);
        }
        let edited = e.out.len().min(self.out.len());
        let differs = |i: usize| i < edited && e.out.get(i) != self.out.get(i);
        if !differs(l) && !differs(l + 1) {
            return Ok(false);
        }
        // A loop in the settled records not edited yet, or in the open tail,
        // is the current one.
        let later = self.out.array_of(edited, self.out.len());
        let tail = self
            .tail
            .as_ref()
            .map_or_else(String::new, |t| t.out.array_of(0, t.out.len()));
        for json in [later, tail] {
            if json.len() > 2
                && read_records(&json, ReadOpts::default())?
                    .iter()
                    .any(has_tool_use)
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn refresh_edited(&self, e: &mut Edited) -> Result<()> {
        if e.tail.is_some() {
            return Ok(());
        }
        if e.rewrites_seen != self.rewrites {
            // The normalized output changed from the start: edit it all again.
            e.truncate(0);
            e.marks.clear();
            e.marks_seen = 0;
            e.rewrites_seen = self.rewrites;
        }
        e.marks
            .extend_from_slice(&self.marks[e.marks_seen.min(self.marks.len())..]);
        e.marks_seen = self.marks.len();
        self.edit_settled(e)?;
        self.edit_tail(e)?;
        self.maybe_fire(e)
    }

    /// Extends the edited settled output to the normalized one's length.
    fn edit_settled(&self, e: &mut Edited) -> Result<()> {
        let from = e.out.len();
        let to = self.out.len();
        if from >= to {
            return Ok(());
        }
        let json = self.out.array_of(from, to);
        let base = (
            &self.out,
            from,
            to,
            &self.costs[from..to],
            &self.turn[from..to],
        );
        if e.sticky.is_empty() {
            let (texts, costs, turn, live) =
                edit_texts(e, &json, from, None, &self.settings.count, base)?;
            for t in &texts {
                e.out.push(t);
            }
            e.costs.extend(costs);
            e.turn.extend(turn);
            e.live.extend(live);
            return Ok(());
        }
        // The current tool loop: the last record with tool_use in the whole
        // output (the tail's, when it has one).
        let tail_json = self
            .tail
            .as_ref()
            .map_or_else(String::new, |t| t.out.array_of(0, t.out.len()));
        let tail_loop = if tail_json.len() > 2 {
            let recs = read_records(&tail_json, ReadOpts::default())?;
            current_loop(&recs).0.map(|i| i + to)
        } else {
            None
        };
        let settled_loop = read_records(&json, ReadOpts::default())?
            .iter()
            .rposition(has_tool_use)
            .map(|i| i + from)
            .or(e.last_loop);
        let (texts, costs, turn, live) = edit_texts(
            e,
            &json,
            from,
            tail_loop.or(settled_loop),
            &self.settings.count,
            base,
        )?;
        e.last_loop = settled_loop;
        for t in &texts {
            e.out.push(t);
        }
        e.costs.extend(costs);
        e.turn.extend(turn);
        e.live.extend(live);
        Ok(())
    }

    fn edit_tail(&self, e: &mut Edited) -> Result<()> {
        let Some(t) = self.tail.as_ref() else {
            return Ok(());
        };
        let at = self.out.len();
        let json = t.out.array_of(0, t.out.len());
        let loop_at = if e.sticky.is_empty() {
            None
        } else {
            read_records(&json, ReadOpts::default())?
                .iter()
                .rposition(has_tool_use)
                .map(|i| i + at)
                .or(e.last_loop)
        };
        let base = (&t.out, 0, t.out.len(), &t.costs[..], &t.turn[..]);
        let (texts, costs, turn, live) =
            edit_texts(e, &json, at, loop_at, &self.settings.count, base)?;
        let mut out = Texts::new(',');
        for t in &texts {
            out.push(t);
        }
        e.tail_live = live.iter().sum();
        e.tail = Some(Tail {
            out,
            costs,
            turn,
            report: t.report.clone(),
        });
        Ok(())
    }

    /// Fires the policy when the edited output is over its trigger and the
    /// edit frees enough.
    fn maybe_fire(&self, e: &mut Edited) -> Result<()> {
        let tail = e.tail.as_ref();
        let over = match e.policy.trigger {
            Trigger::InputTokens(n) => {
                let total = e
                    .costs
                    .iter()
                    .chain(tail.map_or(&[][..], |t| &t.costs))
                    .fold(0u64, |a, &b| a.saturating_add(b));
                total > n
            }
            Trigger::ToolUses(n) => e.live.iter().sum::<u64>() + e.tail_live > n,
        };
        if !over {
            return Ok(());
        }
        let tail_json = tail.map_or_else(String::new, |t| t.out.array_of(0, t.out.len()));
        let mut all = e.out.array_of(0, e.out.len());
        if tail_json.len() > 2 {
            if all.len() > 2 {
                all.pop();
                all.push(',');
                all.push_str(&tail_json[1..]);
            } else {
                all = tail_json;
            }
        }
        let mut recs = read_records(&all, ReadOpts::COUNT)?;
        let tools = e.policy.tools.clone().map(|mut t| {
            // The policy decided: clear all but the last `keep`.
            t.trigger = Trigger::ToolUses(0);
            t.clear_at_least = 0;
            t
        });
        let mut touched = Touched::default();
        let report = editing::edit(
            &mut recs,
            tools.as_ref(),
            e.policy.thinking,
            &self.settings.count,
            &tool_use_info,
            Some(&mut touched),
        )?;
        let saved = report.tokens_before.saturating_sub(report.tokens_after);
        let Some(first) = report.first_changed else {
            return Ok(());
        };
        if saved < e.policy.clear_at_least.max(1) {
            return Ok(());
        }
        e.sticky.extend(touched, &recs);
        drop(recs);
        // Rebuild the edited output from the first changed record on.
        let keep = first.min(self.out.len());
        e.truncate(keep);
        e.tail = None;
        e.marks.retain(|&m| m <= first);
        e.last_loop = self.settled_loop(keep)?;
        self.edit_settled(e)?;
        self.edit_tail(e)?;
        e.events.push(EditEvent {
            input_len: self.input.len(),
            report,
        });
        Ok(())
    }

    /// The last normalized settled record with a tool_use block before `n`.
    fn settled_loop(&self, n: usize) -> Result<Option<usize>> {
        if n == 0 {
            return Ok(None);
        }
        let json = self.out.array_of(0, n);
        let recs = read_records(&json, ReadOpts::default())?;
        Ok(recs.iter().rposition(has_tool_use))
    }
}

/// Saves the policy and what it cleared (the edited output is rebuilt on load).
pub(super) fn write(w: &mut super::fields::Writer, e: Option<&Edited>) {
    let Some(e) = e else {
        w.u64(0);
        return;
    };
    w.u64(1);
    let p = &e.policy;
    let trigger = |w: &mut super::fields::Writer, t: Trigger| match t {
        Trigger::InputTokens(n) => {
            w.u64(0);
            w.u64(n);
        }
        Trigger::ToolUses(n) => {
            w.u64(1);
            w.u64(n);
        }
    };
    trigger(w, p.trigger);
    w.u64(p.clear_at_least);
    match &p.tools {
        None => w.u64(0),
        Some(t) => {
            w.u64(1);
            trigger(w, t.trigger);
            w.usize(t.keep);
            w.u64(t.clear_at_least);
            w.strings(t.exclude_tools.iter());
            match &t.clear_inputs {
                ClearInputs::None => w.u64(0),
                ClearInputs::All => w.u64(1),
                ClearInputs::Tools(v) => {
                    w.u64(2);
                    w.strings(v.iter());
                }
            }
            w.bytes(t.placeholder.as_bytes());
        }
    }
    match p.thinking {
        None => w.u64(0),
        Some(th) => {
            w.u64(1);
            match th.keep_turns {
                None => w.u64(0),
                Some(k) => {
                    w.u64(1);
                    w.usize(k);
                }
            }
        }
    }
    for set in [
        &e.sticky.results,
        &e.sticky.inputs,
        &e.sticky.handled,
        &e.sticky.thinking,
    ] {
        let mut v: Vec<&String> = set.iter().collect();
        v.sort();
        w.strings(v.into_iter());
    }
    w.usize(e.events.len());
    for ev in &e.events {
        let r = &ev.report;
        w.usize(ev.input_len);
        for n in [
            r.results_cleared,
            r.inputs_cleared,
            r.thinking_cleared,
            r.tokens_before,
            r.tokens_after,
        ] {
            w.u64(n);
        }
        match r.first_changed {
            None => w.u64(0),
            Some(f) => {
                w.u64(1);
                w.usize(f);
            }
        }
    }
    w.usize(e.marks.len());
    for &m in &e.marks {
        w.usize(m);
    }
}

/// What [`write`] saved; `out_len` is the settled output's length.
pub(super) fn read(
    r: &mut super::fields::Reader<'_>,
    out_len: usize,
    marks_seen: usize,
    rewrites: usize,
) -> Result<Option<Box<Edited>>> {
    if !r.flag()? {
        return Ok(None);
    }
    let trigger = |r: &mut super::fields::Reader<'_>| -> Result<Trigger> {
        Ok(match r.u64()? {
            0 => Trigger::InputTokens(r.u64()?),
            1 => Trigger::ToolUses(r.u64()?),
            _ => return Err(super::fields::corrupt("the policy's trigger")),
        })
    };
    let t0 = trigger(r)?;
    let clear_at_least = r.u64()?;
    let tools = if r.flag()? {
        let trigger = trigger(r)?;
        let keep = r.usize()?;
        let least = r.u64()?;
        let exclude_tools = r.strings()?;
        let clear_inputs = match r.u64()? {
            0 => ClearInputs::None,
            1 => ClearInputs::All,
            2 => ClearInputs::Tools(r.strings()?),
            _ => return Err(super::fields::corrupt("the policy's tool inputs")),
        };
        let placeholder = r.string()?;
        let t = ToolOptions {
            trigger,
            keep,
            clear_at_least: least,
            exclude_tools,
            clear_inputs,
            placeholder,
        };
        t.check()?;
        Some(t)
    } else {
        None
    };
    let thinking = if r.flag()? {
        Some(ThinkingOptions {
            keep_turns: if r.flag()? { Some(r.usize()?) } else { None },
        })
    } else {
        None
    };
    let mut e = Edited::new(Policy {
        trigger: t0,
        clear_at_least,
        tools,
        thinking,
    });
    e.sticky.results = r.strings()?.into_iter().collect();
    e.sticky.inputs = r.strings()?.into_iter().collect();
    e.sticky.handled = r.strings()?.into_iter().collect();
    e.sticky.thinking = r.strings()?.into_iter().collect();
    let n = r.count(7 * 8)?;
    for _ in 0..n {
        let input_len = r.usize()?;
        let mut v = [0u64; 5];
        for x in &mut v {
            *x = r.u64()?;
        }
        let first_changed = if r.flag()? { Some(r.usize()?) } else { None };
        e.events.push(EditEvent {
            input_len,
            report: EditReport {
                results_cleared: v[0],
                inputs_cleared: v[1],
                thinking_cleared: v[2],
                tokens_before: v[3],
                tokens_after: v[4],
                first_changed,
            },
        });
    }
    let nm = r.count(8)?;
    e.marks = (0..nm).map(|_| r.usize()).collect::<Result<_>>()?;
    if e.marks.iter().any(|&m| m > out_len) {
        return Err(super::fields::corrupt("the policy's marks"));
    }
    e.marks_seen = marks_seen;
    e.rewrites_seen = rewrites;
    Ok(Some(Box::new(e)))
}
