//! SPEC §4, one module per step, in order.

pub mod assistant_cleanup;
pub mod attachments;
pub mod drop;
pub mod empty_content;
pub mod final_assistant;
pub mod fold;
pub mod hygiene;
mod relay;
pub mod short_ids;
pub mod tombstones;
pub mod tool_pairing;
pub mod user_first;

pub(crate) use relay::Relay;

use crate::model::Str;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A set of SPEC §4 steps: what `normalize_for_api` runs ([`Steps::ALL`]),
/// or the steps `convert` runs for the rules a request breaks (each provider
/// rule's `steps` names the steps that repair it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Steps(u16);

impl Steps {
    /// No step: a rule the reader or the writer repairs, or none.
    pub const NONE: Steps = Steps(0);
    /// Steps 1–3: tombstones, attachments, dropped record types.
    pub const DROP: Steps = Steps(1);
    /// Step 4: the fold (user merge, streamed assistant records joined).
    pub const FOLD: Steps = Steps(1 << 3);
    /// Step 5: assistant clean-up.
    pub const CLEANUP: Steps = Steps(1 << 4);
    /// Step 6: tool pairing.
    pub const PAIRING: Steps = Steps(1 << 5);
    /// Step 7: content hygiene.
    pub const HYGIENE: Steps = Steps(1 << 6);
    /// Step 8: final assistant.
    pub const FINAL: Steps = Steps(1 << 7);
    /// Step 9: empty non-final assistant content.
    pub const EMPTY: Steps = Steps(1 << 8);
    /// Step 10: user first (with `ensure_user_first`).
    pub const USER_FIRST: Steps = Steps(1 << 9);
    /// Step 11: short ids (with `short_ids`).
    pub const SHORT_IDS: Steps = Steps(1 << 10);
    /// Every step: SPEC §4 as written.
    pub const ALL: Steps = Steps(
        Steps::DROP.0
            | Steps::FOLD.0
            | Steps::CLEANUP.0
            | Steps::PAIRING.0
            | Steps::HYGIENE.0
            | Steps::FINAL.0
            | Steps::EMPTY.0
            | Steps::USER_FIRST.0
            | Steps::SHORT_IDS.0,
    );
    /// The steps by name, in SPEC order (`convert`'s report counts each it ran).
    pub const NAMED: [(Steps, &'static str); 9] = [
        (Steps::DROP, "step_drop"),
        (Steps::FOLD, "step_fold"),
        (Steps::CLEANUP, "step_assistant_cleanup"),
        (Steps::PAIRING, "step_tool_pairing"),
        (Steps::HYGIENE, "step_hygiene"),
        (Steps::FINAL, "step_final_assistant"),
        (Steps::EMPTY, "step_empty_content"),
        (Steps::USER_FIRST, "step_user_first"),
        (Steps::SHORT_IDS, "step_short_ids"),
    ];

    /// `self` and `other`.
    pub const fn with(self, other: Steps) -> Steps {
        Steps(self.0 | other.0)
    }

    /// Whether `self` holds every step of `other`.
    pub const fn has(self, other: Steps) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl Default for Steps {
    fn default() -> Self {
        Steps::ALL
    }
}

/// The §4 texts.
pub const NO_CONTENT: &str = "(no content)";
pub const TOOL_USE_INTERRUPTED: &str = "[Tool use interrupted]";
pub const ORPHANED_TOOL_RESULT: &str = "[Orphaned tool result removed due to conversation resume]";
pub const TOOL_RESULT_MISSING: &str = "[Tool result missing due to internal error]";
pub const NO_MESSAGE_CONTENT: &str = "[No message content]";

/// The index of the record that ends the conversation: the last one that is
/// not a `system_prompt` record. Those (kept by `normalize_for_api`, SPEC §4
/// step 3) go to the request's system parameter, so a final assistant record
/// followed only by them is the final assistant turn (steps 5, 8 and 9).
pub(crate) fn last_turn<H>(recs: &[crate::model::Record<'_, H>]) -> Option<usize> {
    recs.iter().rposition(|r| !r.is_system_prompt())
}

/// The hasher of a map whose keys are hashes already.
#[derive(Default)]
pub(crate) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A set of ids held by their hashes: growing it re-reads no id from the
/// input (a reply of half a million tool uses would re-read each id at every
/// doubling, from all over the input). Ids whose hashes collide with one held
/// go to `spill`.
#[derive(Default)]
pub(crate) struct IdSet<'a> {
    state: ahash::RandomState,
    by_hash: HashMap<u64, Str<'a>, BuildHasherDefault<Prehashed>>,
    spill: ahash::AHashSet<Str<'a>>,
}

impl<'a> IdSet<'a> {
    pub(crate) fn contains(&self, id: &str) -> bool {
        let h = self.state.hash_one(id);
        self.by_hash.get(&h).is_some_and(|s| s == id)
            || (!self.spill.is_empty() && self.spill.contains(id))
    }

    pub(crate) fn insert(&mut self, id: Str<'a>) {
        let h = self.state.hash_one(&*id);
        match self.by_hash.get(&h) {
            None => {
                self.by_hash.insert(h, id);
            }
            Some(s) if *s == id => {}
            Some(_) => {
                self.spill.insert(id);
            }
        }
    }

    pub(crate) fn remove(&mut self, id: &str) {
        let h = self.state.hash_one(id);
        if self.by_hash.get(&h).is_some_and(|s| s == id) {
            self.by_hash.remove(&h);
        } else {
            self.spill.remove(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IdSet;
    use std::borrow::Cow;

    #[test]
    fn id_set_holds_ids_whose_hashes_collide() {
        let mut s = IdSet::default();
        s.insert(Cow::Borrowed("a"));
        // another id under the hash of "a", as a collision would put it
        let h = s.state.hash_one("a");
        s.spill.insert(Cow::Borrowed("b"));
        assert!(s.contains("a") && s.contains("b") && !s.contains("c"));
        s.remove("a");
        assert!(
            !s.contains("a") && s.contains("b"),
            "a spilled id outlives the one held"
        );
        assert!(!s.by_hash.contains_key(&h));
        s.insert(Cow::Borrowed("a"));
        s.insert(Cow::Borrowed("a"));
        s.remove("b");
        assert!(s.contains("a") && !s.contains("b"));
        s.remove("a");
        assert!(!s.contains("a"));
    }
}
