"""``msgnorm check --session``: a rule violation on a loaded session names its
transcript file and line, for every provider; ``--at N`` names the lines
message N came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from support.cli import run_cli as run


def rec(kind: str, uuid: str, parent: str | None, content: Any, **kw: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        msg["id"] = f"m-{uuid}"
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": msg, **kw}


def session(tmp_path: Path) -> Path:
    call = [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]
    lines = [
        {"type": "summary", "summary": "a title", "leafUuid": "a2"},  # line 1: no record
        rec("user", "u1", None, "read it"),  # line 2
        {"type": "system", "subtype": "turn_duration", "uuid": "s1", "parentUuid": "u1"},  # 3
        rec("assistant", "a1", "s1", call),  # line 4: its result never came
        rec("user", "u2", "a1", "go on"),  # line 5
        rec("user", "u3", "u2", "please"),  # line 6
        rec("assistant", "a2", "u3", [{"type": "text", "text": "done"}]),  # line 7
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_a_violation_names_its_transcript_line(tmp_path: Path) -> None:
    path = session(tmp_path)
    r = run(["check", str(path), "--session"])
    assert r.returncode == 1, r.stderr
    rows = [line.split("\t") for line in r.stdout.decode().splitlines()]
    assert rows, r.stderr
    by_rule = {row[2]: row for row in rows}
    row = by_rule["anthropic/tool-use-without-result"]
    assert row[0] == "1" and row[-1] == f"{path}:4"
    assert "in thread main (5 messages)" in r.stderr.decode()


def test_at_names_the_lines_a_request_message_came_from(tmp_path: Path) -> None:
    path = session(tmp_path)
    # the request: [u1], [a1], [inserted result + u2 + u3 merged], [a2]
    r = run(["check", str(path), "--session", "--at", "2"])
    assert r.returncode == 0, r.stderr
    got = [line.split("\t") for line in r.stdout.decode().splitlines()]
    assert [row[2] for row in got] == [f"{path}:5", f"{path}:6"]
    r = run(["check", str(path), "--session", "--at", "9"])
    assert r.returncode == 2 and b"the request has 4 messages" in r.stderr


def test_a_clean_session_and_other_providers(tmp_path: Path) -> None:
    lines = [rec("user", "u1", None, "hi"), rec("assistant", "a1", "u1", "hello")]
    path = tmp_path / "ok.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    r = run(["check", str(path), "--session"])
    assert r.returncode == 0 and r.stdout == b""
    assert b"no violations" in r.stderr
    for provider in ("openai-chat", "openai-responses", "gemini"):
        r = run(["check", str(path), "--session", "--provider", provider])
        assert r.returncode == 0 and r.stdout == b"", (provider, r.stderr)
        assert f"no violations of the {provider} rules".encode() in r.stderr
    r = run(["check", "-", "--session"], stdin=path.read_bytes())
    assert r.returncode == 0, r.stderr


# Each provider's rule broken by the session above, and the transcript lines of
# the records the offending message was written from: the unanswered call (line
# 4), or the user turn that should have answered it (lines 5 and 6, one turn
# where the provider joins turns of one role).
BROKEN = {
    "openai-chat": [("1", "openai-chat/tool-calls-without-response", [4])],
    "openai-responses": [("1", "openai-responses/function-call-without-output", [4])],
    "gemini": [("2", "gemini/function-response-count", [5, 6])],
    "bedrock": [
        ("1", "bedrock/tool-config-required", [4]),
        ("2", "bedrock/tool-use-without-result", [5, 6]),
    ],
}


@pytest.mark.parametrize("provider", sorted(BROKEN))
def test_every_provider_names_the_transcript_line(tmp_path: Path, provider: str) -> None:
    path = session(tmp_path)
    r = run(["check", str(path), "--session", "--provider", provider])
    assert r.returncode == 1, r.stderr
    rows = [line.split("\t") for line in r.stdout.decode().splitlines()]
    want = [
        (index, rule, ",".join(f"{path}:{n}" for n in lines))
        for index, rule, lines in BROKEN[provider]
    ]
    assert [(row[0], row[2], row[-1]) for row in rows] == want
    # the message is the provider's own error text
    table = {r["rule"]: r["message"] for r in msgnorm.provider_rules.rules()}
    for row in rows:
        assert row[3].startswith(table[row[2]].split("{")[0])
    assert f"of the {provider} rules in thread main (5 messages)" in r.stderr.decode()


def test_bedrock_tools_are_read_in_session_mode(tmp_path: Path) -> None:
    path = session(tmp_path)
    tools = tmp_path / "tools.json"
    spec = {"toolSpec": {"name": "Read", "inputSchema": {"json": {"type": "object"}}}}
    tools.write_text(json.dumps({"tools": [spec]}))
    r = run(["check", str(path), "--session", "--provider", "bedrock", "--tools", str(tools)])
    rules = [line.split("\t")[2] for line in r.stdout.decode().splitlines()]
    assert rules == ["bedrock/tool-use-without-result"], r.stderr


@pytest.mark.parametrize(
    ("provider", "at", "lines"),
    [
        # [u1], [a1 as a call], [its inserted output], [u2 + u3 merged], [a2]
        ("openai-responses", 1, [4]),
        ("openai-responses", 3, [5, 6]),
        ("openai-chat", 4, [7]),
        # Gemini joins the inserted response and the merged user turn into one content
        ("gemini", 2, [5, 6]),
    ],
)
def test_at_for_other_providers(tmp_path: Path, provider: str, at: int, lines: list[int]) -> None:
    path = session(tmp_path)
    r = run(["check", str(path), "--session", "--provider", provider, "--at", str(at)])
    assert r.returncode == 0, r.stderr
    got = [line.split("\t") for line in r.stdout.decode().splitlines()]
    assert [row[2] for row in got] == [f"{path}:{n}" for n in lines]
    r = run(["check", str(path), "--session", "--provider", provider, "--at", "99"])
    assert r.returncode == 2 and b"--at 99: the request has" in r.stderr


def test_a_codex_rollout_is_checked_as_a_responses_input(tmp_path: Path) -> None:
    """A Codex rollout whose last call was never answered: the call's line is named."""
    meta = {"id": "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "timestamp": "2026-02-01T10:00:00Z"}
    call = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "call_1"}
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls"}]}
    lines = [
        {"timestamp": "2026-02-01T10:00:01Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-02-01T10:00:02Z", "type": "response_item", "payload": prompt},
        {"timestamp": "2026-02-01T10:00:03Z", "type": "response_item", "payload": call},
    ]
    path = tmp_path / "rollout-2026-02-01T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run(["check", str(path), "--session", "--provider", "openai-responses"])
    assert r.returncode == 1, r.stderr
    rows = [line.split("\t") for line in r.stdout.decode().splitlines()]
    assert [(row[2], row[-1]) for row in rows] == [
        ("openai-responses/function-call-without-output", f"{path}:3")
    ]


def test_no_store_adds_the_stateless_rules(tmp_path: Path) -> None:
    items = [
        {"type": "message", "role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "content": "a"},
    ]
    path = tmp_path / "input.json"
    path.write_text(json.dumps({"input": items}))
    r = run(["check", str(path), "--provider", "openai-responses"])
    assert r.returncode == 0, r.stderr
    r = run(["check", str(path), "--provider", "openai-responses", "--no-store"])
    assert r.returncode == 1
    rows = [line.split("\t") for line in r.stdout.decode().splitlines()]
    assert [(row[0], row[2]) for row in rows] == [("1", "openai-responses/item-not-stored")]
