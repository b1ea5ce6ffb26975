"""The public functions: input-kind dispatch around the Rust core (``msgnorm._native``).

Three input kinds, one behaviour: a list of dicts gives dicts, a list of msgnorm
Structs gives Structs, JSON ``bytes``/``bytearray``/``memoryview`` (an array or JSON
Lines) gives ``bytes`` of a JSON array, and a JSON ``str`` gives ``str``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

from . import _native
from .errors import MsgnormError
from .model import to_builtins

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


# The checks of the options that other modules pass on to the core (batch,
# Arrow, Conversation, providers): the native ones, which the public native
# functions use too.
_counting = _native._counting
_max_media = _native._max_media
_count = _native._count

# The keyword defaults and their checks live once, in the native signatures.
normalize_for_api = _native.normalize_for_api
normalize_for_api_report = _native.normalize_for_api_report


_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")


def _first(result: tuple[_T, Any]) -> _T:
    return result[0]


def _derived(
    report: Callable[_P, _R], take: Callable[[_R], _T], name: str, doc: str
) -> Callable[_P, _T]:
    """A function with ``report``'s parameters that returns ``take`` of its result."""

    @functools.wraps(report)
    def plain(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        return take(report(*args, **kwargs))

    plain.__name__ = plain.__qualname__ = name
    plain.__doc__ = doc
    plain.__signature__ = inspect.signature(report).replace(  # type: ignore[attr-defined]
        return_annotation=Any
    )
    return plain


def _without_report(report: Callable[_P, tuple[_T, Any]], name: str, doc: str) -> Callable[_P, _T]:
    """The plain function of a ``*_report`` one: the same parameters, the output
    without the report."""
    return _derived(report, _first, name, doc)


def _defaults(f: Callable[..., Any]) -> dict[str, Any]:
    params = inspect.signature(f).parameters.values()
    return {p.name: p.default for p in params if p.default is not p.empty}


# The defaults of the functions of other modules that take the same options,
# read from the native signatures (SPEC §4, §6).
_API_DEFAULTS = _defaults(_native.normalize_for_api)
_COUNTING_DEFAULTS = _defaults(_native.count_tokens)
_STRICT: bool = _API_DEFAULTS["strict"]
_MAX_MEDIA: int | None = _API_DEFAULTS["max_media"]
_SHORT_IDS: bool = _API_DEFAULTS["short_ids"]
_ENSURE_USER_FIRST: bool = _API_DEFAULTS["ensure_user_first"]
_CHARS_PER_TOKEN: float = _COUNTING_DEFAULTS["chars_per_token"]
_TOKENS_PER_MESSAGE: int = _COUNTING_DEFAULTS["tokens_per_message"]
_TOKENS_PER_IMAGE: int = _COUNTING_DEFAULTS["tokens_per_image"]
_TOKENS_PER_DOCUMENT: int = _COUNTING_DEFAULTS["tokens_per_document"]


def _api_args(
    strict: bool,
    max_media: int | None,
    short_ids: bool,
    ensure_user_first: bool,
    attachment_templates: Mapping[str, str | None] | None,
) -> tuple[bool, int | None, bool, bool, dict[str, str | None] | None]:
    """The §4 options as the batch, Arrow and conversation entry points of the
    core take them (checked)."""
    templates = dict(attachment_templates) if attachment_templates is not None else None
    return bool(strict), _max_media(max_media), bool(short_ids), bool(ensure_user_first), templates


normalize_messages = _native.normalize_messages


def to_anthropic(records: Any) -> Any:
    """``[{"role": type, "content": message.content}]``: the Messages API ``messages``."""
    data = to_builtins(records) if _is_structs(records) else records
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
