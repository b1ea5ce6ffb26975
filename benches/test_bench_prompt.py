"""A Conversation turn asking ``prompt_tokens`` (SPEC §6.1) against one asking
``count_tokens``: five records appended, ``for_api``, then the count, on a
Conversation holding ``size`` records (``MSGNORM_BENCH_SIZES``). Both turns read
the same records; ``prompt_tokens`` takes in the records appended since its last
call (appending does not compute it), so a turn costs O(new records) either way."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from support import generate

TURN = 5


@pytest.fixture
def turns(size: int) -> tuple[bytes, list[bytes]]:
    lines = generate.generate_bytes(size + 2000, jsonl=True).splitlines()
    history = b"\n".join(lines[:size])
    return history, [b"\n".join(lines[i : i + TURN]) for i in range(size, len(lines), TURN)]


def _turn(mn: ModuleType, turns: tuple[bytes, list[bytes]], ask: str) -> Callable[[], Any]:
    history, more = turns
    conv = mn.Conversation(kind="dicts")
    conv.append(history)
    conv.for_api()
    supply = iter(more)

    def run() -> Any:
        conv.append(next(supply))
        conv.for_api()
        return getattr(conv, ask)()

    return run


@pytest.mark.parametrize("ask", ["count_tokens", "prompt_tokens"])
def test_conversation_turn(
    benchmark: Any, mn: ModuleType, turns: tuple[bytes, list[bytes]], size: int, ask: str
) -> None:
    run = _turn(mn, turns, ask)
    benchmark.group = f"Conversation turn n={size}"
    benchmark.extra_info["records"] = size
    rounds = min(100, len(turns[1]) // 2)
    out = benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=2)
    assert out > 0
