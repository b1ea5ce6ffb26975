"""Deterministic generator of Claude Code session trees, with what is known about them.

A session file is a tree of records linked by ``parentUuid``; the conversation
that was sent to the model is one path of it. :class:`SessionBuilder` writes
such files the way Claude Code does (streamed replies one block per record,
parallel tool calls whose results fan out, forks from edited prompts, in-file
sidechains and ``subagents/agent-<id>.jsonl`` files, compactions, progress,
system, attachment, meta and team records, entries without uuid) and damages
them on request (truncated lines, two JSON values on one line, a BOM, CRLF line
ends, blank lines, JSON values that are not objects, cycles, missing parents,
duplicate uuids).

While it writes, the builder keeps its own books: for each thread, the records
on it in the order a reader that puts parallel tool turns back together (as
``claude_agent_sdk``'s ``_recover_orphaned_parallel_tool_results`` does) gives
them. The books come from how the builder wrote the file, not from a second
implementation of the chain walk; tests/test_session_sdk.py checks them against
the SDK on many seeds.

Every choice comes from one ``random.Random(seed)``: the same seed and the same
calls give the same bytes.
"""

from __future__ import annotations

import json
import random
import uuid as _uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

Rec = dict[str, Any]

MAIN_FILE = ""  # key of the session file in SessionBuilder.files
PROJECT = "-tmp-proj"  # the sanitized project directory name used by write_session
MESSAGE_TYPES = ("user", "assistant")

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Prompt texts: some carry characters that str.splitlines() (but not JSON Lines)
# treats as line breaks (U+2028, U+0085), and non-ASCII text written as raw UTF-8.
_PROMPTS = (
    "Fix the failing test in tests/test_api.py",
    "Why does the build fail on CI?",
    "Refactor the parser into smaller functions",
    "Add a --verbose flag to the CLI",
    "Explain what this regex does: ^(a|b)*$",
    'Rename "foo" to "bar" everywhere',
    "Résumé the changes since yesterday, s'il vous plaît ☕",
    "Look at the logs\u2028then tell me what broke",
    "Count the lines\x85in every module",
    "Write a poem about Thai yellow curry 🍛",
    "Check the README for typos\tand broken links",
)
_ANSWERS = (
    "Done. The test passes now.",
    "The build fails because the lockfile is stale.",
    "I split the parser into three functions.",
    "Here is the summary you asked for.",
    "All five files were updated — see the diff above.",
)
_TOOLS: tuple[tuple[str, Callable[[random.Random], Rec]], ...] = (
    ("Read", lambda r: {"file_path": f"/tmp/proj/src/mod{r.randint(1, 9)}.py"}),
    ("Bash", lambda r: {"command": f"ls -la dir{r.randint(1, 9)}", "description": "List"}),
    ("Grep", lambda r: {"pattern": "TODO", "path": f"/tmp/proj/pkg{r.randint(1, 9)}"}),
    ("Glob", lambda r: {"pattern": f"**/*.{r.choice(['py', 'rs', 'md'])}"}),
    ("WebSearch", lambda r: {"query": f"rust serde untagged enum {r.randint(1, 99)}"}),
)


def iso(dt: datetime) -> str:
    """Claude Code's timestamp format: ``2025-06-01T10:00:00.123Z``."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def dump(value: Any) -> str:
    """One JSON value the way Claude Code writes it (compact, raw UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_message(rec: Rec) -> bool:
    return rec.get("type") in MESSAGE_TYPES


def is_visible(rec: Rec) -> bool:
    """What ``get_session_messages`` returns of a chain: user/assistant records that
    are not meta, not sidechain and carry no ``teamName``."""
    return (
        is_message(rec)
        and not rec.get("isMeta")
        and not rec.get("isSidechain")
        and not rec.get("teamName")
    )


def visible_uuids(records: list[Rec]) -> list[str]:
    return [r["uuid"] for r in records if is_visible(r)]


def message_uuids(records: list[Rec]) -> list[str]:
    return [r["uuid"] for r in records if is_message(r)]


# --------------------------------------------------------------------------
# lines of a file
# --------------------------------------------------------------------------


@dataclass
class _Line:
    values: list[Any]
    # "" | "truncated" | "concat" | "nondict" | "blank" | "invalid"
    damage: str = ""
    cut: float = 0.5  # where a truncated line is cut, as a fraction of its length

    def render(self) -> str:
        if self.damage == "blank":
            return ""
        text = "".join(dump(v) for v in self.values)
        if self.damage == "truncated":
            # A proper prefix of a JSON object is never valid JSON.
            n = min(max(1, int(len(text) * self.cut)), len(text) - 1)
            return text[:n]
        return text

    def render_split(self) -> list[str]:
        """The line as a reader that repairs lines sees it (tests' SDK view):
        several values on one line become one line each, and a record a
        validating reader leaves out is gone."""
        if self.damage == "invalid":
            return []
        if self.damage == "concat":
            return [dump(v) for v in self.values]
        return [self.render()]


def _single_records(lines: list[_Line]) -> list[int]:
    """The indices of the undamaged lines that hold one record (a JSON object)."""
    return [
        i
        for i, ln in enumerate(lines)
        if ln.damage == "" and len(ln.values) == 1 and isinstance(ln.values[0], dict)
    ]


# --------------------------------------------------------------------------
# what a test knows about a generated session
# --------------------------------------------------------------------------


@dataclass
class Agent:
    """A subagent thread: in its own file (``file`` relative to ``<sessionId>/``)
    or in the session file (``file`` None, records with isSidechain and agentId)."""

    agent_id: str
    file: str | None
    path: list[str]  # records in order, parallel tool turns put back together
    walk: list[str]  # a plain parentUuid walk from the last record (what the SDK reads)
    parallel: bool  # the agent itself ran tools in parallel (path != walk)


@dataclass
class Session:
    session_id: str
    data: bytes  # the session file as written, damage included
    sdk_data: bytes  # the same file with repairable lines repaired (see _Line.render_split)
    subagents: dict[str, bytes]  # path relative to <sessionId>/ -> bytes
    records: dict[str, Rec]  # uuid -> record, every file
    main: list[str]  # the main thread from its last compact boundary (all record types)
    full: list[str]  # the main thread across compact boundaries (after_compaction=False)
    branches: dict[str, list[str]]  # leaf uuid -> its thread (forks, strays, sidechains)
    branch_kinds: dict[str, str]  # leaf uuid -> "fork" | "stray" | "sidechain"
    agents: dict[str, Agent]
    line_of: dict[str, int]  # uuid -> 1-based line in the session file (first copy)
    skipped_lines: list[int]  # lines a lenient reader leaves out (truncated, not objects)
    invalid_lines: list[int]  # lines holding a record msgnorm must reject
    repaired_lines: list[int]  # lines holding several JSON values
    blank_lines: list[int]
    duplicates: int  # extra copies of records (one per duplicated uuid)
    missing_parents: int  # records whose parentUuid names no record of the file
    cycles: int  # parentUuid cycles made on purpose
    recovered: int  # records put back from parallel tool turns on `main`
    recovered_full: int  # the same on `full`
    open_calls: int  # tool_use ids on `main` with no tool_result on `main`
    features: set[str]

    @property
    def leaf(self) -> str | None:
        return self.main[-1] if self.main else None

    @property
    def visible(self) -> list[str]:
        return [u for u in self.main if is_visible(self.records[u])]

    @property
    def compactions(self) -> int:
        return sum(1 for u in self.full if self.records[u].get("subtype") == "compact_boundary")

    @property
    def file_name(self) -> str:
        return f"{self.session_id}.jsonl"


# --------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------

_HEAD = object()


@dataclass
class _Cut:
    """A clean point of a thread, where a fork may start."""

    path_len: int
    walk_len: int
    head: str | None
    kind: str  # "edit": the next record is a prompt; "retry": the next is a reply


@dataclass
class _Group:
    first: str  # uuid of the response's first tool_use record
    recovered: int


class Thread:
    """Writes one conversation (the main one, an in-file sidechain or a subagent
    file) and keeps its books: ``path`` (records in the order a recovering
    reader gives them), ``walk`` (a plain parentUuid walk), ``prefix`` (the
    records before the last compact boundary)."""

    def __init__(
        self,
        b: SessionBuilder,
        file: str,
        *,
        sidechain: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.b = b
        self.file = file
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.head: str | None = None
        self.path: list[str] = []
        self.walk: list[str] = []
        self.prefix: list[str] = []
        self.prefix_walk: list[str] = []
        self.cuts: list[_Cut] = []
        self.prompts: list[str] = []  # every prompt written, across forks and compactions
        self.groups: list[_Group] = []
        self.parallel = False

    # ---- writing records ----------------------------------------------------

    def emit(
        self,
        type_: str,
        body: Rec,
        *,
        parent: Any = _HEAD,
        on_path: bool = True,
        uid: str | None = None,
        tie: bool = False,
        top: Rec | None = None,
    ) -> Rec:
        """Write one record; ``on_path`` records extend the thread and move its head."""
        b = self.b
        rec: Rec = {"parentUuid": self.head if parent is _HEAD else parent}
        if top:
            rec.update(top)
        rec.update(
            {
                "isSidechain": self.sidechain,
                "userType": "external",
                "cwd": b.cwd,
                "sessionId": b.session_id,
                "version": b.version,
                "gitBranch": b.git_branch,
            }
        )
        if self.agent_id is not None:
            rec["agentId"] = self.agent_id
        rec["type"] = type_
        rec.update(body)
        rec["uuid"] = uid or b.new_uuid()
        rec["timestamp"] = b.tick(tie=tie)
        b.add_line(self.file, [rec])
        if on_path:
            self.path.append(rec["uuid"])
            self.walk.append(rec["uuid"])
            self.head = rec["uuid"]
        return rec

    def _user(self, content: Any, **kw: Any) -> Rec:
        extra = kw.pop("extra", {})
        return self.emit("user", {"message": {"role": "user", "content": content}, **extra}, **kw)

    def _assistant(self, mid: str | None, blocks: list[Rec], **kw: Any) -> Rec:
        b = self.b
        message: Rec = {"model": b.model}
        if mid is not None:
            message["id"] = mid
        message.update(
            {
                "type": "message",
                "role": "assistant",
                "content": blocks,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": b.rng.randint(1, 9), "output_tokens": 3},
            }
        )
        body: Rec = {"message": message}
        if mid is not None:
            body["requestId"] = b.rng_id("req_011C", 18)
        return self.emit("assistant", body, **kw)

    def _mark(self, kind: str) -> None:
        self.cuts.append(_Cut(len(self.path), len(self.walk), self.head, kind))

    # ---- conversation steps --------------------------------------------------

    def prompt(self, text: str | None = None, *, snapshot: bool = True) -> Rec:
        """A user prompt (string or one-text-block content), maybe after a
        file-history-snapshot entry."""
        b = self.b
        self._mark("edit")
        text = text if text is not None else b.rng.choice(_PROMPTS)
        uid = b.new_uuid()
        if snapshot and self.file == MAIN_FILE and b.rng.random() < 0.5:
            b.entry("file-history-snapshot", uid)
        content: Any = text if b.rng.random() < 0.6 else [{"type": "text", "text": text}]
        rec = self._user(content, uid=uid)
        self.prompts.append(rec["uuid"])
        self._mark("retry")
        return rec

    def meta(self, text: str = "Caveat: the messages below were generated locally.") -> Rec:
        return self._user(text, extra={"isMeta": True})

    def command(self) -> None:
        """A local slash command: caveat (meta), command, stdout (all on the thread)."""
        self.meta("<local-command-caveat>Caveat: do not respond.</local-command-caveat>")
        self._user("<command-name>/model</command-name>\n<command-args></command-args>")
        self._user("<local-command-stdout>Set model to sonnet</local-command-stdout>")
        self.b.features.add("command")

    def team_message(self) -> Rec:
        """A user record carrying teamName on the thread (not shown by the SDK)."""
        self.b.features.add("team-on-thread")
        return self._user("[teammate] status: done", extra={"teamName": "blue"})

    def hook_progress(self) -> Rec:
        """A SessionStart hook progress record as the root (the first prompt's parent)."""
        self.b.features.add("progress-root")
        return self.emit(
            "progress",
            {
                "data": {
                    "type": "hook_progress",
                    "hookEvent": "SessionStart",
                    "hookName": "SessionStart:startup",
                    "command": "echo hi",
                },
                "parentToolUseID": self.b.new_uuid(),
                "toolUseID": self.b.new_uuid(),
            },
            parent=None,
        )

    def system(self, subtype: str) -> Rec:
        b = self.b
        body: Rec = {"subtype": subtype}
        if subtype == "turn_duration":
            body.update({"durationMs": b.rng.randint(100, 90000), "isMeta": False})
        elif subtype == "stop_hook_summary":
            body.update(
                {
                    "hookCount": 1,
                    "hookInfos": [{"command": "make lint"}],
                    "hookErrors": [],
                    "preventedContinuation": False,
                    "stopReason": "",
                    "hasOutput": False,
                    "level": "suggestion",
                    "toolUseID": b.new_uuid(),
                }
            )
        elif subtype == "api_error":
            body.update(
                {
                    "level": "error",
                    "error": {"status": 529, "message": "Overloaded"},
                    "retryInMs": 500,
                    "retryAttempt": 1,
                    "maxRetries": 10,
                }
            )
        elif subtype == "local_command":
            body.update(
                {
                    "content": "<command-name>/cost</command-name>\n<command-args></command-args>",
                    "level": "info",
                }
            )
        self.b.features.add(f"system:{subtype}")
        return self.emit("system", body)

    def attachment(self) -> Rec:
        b = self.b
        att = b.rng.choice(
            [
                {"type": "edited_text_file", "filename": "src/a.py", "snippet": "1| x = 1"},
                {"type": "queued_command", "prompt": "also run the linter"},
                {"type": "todo_reminder", "content": [], "itemCount": 0},
            ]
        )
        b.features.add("attachment")
        return self.emit("attachment", {"attachment": att})

    def synthetic_error(self) -> Rec:
        """An API error reply written by Claude Code itself (no message.id)."""
        self.b.features.add("synthetic-error")
        return self.emit(
            "assistant",
            {
                "message": {
                    "model": "<synthetic>",
                    "role": "assistant",
                    "type": "message",
                    "content": [{"type": "text", "text": "API Error: 500 Internal server error"}],
                    "stop_reason": "stop_sequence",
                    "stop_sequence": "",
                },
                "isApiErrorMessage": True,
            },
        )

    def reply(self, text: str | None = None, *, thinking: bool | None = None) -> list[Rec]:
        """One streamed reply without tools: [thinking] text, one record per block."""
        b = self.b
        mid = b.rng_id("msg_01", 22)
        out = []
        if thinking if thinking is not None else b.rng.random() < 0.4:
            out.append(self._assistant(mid, [_thinking(b)]))
        out.append(self._assistant(mid, [{"type": "text", "text": text or b.rng.choice(_ANSWERS)}]))
        return out

    def tools(
        self,
        n: int = 1,
        *,
        names: list[str] | None = None,
        inputs: list[Rec] | None = None,
        contents: list[Any] | None = None,
        tool_results: list[Rec] | None = None,
        preamble: bool | None = None,
        progress: int = 0,
        result_parent: str = "assistant",
        order: list[int] | None = None,
        complete: int | None = None,
        tie: bool = False,
        stray: bool = False,
        interleave: Callable[[], None] | None = None,
    ) -> list[str]:
        """One reply with ``n`` tool calls (parallel when n > 1) and their results.

        The calls are ``n`` assistant records chained one after another (same
        message.id); each result's parent is its own call's record (or, with
        ``result_parent="progress"``, the last progress record of that call,
        with sourceToolAssistantUUID naming the call's record); results are
        written in ``order`` (completion order, random by default), only the
        first ``complete`` of them when given (a crash). ``interleave`` writes
        other records between the calls and the results. ``stray`` writes a
        second result for the call answered last, before it, which a reader
        must not put back (its call is answered on the thread).
        Returns the tool_use ids.
        """
        b = self.b
        rng = b.rng
        mid = b.rng_id("msg_01", 22)
        if n > 1:
            self.parallel = True
            b.features.add("parallel")
        if preamble if preamble is not None else rng.random() < 0.6:
            if rng.random() < 0.5:
                self._assistant(mid, [_thinking(b)])
            self._assistant(mid, [{"type": "text", "text": "Let me look."}])
        first_call = len(self.path)
        first_walk = len(self.walk)
        calls: list[tuple[str, Rec]] = []
        for i in range(n):
            if names is not None:
                name, inp = names[i], (inputs or [{}] * n)[i]
            else:
                name, make = rng.choice(_TOOLS)
                inp = make(rng)
            tid = b.rng_id("toolu_01", 22)
            block = {"type": "tool_use", "id": tid, "name": name, "input": inp}
            calls.append((tid, self._assistant(mid, [block])))
        # progress records: a chain hanging off each call's record
        tails: list[list[str]] = []
        for tid, call in calls:
            chain: list[str] = []
            parent = call["uuid"]
            for p in range(progress):
                rec = self.emit(
                    "progress",
                    {
                        "data": {
                            "type": "bash_progress",
                            "output": f"line {p}",
                            "elapsedTimeSeconds": p,
                        },
                        "toolUseID": f"bash-progress-{p}",
                        "parentToolUseID": tid,
                    },
                    parent=parent,
                    on_path=False,
                )
                parent = rec["uuid"]
                chain.append(parent)
            tails.append(chain)
        if progress:
            b.features.add("progress")
        if interleave is not None:
            interleave()
        if order is None:
            order = list(range(n))
            rng.shuffle(order)
        if complete is not None:
            order = order[:complete]
        by_progress = result_parent == "progress" and progress > 0
        if by_progress:
            b.features.add("results-under-progress")
        written: list[tuple[int, Rec]] = []
        first_result = True
        for j, i in enumerate(order):
            tid, call = calls[i]
            parent = tails[i][-1] if by_progress else call["uuid"]
            if stray and by_progress and j == len(order) - 1:
                b.features.add("stray-result")
                self._result(
                    tid, call, parent=parent, content="(retried)", tie=False, on_path=False
                )
            content = contents[i] if contents is not None else _result_content(rng)
            rec = self._result(
                tid,
                call,
                parent=parent,
                content=content,
                tool_result=tool_results[i] if tool_results is not None else None,
                tie=tie and not first_result,
                on_path=False,
            )
            first_result = False
            written.append((i, rec))
        if tie and len(written) > 1:
            b.features.add("timestamp-ties")
        # ---- books: what the thread looks like after this reply ----
        if not written:
            return [tid for tid, _ in calls]
        k, last = written[-1]
        others = written[:-1]
        if tie:
            # equal timestamps: the SDK's stable sort keeps the order of the calls
            others = sorted(others, key=lambda w: (w[1]["timestamp"], w[0]))
        else:
            others = sorted(others, key=lambda w: w[1]["timestamp"])
        # walk: the calls up to the one answered last, its progress chain, its result
        del self.walk[first_walk + k + 1 :]
        if by_progress:
            self.walk.extend(tails[k])
        self.walk.append(last["uuid"])
        # path: every call, the other results, then the walk's tail
        self.path.extend(rec["uuid"] for _, rec in others)
        if by_progress:
            self.path.extend(tails[k])
        self.path.append(last["uuid"])
        self.head = last["uuid"]
        recovered = (n - 1 - k) + len(others)
        self.groups.append(_Group(self.path[first_call], recovered))
        return [tid for tid, _ in calls]

    def _result(
        self,
        tid: str,
        call: Rec,
        *,
        parent: str,
        content: Any,
        tool_result: Rec | None = None,
        tie: bool,
        on_path: bool,
    ) -> Rec:
        block: Rec = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if self.b.rng.random() < 0.2:
            block["is_error"] = False
        extra: Rec = {
            "toolUseResult": tool_result or {"stdout": str(content)[:40], "stderr": ""},
            "sourceToolAssistantUUID": call["uuid"],
        }
        return self._user([block], parent=parent, on_path=on_path, tie=tie, extra=extra)

    def task(
        self,
        n: int = 1,
        *,
        layout: str = "file",
        agent_parallel: bool = False,
        agent_tools: int = 1,
        progress: int = 2,
    ) -> list[Thread]:
        """A reply with ``n`` Task calls and their subagents.

        layout "file": each subagent in ``subagents/agent-<id>.jsonl`` (current
        versions), "nested": in ``subagents/workflows/<run>/agent-<id>.jsonl``,
        "infile": in the session file with isSidechain and agentId, "infile-noid":
        in the session file with isSidechain and no agentId (oldest versions).
        The subagents' records are written between the calls and the results,
        interleaved when several run at once.
        """
        b = self.b
        rng = b.rng
        children: list[Thread] = []
        prompts = [f"Subtask {i}: {rng.choice(_PROMPTS)}" for i in range(n)]
        for _ in range(n):
            aid = b.agent_id()
            if layout == "file":
                child = Thread(b, f"subagents/agent-{aid}.jsonl", sidechain=True, agent_id=aid)
            elif layout == "nested":
                run = b.rng_id("wf", 8)
                child = Thread(
                    b, f"subagents/workflows/{run}/agent-{aid}.jsonl", sidechain=True, agent_id=aid
                )
            elif layout == "infile":
                child = Thread(b, MAIN_FILE, sidechain=True, agent_id=aid)
            elif layout == "infile-noid":
                child = Thread(b, MAIN_FILE, sidechain=True)
            else:
                raise ValueError(layout)
            children.append(child)
        b.features.add(f"task:{layout}")
        if n > 1:
            b.features.add("parallel-tasks")

        finals: list[str] = [rng.choice(_ANSWERS) for _ in range(n)]

        def steps(i: int) -> list[Callable[[], Any]]:
            child = children[i]
            out: list[Callable[[], Any]] = [lambda: child.prompt(prompts[i], snapshot=False)]
            for _ in range(agent_tools):

                def tool_step(width: int = rng.randint(2, 3) if agent_parallel else 1) -> Any:
                    return child.tools(width, progress=rng.randint(0, 1))

                out.append(tool_step)
            out.append(lambda: child.reply(finals[i]))
            return out

        def run_agents() -> None:
            queues = [steps(i) for i in range(n)]
            while any(queues):
                for q in queues:
                    if q:
                        q.pop(0)()

        self.tools(
            n,
            names=["Task"] * n,
            inputs=[
                {"description": f"subtask {i}", "prompt": prompts[i], "subagent_type": "general"}
                for i in range(n)
            ],
            contents=[[{"type": "text", "text": finals[i]}] for i in range(n)],
            tool_results=[
                {
                    "status": "completed",
                    "prompt": prompts[i],
                    "agentId": children[i].agent_id or "",
                    "content": [{"type": "text", "text": finals[i]}],
                    "totalDurationMs": rng.randint(1000, 9000),
                    "totalToolUseCount": agent_tools,
                }
                for i in range(n)
            ],
            progress=progress,
            interleave=run_agents,
        )
        for child in children:
            if child.agent_id is not None:
                b.agents[child.agent_id] = child
                if child.file != MAIN_FILE and rng.random() < 0.5:
                    sidecar = child.file[: -len(".jsonl")] + ".meta.json"
                    b.sidecars[sidecar] = (dump({"agentType": "general"}) + "\n").encode()
            else:
                leaf = _trim(child.path, b.records)
                b.add_branch(leaf, "sidechain")
        return children

    def end_turn(self) -> None:
        """What Claude Code writes after a turn: maybe stop hooks and a turn_duration."""
        rng = self.b.rng
        if rng.random() < 0.3:
            self.system("stop_hook_summary")
        if rng.random() < 0.5:
            self.system("turn_duration")

    def compact(self) -> tuple[Rec, Rec]:
        """A compact_boundary (parentUuid null, logicalParentUuid the last record)
        and the isCompactSummary user record under it."""
        b = self.b
        b.features.add("compaction")
        self.prefix = self.prefix + self.path
        self.prefix_walk = self.prefix_walk + self.walk
        self.path, self.walk, self.cuts = [], [], []
        boundary = self.emit(
            "system",
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": b.rng.randint(150000, 190000)},
            },
            parent=None,
            top={"logicalParentUuid": self.head},
        )
        summary = self._user(
            "This session is being continued from a previous conversation. Summary: ...",
            extra={"isCompactSummary": True, "isVisibleInTranscriptOnly": True},
        )
        self._mark("edit")
        return boundary, summary

    def fork(self, *, open_call: bool = False, kind: str | None = None) -> str:
        """Leave the current branch and go back to an earlier clean point (an
        edited prompt: "edit"; a retried reply: "retry"). With ``open_call`` the
        left branch ends with a tool call that never got a result (a crash).
        Returns the kind of the point gone back to."""
        b = self.b
        choices = [c for c in self.cuts if c.path_len < len(self.path)]
        if kind is not None:
            choices = [c for c in choices if c.kind == kind] or choices
        if not choices:
            return ""
        cut = b.rng.choice(choices)
        if open_call:
            b.features.add("fork-open-call")
            self.tools(1, complete=0, preamble=False)
        left = _trim(self.path, b.records)
        if len(left) > cut.path_len and not b.records[left[-1]].get("isMeta"):
            b.add_branch(left, "fork")
        self.path = self.path[: cut.path_len]
        self.walk = self.walk[: cut.walk_len]
        self.head = cut.head
        self.cuts = [c for c in self.cuts if c.path_len <= cut.path_len]
        b.features.add(f"fork:{cut.kind}")
        return cut.kind

    def stray_branch(self, *, reply: bool = False) -> None:
        """Records of another branch written in the middle of a turn (a prompt
        typed while tools ran, parented at an earlier point; seen in real files)."""
        b = self.b
        choices = [c for c in self.cuts if c.kind == "edit" and c.path_len < len(self.path)]
        if not choices:
            return
        cut = b.rng.choice(choices)
        saved = (self.path, self.walk, self.head)
        self.path = self.path[: cut.path_len]
        self.walk = self.walk[: cut.walk_len]
        self.head = cut.head
        self._user("are they still being written?")
        if reply:
            self.reply("Yes, still running.", thinking=False)
        else:
            self._user([{"type": "text", "text": "[Request interrupted by user]"}])
        b.add_branch(list(self.path), "stray")
        self.path, self.walk, self.head = saved
        b.features.add("stray-branch-reply" if reply else "stray-branch")


def _thinking(b: SessionBuilder) -> Rec:
    return {"type": "thinking", "thinking": "Let me think.", "signature": b.rng_id("Eu", 40)}


def _result_content(rng: random.Random) -> Any:
    if rng.random() < 0.7:
        return f"output {rng.randint(1, 999)}"
    return [{"type": "text", "text": f"output {rng.randint(1, 999)}"}]


def _trim(uuids: list[str], records: dict[str, Rec]) -> list[str]:
    """The thread up to its leaf: trailing records that are not messages dropped."""
    end = len(uuids)
    while end and not is_message(records[uuids[end - 1]]):
        end -= 1
    return uuids[:end]


class SessionBuilder:
    """Writes one session (and its subagent files) and knows its threads.

    ``b.main`` writes the main conversation; damage and decoys are builder
    methods; ``b.build()`` returns a :class:`Session`.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        session_id: str | None = None,
        cwd: str = "/tmp/proj",
        version: str = "2.1.16",
    ) -> None:
        self.rng = random.Random(seed)
        self.session_id = session_id or self.new_uuid()
        self.cwd = cwd
        self.version = version
        self.git_branch = "main"
        self.model = "claude-sonnet-4-5-20250929"
        self.files: dict[str, list[_Line]] = {MAIN_FILE: []}
        self.records: dict[str, Rec] = {}
        self.line_obj: dict[str, _Line] = {}
        self.sidecars: dict[str, bytes] = {}
        self.branches: dict[str, list[str]] = {}
        self.branch_kinds: dict[str, str] = {}
        self.agents: dict[str, Thread] = {}
        self.features: set[str] = set()
        self.newline = "\n"
        self.bom = False
        self.final_newline = True
        self.duplicates = 0
        self.cycles = 0
        self._damaged: set[str] = set()
        self._now = datetime(2025, 6, 1, 10, 0, tzinfo=timezone.utc) + timedelta(
            seconds=self.rng.randrange(86400 * 200)
        )
        self.main = Thread(self, MAIN_FILE)

    # ---- ids, clock, lines ----------------------------------------------------

    def new_uuid(self) -> str:
        return str(_uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def rng_id(self, prefix: str, n: int) -> str:
        return prefix + "".join(self.rng.choice(_ALNUM) for _ in range(n))

    def agent_id(self) -> str:
        return "a" + f"{self.rng.getrandbits(24):06x}"

    def tick(self, *, tie: bool = False) -> str:
        if not tie:
            self._now += timedelta(milliseconds=self.rng.randint(1, 4000))
        return iso(self._now)

    def add_line(self, file: str, values: list[Any], damage: str = "") -> _Line:
        line = _Line(values, damage)
        self.files.setdefault(file, []).append(line)
        for v in values:
            if isinstance(v, dict) and isinstance(v.get("uuid"), str):
                self.records[v["uuid"]] = v
                self.line_obj.setdefault(v["uuid"], line)
        return line

    def entry(self, type_: str, about: str | None = None) -> Rec:
        """An entry without uuid in the session file."""
        sid = self.session_id
        ts = iso(self._now)
        if type_ == "file-history-snapshot":
            mid = about or self.new_uuid()
            rec: Rec = {
                "type": type_,
                "messageId": mid,
                "snapshot": {"messageId": mid, "trackedFileBackups": {}, "timestamp": ts},
                "isSnapshotUpdate": False,
            }
        elif type_ == "queue-operation":
            op = self.rng.choice(["enqueue", "dequeue"])
            rec = {"type": type_, "operation": op, "timestamp": ts, "sessionId": sid}
            if op == "enqueue":
                rec["content"] = "also check the docs"
        elif type_ == "custom-title":
            rec = {"type": type_, "customTitle": "Fix the build", "sessionId": sid}
        elif type_ == "summary":
            rec = {
                "type": type_,
                "summary": "Fixing the build",
                "leafUuid": about or self.new_uuid(),
            }
        else:
            raise ValueError(type_)
        self.add_line(MAIN_FILE, [rec])
        self.features.add(f"entry:{type_}")
        return rec

    def add_branch(self, path: list[str], kind: str) -> None:
        if path:
            self.branches[path[-1]] = list(path)
            self.branch_kinds[path[-1]] = kind

    # ---- decoys: leaves later in the file that a reader must not pick ---------

    def _earlier_head(self) -> str | None:
        heads = [c.head for c in self.main.cuts if c.head is not None]
        return self.rng.choice(heads) if heads else None

    def decoy_sidechain(self) -> None:
        """An in-file sidechain (no agentId) written after everything: the latest
        leaf of the file, but a sidechain."""
        side = Thread(self, MAIN_FILE, sidechain=True)
        side.prompt("Warmup", snapshot=False)
        side.reply("Ready.", thinking=False)
        self.add_branch(_trim(side.path, self.records), "sidechain")
        self.features.add("decoy:sidechain")

    def _decoy_user(self, content: str, extra: Rec, feature: str) -> None:
        """A user record (``extra``: its other fields) under an earlier point,
        written last."""
        parent = self._earlier_head()
        if parent is None:
            return
        self.main.emit(
            "user",
            {"message": {"role": "user", "content": content}} | extra,
            parent=parent,
            on_path=False,
        )
        self.features.add(feature)

    def decoy_meta(self) -> None:
        """A meta user record under an earlier point, written last."""
        self._decoy_user("<system-reminder>x</system-reminder>", {"isMeta": True}, "decoy:meta")

    def decoy_team(self) -> None:
        """A user record with teamName under an earlier point, written last."""
        self._decoy_user("[teammate] ping", {"teamName": "blue"}, "decoy:team")

    def decoy_invalid(self) -> Rec:
        """An invalid record (message is a string) under the current head, written
        last: the SDK takes it as the leaf, a validating reader leaves it out."""
        m = self.main
        rec = m.emit("user", {"message": "error"}, on_path=False)
        self.line_obj[rec["uuid"]].damage = "invalid"
        self.features.add("invalid-record")
        return rec

    # ---- damage ---------------------------------------------------------------

    def _main_lines(self) -> list[_Line]:
        return self.files[MAIN_FILE]

    def _cut_books(self, uid: str, keep: bool) -> None:
        """A thread whose records include ``uid`` now starts at it (``keep``) or
        just after it (the record is lost)."""

        def cut(lst: list[str]) -> list[str]:
            if uid not in lst:
                return lst
            i = lst.index(uid)
            return lst[i if keep else i + 1 :]

        m = self.main
        if uid in m.prefix:
            m.prefix = cut(m.prefix)
            m.prefix_walk = cut(m.prefix_walk)
        elif uid in m.path:
            m.prefix, m.prefix_walk = [], []
            m.path = cut(m.path)
            m.walk = cut(m.walk)
        for leaf in list(self.branches):
            self.branches[leaf] = cut(self.branches[leaf])
            if not self.branches[leaf] or (leaf == uid and not keep):
                del self.branches[leaf]
                del self.branch_kinds[leaf]

    def _prompt_targets(self) -> list[str]:
        m = self.main
        chain = m.prefix + m.path
        return [u for u in m.prompts if u in chain and u not in self._damaged]

    def truncate_prompt(self) -> bool:
        """A main-thread prompt's line is cut short (both readers lose the record)."""
        targets = [u for u in self._prompt_targets() if self.line_obj[u].damage == ""]
        if not targets:
            return False
        uid = self.rng.choice(targets)
        line = self.line_obj[uid]
        line.damage, line.cut = "truncated", self.rng.uniform(0.2, 0.9)
        self._damaged.add(uid)
        self._cut_books(uid, keep=False)
        self.features.add("truncated-record")
        return True

    def dangle_prompt(self) -> bool:
        """A main-thread prompt's parentUuid names a record that is not in the file."""
        targets = self._prompt_targets()
        if not targets:
            return False
        uid = self.rng.choice(targets)
        self.records[uid]["parentUuid"] = self.new_uuid()
        self._damaged.add(uid)
        self._cut_books(uid, keep=True)
        self.features.add("missing-parent")
        return True

    def dangle_root(self) -> bool:
        """The first record's parentUuid names a record of an earlier session."""
        chain = self.main.prefix + self.main.path
        if not chain or self.records[chain[0]].get("parentUuid") is not None:
            return False
        if chain[0] in self._damaged:
            return False
        self.records[chain[0]]["parentUuid"] = self.new_uuid()
        self._damaged.add(chain[0])
        self.features.add("missing-parent-root")
        return True

    def cycle_root(self) -> bool:
        """The root's parentUuid names a later record of the same walk (not one
        put back from a parallel turn): a walk from the leaf meets it again and
        must stop."""
        chain = self.main.prefix + self.main.path
        walk = self.main.prefix_walk + self.main.walk
        if not chain or chain[0] in self._damaged or walk[:1] != chain[:1]:
            return False
        if self.records[chain[0]].get("parentUuid") is not None:
            return False
        shared = [br for br in self.branches.values() if chain[0] in br]
        later = [
            u for u in walk[1:] if is_message(self.records[u]) and all(u in br for br in shared)
        ]
        if not later:
            return False
        self.records[chain[0]]["parentUuid"] = self.rng.choice(later)
        self._damaged.add(chain[0])
        self.cycles += 1
        self.features.add("cycle-root")
        return True

    def cycle_detached(self) -> None:
        """Two records that are each other's parent, on no thread."""
        m = self.main
        a = m.emit("user", {"message": {"role": "user", "content": "loop a"}}, on_path=False)
        c = m.emit(
            "assistant",
            {"message": {"role": "assistant", "content": [{"type": "text", "text": "loop b"}]}},
            parent=a["uuid"],
            on_path=False,
        )
        a["parentUuid"] = c["uuid"]
        self.cycles += 1
        self.features.add("cycle-detached")

    def duplicate(self) -> bool:
        """A record's line written twice (the copy right after the original)."""
        lines = self._main_lines()
        targets = [
            i
            for i in _single_records(lines)
            if "uuid" in lines[i].values[0] and lines[i].values[0]["uuid"] not in self._damaged
        ]
        if not targets:
            return False
        i = self.rng.choice(targets)
        rec = lines[i].values[0]
        lines.insert(i + 1, _Line([rec]))
        self._damaged.add(rec["uuid"])
        self.duplicates += 1
        self.features.add("duplicate")
        return True

    def concat(self) -> bool:
        """Two lines written as one (``...}{"type":...``): both values are kept by a
        repairing reader (the SDK loses both)."""
        lines = self._main_lines()
        targets = [
            i
            for i in range(len(lines) - 1)
            if lines[i].damage == ""
            and lines[i + 1].damage == ""
            and all(isinstance(v, dict) for v in lines[i].values + lines[i + 1].values)
            and lines[i].values[0] is not lines[i + 1].values[0]
        ]
        if not targets:
            return False
        i = self.rng.choice(targets)
        lines[i].values = lines[i].values + lines[i + 1].values
        lines[i].damage = "concat"
        del lines[i + 1]
        self.features.add("concat")
        return True

    def truncate_entry(self) -> bool:
        lines = self._main_lines()
        targets = [i for i in _single_records(lines) if "uuid" not in lines[i].values[0]]
        if not targets:
            return False
        ln = lines[self.rng.choice(targets)]
        ln.damage, ln.cut = "truncated", self.rng.uniform(0.1, 0.9)
        self.features.add("truncated-entry")
        return True

    def truncate_last(self) -> bool:
        """The last line is cut short (a crash while writing it): its record is lost.
        Only when it is the thread's last record, written right after the one
        before it, and not a tool result."""
        m = self.main
        lines = self._main_lines()
        if len(lines) < 2 or len(m.path) < 2 or lines[-1].damage or lines[-2].damage:
            return False
        last, prev = lines[-1].values, lines[-2].values
        if len(last) != 1 or len(prev) != 1:
            return False
        uid = last[0].get("uuid")
        if uid != m.path[-1] or prev[0].get("uuid") != m.path[-2] or uid in self._damaged:
            return False
        rec = self.records[uid]
        content = rec.get("message", {}).get("content") if rec.get("type") == "user" else None
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            return False
        if self.records[m.path[-2]].get("subtype") == "compact_boundary":
            return False
        lines[-1].damage, lines[-1].cut = "truncated", self.rng.uniform(0.3, 0.95)
        self._damaged.add(uid)
        m.path.pop()
        m.walk.pop()
        self.final_newline = False
        self.features.add("truncated-last")
        return True

    def nondict(self) -> None:
        """A line holding a JSON value that is not an object."""
        lines = self._main_lines()
        value = self.rng.choice(["massive error", 42, [1], None, True])
        lines.insert(self.rng.randint(1, len(lines)), _Line([value], "nondict"))
        self.features.add("nondict")

    def blank(self) -> None:
        lines = self._main_lines()
        lines.insert(self.rng.randint(1, len(lines)), _Line([], "blank"))
        self.features.add("blank")

    # ---- output ---------------------------------------------------------------

    def _serialize(self, file: str, *, sdk: bool) -> bytes:
        lines = self.files[file]
        texts: list[str] = []
        for ln in lines:
            texts.extend(ln.render_split() if sdk else [ln.render()])
        nl = self.newline if file == MAIN_FILE else "\n"
        body = nl.join(texts)
        if self.final_newline or file != MAIN_FILE or sdk:
            body += nl
        data = body.encode()
        if self.bom and file == MAIN_FILE and not sdk:
            data = b"\xef\xbb\xbf" + data
        return data

    def build(self) -> Session:
        m = self.main
        recs = self.records
        main = _trim(m.path, recs)
        full = _trim(m.prefix + m.path, recs)
        lines = self._main_lines()
        skipped, invalid, repaired, blank = [], [], [], []
        line_of: dict[str, int] = {}
        present: dict[str, Rec] = {}
        for n, ln in enumerate(lines, 1):
            if ln.damage in ("truncated", "nondict"):
                skipped.append(n)
            elif ln.damage == "invalid":
                invalid.append(n)
            elif ln.damage == "concat":
                repaired.append(n)
            elif ln.damage == "blank":
                blank.append(n)
            if ln.damage in ("truncated", "invalid", "nondict", "blank"):
                continue
            for v in ln.values:
                if isinstance(v, dict) and isinstance(v.get("uuid"), str):
                    line_of.setdefault(v["uuid"], n)
                    present[v["uuid"]] = v
        missing = sum(
            1
            for v in present.values()
            if isinstance(v.get("parentUuid"), str) and v["parentUuid"] not in present
        )
        subagents = {f: self._serialize(f, sdk=False) for f in self.files if f != MAIN_FILE}
        subagents.update(self.sidecars)
        agents = {
            aid: Agent(
                aid,
                None if t.file == MAIN_FILE else t.file,
                _trim(t.path, recs),
                _trim(t.walk, recs),
                t.parallel,
            )
            for aid, t in self.agents.items()
        }

        def recovered(chain: list[str]) -> int:
            return sum(g.recovered for g in m.groups if g.first in chain)

        calls: list[str] = []
        answered: set[str] = set()
        for u in main:
            content = recs[u].get("message", {}).get("content")
            if not isinstance(content, list):
                continue
            for blk in content:
                if blk.get("type") == "tool_use" and recs[u]["type"] == "assistant":
                    calls.append(blk["id"])
                elif blk.get("type") == "tool_result":
                    answered.add(blk["tool_use_id"])
        if m.groups and any(g.recovered for g in m.groups if g.first in main):
            self.features.add("recovered")
        if self.newline == "\r\n":
            self.features.add("crlf")
        if self.bom:
            self.features.add("bom")
        return Session(
            session_id=self.session_id,
            data=self._serialize(MAIN_FILE, sdk=False),
            sdk_data=self._serialize(MAIN_FILE, sdk=True),
            subagents=subagents,
            records=dict(recs),
            main=main,
            full=full,
            branches={k: _trim(v, recs) for k, v in self.branches.items()},
            branch_kinds=dict(self.branch_kinds),
            agents=agents,
            line_of=line_of,
            skipped_lines=skipped,
            invalid_lines=invalid,
            repaired_lines=repaired,
            blank_lines=blank,
            duplicates=self.duplicates,
            missing_parents=missing,
            cycles=self.cycles,
            recovered=recovered(main),
            recovered_full=recovered(full),
            open_calls=sum(1 for c in calls if c not in answered),
            features=set(self.features),
        )


# --------------------------------------------------------------------------
# random sessions
# --------------------------------------------------------------------------


def random_session(
    seed: int,
    *,
    forks: bool = True,
    parallel: bool = True,
    sidechains: bool = True,
    subagents: bool = True,
    compaction: bool = True,
    decoys: bool = True,
    damage: bool = True,
    end: str | None = None,
) -> Session:
    """A realistic session drawn from ``seed``; the flags turn features off.

    ``end``: "reply" (a final answer), "results" (the file ends after a tool
    turn's results), "crash" (after tool calls some of whose results were never
    written); random when None.
    """
    b = SessionBuilder(seed)
    rng = b.rng
    m = b.main
    if end is None:
        end = rng.choices(["reply", "results", "crash"], [8, 1, 1])[0]
    if rng.random() < 0.3:
        m.hook_progress()
    need_prompt = True
    for _ in range(rng.randint(1, 6)):
        if need_prompt:
            if rng.random() < 0.15:
                m.command()
            if rng.random() < 0.1:
                b.entry("queue-operation")
            m.prompt()
        _turn_body(b, parallel=parallel, sidechains=sidechains, subagents=subagents, forks=forks)
        m.reply()
        m.end_turn()
        need_prompt = True
        r = rng.random()
        if compaction and r < 0.2:
            m.compact()
        elif forks and r < 0.45:
            kind = m.fork(open_call=rng.random() < 0.3)
            need_prompt = kind != "retry"
        elif r < 0.55:
            if rng.random() < 0.5:
                m.team_message()
            else:
                m.synthetic_error()
    if need_prompt:
        m.prompt()
    if end == "reply":
        _turn_body(b, parallel=parallel, sidechains=sidechains, subagents=subagents, forks=False)
        m.reply()
        m.end_turn()
    elif end == "results":
        b.features.add("end:results")
        m.tools(rng.randint(1, 3) if parallel else 1)
    else:
        b.features.add("end:crash")
        n = rng.randint(1, 3) if parallel else 1
        m.tools(n, complete=rng.randint(0, n - 1))
    if rng.random() < 0.5:
        b.entry("summary", m.head)
    if rng.random() < 0.2:
        b.entry("custom-title")
    if decoys:
        if rng.random() < 0.3:
            b.decoy_sidechain()
        if rng.random() < 0.3:
            b.decoy_meta()
        if rng.random() < 0.3:
            b.decoy_team()
    if damage:
        _damage(b)
    return b.build()


def _turn_body(
    b: SessionBuilder, *, parallel: bool, sidechains: bool, subagents: bool, forks: bool
) -> None:
    """Between a prompt and the final answer: API errors, tool rounds, attachments."""
    rng = b.rng
    m = b.main
    if rng.random() < 0.15:
        for _ in range(rng.randint(1, 3)):
            m.system("api_error")
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        r = rng.random()
        if subagents and r < 0.12:
            m.task(
                rng.randint(1, 2) if parallel else 1,
                layout=rng.choice(["file", "file", "nested"]),
                agent_parallel=parallel and rng.random() < 0.4,
            )
        elif sidechains and r < 0.22:
            m.task(
                rng.randint(1, 2) if parallel else 1,
                layout=rng.choice(["infile", "infile-noid"]),
                agent_parallel=parallel and rng.random() < 0.4,
            )
        elif parallel and r < 0.6:
            n = rng.randint(2, 4)
            progress = rng.choice([0, 0, 1, 2])
            by_progress = progress > 0 and rng.random() < 0.5
            m.tools(
                n,
                progress=progress,
                result_parent="progress" if by_progress else "assistant",
                tie=not by_progress and rng.random() < 0.2,
                stray=by_progress and rng.random() < 0.5,
                interleave=(
                    (lambda: m.stray_branch(reply=rng.random() < 0.5))
                    if forks and rng.random() < 0.15
                    else None
                ),
            )
        else:
            m.tools(1, progress=rng.choice([0, 0, 1]))
        if rng.random() < 0.2:
            m.attachment()
        if rng.random() < 0.1:
            m.meta("<system-reminder>The todo list is empty.</system-reminder>")


def _damage(b: SessionBuilder) -> None:
    rng = b.rng
    if rng.random() < 0.2:
        b.newline = "\r\n"
    if rng.random() < 0.2:
        b.bom = True
    for _ in range(rng.choice([0, 0, 1, 2])):
        b.blank()
    if rng.random() < 0.25:
        b.concat()
    if rng.random() < 0.2:
        b.truncate_entry()
    if rng.random() < 0.15:
        b.nondict()
    if rng.random() < 0.2:
        b.duplicate()
    r = rng.random()
    if r < 0.1:
        b.truncate_prompt()
    elif r < 0.2:
        b.dangle_prompt()
    elif r < 0.3:
        b.cycle_root()
    elif r < 0.35:
        b.dangle_root()
    if rng.random() < 0.1:
        b.cycle_detached()
    if rng.random() < 0.3:
        b.truncate_last()


# --------------------------------------------------------------------------
# files on disk, flat readings
# --------------------------------------------------------------------------


def write_session(
    config_dir: Path, session: Session, *, project: str = PROJECT, sdk_view: bool = False
) -> Path:
    """Write ``session`` as ``<config_dir>/projects/<project>/<sessionId>.jsonl`` plus
    its ``<sessionId>/subagents/...`` files (the CLAUDE_CONFIG_DIR layout);
    ``sdk_view`` writes ``session.sdk_data`` instead of ``session.data``.
    Returns the session file's path."""
    proj = config_dir / "projects" / project
    proj.mkdir(parents=True, exist_ok=True)
    path = proj / session.file_name
    path.write_bytes(session.sdk_data if sdk_view else session.data)
    for rel, data in session.subagents.items():
        target = proj / session.session_id / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return path


def read_values(data: bytes) -> list[Any]:
    """Every JSON value of a JSON Lines file, leniently: a BOM is ignored, lines
    that do not parse are left out, several values on one line are all kept."""
    text = data.decode("utf-8-sig")
    dec = json.JSONDecoder()
    out: list[Any] = []
    for raw in text.split("\n"):
        line = raw.strip()
        pos = 0
        values: list[Any] = []
        try:
            while pos < len(line):
                value, pos = dec.raw_decode(line, pos)
                values.append(value)
                while pos < len(line) and line[pos] in " \t\r":
                    pos += 1
        except json.JSONDecodeError:
            values = values if pos else []
        out.extend(values)
    return out


def flat_records(data: bytes) -> list[Rec]:
    """The flat reading of a session file: every record object in file order."""
    return [v for v in read_values(data) if isinstance(v, dict) and "type" in v]


def naive_walk(records: list[Rec], leaf: str) -> list[Rec]:
    """A plain parentUuid walk from ``leaf`` to the root (no parallel recovery)."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    out: list[Rec] = []
    seen: set[str] = set()
    cur = by_uuid.get(leaf)
    while cur is not None and cur["uuid"] not in seen:
        seen.add(cur["uuid"])
        out.append(cur)
        parent = cur.get("parentUuid")
        cur = by_uuid.get(parent) if isinstance(parent, str) else None
    out.reverse()
    return out


ALL_FEATURES = frozenset(
    {
        "parallel",
        "recovered",
        "progress",
        "progress-root",
        "results-under-progress",
        "stray-result",
        "timestamp-ties",
        "fork:edit",
        "fork:retry",
        "fork-open-call",
        "stray-branch",
        "stray-branch-reply",
        "task:file",
        "task:nested",
        "task:infile",
        "task:infile-noid",
        "parallel-tasks",
        "compaction",
        "command",
        "team-on-thread",
        "synthetic-error",
        "attachment",
        "system:api_error",
        "system:turn_duration",
        "system:stop_hook_summary",
        "entry:file-history-snapshot",
        "entry:queue-operation",
        "entry:summary",
        "entry:custom-title",
        "decoy:sidechain",
        "decoy:meta",
        "decoy:team",
        "end:results",
        "end:crash",
        "crlf",
        "bom",
        "blank",
        "concat",
        "truncated-entry",
        "truncated-record",
        "truncated-last",
        "nondict",
        "duplicate",
        "missing-parent",
        "missing-parent-root",
        "cycle-root",
        "cycle-detached",
    }
)
"""Features that a few hundred seeds of random_session must all exercise."""


# --------------------------------------------------------------------------
# The hand-written example transcripts of examples/sessions/
# --------------------------------------------------------------------------

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples" / "sessions"


@dataclass(frozen=True)
class Example:
    """What is known about one hand-written example transcript, from how it was written.

    ``main`` is the main thread's uuids in order (SPEC §8.4), ``threads`` the
    ``(kind, id)`` of every thread, ``skipped``/``repaired`` the 1-based lines
    §8.1 skips/repairs, and ``invalid`` maps each 0-based line that is JSON but
    not a valid record (SPEC §1) to the path under ``records[i]`` that names it.
    """

    name: str
    shape: str
    main: tuple[str, ...]
    threads: frozenset[tuple[str, str]]
    skipped: tuple[int, ...] = ()
    repaired: tuple[int, ...] = ()
    invalid: tuple[tuple[int, str], ...] = ()
    recovered: int = 0
    compactions: int = 0
    duplicate_uuids: int = 0

    @property
    def path(self) -> Path:
        return EXAMPLES_DIR / self.name


def _ids(prefix: str, *ns: int) -> tuple[str, ...]:
    return tuple(f"{prefix}-0000-4000-8000-{n:012x}" for n in ns)


_SUBAGENT_SESSION = "a9e27f11-0000-4000-8000-0000000000f3"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "forked.jsonl",
        "an edited prompt forks the tree; the abandoned reply is a branch",
        _ids("f0e1d2c3", 1, 2, 5, 6, 7),
        frozenset({("main", "main"), ("branch", _ids("f0e1d2c3", 4)[0])}),
    ),
    Example(
        "sidechain.jsonl",
        "a subagent's records in the session file (isSidechain), answered by a Task result",
        _ids("5de0c4a1", 1, 2, 7, 8),
        frozenset({("main", "main"), ("agent", "a5c1de0")}),
    ),
    Example(
        f"{_SUBAGENT_SESSION}.jsonl",
        "two parallel Task calls whose subagents write <session>/subagents/agent-<id>.jsonl",
        _ids("a9e27f11", 1, 2, 3, 4, 5, 6, 7),
        frozenset({("main", "main"), ("agent", "a7a7a7a"), ("agent", "a8b8b8b")}),
        recovered=1,
    ),
    Example(
        "compacted.jsonl",
        "a compaction: a compact_boundary with a logicalParentUuid, then the summary",
        _ids("c0aac7ed", 5, 6, 7, 8),
        frozenset({("main", "main")}),
        compactions=1,
    ),
    Example(
        "parallel-tools.jsonl",
        "a reply streamed one block per record with two parallel tool calls, results fanned out",
        _ids("9a7a11e1", 1, 2, 3, 4, 5, 6, 8, 9, 10),
        frozenset({("main", "main")}),
        recovered=1,
    ),
    Example(
        "broken-lines.jsonl",
        "a flat log with lines that are JSON but not valid records",
        ("line_001", "line_002", "line_006", "line_007"),
        frozenset({("main", "main")}),
        skipped=(4, 5, 6, 7, 8, 9, 10),
        invalid=(
            (3, ".message.content"),  # "contnet" instead of "content"
            (4, ".message"),  # message is a string
            (5, ""),  # a JSON string
            (6, ".type"),  # no type
            (7, ""),  # 7
            (8, ""),  # an array
            (9, ".message.content[0]"),  # a bare string as a block
        ),
    ),
    Example(
        "damaged.jsonl",
        "a BOM, CRLF line ends, a blank line, two records on one line, a repeated line, a cut line",
        _ids("da3a6ed0", 1, 2, 3, 4, 5, 6),
        frozenset({("main", "main")}),
        skipped=(8,),
        repaired=(4,),
        duplicate_uuids=1,
    ),
    Example(
        "flat.jsonl",
        "a flat transcript written by another tool: no record names a parent",
        ("user_001", "assistant_001", "user_002", "assistant_002"),
        frozenset({("main", "main")}),
    ),
)
"""Every example transcript and what the reader must find in it."""


def example_files() -> list[Path]:
    """Every .jsonl file under examples/ (session files and subagent files)."""
    return sorted(EXAMPLES_DIR.parent.rglob("*.jsonl"))


__all__ = [
    "ALL_FEATURES",
    "EXAMPLES",
    "EXAMPLES_DIR",
    "MAIN_FILE",
    "PROJECT",
    "Agent",
    "Example",
    "Rec",
    "Session",
    "SessionBuilder",
    "Thread",
    "example_files",
    "flat_records",
    "is_message",
    "is_visible",
    "message_uuids",
    "naive_walk",
    "random_session",
    "read_values",
    "visible_uuids",
    "write_session",
]
