"""The saved form of a Conversation (``to_bytes``/``from_bytes``): a save of the
current format (2) made by an earlier build still loads, and saving it again
gives the same bytes."""

from __future__ import annotations

import base64

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
    fresh = msgnorm.Conversation(RECORDS, clear_tool_results={"trigger": 1, "keep": 0})
    assert c.to_bytes() == SAVED_V2 == fresh.to_bytes()
    assert c.for_api() == fresh.for_api() == msgnorm.normalize_for_api(RECORDS)
    assert (c.input_len, c.settled_len, c.rewrites) == (5, fresh.settled_len, 0)
    more = rec("assistant", "a3", "ok")
    c.append([more])
    fresh.append([more])
    assert c.for_api() == fresh.for_api() == msgnorm.normalize_for_api([*RECORDS, more])


@pytest.mark.parametrize("cut", [1, 30, 500, len(SAVED_V2) - 1])
def test_a_damaged_save_is_a_clear_error(cut: int) -> None:
    with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
        msgnorm.Conversation.from_bytes(SAVED_V2[:cut])
    flipped = bytearray(SAVED_V2)
    flipped[cut] ^= 0x20
    with pytest.raises(msgnorm.MsgnormError, match="not a saved msgnorm conversation"):
        msgnorm.Conversation.from_bytes(bytes(flipped))
