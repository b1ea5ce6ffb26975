"""LangChain v1 messages in and out (``source="langchain"``, ``target="langchain"``).

Imported only when used; needs ``langchain-core``. Messages are read through their
standard content blocks (``message.content_blocks``) and become Anthropic-shaped
msgnorm records; the Rust core does the rest (``from_provider(..., "anthropic")``,
``normalize_for_api``, the Anthropic adapter's rules), and the output is made of
LangChain message objects again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _native
from .errors import InvalidRecordError
from .model import _gc_paused

__all__ = ["from_langchain", "to_langchain"]


def _err(i: int, path: str, msg: str) -> InvalidRecordError:
    return InvalidRecordError(f"messages[{i}]{path}: {msg}", i, f"messages[{i}]{path}")


def _block_in(b: Any, calls: set[Any]) -> dict[str, Any] | None:
    """A standard content block as an Anthropic-shaped block (``None``: skip it)."""
    t = b.get("type")
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "reasoning":
        extras = b.get("extras") or {}
        return {
            "type": "thinking",
            "thinking": b.get("reasoning", ""),
            "signature": extras.get("signature", ""),
        }
    if t in ("image", "file"):
        kind = "image" if t == "image" else "document"
        if b.get("base64") is not None:
            media = b.get("mime_type") or ("image/png" if t == "image" else "application/pdf")
            return {
                "type": kind,
                "source": {"type": "base64", "media_type": media, "data": b["base64"]},
            }
        if b.get("url") is not None:
            return {"type": kind, "source": {"type": "url", "url": b["url"]}}
    if t == "non_standard":
        value = b.get("value")
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            if value["type"] == "tool_use" and value.get("id") in calls:
                return None  # the same call is in tool_calls
            return value
    if t == "tool_call":
        return None  # read from message.tool_calls
    return {"type": "provider_part", "provider": "langchain", "part": b}


def from_langchain(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """LangChain messages → msgnorm records (system messages → system_prompt records)."""
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )

    out: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    single_str = sum(isinstance(m, SystemMessage) for m in messages) == 1
    for i, m in enumerate(messages):
        if isinstance(m, SystemMessage):
            single_str = single_str and isinstance(m.content, str)
            if isinstance(m.content, str):
                system.append({"type": "text", "text": m.content})
            else:
                system.extend(
                    {"type": "text", "text": b.get("text", "")}
                    for b in m.content_blocks
                    if b.get("type") == "text"
                )
            continue
        if isinstance(m, ToolMessage):
            content: Any = m.content
            if not isinstance(content, str):
                content = [
                    x for x in (_block_in(b, set()) for b in m.content_blocks) if x is not None
                ]
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id,
                "content": content,
            }
            if m.status == "error":
                block["is_error"] = True
            out.append({"role": "user", "content": [block]})
        elif isinstance(m, HumanMessage):
            if isinstance(m.content, str):
                out.append({"role": "user", "content": m.content})
            else:
                blocks = [_block_in(b, set()) for b in m.content_blocks]
                out.append({"role": "user", "content": [b for b in blocks if b is not None]})
        elif isinstance(m, AIMessage):
            calls = {c["id"] for c in m.tool_calls if c.get("id")}
            blocks = [_block_in(b, calls) for b in m.content_blocks]
            content = [b for b in blocks if b is not None]
            for c in m.tool_calls:
                if not c.get("id"):
                    raise _err(i, ".tool_calls", "a tool call needs an id")
                content.append(
                    {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]}
                )
            out.append({"role": "assistant", "content": content})
        else:
            raise _err(
                i,
                "",
                f"expected a LangChain SystemMessage, HumanMessage, AIMessage or ToolMessage, "
                f"not {type(m).__name__}",
            )
    sys_param: Any = system or None
    if single_str and len(system) == 1:
        sys_param = system[0]["text"]
    with _gc_paused():
        return _native.from_provider(out, "anthropic", sys_param)


def _block_out(b: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic-shaped block as a LangChain standard content block."""
    t = b.get("type")
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "thinking":
        return {
            "type": "reasoning",
            "reasoning": b.get("thinking", ""),
            "extras": {"signature": b.get("signature", "")},
        }
    if t in ("image", "document"):
        src = b.get("source") or {}
        kind = "image" if t == "image" else "file"
        if src.get("type") == "base64":
            return {"type": kind, "base64": src.get("data"), "mime_type": src.get("media_type")}
        if src.get("type") == "url":
            return {"type": kind, "url": src.get("url")}
        if src.get("type") == "text":
            return {"type": "text", "text": src.get("data", "")}
    return {"type": "non_standard", "value": b}


def to_langchain(records: Any, *, system: Any = None, normalize: bool = True) -> list[Any]:
    """Records → normalize_for_api → LangChain messages (a ``SystemMessage`` first
    when the history has a system prompt)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    from .providers import to_provider

    req = to_provider(records, "anthropic", system=system, normalize=normalize)
    out: list[Any] = []
    sys_content = req.get("system")
    if isinstance(sys_content, str):
        out.append(SystemMessage(content=sys_content))
    elif sys_content:
        out.append(SystemMessage(content=[_block_out(b) for b in sys_content]))
    for m in req["messages"]:
        content = m["content"]
        if m["role"] == "user":
            if isinstance(content, str):
                out.append(HumanMessage(content=content))
                continue
            rest: list[Any] = []
            for b in content:
                if b.get("type") == "tool_result":
                    c = b.get("content")
                    out.append(
                        ToolMessage(
                            content=c if isinstance(c, str) else [_block_out(x) for x in c or []],
                            tool_call_id=b["tool_use_id"],
                            status="error" if b.get("is_error") else "success",
                        )
                    )
                else:
                    rest.append(_block_out(b))
            if len(rest) == 1 and rest[0]["type"] == "text":
                out.append(HumanMessage(content=rest[0]["text"]))
            elif rest:
                out.append(HumanMessage(content=rest))
        else:
            calls = [
                {"name": b["name"], "args": b["input"], "id": b["id"], "type": "tool_call"}
                for b in content
                if isinstance(b, dict) and b.get("type") == "tool_use"
            ]
            blocks = [
                _block_out(b)
                for b in content
                if not (isinstance(b, dict) and b.get("type") == "tool_use")
            ]
            body: Any = blocks
            if len(blocks) == 1 and blocks[0]["type"] == "text":
                body = blocks[0]["text"]
            elif not blocks:
                body = ""
            out.append(AIMessage(content=body, tool_calls=calls))
    return out
