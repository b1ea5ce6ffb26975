"""``msgnorm usage``: tokens and cost of sessions, each API request counted once."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import msgspec

from ..usage import Usage, usage_and_groups


def _n(v: int) -> str:
    return f"{v:,}"


def _row(name: str, u: Usage) -> tuple[str, ...]:
    write = _n(u.cache_creation_input_tokens)
    if u.cache_creation_1h_input_tokens:
        write += f" ({_n(u.cache_creation_1h_input_tokens)} 1h)"
    cost = "-" if u.cost is None else f"${u.cost:,.2f}"
    return (
        name,
        _n(u.requests),
        _n(u.input_tokens),
        _n(u.output_tokens),
        write,
        _n(u.cache_read_input_tokens),
        cost,
    )


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


HEADER: tuple[str, ...] = ("", "requests", "input", "output", "cache write", "cache read", "cost")


def _text(total: Usage, groups: dict[str, Usage] | None) -> str:
    rows: list[tuple[str, ...]] = [HEADER]
    if groups is not None:
        rows += [_row(k, v) for k, v in groups.items()]
    else:
        rows += [_row(k, v) for k, v in total.models.items()]
    rows.append(_row("total", total))
    sub = total.subagents
    if sub is not None and sub.requests:
        rows.append(_row("  of which subagents", sub))
    out = _table(rows)
    if total.unpriced:
        out += f"no price for: {', '.join(total.unpriced)}\n"
    return out


def _usage(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {
        "since": args.since,
        "until": args.until,
        "utc": args.utc,
        "prices": False if args.no_cost else None,
        "num_threads": args.jobs,
        "cache": args.cache,
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        total, groups = usage_and_groups(args.paths, by=args.by, **options)
    for w in caught:
        print(str(w.message), file=sys.stderr)
    if args.json:
        doc: dict[str, Any] = {"total": total.to_dict()}
        if groups is not None:
            doc["groups"] = {k: v.to_dict() for k, v in groups.items()}
        sys.stdout.buffer.write(msgspec.json.encode(doc) + b"\n")
    else:
        sys.stdout.write(_text(total, groups))
    return 0


def add_parser(sub: Any) -> None:
    u = sub.add_parser(
        "usage",
        help="tokens and cost of sessions: each API request counted once across files",
    )
    u.add_argument("paths", nargs="+", metavar="PATH", help="session files or directories")
    u.add_argument(
        "--json", action="store_true", help='print {"total": ..., "groups": ...} as JSON'
    )
    u.add_argument(
        "--by", choices=("session", "day", "model", "project"), help="group the requests"
    )
    u.add_argument("--since", metavar="DATE", help="only requests from this ISO date on")
    u.add_argument("--until", metavar="DATE", help="only requests up to this ISO date (included)")
    u.add_argument(
        "--utc", action="store_true", help="dates and days in UTC, not the local time zone"
    )
    u.add_argument(
        "--cache",
        metavar="DIR",
        help="keep each file's requests in DIR (by path, size, mtime): a rerun reads only changed files",
    )
    u.add_argument("--no-cost", action="store_true", help="leave the cost out (no price lookup)")
    u.add_argument(
        "-j", "--jobs", type=int, default=None, metavar="N", help="threads (default: all cores)"
    )
    u.set_defaults(func=_usage)
