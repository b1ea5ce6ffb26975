"""``msgnorm follow``: tail a growing session file turn by turn on a Conversation."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import msgspec

from .. import session
from ..conversation import Conversation
from ..errors import MsgnormError
from ._common import clearing_options


def _follow(args: argparse.Namespace) -> int:
    """Tails a growing session file: the main thread, turn by turn, on a Conversation."""
    path = Path(args.path)
    loaded = session.load_session(path, kind="bytes")
    conv = _conversation(args, loaded.records)
    offset = path.stat().st_size
    with path.open("rb") as f:
        f.seek(offset)
        # Only complete lines count: a line still being written waits for its newline.
        data = f.read()
        cut = data.rfind(b"\n") + 1
        offset -= len(data) - cut
    _report_turn(conv, conv.input_len, "start")
    updates = 0
    idle_since = time.monotonic()
    while args.max_updates is None or updates < args.max_updates:
        time.sleep(args.interval)
        size = path.stat().st_size
        if size < offset:  # the file was replaced: start over
            return _follow(args)
        if size == offset:
            if args.idle_exit is not None and time.monotonic() - idle_since >= args.idle_exit:
                break
            continue
        with path.open("rb") as f:
            f.seek(offset)
            data = f.read(size - offset)
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            continue
        offset += cut
        idle_since = time.monotonic()
        records, broken = _new_records(data[:cut])
        for rec in records:
            if rec.get("type") == "system" and rec.get("subtype") == "compact_boundary":
                conv = _conversation(args)  # what follows replaces the history
            if rec.get("isSidechain") is True:
                continue  # a subagent's record: not the main thread
            try:
                conv.append([rec])
            except MsgnormError:
                broken += 1  # an invalid record (SPEC §1): left out, as load_session does
        updates += 1
        _report_turn(conv, len(records), "update", broken)
    return 0


def _conversation(args: argparse.Namespace, records: Any = None) -> Conversation:
    """``follow``'s conversation, with its context-editing policy if one was asked for."""
    tools = None
    if args.clear_tool_results is not None:
        tools = {"trigger": args.trigger, "keep": args.clear_tool_results}
        if args.clear_at_least:
            tools["clear_at_least"] = args.clear_at_least
    thinking: Any = None
    if args.clear_thinking is not None:
        thinking = args.clear_thinking
        if tools is None:
            thinking = {"keep_turns": thinking, "trigger": args.trigger}
            if args.clear_at_least:
                thinking["clear_at_least"] = args.clear_at_least
    return Conversation(records, kind="bytes", clear_tool_results=tools, clear_thinking=thinking)


def _new_records(data: bytes) -> tuple[list[dict[str, Any]], int]:
    """The records of whole new lines, and how many lines were not JSON objects."""
    out: list[dict[str, Any]] = []
    broken = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            rec = msgspec.json.decode(line)
        except msgspec.DecodeError:
            rec = None
        if isinstance(rec, dict):
            out.append(rec)
        else:
            broken += 1
    return out, broken


def _report_turn(conv: Conversation, added: int, what: str, broken: int = 0) -> None:
    fired = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in conv.tail_report().items() if v)
    extra = f"; {broken} broken line(s) skipped" if broken else ""
    edits = conv.edits
    if edits and edits[-1]["input_len"] == conv.input_len:
        e = edits[-1]
        extra += (
            f"; context edit: {e['results_cleared']} tool results, "
            f"{e['thinking_cleared']} thinking blocks cleared, {e['tokens_saved']} tokens "
            f"saved, the prompt cache rewritten from record {e['first_changed']}"
        )
    print(
        f"{what}: +{added} records; {len(conv)} out ({conv.settled_len} settled), "
        f"{conv.count_tokens()} tokens; open turn repairs: {fired or 'none'}{extra}",
        flush=True,
    )


def add_parser(sub: Any) -> None:
    f = sub.add_parser(
        "follow", help="tail a live session file: each turn's size, tokens and repairs"
    )
    f.add_argument("path", help="session file that is being written")
    f.add_argument("--interval", type=float, default=0.5, help="seconds between looks")
    f.add_argument(
        "--idle-exit", type=float, default=None, metavar="S", help="stop after S idle seconds"
    )
    f.add_argument("--max-updates", type=int, default=None, metavar="N", help="stop after N")
    e = f.add_argument_group(
        "context editing (a policy: fires when the output crosses --trigger, and what it "
        "cleared stays cleared)"
    )
    clearing_options(e, "clear the results of all but the last KEEP tool uses (default 3)")
    e.add_argument("--trigger", type=int, default=100_000, metavar="N", help="tokens (100000)")
    e.add_argument(
        "--clear-at-least", type=int, default=0, metavar="N", help="fire only if N tokens go"
    )
    f.set_defaults(func=_follow)
