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
    assert empty_tail_seen
