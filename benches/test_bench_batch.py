"""Corpus scale: many histories per call (group ``batch``).

``normalize_batch`` on 1 and 2 threads beside a loop of single ``normalize_for_api``
calls on the same histories, and the Arrow kernel (``msgnorm.arrow``) on the same
bytes as one ``binary`` array. ``python benches/report.py`` prints the ratios; the
engines (Ray, Daft) and the CLI's directory mode are timed there only (each needs a
process of its own).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from support import generate
from support.harness import run_bench

_CACHE: dict[int, list[bytes]] = {}


@pytest.fixture
def histories(size: int) -> list[bytes]:
    """``size`` records in histories of 100 (10 for the smoke size)."""
    if size not in _CACHE:
        per = 100 if size >= 10_000 else 10
        _CACHE[size] = [generate.generate_bytes(per, seed=s) for s in range(max(1, size // per))]
    return _CACHE[size]


def test_ours_loop_of_single_calls(
    benchmark: Any, mn: ModuleType, histories: list[bytes], size: int
) -> None:
    out = run_bench(
        benchmark,
        lambda: [mn.normalize_for_api(h) for h in histories],
        group=f"batch n={size}",
        n=size,
    )
    assert len(out) == len(histories)


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_normalize_batch(
    benchmark: Any, mn: ModuleType, histories: list[bytes], size: int, threads: int
) -> None:
    out = run_bench(
        benchmark,
        lambda: mn.normalize_batch(histories, num_threads=threads),
        group=f"batch n={size}",
        n=size,
    )
    assert out[0] == mn.normalize_for_api(histories[0])


@pytest.mark.parametrize("tokens", [False, True])
def test_ours_arrow_kernel(
    benchmark: Any, mn: ModuleType, histories: list[bytes], size: int, tokens: bool
) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    import msgnorm.arrow

    arr = pa.array(histories, type=pa.binary())
    out = run_bench(
        benchmark,
        lambda: msgnorm.arrow.normalize_for_api(arr, num_threads=2, tokens=tokens),
        group=f"batch n={size}",
        n=size,
    )
    assert out.field("normalized")[0].as_py() == mn.normalize_for_api(histories[0])
