"""Regressions of ``Conversation`` found while testing other features.

``api_bytes`` (``for_api``) used to put the closing ``]`` in place of the settled
part's last separator; when the open tail was empty at that moment (everything
settled), the ``]`` stayed inside the settled buffer, so the next append produced
``...}]{...`` (malformed JSON), and ``json_range`` and ``to_bytes`` carried it too.
Found by tests/test_conversation.py::test_hypothesis_histories; the history below
(from hypothesis) reaches an empty tail with a record still to come.
"""

from __future__ import annotations

import json

import msgnorm
import msgspec
import pytest
from support.helpers import asst, user

HISTORY = json.loads(
    '[{"type": "tombstone", "message": {"uuid": "gone-uuid", "role": "assistant", "content": []}}, {"type": "attachment", "uuid": "000022f4-0001-4abc-8def-000000001eef", "parentUuid": null, "sessionId": "s1", "timestamp": "2025-01-01T00:00:01Z", "attachment": {"type": "todo", "item": "ok", "count": 1.5}}, {"type": "system", "uuid": "000022f4-0002-4abc-8def-000000003dde", "parentUuid": "000022f4-0001-4abc-8def-000000001eef", "sessionId": "s1", "subtype": "local_command", "content": "", "level": "info", "isMeta": false}, {"type": "assistant", "uuid": "000022f4-0003-4abc-8def-000000005ccd", "parentUuid": "000022f4-0002-4abc-8def-000000003dde", "sessionId": "s1", "message": {"role": "assistant", "content": [{"type": "text", "text": "API Error: 529 overloaded"}], "type": "message", "id": "msg_01", "model": "claude-sonnet-4-5"}, "requestId": "req_1", "isApiErrorMessage": true}, {"type": "user", "uuid": "000022f4-0004-4abc-8def-000000007bbc", "parentUuid": "000022f4-0003-4abc-8def-000000005ccd", "sessionId": "s1", "message": {"role": "user", "content": "\\u00a5E\\n"}}, {"type": "tombstone", "message": {"uuid": "000022f4-0004-4abc-8def-000000007bbc", "role": "assistant", "content": []}}, {"type": "user", "uuid": "000022f4-0005-4abc-8def-000000009aab", "parentUuid": "000022f4-0004-4abc-8def-000000007bbc", "sessionId": "s1", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_unknown", "content": "\\u4e2d{"}]}, "toolUseResult": {"stdout": "ok", "n": 1}, "sourceToolAssistantUUID": "000022f4-0004-4abc-8def-000000007bbc"}]'
)


def test_for_api_with_an_empty_tail_then_more_records() -> None:
    lines = [msgspec.json.encode(r) for r in HISTORY]
    conv = msgnorm.Conversation(kind="bytes")
    empty_tail_seen = False
    for i, line in enumerate(lines):
        conv.append(line)
        want = msgnorm.normalize_for_api(b"[" + b",".join(lines[: i + 1]) + b"]")
        assert conv.for_api() == want
        assert conv.for_api() == want  # twice: the second call sees the first's `]`
        assert conv.trim_to_budget(10**12) == want  # json_range(0, len)
        again = msgnorm.Conversation.from_bytes(conv.to_bytes(), kind="bytes")
        assert again.for_api() == want
        empty_tail_seen |= 0 < conv.settled_len == len(conv)
    # The tail emptied when the tombstone removed the settling prompt; since such a
    # tombstone rewrites (test_a_tombstone_naming_the_settling_prompt_rewrites),
    # the conversation settles anew instead.
    assert empty_tail_seen or conv.rewrites == 1


def test_a_tool_use_id_in_a_settled_user_record_does_not_hide_a_later_call() -> None:
    """§4 step 5 removes repeated tool_use ids of assistant records only: a user
    record that holds a tool_use block (kept as it is) and has settled must not
    make the conversation drop a later assistant's call with the same id (found by
    the conversation fuzz target, after a save and restore)."""
    recs = [
        user("u0", "hi"),
        {
            "type": "user",
            "uuid": "u1",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "odd"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                ],
            },
        },
        asst("a1", "ok"),
        user("u2", "next"),
        asst("a2", "sure"),
        user("u3", "go"),
    ]
    later = [
        {
            "type": "assistant",
            "uuid": "a3",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
        }
    ]
    conv = msgnorm.Conversation(recs, kind="dicts")
    assert conv.for_api() == msgnorm.normalize_for_api(recs)
    assert conv.settled_len > 2  # the odd user record has settled
    for c in (conv, msgnorm.Conversation.from_bytes(conv.to_bytes(), kind="dicts")):
        c.append(later)
        assert c.for_api() == msgnorm.normalize_for_api(recs + later)


def test_records_that_span_lines_in_a_json_array() -> None:
    """A pretty-printed JSON array (records over several lines) is kept as it is
    and comes back byte for byte as the batch call gives it, also after a save."""
    recs = [
        user("u", "hi"),
        asst("a", "yo"),
        user("v", "more"),
    ]
    conv = msgnorm.Conversation(kind="bytes")
    for i in range(len(recs)):
        data = json.dumps(recs[: i + 1], indent=2).encode()
        if i:
            conv.append(json.dumps(recs[i : i + 1], indent=2).encode())
        else:
            conv.append(data)
        assert conv.for_api() == msgnorm.normalize_for_api(data)
    again = msgnorm.Conversation.from_bytes(conv.to_bytes(), kind="bytes")
    assert again.for_api() == conv.for_api()


def test_a_tombstone_naming_the_settling_prompt_rewrites() -> None:
    """The settled part ends before a turn start; a later tombstone that removes
    that turn start leaves the settled part's last reply the last record, which
    §4 steps 8-9 treat differently: the conversation normalizes again (a rewrite)
    and still equals the batch call (found by the conversation fuzz target)."""
    recs = [
        user("u0", "hi"),
        asst("a0", None),
        user("p", "go on"),
        asst("a1", "ok"),
    ]
    conv = msgnorm.Conversation(recs, kind="dicts")
    assert conv.for_api() == msgnorm.normalize_for_api(recs)
    assert conv.settled_len == 2
    more = [
        {"type": "tombstone", "message": {"uuid": "p"}},
        {"type": "tombstone", "message": {"uuid": "a1"}},
    ]
    conv.append(more)
    assert conv.for_api() == msgnorm.normalize_for_api(recs + more)
    assert conv.rewrites == 1


def test_strict_error_when_a_tombstone_frees_a_settled_record() -> None:
    """In strict mode the open tail may raise (a result repeated in its last
    record) while the whole history raises earlier: a tombstone in the same tail
    removes a settled call, so its result becomes an orphan. The conversation
    checks tombstones naming settled records before running the tail, so it
    raises what the batch call raises (found by test_hypothesis_histories)."""

    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    settled = [
        user("u0", "go"),
        asst("a1", [call], mid="m1"),
        user("r1", [result]),
        asst("a2", [{"type": "text", "text": "done"}], mid="m2"),
        user("u2", "next"),
        asst("a3", [{"type": "text", "text": "ok"}], mid="m3"),
        user("u3", "and again"),
    ]
    conv = msgnorm.Conversation(settled, kind="dicts", strict=True)
    assert conv.for_api() == msgnorm.normalize_for_api(settled, strict=True)
    assert conv.settled_len > 3  # the call and its result are settled
    tail = [
        asst("a4", [{**call, "id": "t2"}], mid="m4"),
        user("r4", [{**result, "tool_use_id": "t2"}, {**result, "tool_use_id": "t2"}]),
        {"type": "tombstone", "message": {"uuid": "a1"}},
    ]
    conv.append(tail)
    with pytest.raises(msgnorm.PairingError) as batch:
        msgnorm.normalize_for_api(settled + tail, strict=True)
    with pytest.raises(msgnorm.PairingError) as ours:
        conv.for_api()
    assert batch.value.index == 0  # the orphaned result (merged into u0), not the repeat in r4
    assert (ours.value.index, ours.value.ids) == (batch.value.index, batch.value.ids)


def test_a_tombstone_in_the_tail_brings_back_media_the_limit_omitted() -> None:
    # Over the media limit (2), the settled part holds the first image omitted;
    # a tombstone then takes one streamed fragment's image out of the open
    # tail, so the batch call keeps the first image again: the settled part
    # must be rewritten (hypothesis found this).
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
    }

    records = [
        asst("a1", [image], mid=None),
        {"type": "system", "uuid": "c1", "subtype": "local_command", "content": ""},
        asst("a2", [image], mid="msg_03"),
        asst("a3", [image], mid="msg_03"),  # the same reply, streamed: joined with a2
        {"type": "tombstone", "message": {"uuid": "a2", "role": "assistant", "content": []}},
    ]
    conv = msgnorm.Conversation(kind="dicts", max_media=2)
    for k, rec in enumerate(records, 1):
        conv.append([rec])
        assert conv.for_api() == msgnorm.normalize_for_api(records[:k], max_media=2), k
    (first,) = [r for r in conv.for_api() if r["uuid"] == "a1"]
    assert first["message"]["content"] == [image]
