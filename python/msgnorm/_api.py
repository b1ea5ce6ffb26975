"""The public functions: input-kind dispatch around the Rust core (``msgnorm._native``).

Three input kinds, one behaviour: a list of dicts gives dicts, a list of msgnorm
Structs gives Structs, JSON ``bytes``/``bytearray``/``memoryview`` (an array or JSON
Lines) gives ``bytes`` of a JSON array, and a JSON ``str`` gives ``str``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import msgspec

from . import _native

# The public functions that are the native ones: their keyword defaults and checks
# live once, in the native signatures.
from ._native import (
    count_tokens,
    count_tokens_per_record,
    find_cutoff,
    normalize_for_api,
    normalize_for_api_report,
    normalize_messages,
    split_for_summary,
    trim_to_budget,
)
from .errors import MsgnormError
from .model import to_builtins

if TYPE_CHECKING:
    from ._native import _ApiOptions, _Costs

    class _ApiAndCosts(_ApiOptions, _Costs, total=False):
        """The §4 options and the §6 token costs, as ``**options``."""


__all__ = [
    "count_tokens",
    "count_tokens_per_record",
    "derive_short_message_id",
    "derive_uuid",
    "find_cutoff",
    "normalize_for_api",
    "normalize_for_api_report",
    "normalize_messages",
    "prompt_tokens",
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
_COUNTING_DEFAULTS = {k: v for k, v in _defaults(_native.count_tokens).items() if k != "exact"}
_STRICT: bool = _API_DEFAULTS["strict"]
_MAX_MEDIA: int | None = _API_DEFAULTS["max_media"]


def _counting_options(tokenizer: str, chars_per_token: float | None) -> dict[str, Any]:
    """The counting keywords of a command line: ``chars_per_token`` only when given."""
    if chars_per_token is None:
        return {"tokenizer": tokenizer}
    return {"tokenizer": tokenizer, "chars_per_token": chars_per_token}


def _api_of(options: Mapping[str, Any]) -> tuple[bool, int | None, bool, bool, Any]:
    """The §4 options in ``options`` (the native defaults for the rest), checked, as
    the batch, Arrow and conversation entry points of the core take them."""
    o = {**_API_DEFAULTS, **options}
    templates = o["attachment_templates"]
    return (
        bool(o["strict"]),
        _max_media(o["max_media"]),
        bool(o["short_ids"]),
        bool(o["ensure_user_first"]),
        dict(templates) if templates is not None else None,
    )


def _costs_of(options: Mapping[str, Any]) -> tuple[float, int, int, int, str]:
    """The checked §6 token costs in ``options`` (the native defaults for the rest)."""
    return _counting(**{k: options.get(k, d) for k, d in _COUNTING_DEFAULTS.items()})


def _with_options(
    *groups: Mapping[str, Any],
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """For a function whose last parameter is ``**options``: its signature lists
    the options of ``groups`` (``_API_DEFAULTS``, ``_COUNTING_DEFAULTS``) with the
    native defaults, and a call with any other keyword raises ``TypeError``, as
    if they were written out."""
    names = {k: v for g in groups for k, v in g.items()}

    def wrap(f: Callable[_P, _R]) -> Callable[_P, _R]:
        sig = inspect.signature(f)
        kept = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        own = {p.name for p in kept}
        added = [
            inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
            for k, v in names.items()
        ]

        @functools.wraps(f)
        def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            for k in kwargs:
                if k not in names and k not in own:
                    raise TypeError(f"{f.__qualname__}() got an unexpected keyword argument {k!r}")
            return f(*args, **kwargs)

        checked.__signature__ = sig.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
        return checked

    return wrap


def to_anthropic(records: Any) -> Any:
    """``[{"role": type, "content": message.content}]``: the Messages API ``messages``."""
    data = to_builtins(records) if _is_structs(records) else records
    return _native.to_anthropic(data)


def _extra_texts(system: Any, tools: Any) -> list[str]:
    """The texts of a system prompt (a str or a list of text blocks) and of tool
    schemas (a list of dicts, as their JSON) that SPEC §6.1 estimates."""
    texts: list[str] = []
    if isinstance(system, str):
        texts.append(system)
    elif isinstance(system, list):
        for i, block in enumerate(system):
            text = block.get("text") if isinstance(block, Mapping) else getattr(block, "text", None)
            if not isinstance(text, str):
                raise MsgnormError(f"system[{i}].text: expected a text block with a str text")
            texts.append(text)
    elif system is not None:
        raise MsgnormError(
            f"system: expected a str or a list of text blocks, not {type(system).__name__}"
        )
    if tools is not None:
        if not isinstance(tools, list):
            raise MsgnormError(
                f"tools: expected a list of tool schemas, not {type(tools).__name__}"
            )
        for i, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                raise MsgnormError(
                    f"tools[{i}]: expected a tool schema (a dict), not {type(tool).__name__}"
                )
            try:
                texts.append(msgspec.json.encode(tool).decode())
            except (TypeError, msgspec.EncodeError) as e:
                raise MsgnormError(f"tools[{i}]: not JSON data: {e}") from None
    return texts


@_with_options(_COUNTING_DEFAULTS)
def prompt_tokens(records: Any, *, system: Any = None, tools: Any = None, **options: Any) -> int:
    """The size of the next request's prompt, in tokens (SPEC §6.1).

    Anchored on the latest usage the provider reported in the records (an
    assistant record's ``message.usage``): that request's prompt plus its reply,
    plus the SPEC §6 estimate of every record after it. Without reported usage
    (or after a compaction or a model switch) it is the §6 estimate of the
    records plus ``system`` (a str or a list of text blocks) and ``tools`` (a
    list of tool schemas), which an anchored prompt already holds. ``options``
    are :func:`count_tokens`' (SPEC §6).
    """
    data = to_builtins(records) if _is_structs(records) else records
    return int(_native.prompt_tokens(data, _extra_texts(system, tools), _costs_of(options)))


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
