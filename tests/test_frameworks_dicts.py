"""The Qwen-Agent and AgentScope adapters on their message dicts (the shapes of
``qwen_agent.llm.schema.Message`` and ``agentscope.message.Msg`` 2.x dumped).

These tests hold the shapes as the two projects define them and check round
trips, the splitting and joining each framework does, and the repairs, with
or without the packages; tests/test_frameworks_real.py runs the packages'
own objects and converters.
"""

from __future__ import annotations

import json
from typing import Any

import msgnorm
import pytest
from msgnorm.frameworks import agentscope as mas
from msgnorm.frameworks import qwen_agent as mqa


def qwen_history() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [{"text": "what is this?"}, {"image": "https://e.x/cat.png"}],
        },
        {"role": "assistant", "content": "", "reasoning_content": "look it up, twice"},
        {
            "role": "assistant",
            "content": "",
            "function_call": {"name": "search", "arguments": '{"q": "cat"}'},
            "extra": {"function_id": "c1"},
        },
        {
            "role": "assistant",
            "content": "",
            "function_call": {"name": "search", "arguments": '{"q": "kitten"}'},
            "extra": {"function_id": "c2"},
        },
        {"role": "function", "name": "search", "content": "a cat", "extra": {"function_id": "c1"}},
        {
            "role": "function",
            "name": "search",
            "content": "a kitten",
            "extra": {"function_id": "c2"},
        },
        {"role": "assistant", "content": "A cat."},
    ]


def test_qwen_agent_records() -> None:
    recs = mqa.from_qwen_agent(qwen_history())
    assert [r["type"] for r in recs] == ["system", "user", "assistant", "user", "user", "assistant"]
    # consecutive assistant messages are one turn: reasoning, then both calls
    assert recs[2]["message"]["content"] == [
        {"type": "thinking", "thinking": "look it up, twice"},
        {"type": "tool_use", "id": "c1", "name": "search", "input": {"q": "cat"}},
        {"type": "tool_use", "id": "c2", "name": "search", "input": {"q": "kitten"}},
    ]
    assert recs[1]["message"]["content"][1] == {
        "type": "image",
        "source": {"type": "url", "url": "https://e.x/cat.png"},
    }


def test_qwen_agent_calls_without_ids_and_repairs() -> None:
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "function_call": {"name": "a", "arguments": "{}"}},
        {"role": "assistant", "content": "", "function_call": {"name": "b", "arguments": "{}"}},
        {"role": "function", "name": "b", "content": "b done"},  # matched by name
        {"role": "user", "content": "and a?"},  # a was never answered
    ]
    out = mqa.normalize_qwen_agent(msgs)
    fns = [m for m in out if m["role"] == "function"]
    assert [(m["name"], m["content"]) for m in fns] == [
        ("a", "[Tool result missing due to internal error]"),
        ("b", "b done"),
    ]
    ids = [m["extra"]["function_id"] for m in out if m.get("function_call")]
    assert ids == [m["extra"]["function_id"] for m in fns] and len(set(ids)) == 2
    # arguments stay JSON
    assert all(
        json.loads(m["function_call"]["arguments"]) == {} for m in out if m.get("function_call")
    )


def test_qwen_agent_bad_role() -> None:
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[1\]\.role"):
        mqa.from_qwen_agent([{"role": "user", "content": "x"}, {"role": "tool", "content": "y"}])


def agentscope_history() -> list[dict[str, Any]]:
    return [
        {"name": "system", "role": "system", "content": [{"type": "text", "text": "be brief"}]},
        {"name": "user", "role": "user", "content": [{"type": "text", "text": "weather?"}]},
        {
            "name": "assistant",
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "two cities", "signature": "sig"},
                {"type": "tool_call", "id": "c1", "name": "weather", "input": '{"city": "Paris"}'},
                {"type": "tool_call", "id": "c2", "name": "weather", "input": '{"city": "Rome"}'},
                {
                    "type": "tool_result",
                    "id": "c1",
                    "name": "weather",
                    "output": "sunny",
                    "state": "success",
                },
                {
                    "type": "tool_result",
                    "id": "c2",
                    "name": "weather",
                    "output": "down",
                    "state": "error",
                },
                {"type": "text", "text": "Paris is sunny."},
            ],
        },
        {
            "name": "user",
            "role": "user",
            "content": [
                {"type": "text", "text": "and this?"},
                {
                    "type": "data",
                    "source": {"type": "base64", "data": "iVBORw0KGgo=", "media_type": "image/png"},
                },
            ],
        },
        {
            "name": "assistant",
            "role": "assistant",
            "content": [{"type": "text", "text": "a picture."}],
        },
    ]


def test_agentscope_records_split_a_msg_where_its_results_start() -> None:
    recs = mas.from_agentscope(agentscope_history())
    assert [r["type"] for r in recs] == ["system", *["user", "assistant"] * 3]
    assert [b["type"] for b in recs[2]["message"]["content"]] == [
        "thinking",
        "tool_use",
        "tool_use",
    ]
    assert recs[3]["message"]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "down", "is_error": True},
    ]
    assert recs[4]["message"]["content"] == [{"type": "text", "text": "Paris is sunny."}]


def test_agentscope_repairs_a_call_without_result() -> None:
    msgs = [
        {"name": "user", "role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "name": "assistant",
            "role": "assistant",
            "content": [{"type": "tool_call", "id": "c1", "name": "run", "input": "{}"}],
        },
        {"name": "user", "role": "user", "content": [{"type": "text", "text": "stop"}]},
    ]
    out = mas.normalize_agentscope(msgs)
    results = [b for m in out for b in m["content"] if b["type"] == "tool_result"]
    assert results == [
        {
            "type": "tool_result",
            "id": "c1",
            "name": "run",
            "output": "[Tool result missing due to internal error]",
            "state": "error",
        }
    ]
    assert out[1]["content"][-1] is results[0]  # in the Msg that called, AgentScope's way


def test_agentscope_bad_message() -> None:
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[0\]"):
        mas.from_agentscope([{"role": "tool", "content": []}])


def test_from_provider_to_provider_and_convert_take_frameworks() -> None:
    q = qwen_history()
    assert msgnorm.from_provider(q, "qwen-agent") == mqa.from_qwen_agent(q)
    assert msgnorm.to_provider(mqa.from_qwen_agent(q), "qwen-agent") == q
    # a framework to another, and to a provider, through the same core adapters
    a = msgnorm.convert(q, source="qwen-agent", target="agentscope")
    assert mas.to_agentscope(msgnorm.from_provider(q, "qwen-agent")) == a
    assert msgnorm.convert(a, source="agentscope", target="qwen-agent") == q
    chat = msgnorm.convert(agentscope_history(), source="agentscope", target="openai-chat")
    assert chat[0] == {"role": "system", "content": "be brief"}
    calls = [c["id"] for m in chat for c in m.get("tool_calls", [])]
    answers = [m["tool_call_id"] for m in chat if m["role"] == "tool"]
    assert calls == answers == ["c1", "c2"]
    out, report = msgnorm.to_provider_report(mqa.from_qwen_agent(q), "agentscope")
    assert out == a and isinstance(report, dict)


@pytest.mark.parametrize(
    ("history", "normalize", "to", "from_"),
    [
        (qwen_history, mqa.normalize_qwen_agent, mqa.to_qwen_agent, mqa.from_qwen_agent),
        (agentscope_history, mas.normalize_agentscope, mas.to_agentscope, mas.from_agentscope),
    ],
    ids=["qwen-agent", "agentscope"],
)
def test_round_trip(history: Any, normalize: Any, to: Any, from_: Any) -> None:
    """A valid history normalizes to itself and comes back through records unchanged."""
    msgs = history()
    assert normalize(msgs) == msgs
    assert to(from_(msgs)) == msgs
