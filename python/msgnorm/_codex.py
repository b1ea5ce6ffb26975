"""Codex rollouts (``rollout-….jsonl``) for :func:`msgnorm.session_usage` and
:func:`msgnorm.list_sessions`: their usage and what each file is.

A rollout's ``event_msg`` ``token_count`` lines carry the session's cumulative
usage (``info.total_token_usage``): its last one is the session's usage. Each
rise of the total is counted as one request at that line's time and the model
of the last ``turn_context`` before it, so that the usage can be grouped by
day, model, session and project (the ``session_meta`` ``cwd``) and kept in a
``since``/``until`` range. OpenAI's input count includes the cached tokens:
``input_tokens`` is the input not read from the cache, and
``cache_read_input_tokens`` the cached part.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

_COUNTED = (b'"token_count"', b'"turn_context"', b'"session_meta"')
_HEAD = 64 * 1024


def is_rollout(path: Path) -> bool:
    """Whether ``path`` is a Codex rollout file (Codex names them ``rollout-<time>-<id>.jsonl``)."""
    return path.name.startswith("rollout-") and path.suffix == ".jsonl"


def _lines(data: bytes) -> tuple[list[dict[str, Any]], int]:
    """The rollout lines usage reads (the others are not decoded), and the
    number of token count lines that could not be read (skipped, counted)."""
    out = []
    skipped = 0
    for line in data.splitlines():
        if not any(k in line for k in _COUNTED):
            continue
        try:
            row = msgspec.json.decode(line)
        except msgspec.DecodeError:
            skipped += b'"token_count"' in line
            continue
        if isinstance(row, dict) and isinstance(row.get("payload"), dict):
            out.append(row)
    return out, skipped


def _count(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


#: The counts of a usage total, as the usage scan gives them (with ``server_tool_use``).
COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_read_input_tokens",
    "requests",
)


def _empty() -> dict[str, Any]:
    return {**dict.fromkeys(COUNTS, 0), "server_tool_use": {}}


def _aggregate(totals: dict[str, Any], model: str) -> dict[str, Any]:
    """One request's totals as the aggregate the usage scan gives."""
    return {
        "total": totals,
        "models": {model: dict(totals, server_tool_use={})},
        "subagents": _empty(),
        "subagent_models": {},
    }


def rollout_requests(path: Path) -> tuple[str, str, list[tuple[str, dict[str, Any]]], int]:
    """``(session id, cwd, [(timestamp, aggregate), ...], lines skipped)``: each
    rise of the cumulative token count as one request."""
    session, cwd, model = path.stem, "", "unknown"
    before = (0, 0, 0)
    out: list[tuple[str, dict[str, Any]]] = []
    rows, skipped = _lines(path.read_bytes())
    for row in rows:
        kind, payload = row.get("type"), row["payload"]
        if kind == "session_meta":
            if isinstance(payload.get("id"), str):
                session = payload["id"]
            if isinstance(payload.get("cwd"), str):
                cwd = payload["cwd"]
        elif kind == "turn_context" and isinstance(payload.get("model"), str):
            model = payload["model"]
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else None
            if not isinstance(total, dict):
                continue
            now = (
                _count(total.get("input_tokens")),
                _count(total.get("cached_input_tokens")),
                _count(total.get("output_tokens")),
            )
            if now == before:
                continue  # a repeat of the last count: no new request
            if any(a < b for a, b in zip(now, before, strict=True)):
                before = (0, 0, 0)  # the count started again
            fresh, cached, output = (a - b for a, b in zip(now, before, strict=True))
            before = now
            totals = _empty()
            totals["input_tokens"] = max(fresh - cached, 0)
            totals["cache_read_input_tokens"] = min(cached, fresh)
            totals["output_tokens"] = output
            totals["requests"] = 1
            ts = row.get("timestamp")
            out.append((ts if isinstance(ts, str) else "", _aggregate(totals, model)))
    return session, cwd, out, skipped


def rollout_info(path: Path) -> dict[str, Any]:
    """What :func:`msgnorm.list_sessions` shows of a rollout, from its first
    and last 64 KiB, in the shape the native listing gives."""
    st = path.stat()
    with open(path, "rb") as f:
        head = f.read(_HEAD)
        f.seek(max(st.st_size - _HEAD, len(head)))
        tail = f.read()
    info: dict[str, Any] = {
        "session_id": None,
        "custom_title": None,
        "summary": None,
        "first_prompt": None,
        "created": None,
        "last_timestamp": None,
        "mtime": st.st_mtime,
        "size": st.st_size,
        "cwd": None,
        "git_branch": None,
        "model": None,
    }
    # a line cut at the edge of the head or the tail does not decode: skipped
    for part, is_head in ((head, True), (tail, False)):
        for line in part.splitlines():
            try:
                row = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue
            if not isinstance(row, dict) or not isinstance(row.get("payload"), dict):
                continue
            payload, ts = row["payload"], row.get("timestamp")
            if isinstance(ts, str):
                if is_head and info["created"] is None:
                    info["created"] = ts
                info["last_timestamp"] = ts
            kind = row.get("type")
            if kind == "session_meta":
                info["session_id"] = (
                    payload.get("id") if isinstance(payload.get("id"), str) else None
                )
                info["cwd"] = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
                git = payload.get("git")
                branch = git.get("branch") if isinstance(git, dict) else None
                info["git_branch"] = branch if isinstance(branch, str) else None
            elif kind == "turn_context" and isinstance(payload.get("model"), str):
                info["model"] = payload["model"]
            elif kind == "event_msg" and payload.get("type") == "user_message":
                text = payload.get("message")
                if is_head and info["first_prompt"] is None and isinstance(text, str):
                    first = " ".join(text.split())
                    info["first_prompt"] = first[:200] or None
    return info


def split_rollouts(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """``(Claude Code files, Codex rollouts)`` of ``paths``, each in its order."""
    rollouts = [p for p in paths if is_rollout(p)]
    if not rollouts:
        return paths, []
    return [p for p in paths if not is_rollout(p)], rollouts
