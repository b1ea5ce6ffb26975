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
build reference cycles through them (e.g. ``rec.extra["self"] = rec``).  The bulk
functions (:func:`from_builtins`, :func:`to_builtins`, :func:`decode`,
:func:`encode`) pause the cyclic garbage collector while they run and restore it.
Invalid records raise :class:`RecordValidationError`, invalid JSON
:class:`TranscriptDecodeError`; both are ``ValueError``.
"""

from __future__ import annotations

import gc
import re
import uuid as _uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, Union, get_args

import msgspec
from msgspec import UNSET, Struct, UnsetType, field

from .errors import InvalidRecordError, JSONDecodeError, MsgnormError

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

# --------------------------------------------------------------------------- #
# Constants (Claude Code's texts, and SPEC §4's)
# --------------------------------------------------------------------------- #

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

_EXTRA = "__extra__"  # encoded name of every Struct's catch-all field
_UNKNOWN_TAG = "__msgnorm_unknown_block__"  # private placeholder tag, see from_builtins


def _extra_field() -> Any:
    return field(default_factory=dict, name=_EXTRA)


# --------------------------------------------------------------------------- #
# Pass-through types: unknown blocks and entries
# --------------------------------------------------------------------------- #


class UnknownBlock(dict[str, Any]):
    """A content block of a type the model does not know: the block's JSON object.

    A ``dict`` subclass, so msgspec encodes it as the object it holds.
    """

    __slots__ = ()

    @property
    def type(self) -> Any:
        """The block's ``type`` value."""
        return self.get("type")

    def __repr__(self) -> str:
        return f"UnknownBlock({dict.__repr__(self)})"


class Entry(dict[str, Any]):
    """A transcript record that is not a message (``summary``, ``file-history-snapshot``...).

    A ``dict`` subclass holding the record as written; encodes as that object.
    """

    __slots__ = ()

    @property
    def type(self) -> Any:
        """The record's ``type`` value."""
        return self.get("type")

    def __repr__(self) -> str:
        return f"Entry({dict.__repr__(self)})"


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
    citations: list[Any] | UnsetType | None = UNSET
    cache_control: Any = UNSET


class ThinkingBlock(_Tagged, kw_only=True, tag="thinking"):
    """Extended thinking: ``thinking`` and its ``signature``."""

    thinking: str | UnsetType = UNSET
    signature: str | UnsetType = UNSET


class RedactedThinkingBlock(_Tagged, kw_only=True, tag="redacted_thinking"):
    """Encrypted thinking: ``data``."""

    data: str | UnsetType = UNSET


class ToolUseBlock(_Tagged, kw_only=True, tag="tool_use"):
    """A client tool call: ``id``, ``name``, ``input``."""

    id: str
    name: str | UnsetType = UNSET
    input: Any = UNSET
    cache_control: Any = UNSET


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
    title: str | UnsetType | None = UNSET
    context: str | UnsetType | None = UNSET
    citations: Any = UNSET
    cache_control: Any = UNSET


class ServerToolUseBlock(_Tagged, kw_only=True, tag="server_tool_use"):
    """A server tool call (web search, code execution...): ``id``, ``name``, ``input``."""

    id: str
    name: str | UnsetType = UNSET
    input: Any = UNSET
    cache_control: Any = UNSET


class McpToolUseBlock(_Tagged, kw_only=True, tag="mcp_tool_use"):
    """An MCP connector tool call: ``id``, ``name``, ``server_name``, ``input``."""

    id: str
    name: str | UnsetType = UNSET
    input: Any = UNSET
    server_name: str | UnsetType = UNSET
    cache_control: Any = UNSET


class WebSearchToolResultBlock(_Tagged, kw_only=True, tag="web_search_tool_result"):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class WebFetchToolResultBlock(_Tagged, kw_only=True, tag="web_fetch_tool_result"):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class CodeExecutionToolResultBlock(_Tagged, kw_only=True, tag="code_execution_tool_result"):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class BashCodeExecutionToolResultBlock(
    _Tagged, kw_only=True, tag="bash_code_execution_tool_result"
):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class TextEditorCodeExecutionToolResultBlock(
    _Tagged, kw_only=True, tag="text_editor_code_execution_tool_result"
):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class ToolSearchToolResultBlock(_Tagged, kw_only=True, tag="tool_search_tool_result"):
    tool_use_id: str
    content: Any
    cache_control: Any = UNSET


class McpToolResultBlock(_Tagged, kw_only=True, tag="mcp_tool_result"):
    tool_use_id: str
    content: Any
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

    role: Literal["user"]
    content: str | list[_ContentBlock] | None


class AssistantPayload(_Payload, kw_only=True):
    """``message`` of an ``assistant`` record (an Anthropic API ``Message``)."""

    role: Literal["assistant"]
    content: str | list[_ContentBlock] | None
    id: str | UnsetType | None = UNSET
    type: str | UnsetType = UNSET
    model: str | UnsetType | None = UNSET
    stop_reason: str | UnsetType | None = UNSET
    stop_sequence: str | UnsetType | None = UNSET
    usage: Any = UNSET
    container: Any = UNSET
    context_management: Any = UNSET


class _Record(_Tagged, kw_only=True):
    """Fields Claude Code writes on (almost) every record; all optional."""

    parent_uuid: str | UnsetType | None = field(default=UNSET, name="parentUuid")
    logical_parent_uuid: str | UnsetType | None = field(default=UNSET, name="logicalParentUuid")
    is_sidechain: bool | UnsetType = field(default=UNSET, name="isSidechain")
    user_type: str | UnsetType = field(default=UNSET, name="userType")
    cwd: str | UnsetType = UNSET
    session_id: str | UnsetType = field(default=UNSET, name="sessionId")
    version: str | UnsetType = UNSET
    git_branch: str | UnsetType = field(default=UNSET, name="gitBranch")
    agent_id: str | UnsetType = field(default=UNSET, name="agentId")
    slug: str | UnsetType = UNSET
    timestamp: str | UnsetType = UNSET
    is_meta: bool | UnsetType = field(default=UNSET, name="isMeta")


class UserMessage(_Record, kw_only=True, tag="user"):
    """A ``user`` record: a prompt, tool results, or a meta message."""

    uuid: str
    message: UserPayload
    is_virtual: bool | UnsetType = field(default=UNSET, name="isVirtual")
    is_compact_summary: bool | UnsetType = field(default=UNSET, name="isCompactSummary")
    is_visible_in_transcript_only: bool | UnsetType = field(
        default=UNSET, name="isVisibleInTranscriptOnly"
    )
    tool_use_result: Any = field(default=UNSET, name="toolUseResult")
    source_tool_assistant_uuid: str | UnsetType = field(
        default=UNSET, name="sourceToolAssistantUUID"
    )
    source_tool_use_id: str | UnsetType = field(default=UNSET, name="sourceToolUseID")
    thinking_metadata: Any = field(default=UNSET, name="thinkingMetadata")
    todos: Any = UNSET
    permission_mode: str | UnsetType = field(default=UNSET, name="permissionMode")


class AssistantMessage(_Record, kw_only=True, tag="assistant"):
    """An ``assistant`` record (streamed replies are written one block per record)."""

    uuid: str
    message: AssistantPayload
    request_id: str | UnsetType | None = field(default=UNSET, name="requestId")
    is_api_error_message: bool | UnsetType = field(default=UNSET, name="isApiErrorMessage")
    is_virtual: bool | UnsetType = field(default=UNSET, name="isVirtual")
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
    uuid: str | UnsetType = UNSET


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
    for c in (
        UserMessage,
        AssistantMessage,
        SystemMessage,
        AttachmentMessage,
        ProgressMessage,
        ToolUseSummaryMessage,
        TombstoneMessage,
    )
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


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #


class RecordValidationError(InvalidRecordError):
    """An invalid record (a :class:`msgnorm.InvalidRecordError`): ``str(err)`` starts
    with the path, e.g. ``records[12].message``."""

    def __init__(self, index: int, path: str, reason: str) -> None:
        #: e.g. ``"records[12].message.content"``
        full = f"records[{index}]{path}"
        super().__init__(f"{full}: {reason}", index, full)
        self.reason = reason


class TranscriptDecodeError(JSONDecodeError):
    """Invalid JSON (a :class:`msgnorm.JSONDecodeError`); ``lineno``/``line`` and
    ``colno``/``column`` are 1-based (column in bytes)."""

    def __init__(self, msg: str, lineno: int, colno: int) -> None:
        super().__init__(f"{msg}: line {lineno} column {colno}", lineno, colno)
        self.msg = msg
        self.lineno = lineno
        self.colno = colno


_MSGSPEC_PATH = re.compile(r"^(?P<msg>.*?)(?: - at `\$\[(?P<i>\d+)\](?P<path>[^`]*)`)?$", re.S)
_MISSING = re.compile(r"^Object missing required field `(?P<f>[^`]*)`$")


def _validation_error(err: msgspec.ValidationError, index_map: Sequence[int]) -> ValueError:
    m = _MSGSPEC_PATH.match(str(err))
    assert m is not None  # the pattern matches any string
    msg, idx, path = m.group("msg"), m.group("i"), m.group("path") or ""
    if idx is None:  # pragma: no cover - convert always reports a location in a list
        return ValueError(str(err))
    missing = _MISSING.match(msg)
    if missing:
        path += "." + missing.group("f")
        msg = "missing required field"
    return RecordValidationError(index_map[int(idx)], path, msg)


# --------------------------------------------------------------------------- #
# builtins <-> Structs
# --------------------------------------------------------------------------- #


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects at once.

    Bulk conversions allocate millions of containers; with a large live heap each
    full collection triggered meanwhile walks all of it (a 3-6x slowdown).  The
    collector is re-enabled afterwards, only if it was enabled before.  msgspec
    recurses into nested values: one nested past Python's recursion limit is
    refused with a :class:`msgnorm.MsgnormError`, not a bare ``RecursionError``.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    except RecursionError:
        raise MsgnormError(
            "a value is nested too deeply for the typed model (Python's recursion limit); "
            "pass such a history as dicts or JSON bytes"
        ) from None
    finally:
        if enabled:
            gc.enable()


def _split_extra(d: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """A copy of ``d`` whose unknown keys are moved into the catch-all."""
    out = {k: v for k, v in d.items() if k in known}
    out[_EXTRA] = {k: v for k, v in d.items() if k not in known}
    return out


def _prep_blocks(content: list[Any]) -> tuple[list[Any] | None, bool]:
    """Prepare a content list for msgspec.convert.

    Returns (new list or None when unchanged, whether it holds unknown blocks).
    Malformed blocks are left in place for msgspec to report.
    """
    new: list[Any] | None = None
    unknown = False
    for j, b in enumerate(content):
        if type(b) is not dict:
            continue
        bt = b.get("type")
        known = _BLOCK_KEYS.get(bt) if type(bt) is str else None
        nb: Any = None
        if known is None:
            if type(bt) is str:
                nb = {"type": _UNKNOWN_TAG, "raw": b}
                unknown = True
        else:
            if not b.keys() <= known:
                nb = _split_extra(b, known)
            if bt == "tool_result":
                inner = b.get("content")
                if type(inner) is list:
                    new_inner, unk = _prep_blocks(inner)
                    if new_inner is not None:
                        if nb is None:
                            nb = dict(b)
                        nb["content"] = new_inner
                        unknown = unknown or unk
        if nb is not None:
            if new is None:
                new = list(content)
            new[j] = nb
    return new, unknown


def _prep_record(
    d: dict[str, Any], rtype: str
) -> tuple[dict[str, Any] | None, bool, tuple[str, str] | None]:
    """Prepare a message record for msgspec.convert.

    Returns (new dict or None when unchanged, holds unknown blocks, None or the
    (path, reason) of an error msgspec would not see).
    """
    nd: dict[str, Any] | None = None
    unknown = False
    known = _RECORD_KEYS[rtype]
    if not d.keys() <= known:
        nd = _split_extra(d, known)
    if rtype == "user" or rtype == "assistant":
        m = d.get("message")
        if type(m) is dict:
            nm: dict[str, Any] | None = None
            pknown = _PAYLOAD_KEYS[rtype]
            if not m.keys() <= pknown:
                nm = _split_extra(m, pknown)
            content = m.get("content")
            if type(content) is list:
                new_content, unknown = _prep_blocks(content)
                if new_content is not None:
                    if nm is None:
                        nm = dict(m)
                    nm["content"] = new_content
            if nm is not None:
                if nd is None:
                    nd = dict(d)
                nd["message"] = nm
    elif rtype == "tombstone":
        m = d.get("message")
        if type(m) is dict and type(m.get("uuid")) is not str:
            reason = "missing required field" if "uuid" not in m else "expected str"
            return None, False, (".message.uuid", reason)
    elif rtype == "attachment":
        a = d.get("attachment")
        if type(a) is dict and type(a.get("type")) is not str:
            return None, False, (".attachment.type", "expected str")
    elif rtype == "system" and d.get("subtype") == "local_command":
        # SPEC §1: a local_command record becomes a user turn, so it needs both
        for key in ("uuid", "content"):
            if type(d.get(key)) is not str:
                reason = "missing required field" if key not in d else "must be a string"
                return None, False, (f".{key}", reason)
    return nd, unknown, None


def _patch_blocks(content: list[Any]) -> None:
    for j, b in enumerate(content):
        cls = type(b)
        if cls is _UnknownPlaceholder:
            content[j] = UnknownBlock(b.raw)
        elif cls is ToolResultBlock and type(b.content) is list:
            _patch_blocks(b.content)


def _patch_unknown(rec: Any) -> None:
    """Replace the placeholders msgspec.convert built by UnknownBlocks."""
    if type(rec) is TombstoneMessage:
        return
    content = rec.message.content
    if type(content) is list:
        _patch_blocks(content)


_record_list_type = list[Message]


def _dirty_records(records: Sequence[Any]) -> list[int]:
    """Indices of the records that msgspec.convert cannot take as they are: not a
    message dict, unnamed fields, blocks of unknown type, tombstones, attachments.

    The hot loop of from_builtins: written for speed (``frozenset.issuperset`` is
    the fastest C-level "no unnamed key" test), hence inlined.
    """
    rkeys = _RECORD_KEYS
    bkeys = _BLOCK_KEYS
    upk, apk = _USER_PAYLOAD_KEYS, _ASSISTANT_PAYLOAD_KEYS
    dirty: list[int] = []
    for i, d in enumerate(records):
        if type(d) is dict:
            t = d.get("type")
            known = rkeys.get(t) if type(t) is str else None
            if known is not None and known.issuperset(d):
                if t == "user" or t == "assistant":
                    m = d.get("message")
                    if type(m) is dict and (upk if t == "user" else apk).issuperset(m):
                        c = m.get("content")
                        if type(c) is not list:
                            continue
                        for b in c:
                            if type(b) is not dict:
                                break
                            bt = b.get("type")
                            bk = bkeys.get(bt) if type(bt) is str else None
                            if bk is None or not bk.issuperset(b):
                                break
                            if bt == "tool_result":
                                inner = b.get("content")
                                if type(inner) is list:
                                    for ib in inner:
                                        if type(ib) is not dict:
                                            break
                                        it = ib.get("type")
                                        ik = bkeys.get(it) if type(it) is str else None
                                        if ik is None or it == "tool_result":
                                            break
                                        if not ik.issuperset(ib):
                                            break
                                    else:
                                        continue
                                    break
                        else:
                            continue
                elif t != "tombstone" and t != "attachment" and t != "system":
                    continue
        dirty.append(i)
    return dirty


def from_builtins(records: Iterable[Any]) -> list[Message | Entry]:
    """Build the model from JSON-shaped values (``json.loads`` output), losslessly.

    Message records become Structs (unnamed fields in ``extra``, at every level;
    blocks of unknown type become :class:`UnknownBlock`); records of any other
    ``type`` become :class:`Entry` (a copy of the dict).  Raises
    :class:`RecordValidationError` (a ``ValueError``) naming ``records[i].<path>``
    for an invalid record.  Loose values (``input``, ``toolUseResult``, ``usage``,
    ``attachment``...) are shared with the input, not copied.
    """
    if not isinstance(records, list):
        records = list(records)
    with _gc_paused():
        return _from_builtins(records)


def _from_builtins(records: list[Any]) -> list[Message | Entry]:
    prepared: list[Any] | None = None  # copy of records, made on the first change
    entries: list[int] = []
    unknown_at: list[int] = []
    error: RecordValidationError | None = None  # found by the pre-pass
    record_keys = _RECORD_KEYS
    for i in _dirty_records(records):
        d = records[i]
        if type(d) is not dict:
            if not isinstance(d, dict):
                error = RecordValidationError(
                    i, "", f"expected a JSON object, got {type(d).__name__}"
                )
                break
            d = dict(d)
            if prepared is None:
                prepared = list(records)
            prepared[i] = d
        t = d.get("type")
        if type(t) is not str:
            reason = "missing" if t is None else f"expected str, got {type(t).__name__}"
            error = RecordValidationError(i, ".type", reason)
            break
        if t not in record_keys:
            entries.append(i)
            continue
        nd, unknown, bad = _prep_record(d, t)
        if bad is not None:
            error = RecordValidationError(i, bad[0], bad[1])
            break
        if nd is not None:
            if prepared is None:
                prepared = list(records)
            prepared[i] = nd
        if unknown:
            unknown_at.append(i)
    source = records if prepared is None else prepared
    if error is not None:  # msgspec checks the records before it, to report the first error
        source = source[: error.index]
    index_map: Sequence[int]
    if entries:
        skip = set(entries)
        index_map = [i for i in range(len(source)) if i not in skip]
        to_convert = [source[i] for i in index_map]
    else:
        index_map = range(len(source))
        to_convert = source
    try:
        converted: list[Any] = msgspec.convert(to_convert, _record_list_type)
    except msgspec.ValidationError as e:
        raise _validation_error(e, index_map) from None
    if error is not None:
        raise error
    if unknown_at:
        pos = {orig: k for k, orig in enumerate(index_map)} if entries else None
        for i in unknown_at:
            _patch_unknown(converted[i if pos is None else pos[i]])
    if not entries:
        return converted
    out: list[Any] = [None] * len(source)
    for k, i in enumerate(index_map):
        out[i] = converted[k]
    for i in entries:
        out[i] = Entry(source[i])
    return out


def _flatten(d: dict[str, Any]) -> None:
    extra = d.pop(_EXTRA)
    d.update(extra)


def _blocks_have_extra(blocks: list[Any]) -> bool:
    for b in blocks:
        if isinstance(b, dict):  # UnknownBlock, or a block given as a plain dict
            continue
        if b.extra:
            return True
        if type(b) is ToolResultBlock and type(b.content) is list:
            if _blocks_have_extra(b.content):
                return True
    return False


def _has_extra(rec: Any) -> bool:
    """Whether some Struct of the record has a non-empty catch-all."""
    if rec.extra:
        return True
    cls = type(rec)
    if cls is UserMessage or cls is AssistantMessage:
        m = rec.message
        if m.extra:
            return True
        c = m.content
        return type(c) is list and _blocks_have_extra(c)
    return False


def _records_with_extra(records: Sequence[Any]) -> list[int]:
    user, assistant, entry = UserMessage, AssistantMessage, Entry
    unknown, tool_result = UnknownBlock, ToolResultBlock
    found: list[int] = []
    for i, rec in enumerate(records):
        cls = type(rec)
        if cls is entry:
            continue
        if cls is user or cls is assistant:
            if rec.extra:
                found.append(i)
                continue
            m = rec.message
            if m.extra:
                found.append(i)
                continue
            c = m.content
            if type(c) is list:
                for b in c:
                    bcls = type(b)
                    if bcls is unknown or bcls is dict:
                        continue
                    if b.extra or (
                        bcls is tool_result
                        and type(b.content) is list
                        and _blocks_have_extra(b.content)
                    ):
                        found.append(i)
                        break
        elif not isinstance(rec, dict) and _has_extra(rec):  # dicts pass through as they are
            found.append(i)
    return found


def _unflatten_blocks(blocks: list[Any], out: list[Any]) -> None:
    for b, ob in zip(blocks, out, strict=True):
        if isinstance(b, dict):  # UnknownBlock, or a block given as a plain dict
            continue
        if b.extra:
            _flatten(ob)
        if type(b) is ToolResultBlock and type(b.content) is list:
            _unflatten_blocks(b.content, ob["content"])


def _unflatten_record(rec: Any, d: dict[str, Any]) -> None:
    if rec.extra:
        _flatten(d)
    cls = type(rec)
    if cls is UserMessage or cls is AssistantMessage:
        m = rec.message
        dm = d["message"]
        if m.extra:
            _flatten(dm)
        c = m.content
        if type(c) is list:
            _unflatten_blocks(c, dm["content"])


def to_builtins(records: Sequence[Message | Entry]) -> list[dict[str, Any]]:
    """The records as plain JSON-shaped dicts, exactly as Claude Code writes them.

    The catch-all ``extra`` of every Struct is flattened back into its object,
    :class:`UnknownBlock` and :class:`Entry` become the plain dicts they hold (as
    do plain dicts among the records or blocks).  The result shares nothing with
    the Structs: msgspec.to_builtins builds new containers.
    """
    with _gc_paused():
        out: list[dict[str, Any]] = msgspec.to_builtins(records)
        for i in _records_with_extra(records):
            _unflatten_record(records[i], out[i])
    return out


# --------------------------------------------------------------------------- #
# JSON
# --------------------------------------------------------------------------- #

_json_decoder = msgspec.json.Decoder()
_json_encoder = msgspec.json.Encoder()
_BYTE_POS = re.compile(r"^(?P<msg>.*) \(byte (?P<pos>\d+)\)$", re.S)


def _position(data: bytes, pos: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, pos) + 1
    return line, pos - (data.rfind(b"\n", 0, pos) + 1) + 1


def _decode_error(err: msgspec.DecodeError, data: bytes, offset: int = 0) -> TranscriptDecodeError:
    """The error at ``data[offset:]`` located as a line and column of ``data``."""
    m = _BYTE_POS.match(str(err))
    if m is None:  # "Input data was truncated": the error is at the end
        msg, pos = str(err), len(data)
    else:
        msg, pos = m.group("msg"), offset + int(m.group("pos"))
        if msg.endswith("trailing characters"):
            pos -= 1  # msgspec reports the byte after the first trailing character
    return TranscriptDecodeError(msg, *_position(data, pos))


def _lines_error(err: msgspec.DecodeError, data: bytes) -> TranscriptDecodeError:
    """Locate a JSON Lines error on the first line that is not valid JSON on its own."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if line.strip():
            try:
                _json_decoder.decode(line)
            except msgspec.DecodeError as line_err:
                if _BYTE_POS.match(str(line_err)) is None:  # truncated: end of that line
                    msg = str(line_err)
                    return TranscriptDecodeError(msg, *_position(data, end))
                return _decode_error(line_err, data, start)
        start = end + 1
    return _decode_error(err, data)


_LEADING_WS = re.compile(rb"[ \t\r\n]*")


def decode(data: bytes | bytearray | memoryview | str) -> list[Message | Entry]:
    """Read a transcript, losslessly: a JSON array of records, or JSON Lines.

    A document whose first character is ``[`` is read as one JSON array of records
    (unless it only parses as JSON Lines, e.g. ``[1]`` followed by more lines);
    JSON Lines hold one record per line, blank lines skipped.  Invalid JSON raises
    :class:`TranscriptDecodeError` (a ``ValueError``) with line and column;
    invalid records raise :class:`RecordValidationError` (see :func:`from_builtins`).
    """
    buf = (
        data.encode() if isinstance(data, str) else data if isinstance(data, bytes) else bytes(data)
    )
    match = _LEADING_WS.match(buf)
    start = match.end() if match is not None else 0
    with _gc_paused():
        values: Any = None
        if buf[start : start + 1] == b"[":
            try:
                values = _json_decoder.decode(buf)
            except msgspec.DecodeError as e:
                if "trailing characters" not in str(e):
                    raise _decode_error(e, buf) from None
                # "[...]\n{...}": JSON Lines whose first record is an array
        if values is None:
            try:
                values = _json_decoder.decode_lines(buf)
            except msgspec.DecodeError as e:
                raise _lines_error(e, buf) from None
        return _from_builtins(values)


def encode(records: Sequence[Message | Entry]) -> bytes:
    """The records as a JSON array (bytes), exactly as Claude Code writes them."""
    with_extra = _records_with_extra(records)
    mixed: list[Any] = list(records)
    with _gc_paused():
        for i in with_extra:
            d: dict[str, Any] = msgspec.to_builtins(records[i])
            _unflatten_record(records[i], d)
            mixed[i] = d
        return _json_encoder.encode(mixed if with_extra else records)


# --------------------------------------------------------------------------- #
# Factories
# --------------------------------------------------------------------------- #


def _new_uuid() -> str:
    return str(_uuid.uuid4())


def _now() -> str:
    """The current UTC time as Claude Code writes it: ``2025-09-07T09:52:03.071Z``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


def _flag(value: bool) -> bool | UnsetType:
    return True if value else UNSET


def create_user_message(
    content: str | Sequence[Block] | None,
    *,
    is_meta: bool = False,
    is_virtual: bool = False,
    is_compact_summary: bool = False,
    tool_use_result: Any = UNSET,
    source_tool_assistant_uuid: str | None = None,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> UserMessage:
    """A ``user`` record as Claude Code makes one.

    Empty content (``""``, ``None`` or ``[]``) becomes ``(no content)`` (a string
    for a string, a text block for a list).  ``isMeta``/``isVirtual``/
    ``isCompactSummary`` are written only when true.
    """
    body: str | list[Block]
    if content is None or isinstance(content, str):
        body = content or NO_CONTENT_MESSAGE
    else:
        body = list(content) or [TextBlock(text=NO_CONTENT_MESSAGE)]
    return UserMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        message=UserPayload(role="user", content=body),
        is_meta=_flag(is_meta),
        is_virtual=_flag(is_virtual),
        is_compact_summary=_flag(is_compact_summary),
        tool_use_result=tool_use_result,
        source_tool_assistant_uuid=(
            UNSET if source_tool_assistant_uuid is None else source_tool_assistant_uuid
        ),
    )


def _zero_usage() -> dict[str, Any]:
    return {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": None,
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
    }


def create_assistant_message(
    content: str | Sequence[Block],
    *,
    is_api_error_message: bool = False,
    is_virtual: bool = False,
    usage: dict[str, Any] | None = None,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> AssistantMessage:
    """A synthetic ``assistant`` record as Claude Code makes one (model ``<synthetic>``).

    A string becomes one text block; empty content becomes the text
    ``(no content)``.  ``message.id`` is a fresh uuid, ``stop_reason``
    ``"stop_sequence"``, ``stop_sequence`` ``""``, ``usage`` all zeros.
    """
    blocks: list[Block]
    if isinstance(content, str):
        blocks = [TextBlock(text=content or NO_CONTENT_MESSAGE)]
    else:
        blocks = list(content) or [TextBlock(text=NO_CONTENT_MESSAGE)]
    return AssistantMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        message=AssistantPayload(
            id=_new_uuid(),
            container=None,
            model=SYNTHETIC_MODEL,
            role="assistant",
            stop_reason="stop_sequence",
            stop_sequence="",
            type="message",
            usage=_zero_usage() if usage is None else usage,
            content=blocks,
            context_management=None,
        ),
        is_api_error_message=is_api_error_message,
        is_virtual=_flag(is_virtual),
    )


def create_system_message(
    content: str,
    level: str = "info",
    *,
    subtype: str = "informational",
    tool_use_id: str | None = None,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> SystemMessage:
    """A ``system`` record as Claude Code makes one: subtype ``informational``,
    ``isMeta: false``, a ``level`` of ``info``, ``warning`` or ``error``
    (``ValueError`` otherwise)."""
    if level not in SYSTEM_LEVELS:
        raise ValueError(f"level must be one of {sorted(SYSTEM_LEVELS)}, got {level!r}")
    return SystemMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        subtype=subtype,
        content=content,
        is_meta=False,
        level=level,
        tool_use_id=UNSET if tool_use_id is None else tool_use_id,
    )


def create_attachment_message(
    attachment: dict[str, Any],
    *,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> AttachmentMessage:
    """An ``attachment`` record; ``attachment`` needs a string ``type`` (``ValueError``)."""
    if not isinstance(attachment, dict) or not isinstance(attachment.get("type"), str):
        raise ValueError("attachment must be a dict with a string 'type'")
    return AttachmentMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        attachment=attachment,
    )


def create_progress_message(
    tool_use_id: str,
    parent_tool_use_id: str | None,
    data: Any,
    *,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> ProgressMessage:
    """A ``progress`` record (``toolUseID``, ``parentToolUseID``, ``data``)."""
    return ProgressMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        data=data,
        tool_use_id=tool_use_id,
        parent_tool_use_id=parent_tool_use_id,
    )


def create_tool_use_summary_message(
    summary: str,
    preceding_tool_use_ids: Sequence[str],
    *,
    parent_uuid: str | UnsetType | None = UNSET,
    uuid: str | None = None,
    timestamp: str | None = None,
) -> ToolUseSummaryMessage:
    """A ``tool_use_summary`` record (``summary``, ``precedingToolUseIds``)."""
    return ToolUseSummaryMessage(
        uuid=uuid or _new_uuid(),
        timestamp=timestamp or _now(),
        parent_uuid=parent_uuid,
        summary=summary,
        preceding_tool_use_ids=list(preceding_tool_use_ids),
    )


def create_tombstone(message: AssistantMessage | dict[str, Any]) -> TombstoneMessage:
    """A ``tombstone`` record removing ``message`` (an assistant record) from history."""
    if isinstance(message, AssistantMessage):
        return TombstoneMessage(message=to_builtins([message])[0])
    if isinstance(message, dict) and isinstance(message.get("uuid"), str):
        return TombstoneMessage(message=dict(message))
    raise TypeError(
        f"a tombstone holds an AssistantMessage (or its dict), got {type(message).__name__}"
    )


# --------------------------------------------------------------------------- #
# Predicates
# --------------------------------------------------------------------------- #


def is_synthetic_message(record: Any) -> bool:
    """Whether ``record`` (Struct or dict) is a ``user``/``assistant`` record written by
    Claude Code itself: its string content, or its content's first block when that is
    a ``text`` block, is one of :data:`SYNTHETIC_MESSAGES`."""
    if isinstance(record, dict):
        if record.get("type") not in ("user", "assistant"):
            return False
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
    elif isinstance(record, (UserMessage, AssistantMessage)):
        content = record.message.content
    else:
        return False
    if isinstance(content, str):
        return content in SYNTHETIC_MESSAGES
    if not isinstance(content, list) or not content:
        return False
    first = content[0]
    if isinstance(first, TextBlock):
        return first.text in SYNTHETIC_MESSAGES
    if isinstance(first, dict) and first.get("type") == "text":
        text = first.get("text")
        return isinstance(text, str) and text in SYNTHETIC_MESSAGES
    return False
