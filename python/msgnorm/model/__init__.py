"""Typed model of Claude Code session transcripts (SPEC §1), built on ``msgspec``.

Every record and content block is a ``msgspec.Struct``.  The model is
*lossless*: what it does not name survives a ``from_builtins`` → ``to_builtins``
(or ``decode`` → ``encode``) round trip unchanged.

* Optional fields default to ``msgspec.UNSET``: a field absent from the JSON stays
  absent, an explicit ``null`` (where the field allows it) stays ``null``.
* Every Struct has a catch-all ``extra: dict[str, Any]`` holding the fields the
  model does not name.  In Claude Code's JSON these fields sit beside the named
  ones; :func:`to_builtins` / :func:`encode` flatten them back in.  msgspec itself
  encodes the catch-all as a nested ``"__extra__"`` object (omitted when empty),
  so ``msgspec.json.encode`` / ``msgspec.json.decode(type=Message)`` is a lossless
  round trip of the model's own wire form as well.
* A content block whose ``type`` the model does not know is an
  :class:`UnknownBlock`, a ``dict`` subclass holding the block as it was written.
* A record whose ``type`` is not one of the seven message types (``summary``,
  ``file-history-snapshot``, ...) is an :class:`Entry`, a ``dict`` subclass
  holding the record as it was written.  ``Record = Message | Entry``.

``msgspec.json.decode(data, type=list[Message])`` reads a transcript whose records
are all messages and whose blocks are all of known types (unnamed fields are then
dropped: use :func:`decode` to keep them).

Performance notes: the Structs are defined with ``gc=False`` (the cycle collector
does not track them, which makes bulk conversion several times faster), so do not
build reference cycles through them (e.g. ``rec.extra["self"] = rec``).  No
function changes the cyclic collector's state (its switch and thresholds are the
whole interpreter's).
Input is read as every msgnorm function reads it: an invalid record raises
:class:`msgnorm.InvalidRecordError` (``RecordValidationError`` is the same
class), invalid JSON :class:`msgnorm.JSONDecodeError` (``TranscriptDecodeError``);
both are ``ValueError``.

The code is split by job: ``_constants`` (texts), ``_structs`` (the Structs and
unions), ``_convert`` (builtins and JSON to and from Structs), ``_factories``
(records as Claude Code makes them, and predicates); this module re-exports them.
"""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from ..errors import InvalidRecordError, JSONDecodeError
from ._constants import (
    CANCEL_MESSAGE,
    INTERRUPT_MESSAGE,
    INTERRUPT_MESSAGE_FOR_TOOL_USE,
    MESSAGE_TYPES,
    NO_CONTENT_MESSAGE,
    NO_MESSAGE_CONTENT,
    NO_RESPONSE_REQUESTED,
    ORPHANED_TOOL_RESULT,
    REJECT_MESSAGE,
    SYNTHETIC_MESSAGES,
    SYNTHETIC_MODEL,
    SYSTEM_LEVELS,
    TOOL_RESULT_MISSING,
    TOOL_USE_INTERRUPTED,
)
from ._convert import _nesting_guard as _nesting_guard  # used by the rest of msgnorm
from ._convert import decode, encode, from_builtins, to_builtins
from ._factories import (
    create_assistant_message,
    create_attachment_message,
    create_progress_message,
    create_system_message,
    create_tombstone,
    create_tool_use_summary_message,
    create_user_message,
    is_synthetic_message,
)
from ._structs import _ASSISTANT_PAYLOAD_KEYS as _ASSISTANT_PAYLOAD_KEYS  # (tests)
from ._structs import _BLOCK_KEYS as _BLOCK_KEYS
from ._structs import _RECORD_KEYS as _RECORD_KEYS
from ._structs import _USER_PAYLOAD_KEYS as _USER_PAYLOAD_KEYS
from ._structs import (
    AssistantMessage,
    AssistantPayload,
    AttachmentMessage,
    BashCodeExecutionToolResultBlock,
    Block,
    CodeExecutionToolResultBlock,
    Content,
    DocumentBlock,
    Entry,
    ImageBlock,
    McpToolResultBlock,
    McpToolUseBlock,
    Message,
    ProgressMessage,
    Record,
    RedactedThinkingBlock,
    ServerToolUseBlock,
    SystemMessage,
    TextBlock,
    TextEditorCodeExecutionToolResultBlock,
    ThinkingBlock,
    TombstoneMessage,
    ToolResultBlock,
    ToolSearchToolResultBlock,
    ToolUseBlock,
    ToolUseSummaryMessage,
    UnknownBlock,
    UserMessage,
    UserPayload,
    WebFetchToolResultBlock,
    WebSearchToolResultBlock,
)

#: An invalid record: the one error class of every input kind (an alias kept
#: for the name this module used before).
RecordValidationError = InvalidRecordError
#: Invalid JSON: the one error class of every input kind (an alias kept for the
#: name this module used before).
TranscriptDecodeError = JSONDecodeError

__all__ = [
    "CANCEL_MESSAGE",
    "INTERRUPT_MESSAGE",
    "INTERRUPT_MESSAGE_FOR_TOOL_USE",
    "MESSAGE_TYPES",
    "NO_CONTENT_MESSAGE",
    "NO_MESSAGE_CONTENT",
    "NO_RESPONSE_REQUESTED",
    "ORPHANED_TOOL_RESULT",
    "REJECT_MESSAGE",
    "SYNTHETIC_MESSAGES",
    "SYNTHETIC_MODEL",
    "SYSTEM_LEVELS",
    "TOOL_RESULT_MISSING",
    "TOOL_USE_INTERRUPTED",
    "UNSET",
    "AssistantMessage",
    "AssistantPayload",
    "AttachmentMessage",
    "BashCodeExecutionToolResultBlock",
    "Block",
    "CodeExecutionToolResultBlock",
    "Content",
    "DocumentBlock",
    "Entry",
    "ImageBlock",
    "McpToolResultBlock",
    "McpToolUseBlock",
    "Message",
    "ProgressMessage",
    "Record",
    "RecordValidationError",
    "RedactedThinkingBlock",
    "ServerToolUseBlock",
    "SystemMessage",
    "TextBlock",
    "TextEditorCodeExecutionToolResultBlock",
    "ThinkingBlock",
    "TombstoneMessage",
    "ToolResultBlock",
    "ToolSearchToolResultBlock",
    "ToolUseBlock",
    "ToolUseSummaryMessage",
    "TranscriptDecodeError",
    "UnknownBlock",
    "UnsetType",
    "UserMessage",
    "UserPayload",
    "WebFetchToolResultBlock",
    "WebSearchToolResultBlock",
    "create_assistant_message",
    "create_attachment_message",
    "create_progress_message",
    "create_system_message",
    "create_tombstone",
    "create_tool_use_summary_message",
    "create_user_message",
    "decode",
    "encode",
    "from_builtins",
    "is_synthetic_message",
    "to_builtins",
]
