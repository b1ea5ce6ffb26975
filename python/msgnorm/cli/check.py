"""``msgnorm check``: the provider rules a message list breaks."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from .. import provider_rules
from ._common import read_input


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
    messages, system, tools = _request(read_input(args.path))
    if args.tools is not None:
        tools = msgspec.json.decode(read_input(args.tools))
    if args.system is not None:
        system = msgspec.json.decode(read_input(args.system))
    found = provider_rules.validate(messages, args.provider, system=system, tools=tools)
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
    k.set_defaults(func=_check)
