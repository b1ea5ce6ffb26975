"""Exact o200k_base counts (SPEC §6.3) side by side with tiktoken, one thread.

* ``exact o200k n=N``: ``msgnorm._exact.exact_counts`` of the normalized history
  (checks, content text and merge) and the merge alone on the content texts
  (``Bpe.count_many``), against tiktoken's ``encode_ordinary`` of the same texts.

Skipped when no o200k_base rank file is found offline or tiktoken is missing
(tests/support/bpe_files.py).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.bpe_files import rank_file, tiktoken_encoding
from support.harness import run_bench


@pytest.fixture
def o200k(tmp_path: Path) -> Any:
    pytest.importorskip("tiktoken", reason="tiktoken (the [exact] extra) is not installed")
    if rank_file("o200k_base") is None:
        pytest.skip("no o200k_base.tiktoken found offline (MSGNORM_BPE_DIR, TIKTOKEN_CACHE_DIR)")
    return tiktoken_encoding("o200k_base", tmp_path)


def _texts(normalized: list[dict[str, Any]]) -> list[str]:
    from msgnorm import _exact

    return [t for t in _exact.content_texts(normalized) if t is not None]


def test_ours_exact_counts(
    benchmark: Any, mn: ModuleType, o200k: Any, normalized: list[dict[str, Any]], size: int
) -> None:
    from msgnorm import _exact

    _exact.bpe("o200k_base")  # the table is built once, before timing
    out = run_bench(
        benchmark,
        lambda: _exact.exact_counts(normalized, "o200k_base"),
        group=f"exact o200k n={size}",
        n=size,
    )
    texts = _texts(normalized)
    assert sum(out) == sum(len(o200k.encode_ordinary(t)) + 3 for t in texts)


def test_ours_exact_merge_only(
    benchmark: Any, mn: ModuleType, o200k: Any, normalized: list[dict[str, Any]], size: int
) -> None:
    from msgnorm import _exact

    table = _exact.bpe("o200k_base")
    texts = _texts(normalized)
    out = run_bench(
        benchmark, lambda: table.count_many(texts), group=f"exact o200k n={size}", n=size
    )
    assert len(out) == len(texts)


def test_peer_tiktoken_encode_ordinary(
    benchmark: Any, mn: ModuleType, o200k: Any, normalized: list[dict[str, Any]], size: int
) -> None:
    texts = _texts(normalized)
    encode = o200k.encode_ordinary
    out = run_bench(
        benchmark,
        lambda: [len(encode(t)) for t in texts],
        group=f"exact o200k n={size}",
        n=size,
    )
    assert len(out) == len(texts)
