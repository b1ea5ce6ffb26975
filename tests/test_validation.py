"""SPEC §1 Records: validation of every record type and block (InvalidRecordError)."""

from __future__ import annotations

import json

import pytest
from support.helpers import (
    asst,
    attachment,
    local_command,
    progress,
    raises_invalid,
    text,
    tombstone,
    tool_result,
    tool_use,
    tool_use_summary,
    user,
)

OK_USER = user("u0", "hi")

# (record, path) with the record at index 1 after a valid user record.
# §1: "A record that is not an object, has no string type, or lacks a required
# field of its type (or has one of the wrong JSON type) is invalid: the call
# raises msgnorm.InvalidRecordError (a ValueError) naming the record's index and
# the path of the bad field, e.g. records[12].message.content."
BAD_RECORDS = [
    (5, "records[1]"),
    ("user", "records[1]"),
    (None, "records[1]"),
    ([OK_USER], "records[1]"),
    ({"uuid": "x"}, "records[1].type"),
    ({"type": 3}, "records[1].type"),
    ({"type": None}, "records[1].type"),
    # user / assistant: uuid, message {role, content}
    ({"type": "user", "message": {"role": "user", "content": "x"}}, "records[1].uuid"),
    ({"type": "user", "uuid": 7, "message": {"role": "user", "content": "x"}}, "records[1].uuid"),
    ({"type": "assistant", "uuid": "a"}, "records[1].message"),
    ({"type": "assistant", "uuid": "a", "message": "hi"}, "records[1].message"),
    ({"type": "user", "uuid": "u", "message": {"content": "x"}}, "records[1].message.role"),
    (
        {"type": "user", "uuid": "u", "message": {"role": 1, "content": "x"}},
        "records[1].message.role",
    ),
    ({"type": "user", "uuid": "u", "message": {"role": "user"}}, "records[1].message.content"),
    (user("u", 5), "records[1].message.content"),
    (user("u", {"type": "text", "text": "x"}), "records[1].message.content"),
    (asst("a", True), "records[1].message.content"),
    # blocks
    (user("u", [text("ok"), "bare"]), "records[1].message.content[1]"),
    (user("u", [text("ok"), {"text": "x"}]), "records[1].message.content[1].type"),
    (user("u", [{"type": 1}]), "records[1].message.content[0].type"),
    (user("u", [{"type": "text"}]), "records[1].message.content[0].text"),
    (user("u", [{"type": "text", "text": None}]), "records[1].message.content[0].text"),
    (
        asst("a", [{"type": "tool_use", "name": "x", "input": {}}]),
        "records[1].message.content[0].id",
    ),
    (asst("a", [{"type": "server_tool_use", "id": 3}]), "records[1].message.content[0].id"),
    (asst("a", [text("t"), {"type": "mcp_tool_use"}]), "records[1].message.content[1].id"),
    (
        user("u", [{"type": "tool_result", "content": "x"}]),
        "records[1].message.content[0].tool_use_id",
    ),
    (
        asst("a", [{"type": "web_search_tool_result", "content": []}]),
        "records[1].message.content[0].tool_use_id",
    ),
    (
        asst("a", [{"type": "mcp_tool_result", "tool_use_id": 9}]),
        "records[1].message.content[0].tool_use_id",
    ),
    (user("u", [tool_result("t1", 5)]), "records[1].message.content[0].content"),
    (
        user("u", [tool_result("t1", {"type": "text", "text": "x"})]),
        "records[1].message.content[0].content",
    ),
    # §1 blocks nested in a tool_result list are validated the same way
    (
        user("u", [tool_result("t1", [text("a"), {"type": "text"}])]),
        "records[1].message.content[0].content[1].text",
    ),
    (user("u", [text("a"), tool_result("t1", ["x"])]), "records[1].message.content[1].content[0]"),
    (
        user(
            "u",
            [
                tool_result(
                    "t1", [tool_result("t2", [{"type": "image", "source": {}}, {"nope": 1}])]
                )
            ],
        ),
        "records[1].message.content[0].content[0].content[1].type",
    ),
    # system: subtype; local_command also uuid, then content: str
    ({"type": "system", "uuid": "s", "content": "c"}, "records[1].subtype"),
    ({"type": "system", "subtype": None}, "records[1].subtype"),
    ({"type": "system", "subtype": "local_command", "content": "c"}, "records[1].uuid"),
    ({"type": "system", "subtype": "local_command", "uuid": 5, "content": "c"}, "records[1].uuid"),
    ({"type": "system", "uuid": "s", "subtype": "local_command"}, "records[1].content"),
    (
        {"type": "system", "uuid": "s", "subtype": "local_command", "content": ["x"]},
        "records[1].content",
    ),
    # attachment: uuid, attachment: {type, ...}
    ({"type": "attachment", "attachment": {"type": "date"}}, "records[1].uuid"),
    ({"type": "attachment", "uuid": "t"}, "records[1].attachment"),
    ({"type": "attachment", "uuid": "t", "attachment": "date"}, "records[1].attachment"),
    (
        {"type": "attachment", "uuid": "t", "attachment": {"date": "x"}},
        "records[1].attachment.type",
    ),
    ({"type": "attachment", "uuid": "t", "attachment": {"type": 1}}, "records[1].attachment.type"),
    # tombstone: message (an assistant record) with a uuid
    ({"type": "tombstone"}, "records[1].message"),
    ({"type": "tombstone", "message": {"role": "assistant"}}, "records[1].message.uuid"),
    ({"type": "tombstone", "message": {"uuid": 5}}, "records[1].message.uuid"),
]


@pytest.mark.parametrize(("bad", "path"), BAD_RECORDS, ids=[p for _, p in BAD_RECORDS])
def test_invalid_record(impl, bad, path):
    with raises_invalid(impl, 1, path):
        impl.normalize_for_api([OK_USER, bad])


def test_spec_example_path(impl):
    # §1: "... naming the record's index and the path of the bad field, e.g.
    # records[12].message.content"
    records = [user(f"u{i}", "x") for i in range(12)] + [user("u12", 12)]
    with raises_invalid(impl, 12, "records[12].message.content"):
        impl.normalize_for_api(records)


VALID = [
    # §1: null content "counts as the empty string"; content may be a string or a list
    user("u", None),
    asst("a", None),
    user("u", []),
    # tool_result content may be a string, a list, null or absent
    user(
        "u",
        [
            tool_result("t", None),
            tool_result("t", "x"),
            {"type": "tool_result", "tool_use_id": "t"},
        ],
    ),
    # other block types pass through untouched, whatever their fields
    user("u", [{"type": "image"}, {"type": "whatever", "x": [1]}, {"type": "thinking"}]),
    # *_tool_result content is not checked (A1)
    asst("a", [{"type": "web_search_tool_result", "tool_use_id": "s", "content": {"error": 1}}]),
    # §1: "Any other record type ... is an entry, not a message"
    {"type": "summary"},
    {"type": "custom-title", "uuid": 5, "message": "not checked"},
    {"type": "file-history-snapshot", "snapshot": None},
    attachment("t", {"type": "date"}),
    local_command("l", ""),
    progress("p"),
    tool_use_summary("s"),
    tombstone("nobody"),
    # §1 as real transcripts have them: a field is required only where a step reads it
    {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1, "level": "suggestion"},
    {"type": "system", "subtype": "turn_duration", "uuid": "t", "durationMs": 1200},
    {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": "c",
        "parentUuid": None,
        "logicalParentUuid": "p",
        "compactMetadata": {"trigger": "auto", "preTokens": 1},
    },
    {"type": "system", "subtype": "api_error", "uuid": 7, "content": ["not", "read"]},
    {"type": "system", "subtype": "microcompact_boundary", "content": None},
    {"type": "progress"},
    {"type": "progress", "uuid": None, "data": "x", "toolUseID": 5},
    {"type": "tool_use_summary"},
    {"type": "tool_use_summary", "summary": 1, "precedingToolUseIds": "t1"},
]


@pytest.mark.parametrize("rec", VALID)
def test_valid_records_do_not_raise(impl, rec):
    # §1: these records are valid (A1)
    impl.normalize_for_api([OK_USER, rec])
    impl.count_tokens_per_record([OK_USER, rec])


def test_first_invalid_record_wins(impl):
    # A2: records are checked in index order
    records = [OK_USER, user("u1", [text("x"), 5]), {"type": 1}]
    with raises_invalid(impl, 1, "records[1].message.content[1]"):
        impl.normalize_for_api(records)


def test_fields_checked_in_order(impl):
    # A2: inside a record, uuid before message
    if impl.kind == "structs":
        # The typed model (msgnorm.from_builtins) checks a record's fields in its
        # own order: the record is named, the first bad field may differ.
        with pytest.raises(impl.InvalidRecordError) as info:
            impl.normalize_for_api([{"type": "user", "message": 5}])
        assert info.value.index == 0
        assert info.value.path in ("records[0].uuid", "records[0].message")
        return
    with raises_invalid(impl, 0, "records[0].uuid"):
        impl.normalize_for_api([{"type": "user", "message": 5}])
    # A2: inside a block, type, then the id field, then content
    with raises_invalid(impl, 0, "records[0].message.content[0].tool_use_id"):
        impl.normalize_for_api([user("u", [{"type": "tool_result", "content": 5}])])


def test_records_that_would_be_dropped_are_validated(impl):
    # §1: the call raises for any invalid record, "No partial output is ever returned"
    records = [OK_USER, user("dead", 5), tombstone("dead")]
    with raises_invalid(impl, 1, "records[1].message.content"):
        impl.normalize_for_api(records)
    # a local_command system record is checked even when a tombstone drops it
    with raises_invalid(impl, 1, "records[1].content"):
        impl.normalize_for_api(
            [OK_USER, {"type": "system", "subtype": "local_command", "uuid": "p"}, tombstone("p")]
        )


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        ("normalize_messages", ()),
        ("normalize_for_api", ()),
        ("to_anthropic", ()),
        ("count_tokens_per_record", ()),
        ("count_tokens", ()),
        ("find_cutoff", (10**9,)),
        ("trim_to_budget", (10**9,)),
        ("split_for_summary", (10**9,)),
    ],
)
def test_every_function_validates(impl, fn, args):
    # §1: "the call raises msgnorm.InvalidRecordError"
    records = [OK_USER, asst("a1", "x"), user("u2", [tool_use("t1"), {"type": "text"}])]
    with raises_invalid(impl, 2, "records[2].message.content[1].text"):
        impl.call(fn, records, *args)


def test_invalid_record_error_is_a_value_error(impl):
    # §1: "msgnorm.InvalidRecordError (a ValueError)"
    assert issubclass(impl.InvalidRecordError, ValueError)
    with pytest.raises(ValueError):
        impl.normalize_for_api([{"type": "user"}])


@pytest.mark.parametrize(
    "data",
    [b'[{"type": "user",', b"not json", b"[1, 2", b'{"type": "user"}\n{oops}\n', b"\xff\xfe"],
)
def test_invalid_json_bytes(impl, data):
    # §1: "Invalid JSON raises msgnorm.JSONDecodeError (a ValueError) with line and column."
    if impl.kind != "bytes":
        pytest.skip("JSON input only exists for the bytes kind")
    with pytest.raises(impl.module.JSONDecodeError) as info:
        impl.module.normalize_for_api(data)
    assert isinstance(info.value, ValueError)


def test_json_lines_bytes(impl):
    # §4: "JSON bytes (an array, or JSON Lines) give JSON bytes (an array)"
    if impl.kind != "bytes":
        pytest.skip("JSON input only exists for the bytes kind")
    lines = b"\n".join(json.dumps(r).encode() for r in [user("u1", "a"), asst("a1", "b")]) + b"\n"
    out = impl.module.normalize_for_api(lines)
    assert isinstance(out, bytes)
    assert json.loads(out) == [user("u1", "a"), asst("a1", [text("b")])]
