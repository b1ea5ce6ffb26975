"""msgnorm.load_session (SPEC §8, docs/SPEC.md) on hand-built session trees.

The Agent SDK oracle and the generated trees are in test_session_sdk.py; this
module pins each rule of §8 with the smallest file that shows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from support import session_trees as st

SID = "11111111-2222-4333-8444-555555555555"


class Tree:
    """A tiny session writer: records get uuids u1, u2, ... and timestamps in order."""

    def __init__(self, session: str = SID, prefix: str | None = None, **common: Any) -> None:
        self.lines: list[dict[str, Any]] = []
        self.n = 0
        self.session = session
        self.prefix = prefix or session[:4]
        self.common = common

    def _add(self, rec: dict[str, Any], parent: str | None, uuid: str | None) -> str:
        self.n += 1
        u = uuid or f"{self.prefix}-u{self.n}"
        rec = {
            "parentUuid": parent,
            "isSidechain": False,
            "sessionId": self.session,
            "timestamp": f"2026-01-01T00:00:{self.n:02d}.000Z",
            "uuid": u,
            **self.common,
            **rec,
        }
        self.lines.append(rec)
        return u

    def user(self, text: Any, parent: str | None = None, uuid: str | None = None, **kw: Any) -> str:
        return self._add(
            {"type": "user", "message": {"role": "user", "content": text}, **kw}, parent, uuid
        )

    def asst(self, blocks: Any, parent: str | None, mid: str, **kw: Any) -> str:
        msg = {"role": "assistant", "id": mid, "model": "claude", "content": blocks}
        return self._add({"type": "assistant", "message": msg, **kw}, parent, None)

    def result(self, call: str, parent: str, source: str | None = None, **kw: Any) -> str:
        content = [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]
        extra = {"sourceToolAssistantUUID": source} if source else {}
        return self.user(content, parent, **extra, **kw)

    def system(self, subtype: str, parent: str | None, **kw: Any) -> str:
        return self._add({"type": "system", "subtype": subtype, **kw}, parent, None)

    def bytes(self) -> bytes:
        return b"".join(json.dumps(r).encode() + b"\n" for r in self.lines)


def text(t: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t}]


def call(cid: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": cid, "name": "Read", "input": {"p": cid}}]


def uuids(s: msgnorm.Session) -> list[str]:
    return [r["uuid"] for r in s.records]


def repairs(records: Any) -> dict[str, int]:
    return msgnorm.normalize_for_api_report(records)[1]


# --------------------------------------------------------------------------- #
# §8.1 lines
# --------------------------------------------------------------------------- #


def linear() -> Tree:
    t = Tree()
    a = t.user("hi")
    b = t.asst(text("hello"), a, "m1")
    t.user("bye", b)
    return t


def test_broken_lines_are_skipped_and_reported_with_line_and_column() -> None:
    good = linear().bytes().splitlines()
    data = b"\n".join([good[0], b'{"type": "user", "uuid": "x", "mess', good[1], b"", good[2]])
    s = msgnorm.load_session(data)
    assert len(s.records) == 3
    assert [(i.line, i.file) for i in s.report.skipped] == [(2, None)]
    assert s.report.skipped[0].column is not None and s.report.skipped[0].column > 30
    with pytest.raises(msgnorm.JSONDecodeError) as info:
        msgnorm.load_session(data, errors="raise")
    assert info.value.line == 2 and info.value.column > 30


def test_invalid_records_are_skipped_or_raised_with_their_path() -> None:
    good = linear().bytes().splitlines()
    bad = b'{"type": "user", "uuid": "x", "message": "a string"}'
    data = b"\n".join([good[0], bad, b'"a JSON string"', good[1], good[2]])
    s = msgnorm.load_session(data)
    assert len(s.records) == 3
    assert [i.line for i in s.report.skipped] == [2, 3]
    assert "records[1].message" in s.report.skipped[0].reason
    with pytest.raises(msgnorm.InvalidRecordError) as info:
        msgnorm.load_session(data, errors="raise")
    assert info.value.path == "records[1].message" and "line 2" in str(info.value)


def test_two_objects_on_one_line_both_kept_bom_crlf_blank_lines() -> None:
    good = linear().bytes().splitlines()
    data = b"\xef\xbb\xbf" + good[0] + good[1] + b"\r\n\r\n  \r\n" + good[2] + b"\r\n"
    s = msgnorm.load_session(data)
    assert uuids(s) == [json.loads(g)["uuid"] for g in good]
    assert [i.line for i in s.report.repaired] == [1]
    assert s.report.skipped == []


def test_record_after_a_truncated_one_on_the_same_line() -> None:
    good = linear().bytes().splitlines()
    data = good[0] + b"\n" + good[1][:50] + good[1] + b"\n" + good[2]
    s = msgnorm.load_session(data)
    assert len(s.records) == 3
    assert len(s.report.skipped) == 1 and s.report.skipped[0].line == 2


def test_invalid_utf8_skips_only_its_line() -> None:
    good = linear().bytes().splitlines()
    data = b"\n".join([good[0], b'{"type": "x\xff"}', good[1], good[2]])
    s = msgnorm.load_session(data)
    assert len(s.records) == 3 and s.report.skipped[0].line == 2


# --------------------------------------------------------------------------- #
# §8.3 threads, §8.4 the chosen thread
# --------------------------------------------------------------------------- #


def test_fork_main_is_the_latest_leaf_and_branches_are_listed() -> None:
    t = Tree()
    a = t.user("first")
    b = t.asst(text("answer"), a, "m1")
    old = t.user("retry me", b)
    t.asst(text("old answer"), old, "m2")
    new = t.user("edited prompt", b)
    leaf = t.asst(text("new answer"), new, "m3")
    s = msgnorm.load_session(t.bytes())
    assert uuids(s) == [a, b, new, leaf]
    kinds = {th.id: th.kind for th in s.threads}
    assert kinds["main"] == "main" and kinds[f"{SID[:4]}-u4"] == "branch"
    assert s.thread.first_prompt == "first" and s.thread.records == 4
    branch = msgnorm.load_session(t.bytes(), thread=f"{SID[:4]}-u4")
    assert uuids(branch) == [a, b, old, f"{SID[:4]}-u4"]
    # any record selects the branch ending there
    assert uuids(msgnorm.load_session(t.bytes(), thread=b)) == [a, b]
    with pytest.raises(msgnorm.MsgnormError, match="no thread"):
        msgnorm.load_session(t.bytes(), thread="nope")


def parallel() -> Tree:
    t = Tree()
    p = t.user("read three files")
    c1 = t.asst(call("t1"), p, "m1")
    c2 = t.asst(call("t2"), c1, "m1")
    c3 = t.asst(call("t3"), c2, "m1")
    t.result("t1", c1, c1)
    t.result("t2", c2, c2)
    r3 = t.result("t3", c3, c3)
    t.asst(text("done"), r3, "m2")
    return t


def test_parallel_tool_results_are_put_back() -> None:
    t = parallel()
    s = msgnorm.load_session(t.bytes())
    assert len(s.records) == 8 and s.report.recovered == 2
    # the results are put back right after the reply's last record, in file order
    assert [r["uuid"][-2:] for r in s.records] == ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"]
    assert repairs(s.records)["missing_results_inserted"] == 0
    # the parentUuid walk alone reaches only the last result: two invented repairs
    walked = [r for r in s.records if r["uuid"][-2:] not in ("u5", "u6")]
    assert repairs(walked)["missing_results_inserted"] == 2


def test_sidechains_are_their_own_threads_and_do_not_leak_into_main() -> None:
    t = Tree()
    p = t.user("delegate")
    c = t.asst(call("task1"), p, "m1")
    # an in-file sidechain without agentId, then one with
    s1 = t.user("sub task A", None, isSidechain=True)
    t.asst(call("sub1"), s1, "s1", isSidechain=True)
    s2 = t.user("sub task B", None, isSidechain=True, agentId="agent7")
    t.asst(text("B done"), s2, "s2", isSidechain=True, agentId="agent7")
    r = t.result("task1", c, c)
    t.asst(text("all done"), r, "m2")
    s = msgnorm.load_session(t.bytes())
    assert all(not rec["isSidechain"] for rec in s.records) and len(s.records) == 4
    assert repairs(s.records)["missing_results_inserted"] == 0
    agents = {th.id: th for th in s.threads if th.kind == "agent"}
    assert set(agents) == {s1, "agent7"}
    assert agents["agent7"].first_prompt == "sub task B"
    sub = msgnorm.load_session(t.bytes(), thread="agent7")
    assert sub.records[0]["message"]["content"] == "sub task B"


def compacted() -> Tree:
    t = Tree()
    a = t.user("old prompt")
    b = t.asst(text("old answer"), a, "m1")
    c1 = t.system("compact_boundary", None, logicalParentUuid=b, content="Conversation compacted")
    s1 = t.user("summary one", c1, isCompactSummary=True)
    d = t.asst(text("after one"), s1, "m2")
    c2 = t.system("compact_boundary", None, logicalParentUuid=d, content="Conversation compacted")
    s2 = t.user("summary two", c2, isCompactSummary=True)
    t.asst(text("after two"), s2, "m3")
    return t


def test_compaction_starts_at_the_last_boundary_or_crosses_them() -> None:
    t = compacted()
    s = msgnorm.load_session(t.bytes())
    assert [r["type"] for r in s.records] == ["system", "user", "assistant"]
    assert s.records[1]["isCompactSummary"] is True
    assert s.report.compactions == 2 and s.report.before_compaction == 5
    full = msgnorm.load_session(t.bytes(), after_compaction=False)
    assert len(full.records) == 8 and full.report.before_compaction == 0
    assert full.records[0]["message"]["content"] == "old prompt"
    api = msgnorm.normalize_for_api(s.records)
    assert api[0]["message"]["content"] == "summary two"


def test_subagent_files_legacy_agents_and_directories(tmp_path: Path) -> None:
    t = Tree()
    p = t.user("delegate")
    c = t.asst(call("task1"), p, "m1")
    r = t.result("task1", c, c)
    t.asst(text("done"), r, "m2")
    session = tmp_path / f"{SID}.jsonl"
    session.write_bytes(t.bytes())
    sub = Tree(prefix="sub", agentId="abc")
    sp = sub.user("subagent prompt", isSidechain=True)
    sub.asst(text("subagent answer"), sp, "s1", isSidechain=True)
    (tmp_path / SID / "subagents").mkdir(parents=True)
    (tmp_path / SID / "subagents" / "agent-abc.jsonl").write_bytes(sub.bytes())
    legacy = Tree(prefix="legacy")
    lp = legacy.user("legacy prompt", isSidechain=True)
    legacy.asst(text("legacy answer"), lp, "l1", isSidechain=True)
    (tmp_path / "agent-old1.jsonl").write_bytes(legacy.bytes())
    s = msgnorm.load_session(session)
    assert len(s.report.files) == 3 and len(s.records) == 4
    agents = sorted(th.id for th in s.threads if th.kind == "agent")
    assert agents == ["abc", "old1"]
    assert msgnorm.load_session(session, thread="old1").records[0]["uuid"] == lp
    # a resumed session replays the history into a new file: kept once
    resumed = Tree(session="99999999-2222-4333-8444-555555555555")
    resumed.lines = [dict(rec, sessionId=resumed.session) for rec in t.lines]
    resumed.n = t.n
    more = resumed.user("and one more thing", t.lines[-1]["uuid"])
    (tmp_path / f"{resumed.session}.jsonl").write_bytes(resumed.bytes())
    d = msgnorm.load_session(tmp_path)
    assert d.report.duplicate_uuids == 4
    assert uuids(d)[-1] == more and len(d.records) == 5
    assert len(uuids(d)) == len(set(uuids(d)))


def test_cycles_missing_parents_and_duplicates_never_hang() -> None:
    links = [("a", "c", "x"), ("b", "a", "y"), ("c", "b", "z"), ("d", "gone", "w")]
    links.append(("d", "gone", "v"))
    recs = [
        {"type": "user", "uuid": u, "parentUuid": p, "message": {"role": "user", "content": c}}
        for u, p, c in links
    ]
    data = b"\n".join(json.dumps(r).encode() for r in recs)
    s = msgnorm.load_session(data)
    assert s.report.cycles == 1 and s.report.missing_parents == 1
    assert s.report.duplicate_uuids == 1
    assert uuids(s) == ["d"] and s.records[0]["message"]["content"] == "v"
    # the cycle is a thread of its own when asked for
    assert sorted(uuids(msgnorm.load_session(data, thread="a"))) == ["a", "b", "c"]


def test_a_very_long_chain_loads_without_recursion() -> None:
    n = 200_000
    lines = [
        b'{"type":"user","uuid":"r0","parentUuid":null,"message":{"role":"user","content":"go"}}'
    ]
    for i in range(1, n):
        kind = "assistant" if i % 2 else "user"
        lines.append(
            b'{"type":"%s","uuid":"r%d","parentUuid":"r%d","message":{"role":"%s","content":"x"}}'
            % (kind.encode(), i, i - 1, kind.encode())
        )
    s = msgnorm.load_session(b"\n".join(lines), kind="bytes")
    assert len(msgspec.json.decode(s.records)) == n and s.thread.records == n


def test_flat_files_are_read_in_file_order() -> None:
    recs = [
        {
            "type": "user",
            "uuid": "a",
            "parentUuid": None,
            "message": {"role": "user", "content": "x"},
        },
        {"type": "assistant", "uuid": "b", "message": {"role": "assistant", "content": "y"}},
        {
            "type": "user",
            "uuid": "c",
            "parentUuid": None,
            "message": {"role": "user", "content": "z"},
        },
    ]
    s = msgnorm.load_session(b"\n".join(json.dumps(r).encode() for r in recs))
    assert uuids(s) == ["a", "b", "c"] and [t.kind for t in s.threads] == ["main"]


# --------------------------------------------------------------------------- #
# kinds, arguments
# --------------------------------------------------------------------------- #


def test_three_kinds_give_the_same_records() -> None:
    data = parallel().bytes()
    as_dicts = msgnorm.load_session(data).records
    as_bytes = msgnorm.load_session(data, kind="bytes").records
    as_structs = msgnorm.load_session(data, kind="structs").records
    assert msgspec.json.decode(as_bytes) == as_dicts
    assert msgnorm.to_builtins(as_structs) == as_dicts
    assert isinstance(as_structs[0], msgnorm.UserMessage)
    # each record exactly as written
    written = {json.loads(line)["uuid"]: line for line in data.splitlines()}
    for raw in msgspec.json.decode(as_bytes, type=list[msgspec.Raw]):
        rec = json.loads(bytes(raw))
        assert bytes(raw) == written[rec["uuid"]]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"errors": "ignore"}, "errors"),
        ({"kind": "json"}, "kind"),
        ({"thread": 3}, "thread"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(msgnorm.MsgnormError, match=match):
        msgnorm.load_session(linear().bytes(), **kwargs)


def test_missing_path_and_wrong_source_type(tmp_path: Path) -> None:
    with pytest.raises(msgnorm.MsgnormError, match="no session file"):
        msgnorm.load_session(tmp_path / "nope.jsonl")
    with pytest.raises(msgnorm.MsgnormError, match="source"):
        msgnorm.load_session(123)  # type: ignore[arg-type]


def test_empty_input_gives_an_empty_main_thread() -> None:
    s = msgnorm.load_session(b"")
    assert s.records == [] and s.thread.kind == "main" and s.thread.leaf is None
    s = msgnorm.load_session(b'{"type": "summary", "summary": "x"}\n')
    assert s.records == [] and s.report.records == 1


def test_progress_counts_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(parallel().bytes())
    seen: list[int] = []
    msgnorm.load_session(path, progress=seen.append)
    assert sum(seen) == path.stat().st_size


# --------------------------------------------------------------------------
# The example transcripts of examples/sessions/ (every shape real files show)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ex", st.EXAMPLES, ids=lambda e: e.name)
def test_example_transcripts_read_as_written(ex: st.Example) -> None:
    s = msgnorm.load_session(ex.path)
    assert tuple(r["uuid"] for r in s.records) == ex.main
    assert {(t.kind, t.id) for t in s.threads} == ex.threads
    assert tuple(i.line for i in s.report.skipped) == ex.skipped
    assert tuple(i.line for i in s.report.repaired) == ex.repaired
    assert s.report.recovered == ex.recovered
    assert s.report.compactions == ex.compactions
    assert s.report.duplicate_uuids == ex.duplicate_uuids
    # the main thread of a file written by Claude Code needs no invented results
    assert repairs(s.records)["missing_results_inserted"] == 0
    for t in s.threads:
        if t.kind != "main":
            sub = msgnorm.load_session(ex.path, thread=t.id).records
            assert sub and sub[-1]["uuid"] not in ex.main
            if t.kind == "agent":
                assert all(r.get("isSidechain") is True for r in sub)


@pytest.mark.parametrize("ex", [e for e in st.EXAMPLES if e.invalid], ids=lambda e: e.name)
def test_example_invalid_lines_raise_with_their_path(ex: st.Example) -> None:
    lines = ex.path.read_bytes().splitlines()
    for line, path in ex.invalid:
        with pytest.raises(msgnorm.InvalidRecordError) as e:
            msgnorm.load_session(lines[line], errors="raise")
        assert e.value.path == f"records[0]{path}", line


def test_the_examples_cover_every_shape_and_file() -> None:
    files = {p.relative_to(st.EXAMPLES_DIR.parent) for p in st.example_files()}
    named = {Path("sessions") / e.name for e in st.EXAMPLES}
    agents = {p for p in files if "subagents" in p.parts}
    assert files == named | agents | {Path("session.jsonl")}
    assert {p.parts[1] for p in agents} == {st.EXAMPLES[2].path.stem}
    kinds = {k for e in st.EXAMPLES for k, _ in e.threads}
    assert kinds == {"main", "branch", "agent"}
    assert all(any(getattr(e, f) for e in st.EXAMPLES) for f in ("skipped", "repaired", "invalid"))
    assert all(any(getattr(e, f) for e in st.EXAMPLES) for f in ("recovered", "compactions"))
