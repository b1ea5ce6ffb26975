"""Writes fuzz/seeds/: small JSON transcripts (arrays and JSON Lines) for the fuzzers.

Sources: the bundled example session, windows of the shared corpus when present,
and histories drawn from tests/support/strategies.py with a fixed seed.
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
    corpus = ROOT.parent / "shared" / "corpus"
    for path in sorted(corpus.glob("*.jsonl")) if corpus.is_dir() else []:
        cl = [ln for ln in path.read_bytes().splitlines() if ln.strip()]
        for i in range(0, min(len(cl), 40), 5):
            window = [ln for ln in cl[i : i + 3] if len(ln) < 1500]
            if window:
                write(f"corpus-{path.stem[:24]}-{i:03}.jsonl", b"\n".join(window))

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
