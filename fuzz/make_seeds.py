"""Writes fuzz/seeds/: small JSON transcripts (arrays and JSON Lines) for the fuzzers.

Sources: the bundled example session, windows of the example transcripts of
examples/sessions/ (forks, sidechains, subagent files, a compaction, parallel calls,
broken and damaged lines, kept byte for byte: BOM, CRLF), and histories drawn from
tests/support/strategies.py with a fixed seed.
Run from the project root: ``python3 fuzz/make_seeds.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, seed, settings

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "seeds"
sys.path.insert(0, str(ROOT / "tests"))  # a script: tests/support, as pytest finds it

from support import strategies  # noqa: E402


def write(name: str, data: bytes) -> None:
    if len(data) <= 4096:
        (OUT / name).write_bytes(data)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    lines = (ROOT / "examples" / "session.jsonl").read_bytes().splitlines()
    for i in range(0, len(lines), 4):
        write(f"example-{i:03}.jsonl", b"\n".join(lines[i : i + 6]))
    sessions = ROOT / "examples" / "sessions"
    for path in sorted(sessions.rglob("*.jsonl")):
        parts = path.relative_to(sessions).with_suffix("").parts
        name = "-".join(p[:13] for p in parts if p != "subagents")  # uuid names cut short
        sl = path.read_bytes().split(b"\n")  # CR and a BOM stay in the lines
        for i in range(0, len(sl), 3):
            window = [ln for ln in sl[i : i + 4] if len(ln) < 1500]
            if any(ln.strip() for ln in window):
                write(f"sessions-{name}-{i:03}.jsonl", b"\n".join(window))

    drawn: list[list[dict[str, Any]]] = []

    @seed(20260105)
    @settings(
        max_examples=80,
        database=None,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategies.histories())
    def collect(history: list[dict[str, Any]]) -> None:
        drawn.append(history)

    collect()
    for i, history in enumerate(drawn):
        data = json.dumps(history, ensure_ascii=i % 2 == 0).encode()
        write(f"hypothesis-{i:03}.json", data)
    print(f"{len(list(OUT.iterdir()))} seeds in {OUT}")


if __name__ == "__main__":
    main()
