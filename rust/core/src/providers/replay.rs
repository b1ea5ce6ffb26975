//! Repairs only where the target needs them: a provider's own request that
//! breaks none of the rules msgnorm repairs is sent as it came, not through
//! the SPEC §4 steps (which would merge its user turns, fill its blank texts
//! and insert its first user turn).

use super::provider::Provider;
use super::value::Value;
use crate::validate as v;

/// Whether `p`'s API takes `messages` (with its `system` parameter) as they
/// are, as far as the rules msgnorm repairs tell: none of them fires.
/// `stateless`: a Responses request with `store=false`.
pub fn accepted(p: Provider, messages: &[Value], system: Option<&Value>, stateless: bool) -> bool {
    needs(p, messages, system, stateless) == v::Needs::default()
}

/// Which repairs `messages` need for `p` ([`v::Needs`]): none, only the
/// reader's and writer's own (an item left out as it is read), or the steps'.
pub fn needs(p: Provider, messages: &[Value], system: Option<&Value>, stateless: bool) -> v::Needs {
    v::needs(p, messages, params(system, stateless))
}

/// The rules' parameters of a request: its `system` parameter.
fn params<'m>(system: Option<&'m Value>, stateless: bool) -> v::Params<'m> {
    v::Params {
        system,
        tools: None,
        stateless,
        model: None,
    }
}

/// Which of the rules msgnorm repairs [`check`] looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every one.
    All,
    /// As far as they decide the steps to run: once one fired, a rule whose
    /// steps those found hold already is not checked.
    Steps,
    /// Up to the first that fires.
    First,
}

/// The rules of `p` msgnorm repairs that `messages` (with its `system`
/// parameter) break, in table order, within `scope`: [`super::convert`]
/// runs the SPEC §4 steps these rules name ([`v::Rule::steps`]) and no other.
pub fn check(
    p: Provider,
    messages: &[Value],
    system: Option<&Value>,
    stateless: bool,
    scope: Scope,
) -> Vec<&'static v::Rule> {
    let ctx = v::prepare(p, messages, params(system, stateless));
    fired_in(p, &ctx, scope)
}

/// The rules of `p` msgnorm repairs that fire on `ctx`, within `scope`.
fn fired_in(p: Provider, ctx: &v::Ctx<'_>, scope: Scope) -> Vec<&'static v::Rule> {
    let (mut hits, mut out) = (Vec::new(), Vec::new());
    let mut steps = crate::steps::Steps::NONE;
    for rule in v::rules(p).iter().filter(|r| r.repaired()) {
        if scope == Scope::Steps && !out.is_empty() && steps.has(rule.steps) {
            continue;
        }
        (rule.check)(ctx, &mut hits);
        if hits.is_empty() {
            continue;
        }
        hits.clear();
        out.push(rule);
        steps = steps.with(rule.steps);
        if scope == Scope::First {
            break;
        }
    }
    out
}

/// Every rule of `p` msgnorm repairs that `messages` break ([`check`]).
pub fn fired(
    p: Provider,
    messages: &[Value],
    system: Option<&Value>,
    stateless: bool,
) -> Vec<&'static v::Rule> {
    check(p, messages, system, stateless, Scope::All)
}

/// Whether a rule msgnorm repairs fires on a request [`super::convert`]
/// wrote for `p`: its message list and its system parameter.
pub fn broken_output(p: Provider, out: &Value, stateless: bool) -> bool {
    let messages = super::message_list(out).unwrap_or(&[]);
    let system = out.as_obj().and_then(|o| {
        o.get("system")
            .or_else(|| o.get("system_instruction"))
            .or_else(|| o.get("systemInstruction"))
    });
    !check(p, messages, system, stateless, Scope::First).is_empty()
}

/// The union of the steps `rules` name.
pub fn steps_of(rules: &[&v::Rule]) -> crate::steps::Steps {
    rules
        .iter()
        .fold(crate::steps::Steps::NONE, |s, r| s.with(r.steps))
}

/// What running only the steps a request's broken rules name gave.
pub enum Selected {
    /// The output (no repaired rule fires on it), its report and counts.
    Done(Value, crate::Report, super::Counts),
    /// A repaired rule still fires: the records, read again, for the whole of §4.
    Fallback(Vec<Value>),
}

/// [`super::request`] with only `steps` of SPEC §4, the output checked again
/// against the target's repaired rules (an output left broken, or an error,
/// gives [`Selected::Fallback`]: the whole of §4 decides, and says what fails).
pub fn selected(
    source: super::Given<'_>,
    target: &super::Target,
    records: Vec<Value>,
    stable: bool,
    api: &crate::ApiOptions,
    steps: crate::steps::Steps,
) -> crate::error::Result<Selected> {
    let p = target.provider;
    let api = crate::ApiOptions {
        ensure_user_first: api.ensure_user_first && p.needs_user_first(&records),
        steps,
        ..api.clone()
    };
    let mut report = crate::Report::default();
    let mut counts = super::Counts::new();
    let out = super::request(
        target,
        records,
        stable,
        None,
        Some(&api),
        &mut report,
        &mut counts,
    );
    // a writer that cannot take what these steps left falls back too
    if let Some(out) = out.ok().filter(|o| !broken_output(p, o, !target.store)) {
        for (s, name) in crate::steps::Steps::NAMED {
            if steps.has(s) {
                super::count(&mut counts, name);
            }
        }
        return Ok(Selected::Done(out, report, counts));
    }
    // read again: the steps took the records apart
    let mut f = super::FromProvider::new(source.provider, source.system, false)?;
    f.feed(source.messages)?;
    Ok(Selected::Fallback(f.finish()))
}
