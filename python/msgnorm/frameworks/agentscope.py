"""AgentScope messages (``agentscope.message.Msg`` or their dicts) in and out.

AgentScope keeps a tool call and its result in the same assistant ``Msg``
(``tool_call`` blocks with JSON ``input``, then ``tool_result`` blocks with
``output`` and a ``state``); thinking blocks carry Anthropic's ``signature`` or
``redacted_thinking_data`` as extra fields; ``data`` blocks hold media; ``hint``
blocks are notes to the model. Reading splits a ``Msg`` where its tool results
start, as AgentScope's own Anthropic formatter does; writing puts results back
into the assistant ``Msg`` that called. ``Msg`` names, ids and timestamps are not
carried (written as ``"user"`` / ``"assistant"`` / ``"system"``). Messages come
back as dicts, or as ``Msg`` objects when objects went in. The bridge is the
Anthropic Messages shape; see ``docs/PROVIDERS.md``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidRecordError
from . import _bridge

__all__ = ["from_agentscope", "normalize_agentscope", "to_agentscope"]

_FAILED = ("error", "interrupted", "denied")


def _plain(msg: Any, index: int) -> dict[str, Any]:
    return _bridge.plain(msg, index, "an AgentScope Msg", mode="json")


def _data(block: dict[str, Any]) -> dict[str, Any]:
    src = block.get("source") or {}
    media = src.get("media_type", "")
    kind = "image" if media.startswith("image/") else "document"
    if src.get("type") == "base64":
        source = {"type": "base64", "media_type": media, "data": src.get("data", "")}
    else:
        source = {"type": "url", "url": str(src.get("url", ""))}
    if kind == "document" and media not in ("application/pdf", "text/plain", ""):
        return {"type": "agentscope_data", "source": src}  # audio, video: carried as they are
    return {"type": kind, "source": source}


def _output(output: Any) -> Any:
    if isinstance(output, str) or output is None:
        return output or ""
    return [
        {"type": "text", "text": b.get("text", "")} if b.get("type") == "text" else _data(b)
        for b in output
    ]


def _to_anthropic(messages: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    out: list[dict[str, Any]] = []
    system: list[str] = []

    def flush(role: str, blocks: list[dict[str, Any]]) -> None:
        if blocks:
            out.append({"role": role, "content": blocks})

    for i, raw in enumerate(messages):
        msg = _plain(raw, i)
        role = msg.get("role")
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if role not in ("user", "assistant", "system") or not isinstance(content, list):
            raise InvalidRecordError(
                f"messages[{i}]: expected role user, assistant or system and a list of blocks",
                i,
                f"messages[{i}]",
            )
        if role == "system":
            system.append("\n".join(b.get("text", "") for b in content if b.get("type") == "text"))
            continue
        current: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for b in content:
            t = b.get("type")
            if t == "tool_result":
                flush(role, current)
                current = []
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": b.get("id", ""),
                        "content": _output(b.get("output")),
                        **({"is_error": True} if b.get("state") in _FAILED else {}),
                    }
                )
                continue
            if results:
                flush("user", results)
                results = []
            if t == "text":
                current.append({"type": "text", "text": b.get("text", "")})
            elif t == "thinking":
                if b.get("redacted_thinking_data") is not None:
                    current.append(
                        {"type": "redacted_thinking", "data": b["redacted_thinking_data"]}
                    )
                else:
                    th: dict[str, Any] = {"type": "thinking", "thinking": b.get("thinking", "")}
                    if b.get("signature"):
                        th["signature"] = b["signature"]
                    current.append(th)
            elif t == "tool_call":
                raw_input = b.get("input") or "{}"
                try:
                    parsed = json.loads(raw_input) if isinstance(raw_input, str) else raw_input
                except ValueError:
                    parsed = None
                current.append(
                    {
                        "type": "tool_use",
                        "id": b.get("id", ""),
                        "name": b.get("name", ""),
                        "input": parsed if isinstance(parsed, dict) else {"input": raw_input},
                    }
                )
            elif t == "data":
                current.append(_data(b))
            elif t == "hint":
                flush(role, current)
                current = []
                hint = b.get("hint")
                text = hint if isinstance(hint, str) else _output(hint)
                out.append({"role": "user", "content": text})
        flush(role, current)
        flush("user", results)
    return out, system


def _blocks_out(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for b in blocks:
        t = b.get("type")
        if t == "text":
            out.append({"type": "text", "text": b.get("text", "")})
        elif t == "thinking":
            th: dict[str, Any] = {"type": "thinking", "thinking": b.get("thinking", "")}
            if "signature" in b:
                th["signature"] = b["signature"]
            out.append(th)
        elif t == "redacted_thinking":
            out.append(
                {"type": "thinking", "thinking": "", "redacted_thinking_data": b.get("data")}
            )
        elif t == "tool_use":
            out.append(
                {
                    "type": "tool_call",
                    "id": b["id"],
                    "name": b["name"],
                    "input": json.dumps(b.get("input") or {}, ensure_ascii=False),
                }
            )
        elif t in ("image", "document") and isinstance(b.get("source"), dict):
            src = b["source"]
            media = src.get("media_type") or ("image/png" if t == "image" else "application/pdf")
            if src.get("type") == "base64":
                source = {"type": "base64", "data": src.get("data", ""), "media_type": media}
            else:
                source = {"type": "url", "url": src.get("url", ""), "media_type": media}
            out.append({"type": "data", "source": source})
        elif t == "agentscope_data":
            out.append({"type": "data", "source": b.get("source")})
    return out


def _from_anthropic(
    shape: dict[str, Any], names: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system = _bridge.system_text(shape)
    if system:
        out.append(
            {"name": "system", "role": "system", "content": [{"type": "text", "text": system}]}
        )
    names = dict(names or {})  # tool names by call id (those of the calls read here too)
    answered = False  # the last assistant Msg holds the results just read
    for msg in shape["messages"]:
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if msg["role"] == "assistant":
            for b in blocks:
                if b.get("type") == "tool_use":
                    names[b["id"]] = b["name"]
            if answered:  # the reply goes on in the Msg that called (AgentScope's way)
                out[-1]["content"].extend(_blocks_out(blocks))
            else:
                out.append(
                    {"name": "assistant", "role": "assistant", "content": _blocks_out(blocks)}
                )
            answered = False
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        caller = out[-1] if out and out[-1]["role"] == "assistant" else None
        for b in results:
            inner = b.get("content", "")
            block = {
                "type": "tool_result",
                "id": b["tool_use_id"],
                "name": names.get(b["tool_use_id"], ""),
                "output": inner if isinstance(inner, str) else _blocks_out(inner),
                "state": "error" if b.get("is_error") else "success",
            }
            if caller is None:
                caller = {"name": "assistant", "role": "assistant", "content": []}
                out.append(caller)
            caller["content"].append(block)
        rest = [b for b in blocks if b.get("type") != "tool_result"]
        answered = bool(results) and not rest
        if rest:
            out.append({"name": "user", "role": "user", "content": _blocks_out(rest)})
    return out


def _as_objects(out: list[dict[str, Any]]) -> list[Any]:
    from agentscope.message import Msg  # type: ignore[import-not-found,unused-ignore]

    return [Msg.model_validate(m) for m in out]


def from_agentscope(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """AgentScope messages as msgnorm records."""
    anthropic, system = _to_anthropic(messages)
    return _bridge.from_anthropic(anthropic, system)


def to_agentscope(records: Any, *, normalize: bool = True, objects: bool = False) -> list[Any]:
    """msgnorm records as AgentScope ``Msg`` dicts (objects with ``objects=True``),
    after ``normalize_for_api`` and the Anthropic rules."""
    return _bridge.to_dicts(
        records, _from_anthropic, _as_objects, normalize=normalize, objects=objects
    )


def normalize_agentscope(messages: Sequence[Any], **options: Any) -> list[Any]:
    """AgentScope messages in, the repaired history out, in the kind that went in
    (the Anthropic rules of ``normalize_for_api``). A message no repair touched is
    the input's own object; a repaired or made one is written from its repaired
    blocks. ``options``: ``provider``, ``model``, ``clear_tool_results``,
    ``max_tokens``."""
    return _bridge.lossless_dicts(
        messages, _to_anthropic, _from_anthropic, _as_objects, results_in_caller=True, **options
    )
