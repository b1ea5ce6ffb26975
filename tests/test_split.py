"""SPEC §3 normalize_messages (split for display)."""

from __future__ import annotations

from support.helpers import (
    asst,
    attachment,
    entry,
    image,
    local_command,
    text,
    thinking,
    tool_use,
    user,
)

UA = "550e8400-e29b-41d4-a716-446655440000"
UB = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"


def test_single_blocks_keep_their_uuid(impl):
    # §3: "records before that point keep their uuid"; "string content is one
    # text block"; "each copy keeps every field ... with message.content = [block]"
    records = [user("u1", "hi", timestamp="T"), asst("a1", [text("yo")], mid="m1")]
    assert impl.normalize_messages(records) == [
        user("u1", [text("hi")], timestamp="T"),
        asst("a1", [text("yo")], mid="m1"),
    ]


def test_one_record_per_block_and_sticky_uuids(impl):
    # §3: "from the first record whose content has more than one block onwards
    # (a sticky flag), every output user/assistant record gets uuid =
    # derive_uuid(original uuid, block index)"
    records = [
        user("u1", "a"),
        asst(UA, [thinking("t"), tool_use("t1")], mid="m"),
        user(UB, "b"),
    ]
    assert impl.normalize_messages(records) == [
        user("u1", [text("a")]),
        asst("550e8400-e29b-41d4-a716-000000000000", [thinking("t")], mid="m"),
        asst("550e8400-e29b-41d4-a716-000000000001", [tool_use("t1")], mid="m"),
        user("6ba7b810-9dad-11d1-80b4-000000000000", [text("b")]),
    ]


def test_short_uuids(impl):
    # §2: all of the parent when shorter than 24 characters
    records = [user("user_001", [text("a"), image()])]
    assert impl.normalize_messages(records) == [
        user("user_001000000000000", [text("a")]),
        user("user_001000000000001", [image()]),
    ]


def test_other_records_pass_through_unchanged(impl):
    # §3: "records other than user/assistant pass through unchanged"
    others = [
        local_command("l1", "out"),
        attachment("t1", {"type": "date", "date": "D"}),
        entry("summary", summary="S"),
        {"type": "progress", "uuid": "p", "data": {"n": 2**70}, "toolUseID": "t"},
    ]
    records = [others[0], user("u1", [text("a"), text("b")]), *others[1:]]
    assert impl.normalize_messages(records) == [
        others[0],
        user("u1000000000000", [text("a")]),
        user("u1000000000001", [text("b")]),
        *others[1:],
    ]


def test_empty_content_yields_nothing(impl):
    # §3: "empty content yields nothing" (A22: "" and null; " " is one block)
    records = [user("u1", ""), user("u2", None), asst("a1", []), asst("a2", None), user("u3", " ")]
    assert impl.normalize_messages(records) == [user("u3", [text(" ")])]


def test_sticky_flag_survives_single_block_records(impl):
    # §3: "from the first record whose content has more than one block onwards (a sticky flag)"
    records = [user("u1", "a"), user("u2", [text("b"), text("c")]), asst("a1", "d"), user("u3", "")]
    assert impl.normalize_messages(records) == [
        user("u1", [text("a")]),
        user("u2000000000000", [text("b")]),
        user("u2000000000001", [text("c")]),
        asst("a1000000000000", [text("d")]),
    ]


def test_every_field_is_kept(impl):
    # §3: "each copy keeps every field of the original"
    rec = asst("a1", [text("x"), text("y")], mid="m", model="claude", requestId="r", usage={"n": 1})
    out = impl.normalize_messages([rec])
    assert out == [
        asst("a1000000000000", [text("x")], mid="m", model="claude", requestId="r", usage={"n": 1}),
        asst("a1000000000001", [text("y")], mid="m", model="claude", requestId="r", usage={"n": 1}),
    ]
