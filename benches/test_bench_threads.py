"""normalize_for_api on dicts from 1 thread and from 2 at once (``benches/threads.py``
prints the speed-up with the interpreter's build).

Group ``normalize_for_api dicts threads n=N``: the same calls, on one thread and
split between two; on a free-threaded CPython the two run at once.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec
import pytest
from support.harness import run_bench
from threads import run

CALLS = 8


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_dicts_threads(
    benchmark: Any, mn: ModuleType, data: bytes, size: int, threads: int
) -> None:
    histories = [msgspec.json.decode(data) for _ in range(CALLS)]
    expected = mn.normalize_for_api(histories[0])
    elapsed = run_bench(
        benchmark,
        lambda: run(histories, threads),
        group=f"normalize_for_api dicts threads n={size}",
        n=size * CALLS,
    )
    assert elapsed > 0
    # the histories are not changed by the threads that read them
    assert all(mn.normalize_for_api(h) == expected for h in histories)
