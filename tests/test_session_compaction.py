"""msgnorm.load_session on what Claude Code writes beyond the plain tree
(docs/SPEC.md §8.4–§8.6): partial compaction (a preserved segment relinked
after the summary), microcompaction, tool results offloaded to
``<session>/tool-results/``, subagent sidecars (``agent-<id>.meta.json``), and
each record's file and line. Every case is a hand-written transcript.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from test_session import SID, Tree, call, text, uuids


def partial(anchor_is_boundary: bool = False, listed: bool = False) -> tuple[Tree, dict[str, str]]:
    """p1 a1 p2 a2 | p3 a3 (preserved) | boundary, summary | p4 a4: the summary
    covers p1..a2, p3..a3 are kept as written (their parents still the old chain)."""
    t = Tree()
    ids: dict[str, str] = {}
    ids["p1"] = t.user("first prompt")
    ids["a1"] = t.asst(text("one"), ids["p1"], "m1")
    ids["p2"] = t.user("second prompt", ids["a1"])
    ids["a2"] = t.asst(text("two"), ids["p2"], "m2")
    ids["p3"] = t.user("kept prompt", ids["a2"])
    ids["a3"] = t.asst(text("kept answer"), ids["p3"], "m3")
    t.n += 2  # the boundary and summary get the next two uuids
    b_uuid, s_uuid = f"{t.prefix}-u{t.n - 1}", f"{t.prefix}-u{t.n}"
    t.n -= 2
    anchor = b_uuid if anchor_is_boundary else s_uuid
    meta: dict[str, Any] = {"trigger": "manual", "preTokens": 1000}
    if listed:
        meta["preservedMessages"] = {"anchorUuid": anchor, "uuids": [ids["p3"], ids["a3"]]}
    else:
        meta["preservedSegment"] = {
            "headUuid": ids["p3"],
            "anchorUuid": anchor,
            "tailUuid": ids["a3"],
        }
    ids["b"] = t.system(
        "compact_boundary",
        None,
        content="Conversation compacted",
        logicalParentUuid=ids["a3"],
        compactMetadata=meta,
    )
    ids["s"] = t.user("summary of p1..a2", ids["b"], isCompactSummary=True)
    assert (ids["b"], ids["s"]) == (b_uuid, s_uuid)
    # Claude Code goes on from the last record it holds: the tail, or the summary.
    ids["p4"] = t.user("after the compaction", ids["s"] if anchor_is_boundary else ids["a3"])
    ids["a4"] = t.asst(text("four"), ids["p4"], "m4")
    return t, ids


def test_partial_compaction_relinks_the_preserved_segment_after_the_summary() -> None:
    t, i = partial()
    s = msgnorm.load_session(t.bytes())
    assert uuids(s) == [i["b"], i["s"], i["p3"], i["a3"], i["p4"], i["a4"]]
    assert s.report.preserved == 2 and s.report.unlinked_segments == 0
    assert s.report.compactions == 1 and s.report.before_compaction == 4
    assert "2 preserved record(s) relinked" in s.report.summary()
    # no branch ends at the end of what the summary covers
    assert [th.kind for th in s.threads] == ["main"]
    api = msgnorm.normalize_for_api(s.records)
    # the summary and the kept prompt are one user turn, then the kept answer
    first = [b["text"].strip() for b in api[0]["message"]["content"]]
    assert first == ["summary of p1..a2", "kept prompt"]
    assert api[1]["message"]["content"][0]["text"] == "kept answer"
    # the whole history is as written, each record once
    full = msgnorm.load_session(t.bytes(), after_compaction=False)
    assert full.report.preserved == 0
    assert len(uuids(full)) == len(set(uuids(full)))
    assert uuids(full)[:6] == [i[k] for k in ("p1", "a1", "p2", "a2", "p3", "a3")]


def test_partial_compaction_preserved_messages_list() -> None:
    t, i = partial(listed=True)
    s = msgnorm.load_session(t.bytes())
    assert uuids(s) == [i["b"], i["s"], i["p3"], i["a3"], i["p4"], i["a4"]]
    assert s.report.preserved == 2


def test_partial_compaction_anchored_at_the_boundary_keeps_the_prefix_first() -> None:
    t, i = partial(anchor_is_boundary=True)
    s = msgnorm.load_session(t.bytes())
    # head -> boundary, the boundary's other child (the summary) -> tail
    assert uuids(s) == [i["b"], i["p3"], i["a3"], i["s"], i["p4"], i["a4"]]


def test_a_broken_or_stale_segment_is_left_as_written() -> None:
    t, i = partial()
    # the tail's walk does not reach the head: nothing is relinked
    t.lines[6]["compactMetadata"]["preservedSegment"]["headUuid"] = "nowhere"
    s = msgnorm.load_session(t.bytes())
    assert s.report.unlinked_segments == 1 and s.report.preserved == 0
    # as Claude Code does then, the thread is the history as written (no boundary on it)
    assert uuids(s) == [i[k] for k in ("p1", "a1", "p2", "a2", "p3", "a3", "p4", "a4")]
    # a later full compaction makes the segment stale: only the last boundary counts
    t, i = partial()
    b2 = t.system("compact_boundary", None, logicalParentUuid=i["a4"], compactMetadata={})
    s2 = t.user("summary two", b2, isCompactSummary=True)
    t.user("go on", s2)
    s = msgnorm.load_session(t.bytes())
    assert s.report.preserved == 0 and uuids(s)[0] == b2


def test_a_segment_that_would_close_a_loop_is_refused() -> None:
    t, i = partial()
    # the anchor is inside the segment
    t.lines[6]["compactMetadata"]["preservedSegment"]["anchorUuid"] = i["a3"]
    s = msgnorm.load_session(t.bytes())
    assert s.report.unlinked_segments == 1 and s.report.cycles == 0


def microcompacted() -> tuple[Tree, dict[str, str]]:
    t = Tree()
    p = t.user("read both files")
    c1 = t.asst(call("toolu_1"), p, "m1")
    r1 = t.result("toolu_1", c1)
    c2 = t.asst(call("toolu_2"), r1, "m2")
    r2 = t.result("toolu_2", c2)
    mc = t.system(
        "microcompact_boundary",
        r2,
        content="Context microcompacted",
        microcompactMetadata={
            "trigger": "auto",
            "preTokens": 50000,
            "tokensSaved": 20000,
            "compactedToolIds": ["toolu_1", "toolu_elsewhere"],
            "clearedAttachmentUUIDs": [],
        },
    )
    a = t.asst(text("done"), mc, "m3")
    return t, {"p": p, "c1": c1, "r1": r1, "c2": c2, "r2": r2, "mc": mc, "a": a}


def test_microcompaction_is_read_inline_and_its_cleared_results_are_named() -> None:
    t, i = microcompacted()
    s = msgnorm.load_session(t.bytes())
    assert uuids(s) == [i[k] for k in ("p", "c1", "r1", "c2", "r2", "mc", "a")]
    assert s.report.microcompactions == 1
    # only results on the thread, before the boundary, are named
    assert s.report.cleared_results == ["toolu_1"]
    assert "1 result(s) cleared by 1 microcompaction(s)" in s.report.summary()
    # the records are as written: the cleared result keeps its text
    assert s.records[2]["message"]["content"][0]["content"] == "ok"
    assert len(msgnorm.normalize_for_api(s.records)) == 6


def write_project(tmp_path: Path, t: Tree) -> Path:
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(t.bytes())
    return path


PREVIEW = (
    "<persisted-output>\nOutput too large (6.6MB). Full output saved to: "
    "{path}\n\nPreview (first 2KB):\nline 1\n</persisted-output>"
)


def offloaded(tmp_path: Path, name: str, windows: bool = False) -> tuple[Path, Tree]:
    folder = tmp_path / SID / "tool-results"
    shown = (
        f"C:\\Users\\me\\.claude\\projects\\p\\{SID}\\tool-results\\{name}"
        if windows
        else str(folder / name)
    )
    t = Tree()
    p = t.user("run it")
    c = t.asst(call("toolu_big"), p, "m1")
    t.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_big",
                "content": PREVIEW.format(path=shown),
            }
        ],
        c,
    )
    c2 = t.asst(call("toolu_list"), f"{SID[:4]}-u3", "m2")
    block = [{"type": "text", "text": PREVIEW.format(path=str(folder / "b.txt"))}]
    t.user([{"type": "tool_result", "tool_use_id": "toolu_list", "content": block}], c2)
    return write_project(tmp_path, t), t


def test_offloaded_tool_results_are_read_back_on_request(tmp_path: Path) -> None:
    path, _ = offloaded(tmp_path, "a.txt")
    folder = tmp_path / SID / "tool-results"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("line 1\nline 2\nline 3\n")
    (folder / "b.txt").write_text("the whole listing")
    plain = msgnorm.load_session(path)
    assert plain.records[2]["message"]["content"][0]["content"].startswith("<persisted-output>")
    assert plain.report.tool_results_read == 0
    s = msgnorm.load_session(path, tool_results=True)
    assert s.records[2]["message"]["content"][0]["content"] == "line 1\nline 2\nline 3\n"
    assert s.records[4]["message"]["content"][0]["content"][0]["text"] == "the whole listing"
    assert s.report.tool_results_read == 2 and s.report.tool_results_missing == []
    # every kind gets the same records
    as_bytes = msgnorm.load_session(path, tool_results=True, kind="bytes")
    assert json.loads(as_bytes.records) == s.records
    structs = msgnorm.load_session(path, tool_results=True, kind="structs")
    assert [msgspec.to_builtins(r) for r in structs.records][2]["message"]["content"][0][
        "content"
    ] == "line 1\nline 2\nline 3\n"


def test_offloaded_results_missing_or_outside_the_folder_are_kept(tmp_path: Path) -> None:
    path, _ = offloaded(tmp_path, "gone.txt", windows=True)
    # a file elsewhere with the same name is never read: only the session's folder is
    (tmp_path / "gone.txt").write_text("not this")
    s = msgnorm.load_session(path, tool_results=True)
    assert s.records[2]["message"]["content"][0]["content"].startswith("<persisted-output>")
    assert s.report.tool_results_missing == ["toolu_big", "toolu_list"]
    assert "2 offloaded tool result(s) not found" in s.report.summary()


def test_a_windows_path_reads_the_file_by_name(tmp_path: Path) -> None:
    path, _ = offloaded(tmp_path, "w.txt", windows=True)
    folder = tmp_path / SID / "tool-results"
    folder.mkdir(parents=True)
    (folder / "w.txt").write_text("from windows")
    s = msgnorm.load_session(path, tool_results=True)
    assert s.records[2]["message"]["content"][0]["content"] == "from windows"
    assert s.report.tool_results_missing == ["toolu_list"]


def test_origins_name_each_records_file_and_line(tmp_path: Path) -> None:
    t, i = partial()
    path = write_project(tmp_path, t)
    s = msgnorm.load_session(path)
    assert len(s.origins) == len(s.records)
    by_uuid = {r["uuid"]: n + 1 for n, r in enumerate(t.lines)}
    assert s.origins == [(str(path), by_uuid[u]) for u in uuids(s)]
    b = msgnorm.load_session(t.bytes())
    assert b.origins[0] == (None, by_uuid[i["b"]])


def agent_project(tmp_path: Path, meta: dict[str, Any] | str | None) -> Path:
    """A session whose Agent call toolu_A started subagent `ab12` (its own file)."""
    t = Tree()
    p = t.user("delegate it")
    c = t.asst([{"type": "tool_use", "id": "toolu_A", "name": "Task", "input": {}}], p, "m1")
    t.result("toolu_A", c)
    path = write_project(tmp_path, t)
    sub = tmp_path / SID / "subagents"
    sub.mkdir(parents=True)
    a = Tree(prefix="ag", agentId="ab12", isSidechain=True)
    q = a.user("the task")
    a.asst(text("done"), q, "am1")
    (sub / "agent-ab12.jsonl").write_bytes(a.bytes())
    if isinstance(meta, str):
        (sub / "agent-ab12.meta.json").write_text(meta)
    elif meta is not None:
        (sub / "agent-ab12.meta.json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize(
    ("meta", "want"),
    [
        ({"agentType": "general-purpose", "toolUseId": "toolu_A"}, ("toolu_A", None)),
        ({"toolUseId": "toolu_A", "parentAgentId": "p9"}, ("toolu_A", "p9")),
        ({"toolUseId": 7, "parentAgentId": None}, (None, None)),
        ("{not json", (None, None)),
        ("[1, 2]", (None, None)),
        (None, (None, None)),
    ],
)
def test_agent_meta_sidecar_links_a_subagent_to_its_tool_call(
    tmp_path: Path, meta: Any, want: tuple[str | None, str | None]
) -> None:
    path = agent_project(tmp_path, meta)
    s = msgnorm.load_session(path)
    agent = next(th for th in s.threads if th.kind == "agent")
    assert agent.id == "ab12"
    assert (agent.parent_tool_use_id, agent.parent_agent_id) == want
    assert s.thread.parent_tool_use_id is None


def test_agent_parent_ids_agree_with_the_agent_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sdk = pytest.importorskip("claude_agent_sdk")
    if not hasattr(sdk, "get_subagent_messages"):
        pytest.skip("this claude-agent-sdk has no get_subagent_messages")
    cases = [
        {"toolUseId": "toolu_A", "parentAgentId": "p9"},
        {"toolUseId": "toolu_A"},
        {"toolUseId": ["x"], "parentAgentId": "p9"},
        "not json",
    ]
    for n, meta in enumerate(cases):
        config = tmp_path / f"c{n}"
        project = config / "projects" / "-tmp-proj"
        project.mkdir(parents=True)
        path = agent_project(project, meta)
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
        got = sdk.get_subagent_messages(SID, "ab12")
        assert got, "the SDK found the subagent"
        theirs = {(m.parent_tool_use_id, m.parent_agent_id) for m in got}
        agent = next(th for th in msgnorm.load_session(path).threads if th.kind == "agent")
        assert theirs == {(agent.parent_tool_use_id, agent.parent_agent_id)}, meta
