"""Records as Claude Code makes them, and predicates over records."""

from __future__ import annotations

import uuid as _uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from msgspec import UNSET, UnsetType

from ._constants import NO_CONTENT_MESSAGE, SYNTHETIC_MESSAGES, SYNTHETIC_MODEL, SYSTEM_LEVELS
from ._convert import to_builtins
from ._structs import (
    AssistantMessage,
    AssistantPayload,
    AttachmentMessage,
    Block,
    ProgressMessage,
    SystemMessage,
    TextBlock,
    TombstoneMessage,
    ToolUseSummaryMessage,
    UserMessage,
    UserPayload,
)

# --------------------------------------------------------------------------- #
# Factories
# --------------------------------------------------------------------------- #


def _new_uuid() -> str:
    return str(_uuid.uuid4())


def _now() -> str:
    """The current UTC time as Claude Code writes it: ``2025-09-07T09:52:03.071Z``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


def _ids(uuid: str | None, timestamp: str | None, parent_uuid: Any) -> dict[str, Any]:
    """A new record's ``uuid`` and ``timestamp`` (fresh ones unless given) and parent."""
    return {
        "uuid": uuid or _new_uuid(),
        "timestamp": timestamp or _now(),
        "parent_uuid": parent_uuid,
    }


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
        **_ids(uuid, timestamp, parent_uuid),
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
        **_ids(uuid, timestamp, parent_uuid),
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
        **_ids(uuid, timestamp, parent_uuid),
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
        **_ids(uuid, timestamp, parent_uuid),
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
        **_ids(uuid, timestamp, parent_uuid),
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
        **_ids(uuid, timestamp, parent_uuid),
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
