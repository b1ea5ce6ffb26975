"""``source_map=True``: for each output record, the input records it came from
(docs/SPEC.md §8.8), and from there the transcript line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from hypothesis import given, settings
from support import strategies as S


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
    # like the other flags, any truthy value turns it on
    assert "source_map" in msgnorm.normalize_for_api_report(RECORDS, source_map=1)[1]
    assert "source_map" not in msgnorm.normalize_for_api_report(RECORDS, source_map=0)[1]


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


CONVERSATION: list[dict[str, Any]] = [
    {"type": "system", "subtype": "system_prompt", "uuid": "s0", "role": "system", "content": "hi"},
    user("first", "u1"),  # 1
    {"type": "progress", "uuid": "p2"},  # 2
    asst(
        [
            text("calling"),
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {}},
        ],
        "a3",
        "m3",
    ),  # 3
    user(
        [
            {"type": "tool_result", "tool_use_id": "t1", "content": "1"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "2"},
        ],
        "u4",
    ),  # 4
    user("and then", "u5"),  # 5: merged into 4
    asst([text("one")], "a6", "m6"),  # 6
    asst([text("two")], "a7", "m7"),  # 7: a second reply in a row
    user("bye", "u8"),  # 8
]


def ids_in(m: Any) -> set[str]:
    """Tool call ids anywhere in a provider message."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("id", "call_id", "tool_call_id", "tool_use_id", "toolUseId") and (
                    isinstance(x, str) and x.startswith("t")
                ):
                    found.add(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(m)
    return found


def record_ids(i: int) -> set[str]:
    return ids_in(CONVERSATION[i])


@pytest.mark.parametrize(
    "target", ["anthropic", "openai-chat", "openai-responses", "gemini", "bedrock"]
)
def test_every_provider_message_names_the_records_it_came_from(target: str) -> None:
    out, report = msgnorm.to_provider_report(CONVERSATION, target, source_map=True)
    msgs = out if isinstance(out, list) else out.get("messages", out.get("contents"))
    smap = report["source_map"]
    assert len(smap) == len(msgs)
    # every record that is sent is named, in order; the progress record never is
    flat = [i for s in smap for i in s]
    firsts = [s[0] for s in smap if s]
    assert firsts == sorted(firsts) and 2 not in flat
    assert {1, 3, 4, 5, 8} <= set(flat)
    for m, src in zip(msgs, smap, strict=True):
        # a message's tool ids are those of the records it names
        assert ids_in(m) <= set().union(*(record_ids(i) for i in src)) if src else True
        if isinstance(m, dict) and m.get("role") in ("system", "developer"):
            assert src == [0]
    # the counts are as without a source map
    _, plain = msgnorm.to_provider_report(CONVERSATION, target)
    assert {k: v for k, v in report.items() if k != "source_map"} == plain


def test_joined_replies_name_both_records() -> None:
    # Gemini and Bedrock join the two replies in a row into one turn
    for target in ("gemini", "bedrock"):
        _, report = msgnorm.to_provider_report(CONVERSATION, target, source_map=True)
        assert report["messages_merged"] == 1
        assert report["source_map"] == [[1], [3], [4, 5], [6, 7], [8]]
    _, report = msgnorm.to_provider_report(CONVERSATION, "anthropic", source_map=True)
    assert report["source_map"] == [[1], [3], [4, 5], [6], [7], [8]]


def test_without_normalization_and_bad_arguments() -> None:
    sent = [r for r in CONVERSATION if r["type"] != "progress"]
    _, report = msgnorm.to_provider_report(
        sent[:4], "openai-chat", normalize=False, source_map=True
    )
    assert report["source_map"] == [[0], [1], [2], [3], [3]]
    with pytest.raises(msgnorm.MsgnormError, match="framework"):
        msgnorm.to_provider_report(sent, "langchain", source_map=True)


@settings(deadline=None)
@given(records=S.histories(), opts=S.api_options())
def test_source_map_properties(records: list[dict[str, Any]], opts: dict[str, Any]) -> None:
    try:
        out, report = msgnorm.normalize_for_api_report(records, source_map=True, **opts)
    except msgnorm.MsgnormError:
        return  # strict mode refused it: no output to map
    smap = report["source_map"]
    assert len(smap) == len(out)
    flat = [i for s in smap for i in s]
    # every input record is in one output record at most, and order is kept
    assert len(flat) == len(set(flat))
    assert all(0 <= i < len(records) for i in flat)
    firsts = [s[0] for s in smap if s]
    assert firsts == sorted(firsts)
    for o, src in zip(out, smap, strict=True):
        assert src == sorted(src)
        if src:
            # the output record's uuid is one of its sources'
            assert o["uuid"] in {records[i].get("uuid") for i in src}
