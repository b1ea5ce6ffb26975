"""Session files in a directory: what each one is (from its head and tail only),
and search across them. The files are read in the Rust core, on every core."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Union

import msgspec

from . import _native
from ._codex import rollout_info, split_rollouts
from .errors import MsgnormError
from .usage import _jsonl_under

__all__ = ["SearchHit", "SessionInfo", "list_sessions", "search_sessions", "session_paths"]

PathArg = Union[str, "os.PathLike[str]"]


class SessionInfo(msgspec.Struct, kw_only=True):
    """One session file, read from its first and last 64 KiB and a ``stat``.

    ``title`` is the custom title, else the summary, else the first prompt
    (one line, at most 200 characters). ``created`` is the first record's
    timestamp, ``last_timestamp`` the last one's, ``modified`` the file's
    mtime (UTC). ``model`` is the last assistant reply's model.
    """

    session_id: str
    path: str
    title: str | None
    custom_title: str | None
    summary: str | None
    first_prompt: str | None
    created: str | None
    last_timestamp: str | None
    modified: str
    size: int
    cwd: str | None
    git_branch: str | None
    model: str | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class SearchHit(msgspec.Struct, kw_only=True):
    """A record whose text matches: where it is and the match with context."""

    session: str
    path: str
    line: int
    uuid: str | None
    timestamp: str | None
    role: str
    field: str
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


def _entries(d: str | Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(d) as it:
            return list(it)
    except OSError:  # unreadable, or not a directory
        return []


def _is_session(e: os.DirEntry[str]) -> bool:
    try:
        return e.name.endswith(".jsonl") and not e.name.startswith("agent-") and e.is_file()
    except OSError:
        return False


def _session_paths(directory: PathArg) -> list[str]:
    d = Path(directory).expanduser()
    if d.is_file():
        return [str(d)]
    if not d.is_dir():
        raise MsgnormError(f"no directory at {str(d)!r}")
    found: list[str] = []
    for e in _entries(d):
        if _is_session(e):
            found.append(e.path)
        try:
            is_dir = e.is_dir()
        except OSError:
            continue
        if is_dir:
            found.extend(f.path for f in _entries(e.path) if _is_session(f))
    found.sort(key=lambda f: os.path.normcase(f).split(os.sep))
    return found


def session_paths(directory: PathArg) -> list[Path]:
    """The session files of a project directory (``*.jsonl``), or of every
    project in a ``~/.claude/projects`` directory (``*/*.jsonl``); subagent files
    are not sessions."""
    return [Path(p) for p in _session_paths(directory)]


def list_sessions(directory: PathArg, *, num_threads: int | None = None) -> list[SessionInfo]:
    """Every session file under ``directory`` (see :func:`session_paths`), most
    recently modified first. Only the head and tail of each file are read."""
    found = _session_paths(directory)
    claude, rollouts = split_rollouts([Path(p) for p in found])
    infos = _native.session_infos([str(p) for p in claude], num_threads)
    paths = claude
    if rollouts:  # Codex rollouts: read here, in their own shape
        paths = claude + rollouts
        infos = [*infos, *(rollout_info(p) for p in rollouts)]
    out = []
    for p, i in zip(paths, infos, strict=True):
        modified = datetime.fromtimestamp(i["mtime"], tz=timezone.utc)
        fields = {
            "session_id": i["session_id"] or p.stem,
            "path": str(p),
            "title": i["custom_title"] or i["summary"] or i["first_prompt"],
            "modified": modified.isoformat().replace("+00:00", "Z"),
        }
        out.append(msgspec.convert(i | fields, SessionInfo))
    out.sort(key=lambda s: (s.modified, s.path), reverse=True)
    return out


def search_sessions(
    directory: PathArg,
    query: str,
    *,
    regex: bool = False,
    tools: bool = False,
    num_threads: int | None = None,
) -> list[SearchHit]:
    """The records of user and assistant messages whose text holds ``query``:
    a case-insensitive substring of the decoded text (JSON escapes decoded), or
    with ``regex`` a regular expression (Rust ``regex`` syntax; ``(?i)`` for
    case-insensitive). ``tools`` also searches tool inputs and results. Every
    ``*.jsonl`` under ``directory`` is searched (subagent files included); hits
    in file and line order, one per record."""
    d = Path(directory).expanduser()
    if d.is_dir():
        paths = [p for p, _st in _jsonl_under(str(d))]
    elif d.is_file():
        paths = [str(d)]
    else:
        raise MsgnormError(f"no session file or directory at {str(d)!r}")
    hits = _native.search_files(paths, query, regex, tools, num_threads)
    return [
        msgspec.convert(
            h
            | {
                "session": h["session"] or Path(paths[h["file"]]).stem,
                "path": paths[h["file"]],
            },
            SearchHit,
        )
        for h in hits
    ]
