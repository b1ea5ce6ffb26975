"""The ``msgnorm`` command: one module per subcommand, each adding its parser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._native import __version__
from ..errors import MsgnormError
from . import check, count, follow, normalize, rules, search, sessions, split, threads, usage

__all__ = ["main"]

#: The subcommands, in the order ``msgnorm --help`` lists them.
SUBCOMMANDS = (
    normalize,
    threads,
    follow,
    split,
    count,
    check,
    rules,
    usage,
    sessions,
    search,
)


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
    for command in SUBCOMMANDS:
        command.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except (MsgnormError, OSError) as e:
        print(f"msgnorm: error: {e}", file=sys.stderr)
        return 2
