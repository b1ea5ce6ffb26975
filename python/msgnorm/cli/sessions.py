"""``msgnorm sessions``: the session files of a directory, from their heads and tails."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

import msgspec

from ..listing import list_sessions
from ._common import clip, write_table


def _size(n: int) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _sessions(args: argparse.Namespace) -> int:
    infos = list_sessions(args.dir, num_threads=args.jobs)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode([i.to_dict() for i in infos]) + b"\n")
        return 0
    rows = [("modified", "size", "session", "branch", "model", "title")]
    for i in infos:
        modified = datetime.fromisoformat(i.modified.replace("Z", "+00:00")).astimezone()
        title = (i.title or "-").replace("\n", " ")
        rows.append(
            (
                modified.strftime("%Y-%m-%d %H:%M"),
                _size(i.size),
                i.session_id[:8],
                i.git_branch or "-",
                i.model or "-",
                clip(title),
            )
        )
    write_table(rows)
    print(f"msgnorm: {len(infos)} session(s)", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser(
        "sessions", help="the sessions in a directory: id, title, times, size, model"
    )
    s.add_argument("dir", metavar="DIR", help="a project directory or ~/.claude/projects")
    s.add_argument(
        "--json", action="store_true", help="print a JSON list, one object per session file"
    )
    s.add_argument(
        "-j", "--jobs", type=int, default=None, metavar="N", help="threads (default: all cores)"
    )
    s.set_defaults(func=_sessions)
