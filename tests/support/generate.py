"""Deterministic generator of realistic Claude Code session transcripts for the benchmarks.

The records have the shape of ``~/.claude/projects/*/<session>.jsonl`` lines (see
``docs/SPEC.md`` §1): user prompts, assistant replies streamed one content block per
record (several records sharing ``message.id``, each with the full Claude Code
metadata), parallel ``tool_use`` calls answered by one user record per ``tool_result``
with ``toolUseResult`` and ``sourceToolAssistantUUID``, ``progress`` records, attachments
(memory, date, queued_command, edited_text_file, ...), system notices (``local_command``
among them), entries that are not messages, and a little damage: interrupted calls,
orphan results, ``isVirtual`` records, tombstones and synthetic API error replies.

The process is stationary, so a history of 1M records looks like ten histories of 100k
records: per-record costs are comparable across sizes. 100k records make about 85 MB of
JSON.

API:

* ``generate(n, seed=0) -> list[dict]``
* ``generate_bytes(n, seed=0, jsonl=False) -> bytes`` (a JSON array, or JSON Lines),
  cached under ``benches/.cache/``
* ``adversarial_assistant_run(n) -> list[dict]``: one user prompt and then ``n``
  adjacent assistant records with distinct ``message.id``
* ``load_corpus()`` / ``corpus_records()``: the real transcripts in ``$MSGNORM_CORPUS``

Run ``python tests/support/generate.py 100000`` to print the size and the record mix.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import os
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

Record = dict[str, Any]

BENCH_DIR = Path(__file__).resolve().parents[2] / "benches"
CACHE_DIR = BENCH_DIR / ".cache"


def _corpus_dir() -> Path | None:
    """``MSGNORM_CORPUS``: a directory of real transcripts (relative to the repository root)."""
    value = os.environ.get("MSGNORM_CORPUS", "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else BENCH_DIR.parent / path


CORPUS_DIR = _corpus_dir()

#: Multiplies every generated text length; tuned so that 100k records are ~85 MB.
TEXT_SCALE = 0.165

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_B64 = _ALNUM + "+/"
_HEX = "0123456789abcdef"

_WORDS = (
    "the a to of and in is it that for on with as this be by we are function value "
    "return file test error config module import class self data list dict string "
    "number should could would will update fix add remove check run build install "
    "parse decode encode message record history session token budget limit cache "
    "request response stream block content result tool call user assistant model "
    "server client path line column index offset buffer memory thread async await "
    "option flag default argument parameter type struct field method trait impl crate "
    "package version release branch commit merge rebase diff patch review pipeline "
    "because however therefore instead already still again maybe probably exactly "
    "let me first look at how now I see the issue here is what we need next then"
).split()
_UNICODE_WORDS = [
    "→",
    "café",
    "naïve",
    "über",
    "déjà-vu",
    "日本語",
    "最新の状態",
    "テスト",
    "数据",
    "Привет",
    "αβγ",
    "✓",
    "✗",
    "…",
    "🚀",
    "🐛",
    "—",
]
_IDENTS = (
    "records msg block idx result out buf parser state ctx cfg opts items payload "
    "tool_use_id content_len total count limit cutoff uuid parent pending seen"
).split()
_FUNCS = (
    "normalize merge_runs find_cutoff count_tokens render_attachment derive_uuid "
    "load_session write_jsonl apply_patch run_tests parse_args main setup teardown"
).split()

_MODELS = ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
_PROJECTS = ("msgnorm", "webapp", "infra", "data-pipeline")
_BRANCHES = ("main", "feature/streaming-merge", "fix/tool-pairing", "perf/linear-scan")
_FILES = (
    "src/lib.rs",
    "src/normalize.rs",
    "src/model.rs",
    "python/msgnorm/__init__.py",
    "tests/test_normalize.py",
    "README.md",
    "pyproject.toml",
    "Cargo.toml",
    "src/components/App.tsx",
    "scripts/release.sh",
    "docs/guide.md",
)
_TOOLS = (
    ("Read", 30),
    ("Bash", 25),
    ("Edit", 15),
    ("Grep", 10),
    ("Glob", 6),
    ("Write", 4),
    ("TodoWrite", 5),
    ("Task", 2),
    ("WebFetch", 2),
    ("mcp__ide__getDiagnostics", 1),
)
_TOOL_NAMES = [t for t, _ in _TOOLS]
_TOOL_WEIGHTS = [w for _, w in _TOOLS]


def _build_pool(seed: int, size: int = 1_500_000) -> str:
    """A long deterministic text mixing prose, code and a little non-ASCII."""
    rng = random.Random(f"msgnorm-bench-pool-{seed}")
    parts: list[str] = []
    total = 0
    while total < size:
        kind = rng.random()
        if kind < 0.55:
            words = rng.choices(_WORDS, k=rng.randint(6, 24))
            if rng.random() < 0.15:
                words[rng.randrange(len(words))] = rng.choice(_UNICODE_WORDS)
            s = " ".join(words).capitalize() + rng.choice((". ", ".\n", ", ", "? ", ":\n\n"))
        elif kind < 0.9:
            ind = " " * (4 * rng.randint(0, 3))
            ident, func = rng.choice(_IDENTS), rng.choice(_FUNCS)
            form = rng.randrange(6)
            if form == 0:
                s = f'{ind}{ident} = {func}("{rng.choice(_WORDS)}", {rng.randint(0, 999)})\n'
            elif form == 1:
                s = f"{ind}for {ident} in {func}(self.{rng.choice(_IDENTS)}):\n"
            elif form == 2:
                s = f'{ind}if {ident} is None:\n{ind}    raise ValueError(f"bad {{{ident}!r}}\\n")\n'
            elif form == 3:
                s = f"{ind}let {ident}: Vec<u8> = {func}(&{rng.choice(_IDENTS)})?;\n"
            elif form == 4:
                s = f"{ind}// {' '.join(rng.choices(_WORDS, k=rng.randint(3, 10)))}\n"
            else:
                s = f'{ind}{{"{ident}": "{rng.choice(_WORDS)}\\t{rng.randint(0, 99)}"}},\n'
        else:
            s = f"  {rng.randint(1, 400):>4}→{rng.choice(_IDENTS)}.{rng.choice(_FUNCS)}()\n"
        parts.append(s)
        total += len(s)
    return "".join(parts)


class _Session:
    """A stationary random process emitting transcript records."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"msgnorm-bench-{seed}")
        self.pool = _build_pool(seed)
        self.pool_len = len(self.pool)
        rng = self.rng
        self.session_id = self.uuid()
        project = rng.choice(_PROJECTS)
        self.cwd = f"/home/dev/projects/{project}"
        self.branch = rng.choice(_BRANCHES)
        self.version = "2.0.76"
        self.model = _MODELS[0]
        self.parent: str | None = None
        self.clock_ms = 1_763_625_600_000 + rng.randrange(86_400_000)  # Nov 2025
        self.turn = 0
        self.out: list[Record] = []
        self.cache_read = 18_000

    # -- primitives ------------------------------------------------------------------

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def rid(self, prefix: str, k: int) -> str:
        return prefix + "".join(self.rng.choices(_ALNUM, k=k))

    def ts(self, max_step_ms: int = 4000) -> str:
        self.clock_ms += self.rng.randint(1, max_step_ms)
        secs, ms = divmod(self.clock_ms, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{ms:03d}Z"

    def length(self, mean: float, lo: int = 1, hi: int = 60_000) -> int:
        lo = max(1, int(lo * TEXT_SCALE)) if lo else 0
        n = int(self.rng.expovariate(1.0 / (mean * TEXT_SCALE))) + lo
        return min(n, int(hi * TEXT_SCALE))

    def text(self, mean: float, lo: int = 1, hi: int = 60_000) -> str:
        n = self.length(mean, lo, hi)
        off = self.rng.randrange(self.pool_len - n - 1)
        return self.pool[off : off + n]

    def b64(self, n: int) -> str:
        return "".join(self.rng.choices(_B64, k=n))

    def path(self) -> str:
        return f"{self.cwd}/{self.rng.choice(_FILES)}"

    def base(self, rtype: str, *, sidechain: bool = False) -> Record:
        """Claude Code's common fields, chained to the previous record."""
        rec: Record = {
            "parentUuid": self.parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
            "type": rtype,
        }
        return rec

    def emit(self, rec: Record, *, ts_step: int = 4000) -> Record:
        if "uuid" not in rec:
            rec["uuid"] = self.uuid()
        if "timestamp" not in rec:
            rec["timestamp"] = self.ts(ts_step)
        if rec.get("type") in ("user", "assistant", "system", "attachment", "progress"):
            self.parent = rec["uuid"]
        self.out.append(rec)
        return rec

    def user(self, content: Any, **extra: Any) -> Record:
        rec = self.base("user")
        rec["message"] = {"role": "user", "content": content}
        rec.update(extra)
        return self.emit(rec)

    # -- record kinds ----------------------------------------------------------------

    def entry_snapshot(self) -> None:
        mid = self.uuid()
        backups = {
            self.path(): {
                "backupFileName": f"{self.rid('', 16).lower()}@v{self.rng.randint(1, 9)}",
                "version": self.rng.randint(1, 9),
                "backupTime": self.ts(10),
            }
            for _ in range(self.rng.randint(0, 3))
        }
        self.out.append(
            {
                "type": "file-history-snapshot",
                "messageId": mid,
                "snapshot": {
                    "messageId": mid,
                    "trackedFileBackups": backups,
                    "timestamp": self.ts(10),
                },
                "isSnapshotUpdate": False,
            }
        )

    def entry_misc(self) -> None:
        r = self.rng.random()
        if r < 0.4:
            self.out.append(
                {"type": "summary", "summary": self.text(60, 10, 200), "leafUuid": self.parent}
            )
        elif r < 0.8:
            self.out.append(
                {
                    "type": "queue-operation",
                    "operation": self.rng.choice(("enqueue", "dequeue", "remove")),
                    "timestamp": self.ts(100),
                    "sessionId": self.session_id,
                    "content": self.text(80, 5, 400),
                }
            )
        else:
            self.out.append(
                {
                    "type": "custom-title",
                    "customTitle": self.text(30, 5, 60),
                    "sessionId": self.session_id,
                }
            )

    def system(self) -> None:
        rng = self.rng
        r = rng.random()
        rec = self.base("system")
        if r < 0.35:
            rec.update(
                subtype="api_error",
                level="error",
                content=f"API Error: {rng.choice((500, 529, 429))} "
                '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
                retryInMs=rng.randint(500, 30_000),
                retryAttempt=rng.randint(1, 5),
                maxRetries=10,
            )
        elif r < 0.65:
            rec.update(
                subtype="informational",
                level=rng.choice(("info", "warning")),
                content=self.text(120, 20, 600),
                isMeta=False,
            )
        elif r < 0.9:
            rec.update(
                subtype="turn_duration",
                level="info",
                content=f"Turn took {rng.randint(1, 600)}s",
                durationMs=rng.randint(1000, 600_000),
                isMeta=True,
            )
        else:
            rec.update(
                subtype="stop_hook_summary",
                level="info",
                content="Stop hook feedback:\n" + self.text(200, 20, 1000),
                hookCount=rng.randint(1, 3),
                hasOutput=True,
                preventedContinuation=False,
                toolUseID=self.rid("toolu_01", 22),
            )
        self.emit(rec)

    def local_command(self) -> None:
        cmd = self.rng.choice(("cost", "model", "context", "mcp", "memory", "status"))
        for content in (
            f"<command-name>/{cmd}</command-name>\n<command-message>{cmd}</command-message>\n"
            "<command-args></command-args>",
            f"<local-command-stdout>{self.text(250, 10, 2000)}</local-command-stdout>",
        ):
            rec = self.base("system")
            rec.update(subtype="local_command", content=content, level="info", isMeta=False)
            self.emit(rec, ts_step=300)

    def attachment(self, att: Record) -> None:
        rec = self.base("attachment")
        rec["attachment"] = att
        self.emit(rec, ts_step=20)

    def prompt_attachments(self) -> None:
        rng = self.rng
        if self.turn == 0:
            self.attachment(
                {
                    "type": "memory",
                    "path": f"{self.cwd}/CLAUDE.md",
                    "content": self.text(3000, 500, 12_000),
                }
            )
            self.attachment({"type": "date", "date": "2025-11-20"})
            return
        r = rng.random()
        if r < 0.10:
            self.attachment(
                {
                    "type": "edited_text_file",
                    "filename": self.path(),
                    "snippet": self.text(700, 50, 6000),
                }
            )
        elif r < 0.13:
            self.attachment({"type": "queued_command", "prompt": self.text(150, 10, 1500)})
        elif r < 0.16:
            self.attachment({"type": "date", "date": f"2025-11-{rng.randint(20, 30)}"})
        elif r < 0.19:
            self.attachment(
                {
                    "type": "nested_memory",
                    "path": f"{self.cwd}/src/CLAUDE.md",
                    "content": self.text(800, 100, 4000),
                }
            )
        elif r < 0.22:
            # renders to nothing (no string `content`): dropped by normalize_for_api
            self.attachment({"type": "plan_mode", "reminderType": "full", "isSubAgent": False})
        elif r < 0.25:
            self.attachment(
                {"type": "todo_reminder", "content": self.text(200, 20, 1200), "itemCount": 3}
            )

    def prompt(self) -> None:
        rng = self.rng
        if rng.random() < 0.03:
            self.user(
                "Caveat: The messages below were generated by the user while running local "
                "commands. DO NOT respond to these messages or otherwise consider them in your "
                "response unless the user explicitly asks you to.",
                isMeta=True,
            )
        text = self.text(450, 15, 20_000)
        if rng.random() < 0.7:
            content: Any = text
        else:
            content = [{"type": "text", "text": text}]
            if rng.random() < 0.04:
                content.append(self.image())
        extra: Record = {}
        if rng.random() < 0.02:
            extra["todos"] = []
        if rng.random() < 0.3:
            extra["thinkingMetadata"] = {"level": "high", "disabled": False, "triggers": []}
        self.user(content, **extra)

    def image(self) -> Record:
        return {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": self.b64(self.length(6000, 800, 40_000) // 4 * 4),
            },
        }

    def tool_input(self, name: str) -> Record:
        rng = self.rng
        if name == "Read":
            inp: Record = {"file_path": self.path()}
            if rng.random() < 0.3:
                inp.update(offset=rng.randint(1, 400), limit=rng.choice((50, 100, 200)))
            return inp
        if name == "Bash":
            return {
                "command": rng.choice(
                    ("cargo test", "pytest -q", "git status", "ls -la", "rg TODO")
                )
                + (" " + self.text(40, 1, 200) if rng.random() < 0.5 else ""),
                "description": self.text(40, 5, 120),
                "timeout": 120000,
            }
        if name == "Edit":
            return {
                "file_path": self.path(),
                "old_string": self.text(250, 10, 3000),
                "new_string": self.text(300, 10, 3000),
                "replace_all": False,
            }
        if name == "Write":
            return {"file_path": self.path(), "content": self.text(1500, 100, 12_000)}
        if name == "Grep":
            return {
                "pattern": rng.choice(_IDENTS),
                "path": self.cwd,
                "output_mode": "content",
                "-n": True,
            }
        if name == "Glob":
            return {"pattern": rng.choice(("**/*.rs", "**/*.py", "src/**/*.ts", "*.md"))}
        if name == "TodoWrite":
            return {"todos": self.todos()}
        if name == "Task":
            return {
                "description": self.text(30, 5, 80),
                "prompt": self.text(600, 50, 4000),
                "subagent_type": rng.choice(("general-purpose", "Explore", "Plan")),
            }
        if name == "WebFetch":
            return {
                "url": f"https://docs.example.org/{rng.choice(_WORDS)}",
                "prompt": self.text(80, 10, 300),
            }
        return {"uri": f"file://{self.path()}"}

    def todos(self) -> list[Record]:
        return [
            {
                "content": self.text(50, 10, 120),
                "status": self.rng.choice(("pending", "in_progress", "completed")),
                "activeForm": self.text(50, 10, 120),
            }
            for _ in range(self.rng.randint(2, 6))
        ]

    def tool_output(self, name: str, inp: Record) -> tuple[Any, Any, bool]:
        """``(tool_result content, toolUseResult, is_error)``."""
        rng = self.rng
        if rng.random() < 0.05:
            msg = f"<tool_use_error>{self.text(80, 10, 400)}</tool_use_error>"
            return msg, "Error: " + msg, True
        if name == "Read":
            body = self.text(1200, 40, 25_000)
            lines = body.count("\n") + 1
            if rng.random() < 0.01:
                img = self.image()
                return [img], {"type": "image", "file": {"base64": "…", "type": "image/png"}}, False
            return (
                body,
                {
                    "type": "text",
                    "file": {
                        "filePath": inp["file_path"],
                        "content": body,
                        "numLines": lines,
                        "startLine": 1,
                        "totalLines": lines,
                    },
                },
                False,
            )
        if name == "Bash":
            out = self.text(500, 0, 20_000)
            return out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}, False
        if name == "Edit":
            snippet = self.text(300, 20, 4000)
            msg = f"The file {inp['file_path']} has been updated. Here's the result of running `cat -n`:\n{snippet}"
            return (
                msg,
                {
                    "filePath": inp["file_path"],
                    "oldString": inp["old_string"],
                    "newString": inp["new_string"],
                    "originalFile": self.text(1000, 100, 15_000),
                    "structuredPatch": [
                        {
                            "oldStart": rng.randint(1, 300),
                            "oldLines": 3,
                            "newStart": rng.randint(1, 300),
                            "newLines": 4,
                            "lines": [self.text(40, 1, 100) for _ in range(rng.randint(3, 8))],
                        }
                    ],
                    "userModified": False,
                    "replaceAll": False,
                },
                False,
            )
        if name == "Write":
            msg = f"File created successfully at: {inp['file_path']}"
            return (
                msg,
                {
                    "type": "create",
                    "filePath": inp["file_path"],
                    "content": inp["content"],
                    "structuredPatch": [],
                },
                False,
            )
        if name in ("Grep", "Glob"):
            files = [self.path() for _ in range(rng.randint(0, 12))]
            return (
                "\n".join(files) or "No files found",
                {
                    "filenames": files,
                    "durationMs": rng.randint(1, 200),
                    "numFiles": len(files),
                    "truncated": False,
                },
                False,
            )
        if name == "TodoWrite":
            msg = (
                "Todos have been modified successfully. Ensure that you continue to use the todo "
                "list to track your progress. Please proceed with the current tasks if applicable"
            )
            return msg, {"oldTodos": [], "newTodos": inp["todos"]}, False
        if name == "Task":
            report = self.text(1500, 100, 10_000)
            return (
                [{"type": "text", "text": report}],
                {
                    "status": "completed",
                    "prompt": inp["prompt"],
                    "agentId": self.rid("", 8).lower(),
                    "content": [{"type": "text", "text": report}],
                    "totalDurationMs": rng.randint(10_000, 600_000),
                    "totalTokens": rng.randint(5000, 90_000),
                    "totalToolUseCount": rng.randint(1, 40),
                },
                False,
            )
        if name == "WebFetch":
            body = self.text(1500, 100, 10_000)
            return (
                body,
                {
                    "bytes": len(body) * 3,
                    "code": 200,
                    "codeText": "OK",
                    "result": body,
                    "durationMs": rng.randint(100, 5000),
                    "url": inp["url"],
                },
                False,
            )
        diag = self.text(200, 2, 2000)
        return [{"type": "text", "text": diag}], [{"type": "text", "text": diag}], False

    def progress(self, name: str, tool_id: str, parent_tool_id: str) -> None:
        rng = self.rng
        rec = self.base("progress")
        if name == "Bash" and rng.random() < 0.6:
            out = self.text(150, 1, 1500)
            rec["data"] = {
                "type": "bash_progress",
                "output": out,
                "fullOutput": out,
                "elapsedTimeSeconds": rng.randint(1, 60),
                "totalLines": out.count("\n") + 1,
            }
        else:
            rec["data"] = {
                "type": "hook_progress",
                "hookEvent": rng.choice(("PreToolUse", "PostToolUse")),
                "hookName": f"PostToolUse:{name}",
                "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh",
            }
        rec["toolUseID"] = tool_id
        rec["parentToolUseID"] = parent_tool_id
        self.emit(rec, ts_step=400)

    def assistant_record(
        self, block: Record, msg_id: str, req_id: str, model: str, usage: Record
    ) -> Record:
        rec = self.base("assistant")
        rec["message"] = {
            "model": model,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": dict(usage),
        }
        rec["requestId"] = req_id
        return self.emit(rec, ts_step=2500)

    def usage(self) -> Record:
        rng = self.rng
        created = rng.randint(0, 3000)
        self.cache_read = min(self.cache_read + created, 180_000)
        return {
            "input_tokens": rng.randint(1, 12),
            "cache_creation_input_tokens": created,
            "cache_read_input_tokens": self.cache_read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": created,
                "ephemeral_1h_input_tokens": 0,
            },
            "output_tokens": rng.randint(1, 900),
            "service_tier": "standard",
        }

    def synthetic_error(self) -> None:
        rec = self.base("assistant")
        rec["message"] = {
            "id": self.uuid(),
            "model": "<synthetic>",
            "role": "assistant",
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "type": "message",
            "usage": {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
            "content": [
                {
                    "type": "text",
                    "text": "API Error: 529 "
                    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
                }
            ],
        }
        rec["isApiErrorMessage"] = True
        self.emit(rec)

    def tombstoned_attempt(self, model: str) -> None:
        """A partial reply abandoned by a streaming fallback, and its tombstone."""
        rec = self.assistant_record(
            {"type": "text", "text": self.text(200, 5, 1000)},
            self.rid("msg_01", 22),
            self.rid("req_011C", 20),
            model,
            self.usage(),
        )
        self.out.append({"type": "tombstone", "message": copy.deepcopy(rec)})

    def api_call(self, *, final: bool) -> bool:
        """One model request streamed as records, and its tool results.

        Returns ``False`` when the user interrupted it (the turn ends).
        """
        rng = self.rng
        model = self.model if rng.random() < 0.9 else rng.choice(_MODELS)
        if rng.random() < 0.003:
            self.synthetic_error()
        if rng.random() < 0.002:
            self.tombstoned_attempt(model)
        msg_id = self.rid("msg_01", 22)
        req_id = self.rid("req_011C", 20)
        usage = self.usage()
        blocks: list[Record] = []
        if rng.random() < 0.55:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": self.text(900, 20, 15_000),
                    "signature": self.b64(self.length(600, 200, 2000)),
                }
            )
        if rng.random() < 0.002:
            blocks.append(
                {"type": "redacted_thinking", "data": self.b64(self.length(400, 50, 2000))}
            )
        if rng.random() < 0.01:
            # a server-side web search: its result is in the same reply (rarely lost)
            sid = self.rid("srvtoolu_01", 22)
            blocks.append(
                {
                    "type": "server_tool_use",
                    "id": sid,
                    "name": "web_search",
                    "input": {"query": self.text(40, 5, 120)},
                }
            )
            if rng.random() < 0.9:
                blocks.append(
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": sid,
                        "content": [
                            {
                                "type": "web_search_result",
                                "url": f"https://docs.example.org/{rng.choice(_WORDS)}",
                                "title": self.text(40, 5, 100),
                                "encrypted_content": self.b64(self.length(600, 50, 3000)),
                                "page_age": "2 days ago",
                            }
                            for _ in range(rng.randint(1, 5))
                        ],
                    }
                )
        if final or rng.random() < 0.6:
            blocks.append({"type": "text", "text": self.text(350 if not final else 800, 5, 12_000)})
        tools: list[tuple[str, Record]] = []
        if not final:
            k = 1
            while k < 6 and rng.random() < 0.3:
                k += 1
            for _ in range(k):
                name = rng.choices(_TOOL_NAMES, _TOOL_WEIGHTS)[0]
                tid = self.rid("toolu_01", 22)
                block: Record = {
                    "type": "tool_use",
                    "id": tid,
                    "name": name,
                    "input": self.tool_input(name),
                }
                blocks.append(block)
                tools.append((tid, block))
        source: dict[str, str] = {}
        last: Record | None = None
        for block in blocks:
            last = self.assistant_record(block, msg_id, req_id, model, usage)
            if block["type"] == "tool_use":
                source[block["id"]] = last["uuid"]
        assert last is not None
        if tools and rng.random() < 0.003:
            # the same streamed tool_use written twice (a resume artefact): the first wins
            last = self.assistant_record(copy.deepcopy(tools[-1][1]), msg_id, req_id, model, usage)
        last["message"]["stop_reason"] = "tool_use" if tools else "end_turn"
        if not tools:
            return True
        interrupted = rng.random() < 0.01
        for i, (tid, block) in enumerate(tools):
            name = block["name"]
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                self.progress(name, tid, tid)
            if interrupted and i == len(tools) - 1:
                # the call never gets a result: interrupted by the user
                self.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
                return False
            content, tur, is_error = self.tool_output(name, block["input"])
            result: Record = {"tool_use_id": tid, "type": "tool_result", "content": content}
            if is_error:
                result["is_error"] = True
            self.user(
                [result],
                toolUseResult=tur,
                sourceToolAssistantUUID=source[tid],
            )
        if rng.random() < 0.02:
            rec = self.base("tool_use_summary")
            rec.update(summary=self.text(80, 10, 300), precedingToolUseIds=[t for t, _ in tools])
            self.emit(rec)
        return True

    def compact(self) -> None:
        rec = self.base("system")
        rec.update(
            subtype="compact_boundary",
            content="Conversation compacted",
            level="info",
            isMeta=False,
            compactMetadata={"trigger": "auto", "preTokens": self.rng.randint(150_000, 170_000)},
        )
        rec["parentUuid"] = None
        rec["logicalParentUuid"] = self.parent
        self.emit(rec)
        self.user(
            "This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:\n" + self.text(4000, 500, 15_000),
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )

    def step(self) -> None:
        """One user turn and everything it causes."""
        rng = self.rng
        if rng.random() < 0.5:
            self.entry_snapshot()
        if rng.random() < 0.03:
            self.entry_misc()
        if self.turn and rng.random() < 0.003:
            self.compact()
        if rng.random() < 0.02:
            self.local_command()
        if rng.random() < 0.003:
            # resumed session: a result for a call this history never made
            self.user(
                [
                    {
                        "tool_use_id": self.rid("toolu_01", 22),
                        "type": "tool_result",
                        "content": self.text(300, 10, 2000),
                    }
                ]
            )
        if rng.random() < 0.004:
            rec = self.base("user")
            rec["message"] = {"role": "user", "content": self.text(200, 10, 1000)}
            rec["isVirtual"] = True
            self.emit(rec)
        self.prompt()
        self.prompt_attachments()
        calls = 1
        while calls < 40 and rng.random() < 0.8:
            calls += 1
        for i in range(calls):
            if not self.api_call(final=i == calls - 1):
                break
            if rng.random() < 0.02:
                self.system()
        if rng.random() < 0.003:
            rec = self.base("assistant")
            rec["message"] = {
                "id": self.rid("msg_01", 22),
                "role": "assistant",
                "model": self.model,
                "type": "message",
                "content": [{"type": "text", "text": self.text(100, 5, 500)}],
            }
            rec["isVirtual"] = True
            self.emit(rec)
        if rng.random() < 0.1:
            self.system()
        self.turn += 1


def iter_records(n: int, seed: int = 0) -> Iterator[Record]:
    """Yield exactly ``n`` records of one long session (cut wherever ``n`` falls)."""
    s = _Session(seed)
    produced = 0
    while produced < n:
        s.step()
        for rec in s.out:
            yield rec
            produced += 1
            if produced == n:
                return
        s.out.clear()


# -- caching -------------------------------------------------------------------------

_SOURCE_HASH: str | None = None


def _source_hash() -> str:
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        _SOURCE_HASH = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    return _SOURCE_HASH


def cache_path(n: int, seed: int = 0, jsonl: bool = False) -> Path:
    """Where ``generate_bytes(n, seed, jsonl)`` is cached (keyed by this file's hash)."""
    ext = "jsonl" if jsonl else "json"
    return CACHE_DIR / f"history-{_source_hash()}-{n}-{seed}.{ext}"


def _encode(n: int, seed: int, jsonl: bool) -> bytes:
    enc = msgspec.json.Encoder()
    parts = [enc.encode(r) for r in iter_records(n, seed)]
    if jsonl:
        return b"".join(p + b"\n" for p in parts)
    return b"[" + b",".join(parts) + b"]"


_PRUNED = False


def _prune_stale() -> None:
    """Remove cache files written by other versions of this generator (once per process)."""
    global _PRUNED
    if _PRUNED:
        return
    _PRUNED = True
    for p in CACHE_DIR.glob("*-*-*.json*"):
        if f"-{_source_hash()}-" not in p.name and not p.name.endswith(".tmp"):
            try:
                p.unlink()
            except OSError:
                pass


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    _prune_stale()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def generate_bytes(n: int, seed: int = 0, jsonl: bool = False) -> bytes:
    """``n`` records as UTF-8 JSON (an array, or JSON Lines), cached on disk."""
    path = cache_path(n, seed, jsonl)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = _encode(n, seed, jsonl)
    try:
        _write_atomic(path, data)
    except OSError:
        pass  # a read-only checkout still works, just slower
    return data


def generate(n: int, seed: int = 0) -> list[Record]:
    """``n`` records as fresh dicts (decoded from the cached JSON, as a reader would)."""
    out: list[Record] = msgspec.json.decode(generate_bytes(n, seed))
    return out


MESSAGE_TYPES = frozenset(
    {"user", "assistant", "system", "attachment", "progress", "tool_use_summary", "tombstone"}
)


def messages_only_bytes(n: int, seed: int = 0) -> bytes:
    """``generate_bytes(n, seed)`` less its entries (records of types that are not one of
    the seven message types), as a JSON array: the input that
    ``msgspec.json.decode(data, type=list[msgnorm.Message])`` accepts."""
    path = CACHE_DIR / f"messages-{_source_hash()}-{n}-{seed}.json"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    raw = msgspec.json.decode(generate_bytes(n, seed), type=list[msgspec.Raw])
    kinds = msgspec.json.Decoder(list[_TypeOnly]).decode(generate_bytes(n, seed))
    data = (
        b"["
        + b",".join(bytes(r) for r, k in zip(raw, kinds, strict=True) if k.type in MESSAGE_TYPES)
        + b"]"
    )
    try:
        _write_atomic(path, data)
    except OSError:
        pass
    return data


class _TypeOnly(msgspec.Struct):
    type: str = ""


def adversarial_assistant_run(n: int) -> list[Record]:
    """One user prompt, then ``n`` adjacent assistant records with distinct ``message.id``.

    The worst case for merging streamed replies: a backward walk over earlier assistant
    records is quadratic here, a linear implementation is not.
    """
    rng = random.Random(f"msgnorm-bench-adversarial-{n}")
    session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    first = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    common = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/projects/msgnorm",
        "sessionId": session,
        "version": "2.0.76",
        "gitBranch": "main",
    }
    out: list[Record] = [
        {
            "parentUuid": None,
            **common,
            "type": "user",
            "message": {"role": "user", "content": "Say something, many times."},
            "uuid": first,
            "timestamp": "2025-11-20T09:00:00.000Z",
        }
    ]
    parent = first
    for i in range(n):
        u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        secs, ms = divmod(i, 1000)
        out.append(
            {
                "parentUuid": parent,
                **common,
                "type": "assistant",
                "message": {
                    "model": _MODELS[0],
                    "id": f"msg_adv_{i:012d}",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Reply number {i}."}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 3, "output_tokens": 5},
                },
                "requestId": f"req_adv_{i:012d}",
                "uuid": u,
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_763_629_200 + secs))
                + f".{ms:03d}Z",
            }
        )
        parent = u
    return out


def adversarial_interleaved(n: int) -> list[Record]:
    """One user prompt, then ``n`` records alternating between an assistant record
    of one streamed reply (the same ``message.id`` throughout, one ``tool_use``
    each) and a user record holding only that call's ``tool_result``.

    The worst case for joining streamed replies across tool-result-only users
    (SPEC §4 step 4): rebuilding the growing reply at every join is quadratic.
    """
    rng = random.Random(f"msgnorm-bench-interleaved-{n}")
    ids = (str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n + 1))
    first = next(ids)
    out: list[Record] = [
        {
            "parentUuid": None,
            "type": "user",
            "message": {"role": "user", "content": "Run the tools."},
            "uuid": first,
        }
    ]
    parent = first
    for i, u in zip(range(n), ids, strict=False):
        call = f"toolu_{i:020d}"
        if i % 2 == 0:
            content: list[Any] = [
                {"type": "tool_use", "id": call, "name": "Read", "input": {"path": f"f{i}.py"}}
            ]
            message: dict[str, Any] = {
                "id": "msg_one_reply",
                "role": "assistant",
                "content": content,
            }
            rec: Record = {"type": "assistant", "message": message}
        else:
            prev = f"toolu_{i - 1:020d}"
            content = [{"type": "tool_result", "tool_use_id": prev, "content": f"line {i}"}]
            rec = {"type": "user", "message": {"role": "user", "content": content}}
        out.append({"parentUuid": parent, **rec, "uuid": u})
        parent = u
    return out


def adversarial_blocks(n: int) -> list[Record]:
    """One user record holding ``n`` text blocks (every other one blank), then a reply."""
    blocks = [{"type": "text", "text": " " if i % 2 else f"part {i}"} for i in range(n)]
    return [
        {"type": "user", "uuid": "u-0", "message": {"role": "user", "content": blocks}},
        {
            "type": "assistant",
            "uuid": "a-1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
            },
        },
    ]


def _cached_bytes(name: str, make: Callable[[int], list[Record]], n: int) -> bytes:
    path = CACHE_DIR / f"{name}-{_source_hash()}-{n}.json"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = msgspec.json.encode(make(n))
    try:
        _write_atomic(path, data)
    except OSError:
        pass
    return data


def adversarial_bytes(n: int) -> bytes:
    """``adversarial_assistant_run(n)`` as a JSON array (cached)."""
    return _cached_bytes("adversarial", adversarial_assistant_run, n)


def interleaved_bytes(n: int) -> bytes:
    """``adversarial_interleaved(n)`` as a JSON array (cached)."""
    return _cached_bytes("interleaved", adversarial_interleaved, n)


def blocks_bytes(n: int) -> bytes:
    """``adversarial_blocks(n)`` as a JSON array (cached; ``n`` blocks in one record)."""
    return _cached_bytes("blocks", adversarial_blocks, n)


# -- the real corpus -----------------------------------------------------------------


def load_corpus() -> dict[str, bytes]:
    """The raw JSONL files of the ``MSGNORM_CORPUS`` directory by name (empty when unset)."""
    if CORPUS_DIR is None or not CORPUS_DIR.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in sorted(CORPUS_DIR.glob("*.jsonl"))}


def _plausible(rec: Any) -> bool:
    """A light §1 check, enough to drop the corpus's deliberately broken lines."""
    if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
        return False
    if rec["type"] in ("user", "assistant"):
        msg = rec.get("message")
        if not isinstance(rec.get("uuid"), str) or not isinstance(msg, dict):
            return False
        if "content" not in msg:
            return False
        content = msg["content"]
        if content is None or isinstance(content, str):
            return True
        return isinstance(content, list) and all(
            isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
        )
    return True


def corpus_records(valid_only: bool = True) -> dict[str, list[Record]]:
    """The corpus parsed per file; ``valid_only`` drops lines that are not valid records."""
    out: dict[str, list[Record]] = {}
    for name, data in load_corpus().items():
        recs: list[Record] = []
        for line in filter(bytes.strip, data.splitlines()):
            with contextlib.suppress(msgspec.DecodeError):
                rec = msgspec.json.decode(line)
                if not valid_only or _plausible(rec):
                    recs.append(rec)
        out[name] = recs
    return out


def describe(records: list[Record]) -> Counter[str]:
    """Counts of record kinds (type, plus subtype / attachment type / block type)."""
    c: Counter[str] = Counter()
    for r in records:
        t = r.get("type")
        if t == "system":
            c[f"system:{r.get('subtype')}"] += 1
        elif t == "attachment":
            c[f"attachment:{r['attachment'].get('type')}"] += 1
        elif t in ("user", "assistant"):
            content = r["message"]["content"]
            kind = "str" if isinstance(content, str) else content[0]["type"] if content else "empty"
            c[f"{t}:{kind}"] += 1
        else:
            c[str(t)] += 1
    return c


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 100_000
    t0 = time.perf_counter()
    data = generate_bytes(n)
    dt = time.perf_counter() - t0
    print(f"{n} records: {len(data) / 1e6:.1f} MB ({len(data) / n:.0f} B/record) in {dt:.1f}s")
    recs = msgspec.json.decode(data)
    for k, v in sorted(describe(recs).items(), key=lambda kv: -kv[1]):
        print(f"  {k:32} {v:8}  {100 * v / n:5.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
