"""SPEC §1: the same bad input gives the same error, whatever kind it comes in.

Every error path of the record readers (a record or block that is not an
object, a missing field, a field of the wrong JSON type, nesting too deep) and
of the JSON reader (bad JSON at the top level and inside a record, truncated
input, invalid UTF-8, empty input, trailing data) is run through every input
kind and every function that reads records: lists of dicts, JSON array bytes,
JSON Lines bytes, a JSON ``str``, ``decode``, ``from_builtins``, msgnorm
Structs, ``count_tokens``, ``normalize_messages``, ``Conversation.append`` and
``normalize_batch``.  Each must raise the same class with the same message at
the same ``records[i].path`` (JSON errors: the same line and column, counted in
characters as Python's :mod:`json` counts them).  JSON Lines add the line a
record is on to its message (``... (line 2)``); the test asserts that suffix
exactly.  A kind that cannot express a case is skipped with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgnorm
import pytest
from msgnorm import model as m

OK_USER: dict[str, Any] = {
    "type": "user",
    "uuid": "u0",
    "message": {"role": "user", "content": "hi"},
}


def user(content: Any = "x", **fields: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": "u1", "message": {"role": "user", "content": content}, **fields}


def asst(content: Any, **fields: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": "a1",
        "message": {"role": "assistant", "content": content},
        **fields,
    }


def nested_results(depth: int) -> dict[str, Any]:
    """A tool_result whose content holds a tool_result, ``depth`` levels deep."""
    block: dict[str, Any] = {"type": "text", "text": "x"}
    for _ in range(depth):
        block = {"type": "tool_result", "tool_use_id": "t", "content": [block]}
    return block


@dataclass
class Case:
    """A bad record (at index 1, after a valid user record) and the error it gives."""

    id: str
    record: Any
    path: str
    message: str
    #: The same bad record as msgnorm Structs, where a Struct can hold it.
    structs: Callable[[], Any] | None = None


def _user_struct(content: Any = "x", uuid: Any = "u1", role: Any = "user") -> m.UserMessage:
    return m.UserMessage(uuid=uuid, message=m.UserPayload(role=role, content=content))


NOT_OBJECT = "a record must be a JSON object"
BLOCK_NOT_OBJECT = "a block must be a JSON object"
MISSING = "missing required field"
NOT_STR = "must be a string"
BAD_CONTENT = "must be a string, a list of blocks or null"

CASES = [
    # a record that is not an object
    Case("record-int", 5, "records[1]", NOT_OBJECT, lambda: 5),
    Case("record-str", "user", "records[1]", NOT_OBJECT, lambda: "user"),
    Case("record-null", None, "records[1]", NOT_OBJECT, lambda: None),
    Case("record-array", [OK_USER], "records[1]", NOT_OBJECT),
    # type
    Case("type-missing", {"uuid": "x"}, "records[1].type", MISSING),
    Case("type-int", {"type": 3}, "records[1].type", NOT_STR),
    # user / assistant: uuid, message {role, content}
    Case(
        "uuid-missing",
        {"type": "user", "message": {"role": "user", "content": "x"}},
        "records[1].uuid",
        MISSING,
    ),
    Case("uuid-int", user(uuid=5), "records[1].uuid", NOT_STR, lambda: _user_struct(uuid=5)),
    Case("message-missing", {"type": "assistant", "uuid": "a"}, "records[1].message", MISSING),
    Case(
        "message-str",
        {"type": "assistant", "uuid": "a", "message": "hi"},
        "records[1].message",
        "must be an object with `role` and `content`",
    ),
    Case(
        "role-missing",
        {"type": "user", "uuid": "u", "message": {"content": "x"}},
        "records[1].message.role",
        MISSING,
    ),
    Case(
        "role-int",
        {"type": "user", "uuid": "u", "message": {"role": 1, "content": "x"}},
        "records[1].message.role",
        NOT_STR,
        lambda: _user_struct(role=1),
    ),
    Case(
        "content-missing",
        {"type": "user", "uuid": "u", "message": {"role": "user"}},
        "records[1].message.content",
        MISSING,
    ),
    Case(
        "content-int",
        user(5),
        "records[1].message.content",
        BAD_CONTENT,
        lambda: _user_struct(5),
    ),
    Case(
        "content-object",
        user({"type": "text", "text": "x"}),
        "records[1].message.content",
        BAD_CONTENT,
    ),
    # blocks
    Case(
        "block-int",
        user([{"type": "text", "text": "ok"}, 5]),
        "records[1].message.content[1]",
        BLOCK_NOT_OBJECT,
        lambda: _user_struct([m.TextBlock(text="ok"), 5]),
    ),
    Case(
        "block-type-missing", user([{"text": "x"}]), "records[1].message.content[0].type", MISSING
    ),
    Case("block-type-int", user([{"type": 1}]), "records[1].message.content[0].type", NOT_STR),
    Case("text-missing", user([{"type": "text"}]), "records[1].message.content[0].text", MISSING),
    Case(
        "text-null",
        user([{"type": "text", "text": None}]),
        "records[1].message.content[0].text",
        NOT_STR,
        lambda: _user_struct([m.TextBlock(text=None)]),  # type: ignore[arg-type]
    ),
    Case(
        "tool-use-id-missing",
        asst([{"type": "tool_use", "name": "x", "input": {}}]),
        "records[1].message.content[0].id",
        MISSING,
    ),
    Case(
        "tool-use-id-int",
        asst([{"type": "tool_use", "id": 5, "name": "x", "input": {}}]),
        "records[1].message.content[0].id",
        NOT_STR,
        lambda: m.AssistantMessage(
            uuid="a1",
            message=m.AssistantPayload(
                role="assistant",
                content=[m.ToolUseBlock(id=5, name="x", input={})],  # type: ignore[arg-type]
            ),
        ),
    ),
    Case(
        "server-tool-use-id-missing",
        asst([{"type": "server_tool_use", "name": "web_search", "input": {}}]),
        "records[1].message.content[0].id",
        MISSING,
    ),
    Case(
        "tool-result-id-missing",
        user([{"type": "tool_result", "content": "r"}]),
        "records[1].message.content[0].tool_use_id",
        MISSING,
    ),
    Case(
        "server-result-id-missing",
        asst([{"type": "web_search_tool_result", "content": []}]),
        "records[1].message.content[0].tool_use_id",
        MISSING,
    ),
    Case(
        "tool-result-content-int",
        user([{"type": "tool_result", "tool_use_id": "t", "content": 5}]),
        "records[1].message.content[0].content",
        BAD_CONTENT,
        lambda: _user_struct([m.ToolResultBlock(tool_use_id="t", content=5)]),  # type: ignore[arg-type]
    ),
    Case(
        "tool-result-inner-block",
        user([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}]),
        "records[1].message.content[0].content[0].text",
        MISSING,
    ),
    # depth limit: blocks nested in tool_result content
    Case(
        "blocks-too-deep",
        user([nested_results(40)]),
        "records[1].message.content[0]" + ".content[0]" * 32,
        "blocks nested too deeply in tool_result content",
    ),
    # system
    Case("subtype-missing", {"type": "system", "content": "c"}, "records[1].subtype", MISSING),
    Case("subtype-int", {"type": "system", "subtype": 5}, "records[1].subtype", NOT_STR),
    Case(
        "local-command-uuid",
        {"type": "system", "subtype": "local_command", "content": "c"},
        "records[1].uuid",
        MISSING,
    ),
    Case(
        "local-command-content",
        {"type": "system", "subtype": "local_command", "uuid": "s", "content": None},
        "records[1].content",
        NOT_STR,
    ),
    # attachment
    Case(
        "attachment-missing", {"type": "attachment", "uuid": "a"}, "records[1].attachment", MISSING
    ),
    Case(
        "attachment-list",
        {"type": "attachment", "uuid": "a", "attachment": []},
        "records[1].attachment",
        "must be an object",
    ),
    Case(
        "attachment-type-missing",
        {"type": "attachment", "uuid": "a", "attachment": {"content": "c"}},
        "records[1].attachment.type",
        MISSING,
    ),
    Case(
        "attachment-type-int",
        {"type": "attachment", "uuid": "a", "attachment": {"type": 5}},
        "records[1].attachment.type",
        NOT_STR,
        lambda: m.AttachmentMessage(uuid="a", attachment={"type": 5}),
    ),
    # tombstone
    Case("tombstone-message-missing", {"type": "tombstone"}, "records[1].message", MISSING),
    Case(
        "tombstone-message-str",
        {"type": "tombstone", "message": "x"},
        "records[1].message",
        "must be an object (the removed assistant record)",
    ),
    Case(
        "tombstone-uuid-missing",
        {"type": "tombstone", "message": {"type": "assistant"}},
        "records[1].message.uuid",
        MISSING,
    ),
    Case(
        "tombstone-uuid-int",
        {"type": "tombstone", "message": {"uuid": 5}},
        "records[1].message.uuid",
        NOT_STR,
        lambda: m.TombstoneMessage(message={"uuid": 5}),
    ),
]


def _conversation_append(records: Any) -> Any:
    return msgnorm.Conversation().append(records)


def _batch(records: Any) -> Any:
    return msgnorm.normalize_batch([records], errors="raise")


#: Every function that reads records, each run on every kind of the same input.
READERS: dict[str, Callable[[Any], Any]] = {
    "normalize_for_api": msgnorm.normalize_for_api,
    "normalize_messages": msgnorm.normalize_messages,
    "count_tokens": msgnorm.count_tokens,
    "Conversation.append": _conversation_append,
    "normalize_batch": _batch,
}
#: Those that take JSON text only (bytes/str), not a list.
TEXT_ONLY: dict[str, Callable[[Any], Any]] = {"decode": m.decode}
#: Those that take a list only.
LIST_ONLY: dict[str, Callable[[Any], Any]] = {"from_builtins": m.from_builtins}


def _error(call: Callable[[Any], Any], value: Any) -> BaseException:
    with pytest.raises(ValueError) as info:
        call(value)
    return info.value


def _record_error(e: BaseException) -> tuple[type, str, int | None, str]:
    assert isinstance(e, msgnorm.InvalidRecordError), repr(e)
    return type(e), str(e), e.index, e.path


def _json_error(e: BaseException) -> tuple[type, str, int, int]:
    assert isinstance(e, msgnorm.JSONDecodeError), repr(e)
    return type(e), str(e), e.line, e.column


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_bad_record_gives_one_error_in_every_kind(case: Case) -> None:
    records = [OK_USER, case.record]
    array = json.dumps(records).encode()
    lines = b"\n".join(json.dumps(r).encode() for r in records) + b"\n"
    text = json.dumps(records)
    want = (msgnorm.InvalidRecordError, f"{case.path}: {case.message}", 1, case.path)
    # JSON Lines: the message also names the line the record is on.
    want_lines = (*want[:1], f"{want[1]} (line 2)", *want[2:])
    kinds: dict[str, tuple[Any, tuple[Any, ...]]] = {
        "dicts": (records, want),
        "array bytes": (array, want),
        "JSON Lines bytes": (lines, want_lines),
        "str": (text, want),
    }
    seen = 0
    for name, call in {**READERS, **TEXT_ONLY, **LIST_ONLY}.items():
        for kind, (value, expected) in kinds.items():
            if name in TEXT_ONLY and kind == "dicts":
                continue  # decode reads JSON text only (from_builtins is its list twin)
            if name in LIST_ONLY and kind != "dicts":
                continue  # from_builtins takes values, not text (decode is its text twin)
            got = _record_error(_error(call, value))
            assert got == expected, (name, kind)
            seen += 1
    assert seen == 5 * 4 + 3 + 1
    if case.structs is None:
        return  # a Struct cannot hold this record (a required field is missing, ...)
    structs = [m.from_builtins([OK_USER])[0], case.structs()]
    for name, call in {**READERS, **LIST_ONLY}.items():
        assert _record_error(_error(call, structs)) == want, (name, "structs")


def test_every_reader_message_is_covered() -> None:
    """The cases above name every §1 message the readers can raise."""
    covered = {c.message for c in CASES}
    assert covered >= {
        NOT_OBJECT,
        BLOCK_NOT_OBJECT,
        MISSING,
        NOT_STR,
        BAD_CONTENT,
        "must be an object",
        "must be an object with `role` and `content`",
        "must be an object (the removed assistant record)",
        "blocks nested too deeply in tool_result content",
    }


def test_a_lone_surrogate_in_a_record() -> None:
    """A str holding a lone surrogate is not text: in a record, the field is named.

    JSON text cannot carry one (bytes would be invalid UTF-8; a ``\\ud800`` escape is
    refused as invalid JSON, see below), and a JSON ``str`` holding one is refused as
    a whole, before any record is read: only lists (dicts, Structs) reach the field.
    """
    bad = user("\ud800")
    want = (
        msgnorm.InvalidRecordError,
        "records[1].message.content: holds a lone surrogate, which is not valid Unicode text",
        1,
        "records[1].message.content",
    )
    for name, call in {**READERS, **LIST_ONLY}.items():
        if name in ("Conversation.append", "normalize_batch"):
            continue  # they write lists as JSON first, which cannot hold a lone surrogate
        assert _record_error(_error(call, [OK_USER, bad])) == want, name
    structs = [m.from_builtins([OK_USER])[0], _user_struct("\ud800")]
    for name in ("normalize_for_api", "normalize_messages", "count_tokens"):
        assert _record_error(_error(READERS[name], structs)) == want, (name, "structs")


# --------------------------------------------------------------------------- #
# JSON errors
# --------------------------------------------------------------------------- #

SUMMARY = b'{"type": "summary"}'


@dataclass
class JsonCase:
    id: str
    data: bytes
    line: int
    column: int
    #: Python's json module finds the same error at the same place.
    like_json_module: bool = True


JSON_CASES = [
    JsonCase("top-level-garbage", b"x", 1, 1),
    JsonCase("truncated-array", b"[" + SUMMARY + b",\n", 2, 1),
    JsonCase("truncated-object", b'[{"type": ', 1, 11),
    JsonCase("bad-inside-record", b"[" + SUMMARY + b',\n {"type" "x"}]', 2, 10),
    # the column counts characters, not bytes: "é" is two bytes
    JsonCase("column-in-characters", '[{"type": "é", "a": "éé" x}]'.encode(), 1, 26),
    JsonCase("lines-bad-second-line", SUMMARY + b'\n{"a" 1}\n', 2, 6),
    JsonCase("lines-trailing-data", SUMMARY + b" x\n", 1, 21, like_json_module=False),
    JsonCase("escape-lone-surrogate", b'[{"type": "\\ud800"}]', 1, 18, like_json_module=False),
    JsonCase("empty", b"", 1, 1, like_json_module=False),
    JsonCase("blank", b" \n\n", 3, 1, like_json_module=False),
]


def _json_kinds(data: bytes) -> dict[str, Any]:
    kinds: dict[str, Any] = {"bytes": data, "bytearray": bytearray(data)}
    try:
        kinds["str"] = data.decode()
    except UnicodeDecodeError:  # pragma: no cover - every case above is UTF-8
        pass
    return kinds


def _json_module_position(data: bytes) -> tuple[int, int]:
    """Where Python's json module puts the first error of an array or JSON Lines."""
    text = data.decode()
    if text.lstrip().startswith("["):
        with pytest.raises(json.JSONDecodeError) as e:
            json.loads(text)
        return e.value.lineno, e.value.colno
    for n, line in enumerate(text.split("\n")):
        if line.strip():
            try:
                json.loads(line)
            except json.JSONDecodeError as err:
                return n + err.lineno, err.colno
    raise AssertionError("no error")


@pytest.mark.parametrize("case", JSON_CASES, ids=[c.id for c in JSON_CASES])
def test_bad_json_gives_one_error_in_every_kind(case: JsonCase) -> None:
    first = _json_error(_error(msgnorm.normalize_for_api, case.data))
    assert first[0] is msgnorm.JSONDecodeError
    assert (first[2], first[3]) == (case.line, case.column), first[1]
    assert f"line {case.line} column {case.column}" in first[1]
    if case.like_json_module:
        assert _json_module_position(case.data) == (case.line, case.column)
    for name, call in {**READERS, **TEXT_ONLY}.items():
        if name == "Conversation.append" and not case.data.strip():
            # Appending no text appends no records (a stream may deliver an empty
            # chunk); every function that reads a whole history refuses it.
            assert msgnorm.Conversation().append(case.data) == 0
            continue
        for kind, value in _json_kinds(case.data).items():
            assert _json_error(_error(call, value)) == first, (name, kind)
    # lists (dicts, Structs) and from_builtins: no JSON text, nothing to refuse


def test_invalid_utf8_gives_one_error_in_every_kind() -> None:
    """Bytes only: a ``str`` is always text, and lists hold no bytes to decode."""
    data = b"[" + SUMMARY + b',\n {"type": "\xff"}]'
    first = _json_error(_error(msgnorm.normalize_for_api, data))
    assert (first[2], first[3]) == (2, 12)  # the 12th character of line 2
    assert "invalid UTF-8" in first[1]
    for name, call in {**READERS, **TEXT_ONLY}.items():
        for value in (data, bytearray(data), memoryview(data)):
            if name == "normalize_batch" and isinstance(value, memoryview):
                continue  # normalize_batch takes bytes/bytearray items (and lists)
            assert _json_error(_error(call, value)) == first, (name, type(value).__name__)


def test_a_str_with_a_lone_surrogate_is_refused_alike() -> None:
    text = json.dumps([OK_USER])[:-2] + '\ud800"}]'
    first = _json_error(_error(msgnorm.normalize_for_api, text))
    for name, call in {**READERS, **TEXT_ONLY}.items():
        assert _json_error(_error(call, text)) == first, name


def test_what_the_reader_accepts_the_typed_model_accepts() -> None:
    """decode and from_builtins give the Structs of input every function accepts
    (msgspec converts only what the reader let through; SPEC §1 checks no more)."""
    records = [
        OK_USER,
        user(cwd=5, isMeta="yes", parentUuid=[1]),
        asst([{"type": "tool_use", "id": "t", "name": 5, "input": {"deep": [[[1]]]}}]),
        user([{"type": "tool_result", "tool_use_id": "t", "content": None, "is_error": "no"}]),
        user([{"type": "web_search_tool_result", "tool_use_id": "t"}]),
        {"type": "system", "subtype": "turn_duration"},
        {"type": "progress"},
        {"type": "tombstone", "message": {"uuid": "gone"}},
        {"type": "summary", "summary": 1e300},
    ]
    data = json.dumps(records).encode()
    msgnorm.normalize_for_api(data)  # accepted by the reader
    assert m.to_builtins(m.decode(data)) == records
    assert m.to_builtins(m.from_builtins(records)) == records
    # JSON numbers beyond msgspec's range are JSON all the same
    big = b'[{"type": "summary", "n": 1e400}]'
    msgnorm.normalize_for_api(big)
    assert m.decode(big)[0]["n"] == float("inf")


@pytest.mark.parametrize(
    ("record", "path"),
    [
        # the last of duplicate keys counts, as in Python's json module
        (
            b'{"type": "user", "uuid": "u", "uuid": 5, "message": {"role": "user", "content": "x"}}',
            "records[0].uuid",
        ),
        (
            b'{"type": "user", "uuid": "u", "message": {"role": "user", "content": "x", "content": 5}}',
            "records[0].message.content",
        ),
        (
            b'{"type": "user", "uuid": 5, "uuid": "u", "message": {"role": "user", "content": "x"}}',
            None,
        ),
    ],
)
def test_duplicate_keys_the_last_counts_in_every_kind(record: bytes, path: str | None) -> None:
    """Only JSON text can repeat a key (a dict holds one); the last one is the value,
    in every reader of JSON text and in the dicts ``json.loads`` makes of it."""
    array = b"[" + record + b"]"
    kinds = {"array bytes": array, "JSON Lines bytes": record + b"\n", "str": array.decode()}
    dicts = json.loads(array)
    if path is None:
        want_out = msgnorm.normalize_for_api(dicts)
        for kind, value in kinds.items():
            assert json.loads(msgnorm.normalize_for_api(value)) == want_out, kind
            assert m.to_builtins(m.decode(value)) == dicts, kind
        return
    want = _record_error(_error(msgnorm.normalize_for_api, dicts))
    assert want[3] == path
    for name, call in {**READERS, **TEXT_ONLY}.items():
        for kind, value in kinds.items():
            got = _record_error(_error(call, value))
            if kind == "JSON Lines bytes":
                assert got[1].endswith(" (line 1)"), (name, got)
                got = (got[0], got[1].removesuffix(" (line 1)"), *got[2:])
            assert got == want, (name, kind)
