"""``msgnorm normalize DIR -o OUTDIR`` and ``msgnorm count DIR``: every transcript
file of a directory tree on every core (the batch kernel), or on Ray or Daft.

Each ``*.jsonl`` file under DIR is one item: a session file (its main thread after
the last compaction, broken lines skipped), or with ``--flat`` a flat list of
records.  ``normalize`` writes ``OUTDIR/<same relative path>.json`` (a JSON array)
for each file that normalizes and lists the others with their errors at the end.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from .. import batch
from ..arrow import REPAIRS
from ..errors import MsgnormError

__all__ = ["Summary", "count_tree", "normalize_tree", "tree_files"]

#: A batch of files for one kernel call: at most this many files or bytes.
BATCH_FILES = 256
BATCH_BYTES = 64 << 20
#: How many failing files the summary names.
ERRORS_SHOWN = 20


def tree_files(root: Path, pattern: str = "*.jsonl") -> list[Path]:
    """The files under ``root`` matching ``pattern``, sorted, as paths below ``root``."""
    if not root.is_dir():
        raise MsgnormError(f"no directory at {str(root)!r}")
    return sorted(p.relative_to(root) for p in root.rglob(pattern) if p.is_file())


@dataclass
class Summary:
    files: int = 0
    written: int = 0
    records: int = 0
    tokens: int = 0
    repairs: dict[str, int] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    startup: float = 0.0

    def add_repairs(self, report: dict[str, int]) -> None:
        for k, v in report.items():
            if v:
                self.repairs[k] = self.repairs.get(k, 0) + v

    def lines(self, verb: str) -> list[str]:
        rate = self.files / self.seconds if self.seconds > 0 else 0.0
        head = (
            f"msgnorm: {self.files} files, {self.written} {verb}, {self.records} records, "
            f"{len(self.errors)} errors in {self.seconds:.2f}s ({rate:.0f} files/s)"
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


def _chunks(root: Path, files: list[Path]) -> Iterator[list[Path]]:
    chunk: list[Path] = []
    size = 0
    for rel in files:
        try:
            n = (root / rel).stat().st_size
        except OSError:
            n = 0
        if chunk and (len(chunk) >= BATCH_FILES or size + n > BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(rel)
        size += n
    if chunk:
        yield chunk


def _read_all(root: Path, chunk: list[Path]) -> list[bytes | OSError]:
    out: list[bytes | OSError] = []
    for rel in chunk:
        try:
            out.append((root / rel).read_bytes())
        except OSError as e:
            out.append(e)
    return out


def _prefetched(
    root: Path, files: list[Path]
) -> Iterator[tuple[list[Path], list[bytes | OSError]]]:
    """Chunks of files with their contents, the next chunk read while this one runs."""
    with ThreadPoolExecutor(1, thread_name_prefix="msgnorm-read") as reader:
        pending: tuple[list[Path], Future[list[bytes | OSError]]] | None = None
        for chunk in _chunks(root, files):
            fut = reader.submit(_read_all, root, chunk)
            if pending is not None:
                yield pending[0], pending[1].result()
            pending = (chunk, fut)
        if pending is not None:
            yield pending[0], pending[1].result()


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


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data + b"\n")


def output_path(outdir: Path, rel: Path) -> Path:
    return outdir / rel.with_suffix(".json")


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
) -> Summary:
    """Normalize every file of the tree into ``outdir``; the summary of the run."""
    options = options or {}
    files = tree_files(root, pattern)
    if outdir.resolve() == root.resolve() or root.resolve() in outdir.resolve().parents:
        raise MsgnormError("the output directory must not be inside the input directory")
    outdir.mkdir(parents=True, exist_ok=True)
    s = Summary(files=len(files))
    bar = _bar(len(files), progress, "file")
    start = time.perf_counter()

    def done(rel: Path, result: Any) -> None:
        if isinstance(result, BaseException):
            s.errors.append((rel.as_posix(), str(result)))
            return
        out, report = result
        _write(output_path(outdir, rel), out)
        s.written += 1
        s.records += _records(out)
        s.add_repairs(report)

    try:
        if engine == "local":
            for chunk, data in _prefetched(root, files):
                good = [i for i, d in enumerate(data) if isinstance(d, bytes)]
                results = batch.normalize_batch_report(
                    [data[i] for i in good], num_threads=jobs, session=session, **options
                )
                for i, d in enumerate(data):
                    if isinstance(d, OSError):
                        done(chunk[i], MsgnormError(f"cannot read: {d.strerror or d}"))
                for i, r in zip(good, results, strict=True):
                    done(chunk[i], r)
                if bar is not None:
                    bar.update(len(chunk))
        else:
            s.startup = _on_engine(engine, root, files, jobs, session, options, done, bar)
    finally:
        if bar is not None:
            bar.close()
    s.seconds = time.perf_counter() - start
    s.errors.sort()
    return s


def _on_engine(
    engine: str,
    root: Path,
    files: list[Path],
    jobs: int | None,
    session: bool,
    options: dict[str, Any],
    done: Callable[[Path, Any], None],
    bar: Any,
) -> float:
    """Runs the job on Ray or Daft; the results stream back here and are written
    here (the workers need to see the input files, not the output directory).
    Returns the engine's start-up time."""
    t0 = time.perf_counter()
    paths = [str((root / rel).resolve()) for rel in files]
    by_path = {p: rel for p, rel in zip(paths, files, strict=True)}
    opts = {**options, "tokens": False}
    if engine == "ray":
        import ray  # type: ignore[import-untyped,unused-ignore]

        from .. import ray as adapter

        if not ray.is_initialized():
            # RAY_ADDRESS (or a running local cluster) if set, else a local one of `jobs` CPUs
            init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if not os.environ.get("RAY_ADDRESS"):
                init["num_cpus"] = jobs or batch.default_num_threads()
            ray.init(**init)
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        startup = time.perf_counter() - t0
        ds = ray.data.read_binary_files(paths, include_paths=True)
        ds = adapter.normalize_dataset(ds, "bytes", session=session, **opts)
        ds = ds.drop_columns(["bytes"])
        batches: Iterator[Any] = ds.iter_batches(batch_format="pyarrow", batch_size=None)
    elif engine == "daft":
        import daft  # type: ignore[import-untyped,unused-ignore]

        from .. import daft as adapter_d

        startup = time.perf_counter() - t0
        df = daft.from_pydict({"path": paths})
        df = df.with_column("data", df["path"].download())
        df = adapter_d.normalize_dataframe(df, "data", session=session, **opts).exclude("data")
        batches = df.to_arrow_iter()
    else:
        raise MsgnormError(f"engine must be local, ray or daft, not {engine!r}")
    for b in batches:
        cols = b.to_pydict() if hasattr(b, "to_pydict") else b
        for p, out, rep, err in zip(
            cols["path"], cols["normalized"], cols["repairs"], cols["error"], strict=True
        ):
            rel = by_path[p.removeprefix("file://")]
            done(rel, MsgnormError(err) if err is not None else (out, rep))
        if bar is not None:
            bar.update(len(cols["path"]))
    return startup


def count_tree(
    root: Path,
    *,
    session: bool = True,
    jobs: int | None = None,
    progress: bool | None = None,
    pattern: str = "*.jsonl",
    top: int = 5,
    chars_per_token: float = 4.0,
) -> tuple[Summary, list[tuple[int, str]]]:
    """Tokens of every file of the tree: the summary and the ``top`` biggest files."""
    files = tree_files(root, pattern)
    s = Summary(files=len(files))
    sizes: list[tuple[int, str]] = []
    bar = _bar(len(files), progress, "file")
    start = time.perf_counter()
    try:
        for chunk, data in _prefetched(root, files):
            items = [d if isinstance(d, bytes) else b"" for d in data]
            results = batch.count_tokens_batch(
                items,
                num_threads=jobs,
                session=session,
                per_record=True,
                chars_per_token=chars_per_token,
            )
            for rel, d, r in zip(chunk, data, results, strict=True):
                if isinstance(d, OSError):
                    s.errors.append((rel.as_posix(), f"cannot read: {d.strerror or d}"))
                elif isinstance(r, BaseException):
                    s.errors.append((rel.as_posix(), str(r)))
                else:
                    s.written += 1
                    s.records += len(r)
                    s.tokens += sum(r)
                    sizes.append((sum(r), rel.as_posix()))
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
    """``normalize PATH``: a directory tree job (one output per file) when PATH is a
    directory and ``--jobs``/``--engine`` is given or ``-o`` is a directory."""
    if path == "-" or not Path(path).is_dir():
        return False
    if jobs is not None or engine is not None:
        return True
    return output is not None and (Path(output).is_dir() or output.endswith(("/", os.sep)))


def print_lines(lines: Sequence[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)
