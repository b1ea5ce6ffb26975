//! Tool ids and tool names as a target takes them: deterministic rewrites
//! that keep a call and its result paired.

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
    pub fn fixed(limit: usize) -> Self {
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
}
