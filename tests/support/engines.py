"""Shared data of the engine tests (Ray, Daft, the CLI's --engine)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import msgnorm

from . import external, generate

# Real-shaped transcripts: the examples, and the external corpus when MSGNORM_CORPUS names it.
CORPUS_FILES = external.example_files() + external.corpus_files()
BROKEN = b'[{"type": "user", "uuid": "u", "message": {"role": "user", "content": 5}}]'


def histories(n: int = 200) -> list[bytes]:
    """``n`` generated histories (JSON arrays and JSON Lines), small and large."""
    return [generate.generate_bytes(5 + (s * 37) % 90, seed=s, jsonl=s % 3 == 0) for s in range(n)]


def single(data: bytes | None, session: bool = False, **kw: Any) -> dict[str, Any] | None:
    """The four output columns of one row, from the single calls."""
    if data is None:
        return None
    try:
        if session:
            data = msgnorm.load_session(data, kind="bytes").records
        out, report = msgnorm.normalize_for_api_report(data, **kw)
    except msgnorm.MsgnormError as e:
        return {"normalized": None, "repairs": None, "tokens": None, "error": str(e)}
    return {
        "normalized": out,
        "repairs": report,
        "tokens": msgnorm.count_tokens(out),
        "error": None,
    }


def row_of(row: dict[str, Any]) -> dict[str, Any] | None:
    """The four output columns of an engine's row (``None`` for a null input row)."""
    out = {k: row[k] for k in ("normalized", "repairs", "tokens", "error")}
    if all(v is None for v in out.values()):
        return None
    if isinstance(out["normalized"], str):
        out["normalized"] = out["normalized"].encode()
    return out


def write_tree(root: Path, items: list[bytes], corpus: bool = True) -> dict[str, bytes]:
    """Session files in a small tree (two levels), the example and corpus transcripts among them
    (under ``corpus/``)."""
    files: dict[str, bytes] = {}
    for i, data in enumerate(items):
        rel = f"p{i % 3}/s{i:04d}.jsonl" if i % 2 else f"s{i:04d}.jsonl"
        files[rel] = data
    for p in CORPUS_FILES if corpus else []:
        files[f"corpus/{external.file_id(p)}"] = p.read_bytes()
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return files


def threads_named_msgnorm() -> int:
    """The kernel pool's threads in this process (Linux)."""
    task = Path("/proc/self/task")
    if not task.is_dir():
        return -1
    names = []
    for t in os.listdir(task):
        try:
            names.append((task / t / "comm").read_text().strip())
        except OSError:
            continue
    return sum(n.startswith("msgnorm-") for n in names)


def threads_named_msgnorm_at_least(n: int, timeout: float = 10.0) -> int:
    """The pool's thread count once it reaches ``n`` (a new thread names itself as it
    starts, a moment after the pool is built), or when ``timeout`` runs out."""
    deadline = time.monotonic() + timeout
    while True:
        count = threads_named_msgnorm()
        if count >= n or time.monotonic() > deadline:
            return count
        time.sleep(0.01)
