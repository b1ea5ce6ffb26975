"""The public functions: input-kind dispatch around the Rust core (``msgnorm._native``).

Three input kinds, one behaviour: a list of dicts gives dicts, a list of msgnorm
Structs gives Structs, JSON ``bytes``/``bytearray``/``memoryview`` (an array or JSON
Lines) gives ``bytes`` of a JSON array, and a JSON ``str`` gives ``str``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _native
from .errors import MsgnormError
from .model import _gc_paused, to_builtins

__all__ = [
    "count_tokens",
    "count_tokens_per_record",
    "derive_short_message_id",
    "derive_uuid",
    "find_cutoff",
    "normalize_for_api",
    "normalize_for_api_report",
    "normalize_messages",
    "render_attachment",
    "split_for_summary",
    "to_anthropic",
    "trim_to_budget",
]


def _is_structs(records: object) -> bool:
    """A list holding msgnorm Structs (the core reads and makes them directly)."""
    return isinstance(records, list) and any(
        hasattr(type(r), "__struct_fields__") for r in records[:1]
    )


def _prepare(records: Any) -> Any:
    """What the core takes: JSON text as ``bytes``/``str``, or a list (dicts or Structs)."""
    if isinstance(records, (bytearray, memoryview)):
        return bytes(records)
    return records


# The checks of the options that other modules pass on to the core (batch,
# Arrow, Conversation, providers): the native ones, which the public native
# functions use too.
_counting = _native._counting
_max_media = _native._max_media
_count = _native._count

# The keyword defaults and their checks live once, in the native signatures.
normalize_for_api = _native.normalize_for_api
normalize_for_api_report = _native.normalize_for_api_report


def normalize_messages(records: Any) -> Any:
    """Split for display (SPEC §3): one record per content block, derived uuids."""
    with _gc_paused():
        return _native.normalize_messages(_prepare(records))


def to_anthropic(records: Any) -> Any:
    """``[{"role": type, "content": message.content}]``: the Messages API ``messages``."""
    data = to_builtins(records) if _is_structs(records) else _prepare(records)
    return _native.to_anthropic(data)


count_tokens_per_record = _native.count_tokens_per_record
count_tokens = _native.count_tokens
find_cutoff = _native.find_cutoff
trim_to_budget = _native.trim_to_budget
split_for_summary = _native.split_for_summary


def render_attachment(
    attachment: Mapping[str, Any], attachment_templates: Mapping[str, str | None] | None = None
) -> str | None:
    """SPEC §5: the attachment's text wrapped in ``<system-reminder>``, or ``None``."""
    if not isinstance(attachment, Mapping):
        raise MsgnormError(f"attachment must be a mapping, not {type(attachment).__name__}")
    templates = dict(attachment_templates) if attachment_templates is not None else None
    return _native.render_attachment(dict(attachment), templates)


def derive_uuid(parent: str, index: int) -> str:
    """SPEC §2: the first 24 characters of ``parent`` and ``index`` as 12 hex digits."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise MsgnormError(f"index must be an int, not {type(index).__name__}")
    if isinstance(index, int) and not isinstance(index, bool) and abs(index) >= 2**64:
        # Out of range whatever its size (the core checks the bound itself).
        index = -1 if index < 0 else 2**64
    return _native.derive_uuid(parent, index)


def derive_short_message_id(uuid: str) -> str:
    """SPEC §2: a 6-character base-36 id from the uuid's first 10 hex digits."""
    return _native.derive_short_message_id(uuid)
