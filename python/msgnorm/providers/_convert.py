"""From a provider's messages to records, and from records to a provider's request
(``from_provider``, ``to_provider``, ``convert``): the conversion runs in the Rust core."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _api, _native
from .._api import _is_structs, _max_media
from ..errors import InvalidRecordError, MsgnormError, ProviderRuleError
from ..model import _nesting_guard, to_builtins
from ._registry import PROVIDERS, _plain, framework, is_framework
from ._source_map import provider_source_map
from ._thinking import ForeignThinking, same_model, set_model, switch_model

__all__ = [
    "PROVIDERS",
    "convert",
    "convert_report",
    "from_provider",
    "to_bedrock",
    "to_gemini",
    "to_openai_chat",
    "to_openai_responses",
    "to_provider",
    "to_provider_report",
]


def _messages(messages: Any, source: str) -> list[Any]:
    """The messages as a list of JSON-shaped data (SDK objects dumped)."""
    if not isinstance(messages, list):
        if isinstance(messages, (str, bytes, dict)) or not isinstance(messages, Sequence):
            raise InvalidRecordError(
                f"messages: expected a list of messages, not {type(messages).__name__}",
                None,
                "messages",
            )
        messages = list(messages)
    return [_plain(m) for m in messages] if source == "gemini" else messages


def _from_framework(messages: Any, source: str, system: Any) -> tuple[Any, str, Any]:
    """A framework's messages as Anthropic ``messages`` (and its system prompts
    before ``system``): what the core reads for it."""
    if not is_framework(source):
        return messages, source, system
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise InvalidRecordError(
            f"messages: expected a list of messages, not {type(messages).__name__}",
            None,
            "messages",
        )
    msgs, prompts = framework(source)._to_anthropic(messages)
    if system is not None:
        prompts = [*prompts, system] if isinstance(system, str) else [*prompts, *system]
    return msgs, "anthropic", _bridge_system(prompts)


def _refuse_repairs(
    messages: Any, provider: str, system: Any, store: bool = True, model: str | None = None
) -> None:
    """``strict=True``: the rules of ``provider`` (for ``model``) that msgnorm would
    repair, raised as :class:`ProviderRuleError` (as :func:`msgnorm.check` does) instead."""
    from ..provider_rules import repairable_violations

    found = repairable_violations(messages, provider, system=system, store=store, model=model)
    if found:
        raise ProviderRuleError(found)


def _check_store(store: bool, continuation: bool | None, target: str) -> None:
    if continuation and not store:
        raise ValueError(
            "store=False with continuation=True: a continuation needs the stored "
            "responses it continues (store=True)"
        )
    if continuation and target != "openai-responses":
        raise ValueError(
            f"continuation=True is for the openai-responses target (previous_response_id, "
            f"conversation), not {target!r}"
        )


def _bridge_system(prompts: list[Any]) -> Any:
    if not prompts:
        return None
    if len(prompts) == 1 and isinstance(prompts[0], str):
        return prompts[0]
    return [{"type": "text", "text": p} if isinstance(p, str) else p for p in prompts]


def from_provider(
    messages: Sequence[Any], source: str, *, system: Any = None, model: str | None = None
) -> list[dict[str, Any]]:
    """A provider's messages as msgnorm records.

    ``source`` is one of :data:`PROVIDERS`. ``system`` is the provider's separate
    system parameter (Anthropic ``system``, Gemini ``system_instruction``, Bedrock
    ``system``); OpenAI ``system``/``developer`` messages come in ``messages``.
    System prompts become ``system`` records with ``subtype: "system_prompt"``.
    Uuids are derived from each message's position and the history up to it, so
    repeated calls agree. ``source`` may also be a framework of
    :data:`msgnorm.frameworks.FRAMEWORKS` (its message objects, system prompts
    among them). ``model`` is the model that wrote the assistant messages: it
    becomes their records' ``message.model``, which
    ``to_provider(..., model=...)`` reads to keep or drop their thinking.
    """
    messages, source, system = _from_framework(messages, source, system)
    items = _messages(messages, source)
    with _nesting_guard():
        records = _native.from_provider(items, source, _plain(system))
    if model is not None:
        set_model(records, model)
    return records


def to_provider_report(
    records: Any,
    target: str,
    *,
    system: Any = None,
    normalize: bool = True,
    strict: bool = _api._STRICT,
    max_media: int | None = _api._MAX_MEDIA,
    source_map: bool = False,
    model: str | None = None,
    foreign_thinking: ForeignThinking = "drop",
    store: bool = True,
    continuation: bool | None = None,
) -> tuple[Any, dict[str, Any]]:
    """:func:`to_provider` and a count of what was repaired, converted or dropped, by name.

    ``source_map=True`` adds ``report["source_map"]``: for each message of the
    request (each input item for ``openai-responses``), the indices of the input
    records it came from (docs/SPEC.md §8.8).

    The counts include :func:`msgnorm.normalize_for_api_report`'s rules and the
    adapter's own: ``thinking_dropped`` (reasoning the target cannot verify),
    ``thinking_as_text``, ``parts_dropped`` (blocks with no shape in the
    target), ``ids_rewritten``, ``tool_names_rewritten``, ``messages_merged``,
    ``media_moved``, ``blank_text_dropped``, ``empty_filled``,
    ``cache_control_dropped``, ``server_results_removed``,
    ``server_tools_as_text``, ``reasoning_dropped``, ``item_ids_dropped``.
    """
    _check_store(store, continuation, target)
    if strict:
        _refuse_repairs(records, "anthropic", None)
    # a framework's objects are made from the Anthropic request shape
    shape = "anthropic" if is_framework(target) else target
    if source_map and shape != target:
        raise MsgnormError("source_map is for provider targets, not framework objects")
    data = to_builtins(records) if _is_structs(records) else records
    if not isinstance(data, list):
        raise InvalidRecordError(
            f"records: expected a list of records, not {type(data).__name__}", None, "records"
        )
    switched: dict[str, int] = {}
    if model is not None:
        data, switched = switch_model(data, model, foreign_thinking)
    media = _max_media(max_media)
    with _nesting_guard():
        out, report = _native.to_provider(
            data,
            (shape, bool(store), continuation),
            _plain(system),
            bool(normalize),
            (bool(strict), media),
        )
    for k, n in switched.items():
        report[k] = report.get(k, 0) + n
    if shape != target:
        return framework(target)._from_anthropic(out), report
    if source_map:
        result: dict[str, Any] = dict(report)
        result["source_map"] = provider_source_map(
            data,
            target,
            out,
            lambda rec: to_provider([rec], target, normalize=False),
            normalize=bool(normalize),
            max_media=media,
        )
        return out, result
    return out, report


to_provider = _api._without_report(
    to_provider_report,
    "to_provider",
    """Records in ``target``'s request shape, after :func:`msgnorm.normalize_for_api`.

    Shapes: ``anthropic`` ``{"system"?, "messages"}``; ``openai-chat`` a list of
    messages; ``openai-responses`` a list of input items; ``gemini``
    ``{"system_instruction"?, "contents"}``; ``bedrock`` ``{"system"?, "messages"}``.
    System prompts are the history's ``system_prompt`` records, then ``system``.
    ``normalize=False`` is for records that are already normalize_for_api's output.

    ``model`` is the model the request goes to: thinking (and other providers'
    reasoning) that a known different model produced (the record's
    ``message.model``) is dropped, or with ``foreign_thinking="text"`` kept as
    text; thinking of a record with no model is kept.

    ``store=False`` makes an ``openai-responses`` input for a stateless request
    (the Responses ``store`` parameter): reasoning items without
    ``encrypted_content`` are dropped and messages and calls carry no
    server-side id (a reasoning item keeps the id its ``encrypted_content`` is
    bound to).

    ``continuation`` is for a Responses request that continues a stored
    response (``previous_response_id`` or ``conversation``): the
    ``function_call_output`` items that lead the input answer calls the
    server holds, and are sent as given, where the input's other items are
    normalized. ``True`` keeps them whatever their records' source;
    ``None`` (the default) keeps them when they were read from a Responses
    input; ``False`` removes them as orphans (``orphan_results_removed``).
    ``continuation=True`` with ``store=False`` (no stored response) or with
    another target raises ValueError.
    """,
)


def to_openai_chat(
    records: Any, *, system: Any = None, normalize: bool = True
) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` (system/developer messages first)."""
    return to_provider(records, "openai-chat", system=system, normalize=normalize)  # type: ignore[no-any-return]


def to_openai_responses(
    records: Any, *, system: Any = None, normalize: bool = True
) -> list[dict[str, Any]]:
    """Responses API ``input`` items (system/developer messages first)."""
    return to_provider(records, "openai-responses", system=system, normalize=normalize)  # type: ignore[no-any-return]


def to_gemini(records: Any, *, system: Any = None, normalize: bool = True) -> dict[str, Any]:
    """``{"system_instruction"?, "contents"}`` for ``generate_content``."""
    return to_provider(records, "gemini", system=system, normalize=normalize)  # type: ignore[no-any-return]


def to_bedrock(records: Any, *, system: Any = None, normalize: bool = True) -> dict[str, Any]:
    """``{"system"?, "messages"}`` for Bedrock ``converse`` (binary payloads as bytes)."""
    return to_provider(records, "bedrock", system=system, normalize=normalize)  # type: ignore[no-any-return]


def convert_report(
    messages: Sequence[Any],
    *,
    source: str,
    target: str,
    system: Any = None,
    strict: bool = _api._STRICT,
    max_media: int | None = _api._MAX_MEDIA,
    store: bool = True,
    continuation: bool | None = None,
    model: str | None = None,
    source_model: str | None = None,
    foreign_thinking: ForeignThinking = "drop",
) -> tuple[Any, dict[str, int]]:
    """:func:`convert` and the counts of :func:`to_provider_report`."""
    _check_store(store, continuation, target)
    if model is not None and (source_model is None or same_model(source_model, model)):
        # no record names another model: nothing to switch, and the request
        # as given is kept where the target's rules take it
        switch_model([], model, foreign_thinking)  # the arguments' checks
    elif model is not None or source_model is not None:
        # the model switch reads the records' models: through the records
        if strict:
            src_messages, src, src_system = _from_framework(messages, source, system)
            stateless = not store and target == "openai-responses"
            _refuse_repairs(_messages(src_messages, src), src, src_system, not stateless)
        records = from_provider(messages, source, system=system, model=source_model)
        return to_provider_report(
            records,
            target,
            strict=False,
            max_media=max_media,
            model=model,
            foreign_thinking=foreign_thinking,
            store=store,
            continuation=continuation,
        )
    # a framework's own objects in, the same framework's objects out
    objects = (
        source == target
        and is_framework(source)
        and isinstance(messages, Sequence)
        and any(not isinstance(m, dict) for m in messages)
    )
    messages, source, system = _from_framework(messages, source, system)
    if strict:
        # the stateless rules are the Responses target's own
        stateless = not store and target == "openai-responses"
        _refuse_repairs(_messages(messages, source), source, system, not stateless, model)
    # a framework's objects are made from the Anthropic request shape
    shape = "anthropic" if is_framework(target) else target
    items = _messages(messages, source)
    media = _max_media(max_media)
    with _nesting_guard():
        out, report = _native.convert(
            items, source, (shape, bool(store), continuation), _plain(system), (bool(strict), media)
        )
    if shape != target:
        module = framework(target)
        out = module._from_anthropic(out)
        if objects and hasattr(module, "_as_objects"):
            out = module._as_objects(out)
    return out, report


convert = _api._without_report(
    convert_report,
    "convert",
    """``from_provider`` → ``normalize_for_api`` → ``to_provider(target)``, in one call.

    With the same format in and out, the messages no step changed are the
    input's own objects (shared, like slicing); repaired or made ones are new.
    The input is never mutated. ``store``, ``continuation``, ``model`` and
    ``foreign_thinking`` are :func:`to_provider`'s; ``source_model`` is the
    model that wrote the assistant messages of ``messages``
    (:func:`from_provider`'s ``model``). With ``model`` and ``source_model``
    naming different models, the source's thinking and reasoning is dropped
    (or with ``foreign_thinking="text"`` kept as text). Without a
    ``source_model`` (or with the same one), ``model`` switches nothing: a
    request the target's rules take comes back as it came, with or without it.
    With the same format in and out, a request that breaks some of the
    target's rules gets only the SPEC §4 steps those rules name (counted in
    the report as ``step_<name>``; docs/PROVIDERS.md).
    """,
)
