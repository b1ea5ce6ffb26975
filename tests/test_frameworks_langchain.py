"""The LangChain adapter (docs/PROVIDERS.md, "Frameworks"): LangChain messages in,
LangChain messages out. Outside oracles: LangChain's own ``content_blocks``
translation and ``convert_to_openai_messages``."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest

lc = pytest.importorskip("langchain_core.messages", reason="langchain-core is not installed")
from msgnorm.frameworks import langchain as mlc  # noqa: E402


def lc_view(msgs: list[Any]) -> list[tuple[Any, ...]]:
    """What a message means to LangChain: its class, standard content blocks, tool
    calls and tool-call id (LangChain's own translation of any content style)."""
    out = []
    for m in msgs:
        calls = [(c["id"], c["name"], c["args"]) for c in getattr(m, "tool_calls", [])]
        blocks = [b for b in m.content_blocks if b.get("type") != "tool_call"]
        for b in blocks:
            b.pop("id", None)  # LangChain gives media blocks fresh ids
        out.append(
            (
                type(m).__name__,
                blocks,
                calls,
                getattr(m, "tool_call_id", None),
                getattr(m, "status", None),
            )
        )
    return out


def lc_history() -> list[Any]:
    return [
        lc.SystemMessage("be brief"),
        lc.HumanMessage("read x"),
        lc.AIMessage(
            content=[
                {"type": "reasoning", "reasoning": "hm", "extras": {"signature": "sig"}},
                {"type": "text", "text": "reading"},
            ],
            tool_calls=[{"name": "Read", "args": {"p": "x"}, "id": "t1"}],
        ),
        lc.ToolMessage("contents of x", tool_call_id="t1"),
        lc.AIMessage("x holds the contents."),
        lc.HumanMessage(
            content=[
                {"type": "text", "text": "and this?"},
                {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
            ]
        ),
        lc.AIMessage("a picture."),
    ]


def test_langchain_records() -> None:
    recs = mlc.from_langchain(lc_history())
    assert [r["type"] for r in recs] == ["system", *["user", "assistant"] * 3]
    assert recs[0]["subtype"] == "system_prompt" and recs[0]["content"] == "be brief"
    assert recs[2]["message"]["content"] == [
        {"type": "thinking", "thinking": "hm", "signature": "sig"},
        {"type": "text", "text": "reading"},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": "x"}},
    ]
    assert recs[3]["message"]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "contents of x"}
    ]
    assert recs[5]["message"]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    assert mlc.from_langchain(lc_history()) == recs  # deterministic uuids


def test_langchain_round_trip_keeps_a_valid_history() -> None:
    msgs = lc_history()
    out = mlc.normalize_langchain(msgs)
    assert lc_view(out) == lc_view(msgs)
    # the two steps give the same as the one
    assert lc_view(mlc.to_langchain(mlc.from_langchain(msgs))) == lc_view(out)


def test_langchain_provider_native_content_reads_as_langchain_reads_it() -> None:
    """An AIMessage as langchain-anthropic stores it (Anthropic blocks in content,
    calls in both content and tool_calls) reads the same as its standard form."""
    native = lc.AIMessage(
        content=[
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": "x"}},
        ],
        tool_calls=[{"name": "Read", "args": {"p": "x"}, "id": "t1"}],
        response_metadata={"model_provider": "anthropic"},
    )
    msgs = lc_history()
    standard = mlc.from_langchain(msgs)
    msgs[2] = native
    assert mlc.from_langchain(msgs) == standard


def test_langchain_repairs() -> None:
    msgs = [
        lc.HumanMessage("go"),
        lc.AIMessage("", tool_calls=[{"name": "Bash", "args": {"c": "ls"}, "id": "t1"}]),
        lc.HumanMessage("never mind"),  # the call was never answered
        lc.ToolMessage("late", tool_call_id="nope"),  # answers no call
        lc.AIMessage("ok"),
    ]
    out = mlc.normalize_langchain(msgs)
    kinds = [type(m).__name__ for m in out]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage", "AIMessage"]
    assert out[2].tool_call_id == "t1" and out[2].status == "error"
    assert all(getattr(m, "tool_call_id", "t1") != "nope" for m in out)
    # LangChain's own converter takes the result, every call answered right after it
    oa = lc.convert_to_openai_messages(out)
    assert oa[1]["tool_calls"][0]["id"] == "t1" and oa[2]["role"] == "tool"


def test_langchain_bad_input_names_the_message() -> None:
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[1\]"):
        mlc.from_langchain([lc.HumanMessage("hi"), {"role": "user", "content": "x"}])
