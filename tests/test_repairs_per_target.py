"""Repairs only where the target needs them (docs/PROVIDERS.md, "Repairs per
target"): ``convert`` of a provider's own request that breaks none of the
rules msgnorm repairs (docs/RULES.md) sends it as it came; the SPEC §4 steps
(user merge with its seam newline, blank-text removal, ``(no content)``,
a first user turn) run only where one of the target's rules fires."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest

CHAT = "openai-chat"


def nonzero(report: dict[str, int]) -> dict[str, int]:
    return {k: n for k, n in report.items() if n}


# accepted by OpenAI Chat: adjacent user messages, an empty assistant reply,
# a blank user message (none of these is a Chat 400)
chat_history: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "First part of my question,"},
    {"role": "user", "content": "and the second part."},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "   "},
    {"role": "assistant", "content": "Done."},
]


def test_an_accepted_chat_request_comes_back_as_it_came() -> None:
    assert msgnorm.validate(chat_history, CHAT) == []
    out, report = msgnorm.convert_report(chat_history, source=CHAT, target=CHAT)
    assert out == chat_history
    # the input's own objects: no step touched them
    assert all(a is b for a, b in zip(out, chat_history, strict=True))
    assert nonzero(report) == {}


def test_the_same_history_is_repaired_for_a_target_that_refuses_it() -> None:
    # Anthropic refuses the blank texts; Bedrock also the adjacent user turns
    for target in ("anthropic", "bedrock"):
        out, report = msgnorm.convert_report(chat_history, source=CHAT, target=target)
        assert report["users_merged"] == 1 and report["no_content_filled"] >= 1
        assert msgnorm.validate(out["messages"], target, system=out.get("system")) == []


def test_adjacent_user_turns_anthropic_takes_are_not_merged() -> None:
    history = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Here is the log.", "cache_control": {"type": "ephemeral"}}
            ],
        },
        {"role": "user", "content": "What failed?"},
        {"role": "assistant", "content": [{"type": "text", "text": "The build."}]},
    ]
    assert msgnorm.validate(history, "anthropic") == []
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    # no seam newline: the cached prefix the agent sent is byte for byte the same
    assert out["messages"] == history
    assert report["users_merged"] == 0


def test_a_rule_that_fires_brings_the_repairs() -> None:
    # a whitespace-only text block is an Anthropic 400
    history = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": " "}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
    ]
    (v,) = msgnorm.validate(history, "anthropic")
    assert v.rule == "anthropic/whitespace-text"
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert report["blank_texts_removed"] == 1
    assert out["messages"][0]["content"] == [{"type": "text", "text": "Hi"}]
    assert msgnorm.validate(out["messages"], "anthropic") == []


def test_an_unanswered_call_is_repaired_in_its_own_format() -> None:
    history = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
            ],
        },
        {"role": "user", "content": "Never mind."},
    ]
    assert [v.rule for v in msgnorm.validate(history, CHAT)] == [
        "openai-chat/tool-calls-without-response"
    ]
    out, report = msgnorm.convert_report(history, source=CHAT, target=CHAT)
    assert report["missing_results_inserted"] == 1
    assert msgnorm.validate(out, CHAT) == []


def test_an_assistant_first_gemini_call_gets_its_user_turn() -> None:
    contents = [
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "c2ln"}],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"ok": True}}}]},
    ]
    assert "gemini/function-call-placement" in {
        v.rule for v in msgnorm.validate(contents, "gemini")
    }
    out, report = msgnorm.convert_report(contents, source="gemini", target="gemini")
    assert report["first_user_inserted"] == 1
    assert out["contents"][0]["role"] == "user"


def test_strict_still_refuses_what_it_would_repair() -> None:
    history = [{"role": "user", "content": [{"type": "text", "text": " "}]}]
    with pytest.raises(msgnorm.ProviderRuleError):
        msgnorm.convert(history, source="anthropic", target="anthropic", strict=True)
