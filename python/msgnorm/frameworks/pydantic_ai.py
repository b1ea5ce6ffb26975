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
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidRecordError
from . import _bridge

__all__ = ["from_pydantic_ai", "normalize_pydantic_ai", "to_pydantic_ai"]

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


def _to_anthropic(messages: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    m = _m()
    out: list[dict[str, Any]] = []
    system: list[str] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, m.ModelRequest):
            if msg.instructions:
                system.append(msg.instructions)
            results: list[dict[str, Any]] = []
            prompt: list[dict[str, Any]] = []
            for j, part in enumerate(msg.parts):
                if isinstance(part, m.SystemPromptPart):
                    system.append(part.content)
                elif isinstance(part, m.UserPromptPart):
                    if isinstance(part.content, str):
                        prompt.append({"type": "text", "text": part.content})
                    else:
                        try:
                            prompt.extend(_user_content(x, m) for x in part.content)
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
                    results.append(block)
                elif isinstance(part, m.RetryPromptPart):
                    text = part.model_response()
                    if part.tool_name is not None:
                        results.append(
                            {
                                "type": "tool_result",
                                "tool_use_id": part.tool_call_id,
                                "content": text,
                                "is_error": True,
                            }
                        )
                    else:
                        prompt.append({"type": "text", "text": text})
            content = results + prompt
            if content:
                plain = not results and len(prompt) == 1 and prompt[0]["type"] == "text"
                out.append({"role": "user", "content": prompt[0]["text"] if plain else content})
        elif isinstance(msg, m.ModelResponse):
            blocks: list[dict[str, Any]] = []
            for part in msg.parts:
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


def _from_anthropic(shape: dict[str, Any]) -> list[Any]:
    m = _m()
    out: list[Any] = []
    system = shape.get("system")
    prompts: list[Any] = []
    if isinstance(system, str) and system:
        prompts = [m.SystemPromptPart(content=system)]
    elif isinstance(system, list):
        prompts = [m.SystemPromptPart(content=b.get("text", "")) for b in system]
    names: dict[str, str] = {}
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


def normalize_pydantic_ai(messages: Sequence[Any], **options: Any) -> list[Any]:
    """pydantic-ai messages in, the repaired history out (``message_history=`` takes it)."""
    anthropic, system = _to_anthropic(messages)
    return _from_anthropic(_bridge.convert_anthropic(anthropic, system, **options))
