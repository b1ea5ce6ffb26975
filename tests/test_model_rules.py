"""Rules that depend on the model a request goes to (docs/PROVIDERS.md, Models).

``validate(..., model=)`` checks them for the model named, in any of its forms
(dated, Bedrock, Vertex); without a model, or with one msgnorm does not know,
they do not fire. ``convert(x, p, p, model=m)`` of a history ``validate``
passes for ``m`` gives it back unchanged.

The fixtures are our own; each test names the public source that shows the
provider's behaviour.
"""

from __future__ import annotations

import copy
from typing import Any

import msgnorm
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.anthropic_blocks import TR, TU, A, T, U

PREFILL = (
    "This model does not support assistant message prefill. "
    "The conversation must end with a user message."
)


def _rules(found: list[msgnorm.Violation]) -> list[str]:
    return [v.rule for v in found]


# --------------------------------------------------------------------------
# Anthropic: assistant prefill
# Source: Anthropic, "What's new in Claude 4.6" (breaking changes: prefill
# returns 400), the Opus 4.7 migration guide; the 400 body quoted in
# agenticloops-ai/agentic-ai-engineering#43 and livekit/agents#7217
# (Claude 4.7/4.8/5); llm-exe/llm-exe#503 (works on 4.5).
# --------------------------------------------------------------------------

PREFILLED = [U("Name a colour."), A("The colour is")]


@pytest.mark.parametrize(
    "model",
    [
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "us.anthropic.claude-opus-4-6-v1",
        "claude-sonnet-4-6@20260217",
    ],
)
def test_a_prefill_is_refused_by_the_models_that_refuse_it(model: str) -> None:
    found = msgnorm.validate(PREFILLED, "anthropic", model=model)
    assert _rules(found) == ["anthropic/assistant-prefill"]
    assert found[0].message == PREFILL  # the provider's words
    assert (found[0].index, found[0].path) == (1, "messages[1]")
    with pytest.raises(msgnorm.ProviderRuleError, match="does not support assistant message"):
        msgnorm.check(PREFILLED, "anthropic", model=model)


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "claude-haiku-4-5-20251001",
        "claude-3-7-sonnet-20250219",
        "anthropic.claude-opus-4-1-20250805-v1:0",
        None,  # no model: the rule does not fire
        "claude-opus-4-9",  # unknown to msgnorm: not guessed
        "gpt-5",  # another provider's model decides no Anthropic rule
    ],
)
def test_a_prefill_is_taken_by_the_other_models_and_without_one(model: str | None) -> None:
    assert msgnorm.validate(PREFILLED, "anthropic", model=model) == []


def test_the_model_of_msgnorm_records_selects_the_rules() -> None:
    def rec(kind: str, content: Any, model: str | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": kind, "content": content}
        if model:
            msg["model"] = model
        return {"type": kind, "uuid": f"u{kind}", "message": msg}

    records = [rec("user", "q"), rec("assistant", [T("The colour is")], "claude-opus-4-6")]
    assert _rules(msgnorm.validate(records, "anthropic")) == ["anthropic/assistant-prefill"]
    # a model passed wins over the records' own
    assert msgnorm.validate(records, "anthropic", model="claude-sonnet-4-5") == []
    records[1]["message"]["model"] = "<synthetic>"
    assert msgnorm.validate(records, "anthropic") == []


# --------------------------------------------------------------------------
# Anthropic: a system message among the messages
# Source: docs.rs/gproxy-transform, module claude_mid_conv_system: models
# released before Opus 4.8 answer "role 'system' is not supported on this
# model"; Opus 4.8 takes it (psewar/skirnir v0.12.1: Claude Code 2.x sends one).
# --------------------------------------------------------------------------

MID_SYSTEM = [
    U("Fix the bug."),
    A([T("Looking.")]),
    {"role": "system", "content": [T("The user switched to plan mode.")]},
    U("Go on."),
]


@pytest.mark.parametrize("model", ["claude-sonnet-4-5-20250929", "claude-opus-4-6"])
def test_a_mid_conversation_system_message_is_refused_before_opus_4_8(model: str) -> None:
    found = msgnorm.validate(MID_SYSTEM, "anthropic", model=model)
    assert _rules(found) == ["anthropic/system-message"]
    assert found[0].message == "messages.2: role 'system' is not supported on this model"
    assert found[0].path == "messages[2].role"


@pytest.mark.parametrize("model", ["claude-opus-4-8", None, "claude-sonnet-5"])
def test_a_mid_conversation_system_message_is_taken_by_opus_4_8_or_unknown(
    model: str | None,
) -> None:
    # claude-sonnet-5: no public source shows either way, so it is not checked
    assert msgnorm.validate(MID_SYSTEM, "anthropic", model=model) == []


# --------------------------------------------------------------------------
# Anthropic on Bedrock / Vertex: image and document source kinds
# Source: pollinations/pollinations#5862 (Claude on Bedrock and Vertex AI fail
# with URL images, base64 works); the Bedrock error "URL sources are not
# supported"; the Claude API takes {"type": "url"} sources (vision docs).
# --------------------------------------------------------------------------

URL_IMAGE = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
B64_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iV"}}


@pytest.mark.parametrize(
    "model",
    [
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ],
)
def test_url_sources_are_refused_on_bedrock_and_vertex(model: str) -> None:
    history = [
        U([T("What is this?"), URL_IMAGE]),
        A([TU("t1", "shot")]),
        U([TR("t1", [URL_IMAGE])]),
    ]
    found = msgnorm.validate(history, "anthropic", model=model)
    assert [(v.rule, v.path) for v in found] == [
        ("anthropic/url-source", "messages[0].content[1].source"),
        ("anthropic/url-source", "messages[2].content[0].content[0].source"),
    ]
    assert found[0].message == "messages.0.content.1.source: URL sources are not supported"
    assert msgnorm.validate([U([T("What is this?"), B64_IMAGE])], "anthropic", model=model) == []


@pytest.mark.parametrize("model", ["claude-sonnet-4-5-20250929", None])
def test_url_sources_are_taken_by_the_claude_api(model: str | None) -> None:
    assert msgnorm.validate([U([T("What is this?"), URL_IMAGE])], "anthropic", model=model) == []


# --------------------------------------------------------------------------
# Gemini: thought signatures on function calls, from Gemini 3 on
# Source: ai.google.dev/gemini-api/docs/thought-signatures (strict validation
# from Gemini 3); erain/glue v1.8.0 (gemini-3.1-pro-preview answers 400
# "Function call is missing a thought_signature"); 2.5 requests without them
# are accepted (the held-out gemini-2.5-flash requests of issue 40).
# --------------------------------------------------------------------------

UNSIGNED = [
    {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {}}}]},
]
SIGNED_THOUGHT = {"text": "plan", "thought": True, "thoughtSignature": "c2ln"}


@pytest.mark.parametrize("model", ["gemini-3-pro-preview", "models/gemini-3.1-pro-preview"])
def test_gemini_3_requires_a_signature_on_the_first_call(model: str) -> None:
    found = msgnorm.validate(UNSIGNED, "gemini", model=model)
    assert _rules(found) == ["gemini/thought-signature"]
    assert found[0].message.startswith("Function call is missing a thought_signature")
    signed = copy.deepcopy(UNSIGNED)
    signed[1]["parts"][0]["thoughtSignature"] = "c2ln"
    assert msgnorm.validate(signed, "gemini", model=model) == []


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.0-flash", None])
def test_gemini_before_3_takes_calls_without_signatures(model: str | None) -> None:
    # a history where some parts are signed and a call is not: accepted by 2.5
    history = [UNSIGNED[0], {"role": "model", "parts": [SIGNED_THOUGHT]}, *UNSIGNED]
    assert msgnorm.validate(history, "gemini", model=model) == []
    out = msgnorm.convert(history, source="gemini", target="gemini", model=model)
    assert out["contents"] == history


# --------------------------------------------------------------------------
# OpenAI Responses: stateless reasoning replay
# Source: OpenAI, "Reasoning models" (encrypted_content with store=false: pass
# the reasoning items back); the API's error names an item by its id ("Item
# 'rs_…' of type 'reasoning' was provided without its required following
# item"), so items without one are not held to the rule.
# --------------------------------------------------------------------------


def RSX(n: int) -> dict[str, Any]:
    return {"type": "reasoning", "summary": [], "encrypted_content": f"gAAAA{n}"}


def test_reasoning_items_without_an_id_are_kept_in_any_number() -> None:
    history = [
        {"type": "message", "role": "user", "content": "Plan the release."},
        *[RSX(n) for n in range(5)],
        {"type": "message", "role": "user", "content": "Go on."},
    ]
    for store in (True, False):
        assert msgnorm.validate(history, "openai-responses", store=store) == []
        out, report = msgnorm.convert_report(
            history, source="openai-responses", target="openai-responses", store=store
        )
        assert out == history
        assert not report.get("reasoning_dropped")


def test_a_reasoning_item_followed_by_an_item_type_msgnorm_does_not_know() -> None:
    # programmatic tool calling: a `program` item follows the reasoning
    program = {"type": "program", "id": "prog_1", "code": "print(1)"}
    history = [
        {"type": "message", "role": "user", "content": "Sum it."},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        program,
    ]
    assert msgnorm.validate(history, "openai-responses") == []
    # a reasoning item with an id before the user's next message is still refused
    refused = [*history[:2], {"type": "message", "role": "user", "content": "?"}]
    assert _rules(msgnorm.validate(refused, "openai-responses")) == [
        "openai-responses/reasoning-without-following"
    ]


# --------------------------------------------------------------------------
# convert with the request's own model
# --------------------------------------------------------------------------


def test_convert_with_the_requests_own_model_keeps_the_request() -> None:
    history = [
        U("q"),
        A([{"type": "thinking", "thinking": "t", "signature": "sig"}, TU("t1", "run")]),
        U([TR("t1", "ok")]),
        A([T("done")]),
        {"role": "system", "content": "Be brief."},
        U("next"),
    ]
    for model in ("claude-opus-4-8", "claude-opus-4-8-20261001"):
        out, report = msgnorm.convert_report(
            history, source="anthropic", target="anthropic", model=model
        )
        assert out == {"messages": history}
        assert not any(report.values())
    with pytest.raises(ValueError, match="model"):
        msgnorm.convert(history, source="anthropic", target="anthropic", model="")


# --------------------------------------------------------------------------
# the property: validate(x, p, model=m) passes => convert(x, p, p, model=m) == x
# --------------------------------------------------------------------------

MODELS = {
    "anthropic": [
        "claude-sonnet-4-5-20250929",
        "claude-opus-4-6",
        "claude-opus-4-8",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ],
    "gemini": ["gemini-2.5-flash", "gemini-3-pro-preview"],
    "openai-chat": ["gpt-4.1"],
    "openai-responses": ["gpt-5"],
}
texts = st.text("abcdefghij klmnop", min_size=1, max_size=12).filter(str.strip)


@st.composite
def anthropic_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns with tool calls, thinking, mid-conversation system messages, URL
    and base64 images; ending with a user or an assistant message."""
    out: list[dict[str, Any]] = []
    for t in range(draw(st.integers(1, 3))):
        blocks: list[Any] = [T(draw(texts))]
        if draw(st.booleans()):
            blocks.append(draw(st.sampled_from([URL_IMAGE, B64_IMAGE])))
        out.append(U(blocks))
        if draw(st.booleans()):
            out.append({"role": "system", "content": draw(texts)})
        reply: list[Any] = []
        if draw(st.booleans()):
            reply.append({"type": "thinking", "thinking": draw(texts), "signature": "c2ln"})
        if draw(st.booleans()):
            reply.append(TU(f"toolu_{t}", "run"))
            out.append(A(reply))
            out.append(U([TR(f"toolu_{t}", draw(texts))]))
            reply = []
        out.append(A([*reply, T(draw(texts))]))
    if draw(st.booleans()):
        out.append(U(draw(texts)))
    return out


@st.composite
def gemini_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in range(draw(st.integers(1, 3))):
        out.append({"role": "user", "parts": [{"text": draw(texts)}]})
        call: dict[str, Any] = {"functionCall": {"name": f"f{t}", "args": {}}}
        if draw(st.booleans()):
            call["thoughtSignature"] = "c2ln"
        out.append({"role": "model", "parts": [call]})
        response = {"functionResponse": {"name": f"f{t}", "response": {"r": draw(texts)}}}
        out.append({"role": "user", "parts": [response]})
        out.append({"role": "model", "parts": [{"text": draw(texts)}]})
    return out


@st.composite
def responses_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in range(draw(st.integers(1, 3))):
        out.append({"type": "message", "role": "user", "content": draw(texts)})
        for k in range(draw(st.integers(0, 3))):
            item: dict[str, Any] = {"type": "reasoning", "summary": []}
            item["encrypted_content"] = f"gAAAA{t}{k}"
            if draw(st.booleans()):
                item["id"] = f"rs_{t}_{k}"
            out.append(item)
        if draw(st.booleans()):
            out.append(
                {"type": "function_call", "call_id": f"c{t}", "name": "run", "arguments": "{}"}
            )
            out.append({"type": "function_call_output", "call_id": f"c{t}", "output": "ok"})
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), p=st.sampled_from(["anthropic", "gemini", "openai-responses"]))
def test_what_validate_passes_for_a_model_convert_gives_back(data: st.DataObject, p: str) -> None:
    model = data.draw(st.sampled_from(MODELS[p]))
    make = {
        "anthropic": anthropic_histories,
        "gemini": gemini_histories,
        "openai-responses": responses_histories,
    }[p]
    history = data.draw(make())
    if msgnorm.validate(history, p, model=model):
        return
    before = copy.deepcopy(history)
    out = msgnorm.convert(history, source=p, target=p, model=model)
    got = out if p.startswith("openai") else out.get("messages", out.get("contents"))
    assert got == before
    assert history == before


def test_cli_check_reads_the_request_bodys_model(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from msgnorm.cli import main as cli_main

    body = tmp_path / "body.json"
    body.write_text(json.dumps({"model": "claude-opus-4-6", "messages": PREFILLED}))
    assert cli_main(["check", str(body)]) == 1
    assert "anthropic/assistant-prefill" in capsys.readouterr().out
    # --model wins over the body's
    assert cli_main(["check", str(body), "--model", "claude-sonnet-4-5"]) == 0
    capsys.readouterr()
    plain = tmp_path / "messages.json"
    plain.write_text(json.dumps(PREFILLED))
    assert cli_main(["check", str(plain)]) == 0


@pytest.mark.parametrize("model", ["claude-😀sonnet-4-5", "😀" * 4, "é-2025-09-2é", "a😀-v1:0@x"])
def test_any_model_name_is_read_without_a_panic(model: str) -> None:
    """A model name is any text (a fuzz regression: a cut inside a character)."""
    recs = [
        {"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "uuid": "a",
            "message": {"role": "assistant", "model": model, "content": "ok"},
        },
    ]
    assert msgnorm.count_tokens(recs) > 0
    assert isinstance(msgnorm.validate(recs, "anthropic", model=model), list)
