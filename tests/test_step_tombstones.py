"""SPEC §4 step 1: Tombstones."""

from __future__ import annotations

from support.helpers import asst, entry, local_command, text, tombstone, tool_result, tool_use, user


def test_tombstone_drops_its_target_and_itself(impl):
    # §4.1: "Drop every tombstone and every record whose uuid equals a
    # tombstone's message.uuid." (then U1 and U2 are adjacent: §4.4 user merge)
    records = [user("u1", "hi"), asst("a1", "a"), tombstone("a1"), user("u2", "bye")]
    assert impl.normalize_for_api(records) == [user("u1", [text("hi\n"), text("bye")])]


def test_tombstone_for_an_unknown_uuid_is_just_dropped(impl):
    # §4.1: "Drop every tombstone"
    assert impl.normalize_for_api([user("u1", "hi"), tombstone("nobody")]) == [user("u1", "hi")]


def test_tombstone_before_its_target(impl):
    # §4.1: every record whose uuid equals a tombstone's message.uuid, wherever it is
    records = [tombstone("a1"), user("u1", "hi"), asst("a1", "x"), user("u2", "bye")]
    assert impl.normalize_for_api(records) == [user("u1", [text("hi\n"), text("bye")])]


def test_tombstone_drops_every_record_type_with_that_uuid(impl):
    # §4.1: "every record whose uuid equals" - not only assistants
    records = [
        user("u1", "hi"),
        asst("a1", "ok"),
        local_command("l1", "out"),
        entry("custom-title", uuid="l1"),
        tombstone("l1"),
    ]
    assert impl.normalize_for_api(records) == [user("u1", "hi"), asst("a1", [text("ok")])]


def test_tombstone_drops_all_records_sharing_the_uuid(impl):
    # §4.1: "every record whose uuid equals a tombstone's message.uuid"
    records = [user("u1", "hi"), asst("x", "a"), asst("x", "b"), tombstone("x")]
    assert impl.normalize_for_api(records) == [user("u1", "hi")]


def test_tombstoned_tool_use_leaves_an_orphan_result(impl):
    # §4.1 drops A1; §4.4 merges U into "go" (tool_result moved to the front);
    # §4.6 then removes the orphan result of the first record
    records = [
        user("u", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "ok")]),
        asst("a2", "done"),
        tombstone("a1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u", [text("go")]),
        asst("a2", [text("done")]),
    ]


def test_tombstone_message_is_the_only_field_read(impl):
    # §1: tombstone: `message` (an assistant record); its other fields do not matter
    dead = {"type": "tombstone", "message": {"uuid": "a1", "role": "assistant", "content": "x"}}
    records = [user("u1", "hi"), asst("a1", "gone"), dead, asst("a2", "kept")]
    assert impl.normalize_for_api(records) == [user("u1", "hi"), asst("a2", [text("kept")])]
