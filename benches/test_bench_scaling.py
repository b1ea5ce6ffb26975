"""Scaling: time per record of the bytes path as the history grows.

Group ``scaling bytes path``: ``normalize_for_api(bytes)`` at 10k and 100k records (and
1M in full mode), with the msgspec Raw scan of the same input beside it as a control
for the machine's own scaling (caches, page faults). ``extra_info["ns_per_record"]``
holds the per-record time; it should stay flat (within 10%).

Group ``scaling adversarial``: one user prompt followed by N adjacent assistant records
with distinct ``message.id`` (``generate.adversarial_assistant_run``), the worst case
for merging streamed replies; a quadratic backward walk shows here. Groups
``scaling interleaved`` (one streamed reply interleaved with tool-result-only users)
and ``scaling blocks in one record`` (per block) are the other adversarial shapes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec
from support import generate
from support.harness import bench_bytes, run_bench


def _per_record(benchmark: Any, n: int) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["ns_per_record"] = round(stats.stats.min / n * 1e9, 1)


def test_ours_bytes_scaling(benchmark: Any, mn: ModuleType, scale_size: int) -> None:
    data = generate.generate_bytes(scale_size)
    out = bench_bytes(
        benchmark, mn.normalize_for_api, data, group="scaling bytes path", n=scale_size
    )
    _per_record(benchmark, scale_size)
    assert isinstance(out, bytes)


def test_control_msgspec_raw_scaling(benchmark: Any, scale_size: int) -> None:
    data = generate.generate_bytes(scale_size)
    dec = msgspec.json.Decoder(list[msgspec.Raw])
    out = bench_bytes(benchmark, dec.decode, data, group="scaling bytes path", n=scale_size)
    _per_record(benchmark, scale_size)
    assert len(out) == scale_size


def test_ours_adversarial_bytes(benchmark: Any, mn: ModuleType, scale_size: int) -> None:
    data = generate.adversarial_bytes(scale_size)
    out = bench_bytes(
        benchmark, mn.normalize_for_api, data, group="scaling adversarial", n=scale_size
    )
    _per_record(benchmark, scale_size)
    assert len(msgspec.json.decode(out)) == scale_size + 1


def test_ours_adversarial_dicts(benchmark: Any, mn: ModuleType, scale_size: int) -> None:
    records = generate.adversarial_assistant_run(scale_size)
    out = run_bench(
        benchmark, lambda: mn.normalize_for_api(records), group="scaling adversarial", n=scale_size
    )
    _per_record(benchmark, scale_size)
    assert len(out) == scale_size + 1


def test_ours_interleaved_bytes(benchmark: Any, mn: ModuleType, scale_size: int) -> None:
    """One streamed reply interleaved with tool-result-only users: the reply's
    records join into one and the results merge into one user record (a merge
    that rebuilds the growing record each time is quadratic here)."""
    data = generate.interleaved_bytes(scale_size)
    out = bench_bytes(
        benchmark, mn.normalize_for_api, data, group="scaling interleaved", n=scale_size
    )
    _per_record(benchmark, scale_size)
    recs = msgspec.json.decode(out)
    assert [r["type"] for r in recs] == ["user", "assistant", "user"]
    assert len(recs[1]["message"]["content"]) == (scale_size + 1) // 2


def test_ours_blocks_in_one_record(benchmark: Any, mn: ModuleType, scale_size: int) -> None:
    data = generate.blocks_bytes(scale_size)
    out = bench_bytes(
        benchmark, mn.normalize_for_api, data, group="scaling blocks in one record", n=scale_size
    )
    _per_record(benchmark, scale_size)
    assert len(msgspec.json.decode(out)[0]["message"]["content"]) == (scale_size + 1) // 2
