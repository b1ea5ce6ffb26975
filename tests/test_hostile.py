"""Hostile inputs (issue "Reliability"): every call returns a correct result or
raises a msgnorm error that says where the problem is (SPEC §1: ``.index`` and
``.path`` of an invalid record, ``.line`` and ``.column`` of invalid JSON).
Never a crash, a ``RecursionError``, a stack overflow, or a foreign exception.

Set ``MSGNORM_BIG=1`` to also run the 1 GB string test.
"""

from __future__ import annotations

import copy
import gc
import json
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from msgnorm import InvalidRecordError, JSONDecodeError, MsgnormError
from support import external, session_trees

DEEP = 200_000
test_external_corpus = external.corpus_check

Rec = dict[str, Any]


def user(uuid: str = "u1", content: Any = "hi") -> Rec:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}}


def assistant_tool(inp: Any, uuid: str = "a1") -> Rec:
    block = {"type": "tool_use", "id": "t1", "name": "n", "input": inp}
    return {
        "type": "assistant",
        "uuid": uuid,
        "message": {"role": "assistant", "id": "m1", "content": [block]},
    }


def answer(uuid: str = "u2") -> Rec:
    return user(uuid, [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])


# Every public function whose first argument is the record list, with its other arguments.
RECORD_CALLS: dict[str, Callable[[Any], Any]] = {
    "normalize_for_api": msgnorm.normalize_for_api,
    "normalize_for_api_report": msgnorm.normalize_for_api_report,
    "normalize_messages": msgnorm.normalize_messages,
    "to_anthropic": msgnorm.to_anthropic,
    "count_tokens": msgnorm.count_tokens,
    "count_tokens_per_record": msgnorm.count_tokens_per_record,
    "find_cutoff": lambda r: msgnorm.find_cutoff(r, 10**9),
    "trim_to_budget": lambda r: msgnorm.trim_to_budget(r, 10**9),
    "split_for_summary": lambda r: msgnorm.split_for_summary(r, 10**9),
}
# Those that read every record's content (to_anthropic refuses non-messages first).
READING_CALLS = {k: v for k, v in RECORD_CALLS.items() if k != "to_anthropic"}


def line_col(data: bytes, needle: bytes) -> tuple[int, int]:
    """1-based line and column (in characters) of the first ``needle`` in ``data``."""
    pos = data.index(needle)
    before = data[:pos]
    line = before.count(b"\n") + 1
    col = len(before[before.rfind(b"\n") + 1 :].decode("utf-8")) + 1
    return line, col


def deep_json(kind: str, n: int = DEEP) -> bytes:
    if kind == "arrays":
        return b"[" * n + b"]" * n
    return b'{"a":' * n + b"1" + b"}" * n


def deep_py(kind: str, n: int = DEEP) -> Any:
    value: Any = 1 if kind == "dicts" else []
    for _ in range(n):
        value = {"a": value} if kind == "dicts" else [value]
    return value


# --------------------------------------------------------------------------
# Deep nesting: heap, not stack
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["arrays", "objects"])
@pytest.mark.parametrize("name", sorted(RECORD_CALLS))
def test_deep_json_document_is_an_invalid_record(name: str, kind: str) -> None:
    """§1: a 200,000-deep document is one record that is not a valid record."""
    with pytest.raises(InvalidRecordError) as e:
        RECORD_CALLS[name](deep_json(kind))
    assert e.value.index == 0
    assert e.value.path == ("records[0]" if kind == "arrays" else "records[0].type")


@pytest.mark.parametrize("kind", ["arrays", "objects"])
def test_deep_json_unclosed_is_a_json_error_at_the_end(kind: str) -> None:
    data = b"[" + deep_json(kind)[: DEEP * (1 if kind == "arrays" else 5)]
    with pytest.raises(JSONDecodeError) as e:
        msgnorm.normalize_for_api(data)
    assert (e.value.line, e.value.column) == (1, len(data) + 1)


def _history_cost(kind: str, wrapped: bool) -> int:
    """§6 at one char per token: user "hi" (2 + 3), the tool_use, the "ok" answer (2 + 3).

    The tool_use costs len(name "n") + J(input) + 3, J(input) being one "a" key per
    level and 4 for the innermost 1 ("objects"), 0 for nested empty arrays, plus
    the "x" key when the deep value is wrapped as ``{"x": deep}``.
    """
    j = 0 if kind in ("arrays", "lists") else DEEP + 4
    return 5 + (1 + int(wrapped) + j + 3) + 5


@pytest.mark.parametrize("kind", ["arrays", "objects"])
def test_deep_json_in_a_tool_input_passes_through_bytes(kind: str) -> None:
    """§4: fields the pipeline does not read are kept unchanged, at any depth."""
    deep = deep_json(kind)
    records = [user(), assistant_tool({"x": "HOLE"}), answer()]
    data = json.dumps(records).encode().replace(b'"HOLE"', deep)
    for name in ("normalize_for_api", "normalize_messages", "to_anthropic", "trim_to_budget"):
        out = RECORD_CALLS[name](data)
        assert isinstance(out, bytes)
        assert deep in out, name
    head, tail = msgnorm.split_for_summary(data, 10**9)
    assert (head, deep in tail) == (b"[]", True)
    expected = _history_cost(kind, wrapped=True)
    assert msgnorm.count_tokens(data, chars_per_token=1.0) == expected
    assert msgnorm.count_tokens(data.decode(), chars_per_token=1.0) == expected


@pytest.mark.parametrize(
    ("where", "path"),
    [
        ("record_field", None),
        ("attachment_field", None),
        ("progress_data", None),
        ("unknown_block_field", None),
        ("tool_result_content", "records[1].message.content[0].content[0]"),
        ("message_content", "records[1].message.content[0]"),
    ],
)
def test_deep_json_anywhere_in_a_record(where: str, path: str | None) -> None:
    """Deep values elsewhere: carried through, or refused with the path of the bad block."""
    hole: Rec
    if where == "record_field":
        hole = {**user("u2", "x"), "extra": "HOLE"}
    elif where == "attachment_field":
        hole = {"type": "attachment", "uuid": "at", "attachment": {"type": "t", "v": "HOLE"}}
    elif where == "progress_data":
        hole = {"type": "progress", "uuid": "p", "data": {"d": "HOLE"}, "toolUseID": "t"}
    elif where == "unknown_block_field":
        hole = user("u2", [{"type": "foo", "v": "HOLE"}])
    elif where == "tool_result_content":
        hole = user("u2", [{"type": "tool_result", "tool_use_id": "t1", "content": "HOLE"}])
    else:
        hole = user("u2", "HOLE")
    data = json.dumps([user(), hole]).encode().replace(b'"HOLE"', deep_json("arrays"))
    for name, call in READING_CALLS.items():
        if path is None:
            call(data)
        else:
            with pytest.raises(InvalidRecordError) as e:
                call(data)
            assert (e.value.index, e.value.path) == (1, path), name


@pytest.mark.parametrize("kind", ["lists", "dicts"])
def test_deep_python_tool_input_is_returned_by_reference(kind: str) -> None:
    """§4: unchanged blocks are shared, never copied or walked."""
    deep = deep_py(kind)
    records = [user(), assistant_tool(deep), answer()]
    out = msgnorm.normalize_for_api(records)
    assert out[1]["message"]["content"][0]["input"] is deep
    assert out[1]["message"]["content"][0] is records[1]["message"]["content"][0]
    split = msgnorm.normalize_messages(records)
    assert split[1]["message"]["content"][0]["input"] is deep
    assert msgnorm.to_anthropic(records)[1]["content"][0]["input"] is deep
    # Trimming counts tokens: J() of the input may be refused (see the next test).
    try:
        assert msgnorm.trim_to_budget(records, 10**9)[1] is records[1]
        assert msgnorm.split_for_summary(records, 10**9)[1][1] is records[1]
    except InvalidRecordError as e:
        assert (e.index, e.path) == (1, "records[1].message.content[0]")


def test_deep_tool_input_in_structs() -> None:
    """Structs carry a deep tool input through, or refuse it with a msgnorm error."""
    deep = deep_py("lists")
    structs = msgnorm.from_builtins([user(), assistant_tool(deep), answer()])
    for name, call in RECORD_CALLS.items():
        try:
            call(structs)
        except MsgnormError:
            pass
        except RecursionError:
            raise
        except Exception as e:  # pragma: no cover - the failure report
            raise AssertionError(f"{name}: {type(e).__name__}") from e


def test_deep_tool_input_in_decode() -> None:
    data = json.dumps([user(), assistant_tool("HOLE")]).encode()
    try:
        msgnorm.decode(data.replace(b'"HOLE"', deep_json("arrays")))
    except MsgnormError:
        pass


@pytest.mark.parametrize("kind", ["lists", "dicts"])
def test_deep_python_tool_input_counts_or_refuses_clearly(kind: str) -> None:
    """§6 J() of a 200,000-deep value: the right count, or a clear error naming the block."""
    records = [user(), assistant_tool(deep_py(kind)), answer()]
    expected = _history_cost(kind, wrapped=False)
    for call in (
        lambda: msgnorm.count_tokens(records, chars_per_token=1.0),
        lambda: sum(msgnorm.count_tokens_per_record(records, chars_per_token=1.0)),
        lambda: msgnorm.find_cutoff(records, expected, chars_per_token=1.0) and expected,
    ):
        try:
            assert call() == expected
        except InvalidRecordError as e:
            assert (e.index, e.path) == (1, "records[1].message.content[0]")
            assert "deep" in str(e)


def test_cyclic_python_tool_input() -> None:
    """A cycle is never followed by normalize_for_api and is refused by counting."""
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    records = [user(), assistant_tool(cyclic), answer()]
    try:
        out = msgnorm.normalize_for_api(records)
        assert out[1]["message"]["content"][0]["input"] is cyclic
        with pytest.raises(InvalidRecordError) as e:
            msgnorm.count_tokens(records)
        assert (e.value.index, e.value.path) == (1, "records[1].message.content[0]")
    finally:
        cyclic.clear()


# --------------------------------------------------------------------------
# Bytes that are not UTF-8 / JSON that is not JSON
# --------------------------------------------------------------------------

GOOD_LINE = json.dumps(user("u0", "héllo")).encode()


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"],
    ids=["ff", "truncated", "overlong", "utf8-surrogate", "above-max", "short-3byte"],
)
@pytest.mark.parametrize("layout", ["array", "lines"])
def test_invalid_utf8_names_line_and_column(bad: bytes, layout: str) -> None:
    text = json.dumps(user("u1", "aé_BAD_b")).encode().replace(b"_BAD_", bad)
    if layout == "lines":
        data = GOOD_LINE + b"\n" + GOOD_LINE + b"\n" + text + b"\n" + GOOD_LINE
    else:
        data = b"[" + GOOD_LINE + b",\n" + text + b"]"
    line, col = line_col(data, bad)
    for name, call in RECORD_CALLS.items():
        with pytest.raises(JSONDecodeError) as e:
            call(data)
        assert (e.value.line, e.value.column) == (line, col), name
        assert "UTF-8" in str(e.value)


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf"])
@pytest.mark.parametrize("layout", ["array", "lines"])
def test_nan_and_infinity_literals_are_json_errors(literal: bytes, layout: str) -> None:
    """JSON has no NaN/Infinity: refused where they stand, even in a field nobody reads."""
    rec = json.dumps(assistant_tool({"x": "HOLE"})).encode().replace(b'"HOLE"', literal)
    data = (
        GOOD_LINE + b"\n" + rec + b"\n" + GOOD_LINE
        if layout == "lines"
        else b"[" + GOOD_LINE + b",\n  " + rec + b"]"
    )
    # "-Infinity" is refused at the letter after the minus sign.
    line, col = line_col(data, literal.lstrip(b"-"))
    for name, call in RECORD_CALLS.items():
        with pytest.raises(JSONDecodeError) as e:
            call(data)
        assert (e.value.line, e.value.column) == (line, col), name


_L = len(GOOD_LINE)


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (GOOD_LINE + b"\n" + GOOD_LINE + b'\n{"type": "user", "uuid": \n' + GOOD_LINE, 3, 26),
        (GOOD_LINE + b"\n" + GOOD_LINE + b" x\n" + GOOD_LINE, 2, _L + 2),
        (GOOD_LINE + b"\n" + GOOD_LINE + b",\n" + GOOD_LINE, 2, _L + 1),
        (GOOD_LINE + b"\n\n\n" + b'{"type": "user", "uuid": "x",}\n' + GOOD_LINE, 4, 30),
        (b"[" + GOOD_LINE + b",\n" + GOOD_LINE + b",,\n" + GOOD_LINE + b"]", 2, _L + 2),
        (b"[" + GOOD_LINE + b",\n" + GOOD_LINE, 2, _L + 1),
    ],
    ids=[
        "truncated-line",
        "trailing-data",
        "trailing-comma",
        "after-blank-lines",
        "array-double-comma",
        "unclosed-array",
    ],
)
def test_a_broken_line_in_the_middle_is_named(data: bytes, line: int, column: int) -> None:
    """The error points at the offending character of the broken line (or at its end)."""
    for name, call in RECORD_CALLS.items():
        with pytest.raises(JSONDecodeError) as e:
            call(data)
        assert (e.value.line, e.value.column) == (line, column), name


def test_crlf_json_lines_are_read() -> None:
    data = GOOD_LINE + b"\r\n" + json.dumps(user("u2", "x")).encode() + b"\r\n"
    assert msgnorm.count_tokens_per_record(data, tokenizer="chars") == [5, 4]
    assert json.loads(msgnorm.normalize_messages(data)) == msgnorm.normalize_messages(
        [user("u0", "héllo"), user("u2", "x")]
    )


@pytest.mark.parametrize(
    "ws", [b"\x0c", b"\x0b", "\u00a0".encode()], ids=["form-feed", "vertical-tab", "nbsp"]
)
def test_json_white_space_is_space_tab_lf_cr_only(ws: bytes) -> None:
    """RFC 8259's four white-space characters separate JSON Lines: a line of form
    feeds (ASCII white space, not JSON's) is a broken line, named, not skipped."""
    data = GOOD_LINE + b"\n" + ws + ws + b"\n"
    for name, call in RECORD_CALLS.items():
        with pytest.raises(JSONDecodeError) as e:
            call(data)
        assert (e.value.line, e.value.column) == (2, 1), name
    with pytest.raises(JSONDecodeError):
        msgnorm.Conversation().append(ws)
    blank_lines = GOOD_LINE + b"\n \t\r\n\n\t"
    assert msgnorm.count_tokens_per_record(blank_lines, tokenizer="chars") == [5]
    assert msgnorm.Conversation().append(b" \t\r\n") == 0


# --------------------------------------------------------------------------
# Lone surrogates in Python strings
# --------------------------------------------------------------------------

SURROGATE = "\ud800"


def _with_surrogate(where: str) -> tuple[list[Rec], str]:
    """Records with a lone surrogate in one field, and that field's path."""
    s = "a" + SURROGATE
    if where == "text":
        return [user("u1", [{"type": "text", "text": s}])], "records[0].message.content[0].text"
    if where == "string_content":
        return [user("u1", s)], "records[0].message.content"
    if where == "uuid":
        return [user(s, "x")], "records[0].uuid"
    if where == "type":
        return [{**user(), "type": s}], "records[0].type"
    if where == "role":
        return [{**user(), "message": {"role": s, "content": "x"}}], "records[0].message.role"
    if where == "tool_use_id":
        rec = assistant_tool({})
        rec["message"]["content"][0]["id"] = s
        return [user(), rec], "records[1].message.content[0].id"
    if where == "tool_result_id":
        blocks = [{"type": "tool_result", "tool_use_id": s, "content": "r"}]
        return [user("u1", blocks)], "records[0].message.content[0].tool_use_id"
    if where == "system_content":
        rec = {"type": "system", "uuid": "s", "subtype": "local_command", "content": s}
        return [rec], "records[0].content"
    raise AssertionError(where)


@pytest.mark.parametrize(
    "where",
    [
        "text",
        "string_content",
        "uuid",
        "type",
        "role",
        "tool_use_id",
        "tool_result_id",
        "system_content",
    ],
)
@pytest.mark.parametrize("name", ["normalize_for_api", "count_tokens", "normalize_messages"])
def test_lone_surrogate_in_a_read_field_names_the_path(name: str, where: str) -> None:
    """A string that cannot be UTF-8: a msgnorm error with index and path, not a codec error."""
    records, path = _with_surrogate(where)
    with pytest.raises(MsgnormError) as e:
        RECORD_CALLS[name](records)
    assert isinstance(e.value, InvalidRecordError)
    assert e.value.path == path
    assert e.value.index == int(path[len("records[") : path.index("]")])


def test_lone_surrogate_in_a_json_str_input() -> None:
    """A JSON ``str`` input with a lone surrogate: a msgnorm error, like bad UTF-8 bytes."""
    with pytest.raises(msgnorm.JSONDecodeError) as info:
        msgnorm.normalize_for_api(json.dumps([user()]) + "\n" + SURROGATE)
    assert (info.value.line, info.value.column) == (2, 1)


def test_lone_surrogate_in_fields_not_read_passes_through() -> None:
    """Values the pipeline never reads are shared as they are, surrogates included."""
    tool = {**assistant_tool({"x": SURROGATE}), "extra": SURROGATE}
    records = [user(), tool, answer()]
    out = msgnorm.normalize_for_api(records)
    assert out[1]["message"]["content"][0] is tool["message"]["content"][0]
    assert out[1]["extra"] is SURROGATE
    # §6: J of {"x": "\ud800"} is 1 + 1 code point.
    assert msgnorm.count_tokens_per_record(records, chars_per_token=1.0)[1] == 1 + 2 + 3


def test_escaped_lone_surrogate_in_json_bytes_is_a_json_error() -> None:
    data = json.dumps([user("u1", [{"type": "text", "text": "a" + SURROGATE}])]).encode()
    line, col = line_col(data, b"\\ud800")
    with pytest.raises(JSONDecodeError) as e:
        msgnorm.normalize_for_api(data)
    assert e.value.line == line
    assert e.value.column in (col, col + 6)  # at the escape, or right after it


# --------------------------------------------------------------------------
# Duplicate keys, big integers
# --------------------------------------------------------------------------

DUPLICATES = [
    b'[{"type":"user","type":"assistant","uuid":"u","message":{"role":"user","content":"x"}}]',
    b'[{"type":"user","uuid":"u","message":{"role":"user","content":"first","content":"  "}}]',
    b'[{"type":"user","uuid":"u","message":{"role":"user","content":"   ","content":"second"}}]',
    b'[{"type":"user","uuid":"u1","uuid":"u2","message":{"role":"user","content":"a"}},'
    b'{"type":"user","uuid":"u3","message":{"role":"user","content":"b"}}]',
    b'[{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"text","text":"a","text":" "}]}}]',
    b'[{"type":"user","uuid":"u","message":{"role":"user","content":"a"},"message":{"role":"user","content":"b"}}]',
    b'[{"type":"assistant","uuid":"a","message":{"role":"assistant","content":'
    b'[{"type":"tool_use","id":"t1","id":"t2","name":"n","input":{}}]}},'
    b'{"type":"user","uuid":"u","message":{"role":"user","content":'
    b'[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}]',
    b'[{"type":"user","uuid":"u","isMeta":true,"isMeta":false,"message":{"role":"user","content":"a"}},'
    b'{"type":"user","uuid":"v","message":{"role":"user","content":"b"}}]',
]


@pytest.mark.parametrize("data", DUPLICATES, ids=[f"dup{i}" for i in range(len(DUPLICATES))])
def test_duplicate_keys_last_one_wins_like_json_loads(data: bytes) -> None:
    """Bytes with repeated keys mean what ``json.loads`` makes of them (the last wins)."""
    as_dicts = json.loads(data)
    for name in ("normalize_for_api", "normalize_messages", "to_anthropic", "trim_to_budget"):
        assert json.loads(RECORD_CALLS[name](data)) == RECORD_CALLS[name](as_dicts), name
    assert msgnorm.count_tokens_per_record(data) == msgnorm.count_tokens_per_record(as_dicts)


BIG_INTS = [2**64, 2**64 + 1, -(2**63) - 1, 2**200, -(10**400), 10**4000]


@pytest.mark.parametrize("big", BIG_INTS, ids=lambda b: f"{len(str(b))}digits")
def test_integers_beyond_64_bits_survive_and_count_4(big: int) -> None:
    """§6: any number counts 4, whatever its size; §4: unread values are kept exactly."""
    records = [user(), assistant_tool({"x": big, "y": [big]}), answer()]
    out = msgnorm.normalize_for_api(records)
    assert out[1]["message"]["content"][0]["input"]["x"] is big
    data = json.dumps(records).encode()
    digits = str(big).encode()
    for name in ("normalize_for_api", "normalize_messages", "to_anthropic", "trim_to_budget"):
        raw = RECORD_CALLS[name](data)
        assert raw.count(digits) == 2, name
    # name "n" 1 + key "x" 1 + 4 + key "y" 1 + 4, at one char per token, + 3.
    expected = [2 + 3, 11 + 3, 2 + 3]
    assert msgnorm.count_tokens_per_record(records, chars_per_token=1.0) == expected
    assert msgnorm.count_tokens_per_record(data, chars_per_token=1.0) == expected


def test_big_integer_attachment_field_renders_its_digits() -> None:
    """§5: an integer field is inserted as its decimal digits, at any size."""
    big = 2**100
    att = {
        "type": "attachment",
        "uuid": "at",
        "attachment": {"type": "queued_command", "prompt": big},
    }
    want = f"<system-reminder>\n{big}\n</system-reminder>"
    assert msgnorm.render_attachment(att["attachment"]) == want
    for records in ([user(), att], json.dumps([user(), att]).encode()):
        out = msgnorm.normalize_for_api(records)
        out = json.loads(out) if isinstance(out, bytes) else out
        # §4 step 2: the attachment bubbles up to the top; step 4 merges "hi" after it
        # (with the seam newline).
        assert out[0]["message"]["content"][0]["text"] == want + "\n"


# --------------------------------------------------------------------------
# Big strings
# --------------------------------------------------------------------------


def _big_string_checks(n_chars: int) -> None:
    text = "é" * n_chars  # 2 bytes each in UTF-8: counts are in code points
    records = [user("u1", [{"type": "text", "text": text}])]
    out = msgnorm.normalize_for_api(records)
    assert out[0]["message"]["content"][0] is records[0]["message"]["content"][0]
    expected = math.ceil(n_chars / 4) + 3
    assert msgnorm.count_tokens(records, tokenizer="chars") == expected
    data = json.dumps(records, ensure_ascii=False).encode()
    del text, records
    gc.collect()
    raw = msgnorm.normalize_for_api(data)
    assert len(raw) >= len(data) - 100
    assert raw.count(b"\xc3\xa9" * 1024) >= n_chars // 1024 - 1
    del raw
    assert msgnorm.count_tokens(data, tokenizer="chars") == expected
    head, tail = msgnorm.split_for_summary(data, expected, tokenizer="chars")
    assert head == b"[]" and len(tail) >= len(data) - 100


def test_50mb_string() -> None:
    _big_string_checks(25 * 1024 * 1024)


@pytest.mark.skipif(os.environ.get("MSGNORM_BIG") != "1", reason="set MSGNORM_BIG=1 (needs ~8 GB)")
def test_1gb_string() -> None:
    _big_string_checks(512 * 1024 * 1024)


# --------------------------------------------------------------------------
# Empty, non-list and wrongly typed inputs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [b"", "", bytearray(), memoryview(b""), b"  \n\t\n", " \n"])
@pytest.mark.parametrize("name", sorted(RECORD_CALLS))
def test_empty_json_text_is_a_json_error_at_its_end(name: str, empty: Any) -> None:
    """No JSON value at all: a JSONDecodeError where the value should have been."""
    text = bytes(empty) if not isinstance(empty, str) else empty.encode()
    with pytest.raises(JSONDecodeError) as e:
        RECORD_CALLS[name](empty)
    assert e.value.line == text.count(b"\n") + 1
    assert e.value.column == len(text.split(b"\n")[-1]) + 1


def test_empty_list_and_empty_array() -> None:
    expected: dict[str, Any] = {
        "normalize_for_api": [],
        "normalize_for_api_report": ([], {}),
        "normalize_messages": [],
        "to_anthropic": [],
        "count_tokens": 0,
        "count_tokens_per_record": [],
        "find_cutoff": 0,
        "trim_to_budget": [],
        "split_for_summary": ([], []),
    }
    for name, call in RECORD_CALLS.items():
        got = call([])
        if name == "normalize_for_api_report":
            got = (got[0], {k: v for k, v in got[1].items() if v})
        assert got == expected[name], name
        got_b = call(b"[]")
        if isinstance(got_b, tuple):
            got_b = tuple(json.loads(x) if isinstance(x, bytes) else x for x in got_b)
            if name == "normalize_for_api_report":
                got_b = (got_b[0], {k: v for k, v in got_b[1].items() if v})
        elif isinstance(got_b, bytes):
            got_b = json.loads(got_b)
        assert got_b == expected[name], name


def test_a_top_level_object_is_one_json_lines_record() -> None:
    rec = user("u1", "hello")
    assert json.loads(msgnorm.normalize_for_api(json.dumps(rec).encode())) == [rec]
    assert json.loads(msgnorm.normalize_for_api(json.dumps(rec))) == [rec]
    for data, path in [(b"{}", "records[0].type"), (b'{"a": [1]}', "records[0].type")]:
        with pytest.raises(InvalidRecordError) as e:
            msgnorm.normalize_for_api(data)
        assert (e.value.index, e.value.path) == (0, path)


@pytest.mark.parametrize("doc", [b"42", b'"x"', b"null", b"true", b"1.5", b"[1]", b"[[]]"])
def test_a_top_level_scalar_or_array_of_non_objects(doc: bytes) -> None:
    for name, call in RECORD_CALLS.items():
        with pytest.raises(InvalidRecordError) as e:
            call(doc)
        assert (e.value.index, e.value.path) == (0, "records[0]"), name


WRONG_RECORDS = [1, "x", None, [1], [], True, 1.5, 2**70]


@pytest.mark.parametrize("bad", WRONG_RECORDS, ids=repr)
@pytest.mark.parametrize("kind", ["dicts", "bytes"])
@pytest.mark.parametrize("name", sorted(RECORD_CALLS))
def test_a_record_of_the_wrong_type_is_named(name: str, kind: str, bad: Any) -> None:
    records: Any = [user("u0"), user("u1", "x"), bad, user("u3")]
    if kind == "bytes":
        records = json.dumps(records).encode()
    with pytest.raises(InvalidRecordError) as e:
        RECORD_CALLS[name](records)
    assert (e.value.index, e.value.path) == (2, "records[2]")
    assert "records[2]" in str(e.value)


def _gen() -> Iterator[Rec]:
    yield user()


NOT_LISTS: list[Any] = [None, user(), 1, 1.5, {1, 2}, frozenset(), (user(),), object(), range(3)]


@pytest.mark.parametrize("name", sorted(RECORD_CALLS))
def test_non_list_inputs_are_refused_with_path_records(name: str) -> None:
    for records in [*NOT_LISTS, _gen(), iter([user()]), {"a": 1}.keys()]:
        with pytest.raises(InvalidRecordError) as e:
            RECORD_CALLS[name](records)
        assert e.value.index is None, (name, records)
        assert e.value.path == "records"


@pytest.mark.parametrize("name", sorted(RECORD_CALLS))
def test_bytearray_and_memoryview_are_json(name: str) -> None:
    """Every record function reads them as the bytes they hold, and answers bytes."""
    data = json.dumps([user(), assistant_tool({"a": 1}), answer("u2"), user("u3")]).encode()
    call = RECORD_CALLS[name]
    want = call(data)
    assert call(bytearray(data)) == want, name
    assert call(memoryview(data)) == want, name
    assert call(memoryview(b"xx" + data + b"yy")[2:-2]) == want, name


def test_editing_reads_bytearray_and_memoryview_as_json() -> None:
    data = json.dumps([user(), assistant_tool({"a": 1}), answer("u2"), user("u3")]).encode()
    want = msgnorm.clear_tool_results(data)
    assert isinstance(want, bytes)
    assert msgnorm.clear_tool_results(bytearray(data)) == want
    assert msgnorm.clear_tool_results(memoryview(data)) == want


# --------------------------------------------------------------------------
# Deliberately broken lines: examples/sessions/broken-lines.jsonl, and the
# corpus's claude-code-log-edge_cases.jsonl when MSGNORM_CORPUS names it
# --------------------------------------------------------------------------

# file -> {0-based line -> the path under records[i] that the error names}
BROKEN: dict[Path, dict[int, str]] = {
    e.path: dict(e.invalid) for e in session_trees.EXAMPLES if e.invalid
}
if external.CORPUS is not None and (external.CORPUS / "claude-code-log-edge_cases.jsonl").is_file():
    BROKEN[external.CORPUS / "claude-code-log-edge_cases.jsonl"] = {
        9: ".message.content",  # "contenst" instead of "content"
        10: ".message",  # message is a string
        12: "",  # a JSON string
        13: ".type",  # no type
        14: "",  # 42
        15: "",  # [1]: an array, not an object
        17: ".message.content[0]",  # a bare string as a block
    }


@pytest.mark.parametrize("path", sorted(BROKEN), ids=external.file_id)
def test_broken_file_well_formed_lines_pass(path: Path) -> None:
    lines = path.read_bytes().split(b"\n")
    good = [ln for i, ln in enumerate(lines) if ln.strip() and i not in BROKEN[path]]
    data = b"\n".join(good)
    out = msgnorm.normalize_for_api(data)
    assert json.loads(out) == msgnorm.normalize_for_api([json.loads(ln) for ln in good])


@pytest.mark.parametrize(
    ("path", "broken"),
    [(p, i) for p in sorted(BROKEN) for i in sorted(BROKEN[p])],
    ids=lambda v: external.file_id(v) if isinstance(v, Path) else str(v),
)
def test_broken_file_each_broken_line(path: Path, broken: int) -> None:
    """Well-formed lines plus one broken line: the error names that record and field."""
    marked = BROKEN[path]
    lines = path.read_bytes().split(b"\n")
    kept = [
        (i, ln) for i, ln in enumerate(lines) if ln.strip() and (i not in marked or i == broken)
    ]
    index = [i for i, _ in kept].index(broken)
    path = f"records[{index}]{marked[broken]}"
    jsonl = b"\n".join(
        lines[i] if i == broken or i not in marked else b"" for i in range(len(lines))
    )
    array = b"[" + b",\n".join(ln for _, ln in kept) + b"]"
    dicts = [json.loads(ln) for _, ln in kept]
    for kind, records in (("jsonl", jsonl), ("array", array), ("dicts", dicts)):
        for name, call in READING_CALLS.items():
            with pytest.raises(InvalidRecordError) as e:
                call(records)
            assert (e.value.index, e.value.path) == (index, path), (kind, name)
            if kind == "jsonl":
                assert f"(line {broken + 1})" in str(e.value), (kind, name)


# --------------------------------------------------------------------------
# Regressions found by fuzzing (fuzz/regressions/)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["message-first", "content-first"])
def test_fuzz_top_level_content_of_a_user_record_is_an_extra_field(order: str) -> None:
    """§1: only a system record's top-level ``content`` is its content; on a user
    record it is a field to keep. The JSON reader used to let it replace
    ``message.content`` when it came after ``message`` (found by cargo-fuzz)."""
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    message = {"role": "user", "content": [result]}
    fields = [("message", message), ("content", "zz")]
    if order == "content-first":
        fields.reverse()
    answer_rec = {"type": "user", "uuid": "u1", **dict(fields)}
    records = [user("u0"), assistant_tool({}), answer_rec]
    data = json.dumps(records).encode()
    out = json.loads(msgnorm.normalize_for_api(data, strict=True))
    assert out == msgnorm.normalize_for_api(records, strict=True)
    assert out[2]["message"]["content"] == [result]
    assert out[2]["content"] == "zz"
    assert json.loads(msgnorm.normalize_messages(data)) == msgnorm.normalize_messages(records)


# --------------------------------------------------------------------------
# Integer arguments beyond 64 bits
# --------------------------------------------------------------------------


def test_derive_uuid_index_beyond_128_bits_is_a_value_error() -> None:
    """§2: ``ValueError`` if ``index`` is outside ``0 <= index < 16**12``, whatever its size."""
    with pytest.raises(ValueError):
        msgnorm.derive_uuid("550e8400-e29b-41d4-a716-446655440000", 2**200)


@pytest.mark.parametrize(
    "call",
    [
        lambda r: msgnorm.find_cutoff(r, 2**64),
        lambda r: msgnorm.trim_to_budget(r, 2**64),
        lambda r: msgnorm.split_for_summary(r, 2**64),
        lambda r: msgnorm.normalize_for_api(r, max_media=2**64),
        lambda r: msgnorm.count_tokens(r, tokens_per_message=2**64),
    ],
    ids=["find_cutoff", "trim_to_budget", "split_for_summary", "max_media", "tokens_per_message"],
)
def test_int_arguments_beyond_64_bits(call: Callable[[Any], Any]) -> None:
    """A budget of 2**64 keeps everything; any other huge argument is at worst a ValueError."""
    try:
        call([user(), user("u2")])
    except ValueError:
        pass


# --------------------------------------------------------------------------
# Arguments of the wrong kind are msgnorm errors too
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: msgnorm.derive_uuid("abc", True),
        lambda: msgnorm.derive_uuid("abc", 1.5),
        lambda: msgnorm.render_attachment([1]),  # type: ignore[arg-type]
        lambda: msgnorm.normalize_for_api([], attachment_templates={"x": "\ud800"}),
        lambda: msgnorm.normalize_for_api([], attachment_templates={"x": 3}),  # type: ignore[dict-item]
        lambda: msgnorm.normalize_for_api([], attachment_templates={1: "x"}),  # type: ignore[dict-item]
    ],
    ids=[
        "bool-index",
        "float-index",
        "list-attachment",
        "surrogate-template",
        "int-template",
        "int-key",
    ],
)
def test_wrong_argument_kinds_are_msgnorm_errors(call: Callable[[], Any]) -> None:
    with pytest.raises(MsgnormError):
        call()


def test_normalize_for_api_shares_unchanged_records() -> None:
    """docs/reference.md "Input kinds and sharing": like slicing, a record the call does not
    change is the input's own object; a changed one is a fresh shallow copy."""
    first = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    reply = {
        "type": "assistant",
        "uuid": "a1",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    }
    spaced = {
        "type": "user",
        "uuid": "u2",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "   "}, {"type": "text", "text": "next"}],
        },
    }
    records = [first, reply, spaced]
    snapshot = copy.deepcopy(records)
    out = msgnorm.normalize_for_api(records)
    assert out[0] is first and out[1] is reply
    # The blank text block is removed (§4 step 7): a fresh record and message,
    # sharing the block it keeps.
    assert out[2] is not spaced and out[2]["message"] is not spaced["message"]
    assert out[2]["message"]["content"] == [{"type": "text", "text": "next"}]
    assert out[2]["message"]["content"][0] is spaced["message"]["content"][1]
    assert records == snapshot
