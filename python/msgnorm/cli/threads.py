"""``msgnorm threads``: the threads of a session."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import load, session_options


def _threads(args: argparse.Namespace) -> int:
    loaded, _ = load(args)
    if loaded is None:
        print("msgnorm: a flat list of records has one thread", file=sys.stderr)
        return 0
    rows = [("id", "kind", "records", "last timestamp", "first prompt")]
    for t in loaded.threads:
        prompt = t.first_prompt if len(t.first_prompt) <= 60 else t.first_prompt[:59] + "…"
        rows.append((t.id, t.kind, str(t.records), t.last_timestamp or "-", prompt))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
    sys.stdout.write("\n".join(line.rstrip() for line in lines) + "\n")
    print(f"msgnorm: {loaded.report.summary()}", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    t = sub.add_parser("threads", help="the threads of a session: id, records, prompt, time")
    t.add_argument("path", help="session file, project directory, or - for standard input")
    session_options(t)
    t.set_defaults(func=_threads)
