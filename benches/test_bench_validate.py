"""validate on the same history as normalize_for_api, side by side.

Group ``validate n=N``: ``validate(records, "anthropic")`` (the records read as
to_anthropic sends them) on dicts and on JSON bytes, against ``normalize_for_api``
on the same input; and ``validate`` of the normalized messages (``to_anthropic``
output). validate is one pass per rule: it should cost no more than normalizing.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from support.harness import run_bench


def _group(size: int) -> str:
    return f"validate n={size}"


def test_validate_dicts(benchmark: Any, mn: ModuleType, records: list[Any], size: int) -> None:
    out = run_bench(
        benchmark, lambda: mn.validate(records, "anthropic"), group=_group(size), n=size
    )
    assert isinstance(out, list)


def test_validate_bytes(benchmark: Any, mn: ModuleType, data: bytes, size: int) -> None:
    out = run_bench(
        benchmark,
        lambda: mn.validate(data, "anthropic"),
        group=_group(size),
        n=size,
        nbytes=len(data),
    )
    assert isinstance(out, list)


def test_normalize_dicts(benchmark: Any, mn: ModuleType, records: list[Any], size: int) -> None:
    out = run_bench(benchmark, lambda: mn.normalize_for_api(records), group=_group(size), n=size)
    assert out


def test_normalize_bytes(benchmark: Any, mn: ModuleType, data: bytes, size: int) -> None:
    out = run_bench(
        benchmark, lambda: mn.normalize_for_api(data), group=_group(size), n=size, nbytes=len(data)
    )
    assert out


@pytest.fixture
def messages(mn: ModuleType, records: list[Any]) -> list[Any]:
    out: list[Any] = mn.to_anthropic(mn.normalize_for_api(records))
    return out


def test_validate_normalized_messages(
    benchmark: Any, mn: ModuleType, messages: list[Any], size: int
) -> None:
    out = run_bench(
        benchmark, lambda: mn.validate(messages, "anthropic"), group=_group(size), n=size
    )
    # the repaired rules hold on normalize_for_api's output
    assert [
        v
        for v in out
        if not v.repair.startswith("none")
        and v.rule != "anthropic/roles-alternate"
        and v.rule != "anthropic/empty-text"
    ] == []


def _assistant_run(size: int) -> list[dict[str, Any]]:
    """One user message, then ``size`` assistant messages with one tool_use
    each and no result: one assistant turn of ``size`` messages."""

    def call(i: int) -> dict[str, Any]:
        return {"type": "tool_use", "id": f"toolu_{i}", "name": "f", "input": {}}

    run = [{"role": "assistant", "content": [call(i)]} for i in range(size)]
    return [{"role": "user", "content": "q"}, *run]


def test_validate_assistant_run(benchmark: Any, mn: ModuleType, size: int) -> None:
    """The pairing rules read each turn once: a long turn costs its length, not
    its square (compare the per-record times across sizes)."""
    messages = _assistant_run(size)
    out = run_bench(
        benchmark, lambda: mn.validate(messages, "anthropic"), group=_group(size), n=size
    )
    assert len(out) == size
