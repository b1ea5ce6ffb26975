"""count_tokens, trim_to_budget and merging, side by side with LangChain.

The inputs are the normalized history (msgnorm's, or the reference's when msgnorm is
absent) and the equivalent LangChain messages (``harness.to_langchain``): a
``HumanMessage`` per user text, a ``ToolMessage`` per ``tool_result``, an ``AIMessage``
with ``tool_calls`` per assistant record.

* ``count_tokens n=N``: ``msgnorm.count_tokens`` / ``count_tokens_per_record`` against
  ``langchain_core.messages.utils.count_tokens_approximately``;
* ``trim n=N``: ``msgnorm.trim_to_budget`` against ``trim_messages(strategy="last",
  token_counter=count_tokens_approximately)``, both to half of their own count;
* ``merge n=N``: ``msgnorm.normalize_for_api`` on the raw history against
  ``merge_message_runs`` on its LangChain messages (streamed assistant records are
  adjacent ``AIMessage``s there), which does far less (no pairing, no clean-up).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from support.harness import run_bench


def _bench(benchmark: Any, group: str, size: int, fn: Callable[[], Any]) -> Any:
    """:func:`run_bench` of ``fn`` in the group ``"<group> n=<size>"``."""
    return run_bench(benchmark, fn, group=f"{group} n={size}", n=size)


def test_ours_count_tokens(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    # SPEC §6's formula: the rows that compare with earlier counts
    out = _bench(
        benchmark, "count_tokens", size, lambda: mn.count_tokens(normalized, tokenizer="chars")
    )
    assert out > 0


def test_ours_count_tokens_claude(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    out = _bench(
        benchmark, "count_tokens", size, lambda: mn.count_tokens(normalized, tokenizer="claude")
    )
    assert out > mn.count_tokens(normalized, tokenizer="chars")


def test_ours_count_tokens_per_record(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    out = _bench(
        benchmark,
        "count_tokens",
        size,
        lambda: mn.count_tokens_per_record(normalized, tokenizer="chars"),
    )
    assert len(out) == len(normalized)


def test_peer_langchain_count_tokens(
    benchmark: Any, lc_utils: ModuleType, lc_normalized: list[Any], size: int
) -> None:
    fn = lc_utils.count_tokens_approximately
    out = _bench(benchmark, "count_tokens", size, lambda: fn(lc_normalized))
    assert out > 0


def test_ours_trim_to_budget(
    benchmark: Any, mn: ModuleType, normalized: list[dict[str, Any]], size: int
) -> None:
    budget = mn.count_tokens(normalized, tokenizer="chars") // 2
    out = _bench(
        benchmark, "trim", size, lambda: mn.trim_to_budget(normalized, budget, tokenizer="chars")
    )
    assert 0 < len(out) < len(normalized)
    assert mn.count_tokens(out, tokenizer="chars") <= budget


def test_peer_langchain_trim_messages(
    benchmark: Any, lc_utils: ModuleType, lc_normalized: list[Any], size: int
) -> None:
    counter = lc_utils.count_tokens_approximately
    budget = counter(lc_normalized) // 2

    def trim() -> list[Any]:
        out: list[Any] = lc_utils.trim_messages(
            lc_normalized, strategy="last", token_counter=counter, max_tokens=budget
        )
        return out

    out = _bench(benchmark, "trim", size, trim)
    assert 0 < len(out) < len(lc_normalized)


def test_ours_normalize_for_merge(
    benchmark: Any, mn: ModuleType, records: list[dict[str, Any]], size: int
) -> None:
    out = _bench(benchmark, "merge", size, lambda: mn.normalize_for_api(records))
    assert out


def test_peer_langchain_merge_message_runs(
    benchmark: Any, lc_utils: ModuleType, lc_raw: list[Any], size: int
) -> None:
    fn = lc_utils.merge_message_runs
    out = _bench(benchmark, "merge", size, lambda: fn(lc_raw))
    assert 0 < len(out) < len(lc_raw)
