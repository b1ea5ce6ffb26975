"""The repairs behind today's provider rules (docs/RULES.md): thinking across a
model switch and in the latest assistant message, server tools for every
target, compaction blocks and items, and the cache_control limit. Each repair
is counted in the report, and its output passes ``validate`` for its target.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import msgnorm
import pytest
from hypothesis import HealthCheck, given, settings
from support import anthropic_blocks as ab
from support.anthropic_blocks import THINK, A, T, U
from support.provider_fixtures import responses_message
from support.strategies import histories


def STU(id_: str = "srvtoolu_01", name: str = "web_search") -> dict[str, Any]:
    return ab.STU(id_, name, query="rain in Oslo")


def WSR(id_: str = "srvtoolu_01") -> dict[str, Any]:
    hit = {
        "type": "web_search_result",
        "url": "https://weather.example/oslo",
        "title": "Oslo: rain all week",
        "encrypted_content": "Eq0SECRET",
    }
    return {"type": "web_search_tool_result", "tool_use_id": id_, "content": [hit]}


def record(role: str, content: Any, model: str | None = None, n: int = 0) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": role, "content": content}
    if model is not None:
        msg["model"] = model
    return {"type": role, "uuid": f"00000000-0000-4000-8000-{n:012d}", "message": msg}


def _messages(target: str, shape: Any) -> list[Any]:
    if target == "gemini":
        return shape["contents"]
    if target in ("anthropic", "bedrock"):
        return shape["messages"]
    return shape


def _repaired_violations(target: str, shape: Any, store: bool = True) -> list[msgnorm.Violation]:
    system = shape.get("system") if isinstance(shape, dict) else None
    found = msgnorm.validate(_messages(target, shape), target, system=system, store=store)
    return [v for v in found if not v.repair.startswith("none")]


def RU(text: str) -> dict[str, Any]:
    """A user message item of the Responses API."""
    return {"type": "message", "role": "user", "content": text}


def _responses(items: list[Any], **options: Any) -> list[Any]:
    """``items`` replayed to the Responses API as they came from it."""
    return msgnorm.convert(items, source="openai-responses", target="openai-responses", **options)


def _responses_report(items: list[Any], **options: Any) -> tuple[list[Any], dict[str, int]]:
    return msgnorm.convert_report(
        items, source="openai-responses", target="openai-responses", **options
    )


# --------------------------------------------------------------------------
# thinking: the model switch
# --------------------------------------------------------------------------


def _switch_history() -> list[dict[str, Any]]:
    return [
        record("user", "q", n=0),
        record("assistant", [THINK("opus thought"), T("a")], "claude-opus-4-5-20251101", 1),
        record("user", "next", n=2),
        record("assistant", [THINK("unknown thought"), T("b")], None, 3),
        record("user", "more", n=4),
        record("assistant", [THINK("sonnet thought"), T("c")], "claude-sonnet-4-5", 5),
        record("user", "last", n=6),
    ]


def test_to_provider_drops_the_thinking_of_another_known_model() -> None:
    history = _switch_history()
    before = copy.deepcopy(history)
    shape, report = msgnorm.to_provider_report(history, "anthropic", model="claude-sonnet-4-5")
    assert history == before  # the input is not mutated
    contents = [m["content"] for m in shape["messages"] if m["role"] == "assistant"]
    assert contents[0] == [T("a")]  # opus's thinking: another model's signature
    assert contents[1][0] == THINK("unknown thought")  # no model known: kept
    assert contents[2][0] == THINK("sonnet thought")  # the target's own: kept byte-identical
    assert report["thinking_dropped"] == 1


def test_a_dated_snapshot_and_its_alias_are_one_model() -> None:
    shape = msgnorm.to_provider(_switch_history(), "anthropic", model="claude-opus-4-5")
    first = next(m for m in shape["messages"] if m["role"] == "assistant")
    assert first["content"][0] == THINK("opus thought")


def test_foreign_thinking_as_text() -> None:
    history = _switch_history()
    history[1]["message"]["content"].insert(1, {"type": "redacted_thinking", "data": "xx"})
    shape, report = msgnorm.to_provider_report(
        history, "anthropic", model="claude-sonnet-4-5", foreign_thinking="text"
    )
    first = next(m for m in shape["messages"] if m["role"] == "assistant")
    # readable reasoning becomes text; redacted thinking has none and is dropped
    assert first["content"] == [T("opus thought"), T("a")]
    assert report["thinking_as_text"] == 1
    assert report["thinking_dropped"] == 1


def test_a_record_of_nothing_but_foreign_thinking_goes() -> None:
    """Claude Code writes one block per record: a streamed thinking record of
    another model leaves nothing behind."""
    msg_id = "msg_01"
    thinking = record("assistant", [THINK("opus thought")], "claude-opus-4-5", 1)
    text = record("assistant", [T("a")], "claude-opus-4-5", 2)
    for r in (thinking, text):
        r["message"]["id"] = msg_id
    history = [record("user", "q"), thinking, text, record("user", "n", n=3)]
    shape = msgnorm.to_provider(history, "anthropic", model="claude-sonnet-4-5")
    assert [m["content"] for m in shape["messages"]] == ["q", [T("a")], "n"]


def test_from_provider_sets_the_model_and_the_switch_reads_it() -> None:
    messages = [U("q"), A([THINK(), T("a")]), U("n")]
    records = msgnorm.from_provider(messages, "anthropic", model="claude-opus-4-5")
    assert [r["message"].get("model") for r in records] == [None, "claude-opus-4-5", None]
    same = msgnorm.to_provider(records, "anthropic", model="claude-opus-4-5")
    assert same["messages"][1]["content"][0] == THINK()
    other = msgnorm.to_provider(records, "anthropic", model="claude-haiku-4-5")
    assert other["messages"][1]["content"] == [T("a")]


def test_other_providers_reasoning_follows_the_same_rule() -> None:
    """OpenAI Chat ``reasoning_content`` (DeepSeek) read as thinking: dropped for
    another model, kept for its own."""
    chat = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": "deep thought"},
        {"role": "user", "content": "n"},
    ]
    records = msgnorm.from_provider(chat, "openai-chat", model="deepseek-reasoner")
    own, _ = msgnorm.to_provider_report(records, "openai-chat", model="deepseek-reasoner")
    other, report = msgnorm.to_provider_report(records, "openai-chat", model="gpt-5")
    assert "deep thought" in json.dumps(own)
    assert "deep thought" not in json.dumps(other)
    assert report["thinking_dropped"] == 1
    text = msgnorm.to_provider(records, "openai-chat", model="gpt-5", foreign_thinking="text")
    assert text[1]["content"] == [T("deep thought"), T("a")]
    assert "reasoning_content" not in text[1]


def test_gemini_thought_parts_follow_the_same_rule() -> None:
    thought = {"text": "pondering", "thought": True, "thoughtSignature": "c2ln"}
    contents = [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [thought, {"text": "a"}]},
        {"role": "user", "parts": [{"text": "n"}]},
    ]
    records = msgnorm.from_provider(contents, "gemini", model="gemini-2.5-pro")
    own = msgnorm.to_provider(records, "gemini", model="gemini-2.5-pro")
    assert own["contents"][1]["parts"] == [thought, {"text": "a"}]
    other, report = msgnorm.to_provider_report(records, "gemini", model="gemini-3-pro")
    assert other["contents"][1]["parts"] == [{"text": "a"}]
    assert report["thinking_dropped"] == 1


def test_model_switch_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="foreign_thinking"):
        msgnorm.to_provider(_switch_history(), "anthropic", model="m", foreign_thinking="keep")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="model"):
        msgnorm.to_provider(_switch_history(), "anthropic", model="")
    with pytest.raises(ValueError, match="model"):
        msgnorm.from_provider([U("q")], "anthropic", model=3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# thinking: the latest assistant message
# --------------------------------------------------------------------------


def test_thinking_order_is_checked_in_the_latest_assistant_message_only() -> None:
    earlier = [U("q"), A([T("a"), THINK()]), U("n"), A([THINK(), T("b")]), U("m")]
    assert msgnorm.validate(earlier, "anthropic") == []
    latest = [U("q"), A([THINK(), T("a")]), U("n"), A([T("b"), THINK()]), U("m")]
    assert [(v.rule, v.index) for v in msgnorm.validate(latest, "anthropic")] == [
        ("anthropic/thinking-first", 3)
    ]


def test_a_final_assistant_ending_in_thinking_loses_that_thinking_only() -> None:
    history = [U("q"), A([THINK("first"), T("partial answer "), THINK("second")])]
    (v,) = msgnorm.validate(history, "anthropic")
    assert v.message == "messages.1: The final block in an assistant message cannot be `thinking`."
    shape, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    # SPEC §4 step 8: the leading thinking stays byte-identical and in place; the
    # text now final is trimmed
    assert shape["messages"][1]["content"] == [THINK("first"), T("partial answer")]
    assert report["final_blocks_trimmed"] == 1
    assert msgnorm.validate(shape["messages"], "anthropic") == []


# --------------------------------------------------------------------------
# server tools
# --------------------------------------------------------------------------


def _server_history() -> list[dict[str, Any]]:
    return [
        U("What is the weather in Oslo?"),
        A([STU(), WSR(), T("Rain all week.")]),
        U("Thanks"),
    ]


def test_a_server_tool_pair_is_kept_for_anthropic() -> None:
    history = _server_history()
    shape = msgnorm.convert(history, source="anthropic", target="anthropic")
    assert shape["messages"][1]["content"] == history[1]["content"]


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "gemini", "bedrock"])
def test_a_server_tool_pair_becomes_readable_text_elsewhere(target: str) -> None:
    shape, report = msgnorm.convert_report(_server_history(), source="anthropic", target=target)
    text = json.dumps(shape)
    # what was searched and what came back, as text; nothing opaque, no invented tool call
    assert "rain in Oslo" in text and "Oslo: rain all week" in text
    assert "https://weather.example/oslo" in text
    assert "Eq0SECRET" not in text and "srvtoolu_01" not in text
    assert "tool_call" not in text and "functionCall" not in text and "toolUse" not in text
    assert report["server_tools_as_text"] == 1
    assert report.get("parts_dropped", 0) == 0
    assert _repaired_violations(target, shape) == []


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "bedrock"])
def test_a_lone_server_result_is_named_and_removed(target: str) -> None:
    history = [U("q"), A([WSR(), T("Rain.")]), U("n")]
    (v,) = msgnorm.validate(history, "anthropic")
    assert v.rule == "anthropic/server-tool-result-without-use"
    assert v.message == (
        "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` "
        "blocks: srvtoolu_01. Each `web_search_tool_result` block must have a corresponding "
        "`server_tool_use` block before it."
    )
    shape, report = msgnorm.convert_report(history, source="anthropic", target=target)
    assert "Oslo: rain all week" not in json.dumps(shape)
    assert report["server_results_removed"] == 1
    assert _repaired_violations(target, shape) == []


def test_an_advisor_result_is_named_in_its_own_words() -> None:
    advisor = {
        "type": "advisor_tool_result",
        "tool_use_id": "srvtoolu_014v8v4c",
        "content": {"type": "advisor_result", "text": "Consider the edge case."},
    }
    (v,) = msgnorm.validate([U("q"), A([T("ok")]), U("n"), A([advisor, T("x")])], "anthropic")
    assert "`advisor_tool_result` blocks: srvtoolu_014v8v4c" in v.message
    assert v.path == "messages[3].content[0]"


def test_target_native_server_tools_pass_in_their_own_shape() -> None:
    """Responses ``web_search_call`` items are the target's own: converted to
    Responses, they stay as they were."""
    items = [
        RU("weather?"),
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "weather"},
        },
        responses_message("Sunny."),
    ]
    out = _responses(items)
    assert items[1] in out


def _nova_code_interpreter() -> list[dict[str, Any]]:
    """A Converse history in which Nova ran its code interpreter (a system
    tool): the use and its result are both in the assistant message."""
    code = "numbers = [10, 24, 2]\nsum(numbers) / len(numbers)"
    result = '{"stdOut":"12.0","stdErr":"","exitCode":0,"isError":false}'
    return [
        {"role": "user", "content": [{"text": "What is the average of 10, 24 and 2?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "toolUse": {
                        "toolUseId": "tooluse_Wq3kP0",
                        "name": "nova_code_interpreter",
                        "input": {"code": code},
                        "type": "server_tool_use",
                    }
                },
                {
                    "toolResult": {
                        "toolUseId": "tooluse_Wq3kP0",
                        "content": [{"text": result}],
                        "status": "success",
                        "type": "nova_code_interpreter_result",
                    }
                },
                {"text": "The average is 12."},
            ],
        },
        {"role": "user", "content": [{"text": "thanks"}]},
    ]


NOVA_TOOLS = {"tools": [{"systemTool": {"name": "nova_code_interpreter"}}]}


def test_bedrock_nova_code_interpreter_passes_in_its_own_shape() -> None:
    import botocore.session
    import botocore.validate

    messages = _nova_code_interpreter()
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("Converse").input_shape
    params = {"modelId": "amazon.nova-2-lite-v1:0", "messages": messages}
    params["toolConfig"] = NOVA_TOOLS
    assert not botocore.validate.ParamValidator().validate(params, shape).has_errors()
    # the service pairs its own tool: no client pairing rule applies
    assert msgnorm.validate(messages, "bedrock", tools=NOVA_TOOLS) == []
    before = copy.deepcopy(messages)
    out, report = msgnorm.convert_report(messages, source="bedrock", target="bedrock")
    assert messages == before
    assert out["messages"] == messages
    assert not any(report.values())
    # another target has no such tool: the pair is left out, counted
    records = msgnorm.from_provider(messages, "bedrock")
    chat, report = msgnorm.to_provider_report(records, "openai-chat")
    assert "nova_code_interpreter" not in json.dumps(chat)
    assert chat[1] == {"role": "assistant", "content": "The average is 12."}
    assert report["parts_dropped"] == 2


def test_a_client_tool_of_the_same_name_still_needs_its_result() -> None:
    messages = _nova_code_interpreter()
    use = dict(messages[1]["content"][0]["toolUse"])
    del use["type"]
    messages[1]["content"] = [{"toolUse": use}]
    found = msgnorm.validate(messages, "bedrock", tools=NOVA_TOOLS)
    assert [v.rule for v in found] == ["bedrock/tool-use-without-result"]


# --------------------------------------------------------------------------
# compaction
# --------------------------------------------------------------------------


def test_compaction_blocks_pass_verbatim_and_a_failed_one_is_dropped() -> None:
    good = {"type": "compaction", "content": "Summary: the user asked about Oslo."}
    failed = {"type": "compaction", "content": None}
    history = [U("q"), A([good, T("a")]), U("n"), A([failed, T("b")]), U("m")]
    shape, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert shape["messages"][1]["content"] == [good, T("a")]
    assert shape["messages"][3]["content"] == [T("b")]
    assert report["compaction_dropped"] == 1


def test_fallback_blocks_stay_in_place() -> None:
    fallback = {"type": "fallback", "model": "claude-opus-4-5", "reason": "overloaded"}
    history = [U("q"), A([T("a"), fallback, T("b")]), U("n")]
    shape = msgnorm.convert(history, source="anthropic", target="anthropic")
    assert shape["messages"][1]["content"] == [T("a"), fallback, T("b")]


def test_responses_compaction_items_are_kept_with_the_trigger_last() -> None:
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAA"}
    trigger = {"type": "compaction_trigger"}
    items = [
        RU("q"),
        compaction,
        trigger,
        RU("and now?"),
    ]
    (v,) = msgnorm.validate(items, "openai-responses")
    assert v.message == "The 'compaction_trigger' item must be the final input item."
    out, report = _responses_report(items)
    assert compaction in out
    assert out[-1] == trigger and out.count(trigger) == 1
    assert report["compaction_trigger_moved"] == 1
    assert msgnorm.validate(out, "openai-responses") == []


# --------------------------------------------------------------------------
# limits
# --------------------------------------------------------------------------


def _cached(n: int) -> list[dict[str, Any]]:
    cc = {"cache_control": {"type": "ephemeral"}}
    return [U([T(f"part {k}", **cc) for k in range(n)])]


def test_at_most_four_cache_control_blocks_are_sent_the_last_four() -> None:
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    shape, report = msgnorm.convert_report(
        _cached(5), source="anthropic", target="anthropic", system=system
    )
    marked = [b["text"] for b in shape["messages"][0]["content"] if "cache_control" in b]
    assert marked == ["part 1", "part 2", "part 3", "part 4"]
    assert "cache_control" not in shape["system"][0]
    # every block is still sent, only the marker goes
    assert [b["text"] for b in shape["messages"][0]["content"]] == [f"part {k}" for k in range(5)]
    assert report["cache_control_dropped"] == 2
    assert msgnorm.validate(shape["messages"], "anthropic", system=shape["system"]) == []


def test_four_cache_control_blocks_are_sent_as_they_are() -> None:
    shape, report = msgnorm.convert_report(_cached(4), source="anthropic", target="anthropic")
    assert sum("cache_control" in b for b in shape["messages"][0]["content"]) == 4
    assert report.get("cache_control_dropped", 0) == 0


def test_the_message_limit_is_named_not_repaired() -> None:
    too_many = [U("q") if i % 2 == 0 else A("a") for i in range(100_001)]
    found = msgnorm.validate(too_many, "anthropic")
    assert [(v.rule, v.index, v.path) for v in found] == [
        ("anthropic/too-many-messages", None, "messages")
    ]
    assert found[0].message.endswith("not 100001")
    assert "trim_to_budget" in found[0].repair and found[0].repair.startswith("none")


# --------------------------------------------------------------------------
# stateless Responses replay (store=False)
# --------------------------------------------------------------------------


def _responses_turns() -> list[dict[str, Any]]:
    return [
        RU("weather in Oslo?"),
        {"type": "reasoning", "id": "rs_bare", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "rain"},
        {
            "type": "reasoning",
            "id": "rs_enc",
            "summary": [{"type": "summary_text", "text": "It rains."}],
            "encrypted_content": "gAAAAenc",
        },
        responses_message("Rain."),
        RU("and tomorrow?"),
    ]


def test_store_false_replays_without_server_state() -> None:
    items = _responses_turns()
    before = copy.deepcopy(items)
    out, report = _responses_report(items, store=False)
    assert items == before
    text = json.dumps(out)
    # no bare reasoning, no server-side msg_/fc_ ids
    assert "rs_bare" not in text and "fc_1" not in text and "msg_1" not in text
    # encrypted reasoning kept, with the id its encrypted_content is bound to
    (rs,) = [i for i in out if i.get("type") == "reasoning"]
    assert rs["id"] == "rs_enc" and rs["encrypted_content"] == "gAAAAenc"
    # calls still paired by call_id
    assert [i.get("call_id") for i in out if "call_id" in i] == ["call_1", "call_1"]
    assert report["reasoning_dropped"] == 1
    assert report["item_ids_dropped"] == 2
    assert [v for v in msgnorm.validate(out, "openai-responses")] == []
    # the SDK's input types take it
    import pydantic
    from openai.types.responses import ResponseInputParam

    pydantic.TypeAdapter(ResponseInputParam).validate_python(out)


def test_store_true_keeps_the_stored_items() -> None:
    out = _responses(_responses_turns())
    text = json.dumps(out)
    assert "rs_bare" in text and "msg_1" in text


def test_store_false_from_records() -> None:
    records = msgnorm.from_provider(_responses_turns(), "openai-responses")
    out, report = msgnorm.to_provider_report(records, "openai-responses", store=False)
    assert "msg_1" not in json.dumps(out) and report["reasoning_dropped"] == 1
    # other targets have no stored items: store changes nothing there
    assert msgnorm.to_provider(records, "openai-chat", store=False) == msgnorm.to_provider(
        records, "openai-chat"
    )


def test_store_false_with_continuation_is_refused() -> None:
    with pytest.raises(ValueError, match="continuation"):
        msgnorm.convert(
            _responses_turns(),
            source="openai-responses",
            target="openai-responses",
            store=False,
            continuation=True,
        )
    with pytest.raises(ValueError, match="continuation"):
        msgnorm.to_provider([], "openai-responses", store=False, continuation=True)


def test_validate_knows_the_store_mode() -> None:
    """A replayed call without its reasoning item is a 400 of a stateless
    request only: with stored responses the server holds the reasoning."""
    items = [
        RU("q"),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "message", "role": "assistant", "id": "msg_1", "content": "a"},
        RU("again"),
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "ok"},
    ]
    assert msgnorm.validate(items, "openai-responses") == []
    assert msgnorm.validate(items, "openai-responses", store=True) == []
    found = msgnorm.validate(items, "openai-responses", store=False)
    assert [(v.rule, v.index) for v in found] == [
        ("openai-responses/function-call-without-reasoning", 4)
    ]
    assert found[0].message == (
        "Item 'fc_2' of type 'function_call' was provided without its required 'reasoning' item."
    )
    # the stateless output carries no server-side id: nothing left to name
    out = _responses(items, store=False)
    assert msgnorm.validate(out, "openai-responses", store=False) == []
    with pytest.raises(TypeError, match="store"):
        msgnorm.validate(items, "openai-responses", store="no")  # type: ignore[arg-type]
    with pytest.raises(msgnorm.ProviderRuleError):
        msgnorm.check(items, "openai-responses", store=False)


def test_strict_convert_refuses_the_stateless_repairs() -> None:
    items = [
        RU("q"),
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "content": "a"},
    ]
    kw: dict[str, Any] = {"source": "openai-responses", "target": "openai-responses"}
    assert msgnorm.convert(items, strict=True, **kw) == items
    with pytest.raises(msgnorm.ProviderRuleError) as e:
        msgnorm.convert(items, strict=True, store=False, **kw)
    assert [v.rule for v in e.value.violations] == ["openai-responses/item-not-stored"]
    # the stateless rules are the Responses target's: another target is not refused
    assert msgnorm.convert(
        items, strict=True, store=False, source="openai-responses", target="gemini"
    )


# --------------------------------------------------------------------------
# Responses replay items: shell, apply_patch, image generation, MCP
# --------------------------------------------------------------------------


def _sdk_input(items: list[Any]) -> None:
    import pydantic
    from openai.types.responses import ResponseInputParam

    pydantic.TypeAdapter(ResponseInputParam).validate_python(items)


SHELL_CALL = {
    "type": "shell_call",
    "id": "sh_1",
    "call_id": "call_sh",
    "action": {"commands": ["ls"]},
    "status": "completed",
}
SHELL_OUT = {
    "type": "shell_call_output",
    "id": "sho_1",
    "call_id": "call_sh",
    "output": [{"stdout": "a.txt\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
}
PATCH_CALL = {
    "type": "apply_patch_call",
    "id": "apc_1",
    "call_id": "call_ap",
    "status": "completed",
    "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"},
}
PATCH_OUT = {
    "type": "apply_patch_call_output",
    "id": "apco_1",
    "call_id": "call_ap",
    "status": "completed",
    "output": "Done",
}
IMAGE_CALL = {
    "type": "image_generation_call",
    "id": "ig_1",
    "result": "iVBORw0KGgo=",
    "status": "completed",
}
MCP_LIST = {
    "type": "mcp_list_tools",
    "id": "mcpl_1",
    "server_label": "github",
    "tools": [{"name": "create_issue", "input_schema": {"type": "object"}}],
}
MCP_REQUEST = {
    "type": "mcp_approval_request",
    "id": "mcpr_1",
    "name": "create_issue",
    "arguments": '{"title":"flaky test"}',
    "server_label": "github",
}
MCP_RESPONSE = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
MCP_CALL = {
    "type": "mcp_call",
    "id": "mcp_1",
    "name": "create_issue",
    "arguments": '{"title":"flaky test"}',
    "server_label": "github",
    "approval_request_id": "mcpr_1",
    "output": "issue #7",
    "status": "completed",
}


def _replay() -> list[dict[str, Any]]:
    return [
        RU("fix it, draw it, file it"),
        SHELL_CALL,
        SHELL_OUT,
        PATCH_CALL,
        PATCH_OUT,
        IMAGE_CALL,
        MCP_LIST,
        MCP_REQUEST,
        MCP_RESPONSE,
        MCP_CALL,
        RU("thanks"),
    ]


def test_replay_items_pass_through_unchanged() -> None:
    items = _replay()
    _sdk_input(items)
    assert msgnorm.validate(items, "openai-responses") == []
    assert msgnorm.validate(items, "openai-responses", store=False) == []
    out, report = _responses_report(items)
    assert out == items
    assert not any(report.get(k) for k in ("item_outputs_inserted", "item_outputs_removed"))


def test_replay_items_without_server_state() -> None:
    out, report = _responses_report(_replay(), store=False)
    _sdk_input(out)
    assert msgnorm.validate(out, "openai-responses", store=False) == []
    by_type = {i["type"]: i for i in out}
    # the shell and patch items' ids are optional: left out, paired by call_id
    for t in ("shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output"):
        assert "id" not in by_type[t] and by_type[t]["call_id"].startswith("call_")
    # the image and MCP items' ids are required: kept, the approval with its request
    assert [by_type[t]["id"] for t in ("image_generation_call", "mcp_call", "mcp_approval_request")]
    assert by_type["mcp_approval_response"] == MCP_RESPONSE
    assert report["item_ids_dropped"] == 4


def test_a_tool_list_before_the_reasoning_is_no_unreasoned_item() -> None:
    """The server lists an MCP server's tools before the model reasons: the
    list needs no reasoning before it; the call and the request do."""
    enc = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}
    user = RU("file it")
    ok = [user, MCP_LIST, enc, MCP_CALL]
    assert msgnorm.validate(ok, "openai-responses", store=False) == []
    bad = [user, MCP_LIST, enc, MCP_CALL, user, MCP_CALL | {"id": "mcp_2"}]
    found = msgnorm.validate(bad, "openai-responses", store=False)
    assert [(v.rule, v.index) for v in found] == [
        ("openai-responses/required-id-item-without-reasoning", 5)
    ]


def test_an_unanswered_client_call_gets_an_error_output() -> None:
    custom = {"type": "custom_tool_call", "call_id": "call_ct", "name": "apply", "input": "x"}
    items = [
        RU("go"),
        SHELL_CALL,
        PATCH_CALL,
        custom,
        RU("stop"),
    ]
    found = msgnorm.validate(items, "openai-responses")
    assert [(v.rule, v.index, v.message) for v in found] == [
        (
            "openai-responses/tool-call-without-output",
            1,
            "No tool output found for shell call call_sh.",
        ),
        (
            "openai-responses/tool-call-without-output",
            2,
            "No tool output found for apply patch call call_ap.",
        ),
        (
            "openai-responses/tool-call-without-output",
            3,
            "No tool output found for custom tool call call_ct.",
        ),
    ]
    out, report = _responses_report(items)
    _sdk_input(out)
    assert msgnorm.validate(out, "openai-responses") == []
    assert report["item_outputs_inserted"] == 3
    assert [i["type"] for i in out] == [
        "message",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "message",
    ]
    missing = "[Tool result missing due to internal error]"
    assert out[2]["output"][0]["stderr"] == missing
    assert out[2]["output"][0]["outcome"] == {"type": "exit", "exit_code": 1}
    assert out[4]["status"] == "failed" and out[4]["output"] == missing
    assert out[6]["output"] == missing


def test_an_output_before_or_without_its_call_is_removed() -> None:
    items = [
        RU("go"),
        PATCH_OUT,
        SHELL_OUT,
        SHELL_CALL,
        RU("stop"),
    ]
    found = msgnorm.validate(items, "openai-responses")
    # (the shell call has an output, in the wrong place: one rule names it)
    assert [(v.rule, v.index) for v in found] == [
        ("openai-responses/tool-output-without-call", 1),
        ("openai-responses/tool-output-without-call", 2),
    ]
    assert found[0].message == (
        "No tool call found for apply patch call output with call_id call_ap."
    )
    out, report = _responses_report(items)
    assert msgnorm.validate(out, "openai-responses") == []
    assert report["item_outputs_removed"] == 2 and report["item_outputs_inserted"] == 1
    assert [i["type"] for i in out] == ["message", "shell_call", "shell_call_output", "message"]


def test_stateless_replay_drops_what_names_a_stored_item() -> None:
    items = [
        RU("q"),
        {"type": "item_reference", "id": "msg_0"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_9", "approve": False},
        RU("next"),
    ]
    found = msgnorm.validate(items, "openai-responses", store=False)
    assert [(v.rule, v.index, v.path) for v in found] == [
        ("openai-responses/item-not-stored", 1, "input[1].id"),
        (
            "openai-responses/mcp-approval-response-without-request",
            2,
            "input[2].approval_request_id",
        ),
    ]
    assert found[0].message.startswith("Item with id 'msg_0' not found. Items are not persisted")
    # with stored responses both are looked up on the server: no rule broken
    assert msgnorm.validate(items, "openai-responses") == []
    out, report = _responses_report(items, store=False)
    assert [i["content"] for i in out] == ["q", "next"]
    assert report["item_references_dropped"] == 1 and report["mcp_approvals_dropped"] == 1
    kept = _responses(items)
    assert kept == items


def test_an_image_call_without_its_reasoning_is_named_not_repaired() -> None:
    items = [
        RU("hi"),
        {"type": "reasoning", "id": "rs_0", "summary": [], "encrypted_content": "gAAA"},
        {"type": "message", "role": "assistant", "content": "hello"},
        RU("draw"),
        {"type": "reasoning", "id": "rs_1", "summary": []},
        IMAGE_CALL,
    ]
    found = msgnorm.validate(items, "openai-responses", store=False)
    assert [v.rule for v in found] == ["openai-responses/item-not-stored"]
    out = _responses(items, store=False)
    # the bare reasoning goes; the image call's id is required, so it stays and
    # now lacks its reasoning: named, with no repair of msgnorm's
    (v,) = msgnorm.validate(out, "openai-responses", store=False)
    assert v.rule == "openai-responses/required-id-item-without-reasoning"
    assert v.message == (
        "Item 'ig_1' of type 'image_generation_call' was provided without its required "
        "'reasoning' item."
    )
    assert v.repair.startswith("none")


def test_reasoning_needs_the_item_it_reasoned_toward() -> None:
    """An MCP approval request is what a response's reasoning can lead to; an
    item_reference may name the following item; a reasoning item left before
    a call's output is dropped (the API: "without its required following item")."""
    enc = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}
    user = RU("go")
    kept = [user, enc, MCP_REQUEST]
    assert msgnorm.validate(kept, "openai-responses") == []
    assert _responses(kept) == kept
    assert (
        msgnorm.validate([user, enc, {"type": "item_reference", "id": "msg_1"}], "openai-responses")
        == []
    )
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    bad = [user, call, enc, output]
    assert [v.rule for v in msgnorm.validate(bad, "openai-responses")] == [
        "openai-responses/reasoning-without-following"
    ]
    out, report = _responses_report(bad)
    assert out == [user, call, output] and report["reasoning_dropped"] == 1
    assert msgnorm.validate(out, "openai-responses") == []
    # stateless: dropping the item_reference leaves the reasoning unfollowed: it goes too
    refd = [user, enc, {"type": "item_reference", "id": "msg_1"}, user]
    out, report = _responses_report(refd, store=False)
    assert [i["type"] for i in out] == ["message", "message"]
    assert report["reasoning_dropped"] == 1 and report["item_references_dropped"] == 1


# --------------------------------------------------------------------------
# convert(..., model=...): the model switch in one call
# --------------------------------------------------------------------------


def test_convert_switches_models() -> None:
    messages = [U("q"), A([THINK("opus thought"), T("a")]), U("n")]
    kw: dict[str, Any] = {"source": "anthropic", "target": "anthropic"}
    same = msgnorm.convert(messages, model="claude-opus-4-5", source_model="claude-opus-4-5", **kw)
    assert same["messages"][1]["content"][0] == THINK("opus thought")
    other, report = msgnorm.convert_report(
        messages, model="claude-haiku-4-5", source_model="claude-opus-4-5", **kw
    )
    assert other["messages"][1]["content"] == [T("a")] and report["thinking_dropped"] == 1
    text = msgnorm.convert(
        messages,
        model="claude-haiku-4-5",
        source_model="claude-opus-4-5",
        foreign_thinking="text",
        **kw,
    )
    assert text["messages"][1]["content"] == [T("opus thought"), T("a")]
    # a source of no known model: its thinking is kept
    unknown = msgnorm.convert(messages, model="claude-haiku-4-5", **kw)
    assert unknown["messages"][1]["content"][0] == THINK("opus thought")
    # the same as the two steps
    records = msgnorm.from_provider(messages, "anthropic", model="claude-opus-4-5")
    assert other == msgnorm.to_provider(records, "anthropic", model="claude-haiku-4-5")


def test_convert_switches_models_across_providers() -> None:
    chat = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": "deep thought"},
        {"role": "user", "content": "n"},
    ]
    kw: dict[str, Any] = {"source": "openai-chat", "source_model": "deepseek-reasoner"}
    own = msgnorm.convert(chat, target="openai-chat", model="deepseek-reasoner", **kw)
    assert own[1]["reasoning_content"] == "deep thought"
    out, report = msgnorm.convert_report(chat, target="openai-responses", model="gpt-5", **kw)
    assert "deep thought" not in json.dumps(out) and report["thinking_dropped"] == 1
    with pytest.raises(ValueError, match="foreign_thinking"):
        msgnorm.convert(chat, target="openai-chat", model="m", foreign_thinking="keep", **kw)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="continuation"):
        msgnorm.convert(
            chat, target="openai-responses", model="m", store=False, continuation=True, **kw
        )


# --------------------------------------------------------------------------
# every output passes its target's rules (those msgnorm repairs)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("target", msgnorm.PROVIDERS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(records=histories())
def test_every_output_passes_validate_for_its_target(target: str, records: list[Any]) -> None:
    """Generated histories (server tools, thinking, cache_control among them):
    ``to_provider``'s output breaks no rule of its target whose repair is
    msgnorm's; rules whose repair is "none" are named, not repaired."""
    shape = msgnorm.to_provider(records, target, model="claude-sonnet-4-5")
    assert _repaired_violations(target, shape) == []
    if target == "openai-responses":
        stateless = msgnorm.to_provider(records, target, store=False)
        assert _repaired_violations(target, stateless, store=False) == []
        assert not any(
            i.get("type") == "reasoning" and not i.get("encrypted_content") for i in stateless
        )


@pytest.mark.parametrize("store", [True, False])
def test_a_program_fingerprint_round_trips(store: bool) -> None:
    program = {
        "type": "program",
        "id": "prg_1",
        "call_id": "call_p",
        "code": "print(sum(range(11)))",
        "fingerprint": "fp_abc",
    }
    output = {
        "type": "program_output",
        "id": "prgo_1",
        "call_id": "call_p",
        "result": "55",
        "status": "completed",
    }
    items = [RU("sum 1..10"), program, output]
    out = _responses(items, store=store)
    assert out[1:] == [program, output]
    import pydantic
    from openai.types.responses import ResponseInputParam

    pydantic.TypeAdapter(ResponseInputParam).validate_python(out)
