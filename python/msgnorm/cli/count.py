"""``msgnorm count``: approximate tokens (SPEC §6) of a file or a directory tree, and a
file's next prompt anchored on its reported usage (SPEC §6.1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import _api
from . import directory
from ._common import read_input, records_of, tree_options


def _count_tree(args: argparse.Namespace) -> int:
    summary, biggest = directory.count_tree(
        Path(args.path),
        session=not args.flat,
        jobs=args.jobs,
        progress=args.progress,
        pattern=args.glob,
        top=args.top,
        chars_per_token=args.chars_per_token,
        tokenizer=args.tokenizer,
    )
    lines = [
        f"total: {summary.tokens} tokens in {summary.written} {summary.unit} "
        f"({summary.records} records)"
    ]
    if biggest:
        lines.append(f"biggest {len(biggest)} {summary.unit}:")
        lines += [f"  {path}: {n}" for n, path in biggest]
    sys.stdout.write("\n".join(lines) + "\n")
    directory.print_lines(summary.lines("counted"))
    return 1 if summary.errors else 0


def _count(args: argparse.Namespace) -> int:
    if args.path != "-" and Path(args.path).is_dir():
        return _count_tree(args)
    data = read_input(args.path)
    options = _api._counting_options(args.tokenizer, args.chars_per_token)
    per = _api.count_tokens_per_record(data, **options)
    records: list[Any] = records_of(data)
    by_type: dict[str, int] = {}
    for rec, n in zip(records, per, strict=True):
        t = rec.get("type") if isinstance(rec, dict) else None
        by_type[str(t)] = by_type.get(str(t), 0) + n
    total = sum(per)
    prompt = _api.prompt_tokens(data, **options)
    lines = [
        f"total: {total} tokens in {len(per)} records",
        f"next prompt: {prompt} tokens (anchored on the latest reported usage, SPEC §6.1)",
    ]
    lines += [f"  {t}: {n}" for t, n in sorted(by_type.items(), key=lambda kv: -kv[1])]
    biggest = sorted(range(len(per)), key=lambda i: -per[i])[: args.top]
    if biggest:
        lines.append(f"biggest {len(biggest)} records:")
        for i in biggest:
            rec = records[i]
            uuid = rec.get("uuid", "") if isinstance(rec, dict) else ""
            lines.append(f"  records[{i}] {rec.get('type')} {uuid}: {per[i]}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def add_parser(sub: Any) -> None:
    c = sub.add_parser(
        "count", help="approximate tokens (SPEC §6): total, next prompt (§6.1), per type, biggest"
    )
    c.add_argument("path", help="transcript file, directory tree, or - for standard input")
    c.add_argument(
        "--tokenizer",
        default="auto",
        choices=("auto", "claude", "o200k_base", "gemini", "chars"),
        help="whose tokens to estimate (SPEC §6; auto: the records' model, else claude)",
    )
    c.add_argument(
        "--chars-per-token",
        type=float,
        default=None,
        help="the SPEC §6 formula's characters per token (selects --tokenizer chars)",
    )
    c.add_argument("--top", type=int, default=5, help="how many of the biggest records (sessions)")
    g = c.add_argument_group(
        "directory (each session, a *.jsonl file with its subagent files: its main thread)"
    )
    g.add_argument("--flat", action="store_true", help="count each file as a flat list")
    g.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: on a terminal; needs tqdm)",
    )
    tree_options(g)
    c.set_defaults(func=_count)
