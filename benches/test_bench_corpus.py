"""The real transcripts of the ``MSGNORM_CORPUS`` directory (one skip when it is unset).

Group ``corpus``: normalize_for_api over every corpus file's valid records (the
deliberately broken lines dropped), as dicts and as JSON Lines bytes, beside the
pure-Python reference. Tiny inputs: this times per-call overhead more than throughput.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import msgspec
import pytest
from support import generate
from support.harness import run_bench

_CORPUS = generate.corpus_records()
if not _CORPUS:
    pytest.skip(
        "no corpus (MSGNORM_CORPUS is unset or holds no *.jsonl): the real transcripts are not timed",
        allow_module_level=True,
    )

_FILES = list(_CORPUS.values())
_JSONL = [b"".join(msgspec.json.encode(r) + b"\n" for r in recs) for recs in _FILES]
_N = sum(len(recs) for recs in _FILES)


def test_ours_corpus_dicts(benchmark: Any, mn: ModuleType) -> None:
    out = run_bench(
        benchmark, lambda: [mn.normalize_for_api(recs) for recs in _FILES], group="corpus", n=_N
    )
    assert all(out)


def test_ours_corpus_bytes(benchmark: Any, mn: ModuleType) -> None:
    out = run_bench(
        benchmark, lambda: [mn.normalize_for_api(data) for data in _JSONL], group="corpus", n=_N
    )
    assert all(isinstance(o, bytes) for o in out)


def test_peer_reference_corpus(benchmark: Any, reference: Callable[..., Any]) -> None:
    out = run_bench(benchmark, lambda: [reference(recs) for recs in _FILES], group="corpus", n=_N)
    assert all(out)


def test_corpus_agrees_with_reference(mn: ModuleType, reference: Callable[..., Any]) -> None:
    for recs, data in zip(_FILES, _JSONL, strict=True):
        expected = reference(recs)
        assert mn.normalize_for_api(recs) == expected
        assert msgspec.json.decode(mn.normalize_for_api(data)) == expected
