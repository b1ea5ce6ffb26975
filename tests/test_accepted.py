"""Requests the providers accepted come back from ``convert(x, source=p,
target=p)`` as they were sent, and ``validate`` names nothing on them.

The fixtures in ``tests/data/accepted/<provider>/`` are our own request bodies,
written with the shapes that recorded requests (requests a provider answered
with a 200) show: mid-conversation system messages, parallel tool calls, tool
ids reused by a later turn, thinking with signatures, redacted thinking,
server tools, ``cache_control`` and ``cachePoint``, citations, image and
document bytes, Gemini camelCase keys and ``thoughtSignature``, encrypted
reasoning, compaction, Nova's code interpreter. A fixture with a ``canonical``
entry comes back in that documented form (its ``about`` says why); every other
comes back equal to its input.

The rule edge cases below are what recorded 200s showed a rule used to refuse.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).parent / "data" / "accepted"
FIXTURES = sorted(ROOT.glob("*/*.json"))
PROVIDERS = ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")

# report counts that say something was lost, dropped or made up
LOSSES = (
    "dropped",
    "duplicate_tool_uses_removed",
    "first_user_inserted",
    "missing_results_inserted",
    "no_content_filled",
    "orphan_results_removed",
    "stray_results_removed",
    "thinking_only_dropped",
    "unanswered_server_tool_uses_removed",
    "media_omitted",
    "parts_dropped",
    "thinking_dropped",
    "reasoning_dropped",
    "cache_control_dropped",
    "blank_text_dropped",
    "empty_filled",
    "server_results_removed",
    "client_only_dropped",
    "compaction_dropped",
    "invalid_media_dropped",
    "tombstoned",
)
PLACEHOLDERS = ("(no content)", "[Tool result missing", "[Tool use interrupted", "interrupted")


def _load(path: Path) -> tuple[str, dict[str, Any]]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return path.parent.name, data


def _system_key(data: dict[str, Any]) -> str | None:
    for key in ("system", "systemInstruction", "system_instruction"):
        if key in data:
            return key
    return None


def _request(p: str, data: dict[str, Any]) -> tuple[list[Any], Any, Any]:
    """(messages, system, tools) of a fixture, as validate and convert take them."""
    key = _system_key(data)
    system = data[key] if key else None
    if p == "gemini":
        return data["contents"], system, data.get("tools")
    if p == "openai-responses":
        return data["input"], None, data.get("tools")
    if p == "bedrock":
        return data["messages"], system, data.get("toolConfig")
    return data["messages"], system, data.get("tools")


def _unpack(p: str, out: Any) -> tuple[list[Any], Any]:
    """(messages, system) of a convert output."""
    if p.startswith("openai"):
        return out, None
    if p == "gemini":
        key = "systemInstruction" if "systemInstruction" in out else "system_instruction"
        return out["contents"], out.get(key)
    return out["messages"], out.get("system")


_SNAKE = {
    "toolUseId": "tool_use_id",
    "thoughtSignature": "thought_signature",
    "functionCall": "function_call",
    "functionResponse": "function_response",
    "inlineData": "inline_data",
    "mimeType": "mime_type",
    "encrypted_index": "encrypted_index",
}
# what must survive a round trip: ids of calls and results, signatures,
# encrypted content, cache breakpoints, media bytes
_KEPT = {
    "id",
    "call_id",
    "tool_use_id",
    "tool_call_id",
    "signature",
    "thought_signature",
    "data",
    "bytes",
    "encrypted_content",
    "encrypted_index",
    "cache_control",
    "cachePoint",
    "citations",
    "redactedContent",
}


def _nodes(x: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """Every value of ``x`` with the key it stands under (None at the top and in a list)."""
    yield key, x
    if isinstance(x, dict):
        for k, w in x.items():
            yield from _nodes(w, k)
    elif isinstance(x, list):
        for w in x:
            yield from _nodes(w)


def _inventory(x: Any) -> list[tuple[str, str]]:
    """Every kept field of ``x`` (keys in snake_case), as sorted JSON pairs."""
    snake = ((_SNAKE.get(k, k), w) for k, w in _nodes(x) if k is not None)
    return sorted((k, json.dumps(w, sort_keys=True, default=repr)) for k, w in snake if k in _KEPT)


def _texts(x: Any) -> list[str]:
    """Every string of ``x`` (system texts among them), sorted."""
    return sorted(v for _, v in _nodes(x) if isinstance(v, str))


def test_there_are_fixtures_for_every_provider() -> None:
    assert {path.parent.name for path in FIXTURES} == set(PROVIDERS)
    assert all(len(list((ROOT / p).glob("*.json"))) >= 3 for p in PROVIDERS)


@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.stem}" for p in FIXTURES])
def test_validate_names_nothing_on_an_accepted_request(path: Path) -> None:
    p, data = _load(path)
    messages, system, tools = _request(p, data)
    assert msgnorm.validate(messages, p, system=system, tools=tools) == []


@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.stem}" for p in FIXTURES])
def test_an_accepted_request_comes_back_as_sent(path: Path) -> None:
    p, data = _load(path)
    messages, system, tools = _request(p, data)
    before = copy.deepcopy(messages)
    out, report = msgnorm.convert_report(messages, source=p, target=p, system=system)
    assert messages == before, "the input is not mutated"
    got, got_system = _unpack(p, out)
    assert got == data.get("canonical", before)
    assert got_system == system
    # nothing lost, nothing made up
    assert {k: report[k] for k in LOSSES if report.get(k)} == data.get("counts", {})
    assert _inventory(got) == _inventory(before)
    if "canonical" not in data:
        assert _texts(got) == _texts(before)
    sent = json.dumps(out, default=repr)
    assert not [s for s in PLACEHOLDERS if s in sent and s not in json.dumps(before)]
    # and what comes back is accepted as well
    assert msgnorm.validate(got, p, system=got_system, tools=tools) == []


@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.stem}" for p in FIXTURES])
def test_every_target_keeps_the_calls_and_results(path: Path) -> None:
    p, data = _load(path)
    messages, system, _ = _request(p, data)
    for target in PROVIDERS:
        _, report = msgnorm.convert_report(messages, source=p, target=target, system=system)
        assert report.get("missing_results_inserted", 0) == 0, target
        assert report.get("duplicate_tool_uses_removed", 0) == 0, target
        assert report.get("first_user_inserted", 0) == 0, target


# --------------------------------------------------------------------------
# features spot-checked one at a time
# --------------------------------------------------------------------------


def _fixture(name: str) -> tuple[str, dict[str, Any]]:
    return _load(ROOT / f"{name}.json")


def test_bedrock_cache_points_stay_where_they_were() -> None:
    p, data = _fixture("bedrock/cache_points_reasoning_tools")
    out = msgnorm.convert(data["messages"], source=p, target=p, system=data["system"])
    assert out["system"][-1] == {"cachePoint": {"type": "default"}}
    assert out["messages"][0]["content"][-1] == {"cachePoint": {"type": "default"}}
    # to Anthropic the breakpoint is the block's cache_control
    shape = msgnorm.convert(data["messages"], source=p, target="anthropic", system=data["system"])
    assert shape["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert shape["system"][-1]["cache_control"] == {"type": "ephemeral"}


def test_base64_text_stays_text_and_bytes_stay_bytes() -> None:
    p, data = _fixture("bedrock/document_citations")
    out = msgnorm.convert(data["messages"], source=p, target=p)
    image = out["messages"][2]["content"][1]["image"]["source"]["bytes"]
    assert (
        isinstance(image, str)
        and image == data["messages"][2]["content"][1]["image"]["source"]["bytes"]
    )
    doc = out["messages"][0]["content"][0]["document"]
    assert doc == data["messages"][0]["content"][0]["document"], "citations and name kept"
    raw = [
        {
            "role": "user",
            "content": [
                {"text": "Same image?"},
                {"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n\x1a\n"}}},
            ],
        }
    ]
    back = msgnorm.convert(raw, source="bedrock", target="bedrock")
    assert back["messages"] == raw
    assert "b'" not in json.dumps(msgnorm.convert(raw, source="bedrock", target="anthropic"))


def test_citations_come_back() -> None:
    p, data = _fixture("anthropic/server_tools_citations")
    out = msgnorm.convert(data["messages"], source=p, target=p)
    assert (
        out["messages"][1]["content"][2]["citations"]
        == data["messages"][1]["content"][2]["citations"]
    )
    p, data = _fixture("bedrock/document_citations")
    out = msgnorm.convert(data["messages"], source=p, target=p)
    assert out["messages"][1] == data["messages"][1], "citationsContent as given"


def test_thought_signatures_stay_on_their_parts() -> None:
    p, data = _fixture("gemini/camel_thought_signatures")
    out = msgnorm.convert(data["contents"], source=p, target=p, system=data["systemInstruction"])
    for sent, back in zip(data["contents"], out["contents"], strict=True):
        for a, b in zip(sent["parts"], back["parts"], strict=True):
            assert b.get("thoughtSignature") == a.get("thoughtSignature")
            assert "thought_signature" not in b


def test_camel_case_in_gives_camel_case_out() -> None:
    p, data = _fixture("gemini/camel_thought_signatures")
    out = msgnorm.convert(data["contents"], source=p, target=p, system=data["systemInstruction"])
    assert "systemInstruction" in out and "system_instruction" not in out
    parts = out["contents"][0]["parts"]
    assert parts[1] == {
        "inlineData": {
            "mimeType": "image/png",
            "data": data["contents"][0]["parts"][1]["inlineData"]["data"],
        }
    }
    # the caller's own data keeps its keys: arguments and responses are not renamed
    history = [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "f", "args": {"mime_type": "x", "file_uri": "y"}}}],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "f", "response": {"inline_data": 1}}}],
        },
    ]
    assert msgnorm.convert(history, source=p, target=p)["contents"] == history
    # a client that mixes them keeps its mix: camelCase part keys, snake_case media keys
    mixed = [
        {
            "role": "user",
            "parts": [
                {"text": "Summarise"},
                {"fileData": {"file_uri": "gs://b/r.pdf", "mime_type": "application/pdf"}},
            ],
        },
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
    ]
    assert msgnorm.convert(mixed, source=p, target=p)["contents"] == mixed
    # snake_case in, snake_case out
    p, data = _fixture("gemini/snake_case_tools")
    out = msgnorm.convert(data["contents"], source=p, target=p)
    assert out["contents"] == data["contents"]


def test_nova_server_tool_pairs_stay_in_the_assistant_message() -> None:
    p, data = _fixture("bedrock/nova_code_interpreter")
    tools = data["toolConfig"]
    assert msgnorm.validate(data["messages"], p, system=data["system"], tools=tools) == []
    out, report = msgnorm.convert_report(
        data["messages"], source=p, target=p, system=data["system"]
    )
    assert out["messages"] == data["messages"]
    assert report["missing_results_inserted"] == 0
    # other targets cannot replay a Nova system tool: dropped and counted, never invented
    shape, report = msgnorm.convert_report(data["messages"], source=p, target="anthropic")
    assert report["parts_dropped"] == 2 and report["missing_results_inserted"] == 0
    assert "[Tool result missing" not in json.dumps(shape)


def test_adjacent_gemini_model_contents_are_one_turn() -> None:
    p, data = _fixture("gemini/split_model_turns")
    # the request as sent: the API joins the two model contents itself
    out, report = msgnorm.convert_report(data["contents"], source=p, target=p)
    assert out["contents"] == data["contents"]
    assert report["missing_results_inserted"] == 0 and report["stray_results_removed"] == 0
    # read as records, the two contents are one turn: both calls answered by one content
    records = msgnorm.from_provider(data["contents"], p)
    out, report = msgnorm.to_provider_report(records, p)
    calls = [
        part
        for part in out["contents"][1]["parts"]
        if "function_call" in part or "functionCall" in part
    ]
    assert len(calls) == 2
    assert report["missing_results_inserted"] == 0 and report["stray_results_removed"] == 0


def test_an_assistant_first_history_gets_no_invented_turn_where_the_target_takes_it() -> None:
    history = [
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Say goodbye."},
    ]
    out, report = msgnorm.convert_report(history, source="openai-chat", target="openai-chat")
    assert out == history and report["first_user_inserted"] == 0
    bedrock = [
        {"role": "assistant", "content": [{"text": "Hello there!"}]},
        {"role": "user", "content": [{"text": "Now say goodbye."}]},
    ]
    out, report = msgnorm.convert_report(bedrock, source="bedrock", target="bedrock")
    assert out == {"messages": bedrock} and report["first_user_inserted"] == 0
    assert msgnorm.validate(bedrock, "bedrock") == []
    # Anthropic's API takes an assistant first message too (a recorded 200 on
    # claude-sonnet-4-5; its own API since late 2024): no invented turn, no rule
    out, report = msgnorm.convert_report(history, source="openai-chat", target="anthropic")
    assert report["first_user_inserted"] == 0
    assert [m["role"] for m in out["messages"]] == ["assistant", "user"]
    assert msgnorm.validate(out["messages"], "anthropic") == []
    # Gemini: a first model turn with a function call is refused, so it gets a user turn
    gem = [
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
    ]
    out, report = msgnorm.convert_report(gem, source="gemini", target="gemini")
    assert report["first_user_inserted"] == 1
    assert msgnorm.validate(out["contents"], "gemini") == []


# --------------------------------------------------------------------------
# rule edges: what a recorded 200 showed the API accepts
# --------------------------------------------------------------------------


def test_empty_gemini_text_and_an_assistant_first_anthropic_history_are_accepted() -> None:
    # recorded 200s: an empty text part (gemini-2.5-flash, gemini-3-flash-preview
    # on the Gemini API; Vertex AI has answered "empty text parameter" to it)
    # and an assistant first message (claude-sonnet-4-5)
    empty_user = [{"role": "user", "parts": [{"text": ""}]}]
    empty_model = [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"text": ""}]},
        {"role": "user", "parts": [{"text": "Still there?"}]},
    ]
    for contents in (empty_user, empty_model):
        assert msgnorm.validate(contents, "gemini") == []
    assistant_first = [
        {"role": "assistant", "content": [{"type": "text", "text": "Hello, how can I help?"}]},
        {"role": "user", "content": [{"type": "text", "text": "Say goodbye."}]},
    ]
    assert msgnorm.validate(assistant_first, "anthropic") == []
    out, report = msgnorm.convert_report(assistant_first, source="anthropic", target="anthropic")
    assert out["messages"] == assistant_first and report["first_user_inserted"] == 0


def test_responses_outputs_that_continue_a_stored_response_or_answer_a_tool_search() -> None:
    # recorded 200s: a request with previous_response_id (or a conversation)
    # whose input starts with the outputs of the stored response's calls, and
    # a client tool_search_call answered by a function_call_output
    continuation = [
        {"type": "function_call_output", "call_id": "call_1", "output": "Sunny, 72F"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    assert msgnorm.validate(continuation, "openai-responses") == []
    # a stateless request has no stored response to continue
    (v,) = msgnorm.validate(continuation, "openai-responses", store=False)
    assert v.rule == "openai-responses/function-call-output-without-call"
    # an output after other items still needs its call
    late = [continuation[1], continuation[0]]
    (v,) = msgnorm.validate(late, "openai-responses")
    assert v.rule == "openai-responses/function-call-output-without-call" and v.index == 1
    search = [
        {"role": "user", "content": "Find the exchange-rate tool."},
        {
            "type": "tool_search_call",
            "call_id": "search_call_1",
            "execution": "client",
            "status": "completed",
            "arguments": {"queries": ["exchange rate"]},
        },
        {"type": "function_call_output", "call_id": "search_call_1", "output": "Found one."},
    ]
    assert msgnorm.validate(search, "openai-responses") == []


def test_anthropic_joins_adjacent_messages_of_one_role_for_tool_pairing() -> None:
    # two assistant messages, each with a call, answered by one user message
    history = [
        {"role": "user", "content": "Refund order 123?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Loading the policy."},
                {"type": "tool_use", "id": "toolu_01", "name": "load", "input": {}},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "auto_1", "name": "search", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "30 days"},
                {"type": "tool_result", "tool_use_id": "auto_1", "content": "found"},
            ],
        },
    ]
    assert msgnorm.validate(history, "anthropic") == []
    # a result still missing from the joined user turn is named
    broken = [*history[:3], {**history[3], "content": history[3]["content"][:1]}]
    assert [v.rule for v in msgnorm.validate(broken, "anthropic")] == [
        "anthropic/tool-use-without-result"
    ]


def test_gemini_responses_split_over_user_contents_answer_one_call_turn() -> None:
    call = {"functionCall": {"name": "f", "args": {}}}
    response = {"functionResponse": {"name": "f", "response": {"ok": True}}}
    history = [
        {"role": "user", "parts": [{"text": "twice"}]},
        {"role": "model", "parts": [call, call]},
        {"role": "user", "parts": [response]},
        {"role": "user", "parts": [response, {"text": "and now?"}]},
    ]
    assert msgnorm.validate(history, "gemini") == []
    # one response short over the joined user turn is still named
    short = [*history[:3], {"role": "user", "parts": [{"text": "and now?"}]}]
    assert [v.rule for v in msgnorm.validate(short, "gemini")] == ["gemini/function-response-count"]


def test_bedrock_blank_text_alone_is_refused_and_beside_text_accepted() -> None:
    alone = [{"role": "user", "content": [{"text": " "}]}]
    assert [v.rule for v in msgnorm.validate(alone, "bedrock")] == ["bedrock/blank-text"]
    empty = [{"role": "user", "content": [{"text": "a"}, {"text": ""}]}]
    assert [v.path for v in msgnorm.validate(empty, "bedrock")] == ["messages[0].content[1].text"]
    beside = [{"role": "user", "content": [{"text": "doc:"}, {"text": "\n"}, {"text": "question"}]}]
    assert msgnorm.validate(beside, "bedrock") == []


def test_bedrock_server_tool_results_are_not_turn_results() -> None:
    p, data = _fixture("bedrock/nova_code_interpreter")
    messages = copy.deepcopy(data["messages"])
    # the client call still needs its result in the next message
    messages[2]["content"] = messages[2]["content"][1:]
    found = msgnorm.validate(messages, p, tools=data["toolConfig"])
    assert [(v.rule, v.index) for v in found] == [("bedrock/tool-use-without-result", 2)]
    assert "tooluse_nv2nO8pQ9rS0tU1vW2xY3z" in found[0].message
    assert "tooluse_nv1aB2cD3eF4gH5iJ6kL7m" not in found[0].message


# --------------------------------------------------------------------------
# the replay property over generated accepted histories
# --------------------------------------------------------------------------

ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=4, max_size=12)
texts = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=20,
)


@st.composite
def turns(draw: st.DrawFn) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(user text, [(call id, tool name, result text), ...])]: a question and
    the calls made for it (none, one or parallel), ids unique per turn."""
    n = draw(st.integers(1, 4))
    out = []
    for _ in range(n):
        k = draw(st.integers(0, 3))
        call_ids = draw(st.lists(ids, min_size=k, max_size=k, unique=True))
        calls = [
            (i, draw(st.sampled_from(["lookup", "read_file", "get_weather"])), draw(texts))
            for i in call_ids
        ]
        out.append((draw(texts), calls))
    return out


def _build(p: str, plan: list[tuple[str, list[tuple[str, str, str]]]]) -> list[Any]:
    """A history of ``plan`` in ``p``'s shape. Anthropic and OpenAI histories
    may reuse a tool id in a later turn (their APIs pair a result with the
    message before it); Gemini and Bedrock ids are unique in the history."""
    msgs: list[Any] = []
    if p in ("gemini", "bedrock"):
        plan = [(q, [(f"{i}_{t}", n, r) for i, n, r in calls]) for t, (q, calls) in enumerate(plan)]
    for question, calls in plan:
        if p == "anthropic":
            msgs.append({"role": "user", "content": question})
            if calls:
                msgs.append(
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": {}}
                            for i, n, _ in calls
                        ],
                    }
                )
                msgs.append(
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": r}
                            for i, _, r in calls
                        ],
                    }
                )
            msgs.append(
                {"role": "assistant", "content": [{"type": "text", "text": "done " + question}]}
            )
        elif p == "openai-chat":
            msgs.append({"role": "user", "content": question})
            if calls:
                msgs.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": n, "arguments": "{}"},
                            }
                            for i, n, _ in calls
                        ],
                    }
                )
                msgs.extend(
                    {"role": "tool", "tool_call_id": f"call_{i}", "content": r} for i, _, r in calls
                )
            msgs.append({"role": "assistant", "content": "done " + question})
        elif p == "openai-responses":
            msgs.append({"type": "message", "role": "user", "content": question})
            msgs.extend(
                {"type": "function_call", "call_id": f"call_{i}", "name": n, "arguments": "{}"}
                for i, n, _ in calls
            )
            msgs.extend(
                {"type": "function_call_output", "call_id": f"call_{i}", "output": r}
                for i, _, r in calls
            )
            msgs.append({"type": "message", "role": "assistant", "content": "done " + question})
        elif p == "gemini":
            msgs.append({"role": "user", "parts": [{"text": question}]})
            if calls:
                msgs.append(
                    {
                        "role": "model",
                        "parts": [
                            {"function_call": {"id": i, "name": n, "args": {}}} for i, n, _ in calls
                        ],
                    }
                )
                msgs.append(
                    {
                        "role": "user",
                        "parts": [
                            {"function_response": {"id": i, "name": n, "response": {"text": r}}}
                            for i, n, r in calls
                        ],
                    }
                )
            msgs.append({"role": "model", "parts": [{"text": "done " + question}]})
        else:
            msgs.append({"role": "user", "content": [{"text": question}]})
            if calls:
                msgs.append(
                    {
                        "role": "assistant",
                        "content": [
                            {"toolUse": {"toolUseId": f"tooluse_{i}", "name": n, "input": {}}}
                            for i, n, _ in calls
                        ],
                    }
                )
                msgs.append(
                    {
                        "role": "user",
                        "content": [
                            {"toolResult": {"toolUseId": f"tooluse_{i}", "content": [{"text": r}]}}
                            for i, _, r in calls
                        ],
                    }
                )
            msgs.append({"role": "assistant", "content": [{"text": "done " + question}]})
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(p=st.sampled_from(PROVIDERS), plan=turns())
def test_generated_accepted_histories_are_a_fixed_point(p: str, plan: list[Any]) -> None:
    messages = _build(p, plan)
    tools = {
        "tools": [{"toolSpec": {"name": "lookup", "inputSchema": {"json": {"type": "object"}}}}]
    }
    assert msgnorm.validate(messages, p, tools=tools if p == "bedrock" else None) == []
    out, report = msgnorm.convert_report(messages, source=p, target=p)
    got, _ = _unpack(p, out)
    assert got == messages
    assert {k: report[k] for k in LOSSES if report.get(k)} == {}


def test_an_anthropic_tool_id_reused_by_a_later_turn_keeps_both_calls() -> None:
    def turn(q: str, r: str) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": q},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "0usajhl5", "name": "f", "input": {"q": q}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "0usajhl5", "content": r}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": r}]},
        ]

    history = [*turn("a", "A"), *turn("b", "B")]
    assert msgnorm.validate(history, "anthropic") == []
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert out == {"messages": history}
    assert report["duplicate_tool_uses_removed"] == 0 and report["missing_results_inserted"] == 0
    # a target that wants unique ids gets the later call renamed, its result with it
    bedrock = msgnorm.convert(history, source="anthropic", target="bedrock")["messages"]
    uses = [b["toolUse"]["toolUseId"] for m in bedrock for b in m["content"] if "toolUse" in b]
    results = [
        b["toolResult"]["toolUseId"] for m in bedrock for b in m["content"] if "toolResult" in b
    ]
    assert uses == results and len(set(uses)) == 2


def test_a_bedrock_tool_id_with_dots_and_colons_comes_back_as_sent() -> None:
    # Kimi on Bedrock names its calls `functions.<name>:<n>`; the service model
    # takes [a-zA-Z0-9_.:-]+ (a recorded 200)
    history = [
        {"role": "user", "content": [{"text": "Temperature in Oslo?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "toolUse": {
                        "toolUseId": "functions.get_temperature:0",
                        "name": "get_temperature",
                        "input": {},
                    }
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "functions.get_temperature:0",
                        "content": [{"text": "4C"}],
                    }
                }
            ],
        },
    ]
    tools = {
        "tools": [
            {"toolSpec": {"name": "get_temperature", "inputSchema": {"json": {"type": "object"}}}}
        ]
    }
    assert msgnorm.validate(history, "bedrock", tools=tools) == []
    out, report = msgnorm.convert_report(history, source="bedrock", target="bedrock")
    assert out == {"messages": history} and report.get("ids_rewritten", 0) == 0
    # Anthropic's pattern has no `.` or `:`: the id is rewritten there, the pair kept
    shape = msgnorm.convert(history, source="bedrock", target="anthropic")
    use, result = shape["messages"][1]["content"][0], shape["messages"][2]["content"][0]
    assert use["id"] == result["tool_use_id"] and "." not in use["id"]
