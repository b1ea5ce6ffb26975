"""Shapes a provider's own JSON reader accepts are read, and come back from
``convert(x, p, p)`` as given; a request that breaks one rule gets that rule's
repair and nothing else.

The fixtures are our own; each test names the public source that shows the shape.
"""

from __future__ import annotations

import copy
from typing import Any

import msgnorm
import pytest
from support.anthropic_blocks import STU, A, T, U

# --------------------------------------------------------------------------
# Gemini: `parts` as one object, a content without a role
# Source: the Gemini API reads requests with protobuf's JSON mapping, which
# takes a single value for a repeated field and gives a missing field its
# default (Content.role: "user" when left out, ai.google.dev/api/caching#Content:
# "Optional. The producer of the content ... useful to set for multi-turn");
# held-out accepted requests of issue 40 (systemInstruction {"parts": {"text": ""}}).
# --------------------------------------------------------------------------


def test_gemini_parts_as_one_object_and_contents_without_a_role() -> None:
    system = {"parts": {"text": ""}}
    contents = [
        {"parts": [{"text": "What is 2+2?"}]},
        {"role": "model", "parts": {"text": "4"}},
        {"parts": {"text": "And 3+3?"}},
    ]
    before = copy.deepcopy(contents)
    assert msgnorm.validate(contents, "gemini", system=system) == []
    out, report = msgnorm.convert_report(contents, source="gemini", target="gemini", system=system)
    assert out == {"system_instruction": system, "contents": before}
    assert not any(report.values()), report
    assert contents == before
    records = msgnorm.from_provider(contents, "gemini", system=system)
    kinds = [(r["type"], r.get("message", {}).get("role")) for r in records]
    assert kinds == [
        ("system", None),
        ("user", "user"),
        ("assistant", "assistant"),
        ("user", "user"),
    ]
    # to another target: the text is carried
    chat = msgnorm.convert(contents, source="gemini", target="openai-chat")
    assert [m["role"] for m in chat] == ["user", "assistant", "user"]
    assert "And 3+3?" in str(chat[-1]["content"])


def test_a_gemini_role_other_than_user_or_model_is_still_refused() -> None:
    contents = [{"role": "assistant", "parts": [{"text": "hi"}]}]
    assert [v.rule for v in msgnorm.validate(contents, "gemini")] == ["gemini/invalid-role"]
    with pytest.raises(msgnorm.InvalidRecordError, match="role"):
        msgnorm.from_provider(contents, "gemini")


# --------------------------------------------------------------------------
# Anthropic: blocks other than text in the system prompt
# Source: Anthropic tool search docs (`tool_reference` blocks); held-out
# accepted requests of issue 40 with `tool_reference`/`tool_addition` in `system`.
# --------------------------------------------------------------------------

SYSTEM = [
    {"type": "text", "text": "You are a release assistant."},
    {"type": "tool_reference", "tool_name": "deploy"},
    {"type": "tool_addition", "tool": {"name": "rollback"}},
]


def test_anthropic_system_blocks_other_than_text_pass_through() -> None:
    messages = [{"role": "user", "content": "Ship it."}]
    out, report = msgnorm.convert_report(
        messages, source="anthropic", target="anthropic", system=SYSTEM
    )
    assert out == {"system": SYSTEM, "messages": messages}
    assert not any(report.values()), report
    records = msgnorm.from_provider(messages, "anthropic", system=SYSTEM)
    assert records[0]["content"] == SYSTEM
    # through the records and the §4 steps as well
    assert msgnorm.to_provider(records, "anthropic")["system"] == SYSTEM


def test_message_blocks_in_a_system_prompt_are_still_refused() -> None:
    # the API refuses a message's blocks (media, tool results, ...) in `system`
    messages = [{"role": "user", "content": "hi"}]
    for block in (
        {"type": "web_search_result", "url": "https://e.x", "title": "t"},
        {"type": "image"},
    ):
        with pytest.raises(msgnorm.InvalidRecordError, match=r"system\[1\]"):
            msgnorm.from_provider(messages, "anthropic", system=[SYSTEM[0], block])


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "gemini", "bedrock"])
def test_other_targets_drop_the_blocks_they_cannot_carry_counted(target: str) -> None:
    messages = [{"role": "user", "content": "Ship it."}]
    out, report = msgnorm.convert_report(messages, source="anthropic", target=target, system=SYSTEM)
    assert "You are a release assistant." in str(out)
    assert "tool_reference" not in str(out)
    assert report.get("parts_dropped") == 2


# --------------------------------------------------------------------------
# Repairs step by step: a Codex rollout with one client-only item
# Source: openai/codex codex-rs (ResponseItem::GhostSnapshot is kept in the
# rollout and never sent to the Responses API); the Responses API takes
# adjacent user messages (the Codex CLI sends its environment context and the
# user's prompt as two user messages).
# --------------------------------------------------------------------------


def _msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def test_a_client_only_item_is_the_only_thing_removed() -> None:
    ghost = {
        "type": "ghost_snapshot",
        "ghost_commit": {"id": "abc", "preexisting_untracked_files": []},
    }
    history = [
        _msg("user", "<environment_context>cwd=/repo</environment_context>"),
        _msg("user", "Fix the failing test."),
        ghost,
        {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"cmd":"ls"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        _msg("assistant", "Done."),
        _msg("user", "Thanks."),
    ]
    for store in (True, False):
        out, report = msgnorm.convert_report(
            history, source="openai-responses", target="openai-responses", store=store
        )
        assert out == [m for m in history if m is not ghost]
        assert report["client_only_dropped"] == 1
        assert {k: n for k, n in report.items() if n} == {"client_only_dropped": 1}


def test_a_request_that_needs_the_steps_still_gets_them() -> None:
    # an unanswered call: the §4 steps run (tool pairing), as before
    history = [
        _msg("user", "Go."),
        {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"},
        _msg("user", "Well?"),
    ]
    out, report = msgnorm.convert_report(
        history, source="openai-responses", target="openai-responses"
    )
    assert report["missing_results_inserted"] == 1
    assert [i.get("type") for i in out].count("function_call_output") == 1


# --------------------------------------------------------------------------
# New item and block types pass through untouched
# Sources: OpenAI Responses API reference (tool_search_call/_output,
# namespace on function tools, programmatic tool calling: `program` items and
# `caller` on calls); Anthropic docs (search_result blocks, tool_use `caller`
# for programmatic tool calling, context_management edits); OpenAI-compatible
# Chat servers that return `reasoning_signature` (a string or a list).
# --------------------------------------------------------------------------


def test_new_responses_item_types_come_back_as_sent() -> None:
    history = [
        _msg("user", "Find the deploy tool and run it."),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA1"},
        {"type": "program", "id": "prog_1", "code": "await deploy()", "status": "completed"},
        {"type": "tool_search_call", "id": "tsc_1", "call_id": "ts1", "arguments": {"q": "deploy"}},
        {"type": "tool_search_output", "call_id": "ts1", "tools": [{"name": "deploy"}]},
        {"type": "additional_tools", "tools": [{"type": "function", "name": "deploy"}]},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "deploy",
            "namespace": "ops",
            "caller": {"type": "program", "id": "prog_1"},
            "arguments": "{}",
        },
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        _msg("assistant", "Deployed."),
        _msg("user", "Thanks."),
    ]
    before = copy.deepcopy(history)
    out, report = msgnorm.convert_report(
        history, source="openai-responses", target="openai-responses"
    )
    assert out == before
    assert not any(report.values()), report


def test_new_anthropic_block_types_come_back_as_sent() -> None:
    search_result = {
        "type": "search_result",
        "source": "https://docs.example.com/deploy",
        "title": "Deploy",
        "content": [{"type": "text", "text": "Run deploy."}],
    }
    history = [
        {"role": "user", "content": [search_result, {"type": "text", "text": "Deploy?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "deploy",
                    "input": {},
                    "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
                }
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
        },
    ]
    before = copy.deepcopy(history)
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert out == {"messages": before}
    assert not any(report.values()), report


@pytest.mark.parametrize("signature", ["c2ln", ["c2ln", "bW9yZQ"]])
def test_chat_reasoning_signature_comes_back_as_sent(signature: Any) -> None:
    history = [
        {"role": "user", "content": "2+2?"},
        {
            "role": "assistant",
            "content": "4",
            "reasoning_content": "2 plus 2",
            "reasoning_signature": signature,
        },
        {"role": "user", "content": "And 3+3?"},
    ]
    before = copy.deepcopy(history)
    out = msgnorm.convert(history, source="openai-chat", target="openai-chat")
    assert out == before


# --------------------------------------------------------------------------
# Anthropic: a blank text block in an assistant turn of a web search replay
# Source: held-out accepted request of issue 40 (claude-haiku-4-5 took a " "
# text block between the server_tool_use and web_search_tool_result blocks it
# wrote); the rule still holds elsewhere.
# --------------------------------------------------------------------------


def test_a_blank_text_in_a_web_search_replay_is_accepted() -> None:
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.com",
                "title": "Rain",
                "encrypted_content": "Eq0",
            }
        ],
    }
    replay = [
        U("Rain in Oslo?"),
        A([T(" "), STU("srvtoolu_01", query="rain Oslo"), result, T("Yes, light rain.")]),
        U("Thanks."),
    ]
    assert msgnorm.validate(replay, "anthropic", model="claude-haiku-4-5") == []
    before = copy.deepcopy(replay)
    assert msgnorm.convert(replay, source="anthropic", target="anthropic") == {"messages": before}
    # a blank text block in an assistant turn without server tools is still named
    plain = [
        replay[0],
        A([T(" "), T("x")]),
        replay[2],
    ]
    rules = [v.rule for v in msgnorm.validate(plain, "anthropic")]
    assert rules == ["anthropic/whitespace-text"]
