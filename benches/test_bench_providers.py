"""Provider adapters on a generated OpenAI Chat history, side by side with normalize_for_api.

Group ``providers n=N``: ``convert(messages, source="openai-chat", target="openai-chat")``
(from_provider → normalize_for_api → to_openai_chat), its halves, and
``normalize_for_api`` on the same history as msgnorm records (the target: ≤ ~1.5×).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import pytest
from support.harness import run_bench
from support.provider_history import openai_chat_history


def _group(size: int) -> str:
    return f"providers n={size}"


@functools.cache
def _chat(size: int) -> list[dict[str, Any]]:
    return openai_chat_history(size)


@pytest.fixture
def chat(size: int) -> list[dict[str, Any]]:
    """The history (shared between tests: none of them mutates its input)."""
    return _chat(size)


@pytest.fixture
def records(mn: ModuleType, chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as msgnorm records."""
    out: list[dict[str, Any]] = mn.from_provider(chat, "openai-chat")
    return out


def test_ours_convert_openai_chat(
    benchmark: Any, mn: ModuleType, chat: list[dict[str, Any]], size: int
) -> None:
    out = run_bench(
        benchmark,
        lambda: mn.convert(chat, source="openai-chat", target="openai-chat"),
        group=_group(size),
        n=size,
    )
    assert out[0] == chat[0]
    assert len(out) == len(chat)


def test_ours_from_provider(
    benchmark: Any, mn: ModuleType, chat: list[dict[str, Any]], size: int
) -> None:
    out = run_bench(
        benchmark, lambda: mn.from_provider(chat, "openai-chat"), group=_group(size), n=size
    )
    assert len(out) == len(chat)


def test_ours_to_openai_chat(
    benchmark: Any, mn: ModuleType, chat: list[dict[str, Any]], records: Any, size: int
) -> None:
    out = run_bench(benchmark, lambda: mn.to_openai_chat(records), group=_group(size), n=size)
    assert len(out) == len(chat)


def test_normalize_for_api_on_the_records(
    benchmark: Any, mn: ModuleType, records: Any, size: int
) -> None:
    out = run_bench(benchmark, lambda: mn.normalize_for_api(records), group=_group(size), n=size)
    # the system prompt record from_provider made is kept in place (SPEC §4 step 3)
    assert [r["type"] for r in out[:2]] == ["system", "user"]
    assert out[0]["subtype"] == "system_prompt"
