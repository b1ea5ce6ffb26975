"""The AgentScope and Qwen-Agent adapters on the frameworks' own objects.

The frameworks are the oracles: their pydantic message types must accept what
msgnorm writes, and their own converters to a provider's shape (AgentScope's
``AnthropicChatFormatter``, Qwen-Agent's OpenAI conversion) must turn msgnorm's
repaired history into messages that break no rule msgnorm repairs, where they
pass a broken history through as it is.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgnorm
import pytest
from support.provider_oracles import check

# --------------------------------------------------------------------------
# AgentScope 2 (agentscope.message.Msg with pydantic blocks)
# --------------------------------------------------------------------------


def _agentscope() -> Any:
    return pytest.importorskip(
        "agentscope.message",
        reason="agentscope is not installed (the test extra has it on CPython 3.11+, "
        "where it has a wheel)",
    )


def _as_history(m: Any, *, answered: bool) -> list[Any]:
    """A system prompt, a question, a turn that calls two tools (one result
    missing unless ``answered``), a blank user turn and the answer."""
    results = [
        m.ToolResultBlock(
            type="tool_result", id="c1", name="get_weather", output="sunny", state="success"
        )
    ]
    if answered:
        results.append(
            m.ToolResultBlock(
                type="tool_result",
                id="c2",
                name="get_time",
                output=[m.TextBlock(type="text", text="noon")],
                state="success",
            )
        )
    return [
        m.Msg(name="sys", role="system", content=[m.TextBlock(type="text", text="Be brief.")]),
        m.Msg(
            name="ann", role="user", content=[m.TextBlock(type="text", text="Weather and time?")]
        ),
        m.Msg(
            name="bot",
            role="assistant",
            content=[
                m.ToolCallBlock(
                    type="tool_call", id="c1", name="get_weather", input='{"city": "Paris"}'
                ),
                m.ToolCallBlock(type="tool_call", id="c2", name="get_time", input="{}"),
                *results,
                m.TextBlock(type="text", text="Sunny, noon. "),
            ],
        ),
        m.Msg(name="ann", role="user", content=[m.TextBlock(type="text", text="thanks")]),
    ]


def _content(msgs: list[Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Roles and blocks, without AgentScope's generated ids and timestamps."""
    keep = ("type", "text", "thinking", "name", "input", "output", "state")
    out = []
    for msg in msgs:
        d = msg.model_dump(mode="json")
        blocks = [
            {k: v for k, v in b.items() if k in keep and not (k == "id" or v in (None, []))}
            for b in d["content"]
        ]
        for b in blocks:
            if isinstance(b.get("output"), list):
                b["output"] = [{"type": x["type"], "text": x.get("text")} for x in b["output"]]
            if "input" in b:
                b["input"] = json.loads(b["input"])
        out.append((d["role"], blocks))
    return out


def _same_objects(name: str, history: list[Any], cls: Any) -> list[Any]:
    """``convert`` from framework ``name`` to itself: objects of ``cls`` again,
    which the framework's own validation accepts."""
    out = msgnorm.convert(history, source=name, target=name)
    assert all(isinstance(x, cls) for x in out)
    for x in out:
        cls.model_validate(x.model_dump())
    return out


def test_agentscope_msg_objects_come_back_as_msg_objects() -> None:
    m = _agentscope()
    history = _as_history(m, answered=True)
    out = _same_objects("agentscope", history, m.Msg)
    assert _content(out) == _content(history)


def _format_anthropic(msgs: list[Any]) -> tuple[list[dict[str, Any]], Any]:
    """AgentScope's AnthropicChatFormatter; its system messages as ``system``."""
    formatter = pytest.importorskip("agentscope.formatter").AnthropicChatFormatter()
    formatted = asyncio.run(formatter.format(msgs))
    system = [b for x in formatted if x["role"] == "system" for b in x["content"]]
    return [x for x in formatted if x["role"] != "system"], system or None


def test_agentscope_formatter_sends_the_repaired_history_cleanly() -> None:
    m = _agentscope()
    broken = _as_history(m, answered=False)
    raw, _ = _format_anthropic(broken)
    assert "anthropic/tool-use-without-result" in {
        v.rule for v in msgnorm.validate(raw, "anthropic")
    }
    repaired = msgnorm.frameworks.agentscope.normalize_agentscope(broken)
    assert all(isinstance(x, m.Msg) for x in repaired)
    messages, system = _format_anthropic(repaired)
    check("anthropic", {"messages": messages, **({"system": system} if system else {})})
    assert [
        v for v in msgnorm.validate(messages, "anthropic") if not v.repair.startswith("none")
    ] == []


def _listed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """String tool_result content as its one text block (the formatter's
    spelling of the same content)."""
    out = []
    for msg in messages:
        blocks = []
        for b in msg["content"]:
            if b.get("type") == "tool_result" and isinstance(b.get("content"), str):
                b = {**b, "content": [{"type": "text", "text": b["content"]}]}
            blocks.append(b)
        out.append({**msg, "content": blocks})
    return out


def test_agentscope_reading_agrees_with_its_formatter() -> None:
    """msgnorm reading Msg objects, and msgnorm reading what AgentScope's own
    formatter makes of them, give the same Anthropic request."""
    m = _agentscope()
    history = _as_history(m, answered=True)
    messages, system = _format_anthropic(history)
    via_formatter = msgnorm.convert(messages, source="anthropic", target="anthropic", system=system)
    ours = msgnorm.convert(history, source="agentscope", target="anthropic")
    assert _listed(ours["messages"]) == _listed(via_formatter["messages"])
    assert ours["system"] in ("Be brief.", [{"type": "text", "text": "Be brief."}])


# --------------------------------------------------------------------------
# Qwen-Agent (qwen_agent.llm.schema.Message)
# --------------------------------------------------------------------------


def _qwen() -> Any:
    return pytest.importorskip("qwen_agent.llm.schema", reason="qwen-agent is not installed")


def _qwen_history(s: Any, *, answered: bool) -> list[Any]:
    calls = [
        s.Message(
            role="assistant",
            content="",
            function_call=s.FunctionCall(name=name, arguments=args),
            extra={"function_id": fid},
        )
        for name, args, fid in (("search", '{"q": "cat"}', "c1"), ("search", '{"q": "dog"}', "c2"))
    ]
    results = [
        s.Message(role="function", name="search", content="a cat", extra={"function_id": "c1"})
    ]
    if answered:
        results.append(
            s.Message(role="function", name="search", content="a dog", extra={"function_id": "c2"})
        )
    return [
        s.Message(role="system", content="be brief"),
        s.Message(role="user", content=[s.ContentItem(text="cats or dogs?")]),
        s.Message(role="assistant", content="", reasoning_content="search both"),
        *calls,
        *results,
        s.Message(role="assistant", content="Both."),
    ]


def _qwen_to_openai(msgs: list[Any]) -> list[dict[str, Any]]:
    """Qwen-Agent's own conversion to OpenAI Chat messages (its OAI model's).

    It writes a tool message's call id as ``id`` (the vLLM/DashScope spelling);
    the Chat Completions API names it ``tool_call_id``, so it is renamed here.
    """
    base = pytest.importorskip("qwen_agent.llm.base")
    dumped = [x.model_dump() if not isinstance(x, dict) else x for x in msgs]
    out = base.BaseChatModel._conv_qwen_agent_messages_to_oai(dumped)
    clean = []
    for x in out:
        x = {
            k: v for k, v in x.items() if v is not None and k not in ("extra", "reasoning_content")
        }
        if x["role"] == "tool":
            x["tool_call_id"] = x.pop("id")
            x.pop("name", None)
        if isinstance(x.get("content"), list):
            x["content"] = [
                {"type": "text", "text": c["text"]} for c in x["content"] if c.get("text")
            ]
        clean.append(x)
    return clean


def test_qwen_agent_message_objects_come_back_as_message_objects() -> None:
    s = _qwen()
    history = _qwen_history(s, answered=True)
    out = _same_objects("qwen-agent", history, s.Message)
    assert [(x.role, x.function_call and x.function_call.name) for x in out] == [
        (x.role, x.function_call and x.function_call.name) for x in history
    ]
    assert [x.extra and x.extra.get("function_id") for x in out] == [
        x.extra and x.extra.get("function_id") for x in history
    ]


def test_qwen_agent_conversion_sends_the_repaired_history_cleanly() -> None:
    s = _qwen()
    broken = _qwen_history(s, answered=False)
    raw = _qwen_to_openai(broken)
    assert "openai-chat/tool-calls-without-response" in {
        v.rule for v in msgnorm.validate(raw, "openai-chat")
    }
    repaired = msgnorm.frameworks.qwen_agent.normalize_qwen_agent(broken)
    assert all(isinstance(x, s.Message) for x in repaired)
    messages = _qwen_to_openai(repaired)
    check("openai-chat", messages)
    assert [
        v for v in msgnorm.validate(messages, "openai-chat") if not v.repair.startswith("none")
    ] == []
