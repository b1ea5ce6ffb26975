"""The pydantic-ai adapter (docs/PROVIDERS.md, "Frameworks"): ``ModelRequest`` /
``ModelResponse`` in and out. Outside oracles: pydantic-ai's
``ModelMessagesTypeAdapter`` and an offline ``Agent`` run (``FunctionModel``) on
the repaired history. pydantic-ai 2 needs CPython 3.11 or later."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest

pai = pytest.importorskip("pydantic_ai.messages", reason="pydantic-ai is not installed")
from msgnorm.frameworks import pydantic_ai as mpa  # noqa: E402


def pai_view(msgs: list[Any]) -> Any:
    """pydantic-ai's own serialization, without the timestamps new objects get."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("timestamp",)}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(pai.ModelMessagesTypeAdapter.dump_python(msgs, mode="json"))


def pai_history() -> list[Any]:
    return [
        pai.ModelRequest(parts=[pai.SystemPromptPart("be brief"), pai.UserPromptPart("read x")]),
        pai.ModelResponse(
            parts=[
                pai.ThinkingPart("hm", signature="sig"),
                pai.TextPart("reading"),
                pai.ToolCallPart("Read", {"p": "x"}, "t1"),
            ]
        ),
        pai.ModelRequest(parts=[pai.ToolReturnPart("Read", "contents of x", "t1")]),
        pai.ModelResponse(
            parts=[
                pai.ThinkingPart("", id="redacted_thinking", signature="opaque"),
                pai.TextPart("x holds the contents."),
            ]
        ),
        pai.ModelRequest(parts=[pai.UserPromptPart("thanks")]),
        pai.ModelResponse(parts=[pai.TextPart("welcome")]),
    ]


def test_pydantic_ai_records() -> None:
    recs = mpa.from_pydantic_ai(pai_history())
    assert [r["type"] for r in recs] == ["system", *["user", "assistant"] * 3]
    assert recs[2]["message"]["content"][2] == {
        "type": "tool_use",
        "id": "t1",
        "name": "Read",
        "input": {"p": "x"},
    }
    assert recs[4]["message"]["content"][0] == {"type": "redacted_thinking", "data": "opaque"}


def test_pydantic_ai_round_trip_keeps_a_valid_history() -> None:
    msgs = pai_history()
    out = mpa.normalize_pydantic_ai(msgs)
    assert pai_view(out) == pai_view(msgs)
    again = pai.ModelMessagesTypeAdapter.validate_python(
        pai.ModelMessagesTypeAdapter.dump_python(out)
    )
    assert pai_view(again) == pai_view(out)


def test_pydantic_ai_repairs_and_an_agent_takes_the_history() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    msgs = [
        pai.ModelRequest(parts=[pai.UserPromptPart("go")]),
        pai.ModelResponse(parts=[pai.ToolCallPart("Bash", {"c": "ls"}, "t1")]),
        # the call was never answered; the user moved on
        pai.ModelRequest(parts=[pai.UserPromptPart("never mind")]),
        pai.ModelResponse(parts=[pai.TextPart("ok")]),
    ]
    out = mpa.normalize_pydantic_ai(msgs)
    ret = out[2].parts[0]
    assert isinstance(ret, pai.ToolReturnPart)
    assert ret.tool_call_id == "t1" and ret.tool_name == "Bash" and ret.outcome == "failed"

    seen: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> Any:
        seen.extend(messages)
        return pai.ModelResponse(parts=[pai.TextPart("done")])

    result = Agent(FunctionModel(model)).run_sync("next", message_history=out)
    assert result.output == "done"
    calls = {p.tool_call_id for m in seen for p in m.parts if isinstance(p, pai.ToolCallPart)}
    rets = {p.tool_call_id for m in seen for p in m.parts if isinstance(p, pai.ToolReturnPart)}
    assert calls == rets == {"t1"}


def test_pydantic_ai_bad_input_names_the_message() -> None:
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[1\]"):
        mpa.from_pydantic_ai([pai.ModelRequest(parts=[pai.UserPromptPart("hi")]), "hello"])
