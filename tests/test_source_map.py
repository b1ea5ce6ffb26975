"""``source_map=True``: for each output record, the input records it came from
(docs/SESSIONS.md "Source map"), and from there the transcript line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest


def user(text: Any, uuid: str) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": text}}


def asst(blocks: list[dict[str, Any]], uuid: str, mid: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": uuid,
        "message": {"role": "assistant", "id": mid, "content": blocks},
    }


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


RECORDS: list[dict[str, Any]] = [
    asst([text("hello first")], "a0", "m0"),  # 0: a user record is inserted before it
    user("one", "u1"),  # 1
    {"type": "system", "subtype": "turn_duration", "uuid": "s2", "content": "x"},  # 2: dropped
    user("two", "u3"),  # 3: merged into 1
    asst([text("part a")], "a4", "m4"),  # 4
    asst([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}], "a5", "m4"),  # 5: joined
    {"type": "progress", "uuid": "p6"},  # 6: dropped
    user([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}], "u7"),  # 7
    asst([{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}], "a8", "m8"),  # 8
]
WANT = [[], [0], [1, 3], [4, 5], [7], [8], []]


@pytest.mark.parametrize("kind", ["dicts", "bytes", "str", "structs"])
def test_each_output_record_names_its_input_records(kind: str) -> None:
    data: Any = RECORDS
    if kind == "bytes":
        data = json.dumps(RECORDS).encode()
    elif kind == "str":
        data = json.dumps(RECORDS)
    elif kind == "structs":
        data = msgnorm.from_builtins(RECORDS)
    out, report = msgnorm.normalize_for_api_report(data, source_map=True)
    assert report["source_map"] == WANT
    n = len(json.loads(out)) if isinstance(out, (bytes, str)) else len(out)
    assert n == len(WANT)
    # the counts are the same as without a source map
    _, plain = msgnorm.normalize_for_api_report(data)
    assert {k: v for k, v in report.items() if k != "source_map"} == plain
    assert "source_map" not in plain


def test_options_are_passed_on() -> None:
    _, report = msgnorm.normalize_for_api_report(RECORDS, source_map=True, ensure_user_first=False)
    assert report["source_map"] == WANT[1:]
    with pytest.raises(msgnorm.MsgnormError, match="source_map must be a bool"):
        msgnorm.normalize_for_api_report(RECORDS, source_map="yes")  # type: ignore[arg-type]


def test_a_provider_error_index_leads_to_the_transcript_line(tmp_path: Path) -> None:
    lines = [
        {"type": "summary", "summary": "t", "leafUuid": "x"},
        {**user("first", "u1"), "parentUuid": None},
        {**asst([text("a")], "a1", "m1"), "parentUuid": "u1"},
        {**user("again", "u2"), "parentUuid": "a1"},
        {**user("and again", "u3"), "parentUuid": "u2"},
        {**asst([text("b")], "a2", "m2"), "parentUuid": "u3"},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    s = msgnorm.load_session(path)
    _, report = msgnorm.normalize_for_api_report(s.records, source_map=True)
    # messages[2] holds records 2 and 3 of the thread: lines 4 and 5 of the file
    assert report["source_map"][2] == [2, 3]
    assert [s.origins[i] for i in report["source_map"][2]] == [(str(path), 4), (str(path), 5)]
