"""What the benchmarks share: the contenders, the LangChain converter, the memory probe.

Everything optional is loaded lazily and reported as ``None`` when absent, so the
benchmarks skip (pytest) or print ``n/a`` (report.py) instead of failing:

* ``load_msgnorm()``: the library under test;
* ``load_reference()``: the pure-Python reference ``tests/support/reference.py``;
* ``load_langchain()``: ``langchain_core`` (a bench-only extra).

``python tests/support/harness.py memprobe MODE PATH`` is the memory probe run in a
subprocess by ``peak_memory()``.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

Record = dict[str, Any]


# -- optional contenders -------------------------------------------------------------


def load_msgnorm() -> ModuleType | None:
    """``msgnorm`` if it imports, else ``None``."""
    try:
        return importlib.import_module("msgnorm")
    except ImportError:
        return None


def msgnorm_error() -> str:
    """Why ``msgnorm`` does not import (empty when it does)."""
    try:
        importlib.import_module("msgnorm")
    except ImportError as e:
        return f"{type(e).__name__}: {e}"
    return ""


def load_reference() -> Callable[..., Any] | None:
    """``normalize_for_api`` of the pure-Python reference ``tests/support/reference.py``
    (in this package: never ``None``)."""
    from . import reference

    return reference.normalize_for_api


def load_langchain() -> ModuleType | None:
    """``langchain_core.messages`` (with ``.utils``) if installed."""
    try:
        msgs = importlib.import_module("langchain_core.messages")
        importlib.import_module("langchain_core.messages.utils")
    except ImportError:
        return None
    return msgs


def version_of(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return "absent"


# -- LangChain -----------------------------------------------------------------------


def to_langchain(records: Sequence[Record]) -> list[Any]:
    """The LangChain messages equivalent to transcript records.

    ``user`` records become a ``ToolMessage`` per ``tool_result`` block (in order) and a
    ``HumanMessage`` for the remaining blocks; ``assistant`` records become an
    ``AIMessage`` whose ``tool_use`` blocks are ``tool_calls`` and whose other blocks
    are its content. Records of other types have no LangChain equivalent and are skipped.
    Works on normalized records and, for ``merge_message_runs``, on raw ones (streamed
    assistant records then become adjacent ``AIMessage``s).
    """
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

    out: list[BaseMessage] = []
    for rec in records:
        rtype = rec.get("type")
        if rtype not in ("user", "assistant"):
            continue
        msg = rec["message"]
        content = msg.get("content")
        if content is None:
            content = ""
        if rtype == "user":
            if isinstance(content, str):
                out.append(HumanMessage(content=content, id=rec.get("uuid")))
                continue
            rest: list[Any] = []
            for block in content:
                if block.get("type") == "tool_result":
                    c = block.get("content")
                    out.append(
                        ToolMessage(
                            content=c if isinstance(c, (str, list)) else "",
                            tool_call_id=block["tool_use_id"],
                            status="error" if block.get("is_error") else "success",
                        )
                    )
                else:
                    rest.append(block)
            if rest:
                out.append(HumanMessage(content=rest, id=rec.get("uuid")))
        else:
            if isinstance(content, str):
                out.append(AIMessage(content=content, id=msg.get("id")))
                continue
            blocks: list[Any] = []
            calls: list[Any] = []
            for block in content:
                if block.get("type") == "tool_use":
                    calls.append(
                        {
                            "name": block["name"],
                            "args": block["input"],
                            "id": block["id"],
                            "type": "tool_call",
                        }
                    )
                else:
                    blocks.append(block)
            out.append(AIMessage(content=blocks, tool_calls=calls, id=msg.get("id")))
    return out


# -- timing --------------------------------------------------------------------------


@dataclass
class Contender:
    """A callable timed against others; ``best`` is its fastest call in seconds."""

    name: str
    fn: Callable[[], Any]
    times: list[float] = field(default_factory=list)
    error: str = ""

    @property
    def best(self) -> float:
        return min(self.times) if self.times else float("nan")


def race(
    contenders: Sequence[Contender],
    *,
    rounds: int = 5,
    min_rounds: int = 2,
    budget_s: float = 6.0,
) -> None:
    """Best-of-N timing, interleaved: round r calls every contender once, in turn.

    A contender stops after ``min_rounds`` once its calls have used ``budget_s`` (slow
    peers, like the pure-Python reference at 100k records, get fewer rounds). A warm-up
    call each comes first, untimed unless it took over a second (then it counts). A contender that raises is reported in
    ``error`` and dropped.
    """
    live = [c for c in contenders if not c.error]
    for c in live:
        try:
            gc.collect()
            t0 = time.perf_counter()
            c.fn()
            dt = time.perf_counter() - t0
        except Exception as e:
            c.error = f"{type(e).__name__}: {e}"[:300]
            continue
        if dt > 1.0:  # slow enough to be warm after one call: keep it as a sample
            c.times.append(dt)
    live = [c for c in live if not c.error]
    spent = {c.name: sum(c.times) for c in live}
    for _ in range(rounds):
        for c in live:
            if len(c.times) >= min_rounds and spent[c.name] >= budget_s:
                continue
            gc.collect()
            t0 = time.perf_counter()
            c.fn()
            dt = time.perf_counter() - t0
            c.times.append(dt)
            spent[c.name] += dt


def rounds_for(n: int) -> int:
    """Rounds per benchmark: many for small inputs, a few for large ones."""
    if n <= 1_000:
        return 20
    if n <= 10_000:
        return 10
    if n <= 100_000:
        return 5
    return 3


def run_bench(
    benchmark: Any,
    fn: Callable[[], Any],
    *,
    group: str,
    n: int,
    nbytes: int | None = None,
) -> Any:
    """Time ``fn`` in ``group`` (side by side with its peers); returns its result."""
    benchmark.group = group
    benchmark.extra_info["records"] = n
    if nbytes is not None:
        benchmark.extra_info["input_bytes"] = nbytes
    return benchmark.pedantic(fn, rounds=rounds_for(n), warmup_rounds=1 if n <= 100_000 else 0)


def bench_bytes(benchmark: Any, fn: Callable[[Any], Any], data: Any, *, group: str, n: int) -> Any:
    """:func:`run_bench` of ``fn(data)``, with the input's size in bytes."""
    return run_bench(benchmark, lambda: fn(data), group=group, n=n, nbytes=len(data))


# -- memory --------------------------------------------------------------------------

#: results of the memory probes run under pytest, printed in the terminal summary
MEMORY_RESULTS: list[dict[str, Any]] = []

_STATUS = Path("/proc/self/status")


def _status_kb(key: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _rss() -> int:
    kb = _status_kb("VmRSS")
    if kb is not None:
        return kb * 1024
    try:
        psutil: Any = importlib.import_module("psutil")
        return int(psutil.Process().memory_info().rss)
    except ImportError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _peak() -> int:
    kb = _status_kb("VmHWM")
    if kb is not None:
        return kb * 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _memprobe(mode: str, path: str) -> dict[str, Any]:
    """Runs in a fresh process: the peak RSS of one call on the input at ``path``."""
    import msgspec

    mn: Any = importlib.import_module("msgnorm") if not mode.startswith("msgspec") else None
    gc.collect()
    rss0 = _rss()  # interpreter + imports, before the input exists
    data = Path(path).read_bytes()
    size = len(data)
    arg: Any = data
    if mode == "bytes":
        fn: Callable[[Any], Any] = mn.normalize_for_api
    elif mode == "dicts":
        arg = msgspec.json.decode(data)
        del data
        fn = mn.normalize_for_api
    elif mode == "structs":
        arg = mn.decode(data)
        del data
        fn = mn.normalize_for_api
    elif mode == "msgspec-untyped":
        fn = msgspec.json.decode
    elif mode == "msgspec-raw":
        dec = msgspec.json.Decoder(list[msgspec.Raw])
        fn = dec.decode
    else:
        raise SystemExit(f"unknown mode {mode}")
    gc.collect()
    rss1 = _rss()  # the input is loaded
    exact = _reset_peak()
    peak_before = _peak()
    out = fn(arg)
    peak = _peak()
    if not exact:
        peak = max(peak, peak_before)
    out_size = len(out) if isinstance(out, bytes) else None
    return {
        "mode": mode,
        "input_bytes": size,
        "output_bytes": out_size,
        "rss_before_input": rss0,
        "rss_with_input": rss1,
        "peak": peak,
        # input + working memory + output, over the input size
        "total_ratio": (peak - rss0) / size,
        # working memory + output only
        "extra_ratio": (peak - rss1) / size,
        "input_footprint_ratio": (rss1 - rss0) / size,
        "exact_peak": exact,
    }


def peak_memory(mode: str, path: Path, timeout: float = 900.0) -> dict[str, Any]:
    """Run the memory probe for ``mode`` (bytes, dicts, structs, msgspec-untyped,
    msgspec-raw) on the JSON file ``path`` in an isolated subprocess."""
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "memprobe", mode, str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"memory probe {mode} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "memprobe":
        print(json.dumps(_memprobe(argv[2], argv[3])))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
