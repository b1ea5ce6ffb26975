"""Repairs step by step (docs/PROVIDERS.md, "Repairs only where the target
needs them"; docs/SPEC.md, the convert paragraph): ``convert(x, p, p)`` of a
request that breaks some of the rules msgnorm repairs runs the SPEC §4 steps
those rules name and no other. A request that breaks one rule comes back with
that rule's repair and is otherwise the request as it came (adjacent user
messages the provider takes stay apart: no user merge, no seam newline), and
the report counts each step that ran (``step_<name>``).

Every history here is written for this test; each breaks the one rule named
(the provider's error text is docs/RULES.md's)."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest
from msgnorm.provider_rules import rules
from support.anthropic_blocks import A, U

# -- building blocks ------------------------------------------------------------------


def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def tool_use(i: str, name: str = "f") -> dict[str, Any]:
    return {"type": "tool_use", "id": i, "name": name, "input": {}}


def tool_result(i: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": content}


MISSING = "[Tool result missing due to internal error]"

# two user messages in a row: Anthropic, OpenAI Chat and Responses take them
# (SPEC §4 step 4 would merge them with a newline seam)
U1 = U("Part one,")
U2 = U("part two.")
A_SURE = A([text("Sure.")])


def call(i: str, name: str = "f") -> dict[str, Any]:
    return {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}


def calls(*c: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(c)}


def tool(i: str, content: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": i, "content": content}


R_SURE = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Sure."}],
}


def fc(i: str, name: str = "f") -> dict[str, Any]:
    return {"type": "function_call", "call_id": i, "name": name, "arguments": "{}"}


def fco(i: str, output: str = "ok") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": i, "output": output}


def g_user(s: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": s}]}


G_SURE = {"role": "model", "parts": [{"text": "Sure."}]}


def g_call(name: str = "f", signed: bool = True) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": {}}}
    if signed:
        part["thoughtSignature"] = "c2ln"
    return part


def g_resp(name: str = "f") -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"ok": True}}}


def b_user(s: str) -> dict[str, Any]:
    return U([{"text": s}])


def b_said(s: str) -> dict[str, Any]:
    return A([{"text": s}])


def b_use(i: str, name: str = "f") -> dict[str, Any]:
    return {"toolUse": {"toolUseId": i, "name": name, "input": {}}}


def b_result(i: str) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": i, "content": [{"text": "ok"}]}}


def b_uses(*blocks: dict[str, Any]) -> dict[str, Any]:
    return A(list(blocks))


def b_results(*blocks: dict[str, Any]) -> dict[str, Any]:
    return U(list(blocks))


CACHED = {"cache_control": {"type": "ephemeral"}}

# -- the cases: (provider, rule, request, what convert gives, the steps run) ---------

Case = tuple[str, str, list[dict[str, Any]], list[dict[str, Any]], set[str]]

CASES: list[Case] = [
    # Anthropic
    (
        "anthropic",
        "anthropic/empty-content",
        [U1, U2, A([]), U("again")],
        [U1, U2, A([text("(no content)")]), U("again")],
        {"hygiene", "empty_content"},
    ),
    (
        "anthropic",
        "anthropic/tool-use-without-result",
        [U1, U2, A([tool_use("t1")]), U("never mind")],
        [
            U1,
            U2,
            A([tool_use("t1")]),
            U(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": MISSING,
                        "is_error": True,
                    },
                    text("never mind"),
                ]
            ),
        ],
        {"tool_pairing"},
    ),
    (
        "anthropic",
        "anthropic/tool-result-not-first",
        [U1, A([tool_use("t1")]), U([text("here:"), tool_result("t1")])],
        [U1, A([tool_use("t1")]), U([tool_result("t1"), text("here:")])],
        {"fold", "tool_pairing"},
    ),
    (
        "anthropic",
        "anthropic/tool-result-without-use",
        [U1, U2, A_SURE, U([tool_result("gone"), text("more")])],
        [U1, U2, A_SURE, U([text("more")])],
        {"tool_pairing"},
    ),
    (
        "anthropic",
        "anthropic/empty-text",
        [U1, U2, A_SURE, U([text("Hi"), text("")])],
        [U1, U2, A_SURE, U([text("Hi")])],
        {"hygiene", "empty_content"},
    ),
    (
        "anthropic",
        "anthropic/whitespace-text",
        # the blank text is the whole reply: step 9 fills it
        [U1, U2, A([text(" ")]), U("again")],
        [U1, U2, A([text("(no content)")]), U("again")],
        {"hygiene", "empty_content"},
    ),
    (
        "anthropic",
        "anthropic/final-assistant-trailing-whitespace",
        [U1, U2, A([text("Sure.  ")])],
        [U1, U2, A([text("Sure.")])],
        {"final_assistant"},
    ),
    (
        "anthropic",
        "anthropic/thinking-final-block",
        [
            U1,
            U2,
            A(
                [
                    {"type": "thinking", "thinking": "a", "signature": "s1"},
                    text("Answer."),
                    {"type": "thinking", "thinking": "b", "signature": "s2"},
                ]
            ),
        ],
        [U1, U2, A([{"type": "thinking", "thinking": "a", "signature": "s1"}, text("Answer.")])],
        {"final_assistant"},
    ),
    (
        "anthropic",
        "anthropic/tool-name-pattern",
        [U1, U2, A([tool_use("t1", "get weather")]), U([tool_result("t1")])],
        [
            U1,
            U2,
            A([tool_use("t1", msgnorm.tool_name("get weather", "anthropic"))]),
            U([tool_result("t1")]),
        ],
        set(),
    ),
    (
        "anthropic",
        "anthropic/cache-control-limit",
        [U1, U2]
        + [
            {"role": role, "content": [{**text(f"m{i}"), **CACHED}]}
            for i, role in enumerate(["user", "assistant", "user", "assistant", "user"])
        ],
        [U1, U2, U([text("m0")])]
        + [
            {"role": role, "content": [{**text(f"m{i}"), **CACHED}]}
            for i, role in enumerate(["user", "assistant", "user", "assistant", "user"])
            if i > 0
        ],
        set(),
    ),
    (
        "anthropic",
        "anthropic/server-tool-result-without-use",
        [
            U1,
            U2,
            A(
                [
                    text("Found."),
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
                ]
            ),
            U("thanks"),
        ],
        [U1, U2, A([text("Found.")]), U("thanks")],
        {"assistant_cleanup"},
    ),
    # OpenAI Chat
    (
        "openai-chat",
        "openai-chat/content-null",
        [U1, U2, A(None), U("again")],
        [U1, U2, A("(no content)"), U("again")],
        {"hygiene", "empty_content"},
    ),
    (
        "openai-chat",
        "openai-chat/tool-calls-without-response",
        [U1, U2, calls(call("c1")), U("never mind")],
        # the result goes first in the next turn (step 6): the user text after it
        [U1, U2, calls(call("c1")), tool("c1", MISSING), U([text("never mind")])],
        {"tool_pairing"},
    ),
    (
        "openai-chat",
        "openai-chat/tool-without-tool-calls",
        # the orphan result was the whole turn: step 6 leaves it `(no content)`
        [U1, U2, A("Sure."), tool("c9"), U("more")],
        [U1, U2, A("Sure."), U([text("(no content)")]), U("more")],
        {"tool_pairing"},
    ),
    (
        "openai-chat",
        "openai-chat/tool-call-id-not-found",
        [U1, U2, calls(call("c1")), tool("c1"), tool("c2")],
        [U1, U2, calls(call("c1")), tool("c1")],
        {"tool_pairing"},
    ),
    (
        "openai-chat",
        "openai-chat/duplicate-tool-response",
        [U1, U2, calls(call("c1")), tool("c1"), tool("c1", "again")],
        [U1, U2, calls(call("c1")), tool("c1")],
        {"tool_pairing"},
    ),
    (
        "openai-chat",
        "openai-chat/tool-call-id-length",
        [U1, U2, calls(call("c" * 50)), tool("c" * 50)],
        # the same 40-character id for the call and its result
        [U1, U2, calls(call("c" * 31 + "_b03569d8")), tool("c" * 31 + "_b03569d8")],
        set(),
    ),
    (
        "openai-chat",
        "openai-chat/function-name-pattern",
        [U1, U2, calls(call("c1", "get weather")), tool("c1")],
        [U1, U2, calls(call("c1", msgnorm.tool_name("get weather", "openai-chat"))), tool("c1")],
        set(),
    ),
    # OpenAI Responses
    (
        "openai-responses",
        "openai-responses/function-call-output-without-call",
        [U1, U2, R_SURE, fco("gone"), U("more")],
        [
            U1,
            U2,
            R_SURE,
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "(no content)"}],
            },
            U("more"),
        ],
        {"tool_pairing"},
    ),
    (
        "openai-responses",
        "openai-responses/function-call-without-output",
        [U1, U2, fc("c1"), U("never mind")],
        [U1, U2, fc("c1"), fco("c1", MISSING), U([{"type": "input_text", "text": "never mind"}])],
        {"tool_pairing"},
    ),
    (
        "openai-responses",
        "openai-responses/client-only-item",
        [U1, U2, {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}, R_SURE],
        [U1, U2, R_SURE],
        set(),
    ),
    (
        "openai-responses",
        "openai-responses/tool-call-without-output",
        [
            U1,
            U2,
            {"type": "custom_tool_call", "call_id": "k1", "name": "g", "input": "x"},
            U("never mind"),
        ],
        [
            U1,
            U2,
            {"type": "custom_tool_call", "call_id": "k1", "name": "g", "input": "x"},
            {"type": "custom_tool_call_output", "call_id": "k1", "output": MISSING},
            U("never mind"),
        ],
        set(),
    ),
    (
        "openai-responses",
        "openai-responses/tool-output-without-call",
        [U1, U2, R_SURE, {"type": "custom_tool_call_output", "call_id": "k9", "output": "x"}],
        [U1, U2, R_SURE],
        set(),
    ),
    (
        "openai-responses",
        "openai-responses/reasoning-without-following",
        [
            U1,
            U2,
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            U("more"),
        ],
        [U1, U2, U("more")],
        set(),
    ),
    (
        "openai-responses",
        "openai-responses/function-name-pattern",
        [U1, U2, fc("c1", "get weather"), fco("c1")],
        [U1, U2, fc("c1", msgnorm.tool_name("get weather", "openai-responses")), fco("c1")],
        set(),
    ),
    (
        "openai-responses",
        "openai-responses/compaction-trigger-last",
        [U1, {"type": "compaction_trigger"}, U2],
        [U1, U2, {"type": "compaction_trigger"}],
        set(),
    ),
    # Gemini (the writer joins adjacent contents of one role, as the API
    # does: these histories alternate)
    (
        "gemini",
        "gemini/empty-parts",
        [g_user("Hi"), {"role": "model", "parts": []}, g_user("again")],
        [g_user("Hi"), {"role": "model", "parts": [{"text": "(no content)"}]}, g_user("again")],
        {"hygiene", "empty_content"},
    ),
    (
        "gemini",
        "gemini/function-call-placement",
        [{"role": "model", "parts": [g_call()]}, {"role": "user", "parts": [g_resp()]}],
        [
            g_user("(no content)"),
            {"role": "model", "parts": [g_call()]},
            {"role": "user", "parts": [g_resp()]},
        ],
        {"fold", "user_first"},
    ),
    (
        "gemini",
        "gemini/function-response-placement",
        [g_user("Hi"), G_SURE, {"role": "user", "parts": [g_resp(), {"text": "more"}]}],
        [g_user("Hi"), G_SURE, g_user("more")],
        {"tool_pairing"},
    ),
    # Bedrock (it refuses two user messages in a row: these alternate)
    (
        "bedrock",
        "bedrock/roles-alternate",
        [b_user("Part one,"), b_user("part two."), b_said("Sure.")],
        [U([{"text": "Part one,\n"}, {"text": "part two."}]), b_said("Sure.")],
        {"fold"},
    ),
    (
        "bedrock",
        "bedrock/empty-content",
        [b_user("Hi"), A([]), b_user("again")],
        [b_user("Hi"), b_said("(no content)"), b_user("again")],
        {"hygiene", "final_assistant", "empty_content"},
    ),
    (
        "bedrock",
        "bedrock/blank-text",
        [b_user("Hi"), b_said(" "), b_user("again")],
        [b_user("Hi"), b_said("(no content)"), b_user("again")],
        {"hygiene", "final_assistant", "empty_content"},
    ),
    (
        "bedrock",
        "bedrock/tool-use-without-result",
        [b_user("Hi"), b_uses(b_use("t1")), b_user("never mind")],
        [
            b_user("Hi"),
            b_uses(b_use("t1")),
            b_results(
                {
                    "toolResult": {
                        "toolUseId": "t1",
                        "content": [{"text": MISSING}],
                        "status": "error",
                    }
                },
                {"text": "never mind"},
            ),
        ],
        {"tool_pairing"},
    ),
    (
        "bedrock",
        "bedrock/tool-result-count",
        [b_user("Hi"), b_uses(b_use("t1")), b_results(b_result("t1"), b_result("t9"))],
        [b_user("Hi"), b_uses(b_use("t1")), b_results(b_result("t1"))],
        {"tool_pairing"},
    ),
    (
        "bedrock",
        "bedrock/duplicate-tool-use-id",
        [b_user("Hi"), b_uses(b_use("t1"), b_use("t1")), b_results(b_result("t1"))],
        [b_user("Hi"), b_uses(b_use("t1")), b_results(b_result("t1"))],
        {"assistant_cleanup"},
    ),
    (
        "bedrock",
        "bedrock/tool-use-id-pattern",
        [b_user("Hi"), b_uses(b_use("t$1")), b_results(b_result("t$1"))],
        [b_user("Hi"), b_uses(b_use("t1_8537fd50")), b_results(b_result("t1_8537fd50"))],
        set(),
    ),
    (
        "bedrock",
        "bedrock/tool-name-pattern",
        [b_user("Hi"), b_uses(b_use("t1", "get weather")), b_results(b_result("t1"))],
        [
            b_user("Hi"),
            b_uses(b_use("t1", msgnorm.tool_name("get weather", "bedrock"))),
            b_results(b_result("t1")),
        ],
        set(),
    ),
]

# Repaired rules with no case here, and why.
NO_CASE = {
    # from_provider refuses a role the API refuses (InvalidRecordError): no
    # request reaches the steps with it
    "anthropic/invalid-role": "the reader refuses it",
    # from_provider gives a call that repeats an id in its own message a new
    # record id (as for an id a later turn reuses), so step 5 does not see the
    # repeat and the writer writes both back: not repaired by convert(x, p, p),
    # with or without the whole of SPEC §4
    "anthropic/tool-use-unique": "not repaired on a same-provider convert",
    # it checks the tool declarations (`tools=`), which convert does not take
    "gemini/function-name": "a tools= rule",
    # answered both ways: a duplicate result for an id is also one more result
    # than calls (the two rules fire together; the case below)
    "bedrock/duplicate-tool-result-id": "fires with bedrock/tool-result-count",
    # a repeat answered by one result: covered with more calls than results
    "gemini/function-response-count": "the case below",
    # store=False rules: the cases below
    "openai-responses/item-not-stored": "store=False",
    "openai-responses/function-call-without-reasoning": "store=False",
    "openai-responses/item-without-reasoning": "store=False",
    "openai-responses/mcp-approval-response-without-request": "store=False",
    "openai-responses/duplicate-item-id": "the case below",
}


def repaired(messages: list[dict[str, Any]], provider: str, **kw: Any) -> list[str]:
    """The rules msgnorm repairs that ``messages`` break (Bedrock's tool
    configuration rule is not one)."""
    found = msgnorm.validate(messages, provider, **kw)
    return sorted({v.rule for v in found if not v.repair.startswith("none")})


def steps_run(report: dict[str, int]) -> set[str]:
    return {k.removeprefix("step_") for k, n in report.items() if k.startswith("step_") and n}


def messages_of(out: Any) -> list[dict[str, Any]]:
    if isinstance(out, list):
        return out
    found: list[dict[str, Any]] = out.get("messages", out.get("contents"))
    return found


def test_every_repaired_rule_has_a_case_or_a_reason() -> None:
    every = {r["rule"] for r in rules() if not r["repair"].startswith("none")}
    covered = {rule for _, rule, *_ in CASES}
    assert covered | set(NO_CASE) == every
    assert not covered & set(NO_CASE)


@pytest.mark.parametrize(
    ("provider", "rule", "request_", "want", "steps"), CASES, ids=[c[1] for c in CASES]
)
def test_a_request_breaking_one_rule_gets_that_repair_only(
    provider: str,
    rule: str,
    request_: list[dict[str, Any]],
    want: list[dict[str, Any]],
    steps: set[str],
) -> None:
    assert repaired(request_, provider) == [rule]
    out, report = msgnorm.convert_report(request_, source=provider, target=provider)
    got = messages_of(out)
    assert got == want
    assert steps_run(report) == steps
    assert "steps_fallback" not in report
    assert repaired(got, provider) == []


def test_a_request_breaking_two_rules_gets_both_repairs() -> None:
    request_ = [
        U1,
        U2,
        A([tool_use("t1")]),
        U([text("never mind"), text(" ")]),
        A([text("Sure.  ")]),
    ]
    assert repaired(request_, "anthropic") == [
        "anthropic/final-assistant-trailing-whitespace",
        "anthropic/tool-use-without-result",
        "anthropic/whitespace-text",
    ]
    out, report = msgnorm.convert_report(request_, source="anthropic", target="anthropic")
    assert out["messages"] == [
        U1,
        U2,
        A([tool_use("t1")]),
        U(
            [
                {"type": "tool_result", "tool_use_id": "t1", "content": MISSING, "is_error": True},
                text("never mind"),
            ]
        ),
        A([text("Sure.")]),
    ]
    assert steps_run(report) == {"tool_pairing", "hygiene", "empty_content", "final_assistant"}
    assert report["users_merged"] == 0
    assert report["missing_results_inserted"] == 1 and report["blank_texts_removed"] == 1


def test_results_and_calls_that_disagree_in_number() -> None:
    # Bedrock: a result repeated for one use breaks both result rules
    bedrock = [b_user("Hi"), b_uses(b_use("t1")), b_results(b_result("t1"), b_result("t1"))]
    assert repaired(bedrock, "bedrock") == [
        "bedrock/duplicate-tool-result-id",
        "bedrock/tool-result-count",
    ]
    out, report = msgnorm.convert_report(bedrock, source="bedrock", target="bedrock")
    assert out["messages"] == [b_user("Hi"), b_uses(b_use("t1")), b_results(b_result("t1"))]
    assert steps_run(report) == {"tool_pairing"}
    # Gemini: two calls answered once; the missing response is inserted
    gemini = [
        g_user("Hi"),
        {"role": "model", "parts": [g_call(), g_call("g", False)]},
        {"role": "user", "parts": [g_resp()]},
    ]
    assert repaired(gemini, "gemini") == ["gemini/function-response-count"]
    out, report = msgnorm.convert_report(gemini, source="gemini", target="gemini")
    got = out["contents"]
    assert got[:2] == gemini[:2]
    assert [p["functionResponse"]["name"] for p in got[2]["parts"]] == ["g", "f"]
    assert got[2]["parts"][0]["functionResponse"]["response"] == {"error": MISSING}
    assert steps_run(report) == {"tool_pairing"}
    assert repaired(got, "gemini") == []


def test_a_repeated_item_id_is_dropped_and_nothing_else() -> None:
    # Responses: a function call repeated with its item id (the reader reads
    # the repeat as a new call of the same call_id, answered by the output)
    request_ = [U1, U2, {**fc("c1"), "id": "fc_1"}, {**fc("c1"), "id": "fc_1"}, fco("c1")]
    assert repaired(request_, "openai-responses") == ["openai-responses/duplicate-item-id"]
    out, report = msgnorm.convert_report(
        request_, source="openai-responses", target="openai-responses"
    )
    assert out == [U1, U2, {**fc("c1"), "id": "fc_1"}, fc("c1"), fco("c1")]
    assert report["item_ids_dropped"] == 1
    assert steps_run(report) == {"assistant_cleanup"}
    assert report["users_merged"] == 0
    assert repaired(out, "openai-responses") == []


def test_stateless_rules_are_the_writers_alone() -> None:
    request_ = [
        U1,
        U2,
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {**R_SURE, "id": "msg_1"},
        U("more"),
    ]
    assert repaired(request_, "openai-responses", store=False) == [
        "openai-responses/item-not-stored"
    ]
    out, report = msgnorm.convert_report(
        request_, source="openai-responses", target="openai-responses", store=False
    )
    assert out[:2] == [U1, U2]
    assert not any(i.get("type") == "reasoning" for i in out)
    assert steps_run(report) == set()
    assert report["reasoning_dropped"] == 1


def test_normalize_for_api_still_runs_every_step() -> None:
    # the same request as records: SPEC §4 as written (the user merge included)
    request_ = [U1, U2, A([tool_use("t1")]), U("never mind")]
    records = msgnorm.from_provider(request_, "anthropic")
    out = msgnorm.normalize_for_api(records)
    assert [r["type"] for r in out] == ["user", "assistant", "user"]
    assert out[0]["message"]["content"] == [text("Part one,\n"), text("part two.")]


def test_steps_that_leave_a_rule_broken_give_way_to_the_whole_pipeline() -> None:
    # a blank assistant string: step 7 cleans user strings and block lists,
    # and only step 4 makes this string a block list; the rule still fires on
    # what steps 7 and 9 alone write, so the whole of SPEC §4 runs instead
    request_ = [U("hi"), A("  "), U("x")]
    assert repaired(request_, "anthropic") == ["anthropic/whitespace-text"]
    out, report = msgnorm.convert_report(request_, source="anthropic", target="anthropic")
    assert report["steps_fallback"] == 1
    assert steps_run(report) == set()
    whole = msgnorm.to_provider(msgnorm.from_provider(request_, "anthropic"), "anthropic")
    assert out == whole
    assert report["thinking_only_dropped"] == 1 and report["users_merged"] == 1
    assert repaired(out["messages"], "anthropic") == []


def test_tool_messages_of_one_turn_are_answered_together() -> None:
    # OpenAI Chat sends each result as its own message: step 6 reads the
    # results of one turn as one (the user messages around them stay apart)
    request_ = [
        U1,
        U2,
        calls(call("c1")),
        U("never mind"),
        calls(call("c2"), call("c3")),
        tool("c2"),
        tool("c3"),
        U("thanks"),
    ]
    assert repaired(request_, "openai-chat") == ["openai-chat/tool-calls-without-response"]
    out, report = msgnorm.convert_report(request_, source="openai-chat", target="openai-chat")
    assert out == [
        U1,
        U2,
        calls(call("c1")),
        tool("c1", MISSING),
        U([text("never mind")]),
        calls(call("c2"), call("c3")),
        tool("c2"),
        tool("c3"),
        U("thanks"),
    ]
    assert report["missing_results_inserted"] == 1
    assert steps_run(report) == {"tool_pairing"}
