"""The ``msgnorm`` command: normalize, split or count a transcript file."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from . import _api, _tree, provider_rules, providers, session
from ._native import __version__
from .conversation import Conversation
from .editing import clear_thinking_report, clear_tool_results_report
from .errors import MsgnormError

__all__ = ["main"]


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _write(data: bytes, out: str | None) -> None:
    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()
    else:
        Path(out).write_bytes(data + b"\n")


def _summary(records_in: int, records_out: int, report: dict[str, int]) -> str:
    fired = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in report.items() if v)
    return f"msgnorm: {records_in} records in, {records_out} out; repairs: {fired or 'none'}"


def _count_records(data: bytes) -> int:
    """Records in a JSON array or JSON Lines (the input already parsed once by the core)."""
    stripped = data.lstrip()
    if stripped.startswith(b"["):
        try:
            return len(msgspec.json.decode(data, type=list[msgspec.Raw]))
        except msgspec.DecodeError:
            pass
    return sum(1 for line in data.splitlines() if line.strip())


def _progress_bar(args: argparse.Namespace, total: int) -> Any:
    """A tqdm bar on stderr for big inputs (``--progress``, or a terminal), if tqdm is there."""
    want = args.progress
    if want is None:
        want = sys.stderr.isatty() and total >= _BIG_INPUT
    if not want:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # the [cli] extra brings it
        return None
    return tqdm(total=total, unit="B", unit_scale=True, desc="reading", file=sys.stderr)


_BIG_INPUT = 32 << 20


def _load(args: argparse.Namespace) -> tuple[session.Session | None, bytes]:
    """The records to work on: the chosen thread of a session (the default), or
    the whole file read as a flat list (``--flat``, standard input given as a JSON array)."""
    if args.path == "-":
        data = sys.stdin.buffer.read()
        if args.flat or data.lstrip().startswith(b"["):
            return None, data
        source: Any = data
        total = len(data)
    else:
        if args.flat:
            return None, _read(args.path)
        paths = session.session_files(args.path)
        if len(paths) == 1 and _starts_with_array(paths[0]):
            return None, paths[0].read_bytes()
        source = args.path
        total = sum(p.stat().st_size for p in paths)
    bar = _progress_bar(args, total)
    try:
        loaded = session.load_session(
            source,
            thread=args.thread,
            after_compaction=not args.full_history,
            errors=args.errors,
            kind="bytes",
            progress=None if bar is None else bar.update,
        )
    finally:
        if bar is not None:
            bar.close()
    return loaded, loaded.records


def _starts_with_array(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4096).lstrip().startswith(b"[")


def _normalize(args: argparse.Namespace) -> int:
    if _tree.is_tree_job(args.path, args.output, args.jobs, args.engine):
        return _normalize_tree(args)
    if args.jobs is not None or args.engine is not None:
        raise MsgnormError("--jobs and --engine take a directory (and -o an output directory)")
    loaded: session.Session | None = None
    if args.source != "records":
        data = _from_provider(_read(args.path), args.source)
    else:
        loaded, data = _load(args)
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
    _write(out, args.output)
    line = _summary(_count_records(data), n_out, report)
    if loaded is not None:  # one line: what the loader chose and skipped, then the repairs
        line = f"msgnorm: {loaded.summary()} | {line.removeprefix('msgnorm: ')}"
    if cleared is not None:
        line += (
            f"; cleared: {cleared['results_cleared']} tool results, "
            f"{cleared['thinking_cleared']} thinking blocks, "
            f"{cleared['tokens_saved']} tokens saved"
        )
    print(line, file=sys.stderr)
    return 0


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


def _keep_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, not {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, not {text!r}")
    return n


def _keep_turns(text: str) -> int | str:
    return "all" if text == "all" else _keep_count(text)


def _threads(args: argparse.Namespace) -> int:
    loaded, _ = _load(args)
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


def _clearing_options(p: Any, results_help: str) -> None:
    """``--clear-tool-results[=KEEP]`` and ``--clear-thinking[=KEEP]`` (normalize, follow)."""
    p.add_argument(
        "--clear-tool-results",
        nargs="?",
        const=3,
        default=None,
        type=_keep_count,
        metavar="KEEP",
        help=results_help,
    )
    p.add_argument(
        "--clear-thinking",
        nargs="?",
        const=1,
        default=None,
        type=_keep_turns,
        metavar="KEEP",
        help="drop thinking but in the last KEEP assistant turns (default 1, or 'all')",
    )


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


def _split(args: argparse.Namespace) -> int:
    data = _read(args.path)
    out = _api.normalize_messages(data)
    _write(out, args.output)
    n_out = len(msgspec.json.decode(out, type=list[msgspec.Raw]))
    print(f"msgnorm: {_count_records(data)} records in, {n_out} out", file=sys.stderr)
    return 0


def _tree_only_defaults(args: argparse.Namespace) -> None:
    """Options the directory mode does not take (each file: main thread, broken lines skipped)."""
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
    summary = _tree.normalize_tree(
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
    )
    _tree.print_lines(summary.lines("written"))
    return 1 if summary.errors else 0


def _count_tree(args: argparse.Namespace) -> int:
    summary, biggest = _tree.count_tree(
        Path(args.path),
        session=not args.flat,
        jobs=args.jobs,
        progress=args.progress,
        pattern=args.glob,
        top=args.top,
        chars_per_token=args.chars_per_token,
    )
    lines = [
        f"total: {summary.tokens} tokens in {summary.written} files ({summary.records} records)"
    ]
    if biggest:
        lines.append(f"biggest {len(biggest)} files:")
        lines += [f"  {path}: {n}" for n, path in biggest]
    sys.stdout.write("\n".join(lines) + "\n")
    _tree.print_lines(summary.lines("counted"))
    return 1 if summary.errors else 0


def _count(args: argparse.Namespace) -> int:
    if args.path != "-" and Path(args.path).is_dir():
        return _count_tree(args)
    data = _read(args.path)
    per = _api.count_tokens_per_record(data, chars_per_token=args.chars_per_token)
    records: list[Any] = _records(data)
    by_type: dict[str, int] = {}
    for rec, n in zip(records, per, strict=True):
        t = rec.get("type") if isinstance(rec, dict) else None
        by_type[str(t)] = by_type.get(str(t), 0) + n
    total = sum(per)
    lines = [f"total: {total} tokens in {len(per)} records"]
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


def _records(data: bytes) -> list[Any]:
    """The records as dicts (for display; the core has validated them already)."""
    stripped = data.lstrip()
    if stripped.startswith(b"["):
        try:
            value = msgspec.json.decode(data)
            if isinstance(value, list):
                return value
        except msgspec.DecodeError:
            pass
    return [msgspec.json.decode(line) for line in data.splitlines() if line.strip()]


def _session_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("session (SPEC §8)")
    g.add_argument(
        "--thread",
        default="main",
        metavar="ID",
        help="main (default), an agent id, a session id, or a record uuid",
    )
    g.add_argument(
        "--full-history",
        action="store_true",
        help="follow compactions back to the start (default: after the last one)",
    )
    g.add_argument(
        "--flat",
        action="store_true",
        help="read the file as a flat list of records, not a session tree",
    )
    g.add_argument(
        "--errors",
        choices=["skip", "raise"],
        default="skip",
        help="broken lines: skip and report them (default), or stop",
    )
    g.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: for big inputs on a terminal; needs tqdm)",
    )


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be an int >= 1, not {text!r}")
    return n


def _tree_options(g: Any) -> None:
    g.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=None,
        metavar="N",
        help="threads (default: MSGNORM_NUM_THREADS, else every CPU)",
    )
    g.add_argument("--glob", default="*.jsonl", help="which files (default: *.jsonl)")


def _request(data: bytes) -> tuple[Any, Any, Any]:
    """``(messages, system, tools)`` of a file: a message list (JSON array or JSON
    Lines), or a request body holding one (``messages``, ``input`` or ``contents``)."""
    if data.lstrip().startswith(b"{"):
        try:
            body = msgspec.json.decode(data)
        except msgspec.DecodeError:
            body = None  # JSON Lines: the core reads it
        if isinstance(body, dict):
            tools = body.get("toolConfig", body.get("tools"))
            if "messages" in body:
                return body["messages"], body.get("system"), tools
            if "input" in body:
                return body["input"], None, tools
            if "contents" in body:
                system = body.get("system_instruction", body.get("systemInstruction"))
                return body["contents"], system, tools
    return data, None, None


def _check(args: argparse.Namespace) -> int:
    messages, system, tools = _request(_read(args.path))
    if args.tools is not None:
        tools = msgspec.json.decode(_read(args.tools))
    if args.system is not None:
        system = msgspec.json.decode(_read(args.system))
    found = provider_rules.validate(messages, args.provider, system=system, tools=tools)
    out = sys.stdout
    for v in found:
        index = "-" if v.index is None else v.index
        out.write(f"{index}\t{v.path}\t{v.rule}\t{v.message}\n")
    n = len(found)
    what = f"{n} violation{'s' if n != 1 else ''}" if n else "no violations"
    print(f"msgnorm: {what} of the {args.provider} rules", file=sys.stderr)
    return 1 if found else 0


def _rules(args: argparse.Namespace) -> int:
    if args.markdown:
        sys.stdout.write(provider_rules.rules_markdown())
        return 0
    for r in provider_rules.rules(args.provider):
        sys.stdout.write(f"{r['rule']}\t{r['message']}\t{r['repair']}\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="msgnorm",
        description="Normalize LLM agent transcripts (JSON Lines or a JSON array) for a model API.",
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help="print the version (the Rust core's) and exit",
    )
    sub = p.add_subparsers(dest="command", required=True)

    n = sub.add_parser("normalize", help="what a model API accepts (SPEC §4), as JSON")
    n.add_argument(
        "path", help="session file, project directory, JSON array file, or - for standard input"
    )
    _session_options(n)
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
    n.add_argument("--max-media", type=int, default=100, metavar="N", help="-1: no limit")
    _clearing_options(
        n,
        "replace the results of all but the last KEEP tool uses (default 3) by "
        "'[cleared]', the current tool loop excepted; before --max-tokens",
    )
    n.add_argument("--max-tokens", type=int, default=None, metavar="N", help="trim to N tokens")
    n.add_argument("--pin", type=int, default=0, metavar="K", help="keep the first K records")
    n.add_argument(
        "-o", "--output", default=None, help="output file (default: stdout), or directory"
    )
    d = n.add_argument_group(
        "directory mode (PATH a directory, and --jobs, --engine or an -o directory)",
        "each *.jsonl file under PATH is normalized on its own (a session file: its main "
        "thread; --flat: a flat list) into OUTDIR/<relative path>.json, on every core",
    )
    _tree_options(d)
    d.add_argument(
        "--engine",
        choices=["ray", "daft"],
        default=None,
        help="run on Ray (RAY_ADDRESS, else a local cluster) or Daft instead of this process",
    )
    n.set_defaults(func=_normalize)

    t = sub.add_parser("threads", help="the threads of a session: id, records, prompt, time")
    t.add_argument("path", help="session file, project directory, or - for standard input")
    _session_options(t)
    t.set_defaults(func=_threads)

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
    _clearing_options(e, "clear the results of all but the last KEEP tool uses (default 3)")
    e.add_argument("--trigger", type=int, default=100_000, metavar="N", help="tokens (100000)")
    e.add_argument(
        "--clear-at-least", type=int, default=0, metavar="N", help="fire only if N tokens go"
    )
    f.set_defaults(func=_follow)

    s = sub.add_parser("split", help="one record per content block (SPEC §3), as JSON")
    s.add_argument("path", help="transcript file, or - for standard input")
    s.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    s.set_defaults(func=_split)

    c = sub.add_parser("count", help="approximate tokens (SPEC §6): total, per type, biggest")
    c.add_argument("path", help="transcript file, directory tree, or - for standard input")
    c.add_argument("--chars-per-token", type=float, default=4.0)
    c.add_argument("--top", type=int, default=5, help="how many of the biggest records (files)")
    g = c.add_argument_group("directory (each *.jsonl file: its session's main thread)")
    g.add_argument("--flat", action="store_true", help="count each file as a flat list")
    g.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: on a terminal; needs tqdm)",
    )
    _tree_options(g)
    c.set_defaults(func=_count)

    k = sub.add_parser(
        "check",
        help="the provider rules a message list breaks: index, path, rule, provider's error "
        "(exit 1 when any)",
    )
    k.add_argument(
        "path",
        help="messages (JSON array or JSON Lines) or a request body holding them, or - for stdin",
    )
    k.add_argument("--provider", choices=provider_rules.PROVIDERS, default="anthropic")
    k.add_argument("--system", default=None, help="JSON file of the system parameter")
    k.add_argument("--tools", default=None, help="JSON file of the tools (Bedrock: the toolConfig)")
    k.set_defaults(func=_check)

    r = sub.add_parser("rules", help="the provider rules msgnorm checks, and its repairs")
    r.add_argument("--provider", choices=provider_rules.PROVIDERS, default=None)
    r.add_argument("--markdown", action="store_true", help="every table as docs/RULES.md")
    r.set_defaults(func=_rules)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except (MsgnormError, OSError) as e:
        print(f"msgnorm: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
