"""normalize_for_api on dicts from 1 thread and from 2 at once, side by side.

    python benches/threads.py                  # 2,000-record histories, 40 calls
    python benches/threads.py --size 500 --calls 8

The same work (``--calls`` calls of ``normalize_for_api`` on lists of dicts, one
history per call) is done by one thread, then split between two threads that
start together; the two are timed interleaved (round r runs each once, in
turn) and each keeps its best round. Prints one Markdown table: the times, the
speed-up (1 thread / 2 threads) and the interpreter's build. On a free-threaded
CPython (3.14t) the two threads run at once; with the GIL, reading and building
Python objects holds it, so two threads are about one.

Two controls show what the machine gives two threads at the time: the same
calls on the histories' JSON bytes (Rust alone, the GIL released on any build)
and a pure-Python loop (parallel on a free-threaded CPython only). On a shared
machine whose cores are busy, neither reaches 2x, and the dicts row is read
against them.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import sysconfig
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import msgnorm
import msgspec
from support import generate


def interpreter() -> str:
    """The running interpreter and its build, as the table's header names it."""
    free = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    build = "free-threaded" if free else "default (GIL)"
    config = sysconfig.get_config_var("CONFIG_ARGS") or ""
    return (
        f"CPython {platform.python_version()} {build} build, GIL "
        f"{'enabled' if gil else 'disabled'} at run time; configure: {config.strip() or '-'}"
    )


def spin(_: Any) -> int:
    """The pure-Python control: CPU work that shares no object."""
    x = 0
    for i in range(200_000):
        x += i
    return x


def run(histories: list[Any], threads: int, f: Any = None) -> float:
    """Seconds for `threads` threads to apply `f` (``normalize_for_api``) to
    `histories` (split evenly)."""
    call = f or msgnorm.normalize_for_api
    shares = [histories[i::threads] for i in range(threads)]
    start = threading.Barrier(threads + 1)
    outs: list[int] = []

    def work(share: list[list[Any]]) -> None:
        start.wait()
        n = 0
        for h in share:
            out = call(h)
            n += len(out) if isinstance(out, (list, bytes)) else 1
        outs.append(n)

    ts = [threading.Thread(target=work, args=(s,)) for s in shares]
    for t in ts:
        t.start()
    t0 = time.perf_counter()
    start.wait()
    for t in ts:
        t.join()
    elapsed = time.perf_counter() - t0
    assert len(outs) == threads and sum(outs) > 0
    return elapsed


def measure(size: int, calls: int, rounds: int) -> dict[str, dict[int, float]]:
    data = generate.generate_bytes(size, seed=1)
    # one history of its own per call (a server's conversations share no objects)
    histories = [msgspec.json.decode(data) for _ in range(calls)]
    work: dict[str, tuple[list[Any], Any]] = {
        "normalize_for_api, dicts": (histories, None),
        "control: normalize_for_api, JSON bytes (the GIL released)": ([data] * calls, None),
        "control: a pure-Python loop": (list(range(calls)), spin),
    }
    best = {name: {1: float("inf"), 2: float("inf")} for name in work}
    run(histories[:2], 2)  # warm up: the module's tables, the allocator
    for _ in range(rounds):
        for name, (inputs, f) in work.items():
            for threads in (1, 2):
                best[name][threads] = min(best[name][threads], run(inputs, threads, f))
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=2000, help="records per history")
    ap.add_argument("--calls", type=int, default=40, help="calls in all (split between threads)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds; each keeps its best")
    args = ap.parse_args(argv)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    r = measure(args.size, args.calls, args.rounds)
    print(f"{interpreter()}; {os.cpu_count()} CPUs; load average before: {load}, after: ", end="")
    print(", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print()
    print(
        f"| {args.calls} calls, {args.size} records each | 1 thread | 2 threads | speed-up (1 / 2) |"
    )
    print("|---|---:|---:|---:|")
    for name, t in r.items():
        print(f"| {name} | {t[1]:.3f} s | {t[2]:.3f} s | {t[1] / t[2]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
