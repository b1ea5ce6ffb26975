"""SPEC §4 step 2: Attachments bubble up (then §4.4 folds them)."""

from __future__ import annotations

from support.helpers import (
    asst,
    attachment,
    date_att,
    first_user_uuid,
    meta_user,
    reminder,
    text,
    tool_result,
    tool_use,
    user,
)

R_DATE = reminder("Today's date is 2025-01-02.")


def test_spec_example(impl):
    # §4.2: "[A, prompt, att1, att2] becomes [A, att1, att2, prompt]."
    # §4.4: att1 is a meta user record, att2 merges into it without the seam
    # (uuid att2, still meta), the prompt merges with the seam (uuid: the
    # prompt's since a is meta; isMeta absent). §4.10 adds the first user.
    records = [
        asst("a1", "hello"),
        user("p", "prompt"),
        date_att("t1"),
        attachment("t2", {"type": "queued_command", "prompt": "later"}),
    ]
    assert impl.normalize_for_api(records) == [
        meta_user(first_user_uuid("a1"), [text("(no content)")]),
        asst("a1", [text("hello")]),
        user("p", [text(R_DATE), text(reminder("later") + "\n"), text("prompt")]),
    ]


def test_no_stop_above_goes_to_the_top(impl):
    # §4.2: "With no stop above them they go to the top."
    records = [user("p", "prompt"), date_att("t1")]
    assert impl.normalize_for_api(records) == [user("p", [text(R_DATE + "\n"), text("prompt")])]


def test_user_record_starting_with_tool_result_is_a_stop(impl):
    # §4.2: "A stop is ... a user record whose content is a list starting with a
    # tool_result block." The attachment goes right after R1 and merges into it
    # without the seam; "next" merges with the seam.
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "ok")]),
        user("u2", "next"),
        date_att("t"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "ok"), text(R_DATE + "\n"), text("next")]),
    ]


def test_user_record_with_a_later_tool_result_is_not_a_stop(impl):
    # §4.2: the list must *start* with a tool_result: the stop is A1. The merged
    # record has a's (the attachment's) fields: its timestamp; uuid is b's as a
    # is meta (§4.4); tool_result blocks move to the front.
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("u1", [text("x"), tool_result("t1")], timestamp="T2"),
        date_att("t", timestamp="T1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("u1", [tool_result("t1"), text(R_DATE + "\n"), text("x")], timestamp="T1"),
    ]


def test_attachments_keep_their_order_between_stops(impl):
    # §4.2: "the collected attachments are placed directly after it, in their
    # original order"
    records = [
        user("u0", "go"),
        date_att("x1", "D1"),
        asst("a1", "r1"),
        date_att("x2", "D2"),
        user("u1", "q"),
        date_att("x3", "D3"),
    ]
    r1, r2, r3 = (reminder(f"Today's date is {d}.") for d in ("D1", "D2", "D3"))
    assert impl.normalize_for_api(records) == [
        user("u0", [text(r1 + "\n"), text("go")]),
        asst("a1", [text("r1")]),
        user("u1", [text(r2), text(r3 + "\n"), text("q")]),
    ]


def test_virtual_assistant_is_a_stop(impl):
    # A24: step 2 runs before step 3, so an isVirtual assistant is still a stop:
    # [u0, av, u1, x] -> [u0, av, x, u1] -> drop av -> x merges into u0 (no seam)
    records = [
        user("u0", "go"),
        asst("av", "virtual", isVirtual=True),
        user("u1", "q"),
        date_att("x"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", [text("go"), text(R_DATE + "\n"), text("q")]),
    ]


def test_attachment_rendering_to_nothing_disappears(impl):
    # §4.4: "if it renders to nothing it is dropped" (§5: no template, no string content)
    records = [user("u0", "go"), attachment("x", {"type": "hook_success", "exitCode": 0})]
    assert impl.normalize_for_api(records) == [user("u0", "go")]


def test_attachment_alone_becomes_a_meta_user_record(impl):
    # §4.4: "it becomes the block list [{type: text, text}] of a meta user record
    # (the attachment's uuid and timestamp)"; §4 inserted records have exactly
    # type, uuid, message, timestamp, isMeta
    records = [date_att("x", timestamp="T", cwd="/tmp", extra={"a": 1})]
    assert impl.normalize_for_api(records) == [
        {
            "type": "user",
            "uuid": "x",
            "message": {"role": "user", "content": [text(R_DATE)]},
            "timestamp": "T",
            "isMeta": True,
        }
    ]
