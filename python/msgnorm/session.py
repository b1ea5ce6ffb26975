"""Claude Code session files in: the conversation Claude Code itself would send.

A session transcript is a tree of records linked by ``parentUuid`` (forks from
edited prompts, subagent sidechains, parallel tool calls, compactions), written
with the odd broken line.  :func:`load_session` reads it forgivingly and picks
one thread, the way Claude Code resumes a session; the tree work runs in the
Rust core.  The contract is SPEC §8 (``docs/SPEC.md``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Literal

import msgspec

from . import _native
from .errors import MsgnormError
from .model._convert import _decode_own

__all__ = ["LineIssue", "LoadReport", "Session", "Thread", "load_session", "session_files"]

Kind = Literal["dicts", "structs", "bytes"]
_KINDS = ("dicts", "structs", "bytes")
_READ_CHUNK = 1 << 22
#: Recursion kept free for the decoders' own calls and the caller's.
_FIT_MARGIN = 50


class LineIssue(msgspec.Struct, frozen=True, kw_only=True):
    """A line that was skipped, or read in an unusual way."""

    #: The file it is in (``None`` for bytes given directly).
    file: str | None
    #: 1-based line number.
    line: int
    #: 1-based column in characters, where the problem starts (``None``: the whole line).
    column: int | None
    reason: str


class Thread(msgspec.Struct, frozen=True, kw_only=True):
    """One thread of a session: the main conversation, a branch, another session
    of a directory, or a subagent's conversation."""

    #: What ``thread=`` takes to select it: ``"main"``, a leaf uuid, a session id
    #: or an agent id.
    id: str
    kind: Literal["main", "branch", "session", "agent"]
    #: The uuid of its last user/assistant record.
    leaf: str | None
    session_id: str | None
    agent_id: str | None
    #: The file its leaf is in.
    file: str | None
    #: Records from its start (its root, or its last compaction) to its leaf; for
    #: the chosen thread, the records returned (parallel tool records included).
    records: int
    #: The first prompt of the conversation (first line, at most 200 characters).
    first_prompt: str
    last_timestamp: str | None
    #: For a subagent: the id of the Agent tool call that started it, from its
    #: ``agent-<id>.meta.json`` sidecar (``toolUseId``).
    parent_tool_use_id: str | None = None
    #: For a nested subagent: the agent that started it (``parentAgentId``).
    parent_agent_id: str | None = None


class LoadReport(msgspec.Struct, frozen=True, kw_only=True):
    """What :func:`load_session` found and did."""

    files: list[str]
    lines: int
    records: int
    #: Lines, or records of a line, left out (broken JSON, invalid records).
    skipped: list[LineIssue]
    #: Lines holding several JSON values back to back, each read as a record.
    repaired: list[LineIssue]
    #: Records whose uuid an earlier record had (replayed across files); the last is kept.
    duplicate_uuids: int
    #: ``parentUuid``/``logicalParentUuid`` values that name no record.
    missing_parents: int
    #: ``parentUuid`` cycles met (each walk stops there).
    cycles: int
    #: Tool calls and results of parallel tool turns put back on the chosen thread.
    recovered: int
    #: Compactions on the chosen thread's whole history.
    compactions: int
    #: Records of the chosen thread left out because they precede its last compaction
    #: (the default thread is a suffix of the ``after_compaction=False`` one).
    before_compaction: int
    #: Records of partial compactions' preserved segments, relinked after their summary.
    preserved: int = 0
    #: Preserved segments left as written (their metadata names a missing record,
    #: or the walk from ``tailUuid`` does not reach ``headUuid``).
    unlinked_segments: int = 0
    #: ``microcompact_boundary`` records on the chosen thread.
    microcompactions: int = 0
    #: Tool call ids of the results on the chosen thread that a microcompaction
    #: after them cleared (Claude Code sent them as cleared from then on).
    cleared_results: list[str] = msgspec.field(default_factory=list)
    #: Offloaded tool results read back from ``<session>/tool-results/``
    #: (``tool_results=True``).
    tool_results_read: int = 0
    #: Tool call ids of offloaded results whose file is not there (kept as written).
    tool_results_missing: list[str] = msgspec.field(default_factory=list)
    #: Codex rollouts: response items that are no API input (``ghost_snapshot``, ...),
    #: left out.
    client_only: int = 0

    def summary(self) -> str:
        """One line: what was skipped, repaired and left out."""
        parts = []
        if self.skipped:
            lines = ", ".join(str(i.line) for i in self.skipped[:5])
            more = ", ..." if len(self.skipped) > 5 else ""
            parts.append(f"skipped {len(self.skipped)} broken line(s) ({lines}{more})")
        if self.repaired:
            parts.append(f"split {len(self.repaired)} line(s) holding several records")
        cleared = f"result(s) cleared by {self.microcompactions} microcompaction(s)"
        counted = (
            (self.duplicate_uuids, "repeated uuid(s) kept once"),
            (self.missing_parents, "missing parent(s)"),
            (self.cycles, "parentUuid cycle(s) cut"),
            (self.recovered, "parallel tool record(s) put back"),
            (self.preserved, "preserved record(s) relinked after their summary"),
            (self.unlinked_segments, "preserved segment(s) left as written"),
            (len(self.cleared_results), cleared),
            (self.tool_results_read, "offloaded tool result(s) read back"),
            (len(self.tool_results_missing), "offloaded tool result(s) not found"),
            (self.client_only, "client-only item(s) left out"),
        )
        parts += [f"{n} {what}" for n, what in counted if n]
        if self.before_compaction:
            parts.append(
                f"started after the last of {self.compactions} compaction(s) "
                f"({self.before_compaction} earlier record(s) left out)"
            )
        elif self.compactions:
            parts.append(f"{self.compactions} compaction(s) crossed")
        return "; ".join(parts) if parts else "nothing skipped"


class Session(msgspec.Struct, kw_only=True):
    """A loaded session: the chosen thread's records, every thread, the report."""

    #: The chosen thread's records in order, of the kind asked for: dicts, msgnorm
    #: Structs, or JSON ``bytes`` (an array). Ready for ``normalize_for_api``.
    records: Any
    thread: Thread
    threads: list[Thread]
    report: LoadReport
    #: Per record: the file it was read from (``None`` for bytes given directly)
    #: and its 1-based line.
    origins: list[tuple[str | None, int]] = msgspec.field(default_factory=list)

    def summary(self) -> str:
        """One line: which thread was chosen, among how many, and the report."""
        t = self.thread
        leaf = f", leaf {t.leaf}" if t.leaf else ""
        return (
            f"thread {t.id} ({t.kind}{leaf}): {t.records} record(s) of {self.report.records}, "
            f"{len(self.threads)} thread(s) in {len(self.report.files)} file(s); "
            + self.report.summary()
        )


def _agent_id(path: Path) -> str | None:
    name = path.name
    if name.startswith("agent-") and name.endswith(".jsonl"):
        return name[len("agent-") : -len(".jsonl")]
    return None


def _subagent_files(session: Path) -> list[Path]:
    """``<dir>/<session>/subagents/**/agent-*.jsonl`` (the current layout)."""
    sub = session.with_suffix("") / "subagents"
    if not sub.is_dir():
        return []
    return sorted(p for p in sub.rglob("agent-*.jsonl") if p.is_file())


def _first_session_id(path: Path) -> str | None:
    """The ``sessionId`` of a file's first record (legacy agent files name their session)."""
    try:
        with path.open("rb") as f:
            for line in f:
                if line.strip():
                    rec = msgspec.json.decode(line)
                    sid = rec.get("sessionId") if isinstance(rec, dict) else None
                    return sid if isinstance(sid, str) else None
    except (OSError, msgspec.DecodeError):
        return None
    return None


def session_files(source: str | os.PathLike[str]) -> list[Path]:
    """The files :func:`load_session` reads for ``source``.

    A session file brings its subagent files (``<session>/subagents/**/agent-*.jsonl``,
    and legacy ``agent-*.jsonl`` beside it whose records name the session); a
    project directory brings every session in it with their subagent files.
    """
    path = Path(source)
    if path.is_dir():
        out: list[Path] = []
        for p in sorted(path.glob("*.jsonl")):
            if not p.is_file():
                continue
            out.append(p)
            if _agent_id(p) is None:
                out.extend(_subagent_files(p))
        return out
    if not path.is_file():
        shown = str(path) if len(str(path)) <= 200 else str(path)[:200] + "..."
        raise MsgnormError(
            f"no session file or directory at {shown!r} (pass a file's contents as bytes)"
        )
    out = [path]
    if _agent_id(path) is None:
        out.extend(_subagent_files(path))
        for legacy in sorted(path.parent.glob("agent-*.jsonl")):
            if legacy.is_file() and _first_session_id(legacy) == path.stem:
                out.append(legacy)
    return out


def _meta_sidecar(path: Path) -> tuple[str | None, str | None]:
    """``(toolUseId, parentAgentId)`` from ``agent-<id>.meta.json`` beside an agent file.

    A missing, unreadable or malformed sidecar gives ``(None, None)``, as it
    does for the Agent SDK; a field that is not a string is ``None``.
    """
    meta = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
    try:
        value = msgspec.json.decode(meta.read_bytes())
    except (OSError, msgspec.DecodeError):
        return None, None
    if not isinstance(value, dict):
        return None, None
    tool, parent = value.get("toolUseId"), value.get("parentAgentId")
    return (tool if isinstance(tool, str) else None, parent if isinstance(parent, str) else None)


_SAVED_TO = re.compile(r"(?:Full output saved to|Output has been saved to):?\s*(\S+)")
_PERSISTED = "<persisted-output>"


def _tool_results_dir(path: Path) -> Path:
    """``<project>/<session>/tool-results``: the directory a session and its
    subagents offload large tool results to."""
    for parent in path.parents:
        if parent.name == "subagents":
            return parent.parent / "tool-results"
    if _agent_id(path) is not None:  # legacy agent file beside its session
        sid = _first_session_id(path)
        if sid:
            return path.parent / sid / "tool-results"
    return path.with_suffix("") / "tool-results"


def _offloaded(text: str, folder: Path) -> Path | None:
    """The file a ``<persisted-output>`` preview names, inside ``folder`` only."""
    if _PERSISTED not in text:
        return None
    m = _SAVED_TO.search(text)
    if m is None:
        return None
    name = re.split(r"[\\/]", m.group(1))[-1]
    if name in ("", ".", ".."):
        return None
    return folder / name


def _read_back(records: list[Any], origins: list[tuple[str | None, int]]) -> tuple[int, list[str]]:
    """Puts offloaded tool results' full text back in place of their preview."""
    read, missing = 0, []
    for rec, (file, _) in zip(records, origins, strict=True):
        content = rec.get("message", {}).get("content") if isinstance(rec, dict) else None
        if file is None or not isinstance(content, list):
            continue
        folder = _tool_results_dir(Path(file))
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            inner = block.get("content")
            slots: list[tuple[Any, Any]] = []
            if isinstance(inner, str):
                slots.append((block, "content"))
            elif isinstance(inner, list):
                slots.extend(
                    (part, "text")
                    for part in inner
                    if isinstance(part, dict)
                    and part.get("type") == "text"
                    and isinstance(part.get("text"), str)
                )
            for holder, key in slots:
                target = _offloaded(holder[key], folder)
                if target is None:
                    continue
                try:
                    holder[key] = target.read_bytes().decode("utf-8", errors="replace")
                    read += 1
                except OSError:
                    missing.append(str(block.get("tool_use_id", "")))
    return read, missing


def _python_fit() -> tuple[int, int]:
    """How deeply nested, and how long an integer, a record may be to become
    Python objects from here: the recursion left below this frame (msgspec
    recurses once a level), and ``sys.get_int_max_str_digits()`` (0: any)."""
    frames = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        frames += 1
        frame = frame.f_back
    # From 3.12 C code such as msgspec's decoder has its own recursion budget.
    limit = sys.getrecursionlimit() if sys.version_info < (3, 12) else 1000
    digits = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return max(limit - frames - _FIT_MARGIN, 1), digits


def _read(path: Path, progress: Callable[[int], None] | None) -> bytes:
    try:
        if progress is None:
            return path.read_bytes()
        chunks = []
        with path.open("rb") as f:
            while chunk := f.read(_READ_CHUNK):
                chunks.append(chunk)
                progress(len(chunk))
        return b"".join(chunks)
    except OSError as e:
        raise MsgnormError(f"cannot read {str(path)!r}: {e.strerror or e}") from None


def load_session(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview,
    *,
    thread: str = "main",
    after_compaction: bool = True,
    errors: Literal["skip", "raise"] = "skip",
    kind: Kind = "dicts",
    progress: Callable[[int], None] | None = None,
    tool_results: bool = False,
) -> Session:
    """Load a Claude Code session and pick one thread (SPEC §8, ``docs/SPEC.md``),
    or a Codex rollout (``rollout-….jsonl``: its Responses items, §8.7).

    ``source`` is a session ``.jsonl`` path (its subagent files come along), a
    project directory (every session in it; records replayed across resumed
    sessions are kept once), or a file's bytes.

    ``thread``: ``"main"`` (the conversation Claude Code would resume: the latest
    leaf that is not a sidechain or meta, walked back through ``parentUuid``),
    an agent id, a session id, or any record's uuid (the branch ending there).
    Parallel tool calls and results left on sibling branches are put back.

    ``after_compaction``: start at the last compaction (its summary and what
    follows: what Claude Code sends); ``False`` follows ``logicalParentUuid``
    across compactions for the whole history.

    ``errors``: ``"skip"`` leaves broken lines and invalid records out and lists
    them in ``report.skipped``; ``"raise"`` raises :class:`msgnorm.JSONDecodeError`
    (line, column) or :class:`msgnorm.InvalidRecordError`.  For ``"dicts"`` and
    ``"structs"``, a record that cannot become Python objects (nested past the
    recursion limit, a float beyond a double, an integer longer than
    ``sys.get_int_max_str_digits()``) counts as invalid: skipped with its line
    and reason, or :class:`msgnorm.MsgnormError` naming its line.

    ``kind``: the records as ``"dicts"``, msgnorm ``"structs"`` or JSON ``"bytes"``.
    ``progress``, if given, is called with the number of bytes read as files are read.

    ``tool_results``: read tool results that Claude Code offloaded to
    ``<session>/tool-results/*.txt`` (a ``<persisted-output>`` preview in the
    transcript) back into the records; ``report.tool_results_read`` counts
    them, ``report.tool_results_missing`` names those whose file is gone.
    """
    if errors not in ("skip", "raise"):
        raise MsgnormError(f"errors must be 'skip' or 'raise', not {errors!r}")
    if kind not in _KINDS:
        raise MsgnormError(f"kind must be one of {', '.join(map(repr, _KINDS))}, not {kind!r}")
    if not isinstance(thread, str):
        raise MsgnormError(f"thread must be a str, not {type(thread).__name__}")
    names: list[str]
    files: list[tuple[str, bytes, str | None]]
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if progress is not None:
            progress(len(data))
        files = [("<bytes>", data, None)]
        names = []
    elif isinstance(source, (str, os.PathLike)):
        paths = session_files(source)
        files = [(str(p), _read(p, progress), _agent_id(p)) for p in paths]
        names = [str(p) for p in paths]
    else:
        raise MsgnormError(
            f"source must be a path or the file's bytes, not {type(source).__name__}"
        )
    fit = None if kind == "bytes" else _python_fit()
    out, threads, chosen, rep, origins = _native.load_session(
        files, thread, bool(after_compaction), errors == "raise", fit, bool(names)
    )

    def name(i: int | None) -> str | None:
        return names[i] if i is not None and i < len(names) else None

    parents: dict[str, tuple[str | None, str | None]] = {
        n: _meta_sidecar(Path(n)) for n, _, agent in files if agent is not None
    }

    def thread_of(t: dict[str, Any]) -> Thread:
        file = name(t["file"])
        tool, agent = parents.get(file, (None, None)) if file else (None, None)
        if t["kind"] == "agent":
            return Thread(
                **t | {"file": file, "parent_tool_use_id": tool, "parent_agent_id": agent}
            )
        return Thread(**t | {"file": file})

    thread_list = [thread_of(t) for t in threads]
    read_back: tuple[int, list[str]] = (0, [])
    if tool_results and names:
        decoded = msgspec.json.decode(out)
        read_back = _read_back(decoded, origins)
        if read_back != (0, []):
            out = msgspec.json.encode(decoded)
    # the core's report, by field name; the file indices named
    report = msgspec.convert(
        rep
        | {
            "files": names,
            "skipped": [{**i, "file": name(i["file"])} for i in rep["skipped"]],
            "repaired": [{**i, "file": name(i["file"])} for i in rep["repaired"]],
            "tool_results_read": read_back[0],
            "tool_results_missing": read_back[1],
        },
        LoadReport,
    )
    records: Any
    if kind == "bytes":
        records = out
    elif kind == "structs":
        records = _decode_own(out)
    else:
        records = msgspec.json.decode(out)
    return Session(
        records=records,
        thread=thread_list[chosen],
        threads=thread_list,
        report=report,
        origins=origins,
    )
