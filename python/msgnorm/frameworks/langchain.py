"""LangChain (``langchain-core`` 1.x) messages in and out.

Reading goes through LangChain's own ``content_blocks`` (its translation of every
provider's content into standard blocks), so an ``AIMessage`` from any chat model
integration is read the same way. Writing gives ``SystemMessage`` /
``HumanMessage`` / ``AIMessage`` (standard content blocks, ``tool_calls``) /
``ToolMessage``. The bridge is the Anthropic Messages shape, which carries
everything msgnorm normalizes (signed and redacted thinking included); see
``docs/PROVIDERS.md``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRecordError
from . import _bridge

__all__ = [
    "MsgnormMiddleware",
    "from_langchain",
    "normalize_langchain",
    "repair_langchain",
    "to_langchain",
]


def _lc() -> Any:
    return _bridge.need("langchain_core.messages", "LangChain", "langchain-core", "langchain")


def _media_source(block: dict[str, Any]) -> dict[str, Any] | None:
    """An Anthropic ``source`` for a standard image/file block."""
    mime = block.get("mime_type")
    if block.get("base64") is not None:
        return {"type": "base64", "media_type": mime or "", "data": block["base64"]}
    url = block.get("url")
    if isinstance(url, str):
        if url.startswith("data:") and ";base64," in url:
            head, data = url[5:].split(";base64,", 1)
            return {"type": "base64", "media_type": head, "data": data}
        return {"type": "url", "url": url}
    if block.get("file_id") is not None:
        return {"type": "file", "file_id": block["file_id"]}
    return None


def _to_anthropic_block(block: dict[str, Any]) -> dict[str, Any]:
    """One standard content block as an Anthropic block (others pass through)."""
    t = block.get("type")
    if t == "text":
        return {"type": "text", "text": block.get("text", "")}
    if t == "reasoning":
        extras = block.get("extras") or {}
        out: dict[str, Any] = {"type": "thinking", "thinking": block.get("reasoning", "")}
        if "signature" in extras:
            out["signature"] = extras["signature"]
        return out
    if t == "tool_call":
        return {
            "type": "tool_use",
            "id": block.get("id") or "",
            "name": block.get("name", ""),
            "input": block.get("args") or {},
        }
    if t == "non_standard" and isinstance(block.get("value"), dict):
        return dict(block["value"])  # a provider block LangChain has no type for
    if t in ("image", "file", "text-plain"):
        kind = "image" if t == "image" else "document"
        if t == "text-plain" and isinstance(block.get("text"), str):
            src: dict[str, Any] | None = {
                "type": "text",
                "media_type": "text/plain",
                "data": block["text"],
            }
        else:
            src = _media_source(block)
        if src is not None:
            return {"type": kind, "source": src}
    return dict(block)  # audio, video, server tool blocks: carried as they are


def _tool_result(msg: Any, index: int) -> dict[str, Any]:
    call_id = getattr(msg, "tool_call_id", None)
    if not isinstance(call_id, str):
        raise InvalidRecordError(
            f"messages[{index}].tool_call_id: a ToolMessage needs its tool_call_id",
            index,
            f"messages[{index}].tool_call_id",
        )
    content: Any
    if isinstance(msg.content, str):
        content = msg.content
    else:
        content = [_to_anthropic_block(b) for b in msg.content_blocks]
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if getattr(msg, "status", "success") == "error":
        out["is_error"] = True
    return out


def _to_anthropic(
    messages: Sequence[Any], owners: list[int] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """LangChain messages as Anthropic ``messages`` and the system prompts;
    ``owners`` gets the index of the message each Anthropic message came from."""
    m = _lc()
    out: list[dict[str, Any]] = []
    system: list[str] = []
    for i, msg in enumerate(messages):
        if owners is not None:  # what the message before added
            owners.extend([i - 1] * (len(out) - len(owners)))
        if isinstance(msg, m.SystemMessage):
            system.append(msg.text)
        elif isinstance(msg, m.ToolMessage):
            out.append({"role": "user", "content": [_tool_result(msg, i)]})
        elif isinstance(msg, m.AIMessage):
            blocks = [_to_anthropic_block(b) for b in msg.content_blocks]
            have = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
            for call in msg.tool_calls:  # calls not already in the content
                if call.get("id") not in have:
                    blocks.append(_to_anthropic_block({**call, "type": "tool_call"}))
            if isinstance(msg.content, str) and len(blocks) == 1 and blocks[0]["type"] == "text":
                content: Any = msg.content
            else:
                content = blocks
            entry: dict[str, Any] = {"role": "assistant", "content": content}
            if msg.id:
                entry["id"] = msg.id
            out.append(entry)
        elif isinstance(msg, (m.HumanMessage, m.ChatMessage)):
            if isinstance(msg.content, str):
                out.append({"role": "user", "content": msg.content})
            else:
                blocks = [_to_anthropic_block(b) for b in msg.content_blocks]
                out.append({"role": "user", "content": blocks})
        else:
            raise InvalidRecordError(
                f"messages[{i}]: expected a LangChain message, not {type(msg).__name__}",
                i,
                f"messages[{i}]",
            )
    if owners is not None:
        owners.extend([len(messages) - 1] * (len(out) - len(owners)))
    return out, system


def _from_anthropic_block(block: dict[str, Any]) -> dict[str, Any]:
    """One Anthropic block as a standard content block."""
    t = block.get("type")
    if t == "text":
        return {"type": "text", "text": block.get("text", "")}
    if t == "thinking":
        out: dict[str, Any] = {"type": "reasoning", "reasoning": block.get("thinking", "")}
        if "signature" in block:
            out["extras"] = {"signature": block["signature"]}
        return out
    if t in ("image", "document") and isinstance(block.get("source"), dict):
        src = block["source"]
        kind = "image" if t == "image" else "file"
        if src.get("type") == "base64":
            return {"type": kind, "base64": src.get("data"), "mime_type": src.get("media_type")}
        if src.get("type") == "url":
            return {"type": kind, "url": src.get("url")}
        if src.get("type") == "file":
            return {"type": kind, "file_id": src.get("file_id")}
        if src.get("type") == "text":
            return {"type": "text-plain", "text": src.get("data"), "mime_type": "text/plain"}
    if t in ("audio", "video", "file", "text-plain"):
        return dict(block)  # a standard block carried through
    return {"type": "non_standard", "value": dict(block)}


def _from_anthropic(shape: dict[str, Any]) -> list[Any]:
    m = _lc()
    out: list[Any] = []
    system = _bridge.system_text(shape)
    if system:
        out.append(m.SystemMessage(content=system))
    for msg in shape["messages"]:
        content = msg["content"]
        if msg["role"] == "assistant":
            if isinstance(content, str):
                out.append(m.AIMessage(content=content, id=msg.get("id")))
                continue
            calls = [
                {"type": "tool_call", "id": b["id"], "name": b["name"], "args": b.get("input")}
                for b in content
                if b.get("type") == "tool_use"
            ]
            rest = [_from_anthropic_block(b) for b in content if b.get("type") != "tool_use"]
            text: Any = rest
            if not rest:
                text = ""
            elif len(rest) == 1 and rest[0]["type"] == "text":
                text = rest[0]["text"]  # LangChain's usual plain string
            out.append(m.AIMessage(content=text, tool_calls=calls, id=msg.get("id")))
            continue
        if isinstance(content, str):
            out.append(m.HumanMessage(content=content))
            continue
        others = []
        for b in content:
            if b.get("type") == "tool_result":
                inner = b.get("content", "")
                body = (
                    inner
                    if isinstance(inner, str)
                    else [_from_anthropic_block(x) for x in inner or []]
                )
                out.append(
                    m.ToolMessage(
                        content=body,
                        tool_call_id=b["tool_use_id"],
                        status="error" if b.get("is_error") else "success",
                    )
                )
            else:
                others.append(_from_anthropic_block(b))
        if len(others) == 1 and others[0]["type"] == "text":
            out.append(m.HumanMessage(content=others[0]["text"]))
        elif others:
            out.append(m.HumanMessage(content=others))
    return out


def from_langchain(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """LangChain messages as msgnorm records (system messages become ``system_prompt``
    records, each ``ToolMessage`` a user record with its ``tool_result``)."""
    anthropic, system = _to_anthropic(messages)
    return _bridge.from_anthropic(anthropic, system)


def to_langchain(records: Any, *, normalize: bool = True) -> list[Any]:
    """msgnorm records as LangChain messages, after ``normalize_for_api`` and the
    Anthropic rules (ids, alternation); ``normalize=False`` for records that are
    already ``normalize_for_api``'s output."""
    return _from_anthropic(_bridge.to_anthropic(records, normalize=normalize))


def _made_by(msg: Any) -> str | None:
    meta = getattr(msg, "response_metadata", None) or {}
    name = meta.get("model_name") or meta.get("model")
    return name if isinstance(name, str) else None


def _units(
    messages: Sequence[Any],
) -> tuple[list[_bridge.Unit], list[dict[str, Any]], list[str], list[int]]:
    owners: list[int] = []
    shape, system = _to_anthropic(messages, owners)
    units = [_bridge.Unit(None, [], []) for _ in messages]
    for msg, i in zip(shape, owners, strict=True):
        blocks = _bridge.blocks_of(msg["content"])
        units[i] = _bridge.Unit(msg["role"], blocks, list(range(len(blocks))))
    return units, shape, system, owners


def _made(role: str, blocks: list[dict[str, Any]], names: dict[str, str]) -> list[Any]:
    """New LangChain messages for blocks the repair made."""
    made = _from_anthropic({"messages": [{"role": role, "content": blocks}]})
    m = _lc()
    return [
        x.model_copy(update={"name": names[x.tool_call_id]})
        if isinstance(x, m.ToolMessage) and x.tool_call_id in names
        else x
        for x in made
    ]


def _rebuilt(
    orig: Any, role: str, blocks: list[dict[str, Any]], names: dict[str, str]
) -> list[Any]:
    """``orig`` with the blocks the repair gave it, every other field kept."""
    m = _lc()
    new = _made(role, blocks, names)
    if len(new) != 1 or type(new[0]) is not type(orig):
        return new
    made = new[0]
    update: dict[str, Any] = {"content": made.content}
    if isinstance(orig, m.AIMessage):
        update["tool_calls"] = made.tool_calls
    elif isinstance(orig, m.ToolMessage):
        update["tool_call_id"] = made.tool_call_id
        update["status"] = made.status
    return [orig.model_copy(update=update)]


def repair_langchain(
    messages: Sequence[Any],
    *,
    provider: str | None = None,
    model: str | None = None,
    clear_tool_results: Any = None,
    max_tokens: int | None = None,
) -> list[Any]:
    """LangChain messages repaired for ``provider`` (``"anthropic"``,
    ``"openai-chat"``, ... or ``None`` for the rules every provider shares) and
    ``model``, keeping everything LangChain keeps: a message no repair touched is
    the input's own object (ids, metadata, usage, names, content form); a repaired
    one is a copy with only its content, tool calls or tool call id changed."""
    units, shape, system, owners = _units(messages)
    made_by = [_made_by(messages[i]) for i in owners]
    return _bridge.repaired(
        messages,
        units,
        (shape, system),
        made_by,
        lambda i, role, items, names: _rebuilt(messages[i], role, [b for _, b, _ in items], names),
        lambda role, items, names: _made(role, [b for _, b, _ in items], names),
        provider=provider,
        model=model,
        clear_tool_results=clear_tool_results,
        max_tokens=max_tokens,
    )


def normalize_langchain(messages: Sequence[Any], **options: Any) -> list[Any]:
    """LangChain messages in, the repaired history out, as LangChain messages: the
    repairs of ``normalize_for_api`` with the Anthropic rules. A message no repair
    touched is the input's own object; a repaired one keeps every other field
    (:func:`repair_langchain`). ``options`` are ``repair_langchain``'s."""
    options.setdefault("provider", "anthropic")
    return repair_langchain(messages, **options)


class _Options(_bridge.HookOptions):
    """The hook's options, applied to a LangChain model call."""

    def repair(self, messages: Sequence[Any], model: Any) -> list[Any]:
        provider, name = self.target(lambda: _bridge.provider_of(model))
        return repair_langchain(messages, provider=provider, model=name, **self.edits())


def _define_middleware() -> type:
    middleware = _bridge.need(
        "langchain.agents.middleware", "LangChain middleware", "langchain", "langchain"
    )

    class MsgnormMiddleware(middleware.AgentMiddleware):  # type: ignore[misc, name-defined]
        """msgnorm's repairs before every model call of a LangChain agent
        (``create_agent(model, tools, middleware=[MsgnormMiddleware()])``).

        The messages sent to the model are repaired for the provider of the model
        in use (read from its class and name; a test or fake model gets the repairs
        every provider needs); the agent's state is not changed. Options:
        ``provider`` and ``model`` (the target), ``clear_tool_results`` (``True``
        or :func:`msgnorm.clear_tool_results`'s options), ``max_tokens`` (a token
        budget, :func:`msgnorm.trim_to_budget`)."""

        def __init__(
            self,
            *,
            provider: str | None = None,
            model: str | None = None,
            clear_tool_results: bool | Mapping[str, Any] | None = None,
            max_tokens: int | None = None,
        ) -> None:
            super().__init__()
            self.options = _Options(
                provider=provider,
                model=model,
                clear_tool_results=clear_tool_results,
                max_tokens=max_tokens,
            )

        def _request(self, request: Any) -> Any:
            messages = self.options.repair(request.messages, request.model)
            return request.override(messages=messages)

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return handler(self._request(request))

        async def awrap_model_call(
            self, request: Any, handler: Callable[[Any], Awaitable[Any]]
        ) -> Any:
            return await handler(self._request(request))

    return MsgnormMiddleware


if TYPE_CHECKING:
    MsgnormMiddleware: type

# the middleware class is defined on first use: the module imports with
# langchain-core alone
__getattr__ = _bridge.lazy_class(__name__, "MsgnormMiddleware", _define_middleware)
