//! The adapters' entry points: a provider's messages read into records
//! ([`from_provider`]), records written as a provider's request
//! ([`to_provider`], [`request`]), and one format to another ([`convert`]),
//! with the repairs the target's rules need.

use super::system::check_prompts;
use super::*;
use crate::error::{Error, Result};
use crate::parallel::drop_later;

/// Provider messages → records. `system`: the provider's separate system
/// parameter (Anthropic `system`, Gemini `system_instruction`, Bedrock `system`).
pub fn from_provider(
    p: Provider,
    messages: &[Value],
    system: Option<&Value>,
) -> Result<Vec<Value>> {
    FromProvider::read(p, messages, system, true)
}

/// What an adapter carries from one message to the next.
#[derive(Default)]
pub struct Carry {
    /// OpenAI Chat: the id given to a legacy `function_call`, until its
    /// `function` message answers it.
    pub(super) legacy: Option<String>,
    /// OpenAI Responses: the items of the assistant turn gathered so far.
    pub(super) pending: Vec<Value>,
    /// Gemini: calls of the last model turn still waiting for a response: (name, id).
    pub(super) open: Vec<(String, String)>,
    /// Gemini: whether the last content read was the model's (the next model
    /// content joins its record, as the API joins adjacent contents of one role).
    pub(super) model_last: bool,
    /// Anthropic, OpenAI Chat and Responses: tool ids reused in a later turn.
    pub(super) reused: Reused,
}

/// [`from_provider`] fed the messages in order, a slice at a time (so that
/// the binding can convert the next slice from Python objects while this
/// one is read). Errors name each message by its index in the whole list.
pub struct FromProvider {
    b: Builder,
    carry: Carry,
    /// The index of the next message fed.
    next: usize,
}

impl FromProvider {
    /// `uuids`: derive each record's uuid (false: every record gets the same
    /// placeholder, for records that are converted on and whose uuids no
    /// output shows, as [`convert`]'s).
    pub fn new(p: Provider, system: Option<&Value>, uuids: bool) -> Result<Self> {
        let mut b = Builder::new(p);
        b.uuids = uuids;
        if let Some(s) = system.filter(|s| !s.is_null()) {
            match p {
                Provider::Anthropic => anthropic::system_in(&mut b, s)?,
                Provider::Gemini => gemini::system_in(&mut b, s)?,
                Provider::Bedrock => bedrock::system_in(&mut b, s)?,
                Provider::OpenAIChat | Provider::OpenAIResponses => {
                    if !matches!(s, Value::Str(_) | Value::Arr(_)) {
                        return Err(Error::invalid(
                            0,
                            "system",
                            format!(
                                "must be a string or a list of text blocks, not {}",
                                s.type_name()
                            ),
                        ));
                    }
                    b.system("system", s.clone());
                }
            }
        }
        Ok(FromProvider {
            b,
            carry: Carry::default(),
            next: 0,
        })
    }

    /// The records of `messages`, read at once.
    pub fn read(
        p: Provider,
        messages: &[Value],
        system: Option<&Value>,
        uuids: bool,
    ) -> Result<Vec<Value>> {
        let mut f = FromProvider::new(p, system, uuids)?;
        f.feed(messages)?;
        Ok(f.finish())
    }

    /// Reads the next messages.
    pub fn feed(&mut self, messages: &[Value]) -> Result<()> {
        let (b, c, at) = (&mut self.b, &mut self.carry, self.next);
        match b.provider {
            Provider::Anthropic => anthropic::from(b, c, at, messages)?,
            Provider::OpenAIChat => openai_chat::from(b, c, at, messages)?,
            Provider::OpenAIResponses => openai_responses::from(b, c, at, messages)?,
            Provider::Gemini => gemini::from(b, c, at, messages)?,
            Provider::Bedrock => bedrock::from(b, at, messages)?,
        }
        self.next += messages.len();
        Ok(())
    }

    /// The records of every message fed.
    pub fn finish(self) -> Vec<Value> {
        self.finish_counted().0
    }

    /// The records of every message fed, and what reading left out, by rule
    /// (`client_only_dropped`).
    pub fn finish_counted(mut self) -> (Vec<Value>, Counts) {
        openai_responses::flush(&mut self.b, &mut self.carry.pending);
        (self.b.out, self.b.counts)
    }
}

/// The message list of a target's output: the list itself, or its
/// `messages` (Anthropic, Bedrock) or `contents` (Gemini).
pub fn message_list(out: &Value) -> Option<&[Value]> {
    match out {
        Value::Arr(items) => Some(items),
        Value::Obj(m) => m.get("messages").or_else(|| m.get("contents"))?.as_arr(),
        _ => None,
    }
}

/// For each message of `out` (a [`convert`] whose source is its target), the
/// index of an input message equal to it, if any: the binding hands back the
/// input's own object for such a message. Messages no step changed keep their
/// order, so one cursor with a look-ahead finds them (the look-ahead widens,
/// up to a bound, after each output message that matched nothing: the inputs
/// merged or dropped before the next match); `usable[i]` says whether input
/// `i` may be handed back. Linear in the messages' size.
pub fn unchanged_messages(input: &[Value], usable: &[bool], out: &Value) -> Vec<Option<usize>> {
    const LOOK_AHEAD: usize = 4;
    const MAX_LOOK_AHEAD: usize = 64;
    let Some(items) = message_list(out) else {
        return Vec::new();
    };
    let (mut cursor, mut misses) = (0, 0);
    items
        .iter()
        .map(|m| {
            let window = MAX_LOOK_AHEAD.min(LOOK_AHEAD + 2 * misses);
            let end = input.len().min(cursor + window);
            let found = (cursor..end).find(|&i| usable.get(i) == Some(&true) && input[i] == *m);
            match found {
                Some(i) => (cursor, misses) = (i + 1, 0),
                None => misses += 1,
            }
            found
        })
        .collect()
}

/// Where a request goes: the provider, and the Responses request parameters
/// that decide what its input may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub provider: Provider,
    /// Responses `store`: `false` makes the input of a stateless request
    /// ([`openai_responses::stateless`]).
    pub store: bool,
    /// A Responses continuation (`previous_response_id`, `conversation`):
    /// the tool results that lead the history answer calls that live on the
    /// server, and are sent as given. `Some(false)`: they are orphans (SPEC §4
    /// step 7); `None`: kept when they were read from a Responses input.
    pub continuation: Option<bool>,
}

impl Target {
    /// A stored request, its continuation told by its input.
    pub fn new(provider: Provider) -> Self {
        Target {
            provider,
            store: true,
            continuation: None,
        }
    }

    /// The records that lead `records` (after the system prompts) and answer
    /// calls of a stored response: user records of tool results only, on a
    /// Responses target that continues one.
    fn continued(&self, records: &[Value]) -> std::ops::Range<usize> {
        if self.provider != Provider::OpenAIResponses
            || !self.store
            || self.continuation == Some(false)
        {
            return 0..0;
        }
        let given = self.continuation == Some(true);
        let start = records
            .iter()
            .take_while(|r| r.as_obj().is_some_and(leads))
            .count();
        let results = records[start..]
            .iter()
            .take_while(|r| r.as_obj().is_some_and(|r| results_only(r, given)))
            .count();
        start..start + results
    }
}

/// Whether `r` is a user record of tool results only (`any`: whatever their
/// source; else read from a Responses input).
fn results_only(r: &Map, any: bool) -> bool {
    let blocks = r.blocks_of("user");
    !blocks.is_empty()
        && blocks.iter().all(|b| {
            b.as_obj().is_some_and(|b| {
                b.str("type") == Some("tool_result")
                    && (any
                        || b.obj("provider_data").and_then(|d| d.str("provider"))
                            == Some(Provider::OpenAIResponses.name()))
            })
        })
}

/// Records → `normalize_for_api` → `target`'s request shape, in one pass
/// through the core: the record values are read by the core's reader as they
/// are ([`records`]), no JSON text in between. System prompts are the
/// records' `system_prompt` records, then `extra_system`. With `api` `None`
/// the records are taken as already normalized. Blocks the target cannot
/// carry are dropped before a second normalization ([`prune`]). `stable`:
/// the caller knows every record [`records::json_stable`] (values made from
/// Python objects with no bytes and no non-finite float, and the records
/// [`from_provider`] makes of them), so that it is not checked again.
///
/// The results a continuation sends as given ([`Target::continued`]) are
/// kept in place, and a stateless Responses input is made so.
pub fn request(
    target: &Target,
    mut records: Vec<Value>,
    stable: bool,
    extra_system: Option<SystemPrompt>,
    api: Option<&crate::ApiOptions>,
    report: &mut crate::Report,
    counts: &mut Counts,
) -> Result<Value> {
    let p = target.provider;
    let lead: Vec<Value> = records.drain(target.continued(&records)).collect();
    check_prompts(&records)?;
    // the system prompts before the first turn are the request's system
    // parameter; later ones stay in place (normalize_for_api keeps them)
    let mut prompts = system_prompts(&records);
    prompts.extend(extra_system);
    let mut out = match api {
        None => {
            server_tools::as_text(p, &mut records, counts);
            to_provider(p, &records, &prompts, counts)?
        }
        Some(api) => {
            let mut recs = records::normalize(&mut records, stable, api, report)?;
            let read = read_records(&recs, p)?;
            let (out, unpruned) = if read.iter().any(|r| r.drops) {
                drop(read);
                server_tools::as_text(p, &mut recs, counts);
                prune(p, &mut recs, counts);
                let pruned = records::normalize(&mut recs, true, api, report)?;
                let unpruned = std::mem::replace(&mut recs, pruned);
                (to_provider(p, &recs, &prompts, counts), unpruned)
            } else {
                (write(p, &read, &prompts, counts), Vec::new())
            };
            // freed once the work is done: freeing on another thread while
            // this one allocates slows both
            drop_later((std::mem::take(&mut records), unpruned, recs));
            out?
        }
    };
    if !lead.is_empty() {
        if let (Value::Arr(items), Value::Arr(results)) =
            (&mut out, to_provider(p, &lead, &[], counts)?)
        {
            let at = prompts.len().min(items.len());
            items.splice(at..at, results);
        }
    }
    if !target.store && p == Provider::OpenAIResponses {
        openai_responses::stateless::stateless(&mut out, counts);
    }
    Ok(out)
}

/// A provider's request as given: what [`convert`] reads.
#[derive(Clone, Copy)]
pub struct Given<'a> {
    pub provider: Provider,
    pub messages: &'a [Value],
    /// The provider's separate system parameter.
    pub system: Option<&'a Value>,
    /// The messages the caller hands back itself where the output is the
    /// request as it came (`shared[i]`): the output holds `null` in their place.
    pub shared: Option<&'a [bool]>,
}

/// Provider messages → records → `normalize_for_api` → the target's shape.
pub fn convert(
    source: Given<'_>,
    target: &Target,
    api: &crate::ApiOptions,
    report: &mut crate::Report,
    counts: &mut Counts,
) -> Result<Value> {
    let mut f = FromProvider::new(source.provider, source.system, false)?;
    f.feed(source.messages)?;
    let (recs, read) = f.finish_counted();
    add_counts(counts, read);
    convert_records(source, target, recs, false, api, report, counts).map(|(out, _)| out)
}

/// [`convert`] once the source's messages are read into `records`
/// ([`FromProvider`]; `stable` as [`request`]'s).
///
/// A repair runs only where the target's rules need it: a provider's own
/// request that breaks none of the rules msgnorm repairs ([`replay::check`])
/// is written as it came, not normalized; one that breaks some gets the SPEC
/// §4 steps those rules name ([`crate::validate::Rule::steps`]) and no other
/// (none for a rule the reader or the writer repairs: an item left out as it
/// is read, a tool name mapped), each step run counted (`step_<name>`). If
/// a repaired rule still fires on what they wrote (steps that depend on one
/// another), the whole of §4 runs instead, counted `steps_fallback`. Across
/// formats the whole of §4 runs; a first user turn goes before a leading
/// assistant only where the target refuses one.
///
/// Also says whether the output is the source's request as it came
/// ([`Given::shared`]).
pub fn convert_records(
    source: Given<'_>,
    target: &Target,
    records: Vec<Value>,
    stable: bool,
    api: &crate::ApiOptions,
    report: &mut crate::Report,
    counts: &mut Counts,
) -> Result<(Value, bool)> {
    let p = target.provider;
    // results that lead the history are orphans when the caller says so
    let any_results = Target {
        continuation: Some(true),
        ..*target
    };
    let orphans = target.continuation == Some(false) && !any_results.continued(&records).is_empty();
    let same = source.provider == p && !api.strict && !orphans;
    let fired = if same {
        let stateless = !target.store;
        replay::check(
            p,
            source.messages,
            source.system,
            stateless,
            replay::Scope::Steps,
        )
    } else {
        Vec::new()
    };
    let steps = replay::steps_of(&fired);
    // a block the target cannot carry (a failed compaction) is pruned by the steps' path
    // (read once, on first need)
    let read_drops = std::cell::OnceCell::new();
    let drops = || {
        *read_drops
            .get_or_init(|| read_records(&records, p).is_ok_and(|r| r.iter().any(|r| r.drops)))
    };
    if same && fired.is_empty() && target.store && !drops() {
        if let Some(out) = verbatim(source) {
            // the records were only read for the checks: freed off this thread
            crate::parallel::drop_later(records);
            return Ok((out, true));
        }
    }
    let mut out = None;
    if same && steps.is_empty() && !drops() {
        // no step needed (an item the reader left out, a name the writer
        // maps): written from the records; a writer that cannot take a
        // record as it came falls back to the steps
        let mut written = Counts::new();
        let mut none = crate::Report::default();
        if let Ok(o) = request(
            target,
            records.clone(),
            stable,
            None,
            None,
            &mut none,
            &mut written,
        ) {
            add_counts(counts, written);
            out = Some(o);
        }
    }
    let records = match out {
        Some(_) => records,
        None if same => match replay::selected(source, target, records, stable, api, steps)? {
            replay::Selected::Done(o, rep, more) => {
                *report = rep;
                add_counts(counts, more);
                out = Some(o);
                Vec::new()
            }
            replay::Selected::Fallback(records) => {
                count(counts, "steps_fallback");
                records
            }
        },
        None => records,
    };
    let mut out = match out {
        Some(o) => o,
        None => {
            let api = &crate::ApiOptions {
                ensure_user_first: api.ensure_user_first && p.needs_user_first(&records),
                ..api.clone()
            };
            request(target, records, stable, None, Some(api), report, counts)?
        }
    };
    // Gemini's REST camelCase in, camelCase out
    if source.provider == Provider::Gemini && p == Provider::Gemini {
        gemini::to_camel(&mut out, gemini::camel_case(source.messages));
    }
    Ok((out, false))
}

/// The source's request as it came, in the shape [`convert`] returns (its
/// messages, with the system parameter beside them); `None` where that shape
/// has no place for the system parameter as given (OpenAI's goes into the
/// messages).
fn verbatim(source: Given<'_>) -> Option<Value> {
    let system = source.system.filter(|s| !s.is_null());
    // a message the caller hands back itself is a placeholder
    let messages = || {
        let copy = |(i, m): (usize, &Value)| match source.shared {
            Some(shared) if shared.get(i) == Some(&true) => Value::Null,
            _ => m.clone(),
        };
        Value::Arr(source.messages.iter().enumerate().map(copy).collect())
    };
    let (list, sys_key) = match source.provider {
        Provider::OpenAIChat | Provider::OpenAIResponses => return system.is_none().then(messages),
        Provider::Anthropic | Provider::Bedrock => ("messages", "system"),
        Provider::Gemini if gemini::camel_case(source.messages).parts => {
            ("contents", "systemInstruction")
        }
        Provider::Gemini => ("contents", "system_instruction"),
    };
    let mut out = Map::with_capacity(2);
    if let Some(s) = system {
        out.push(sys_key, s.clone());
    }
    out.push(list, messages());
    Some(Value::Obj(out))
}

/// Normalized records (SPEC §4 output) → the provider's request shape.
pub fn to_provider(
    p: Provider,
    records: &[Value],
    system: &[SystemPrompt],
    counts: &mut Counts,
) -> Result<Value> {
    write(p, &read_records(records, p)?, system, counts)
}

/// Records read by [`read_records`] → the provider's request shape. Gemini
/// and Bedrock have no system message: a system prompt between turns joins
/// the system parameter (counted `system_moved`).
fn write(
    p: Provider,
    recs: &[Rec<'_>],
    system: &[SystemPrompt],
    counts: &mut Counts,
) -> Result<Value> {
    if matches!(p, Provider::Gemini | Provider::Bedrock) && recs.iter().any(|r| r.prompt.is_some())
    {
        let mut system = system.to_vec();
        let mut rest = Vec::with_capacity(recs.len());
        for r in recs {
            match &r.prompt {
                Some(s) => {
                    count(counts, "system_moved");
                    system.push(s.clone());
                }
                None => rest.push(r.clone()),
            }
        }
        return write(p, &rest, &system, counts);
    }
    match p {
        Provider::Anthropic => anthropic::to(recs, system, counts),
        Provider::OpenAIChat => openai_chat::to(recs, system, counts),
        Provider::OpenAIResponses => openai_responses::to(recs, system, counts),
        Provider::Gemini => gemini::to(recs, system, counts),
        Provider::Bedrock => bedrock::to(recs, system, counts),
    }
}
