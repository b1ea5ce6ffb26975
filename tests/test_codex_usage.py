"""session_usage and list_sessions on Codex rollouts (``rollout-….jsonl``):
usage from the cumulative ``token_count`` events (the last one is the
session's; OpenAI's input count includes the cached tokens), and a directory
holding a rollout beside Claude Code sessions is read, not refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest

SESSION = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
NAME = f"rollout-2026-02-01T10-00-00-{SESSION}.jsonl"


def line(ts: str, kind: str, payload: Any) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def tokens(ts: str, inp: int, cached: int, out: int) -> dict[str, Any]:
    total = {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": out // 2,
        "total_tokens": inp + out,
    }
    return line(ts, "event_msg", {"type": "token_count", "info": {"total_token_usage": total}})


def rollout(tmp_path: Path) -> Path:
    meta = {
        "id": SESSION,
        "timestamp": "2026-02-01T10:00:00.000Z",
        "cwd": "/work/app",
        "cli_version": "0.50.0",
        "git": {"branch": "main"},
    }
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}
    rows = [
        line("2026-02-01T10:00:00.000Z", "session_meta", meta),
        line("2026-02-01T10:00:01.000Z", "turn_context", {"model": "gpt-5-codex"}),
        line("2026-02-01T10:00:02.000Z", "response_item", prompt),
        line(
            "2026-02-01T10:00:02.000Z",
            "event_msg",
            {"type": "user_message", "message": "Fix the flaky\n test", "images": []},
        ),
        tokens("2026-02-01T10:00:03.000Z", 1000, 800, 50),
        tokens("2026-02-01T10:00:03.500Z", 1000, 800, 50),  # repeated: no new request
        line("2026-02-01T10:00:04.000Z", "event_msg", {"type": "token_count", "info": None}),
        line("2026-02-02T09:00:00.000Z", "turn_context", {"model": "gpt-5"}),
        tokens("2026-02-02T09:00:05.000Z", 2500, 1800, 90),
    ]
    path = tmp_path / NAME
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_text(text + '{"timestamp": "2026-02-02T09:00:06.000Z", "type": "event_msg", "pay\n')
    return path


def claude_session(tmp_path: Path) -> Path:
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100}
    rows = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "claude-1",
            "cwd": "/work/other",
            "timestamp": "2026-02-01T11:00:00.000Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "claude-1",
            "cwd": "/work/other",
            "requestId": "req_1",
            "timestamp": "2026-02-01T11:00:01.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "hello"}],
                "usage": usage,
            },
        },
    ]
    path = tmp_path / "claude-1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rollout_usage_is_its_last_cumulative_count(tmp_path: Path) -> None:
    u = msgnorm.session_usage(rollout(tmp_path), prices=False)
    # the last total: 2500 in (1800 of them cached), 90 out
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens) == (700, 1800, 90)
    assert u.requests == 2  # the repeated count and the empty one add nothing
    assert u.cache_creation_input_tokens == 0
    # each rise counted for the model of its turn
    gpt5, codex = u.models["gpt-5"], u.models["gpt-5-codex"]
    assert (codex.input_tokens, codex.cache_read_input_tokens, codex.output_tokens) == (
        200,
        800,
        50,
    )
    assert (gpt5.input_tokens, gpt5.cache_read_input_tokens, gpt5.output_tokens) == (500, 1000, 40)


def test_a_directory_with_a_rollout_and_a_claude_session(tmp_path: Path) -> None:
    rollout(tmp_path)
    claude_session(tmp_path)
    total = msgnorm.session_usage(tmp_path, prices=False)
    assert total.requests == 3
    assert total.input_tokens == 700 + 10 and total.cache_read_input_tokens == 1800 + 100
    by_session = msgnorm.session_usage(tmp_path, by="session", prices=False)
    assert sorted(by_session) == sorted([SESSION, "claude-1"])
    assert by_session[SESSION].output_tokens == 90
    by_project = msgnorm.session_usage(tmp_path, by="project", prices=False)
    assert by_project["/work/app"].requests == 2 and by_project["/work/other"].requests == 1
    by_day = msgnorm.session_usage(tmp_path, by="day", utc=True, prices=False)
    assert {d: g.requests for d, g in by_day.items()} == {"2026-02-01": 2, "2026-02-02": 1}
    by_model = msgnorm.session_usage(tmp_path, by="model", prices=False)
    assert sorted(by_model) == ["claude-sonnet-4-5", "gpt-5", "gpt-5-codex"]


def test_a_damaged_token_count_line_is_counted(tmp_path: Path) -> None:
    path = rollout(tmp_path)
    with path.open("a") as f:
        f.write('{"type": "event_msg", "payload": {"type": "token_count", "info": {\n')
    with pytest.warns(UserWarning, match="1 line"):
        u = msgnorm.session_usage(path, prices=False)
    assert u.requests == 2


def test_since_and_until_keep_the_rollouts_requests_in_range(tmp_path: Path) -> None:
    path = rollout(tmp_path)
    day2 = msgnorm.session_usage(path, since="2026-02-02", utc=True, prices=False)
    assert (day2.requests, day2.input_tokens, day2.output_tokens) == (1, 500, 40)
    day1 = msgnorm.session_usage(path, until="2026-02-01", utc=True, prices=False)
    assert (day1.requests, day1.input_tokens, day1.output_tokens) == (1, 200, 50)


def test_list_sessions_reads_a_rollout(tmp_path: Path) -> None:
    path = rollout(tmp_path)
    claude_session(tmp_path)
    infos = {i.path: i for i in msgnorm.list_sessions(tmp_path)}
    assert len(infos) == 2
    info = infos[str(path)]
    assert info.session_id == SESSION
    assert (info.cwd, info.git_branch, info.model) == ("/work/app", "main", "gpt-5")
    assert info.first_prompt == info.title == "Fix the flaky test"
    assert info.created == "2026-02-01T10:00:00.000Z"
    assert info.last_timestamp == "2026-02-02T09:00:05.000Z"  # the cut last line is skipped
    assert info.size == path.stat().st_size
    assert infos[str(tmp_path / "claude-1.jsonl")].session_id == "claude-1"
