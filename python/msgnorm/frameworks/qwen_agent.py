"""Qwen-Agent messages (``qwen_agent.llm.schema.Message`` or its dicts) in and out.

Qwen-Agent writes one assistant message per function call (``function_call`` with
JSON ``arguments``, the call id in ``extra["function_id"]``), answers with
``function`` messages, and keeps reasoning in ``reasoning_content``. Consecutive
assistant messages are one turn (as Qwen-Agent's own OpenAI conversion reads
them); a call without an id gets one derived from its position, and a
``function`` message without an id answers the oldest open call of its name.
Messages come back as dicts, or as ``Message`` objects when objects went in. The
bridge is the Anthropic Messages shape; see ``docs/PROVIDERS.md``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidRecordError
from . import _bridge

__all__ = ["from_qwen_agent", "normalize_qwen_agent", "to_qwen_agent"]


def _plain(msg: Any, index: int) -> dict[str, Any]:
    return _bridge.plain(msg, index, "a Qwen-Agent Message")


def _items(content: Any, index: int) -> Any:
    """``content`` (a str or ContentItems) as Anthropic content."""
    if isinstance(content, str) or content is None:
        return content or ""
    blocks: list[dict[str, Any]] = []
    for j, item in enumerate(content):
        item = item if isinstance(item, dict) else item.model_dump()
        kinds = [k for k in ("text", "image", "file", "audio", "video") if item.get(k) is not None]
        if len(kinds) != 1:
            raise InvalidRecordError(
                f"messages[{index}].content[{j}]: a ContentItem holds exactly one of "
                "text, image, file, audio, video",
                index,
                f"messages[{index}].content[{j}]",
            )
        kind = kinds[0]
        value = item[kind]
        if kind == "text":
            blocks.append({"type": "text", "text": value})
        elif kind in ("image", "file") and isinstance(value, str):
            block_type = "image" if kind == "image" else "document"
            if value.startswith("data:") and ";base64," in value:
                media, data = value[5:].split(";base64,", 1)
                src = {"type": "base64", "media_type": media, "data": data}
            else:
                src = {"type": "url", "url": value}
            blocks.append({"type": block_type, "source": src})
        else:  # audio, video: carried as they are
            blocks.append({"type": f"qwen_{kind}", kind: value})
    return blocks


def _to_anthropic(messages: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    out: list[dict[str, Any]] = []
    system: list[str] = []
    open_calls: list[tuple[str, str]] = []  # (id, name), oldest first
    calls = 0
    for i, raw in enumerate(messages):
        msg = _plain(raw, i)
        role = msg.get("role")
        extra = msg.get("extra") or {}
        if role == "system":
            content = _items(msg.get("content"), i)
            system.append(
                content
                if isinstance(content, str)
                else "\n".join(b.get("text", "") for b in content if b["type"] == "text")
            )
        elif role == "user":
            out.append({"role": "user", "content": _items(msg.get("content"), i)})
        elif role == "assistant":
            if not out or out[-1]["role"] != "assistant":
                out.append({"role": "assistant", "content": []})
            blocks = out[-1]["content"]
            reasoning = msg.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                blocks.append({"type": "thinking", "thinking": reasoning})
            content = _items(msg.get("content"), i)
            if isinstance(content, str):
                if content:
                    blocks.append({"type": "text", "text": content})
            else:
                blocks.extend(content)
            call = msg.get("function_call")
            if call:
                calls += 1
                call_id = extra.get("function_id") or f"call_{calls}"
                args = call.get("arguments") or "{}"
                try:
                    parsed = json.loads(args)
                except ValueError:
                    parsed = None
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": call.get("name", ""),
                        "input": parsed if isinstance(parsed, dict) else {"arguments": args},
                    }
                )
                open_calls.append((call_id, call.get("name", "")))
        elif role == "function":
            call_id = extra.get("function_id")
            if not call_id:
                name = msg.get("name")
                match = next((c for c in open_calls if c[1] == name), None)
                call_id = match[0] if match else f"unanswered_{i}"
            open_calls = [c for c in open_calls if c[0] != call_id]
            content = _items(msg.get("content"), i)
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": call_id, "content": content}
                    ],
                }
            )
        else:
            raise InvalidRecordError(
                f"messages[{i}].role: expected system, user, assistant or function, not {role!r}",
                i,
                f"messages[{i}].role",
            )
    return out, system


def _content_items(blocks: list[dict[str, Any]]) -> Any:
    items: list[dict[str, Any]] = []
    for b in blocks:
        t = b.get("type")
        if t == "text":
            items.append({"text": b.get("text", "")})
        elif t in ("image", "document") and isinstance(b.get("source"), dict):
            src = b["source"]
            value = (
                f"data:{src.get('media_type', '')};base64,{src.get('data', '')}"
                if src.get("type") == "base64"
                else src.get("url", "")
            )
            items.append({"image" if t == "image" else "file": value})
        elif isinstance(t, str) and t.startswith("qwen_"):
            kind = t[5:]
            items.append({kind: b.get(kind)})
    if len(items) == 1 and "text" in items[0]:
        return items[0]["text"]
    return items


def _from_anthropic(
    shape: dict[str, Any], names: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system = _bridge.system_text(shape)
    if system:
        out.append({"role": "system", "content": system})
    names = dict(names or {})  # tool names by call id (those of the calls read here too)
    for msg in shape["messages"]:
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if msg["role"] == "assistant":
            reasoning = "".join(
                b.get("thinking", "") for b in blocks if b.get("type") == "thinking"
            )
            shown = [
                b
                for b in blocks
                if b.get("type") not in ("thinking", "redacted_thinking", "tool_use")
            ]
            first: dict[str, Any] = {
                "role": "assistant",
                "content": _content_items(shown) if shown else "",
            }
            if reasoning:
                first["reasoning_content"] = reasoning
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            if shown or reasoning or not uses:
                out.append(first)
            for b in uses:
                names[b["id"]] = b["name"]
                out.append(
                    {
                        "role": "assistant",
                        "content": "",
                        "function_call": {
                            "name": b["name"],
                            "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False),
                        },
                        "extra": {"function_id": b["id"]},
                    }
                )
            continue
        rest = []
        for b in blocks:
            if b.get("type") == "tool_result":
                inner = b.get("content", "")
                out.append(
                    {
                        "role": "function",
                        "name": names.get(b["tool_use_id"], ""),
                        "content": inner if isinstance(inner, str) else _content_items(inner),
                        "extra": {"function_id": b["tool_use_id"]},
                    }
                )
            else:
                rest.append(b)
        if rest:
            out.append({"role": "user", "content": _content_items(rest)})
    return out


def _as_objects(out: list[dict[str, Any]]) -> list[Any]:
    from qwen_agent.llm.schema import Message  # type: ignore[import-not-found,unused-ignore]

    return [Message(**m) for m in out]


def from_qwen_agent(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Qwen-Agent messages as msgnorm records."""
    anthropic, system = _to_anthropic(messages)
    return _bridge.from_anthropic(anthropic, system)


def to_qwen_agent(records: Any, *, normalize: bool = True, objects: bool = False) -> list[Any]:
    """msgnorm records as Qwen-Agent message dicts (``Message`` objects with
    ``objects=True``), after ``normalize_for_api`` and the Anthropic rules."""
    return _bridge.to_dicts(
        records, _from_anthropic, _as_objects, normalize=normalize, objects=objects
    )


def normalize_qwen_agent(messages: Sequence[Any], **options: Any) -> list[Any]:
    """Qwen-Agent messages in, the repaired history out, in the kind that went in
    (the Anthropic rules of ``normalize_for_api``). A message no repair touched is
    the input's own object; a repaired or made one is written from its repaired
    blocks. ``options``: ``provider``, ``model``, ``clear_tool_results``,
    ``max_tokens``."""

    def without_id(msg: Any) -> bool:
        # a call or result with no function_id: the reader gave it one
        plain = msg if isinstance(msg, dict) else _plain(msg, 0)
        called = plain.get("function_call") or plain.get("role") == "function"
        return bool(called) and not (plain.get("extra") or {}).get("function_id")

    return _bridge.lossless_dicts(
        messages, _to_anthropic, _from_anthropic, _as_objects, rewrite=without_id, **options
    )
