"""Threads, memory and references (issue "Reliability").

- 8 threads calling every entry point on shared inputs (dicts, JSON bytes,
  JSON Lines, Structs) get the single-threaded results, and the inputs are
  unchanged afterwards (SPEC §4: input records are never mutated);
- RSS stays flat over 1,000 repeated calls;
- no reference leaks on inputs, on the blocks outputs share with them, nor on
  error paths;
- a panic in the Rust core is a ``msgnorm.MsgnormError`` (a ``ValueError``),
  from any thread.
"""

from __future__ import annotations

import copy
import gc
import json
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgnorm
import pytest

THREADS = 8
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "session.jsonl"

Rec = dict[str, Any]


def _user(uuid: str, content: Any, **extra: Any) -> Rec:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}, **extra}


def _assistant(uuid: str, mid: str, content: list[Any]) -> Rec:
    message = {"role": "assistant", "id": mid, "model": "claude", "content": content}
    return {"type": "assistant", "uuid": uuid, "message": message}


def _round(i: int) -> list[Rec]:
    """One turn with every repair the pipeline makes: streamed fragments, a missing
    result, an orphan, an attachment, a tombstone, whitespace, media."""
    p = f"{i:08x}-0000-4000-8000-"
    u = [f"{p}{j:012x}" for j in range(10)]
    t1, t2 = f"toolu_{i}_1", f"toolu_{i}_2"
    return [
        _user(u[0], f"question {i} " + "é" * (i % 7), timestamp="2026-01-01T00:00:00Z"),
        {"type": "attachment", "uuid": u[1], "attachment": {"type": "date", "date": "2026"}},
        _assistant(u[2], f"msg_{i}", [{"type": "thinking", "thinking": "hm", "signature": "s"}]),
        _assistant(
            u[3], f"msg_{i}", [{"type": "tool_use", "id": t1, "name": "Read", "input": {"n": i}}]
        ),
        _user(u[4], [{"type": "tool_result", "tool_use_id": t1, "content": "ok"}]),
        _assistant(u[5], f"msg_{i}", [{"type": "tool_use", "id": t2, "name": "Bash", "input": {}}]),
        {"type": "progress", "uuid": u[6], "data": {}, "toolUseID": t2},
        _user(
            u[7],
            [
                {"type": "tool_result", "tool_use_id": "orphan", "content": "x"},
                {"type": "text", "text": " "},
            ],
        ),
        _user(u[8], [{"type": "image", "source": {"type": "base64", "data": "iVBOR"}}]),
        {"type": "tombstone", "message": {"uuid": u[5]}}
        if i % 3 == 0
        else {"type": "summary", "summary": "s"},
        _assistant(u[9], f"msg_{i}b", [{"type": "text", "text": f"answer {i}  "}]),
    ]


def _history() -> list[Rec]:
    records: list[Rec] = []
    if EXAMPLE.is_file():
        records += [json.loads(line) for line in EXAMPLE.read_bytes().splitlines() if line.strip()]
    for i in range(20):
        records += _round(i)
    return records


DICTS = _history()
BYTES = json.dumps(DICTS).encode()
LINES = "\n".join(json.dumps(r, ensure_ascii=False) for r in DICTS).encode()
TEXT = BYTES.decode()
STRUCTS = msgnorm.from_builtins(copy.deepcopy(DICTS))
NORMALIZED = msgnorm.normalize_for_api(DICTS)
ATTACHMENT = {"type": "memory", "path": "/p", "content": "c"}
BUDGET = 2000


def _calls(records: Any) -> dict[str, Callable[[], Any]]:
    """Every public entry point on one input."""
    return {
        "normalize_for_api": lambda: msgnorm.normalize_for_api(records),
        "normalize_for_api-options": lambda: msgnorm.normalize_for_api(
            records, short_ids=True, max_media=0, ensure_user_first=False
        ),
        "normalize_for_api-strict": lambda: msgnorm.normalize_for_api(records, strict=True),
        "normalize_for_api_report": lambda: msgnorm.normalize_for_api_report(records),
        "normalize_messages": lambda: msgnorm.normalize_messages(records),
        "count_tokens": lambda: msgnorm.count_tokens(records),
        "count_tokens_per_record": lambda: msgnorm.count_tokens_per_record(
            records, chars_per_token=3.5
        ),
        "find_cutoff": lambda: msgnorm.find_cutoff(records, BUDGET, pin=1),
        "trim_to_budget": lambda: msgnorm.trim_to_budget(records, BUDGET, pin=1),
        "split_for_summary": lambda: msgnorm.split_for_summary(records, BUDGET, pin=1),
    }


def _other_calls() -> dict[str, Callable[[], Any]]:
    return {
        "to_anthropic-dicts": lambda: msgnorm.to_anthropic(NORMALIZED),
        "to_anthropic-bytes": lambda: msgnorm.to_anthropic(json.dumps(NORMALIZED).encode()),
        "render_attachment": lambda: msgnorm.render_attachment(ATTACHMENT),
        "derive_uuid": lambda: msgnorm.derive_uuid(DICTS[1]["uuid"], 7),
        "derive_short_message_id": lambda: msgnorm.derive_short_message_id(DICTS[1]["uuid"]),
        "decode": lambda: msgnorm.decode(BYTES),
        "encode": lambda: msgnorm.encode(STRUCTS),
        "invalid-record": lambda: msgnorm.normalize_for_api([*DICTS, {"type": "user"}]),
        "invalid-json": lambda: msgnorm.count_tokens(BYTES[:-1]),
    }


INPUTS: dict[str, Any] = {
    "dicts": DICTS,
    "bytes": BYTES,
    "lines": LINES,
    "str": TEXT,
    "structs": STRUCTS,
}
ALL_CALLS: dict[str, Callable[[], Any]] = {
    f"{name}[{kind}]": call
    for kind, records in INPUTS.items()
    for name, call in _calls(records).items()
}
ALL_CALLS.update(_other_calls())


def _outcome(call: Callable[[], Any]) -> Any:
    """The result, or the error's type, message and location."""
    try:
        return ("ok", call())
    except ValueError as e:
        where = tuple(getattr(e, k, None) for k in ("index", "path", "line", "column", "ids"))
        return ("error", type(e).__name__, str(e), where)


def _snapshot() -> tuple[Any, ...]:
    return (
        copy.deepcopy(DICTS),
        msgnorm.to_builtins(STRUCTS),
        copy.deepcopy(NORMALIZED),
        dict(ATTACHMENT),
    )


# --------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------


def test_every_entry_point_is_exercised() -> None:
    names = {n.split("[")[0].split("-")[0] for n in ALL_CALLS}
    public = {
        "normalize_for_api",
        "normalize_for_api_report",
        "normalize_messages",
        "to_anthropic",
        "count_tokens",
        "count_tokens_per_record",
        "find_cutoff",
        "trim_to_budget",
        "split_for_summary",
        "render_attachment",
        "derive_uuid",
        "derive_short_message_id",
        "decode",
        "encode",
    }
    assert public <= names
    # Every call is meaningful: the baseline mixes results and located errors.
    kinds = {_outcome(c)[0] for c in ALL_CALLS.values()}
    assert kinds == {"ok", "error"}


def test_eight_threads_get_identical_results_and_inputs_are_unchanged() -> None:
    before = _snapshot()
    baseline = {name: _outcome(call) for name, call in ALL_CALLS.items()}
    names = list(ALL_CALLS)
    rounds = 3
    start = threading.Barrier(THREADS)

    def worker(t: int) -> list[tuple[str, Any]]:
        start.wait()
        got = []
        for r in range(rounds):
            # Each thread walks the calls in its own rotation, so different
            # entry points overlap on the same shared objects.
            k = (t * 7 + r * 3) % len(names)
            for name in names[k:] + names[:k]:
                got.append((name, _outcome(ALL_CALLS[name])))
        return got

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    for t, got in enumerate(results):
        assert len(got) == rounds * len(names)
        for name, outcome in got:
            assert outcome == baseline[name], f"thread {t}: {name} differs"
    assert _snapshot() == before
    assert json.loads(BYTES) == before[0]


def test_threads_share_blocks_without_copying_or_mutating() -> None:
    """Output blocks the call did not change are the input's own objects, in every thread."""
    first_block = DICTS[next(i for i, r in enumerate(DICTS) if r["type"] == "assistant")][
        "message"
    ]["content"][0]
    ids: set[int] = set()
    lock = threading.Lock()

    def worker(_: int) -> None:
        for _ in range(5):
            out = msgnorm.normalize_messages(DICTS)
            found = [
                b
                for r in out
                if r["type"] == "assistant"
                for b in r["message"]["content"]
                if b is first_block
            ]
            with lock:
                ids.update(id(b) for b in found)

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(worker, range(THREADS)))
    assert ids == {id(first_block)}


# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


def _rss() -> int:
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except ImportError:  # pragma: no cover - psutil is in the dev dependencies
        import resource

        # ru_maxrss only grows: a leak still shows as growth between the marks.
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.mark.parametrize("kind", ["dicts", "bytes", "structs"])
def test_rss_is_flat_over_1000_calls(kind: str) -> None:
    records = INPUTS[kind]
    calls = list(_calls(records).values())
    calls.append(_other_calls()["invalid-record"])
    marks: dict[int, int] = {}
    gc.collect()
    for i in range(1, 1001):
        _outcome(calls[i % len(calls)])
        if i in (200, 1000):
            gc.collect()
            marks[i] = _rss()
    growth = marks[1000] - marks[200]
    # One output is ~100 KB: a leak of one output per call would be ~80 MB.
    assert growth < 16 * 1024 * 1024, (
        f"RSS grew by {growth / 2**20:.1f} MiB between calls 200 and 1000"
    )


# --------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------


def _objects(records: list[Rec]) -> Iterator[Any]:
    """The input list, every record, message, content list and block."""
    yield records
    for r in records:
        yield r
        m = r.get("message")
        if isinstance(m, dict):
            yield m
            c = m.get("content")
            yield c
            if isinstance(c, list):
                for b in c:
                    yield b
                    if isinstance(b, dict) and "input" in b:
                        yield b["input"]
        if isinstance(r.get("attachment"), dict):
            yield r["attachment"]


def _refcounts(objs: list[Any]) -> list[int]:
    gc.collect()
    return [sys.getrefcount(o) for o in objs]


def _containers(objs: Iterator[Any]) -> list[Any]:
    """Objects whose reference count is meaningful (not None, small ints, ...)."""
    return [o for o in objs if isinstance(o, (dict, list, bytes))]


def test_no_reference_leaks_on_inputs_and_shared_blocks() -> None:
    records = copy.deepcopy(DICTS)
    data = json.dumps(records).encode()
    structs = msgnorm.from_builtins(copy.deepcopy(DICTS))
    objs = [*_containers(_objects(records)), data, structs, *structs]
    before = _refcounts(objs)

    def hammer() -> None:  # locals (calls, outputs) are gone when it returns
        for _ in range(50):
            for call in [*_calls(records).values(), *_calls(data).values()]:
                _outcome(call)
            for call in _calls(structs).values():
                _outcome(call)
            msgnorm.to_anthropic(msgnorm.normalize_for_api(records))

    hammer()
    assert _refcounts(objs) == before


def test_no_reference_leaks_on_error_paths() -> None:
    """Errors raised part-way through reading (after blocks were referenced) release everything."""
    records = copy.deepcopy(DICTS)
    bad_late = [*records, {"type": "user", "uuid": "x", "message": {"role": "user", "content": 5}}]
    bad_block = [*records, _user("y", [{"type": "text", "text": "a"}, "bare string"])]
    strict_fail = [
        _assistant("a", "m", [{"type": "tool_use", "id": "t", "name": "n", "input": {}}])
    ]
    objs = _containers(iter([*_objects(records), bad_late, bad_block, *_objects(strict_fail)]))
    before = _refcounts(objs)

    def hammer() -> None:
        for _ in range(100):
            for bad in (bad_late, bad_block):
                for call in _calls(bad).values():
                    with pytest.raises(msgnorm.InvalidRecordError):
                        call()
            with pytest.raises(msgnorm.PairingError):
                msgnorm.normalize_for_api(strict_fail, strict=True)
            with pytest.raises(msgnorm.BudgetError):
                msgnorm.trim_to_budget(records, 1)

    hammer()
    assert _refcounts(objs) == before


def test_outputs_are_released() -> None:
    """Outputs hold no hidden references: dropping them frees new objects."""
    records = copy.deepcopy(DICTS)
    gc.collect()
    baseline = len(gc.get_objects())
    for _ in range(200):
        msgnorm.normalize_for_api(records)
        msgnorm.normalize_messages(records)
        msgnorm.trim_to_budget(records, BUDGET, pin=1)
    gc.collect()
    assert len(gc.get_objects()) - baseline < 500


# --------------------------------------------------------------------------
# Panics
# --------------------------------------------------------------------------


def test_a_core_panic_is_a_msgnorm_error() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="boom: the message") as e:
        msgnorm._native._force_panic("boom: the message")
    assert isinstance(e.value, ValueError)
    assert "internal error" in str(e.value)


def test_core_panics_in_several_threads_are_msgnorm_errors() -> None:
    start = threading.Barrier(THREADS)

    def worker(t: int) -> list[str]:
        start.wait()
        seen = []
        for i in range(20):
            message = f"panic {t}/{i} é"
            try:
                msgnorm._native._force_panic(message)
            except msgnorm.MsgnormError as e:
                assert isinstance(e, ValueError)
                seen.append(str(e))
            # The library still works in this thread after a panic.
            assert msgnorm.count_tokens(BYTES) == msgnorm.count_tokens(DICTS)
        return seen

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    for t, seen in enumerate(results):
        assert len(seen) == 20
        for i, text in enumerate(seen):
            assert f"panic {t}/{i} é" in text
