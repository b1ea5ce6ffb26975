"""msgnorm.load_session against an outside oracle: the official claude-agent-sdk.

The SDK reads session files the way Claude Code does
(``get_session_messages``: pick the leaf, walk ``parentUuid``, put parallel
tool calls back; ``get_subagent_messages``: a subagent file's chain). Here:

(a) the generator's books (tests/support/session_trees.py) agree with the SDK on many
    seeds, so they are a second oracle (runs without load_session);
(b) load_session's main thread is the SDK's chain, on every generated tree
    every example transcript and every file of the external corpus
    (``MSGNORM_CORPUS``);
(c) agent threads are the SDK's subagent chains (except where a subagent ran
    tools in parallel: msgnorm puts those back, the SDK does not);
(d) normalize_for_api on the loaded thread inserts no missing tool result
    that a flat reading or a plain walk of the same file would;
(e) compaction: the thread starts at the last compact boundary by default;
    ``after_compaction=False`` gives the whole history.

Deliberate differences from the SDK (each has its own test): a line holding
several JSON values keeps them all, a BOM does not cost the first line, an
invalid record is left out (the SDK keeps it and may take it as the leaf).
Where those occur, msgnorm is compared with the SDK reading the repaired file
(``Session.sdk_data``).

The seed count is MSGNORM_SESSION_SEEDS (default 120).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support import external

sdk = pytest.importorskip(
    "claude_agent_sdk",
    reason="the oracle of these tests is the official claude-agent-sdk "
    "(pip install claude-agent-sdk)",
)

from support import session_trees as st  # noqa: E402
from support.session_trees import Rec, Session, SessionBuilder  # noqa: E402

_sdk_sessions: ModuleType | None
try:  # the SDK's chain builder itself, for checks finer than its public API
    _sdk_sessions = importlib.import_module("claude_agent_sdk._internal.sessions")
except ImportError:  # pragma: no cover - depends on the SDK version
    _sdk_sessions = None

SEEDS = list(range(int(os.environ.get("MSGNORM_SESSION_SEEDS", "120"))))
# The example transcripts' session files and the external corpus's (tests/support/external.py);
# not damaged.jsonl, whose BOM and doubled line §8.1 repairs where the SDK drops the lines.
SESSION_FILES = [e.path for e in st.EXAMPLES if not e.repaired] + external.corpus_sessions()
test_external_corpus = external.corpus_check
TRANSCRIPT = ("user", "assistant", "system", "attachment", "progress")


@functools.cache
def session(seed: int) -> Session:
    return st.random_session(seed)


def seeds_with(feature: str) -> list[int]:
    return [seed for seed in SEEDS if feature in session(seed).features]


# --------------------------------------------------------------------------
# fixtures and oracle helpers
# --------------------------------------------------------------------------


@pytest.fixture
def mn() -> ModuleType:
    """msgnorm (the test is skipped only when it cannot be imported)."""
    try:
        import msgnorm
    except ImportError as exc:
        pytest.skip(f"msgnorm is not importable ({exc}); build it with `maturin develop`")
    return msgnorm


@dataclass
class Dirs:
    raw: Path  # what msgnorm reads: the files as written
    view: Path  # CLAUDE_CONFIG_DIR of the SDK: the same files, repaired lines repaired

    def write(self, s: Session) -> Path:
        st.write_session(self.view, s, sdk_view=True)
        return st.write_session(self.raw, s)


Fresh = Callable[[object], Dirs]


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fresh:
    """``fresh(name)``: new config dirs under tmp_path/name, the SDK pointed at them."""

    def make(name: object) -> Dirs:
        base = tmp_path / str(name)
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(base / "sdk"))
        return Dirs(base / "raw", base / "sdk")

    return make


@pytest.fixture
def dirs(fresh: Fresh) -> Dirs:
    return fresh("one")


def chunks(seeds: list[int], size: int = 10) -> list[Any]:
    """Seeds in groups, one test item each (pytest's per-item cost dominates)."""
    return [
        pytest.param(seeds[i : i + size], id=f"seeds{seeds[i]}-{seeds[i : i + size][-1]}")
        for i in range(0, len(seeds), size)
    ]


def each_session(
    seeds: list[int], fresh: Fresh | None, check: Callable[[Session, Path], None]
) -> None:
    """Runs ``check(session, path)`` for every seed of a group (``path``: the session
    written to ``fresh(seed)``'s dirs, when given), then fails naming every seed that
    failed (an assertion, or an error of the code under test)."""
    failures: list[str] = []
    for seed in seeds:
        try:
            s = session(seed)
            check(s, fresh(seed).write(s) if fresh else Path())
        except Exception as exc:
            failures.append(f"seed {seed}: {type(exc).__name__}: {exc}"[:3000])
    if failures:
        pytest.fail(
            f"{len(failures)} seed(s) failed\n\n" + "\n\n".join(failures[:4]),
            pytrace=False,
        )


def internal() -> Any:
    names = (
        "_parse_transcript_entries",
        "_build_conversation_chain",
        "_recover_orphaned_parallel_tool_results",
    )
    if _sdk_sessions is None or not all(hasattr(_sdk_sessions, n) for n in names):
        pytest.skip("this claude-agent-sdk has no _internal.sessions chain builder")
    return _sdk_sessions


def sdk_messages(session_id: str) -> list[str]:
    return [m.uuid for m in sdk.get_session_messages(session_id)]


def sdk_agent_messages(session_id: str, agent_id: str) -> list[str]:
    return [m.uuid for m in sdk.get_subagent_messages(session_id, agent_id)]


def sdk_entries(data: bytes) -> list[Rec]:
    # the SDK reads the file as text with universal newlines
    text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    entries: list[Rec] = internal()._parse_transcript_entries(text)
    return entries


def sdk_chain(data: bytes) -> list[str]:
    """Every record (all types) of the SDK's main chain, before it keeps only
    the visible messages."""
    return [e["uuid"] for e in internal()._build_conversation_chain(sdk_entries(data))]


def sdk_full_chain(data: bytes) -> list[str]:
    """The SDK's chain across compactions: its chain builder on the entries with
    each compact boundary linked to its ``logicalParentUuid`` (the SDK itself
    stops at a boundary)."""
    entries = [
        {**e, "parentUuid": e["logicalParentUuid"]}
        if e.get("subtype") == "compact_boundary" and e.get("logicalParentUuid")
        else e
        for e in sdk_entries(data)
    ]
    return [e["uuid"] for e in internal()._build_conversation_chain(entries)]


def sdk_chain_from_leaf(data: bytes, leaf: str) -> list[str]:
    """The SDK's chain as if ``leaf`` were the chosen leaf: its parentUuid walk
    (same rules as _build_conversation_chain) and its parallel-call recovery."""
    entries = list(sdk_entries(data))
    by_uuid = {e["uuid"]: e for e in entries}
    chain = st.naive_walk(entries, leaf)
    seen = {e["uuid"] for e in chain}
    out = internal()._recover_orphaned_parallel_tool_results(by_uuid, chain, seen)
    return [e["uuid"] for e in out]


def uuids(records: list[Rec]) -> list[str]:
    return [r["uuid"] for r in records]


def missing_inserted(mn: ModuleType, records: list[Rec]) -> int:
    count: int = mn.normalize_for_api_report(records)[1]["missing_results_inserted"]
    return count


def thread(threads: list[Any], **fields: Any) -> Any:
    found = [t for t in threads if all(getattr(t, k) == v for k, v in fields.items())]
    assert len(found) == 1, f"expected one thread with {fields}, got {found} in {threads}"
    return found[0]


def linear(seed: int = 0, turns: int = 3, **kw: Any) -> SessionBuilder:
    """A plain session: ``turns`` prompts each answered by one tool call and a reply."""
    b = SessionBuilder(seed, **kw)
    for _ in range(turns):
        b.main.prompt(snapshot=False)
        b.main.tools(1)
        b.main.reply()
    return b


# --------------------------------------------------------------------------
# (a) the generator agrees with the SDK (needs no load_session)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_generator_main_thread_is_the_sdk_chain(seeds: list[int], fresh: Fresh) -> None:
    def check(s: Session, path: Path) -> None:
        assert sdk_messages(s.session_id) == s.visible
        assert sdk_chain(s.sdk_data) == s.main
        assert sdk_full_chain(s.sdk_data) == s.full

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_generator_branches_are_sdk_walks(seeds: list[int]) -> None:
    def check(s: Session, path: Path) -> None:
        for leaf, walk in s.branches.items():
            assert sdk_chain_from_leaf(s.sdk_data, leaf) == walk, s.branch_kinds[leaf]
        for agent in s.agents.values():
            if agent.file is None:  # in the session file
                assert sdk_chain_from_leaf(s.sdk_data, agent.path[-1]) == agent.path

    each_session(seeds, None, check)


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_generator_subagents_are_sdk_subagent_chains(seeds: list[int], fresh: Fresh) -> None:
    def check(s: Session, path: Path) -> None:
        in_files = {a.agent_id for a in s.agents.values() if a.file is not None}
        assert sorted(sdk.list_subagents(s.session_id)) == sorted(in_files)
        for aid in in_files:
            agent = s.agents[aid]
            walk = st.message_uuids([s.records[u] for u in agent.walk])
            assert sdk_agent_messages(s.session_id, aid) == walk
            # a subagent that ran parallel calls loses some of them in a plain walk
            assert (agent.path != agent.walk) == agent.parallel

    each_session(seeds, fresh, check)


def test_generator_covers_every_feature() -> None:
    seen: set[str] = set()
    for seed in SEEDS:
        seen |= session(seed).features
    assert st.ALL_FEATURES <= seen, f"no seed exercises {sorted(st.ALL_FEATURES - seen)}"
    # the trees are not trivial: threads are long, many have branches and agents
    assert sum(len(session(seed).main) for seed in SEEDS) > 15 * len(SEEDS)
    assert sum(1 for seed in SEEDS if session(seed).branches) > len(SEEDS) // 3
    assert sum(1 for seed in SEEDS if session(seed).recovered) > len(SEEDS) // 3


def test_generator_is_deterministic() -> None:
    a, b, c = st.random_session(7), st.random_session(7), st.random_session(8)
    assert a.data == b.data and a.subagents == b.subagents and a.main == b.main
    assert a.data != c.data


def test_sdk_loses_a_bom_line_and_both_values_of_a_concatenated_line(dirs: Dirs) -> None:
    """SDK behaviour the loader deliberately does not copy (documented here)."""
    b = linear(1)
    b.bom = True  # the first line holds the first prompt
    assert b.concat()
    s = b.build()
    assert s.repaired_lines and s.records[s.main[0]]["type"] == "user"
    st.write_session(dirs.view, s)  # the raw bytes, for the SDK this time
    raw = sdk_messages(s.session_id)
    assert raw != s.visible
    assert s.main[0] not in raw  # the BOM line: json.loads rejects "\ufeff{...}"
    st.write_session(dirs.view, s, sdk_view=True)
    assert sdk_messages(s.session_id) == s.visible


def test_sdk_picks_an_older_branch_when_the_file_ends_with_a_meta_record(dirs: Dirs) -> None:
    """_build_conversation_chain leaves meta leaves out of ``main_leaves``: when the
    newest record is meta, the newest *other* leaf wins, here the abandoned branch."""
    b = linear(2, turns=2)
    m = b.main
    assert m.fork(kind="edit") == "edit"
    m.prompt("edited prompt", snapshot=False)
    m.reply()
    m.meta("<system-reminder>the session ends here</system-reminder>")
    s = b.build()
    (old_leaf,) = s.branches
    dirs.write(s)
    old = [u for u in s.branches[old_leaf] if st.is_visible(s.records[u])]
    assert sdk_messages(s.session_id) == old
    assert sdk_messages(s.session_id) != s.visible


def agent_with_parallel_tools(seed: int = 3) -> tuple[Session, st.Agent]:
    b = SessionBuilder(seed)
    b.main.prompt(snapshot=False)
    (child,) = b.main.task(1, layout="file", agent_parallel=True, agent_tools=0)
    # the subagent runs three calls, finishing 1st, 3rd, 2nd: a plain walk keeps
    # calls 1-2 and the 2nd result only
    child.tools(3, order=[0, 2, 1])
    child.reply("done")
    b.main.reply()
    s = b.build()
    assert child.agent_id is not None
    return s, s.agents[child.agent_id]


def test_sdk_subagent_reader_does_not_put_parallel_calls_back(dirs: Dirs) -> None:
    s, agent = agent_with_parallel_tools()
    dirs.write(s)
    assert agent.path != agent.walk
    walk = st.message_uuids([s.records[u] for u in agent.walk])
    assert sdk_agent_messages(s.session_id, agent.agent_id) == walk


# --------------------------------------------------------------------------
# (b) the main thread is the SDK's chain
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_main_thread_matches_sdk(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        loaded = mn.load_session(path)
        records = loaded.records
        assert st.visible_uuids(records) == sdk_messages(s.session_id)
        assert uuids(records) == sdk_chain(s.sdk_data)
        assert all(
            r["type"] in ("user", "assistant", "system", "attachment", "progress") for r in records
        )
        t = loaded.thread
        assert (t.kind, t.id, t.leaf, t.session_id) == ("main", "main", s.leaf, s.session_id)
        assert t.records == len(records)
        assert t.file is not None and Path(t.file).name == s.file_name
        assert t.last_timestamp == records[-1]["timestamp"]
        assert thread(loaded.threads, kind="main").leaf == s.leaf

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(SEEDS[::6]))
def test_sources_and_kinds_agree(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        want = mn.load_session(path).records
        assert mn.load_session(str(path)).records == want
        assert mn.load_session(path.read_bytes()).records == want
        assert mn.to_builtins(mn.load_session(path, kind="structs").records) == want
        as_bytes = mn.load_session(path, kind="bytes").records
        assert isinstance(as_bytes, bytes) and json.loads(as_bytes) == want

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_branch_threads(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        threads = mn.load_session(path).threads
        for leaf, want in s.branches.items():
            t = thread(threads, leaf=leaf)
            if s.branch_kinds[leaf] != "sidechain":
                assert (t.kind, t.id) == ("branch", leaf)
            got = mn.load_session(path, thread=leaf)
            assert uuids(got.records) == want
            assert got.thread.leaf == leaf

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(seeds_with("recovered")))
def test_parallel_results_are_not_branches(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    """The results of a parallel turn fan out from different parents; they are
    part of the main thread, not leaves of other threads."""

    def check(s: Session, path: Path) -> None:
        loaded = mn.load_session(path)
        on_main = set(uuids(loaded.records))
        branch_leaves = {t.leaf for t in loaded.threads if t.kind == "branch"}
        assert not branch_leaves & on_main
        assert branch_leaves >= {leaf for leaf, k in s.branch_kinds.items() if k != "sidechain"}

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_report(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        report = mn.load_session(path).report
        assert s.file_name in {Path(f).name for f in report.files}
        for rel in s.subagents:
            if rel.endswith(".jsonl"):
                assert Path(rel).name in {Path(f).name for f in report.files}
        assert report.duplicate_uuids == s.duplicates
        assert (report.missing_parents > 0) == (s.missing_parents > 0)
        assert (report.cycles > 0) == (s.cycles > 0)
        assert report.compactions == s.compactions
        # the records the full history has and the default thread leaves out,
        # parallel records put back before the last boundary included
        assert report.before_compaction == len(s.full) - len(s.main)
        assert report.recovered == s.recovered
        # lines of the session file
        here = [
            i for i in report.skipped if i.file is not None and Path(i.file).name == s.file_name
        ]
        skipped = {i.line for i in here}
        assert set(s.skipped_lines) <= skipped
        assert not skipped & {s.line_of[u] for u in s.main}
        repaired = {i.line for i in report.repaired if Path(i.file or "").name == s.file_name}
        assert repaired == set(s.repaired_lines)

    each_session(seeds, fresh, check)


def test_truncated_line_raises_with_its_position(dirs: Dirs, mn: ModuleType) -> None:
    b = linear(4)
    assert b.truncate_prompt()
    s = b.build()
    path = dirs.write(s)
    (line,) = s.skipped_lines
    with pytest.raises(mn.JSONDecodeError) as info:
        mn.load_session(path, errors="raise")
    assert info.value.line == line
    assert isinstance(info.value.column, int) and info.value.column >= 1
    loaded = mn.load_session(path)  # errors="skip"
    assert [i.line for i in loaded.report.skipped] == [line]
    assert st.visible_uuids(loaded.records) == sdk_messages(s.session_id) == s.visible


def test_invalid_record_is_left_out_where_the_sdk_keeps_it(dirs: Dirs, mn: ModuleType) -> None:
    b = linear(5)
    bad = b.decoy_invalid()  # {"type": "user", "message": "error", ...} written last
    s = b.build()
    path = dirs.write(s)
    st.write_session(dirs.view, s)  # the raw file, for the SDK
    assert sdk_messages(s.session_id)[-1] == bad["uuid"]  # the SDK's leaf
    loaded = mn.load_session(path)
    assert st.visible_uuids(loaded.records) == s.visible
    assert bad["uuid"] not in uuids(loaded.records)
    assert s.invalid_lines == [i.line for i in loaded.report.skipped]
    with pytest.raises(mn.InvalidRecordError):
        mn.load_session(path, errors="raise")


def test_bom_crlf_and_concatenated_lines_are_kept(dirs: Dirs, mn: ModuleType) -> None:
    b = linear(6, turns=4)
    b.bom, b.newline = True, "\r\n"
    assert b.concat() and b.concat()
    b.blank()
    s = b.build()
    path = dirs.write(s)
    loaded = mn.load_session(path)
    assert st.visible_uuids(loaded.records) == s.visible == sdk_messages(s.session_id)
    assert sorted(i.line for i in loaded.report.repaired) == s.repaired_lines
    assert not {i.line for i in loaded.report.skipped} & set(s.line_of.values())


def test_line_breaks_inside_strings_are_not_line_ends(dirs: Dirs, mn: ModuleType) -> None:
    """U+2028, U+2029 and U+0085 are written raw by Claude Code; str.splitlines()
    would break a JSON Lines file there."""
    b = SessionBuilder(9)
    for text in ("one\u2028two", "three\u2029four", "five\x85six"):
        b.main.prompt(text, snapshot=False)
        b.main.reply()
    s = b.build()
    loaded = mn.load_session(dirs.write(s))
    assert st.visible_uuids(loaded.records) == s.visible == sdk_messages(s.session_id)
    assert loaded.report.skipped == [] and loaded.report.repaired == []


def test_thread_fields_of_a_plain_session(dirs: Dirs, mn: ModuleType) -> None:
    b = SessionBuilder(10)
    b.main.prompt("Fix the failing test", snapshot=False)
    b.main.tools(1)
    b.main.reply()
    b.main.prompt("Now run the linter", snapshot=False)
    b.main.reply()
    s = b.build()
    loaded = mn.load_session(dirs.write(s))
    t = loaded.thread
    assert t.first_prompt == "Fix the failing test"
    assert t.last_timestamp == s.records[s.main[-1]]["timestamp"]
    assert t.records == len(s.main) == len(loaded.records)
    info = sdk.get_session_info(s.session_id)
    assert info is not None and info.first_prompt == t.first_prompt


def test_project_directory_source(dirs: Dirs, mn: ModuleType) -> None:
    sessions = [session(seed) for seed in SEEDS[:3]]
    for s in sessions:
        path = dirs.write(s)
    project = path.parent
    loaded = mn.load_session(project)
    assert {t.session_id for t in loaded.threads} >= {s.session_id for s in sessions}
    assert len([t for t in loaded.threads if t.kind == "main"]) == 1
    for s in sessions:
        one = mn.load_session(project, thread=s.session_id)
        assert st.visible_uuids(one.records) == sdk_messages(s.session_id)
        assert one.thread.session_id == s.session_id
        if one.thread.kind != "main":
            assert (one.thread.kind, one.thread.id) == ("session", s.session_id)


def test_session_of_sidechains_only(dirs: Dirs, mn: ModuleType) -> None:
    """An old agent file on its own: no main leaf; the SDK falls back to the
    newest leaf (all sidechain, so it shows nothing)."""
    b = SessionBuilder(11)
    b.decoy_sidechain()
    s = b.build()
    path = dirs.write(s)
    (leaf,) = s.branches
    assert sdk_messages(s.session_id) == []
    assert sdk_chain(s.sdk_data) == s.branches[leaf]
    loaded = mn.load_session(path)
    assert uuids(loaded.records) == s.branches[leaf]
    assert st.visible_uuids(loaded.records) == []


def test_main_thread_follows_sdk_when_the_file_ends_with_a_meta_record(
    dirs: Dirs, mn: ModuleType
) -> None:
    """See test_sdk_picks_an_older_branch_when_the_file_ends_with_a_meta_record:
    the leaf is chosen like the SDK's, quirk included."""
    b = linear(2, turns=2)
    b.main.fork(kind="edit")
    b.main.prompt("edited prompt", snapshot=False)
    b.main.reply()
    b.main.meta("<system-reminder>the session ends here</system-reminder>")
    s = b.build()
    path = dirs.write(s)
    loaded = mn.load_session(path)
    assert st.visible_uuids(loaded.records) == sdk_messages(s.session_id)
    assert uuids(loaded.records) == sdk_chain(s.sdk_data)


# ---- the corpus ----------------------------------------------------------


def _corpus_view(data: bytes, mn: ModuleType) -> bytes:
    """The file without the lines msgnorm must leave out as invalid records
    (judged one at a time by normalize_for_api): the SDK keeps those."""
    out = []
    for line in data.split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            out.append(line)  # both readers skip it
            continue
        try:
            mn.normalize_for_api([value])
        except mn.InvalidRecordError:
            continue
        out.append(line)
    return b"\n".join(out)


def _copy_corpus_file(src: Path, dirs: Dirs, mn: ModuleType) -> tuple[str, Path]:
    """Copy a corpus file (and its subagent files) into both config dirs, the
    SDK's copy without invalid records. A name that is not a UUID gets one (the
    SDK reads only UUID-named session files). Returns the id and msgnorm's path."""
    try:
        sid = str(uuid.UUID(src.stem))
    except ValueError:
        sid = str(uuid.uuid5(uuid.NAMESPACE_URL, src.name))
    data = src.read_bytes()
    for root, content in ((dirs.raw, data), (dirs.view, _corpus_view(data, mn))):
        proj = root / "projects" / st.PROJECT
        proj.mkdir(parents=True, exist_ok=True)
        (proj / f"{sid}.jsonl").write_bytes(content)
        for f in sorted((src.parent / src.stem).rglob("*")):  # subagents/agent-*.jsonl
            if f.is_file():
                target = proj / sid / f.relative_to(src.parent / src.stem)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(f.read_bytes())
    return sid, dirs.raw / "projects" / st.PROJECT / f"{sid}.jsonl"


@pytest.mark.parametrize("src", SESSION_FILES, ids=external.file_id)
def test_corpus_main_thread_matches_sdk(src: Path, dirs: Dirs, mn: ModuleType) -> None:
    sid, path = _copy_corpus_file(src, dirs, mn)
    loaded = mn.load_session(path)
    view = (dirs.view / "projects" / st.PROJECT / f"{sid}.jsonl").read_bytes()
    valid = [
        v
        for v in st.read_values(view)
        if isinstance(v, dict) and v.get("type") in TRANSCRIPT and isinstance(v.get("uuid"), str)
    ]
    ids = {v["uuid"] for v in valid}
    if not any(v.get("parentUuid") in ids for v in valid):
        # a flat transcript (§8.3, on purpose unlike the SDK, which returns one record)
        assert len(sdk_messages(sid)) <= 1 < len(valid)
        assert uuids(loaded.records) == [v["uuid"] for v in valid]
    else:  # written by Claude Code: every call of the thread has its result
        assert st.visible_uuids(loaded.records) == sdk_messages(sid)
        assert uuids(loaded.records) == sdk_chain(view)
        assert missing_inserted(mn, loaded.records) == 0


@pytest.mark.parametrize(
    "src", [p for p in SESSION_FILES if (p.parent / p.stem).is_dir()], ids=external.file_id
)
def test_corpus_agents_match_sdk(src: Path, dirs: Dirs, mn: ModuleType) -> None:
    sid, path = _copy_corpus_file(src, dirs, mn)
    agent_ids = sdk.list_subagents(sid)
    assert agent_ids, "the corpus session should have subagent files"
    threads = mn.load_session(path).threads
    for aid in agent_ids:
        assert thread(threads, kind="agent", id=aid).agent_id == aid
        loaded = mn.load_session(path, thread=aid)
        assert st.message_uuids(loaded.records) == sdk_agent_messages(sid, aid)


# --------------------------------------------------------------------------
# (c) agents
# --------------------------------------------------------------------------


def agent_file_cases() -> list[Any]:
    """Seed groups with subagent files: in subagents/ and, nested, in
    subagents/workflows/<run>/ (the SDK finds these too)."""
    return [
        pytest.param(p.values[0], nested, id=f"{feature}-{p.id}")
        for feature, nested in (("task:file", False), ("task:nested", True))
        for p in chunks(seeds_with(feature))
    ]


@pytest.mark.parametrize(("seeds", "nested"), agent_file_cases())
def test_agents_match_sdk(seeds: list[int], nested: bool, fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        threads = mn.load_session(path).threads
        for agent in s.agents.values():
            if agent.file is None or ("/workflows/" in agent.file) != nested:
                continue  # in-file agents: their own test
            t = thread(threads, kind="agent", id=agent.agent_id)
            assert (t.agent_id, t.session_id) == (agent.agent_id, s.session_id)
            assert t.file is not None and Path(t.file).name == Path(agent.file).name
            loaded = mn.load_session(path, thread=agent.agent_id)
            assert loaded.thread.kind == "agent"
            assert uuids(loaded.records) == agent.path
            if not agent.parallel:
                got = st.message_uuids(loaded.records)
                assert got == sdk_agent_messages(s.session_id, agent.agent_id)

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(seeds_with("task:infile")))
def test_in_file_agents(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    """Older versions wrote subagents into the session file (isSidechain, agentId)."""

    def check(s: Session, path: Path) -> None:
        threads = mn.load_session(path).threads
        for agent in s.agents.values():
            if agent.file is not None:
                continue
            assert thread(threads, kind="agent", id=agent.agent_id).leaf == agent.path[-1]
            loaded = mn.load_session(path, thread=agent.agent_id)
            assert uuids(loaded.records) == agent.path

    each_session(seeds, fresh, check)


def test_agent_parallel_tools_deliberate_difference(dirs: Dirs, mn: ModuleType) -> None:
    """A subagent that ran tools in parallel: the SDK's subagent reader walks
    parentUuid only and loses calls and results; msgnorm puts them back."""
    s, agent = agent_with_parallel_tools()
    path = dirs.write(s)
    loaded = mn.load_session(path, thread=agent.agent_id)
    assert uuids(loaded.records) == agent.path
    sdk_view = sdk_agent_messages(s.session_id, agent.agent_id)
    assert st.message_uuids(loaded.records) != sdk_view
    assert set(sdk_view) < set(uuids(loaded.records))
    assert missing_inserted(mn, loaded.records) == 0
    walked = [s.records[u] for u in agent.walk]
    assert missing_inserted(mn, walked) > 0


# --------------------------------------------------------------------------
# (d) the loaded thread needs no invented tool results
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seeds", chunks(SEEDS))
def test_loaded_thread_needs_no_invented_results(
    seeds: list[int], fresh: Fresh, mn: ModuleType
) -> None:
    """Only calls that really lost their result (a crash at the end) get one."""

    def check(s: Session, path: Path) -> None:
        for after in (True, False):
            records = mn.load_session(path, after_compaction=after).records
            assert missing_inserted(mn, records) == s.open_calls
            assert mn.normalize_for_api(records)

    each_session(seeds, fresh, check)


def straw_man_case(case: str) -> tuple[Session, str]:
    """A tree that a naive reading gets wrong, and which naive reading."""
    b = SessionBuilder(20)
    m = b.main
    m.prompt(snapshot=False)
    m.reply()
    if case == "fork":  # a branch left with a call whose result was never written
        m.prompt(snapshot=False)
        m.tools(1)
        m.reply()
        assert m.fork(open_call=True, kind="edit") == "edit"
        m.prompt("edited", snapshot=False)
        m.tools(1)
        m.reply()
        return b.build(), "flat"
    if case == "sidechain":  # an old in-file subagent between a call and its result
        m.prompt(snapshot=False)
        m.task(1, layout="infile-noid")
        m.reply()
        return b.build(), "flat"
    if case == "stray":  # another branch's prompt and answer written mid-turn
        m.end_turn()
        m.prompt(snapshot=False)
        m.tools(2, interleave=lambda: m.stray_branch(reply=True))
        m.reply()
        return b.build(), "flat"
    if case == "parallel":  # three calls finishing 1st, 3rd, 2nd
        m.prompt(snapshot=False)
        m.tools(3, order=[0, 2, 1])
        m.reply()
        return b.build(), "walk"
    raise ValueError(case)


STRAW_MEN = ["fork", "sidechain", "stray", "parallel"]


def straw_man_records(s: Session, how: str) -> list[Rec]:
    flat = st.flat_records(s.data)
    if how == "flat":
        return flat
    assert s.leaf is not None
    return st.naive_walk(flat, s.leaf)


@pytest.mark.parametrize("case", STRAW_MEN)
def test_straw_men_invent_results(case: str, mn: ModuleType) -> None:
    """The premise of the next test: a naive reading of these trees makes
    normalize_for_api insert missing results; the generator's thread does not."""
    s, how = straw_man_case(case)
    assert s.open_calls == 0
    assert missing_inserted(mn, straw_man_records(s, how)) > 0
    assert missing_inserted(mn, [s.records[u] for u in s.main]) == 0


@pytest.mark.parametrize("case", STRAW_MEN)
def test_loaded_thread_invents_no_results_where_naive_readings_do(
    case: str, dirs: Dirs, mn: ModuleType
) -> None:
    s, how = straw_man_case(case)
    path = dirs.write(s)
    loaded = mn.load_session(path)
    assert uuids(loaded.records) == s.main
    assert missing_inserted(mn, loaded.records) == 0
    assert missing_inserted(mn, straw_man_records(s, how)) > 0
    if how == "walk":
        assert loaded.report.recovered == s.recovered > 0


# --------------------------------------------------------------------------
# (e) compaction
# --------------------------------------------------------------------------


def _starts_at_boundary(s: Session) -> bool:
    return bool(s.main) and s.records[s.main[0]].get("subtype") == "compact_boundary"


@pytest.mark.parametrize(
    "seeds", chunks([x for x in seeds_with("compaction") if _starts_at_boundary(session(x))])
)
def test_compaction_starts_at_the_last_boundary(
    seeds: list[int], fresh: Fresh, mn: ModuleType
) -> None:
    def check(s: Session, path: Path) -> None:
        loaded = mn.load_session(path)
        records = loaded.records
        assert records[0]["type"] == "system" and records[0]["subtype"] == "compact_boundary"
        assert records[0]["parentUuid"] is None
        assert records[1]["type"] == "user" and records[1]["isCompactSummary"] is True
        assert records[1]["parentUuid"] == records[0]["uuid"]
        boundaries = [u for u in s.full if s.records[u].get("subtype") == "compact_boundary"]
        assert records[0]["uuid"] == boundaries[-1]
        assert uuids(records) == s.main
        assert loaded.report.compactions == len(boundaries)
        assert loaded.report.before_compaction == len(s.full) - len(s.main) > 0

    each_session(seeds, fresh, check)


@pytest.mark.parametrize("seeds", chunks(seeds_with("compaction")))
def test_compaction_full_history(seeds: list[int], fresh: Fresh, mn: ModuleType) -> None:
    def check(s: Session, path: Path) -> None:
        loaded = mn.load_session(path, after_compaction=False)
        records = loaded.records
        assert uuids(records) == s.full
        for i, r in enumerate(records):
            if r.get("subtype") == "compact_boundary" and i:
                assert r["logicalParentUuid"] == records[i - 1]["uuid"]
        assert loaded.report.compactions == s.compactions
        assert loaded.report.before_compaction == 0  # nothing is left out
        assert loaded.report.recovered == s.recovered_full
        assert missing_inserted(mn, records) == s.open_calls

    each_session(seeds, fresh, check)


def test_two_compactions(dirs: Dirs, mn: ModuleType) -> None:
    b = linear(30, turns=2)
    first, _ = b.main.compact()
    b.main.prompt(snapshot=False)
    b.main.tools(2)
    b.main.reply()
    second, summary = b.main.compact()
    b.main.prompt(snapshot=False)
    b.main.reply()
    s = b.build()
    path = dirs.write(s)
    assert sdk_messages(s.session_id) == s.visible  # the SDK stops at the boundary too
    default = mn.load_session(path)
    assert uuids(default.records)[:2] == [second["uuid"], summary["uuid"]]
    assert uuids(default.records) == s.main
    assert default.report.compactions == 2
    full = mn.load_session(path, after_compaction=False)
    assert uuids(full.records) == s.full
    assert [r["uuid"] for r in full.records if r.get("subtype") == "compact_boundary"] == [
        first["uuid"],
        second["uuid"],
    ]
    assert missing_inserted(mn, full.records) == 0
