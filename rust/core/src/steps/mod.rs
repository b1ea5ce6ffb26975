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
    recs.iter()
        .rposition(|r| !(r.kind == crate::model::Kind::System && r.system_prompt))
}
