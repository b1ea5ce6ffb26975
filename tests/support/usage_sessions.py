"""Claude Code project directories for the usage, listing and search tests, and the
plain-Python oracle of exact usage (``json.loads`` per line).

A generated project has what makes usage hard: replies streamed over several
records whose ``output_tokens`` grow, resumed sessions that replay earlier
requests in another file, subagent files (``<session>/subagents/agent-*.jsonl``),
synthetic replies, requests without ids, server tool use, 5m/1h cache writes,
and lines that are not JSON.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

#: The token counts of a usage entry: input, output, the cache writes (all, 5m, 1h), cache reads.
COUNTS = (
    "input_tokens",
    "output_tokens",
    *(f"cache_creation{ttl}_input_tokens" for ttl in ("", "_5m", "_1h")),
    "cache_read_input_tokens",
)
MODELS = ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
WORDS = (
    'the a fix test build error file line code needle-free ünïcode "quoted" path/to tab\t'.split(
        " "
    )
)


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


@dataclass
class _Writer:
    rng: random.Random
    session: str
    cwd: str
    #: The time of the last record written.
    t: datetime
    parent: str | None = None
    lines: list[str] = field(default_factory=list)

    def _base(self, kind: str, sidechain: bool) -> dict[str, Any]:
        self.t += timedelta(seconds=self.rng.randint(1, 600))
        u = str(uuid.UUID(int=self.rng.getrandbits(128)))
        rec = {
            "parentUuid": self.parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.15",
            "gitBranch": "main",
            "type": kind,
            "uuid": u,
            "timestamp": _ts(self.t),
        }
        self.parent = u
        return rec

    def text(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def user(self, text: str, sidechain: bool = False) -> None:
        rec = self._base("user", sidechain)
        rec["message"] = {"role": "user", "content": text}
        self.lines.append(json.dumps(rec))

    def request(self, model: str, sidechain: bool = False, ids: bool = True) -> None:
        """One API request streamed as 1-4 records; output tokens grow."""
        rng = self.rng
        msg_id = "msg_" + uuid.UUID(int=rng.getrandbits(128)).hex[:24]
        req_id = "req_" + uuid.UUID(int=rng.getrandbits(128)).hex[:24]
        one_hour = rng.randint(0, 3000) if rng.random() < 0.3 else 0
        five = rng.randint(0, 20000)
        usage: dict[str, Any] = {
            "input_tokens": rng.randint(1, 50),
            "cache_creation_input_tokens": five + one_hour,
            "cache_read_input_tokens": rng.randint(0, 200000),
            "cache_creation": {
                "ephemeral_5m_input_tokens": five,
                "ephemeral_1h_input_tokens": one_hour,
            },
            "output_tokens": 0,
            "service_tier": "standard",
        }
        if rng.random() < 0.1:
            usage["server_tool_use"] = {
                "web_search_requests": rng.randint(1, 3),
                "web_fetch_requests": 0,
            }
        out = rng.randint(1, 5)
        for _ in range(rng.randint(1, 4)):
            rec = self._base("assistant", sidechain)
            usage = dict(usage, output_tokens=out)
            message: dict[str, Any] = {
                "model": model,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": self.text(rng.randint(3, 40))}],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            }
            if ids:
                message["id"] = msg_id
                rec["requestId"] = req_id
            rec["message"] = message
            self.lines.append(json.dumps(rec))
            out += rng.randint(0, 400)

    def synthetic(self) -> None:
        rec = self._base("assistant", False)
        rec["message"] = {
            "id": str(uuid.UUID(int=self.rng.getrandbits(128))),
            "model": "<synthetic>",
            "role": "assistant",
            "type": "message",
            "content": [{"type": "text", "text": "No response requested."}],
            "usage": {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        self.lines.append(json.dumps(rec))


def write_project(root: Path, seed: int, sessions: int = 6, idless: float = 0.05) -> list[Path]:
    """A project directory under ``root`` with ``sessions`` session files (some
    resumed from another), subagent files and a few broken lines; the files written."""
    rng = random.Random(seed)
    project = root / "-home-user-proj"
    project.mkdir(parents=True, exist_ok=True)
    start = datetime(2026, 1, 1, 22, 30, tzinfo=timezone.utc)
    written: list[Path] = []
    previous: list[str] = []
    for s in range(sessions):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        w = _Writer(rng, sid, f"/home/user/proj{s % 2}", start + timedelta(hours=7 * s))
        if previous and rng.random() < 0.5:
            # a resumed session: the earlier session's lines replayed first
            w.lines.extend(previous[: rng.randint(1, len(previous))])
        if rng.random() < 0.5:
            w.lines.append(
                json.dumps({"type": "custom-title", "customTitle": f"title {s}", "sessionId": sid})
            )
        for _turn in range(rng.randint(2, 6)):
            w.user(w.text(rng.randint(2, 12)))
            for _ in range(rng.randint(1, 3)):
                w.request(rng.choice(MODELS), ids=rng.random() >= idless)
            if rng.random() < 0.15:
                w.synthetic()
        if rng.random() < 0.3:
            w.lines.insert(
                rng.randint(0, len(w.lines)), '{"type":"assistant","message":{"usage": broken'
            )
        path = project / f"{sid}.jsonl"
        path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
        written.append(path)
        previous = w.lines
        if rng.random() < 0.6:
            sub = project / sid / "subagents"
            sub.mkdir(parents=True, exist_ok=True)
            a = _Writer(rng, sid, w.cwd, w.t)
            a.user("Subtask: " + a.text(5), sidechain=True)
            for _ in range(rng.randint(1, 4)):
                a.request(rng.choice(MODELS), sidechain=True)
            agent = sub / f"agent-a{rng.getrandbits(24):06x}.jsonl"
            agent.write_text("\n".join(a.lines) + "\n", encoding="utf-8")
            written.append(agent)
    return written


# --- the oracle -------------------------------------------------------------


def entries(path: Path, agent: bool) -> tuple[list[dict[str, Any]], int]:
    """The usage entries of one file (json.loads per line), and its unreadable lines
    that mention usage."""
    out = []
    bad = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if '"usage"' not in line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if not isinstance(rec, dict) or rec.get("type") != "assistant":
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
            continue
        u = msg["usage"]
        cc = u.get("cache_creation") or {}
        e = {
            "input_tokens": u.get("input_tokens") or 0,
            "output_tokens": u.get("output_tokens") or 0,
            "cache_creation_input_tokens": u.get("cache_creation_input_tokens") or 0,
            "cache_creation_5m_input_tokens": cc.get("ephemeral_5m_input_tokens") or 0,
            "cache_creation_1h_input_tokens": cc.get("ephemeral_1h_input_tokens") or 0,
            "cache_read_input_tokens": u.get("cache_read_input_tokens") or 0,
            "server_tool_use": {
                k: v
                for k, v in (u.get("server_tool_use") or {}).items()
                if isinstance(v, int) and v
            },
            "model": msg.get("model") if isinstance(msg.get("model"), str) else "",
            "timestamp": rec.get("timestamp"),
            "session": rec.get("sessionId"),
            "cwd": rec.get("cwd"),
            "sidechain": agent or rec.get("isSidechain") is True,
            "id": msg.get("id"),
            "request": rec.get("requestId"),
        }
        out.append(e)
    return out, bad


def exact(files: list[Path]) -> list[dict[str, Any]]:
    """One entry per (message.id, requestId) across ``files``: the most output
    tokens, ties to the earliest timestamp; entries with neither id count alone;
    synthetic replies left out."""
    kept: dict[tuple[Any, Any], dict[str, Any]] = {}
    loose: list[dict[str, Any]] = []
    for f in files:
        agent = f.name.startswith("agent-") or "subagents" in f.parts
        for e in entries(f, agent)[0]:
            if e["model"] == "<synthetic>":
                continue
            if e["id"] is None and e["request"] is None:
                loose.append(e)
                continue
            key = (e["id"], e["request"])
            old = kept.get(key)
            if (
                old is None
                or e["output_tokens"] > old["output_tokens"]
                or (
                    e["output_tokens"] == old["output_tokens"]
                    and e["timestamp"] is not None
                    and old["timestamp"] is not None
                    and e["timestamp"] < old["timestamp"]
                )
            ):
                kept[key] = e
    return list(kept.values()) + loose


def total(es: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: sum(e[k] for e in es) for k in COUNTS}
    out["requests"] = len(es)
    stu: dict[str, int] = {}
    for e in es:
        for k, v in e["server_tool_use"].items():
            stu[k] = stu.get(k, 0) + v
    out["server_tool_use"] = stu
    return out
