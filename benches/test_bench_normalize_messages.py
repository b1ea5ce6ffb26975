"""normalize_messages (split for display, SPEC §3), side by side with msgspec.

Group ``normalize_messages n=N``: ours on dicts and on Structs, against the untyped
msgspec decode of the same history (a yardstick: the cost of building the dicts) and
the pure-Python reference's ``normalize_messages`` when it has one.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import msgspec
import pytest
from support.harness import load_reference, run_bench


def _group(size: int) -> str:
    return f"normalize_messages n={size}"


def test_ours_dicts(
    benchmark: Any, mn: ModuleType, records: list[dict[str, Any]], size: int
) -> None:
    out = run_bench(benchmark, lambda: mn.normalize_messages(records), group=_group(size), n=size)
    assert len(out) >= size * 9 // 10


def test_ours_structs(benchmark: Any, mn: ModuleType, messages_data: bytes, size: int) -> None:
    structs = mn.decode(messages_data)
    out = run_bench(benchmark, lambda: mn.normalize_messages(structs), group=_group(size), n=size)
    assert len(out) >= len(structs) * 9 // 10


def test_limit_msgspec_untyped(benchmark: Any, data: bytes, size: int) -> None:
    dec = msgspec.json.Decoder()
    out = run_bench(
        benchmark, lambda: dec.decode(data), group=_group(size), n=size, nbytes=len(data)
    )
    assert len(out) == size


def test_peer_reference_dicts(benchmark: Any, records: list[dict[str, Any]], size: int) -> None:
    if load_reference() is None:
        pytest.skip("tests/support/reference.py is absent")
    fn = getattr(importlib.import_module("support.reference"), "normalize_messages", None)
    if fn is None:
        pytest.skip("tests/support/reference.py has no normalize_messages")
    out = run_bench(benchmark, lambda: fn(records), group=_group(size), n=size)
    assert len(out) >= size * 9 // 10
