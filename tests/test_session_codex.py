"""msgnorm.load_session on Codex rollouts (docs/SPEC.md §8.7): hand-written
``rollout-….jsonl`` files in the shape Codex writes (``session_meta``,
``response_item``, ``turn_context``, ``event_msg``, ``compacted`` lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest

SESSION = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


class Rollout:
    """Writes rollout lines with timestamps in order."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def add(self, kind: str, payload: Any) -> int:
        n = len(self.lines) + 1
        ts = f"2026-02-01T10:00:{n:02d}.000Z"
        self.lines.append({"timestamp": ts, "type": kind, "payload": payload})
        return n

    def item(self, payload: dict[str, Any]) -> int:
        return self.add("response_item", payload)

    def bytes(self) -> bytes:
        return b"".join(json.dumps(r).encode() + b"\n" for r in self.lines)


def msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def rollout() -> tuple[Rollout, dict[str, int]]:
    r = Rollout()
    at: dict[str, int] = {}
    r.add(
        "session_meta",
        {
            "id": SESSION,
            "timestamp": "2026-02-01T10:00:00.000Z",
            "cwd": "/work/app",
            "originator": "codex_cli_rs",
            "cli_version": "0.50.0",
            "instructions": None,
            "git": {"branch": "main"},
        },
    )
    at["dev"] = r.item(msg("developer", "<permissions instructions>sandboxed</permissions>"))
    at["env"] = r.item(
        msg("user", "<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>")
    )
    r.add("turn_context", {"cwd": "/work/app", "model": "gpt-5-codex", "approval_policy": "never"})
    at["prompt"] = r.item(msg("user", "Fix the flaky test in tests/test_io.py"))
    r.add("event_msg", {"type": "user_message", "message": "Fix the flaky test", "images": []})
    at["reasoning"] = r.item(
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "**Looking at the test**"}],
            "content": None,
            "encrypted_content": "gAAAAB-opaque",
        }
    )
    r.item(
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", "pytest -x tests/test_io.py"]}),
            "call_id": "call_sh1",
        }
    )
    at["out1"] = r.item(
        {
            "type": "function_call_output",
            "call_id": "call_sh1",
            "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}}),
        }
    )
    at["ghost"] = r.item(
        {"type": "ghost_snapshot", "ghost_commit": {"id": "abc123", "parent": None}}
    )
    at["patch"] = r.item(
        {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "call_ap1",
            "name": "apply_patch",
            "input": "*** Begin Patch\n*** Update File: tests/test_io.py\n@@\n-x\n+y\n*** End Patch",
        }
    )
    at["out2"] = r.item(
        {
            "type": "custom_tool_call_output",
            "call_id": "call_ap1",
            "output": "Success. Updated 1 file.",
        }
    )
    r.add(
        "event_msg",
        {
            "type": "token_count",
            "info": {
                "total_token_usage": {
                    "input_tokens": 9000,
                    "cached_input_tokens": 8000,
                    "output_tokens": 300,
                    "reasoning_output_tokens": 100,
                    "total_tokens": 9300,
                }
            },
        },
    )
    at["answer"] = r.item(msg("assistant", "The test waited on a fixed sleep; it now polls."))
    return r, at


def write(tmp_path: Path, r: Rollout) -> Path:
    path = tmp_path / f"rollout-2026-02-01T10-00-00-{SESSION}.jsonl"
    path.write_bytes(r.bytes())
    return path


def call_ids(items: list[dict[str, Any]], kind: str) -> list[str]:
    return [i["call_id"] for i in items if i.get("type") == kind]


def test_a_rollout_loads_as_a_session(tmp_path: Path) -> None:
    r, at = rollout()
    path = write(tmp_path, r)
    s = msgnorm.load_session(path)
    assert s.thread.session_id == SESSION and s.thread.kind == "main"
    assert s.thread.first_prompt == "Fix the flaky test in tests/test_io.py"
    assert s.thread.last_timestamp == r.lines[-1]["timestamp"]
    assert s.report.client_only == 1 and "1 client-only item(s) left out" in s.report.summary()
    kinds = [(x["type"], x.get("subtype")) for x in s.records]
    assert kinds == [
        ("system", "system_prompt"),  # the developer message
        ("user", None),
        ("user", None),
        ("assistant", None),  # reasoning + shell call
        ("user", None),
        ("assistant", None),  # apply_patch
        ("user", None),
        ("assistant", None),
    ]
    # each record names the rollout line it came from
    lines = [line for _, line in s.origins]
    assert lines == [
        at["dev"],
        at["env"],
        at["prompt"],
        at["reasoning"],
        at["out1"],
        at["patch"],
        at["out2"],
        at["answer"],
    ]
    assert {f for f, _ in s.origins} == {str(path)}


def test_every_call_comes_back_out_and_client_only_items_do_not(tmp_path: Path) -> None:
    r, _ = rollout()
    s = msgnorm.load_session(write(tmp_path, r))
    out = msgnorm.to_provider(s.records, "openai-responses")
    items = out if isinstance(out, list) else out["input"]
    assert call_ids(items, "function_call") == ["call_sh1"]
    assert call_ids(items, "function_call_output") == ["call_sh1"]
    assert call_ids(items, "custom_tool_call") == ["call_ap1"]
    assert call_ids(items, "custom_tool_call_output") == ["call_ap1"]
    assert not [i for i in items if i.get("type") == "ghost_snapshot"]
    reasoning = [i for i in items if i.get("type") == "reasoning"]
    assert reasoning and reasoning[0]["encrypted_content"] == "gAAAAB-opaque"
    patch = next(i for i in items if i.get("type") == "custom_tool_call")
    assert patch["input"].startswith("*** Begin Patch")


def test_bytes_crlf_bom_and_broken_lines() -> None:
    r, _ = rollout()
    data = b"\xef\xbb\xbf" + r.bytes().replace(b"\n", b"\r\n")
    lines = data.split(b"\r\n")
    lines.insert(5, b'{"timestamp": "x", "type": "response_item", "payload": {"type": "mess')
    lines.insert(7, b"")
    broken = b"\r\n".join(lines)
    s = msgnorm.load_session(broken)
    assert len(s.records) == 8
    assert [(i.line, i.file) for i in s.report.skipped] == [(6, None)]
    with pytest.raises(msgnorm.JSONDecodeError, match="line 6"):
        msgnorm.load_session(broken, errors="raise")


def test_an_item_the_responses_reader_refuses_is_skipped_with_its_line() -> None:
    r, _ = rollout()
    bad = r.item({"type": "function_call", "name": "shell", "arguments": "{}"})  # no call_id
    s = msgnorm.load_session(r.bytes())
    assert [(i.line, i.reason) for i in s.report.skipped] == [
        (bad, "payload.call_id: missing required field (a string)")
    ]
    with pytest.raises(msgnorm.InvalidRecordError, match=f"line {bad}"):
        msgnorm.load_session(r.bytes(), errors="raise")


def test_compacted_replacement_history_restarts_the_thread() -> None:
    r, _ = rollout()
    summary = msg("user", "Summary: the flaky test now polls.")
    at = r.add(
        "compacted",
        {
            "message": "",
            "replacement_history": [
                msg("user", "Fix the flaky test"),
                summary,
                {"type": "ghost_snapshot", "ghost_commit": {}},
            ],
        },
    )
    after = r.item(msg("user", "Now run the whole suite"))
    s = msgnorm.load_session(r.bytes())
    assert s.report.compactions == 1 and s.report.before_compaction == 8
    assert [line for _, line in s.origins] == [at, at, after]
    assert s.report.client_only == 2
    full = msgnorm.load_session(r.bytes(), after_compaction=False)
    assert len(full.records) == 9 and full.report.before_compaction == 0


def test_a_rollout_is_loaded_on_its_own_and_has_one_thread(tmp_path: Path) -> None:
    r, _ = rollout()
    write(tmp_path, r)
    (tmp_path / "other.jsonl").write_bytes(r.bytes())
    with pytest.raises(msgnorm.MsgnormError, match="Codex rollout"):
        msgnorm.load_session(tmp_path)
    assert len(msgnorm.load_session(r.bytes(), thread=SESSION).records) == 8
    with pytest.raises(msgnorm.MsgnormError, match="one thread"):
        msgnorm.load_session(r.bytes(), thread="agent-1")


def test_other_item_shapes_load_and_come_back_out() -> None:
    r = Rollout()
    r.add("session_meta", {"id": SESSION, "cwd": "/w"})
    r.item({"type": "message", "role": "user", "content": "plain string prompt"})
    r.item(
        {
            "type": "local_shell_call",
            "call_id": "call_ls1",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls"]},
        }
    )
    r.item({"type": "local_shell_call_output", "call_id": "call_ls1", "output": "a\nb"})
    r.item(
        {
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "pytest flaky"},
        }
    )
    r.item({"type": "function_call", "name": "view", "arguments": "{}", "call_id": "call_v"})
    r.item(
        {
            "type": "function_call_output",
            "call_id": "call_v",
            "output": [{"type": "input_text", "text": "viewed"}],
        }
    )
    r.item({"type": "compaction", "encrypted_content": "enc"})
    r.item({"type": "other"})
    r.item(msg("assistant", "done"))
    s = msgnorm.load_session(r.bytes())
    assert s.report.client_only == 1 and s.report.skipped == []
    items = msgnorm.to_provider(s.records, "openai-responses")
    assert call_ids(items, "local_shell_call") == ["call_ls1"]
    assert call_ids(items, "local_shell_call_output") == ["call_ls1"]
    assert call_ids(items, "function_call") == ["call_v"]
    assert [i["type"] for i in items].count("web_search_call") == 1
    assert [i["type"] for i in items].count("compaction") == 1
    assert len(s.origins) == len(s.records)


def test_three_kinds_give_the_same_records() -> None:
    r, _ = rollout()
    dicts = msgnorm.load_session(r.bytes()).records
    assert json.loads(msgnorm.load_session(r.bytes(), kind="bytes").records) == dicts
    structs = msgnorm.load_session(r.bytes(), kind="structs").records
    assert msgnorm.to_builtins(structs) == dicts
