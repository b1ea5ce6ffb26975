"""The Structs of the typed model and the record/block unions (SPEC §1)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union, get_args

from msgspec import UNSET, Struct, UnsetType, field

# SPEC §1: a field is required only where a step reads it, and a field it does
# not require is never checked. The Structs say the same: a required field has
# its JSON type (checked first, with every input kind's message, by the reader
# msgnorm.normalize_for_api uses), and any other field is annotated with the
# type Claude Code writes ``| Any``: msgspec accepts any value there, as SPEC §1
# does, and a type checker still sees the usual type.

_EXTRA = "__extra__"  # encoded name of every Struct's catch-all field
_UNKNOWN_TAG = "__msgnorm_unknown_block__"  # private placeholder tag, see from_builtins


def _extra_field() -> Any:
    return field(default_factory=dict, name=_EXTRA)


# --------------------------------------------------------------------------- #
# Pass-through types: unknown blocks and entries
# --------------------------------------------------------------------------- #


class _AsWritten(dict[str, Any]):
    """A JSON object the model keeps as it was written (a ``dict``, so msgspec
    encodes it as the object it holds)."""

    __slots__ = ()

    @property
    def type(self) -> Any:
        """The object's ``type`` value."""
        return self.get("type")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"


class UnknownBlock(_AsWritten):
    """A content block of a type the model does not know: the block's JSON object."""

    __slots__ = ()


class Entry(_AsWritten):
    """A transcript record that is not a message (``summary``, ``file-history-snapshot``...):
    the record as written."""

    __slots__ = ()


# --------------------------------------------------------------------------- #
# Blocks
# --------------------------------------------------------------------------- #


class _Tagged(
    Struct,
    kw_only=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    tag_field="type",
):
    """Base of blocks and records: tagged on ``type``, with the catch-all."""

    extra: dict[str, Any] = _extra_field()

    @property
    def type(self) -> str:
        """The ``type`` tag of this block or record."""
        tag: str = self.__struct_config__.tag  # type: ignore[assignment]
        return tag


class TextBlock(_Tagged, kw_only=True, tag="text"):
    """``{"type": "text", "text": ...}``."""

    text: str
    citations: list[Any] | UnsetType | Any | None = UNSET
    cache_control: Any = UNSET


class ThinkingBlock(_Tagged, kw_only=True, tag="thinking"):
    """Extended thinking: ``thinking`` and its ``signature``."""

    thinking: str | UnsetType | Any = UNSET
    signature: str | UnsetType | Any = UNSET


class RedactedThinkingBlock(_Tagged, kw_only=True, tag="redacted_thinking"):
    """Encrypted thinking: ``data``."""

    data: str | UnsetType | Any = UNSET


class _ToolCall(_Tagged, kw_only=True):
    """A tool call: ``id``, ``name``, ``input``."""

    id: str
    name: str | UnsetType | Any = UNSET
    input: Any = UNSET
    cache_control: Any = UNSET


class ToolUseBlock(_ToolCall, kw_only=True, tag="tool_use"):
    """A client tool call: ``id``, ``name``, ``input``."""


class ToolResultBlock(_Tagged, kw_only=True, tag="tool_result"):
    """The answer to a ``tool_use``: ``tool_use_id``, ``content`` (str or blocks), ``is_error``."""

    tool_use_id: str
    content: str | list[_ContentBlock] | UnsetType | None = UNSET
    is_error: Any = UNSET  # SPEC §1: only JSON true sets the flag; any value is kept
    cache_control: Any = UNSET


class ImageBlock(_Tagged, kw_only=True, tag="image"):
    """An image: ``source``."""

    source: Any = UNSET
    cache_control: Any = UNSET


class DocumentBlock(_Tagged, kw_only=True, tag="document"):
    """A document (PDF, text...): ``source``."""

    source: Any = UNSET
    title: str | UnsetType | Any | None = UNSET
    context: str | UnsetType | Any | None = UNSET
    citations: Any = UNSET
    cache_control: Any = UNSET


class ServerToolUseBlock(_ToolCall, kw_only=True, tag="server_tool_use"):
    """A server tool call (web search, code execution...): ``id``, ``name``, ``input``."""


class McpToolUseBlock(_ToolCall, kw_only=True, tag="mcp_tool_use"):
    """An MCP connector tool call: ``id``, ``name``, ``server_name``, ``input``."""

    server_name: str | UnsetType | Any = UNSET


class _ServerToolResult(_Tagged, kw_only=True):
    """A server tool's result (``*_tool_result``): ``tool_use_id`` and ``content``."""

    tool_use_id: str
    content: Any = UNSET
    cache_control: Any = UNSET


class WebSearchToolResultBlock(_ServerToolResult, kw_only=True, tag="web_search_tool_result"):
    """``web_search_tool_result``."""


class WebFetchToolResultBlock(_ServerToolResult, kw_only=True, tag="web_fetch_tool_result"):
    """``web_fetch_tool_result``."""


class CodeExecutionToolResultBlock(
    _ServerToolResult, kw_only=True, tag="code_execution_tool_result"
):
    """``code_execution_tool_result``."""


class BashCodeExecutionToolResultBlock(
    _ServerToolResult, kw_only=True, tag="bash_code_execution_tool_result"
):
    """``bash_code_execution_tool_result``."""


class TextEditorCodeExecutionToolResultBlock(
    _ServerToolResult, kw_only=True, tag="text_editor_code_execution_tool_result"
):
    """``text_editor_code_execution_tool_result``."""


class ToolSearchToolResultBlock(_ServerToolResult, kw_only=True, tag="tool_search_tool_result"):
    """``tool_search_tool_result``."""


class McpToolResultBlock(_Tagged, kw_only=True, tag="mcp_tool_result"):
    tool_use_id: str
    content: Any = UNSET
    is_error: Any = UNSET  # SPEC §1: only JSON true sets the flag; any value is kept
    cache_control: Any = UNSET


class _UnknownPlaceholder(_Tagged, kw_only=True, tag=_UNKNOWN_TAG):
    """Stands for an UnknownBlock inside msgspec.convert (private, never returned)."""

    raw: dict[str, Any]


Block = Union[  # noqa: UP007 (a runtime alias usable on Python 3.10)
    TextBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ImageBlock,
    DocumentBlock,
    ServerToolUseBlock,
    McpToolUseBlock,
    WebSearchToolResultBlock,
    WebFetchToolResultBlock,
    CodeExecutionToolResultBlock,
    BashCodeExecutionToolResultBlock,
    TextEditorCodeExecutionToolResultBlock,
    ToolSearchToolResultBlock,
    McpToolResultBlock,
    UnknownBlock,
]
"""A content block: one of the known block Structs, or an :class:`UnknownBlock`."""

#: The block Structs of :data:`Block` (every member but :class:`UnknownBlock`).
_KNOWN_BLOCK_TYPES: tuple[type[_Tagged], ...] = tuple(
    t for t in get_args(Block) if t is not UnknownBlock
)

if TYPE_CHECKING:
    _ContentBlock = Block
else:
    # What msgspec sees in content lists: the tagged Structs (msgspec cannot put a
    # dict type in a union with Structs). UnknownBlock values still encode fine.
    _WIRE_BLOCK_TYPES = (*_KNOWN_BLOCK_TYPES, _UnknownPlaceholder)
    _ContentBlock = Union[_WIRE_BLOCK_TYPES]  # noqa: UP007

Content = Union[str, list[Block], None]  # noqa: UP007
"""A message content: a string, a list of blocks, or ``None`` (counts as "")."""


# --------------------------------------------------------------------------- #
# Payloads and records
# --------------------------------------------------------------------------- #


class _Payload(Struct, kw_only=True, omit_defaults=True, repr_omit_defaults=True, gc=False):
    extra: dict[str, Any] = _extra_field()


class UserPayload(_Payload, kw_only=True):
    """``message`` of a ``user`` record."""

    role: str  # "user"
    content: str | list[_ContentBlock] | None


class AssistantPayload(_Payload, kw_only=True):
    """``message`` of an ``assistant`` record (an Anthropic API ``Message``)."""

    role: str  # "assistant"
    content: str | list[_ContentBlock] | None
    id: str | UnsetType | Any | None = UNSET
    type: str | UnsetType | Any = UNSET
    model: str | UnsetType | Any | None = UNSET
    stop_reason: str | UnsetType | Any | None = UNSET
    stop_sequence: str | UnsetType | Any | None = UNSET
    usage: Any = UNSET
    container: Any = UNSET
    context_management: Any = UNSET


class _Record(_Tagged, kw_only=True):
    """Fields Claude Code writes on (almost) every record; all optional."""

    parent_uuid: str | UnsetType | Any | None = field(default=UNSET, name="parentUuid")
    logical_parent_uuid: str | UnsetType | Any | None = field(
        default=UNSET, name="logicalParentUuid"
    )
    is_sidechain: bool | UnsetType | Any = field(default=UNSET, name="isSidechain")
    user_type: str | UnsetType | Any = field(default=UNSET, name="userType")
    cwd: str | UnsetType | Any = UNSET
    session_id: str | UnsetType | Any = field(default=UNSET, name="sessionId")
    version: str | UnsetType | Any = UNSET
    git_branch: str | UnsetType | Any = field(default=UNSET, name="gitBranch")
    agent_id: str | UnsetType | Any = field(default=UNSET, name="agentId")
    slug: str | UnsetType | Any = UNSET
    timestamp: str | UnsetType | Any = UNSET
    is_meta: bool | UnsetType | Any = field(default=UNSET, name="isMeta")


class UserMessage(_Record, kw_only=True, tag="user"):
    """A ``user`` record: a prompt, tool results, or a meta message."""

    uuid: str
    message: UserPayload
    is_virtual: bool | UnsetType | Any = field(default=UNSET, name="isVirtual")
    is_compact_summary: bool | UnsetType | Any = field(default=UNSET, name="isCompactSummary")
    is_visible_in_transcript_only: bool | UnsetType | Any = field(
        default=UNSET, name="isVisibleInTranscriptOnly"
    )
    tool_use_result: Any = field(default=UNSET, name="toolUseResult")
    source_tool_assistant_uuid: str | UnsetType | Any = field(
        default=UNSET, name="sourceToolAssistantUUID"
    )
    source_tool_use_id: str | UnsetType | Any = field(default=UNSET, name="sourceToolUseID")
    thinking_metadata: Any = field(default=UNSET, name="thinkingMetadata")
    todos: Any = UNSET
    permission_mode: str | UnsetType | Any = field(default=UNSET, name="permissionMode")


class AssistantMessage(_Record, kw_only=True, tag="assistant"):
    """An ``assistant`` record (streamed replies are written one block per record)."""

    uuid: str
    message: AssistantPayload
    request_id: str | UnsetType | Any | None = field(default=UNSET, name="requestId")
    is_api_error_message: bool | UnsetType | Any = field(default=UNSET, name="isApiErrorMessage")
    is_virtual: bool | UnsetType | Any = field(default=UNSET, name="isVirtual")
    error: Any = UNSET


class SystemMessage(_Record, kw_only=True, tag="system"):
    """A ``system`` record: ``subtype``, ``content``, ``level``.

    Only ``subtype`` is required; a ``local_command`` record also needs a string
    ``uuid`` and ``content`` (SPEC §1).  Real transcripts carry ``turn_duration``,
    ``stop_hook_summary``, ``compact_boundary``, ``api_error``, ... records with
    no ``content``; a field SPEC §1 does not require is not checked."""

    subtype: str
    uuid: Any = UNSET
    content: Any = UNSET
    level: Any = UNSET
    tool_use_id: Any = field(default=UNSET, name="toolUseID")


class AttachmentMessage(_Record, kw_only=True, tag="attachment"):
    """An ``attachment`` record: ``attachment`` is an object with a string ``type``."""

    uuid: str
    attachment: dict[str, Any]


class ProgressMessage(_Record, kw_only=True, tag="progress"):
    """A ``progress`` record of a running tool: ``toolUseID``, ``data`` (every
    step drops it, so SPEC §1 requires nothing but its ``type``)."""

    uuid: Any = UNSET
    data: Any = UNSET
    tool_use_id: Any = field(default=UNSET, name="toolUseID")
    parent_tool_use_id: Any = field(default=UNSET, name="parentToolUseID")


class ToolUseSummaryMessage(_Record, kw_only=True, tag="tool_use_summary"):
    """A ``tool_use_summary`` record: ``summary`` of ``precedingToolUseIds`` (every
    step drops it, so SPEC §1 requires nothing but its ``type``)."""

    uuid: Any = UNSET
    summary: Any = UNSET
    preceding_tool_use_ids: Any = field(default=UNSET, name="precedingToolUseIds")


class TombstoneMessage(_Record, kw_only=True, tag="tombstone"):
    """A ``tombstone``: removes the assistant record ``message`` (by uuid) from history.

    ``message`` is that record as JSON (SPEC §1 asks only for its ``uuid``)."""

    message: dict[str, Any]
    uuid: str | UnsetType | Any = UNSET


Message = Union[  # noqa: UP007
    UserMessage,
    AssistantMessage,
    SystemMessage,
    AttachmentMessage,
    ProgressMessage,
    ToolUseSummaryMessage,
    TombstoneMessage,
]
"""A message record: a tagged union on ``type`` that msgspec decodes directly."""

Record = Union[Message, Entry]  # noqa: UP007
"""Any transcript record: a :data:`Message` or an :class:`Entry`."""

_RECORD_CLASSES: dict[str, type[_Tagged]] = {
    c.__struct_config__.tag: c  # type: ignore[misc]
    for c in get_args(Message)
}


def _known(cls: type[Struct], tagged: bool) -> frozenset[str]:
    names = set(cls.__struct_encode_fields__) - {_EXTRA}
    if tagged:
        names.add("type")
    return frozenset(names)


_RECORD_KEYS: dict[str, frozenset[str]] = {t: _known(c, True) for t, c in _RECORD_CLASSES.items()}
_BLOCK_KEYS: dict[str, frozenset[str]] = {
    c.__struct_config__.tag: _known(c, True)  # type: ignore[misc]
    for c in _KNOWN_BLOCK_TYPES
}
_USER_PAYLOAD_KEYS = _known(UserPayload, False)
_ASSISTANT_PAYLOAD_KEYS = _known(AssistantPayload, False)
_PAYLOAD_KEYS: dict[str, frozenset[str]] = {
    "user": _USER_PAYLOAD_KEYS,
    "assistant": _ASSISTANT_PAYLOAD_KEYS,
}
