"""``msgnorm threads``: the threads of a session."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import clip, load, session_options, write_table


def _threads(args: argparse.Namespace) -> int:
    loaded, _ = load(args)
    if loaded is None:
        print("msgnorm: a flat list of records has one thread", file=sys.stderr)
        return 0
    rows = [("id", "kind", "records", "last timestamp", "first prompt")]
    for t in loaded.threads:
        prompt = clip(t.first_prompt)
        rows.append((t.id, t.kind, str(t.records), t.last_timestamp or "-", prompt))
    write_table(rows)
    print(f"msgnorm: {loaded.report.summary()}", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    t = sub.add_parser("threads", help="the threads of a session: id, records, prompt, time")
    t.add_argument("path", help="session file, project directory, or - for standard input")
    session_options(t)
    t.set_defaults(func=_threads)
