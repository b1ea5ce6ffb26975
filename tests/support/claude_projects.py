"""A ``~/.claude/projects``-like tree with Claude Code's size profile, for the usage,
sessions and search benchmarks (written once under ``benches/.cache/``).

File sizes are log-normal with a median of about 100 KB and a 99th percentile of
about 5 MB (capped at 16 MB). Each file is a session: prompts, replies streamed
over one to three records with growing ``output_tokens``, tool calls and results
(most of the bytes, as in real sessions); a fifth of the sessions are resumed from
the previous one and replay its first records; some have subagent files.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import uuid
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
CACHE_DIR = BENCH_DIR / ".cache"

MEDIAN = 100_000
P99 = 5_000_000
CAP = 16_000_000
MODELS = ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
_WORDS = (
    "the of and to in is for that with on as file code test error function return value "
    "import class def self path line data result build run check update fix config "
    "module type string list dict None True False async await server client request"
).split()


def _source_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:10]


def _size(rng: random.Random) -> int:
    sigma = math.log(P99 / MEDIAN) / 2.326
    return int(min(CAP, max(2_000, rng.lognormvariate(math.log(MEDIAN), sigma))))


class _Session:
    def __init__(self, rng: random.Random, blob: str, sid: str, cwd: str, day: int) -> None:
        self.rng = rng
        self.blob = blob
        self.sid = sid
        self.cwd = cwd
        self.t = day * 86_400 + rng.randint(0, 80_000)
        self.parent: str | None = None
        self.lines: list[str] = []
        self.size = 0

    def text(self, n: int) -> str:
        i = self.rng.randint(0, len(self.blob) - n - 1)
        return self.blob[i : i + n]

    def _rec(self, kind: str, sidechain: bool = False) -> dict[str, object]:
        self.t += self.rng.randint(1, 90)
        u = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        secs = self.t
        stamp = f"2026-01-{1 + secs // 86_400 % 28:02d}T{secs // 3600 % 24:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}.{self.rng.randint(0, 999):03d}Z"
        rec: dict[str, object] = {
            "parentUuid": self.parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.1.15",
            "gitBranch": "main",
            "type": kind,
            "uuid": u,
            "timestamp": stamp,
        }
        self.parent = u
        return rec

    def add(self, rec: dict[str, object]) -> None:
        line = json.dumps(rec, ensure_ascii=False)
        self.lines.append(line)
        self.size += len(line) + 1

    def turn(self, sidechain: bool = False) -> None:
        rng = self.rng
        rec = self._rec("user", sidechain)
        rec["message"] = {"role": "user", "content": self.text(rng.randint(20, 400))}
        self.add(rec)
        for _ in range(rng.randint(1, 4)):  # requests in this turn
            msg_id = "msg_01" + uuid.UUID(int=rng.getrandbits(128)).hex[:22]
            req_id = "req_011" + uuid.UUID(int=rng.getrandbits(128)).hex[:21]
            usage = {
                "input_tokens": rng.randint(1, 30),
                "cache_creation_input_tokens": rng.randint(0, 30_000),
                "cache_read_input_tokens": rng.randint(0, 180_000),
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                "output_tokens": rng.randint(1, 8),
                "service_tier": "standard",
            }
            usage["cache_creation"]["ephemeral_5m_input_tokens"] = usage[
                "cache_creation_input_tokens"
            ]  # type: ignore[index]
            blocks: list[dict[str, object]] = []
            if rng.random() < 0.5:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": self.text(rng.randint(100, 2000)),
                        "signature": "Ev" + self.text(200),
                    }
                )
            blocks.append({"type": "text", "text": self.text(rng.randint(50, 1500))})
            tool = rng.random() < 0.7
            if tool:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": "toolu_" + uuid.UUID(int=rng.getrandbits(128)).hex[:24],
                        "name": rng.choice(["Bash", "Read", "Edit", "Grep"]),
                        "input": {"command": self.text(rng.randint(10, 300))},
                    }
                )
            model = rng.choice(MODELS)
            for b in blocks:  # one record per block, output tokens growing
                rec = self._rec("assistant", sidechain)
                rec["message"] = {
                    "model": model,
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [b],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": dict(usage),
                }
                rec["requestId"] = req_id
                self.add(rec)
                usage["output_tokens"] += rng.randint(1, 600)  # type: ignore[operator]
            if tool:
                rec = self._rec("user", sidechain)
                size = int(min(400_000, rng.lognormvariate(math.log(2_000), 1.3)))
                rec["message"] = {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": blocks[-1]["id"],
                            "content": self.text(size),
                        }
                    ],
                }
                rec["toolUseResult"] = {
                    "stdout": self.text(min(size, 2_000)),
                    "stderr": "",
                    "interrupted": False,
                }
                self.add(rec)


def write_tree(root: Path, files: int = 550, seed: int = 0) -> list[Path]:
    """``files`` session files (and their subagent files) under ``root/<project>/``."""
    rng = random.Random(seed)
    blob = " ".join(rng.choice(_WORDS) for _ in range(400_000))
    blob = blob.replace("fix", "fix\n").replace("error", 'error "x"')
    written: list[Path] = []
    previous: list[str] = []
    for i in range(files):
        project = root / f"-home-user-project{i % 12}"
        project.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        s = _Session(rng, blob, sid, f"/home/user/project{i % 12}", day=i % 28)
        if previous and rng.random() < 0.2:
            for line in previous[: rng.randint(1, len(previous))]:
                s.lines.append(line)
                s.size += len(line) + 1
        target = _size(rng)
        while s.size < target:
            s.turn()
        path = project / f"{sid}.jsonl"
        path.write_text("\n".join(s.lines) + "\n", encoding="utf-8")
        written.append(path)
        previous = s.lines if s.size < 2_000_000 else s.lines[:200]
        if rng.random() < 0.1:
            sub = project / sid / "subagents"
            sub.mkdir(parents=True, exist_ok=True)
            a = _Session(rng, blob, sid, s.cwd, day=i % 28)
            target = _size(rng) // 4
            while a.size < target:
                a.turn(sidechain=True)
            agent = sub / f"agent-a{rng.getrandbits(28):07x}.jsonl"
            agent.write_text("\n".join(a.lines) + "\n", encoding="utf-8")
            written.append(agent)
    return written


def tree(files: int = 550, seed: int = 0) -> Path:
    """The cached tree of :func:`write_tree` (rewritten when this file changes)."""
    root = CACHE_DIR / f"projects-{_source_hash()}-{files}-{seed}"
    if not (root / ".done").exists():
        for old in CACHE_DIR.glob(f"projects-*-{files}-{seed}"):
            shutil.rmtree(old, ignore_errors=True)
        tmp = root.with_name(root.name + f".{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        write_tree(tmp, files, seed)
        (tmp / ".done").write_text("")
        os.replace(tmp, root)
    return root


if __name__ == "__main__":
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 550
    root = tree(n)
    sizes = sorted(p.stat().st_size for p in root.rglob("*.jsonl"))
    print(
        f"{root}: {len(sizes)} files, {sum(sizes) / 1e6:.0f} MB, median {sizes[len(sizes) // 2] / 1e3:.0f} KB, "
        f"p99 {sizes[int(len(sizes) * 0.99)] / 1e6:.1f} MB"
    )
