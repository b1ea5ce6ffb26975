//! The item types the OpenAI Responses API takes as input: the one list that
//! says whether an item can be sent back. An item of any other type (Codex's
//! `ghost_snapshot`, a client's own bookkeeping) is client-only.

/// The documented Responses API input item types (the `type` of each member
/// of the request's `input` list).
const API_INPUT_ITEMS: [&str; 31] = [
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

/// Whether the Responses API accepts an input item of this `type`.
pub fn is_api_input_item(item_type: &str) -> bool {
    API_INPUT_ITEMS.contains(&item_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_items_and_client_only_items() {
        for t in [
            "message",
            "function_call",
            "custom_tool_call_output",
            "reasoning",
        ] {
            assert!(is_api_input_item(t), "{t}");
        }
        for t in ["ghost_snapshot", "other", "", "Message", "turn_context"] {
            assert!(!is_api_input_item(t), "{t}");
        }
    }
}
