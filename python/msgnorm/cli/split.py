"""``msgnorm split``: one record per content block (SPEC §3)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from .. import _api
from ._common import count_records, read_input, write_output


def _split(args: argparse.Namespace) -> int:
    data = read_input(args.path)
    out = _api.normalize_messages(data)
    write_output(out, args.output)
    n_out = len(msgspec.json.decode(out, type=list[msgspec.Raw]))
    print(f"msgnorm: {count_records(data)} records in, {n_out} out", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser("split", help="one record per content block (SPEC §3), as JSON")
    s.add_argument("path", help="transcript file, or - for standard input")
    s.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    s.set_defaults(func=_split)
