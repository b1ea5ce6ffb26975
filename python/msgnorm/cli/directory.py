"""``msgnorm normalize DIR -o OUTDIR`` and ``msgnorm count DIR``: every session of a
directory tree on every core (the batch kernel), or on Ray or Daft.

A session is what :func:`msgnorm.load_session` reads for a session file
(:func:`msgnorm.session_files`): the file and its subagent files
(``<session>/subagents/**/agent-*.jsonl``, legacy ``agent-*.jsonl`` beside it
naming the session).  Each session is one item: its main thread after the last
compaction, broken lines skipped, as ``load_session`` gives it (a session of one
file is loaded by the batch kernel, which reads it the same way; one with
subagent files by ``load_session`` itself).  An ``agent-*.jsonl`` file no
session here claims is an item of its own.  With
``--flat`` each ``*.jsonl`` file is an item, a flat list of records.

``normalize`` writes ``OUTDIR/<relative path of the session file>.json`` (a JSON
array) for each item that normalizes, each atomically (a temporary file in the
same directory, then a rename: an interrupted run leaves no partial output), and
lists the others with their errors at the end.  ``OUTDIR/.msgnorm-manifest.json``
records, per output, the path, size and mtime (ns) of each input file, the
output's own size and mtime and the options: a rerun skips every output whose
record still holds (``--force`` rewrites them all).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from .. import _api, batch
from ..arrow import REPAIRS
from ..errors import MsgnormError
from ..session import _agent_id, load_session, session_files

__all__ = [
    "MANIFEST",
    "Summary",
    "Unit",
    "count_tree",
    "normalize_tree",
    "tree_files",
    "tree_units",
]

#: A batch of items for one kernel call: at most this many items or bytes.
BATCH_FILES = 256
BATCH_BYTES = 64 << 20
#: How many failing items the summary names.
ERRORS_SHOWN = 20
#: The record of what each output was made from, in the output directory.
MANIFEST = ".msgnorm-manifest.json"
#: Temporary files start so (and end with the writer's process id).
TMP_PREFIX = ".msgnorm-tmp-"
#: The manifest is saved at least this often (seconds) during a run.
SAVE_EVERY = 10.0


def tree_files(root: Path, pattern: str = "*.jsonl") -> list[Path]:
    """The files under ``root`` matching ``pattern``, sorted, as paths below ``root``."""
    if not root.is_dir():
        raise MsgnormError(f"no directory at {str(root)!r}")
    return sorted(p.relative_to(root) for p in root.rglob(pattern) if p.is_file())


@dataclass(frozen=True)
class Unit:
    """One item of a directory run: the output is named after ``rel``; ``files``
    are every input file (``rel`` first), all relative to the root."""

    rel: Path
    files: tuple[Path, ...]


def tree_units(root: Path, pattern: str = "*.jsonl", session: bool = True) -> list[Unit]:
    """The items of a run over ``root``: sessions with their subagent files, or
    (``session=False``) every file alone."""
    files = tree_files(root, pattern)
    if not session:
        return [Unit(rel, (rel,)) for rel in files]
    units: list[Unit] = []
    claimed: set[Path] = set()
    for rel in files:
        if _agent_id(rel) is not None:
            continue  # a subagent's file: read with its session
        try:
            members = tuple(p.relative_to(root) for p in session_files(root / rel))
        except (MsgnormError, ValueError):
            members = (rel,)  # gone meanwhile: its error comes when it is read
        units.append(Unit(rel, members))
        claimed.update(members)
    units += [
        Unit(rel, (rel,)) for rel in files if _agent_id(rel) is not None and rel not in claimed
    ]
    units.sort(key=lambda u: u.rel)
    return units


@dataclass
class Summary:
    #: Items (sessions, or files with ``--flat``).
    files: int = 0
    written: int = 0
    #: Outputs already up to date (not rewritten).
    fresh: int = 0
    records: int = 0
    tokens: int = 0
    repairs: dict[str, int] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    startup: float = 0.0
    unit: str = "files"

    def add_repairs(self, report: dict[str, int]) -> None:
        for k, v in report.items():
            if v:
                self.repairs[k] = self.repairs.get(k, 0) + v

    def lines(self, verb: str) -> list[str]:
        rate = self.files / self.seconds if self.seconds > 0 else 0.0
        fresh = f", {self.fresh} up to date (skipped)" if self.fresh else ""
        head = (
            f"msgnorm: {self.files} {self.unit}, {self.written} {verb}{fresh}, "
            f"{self.records} records, {len(self.errors)} errors in {self.seconds:.2f}s "
            f"({rate:.0f} {self.unit}/s)"
        )
        if self.startup:
            head += f"; engine start-up {self.startup:.2f}s"
        out = [head]
        if self.repairs:
            order = {k: i for i, k in enumerate(REPAIRS)}
            ranked = sorted(self.repairs.items(), key=lambda kv: order.get(kv[0], len(order)))
            fired = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ranked)
            out.append(f"msgnorm: repairs: {fired}")
        for path, msg in self.errors[:ERRORS_SHOWN]:
            out.append(f"msgnorm: error: {path}: {msg}")
        if len(self.errors) > ERRORS_SHOWN:
            out.append(f"msgnorm: ... and {len(self.errors) - ERRORS_SHOWN} more errors")
        return out


# --------------------------------------------------------------------------- #
# reading
# --------------------------------------------------------------------------- #

#: An item read: its bytes and whether they are a session file for the kernel to
#: load (else records: a flat file, or a session ``load_session`` loaded), or why
#: it could not be read.
Read = tuple[bytes, bool] | MsgnormError
Stamp = list[list[Any]]


def _stamp(root: Path, unit: Unit) -> Stamp | None:
    """``[path, size, mtime_ns]`` of each input file (``None``: one cannot be seen)."""
    out: Stamp = []
    for rel in unit.files:
        try:
            st = (root / rel).stat()
        except OSError:
            return None
        out.append([rel.as_posix(), st.st_size, st.st_mtime_ns])
    return out


def _read_one(root: Path, unit: Unit, session: bool, whole: bool) -> Read:
    """A session of one file is read as it is, for the kernel to load as
    ``load_session`` does (``whole``: loaded here all the same); a session with
    subagent files, or an agent's file, is loaded here by ``load_session``."""
    try:
        if session and (whole or len(unit.files) > 1 or _agent_id(unit.rel) is not None):
            return load_session(root / unit.rel, kind="bytes").records, False
        return (root / unit.rel).read_bytes(), session
    except OSError as e:
        return MsgnormError(f"cannot read: {e.strerror or e}")
    except MsgnormError as e:
        return e


def _chunks(units: list[Unit], sizes: Sequence[int]) -> Iterator[list[int]]:
    """Indices of ``units`` in kernel-sized chunks."""
    chunk: list[int] = []
    size = 0
    for i in range(len(units)):
        if chunk and (len(chunk) >= BATCH_FILES or size + sizes[i] > BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(i)
        size += sizes[i]
    if chunk:
        yield chunk


def _prefetched(
    root: Path,
    units: list[Unit],
    sizes: Sequence[int],
    session: bool,
    jobs: int | None,
    whole: bool = False,
) -> Iterator[tuple[list[Unit], list[Read]]]:
    """Chunks of items with their records: the next chunk is read (``load_session``
    releases the GIL) while the kernel runs on this one."""
    threads = jobs or batch.default_num_threads()
    with ThreadPoolExecutor(threads, thread_name_prefix="msgnorm-read") as pool:
        pending: tuple[list[Unit], Iterator[Read]] | None = None
        for idx in _chunks(units, sizes):
            chunk = [units[i] for i in idx]
            reads = pool.map(lambda u: _read_one(root, u, session, whole), chunk)
            if pending is not None:
                yield pending[0], list(pending[1])
            pending = (chunk, reads)
        if pending is not None:
            yield pending[0], list(pending[1])


def _bar(total: int, want: bool | None, unit: str) -> Any:
    if want is None:
        want = sys.stderr.isatty()
    if not want:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # the [cli] extra brings it
        return None
    return tqdm(total=total, unit=unit, desc="normalizing", file=sys.stderr)


def _records(out: bytes) -> int:
    return len(msgspec.json.decode(out, type=list[msgspec.Raw]))


# --------------------------------------------------------------------------- #
# writing: atomic outputs, the manifest
# --------------------------------------------------------------------------- #


def write_atomic(target: Path, data: bytes) -> None:
    """``data`` into ``target`` through a temporary file in the same directory and
    a rename: ``target`` is the old file or the new one, never part of one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{TMP_PREFIX}{target.name}.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _remove_stale_temporaries(outdir: Path) -> None:
    """Temporary files a killed run left behind."""
    for tmp in outdir.rglob(f"{TMP_PREFIX}*"):
        with contextlib.suppress(OSError):
            tmp.unlink()


class Manifest:
    """Per output (its path below the output directory): the inputs' stamps and
    the output's size and mtime when it was written, under one options key."""

    def __init__(self, outdir: Path, key: str, force: bool) -> None:
        self.path = outdir / MANIFEST
        self.outdir = outdir
        self.key = key
        self.entries: dict[str, Any] = {}
        self.saved = time.monotonic()
        if force:
            return
        try:
            old = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return
        if isinstance(old, dict) and old.get("version") == 1 and old.get("options") == key:
            entries = old.get("outputs")
            self.entries = entries if isinstance(entries, dict) else {}

    def fresh(self, out_rel: str, stamp: Stamp | None) -> bool:
        entry = self.entries.get(out_rel)
        if stamp is None or not isinstance(entry, dict) or entry.get("inputs") != stamp:
            return False
        try:
            st = (self.outdir / out_rel).stat()
        except OSError:
            return False
        return [st.st_size, st.st_mtime_ns] == entry.get("output")

    def wrote(self, out_rel: str, stamp: Stamp | None) -> None:
        if stamp is None:
            self.entries.pop(out_rel, None)
            return
        st = (self.outdir / out_rel).stat()
        self.entries[out_rel] = {"inputs": stamp, "output": [st.st_size, st.st_mtime_ns]}

    def failed(self, out_rel: str) -> None:
        self.entries.pop(out_rel, None)

    def save(self, now: bool = True) -> None:
        if not now and time.monotonic() - self.saved < SAVE_EVERY:
            return
        doc = {"version": 1, "options": self.key, "outputs": self.entries}
        write_atomic(self.path, json.dumps(doc, sort_keys=True).encode())
        self.saved = time.monotonic()


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """SIGTERM as an exception in the main thread, so a terminated run removes its
    temporary file and saves its manifest like an interrupted (Ctrl-C) one."""

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def output_path(outdir: Path, rel: Path) -> Path:
    return outdir / rel.with_suffix(".json")


# --------------------------------------------------------------------------- #
# the runs
# --------------------------------------------------------------------------- #


def normalize_tree(
    root: Path,
    outdir: Path,
    *,
    session: bool = True,
    jobs: int | None = None,
    engine: str = "local",
    progress: bool | None = None,
    pattern: str = "*.jsonl",
    options: dict[str, Any] | None = None,
    force: bool = False,
) -> Summary:
    """Normalize every item of the tree into ``outdir``; the summary of the run."""
    options = options or {}
    if engine not in ("local", "ray", "daft"):
        raise MsgnormError(f"engine must be local, ray or daft, not {engine!r}")
    units = tree_units(root, pattern, session)
    if outdir.resolve() == root.resolve() or root.resolve() in outdir.resolve().parents:
        raise MsgnormError("the output directory must not be inside the input directory")
    outdir.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(outdir)
    key = json.dumps({"session": session, **options}, sort_keys=True)
    manifest = Manifest(outdir, key, force)
    s = Summary(files=len(units), unit="sessions" if session else "files")
    stamps = [_stamp(root, u) for u in units]
    todo = [
        i
        for i, u in enumerate(units)
        if not manifest.fresh(output_path(Path(), u.rel).as_posix(), stamps[i])
    ]
    s.fresh = len(units) - len(todo)
    stamp_of = {units[i]: stamps[i] for i in todo}
    pending = [units[i] for i in todo]
    sizes = [sum(e[1] for e in stamps[i] or []) for i in todo]
    bar = _bar(len(pending), progress, s.unit[:-1])
    start = time.perf_counter()

    def done(unit: Unit, result: Any) -> None:
        name = output_path(Path(), unit.rel).as_posix()
        if isinstance(result, BaseException):
            s.errors.append((unit.rel.as_posix(), str(result)))
            manifest.failed(name)
            return
        out, report = result
        write_atomic(outdir / name, out + b"\n")
        manifest.wrote(name, stamp_of[unit])
        s.written += 1
        s.records += _records(out)
        s.add_repairs(report)

    try:
        with _terminate_cleanly():
            whole = engine != "local"  # the engines take records
            for chunk, reads in _prefetched(root, pending, sizes, session, jobs, whole):
                s.startup += _run_chunk(engine, chunk, reads, jobs, options, done)
                manifest.save(now=False)
                if bar is not None:
                    bar.update(len(chunk))
    finally:
        manifest.save()
        if bar is not None:
            bar.close()
    s.seconds = time.perf_counter() - start
    s.errors.sort()
    return s


def _run_chunk(
    engine: str,
    chunk: list[Unit],
    reads: list[Read],
    jobs: int | None,
    options: dict[str, Any],
    done: Callable[[Unit, Any], None],
) -> float:
    """Normalizes a chunk here or on an engine; returns the engine's start-up time."""
    good = [i for i, r in enumerate(reads) if not isinstance(r, MsgnormError)]
    for u, r in zip(chunk, reads, strict=True):
        if isinstance(r, MsgnormError):
            done(u, r)
    if engine == "local":
        for kernel_loads in (True, False):
            at = [i for i in good if reads[i][1] is kernel_loads]  # type: ignore[index]
            items = [reads[i][0] for i in at]  # type: ignore[index]
            results = batch.normalize_batch_report(
                items, num_threads=jobs, session=kernel_loads, **options
            )
            for i, res in zip(at, results, strict=True):
                done(chunk[i], res)
        return 0.0
    pairs = [(chunk[i], reads[i][0]) for i in good]  # type: ignore[index]
    return _on_engine(engine, pairs, jobs, options, done) if good else 0.0


def _on_engine(
    engine: str,
    items: list[tuple[Unit, bytes]],
    jobs: int | None,
    options: dict[str, Any],
    done: Callable[[Unit, Any], None],
) -> float:
    """Normalizes items on Ray or Daft: this process reads the items (as
    ``load_session`` does) and writes the results; the engine's workers run the
    kernel.  Returns the engine's start-up time (the first chunk starts it)."""
    t0 = time.perf_counter()
    units = [u for u, _ in items]
    data = [d for _, d in items]
    names = [str(k) for k in range(len(units))]
    opts = {**options, "tokens": False}
    if engine == "ray":
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
        import ray  # type: ignore[import-untyped,unused-ignore]

        from .. import ray as adapter

        if not ray.is_initialized():
            # RAY_ADDRESS (or a running local cluster) if set, else a local one of `jobs` CPUs
            init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if not os.environ.get("RAY_ADDRESS"):
                init["num_cpus"] = jobs or batch.default_num_threads()
            ray.init(**init)
            ray.data.DataContext.get_current().enable_progress_bars = False
        startup = time.perf_counter() - t0
        ds = ray.data.from_arrow(pa.table({"path": names, "bytes": pa.array(data, pa.binary())}))
        ds = adapter.normalize_dataset(ds, "bytes", **opts).drop_columns(["bytes"])
        batches: Iterator[Any] = ds.iter_batches(batch_format="pyarrow", batch_size=None)
    else:
        import daft  # type: ignore[import-untyped,unused-ignore]

        from .. import daft as adapter_d

        startup = time.perf_counter() - t0
        df = daft.from_pydict({"path": names, "data": data})
        df = adapter_d.normalize_dataframe(df, "data", **opts).exclude("data")
        batches = df.to_arrow_iter()
    for b in batches:
        cols = b.to_pydict() if hasattr(b, "to_pydict") else b
        for p, out, rep, err in zip(
            cols["path"], cols["normalized"], cols["repairs"], cols["error"], strict=True
        ):
            done(units[int(p)], MsgnormError(err) if err is not None else (out, rep))
    return startup


def count_tree(
    root: Path,
    *,
    session: bool = True,
    jobs: int | None = None,
    progress: bool | None = None,
    pattern: str = "*.jsonl",
    top: int = 5,
    chars_per_token: float | None = None,
    tokenizer: str = "auto",
) -> tuple[Summary, list[tuple[int, str]]]:
    """Tokens of every item of the tree: the summary and the ``top`` biggest items."""
    units = tree_units(root, pattern, session)
    s = Summary(files=len(units), unit="sessions" if session else "files")
    sizes: list[tuple[int, str]] = []
    stamps = [_stamp(root, u) for u in units]
    byte_sizes = [sum(e[1] for e in st or []) for st in stamps]
    bar = _bar(len(units), progress, s.unit[:-1])
    start = time.perf_counter()
    try:
        for chunk, reads in _prefetched(root, units, byte_sizes, session, jobs):
            results: list[Any] = [None] * len(chunk)
            for kernel_loads in (True, False):
                at = [i for i, r in enumerate(reads) if not isinstance(r, MsgnormError)]
                at = [i for i in at if reads[i][1] is kernel_loads]  # type: ignore[index]
                counts = batch.count_tokens_batch(
                    [reads[i][0] for i in at],  # type: ignore[index]
                    num_threads=jobs,
                    session=kernel_loads,
                    per_record=True,
                    **_api._counting_options(tokenizer, chars_per_token),
                )
                for i, n in zip(at, counts, strict=True):
                    results[i] = n
            for u, r, n in zip(chunk, reads, results, strict=True):
                if isinstance(r, MsgnormError):
                    s.errors.append((u.rel.as_posix(), str(r)))
                elif isinstance(n, BaseException):
                    s.errors.append((u.rel.as_posix(), str(n)))
                else:
                    s.written += 1
                    s.records += len(n)
                    s.tokens += sum(n)
                    sizes.append((sum(n), u.rel.as_posix()))
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    s.seconds = time.perf_counter() - start
    s.errors.sort()
    sizes.sort(key=lambda t: (-t[0], t[1]))
    return s, sizes[:top]


def is_tree_job(path: str, output: str | None, jobs: int | None, engine: str | None) -> bool:
    """``normalize PATH``: a directory tree job (one output per session) when PATH is
    a directory and ``--jobs``/``--engine`` is given or ``-o`` is a directory."""
    if path == "-" or not Path(path).is_dir():
        return False
    if jobs is not None or engine is not None:
        return True
    return output is not None and (Path(output).is_dir() or output.endswith(("/", os.sep)))


def print_lines(lines: Sequence[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)
