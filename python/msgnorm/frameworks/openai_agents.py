"""OpenAI Agents SDK (``openai-agents``): msgnorm's repairs as the run's
``call_model_input_filter``.

The SDK sends Responses input items; the filter repairs them for the model in
use before every model call (``RunConfig(call_model_input_filter=...)``) and
returns the SDK's ``ModelInputData``. Items no repair touched are the input's own
objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import providers
from ..providers._tools import tool_name
from . import _bridge

__all__ = ["MsgnormInputFilter", "call_model_input_filter", "repair_input"]

_TARGETS = ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")


def _rename(items: list[Any], provider: str | None) -> list[Any]:
    """Call ids the provider refuses, and a call id a later call reuses, renamed the
    same way in the call and its output; tool names the provider refuses mapped
    (``msgnorm.tool_name``)."""
    calls = [it for it in items if isinstance(it, dict) and it.get("type") == "function_call"]
    taken = {c.get("call_id") for c in calls if isinstance(c.get("call_id"), str)}
    seen: set[str] = set()
    current: dict[str, str] = {}
    target = provider if provider in _TARGETS else "anthropic"
    out: list[Any] = []
    for it in items:
        if not isinstance(it, dict):
            out.append(it)
            continue
        kind = it.get("type")
        call_id = it.get("call_id")
        if kind == "function_call" and isinstance(call_id, str):
            new = call_id
            if not _bridge._id_ok(call_id, provider) or call_id in seen:
                new = _bridge._new_id(call_id, taken | seen)
                taken.add(new)
            seen.add(new)
            current[call_id] = new
            update: dict[str, Any] = {}
            if new != call_id:
                update["call_id"] = new
            name = it.get("name")
            if isinstance(name, str) and tool_name(name, target) != name:
                update["name"] = tool_name(name, target)
            out.append({**it, **update} if update else it)
        elif kind == "function_call_output" and isinstance(call_id, str):
            new = current.get(call_id, call_id)
            out.append(it if new == call_id else {**it, "call_id": new})
        else:
            out.append(it)
    return out


def repair_input(
    items: Sequence[Any],
    *,
    provider: str | None = None,
    model: str | None = None,
    clear_tool_results: bool | Mapping[str, Any] | None = None,
    max_tokens: int | None = None,
) -> list[Any]:
    """Responses input items repaired for ``provider`` (``None``: the rules every
    provider shares) and ``model``: call ids and tool names the provider refuses
    and call ids a later call reuses renamed, then ``normalize_for_api``'s rules
    (an unanswered call answered, an orphan output removed, ...), thinking
    another model signed dropped; ``clear_tool_results`` and ``max_tokens`` edit
    the records first."""
    fixed = _rename(list(items), provider)
    if clear_tool_results is None and max_tokens is None:
        out: list[Any] = providers.convert(
            fixed, source="openai-responses", target="openai-responses", model=model
        )
        return out
    records = _bridge.edited(
        providers.from_provider(fixed, "openai-responses"), clear_tool_results, max_tokens
    )
    result: list[Any] = providers.to_provider(records, "openai-responses", model=model)
    return result


class MsgnormInputFilter(_bridge.HookOptions):
    """A ``call_model_input_filter`` for ``RunConfig``: the input items of every
    model call repaired for the agent's model (its provider read from the model's
    class or name; a model that names no provider gets the repairs every provider
    needs). Options: ``provider`` and ``model`` (the target),
    ``clear_tool_results`` (``True`` or :func:`msgnorm.clear_tool_results`'s
    options), ``max_tokens`` (a token budget, :func:`msgnorm.trim_to_budget`)."""

    def __call__(self, data: Any) -> Any:
        run = _bridge.need("agents.run", "OpenAI Agents SDK", "openai-agents", "openai-agents")
        provider, name = self.target(lambda: _provider_of(getattr(data.agent, "model", None)))
        items = repair_input(data.model_data.input, provider=provider, model=name, **self.edits())
        return run.ModelInputData(input=items, instructions=data.model_data.instructions)


def _provider_of(model: Any) -> tuple[str | None, str | None]:
    """The provider and name of an agent's model; the SDK's OpenAI models default to
    the Responses API, its Chat Completions model excepted."""
    provider, name = _bridge.provider_of(model)
    if provider == "openai-chat" and "chatcompletions" not in type(model).__name__.lower():
        provider = "openai-responses"
    return provider, name


call_model_input_filter = MsgnormInputFilter()
"""``RunConfig(call_model_input_filter=call_model_input_filter)``: the filter with
no options."""
