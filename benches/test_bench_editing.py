"""Context editing, side by side with LangChain (issue 15).

Group ``clear_tool_results n=N``: ``msgnorm.clear_tool_results`` on the normalized
history (dicts, and the same as JSON bytes) against LangChain v1's
``ClearToolUsesEdit.apply`` (``langchain.agents.middleware.context_editing``) with its
approximate counter, on the same history as LangChain messages
(``harness.to_langchain``). Both fire (trigger 0 / -1), keep the last 3 tool uses and
clear every older result; LangChain edits a fresh copy of the message list per call
(its ``apply`` replaces list items, it does not mutate the messages).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec
import pytest
from support.harness import run_bench


def _group(size: int) -> str:
    return f"clear_tool_results n={size}"


def test_ours_clear_tool_results_dicts(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    out, rep = run_bench(
        benchmark,
        lambda: mn.clear_tool_results_report(normalized, trigger=None, keep=3),
        group=_group(size),
        n=size,
    )
    assert len(out) == len(normalized) and rep["results_cleared"] > 0


def test_ours_clear_tool_results_bytes(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    data = msgspec.json.encode(normalized)
    out, rep = run_bench(
        benchmark,
        lambda: mn.clear_tool_results_report(data, trigger=None, keep=3),
        group=_group(size),
        n=size,
        nbytes=len(data),
    )
    assert isinstance(out, bytes) and rep["results_cleared"] > 0


def test_peer_langchain_clear_tool_uses_edit(
    benchmark: Any, lc_utils: ModuleType, lc_normalized: list[Any], size: int
) -> None:
    ce = pytest.importorskip("langchain.agents.middleware.context_editing")
    edit = ce.ClearToolUsesEdit(trigger=-1, keep=3)
    count = lc_utils.count_tokens_approximately

    def run() -> list[Any]:
        msgs = list(lc_normalized)
        edit.apply(msgs, count_tokens=count)
        return msgs

    out = run_bench(benchmark, run, group=_group(size), n=size)
    assert len(out) == len(lc_normalized)
