"""pytest-benchmark suite for msgnorm: fixtures, sizes and the memory summary.

Sizes (records per history) come from ``MSGNORM_BENCH_SIZES``: a comma-separated list
of integers, or ``quick`` (10000, the default) or ``full`` (100000). ``full`` (any size
of 100000 or more) also adds the 1M-record point to the scaling and memory benchmarks.
With ``--benchmark-disable`` every benchmark is a smoke test on 1000 records.

    pytest benches                                   # 10k records, side by side
    MSGNORM_BENCH_SIZES=full pytest benches          # 100k records, 1M scaling
    pytest benches --benchmark-disable               # smoke: each benchmark runs once

``python benches/report.py`` prints the ratios against their targets instead.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from support import (
    generate,
    harness,
)

SMOKE_SIZE = 1_000
_ALIASES = {"quick": "10000", "default": "10000", "full": "100000"}


def _smoke(config: pytest.Config) -> bool:
    return bool(config.getoption("benchmark_disable", default=False))


def bench_sizes(config: pytest.Config) -> list[int]:
    if _smoke(config):
        return [SMOKE_SIZE]
    raw = os.environ.get("MSGNORM_BENCH_SIZES", "10000").strip().lower()
    raw = _ALIASES.get(raw, raw)
    try:
        sizes = sorted({int(s.replace("_", "")) for s in raw.split(",") if s.strip()})
    except ValueError:
        raise pytest.UsageError(f"MSGNORM_BENCH_SIZES={raw!r}: expected integers") from None
    return sizes or [10_000]


def full_mode(config: pytest.Config) -> bool:
    return not _smoke(config) and max(bench_sizes(config)) >= 100_000


def scaling_sizes(config: pytest.Config) -> list[int]:
    if _smoke(config):
        return [SMOKE_SIZE]
    return [10_000, 100_000, 1_000_000] if full_mode(config) else [10_000, 100_000]


def memory_sizes(config: pytest.Config) -> list[int]:
    if _smoke(config):
        return [SMOKE_SIZE]
    return [100_000, 1_000_000] if full_mode(config) else [10_000, 100_000]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    cfg = metafunc.config
    if "size" in metafunc.fixturenames:
        metafunc.parametrize("size", bench_sizes(cfg), ids=lambda n: f"n={n}")
    if "scale_size" in metafunc.fixturenames:
        metafunc.parametrize("scale_size", scaling_sizes(cfg), ids=lambda n: f"n={n}")
    if "mem_size" in metafunc.fixturenames:
        metafunc.parametrize("mem_size", memory_sizes(cfg), ids=lambda n: f"n={n}")


# -- contenders ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def mn() -> ModuleType:
    mod = harness.load_msgnorm()
    if mod is None:
        pytest.skip(f"msgnorm does not import ({harness.msgnorm_error()})")
    return mod


@pytest.fixture(scope="session")
def reference() -> Callable[..., Any]:
    fn = harness.load_reference()
    if fn is None:
        pytest.skip("tests/support/reference.py (normalize_for_api) is absent")
    return fn


@pytest.fixture(scope="session")
def lc_utils() -> ModuleType:
    if harness.load_langchain() is None:
        pytest.skip("langchain-core is not installed (bench-only extra)")
    import langchain_core.messages.utils as utils

    return utils


# -- inputs (cached per process) -----------------------------------------------------


@functools.lru_cache(maxsize=4)
def _records(n: int) -> list[dict[str, Any]]:
    return generate.generate(n)


@functools.lru_cache(maxsize=2)
def _normalized(n: int) -> list[dict[str, Any]]:
    mod = harness.load_msgnorm()
    if mod is not None:
        out: list[dict[str, Any]] = mod.normalize_for_api(_records(n))
        return out
    ref = harness.load_reference()
    if ref is None:
        pytest.skip("neither msgnorm nor tests/support/reference.py can normalize")
    ref_out: list[dict[str, Any]] = ref(_records(n))
    return ref_out


@functools.lru_cache(maxsize=2)
def _lc_normalized(n: int) -> list[Any]:
    return harness.to_langchain(_normalized(n))


@functools.lru_cache(maxsize=2)
def _lc_raw(n: int) -> list[Any]:
    return harness.to_langchain(_records(n))


@pytest.fixture
def data(size: int) -> bytes:
    """The history as a JSON array."""
    return generate.generate_bytes(size)


@pytest.fixture
def data_jsonl(size: int) -> bytes:
    return generate.generate_bytes(size, jsonl=True)


@pytest.fixture
def records(size: int) -> list[dict[str, Any]]:
    """The history as dicts (shared between tests: normalize never mutates its input)."""
    return _records(size)


@pytest.fixture
def messages_data(size: int) -> bytes:
    """The history less its entries: what ``list[msgnorm.Message]`` decodes."""
    return generate.messages_only_bytes(size)


@pytest.fixture
def normalized(size: int) -> list[dict[str, Any]]:
    """``normalize_for_api`` of the history (msgnorm's, else the reference's)."""
    return _normalized(size)


@pytest.fixture
def lc_normalized(size: int, lc_utils: ModuleType) -> list[Any]:
    """The normalized history as LangChain messages."""
    return _lc_normalized(size)


@pytest.fixture
def lc_raw(size: int, lc_utils: ModuleType) -> list[Any]:
    """The raw history's user/assistant records as LangChain messages."""
    return _lc_raw(size)


# -- memory summary ------------------------------------------------------------------


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not harness.MEMORY_RESULTS:
        return
    tr = terminalreporter
    tr.section("msgnorm peak memory (subprocess, RSS)")
    tr.write_line("peak = the call's peak RSS less the RSS before the input was loaded")
    tr.write_line("extra = the call's peak RSS less the RSS with the input loaded")
    tr.write_line(
        f"{'path':<8} {'records':>9} {'input MB':>9} {'peak/input':>11} {'extra/input':>12}"
    )
    for r in harness.MEMORY_RESULTS:
        tr.write_line(
            f"{r['mode']:<8} {r['records']:>9} {r['input_bytes'] / 1e6:>9.1f} "
            f"{r['total_ratio']:>11.2f} {r['extra_ratio']:>12.2f}"
        )
