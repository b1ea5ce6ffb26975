"""Thinking across a model switch: signed thinking (and other providers'
reasoning) is bound to the model that produced it, so a history sent to another
model keeps only what that model can verify.

A record's model is its ``message.model`` (Claude Code transcripts carry it;
``from_provider(..., model=...)`` sets it for a provider's history). Thinking
of an assistant record whose model is known and differs from the target model
is dropped, or with ``foreign_thinking="text"`` kept as a text block; thinking
of a record with no known model is kept.
"""

from __future__ import annotations

import re
from typing import Any, Literal

ForeignThinking = Literal["drop", "text"]

_THINKING = ("thinking", "redacted_thinking")
# a dated snapshot names the same model as its alias: claude-sonnet-4-5-20250929
_DATE = re.compile(r"-\d{8}$")
# models Claude Code writes for records no model produced
_UNKNOWN = frozenset({"", "<synthetic>"})


def same_model(a: str, b: str) -> bool:
    """Whether two model names denote one model (a dated snapshot and its alias agree)."""
    return a == b or _DATE.sub("", a) == _DATE.sub("", b)


def _foreign(record: Any, model: str) -> bool:
    """Whether ``record`` is an assistant record a known other model produced."""
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return False
    msg = record.get("message")
    if not isinstance(msg, dict):
        return False
    made_by = msg.get("model")
    if not isinstance(made_by, str) or made_by in _UNKNOWN:
        return False
    if same_model(made_by, model):
        return False
    content = msg.get("content")
    blocks = isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") in _THINKING for b in content
    )
    return blocks or _reasoning_content(record) is not None


def _reasoning_content(record: dict[str, Any]) -> str | None:
    """OpenAI Chat / DeepSeek ``reasoning_content`` kept with the record."""
    data = record.get("provider_data")
    if isinstance(data, dict):
        text = data.get("reasoning_content")
        if isinstance(text, str):
            return text
    return None


def _as_text(block: dict[str, Any]) -> dict[str, Any] | None:
    """A thinking block's reasoning as a text block (none for redacted or blank thinking)."""
    if block.get("type") != "thinking":
        return None
    text = block.get("thinking")
    if not isinstance(text, str) or not text.strip():
        return None
    return {"type": "text", "text": text}


def switch_model(
    records: list[Any], model: str, foreign_thinking: ForeignThinking = "drop"
) -> tuple[list[Any], dict[str, int]]:
    """``records`` for ``model``: the thinking of assistant records another known
    model produced dropped (``thinking_dropped``) or, with
    ``foreign_thinking="text"``, turned into text (``thinking_as_text``; redacted
    or blank thinking is dropped). A record left empty is dropped with it.
    Changed records are fresh copies; the input is not mutated."""
    if not isinstance(model, str) or not model:
        raise ValueError(f"model: expected a model name (a non-empty str), not {model!r}")
    if foreign_thinking not in ("drop", "text"):
        raise ValueError(f"foreign_thinking: expected 'drop' or 'text', not {foreign_thinking!r}")
    counts: dict[str, int] = {}
    out: list[Any] | None = None
    for i, r in enumerate(records):
        if not _foreign(r, model):
            if out is not None:
                out.append(r)
            continue
        if out is None:
            out = list(records[:i])
        content: list[Any] = []
        r = dict(r)
        reasoning = _reasoning_content(r)
        if reasoning is not None:
            r["provider_data"] = {
                k: v for k, v in r["provider_data"].items() if k != "reasoning_content"
            }
            if foreign_thinking == "text" and reasoning.strip():
                counts["thinking_as_text"] = counts.get("thinking_as_text", 0) + 1
                content.append({"type": "text", "text": reasoning})
            else:
                counts["thinking_dropped"] = counts.get("thinking_dropped", 0) + 1
        body = r["message"].get("content")
        if isinstance(body, str):
            body = [{"type": "text", "text": body}] if body else []
        for b in body if isinstance(body, list) else []:
            if isinstance(b, dict) and b.get("type") in _THINKING:
                text = _as_text(b) if foreign_thinking == "text" else None
                if text is None:
                    counts["thinking_dropped"] = counts.get("thinking_dropped", 0) + 1
                else:
                    counts["thinking_as_text"] = counts.get("thinking_as_text", 0) + 1
                    content.append(text)
            else:
                content.append(b)
        if content:
            out.append({**r, "message": {**r["message"], "content": content}})
    return (records if out is None else out), counts


def set_model(records: list[dict[str, Any]], model: str) -> None:
    """Sets ``message.model`` on the assistant records that have none (in place:
    the records are :func:`from_provider`'s own)."""
    if not isinstance(model, str) or not model:
        raise ValueError(f"model: expected a model name (a non-empty str), not {model!r}")
    for r in records:
        if r.get("type") == "assistant":
            msg = r.get("message")
            if isinstance(msg, dict) and not msg.get("model"):
                msg["model"] = model
