"""list_sessions / ``msgnorm sessions`` and search_sessions / ``msgnorm search``."""

from __future__ import annotations

import json
from pathlib import Path

import msgnorm
import pytest
from msgnorm.cli import main
from support import external
from support.usage_sessions import write_project

CORPUS = external.CORPUS


def line(**rec: object) -> str:
    return json.dumps(rec)


def test_every_session_file_is_listed(tmp_path: Path) -> None:
    files = write_project(tmp_path / "projects", seed=3, sessions=7)
    sessions = {f for f in files if not f.name.startswith("agent-")}
    # a projects directory (one level of project directories) and a project directory
    for d in (tmp_path / "projects", tmp_path / "projects" / "-home-user-proj"):
        infos = msgnorm.list_sessions(d)
        assert {Path(i.path) for i in infos} == sessions
        assert [i.modified for i in infos] == sorted((i.modified for i in infos), reverse=True)
    for i in infos:
        recs = [
            json.loads(x)
            for x in Path(i.path).read_text().splitlines()
            if x.startswith("{") and x.endswith("}")
        ]
        assert i.session_id == next(r["sessionId"] for r in recs if "sessionId" in r)
        assert i.size == Path(i.path).stat().st_size
        stamps = [r["timestamp"] for r in recs if "timestamp" in r]
        assert (i.created, i.last_timestamp) == (stamps[0], stamps[-1])
        titles = [r["customTitle"] for r in recs if r.get("type") == "custom-title"]
        prompts = [r["message"]["content"] for r in recs if r.get("type") == "user"]
        assert i.title == (titles[-1] if titles else " ".join(prompts[0].split()))
        models = [
            r["message"]["model"]
            for r in recs
            if r.get("type") == "assistant" and r["message"]["model"] != "<synthetic>"
        ]
        assert i.model == models[-1]
        assert (i.cwd, i.git_branch) == (next(r["cwd"] for r in recs if "cwd" in r), "main")


def test_only_the_head_and_tail_are_read(tmp_path: Path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    f = d / "s.jsonl"
    head = [
        line(type="summary", summary="old summary", leafUuid="x"),
        line(
            type="user",
            sessionId="s1",
            cwd="/w",
            gitBranch="b1",
            timestamp="2026-01-01T00:00:00Z",
            message={"role": "user", "content": "<command-name>/clear</command-name>"},
        ),
        line(
            type="user",
            sessionId="s1",
            timestamp="2026-01-01T00:00:01Z",
            isMeta=True,
            message={"role": "user", "content": "meta text"},
        ),
        line(
            type="user",
            sessionId="s1",
            timestamp="2026-01-01T00:00:02Z",
            message={"role": "user", "content": [{"type": "text", "text": "Real   prompt\nhere"}]},
        ),
    ]
    middle = [line(type="custom-title", customTitle="in the middle, never read")]
    filler = line(
        type="assistant",
        timestamp="2026-01-01T00:01:00Z",
        message={"model": "m1", "content": "x" * 2000},
    )
    tail = [
        line(
            type="assistant",
            gitBranch="b2",
            timestamp="2026-01-02T00:00:00Z",
            message={"model": "m2", "content": []},
        )
    ]
    lines = head + [filler] * 60 + middle + [filler] * 60 + tail
    f.write_text("\n".join(lines) + "\n")
    assert f.stat().st_size > 3 * 64 * 1024
    (i,) = msgnorm.list_sessions(d)
    assert i.custom_title is None  # the middle is not read
    assert i.title == "old summary" and i.summary == "old summary"
    assert i.first_prompt == "Real prompt here"
    assert (i.session_id, i.cwd, i.git_branch, i.model) == ("s1", "/w", "b2", "m2")
    assert (i.created, i.last_timestamp) == ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")


def test_cli_sessions_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = write_project(tmp_path, seed=5, sessions=5)
    assert main(["sessions", str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert {d["path"] for d in doc} == {str(f) for f in files if not f.name.startswith("agent-")}
    assert set(doc[0]) >= {
        "session_id",
        "title",
        "created",
        "modified",
        "size",
        "cwd",
        "git_branch",
        "model",
    }
    assert main(["sessions", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 + len(doc) and "5 session(s)" in err
    assert main(["sessions", str(tmp_path / "nope")]) == 2


# --- search -----------------------------------------------------------------


def oracle(root: Path, query: str, tools: bool) -> list[tuple[str, int]]:
    """(path, line) of every user/assistant record whose decoded text holds query."""
    q = query.lower()
    out = []
    for f in sorted(root.rglob("*.jsonl")):
        for n, raw in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError:
                continue
            if not isinstance(rec, dict) or rec.get("type") not in ("user", "assistant"):
                continue
            msg = rec.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            texts = []
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                for b in content:
                    if not isinstance(b, dict):
                        continue
                    if b.get("type") == "text":
                        texts.append(b["text"])
                    elif tools and b.get("type") == "tool_use":
                        texts.append(json.dumps(b["input"], ensure_ascii=False))
                    elif tools and b.get("type") == "tool_result":
                        c = b.get("content")
                        if isinstance(c, str):
                            texts.append(c)
                        elif isinstance(c, list):
                            texts += [
                                x["text"]
                                for x in c
                                if isinstance(x, dict) and x.get("type") == "text"
                            ]
            if any(q in t.lower() for t in texts):
                out.append((str(f), n))
    return out


@pytest.mark.parametrize(
    "query", ["needle", "NEEDLE", "ünïcode", '"quoted"', "path/to", "tab\t", "fix test"]
)
def test_search_equals_a_decoded_substring_search(tmp_path: Path, query: str) -> None:
    write_project(tmp_path, seed=9, sessions=6)
    hits = msgnorm.search_sessions(tmp_path, query)
    want = oracle(tmp_path, query, tools=False)
    assert [(h.path, h.line) for h in hits] == want
    assert want, query
    for h in hits:
        assert query.lower().split()[0].strip('"') in h.snippet.lower()
        assert h.role in ("user", "assistant") and h.uuid


def test_search_escapes_tools_and_regex(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    recs = [
        '{"type":"user","uuid":"u1","sessionId":"s","timestamp":"t1","message":{"role":"user","content":"caf\\u00e9 \\"au\\" lait\\/soir"}}',
        line(
            type="assistant",
            uuid="u2",
            message={
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t",
                        "name": "Bash",
                        "input": {"command": "grep Café"},
                    }
                ]
            },
        ),
        line(
            type="user",
            uuid="u3",
            message={
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "café found"}]
            },
        ),
        line(type="summary", summary="café"),
        line(
            type="assistant",
            uuid="u4",
            message={"content": [{"type": "thinking", "thinking": "café"}]},
        ),
    ]
    f.write_text("\n".join(recs) + "\n")
    assert [h.uuid for h in msgnorm.search_sessions(tmp_path, "CAFÉ")] == ["u1"]
    assert [h.uuid for h in msgnorm.search_sessions(tmp_path, '"au" lait/soir')] == ["u1"]
    tools = msgnorm.search_sessions(tmp_path, "café", tools=True)
    assert [(h.uuid, h.field) for h in tools] == [
        ("u1", "text"),
        ("u2", "tool_use"),
        ("u3", "tool_result"),
    ]
    assert [h.uuid for h in msgnorm.search_sessions(tmp_path, r"caf. .au", regex=True)] == ["u1"]
    assert msgnorm.search_sessions(tmp_path, r"CAFÉ", regex=True) == []
    assert [h.uuid for h in msgnorm.search_sessions(tmp_path, r"(?i)CAFÉ", regex=True)] == ["u1"]
    with pytest.raises(ValueError, match="invalid pattern"):
        msgnorm.search_sessions(tmp_path, "(", regex=True)
    with pytest.raises(ValueError, match="empty"):
        msgnorm.search_sessions(tmp_path, "")


def test_search_snippet_has_context_on_one_line(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    text = "a" * 200 + "\nNeedle\n" + "b" * 200
    f.write_text(line(type="user", uuid="u", message={"role": "user", "content": text}) + "\n")
    (h,) = msgnorm.search_sessions(f, "needle")
    assert h.snippet == "…" + "a" * 59 + " Needle " + "b" * 59 + "…"


def test_cli_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_project(tmp_path, seed=9, sessions=4)
    assert main(["search", str(tmp_path), "needle", "--json"]) == 0
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert [(d["path"], d["line"]) for d in doc] == oracle(tmp_path, "needle", tools=False)
    assert main(["search", str(tmp_path), "needle"]) == 0
    out, _ = capsys.readouterr()
    assert len(out.splitlines()) == len(doc)
    assert main(["search", str(tmp_path), "zzzz-not-there"]) == 1
    assert main(["search", str(tmp_path), "(", "--regex"]) == 2


@pytest.mark.skipif(external.CORPUS is None, reason="MSGNORM_CORPUS is not set")
def test_real_sessions_listed_and_searched() -> None:
    infos = msgnorm.list_sessions(CORPUS)
    want = [
        p
        for p in list(CORPUS.glob("*.jsonl")) + list(CORPUS.glob("*/*.jsonl"))
        if not p.name.startswith("agent-")
    ]
    assert len(infos) == len(want) >= 9
    for q in ("curry", "the", "package.json"):
        assert [(h.path, h.line) for h in msgnorm.search_sessions(CORPUS, q, tools=True)] == oracle(
            CORPUS, q, tools=True
        )
