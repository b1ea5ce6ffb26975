//! The OpenAI Responses API's input item types: the one list of what may be
//! sent as an `input` item. Anything else a client keeps in its history
//! (Codex's `ghost_snapshot`, say) is client-only: never sent.

/// The documented Responses input item types (openai `ResponseInputItemParam`).
const API_INPUT_ITEMS: &[&str] = &[
    "message",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "web_search_call",
    "function_call",
    "function_call_output",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "configuration_update",
    "reasoning",
    "compaction",
    "compaction_trigger",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "item_reference",
    "program",
    "program_output",
];

/// Whether `item_type` is a Responses API input item type.
pub fn is_api_input_item(item_type: &str) -> bool {
    API_INPUT_ITEMS.contains(&item_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_only_items_are_not_input_items() {
        for t in [
            "message",
            "function_call",
            "function_call_output",
            "reasoning",
            "mcp_call",
        ] {
            assert!(is_api_input_item(t), "{t}");
        }
        for t in ["ghost_snapshot", "turn_context", "", "Message"] {
            assert!(!is_api_input_item(t), "{t}");
        }
    }
}
