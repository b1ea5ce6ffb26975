"""Skip means skip (SPEC §8): under ``errors="skip"`` no single record makes
``load_session`` raise.  A record the reader accepts but Python cannot hold
(nested past the recursion limit, a float beyond a double, an integer longer
than ``sys.get_int_max_str_digits()``) is skipped with its line and reason,
exactly as if its line were broken; ``Conversation`` never lets a
``RecursionError`` out.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest

SID = "5e55a0a0-0000-4000-8000-000000000001"


def line(uuid: str, parent: str | None, role: str, text: str, extra: str = "") -> str:
    rec = {
        "type": role,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SID,
        "timestamp": f"2026-01-01T00:00:0{uuid[-1]}.000Z",
        "message": {"role": role, "content": text},
    }
    text_ = json.dumps(rec)
    return text_[:-1] + extra + "}" if extra else text_


@pytest.fixture(autouse=True)
def recursion_limit_1000() -> Iterator[None]:
    """Python's default limit (a library may have raised it in this process):
    the depths below are chosen for it."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


HOSTILE = {
    "nested 5,000 deep": (', "toolUseResult": ' + nested(5_000), "nested more than"),
    "nested 90,000 deep": (', "toolUseResult": ' + nested(90_000), "nested more than"),
    "float 1e400": (', "n": 1e400', "out of the range of a Python float"),
    "float -1E+999 in a list": (', "n": [1, -1E+999]', "out of the range of a Python float"),
    "long float": (', "n": ' + "9" * 400 + ".5", "out of the range of a Python float"),
}
if hasattr(sys, "get_int_max_str_digits"):
    digits = sys.get_int_max_str_digits()
    if digits:
        HOSTILE["integer too long"] = (', "n": ' + "7" * (digits + 1), "more than")


def session(extra: str) -> bytes:
    """a -> b (hostile) -> c: three lines."""
    lines = [
        line("u1", None, "user", "hi"),
        line("u2", "u1", "assistant", "hello", extra),
        line("u3", "u2", "user", "more"),
    ]
    return "\n".join(lines).encode()


def shape(s: msgnorm.Session) -> tuple[Any, ...]:
    return (s.records, s.thread, s.threads)


@pytest.mark.parametrize("kind", ["dicts", "structs"])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_record_python_cannot_hold_is_skipped_like_a_broken_line(name: str, kind: str) -> None:
    extra, reason = HOSTILE[name]
    got = msgnorm.load_session(session(extra), kind=kind)
    [issue] = got.report.skipped
    assert (issue.line, issue.column) == (2, None)
    assert reason in issue.reason
    # The same as if line 2 were broken JSON.
    broken = msgnorm.load_session(session(", {"), kind=kind)
    assert [i.line for i in broken.report.skipped] == [2]
    assert shape(got) == shape(broken)
    assert got.report.records == broken.report.records == 2
    assert all(r["uuid"] != "u2" for r in msgnorm.to_builtins(got.records))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_kind_bytes_keeps_every_record(name: str) -> None:
    """Bytes never become Python objects here: the record stays, as the reader read it."""
    extra, _ = HOSTILE[name]
    got = msgnorm.load_session(session(extra), kind="bytes")
    assert got.report.skipped == []
    assert got.records.startswith(b'[{"type": "user", "uuid": "u1"')
    assert got.records.count(b'"uuid": "u2"') == 1
    assert got.thread.records == 3


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_errors_raise_names_the_line(name: str) -> None:
    extra, reason = HOSTILE[name]
    with pytest.raises(msgnorm.MsgnormError, match=r"^line 2 of <bytes>: ") as e:
        msgnorm.load_session(session(extra), errors="raise")
    assert reason in str(e.value)
    assert isinstance(e.value, ValueError)


def test_the_depth_limit_is_exact() -> None:
    """A record at the limit is kept and decodes; one level more is skipped."""
    got = msgnorm.load_session(session(', "t": ' + nested(5_000)))
    limit = int(re.search(r"more than (\d+) levels", got.report.skipped[0].reason)[1])  # type: ignore[index]
    assert limit > 100
    # The record object itself is one level.
    at = msgnorm.load_session(session(', "t": ' + nested(limit - 1)))
    assert at.report.skipped == []
    assert at.thread.records == 3
    over = msgnorm.load_session(session(', "t": ' + nested(limit)))
    assert [i.line for i in over.report.skipped] == [2]


def test_deep_in_the_caller_s_stack_the_limit_shrinks() -> None:
    """Called from deep recursion, the limit leaves room for the frames already used."""
    data = session(', "t": ' + nested(700))
    assert msgnorm.load_session(data).report.skipped == []

    def at_depth(n: int) -> msgnorm.Session:
        return msgnorm.load_session(data) if n == 0 else at_depth(n - 1)

    got = at_depth(400)
    assert [i.line for i in got.report.skipped] == [2]
    assert got.thread.records < 3


def test_brackets_in_strings_are_not_nesting() -> None:
    got = msgnorm.load_session(session(', "t": "' + "[{" * 50_000 + '"'))
    assert got.report.skipped == []
    assert got.thread.records == 3


def test_hostile_leaves_one_after_another_fall_back_to_a_fit_thread(tmp_path: Path) -> None:
    """Forks whose newest leaves are all hostile: each is skipped, named by its
    file and line, and the newest fit leaf is the main thread."""
    lines = [line("u1", None, "user", "hi"), line("u2", "u1", "assistant", "fit")]
    for k in range(3, 9):
        lines.append(line(f"u{k}", "u1", "assistant", "deep", ', "t": ' + nested(3_000)))
    path = tmp_path / f"{SID}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    got = msgnorm.load_session(path)
    assert [(i.file, i.line) for i in got.report.skipped] == [(str(path), n) for n in range(3, 9)]
    assert [r["uuid"] for r in got.records] == ["u1", "u2"]
    assert got.report.records == 2


def test_a_hostile_subagent_record_is_skipped_in_its_file(tmp_path: Path) -> None:
    main = tmp_path / f"{SID}.jsonl"
    main.write_text(line("u1", None, "user", "hi") + "\n")
    sub = tmp_path / SID / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(
        line("a1", None, "user", "task")
        + "\n"
        + line("a2", "a1", "assistant", "x", ', "n": 1e999')
        + "\n"
    )
    got = msgnorm.load_session(main, thread="a1")
    assert [(i.file, i.line) for i in got.report.skipped] == [(str(sub), 2)]
    assert [r["uuid"] for r in got.records] == ["a1"]


def test_a_conversation_from_a_hostile_session_works() -> None:
    s = msgnorm.load_session(session(', "t": ' + nested(20_000)))
    conv = msgnorm.Conversation.from_session(s)
    assert conv.for_api() == msgnorm.normalize_for_api(s.records)


def test_conversation_append_of_too_deep_python_objects_is_a_clear_error() -> None:
    # deeper than Python's recursion limit on every version: 3.12+ count C
    # recursion apart (msgspec's encoder took 5,000 levels on 3.13)
    deep: list[Any] = []
    x = deep
    for _ in range(100_000):
        x.append([])
        x = x[0]
    rec = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}, "t": deep}
    conv = msgnorm.Conversation()
    with pytest.raises(msgnorm.MsgnormError, match=r"nested too deeply.*nothing was appended"):
        conv.append([rec])
    assert conv.input_len == 0
    conv.append([{"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}])
    assert conv.input_len == 1


def test_conversation_output_python_cannot_hold_is_a_clear_error() -> None:
    """JSON appended as bytes to a dicts conversation: the output that cannot
    become dicts is refused with a MsgnormError, and kind='bytes' still has it."""
    data = session(', "n": 1e400')
    conv = msgnorm.Conversation(kind="dicts")
    conv.append(data)
    with pytest.raises(msgnorm.MsgnormError, match="cannot become Python objects"):
        conv.for_api()
    raw = msgnorm.Conversation(kind="bytes")
    raw.append(data)
    assert b"1e400" in raw.for_api()
