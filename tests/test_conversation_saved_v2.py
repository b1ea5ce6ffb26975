"""A Conversation saved in format 2 (``tests/data/conversation/saved-v2.bin``, written
by the build before the saved state was compressed) still loads: the same output
as the batch call and as a fresh conversation, the same state, and appending goes
on exactly as on the fresh one.  The history below is the one that was saved
(``history()`` appended in ``CHUNKS``, ``for_api()`` after each, with ``OPTIONS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgnorm

SAVED = Path(__file__).parent / "data" / "conversation" / "saved-v2.bin"

OPTIONS: dict[str, Any] = {
    "max_media": 2,
    "clear_tool_results": {"trigger": 400, "keep": 2},
    # saved with SPEC §6's formula, the counting of every earlier version
    "tokenizer": "chars",
}
#: the history was appended in these slices (``records[previous:stop]``)
CHUNKS = [9, 30, 47, 60, 61, 90]

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}


def rec(role: str, uuid: str, content: object, **extra: object) -> dict[str, Any]:
    return {"type": role, "uuid": uuid, "message": {"role": role, "content": content}, **extra}


def history() -> list[dict[str, Any]]:
    """90 records: turns of a text prompt, tool calls and their results (some with an
    image), a thinking block; a tombstone naming a settled assistant record."""
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < 90:
        t = f"{i:03d}"
        if len(out) == 60:
            out.append({"type": "tombstone", "message": {"uuid": "a010", "content": []}})
            continue
        out.append(rec("user", f"u{t}", f"step {i}: look at file {i}.txt " + "x" * (i % 7)))
        call = {"type": "tool_use", "id": f"toolu_{t}", "name": "Read", "input": {"path": t}}
        thinking = {"type": "thinking", "thinking": f"read {t}", "signature": "sig"}
        out.append(rec("assistant", f"a{t}", [thinking, call], requestId=f"req{t}"))
        result: object = f"contents of {t}\n" * (1 + i % 5)
        if i % 6 == 3:
            result = [{"type": "text", "text": f"screenshot {t}"}, IMAGE]
        tr = {"type": "tool_result", "tool_use_id": f"toolu_{t}", "content": result}
        out.append(rec("user", f"r{t}", [tr]))
        out.append(rec("assistant", f"b{t}", [{"type": "text", "text": f"file {i} read. "}]))
        i += 1
    return out[:90]


def replay(records: list[dict[str, Any]]) -> msgnorm.Conversation:
    conv = msgnorm.Conversation(kind="dicts", **OPTIONS)
    start = 0
    for stop in CHUNKS:
        conv.append(records[start:stop])
        conv.for_api()
        start = stop
    return conv


def test_a_format_2_save_loads_as_the_conversation_it_saved() -> None:
    data = SAVED.read_bytes()
    assert data.startswith(b"msgnorm-conversation/2\n")
    records = history()
    fresh = replay(records)
    loaded = msgnorm.Conversation.from_bytes(data, kind="dicts")
    # what was saved: a rewrite (the tombstone, the media limit) and a policy that fired
    assert fresh.rewrites >= 1 and fresh.edits
    assert loaded.for_api() == fresh.for_api()
    state = ("input_len", "settled_len", "rewrites", "edits")
    assert {k: getattr(loaded, k) for k in state} == {k: getattr(fresh, k) for k in state}
    assert loaded.cache_breakpoints() == fresh.cache_breakpoints()
    assert loaded.count_tokens_per_record() == fresh.count_tokens_per_record()
    # saved again (in the current format), it loads as the same conversation
    again = msgnorm.Conversation.from_bytes(loaded.to_bytes(), kind="dicts")
    assert again.for_api() == loaded.for_api() and again.edits == loaded.edits
    # appending goes on as on the fresh conversation, a media rewrite included
    more = [
        rec("user", "u900", [{"type": "text", "text": "and this"}, IMAGE]),
        rec("assistant", "b900", "seen"),
        rec("user", "u901", "done"),
    ]
    for conv in (loaded, fresh, again):
        conv.append(more)
    assert loaded.for_api() == fresh.for_api() == again.for_api()
    assert loaded.rewrites == fresh.rewrites == again.rewrites
    assert loaded.edits == fresh.edits
