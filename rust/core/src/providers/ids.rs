//! Tool ids and tool names as a target takes them: deterministic rewrites
//! that keep a call and its result paired.

use super::provider::id_ok;
use super::value::{SmolStr, Value};
use super::{count, Counts, Provider, Rec};
use ahash::{AHashMap, AHashSet};

/// Deterministic, collision-free tool ids within a target's rules: an id that
/// is valid stays; any other gets its valid characters, cut to fit, plus
/// `_` and 8 hex digits of a hash. The same input id always gets the same
/// output id within a call, so a call and its result stay paired.
pub struct Ids {
    pub(crate) limit: usize,
    /// Whether some id of the records is outside the target's rules.
    pub(crate) rewrites: bool,
    reserved: AHashSet<String>,
    map: AHashMap<String, SmolStr>,
    /// Whether `.` and `:` are valid too (Bedrock's `toolUseId` pattern
    /// `[a-zA-Z0-9_.:-]+`): [`Ids::with_dots`].
    dots: bool,
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
            dots: false,
        }
    }

    /// Ids for records whose ids are all valid (none gets rewritten).
    pub fn fixed(limit: usize) -> Self {
        Ids {
            limit,
            rewrites: false,
            reserved: AHashSet::new(),
            map: AHashMap::new(),
            dots: false,
        }
    }

    /// The same ids, with `.` and `:` kept (a target whose pattern takes them).
    pub fn with_dots(mut self) -> Self {
        self.dots = true;
        self
    }

    pub fn get(&mut self, id: &str, counts: &mut Counts) -> SmolStr {
        let dotted = |id: &str| {
            !id.is_empty()
                && id.len() <= self.limit
                && id
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_-.:".contains(&c))
        };
        if id_ok(id, self.limit) || (self.dots && dotted(id)) {
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

/// Tool ids reused in a later turn (OpenAI Chat `tool_call_id`, Responses
/// `call_id`), read as the API pairs them: a result answers the latest call
/// with its id. The first call with an id keeps it; the n-th (n ≥ 2) gets
/// `<id>_<n-1>` in the records, so that every call and result stays paired
/// for a target that wants unique ids (Anthropic, Bedrock, Gemini). The
/// rewrite depends only on the history before it, so a longer history keeps
/// the ids of its prefix (and the prompt cache). The original id is kept in
/// the block's `provider_data` (`call_id`), which the source's own writer
/// writes back.
#[derive(Default)]
pub struct Reused {
    /// How many calls so far used each id (by its hash).
    calls: AHashMap<u64, u32>,
}

fn id_hash(id: &str) -> u64 {
    static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
    STATE
        .get_or_init(|| ahash::RandomState::with_seeds(1, 2, 3, 4))
        .hash_one(id)
}

impl Reused {
    /// The record id of a call with `id`: `None` for the first call with it.
    pub fn call(&mut self, id: &str) -> Option<SmolStr> {
        let n = self.calls.entry(id_hash(id)).or_insert(0);
        *n += 1;
        (*n > 1).then(|| SmolStr::from(format!("{id}_{}", *n - 1)))
    }

    /// The record id of a result answering `id` (the latest call with it):
    /// `None` when that call kept its id.
    pub fn result(&self, id: &str) -> Option<SmolStr> {
        match self.calls.get(&id_hash(id)) {
            Some(&n) if n > 1 => Some(SmolStr::from(format!("{id}_{}", n - 1))),
            _ => None,
        }
    }
}

/// `blk` (an object) with its id at `key` replaced by `new`, the original
/// kept in its `provider_data` as `call_id` (made for `b`'s provider when
/// the block has none).
pub fn reuse_id(b: &super::Builder, blk: &mut super::Map, key: &'static str, new: SmolStr) {
    let Some(orig) = blk.get(key).cloned() else {
        return;
    };
    blk.set(key, new);
    match blk.get_mut("provider_data") {
        Some(Value::Obj(d)) => d.push("call_id", orig),
        _ => {
            let d = b.data(super::Map(vec![("call_id".into(), orig)]));
            blk.push("provider_data", d);
        }
    }
}

/// The id a source's own writer writes for a call or result block: the
/// original id kept by [`reuse_id`], else the block's `key`.
pub fn own_id<'b>(b: &'b super::Map, key: &str, p: Provider) -> &'b str {
    super::data_from(b, p)
        .and_then(|d| d.str("call_id"))
        .or_else(|| b.str(key))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{obj, read_records};

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
    fn a_reused_id_is_renamed_by_its_use_and_results_follow_the_latest_call() {
        let mut r = Reused::default();
        assert_eq!(r.result("a"), None, "a result with no call keeps its id");
        assert_eq!(r.call("a"), None);
        assert_eq!(r.result("a"), None);
        assert_eq!(r.call("b"), None);
        assert_eq!(r.call("a").as_deref(), Some("a_1"));
        assert_eq!(r.result("a").as_deref(), Some("a_1"));
        assert_eq!(r.call("a").as_deref(), Some("a_2"));
        assert_eq!(r.result("a").as_deref(), Some("a_2"));
        assert_eq!(r.result("b"), None);
    }
}
