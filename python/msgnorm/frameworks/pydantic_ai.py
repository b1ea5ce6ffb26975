"""pydantic-ai message history (``ModelRequest`` / ``ModelResponse``) in and out.

A ``ModelRequest`` becomes the system prompts it carries (``SystemPromptPart``,
``instructions``) and one user turn (tool returns first, then the prompt); a
``ModelResponse`` one assistant turn (text, thinking with its signature, tool
calls). Redacted thinking is pydantic-ai's ``ThinkingPart(id="redacted_thinking")``
with the data as its signature, as its Anthropic model writes it. The bridge is
the Anthropic Messages shape; see ``docs/PROVIDERS.md``.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRecordError
from . import _bridge

__all__ = [
    "MsgnormCapability",
    "from_pydantic_ai",
    "history_processor",
    "normalize_pydantic_ai",
    "repair_pydantic_ai",
    "to_pydantic_ai",
]

try:  # pydantic-ai tells a processor that takes the run's context by this annotation
    from pydantic_ai.tools import RunContext
except ImportError:  # pragma: no cover - the adapter then names the extra to install
    if not TYPE_CHECKING:
        RunContext = dict  # a subscriptable stand-in

_REDACTED = "redacted_thinking"
_FAILED = ("failed", "denied", "interrupted", "retried")


def _m() -> Any:
    return _bridge.need("pydantic_ai.messages", "pydantic-ai", "pydantic-ai", "pydantic-ai")


def _user_content(item: Any, m: Any) -> dict[str, Any]:
    """One item of a ``UserPromptPart``'s content as an Anthropic block."""
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, m.BinaryContent):
        kind = "image" if item.is_image else "document"
        data = base64.b64encode(item.data).decode()
        return {
            "type": kind,
            "source": {"type": "base64", "media_type": item.media_type, "data": data},
        }
    if isinstance(item, (m.ImageUrl, m.DocumentUrl)):
        kind = "image" if isinstance(item, m.ImageUrl) else "document"
        return {"type": kind, "source": {"type": "url", "url": item.url}}
    raise TypeError(f"{type(item).__name__} has no Anthropic block")


def _tool_content(part: Any) -> Any:
    content = part.content
    return content if isinstance(content, str) else part.model_response_str()


def _to_anthropic(
    messages: Sequence[Any], units: list[_bridge.Unit] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """pydantic-ai messages as Anthropic ``messages`` and the system prompts;
    ``units`` gets each message's role and blocks with the part each came from."""
    m = _m()
    out: list[dict[str, Any]] = []
    system: list[str] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, m.ModelRequest):
            if msg.instructions:
                system.append(msg.instructions)
            results: list[tuple[int, dict[str, Any]]] = []
            prompt: list[tuple[int, dict[str, Any]]] = []
            for j, part in enumerate(msg.parts):
                if isinstance(part, m.SystemPromptPart):
                    system.append(part.content)
                elif isinstance(part, m.UserPromptPart):
                    if isinstance(part.content, str):
                        prompt.append((j, {"type": "text", "text": part.content}))
                    else:
                        try:
                            prompt.extend((j, _user_content(x, m)) for x in part.content)
                        except TypeError as e:
                            raise InvalidRecordError(
                                f"messages[{i}].parts[{j}]: {e}", i, f"messages[{i}].parts[{j}]"
                            ) from None
                elif isinstance(part, m.ToolReturnPart):
                    block: dict[str, Any] = {
                        "type": "tool_result",
                        "tool_use_id": part.tool_call_id,
                        "content": _tool_content(part),
                    }
                    if getattr(part, "outcome", "success") in _FAILED:
                        block["is_error"] = True
                    results.append((j, block))
                elif isinstance(part, m.RetryPromptPart):
                    text = part.model_response()
                    if part.tool_name is not None:
                        results.append(
                            (
                                j,
                                {
                                    "type": "tool_result",
                                    "tool_use_id": part.tool_call_id,
                                    "content": text,
                                    "is_error": True,
                                },
                            )
                        )
                    else:
                        prompt.append((j, {"type": "text", "text": text}))
            listed = results + prompt
            content = [b for _, b in listed]
            if units is not None:
                units.append(
                    _bridge.Unit("user" if content else None, content, [j for j, _ in listed])
                )
            if content:
                plain = not results and len(prompt) == 1 and prompt[0][1]["type"] == "text"
                out.append({"role": "user", "content": prompt[0][1]["text"] if plain else content})
        elif isinstance(msg, m.ModelResponse):
            blocks: list[dict[str, Any]] = []
            where: list[int] = []
            for j, part in enumerate(msg.parts):
                if isinstance(part, m.TextPart):
                    blocks.append({"type": "text", "text": part.content})
                elif isinstance(part, m.ThinkingPart):
                    if part.id == _REDACTED:
                        blocks.append({"type": "redacted_thinking", "data": part.signature or ""})
                    else:
                        t: dict[str, Any] = {"type": "thinking", "thinking": part.content}
                        if part.signature is not None:
                            t["signature"] = part.signature
                        blocks.append(t)
                elif isinstance(part, m.ToolCallPart):
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": part.tool_call_id,
                            "name": part.tool_name,
                            "input": part.args_as_dict(),
                        }
                    )
                else:
                    continue
                where.append(j)
            if units is not None:
                units.append(_bridge.Unit("assistant", blocks, where))
            entry: dict[str, Any] = {"role": "assistant", "content": blocks}
            if msg.provider_response_id:
                entry["id"] = msg.provider_response_id
            out.append(entry)
        else:
            raise InvalidRecordError(
                f"messages[{i}]: expected a pydantic-ai ModelRequest or ModelResponse, "
                f"not {type(msg).__name__}",
                i,
                f"messages[{i}]",
            )
    return out, system


def _from_anthropic(shape: dict[str, Any], names: dict[str, str] | None = None) -> list[Any]:
    m = _m()
    out: list[Any] = []
    system = shape.get("system")
    prompts: list[Any] = []
    if isinstance(system, str) and system:
        prompts = [m.SystemPromptPart(content=system)]
    elif isinstance(system, list):
        prompts = [m.SystemPromptPart(content=b.get("text", "")) for b in system]
    names = dict(names or {})
    for msg in shape["messages"]:
        content = msg["content"]
        listed: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        if msg["role"] == "assistant":
            parts: list[Any] = []
            for b in listed:
                t = b.get("type")
                if t == "text":
                    parts.append(m.TextPart(content=b.get("text", "")))
                elif t == "thinking":
                    parts.append(
                        m.ThinkingPart(content=b.get("thinking", ""), signature=b.get("signature"))
                    )
                elif t == "redacted_thinking":
                    parts.append(m.ThinkingPart(content="", id=_REDACTED, signature=b.get("data")))
                elif t == "tool_use":
                    names[b["id"]] = b["name"]
                    parts.append(
                        m.ToolCallPart(
                            tool_name=b["name"], args=b.get("input"), tool_call_id=b["id"]
                        )
                    )
            out.append(m.ModelResponse(parts=parts, provider_response_id=msg.get("id")))
            continue
        parts = list(prompts)
        prompts = []
        items: list[Any] = []
        for b in listed:
            t = b.get("type")
            if t == "tool_result":
                inner = b.get("content", "")
                text = (
                    inner
                    if isinstance(inner, str)
                    else "\n".join(x.get("text", "") for x in inner if x.get("type") == "text")
                )
                parts.append(
                    m.ToolReturnPart(
                        tool_name=names.get(b["tool_use_id"], ""),
                        content=text,
                        tool_call_id=b["tool_use_id"],
                        outcome="failed" if b.get("is_error") else "success",
                    )
                )
            elif t == "text":
                items.append(b.get("text", ""))
            elif t in ("image", "document") and isinstance(b.get("source"), dict):
                source: dict[str, Any] = b["source"]
                if source.get("type") == "base64":
                    items.append(
                        m.BinaryContent(
                            data=base64.b64decode(source.get("data", "")),
                            media_type=source.get("media_type", ""),
                        )
                    )
                elif source.get("type") == "url":
                    cls = m.ImageUrl if t == "image" else m.DocumentUrl
                    items.append(cls(url=source.get("url", "")))
        if items:
            one = len(items) == 1 and isinstance(items[0], str)
            parts.append(m.UserPromptPart(content=items[0] if one else items))
        out.append(m.ModelRequest(parts=parts))
    if prompts:  # a system prompt and no messages
        out.append(m.ModelRequest(parts=prompts))
    return out


def from_pydantic_ai(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """pydantic-ai messages as msgnorm records."""
    anthropic, system = _to_anthropic(messages)
    return _bridge.from_anthropic(anthropic, system)


def to_pydantic_ai(records: Any, *, normalize: bool = True) -> list[Any]:
    """msgnorm records as pydantic-ai messages, after ``normalize_for_api`` and the
    Anthropic rules; ``normalize=False`` for ``normalize_for_api``'s output."""
    return _from_anthropic(_bridge.to_anthropic(records, normalize=normalize))


def _made(role: str, blocks: list[dict[str, Any]], names: dict[str, str]) -> list[Any]:
    """The parts pydantic-ai gives blocks the repair made."""
    made = _from_anthropic({"messages": [{"role": role, "content": blocks}]}, names)
    return [p for msg in made for p in msg.parts]


def _patched(part: Any, block: dict[str, Any], m: Any) -> Any | None:
    """``part`` with what the repair changed in its block, or None when the block
    is no longer the part's kind."""
    t = block.get("type")
    if isinstance(part, m.ToolCallPart) and t == "tool_use":
        update: dict[str, Any] = {"tool_call_id": block["id"], "tool_name": block["name"]}
        if part.args_as_dict() != block.get("input"):
            update["args"] = block.get("input")
        return dataclasses.replace(part, **update)
    if isinstance(part, m.ToolReturnPart) and t == "tool_result":
        update = {"tool_call_id": block["tool_use_id"]}
        if block.get("content") != _tool_content(part):
            update["content"] = block.get("content")
        return dataclasses.replace(part, **update)
    if isinstance(part, m.RetryPromptPart) and t == "tool_result":
        return dataclasses.replace(part, tool_call_id=block["tool_use_id"])
    if isinstance(part, m.TextPart) and t == "text":
        return dataclasses.replace(part, content=block.get("text", ""))
    if isinstance(part, m.UserPromptPart) and t == "text" and isinstance(part.content, str):
        return dataclasses.replace(part, content=block.get("text", ""))
    if isinstance(part, m.ThinkingPart) and t == "thinking":
        return dataclasses.replace(
            part, content=block.get("thinking", ""), signature=block.get("signature")
        )
    return None


def _rebuilt(
    orig: Any, unit: _bridge.Unit, role: str, items: list[_bridge.Item], names: dict[str, str]
) -> Any:
    """``orig`` with the blocks the repair gave it: each part whose blocks all came
    through is the original part, a changed block patches its part, every other
    field of the message is kept."""
    m = _m()
    used = set(unit.parts)
    parts: list[Any] = [p for j, p in enumerate(orig.parts) if j not in used]  # system prompts
    count = {j: unit.parts.count(j) for j in used}
    k = 0
    while k < len(items):
        part, block, replaced = items[k]
        if part is not None:
            run = 1
            while k + run < len(items) and items[k + run][0] == part:
                run += 1
            if run == count[part]:
                parts.append(orig.parts[part])
            else:
                parts.extend(_made(role, [b for _, b, _ in items[k : k + run]], names))
            k += run
            continue
        patched = None
        if replaced is not None and count.get(replaced) == 1:
            patched = _patched(orig.parts[replaced], block, m)
        parts.extend([patched] if patched is not None else _made(role, [block], names))
        k += 1
    return dataclasses.replace(orig, parts=parts)


def repair_pydantic_ai(
    messages: Sequence[Any],
    *,
    provider: str | None = None,
    model: str | None = None,
    clear_tool_results: Any = None,
    max_tokens: int | None = None,
) -> list[Any]:
    """pydantic-ai messages repaired for ``provider`` (``"anthropic"``,
    ``"openai-chat"``, ... or ``None`` for the rules every provider shares) and
    ``model``, keeping everything pydantic-ai keeps: a message no repair touched is
    the input's own object; a repaired one keeps its other fields (usage,
    ``model_name``, ``provider_name``, ``provider_details``, timestamps) and its
    untouched parts."""
    m = _m()
    units: list[_bridge.Unit] = []
    shape, system = _to_anthropic(messages, units)
    made_by = [
        msg.model_name if isinstance(msg, m.ModelResponse) else None
        for msg, u in zip(messages, units, strict=True)
        if u.role is not None
    ]
    return _bridge.repaired(
        messages,
        units,
        (shape, system),
        made_by,
        lambda i, role, items, names: [_rebuilt(messages[i], units[i], role, items, names)],
        lambda role, items, names: _from_anthropic(
            {"messages": [{"role": role, "content": [b for _, b, _ in items]}]}, names
        ),
        provider=provider,
        model=model,
        clear_tool_results=clear_tool_results,
        max_tokens=max_tokens,
    )


def normalize_pydantic_ai(messages: Sequence[Any], **options: Any) -> list[Any]:
    """pydantic-ai messages in, the repaired history out (``message_history=`` takes
    it): the repairs of ``normalize_for_api`` with the Anthropic rules. A message no
    repair touched is the input's own object; a repaired one keeps every other field
    (:func:`repair_pydantic_ai`, whose options these are)."""
    options.setdefault("provider", "anthropic")
    return repair_pydantic_ai(messages, **options)


class _Options(_bridge.HookOptions):
    """The hook's options, applied to a pydantic-ai model request."""

    def repair(self, messages: Sequence[Any], model: Any) -> list[Any]:
        provider, name = self.target(lambda: _bridge.provider_of(model))
        return repair_pydantic_ai(messages, provider=provider, model=name, **self.edits())


def history_processor(ctx: RunContext[Any], messages: list[Any]) -> list[Any]:
    """A pydantic-ai history processor (``history_processors=[history_processor]``
    in releases that take them, ``ProcessHistory(history_processor)`` in 2.x): the
    history repaired for the run's model (``ctx.model``), as the capability does
    with no options."""
    return _Options().repair(messages, getattr(ctx, "model", None))


def _define_capability() -> type:
    capabilities = _bridge.need(
        "pydantic_ai.capabilities", "pydantic-ai capability", "pydantic-ai>=2", "pydantic-ai"
    )

    @dataclasses.dataclass
    class MsgnormCapability(capabilities.AbstractCapability):  # type: ignore[misc, name-defined]
        """msgnorm's repairs before every model request of a pydantic-ai agent
        (``Agent(model, capabilities=[MsgnormCapability()])``).

        The messages of each request are repaired for the model in use (its
        provider read from its class, its name from ``model_name``; a test or
        function model gets the repairs every provider needs); the run's history is
        not changed. Options: ``provider`` and ``model`` (the target),
        ``clear_tool_results`` (``True`` or :func:`msgnorm.clear_tool_results`'s
        options), ``max_tokens`` (a token budget, :func:`msgnorm.trim_to_budget`)."""

        provider: str | None = None
        model: str | None = None
        clear_tool_results: bool | Mapping[str, Any] | None = None
        max_tokens: int | None = None

        async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
            options = _Options(
                provider=self.provider,
                model=self.model,
                clear_tool_results=self.clear_tool_results,
                max_tokens=self.max_tokens,
            )
            request_context.messages = options.repair(
                request_context.messages, request_context.model
            )
            return request_context

        @classmethod
        def get_serialization_name(cls) -> str | None:
            return None

    return MsgnormCapability


if TYPE_CHECKING:
    MsgnormCapability: type

# defined on first use: the adapter imports with pydantic-ai releases before
# capabilities
__getattr__ = _bridge.lazy_class(__name__, "MsgnormCapability", _define_capability)
