//! What `normalize_for_api` changed: a count per SPEC rule that fired.

/// Counts of rule firings, by rule (SPEC §4 step in the field docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Step 1: tombstones and the records they name.
    pub tombstoned: usize,
    /// Step 3: progress, summaries, entries, system notices, virtual records, synthetic errors.
    pub dropped: usize,
    /// Step 4: attachments that rendered to nothing.
    pub attachments_dropped: usize,
    /// Step 4 (and 5, 7's joint): user records merged into the previous one.
    pub users_merged: usize,
    /// Step 4: streamed assistant fragments re-joined to their first record.
    pub assistant_fragments_joined: usize,
    /// Step 5: repeated tool_use ids removed.
    pub duplicate_tool_uses_removed: usize,
    /// Step 5: server/MCP tool uses without their result removed.
    pub unanswered_server_tool_uses_removed: usize,
    /// Step 5: assistant records holding only thinking dropped.
    pub thinking_only_dropped: usize,
    /// Step 6: tool_result blocks with no tool_use just before them.
    pub orphan_results_removed: usize,
    /// Step 6: tool_result blocks for other ids, or repeats.
    pub stray_results_removed: usize,
    /// Step 6: synthetic results for unanswered tool_use blocks.
    pub missing_results_inserted: usize,
    /// Step 7: empty or whitespace-only text blocks removed.
    pub blank_texts_removed: usize,
    /// Step 7: error results whose content became joined text.
    pub error_results_joined: usize,
    /// Step 7: images and documents over the media limit.
    pub media_omitted: usize,
    /// Step 8: trailing thinking/blank text removed from the final assistant.
    pub final_blocks_trimmed: usize,
    /// Steps 6, 7, 9: contents that became `(no content)`.
    pub no_content_filled: usize,
    /// Step 10: the meta user record put first.
    pub first_user_inserted: usize,
}

impl Report {
    /// `(name, count)` pairs, in pipeline order.
    pub fn items(&self) -> [(&'static str, usize); 17] {
        [
            ("tombstoned", self.tombstoned),
            ("dropped", self.dropped),
            ("attachments_dropped", self.attachments_dropped),
            ("users_merged", self.users_merged),
            (
                "assistant_fragments_joined",
                self.assistant_fragments_joined,
            ),
            (
                "duplicate_tool_uses_removed",
                self.duplicate_tool_uses_removed,
            ),
            (
                "unanswered_server_tool_uses_removed",
                self.unanswered_server_tool_uses_removed,
            ),
            ("thinking_only_dropped", self.thinking_only_dropped),
            ("orphan_results_removed", self.orphan_results_removed),
            ("stray_results_removed", self.stray_results_removed),
            ("missing_results_inserted", self.missing_results_inserted),
            ("blank_texts_removed", self.blank_texts_removed),
            ("error_results_joined", self.error_results_joined),
            ("media_omitted", self.media_omitted),
            ("final_blocks_trimmed", self.final_blocks_trimmed),
            ("no_content_filled", self.no_content_filled),
            ("first_user_inserted", self.first_user_inserted),
        ]
    }
}
