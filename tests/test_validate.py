"""msgnorm.validate: every provider rule (docs/RULES.md) on a minimal violating
history, its fixed twin, the providers' SDK types as oracles (the violations are
semantic: the SDK types accept them), and msgnorm's repair (normalize_for_api,
then to_anthropic) passing the Anthropic rules.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from hypothesis import HealthCheck, given, settings
from msgnorm import ProviderRuleError, Violation
from msgnorm.cli import main as cli_main
from support.anthropic_blocks import STU, THINK, TR, TU, A, T, U
from support.strategies import histories

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------
# builders
# --------------------------------------------------------------------------


CC = {"cache_control": {"type": "ephemeral"}}

SRV_USE = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "bash_code_execution",
    "input": {"command": "ls"},
}
SRV_RESULT = {
    "type": "bash_code_execution_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": {
        "type": "bash_code_execution_result",
        "stdout": "a.csv\n",
        "stderr": "",
        "return_code": 0,
        "content": [],
    },
}


def OU(content: Any = "hi") -> dict[str, Any]:
    return {"role": "user", "content": content}


def OCALLS(*ids: str, name: str = "get_weather", content: Any = None) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "content": content, "tool_calls": calls}


def OTOOL(id_: str | None, content: str = "sunny") -> dict[str, Any]:
    m: dict[str, Any] = {"role": "tool", "content": content}
    if id_ is not None:
        m["tool_call_id"] = id_
    return m


def RU(text: str = "hi") -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def RS(id_: str = "rs_1") -> dict[str, Any]:
    return {"type": "reasoning", "id": id_, "summary": []}


def FC(call_id: str, id_: str | None = None) -> dict[str, Any]:
    item = {"type": "function_call", "call_id": call_id, "name": "get_weather", "arguments": "{}"}
    if id_ is not None:
        item["id"] = id_
    return item


def FCO(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "sunny"}


def RSE(id_: str = "rs_1") -> dict[str, Any]:
    """A reasoning item with its encrypted content (what a stateless request replays)."""
    return {"type": "reasoning", "id": id_, "summary": [], "encrypted_content": "gAAAAenc"}


def SHC(call_id: str) -> dict[str, Any]:
    return {"type": "shell_call", "call_id": call_id, "action": {"commands": ["ls"]}}


def SHO(call_id: str) -> dict[str, Any]:
    chunk = {"stdout": "a.txt\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    return {"type": "shell_call_output", "call_id": call_id, "output": [chunk]}


def APC(call_id: str) -> dict[str, Any]:
    op = {"type": "create_file", "path": "a.txt", "diff": "+hi\n"}
    return {"type": "apply_patch_call", "call_id": call_id, "status": "completed", "operation": op}


def APO(call_id: str) -> dict[str, Any]:
    return {"type": "apply_patch_call_output", "call_id": call_id, "status": "completed"}


def IGC(id_: str) -> dict[str, Any]:
    return {"type": "image_generation_call", "id": id_, "result": "iVBORw0K", "status": "completed"}


def MREQ(id_: str) -> dict[str, Any]:
    return {
        "type": "mcp_approval_request",
        "id": id_,
        "name": "create_issue",
        "arguments": "{}",
        "server_label": "github",
    }


def MRESP(request_id: str) -> dict[str, Any]:
    return {"type": "mcp_approval_response", "approval_request_id": request_id, "approve": True}


def RA(id_: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "id": id_,
        "status": "completed",
        "content": [{"type": "output_text", "text": "done", "annotations": []}],
    }


def WSR(id_: str = "srvtoolu_01") -> dict[str, Any]:
    result = {"type": "web_search_result", "url": "https://example.com", "title": "Weather"}
    result["encrypted_content"] = "Eq0"
    return {"type": "web_search_tool_result", "tool_use_id": id_, "content": [result]}


def _alternating(n: int) -> list[dict[str, Any]]:
    return [U("q") if i % 2 == 0 else A("a") for i in range(n)]


MANY = _alternating(100_000)  # the API's limit: accepted
TOO_MANY = [*MANY, U("one more")]


def GU(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts) or [{"text": "hi"}]}


def GM(*parts: Any) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts) or [{"text": "ok"}]}


def GFC(name: str = "get_weather", sig: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": {}}}
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def GFR(name: str = "get_weather") -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"result": "sunny"}}}


def BU(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks) or [{"text": "hi"}]}


def BA(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks) or [{"text": "ok"}]}


def BTU(id_: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": id_, "name": "get_weather", "input": {}}}


def BTR(id_: str) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": id_, "content": [{"text": "sunny"}]}}


BTOOLS = {
    "tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]
}

# --------------------------------------------------------------------------
# one case per rule: (rule, bad messages, bad kwargs, index, path, good messages, good kwargs)
# --------------------------------------------------------------------------

Case = tuple[str, list[Any], dict[str, Any], "int | None", str, list[Any], dict[str, Any]]

CASES: list[Case] = [
    # Anthropic
    (
        "anthropic/invalid-role",
        [U("q"), {"role": "tool", "content": "x"}],
        {},
        1,
        "messages[1].role",
        [U("q"), A("x")],
        {},
    ),
    (
        "anthropic/empty-content",
        [U([]), A("x"), U("y")],
        {},
        0,
        "messages[0].content",
        [U("q"), A("x"), U("y")],
        {},
    ),
    (
        "anthropic/tool-use-without-result",
        [U("q"), A([TU("t1")]), U("next")],
        {},
        1,
        "messages[1].content[0]",
        [U("q"), A([TU("t1")]), U([TR("t1"), T("next")])],
        {},
    ),
    (
        "anthropic/tool-result-not-first",
        [U("q"), A([TU("t1")]), U([T("note"), TR("t1")])],
        {},
        2,
        "messages[2].content[1]",
        [U("q"), A([TU("t1")]), U([TR("t1"), T("note")])],
        {},
    ),
    (
        "anthropic/tool-result-without-use",
        [U("q"), A("a"), U([TR("t9")])],
        {},
        2,
        "messages[2].content[0]",
        [U("q"), A("a"), U("more")],
        {},
    ),
    (
        "anthropic/tool-use-unique",
        [U("q"), A([TU("t1"), TU("t1")]), U([TR("t1")])],
        {},
        1,
        "messages[1].content[1]",
        # an id reused by a later turn, once answered, is accepted (recorded 200)
        [U("q"), A([TU("t1")]), U([TR("t1")]), A([TU("t1")]), U([TR("t1")])],
        {},
    ),
    ("anthropic/empty-text", [U([T("")])], {}, 0, "messages[0].content[0]", [U([T("x")])], {}),
    (
        "anthropic/whitespace-text",
        [U([T(" \n")])],
        {},
        0,
        "messages[0].content[0]",
        [U([T("x")])],
        {},
    ),
    (
        "anthropic/final-assistant-trailing-whitespace",
        [U("q"), A([T("The answer is ")])],
        {},
        1,
        "messages[1].content[0]",
        [U("q"), A([T("The answer is")])],
        {},
    ),
    (
        "anthropic/thinking-first",
        [U("q"), A([T("a"), THINK()]), U("n")],
        {},
        1,
        "messages[1].content[0]",
        # server tool blocks the API wrote before its thinking may lead (recorded 200)
        [U("q"), A([SRV_USE, SRV_RESULT, THINK(), T("a")]), U("n")],
        {},
    ),
    (
        "anthropic/thinking-final-block",
        [U("q"), A([THINK(), T("a"), THINK()])],
        {},
        1,
        "messages[1].content[2]",
        # a thinking-only turn that is not the final message is accepted
        [U("q"), A([THINK()]), U("go on"), A([THINK(), T("a")])],
        {},
    ),
    (
        "anthropic/tool-use-id-pattern",
        [U("q"), A([TU("call.1")]), U([TR("call.1")])],
        {},
        1,
        "messages[1].content[0].tool_use.id",
        [U("q"), A([TU("call_1")]), U([TR("call_1")])],
        {},
    ),
    (
        "anthropic/tool-name-pattern",
        [U("q"), A([TU("t1", "get weather")]), U([TR("t1")])],
        {},
        1,
        "messages[1].content[0].tool_use.name",
        [U("q"), A([TU("t1")]), U([TR("t1")])],
        {},
    ),
    (
        "anthropic/tool-use-input-object",
        [U("q"), A([TU("t1", input_=["x"])]), U([TR("t1")])],
        {},
        1,
        "messages[1].content[0].tool_use.input",
        [U("q"), A([TU("t1")]), U([TR("t1")])],
        {},
    ),
    (
        "anthropic/cache-control-limit",
        [U([T(c, **CC) for c in "abcde"])],
        {},
        0,
        "messages[0].content[4].cache_control",
        [U([T(c, **CC) for c in "abcd"] + [T("e")])],
        {},
    ),
    (
        "anthropic/server-tool-result-without-use",
        [U("q"), A([WSR(), T("found it")]), U("n")],
        {},
        1,
        "messages[1].content[0]",
        # the use in the adjacent assistant message before it: one turn for the API
        [U("q"), A([STU()]), A([WSR(), T("found it")]), U("n")],
        {},
    ),
    (
        "anthropic/server-tool-use-id-pattern",
        [U("q"), A([STU("toolu_01"), WSR("toolu_01"), T("found it")]), U("n")],
        {},
        1,
        "messages[1].content[0].server_tool_use.id",
        [U("q"), A([STU("srvtoolu_0_1"), WSR("srvtoolu_0_1"), T("found it")]), U("n")],
        {},
    ),
    ("anthropic/too-many-messages", TOO_MANY, {}, None, "messages", MANY, {}),
    # model rules (tests/test_model_rules.py names their public sources)
    (
        "anthropic/assistant-prefill",
        [U("q"), A("The answer is")],
        {"model": "claude-sonnet-4-6"},
        1,
        "messages[1]",
        [U("q"), A("The answer is")],
        {"model": "claude-sonnet-4-5"},
    ),
    (
        "anthropic/system-message",
        [U("q"), A("a"), {"role": "system", "content": "Be brief."}, U("q2")],
        {"model": "claude-sonnet-4-5-20250929"},
        2,
        "messages[2].role",
        [U("q"), A("a"), {"role": "system", "content": "Be brief."}, U("q2")],
        {"model": "claude-opus-4-8"},
    ),
    (
        "anthropic/url-source",
        [U([{"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}])],
        {"model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
        0,
        "messages[0].content[0].source",
        [U([{"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}])],
        {"model": "claude-sonnet-4-5-20250929"},
    ),
    # OpenAI Chat Completions
    ("openai-chat/empty-messages", [], {}, None, "messages", [OU()], {}),
    (
        "openai-chat/invalid-role",
        [{"role": "model", "content": "x"}],
        {},
        0,
        "messages[0].role",
        [OU("x")],
        {},
    ),
    (
        "openai-chat/content-null",
        [OU(), {"role": "assistant", "content": None}],
        {},
        1,
        "messages[1].content",
        [OU(), {"role": "assistant", "content": "ok"}],
        {},
    ),
    (
        "openai-chat/tool-calls-without-response",
        [OU(), OCALLS("c1", "c2"), OTOOL("c1")],
        {},
        1,
        "messages[1].tool_calls",
        [OU(), OCALLS("c1", "c2"), OTOOL("c1"), OTOOL("c2")],
        {},
    ),
    (
        "openai-chat/tool-without-tool-calls",
        [OU(), OTOOL("c1")],
        {},
        1,
        "messages[1]",
        [OU(), OCALLS("c1"), OTOOL("c1")],
        {},
    ),
    (
        "openai-chat/tool-call-id-not-found",
        [OU(), OCALLS("c1"), OTOOL("c1"), OTOOL("c2")],
        {},
        3,
        "messages[3].tool_call_id",
        [OU(), OCALLS("c1", "c2"), OTOOL("c1"), OTOOL("c2")],
        {},
    ),
    (
        "openai-chat/tool-call-id-missing",
        [OU(), OCALLS("c1"), OTOOL("c1"), OTOOL(None)],
        {},
        3,
        "messages[3].tool_call_id",
        [OU(), OCALLS("c1"), OTOOL("c1")],
        {},
    ),
    (
        "openai-chat/tool-call-id-length",
        [OU(), OCALLS("c" * 41), OTOOL("c" * 41)],
        {},
        1,
        "messages[1].tool_calls[0].id",
        [OU(), OCALLS("c" * 40), OTOOL("c" * 40)],
        {},
    ),
    (
        "openai-chat/duplicate-tool-response",
        [OU(), OCALLS("c1"), OTOOL("c1"), OTOOL("c1")],
        {},
        3,
        "messages[3].tool_call_id",
        [OU(), OCALLS("c1"), OTOOL("c1")],
        {},
    ),
    (
        "openai-chat/function-name-pattern",
        [OU(), OCALLS("c1", name="get weather"), OTOOL("c1")],
        {},
        1,
        "messages[1].tool_calls[0].function.name",
        [OU(), OCALLS("c1"), OTOOL("c1")],
        {},
    ),
    # OpenAI Responses
    (
        "openai-responses/invalid-role",
        [{"type": "message", "role": "tool", "content": "x"}],
        {},
        0,
        "input[0].role",
        [RU("x")],
        {},
    ),
    (
        "openai-responses/reasoning-without-following",
        [RU(), RS(), RU("again")],
        {},
        1,
        "input[1]",
        [RU(), RS(), RA(), RU("again")],
        {},
    ),
    (
        "openai-responses/function-call-without-reasoning",
        [RU(), RSE("rs_1"), FC("c1", "fc_1"), FCO("c1"), RU("more"), FC("c2", "fc_2"), FCO("c2")],
        {"store": False},
        5,
        "input[5]",
        [
            RU(),
            RSE("rs_1"),
            FC("c1", "fc_1"),
            FCO("c1"),
            RU("more"),
            RSE("rs_2"),
            FC("c2", "fc_2"),
            FCO("c2"),
        ],
        {"store": False},
    ),
    (
        "openai-responses/item-without-reasoning",
        [RU(), RSE("rs_1"), RA("msg_1"), RU("more"), RA("msg_2")],
        {"store": False},
        4,
        "input[4]",
        [RU(), RSE("rs_1"), RA("msg_1"), RU("more"), RSE("rs_2"), RA("msg_2")],
        {"store": False},
    ),
    (
        "openai-responses/required-id-item-without-reasoning",
        [RU(), RSE("rs_1"), RA("msg_1"), RU("draw it"), IGC("ig_1")],
        {"store": False},
        4,
        "input[4]",
        [RU(), RSE("rs_1"), RA("msg_1"), RU("draw it"), RSE("rs_2"), IGC("ig_1")],
        {"store": False},
    ),
    (
        "openai-responses/item-not-stored",
        [RU(), RS("rs_1"), RA("msg_1")],
        {"store": False},
        1,
        "input[1].id",
        [RU(), RSE("rs_1"), RA("msg_1")],
        {"store": False},
    ),
    (
        "openai-responses/tool-call-without-output",
        [RU(), SHC("c1"), RU("next")],
        {},
        1,
        "input[1].call_id",
        [RU(), SHC("c1"), SHO("c1"), RU("next")],
        {},
    ),
    (
        "openai-responses/tool-output-without-call",
        [RU(), APO("c9"), APC("c9")],
        {},
        1,
        "input[1].call_id",
        [RU(), APC("c9"), APO("c9")],
        {},
    ),
    (
        "openai-responses/mcp-approval-response-without-request",
        [RU(), MRESP("mcpr_1")],
        {"store": False},
        1,
        "input[1].approval_request_id",
        [RU(), MREQ("mcpr_1"), MRESP("mcpr_1")],
        {"store": False},
    ),
    (
        "openai-responses/function-call-output-without-call",
        [RU(), FCO("c9")],
        {},
        1,
        "input[1].call_id",
        [RU(), FC("c9"), FCO("c9")],
        {},
    ),
    (
        "openai-responses/function-call-without-output",
        [RU(), FC("c1"), RU("next")],
        {},
        1,
        "input[1].call_id",
        [RU(), FC("c1"), FCO("c1"), RU("next")],
        {},
    ),
    (
        "openai-responses/duplicate-item-id",
        [RU(), RA("msg_1"), RU("b"), RA("msg_1")],
        {},
        3,
        "input[3].id",
        [RU(), RA("msg_1"), RU("b"), RA("msg_2")],
        {},
    ),
    (
        # a Codex rollout's client-only item, replayed as if it were input
        "openai-responses/client-only-item",
        [RU(), {"type": "ghost_snapshot", "ghost_commit": {"id": "abc", "parent": None}}],
        {},
        1,
        "input[1].type",
        [RU()],
        {},
    ),
    (
        "openai-responses/function-name-pattern",
        [RU(), {**FC("c1"), "name": "get weather"}, FCO("c1")],
        {},
        1,
        "input[1].name",
        [RU(), FC("c1"), FCO("c1")],
        {},
    ),
    (
        "openai-responses/compaction-trigger-last",
        [RU(), {"type": "compaction_trigger"}, RU("b")],
        {},
        1,
        "input[1]",
        [RU(), RU("b"), {"type": "compaction_trigger"}],
        {},
    ),
    # Gemini
    (
        "gemini/invalid-role",
        [GU(), {"role": "assistant", "parts": [{"text": "x"}]}],
        {},
        1,
        "contents[1].role",
        [GU(), GM()],
        {},
    ),
    ("gemini/empty-parts", [{"role": "user", "parts": []}], {}, 0, "contents[0].parts", [GU()], {}),
    (
        "gemini/function-call-placement",
        [GM(GFC()), GU(GFR())],
        {},
        0,
        "contents[0]",
        # adjacent model contents are one turn (recorded 200)
        [GU(), GM(), GM(GFC()), GU(GFR())],
        {},
    ),
    (
        "gemini/function-response-placement",
        [GU(), GU(GFR())],
        {},
        1,
        "contents[1]",
        [GU(), GM(GFC()), GU(GFR())],
        {},
    ),
    (
        "gemini/function-response-count",
        [GU(), GM(GFC("a"), GFC("b")), GU(GFR("a"))],
        {},
        2,
        "contents[2].parts",
        # calls in two model contents, answered by one user content (recorded 200)
        [GU(), GM(GFC("a")), GM(GFC("b")), GU(GFR("a"), GFR("b"))],
        {},
    ),
    (
        "gemini/thought-signature",
        [
            GU(),
            GM({"text": "plan", "thought": True, "thoughtSignature": "c2ln"}),
            GU({"text": "go"}),
            GM(GFC()),
            GU(GFR()),
        ],
        {"model": "gemini-3-pro-preview"},
        3,
        "contents[3].parts[0]",
        [
            GU(),
            GM({"text": "plan", "thought": True, "thoughtSignature": "c2ln"}),
            GU({"text": "go"}),
            GM(GFC(sig="c2ln")),
            GU(GFR()),
        ],
        {},
    ),
    (
        "gemini/function-name",
        [GU()],
        {"tools": [{"functionDeclarations": [{"name": "1weather"}]}]},
        None,
        "tools[0].function_declarations[0].name",
        [GU()],
        {"tools": [{"functionDeclarations": [{"name": "get_weather"}]}]},
    ),
    # Bedrock Converse
    (
        "bedrock/invalid-role",
        [BU(), {"role": "system", "content": [{"text": "x"}]}],
        {},
        1,
        "messages[1].role",
        [BU(), BA()],
        {},
    ),
    (
        "bedrock/roles-alternate",
        [BU(), BU()],
        {},
        1,
        "messages[1].role",
        [BU({"text": "a"}, {"text": "b"})],
        {},
    ),
    (
        "bedrock/empty-content",
        [{"role": "user", "content": []}],
        {},
        0,
        "messages[0].content",
        [BU()],
        {},
    ),
    (
        "bedrock/blank-text",
        [BU({"text": " "})],
        {},
        0,
        "messages[0].content[0].text",
        # white space beside other text is accepted (recorded 200)
        [BU({"text": "a"}, {"text": "\n"}, {"text": "b"})],
        {},
    ),
    (
        "bedrock/tool-use-without-result",
        [BU(), BA(BTU("t1")), BU()],
        {"tools": BTOOLS},
        2,
        "messages[2].content",
        [BU(), BA(BTU("t1")), BU(BTR("t1"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/tool-result-count",
        [BU(), BA(BTU("t1")), BU(BTR("t1"), BTR("t2"))],
        {"tools": BTOOLS},
        2,
        "messages[2].content",
        [BU(), BA(BTU("t1"), BTU("t2")), BU(BTR("t1"), BTR("t2"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/duplicate-tool-use-id",
        [BU(), BA(BTU("t1"), BTU("t1")), BU(BTR("t1"), BTR("t2"))],
        {"tools": BTOOLS},
        1,
        "messages[1].content[1].toolUse.toolUseId",
        [BU(), BA(BTU("t1"), BTU("t2")), BU(BTR("t1"), BTR("t2"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/duplicate-tool-result-id",
        [BU(), BA(BTU("t1"), BTU("t2")), BU(BTR("t1"), BTR("t1"))],
        {"tools": BTOOLS},
        2,
        "messages[2].content[1].toolResult.toolUseId",
        [BU(), BA(BTU("t1"), BTU("t2")), BU(BTR("t1"), BTR("t2"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/tool-use-id-pattern",
        [BU(), BA(BTU("call/1")), BU(BTR("call/1"))],
        {"tools": BTOOLS},
        1,
        "messages[1].content[0].toolUse.toolUseId",
        # `.` and `:` are in the service model's pattern (recorded 200)
        [BU(), BA(BTU("functions.get_weather:0")), BU(BTR("functions.get_weather:0"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/tool-config-required",
        [BU(), BA(BTU("t1")), BU(BTR("t1"))],
        {},
        1,
        "messages[1].content[0]",
        [BU(), BA(BTU("t1")), BU(BTR("t1"))],
        {"tools": BTOOLS},
    ),
    (
        "bedrock/tool-name-pattern",
        [BU()],
        {"tools": {"tools": [{"toolSpec": {"name": "get weather", "inputSchema": {"json": {}}}}]}},
        None,
        "toolConfig.tools[0].toolSpec.name",
        [BU()],
        {"tools": BTOOLS},
    ),
]

IDS = [c[0] for c in CASES]


def _provider(rule: str) -> str:
    return rule.split("/", 1)[0]


def test_every_rule_has_a_case() -> None:
    table = {r["rule"] for r in msgnorm.provider_rules.rules()}
    assert table == set(IDS)
    assert len(IDS) == len(set(IDS))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_violating_history_names_the_rule(case: Case) -> None:
    rule, bad, kwargs, index, path, _, _ = case
    before = copy.deepcopy(bad)
    found = msgnorm.validate(bad, _provider(rule), **kwargs)
    assert bad == before  # nothing is changed
    hits = [v for v in found if v.rule == rule]
    assert hits, found
    v = hits[0]
    assert (v.index, v.path) == (index, path)
    table = {r["rule"]: r for r in msgnorm.provider_rules.rules()}
    assert v.repair == table[rule]["repair"]
    # the provider's text, with the place and the ids filled in
    head = table[rule]["message"].split("{")[0]
    assert v.message.startswith(head) or "{" in table[rule]["message"][:3]
    assert "{i}" not in v.message and "{x}" not in v.message and "{p}" not in v.message


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fixed_history_passes(case: Case) -> None:
    rule, _, _, _, _, good, kwargs = case
    assert msgnorm.validate(good, _provider(rule), **kwargs) == []


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_json_input_gives_the_same(case: Case) -> None:
    rule, bad, kwargs, *_ = case
    p = _provider(rule)
    data = json.dumps(bad).encode()
    assert msgnorm.validate(data, p, **kwargs) == msgnorm.validate(bad, p, **kwargs)
    assert msgnorm.validate(data.decode(), p, **kwargs) == msgnorm.validate(bad, p, **kwargs)
    lines = b"\n".join(json.dumps(m).encode() for m in bad)
    if bad:  # (an empty file is no JSON)
        assert msgnorm.validate(lines, p, **kwargs) == msgnorm.validate(bad, p, **kwargs)


# --------------------------------------------------------------------------
# the SDK types accept the violating histories: the rules are semantic
# --------------------------------------------------------------------------

# Rules whose violation the SDK's own types already reject (no semantic gap).
TYPE_LEVEL = {
    "openai-chat/invalid-role",
    "openai-chat/tool-call-id-missing",
    "openai-responses/invalid-role",
    "openai-responses/client-only-item",
    "anthropic/invalid-role",
    "anthropic/tool-use-input-object",
}


def _force(x: Any) -> Any:
    """Consumes pydantic's lazy iterables so that every element is validated."""
    if isinstance(x, dict):
        return {k: _force(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_force(v) for v in x]
    if type(x).__name__ == "ValidatorIterator":
        return [_force(v) for v in x]
    return x


def _sdk_accepts(provider: str, messages: list[Any], kwargs: dict[str, Any]) -> bool:
    import pydantic

    try:
        if provider == "anthropic":
            from anthropic.types import MessageParam

            ta = pydantic.TypeAdapter(list[MessageParam])  # alive while the iterables validate
            _force(ta.validate_python(messages))
        elif provider == "openai-chat":
            from openai.types.chat import ChatCompletionMessageParam

            ta = pydantic.TypeAdapter(list[ChatCompletionMessageParam])
            _force(ta.validate_python(messages))
        elif provider == "openai-responses":
            from openai.types.responses import ResponseInputParam

            ta = pydantic.TypeAdapter(ResponseInputParam)
            _force(ta.validate_python(messages))
        elif provider == "gemini":
            from google.genai import types

            for m in messages:
                types.Content.model_validate(m)
            for t in kwargs.get("tools") or []:
                types.Tool.model_validate(t)
        else:
            import botocore.session
            import botocore.validate

            model = botocore.session.get_session().get_service_model("bedrock-runtime")
            shape = model.operation_model("Converse").input_shape
            params: dict[str, Any] = {"modelId": "m", "messages": messages}
            if kwargs.get("tools"):
                params["toolConfig"] = kwargs["tools"]
            report = botocore.validate.ParamValidator().validate(params, shape)
            return not report.has_errors()
    except pydantic.ValidationError:
        return False
    return True


_SDK = {
    "anthropic": "anthropic",
    "openai-chat": "openai",
    "openai-responses": "openai",
    "gemini": "google.genai",
    "bedrock": "botocore",
}


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sdk_types_accept_the_violation(case: Case) -> None:
    rule, bad, kwargs, *_ = case
    provider = _provider(rule)
    if not _have(_SDK[provider]):
        pytest.skip(f"{_SDK[provider]} is not installed (the test extra brings it)")
    accepted = _sdk_accepts(provider, bad, kwargs)
    # Either the rule is beyond the SDK's types, or it is listed as type-level.
    assert accepted == (rule not in TYPE_LEVEL), rule


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sdk_types_accept_the_fixed_history(case: Case) -> None:
    rule, _, _, _, _, good, kwargs = case
    provider = _provider(rule)
    if not _have(_SDK[provider]):
        pytest.skip(f"{_SDK[provider]} is not installed (the test extra brings it)")
    assert _sdk_accepts(provider, good, kwargs), rule


# --------------------------------------------------------------------------
# msgnorm's repair: records -> normalize_for_api -> to_anthropic passes
# --------------------------------------------------------------------------

# normalize_for_api's own repairs (SPEC §4); the output functions' repairs
# ("to_provider ...") are checked through convert below.
REPAIRED_ANTHROPIC = [
    c
    for c in CASES
    if c[0].startswith("anthropic/")
    and msgnorm.validate(c[1], "anthropic", **c[2])[0].repair.startswith("SPEC")
    and c[0] != "anthropic/invalid-role"
]


def _as_records(messages: list[Any]) -> list[dict[str, Any]]:
    return [
        {"type": m["role"], "uuid": f"00000000-0000-4000-8000-{i:012d}", "message": dict(m)}
        for i, m in enumerate(messages)
    ]


@pytest.mark.parametrize("case", REPAIRED_ANTHROPIC, ids=[c[0] for c in REPAIRED_ANTHROPIC])
def test_repair_passes(case: Case) -> None:
    rule, bad, kwargs, *_ = case
    records = _as_records(bad)
    # records are read as to_anthropic sends them: the same violation, at the same place
    assert rule in {v.rule for v in msgnorm.validate(records, "anthropic", **kwargs)}
    repaired = msgnorm.to_anthropic(msgnorm.normalize_for_api(records))
    assert msgnorm.validate(repaired, "anthropic", **kwargs) == []


def test_repaired_rules_cover_the_issue_list() -> None:
    names = {c[0] for c in REPAIRED_ANTHROPIC}
    assert {
        "anthropic/tool-use-without-result",
        "anthropic/tool-result-without-use",
        "anthropic/empty-text",
        "anthropic/whitespace-text",
        "anthropic/final-assistant-trailing-whitespace",
        "anthropic/tool-use-unique",
    } <= names


# The rules msgnorm repairs; the others ("none: ...") are the source's to fix.
def _repaired(v: Violation) -> bool:
    return not v.repair.startswith("none")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(histories())
def test_normalized_output_passes_the_anthropic_rules(records: list[Any]) -> None:
    normalized = msgnorm.normalize_for_api(records)
    # to_anthropic sends records as they are: normalize_for_api's repairs (SPEC §4)
    out = msgnorm.to_anthropic(normalized)
    assert [v for v in msgnorm.validate(out, "anthropic") if v.repair.startswith("SPEC")] == []
    # to_provider adds the output rules (ids, tool names)
    shape = msgnorm.to_provider(normalized, "anthropic", normalize=False)
    assert [v for v in msgnorm.validate(shape["messages"], "anthropic") if _repaired(v)] == []


def test_a_paused_turn_after_thinking_keeps_its_server_use() -> None:
    """A final assistant record of thinking, a server result standing before
    its use, and the use: the writer removes the misplaced result and keeps the
    use (a server call in flight ends a paused turn), so the thinking block is
    not left last."""
    records = [
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "", "signature": "EqQBCkgIARA"},
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_01",
                        "name": "web_search",
                        "input": {},
                    },
                ],
            },
        }
    ]
    shape, report = msgnorm.to_provider_report(
        msgnorm.normalize_for_api(records), "anthropic", normalize=False
    )
    assert report["server_results_removed"] == 1
    assert [b["type"] for b in shape["messages"][1]["content"]] == ["thinking", "server_tool_use"]
    assert [v for v in msgnorm.validate(shape["messages"], "anthropic") if _repaired(v)] == []


def test_consecutive_turns_are_not_an_anthropic_violation() -> None:
    """SPEC §4 leaves two assistant records with different message ids adjacent
    (e.g. after '[Tool use interrupted]'); the Messages API combines consecutive
    turns of one role, so that is no violation there (Bedrock, which refuses it,
    has its own rule, and to_bedrock merges them)."""
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {"id": "m1", "role": "assistant", "content": [T("one")]},
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {"id": "m2", "role": "assistant", "content": [T("two")]},
        },
    ]
    out = msgnorm.to_anthropic(msgnorm.normalize_for_api(records))
    assert msgnorm.validate(out, "anthropic") == []


def test_normalized_output_has_no_empty_text_in_tool_results() -> None:
    """SPEC §4 step 7's "every user and assistant content list" is read as
    including a tool_result's list: the Messages API's 'text content blocks
    must be non-empty' applies to every text block."""
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {"id": "m1", "role": "assistant", "content": [TU("t1")]},
        },
        {
            "type": "user",
            "uuid": "u2",
            "message": {"role": "user", "content": [TR("t1", [T(""), T("ok")])]},
        },
    ]
    out = msgnorm.to_anthropic(msgnorm.normalize_for_api(records))
    assert msgnorm.validate(out, "anthropic") == []


# --------------------------------------------------------------------------
# inputs, check(), errors
# --------------------------------------------------------------------------


def test_records_are_read_as_to_anthropic_sends_them() -> None:
    records = [
        {"type": "progress", "uuid": "p"},
        {"type": "user", "uuid": "u", "message": {"role": "user", "content": [T("x"), T("")]}},
    ]
    (v,) = msgnorm.validate(records, "anthropic")
    assert (v.index, v.path, v.rule) == (1, "records[1].message.content[1]", "anthropic/empty-text")


def test_structs_and_sdk_objects_are_read() -> None:
    history = msgnorm.decode(json.dumps(_as_records([U([T("")])])).encode())
    (v,) = msgnorm.validate(history, "anthropic")
    assert v.rule == "anthropic/empty-text"
    if _have("google.genai"):
        from google.genai import types

        contents = [types.Content(role="user", parts=[])]
        assert [v.rule for v in msgnorm.validate(contents, "gemini")] == ["gemini/empty-parts"]


def test_system_and_tools_count_cache_control() -> None:
    system = [T("s1", **CC), T("s2", **CC)]
    tools = [{"name": "get_weather", "input_schema": {"type": "object"}, **CC}]
    msgs = [U([T("a", **CC), T("b", **CC)])]
    (v,) = msgnorm.validate(msgs, "anthropic", system=system, tools=tools)
    assert v.rule == "anthropic/cache-control-limit"
    assert v.message.endswith("Found 5.")
    assert v.path == "messages[0].content[1].cache_control"
    bad_tools = [{"name": "get weather", "input_schema": {}}]
    (v,) = msgnorm.validate([U("q")], "anthropic", tools=bad_tools)
    assert (v.index, v.path, v.rule) == (None, "tools[0].name", "anthropic/tool-name-pattern")


def test_system_messages_take_no_part_in_turns() -> None:
    msgs = [{"role": "system", "content": "be brief"}, U("q"), A("a")]
    assert msgnorm.validate(msgs, "anthropic") == []


def test_check_raises_with_the_violations() -> None:
    msgnorm.check([U("q")], "anthropic")
    with pytest.raises(ProviderRuleError) as e:
        msgnorm.check([U("q"), A([TU("t1")]), U("next")], provider="anthropic")
    assert isinstance(e.value, ValueError)
    assert [v.rule for v in e.value.violations] == ["anthropic/tool-use-without-result"]
    assert (e.value.index, e.value.path) == (1, "messages[1].content[0]")
    assert "anthropic/tool-use-without-result" in str(e.value)


def test_bad_arguments() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="unknown provider"):
        msgnorm.validate([], "openai")
    with pytest.raises(msgnorm.MsgnormError, match="expected a list"):
        msgnorm.validate(42, "anthropic")
    with pytest.raises(msgnorm.JSONDecodeError):
        msgnorm.validate(b"[{", "anthropic")


def test_hostile_inputs_do_not_crash() -> None:
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    assert msgnorm.validate([U(deep)], "anthropic") == []
    assert msgnorm.validate(b"[" * 100_000 + b"]" * 100_000, "gemini")
    junk = [None, 1, "x", [], {"role": 5, "content": {"a": 1}}, {"parts": "x"}, object()]
    for p in msgnorm.provider_rules.PROVIDERS:
        found = msgnorm.validate(junk, p)
        assert all(isinstance(v, Violation) for v in found)
    lone = "\ud800"
    assert msgnorm.validate([U([T(lone)])], "anthropic") == []


def test_linear_in_long_tool_runs() -> None:
    # A run of 20k tool messages after one call: every rule stays one pass.
    n = 20_000
    msgs = [OU(), OCALLS(*[f"c{i}" for i in range(n)])] + [OTOOL(f"c{i}") for i in range(n)]
    assert msgnorm.validate(msgs, "openai-chat") == []


# --------------------------------------------------------------------------
# CLI and docs
# --------------------------------------------------------------------------


def test_cli_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([OU(), OCALLS("c1"), OU("next")]))
    assert cli_main(["check", str(bad), "--provider", "openai-chat"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "1\tmessages[1].tool_calls\topenai-chat/tool-calls-without-response\t"
        + msgnorm.validate(json.loads(bad.read_text()), "openai-chat")[0].message
    ]
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"modelId": "m", "messages": [BU()], "toolConfig": BTOOLS}))
    assert cli_main(["check", str(good), "--provider", "bedrock"]) == 0
    assert capsys.readouterr().out == ""
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"messages": [BU(), BA(BTU("t1")), BU(BTR("t1"))]}))
    assert cli_main(["check", str(body), "--provider", "bedrock"]) == 1
    assert "bedrock/tool-config-required" in capsys.readouterr().out
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(BTOOLS))
    assert cli_main(["check", str(body), "--provider", "bedrock", "--tools", str(tools)]) == 0


def test_rules_doc_is_generated() -> None:
    assert (ROOT / "docs" / "RULES.md").read_text(
        encoding="utf-8"
    ) == msgnorm.provider_rules.rules_markdown()


def test_cli_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["rules", "--markdown"]) == 0
    assert capsys.readouterr().out == msgnorm.provider_rules.rules_markdown()
    assert cli_main(["rules", "--provider", "gemini"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split("\t")[0] for ln in lines] == [
        c[0] for c in CASES if c[0].startswith("gemini/")
    ]


# --------------------------------------------------------------------------
# msgnorm's repair for every provider: from_provider -> to_provider passes
# --------------------------------------------------------------------------


def _unpack(provider: str, shape: Any) -> tuple[list[Any], Any]:
    """The messages and the system prompt of ``to_provider``'s output."""
    if provider == "gemini":
        return shape["contents"], shape.get("system_instruction")
    if provider in ("anthropic", "bedrock"):
        return shape["messages"], shape.get("system")
    return shape, None


REPAIRED_ELSEWHERE = [
    c
    for c in CASES
    if not (
        c[0].startswith("anthropic/")
        and msgnorm.validate(c[1], "anthropic", **c[2])[0].repair.startswith("SPEC")
    )
    and not msgnorm.validate(c[1], _provider(c[0]), **c[2])[0].repair.startswith("none")
]


@pytest.mark.parametrize("case", REPAIRED_ELSEWHERE, ids=[c[0] for c in REPAIRED_ELSEWHERE])
def test_provider_repair_passes(case: Case) -> None:
    """A history breaking a rule msgnorm repairs, converted to the same provider
    (``convert(source=p, target=p)``: from_provider, normalize_for_api, the
    provider's output rules), breaks no repaired rule of that provider. Tool
    definitions go through ``rename_tools``, as the tool-name rules say."""
    rule, bad, kwargs, *_ = case
    p = _provider(rule)
    store = kwargs.get("store", True)
    shape = msgnorm.convert(bad, source=p, target=p, system=kwargs.get("system"), store=store)
    messages, system = _unpack(p, shape)
    tools = kwargs.get("tools")
    if tools is not None:
        tools = msgnorm.rename_tools(tools, p)
    found = msgnorm.validate(messages, p, system=system, tools=tools, store=store)
    assert [v for v in found if _repaired(v)] == []
    assert rule not in {v.rule for v in found}


REFUSED = [
    c
    for c in CASES
    if not c[0].startswith("anthropic/")
    and msgnorm.validate(c[1], _provider(c[0]), **c[2])[0].repair.startswith("none: from_provider")
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_what_the_adapters_refuse_is_named(case: Case) -> None:
    """Rules whose repair is "none: from_provider refuses ...": the adapter refuses
    the history with an error naming the message the validator names."""
    rule, bad, kwargs, index, *_ = case
    with pytest.raises(msgnorm.InvalidRecordError) as e:
        msgnorm.from_provider(bad, _provider(rule), system=kwargs.get("system"))
    assert f"messages[{index}]" in str(e.value)


# convert takes no tool definitions: rules broken by the tools alone are rename_tools'
STRICT = [
    c
    for c in REPAIRED_ANTHROPIC + REPAIRED_ELSEWHERE
    if msgnorm.validate(
        c[1], _provider(c[0]), system=c[2].get("system"), store=c[2].get("store", True)
    )
]


@pytest.mark.parametrize("case", STRICT, ids=[c[0] for c in STRICT])
def test_strict_mode_raises_what_validate_names(case: Case) -> None:
    """``convert(..., strict=True)`` refuses to repair: it raises
    ``ProviderRuleError`` with the violations ``validate`` gives (those msgnorm
    would repair), the first one's place in ``index``/``path``."""
    rule, bad, kwargs, *_ = case
    p = _provider(rule)
    system, store = kwargs.get("system"), kwargs.get("store", True)
    with pytest.raises(ProviderRuleError) as e:
        msgnorm.convert(bad, source=p, target=p, system=system, strict=True, store=store)
    found = msgnorm.validate(bad, p, system=system, store=store)
    want = [v for v in found if _repaired(v)]
    assert e.value.violations == want and rule in {v.rule for v in want}
    assert (e.value.index, e.value.path) == (want[0].index, want[0].path)


def test_normalize_for_api_strict_carries_the_violations() -> None:
    records = _as_records([U("go"), A([TU("t1")]), U("never mind")])
    with pytest.raises(msgnorm.PairingError) as e:
        msgnorm.normalize_for_api(records, strict=True)
    rules = {v.rule for v in e.value.violations}
    assert "anthropic/tool-use-without-result" in rules
    assert e.value.violations == [v for v in msgnorm.validate(records, "anthropic") if _repaired(v)]
    # the same history through the adapter's strict mode: the same violations
    with pytest.raises(ProviderRuleError) as e2:
        msgnorm.to_provider(records, "anthropic", strict=True)
    assert e2.value.violations == e.value.violations
