"""Nothing lost: requests the providers accepted come back from
``convert(x, source=p, target=p)`` unchanged, every target keeps every call,
result, signature, cache breakpoint and system text, and ``validate`` names
nothing on them (docs/PROVIDERS.md, "What is kept")."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgnorm
import pytest
from support.anthropic_blocks import STU, A, T, U

TARGETS = ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")


def _calls_and_results(out: Any) -> tuple[list[str], list[str]]:
    """The tool call ids and result ids of any target's output, in order."""
    calls: list[str] = []
    results: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            t = x.get("type")
            if t == "tool_use" or t == "function_call":
                calls.append(x.get("id") if t == "tool_use" else x["call_id"])
            elif t == "tool_result":
                results.append(x["tool_use_id"])
            elif t == "function_call_output":
                results.append(x["call_id"])
            elif x.get("role") == "tool":
                results.append(x["tool_call_id"])
            for k, v in x.items():
                if k == "tool_calls":
                    calls.extend(c["id"] for c in v)
                elif k in ("toolUse", "function_call", "functionCall") and isinstance(v, dict):
                    calls.append(v.get("toolUseId") or v.get("id"))
                elif k in ("toolResult", "function_response", "functionResponse"):
                    results.append(v.get("toolUseId") or v.get("id"))
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(out)
    return calls, results


# --------------------------------------------------------------------------
# tool ids reused in a later turn
# --------------------------------------------------------------------------


def _chat_call(id_: str, args: str = "{}") -> dict[str, Any]:
    return {"id": id_, "type": "function", "function": {"name": "lookup", "arguments": args}}


CHAT_REUSED: list[dict[str, Any]] = [
    {"role": "system", "content": "You look things up."},
    {"role": "user", "content": "Find a."},
    {"role": "assistant", "content": None, "tool_calls": [_chat_call("call_0", '{"q":"a"}')]},
    {"role": "tool", "tool_call_id": "call_0", "content": "A"},
    {"role": "assistant", "content": "Found a."},
    {"role": "user", "content": "Find b."},
    # the same id again in a later turn: the API pairs the tool message with the call right before it
    {"role": "assistant", "content": None, "tool_calls": [_chat_call("call_0", '{"q":"b"}')]},
    {"role": "tool", "tool_call_id": "call_0", "content": "B"},
    {"role": "assistant", "content": "Found b."},
]

RESPONSES_REUSED: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": "Find a."},
    {"type": "function_call", "call_id": "call_0", "name": "lookup", "arguments": '{"q":"a"}'},
    {"type": "function_call_output", "call_id": "call_0", "output": "A"},
    {"type": "message", "role": "assistant", "content": "Found a."},
    {"type": "message", "role": "user", "content": "Find b."},
    {"type": "function_call", "call_id": "call_0", "name": "lookup", "arguments": '{"q":"b"}'},
    {"type": "function_call_output", "call_id": "call_0", "output": "B"},
]


@pytest.mark.parametrize(
    ("source", "history"),
    [("openai-chat", CHAT_REUSED), ("openai-responses", RESPONSES_REUSED)],
)
def test_a_reused_tool_id_comes_back_unchanged(source: str, history: list[Any]) -> None:
    before = copy.deepcopy(history)
    out, report = msgnorm.convert_report(history, source=source, target=source)
    assert out == before
    assert history == before, "the input is not mutated"
    assert report["missing_results_inserted"] == 0
    assert report["orphan_results_removed"] == 0
    assert msgnorm.validate(history, source) == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("source", "history"),
    [("openai-chat", CHAT_REUSED), ("openai-responses", RESPONSES_REUSED)],
)
def test_a_reused_tool_id_keeps_both_calls_and_results(
    source: str, history: list[Any], target: str
) -> None:
    out = msgnorm.convert(history, source=source, target=target)
    text = json.dumps(out, default=str)
    for kept in ('\\"q\\": \\"a\\"', '\\"q\\": \\"b\\"'):
        assert kept.replace("\\", "").replace(" ", "") in text.replace("\\", "").replace(" ", "")
    assert "A" in text and "B" in text
    assert "interrupted" not in text.lower() and "(no content)" not in text
    calls, results = _calls_and_results(out)
    assert len(calls) == 2 and len(results) == 2, (calls, results)
    assert calls == results, "each result answers its own call"
    if target in ("anthropic", "bedrock", "gemini"):
        # these targets want unique ids: the later call is renamed, deterministically
        assert calls[0] != calls[1]
        again = msgnorm.convert(history, source=source, target=target)
        assert _calls_and_results(again) == (calls, results)
        # stable as the history grows: the prefix keeps its ids (and the prompt cache)
        longer = msgnorm.convert(history[:-1], source=source, target=target)
        assert _calls_and_results(longer)[0] == calls


@pytest.mark.parametrize("target", ["anthropic", "bedrock", "gemini"])
def test_unique_ids_pass_the_targets_rules(target: str) -> None:
    out = msgnorm.convert(CHAT_REUSED, source="openai-chat", target=target)
    if target == "gemini":
        found = msgnorm.validate(out["contents"], target, system=out.get("system_instruction"))
    else:
        tools = [{"toolSpec": {"name": "lookup", "inputSchema": {"json": {"type": "object"}}}}]
        found = msgnorm.validate(
            out["messages"],
            target,
            system=out.get("system"),
            tools=tools if target == "bedrock" else None,
        )
    assert found == []


def test_a_second_response_to_the_same_pending_call_is_still_named() -> None:
    bad = [*CHAT_REUSED[:4], {"role": "tool", "tool_call_id": "call_0", "content": "again"}]
    found = msgnorm.validate(bad, "openai-chat")
    assert [v.rule for v in found] == ["openai-chat/duplicate-tool-response"]
    assert found[0].index == 4


# --------------------------------------------------------------------------
# system messages in the middle of a conversation
# --------------------------------------------------------------------------

MID_SYSTEM: list[dict[str, Any]] = [
    {"role": "user", "content": "Summarise the file."},
    {"role": "assistant", "content": [{"type": "text", "text": "It defines two classes."}]},
    {"role": "system", "content": "From now on, answer in French."},
    {"role": "user", "content": "And the tests?"},
]


def test_a_system_message_between_turns_comes_back_in_place() -> None:
    out, report = msgnorm.convert_report(
        MID_SYSTEM, source="anthropic", target="anthropic", system="Be terse."
    )
    assert out == {"system": "Be terse.", "messages": MID_SYSTEM}
    assert report["dropped"] == 0
    assert msgnorm.validate(MID_SYSTEM, "anthropic", system="Be terse.") == []


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses"])
def test_openai_targets_keep_it_in_place(target: str) -> None:
    out = msgnorm.convert(MID_SYSTEM, source="anthropic", target=target, system="Be terse.")
    roles = [m["role"] for m in out]
    assert roles == ["system", "user", "assistant", "system", "user"]
    assert "answer in French" in json.dumps(out[3])


@pytest.mark.parametrize(
    ("target", "key"), [("gemini", "system_instruction"), ("bedrock", "system")]
)
def test_gemini_and_bedrock_move_it_to_the_system_parameter(target: str, key: str) -> None:
    out, report = msgnorm.convert_report(
        MID_SYSTEM, source="anthropic", target=target, system="Be terse."
    )
    text = json.dumps(out[key])
    assert "Be terse." in text and "answer in French" in text
    assert text.index("Be terse.") < text.index("answer in French")
    assert report["system_moved"] == 1
    turns = out["contents"] if target == "gemini" else out["messages"]
    assert len(turns) == 3


def test_normalize_for_api_keeps_the_system_prompt_on_the_natural_path() -> None:
    # to_openai_chat(normalize_for_api(from_provider(x))) keeps the system text
    chat = [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}]
    records = msgnorm.normalize_for_api(msgnorm.from_provider(chat, "openai-chat"))
    assert msgnorm.to_openai_chat(records, normalize=False) == chat
    with pytest.raises(msgnorm.InvalidRecordError, match="system prompt record"):
        msgnorm.to_anthropic(records)


# --------------------------------------------------------------------------
# client-only items (Codex rollouts)
# --------------------------------------------------------------------------

GHOST = {
    "type": "ghost_snapshot",
    "ghost_commit": {"id": "9f2c", "parent": "77aa", "preexisting_untracked_files": []},
}


def test_client_only_items_are_never_sent_and_are_counted() -> None:
    history = [
        {"type": "message", "role": "user", "content": "Fix the bug."},
        GHOST,
        {"type": "message", "role": "assistant", "content": "Done."},
    ]
    for target in TARGETS:
        out, report = msgnorm.convert_report(history, source="openai-responses", target=target)
        assert "ghost_snapshot" not in json.dumps(out, default=str)
        assert report["client_only_dropped"] == 1, target
    out = msgnorm.convert(history, source="openai-responses", target="openai-responses")
    assert out == [history[0], history[2]]
    assert "(no content)" not in json.dumps(out)
    found = msgnorm.validate(history, "openai-responses")
    assert [(v.rule, v.index) for v in found] == [("openai-responses/client-only-item", 1)]
    assert msgnorm.validate(out, "openai-responses") == []


# --------------------------------------------------------------------------
# SWE-agent trajectories
# --------------------------------------------------------------------------


def _swe(ids: list[Any]) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a software engineer."},
        {"role": "user", "content": "Fix the failing test."},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [_chat_call("call_ls")],
        },
        {"role": "tool", "content": "setup.py tests/", "tool_call_ids": ids},
    ]


def test_a_swe_agent_tool_message_with_one_id_is_read_as_that_id() -> None:
    out = msgnorm.convert(_swe(["call_ls"]), source="openai-chat", target="anthropic")
    result = out["messages"][-1]["content"][0]
    assert result == {"type": "tool_result", "tool_use_id": "call_ls", "content": "setup.py tests/"}
    chat = msgnorm.convert(_swe(["call_ls"]), source="openai-chat", target="openai-chat")
    assert chat[-1] == {"role": "tool", "tool_call_id": "call_ls", "content": "setup.py tests/"}


def test_a_swe_agent_tool_message_with_more_ids_is_refused_naming_the_shape() -> None:
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[3\]\.tool_call_ids.*one id"):
        msgnorm.convert(_swe(["call_ls", "call_cat"]), source="openai-chat", target="anthropic")


# --------------------------------------------------------------------------
# a paused turn, a call in flight
# --------------------------------------------------------------------------

PAUSED: list[dict[str, Any]] = [
    U("What changed in the latest msgspec release?"),
    A([T("Let me search for that."), STU("srvtoolu_01Ab", query="msgspec release notes")]),
]

IN_FLIGHT: list[dict[str, Any]] = [
    U("List my repositories."),
    A(
        [
            {
                "type": "mcp_tool_use",
                "id": "mcptoolu_01Cd",
                "name": "list_repos",
                "server_name": "github",
                "input": {},
            }
        ]
    ),
]


@pytest.mark.parametrize("history", [PAUSED, IN_FLIGHT], ids=["pause_turn", "mcp"])
def test_a_paused_turn_comes_back_unchanged(history: list[Any]) -> None:
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert out == {"messages": history}
    assert report["unanswered_server_tool_uses_removed"] == 0
    assert msgnorm.validate(history, "anthropic") == []


def test_an_unanswered_server_use_before_the_end() -> None:
    # the API takes a server call still in flight when the turn goes on (a
    # recorded 200: a web search beside a client call, the client's result
    # next): convert sends such a request as it came
    history = [*PAUSED, {"role": "user", "content": "Never mind."}]
    assert msgnorm.validate(history, "anthropic") == []
    out, report = msgnorm.convert_report(history, source="anthropic", target="anthropic")
    assert out == {"messages": history}
    assert report["unanswered_server_tool_uses_removed"] == 0
    # where the SPEC §4 steps run (a transcript's records), step 5 removes it, counted
    records = msgnorm.from_provider(history, "anthropic")
    out, report = msgnorm.to_provider_report(records, "anthropic")
    assert "server_tool_use" not in json.dumps(out)
    assert report["unanswered_server_tool_uses_removed"] == 1


def test_a_turn_with_an_unanswered_client_call_is_not_a_paused_turn() -> None:
    # A client tool_use without its result gets one inserted after it (step 6),
    # so the record no longer ends the history: keeping its trailing server use
    # would make a second normalization remove it. It goes at once, and
    # normalize_for_api stays a fixed point.
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "Go."}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}},
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_01",
                        "name": "web_search",
                        "input": {"query": "q"},
                    },
                ],
            },
        },
    ]
    out, report = msgnorm.normalize_for_api_report(records)
    assert "server_tool_use" not in json.dumps(out)
    assert report["unanswered_server_tool_uses_removed"] == 1
    assert report["missing_results_inserted"] == 1
    assert msgnorm.normalize_for_api(out) == out


def test_a_system_prompt_of_other_blocks_is_refused_with_its_path() -> None:
    # found by the providers fuzz target: the blocks went out as Anthropic's
    # system parameter, which from_provider (and the API) refuse
    prompt = {
        "type": "system",
        "subtype": "system_prompt",
        "uuid": "s1",
        "content": [{"type": "web_search_result", "url": "https://e.x", "title": "t"}],
    }
    user = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    for p in ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock"):
        with pytest.raises(msgnorm.InvalidRecordError, match=r"records\[0\]\.content\[0\]"):
            msgnorm.to_provider([prompt, user], p)
    ok = {**prompt, "content": [{"type": "text", "text": "be brief"}]}
    assert msgnorm.to_provider([ok, user], "anthropic")["system"] == ok["content"]
