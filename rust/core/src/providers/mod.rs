//! Provider adapters: provider messages → msgnorm records ([`from_provider`]) and
//! normalized records → a provider's request shape ([`to_provider`]).
//!
//! Both work on a small owned [`Value`] tree. Records are the SPEC §1 shape
//! (`{"type", "uuid", "message": {"role", "content": [Anthropic-shaped blocks]}}`);
//! what a provider has and Anthropic-shaped blocks do not is kept in a block's
//! `provider_data` (`{"provider": name, ...}`) or in a `provider_part` block
//! (`{"type": "provider_part", "provider": name, "part": original}`), which only
//! that provider's output writes back. System prompts are `system` records with
//! `subtype: "system_prompt"` (docs/PROVIDERS.md).

pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod input_items;
pub mod openai_chat;
pub mod openai_responses;
pub mod records;
pub mod value;

use crate::error::{Error, Result};
use crate::provider::Provider;
use ahash::{AHashMap, AHashSet};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::mpsc::Sender;
use std::sync::{Mutex, OnceLock};
pub use value::{bad, Map, SmolStr, Value};

/// What the output adapters changed or could not carry, by rule name.
pub type Counts = BTreeMap<&'static str, u64>;

pub fn count(c: &mut Counts, k: &'static str) {
    *c.entry(k).or_insert(0) += 1;
}

/// A system prompt: `role` is `system` or `developer` (OpenAI); `content` a
/// string or a list of Anthropic-shaped text blocks.
#[derive(Clone, Debug)]
pub struct SystemPrompt {
    pub role: String,
    pub content: Value,
}

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
    legacy: Option<String>,
    /// OpenAI Responses: the items of the assistant turn gathered so far.
    pending: Vec<Value>,
    /// Gemini: calls of the last model turn still waiting for a response: (name, id).
    open: Vec<(String, String)>,
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
            Provider::Anthropic => anthropic::from(b, at, messages)?,
            Provider::OpenAIChat => openai_chat::from(b, c, at, messages)?,
            Provider::OpenAIResponses => openai_responses::from(b, c, at, messages)?,
            Provider::Gemini => gemini::from(b, c, at, messages)?,
            Provider::Bedrock => bedrock::from(b, at, messages)?,
        }
        self.next += messages.len();
        Ok(())
    }

    /// The records of every message fed.
    pub fn finish(mut self) -> Vec<Value> {
        openai_responses::flush(&mut self.b, &mut self.carry.pending);
        self.b.out
    }
}

/// Records → `normalize_for_api` → the provider's request shape, in one pass
/// through the core: the record values are read by the core's reader as they
/// are ([`records`]), no JSON text in between. System prompts are the
/// records' `system_prompt` records, then `extra_system`. With `api` `None`
/// the records are taken as already normalized. Blocks the target cannot
/// carry are dropped before a second normalization ([`prune`]). `stable`:
/// the caller knows every record [`records::json_stable`] (values made from
/// Python objects with no bytes and no non-finite float, and the records
/// [`from_provider`] makes of them), so that it is not checked again.
pub fn normalize_to_provider(
    p: Provider,
    records: Vec<Value>,
    stable: bool,
    extra_system: Option<SystemPrompt>,
    api: Option<&crate::ApiOptions>,
    report: &mut crate::Report,
    counts: &mut Counts,
) -> Result<Value> {
    let mut prompts = system_prompts(&records);
    let carried = prompts.len();
    prompts.extend(extra_system);
    let Some(api) = api else {
        return to_provider(p, &records, &prompts, counts);
    };
    let mut records = records;
    let mut recs = records::normalize(&mut records, stable, api, report)?;
    // normalize_for_api drops the system-prompt records; they are carried, not lost
    report.dropped = report.dropped.saturating_sub(carried);
    let read = read_records(&recs, p)?;
    let (out, unpruned) = if read.iter().any(|r| r.drops) {
        drop(read);
        prune(p, &mut recs, counts);
        let pruned = records::normalize(&mut recs, true, api, report)?;
        let unpruned = std::mem::replace(&mut recs, pruned);
        (to_provider(p, &recs, &prompts, counts), unpruned)
    } else {
        (write(p, &read, &prompts, counts), Vec::new())
    };
    // freed once the work is done: freeing on another thread while this one
    // allocates slows both
    drop_later((records, unpruned, recs));
    out
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

/// Frees a large tree on a thread of its own: its many small allocations
/// take about as long to free as to build, and the caller does not wait for
/// that. The trees are freed one after another on that one thread, so that
/// freeing never takes more than one core from the work that follows. In a
/// forked child (which has no such thread) a tree is freed at once.
pub fn drop_later<T: Send + 'static>(x: T) {
    type Dropper = (u32, Mutex<Sender<Box<dyn Send>>>);
    static DROPPER: OnceLock<Option<Dropper>> = OnceLock::new();
    let dropper = DROPPER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Box<dyn Send>>();
        let spawned = std::thread::Builder::new()
            .name("msgnorm-drop".into())
            .spawn(move || rx.into_iter().for_each(drop));
        spawned.ok().map(|_| (std::process::id(), Mutex::new(tx)))
    });
    let x: Box<dyn Send> = Box::new(x);
    match dropper {
        Some((pid, tx)) if *pid == std::process::id() => {
            // a send fails only when the thread is gone: then the tree comes back
            if let Ok(tx) = tx.lock() {
                if let Err(back) = tx.send(x) {
                    drop(back);
                }
            }
        }
        _ => drop(x),
    }
}

/// Whether `n` items are worth halving between this thread and a second one:
/// there is a second core, and enough items to repay starting a thread.
fn worth_splitting(n: usize) -> bool {
    /// Below this many items a second thread costs more than it saves.
    const MIN: usize = 2048;
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    n >= MIN && cores >= 2
}

/// `a()` on this thread and `b()` on a second one at the same time (when no
/// thread can be started, `b()` runs here after `a()`). A panic in `b` is
/// raised here, as if `b` had run here.
fn both<A, B: Send>(a: impl FnOnce() -> A, b: impl Fn() -> B + Sync) -> (A, B) {
    std::thread::scope(|s| {
        let other = std::thread::Builder::new().spawn_scoped(s, &b);
        let first = a();
        let second = match other {
            Ok(h) => h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => b(),
        };
        (first, second)
    })
}

/// Writes every record with `f` (which appends the record's messages to
/// `out`), in order. When no tool id is rewritten a record's messages depend
/// on that record alone, so a long history is written in halves, the second
/// on a thread of its own at the same time.
pub fn write_each<'v>(
    recs: &[Rec<'v>],
    mut ids: Ids,
    counts: &mut Counts,
    out: &mut Vec<Value>,
    f: impl Fn(&Rec<'v>, &mut Ids, &mut Counts, &mut Vec<Value>) + Sync,
) {
    let half = |rs: &[Rec<'v>], ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>| {
        rs.iter().for_each(|r| f(r, ids, counts, out))
    };
    if ids.rewrites || !worth_splitting(recs.len()) {
        return half(recs, &mut ids, counts, out);
    }
    let (first, second) = recs.split_at(recs.len() / 2);
    let limit = ids.limit;
    let ((), (more, more_counts)) = both(
        || half(first, &mut ids, counts, out),
        || {
            let (mut ids, mut counts) = (Ids::fixed(limit), Counts::new());
            let mut out = Vec::with_capacity(second.len());
            half(second, &mut ids, &mut counts, &mut out);
            (out, counts)
        },
    );
    out.extend(more);
    for (k, n) in more_counts {
        *counts.entry(k).or_insert(0) += n;
    }
}

/// `f(i, item)` for every item, in order; with many items and a second core,
/// the second half is done on a thread of its own at the same time. The
/// error is the first item's that fails, as when done one by one.
pub fn split_map<'a, T: Sync, U: Send>(
    items: &'a [T],
    f: impl Fn(usize, &'a T) -> Result<U> + Sync,
) -> Result<Vec<U>> {
    let run = |at: usize, xs: &'a [T]| -> Result<Vec<U>> {
        (at..).zip(xs).map(|(i, x)| f(i, x)).collect()
    };
    if !worth_splitting(items.len()) {
        return run(0, items);
    }
    let mid = items.len() / 2;
    let (first, second) = items.split_at(mid);
    let (out, rest) = both(|| run(0, first), || run(mid, second));
    let mut out = out?;
    out.extend(rest?);
    Ok(out)
}

/// Provider messages → records → `normalize_for_api` → the target's shape.
pub fn convert(
    source: Provider,
    target: Provider,
    messages: &[Value],
    system: Option<&Value>,
    api: &crate::ApiOptions,
    report: &mut crate::Report,
    counts: &mut Counts,
) -> Result<Value> {
    let recs = FromProvider::read(source, messages, system, false)?;
    normalize_to_provider(target, recs, false, None, Some(api), report, counts)
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

/// Records read by [`read_records`] → the provider's request shape.
fn write(
    p: Provider,
    recs: &[Rec<'_>],
    system: &[SystemPrompt],
    counts: &mut Counts,
) -> Result<Value> {
    match p {
        Provider::Anthropic => anthropic::to(recs, system, counts),
        Provider::OpenAIChat => openai_chat::to(recs, system, counts),
        Provider::OpenAIResponses => openai_responses::to(recs, system, counts),
        Provider::Gemini => gemini::to(recs, system, counts),
        Provider::Bedrock => bedrock::to(recs, system, counts),
    }
}

/// Why `target` has no shape for a block (`None`: it carries it). The output
/// adapters drop such blocks; [`prune`] drops them before normalization.
pub fn dropped_by(target: Provider, b: &Map, assistant: bool) -> Option<&'static str> {
    let t = b.str("type").unwrap_or("");
    let b64_ok = |d: &str| value::base64_decode(d).is_some();
    if target != Provider::Anthropic {
        // what a role cannot hold in the target
        let misplaced = match (assistant, t) {
            (true, "tool_result") | (false, "tool_use") => true,
            (true, "image" | "document") => {
                matches!(target, Provider::OpenAIChat | Provider::OpenAIResponses)
            }
            (false, "thinking" | "redacted_thinking") => true,
            _ => false,
        };
        if misplaced {
            return Some(if t.contains("thinking") {
                "thinking_dropped"
            } else {
                "parts_dropped"
            });
        }
    }
    match t {
        "text" | "tool_use" | "tool_result" => None,
        "thinking" | "redacted_thinking" => {
            let ok = thinking_ok(b, target)
                && match target {
                    Provider::Anthropic | Provider::Bedrock => true,
                    Provider::OpenAIResponses | Provider::Gemini => {
                        t == "thinking" && data_from(b, target).is_some()
                    }
                    Provider::OpenAIChat => false,
                };
            (!ok).then_some("thinking_dropped")
        }
        "provider_part" => (origin(b) != Some(target.name())).then_some("parts_dropped"),
        "image" | "document" if target == Provider::Anthropic => None,
        "image" | "document" => match (source(b), target) {
            (Source::Base64 { data, .. }, Provider::Gemini | Provider::Bedrock)
                if !b64_ok(data) =>
            {
                Some("invalid_media_dropped")
            }
            (Source::Base64 { media, .. }, Provider::Bedrock) => {
                let table: &[(&str, &str)] = if t == "image" {
                    &bedrock::IMAGE
                } else {
                    &bedrock::DOCUMENT
                };
                (!table.iter().any(|(_, m)| *m == media)).then_some("parts_dropped")
            }
            (Source::Base64 { .. }, _) => None,
            (Source::Text { data, .. }, _) if model_blank(data) => Some("blank_text_dropped"),
            (Source::Text { .. }, _) => (t != "document").then_some("parts_dropped"),
            (Source::Url(_), Provider::Bedrock) => Some("parts_dropped"),
            (Source::Url(_), _) => {
                (t == "document" && target != Provider::Gemini).then_some("parts_dropped")
            }
            (Source::Other, _) => Some("parts_dropped"),
        },
        _ => (target != Provider::Anthropic).then_some("parts_dropped"),
    }
}

fn model_blank(s: &str) -> bool {
    crate::model::is_blank(s)
}

/// Drops the blocks `target` has no shape for (counted by reason).
/// Dropping can leave what normalize_for_api repairs (an assistant with
/// nothing but thinking, trailing whitespace now final, an empty user
/// record), so the caller normalizes the pruned records again.
pub fn prune(target: Provider, records: &mut [Value], counts: &mut Counts) {
    for v in records.iter_mut() {
        let Value::Obj(r) = v else { continue };
        let assistant = r.str("type") == Some("assistant");
        let Some(Value::Obj(msg)) = r.get_mut("message") else {
            continue;
        };
        if let Some(Value::Arr(blocks)) = msg.get_mut("content") {
            blocks.retain(
                |b| match b.as_obj().and_then(|b| dropped_by(target, b, assistant)) {
                    Some(why) => {
                        count(counts, why);
                        false
                    }
                    None => true,
                },
            );
        }
    }
}

/// The `system`/`system_prompt` records of a history (before normalize drops them).
pub fn system_prompts(records: &[Value]) -> Vec<SystemPrompt> {
    records
        .iter()
        .filter_map(Value::as_obj)
        .filter(|r| r.str("type") == Some("system") && r.str("subtype") == Some("system_prompt"))
        .filter_map(|r| {
            Some(SystemPrompt {
                role: r.str("role").unwrap_or("system").to_string(),
                content: r.get("content")?.clone(),
            })
        })
        .collect()
}

/// One record as the output adapters read it.
pub struct Rec<'v> {
    pub index: usize,
    pub assistant: bool,
    /// A string content (kept a string where the target can take one).
    pub text: Option<&'v SmolStr>,
    pub blocks: &'v [Value],
    /// The record's `provider_data`, if any.
    pub data: Option<&'v Map>,
    /// The longest tool id (`id`, `tool_use_id`) of its blocks, or
    /// `usize::MAX` when one is empty or has a character no target takes,
    /// or a call or a result has none.
    pub longest_id: usize,
    /// Whether the target has no shape for one of its blocks ([`dropped_by`]).
    pub drops: bool,
}

/// The records as `target`'s writer reads them (a record that is a system
/// prompt is left out).
fn read_records(records: &[Value], target: Provider) -> Result<Vec<Rec<'_>>> {
    let read = split_map(records, |i, r| read_record(i, r, target))?;
    Ok(read.into_iter().flatten().collect())
}

fn read_record(i: usize, r: &Value, target: Provider) -> Result<Option<Rec<'_>>> {
    let inv = |path: &str, msg: &str| Error::invalid(i, format!("records[{i}]{path}"), msg);
    let Some(r) = r.as_obj() else {
        return Err(inv("", "a record must be an object"));
    };
    let assistant = match r.str("type") {
        Some("user") => false,
        Some("assistant") => true,
        Some("system") if r.str("subtype") == Some("system_prompt") => return Ok(None),
        _ => return Err(inv(
            ".type",
            "provider output takes user and assistant records only (normalize_for_api's output)",
        )),
    };
    let Some(msg) = r.get("message").and_then(Value::as_obj) else {
        return Err(inv(".message", "missing required field (an object)"));
    };
    static EMPTY: SmolStr = SmolStr::new_inline("");
    let (text, blocks): (Option<&SmolStr>, &[Value]) = match msg.get("content") {
        Some(Value::Str(s)) => (Some(s), &[]),
        Some(Value::Arr(a)) => (None, a.as_slice()),
        Some(Value::Null) | None => (Some(&EMPTY), &[]),
        Some(_) => {
            return Err(inv(
                ".message.content",
                "must be a string or a list of blocks",
            ))
        }
    };
    let (mut longest_id, mut drops) = (0, false);
    for (j, b) in blocks.iter().enumerate() {
        let Some((b, t)) = b.as_obj().and_then(|o| Some((o, o.str("type")?))) else {
            return Err(inv(
                &format!(".message.content[{j}]"),
                "a block must be an object with a string type",
            ));
        };
        let ids = [b.str("id"), b.str("tool_use_id")];
        for id in ids.into_iter().flatten() {
            let len = if id_ok(id, usize::MAX) {
                id.len()
            } else {
                usize::MAX
            };
            longest_id = longest_id.max(len);
        }
        // a writer gives a call or a result without its id the id of ""
        if ids == [None, None] && matches!(t, "tool_use" | "tool_result") {
            longest_id = usize::MAX;
        }
        drops |= dropped_by(target, b, assistant).is_some();
    }
    Ok(Some(Rec {
        index: i,
        assistant,
        text,
        blocks,
        data: r.get("provider_data").and_then(Value::as_obj),
        longest_id,
        drops,
    }))
}

/// Builds records for [`from_provider`]: derived uuids, system records.
pub struct Builder {
    pub provider: Provider,
    pub out: Vec<Value>,
    hasher: crc32fast::Hasher,
    /// The name a uuid is derived from (reused).
    name: String,
    /// Whether uuids are derived ([`FromProvider::new`]).
    uuids: bool,
}

impl Builder {
    fn new(provider: Provider) -> Self {
        Builder {
            provider,
            out: Vec::new(),
            hasher: crc32fast::Hasher::new(),
            name: String::new(),
            uuids: true,
        }
    }

    /// A uuid derived from the record's position and everything before it
    /// (so a longer history keeps the uuids of its prefix).
    fn uuid(&mut self, content: &Value) -> SmolStr {
        use std::fmt::Write;
        if !self.uuids {
            return SmolStr::new_inline("msgnorm:convert");
        }
        content.hash_into(&mut self.hasher);
        let h = self.hasher.clone().finalize();
        self.name.clear();
        let _ = write!(
            self.name,
            "msgnorm:{}:{}:{h:08x}",
            self.provider.name(),
            self.out.len()
        );
        let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, self.name.as_bytes());
        SmolStr::new(
            id.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        )
    }

    pub fn system(&mut self, role: &str, content: Value) {
        let uuid = self.uuid(&content);
        let mut r = Map::with_capacity(5);
        r.push("type", "system");
        r.push("subtype", "system_prompt");
        r.push("uuid", uuid);
        r.push("role", role);
        r.push("content", content);
        self.out.push(Value::Obj(r));
    }

    /// A user or assistant record; `data` becomes its `provider_data`.
    pub fn message(&mut self, assistant: bool, content: Value, data: Option<Map>) {
        let uuid = self.uuid(&content);
        let role = if assistant { "assistant" } else { "user" };
        let mut m = Map::with_capacity(2);
        m.push("role", role);
        m.push("content", content);
        let mut r = Map::with_capacity(4);
        r.push("type", role);
        r.push("uuid", uuid);
        r.push("message", m);
        if let Some(d) = data {
            r.push("provider_data", self.data(d));
        }
        self.out.push(Value::Obj(r));
    }

    /// `{"provider": name, ...fields}`. A field of the provider's own named
    /// `provider` is kept as `~provider` (and a key starting with `~` gets one
    /// more), so that it cannot replace the name: [`data_fields`] reverses it.
    pub fn data(&self, fields: Map) -> Value {
        let mut m = Map::with_capacity(fields.len() + 1);
        m.push("provider", self.provider.name());
        for (k, v) in fields.0 {
            if k == "provider" || k.starts_with('~') {
                m.0.push((format!("~{k}").into(), v));
            } else {
                m.0.push((k, v));
            }
        }
        Value::Obj(m)
    }

    /// `{"type": "provider_part", "provider": name, "part": part}`.
    pub fn part(&self, part: Value) -> Value {
        let mut m = Map::with_capacity(3);
        m.push("type", "provider_part");
        m.push("provider", self.provider.name());
        m.push("part", part);
        Value::Obj(m)
    }
}

/// `{"type": "text", "text": t}`.
pub fn text_block(t: impl Into<SmolStr>) -> Value {
    let mut m = Map::with_capacity(2);
    m.push("type", "text");
    m.push("text", Value::Str(t.into()));
    Value::Obj(m)
}

/// An object of the given fields, in order (one allocation: the array's size is known).
pub fn obj<const N: usize>(fields: [(&'static str, Value); N]) -> Value {
    Value::Obj(Map(fields
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect()))
}

/// The provider a block's `provider_data` (or a `provider_part`) came from.
pub fn origin(b: &Map) -> Option<&str> {
    if b.str("type") == Some("provider_part") {
        return b.str("provider");
    }
    b.get("provider_data")
        .and_then(Value::as_obj)
        .and_then(|d| d.str("provider"))
}

/// A block's `provider_data` when it came from `p`.
pub fn data_from(b: &Map, p: Provider) -> Option<&Map> {
    b.get("provider_data")
        .and_then(Value::as_obj)
        .filter(|d| d.str("provider") == Some(p.name()))
}

/// The provider's own fields kept in a `provider_data` ([`Builder::data`]).
pub fn data_fields(d: &Map) -> impl Iterator<Item = (&str, &Value)> {
    d.0.iter().filter(|(k, _)| k != "provider").map(|(k, v)| {
        let k: &str = k;
        (k.strip_prefix('~').unwrap_or(k), v)
    })
}

/// A string content as blocks (none when empty).
pub fn string_blocks(s: &SmolStr) -> Vec<Value> {
    if s.is_empty() {
        Vec::new()
    } else {
        vec![text_block(s.clone())]
    }
}

/// `data:<media>;base64,<data>`.
pub fn data_url(media: &str, data: &str) -> String {
    format!("data:{media};base64,{data}")
}

/// `(media type, base64 data)` of a `data:` URL.
pub fn parse_data_url(u: &str) -> Option<(&str, &str)> {
    let rest = u.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media = head.strip_suffix(";base64")?;
    Some((media, data))
}

/// An Anthropic `image`/`document` block for a base64 payload or URL.
pub fn media_block(kind: &str, media: &str, data: &str) -> Value {
    obj([
        ("type", kind.into()),
        (
            "source",
            obj([
                ("type", "base64".into()),
                ("media_type", media.into()),
                ("data", data.into()),
            ]),
        ),
    ])
}

pub fn url_block(kind: &str, url: &str) -> Value {
    obj([
        ("type", kind.into()),
        ("source", obj([("type", "url".into()), ("url", url.into())])),
    ])
}

/// What an `image`/`document` block's `source` holds.
pub enum Source<'v> {
    Base64 { media: &'v str, data: &'v str },
    Url(&'v str),
    Text { media: &'v str, data: &'v str },
    Other,
}

pub fn source(b: &Map) -> Source<'_> {
    let Some(s) = b.get("source").and_then(Value::as_obj) else {
        return Source::Other;
    };
    match s.str("type") {
        Some("base64") => Source::Base64 {
            media: s.str("media_type").unwrap_or("application/octet-stream"),
            data: s.str("data").unwrap_or(""),
        },
        Some("url") => s.str("url").map_or(Source::Other, Source::Url),
        Some("text") => Source::Text {
            media: s.str("media_type").unwrap_or("text/plain"),
            data: s.str("data").unwrap_or(""),
        },
        _ => Source::Other,
    }
}

/// Texts of a tool_result's content (string, or its text blocks joined by "\n").
pub fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Arr(a)) => a
            .iter()
            .filter_map(Value::as_obj)
            .filter(|b| b.str("type") == Some("text"))
            .filter_map(|b| b.str("text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Deterministic, collision-free tool ids within a target's rules: an id that
/// is valid stays; any other gets its valid characters, cut to fit, plus
/// `_` and 8 hex digits of a hash. The same input id always gets the same
/// output id within a call, so a call and its result stay paired.
pub struct Ids {
    limit: usize,
    /// Whether some id of the records is outside the target's rules.
    rewrites: bool,
    reserved: AHashSet<String>,
    map: AHashMap<String, SmolStr>,
}

/// The tool name `target` gets for `name` ([`Provider::tool_name`]), counted
/// when it changes.
pub fn tool_name(name: &str, target: Provider, counts: &mut Counts) -> SmolStr {
    let out = target.tool_name(name);
    if out != name {
        count(counts, "tool_names_rewritten");
    }
    SmolStr::new(out)
}

pub fn id_ok(id: &str, limit: usize) -> bool {
    !id.is_empty()
        && id.len() <= limit
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

impl Ids {
    /// `limit`: the target's maximum length (in bytes; the ids are ASCII).
    pub fn new(recs: &[Rec<'_>], limit: usize) -> Self {
        // The set of valid ids is needed only when some id gets rewritten.
        if recs.iter().all(|r| r.longest_id <= limit) {
            return Ids::fixed(limit);
        }
        let mut reserved = AHashSet::new();
        for r in recs {
            for b in r.blocks.iter().filter_map(Value::as_obj) {
                for k in ["id", "tool_use_id"] {
                    if let Some(id) = b.str(k) {
                        if id_ok(id, limit) {
                            reserved.insert(id.to_string());
                        }
                    }
                }
            }
        }
        Ids {
            limit,
            rewrites: true,
            reserved,
            map: AHashMap::new(),
        }
    }

    /// Ids for records whose ids are all valid (none gets rewritten).
    fn fixed(limit: usize) -> Self {
        Ids {
            limit,
            rewrites: false,
            reserved: AHashSet::new(),
            map: AHashMap::new(),
        }
    }

    pub fn get(&mut self, id: &str, counts: &mut Counts) -> SmolStr {
        if id_ok(id, self.limit) {
            return SmolStr::new(id);
        }
        if let Some(m) = self.map.get(id) {
            return m.clone();
        }
        count(counts, "ids_rewritten");
        let keep: String = id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .take(self.limit.saturating_sub(9).min(64))
            .collect();
        let mut salt = 0u32;
        let out = loop {
            let mut h = crc32fast::Hasher::new();
            h.update(id.as_bytes());
            h.update(&salt.to_le_bytes());
            let cand = format!("{keep}_{:08x}", h.finalize());
            if !self.reserved.contains(&cand) {
                break cand;
            }
            salt += 1;
        };
        let out = SmolStr::from(out);
        self.reserved.insert(out.to_string());
        self.map.insert(id.to_string(), out.clone());
        out
    }
}

/// A target's rule for signed thinking: kept when it came from a provider
/// whose signatures the target verifies.
pub fn thinking_ok(b: &Map, target: Provider) -> bool {
    let o = origin(b);
    match target {
        Provider::Anthropic | Provider::Bedrock => {
            matches!(o, None | Some("anthropic") | Some("bedrock"))
        }
        _ => o == Some(target.name()),
    }
}

/// A JSON object text, for tool call `arguments`.
pub fn args_json(input: Option<&Value>) -> String {
    match input {
        Some(v) => v.to_json(),
        None => "{}".to_string(),
    }
}

/// `arguments` text → a tool_use `input` (an object), or `None` when it is not
/// a JSON object (the caller keeps the text).
pub fn parse_args(s: &str) -> Option<Value> {
    match Value::from_json(s) {
        Ok(v @ Value::Obj(_)) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat() -> Vec<Value> {
        let src = r#"[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call.with.dots", "type": "function",
                 "function": {"name": "f", "arguments": "{\"a\":1}"}}]},
            {"role": "tool", "tool_call_id": "call.with.dots", "content": "ok"},
            {"role": "assistant", "content": "done"}
        ]"#;
        match Value::from_json(src).unwrap() {
            Value::Arr(a) => a,
            _ => unreachable!(),
        }
    }

    fn run(target: Provider) -> (Value, Counts) {
        let mut report = crate::Report::default();
        let mut counts = Counts::new();
        let api = crate::ApiOptions::default();
        let out = convert(
            Provider::OpenAIChat,
            target,
            &chat(),
            None,
            &api,
            &mut report,
            &mut counts,
        )
        .unwrap();
        assert_eq!(report.dropped, 0, "the system prompt is carried");
        (out, counts)
    }

    /// A chat history with what an adapter carries from one message to the
    /// next: two calls answered in order, a legacy function_call answered by a
    /// `function` message, an assistant turn of text and calls.
    fn carried() -> Vec<Value> {
        let src = r#"[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "looking", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{\"a\":1}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
            {"role": "assistant", "content": null,
             "function_call": {"name": "h", "arguments": "{}"}},
            {"role": "function", "name": "h", "content": "three"},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "again"}
        ]"#;
        match Value::from_json(src).unwrap() {
            Value::Arr(a) => a,
            _ => unreachable!(),
        }
    }

    /// A provider output's message list and system parameter.
    fn request(out: &Value) -> (Vec<Value>, Option<Value>) {
        let system = out
            .as_obj()
            .and_then(|m| m.get("system").or_else(|| m.get("system_instruction")))
            .cloned();
        (message_list(out).unwrap().to_vec(), system)
    }

    fn convert_carried(target: Provider) -> Value {
        let api = crate::ApiOptions::default();
        let (mut report, mut counts) = (crate::Report::default(), Counts::new());
        let history = carried();
        convert(
            Provider::OpenAIChat,
            target,
            &history,
            None,
            &api,
            &mut report,
            &mut counts,
        )
        .unwrap()
    }

    #[test]
    fn records_are_the_same_fed_in_slices() {
        for p in Provider::ALL {
            let (messages, system) = match p {
                Provider::OpenAIChat => (carried(), None),
                _ => request(&convert_carried(p)),
            };
            let whole = from_provider(p, &messages, system.as_ref()).unwrap();
            for cut in 0..=messages.len() {
                let mut f = FromProvider::new(p, system.as_ref(), true).unwrap();
                f.feed(&messages[..cut]).unwrap();
                f.feed(&messages[cut..]).unwrap();
                assert!(f.finish() == whole, "{p:?}, cut before message {cut}");
            }
            let mut f = FromProvider::new(p, system.as_ref(), true).unwrap();
            messages.chunks(1).try_for_each(|m| f.feed(m)).unwrap();
            assert!(f.finish() == whole, "{p:?}, fed one message at a time");
        }
    }

    #[test]
    fn an_error_in_a_later_slice_names_the_message_in_the_whole_list() {
        let mut f = FromProvider::new(Provider::OpenAIChat, None, true).unwrap();
        f.feed(&carried()[..3]).unwrap();
        let bad = Value::from_json(r#"{"role": "tool", "content": "x"}"#).unwrap();
        let e = f.feed(&[bad]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "messages[3].tool_call_id: missing required field (a string)"
        );
    }

    #[test]
    fn conversion_does_not_depend_on_the_records_uuids() {
        // convert gives its records one placeholder uuid: no output shows them
        let api = crate::ApiOptions::default();
        for p in Provider::ALL {
            let recs = from_provider(Provider::OpenAIChat, &carried(), None).unwrap();
            let (mut report, mut counts) = (crate::Report::default(), Counts::new());
            let want =
                normalize_to_provider(p, recs, false, None, Some(&api), &mut report, &mut counts)
                    .unwrap();
            let (mut report2, mut counts2) = (crate::Report::default(), Counts::new());
            let history = carried();
            let got = convert(
                Provider::OpenAIChat,
                p,
                &history,
                None,
                &api,
                &mut report2,
                &mut counts2,
            )
            .unwrap();
            assert!(
                got == want,
                "{p:?}: {} != {}",
                got.to_json(),
                want.to_json()
            );
            assert_eq!(report2.items(), report.items());
            assert_eq!(counts2, counts);
        }
    }

    #[test]
    fn split_map_keeps_the_order_and_the_first_error() {
        let items: Vec<usize> = (0..20_000).collect();
        let out = split_map(&items, |i, x| Ok((i, *x * 2))).unwrap();
        assert!(out
            .iter()
            .enumerate()
            .all(|(k, (i, x))| k == *i && *x == 2 * k));
        let fail = |bad: &'static [usize]| {
            move |i: usize, _: &usize| {
                if bad.contains(&i) {
                    Err(Error::value(format!("item {i}")))
                } else {
                    Ok(i)
                }
            }
        };
        // an error in each half: the first half's, as one by one
        let e = split_map(&items, fail(&[3_000, 15_000])).unwrap_err();
        assert_eq!(e.to_string(), "item 3000");
        let e = split_map(&items, fail(&[15_000, 19_000])).unwrap_err();
        assert_eq!(e.to_string(), "item 15000");
    }

    #[test]
    fn write_each_writes_in_order_and_adds_up_the_counts() {
        let text = |i: usize| obj([("type", "text".into()), ("text", i.to_string().into())]);
        let record = |i: usize, id: &str| {
            let call = obj([("type", "tool_use".into()), ("id", id.into())]);
            let message = obj([("content", vec![text(i), call].into())]);
            obj([("type", "assistant".into()), ("message", message)])
        };
        let f = |r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>| {
            count(counts, "records");
            let id = ids.get(r.blocks[1].as_obj().unwrap().str("id").unwrap(), counts);
            out.push(Value::Arr(vec![r.blocks[0].clone(), id.into()]));
        };
        for bad in [false, true] {
            // one id outside the charset: every record is written on this thread
            let records: Vec<Value> = (0..20_000)
                .map(|i| record(i, if bad && i == 7 { "a.b" } else { "ok" }))
                .collect();
            let recs = read_records(&records, Provider::OpenAIChat).unwrap();
            let (mut out, mut counts) = (Vec::new(), Counts::new());
            write_each(&recs, Ids::new(&recs, 40), &mut counts, &mut out, f);
            let want: Vec<Value> = (0..20_000)
                .map(|i| {
                    let id = if bad && i == 7 {
                        out[7].as_arr().unwrap()[1].clone()
                    } else {
                        "ok".into()
                    };
                    Value::Arr(vec![text(i), id])
                })
                .collect();
            assert!(out == want, "bad id: {bad}");
            assert_eq!(counts.get("records"), Some(&20_000));
            assert_eq!(counts.get("ids_rewritten").copied(), bad.then_some(1));
        }
    }

    #[test]
    fn chat_ids_outside_the_charset_are_rewritten_in_pairs() {
        let (out, counts) = run(Provider::OpenAIChat);
        // '.' is outside [a-zA-Z0-9_-]: rewritten the same way in the call and the result
        let text = out.to_json();
        assert!(!text.contains("call.with.dots"), "{text}");
        assert_eq!(counts.get("ids_rewritten"), Some(&1));
        let Value::Arr(msgs) = out else { panic!() };
        assert_eq!(msgs.len(), 5);
        let call = msgs[2]
            .as_obj()
            .unwrap()
            .get("tool_calls")
            .unwrap()
            .as_arr()
            .unwrap()[0]
            .as_obj()
            .unwrap()
            .str("id")
            .unwrap()
            .to_string();
        assert_eq!(
            msgs[3].as_obj().unwrap().str("tool_call_id"),
            Some(call.as_str())
        );
        assert!(id_ok(&call, openai_chat::ID_LIMIT));
    }

    #[test]
    fn every_target_gets_the_system_prompt_and_the_pair() {
        for p in Provider::ALL {
            let (out, _) = run(p);
            let text = out.to_json();
            assert!(text.contains("Be brief."), "{p:?}: {text}");
            assert!(text.contains("done"), "{p:?}: {text}");
        }
    }

    #[test]
    fn ids_are_deterministic_and_within_the_limit() {
        let long = "x".repeat(100);
        let block = obj([("type", "tool_use".into()), ("id", long.as_str().into())]);
        let message = obj([
            ("role", "assistant".into()),
            ("content", vec![block].into()),
        ]);
        let record = obj([("type", "assistant".into()), ("message", message)]);
        let recs = read_records(std::slice::from_ref(&record), Provider::OpenAIChat).unwrap();
        assert_eq!(recs[0].longest_id, 100);
        let mut counts = Counts::new();
        let mut ids = Ids::new(&recs, 40);
        let a = ids.get(&long, &mut counts);
        assert_eq!(ids.get(&long, &mut counts), a);
        assert!(id_ok(&a, 40));
        assert_eq!(Ids::new(&recs, 40).get(&long, &mut counts), a);
        assert_eq!(ids.get("ok_id", &mut counts), "ok_id");
    }

    #[test]
    fn unknown_message_shapes_name_the_field() {
        let bad = vec![Value::from_json(r#"{"role": "tool", "content": "x"}"#).unwrap()];
        let e = from_provider(Provider::OpenAIChat, &bad, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "messages[0].tool_call_id: missing required field (a string)"
        );
    }

    #[test]
    fn unchanged_messages_are_found_in_order_past_merged_and_dropped_ones() {
        let input = chat();
        let usable = vec![true; input.len()];
        // the output drops the system message and changes the tool call
        let mut changed = input[2].clone();
        if let Value::Obj(m) = &mut changed {
            m.set("content", "now");
        }
        let out = Value::Arr(vec![
            input[1].clone(),
            changed,
            input[3].clone(),
            input[4].clone(),
        ]);
        assert_eq!(
            unchanged_messages(&input, &usable, &out),
            vec![Some(1), None, Some(3), Some(4)]
        );
        // an input that may not stand for itself is not handed back
        let mut usable = usable;
        usable[3] = false;
        assert_eq!(
            unchanged_messages(&input, &usable, &out),
            vec![Some(1), None, None, Some(4)]
        );
        // the message list of a target whose output is an object
        let mut m = Map::new();
        m.push("system", "s");
        m.push(
            "messages",
            Value::Arr(vec![input[1].clone(), input[4].clone()]),
        );
        assert_eq!(
            unchanged_messages(&input, &[true; 5], &Value::Obj(m)),
            vec![Some(1), Some(4)]
        );
    }

    #[test]
    fn the_look_ahead_widens_after_misses() {
        // 40 inputs merged away before the last one: still found
        let input: Vec<Value> = (0..41).map(Value::Int).collect();
        let usable = vec![true; input.len()];
        let mut out: Vec<Value> = (0..20).map(|_| Value::Null).collect();
        out.push(Value::Int(40));
        let same = unchanged_messages(&input, &usable, &Value::Arr(out));
        assert_eq!(same.last(), Some(&Some(40)));
        assert!(same[..20].iter().all(Option::is_none));
    }
}
