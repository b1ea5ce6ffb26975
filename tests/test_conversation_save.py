"""The saved form of a Conversation (``to_bytes``/``from_bytes``): a save of
format 2 made by an earlier build still loads, and saving it again gives the
current format (3: the body compressed), the same bytes as a fresh save."""

from __future__ import annotations

import base64
import struct
import zlib

import msgnorm
import pytest


def rec(role: str, uuid: str, content: object) -> dict[str, object]:
    return {"type": role, "uuid": uuid, "message": {"role": role, "content": content}}


CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt b.txt"}
RECORDS = [
    rec("user", "u1", "list the files"),
    rec("assistant", "a1", [CALL]),
    rec("user", "u2", [RESULT]),
    rec("assistant", "a2", "two files"),
    rec("user", "u3", "thanks"),
]

#: ``Conversation(RECORDS, clear_tool_results={"trigger": 1, "keep": 0}).to_bytes()``,
#: saved by the build before the save format moved to its own module.
SAVED_V2 = base64.b64decode(
    "bXNnbm9ybS1jb252ZXJzYXRpb24vMgoAAAAAAAAAAAEAAAAAAAAAZAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAA"
    "AAAAAAAAAAAAAAAQQAMAAAAAAAAAQAYAAAAAAAC4CwAAAAAAABACAAAAAAAAW3sidHlwZSI6InVzZXIiLCJ1dWlk"
    "IjoidTEiLCJtZXNzYWdlIjp7InJvbGUiOiJ1c2VyIiwiY29udGVudCI6Imxpc3QgdGhlIGZpbGVzIn19LHsidHlw"
    "ZSI6ImFzc2lzdGFudCIsInV1aWQiOiJhMSIsIm1lc3NhZ2UiOnsicm9sZSI6ImFzc2lzdGFudCIsImNvbnRlbnQi"
    "Olt7InR5cGUiOiJ0b29sX3VzZSIsImlkIjoidG9vbHVfMSIsIm5hbWUiOiJCYXNoIiwiaW5wdXQiOnsiY29tbWFu"
    "ZCI6ImxzIn19XX19LHsidHlwZSI6InVzZXIiLCJ1dWlkIjoidTIiLCJtZXNzYWdlIjp7InJvbGUiOiJ1c2VyIiwi"
    "Y29udGVudCI6W3sidHlwZSI6InRvb2xfcmVzdWx0IiwidG9vbF91c2VfaWQiOiJ0b29sdV8xIiwiY29udGVudCI6"
    "ImEudHh0IGIudHh0In1dfX0seyJ0eXBlIjoiYXNzaXN0YW50IiwidXVpZCI6ImEyIiwibWVzc2FnZSI6eyJyb2xl"
    "IjoiYXNzaXN0YW50IiwiY29udGVudCI6InR3byBmaWxlcyJ9fSx7InR5cGUiOiJ1c2VyIiwidXVpZCI6InUzIiwi"
    "bWVzc2FnZSI6eyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJ0aGFua3MifX0sBgAAAAAAAAABAAAAAAAAAFIAAAAA"
    "AAAA6AAAAAAAAABxAQAAAAAAAMcBAAAAAAAAEAIAAAAAAAAAAAAAAAAAAAEAAAAAAAAAWwEAAAAAAAAAAQAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AQAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAkAAAAAAAAAW2NsZWFyZWRdAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACmk+/TAAAAAA=="
)


def test_a_saved_conversation_of_format_2_loads_and_saves_the_same() -> None:
    assert SAVED_V2.startswith(b"msgnorm-conversation/2\n")
    c = msgnorm.Conversation.from_bytes(SAVED_V2)
    # saved with SPEC §6's formula, the counting of every earlier version
    fresh = msgnorm.Conversation(
        RECORDS, clear_tool_results={"trigger": 1, "keep": 0}, tokenizer="chars"
    )
    assert c.to_bytes() == fresh.to_bytes()
    assert fresh.to_bytes().startswith(b"msgnorm-conversation/3\n")
    assert msgnorm.Conversation.from_bytes(fresh.to_bytes()).to_bytes() == fresh.to_bytes()
    assert c.for_api() == fresh.for_api() == msgnorm.normalize_for_api(RECORDS)
    assert (c.input_len, c.settled_len, c.rewrites) == (5, fresh.settled_len, 0)
    more = rec("assistant", "a3", "ok")
    c.append([more])
    fresh.append([more])
    assert c.for_api() == fresh.for_api() == msgnorm.normalize_for_api([*RECORDS, more])


SAVED_V3 = msgnorm.Conversation(RECORDS, clear_tool_results={"trigger": 1, "keep": 0}).to_bytes()


@pytest.mark.parametrize("saved", [SAVED_V2, SAVED_V3], ids=["v2", "v3"])
@pytest.mark.parametrize("at", [1, 30, 0.5, -1])
def test_a_damaged_save_is_a_clear_error(saved: bytes, at: float) -> None:
    cut = int(at * len(saved)) if isinstance(at, float) else at % len(saved)
    with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
        msgnorm.Conversation.from_bytes(saved[:cut])
    flipped = bytearray(saved)
    flipped[cut] ^= 0x20
    with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
        msgnorm.Conversation.from_bytes(bytes(flipped))


def resealed(body: bytes) -> bytes:
    """A format 3 save with ``body`` (length and compressed data) and its CRC-32."""
    return b"msgnorm-conversation/3\n" + body + struct.pack("<Q", zlib.crc32(body))


def test_a_save_claiming_more_than_its_data_can_hold_is_refused() -> None:
    body = SAVED_V3[len(b"msgnorm-conversation/3\n") : -8]
    (length,) = struct.unpack("<Q", body[:8])
    packed = body[8:]
    assert msgnorm.Conversation.from_bytes(resealed(body)).to_bytes() == SAVED_V3
    for claim in (length + 1, length - 1, len(packed) * 1000, 2**62):
        with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
            msgnorm.Conversation.from_bytes(resealed(struct.pack("<Q", claim) + packed))
    # compressed data that is not LZ4's
    with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
        msgnorm.Conversation.from_bytes(resealed(struct.pack("<Q", length) + b"\xff" * 40))


def test_the_saved_state_is_smaller_than_the_histories_json() -> None:
    records = [
        rec(role, f"{role[0]}{i}", f"message {i}: " + "the same words again " * (i % 9))
        for i in range(400)
        for role in ("user", "assistant")
    ]
    conv = msgnorm.Conversation(records)
    conv.for_api()
    assert conv.settled_len > 700
    saved = conv.to_bytes()
    assert len(saved) < len(msgnorm.encode(records)) / 2
    assert msgnorm.Conversation.from_bytes(saved).for_api() == msgnorm.normalize_for_api(records)
