"""SPEC §4 step 10: User first."""

from __future__ import annotations

from support.helpers import asst, first_user_uuid, meta_user, progress, text, user


def test_first_user_uuid_vector():
    # §4.10: uuid5(NAMESPACE_URL, "msgnorm:first-user:" + that assistant's uuid)
    assert first_user_uuid("a1") == "fc18a1bf-4459-5cb1-9fd0-b465cf31538a"


def test_meta_user_put_before_a_first_assistant(impl):
    # §4.10: "if the first record is an assistant, a meta user record (no content)
    # is put before it"; §4: exactly type, uuid, message, timestamp (its
    # source's, A12), isMeta (A16: a text block list)
    records = [asst("a1", "hi", timestamp="T")]
    assert impl.normalize_for_api(records) == [
        {
            "type": "user",
            "uuid": "fc18a1bf-4459-5cb1-9fd0-b465cf31538a",
            "message": {"role": "user", "content": [text("(no content)")]},
            "timestamp": "T",
            "isMeta": True,
        },
        asst("a1", [text("hi")], timestamp="T"),
    ]


def test_without_timestamp(impl):
    # §4: "plus timestamp when its source had one"
    assert impl.normalize_for_api([progress("p"), asst("a9", "x")]) == [
        meta_user(first_user_uuid("a9"), [text("(no content)")]),
        asst("a9", [text("x")]),
    ]


def test_off(impl):
    # §4.10: "(ensure_user_first=True)"
    assert impl.normalize_for_api([asst("a1", "hi")], ensure_user_first=False) == [
        asst("a1", [text("hi")])
    ]


def test_first_user_untouched(impl):
    # §4.10: only "if the first record is an assistant"
    assert impl.normalize_for_api([user("u0", "hi"), asst("a1", "x")]) == [
        user("u0", "hi"),
        asst("a1", [text("x")]),
    ]


def test_empty_output_stays_empty(impl):
    # §4.10: no first record, nothing to do
    assert impl.normalize_for_api([progress("p")]) == []
