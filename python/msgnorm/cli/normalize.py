"""``msgnorm normalize``: what a model API accepts (SPEC §4), from a session, a
provider's messages or a directory tree."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import msgspec

from .. import _api, providers, session
from ..editing import clear_thinking_report, clear_tool_results_report
from ..errors import MsgnormError
from . import directory
from ._common import (
    clearing_options,
    count_records,
    load,
    read_input,
    session_options,
    tree_options,
    write_output,
)


def _normalize(args: argparse.Namespace) -> int:
    if directory.is_tree_job(args.path, args.output, args.jobs, args.engine):
        return _normalize_tree(args)
    if args.jobs is not None or args.engine is not None:
        raise MsgnormError("--jobs and --engine take a directory (and -o an output directory)")
    loaded: session.Session | None = None
    if args.source != "records":
        data = _from_provider(read_input(args.path), args.source)
    else:
        loaded, data = load(args)
    out, report = _api.normalize_for_api_report(
        data,
        strict=args.strict,
        max_media=None if args.max_media < 0 else args.max_media,
        short_ids=args.short_ids,
    )
    cleared = None
    if args.clear_tool_results is not None or args.clear_thinking is not None:
        out, cleared = _clear(out, args)
    if args.max_tokens is not None:
        out = _api.trim_to_budget(out, args.max_tokens, pin=args.pin)
    n_out = len(msgspec.json.decode(out, type=list[msgspec.Raw]))
    if args.format == "anthropic" and args.source == "records":
        out = _api.to_anthropic(out)
    elif args.format != "records":
        # the provider's request shape (docs/PROVIDERS.md); bytes are written as base64
        # (normalize_for_api kept the system prompt records in place)
        shaped = providers.to_provider(msgspec.json.decode(out), args.format)
        out = msgspec.json.encode(shaped)
    to_terminal = args.output in (None, "-") and sys.stdout.isatty()
    if to_terminal:  # a person reads it: indented
        out = msgspec.json.format(out, indent=2)
    write_output(out, args.output)
    if args.report:
        full: dict[str, Any] = {
            "records_in": count_records(data),
            "records_out": n_out,
            "repairs": report,
            "session": loaded.summary() if loaded is not None else None,
            "cleared": cleared,
        }
        print(msgspec.json.encode(full).decode(), file=sys.stderr)
    elif not args.quiet and (
        to_terminal or (args.output not in (None, "-") and sys.stderr.isatty())
    ):
        print(repaired_line(report, cleared), file=sys.stderr)
    return 0


def repaired_line(report: dict[str, int], cleared: dict[str, int] | None = None) -> str:
    """``repaired: N (RULE ×n, …)`` or ``repaired: nothing``: the report's counts, biggest
    first (then what ``--clear-*`` cleared)."""
    fired = sorted(((n, rule) for rule, n in report.items() if n), key=lambda x: (-x[0], x[1]))
    total = sum(n for n, _ in fired)
    line = "repaired: nothing"
    if fired:
        line = f"repaired: {total} ({', '.join(f'{rule} ×{n}' for n, rule in fired)})"
    if cleared is not None:
        line += (
            f"; cleared: {cleared['results_cleared']} tool results, "
            f"{cleared['thinking_cleared']} thinking blocks, "
            f"{cleared['tokens_saved']} tokens saved"
        )
    return line


def _from_provider(data: bytes, source: str) -> bytes:
    """A provider's messages (a JSON list, or its request object) as records."""
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError as e:
        raise MsgnormError(f"--source {source}: the input is not JSON ({e})") from None
    system = None
    if isinstance(value, dict):
        keys = {
            "gemini": ("contents", "system_instruction"),
            "openai-responses": ("input", "instructions"),
        }.get(source, ("messages", "system"))
        system = value.get(keys[1])
        value = value.get(keys[0])
    if not isinstance(value, list):
        raise MsgnormError(
            f"--source {source}: expected a JSON list of messages or a request object"
        )
    return msgspec.json.encode(providers.from_provider(value, source, system=system))


def _clear(out: bytes, args: argparse.Namespace) -> tuple[bytes, dict[str, int]]:
    """``--clear-tool-results[=KEEP]`` (always fires) then ``--clear-thinking[=KEEP]``."""
    total: dict[str, int] = {"results_cleared": 0, "thinking_cleared": 0, "tokens_saved": 0}
    if args.clear_tool_results is not None:
        out, rep = clear_tool_results_report(out, trigger=None, keep=args.clear_tool_results)
        total["results_cleared"] += rep["results_cleared"]
        total["tokens_saved"] += rep["tokens_saved"]
    if args.clear_thinking is not None:
        keep: int | str = args.clear_thinking
        out, rep = clear_thinking_report(out, keep_turns=keep)  # type: ignore[arg-type]
        total["thinking_cleared"] += rep["thinking_cleared"]
        total["tokens_saved"] += rep["tokens_saved"]
    return out, total


def _tree_only_defaults(args: argparse.Namespace) -> None:
    """Options the directory mode does not take (each session: main thread, broken lines
    skipped)."""
    given = [
        flag
        for flag, on in (
            ("--thread", args.thread != "main"),
            ("--full-history", args.full_history),
            ("--errors raise", args.errors != "skip"),
            ("--format", args.format != "records"),
            ("--source", args.source != "records"),
            ("--max-tokens", args.max_tokens is not None),
        )
        if on
    ]
    if given:
        raise MsgnormError(f"{', '.join(given)}: not in directory mode (one file at a time)")


def _normalize_tree(args: argparse.Namespace) -> int:
    _tree_only_defaults(args)
    if args.output is None:
        raise MsgnormError("a directory needs -o OUTDIR (or no --jobs/--engine: one history)")
    summary = directory.normalize_tree(
        Path(args.path),
        Path(args.output),
        session=not args.flat,
        jobs=args.jobs,
        engine=args.engine or "local",
        progress=args.progress,
        pattern=args.glob,
        options={
            "strict": args.strict,
            "max_media": None if args.max_media < 0 else args.max_media,
            "short_ids": args.short_ids,
        },
        force=args.force,
    )
    directory.print_lines(summary.lines("written"))
    return 1 if summary.errors else 0


def add_parser(sub: Any) -> None:
    n = sub.add_parser("normalize", help="what a model API accepts (SPEC §4), as JSON")
    n.add_argument(
        "path", help="session file, project directory, JSON array file, or - for standard input"
    )
    session_options(n)
    n.add_argument(
        "--format",
        choices=["records", *providers.PROVIDERS],
        default="records",
        help="output: msgnorm records, or a provider's request shape (docs/PROVIDERS.md)",
    )
    n.add_argument(
        "--source",
        choices=["records", *providers.PROVIDERS],
        default="records",
        help="input: msgnorm records (a session), or a provider's messages / request JSON",
    )
    n.add_argument("--strict", action="store_true", help="raise instead of repairing pairing")
    n.add_argument("--short-ids", action="store_true", help="append [id:xxxxxx] to user texts")
    n.add_argument(
        "--max-media",
        type=int,
        default=_api._MAX_MEDIA,
        metavar="N",
        help=f"images and documents kept (default {_api._MAX_MEDIA}); -1: no limit",
    )
    clearing_options(
        n,
        "replace the results of all but the last KEEP tool uses (default 3) by "
        "'[cleared]', the current tool loop excepted; before --max-tokens",
    )
    n.add_argument("--max-tokens", type=int, default=None, metavar="N", help="trim to N tokens")
    said = n.add_mutually_exclusive_group()
    said.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no 'repaired: ...' line on stderr (printed when the output goes to a terminal)",
    )
    said.add_argument(
        "--report",
        action="store_true",
        help="print the full report as JSON on stderr: records in and out, every repair's "
        "count, the thread chosen and what was skipped, what was cleared",
    )
    n.add_argument("--pin", type=int, default=0, metavar="K", help="keep the first K records")
    n.add_argument(
        "-o", "--output", default=None, help="output file (default: stdout), or directory"
    )
    d = n.add_argument_group(
        "directory mode (PATH a directory, and --jobs, --engine or an -o directory)",
        "each session under PATH (a *.jsonl file with its subagent files, as load_session "
        "reads it: its main thread; --flat: each file, a flat list) is normalized into "
        "OUTDIR/<relative path>.json, on every core; each output is written atomically, and "
        "a rerun skips those whose inputs (size and mtime) and options are unchanged "
        "(OUTDIR/.msgnorm-manifest.json)",
    )
    tree_options(d)
    d.add_argument(
        "--force", action="store_true", help="rewrite every output, even those up to date"
    )
    d.add_argument(
        "--engine",
        choices=["ray", "daft"],
        default=None,
        help="run on Ray (RAY_ADDRESS, else a local cluster) or Daft instead of this process",
    )
    n.set_defaults(func=_normalize)
