"""The framework adapters lose nothing (docs/PROVIDERS.md, "Frameworks"): a valid
history built from the framework's own message classes (ids, metadata, usage,
names, provider details, content as a string or a list, signed thinking) comes
back as the same objects; a broken one changes only what the repair names."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

_WORD = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=12).map(
    lambda s: s.strip() or "w"
)
_META = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(0, 9), max_size=2)
_MODELS = st.sampled_from(["claude-sonnet-4-5", "claude-opus-4-1-20250805"])


def _made_without(
    msgs: list[Any], gone: int, repair: Callable[[list[Any]], list[Any]]
) -> list[Any]:
    """The messages ``repair`` makes for the history without message ``gone``, once
    every message the history kept has come back as the input's own object, in order."""
    broken = msgs[:gone] + msgs[gone + 1 :]
    out = repair(broken)
    kept = [o for o in out if any(o is b for b in broken)]
    assert [id(o) for o in kept] == [id(b) for b in broken]
    return [o for o in out if not any(o is b for b in broken)]


# --------------------------------------------------------------------------
# LangChain
# --------------------------------------------------------------------------


def _lc() -> Any:
    return pytest.importorskip("langchain_core.messages", reason="langchain-core is not installed")


@st.composite
def lc_histories(draw: st.DrawFn) -> tuple[list[Any], list[list[int]]]:
    """A valid LangChain history and, per tool-calling turn, the positions of its
    ``ToolMessage``s."""
    m = _lc()
    out: list[Any] = []
    answers: list[list[int]] = []
    n = 0

    def uid(prefix: str) -> str:
        nonlocal n
        n += 1
        return f"{prefix}-{n}"

    if draw(st.booleans()):
        out.append(m.SystemMessage(draw(_WORD), id=uid("sys")))
    for _ in range(draw(st.integers(1, 4))):
        text = draw(_WORD)
        as_list = draw(st.booleans())
        content: Any = [{"type": "text", "text": text}] if as_list else text
        out.append(m.HumanMessage(content=content, id=uid("human"), name=draw(st.none() | _WORD)))
        calls = [
            {
                "type": "tool_call",
                "id": uid("call"),
                "name": draw(st.sampled_from(["get", "put"])),
                "args": draw(_META),
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
        thinking = draw(st.booleans())
        body: Any
        if thinking:
            body = [
                {
                    "type": "thinking",
                    "thinking": draw(_WORD),
                    "signature": "sig" + draw(_WORD).replace(" ", ""),
                },
                {"type": "text", "text": draw(_WORD)},
            ]
        elif draw(st.booleans()):
            body = [{"type": "text", "text": draw(_WORD)}]
        else:
            body = draw(_WORD)
        usage = {"input_tokens": draw(st.integers(0, 99)), "output_tokens": 3, "total_tokens": 0}
        usage["total_tokens"] = usage["input_tokens"] + 3
        out.append(
            m.AIMessage(
                content=body,
                tool_calls=calls,
                id=uid("ai"),
                usage_metadata=usage,
                response_metadata={
                    "model_name": draw(_MODELS),
                    "stop_reason": "tool_use" if calls else "end_turn",
                },
                additional_kwargs=draw(_META),
            )
        )
        positions = []
        for call in calls:
            positions.append(len(out))
            result: Any = draw(_WORD)
            if draw(st.booleans()):
                result = [{"type": "text", "text": result}]
            out.append(
                m.ToolMessage(
                    content=result,
                    tool_call_id=call["id"],
                    name=call["name"],
                    id=uid("tool"),
                    status=draw(st.sampled_from(["success", "error"])),
                    artifact=draw(st.none() | _META),
                )
            )
        if calls:
            answers.append(positions)
            out.append(
                m.AIMessage(
                    content=draw(_WORD),
                    id=uid("ai"),
                    response_metadata={"model_name": draw(_MODELS)},
                )
            )
    return out, answers


def _lc_fields(msg: Any) -> dict[str, Any]:
    return msg.model_dump()


@given(lc_histories())
def test_langchain_valid_history_comes_back_as_the_same_objects(case: Any) -> None:
    from msgnorm.frameworks import langchain as mlc

    msgs, _ = case
    for out in (
        mlc.normalize_langchain(msgs),
        mlc.repair_langchain(msgs),
        mlc.repair_langchain(msgs, provider="openai-chat"),
    ):
        assert out == msgs
        assert all(o is m for o, m in zip(out, msgs, strict=True))
        assert [_lc_fields(o) for o in out] == [_lc_fields(m) for m in msgs]


@given(lc_histories(), st.data())
def test_langchain_interrupted_call_changes_only_its_result(case: Any, data: st.DataObject) -> None:
    from msgnorm.frameworks import langchain as mlc

    m = _lc()
    msgs, answers = case
    if not answers:
        return
    positions = data.draw(st.sampled_from(answers))
    gone = data.draw(st.sampled_from(positions))
    lost = msgs[gone]
    made = _made_without(msgs, gone, mlc.repair_langchain)
    assert len(made) == 1
    assert isinstance(made[0], m.ToolMessage)
    assert made[0].tool_call_id == lost.tool_call_id
    assert made[0].name == lost.name  # the call's name, as LangChain's ToolNode writes it
    assert made[0].status == "error"


def test_langchain_repaired_message_keeps_its_other_fields() -> None:
    from msgnorm.frameworks import langchain as mlc

    m = _lc()
    call = {"type": "tool_call", "id": "call.1", "name": "get", "args": {"q": 1}}
    ai = m.AIMessage(
        content="looking",
        tool_calls=[call],
        id="ai-1",
        usage_metadata={"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        response_metadata={"model_name": "claude-sonnet-4-5"},
    )
    tool = m.ToolMessage("found", tool_call_id="call.1", name="get", id="tool-1")
    msgs = [m.HumanMessage("q", id="h-1"), ai, tool, m.AIMessage("ok", id="ai-2")]
    out = mlc.repair_langchain(msgs, provider="anthropic")
    assert out[0] is msgs[0] and out[3] is msgs[3]
    # the id the provider refuses is renamed in the call and its result, nothing else
    new_id = out[1].tool_calls[0]["id"]
    assert new_id != "call.1" and out[2].tool_call_id == new_id
    assert out[1].id == "ai-1" and out[1].usage_metadata == ai.usage_metadata
    assert out[1].response_metadata == ai.response_metadata
    assert out[1].tool_calls[0]["args"] == {"q": 1}
    assert (out[2].id, out[2].name, out[2].content) == ("tool-1", "get", "found")
    assert msgs[1].tool_calls[0]["id"] == "call.1"  # the input is not mutated


# --------------------------------------------------------------------------
# pydantic-ai
# --------------------------------------------------------------------------


try:  # imported here, not inside a strategy: the first import seeds random state
    import pydantic_ai.messages as _pa_messages
    from pydantic_ai.usage import RequestUsage
except ImportError:  # pragma: no cover - the tests skip
    _pa_messages = None  # type: ignore[assignment]


def _pa() -> Any:
    if _pa_messages is None:
        pytest.skip("pydantic-ai is not installed")
    return _pa_messages


@st.composite
def pa_histories(draw: st.DrawFn) -> tuple[list[Any], list[int]]:
    """A valid pydantic-ai history and the positions of its tool-return requests."""
    m = _pa()
    out: list[Any] = []
    returns: list[int] = []
    n = 0

    def uid(prefix: str) -> str:
        nonlocal n
        n += 1
        return f"{prefix}_{n}"

    for turn in range(draw(st.integers(1, 4))):
        parts: list[Any] = []
        if turn == 0 and draw(st.booleans()):
            parts.append(m.SystemPromptPart(content=draw(_WORD)))
        prompt: Any = draw(_WORD) if draw(st.booleans()) else [draw(_WORD), draw(_WORD)]
        parts.append(m.UserPromptPart(content=prompt))
        out.append(
            m.ModelRequest(
                parts=parts,
                instructions=draw(st.none() | _WORD),
                run_id=uid("run"),
                metadata=draw(st.none() | _META),
            )
        )
        model = draw(_MODELS)
        provider = draw(st.sampled_from(["anthropic", None]))
        resp: list[Any] = []
        if draw(st.booleans()):
            resp.append(
                m.ThinkingPart(
                    content=draw(_WORD),
                    signature="sig" + draw(_WORD).replace(" ", ""),
                    provider_name=provider,
                    provider_details=draw(st.none() | _META),
                )
            )
        if draw(st.booleans()):
            resp.append(m.TextPart(content=draw(_WORD), provider_name=provider))
        calls = [
            m.ToolCallPart(
                tool_name=draw(st.sampled_from(["get", "put"])),
                args=draw(_META),
                tool_call_id=uid("toolu"),
                provider_name=provider,
            )
            for _ in range(draw(st.integers(0, 2)))
        ]
        resp.extend(calls)
        if not calls:
            resp.append(m.TextPart(content=draw(_WORD)))
        out.append(
            m.ModelResponse(
                parts=resp,
                usage=RequestUsage(
                    input_tokens=draw(st.integers(0, 99)), output_tokens=draw(st.integers(0, 9))
                ),
                model_name=model,
                provider_name=provider,
                provider_details=draw(st.none() | _META),
                provider_response_id=uid("msg"),
                finish_reason="tool_call" if calls else "stop",
                run_id=uid("run"),
            )
        )
        if calls:
            returns.append(len(out))
            out.append(
                m.ModelRequest(
                    parts=[
                        m.ToolReturnPart(
                            tool_name=c.tool_name,
                            content=draw(_WORD),
                            tool_call_id=c.tool_call_id,
                            metadata=draw(st.none() | _META),
                        )
                        for c in calls
                    ],
                    run_id=uid("run"),
                )
            )
            out.append(
                m.ModelResponse(
                    parts=[m.TextPart(content=draw(_WORD))],
                    model_name=model,
                    provider_name=provider,
                )
            )
    return out, returns


def _pa_fields(msg: Any) -> list[Any]:
    """What pydantic-ai keeps of a message, field by field (the parts' too)."""
    fields = {f.name: getattr(msg, f.name) for f in dataclasses.fields(msg) if f.name != "parts"}
    parts = [{f.name: getattr(p, f.name) for f in dataclasses.fields(p)} for p in msg.parts]
    return [fields, parts]


@given(pa_histories())
def test_pydantic_ai_valid_history_comes_back_as_the_same_objects(case: Any) -> None:
    from msgnorm.frameworks import pydantic_ai as mpa

    m = _pa()
    msgs, _ = case
    for out in (
        mpa.normalize_pydantic_ai(msgs),
        mpa.repair_pydantic_ai(msgs, provider="anthropic", model=None),
        mpa.repair_pydantic_ai(msgs),
    ):
        assert out == msgs
        assert all(o is m for o, m in zip(out, msgs, strict=True))
        assert [_pa_fields(o) for o in out] == [_pa_fields(m) for m in msgs]
        for o, i in zip(out, msgs, strict=True):
            if isinstance(i, m.ModelResponse):
                assert (o.model_name, o.provider_name, o.provider_details) == (
                    i.model_name,
                    i.provider_name,
                    i.provider_details,
                )
                assert [getattr(p, "provider_name", None) for p in o.parts] == [
                    getattr(p, "provider_name", None) for p in i.parts
                ]


@given(pa_histories(), st.data())
def test_pydantic_ai_interrupted_calls_change_only_their_returns(
    case: Any, data: st.DataObject
) -> None:
    from msgnorm.frameworks import pydantic_ai as mpa

    m = _pa()
    msgs, returns = case
    if not returns:
        return
    gone = data.draw(st.sampled_from(returns))
    lost = msgs[gone]
    made = _made_without(msgs, gone, mpa.repair_pydantic_ai)
    assert len(made) == 1 and isinstance(made[0], m.ModelRequest)
    got = [(p.tool_name, p.tool_call_id, p.outcome) for p in made[0].parts]
    assert got == [(p.tool_name, p.tool_call_id, "failed") for p in lost.parts]


def test_pydantic_ai_model_switch_drops_only_the_foreign_thinking() -> None:
    from msgnorm.frameworks import pydantic_ai as mpa

    m = _pa()
    thinking = m.ThinkingPart(content="hmm", signature="sig1", provider_name="anthropic")
    text = m.TextPart(content="hello", provider_name="anthropic")
    resp = m.ModelResponse(
        parts=[thinking, text],
        usage=RequestUsage(input_tokens=4, output_tokens=2),
        model_name="claude-sonnet-4-5",
        provider_name="anthropic",
        provider_details={"k": 1},
        provider_response_id="msg_1",
    )
    msgs = [
        m.ModelRequest(parts=[m.UserPromptPart("hi")]),
        resp,
        m.ModelRequest(parts=[m.UserPromptPart("more")]),
    ]
    same = mpa.repair_pydantic_ai(msgs, provider="anthropic", model="claude-sonnet-4-5-20250929")
    assert all(o is i for o, i in zip(same, msgs, strict=True))
    out = mpa.repair_pydantic_ai(msgs, provider="anthropic", model="claude-opus-4-1")
    assert out[0] is msgs[0] and out[2] is msgs[2]
    assert out[1].parts == [text] and out[1].parts[0] is text
    kept = (
        "usage",
        "model_name",
        "provider_name",
        "provider_details",
        "provider_response_id",
        "timestamp",
    )
    assert all(getattr(out[1], k) == getattr(resp, k) for k in kept)


# --------------------------------------------------------------------------
# AgentScope and Qwen-Agent
# --------------------------------------------------------------------------


@st.composite
def agentscope_histories(draw: st.DrawFn) -> list[Any]:
    """Valid AgentScope ``Msg`` histories: a tool call's results in the ``Msg``
    that called, as AgentScope keeps them, the reply after them."""
    m = pytest.importorskip("agentscope.message", reason="agentscope is not installed")
    out: list[Any] = []
    n = 0
    for _ in range(draw(st.integers(1, 3))):
        out.append(
            m.Msg(name="ann", role="user", content=[m.TextBlock(type="text", text=draw(_WORD))])
        )
        blocks: list[Any] = []
        if draw(st.booleans()):
            blocks.append(m.TextBlock(type="text", text=draw(_WORD)))
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            n += 1
            calls.append((f"call_{n}", draw(st.sampled_from(["get", "put"]))))
        blocks += [
            m.ToolCallBlock(type="tool_call", id=i, name=nm, input='{"q": 1}') for i, nm in calls
        ]
        blocks += [
            m.ToolResultBlock(
                type="tool_result", id=i, name=nm, output=draw(_WORD), state="success"
            )
            for i, nm in calls
        ]
        blocks.append(m.TextBlock(type="text", text=draw(_WORD)))
        out.append(m.Msg(name="bot", role="assistant", content=blocks))
    return out


@given(agentscope_histories())
def test_agentscope_valid_history_comes_back_as_the_same_objects(msgs: list[Any]) -> None:
    from msgnorm.frameworks import agentscope as mas

    out = mas.normalize_agentscope(msgs)
    assert all(o is i for o, i in zip(out, msgs, strict=True))


@st.composite
def qwen_histories(draw: st.DrawFn) -> list[Any]:
    """Valid Qwen-Agent histories (dicts or ``Message`` objects) with call ids."""
    out: list[dict[str, Any]] = []
    n = 0
    if draw(st.booleans()):
        out.append({"role": "system", "content": draw(_WORD)})
    for _ in range(draw(st.integers(1, 3))):
        out.append({"role": "user", "content": draw(_WORD)})
        for _ in range(draw(st.integers(0, 2))):
            n += 1
            name = draw(st.sampled_from(["get", "put"]))
            extra = {"function_id": f"call_{n}"}
            args = draw(st.sampled_from(['{"q":1}', '{"q": 1}', "{}"]))
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "function_call": {"name": name, "arguments": args},
                    "extra": extra,
                }
            )
            out.append(
                {"role": "function", "name": name, "content": draw(_WORD), "extra": dict(extra)}
            )
        out.append({"role": "assistant", "content": draw(_WORD)})
    if draw(st.booleans()):
        schema = pytest.importorskip("qwen_agent.llm.schema", reason="qwen-agent is not installed")
        return [schema.Message(**d) for d in out]
    return out


@given(qwen_histories())
def test_qwen_agent_valid_history_comes_back_as_the_same_objects(msgs: list[Any]) -> None:
    from msgnorm.frameworks import qwen_agent as mqa

    out = mqa.normalize_qwen_agent(msgs)
    assert all(o is i for o, i in zip(out, msgs, strict=True))


@given(qwen_histories(), st.data())
def test_qwen_agent_interrupted_call_changes_only_its_result(
    msgs: list[Any], data: st.DataObject
) -> None:
    from msgnorm.frameworks import qwen_agent as mqa

    results = [i for i, m in enumerate(msgs) if m["role"] == "function"]
    if not results:
        return
    gone = data.draw(st.sampled_from(results))
    made = _made_without(msgs, gone, mqa.normalize_qwen_agent)
    assert [(m["role"], m["name"], m["extra"]["function_id"]) for m in made] == [
        ("function", msgs[gone]["name"], msgs[gone]["extra"]["function_id"])
    ]


def _long_lc_history() -> list[Any]:
    m = _lc()
    msgs: list[Any] = []
    for t in range(8):
        call = {"type": "tool_call", "id": f"c{t}", "name": "get", "args": {}}
        msgs += [
            m.HumanMessage(f"question {t} " + "word " * 50, id=f"h{t}"),
            m.AIMessage("", tool_calls=[call], id=f"a{t}"),
            m.ToolMessage("result " * 200, tool_call_id=f"c{t}", name="get", id=f"t{t}"),
            m.AIMessage(f"answer {t}", id=f"b{t}"),
        ]
    return msgs


def test_langchain_clear_tool_results_changes_only_the_cleared_results() -> None:
    from msgnorm.frameworks import langchain as mlc

    msgs = _long_lc_history()
    out = mlc.repair_langchain(msgs, clear_tool_results={"trigger": None, "keep": 3})
    assert len(out) == len(msgs)
    changed = [i for i, (o, m) in enumerate(zip(out, msgs, strict=True)) if o is not m]
    assert changed == [2, 6, 10, 14, 18]  # every result but the last three
    for i in changed:
        assert (out[i].id, out[i].name, out[i].tool_call_id) == (
            msgs[i].id,
            msgs[i].name,
            msgs[i].tool_call_id,
        )
        assert out[i].content != msgs[i].content and "result" not in out[i].content


def test_langchain_token_budget_keeps_the_latest_turns_as_they_were() -> None:
    from msgnorm.frameworks import langchain as mlc

    msgs = _long_lc_history()
    out = mlc.repair_langchain(msgs, max_tokens=2000)
    assert 0 < len(out) < len(msgs)
    assert all(o is m for o, m in zip(out, msgs[len(msgs) - len(out) :], strict=True))
