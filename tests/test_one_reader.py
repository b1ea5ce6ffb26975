"""SPEC §1: JSON bytes and Python objects are read by one reader, so a record
breaking several rules at once reports the same first error for both."""

from __future__ import annotations

import json
from typing import Any

import msgnorm
import pytest
from support.helpers import asst, text, user

OK_USER = user("u0", "hi")


def error_of(records: Any) -> tuple[str, int, str]:
    with pytest.raises(msgnorm.InvalidRecordError) as info:
        msgnorm.normalize_for_api(records)
    return str(info.value), info.value.index, info.value.path


CASES = [
    # role and a block both wrong: the block, met while reading content, is first
    (
        {"type": "user", "uuid": "u", "message": {"role": 1, "content": [{"type": 5}]}},
        "records[1].message.content[0].type",
    ),
    # an attachment without a type: the field is missing (not of the wrong kind)
    (
        {"type": "attachment", "uuid": "t", "attachment": {"date": "x"}},
        "records[1].attachment.type",
    ),
    # a tool_result whose content comes before its type (read once the type is known)
    (
        user("u", [{"content": [{"type": 5}], "type": "tool_result", "tool_use_id": "t"}]),
        "records[1].message.content[0].content[0].type",
    ),
    # a message before the record's type (read once the type is known)
    (
        {
            "message": {"role": "assistant", "content": [text("x"), {"type": "text"}]},
            "type": "assistant",
            "uuid": "a",
        },
        "records[1].message.content[1].text",
    ),
    # a bad tool_result content is reported after its missing tool_use_id (A2)
    (
        user("u", [{"type": "tool_result", "content": 5}]),
        "records[1].message.content[0].tool_use_id",
    ),
    # §6 is read only when counting; validation is the same either way
    (
        asst("a", [{"type": "thinking", "thinking": 1}, {"type": "text"}]),
        "records[1].message.content[1].text",
    ),
]


@pytest.mark.parametrize(("record", "path"), CASES)
def test_bytes_and_dicts_report_the_same_first_error(record: Any, path: str) -> None:
    records = [OK_USER, record]
    from_dicts = error_of(records)
    from_bytes = error_of(json.dumps(records).encode())
    assert from_dicts == from_bytes
    assert from_dicts[1:] == (1, path)
    # JSON Lines names the line too, after the same message
    lines = "\n".join(json.dumps(r) for r in records).encode()
    msg, index, got = error_of(lines)
    assert (msg, index, got) == (f"{from_dicts[0]} (line 2)", 1, path)


def test_counting_reads_the_same_records() -> None:
    # §6 costs come from the same reader for both kinds
    records = [
        OK_USER,
        asst(
            "a",
            [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "tool_use", "id": "t1", "name": "grep", "input": {"q": ["a", 1, None]}},
                {"type": "mcp_tool_use", "id": "m1", "name": "x", "server_name": "s", "input": {}},
            ],
        ),
        user(
            "u",
            [
                {"content": "ok", "type": "tool_result", "tool_use_id": "t1"},
                {
                    "type": "document",
                    "source": {"data": "abcdef", "type": "text", "media_type": "text/plain"},
                },
            ],
        ),
    ]
    assert msgnorm.count_tokens_per_record(records) == msgnorm.count_tokens_per_record(
        json.dumps(records).encode()
    )


def test_a_large_history_gives_one_output_on_every_kind() -> None:
    # 20,000 records: the records' array and the output are over 4 MiB, the
    # size from which (on Linux) they are mapped in huge pages and grown
    # without a copy, and the output bytes are advised before they are zeroed.
    from support import generate

    data = generate.generate_bytes(20_000, seed=4)
    out = msgnorm.normalize_for_api(data)
    assert len(out) > 4 << 20
    from_dicts = msgnorm.normalize_for_api(json.loads(data))
    assert json.loads(out) == from_dicts
    assert msgnorm.normalize_for_api(data.decode()) == out.decode()
    lines = b"\n".join(json.dumps(r).encode() for r in json.loads(data))
    assert json.loads(msgnorm.normalize_for_api(lines)) == from_dicts
