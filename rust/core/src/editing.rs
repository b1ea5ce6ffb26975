//! Context editing (issue 15): clear old tool results (and tool inputs) and old
//! thinking blocks, the way Anthropic's `clear_tool_uses_20250919` and
//! `clear_thinking_20251015` strategies do, client-side.
//!
//! Rules: a `tool_result` is replaced by a placeholder, never removed (the
//! pairing of §4 holds); the current tool loop (the last assistant record with
//! `tool_use` blocks, the user record right after it, and that assistant's
//! thinking) is never touched; nothing before the first changed record
//! changes; no content list is left empty; other records pass through.
//! Linear in the size of the history.

use crate::error::{Error, Result};
use crate::model::{BlockKind, Content, Cost, Kind, Record};
use crate::tokens::{classes_of, cost_tokens, per_record, CountParams, Tokenizer};
use ahash::{AHashMap, AHashSet};
use std::borrow::Cow;

/// LangChain's `ClearToolUsesEdit` placeholder, the default.
pub const DEFAULT_PLACEHOLDER: &str = "[cleared]";

/// When `clear_tool_uses` fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// When the history's §6 token count exceeds this many tokens.
    InputTokens(u64),
    /// When the history holds more than this many `tool_use` blocks.
    ToolUses(u64),
}

/// Which tool inputs are cleared along with the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClearInputs {
    None,
    All,
    Tools(Vec<String>),
}

/// Options of `clear_tool_uses` (Anthropic's `clear_tool_uses_20250919`).
#[derive(Clone, Debug)]
pub struct ToolOptions {
    pub trigger: Trigger,
    /// The most recent `keep` tool uses keep their results (and inputs).
    pub keep: usize,
    /// If clearing would free fewer tokens than this, nothing is cleared.
    pub clear_at_least: u64,
    /// Tools whose results (and inputs) are never cleared.
    pub exclude_tools: Vec<String>,
    pub clear_inputs: ClearInputs,
    pub placeholder: String,
}

/// Options of `clear_thinking` (Anthropic's `clear_thinking_20251015`).
#[derive(Clone, Copy, Debug)]
pub struct ThinkingOptions {
    /// Thinking of the last `keep_turns` assistant records that hold thinking
    /// is kept; `None` keeps all.
    pub keep_turns: Option<usize>,
}

/// What a call cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditReport {
    pub results_cleared: u64,
    pub inputs_cleared: u64,
    pub thinking_cleared: u64,
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// Index (in the records) of the first changed record: where a provider's
    /// prompt cache is invalidated. `None` when nothing changed.
    pub first_changed: Option<usize>,
}

/// What the editor needs of a `tool_use` block that the model does not hold;
/// the backend reads it from the block's original.
#[derive(Clone, Debug, Default)]
pub struct ToolUseInfo {
    pub name: String,
    /// Code points of the name (§6).
    pub name_chars: u64,
    /// `input` is already `{}`.
    pub input_empty: bool,
}

/// A block change the editor plans before it applies any.
#[derive(Clone, Copy, Debug)]
enum Change {
    Result(usize, usize),
    Input(usize, usize),
}

/// What an edit changed, by the keys that find it again in a later history:
/// tool_use ids and record positions (the incremental
/// [`crate::conversation::Conversation`] keeps them as its sticky state).
#[derive(Clone, Debug, Default)]
pub struct Touched {
    /// tool_use ids whose result was replaced by the placeholder.
    pub results: Vec<String>,
    /// tool_use ids whose input was cleared.
    pub inputs: Vec<String>,
    /// tool_use ids the strategy reached (all but the last `keep`, outside the
    /// current tool loop), cleared or not (too small, excluded).
    pub handled: Vec<String>,
    /// Records whose thinking blocks were removed.
    pub thinking: Vec<usize>,
}

/// The current tool loop: the last assistant record with `tool_use` blocks
/// and the user record right after it (never edited).
pub fn current_loop<H>(recs: &[Record<'_, H>]) -> (Option<usize>, Option<usize>) {
    let loop_at = recs.iter().rposition(|r| {
        r.kind == Kind::Assistant
            && r.content
                .blocks()
                .iter()
                .any(|b| b.kind == BlockKind::ToolUse)
    });
    let answer_at = loop_at
        .map(|i| i + 1)
        .filter(|&j| recs.get(j).is_some_and(|r| r.kind == Kind::User));
    (loop_at, answer_at)
}

/// Clears tool results (with `tools`) and thinking (with `thinking`) of
/// `recs`, whose costs must have been read (§6). `info` reads a tool_use
/// block's name and input from its original. A tool_use block marked `dirty`
/// is written with `input: {}`. `touched`, when given, is told what changed:
/// the ids are copied only for an editor that keeps them.
pub fn edit<'a, H: Clone>(
    recs: &mut [Record<'a, H>],
    tools: Option<&ToolOptions>,
    thinking: Option<ThinkingOptions>,
    p: &CountParams,
    info: &dyn Fn(&H) -> Result<ToolUseInfo>,
    mut touched: Option<&mut Touched>,
) -> Result<EditReport> {
    let mut report = EditReport::default();
    let p = &p.resolved(recs);
    let before = per_record(recs, p)?;
    report.tokens_before = before.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let (loop_at, answer_at) = current_loop(recs);
    let protected = |i: usize| Some(i) == loop_at || Some(i) == answer_at;
    let mut first: Option<usize> = None;
    let mut note = |i: usize| first = Some(first.map_or(i, |f: usize| f.min(i)));

    if let Some(t) = tools {
        let changes = plan_tools(
            recs,
            t,
            p,
            report.tokens_before,
            &protected,
            info,
            touched.as_mut().map(|t| &mut t.handled),
        )?;
        if !changes.is_empty() {
            // The cost of each touched record after the changes.
            let mut costs: AHashMap<usize, Cost> = AHashMap::new();
            let placeholder_chars = t.placeholder.chars().count() as u64;
            let placeholder_cost = Cost {
                chars: placeholder_chars,
                cls: classes_of(&t.placeholder),
                blocks: 1,
                results: 1,
                ..Cost::default()
            };
            for c in &changes {
                let (ri, bi) = match *c {
                    Change::Result(r, b) | Change::Input(r, b) => (r, b),
                };
                let rc = costs.entry(ri).or_insert(recs[ri].cost);
                let b = &recs[ri].content.blocks()[bi];
                let new = match c {
                    Change::Result(..) => placeholder_cost,
                    Change::Input(..) => name_cost(&tool_info(b, info)?),
                };
                rc.sub(b.cost);
                rc.add(new);
            }
            let mut saved = 0u64;
            for (&ri, &c) in &costs {
                let mut probe: Record<'a, H> = Record::new(ri, recs[ri].kind, None);
                probe.cost = c;
                let after = per_record(std::slice::from_ref(&probe), p)?[0];
                saved = saved.saturating_add(before[ri].saturating_sub(after));
            }
            if saved >= t.clear_at_least {
                for c in changes {
                    match c {
                        Change::Result(ri, bi) => {
                            let r = &mut recs[ri];
                            let b = &mut r.blocks_mut()[bi];
                            if let Some(t) = touched.as_mut() {
                                t.results.push(b.id.as_deref().unwrap_or("").to_owned());
                            }
                            b.inner = Some(Content::Str(Cow::Owned(t.placeholder.clone())));
                            b.dirty = true;
                            b.cost = placeholder_cost;
                            report.results_cleared += 1;
                            note(ri);
                        }
                        Change::Input(ri, bi) => {
                            let name_chars = tool_info(&recs[ri].content.blocks()[bi], info)?;
                            let r = &mut recs[ri];
                            let b = &mut r.blocks_mut()[bi];
                            if let Some(t) = touched.as_mut() {
                                t.inputs.push(b.id.as_deref().unwrap_or("").to_owned());
                            }
                            b.dirty = true;
                            b.cost = name_cost(&name_chars);
                            report.inputs_cleared += 1;
                            note(ri);
                        }
                    }
                }
                for (ri, c) in costs {
                    recs[ri].cost = c;
                }
            }
        }
    }

    if let Some(th) = thinking {
        let mut kept = 0usize;
        for i in (0..recs.len()).rev() {
            let r = &recs[i];
            if r.kind != Kind::Assistant {
                continue;
            }
            let n = r
                .content
                .blocks()
                .iter()
                .filter(|b| b.kind.is_thinking())
                .count();
            if n == 0 {
                continue;
            }
            if protected(i) {
                // The current tool loop's thinking goes back unchanged (it
                // counts as one of the turns kept).
                kept += 1;
                continue;
            }
            if th.keep_turns.is_none_or(|k| kept < k) {
                kept += 1;
                continue;
            }
            if n == r.content.blocks().len() {
                // Removing the thinking would empty the content: kept.
                continue;
            }
            let r = &mut recs[i];
            let gone = remove_thinking(r);
            r.cost.sub(gone);
            report.thinking_cleared += n as u64;
            if let Some(t) = touched.as_mut() {
                t.thinking.push(i);
            }
            note(i);
        }
    }
    report.first_changed = first;
    report.tokens_after = per_record(recs, p)?
        .iter()
        .fold(0u64, |a, &b| a.saturating_add(b));
    Ok(report)
}

/// What earlier edits cleared, kept by an incremental editor (the
/// [`crate::conversation::Conversation`]'s policy) and applied again to every
/// later output, so that what was cleared stays cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sticky {
    /// tool_use ids whose result is the placeholder.
    pub results: AHashSet<String>,
    /// tool_use ids whose input is `{}`.
    pub inputs: AHashSet<String>,
    /// tool_use ids an edit reached ([`Touched::handled`]).
    pub handled: AHashSet<String>,
    /// uuids of assistant records whose thinking blocks are gone.
    pub thinking: AHashSet<String>,
}

impl Sticky {
    /// Adds what an edit of `recs` touched.
    pub fn extend<H>(&mut self, touched: Touched, recs: &[Record<'_, H>]) {
        self.results.extend(touched.results);
        self.inputs.extend(touched.inputs);
        self.handled.extend(touched.handled);
        self.thinking.extend(
            touched
                .thinking
                .into_iter()
                .filter_map(|i| recs.get(i)?.uuid.as_deref().map(str::to_owned)),
        );
    }

    pub fn is_empty(&self) -> bool {
        self.results.is_empty() && self.inputs.is_empty() && self.thinking.is_empty()
    }
}

/// Applies `sticky` to `recs` (read with costs): results of the tool uses it
/// names become `placeholder`, the inputs it names `{}`, and the assistant
/// records it names lose their thinking blocks (unless that would empty them);
/// records for which `protected` holds are left alone. Costs are kept up to
/// date. Returns whether anything changed.
pub fn apply_sticky<'a, H: Clone>(
    recs: &mut [Record<'a, H>],
    sticky: &Sticky,
    placeholder: &str,
    protected: &dyn Fn(usize) -> bool,
    info: &dyn Fn(&H) -> Result<ToolUseInfo>,
) -> Result<bool> {
    if sticky.is_empty() {
        return Ok(false);
    }
    let placeholder_chars = placeholder.chars().count() as u64;
    let mut any = false;
    for (i, r) in recs.iter_mut().enumerate() {
        if protected(i) {
            continue;
        }
        match r.kind {
            Kind::User => {
                let hit = r.content.blocks().iter().any(|b| {
                    b.kind == BlockKind::ToolResult
                        && b.id
                            .as_deref()
                            .is_some_and(|id| sticky.results.contains(id))
                        && !matches!(&b.inner, Some(Content::Str(s)) if *s == placeholder)
                });
                if !hit {
                    continue;
                }
                let mut cost = r.cost;
                for b in r.blocks_mut().iter_mut() {
                    let named = b.kind == BlockKind::ToolResult
                        && b.id
                            .as_deref()
                            .is_some_and(|id| sticky.results.contains(id));
                    if !named || matches!(&b.inner, Some(Content::Str(s)) if *s == placeholder) {
                        continue;
                    }
                    let new = Cost {
                        chars: placeholder_chars,
                        cls: classes_of(placeholder),
                        blocks: 1,
                        results: 1,
                        ..Cost::default()
                    };
                    cost.sub(b.cost);
                    cost.add(new);
                    b.inner = Some(Content::Str(Cow::Owned(placeholder.to_owned())));
                    b.dirty = true;
                    b.cost = new;
                }
                r.cost = cost;
                any = true;
            }
            Kind::Assistant => {
                let strip = r
                    .uuid
                    .as_deref()
                    .is_some_and(|u| sticky.thinking.contains(u))
                    && r.content.blocks().iter().any(|b| b.kind.is_thinking())
                    && !r.content.blocks().iter().all(|b| b.kind.is_thinking());
                let inputs = r.content.blocks().iter().any(|b| {
                    b.kind == BlockKind::ToolUse
                        && b.id.as_deref().is_some_and(|id| sticky.inputs.contains(id))
                });
                if !strip && !inputs {
                    continue;
                }
                let mut cost = r.cost;
                let mut changed = false;
                if inputs {
                    for b in r.blocks_mut().iter_mut() {
                        let named = b.kind == BlockKind::ToolUse
                            && b.id.as_deref().is_some_and(|id| sticky.inputs.contains(id));
                        if !named || b.dirty {
                            continue;
                        }
                        let ti = tool_info(b, info)?;
                        if ti.input_empty {
                            continue;
                        }
                        let new = name_cost(&ti);
                        cost.sub(b.cost);
                        cost.add(new);
                        b.dirty = true;
                        b.cost = new;
                        changed = true;
                    }
                }
                if strip {
                    cost.sub(remove_thinking(r));
                    changed = true;
                }
                r.cost = cost;
                any |= changed;
            }
            _ => {}
        }
    }
    Ok(any)
}

/// Removes the record's thinking blocks; what they cost.
fn remove_thinking<H>(r: &mut Record<'_, H>) -> Cost {
    let mut gone = Cost::default();
    r.blocks_mut().retain(|b| {
        if b.kind.is_thinking() {
            gone.add(b.cost);
            false
        } else {
            true
        }
    });
    gone
}

fn tool_info<H>(
    b: &crate::model::Block<'_, H>,
    info: &dyn Fn(&H) -> Result<ToolUseInfo>,
) -> Result<ToolUseInfo> {
    match &b.orig {
        Some(h) => info(h),
        None => Ok(ToolUseInfo::default()),
    }
}

/// The changes `clear_tool_uses` would make, in record order (empty when the
/// trigger does not fire).
fn plan_tools<H>(
    recs: &[Record<'_, H>],
    t: &ToolOptions,
    p: &CountParams,
    tokens: u64,
    protected: &dyn Fn(usize) -> bool,
    info: &dyn Fn(&H) -> Result<ToolUseInfo>,
    mut handled: Option<&mut Vec<String>>,
) -> Result<Vec<Change>> {
    let uses: usize = recs
        .iter()
        .filter(|r| r.kind == Kind::Assistant)
        .map(|r| {
            r.content
                .blocks()
                .iter()
                .filter(|b| b.kind == BlockKind::ToolUse)
                .count()
        })
        .sum();
    let fires = match t.trigger {
        Trigger::InputTokens(n) => tokens > n,
        Trigger::ToolUses(n) => uses as u64 > n,
    };
    if !fires {
        return Ok(Vec::new());
    }
    let clearable = uses.saturating_sub(t.keep);
    let placeholder = Cost {
        chars: t.placeholder.chars().count() as u64,
        cls: classes_of(&t.placeholder),
        blocks: 1,
        results: 1,
        ..Cost::default()
    };
    let exclude: AHashSet<&str> = t.exclude_tools.iter().map(String::as_str).collect();
    let inputs_of: Option<AHashSet<&str>> = match &t.clear_inputs {
        ClearInputs::Tools(v) => Some(v.iter().map(String::as_str).collect()),
        _ => None,
    };
    // The tool's name and input are read only when an option needs them.
    let needs_info = !exclude.is_empty() || !matches!(t.clear_inputs, ClearInputs::None);
    // the tool_use ids whose results are cleared (an id met again is not a
    // new use)
    let mut cleared: AHashSet<&str> = AHashSet::with_capacity(clearable);
    let mut changes = Vec::with_capacity(clearable);
    let mut n = 0usize;
    for (ri, r) in recs.iter().enumerate() {
        match r.kind {
            Kind::Assistant => {
                for (bi, b) in r.content.blocks().iter().enumerate() {
                    if b.kind != BlockKind::ToolUse {
                        continue;
                    }
                    n += 1;
                    if n > clearable || protected(ri) {
                        continue;
                    }
                    if let Some(h) = handled.as_mut() {
                        h.push(b.id.as_deref().unwrap_or("").to_owned());
                    }
                    let ti = if needs_info {
                        tool_info(b, info)?
                    } else {
                        ToolUseInfo::default()
                    };
                    if needs_info && exclude.contains(ti.name.as_str()) {
                        continue;
                    }
                    if !cleared.insert(b.id.as_deref().unwrap_or("")) {
                        continue;
                    }
                    let inputs = match &t.clear_inputs {
                        ClearInputs::None => false,
                        ClearInputs::All => true,
                        ClearInputs::Tools(_) => inputs_of
                            .as_ref()
                            .is_some_and(|s| s.contains(ti.name.as_str())),
                    };
                    if inputs && !ti.input_empty {
                        changes.push(Change::Input(ri, bi));
                    }
                }
            }
            Kind::User if !protected(ri) => {
                for (bi, b) in r.content.blocks().iter().enumerate() {
                    if b.kind != BlockKind::ToolResult {
                        continue;
                    }
                    let id = b.id.as_deref().unwrap_or("");
                    if !cleared.contains(id) {
                        continue;
                    }
                    let done = matches!(&b.inner, Some(Content::Str(s)) if *s == t.placeholder);
                    if !done && saves(b.cost, &placeholder, p) {
                        changes.push(Change::Result(ri, bi));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(changes)
}

/// Whether replacing content of cost `c` by a placeholder of `chars` code
/// points lowers the §6 count of any record holding it (so clearing never
/// raises the count: a result no bigger than the placeholder stays).
/// The cost of a tool call whose input was cleared: its name (and `{}`).
fn name_cost(ti: &ToolUseInfo) -> Cost {
    let mut cls = classes_of(&ti.name);
    cls.leaves = cls.leaves.saturating_add(1);
    Cost {
        chars: ti.name_chars,
        cls,
        blocks: 1,
        calls: 1,
        ..Cost::default()
    }
}

/// Whether a tool result of cost `c` costs more than the placeholder `ph`.
fn saves(c: Cost, ph: &Cost, p: &CountParams) -> bool {
    if p.tokenizer != Tokenizer::Chars {
        return cost_tokens(&c, p) > cost_tokens(ph, p);
    }
    let chars = ph.chars;
    let fixed = c
        .images
        .saturating_mul(p.tokens_per_image)
        .saturating_add(c.documents.saturating_mul(p.tokens_per_document));
    if chars <= c.chars {
        chars < c.chars || fixed > 0
    } else {
        // More characters: the record's ceil() may grow by up to this many tokens.
        let grow = ((chars - c.chars) as f64 / p.chars_per_token).ceil() as u64 + 1;
        fixed > grow
    }
}

impl ToolOptions {
    pub fn check(&self) -> Result<()> {
        if self.placeholder.is_empty() {
            return Err(Error::value("placeholder must not be empty"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::json::{read_records, ReadOpts};

    fn run(src: &str, keep: usize) -> (String, super::EditReport) {
        let t = super::ToolOptions {
            trigger: super::Trigger::InputTokens(0),
            keep,
            clear_at_least: 0,
            exclude_tools: vec![],
            clear_inputs: super::ClearInputs::All,
            placeholder: "[cleared]".into(),
        };
        let thinking = super::ThinkingOptions {
            keep_turns: Some(0),
        };
        clear(src, Some(&t), Some(thinking))
    }

    /// `clear_context` of the JSON array `src`, its output as text.
    fn clear(
        src: &str,
        tools: Option<&super::ToolOptions>,
        thinking: Option<super::ThinkingOptions>,
    ) -> (String, super::EditReport) {
        crate::on_json::clear_context(src.as_bytes(), tools, thinking)
            .map(|(o, r)| (String::from_utf8(o).unwrap(), r))
            .unwrap()
    }

    fn opts(keep: usize, least: u64) -> super::ToolOptions {
        super::ToolOptions {
            trigger: super::Trigger::ToolUses(0),
            keep,
            clear_at_least: least,
            exclude_tools: vec![],
            clear_inputs: super::ClearInputs::None,
            placeholder: "[cleared]".into(),
        }
    }

    /// `n` loops of tool_use `t{i}` with a result of `len` characters, then a reply.
    fn loops(n: usize, len: usize) -> String {
        let mut v = vec![
            r#"{"type":"user","uuid":"u","message":{"role":"user","content":"go"}}"#.to_string(),
        ];
        for i in 0..n {
            v.push(format!(r#"{{"type":"assistant","uuid":"a{i}","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t{i}","name":"Read","input":{{}}}}]}}}}"#));
            v.push(format!(r#"{{"type":"user","uuid":"r{i}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"{}"}}]}}}}"#, "x".repeat(len)));
        }
        format!("[{}]", v.join(","))
    }

    #[test]
    fn clear_at_least_is_all_or_nothing() {
        let src = loops(5, 400);
        let (_, all) = clear(&src, Some(&opts(1, 0)), None);
        // keep=1 keeps t4 (also the current loop): t0..t3 are cleared
        assert_eq!(all.results_cleared, 4);
        let saved = all.tokens_before - all.tokens_after;
        let (out, none) = clear(&src, Some(&opts(1, saved + 1)), None);
        assert_eq!(none.first_changed, None);
        assert_eq!(out, src);
        let (_, exact) = clear(&src, Some(&opts(1, saved)), None);
        assert_eq!(exact, all);
    }

    #[test]
    fn small_results_stay_and_the_count_never_grows() {
        let src = loops(4, 3);
        let (out, rep) = clear(&src, Some(&opts(0, 0)), None);
        assert_eq!(rep.results_cleared, 0);
        assert_eq!(rep.first_changed, None);
        assert_eq!(out, src);
    }

    #[test]
    fn thinking_that_would_empty_a_record_stays() {
        let src = r#"[{"type":"user","uuid":"u","message":{"role":"user","content":"q"}},
{"type":"assistant","uuid":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"}]}},
{"type":"user","uuid":"v","message":{"role":"user","content":"q"}},
{"type":"assistant","uuid":"b","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"d"},{"type":"text","text":"r"}]}},
{"type":"user","uuid":"w","message":{"role":"user","content":"q"}}]"#;
        let th = super::ThinkingOptions {
            keep_turns: Some(0),
        };
        let (out, rep) = clear(src, None, Some(th));
        assert_eq!(rep.thinking_cleared, 1);
        assert_eq!(rep.first_changed, Some(3));
        assert!(out.contains(r#""content":[{"type":"thinking","thinking":"t","signature":"s"}]"#));
        assert!(
            out.contains(r#""content":[{"type":"text","text":"r"}]"#),
            "{out}"
        );
        let all = super::ThinkingOptions { keep_turns: None };
        let (same, rep) = clear(src, None, Some(all));
        assert_eq!(rep.thinking_cleared, 0);
        // Records are copied byte for byte (the array's own whitespace is not kept).
        assert_eq!(same, src.replace(",\n", ","));
    }

    #[test]
    fn clears_old_results_and_inputs_but_not_the_current_loop() {
        let src = r#"[{"type":"user","uuid":"u0","message":{"role":"user","content":"hi"}},
{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"x"}}]}},
{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"long long output"}]}},
{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"tool_use","id":"t2","name":"Read","input":{"path":"y"}}]}},
{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"other output"}]}}]"#;
        let (out, rep) = run(src, 0);
        assert_eq!(rep.results_cleared, 1);
        assert_eq!(rep.inputs_cleared, 1);
        assert_eq!(rep.thinking_cleared, 1);
        assert_eq!(rep.first_changed, Some(1));
        assert!(out.contains(r#""content":"[cleared]""#), "{out}");
        assert!(out.contains(r#""input":{}"#), "{out}");
        assert!(out.contains(r#""content":"other output""#), "{out}");
        assert!(out.contains(r#""input":{"path":"y"}"#), "{out}");
        let recs = read_records(&out, ReadOpts::default()).unwrap();
        assert_eq!(recs.len(), 5);
        assert!(rep.tokens_after < rep.tokens_before);
        // Idempotent.
        let (again, rep2) = run(&out, 0);
        assert_eq!(again, out);
        assert_eq!(rep2.first_changed, None);
    }
}
