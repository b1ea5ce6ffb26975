"""How close ``prompt_tokens`` (SPEC §6.1) comes to the prompt Claude billed.

    MSGNORM_CORPUS=<dir of Claude Code transcripts> python benches/prompt_eval.py

Reads every ``*.jsonl`` transcript under ``$MSGNORM_CORPUS`` (nothing is copied).
A request is an assistant ``message.id`` whose records carry ``message.usage``; its
billed prompt is ``input_tokens + cache_creation_input_tokens +
cache_read_input_tokens``. For each pair of consecutive requests of one model in a
file, the history is the file's main-thread records (not ``isSidechain``) before the
second request's first record, and three sizes are compared with its billed prompt:

- ``prompt_tokens(history)``: anchored on the first request's usage (§6.1);
- naive anchoring: the latest record's reported usage (prompt + output, as that
  record wrote it) + ``count_tokens`` of the records after that record;
- ``count_tokens(history)``: the §6 estimate of the whole history, unanchored;
- growth: ``count_tokens`` of the records between the two requests against the
  billed growth (second prompt minus the first).

A request billed under 1,000 prompt tokens is left out: every real Claude Code
request carries its system prompt and tools, so a smaller number is hand-written
test data, not a bill (some public transcripts are test fixtures).

Printed: per size, the share of requests within 2% and 5% and the worst
under-count; for the growth, the median and summed ratios.
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import msgnorm
import msgspec

#: The smallest billed prompt taken as a real bill.
REAL = 1_000


def _records(path: Path) -> list[dict[str, Any]]:
    """The file's main-thread records that are JSON objects with a str ``type``."""
    out: list[dict[str, Any]] = []
    for line in path.read_bytes().splitlines():
        try:
            r = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(r, dict) and isinstance(r.get("type"), str) and not r.get("isSidechain"):
            out.append(r)
    return out


def _requests(recs: list[dict[str, Any]]) -> list[tuple[int, str, int, int]]:
    """(first record index, model, billed prompt, output) of each request, in order."""
    seen: dict[str, int] = {}
    out: list[tuple[int, str, int, int]] = []
    for i, r in enumerate(recs):
        m = r.get("message")
        if r["type"] != "assistant" or not isinstance(m, dict):
            continue
        u = m.get("usage")
        if not isinstance(u, dict) or m.get("model") == "<synthetic>":
            continue
        prompt = sum(
            int(u.get(k) or 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        if prompt < REAL:
            continue
        key = str(m.get("id") or f"#{i}")
        if key in seen:
            j = seen[key]
            first, model, p, o = out[j]
            out[j] = (first, model, p, max(o, int(u.get("output_tokens") or 0)))
            continue
        seen[key] = len(out)
        out.append((i, str(m.get("model")), prompt, int(u.get("output_tokens") or 0)))
    return out


def _naive(recs: list[dict[str, Any]]) -> int:
    """The latest usage record's prompt + output + the estimate of what follows it."""
    for j in range(len(recs) - 1, -1, -1):
        m = recs[j].get("message")
        u = m.get("usage") if recs[j]["type"] == "assistant" and isinstance(m, dict) else None
        if isinstance(u, dict) and m.get("model") != "<synthetic>":
            keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            prompt = sum(int(u.get(k) or 0) for k in keys)
            if prompt >= REAL:
                after = msgnorm.count_tokens(recs[j + 1 :]) if j + 1 < len(recs) else 0
                return prompt + int(u.get("output_tokens") or 0) + after
    return msgnorm.count_tokens(recs)


def _share(errors: list[float], within: float) -> float:
    return sum(abs(e) <= within for e in errors) / len(errors)


def main() -> int:
    root = os.environ.get("MSGNORM_CORPUS")
    if not root:
        print("set MSGNORM_CORPUS to a directory of Claude Code transcripts", file=sys.stderr)
        return 2
    anchored: list[float] = []
    naive: list[float] = []
    unanchored: list[float] = []
    growth: list[tuple[int, int]] = []
    files = skipped = 0
    for path in sorted(Path(root).rglob("*.jsonl")):
        recs = _records(path)
        reqs = _requests(recs)
        if len(reqs) < 2:
            continue
        try:
            msgnorm.count_tokens(recs)
        except msgnorm.MsgnormError:
            skipped += 1  # a deliberately broken test file: §1 refuses it
            continue
        files += 1
        for (i1, model1, p1, _), (i2, model2, p2, _) in itertools.pairwise(reqs):
            if model1 != model2:
                continue
            history = recs[:i2]
            anchored.append(msgnorm.prompt_tokens(history) / p2 - 1)
            naive.append(_naive(history) / p2 - 1)
            unanchored.append(msgnorm.count_tokens(history) / p2 - 1)
            if p2 > p1:
                growth.append((msgnorm.count_tokens(recs[i1 + 1 : i2]), p2 - p1))
    if not anchored:
        print("no pair of consecutive requests with usage found")
        return 1
    print(f"{files} transcripts ({skipped} refused), {len(anchored)} requests")
    sizes = (
        ("prompt_tokens", anchored),
        ("naive anchoring", naive),
        ("count_tokens (unanchored)", unanchored),
    )
    for name, errs in sizes:
        print(
            f"{name:27} within 2%: {_share(errs, 0.02):6.1%}  within 5%: {_share(errs, 0.05):6.1%}"
            f"  median ratio: {1 + statistics.median(errs):.3f}  worst: {min(errs):+.1%}"
        )
    if growth:
        ratios = [est / billed for est, billed in growth]
        total = sum(e for e, _ in growth) / sum(b for _, b in growth)
        print(
            f"growth between requests ({len(growth)}): median ratio {statistics.median(ratios):.3f},"
            f" summed {total:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
