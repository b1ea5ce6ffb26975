"""Tests of msgnorm.model: the typed, lossless model of Claude Code transcripts."""

from __future__ import annotations

import ast
import copy
import gc
import json
import re
import uuid as uuid_mod
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgnorm import model as m
from support import external, session_trees

MESSAGE_LIST: Any = list[m.Message]  # type: ignore[name-defined]

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def roundtrip(records: list[Any]) -> list[Any]:
    """from_builtins -> to_builtins, checking the input is left untouched."""
    before = copy.deepcopy(records)
    out: list[Any] = m.to_builtins(m.from_builtins(records))
    assert records == before, "from_builtins mutated its input"
    return out


def json_roundtrip(records: list[Any]) -> Any:
    return json.loads(m.encode(m.decode(json.dumps(records))))


def assert_plain(value: Any) -> None:
    """Only builtin JSON types, no '__extra__' key left anywhere in Struct-shaped places."""
    if isinstance(value, dict):
        assert type(value) is dict
        for v in value.values():
            assert_plain(v)
    elif isinstance(value, list):
        assert type(value) is list
        for v in value:
            assert_plain(v)
    else:
        assert value is None or type(value) in (str, int, float, bool)


def user(content: Any = "hi", **fields: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": "u-1",
        "message": {"role": "user", "content": content},
        **fields,
    }


def assistant(content: Any, **fields: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": "a-1",
        "message": {"role": "assistant", "content": content},
        **fields,
    }


# --------------------------------------------------------------------------- #
# Constants and public names
# --------------------------------------------------------------------------- #


def test_constants_have_claude_codes_texts() -> None:
    assert m.INTERRUPT_MESSAGE == "[Request interrupted by user]"
    assert m.INTERRUPT_MESSAGE_FOR_TOOL_USE == "[Request interrupted by user for tool use]"
    assert m.NO_RESPONSE_REQUESTED == "No response requested."
    assert m.CANCEL_MESSAGE == (
        "The user doesn't want to take this action right now. STOP what you are doing and "
        "wait for the user to tell you how to proceed."
    )
    assert m.REJECT_MESSAGE == (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
        "if it was a file edit, the new_string was NOT written to the file). STOP what you "
        "are doing and wait for the user to tell you how to proceed."
    )
    assert m.SYNTHETIC_MODEL == "<synthetic>"
    assert m.NO_CONTENT_MESSAGE == "(no content)"
    assert m.TOOL_USE_INTERRUPTED == "[Tool use interrupted]"
    assert m.ORPHANED_TOOL_RESULT == "[Orphaned tool result removed due to conversation resume]"
    assert m.TOOL_RESULT_MISSING == "[Tool result missing due to internal error]"
    assert m.NO_MESSAGE_CONTENT == "[No message content]"


def test_synthetic_messages_set() -> None:
    assert isinstance(m.SYNTHETIC_MESSAGES, frozenset)
    assert m.SYNTHETIC_MESSAGES == {
        m.INTERRUPT_MESSAGE,
        m.INTERRUPT_MESSAGE_FOR_TOOL_USE,
        m.CANCEL_MESSAGE,
        m.REJECT_MESSAGE,
        m.NO_RESPONSE_REQUESTED,
    }
    known = "user assistant system attachment progress tool_use_summary tombstone"
    assert m.MESSAGE_TYPES == set(known.split())
    assert m.SYSTEM_LEVELS == {"info", "warning", "error"}


def test_all_lists_every_public_name() -> None:
    assert len(m.__all__) == len(set(m.__all__))
    for name in m.__all__:
        assert hasattr(m, name), name
    # The package and its modules (split by job: constants, Structs, conversion,
    # factories): every public name any of them defines is exported.
    files = sorted(Path(m.__file__ or "").parent.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "_structs.py", "_convert.py"}
    body = [node for f in files for node in ast.parse(f.read_text()).body]
    defined: set[str] = set()
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    public = {n for n in defined if not n.startswith("_")}
    assert public == set(m.__all__) - {"UNSET", "UnsetType"}  # the two re-exported from msgspec
    for name in ("Block", "Message", "Record", "Content", "from_builtins", "to_builtins"):
        assert name in m.__all__


# --------------------------------------------------------------------------- #
# Tag dispatch
# --------------------------------------------------------------------------- #

BLOCK_SAMPLES: list[tuple[dict[str, Any], str]] = [
    ({"type": "text", "text": "t"}, "TextBlock"),
    ({"type": "thinking", "thinking": "hm", "signature": "sig"}, "ThinkingBlock"),
    ({"type": "redacted_thinking", "data": "xx"}, "RedactedThinkingBlock"),
    ({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"c": 1}}, "ToolUseBlock"),
    ({"type": "tool_result", "tool_use_id": "t1", "content": "ok"}, "ToolResultBlock"),
    ({"type": "image", "source": {"type": "base64", "data": "AA"}}, "ImageBlock"),
    ({"type": "document", "source": {"type": "text", "data": "d"}}, "DocumentBlock"),
    (
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
        "ServerToolUseBlock",
    ),
    (
        {"type": "mcp_tool_use", "id": "m1", "name": "q", "server_name": "srv", "input": {}},
        "McpToolUseBlock",
    ),
    (
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
        "WebSearchToolResultBlock",
    ),
    (
        {"type": "web_fetch_tool_result", "tool_use_id": "s1", "content": {"x": 1}},
        "WebFetchToolResultBlock",
    ),
    (
        {"type": "code_execution_tool_result", "tool_use_id": "s1", "content": {}},
        "CodeExecutionToolResultBlock",
    ),
    (
        {"type": "bash_code_execution_tool_result", "tool_use_id": "s1", "content": {}},
        "BashCodeExecutionToolResultBlock",
    ),
    (
        {"type": "text_editor_code_execution_tool_result", "tool_use_id": "s1", "content": {}},
        "TextEditorCodeExecutionToolResultBlock",
    ),
    (
        {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": {}},
        "ToolSearchToolResultBlock",
    ),
    (
        {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": False, "content": "r"},
        "McpToolResultBlock",
    ),
]


@pytest.mark.parametrize(("block", "cls_name"), BLOCK_SAMPLES)
def test_block_tag_dispatch(block: dict[str, Any], cls_name: str) -> None:
    rec = assistant([block])
    decoded = msgspec.json.decode(json.dumps([rec]), type=MESSAGE_LIST)
    got = decoded[0].message.content[0]
    assert type(got) is getattr(m, cls_name)
    assert got.type == block["type"]
    assert cls_name in m.__all__
    (via_model,) = m.from_builtins([rec])
    assert type(via_model.message.content[0]) is getattr(m, cls_name)
    assert roundtrip([rec]) == [rec]


def test_block_union_alias_covers_every_block_class() -> None:
    members = set(m.Block.__args__)
    assert {getattr(m, name) for _, name in BLOCK_SAMPLES} | {m.UnknownBlock} == members


RECORD_SAMPLES: list[tuple[dict[str, Any], str]] = [
    (user("hello"), "UserMessage"),
    (assistant([{"type": "text", "text": "hi"}]), "AssistantMessage"),
    (
        {
            "type": "system",
            "uuid": "s",
            "subtype": "local_command",
            "content": "x",
            "level": "info",
        },
        "SystemMessage",
    ),
    (
        {"type": "attachment", "uuid": "t", "attachment": {"type": "date", "date": "d"}},
        "AttachmentMessage",
    ),
    (
        {
            "type": "progress",
            "uuid": "p",
            "data": {"k": 1},
            "toolUseID": "t1",
            "parentToolUseID": "t0",
        },
        "ProgressMessage",
    ),
    (
        {"type": "tool_use_summary", "uuid": "q", "summary": "s", "precedingToolUseIds": ["a"]},
        "ToolUseSummaryMessage",
    ),
    ({"type": "tombstone", "message": assistant("gone")}, "TombstoneMessage"),
]


@pytest.mark.parametrize(("record", "cls_name"), RECORD_SAMPLES)
def test_record_tag_dispatch(record: dict[str, Any], cls_name: str) -> None:
    (decoded,) = msgspec.json.decode(json.dumps([record]), type=MESSAGE_LIST)
    assert type(decoded) is getattr(m, cls_name)
    assert decoded.type == record["type"]
    (via_model,) = m.from_builtins([record])
    assert type(via_model) is getattr(m, cls_name)
    assert roundtrip([record]) == [record]
    assert json_roundtrip([record]) == [record]


def test_message_union_alias() -> None:
    assert set(m.Message.__args__) == {getattr(m, n) for _, n in RECORD_SAMPLES}
    assert m.Entry in m.Record.__args__


def test_snake_case_attributes_and_camel_case_json() -> None:
    rec = user(
        "x",
        isMeta=True,
        parentUuid="p",
        sourceToolAssistantUUID="a",
        toolUseResult={"stdout": ""},
        isSidechain=False,
        userType="external",
        sessionId="s",
        isVirtual=True,
        isCompactSummary=False,
        gitBranch="main",
        cwd="/w",
        version="1.0",
        timestamp="2025-01-01T00:00:00.000Z",
    )
    (u,) = m.from_builtins([rec])
    assert u.is_meta is True
    assert u.parent_uuid == "p"
    assert u.source_tool_assistant_uuid == "a"
    assert u.tool_use_result == {"stdout": ""}
    assert u.is_sidechain is False
    assert u.user_type == "external"
    assert u.session_id == "s"
    assert u.is_virtual is True
    assert u.is_compact_summary is False
    assert u.git_branch == "main"
    assert u.extra == {}
    assert json.loads(msgspec.json.encode(u)) == rec
    a_rec = assistant("x", requestId="r", isApiErrorMessage=True)
    (a,) = m.from_builtins([a_rec])
    assert (a.request_id, a.is_api_error_message) == ("r", True)
    p_rec = RECORD_SAMPLES[4][0]
    (p,) = m.from_builtins([p_rec])
    assert (p.tool_use_id, p.parent_tool_use_id) == ("t1", "t0")
    (s,) = m.from_builtins([RECORD_SAMPLES[5][0]])
    assert s.preceding_tool_use_ids == ["a"]


# --------------------------------------------------------------------------- #
# Absent versus null
# --------------------------------------------------------------------------- #


def test_absent_fields_stay_absent() -> None:
    rec = user("x")
    (u,) = m.from_builtins([rec])
    assert u.parent_uuid is m.UNSET
    assert u.is_meta is m.UNSET
    assert u.timestamp is m.UNSET
    out = m.to_builtins([u])[0]
    assert set(out) == {"type", "uuid", "message"}
    assert set(out["message"]) == {"role", "content"}


def test_explicit_nulls_stay_null() -> None:
    rec = assistant(
        None,
        parentUuid=None,
        logicalParentUuid=None,
        requestId=None,
        toolUseResult=None,
    )
    rec["message"].update(id=None, model=None, stop_reason=None, stop_sequence=None, usage=None)
    (a,) = m.from_builtins([rec])
    assert a.parent_uuid is None
    assert a.message.content is None
    assert a.message.stop_sequence is None
    assert a.message.usage is None
    assert a.extra == {"toolUseResult": None}  # not a named field of assistant records
    assert roundtrip([rec]) == [rec]
    assert json_roundtrip([rec]) == [rec]
    progress = {
        "type": "progress",
        "uuid": "p",
        "data": None,
        "toolUseID": "t",
        "parentToolUseID": None,
    }
    assert roundtrip([progress]) == [progress]
    tool_result = user([{"type": "tool_result", "tool_use_id": "t", "content": None}])
    assert roundtrip([tool_result]) == [tool_result]
    no_content = user([{"type": "tool_result", "tool_use_id": "t"}])
    (nc,) = m.from_builtins([no_content])
    assert nc.message.content[0].content is m.UNSET
    assert roundtrip([no_content]) == [no_content]


# --------------------------------------------------------------------------- #
# The catch-all, at every level
# --------------------------------------------------------------------------- #


def test_unknown_fields_at_every_level_survive() -> None:
    nested = {"type": "text", "text": "inner", "citations": None, "innerExtra": [1, {"a": None}]}
    rec = user(
        [
            {"type": "text", "text": "a", "blockExtra": 1},
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": [nested, {"type": "image", "source": {}, "zz": True}],
                "resultExtra": "r",
            },
        ],
        recordExtra={"deep": [1, 2]},
        thinkingMetadata={"level": "high"},
    )
    rec["message"]["payloadExtra"] = None
    (u,) = m.from_builtins([rec])
    assert u.extra == {"recordExtra": {"deep": [1, 2]}}
    assert u.thinking_metadata == {"level": "high"}
    assert u.message.extra == {"payloadExtra": None}
    first, result = u.message.content
    assert first.extra == {"blockExtra": 1}
    assert result.extra == {"resultExtra": "r"}
    assert result.content[0].extra == {"innerExtra": [1, {"a": None}]}
    assert result.content[0].citations is None
    assert result.content[1].extra == {"zz": True}
    out = roundtrip([rec])
    assert out == [rec]
    assert_plain(out)
    assert json_roundtrip([rec]) == [rec]


def test_unknown_fields_in_a_tombstone_survive() -> None:
    # the removed record is kept as JSON, exactly (SPEC §1 asks only for its uuid)
    inner = assistant(
        [{"type": "tool_use", "id": "x", "name": "n", "input": {}, "caller": {"t": 1}}]
    )
    inner["innerRecordExtra"] = 5
    inner["message"]["newThing"] = "x"
    tomb = {"type": "tombstone", "message": inner, "tombExtra": True}
    (t,) = m.from_builtins([tomb])
    assert t.extra == {"tombExtra": True}
    assert t.message == inner
    assert roundtrip([tomb]) == [tomb]
    assert json_roundtrip([tomb]) == [tomb]


def test_unknown_fields_on_other_record_types_survive() -> None:
    records = [
        {
            "type": "system",
            "uuid": "s",
            "subtype": "x",
            "content": "c",
            "compactMetadata": {"a": 1},
        },
        {"type": "attachment", "uuid": "t", "attachment": {"type": "x", "k": [1]}, "other": 1},
        {"type": "progress", "uuid": "p", "data": 1, "toolUseID": "t", "more": "m"},
        {"type": "tool_use_summary", "uuid": "q", "summary": "", "precedingToolUseIds": [], "w": 0},
    ]
    structs = m.from_builtins(records)
    assert [s.extra for s in structs] == [
        {"compactMetadata": {"a": 1}},
        {"other": 1},
        {"more": "m"},
        {"w": 0},
    ]
    assert roundtrip(records) == records


def test_a_literal_extra_key_in_the_input_is_data_not_the_catch_all() -> None:
    rec = user([{"type": "text", "text": "t", "__extra__": {"x": 1}}], __extra__="literal")
    rec["message"]["__extra__"] = []
    (u,) = m.from_builtins([rec])
    assert u.extra == {"__extra__": "literal"}
    assert u.message.extra == {"__extra__": []}
    assert u.message.content[0].extra == {"__extra__": {"x": 1}}
    assert roundtrip([rec]) == [rec]
    assert json_roundtrip([rec]) == [rec]
    entry = {"type": "summary", "__extra__": {"not": "flattened"}}
    assert roundtrip([entry]) == [entry]
    block = {"type": "brand_new", "__extra__": {"not": "flattened"}}
    assert roundtrip([user([block])]) == [user([block])]


def test_catch_all_is_settable_and_encoded_flat() -> None:
    u = m.create_user_message("x", uuid="u", timestamp="t")
    u.extra["slugLike"] = "s"
    u.message.extra["p"] = 1
    out = m.to_builtins([u])[0]
    assert out["slugLike"] == "s"
    assert out["message"]["p"] == 1
    assert "__extra__" not in out and "__extra__" not in out["message"]
    assert json.loads(m.encode([u]))[0] == out


def test_msgspec_native_encoding_of_the_model_is_lossless_too() -> None:
    rec = user([{"type": "text", "text": "a", "b": 1}], c=2)
    structs = m.from_builtins([rec])
    wire = msgspec.json.encode(structs)
    assert json.loads(wire)[0]["__extra__"] == {"c": 2}
    assert msgspec.json.decode(wire, type=MESSAGE_LIST) == structs


# --------------------------------------------------------------------------- #
# Unknown blocks and entries
# --------------------------------------------------------------------------- #


def test_unknown_blocks_pass_through() -> None:
    weird = {"type": "container_upload", "file_id": "f", "nested": {"type": "text"}}
    inner_weird = {
        "type": "search_result",
        "source": "s",
        "content": [{"type": "text", "text": "x"}],
    }
    rec = assistant(
        [
            {"type": "text", "text": "a"},
            weird,
            {"type": "tool_result", "tool_use_id": "t", "content": [inner_weird]},
        ]
    )
    (a,) = m.from_builtins([rec])
    block = a.message.content[1]
    assert type(block) is m.UnknownBlock
    assert block == weird and block.type == "container_upload"
    assert block is not weird  # a copy: the input is not aliased
    nested = a.message.content[2].content[0]
    assert type(nested) is m.UnknownBlock and nested.type == "search_result"
    assert "UnknownBlock(" in repr(block)
    assert roundtrip([rec]) == [rec]
    assert json_roundtrip([rec]) == [rec]
    assert json.loads(msgspec.json.encode(a)) == rec  # a dict subclass encodes as itself


def test_unknown_block_in_a_tombstone() -> None:
    tomb = {"type": "tombstone", "message": assistant([{"type": "mystery", "v": 1}])}
    (t,) = m.from_builtins([tomb])
    assert t.message["message"]["content"] == [{"type": "mystery", "v": 1}]
    assert roundtrip([tomb]) == [tomb]


def test_entries_are_kept_in_place() -> None:
    records = [
        {"type": "summary", "summary": "s", "leafUuid": "l"},
        user("a"),
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        assistant([{"type": "unknown_kind"}], extraField=1),
        {"type": "queue-operation", "operation": "dequeue"},
    ]
    out = m.from_builtins(records)
    assert [type(r).__name__ for r in out] == [
        "Entry",
        "UserMessage",
        "Entry",
        "AssistantMessage",
        "Entry",
    ]
    assert out[0] == records[0] and out[0].type == "summary"
    assert out[0] is not records[0]
    assert "Entry(" in repr(out[0])
    assert type(out[3].message.content[0]) is m.UnknownBlock
    back = roundtrip(records)
    assert back == records
    assert_plain(back)
    assert json_roundtrip(records) == records


# --------------------------------------------------------------------------- #
# The example transcripts and the external corpus
# --------------------------------------------------------------------------- #

test_external_corpus = external.corpus_check
FILES = external.example_files() + external.corpus_files(recursive=False)

# The deliberately broken lines (0-based line numbers) and the path each error names.
BROKEN_LINES: dict[str, dict[int, str]] = {
    e.name: {i: f"records[0]{p}" for i, p in e.invalid} for e in session_trees.EXAMPLES
}
BROKEN_LINES["claude-code-log-edge_cases.jsonl"] = {  # the corpus's (its SOURCES.md)
    9: "records[0].message.content",  # "contenst"
    10: "records[0].message",  # message is a string
    12: "records[0]",  # a JSON string
    13: "records[0].type",  # no type
    14: "records[0]",  # 42
    15: "records[0]",  # [1]: an array of one record, 1
    17: "records[0].message.content[0]",  # bare string
}


def _json_lines(path: Path) -> list[tuple[int, bytes]]:
    """The lines of a file that are JSON (damaged.jsonl also has a cut line and two
    values on one line, which are the session reader's business, §8.1)."""
    out = []
    for lineno, line in enumerate(path.read_bytes().removeprefix(b"\xef\xbb\xbf").splitlines()):
        try:
            json.loads(line)
        except ValueError:
            continue
        out.append((lineno, line))
    return out


@pytest.mark.parametrize("path", FILES, ids=external.file_id)
def test_corpus_round_trip_every_well_formed_record(path: Path) -> None:
    checked = 0
    rejected: dict[int, str] = {}
    for lineno, line in _json_lines(path):
        try:
            records = m.decode(line)
        except m.RecordValidationError as e:
            rejected[lineno] = e.path
            continue
        original = json.loads(line)
        assert json.loads(m.encode(records)) == [original], lineno
        assert m.to_builtins(records) == [original], lineno
        assert m.from_builtins([original]) == records
        checked += 1
    assert rejected == BROKEN_LINES.get(path.name, {})
    assert checked >= 2


@pytest.mark.parametrize("path", FILES, ids=external.file_id)
def test_corpus_whole_files(path: Path) -> None:
    lines = [line for _, line in _json_lines(path)]
    values = [json.loads(line) for line in lines]
    text = b"\n".join(lines)
    broken = BROKEN_LINES.get(path.name)
    if broken:
        first = [i for i, _ in _json_lines(path)].index(min(broken))
        with pytest.raises(m.RecordValidationError) as e:
            m.decode(text)
        assert e.value.path == broken[min(broken)].replace("records[0]", f"records[{first}]")
        return
    records = m.decode(text)
    assert {"UserMessage", "AssistantMessage"} <= {type(r).__name__ for r in records}
    assert json.loads(m.encode(records)) == values
    assert m.decode(json.dumps(values)) == records


def test_the_files_hold_entries_too() -> None:
    kinds = {
        type(r).__name__
        for p in FILES
        if p.name not in BROKEN_LINES
        for r in m.decode(b"\n".join(line for _, line in _json_lines(p)))
    }
    assert {"UserMessage", "AssistantMessage", "Entry"} <= kinds


# --------------------------------------------------------------------------- #
# Error paths
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("records", "path"),
    [
        (["nope"], "records[0]"),
        ([user(), 3], "records[1]"),
        ([{"uuid": "x"}], "records[0].type"),
        ([{"type": 7}], "records[0].type"),
        ([{"type": "user", "message": {"role": "user", "content": "x"}}], "records[0].uuid"),
        ([user(), {"type": "user", "uuid": "u"}], "records[1].message"),
        ([user(5)], "records[0].message.content"),
        ([user({"a": 1})], "records[0].message.content"),
        ([user(["bare"])], "records[0].message.content[0]"),
        ([user([{"text": "no type"}])], "records[0].message.content[0].type"),
        ([user([{"type": 3}])], "records[0].message.content[0].type"),
        ([user([{"type": "text"}])], "records[0].message.content[0].text"),
        ([user([{"type": "text", "text": 1}])], "records[0].message.content[0].text"),
        (
            [user([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}])],
            "records[0].message.content[0].content[0].text",
        ),
        ([{"type": "user", "uuid": "u", "message": {"content": "x"}}], "records[0].message.role"),
        (
            [assistant("x") | {"message": {"role": 1, "content": "x"}}],
            "records[0].message.role",
        ),
        ([{"type": "system", "uuid": "s", "content": "c"}], "records[0].subtype"),
        (
            [{"type": "system", "uuid": "s", "subtype": "local_command", "content": None}],
            "records[0].content",
        ),
        ([{"type": "system", "subtype": "local_command", "content": "c"}], "records[0].uuid"),
        ([{"type": "attachment", "uuid": "a", "attachment": {}}], "records[0].attachment.type"),
        ([{"type": "attachment", "uuid": "a", "attachment": []}], "records[0].attachment"),
        ([{"type": "tombstone"}], "records[0].message"),
        # SPEC §1: a tombstone's message needs a string uuid (it is kept as JSON)
        ([{"type": "tombstone", "message": {"type": "assistant"}}], "records[0].message.uuid"),
        ([{"type": "tombstone", "message": {"uuid": 5}}], "records[0].message.uuid"),
        ([{"type": "tombstone", "message": "x"}], "records[0].message"),
        # entries before the bad record do not shift its index
        ([{"type": "summary"}, user(), {"type": "summary"}, user(None, uuid=3)], "records[3].uuid"),
        (
            [{"type": "summary"}, user([{"type": "text", "text": 1, "x": 1}])],
            "records[1].message.content[0].text",
        ),
    ],
)
def test_invalid_records_name_the_path(records: list[Any], path: str) -> None:
    with pytest.raises(ValueError) as info:
        m.from_builtins(records)
    err = info.value
    assert isinstance(err, m.RecordValidationError)
    assert err.path == path
    assert str(err).startswith(path + ": ")
    assert err.index == int(re.match(r"records\[(\d+)\]", path).group(1))  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "record",
    [
        # SPEC §1: "a field this table does not require is never checked"
        assistant("x") | {"message": {"role": "user", "content": "x"}},
        user(isMeta="yes"),
        user(cwd=5, parentUuid=[1], isSidechain="no", timestamp=0),
        assistant([{"type": "text", "text": "t", "citations": 3}], requestId=5),
        assistant([{"type": "tool_use", "id": "t", "name": 5, "input": 1}]),
        assistant([{"type": "thinking", "thinking": 1, "signature": None}]),
        user([{"type": "web_search_tool_result", "tool_use_id": "t"}]),
        {"type": "tombstone", "message": {"uuid": "a"}, "uuid": 5},
    ],
)
def test_fields_spec_does_not_require_are_not_checked(record: dict[str, Any]) -> None:
    """What every other function accepts, the typed model accepts, and keeps."""
    assert m.to_builtins(m.from_builtins([record])) == [record]
    assert m.to_builtins(m.decode(json.dumps([record]).encode())) == [record]
    assert msgnorm.count_tokens([record]) == msgnorm.count_tokens(m.from_builtins([record]))


def test_from_builtins_accepts_any_iterable_and_dict_subclasses() -> None:
    from collections import OrderedDict

    records = (r for r in [OrderedDict(user("x")), m.Entry({"type": "summary"})])
    out = m.from_builtins(records)
    assert type(out[0]) is m.UserMessage and type(out[1]) is m.Entry
    assert m.from_builtins([]) == []


def test_decode_json_errors_give_line_and_column() -> None:
    with pytest.raises(m.TranscriptDecodeError) as info:
        m.decode(b'{"type": "summary"}\n{"type": \n{"type": "summary"}\n')
    assert (info.value.lineno, info.value.colno) == (2, 10)  # the end of the truncated line
    assert isinstance(info.value, ValueError)
    assert "line 2 column 10" in str(info.value)
    with pytest.raises(m.TranscriptDecodeError) as info:
        m.decode(b'{"a": 1}\n\n{"b" 2}\n')
    assert (info.value.lineno, info.value.colno) == (3, 6)
    with pytest.raises(m.TranscriptDecodeError) as info:
        m.decode('[\n  {"type": "summary"},\n  {"type" "x"}\n]')
    assert (info.value.lineno, info.value.colno) == (3, 11)  # at the "x"
    with pytest.raises(m.TranscriptDecodeError) as info:
        m.decode('[{"type": "summary"},\n')
    assert (info.value.lineno, info.value.colno) == (2, 1)  # truncated: at the end
    with pytest.raises(m.TranscriptDecodeError) as info:
        m.decode(b'{"a": 1} x')
    assert (info.value.lineno, info.value.colno) == (1, 10)


def test_first_invalid_record_is_reported() -> None:
    records = [user(), user(None, uuid=1), "not an object", {"type": "attachment", "uuid": "a"}]
    with pytest.raises(m.RecordValidationError) as info:
        m.from_builtins(records)
    assert info.value.path == "records[1].uuid"
    with pytest.raises(m.RecordValidationError) as info:
        m.from_builtins(records[2:])
    assert info.value.path == "records[0]"


def test_decode_forms() -> None:
    records = [user("a"), {"type": "summary", "summary": "s"}]
    lines = "\n\n".join(json.dumps(r) for r in records) + "\n"
    for data in (lines, lines.encode(), bytearray(lines.encode()), memoryview(lines.encode())):
        assert m.to_builtins(m.decode(data)) == records
    assert m.to_builtins(m.decode("  \n" + json.dumps(records))) == records
    assert m.decode(b"[]") == []
    # Empty input is not JSON, for decode as for every function that reads JSON text.
    for empty in (b"", " \n", b"\n\n"):
        with pytest.raises(msgnorm.JSONDecodeError) as info:
            m.decode(empty)
        with pytest.raises(msgnorm.JSONDecodeError) as same:
            msgnorm.normalize_for_api(empty)
        assert str(info.value) == str(same.value)
    # JSON Lines whose first line is an array: an array is not an object
    with pytest.raises(m.RecordValidationError, match=r"^records\[0\]: "):
        m.decode(b'[1]\n{"type": "summary"}\n')
    assert m.encode([]) == b"[]"


# --------------------------------------------------------------------------- #
# Factories
# --------------------------------------------------------------------------- #


def test_create_user_message() -> None:
    u = m.create_user_message("hello")
    assert type(u) is m.UserMessage
    assert UUID4.match(u.uuid) and uuid_mod.UUID(u.uuid).version == 4
    assert TIMESTAMP.match(u.timestamp)
    assert u.message == m.UserPayload(role="user", content="hello")
    assert u.is_meta is m.UNSET
    out = m.to_builtins([u])[0]
    assert set(out) == {"type", "uuid", "timestamp", "message"}
    assert out["type"] == "user"
    meta = m.create_user_message(
        [m.TextBlock(text="x")],
        is_meta=True,
        is_virtual=True,
        is_compact_summary=True,
        tool_use_result={"r": 1},
        source_tool_assistant_uuid="src",
        parent_uuid=None,
        uuid="fixed",
        timestamp="2025-01-01T00:00:00.000Z",
    )
    out = m.to_builtins([meta])[0]
    assert out == {
        "type": "user",
        "uuid": "fixed",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "parentUuid": None,
        "isMeta": True,
        "isVirtual": True,
        "isCompactSummary": True,
        "toolUseResult": {"r": 1},
        "sourceToolAssistantUUID": "src",
        "message": {"role": "user", "content": [{"type": "text", "text": "x"}]},
    }
    assert m.create_user_message("").message.content == "(no content)"
    assert m.create_user_message(None).message.content == "(no content)"
    assert m.create_user_message([]).message.content == [m.TextBlock(text="(no content)")]
    assert m.create_user_message("a").uuid != m.create_user_message("a").uuid


def test_create_assistant_message() -> None:
    a = m.create_assistant_message("answer")
    assert type(a) is m.AssistantMessage
    assert UUID4.match(a.uuid) and TIMESTAMP.match(a.timestamp)
    assert a.message.content == [m.TextBlock(text="answer")]
    out = m.to_builtins([a])[0]
    msg = out["message"]
    assert UUID4.match(msg["id"]) and msg["id"] != a.uuid
    assert msg["model"] == "<synthetic>"
    assert msg["role"] == "assistant"
    assert msg["type"] == "message"
    assert msg["stop_reason"] == "stop_sequence"
    assert msg["stop_sequence"] == ""
    assert msg["usage"]["input_tokens"] == 0 and msg["usage"]["output_tokens"] == 0
    assert msg["usage"]["cache_creation_input_tokens"] == 0
    assert msg["usage"]["cache_read_input_tokens"] == 0
    assert out["isApiErrorMessage"] is False
    assert "isVirtual" not in out
    assert m.create_assistant_message("").message.content == [m.TextBlock(text="(no content)")]
    assert m.create_assistant_message([]).message.content == [m.TextBlock(text="(no content)")]
    blocks = [m.ToolUseBlock(id="t", name="n", input={})]
    err = m.create_assistant_message(
        blocks, is_api_error_message=True, is_virtual=True, usage={"input_tokens": 5}, uuid="u"
    )
    assert err.message.content == blocks and err.message.content is not blocks
    assert err.uuid == "u" and err.is_api_error_message is True and err.is_virtual is True
    assert err.message.usage == {"input_tokens": 5}
    # two messages never share the usage dict
    assert m.create_assistant_message("a").message.usage is not a.message.usage


def test_create_system_message() -> None:
    s = m.create_system_message("note", "warning")
    assert type(s) is m.SystemMessage
    assert UUID4.match(s.uuid) and TIMESTAMP.match(s.timestamp)
    out = m.to_builtins([s])[0]
    assert out["type"] == "system" and out["subtype"] == "informational"
    assert out["content"] == "note" and out["level"] == "warning" and out["isMeta"] is False
    assert "toolUseID" not in out
    assert m.create_system_message("x").level == "info"
    assert m.create_system_message("x", "error", tool_use_id="t").tool_use_id == "t"
    assert m.create_system_message("x", subtype="local_command").subtype == "local_command"
    with pytest.raises(ValueError, match="level"):
        m.create_system_message("x", "loud")


def test_create_progress_message() -> None:
    p = m.create_progress_message("t1", None, {"type": "bash_progress"})
    assert type(p) is m.ProgressMessage
    out = m.to_builtins([p])[0]
    assert out["type"] == "progress" and out["toolUseID"] == "t1"
    assert out["parentToolUseID"] is None and out["data"] == {"type": "bash_progress"}
    assert UUID4.match(out["uuid"]) and TIMESTAMP.match(out["timestamp"])
    assert m.create_progress_message("t1", "t0", 1).parent_tool_use_id == "t0"


def test_create_tool_use_summary_message() -> None:
    ids = ("a", "b")
    s = m.create_tool_use_summary_message("Read 2 files", ids)
    assert type(s) is m.ToolUseSummaryMessage
    out = m.to_builtins([s])[0]
    assert out["type"] == "tool_use_summary" and out["summary"] == "Read 2 files"
    assert out["precedingToolUseIds"] == ["a", "b"]
    assert UUID4.match(out["uuid"]) and TIMESTAMP.match(out["timestamp"])


def test_create_attachment_message() -> None:
    a = m.create_attachment_message({"type": "date", "date": "today"}, uuid="x")
    assert type(a) is m.AttachmentMessage and a.uuid == "x"
    assert m.to_builtins([a])[0]["attachment"] == {"type": "date", "date": "today"}
    with pytest.raises(ValueError):
        m.create_attachment_message({"date": "today"})


def test_create_tombstone() -> None:
    a = m.create_assistant_message("x")
    t = m.create_tombstone(a)
    assert type(t) is m.TombstoneMessage and t.message == m.to_builtins([a])[0]
    out = m.to_builtins([t])[0]
    assert out["type"] == "tombstone" and out["message"]["uuid"] == a.uuid
    assert out["message"]["type"] == "assistant"
    assert m.from_builtins([out]) == [t]
    with pytest.raises(TypeError):
        m.create_tombstone(m.create_user_message("x"))


def test_factory_output_round_trips() -> None:
    made = [
        m.create_user_message("u"),
        m.create_assistant_message("a"),
        m.create_system_message("s"),
        m.create_progress_message("t", None, {}),
        m.create_tool_use_summary_message("s", ["t"]),
        m.create_attachment_message({"type": "x"}),
    ]
    made.append(m.create_tombstone(made[1]))
    assert m.from_builtins(m.to_builtins(made)) == made
    assert m.decode(m.encode(made)) == made


# --------------------------------------------------------------------------- #
# is_synthetic_message
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("text", sorted(m.SYNTHETIC_MESSAGES))
def test_is_synthetic_message_true(text: str) -> None:
    assert m.is_synthetic_message(user(text))
    assert m.is_synthetic_message(
        user([{"type": "text", "text": text}, {"type": "text", "text": "b"}])
    )
    assert m.is_synthetic_message(assistant([{"type": "text", "text": text}]))
    assert m.is_synthetic_message(m.create_user_message(text))
    assert m.is_synthetic_message(m.create_assistant_message(text))
    assert m.is_synthetic_message(m.from_builtins([user([{"type": "text", "text": text}])])[0])


def test_is_synthetic_message_false() -> None:
    text = m.INTERRUPT_MESSAGE
    assert not m.is_synthetic_message(user("hello"))
    assert not m.is_synthetic_message(user(text + " "))
    assert not m.is_synthetic_message(
        user([{"type": "text", "text": "a"}, {"type": "text", "text": text}])
    )
    assert not m.is_synthetic_message(
        user([{"type": "tool_result", "tool_use_id": "t", "content": text}])
    )
    assert not m.is_synthetic_message(user([]))
    assert not m.is_synthetic_message(user(None))
    assert not m.is_synthetic_message(
        {"type": "system", "content": text, "message": {"content": text}}
    )
    assert not m.is_synthetic_message(m.create_system_message(text))
    assert not m.is_synthetic_message({"type": "user", "message": "broken"})
    assert not m.is_synthetic_message(m.Entry({"type": "summary", "summary": text}))
    assert not m.is_synthetic_message(
        m.create_user_message([m.UnknownBlock({"type": "x", "text": text})])
    )
    assert not m.is_synthetic_message("not a record")


# --------------------------------------------------------------------------- #
# Conversions: plumbing
# --------------------------------------------------------------------------- #


def test_to_builtins_returns_fresh_plain_containers() -> None:
    rec = user([{"type": "text", "text": "a", "x": {"y": [1]}}], z={"w": 1})
    structs = m.from_builtins([rec])
    out = m.to_builtins(structs)
    assert_plain(out)
    out[0]["z"]["w"] = 2
    out[0]["message"]["content"][0]["text"] = "changed"
    assert structs[0].message.content[0].text == "a"
    assert m.to_builtins(structs) != out


def test_plain_dicts_among_structs_pass_through() -> None:
    raw_block = {"type": "text", "text": "given as a dict"}
    u = m.create_user_message([raw_block, m.TextBlock(text="b", extra={"x": 1})], uuid="u")
    plain = user("plain", anything={"k": 1})
    out = m.to_builtins([u, plain])
    assert out[0]["message"]["content"] == [raw_block, {"type": "text", "text": "b", "x": 1}]
    assert out[1] == plain and out[1] is not plain
    assert json.loads(m.encode([u, plain])) == out


def test_garbage_collector_state_is_restored() -> None:
    records = [user("x", more=1)]
    assert gc.isenabled()
    m.to_builtins(m.from_builtins(records))
    m.encode(m.decode(json.dumps(records)))
    assert gc.isenabled()
    with pytest.raises(ValueError):
        m.from_builtins([user(5)])
    assert gc.isenabled()
    gc.disable()
    try:
        m.to_builtins(m.from_builtins(records))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_structs_are_equal_after_a_round_trip() -> None:
    records = [user("a", k=1), assistant([{"type": "zz", "q": 1}]), {"type": "summary"}]
    structs = m.from_builtins(records)
    assert m.from_builtins(m.to_builtins(structs)) == structs
    assert m.decode(m.encode(structs)) == structs


def test_clean_input_is_converted_without_copies() -> None:
    rec = assistant([{"type": "tool_use", "id": "t", "name": "n", "input": {"big": [1, 2]}}])
    (a,) = m.from_builtins([rec])
    assert a.message.content[0].input is rec["message"]["content"][0]["input"]


# --------------------------------------------------------------------------- #
# Property: arbitrary unknown fields and blocks survive
# --------------------------------------------------------------------------- #

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ALL_NAMED = (
    set().union(*m._RECORD_KEYS.values(), *m._BLOCK_KEYS.values())
    | m._USER_PAYLOAD_KEYS
    | m._ASSISTANT_PAYLOAD_KEYS
)
extra_fields = st.dictionaries(
    st.text(max_size=10).filter(lambda k: k not in ALL_NAMED) | st.just("__extra__"),
    json_values,
    max_size=3,
)
unknown_blocks = st.builds(
    lambda t, rest: {**rest, "type": t},
    st.text(min_size=1, max_size=12).filter(lambda t: t not in m._BLOCK_KEYS),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3),
)


@st.composite
def known_blocks(draw: st.DrawFn, nested: bool = True) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["text", "tool_use", "tool_result", "image"] if nested else ["text", "image"]
        )
    )
    if kind == "text":
        block: dict[str, Any] = {"type": "text", "text": draw(st.text(max_size=5))}
    elif kind == "tool_use":
        block = {"type": "tool_use", "id": "i", "name": "n", "input": draw(json_values)}
    elif kind == "image":
        block = {"type": "image", "source": draw(json_values)}
    else:
        inner = draw(st.lists(known_blocks(nested=False) | unknown_blocks, max_size=3))
        block = {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": draw(st.just(inner) | st.text()),
        }
    block.update(draw(extra_fields))
    return block


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["user", "assistant", "summary", "system", "tombstone"]))
    if kind == "summary":
        return {
            **draw(st.dictionaries(st.text(max_size=6), json_values, max_size=3)),
            "type": "summary",
        }
    if kind == "system":
        rec: dict[str, Any] = {"type": "system", "uuid": "s", "subtype": "x"}
        rec["content"] = draw(st.text(max_size=5))
        rec.update(draw(extra_fields))
        return rec
    content = draw(
        st.lists(known_blocks() | unknown_blocks, max_size=4) | st.text(max_size=5) | st.none()
    )
    role = "assistant" if kind == "tombstone" else kind
    message: dict[str, Any] = {"role": role, "content": content, **draw(extra_fields)}
    record: dict[str, Any] = {"type": role, "uuid": "u", "message": message}
    record.update(draw(extra_fields))
    if kind == "tombstone":
        record = {"type": "tombstone", "message": record, **draw(extra_fields)}
    return record


@settings(max_examples=300, deadline=None)
@given(st.lists(records(), max_size=5))
def test_property_lossless_round_trip(recs: list[dict[str, Any]]) -> None:
    assert roundtrip(recs) == recs
    assert json.loads(m.encode(m.decode(msgspec.json.encode(recs)))) == recs
    structs = m.from_builtins(recs)
    assert m.from_builtins(m.to_builtins(structs)) == structs
