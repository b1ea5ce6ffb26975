"""The hooks inside the real frameworks (docs/guides/frameworks.md): LangChain's
middleware, pydantic-ai's capability and history processor, the Agents SDK's
``call_model_input_filter``.

Each runs an agent on the framework's own provider model class over a mock HTTP
transport (the only transport: nothing leaves the process) that records the
exact request body. A history broken the way real runs break it makes
``msgnorm.validate`` name the provider's 400 on the body sent without the hook,
and nothing on the body sent with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import msgnorm
import pytest
from support.mock_http import Recorder
from support.provider_fixtures import responses_message

LONG_ID = "call_" + "x" * 60  # over OpenAI Chat's 40 characters


def rules(messages: Any, provider: str) -> set[str]:
    return {v.rule for v in msgnorm.validate(messages, provider)}


def signatures(body: dict[str, Any]) -> set[str]:
    """The thinking signatures an Anthropic request body sends."""
    return {
        b.get("signature", "")
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "thinking"
    }


# --------------------------------------------------------------------------
# pydantic-ai: AnthropicModel and OpenAIChatModel, the capability and the processor
# --------------------------------------------------------------------------


def _pydantic_ai() -> Any:
    pytest.importorskip("pydantic_ai.capabilities", reason="pydantic-ai 2 is not installed")
    return pytest.importorskip("pydantic_ai.messages")


def _pa_model(kind: str, rec: Recorder) -> Any:
    httpx2 = pytest.importorskip("httpx2")
    if kind == "anthropic":
        from anthropic import AsyncAnthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        client = AsyncAnthropic(
            api_key="test", http_client=httpx2.AsyncClient(transport=rec.transport())
        )
        return AnthropicModel(
            "claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client)
        )
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    oclient = AsyncOpenAI(api_key="test", http_client=httpx2.AsyncClient(transport=rec.transport()))
    return OpenAIChatModel("gpt-4.1", provider=OpenAIProvider(openai_client=oclient))


def _pa_history(case: str) -> list[Any]:
    m = _pydantic_ai()
    ask = m.ModelRequest(parts=[m.UserPromptPart("What is the weather?")])

    def call(call_id: str, name: str = "get_weather", model: str = "claude-sonnet-4-5") -> Any:
        return m.ModelResponse(
            parts=[m.ToolCallPart(name, {"city": "Paris"}, tool_call_id=call_id)],
            model_name=model,
            provider_name="anthropic",
        )

    def ret(call_id: str, name: str = "get_weather") -> Any:
        return m.ModelRequest(parts=[m.ToolReturnPart(name, "sunny", tool_call_id=call_id)])

    done = m.ModelResponse(parts=[m.TextPart("Sunny.")], model_name="claude-sonnet-4-5")
    if case == "interrupted call":
        return [ask, call("toolu_1"), m.ModelRequest(parts=[m.UserPromptPart("Go on.")])]
    if case == "trimmed tool result":
        return [ret("toolu_0"), call("toolu_1"), ret("toolu_1"), done]
    if case == "reused call id":
        again = m.ModelRequest(parts=[m.UserPromptPart("And tomorrow?")])
        return [ask, call("call_1"), ret("call_1"), done, again, call("call_1"), ret("call_1")]
    if case == "refused tool id":
        return [ask, call("call.1"), ret("call.1"), done]
    if case == "long tool id":
        return [ask, call(LONG_ID), ret(LONG_ID), done]
    if case == "refused tool name":
        return [ask, call("toolu_1", "weather.get"), ret("toolu_1", "weather.get"), done]
    if case == "model switch after signed thinking":
        signed = m.ModelResponse(
            parts=[
                m.ThinkingPart("Paris, then.", signature="sig-of-opus", provider_name="anthropic"),
                m.TextPart("Let me see."),
            ],
            model_name="claude-opus-4-1",
            provider_name="anthropic",
        )
        return [ask, signed, m.ModelRequest(parts=[m.UserPromptPart("Well?")])]
    raise AssertionError(case)


# (model, case) -> the rules validate names on the body sent without the hook
PA_CASES = {
    ("anthropic", "refused tool id"): {"anthropic/tool-use-id-pattern"},
    ("anthropic", "refused tool name"): {"anthropic/tool-name-pattern"},
    ("openai-chat", "long tool id"): {"openai-chat/tool-call-id-length"},
    ("openai-chat", "refused tool name"): {"openai-chat/function-name-pattern"},
    # pydantic-ai 2 repairs these itself (it pairs calls and returns): the body is
    # valid without the hook, and stays valid with it
    ("anthropic", "interrupted call"): set(),
    ("anthropic", "trimmed tool result"): set(),
    ("openai-chat", "interrupted call"): set(),
    ("openai-chat", "trimmed tool result"): set(),
    # an id a later turn reuses, once answered, is accepted (docs/RULES.md); the
    # hook still sends unique ids (test below)
    ("openai-chat", "reused call id"): set(),
}


def _pa_run(kind: str, history: list[Any], **agent: Any) -> dict[str, Any]:
    from pydantic_ai import Agent

    rec = Recorder(pytest.importorskip("httpx2"))
    result = Agent(_pa_model(kind, rec), **agent).run_sync("Answer.", message_history=history)
    assert result.output == "Done."
    return rec.last


@pytest.mark.parametrize(("kind", "case"), sorted(PA_CASES))
def test_pydantic_ai_capability_on_the_request_body(kind: str, case: str) -> None:
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import MsgnormCapability

    history = _pa_history(case)
    field = "messages"
    without = _pa_run(kind, history)
    assert rules(without[field], kind) == PA_CASES[kind, case]
    with_hook = _pa_run(kind, history, capabilities=[MsgnormCapability()])
    assert rules(with_hook[field], kind) == set()


def test_pydantic_ai_reused_call_id_is_sent_unique() -> None:
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import MsgnormCapability

    history = _pa_history("reused call id")
    without = _pa_run("openai-chat", history)
    with_hook = _pa_run("openai-chat", history, capabilities=[MsgnormCapability()])

    def ids(body: dict[str, Any]) -> list[str]:
        return [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]

    def answered(body: dict[str, Any]) -> list[str]:
        return [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]

    assert ids(without) == ["call_1", "call_1"]
    sent = ids(with_hook)
    assert sent[0] == "call_1" and len(set(sent)) == 2
    assert answered(with_hook) == sent  # each call's result follows it, renamed alike


def test_pydantic_ai_history_processor_on_the_request_body() -> None:
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import history_processor
    from pydantic_ai.capabilities import ProcessHistory

    history = _pa_history("refused tool id")
    body = _pa_run("anthropic", history, capabilities=[ProcessHistory(history_processor)])
    assert rules(body["messages"], "anthropic") == set()


def test_pydantic_ai_interrupted_call_pydantic_ai_answers_itself() -> None:
    # pydantic-ai 2 pairs calls and returns itself: the body is valid either way,
    # and the capability leaves nothing for it to answer
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import MsgnormCapability

    history = _pa_history("interrupted call")
    assert rules(_pa_run("anthropic", history)["messages"], "anthropic") == set()
    body = _pa_run("anthropic", history, capabilities=[MsgnormCapability()])
    assert rules(body["messages"], "anthropic") == set()
    results = [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert [r["tool_use_id"] for r in results] == ["toolu_1"]
    assert results[0]["is_error"] is True


def test_pydantic_ai_model_switch_drops_the_other_models_signed_thinking() -> None:
    # validate cannot see whose signature a thinking block carries: the body shows it
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import MsgnormCapability

    history = _pa_history("model switch after signed thinking")
    assert signatures(_pa_run("anthropic", history)) == {"sig-of-opus"}
    body = _pa_run("anthropic", history, capabilities=[MsgnormCapability()])
    assert signatures(body) == set()
    assert rules(body["messages"], "anthropic") == set()
    texts = [
        b.get("text")
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
    ]
    assert "Let me see." in texts


def test_pydantic_ai_capability_options() -> None:
    _pydantic_ai()
    from msgnorm.frameworks.pydantic_ai import MsgnormCapability

    # a fake model and no options: the rules every provider shares
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: list[list[Any]] = []

    def answer(messages: list[Any], info: AgentInfo) -> Any:
        from pydantic_ai.messages import ModelResponse, TextPart

        seen.append(messages)
        return ModelResponse(parts=[TextPart("Done.")])

    history = _pa_history("long tool id")
    Agent(FunctionModel(answer), capabilities=[MsgnormCapability()]).run_sync(
        "Answer.", message_history=history
    )
    ids = [p.tool_call_id for m in seen[-1] for p in m.parts if hasattr(p, "tool_call_id")]
    assert ids and all(len(i) <= 40 and i != LONG_ID for i in ids)
    assert len(set(ids)) == 1  # the call and its return renamed the same way
    cap = MsgnormCapability(
        provider="anthropic", model="claude-sonnet-4-5", clear_tool_results=True
    )
    assert (cap.provider, cap.model, cap.clear_tool_results) == (
        "anthropic",
        "claude-sonnet-4-5",
        True,
    )


# --------------------------------------------------------------------------
# LangChain: create_agent with ChatAnthropic (langchain-anthropic) and a fake model
# --------------------------------------------------------------------------


def _lc_history(case: str) -> list[Any]:
    m = pytest.importorskip("langchain_core.messages")
    ask = m.HumanMessage("What is the weather?", id="h1")

    def call(call_id: str, name: str = "get_weather", model: str = "claude-sonnet-4-5") -> Any:
        return m.AIMessage(
            "",
            tool_calls=[{"id": call_id, "name": name, "args": {"city": "Paris"}}],
            id=f"ai-{call_id}",
            response_metadata={"model_name": model},
        )

    def ret(call_id: str, name: str = "get_weather") -> Any:
        return m.ToolMessage("sunny", tool_call_id=call_id, name=name, id=f"t-{call_id}")

    done = m.AIMessage("Sunny.", id="ai-done")
    if case == "interrupted call":
        return [ask, call("toolu_1"), m.HumanMessage("Go on.", id="h2")]
    if case == "trimmed tool result":
        return [ret("toolu_0"), ask, call("toolu_1"), ret("toolu_1"), done]
    if case == "refused tool id":
        return [ask, call("call.1"), ret("call.1"), done]
    if case == "refused tool name":
        return [ask, call("toolu_1", "weather.get"), ret("toolu_1", "weather.get"), done]
    if case == "model switch after signed thinking":
        signed = m.AIMessage(
            [
                {"type": "thinking", "thinking": "Paris, then.", "signature": "sig-of-opus"},
                {"type": "text", "text": "Let me see."},
            ],
            id="ai-opus",
            response_metadata={"model_name": "claude-opus-4-1"},
        )
        return [ask, signed, m.HumanMessage("Well?", id="h2")]
    raise AssertionError(case)


LC_CASES = {
    "interrupted call": {"anthropic/tool-use-without-result"},
    "trimmed tool result": {"anthropic/tool-result-without-use"},
    "refused tool name": {"anthropic/tool-name-pattern"},
    # langchain-anthropic maps tool ids itself
    "refused tool id": set(),
}


def _chat_anthropic(rec: Recorder) -> Any:
    langchain_anthropic = pytest.importorskip(
        "langchain_anthropic", reason="langchain-anthropic is not installed"
    )
    httpx2 = pytest.importorskip("httpx2")
    import anthropic

    llm = langchain_anthropic.ChatAnthropic(
        model="claude-sonnet-4-5", api_key="test", max_tokens=1024
    )
    # the SDK clients (cached properties) over the mock transport, and no other
    llm.__dict__["_client"] = anthropic.Client(
        api_key="test", http_client=httpx2.Client(transport=rec.transport())
    )
    llm.__dict__["_async_client"] = anthropic.AsyncClient(
        api_key="test", http_client=httpx2.AsyncClient(transport=rec.transport())
    )
    return llm


def _lc_run(history: list[Any], middleware: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    pytest.importorskip("langchain.agents", reason="langchain is not installed")
    from langchain.agents import create_agent

    rec = Recorder(pytest.importorskip("httpx2"))
    agent = create_agent(_chat_anthropic(rec), tools=[], middleware=middleware)
    state = agent.invoke({"messages": history})
    assert state["messages"][-1].content == "Done."
    return rec.last, state["messages"]


@pytest.mark.parametrize("case", sorted(LC_CASES))
def test_langchain_middleware_on_the_request_body(case: str) -> None:
    pytest.importorskip("langchain.agents", reason="langchain is not installed")
    from msgnorm.frameworks.langchain import MsgnormMiddleware

    history = _lc_history(case)
    without, _ = _lc_run(history, [])
    assert rules(without["messages"], "anthropic") == LC_CASES[case]
    with_hook, state = _lc_run(history, [MsgnormMiddleware()])
    assert rules(with_hook["messages"], "anthropic") == set()
    # the agent's state is the history as given (the hook edits the request only)
    assert [m.id for m in state[: len(history)]] == [m.id for m in history]


def test_langchain_model_switch_drops_the_other_models_signed_thinking() -> None:
    pytest.importorskip("langchain.agents", reason="langchain is not installed")
    from msgnorm.frameworks.langchain import MsgnormMiddleware

    history = _lc_history("model switch after signed thinking")
    without, _ = _lc_run(history, [])
    assert signatures(without) == {"sig-of-opus"}
    with_hook, _ = _lc_run(history, [MsgnormMiddleware()])
    assert signatures(with_hook) == set()
    assert rules(with_hook["messages"], "anthropic") == set()


def test_langchain_middleware_with_a_fake_model() -> None:
    pytest.importorskip("langchain.agents", reason="langchain is not installed")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from msgnorm.frameworks.langchain import MsgnormMiddleware

    seen: list[list[Any]] = []

    class Recording(MsgnormMiddleware):  # type: ignore[misc, valid-type]
        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            def record(req: Any) -> Any:
                seen.append(req.messages)
                return handler(req)

            return super().wrap_model_call(request, record)

    model = GenericFakeChatModel(messages=iter([AIMessage("Done.")]))
    history = _lc_history("interrupted call")
    create_agent(model, tools=[], middleware=[Recording()]).invoke({"messages": history})
    sent = seen[-1]
    assert sent[0] is history[0] and sent[1] is history[1]
    assert isinstance(sent[2], ToolMessage) and sent[2].tool_call_id == "toolu_1"
    assert sent[2].name == "get_weather"


def test_langchain_module_imports_with_langchain_core_alone() -> None:
    pytest.importorskip("langchain_core.messages")
    code = (
        "import sys\n"
        "sys.modules['langchain'] = None\n"  # an import of langchain fails
        "import msgnorm.frameworks.langchain as m\n"
        "from langchain_core.messages import HumanMessage\n"
        "h = [HumanMessage('hi', id='1')]\n"
        "assert m.normalize_langchain(h)[0] is h[0]\n"
        "try:\n"
        "    m.MsgnormMiddleware\n"
        "except ImportError as e:\n"
        "    print('needs', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'msgnorm[langchain]'" in out.stdout


# --------------------------------------------------------------------------
# OpenAI Agents SDK: the Responses model and call_model_input_filter
# --------------------------------------------------------------------------


def _oa_history(case: str) -> list[Any]:
    ask = {"role": "user", "content": "What is the weather?"}

    def call(call_id: str, name: str = "get_weather") -> dict[str, Any]:
        return {
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps({"city": "Paris"}),
        }

    def ret(call_id: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": call_id, "output": "sunny"}

    done = {"role": "assistant", "content": "Sunny."}
    if case == "interrupted call":
        return [ask, call("call_1"), {"role": "user", "content": "Go on."}]
    if case == "trimmed tool result":
        return [ret("call_0"), ask, call("call_1"), ret("call_1"), done]
    if case == "refused tool name":
        return [ask, call("call_1", "weather.get"), ret("call_1"), done]
    raise AssertionError(case)


OA_CASES = {
    "interrupted call": {"openai-responses/function-call-without-output"},
    "refused tool name": {"openai-responses/function-name-pattern"},
    # the SDK drops an output whose call is not in the input itself
    "trimmed tool result": set(),
}


def _oa_run(history: list[Any], input_filter: Any) -> dict[str, Any]:
    agents = pytest.importorskip("agents", reason="openai-agents is not installed (3.10+ only)")
    httpx2 = pytest.importorskip("httpx2")
    from openai import AsyncOpenAI

    rec = Recorder(httpx2)
    client = AsyncOpenAI(api_key="test", http_client=httpx2.AsyncClient(transport=rec.transport()))
    model = agents.OpenAIResponsesModel(model="gpt-4.1", openai_client=client)
    agent = agents.Agent(name="weather", model=model)
    config = agents.RunConfig(call_model_input_filter=input_filter, tracing_disabled=True)
    result = agents.Runner.run_sync(agent, history, run_config=config)
    assert result.final_output == "Done."
    return rec.last


@pytest.mark.parametrize("case", sorted(OA_CASES))
def test_openai_agents_filter_on_the_request_body(case: str) -> None:
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from msgnorm.frameworks.openai_agents import call_model_input_filter

    history = _oa_history(case)
    without = _oa_run(history, None)
    assert rules(without["input"], "openai-responses") == OA_CASES[case]
    with_hook = _oa_run(history, call_model_input_filter)
    assert rules(with_hook["input"], "openai-responses") == set()


def test_openai_agents_filter_keeps_untouched_items() -> None:
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from msgnorm.frameworks.openai_agents import repair_input

    items = [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "get", "arguments": "{}", "id": "fc_1"},
        {"type": "function_call_output", "call_id": "c1", "output": "r"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"},
        responses_message("ok"),
    ]
    out = repair_input(items)
    assert len(out) == len(items) and all(o is i for o, i in zip(out, items, strict=True))
    # a reused call id is renamed in the later call and its output only
    later = {k: v for k, v in items[1].items() if k != "id"}
    again = [*items, {"role": "user", "content": "again"}, later, items[2]]
    out = repair_input(again, provider="openai-responses")
    assert out[:6] == again[:6] and out[6]["call_id"] == out[7]["call_id"] != "c1"
    assert rules(out, "openai-responses") == set()


def test_reused_long_ids_become_unique_valid_ids() -> None:
    import re

    from msgnorm.frameworks.openai_agents import repair_input

    items: list[dict[str, Any]] = []
    for turn in range(6):
        items.append({"role": "user", "content": f"turn {turn}"})
        items.append(
            {"type": "function_call", "call_id": LONG_ID, "name": "get", "arguments": "{}"}
        )
        items.append({"type": "function_call_output", "call_id": LONG_ID, "output": str(turn)})
    out = repair_input(items)  # no provider: the rules every provider shares
    calls = [i["call_id"] for i in out if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in out if i.get("type") == "function_call_output"]
    assert len(set(calls)) == 6 and calls == outputs
    assert all(len(c) <= 40 and re.fullmatch(r"[a-zA-Z0-9_-]+", c) for c in calls)
    assert [i["output"] for i in out if i.get("type") == "function_call_output"] == [
        str(t) for t in range(6)
    ]
    assert rules(out, "openai-responses") == set()
