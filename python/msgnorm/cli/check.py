"""``msgnorm check``: the provider rules a message list breaks."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from .. import provider_rules, session
from .._api import normalize_for_api_report
from ..errors import MsgnormError
from ..providers import to_provider_report
from ..providers._source_map import messages_of
from ._common import read_input


def _request(data: bytes) -> tuple[Any, Any, Any, str | None]:
    """``(messages, system, tools, model)`` of a file: a message list (JSON array or
    JSON Lines), or a request body holding one (``messages``, ``input`` or
    ``contents``) and its ``model`` (Bedrock: ``modelId``)."""
    if data.lstrip().startswith(b"{"):
        try:
            body = msgspec.json.decode(data)
        except msgspec.DecodeError:
            body = None  # JSON Lines: the core reads it
        if isinstance(body, dict):
            tools = body.get("toolConfig", body.get("tools"))
            model = body.get("model", body.get("modelId"))
            model = model if isinstance(model, str) else None
            if "messages" in body:
                return body["messages"], body.get("system"), tools, model
            if "input" in body:
                return body["input"], None, tools, model
            if "contents" in body:
                system = body.get("system_instruction", body.get("systemInstruction"))
                return body["contents"], system, tools, model
    return data, None, None, None


def _where(origin: tuple[str | None, int]) -> str:
    file, line = origin
    return f"{file or '<stdin>'}:{line}"


def _lines(origins: list[tuple[str | None, int]], indices: list[int]) -> str:
    return ",".join(_where(origins[i]) for i in indices) or "-"


def _check_session(args: argparse.Namespace) -> int:
    """A session's thread, checked as it is against a provider's rules: each
    violation names the transcript file and line of the records its message
    came from; ``--at N``: the lines that message N of the request msgnorm
    sends (``to_provider``, or ``normalize_for_api`` for Anthropic) came from."""
    source: Any = read_input("-") if args.path == "-" else args.path
    loaded = session.load_session(
        source, thread=args.thread, after_compaction=not args.full_history
    )
    if args.at is not None:
        return _at(args, loaded)
    # only user and assistant records are sent: the others are left out of the check
    sent = [i for i, r in enumerate(loaded.records) if r.get("type") in ("user", "assistant")]
    records = [loaded.records[i] for i in sent]
    tools = msgspec.json.decode(read_input(args.tools)) if args.tools is not None else None
    if args.provider == "anthropic":
        found = provider_rules.validate(records, "anthropic", tools=tools, model=args.model)
        sources = [[i] for i in range(len(records))]
    else:
        # the thread written in the provider's shape as it is (no repair), each
        # message mapped back to the records it was written from
        try:
            out, report = to_provider_report(
                records, args.provider, normalize=False, source_map=True
            )
        except MsgnormError as e:
            print(f"msgnorm: error: {e}", file=sys.stderr)
            return 2
        system = out.get("system", out.get("system_instruction")) if isinstance(out, dict) else None
        found = provider_rules.validate(
            messages_of(out),
            args.provider,
            system=system,
            tools=tools,
            store=not args.no_store,
            model=args.model,
        )
        sources = report["source_map"]
    out_ = sys.stdout
    for v in found:
        where = "-"
        if v.index is not None and v.index < len(sources):
            where = _lines(loaded.origins, [sent[i] for i in sources[v.index]])
        index = "-" if v.index is None else v.index
        out_.write(f"{index}\t{v.path}\t{v.rule}\t{v.message}\t{where}\n")
    n = len(found)
    what = f"{n} violation{'s' if n != 1 else ''}" if n else "no violations"
    print(
        f"msgnorm: {what} of the {args.provider} rules in thread {loaded.thread.id} "
        f"({len(sent)} messages)",
        file=sys.stderr,
    )
    return 1 if found else 0


def _at(args: argparse.Namespace, loaded: Any) -> int:
    """``--at N``: the transcript lines message N of the request came from."""
    if args.provider == "anthropic":
        normalized, report = normalize_for_api_report(loaded.records, source_map=True)
        n = len(normalized)
    else:
        try:
            out, report = to_provider_report(
                loaded.records, args.provider, source_map=True, store=not args.no_store
            )
        except MsgnormError as e:
            print(f"msgnorm: error: {e}", file=sys.stderr)
            return 2
        n = len(messages_of(out))
    if not 0 <= args.at < n:
        what = "items" if args.provider == "openai-responses" else "messages"
        print(f"msgnorm: error: --at {args.at}: the request has {n} {what}", file=sys.stderr)
        return 2
    for i in report["source_map"][args.at]:
        sys.stdout.write(f"{args.at}\t{i}\t{_where(loaded.origins[i])}\n")
    return 0


def _check(args: argparse.Namespace) -> int:
    if args.session:
        return _check_session(args)
    messages, system, tools, model = _request(read_input(args.path))
    if args.tools is not None:
        tools = msgspec.json.decode(read_input(args.tools))
    if args.system is not None:
        system = msgspec.json.decode(read_input(args.system))
    found = provider_rules.validate(
        messages,
        args.provider,
        system=system,
        tools=tools,
        store=not args.no_store,
        model=args.model or model,
    )
    out = sys.stdout
    for v in found:
        index = "-" if v.index is None else v.index
        out.write(f"{index}\t{v.path}\t{v.rule}\t{v.message}\n")
    n = len(found)
    what = f"{n} violation{'s' if n != 1 else ''}" if n else "no violations"
    print(f"msgnorm: {what} of the {args.provider} rules", file=sys.stderr)
    return 1 if found else 0


def add_parser(sub: Any) -> None:
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
    k.add_argument(
        "--model",
        default=None,
        help="the model the request goes to: its rules are checked too (default: the request "
        "body's model, if any)",
    )
    k.add_argument(
        "--no-store",
        action="store_true",
        help="openai-responses: check a stateless request (store=false), whose input may "
        "name no stored item",
    )
    k.add_argument(
        "--session",
        action="store_true",
        help="PATH is a session (Claude Code or Codex): check its thread as it is, "
        "written in the provider's shape, and name each violation's transcript file:line",
    )
    k.add_argument("--thread", default="main", help="with --session: the thread to check")
    k.add_argument(
        "--full-history",
        action="store_true",
        help="with --session: the whole history, not just after the last compaction",
    )
    k.add_argument(
        "--at",
        type=int,
        default=None,
        metavar="N",
        help="with --session: the transcript lines that message N of the request msgnorm "
        "sends to the provider came from (a provider's error at messages[N])",
    )
    k.set_defaults(func=_check)
