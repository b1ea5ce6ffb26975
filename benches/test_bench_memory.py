"""Peak memory over input size, each probe in its own subprocess (``harness.peak_memory``).

The results are printed in the terminal summary ("msgnorm peak memory"): ``peak/input``
counts the input itself, the working memory and the output (the bytes path's target is
2.5x), ``extra/input`` only what the call added. Nothing is asserted beyond the probe
working: ``python benches/report.py`` judges the targets.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from support import generate, harness


@pytest.mark.parametrize("mode", ["bytes", "dicts"])
def test_peak_memory(mn: ModuleType, mem_size: int, mode: str) -> None:
    generate.generate_bytes(mem_size)  # make sure the cache file exists
    result = harness.peak_memory(mode, generate.cache_path(mem_size))
    result["records"] = mem_size
    harness.MEMORY_RESULTS.append(result)
    assert result["input_bytes"] > 0
    assert result["peak"] > 0
