"""``msgnorm search``: the messages of sessions whose text holds a query."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from ..listing import search_sessions


def _search(args: argparse.Namespace) -> int:
    hits = search_sessions(
        args.dir, args.query, regex=args.regex, tools=args.tools, num_threads=args.jobs
    )
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode([h.to_dict() for h in hits]) + b"\n")
    else:
        lines = []
        for h in hits:
            where = h.role if h.field == "text" else f"{h.role} {h.field}"
            lines.append(
                f"{h.session[:8]}  {h.uuid or '-'}  {h.timestamp or '-'}  {where}: {h.snippet}"
            )
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
    print(f"msgnorm: {len(hits)} match(es)", file=sys.stderr)
    return 0 if hits else 1


def add_parser(sub: Any) -> None:
    s = sub.add_parser("search", help="search the messages of sessions (case-insensitive)")
    s.add_argument(
        "dir", metavar="DIR", help="a session file, a project directory or ~/.claude/projects"
    )
    s.add_argument("query", metavar="QUERY", help="text to find (a substring, any case)")
    s.add_argument("--json", action="store_true", help="print a JSON list of matches")
    s.add_argument(
        "--regex", action="store_true", help="QUERY is a regular expression (Rust syntax)"
    )
    s.add_argument("--tools", action="store_true", help="also search tool inputs and results")
    s.add_argument(
        "-j", "--jobs", type=int, default=None, metavar="N", help="threads (default: all cores)"
    )
    s.set_defaults(func=_search)
