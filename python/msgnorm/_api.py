"""The public functions: input-kind dispatch around the Rust core (``msgnorm._native``).

Three input kinds, one behaviour: a list of dicts gives dicts, a list of msgnorm
Structs gives Structs, JSON ``bytes``/``bytearray``/``memoryview`` (an array or JSON
Lines) gives ``bytes`` of a JSON array, and a JSON ``str`` gives ``str``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _native
from .errors import MsgnormError, PairingError
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


Counting = tuple[float, int, int, int]


def _counting(
    chars_per_token: float, tokens_per_message: int, tokens_per_image: int, tokens_per_document: int
) -> Counting:
    """The §6 parameters, checked, as the core takes them."""
    for name, value in (
        ("tokens_per_message", tokens_per_message),
        ("tokens_per_image", tokens_per_image),
        ("tokens_per_document", tokens_per_document),
    ):
        _check_nonneg(name, value)
    if isinstance(chars_per_token, bool) or not isinstance(chars_per_token, (int, float)):
        raise ValueError(f"chars_per_token must be a number > 0, not {chars_per_token!r}")
    return (
        float(chars_per_token),
        _cap(tokens_per_message),
        _cap(tokens_per_image),
        _cap(tokens_per_document),
    )


def _cut_args(name: str, budget: int, pin: int) -> None:
    _check_nonneg(name, budget)
    _check_nonneg("pin", pin)


_U64_MAX = 2**64 - 1
_USIZE_MAX = 2**63 - 1


def _check_nonneg(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, not {value!r}")


def _cap(value: int, top: int = _U64_MAX) -> int:
    """An int argument for the core: beyond 64 bits it means the same as the largest."""
    return min(value, top)


def normalize_for_api(
    records: Any,
    *,
    strict: bool = False,
    max_media: int | None = 100,
    short_ids: bool = False,
    ensure_user_first: bool = True,
    attachment_templates: Mapping[str, str | None] | None = None,
) -> Any:
    """What is sent to the model (SPEC §4): only user and assistant records, repaired.

    Input is never mutated. Records the call did not change are the input's own
    objects (shared, like slicing); changed records and their ``message`` are
    fresh shallow copies that share the blocks the call did not change.
    """
    return normalize_for_api_report(
        records,
        strict=strict,
        max_media=max_media,
        short_ids=short_ids,
        ensure_user_first=ensure_user_first,
        attachment_templates=attachment_templates,
    )[0]


def normalize_for_api_report(
    records: Any,
    *,
    strict: bool = False,
    max_media: int | None = 100,
    short_ids: bool = False,
    ensure_user_first: bool = True,
    attachment_templates: Mapping[str, str | None] | None = None,
) -> tuple[Any, dict[str, int]]:
    """:func:`normalize_for_api` and a count of every repair rule that fired, by name."""
    if max_media is not None:
        _check_nonneg("max_media", max_media)
    templates = dict(attachment_templates) if attachment_templates is not None else None
    try:
        with _gc_paused():  # the call builds many objects; see model._gc_paused
            out, report = _native.normalize_for_api(
                _prepare(records),
                bool(strict),
                None if max_media is None else _cap(max_media, _USIZE_MAX),
                bool(short_ids),
                bool(ensure_user_first),
                templates,
            )
    except PairingError as e:
        # What the Anthropic rules say of the history (msgnorm.validate), worked
        # out only now that strict mode refused it.
        from .provider_rules import repairable_violations

        e.violations = repairable_violations(records, "anthropic")
        raise
    return out, report


def normalize_messages(records: Any) -> Any:
    """Split for display (SPEC §3): one record per content block, derived uuids."""
    with _gc_paused():
        return _native.normalize_messages(_prepare(records))


def to_anthropic(records: Any) -> Any:
    """``[{"role": type, "content": message.content}]``: the Messages API ``messages``."""
    data = to_builtins(records) if _is_structs(records) else _prepare(records)
    return _native.to_anthropic(data)


def count_tokens_per_record(
    records: Any,
    *,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> list[int]:
    """Approximate tokens of each record (SPEC §6); 0 for records that are not messages."""
    counting = _counting(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document)
    return _native.count_tokens_per_record(_prepare(records), counting)


def count_tokens(
    records: Any,
    *,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> int:
    """Approximate tokens of the whole history (SPEC §6)."""
    return sum(
        count_tokens_per_record(
            records,
            chars_per_token=chars_per_token,
            tokens_per_message=tokens_per_message,
            tokens_per_image=tokens_per_image,
            tokens_per_document=tokens_per_document,
        )
    )


def find_cutoff(
    records: Any,
    max_tokens: int,
    *,
    pin: int = 0,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> int:
    """The smallest safe ``k`` such that ``records[:pin] + records[k:]`` fits (SPEC §7)."""
    _cut_args("max_tokens", max_tokens, pin)
    counting = _counting(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document)
    return _native.find_cutoff(_prepare(records), _cap(max_tokens), _cap(pin, _USIZE_MAX), counting)


def trim_to_budget(
    records: Any,
    max_tokens: int,
    *,
    pin: int = 0,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> Any:
    """``records[:pin] + records[k:]`` with the joint user-merged (SPEC §7).

    Like slicing, records the call did not change are returned as the same objects.
    """
    _cut_args("max_tokens", max_tokens, pin)
    counting = _counting(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document)
    return _native.trim_to_budget(
        _prepare(records), _cap(max_tokens), _cap(pin, _USIZE_MAX), counting
    )


def split_for_summary(
    records: Any,
    keep_tokens: int,
    *,
    pin: int = 0,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> tuple[Any, Any]:
    """``(records[pin:k], records[k:])``: what to summarise and what to keep (SPEC §7)."""
    _cut_args("keep_tokens", keep_tokens, pin)
    counting = _counting(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document)
    head, tail = _native.split_for_summary(
        _prepare(records), _cap(keep_tokens), _cap(pin, _USIZE_MAX), counting
    )
    return head, tail


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
