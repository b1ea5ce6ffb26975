"""load_session side by side with normalize_for_api on the same JSON Lines.

Group ``load_session n=N``: the loader on the whole history (``after_compaction=False``)
and by default (after the last compaction), normalize_for_api on the same bytes, and
the Agent SDK's own reader (its JSON Lines parse and chain walk) when it is installed.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec
import pytest
from support.harness import bench_bytes, run_bench


def _group(size: int) -> str:
    return f"load_session n={size}"


def test_load_whole_history(benchmark: Any, mn: ModuleType, data_jsonl: bytes, size: int) -> None:
    s = run_bench(
        benchmark,
        lambda: mn.load_session(data_jsonl, kind="bytes", after_compaction=False),
        group=_group(size),
        n=size,
        nbytes=len(data_jsonl),
    )
    records = msgspec.json.decode(s.records)
    assert records and s.report.skipped == []
    assert len(records) == s.thread.records > size // 2


def test_load_after_compaction(
    benchmark: Any, mn: ModuleType, data_jsonl: bytes, size: int
) -> None:
    s = run_bench(
        benchmark,
        lambda: mn.load_session(data_jsonl, kind="bytes"),
        group=_group(size),
        n=size,
        nbytes=len(data_jsonl),
    )
    full = mn.load_session(data_jsonl, kind="bytes", after_compaction=False)
    assert s.thread.records + s.report.before_compaction == full.thread.records


def test_normalize_same_bytes(benchmark: Any, mn: ModuleType, data_jsonl: bytes, size: int) -> None:
    out = bench_bytes(benchmark, mn.normalize_for_api, data_jsonl, group=_group(size), n=size)
    assert msgspec.json.decode(out)


def test_peer_agent_sdk_reader(benchmark: Any, data_jsonl: bytes, size: int) -> None:
    sdk = pytest.importorskip(
        "claude_agent_sdk._internal.sessions", reason="claude-agent-sdk is not installed"
    )
    chain = run_bench(
        benchmark,
        lambda: sdk._build_conversation_chain(sdk._parse_transcript_entries(data_jsonl.decode())),
        group=_group(size),
        n=size,
        nbytes=len(data_jsonl),
    )
    assert chain and chain[-1]["type"] in ("user", "assistant")
