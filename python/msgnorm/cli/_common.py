"""What the subcommands share: reading and writing files, loading a session, progress
bars and option types."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from .. import session


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def write_output(data: bytes, out: str | None) -> None:
    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()
    else:
        Path(out).write_bytes(data + b"\n")


def clip(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters (the last one an ellipsis)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def write_table(rows: Sequence[Sequence[str]]) -> None:
    """Rows as aligned columns on standard output (the last column as it is)."""
    n = len(rows[0]) - 1
    widths = [max(len(r[k]) for r in rows) for k in range(n)]
    lines = ("  ".join(r[k].ljust(widths[k]) for k in range(n)) + "  " + r[n] for r in rows)
    sys.stdout.write("\n".join(line.rstrip() for line in lines) + "\n")


def count_records(data: bytes) -> int:
    """Records in a JSON array or JSON Lines (the input already parsed once by the core)."""
    stripped = data.lstrip()
    if stripped.startswith(b"["):
        try:
            return len(msgspec.json.decode(data, type=list[msgspec.Raw]))
        except msgspec.DecodeError:
            pass
    return sum(1 for line in data.splitlines() if line.strip())


def progress_bar(args: argparse.Namespace, total: int) -> Any:
    """A tqdm bar on stderr for big inputs (``--progress``, or a terminal), if tqdm is there."""
    want = args.progress
    if want is None:
        want = sys.stderr.isatty() and total >= BIG_INPUT
    if not want:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # the [cli] extra brings it
        return None
    return tqdm(total=total, unit="B", unit_scale=True, desc="reading", file=sys.stderr)


BIG_INPUT = 32 << 20


def load(args: argparse.Namespace) -> tuple[session.Session | None, bytes]:
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
            return None, read_input(args.path)
        paths = session.session_files(args.path)
        if len(paths) == 1 and starts_with_array(paths[0]):
            return None, paths[0].read_bytes()
        source = args.path
        total = sum(p.stat().st_size for p in paths)
    bar = progress_bar(args, total)
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


def starts_with_array(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4096).lstrip().startswith(b"[")


def records_of(data: bytes) -> list[Any]:
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


def keep_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, not {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, not {text!r}")
    return n


def keep_turns(text: str) -> int | str:
    return "all" if text == "all" else keep_count(text)


def clearing_options(p: Any, results_help: str) -> None:
    """``--clear-tool-results[=KEEP]`` and ``--clear-thinking[=KEEP]`` (normalize, follow)."""
    p.add_argument(
        "--clear-tool-results",
        nargs="?",
        const=3,
        default=None,
        type=keep_count,
        metavar="KEEP",
        help=results_help,
    )
    p.add_argument(
        "--clear-thinking",
        nargs="?",
        const=1,
        default=None,
        type=keep_turns,
        metavar="KEEP",
        help="drop thinking but in the last KEEP assistant turns (default 1, or 'all')",
    )


def session_options(p: argparse.ArgumentParser) -> None:
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


def jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be an int >= 1, not {text!r}")
    return n


def tree_options(g: Any) -> None:
    g.add_argument(
        "--jobs",
        "-j",
        type=jobs,
        default=None,
        metavar="N",
        help="threads (default: MSGNORM_NUM_THREADS, else every CPU)",
    )
    g.add_argument("--glob", default="*.jsonl", help="which files (default: *.jsonl)")
