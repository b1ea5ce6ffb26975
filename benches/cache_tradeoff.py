"""The cache trade-off of context editing, worked out over a 500-request agent run.

    python benches/cache_tradeoff.py [--requests 500] [--trigger 30000] [--clear-at-least 10000]

The history is ``tests/support/generate.py``'s generated session, normalized
(``normalize_for_api``). Request k sends the history up to its k-th user record
(a prompt or tool results: the model answers each). Client-side clearing is carried
forward: request k is the previous request *as sent* (already cleared) plus the new
records, then ``clear_tool_results(trigger=..., keep=3[, clear_at_least=...])``, so a
result once cleared stays cleared and only a clearing event rewrites the prefix.

The provider's prompt cache is modelled as Anthropic's: the longest record prefix a
request shares with the previous one is read from the cache; everything after it is
written to the cache. Token counts are SPEC §6 (``count_tokens_per_record``). The
effective cost prices a cache write at 1.25× and a cache read at 0.1× an input token
(Anthropic's 5-minute cache).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

# Run as a script: the shared support package (tests/support) is found as pytest
# finds it (``pythonpath`` in pyproject.toml).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import msgnorm
from support import generate


def request_ends(norm: list[dict[str, Any]], n: int) -> list[int]:
    """End indexes (exclusive) of the first ``n`` requests: after each user record."""
    ends = [i + 1 for i, r in enumerate(norm) if r["type"] == "user"]
    return ends[:n]


def simulate(
    norm: list[dict[str, Any]],
    ends: list[int],
    edit: dict[str, Any] | None,
    conversation: bool = False,
) -> dict[str, Any]:
    """One run; with ``conversation`` the policy is a :class:`msgnorm.Conversation`'s
    (``clear_tool_results=edit``) instead of the function carried forward."""
    sent_prev: list[dict[str, Any]] = []
    prev_end = 0
    total = write = read = events = 0
    conv = msgnorm.Conversation(clear_tool_results=edit) if conversation else None
    for end in ends:
        if conv is not None:
            conv.append(norm[prev_end:end])
            sent = conv.for_api()
            events = len(conv.edits)
        else:
            sent = sent_prev + norm[prev_end:end]
            if edit is not None:
                sent, rep = msgnorm.clear_tool_results_report(sent, **edit)
                events += rep["first_changed"] is not None
        costs = msgnorm.count_tokens_per_record(sent)
        common = 0
        for a, b in zip(sent, sent_prev, strict=False):
            if a is not b and a != b:
                break
            common += 1
        total += sum(costs)
        read += sum(costs[:common])
        write += sum(costs[common:])
        sent_prev, prev_end = sent, end
    return {
        "sent": total,
        "cache_write": write,
        "cache_read": read,
        "events": events,
        "effective": 1.25 * write + 0.1 * read,
        "last": sum(msgnorm.count_tokens_per_record(sent_prev)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--trigger", type=int, default=30_000)
    ap.add_argument("--clear-at-least", type=int, default=10_000)
    ap.add_argument("--records", type=int, default=5_000, help="generated records to draw from")
    args = ap.parse_args(argv)
    norm = msgnorm.normalize_for_api(generate.generate(args.records))
    ends = request_ends(norm, args.requests)
    if len(ends) < args.requests:
        print(
            f"only {len(ends)} requests in {args.records} records: raise --records", file=sys.stderr
        )
        return 1
    plain = {"trigger": args.trigger, "keep": 3}
    least = {**plain, "clear_at_least": args.clear_at_least}
    policies: dict[str, tuple[dict[str, Any] | None, bool]] = {
        "no clearing": (None, False),
        f"trigger {args.trigger:,}, keep 3": (plain, False),
        f"trigger {args.trigger:,}, keep 3, clear_at_least {args.clear_at_least:,}": (least, False),
        "the same, as a `Conversation` policy": (least, True),
    }
    print(f"{len(ends)} requests, {ends[-1]:,} normalized records, §6 tokens\n")
    print(
        "| policy | tokens sent | cache writes | cache reads | clearing events | last request | effective cost |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (edit, conversation) in policies.items():
        r = simulate(norm, ends, edit, conversation)
        print(
            f"| {name} | {r['sent']:,} | {r['cache_write']:,} | {r['cache_read']:,} | "
            f"{r['events']} | {r['last']:,} | {r['effective']:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
