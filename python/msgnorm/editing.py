"""Context editing (issue 15): clear old tool results and thinking, client-side.

The options cover Anthropic's server-side strategies one to one, so a caller can
move between server-side and client-side editing:

============================  ===========================================================
Anthropic                     msgnorm
============================  ===========================================================
``clear_tool_uses_20250919``  :func:`clear_tool_results`
``trigger`` (input_tokens)    ``trigger=100_000`` or ``{"type": "input_tokens", "value": n}``
``trigger`` (tool_uses)       ``trigger={"type": "tool_uses", "value": n}``
``keep`` (tool_uses)          ``keep=3`` or ``{"type": "tool_uses", "value": n}``
``clear_at_least``            ``clear_at_least=None`` or ``n`` / ``{"type": "input_tokens", ...}``
``exclude_tools``             ``exclude_tools=()``
``clear_tool_inputs``         ``clear_tool_inputs=False``, ``True`` or a list of tool names
``clear_thinking_20251015``   :func:`clear_thinking`
``keep`` (thinking_turns)     ``keep_turns=1``, ``"all"`` or ``{"type": "thinking_turns", ...}``
============================  ===========================================================

Defaults are Anthropic's documented ones; the placeholder is LangChain's
(``ClearToolUsesEdit``: ``"[cleared]"``).  Token counts are SPEC §6's
``count_tokens`` with its default parameters.

The Rust core does the work on all three input kinds (JSON ``bytes``/``str``, a
list of dicts, a list of msgnorm Structs), in one linear pass. The input is never
mutated; records the call did not change are the input's own objects (like
slicing), changed ones are fresh shallow copies sharing unchanged blocks.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict

from . import _api, _native
from .errors import MsgnormError

__all__ = [
    "DEFAULT_PLACEHOLDER",
    "EditEvent",
    "EditReport",
    "clear_thinking",
    "clear_thinking_report",
    "clear_tool_results",
    "clear_tool_results_report",
]

DEFAULT_PLACEHOLDER = "[cleared]"
"""What a cleared ``tool_result``'s content becomes (LangChain's ``ClearToolUsesEdit``)."""

_U64_MAX = 2**64 - 1
_USIZE_MAX = 2**63 - 1


class EditReport(TypedDict):
    """What a context edit did (token counts are SPEC §6 with default parameters)."""

    results_cleared: int
    inputs_cleared: int
    thinking_cleared: int
    tokens_before: int
    tokens_after: int
    tokens_saved: int
    first_changed: int | None
    """Index of the first changed record: where a provider's prompt cache is
    invalidated; ``None`` when nothing changed."""


class EditEvent(EditReport):
    """One time a :class:`msgnorm.Conversation`'s context-editing policy fired;
    ``first_changed`` is the output position from which the output changed."""

    input_len: int
    """Records appended to the conversation when it fired."""


def _count(name: str, value: object, kinds: tuple[str, ...]) -> tuple[str, int]:
    """An ``int`` or an Anthropic-style ``{"type": kind, "value": n}``: ``(kind, n)``."""
    kind = kinds[0]
    if isinstance(value, Mapping):
        kind = value.get("type", kind)
        if kind not in kinds:
            allowed = " or ".join(repr(k) for k in kinds)
            raise MsgnormError(f"{name}['type'] must be {allowed}, not {kind!r}")
        value = value.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MsgnormError(f"{name} must be an int >= 0, not {value!r}")
    return kind, value


def _names(name: str, value: object) -> list[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise MsgnormError(f"{name} must be a list of tool names, not {value!r}")
    out = list(value)
    for v in out:
        if not isinstance(v, str):
            raise MsgnormError(f"{name} must hold tool names (str), not {v!r}")
    return out


def _run(records: Any, **kw: Any) -> tuple[Any, EditReport]:
    """Calls the core: JSON text, or a list of dicts or msgnorm Structs read natively."""
    # The core keeps the records it builds out of the collector's sight until it returns.
    out, report = _native.clear_context(records, kw)
    return out, report


def clear_tool_results_report(
    records: Any,
    *,
    trigger: int | Mapping[str, Any] | None = 100_000,
    keep: int | Mapping[str, Any] = 3,
    clear_at_least: int | Mapping[str, Any] | None = None,
    exclude_tools: Iterable[str] = (),
    clear_tool_inputs: bool | Iterable[str] = False,
    placeholder: str = DEFAULT_PLACEHOLDER,
) -> tuple[Any, EditReport]:
    """:func:`clear_tool_results` and its :class:`EditReport`."""
    options = {k: v for k, v in locals().items() if k != "records"}  # the keywords, by name
    return _run(records, **_tool_args(**options), thinking=False, keep_turns=None)


clear_tool_results = _api._without_report(
    clear_tool_results_report,
    "clear_tool_results",
    """Replace the content of old ``tool_result`` blocks by ``placeholder``.

    Fires when the history's §6 token count exceeds ``trigger`` (an int, or
    ``{"type": "input_tokens" | "tool_uses", "value": n}``: more than ``n``
    ``tool_use`` blocks; ``None`` always fires). Then every ``tool_use`` but the
    last ``keep`` has its result cleared (and its ``input`` set to ``{}`` when
    ``clear_tool_inputs`` is ``True`` or names its tool), except tools in
    ``exclude_tools`` and the current tool loop (the last assistant record with
    ``tool_use`` blocks and the user record after it), which is never touched.
    A result no bigger than the placeholder (fewer characters, no media) stays:
    clearing never raises the token count. If all that would free fewer than
    ``clear_at_least`` tokens, nothing changes (Anthropic's rule; LangChain
    instead stops once it has freed that many).
    Results are replaced, never removed, so ``tool_use``/``tool_result``
    pairing holds; records before the first changed one are unchanged (byte
    for byte for JSON input). Run it on :func:`msgnorm.normalize_for_api`'s output.
    """,
)


_TOOL_OPTIONS = inspect.signature(clear_tool_results_report)


def _tool_args(**options: Any) -> dict[str, Any]:
    """The core's arguments for :func:`clear_tool_results`'s options (checked;
    the options and their defaults are its own)."""
    bound = _TOOL_OPTIONS.bind(None, **options)
    bound.apply_defaults()
    trigger, keep, clear_at_least, exclude_tools, clear_tool_inputs, placeholder = list(
        bound.arguments.values()
    )[1:]
    if trigger is None:
        tkind, tvalue = "tool_uses", 0
    else:
        tkind, tvalue = _count("trigger", trigger, ("input_tokens", "tool_uses"))
    _, nkeep = _count("keep", keep, ("tool_uses",))
    least = (
        0
        if clear_at_least is None
        else _count("clear_at_least", clear_at_least, ("input_tokens",))[1]
    )
    if isinstance(clear_tool_inputs, bool):
        all_inputs, inputs_of = clear_tool_inputs, []
    else:
        all_inputs, inputs_of = False, _names("clear_tool_inputs", clear_tool_inputs)
    if not isinstance(placeholder, str) or not placeholder:
        raise MsgnormError(f"placeholder must be a non-empty str, not {placeholder!r}")
    return {
        "tools": True,
        "trigger_kind": tkind,
        "trigger_value": min(tvalue, _U64_MAX),
        "keep": min(nkeep, _USIZE_MAX),
        "clear_at_least": min(least, _U64_MAX),
        "exclude_tools": _names("exclude_tools", exclude_tools),
        "clear_all_inputs": all_inputs,
        "clear_inputs_of": inputs_of,
        "placeholder": placeholder,
    }


def _keep_turns(keep_turns: int | Literal["all"] | Mapping[str, Any]) -> int | None:
    if keep_turns == "all" or (isinstance(keep_turns, Mapping) and keep_turns.get("type") == "all"):
        return None
    return min(_count("keep_turns", keep_turns, ("thinking_turns",))[1], _USIZE_MAX)


_TOOL_KEYS = frozenset(list(_TOOL_OPTIONS.parameters)[1:])


def _policy_args(clear_tool_results: Any, clear_thinking: Any) -> dict[str, Any] | None:
    """The core's ``Conversation.set_policy`` arguments for a conversation's
    ``clear_tool_results`` / ``clear_thinking`` options; ``None`` for no policy."""
    if clear_tool_results is None or clear_tool_results is False:
        tools: dict[str, Any] | None = None
    elif clear_tool_results is True:
        tools = _tool_args()
    elif isinstance(clear_tool_results, Mapping):
        unknown = sorted(set(clear_tool_results) - _TOOL_KEYS)
        if unknown:
            raise MsgnormError(
                f"clear_tool_results: unknown option {unknown[0]!r} "
                f"(options: {', '.join(sorted(_TOOL_KEYS))})"
            )
        tools = _tool_args(**clear_tool_results)
    else:
        raise MsgnormError(
            "clear_tool_results must be True or a dict of clear_tool_results() options, "
            f"not {clear_tool_results!r}"
        )
    thinking = clear_thinking is not None and clear_thinking is not False
    keep_turns: int | None = None
    when: dict[str, Any] = {}
    if thinking:
        spec: Any = 1 if clear_thinking is True else clear_thinking
        if isinstance(spec, Mapping) and "type" not in spec:  # options, not a count
            unknown = sorted(set(spec) - {"keep_turns", "trigger", "clear_at_least"})
            if unknown:
                raise MsgnormError(
                    f"clear_thinking: unknown option {unknown[0]!r} "
                    "(options: clear_at_least, keep_turns, trigger)"
                )
            when = {k: spec[k] for k in ("trigger", "clear_at_least") if k in spec}
            if tools is not None and when:
                raise MsgnormError(
                    "clear_thinking: with clear_tool_results set, its trigger and "
                    "clear_at_least govern both"
                )
            spec = spec.get("keep_turns", 1)
        keep_turns = _keep_turns(spec)
    if tools is None and not thinking:
        return None
    base = tools if tools is not None else {**_tool_args(**when), "tools": False}
    return {**base, "thinking": thinking, "keep_turns": keep_turns}


def clear_thinking_report(
    records: Any, *, keep_turns: int | Literal["all"] | Mapping[str, Any] = 1
) -> tuple[Any, EditReport]:
    """:func:`clear_thinking` and its :class:`EditReport`."""
    keep = _keep_turns(keep_turns)
    return _run(
        records,
        tools=False,
        trigger_kind="tool_uses",
        trigger_value=0,
        keep=0,
        clear_at_least=0,
        exclude_tools=[],
        clear_all_inputs=False,
        clear_inputs_of=[],
        placeholder=DEFAULT_PLACEHOLDER,
        thinking=True,
        keep_turns=keep,
    )


clear_thinking = _api._without_report(
    clear_thinking_report,
    "clear_thinking",
    """Remove ``thinking``/``redacted_thinking`` blocks of older assistant turns.

    The last ``keep_turns`` assistant records holding thinking keep it (``"all"``
    keeps everything); so does the current tool loop's assistant (its signed
    thinking must go back unchanged), and any record that the removal would
    leave empty.
    """,
)
