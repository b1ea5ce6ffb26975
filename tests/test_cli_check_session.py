"""``msgnorm check --session``: a rule violation on a loaded session names its
transcript file and line; ``--at N`` names the lines message N came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    r = run(["check", str(path), "--session", "--provider", "gemini"])
    assert r.returncode == 2 and b"anthropic rules" in r.stderr
    r = run(["check", "-", "--session"], stdin=path.read_bytes())
    assert r.returncode == 0, r.stderr
