"""Claude Code's own texts and names, and SPEC §4's (re-exported by ``msgnorm.model``)."""

from __future__ import annotations

INTERRUPT_MESSAGE = "[Request interrupted by user]"
INTERRUPT_MESSAGE_FOR_TOOL_USE = "[Request interrupted by user for tool use]"
NO_RESPONSE_REQUESTED = "No response requested."
CANCEL_MESSAGE = (
    "The user doesn't want to take this action right now. STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)
REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
SYNTHETIC_MODEL = "<synthetic>"
NO_CONTENT_MESSAGE = "(no content)"

TOOL_USE_INTERRUPTED = "[Tool use interrupted]"
ORPHANED_TOOL_RESULT = "[Orphaned tool result removed due to conversation resume]"
TOOL_RESULT_MISSING = "[Tool result missing due to internal error]"
NO_MESSAGE_CONTENT = "[No message content]"

#: The texts Claude Code writes itself as a user/assistant message (its
#: ``SYNTHETIC_MESSAGES`` set): interrupts, cancel/reject replies, "no response".
SYNTHETIC_MESSAGES: frozenset[str] = frozenset(
    {
        INTERRUPT_MESSAGE,
        INTERRUPT_MESSAGE_FOR_TOOL_USE,
        CANCEL_MESSAGE,
        REJECT_MESSAGE,
        NO_RESPONSE_REQUESTED,
    }
)

#: The seven record types that are messages (SPEC §1); any other is an entry.
MESSAGE_TYPES: frozenset[str] = frozenset(
    {"user", "assistant", "system", "attachment", "progress", "tool_use_summary", "tombstone"}
)

#: The ``level`` values :func:`create_system_message` accepts.
SYSTEM_LEVELS: frozenset[str] = frozenset({"info", "warning", "error"})
