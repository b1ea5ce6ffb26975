"""SPEC §4 step 11: Short ids."""

from __future__ import annotations

from support.helpers import (
    asst,
    first_user_uuid,
    image,
    meta_user,
    raises_invalid,
    text,
    tool_result,
    tool_use,
    user,
)

U1 = "550e8400-e29b-41d4-a716-446655440000"  # short id 4ntnke (§2)
U2 = "000000ab-0000-4000-8000-000000000000"  # "000000ab00" = 0xab00 = 43776 -> xs0
U3 = "00000010-0000-4000-8000-000000000000"  # "0000001000" = 4096 -> 35s


def test_string_content(impl):
    # §4.11: "every non-meta user record gets "\n[id:" + derive_short_message_id(uuid)
    # + "]" appended to its last text block (or to its string content)"
    assert impl.normalize_for_api([user(U1, "hi")], short_ids=True) == [user(U1, "hi\n[id:4ntnke]")]


def test_off_by_default(impl):
    # §4.11: "(short_ids=False)"
    assert impl.normalize_for_api([user(U1, "hi")]) == [user(U1, "hi")]


def test_last_text_block(impl):
    # §4.11: "appended to its last text block"
    records = [user(U1, [text("a"), image(), text("b"), image()])]
    assert impl.normalize_for_api(records, short_ids=True) == [
        user(U1, [text("a"), image(), text("b\n[id:4ntnke]"), image()])
    ]


def test_meta_records_and_records_without_text_get_nothing(impl):
    # "a record with no text gets nothing"; meta records are skipped
    records = [
        meta_user(U3, "ctx"),
        asst("a1", [tool_use("t1")]),
        user(U2, [tool_result("t1")]),
        asst("a2", "x"),
        user(U1, [image()]),
    ]
    assert impl.normalize_for_api(records, short_ids=True) == [
        meta_user(U3, "ctx"),
        asst("a1", [tool_use("t1")]),
        user(U2, [tool_result("t1")]),
        asst("a2", [text("x")]),
        user(U1, [image()]),
    ]


def test_inserted_first_user_is_meta(impl):
    # §4.11: "every non-meta user record"; §4.10's record is meta
    records = [asst("a1", "x"), user(U2, "q")]
    assert impl.normalize_for_api(records, short_ids=True) == [
        meta_user(first_user_uuid("a1"), [text("(no content)")]),
        asst("a1", [text("x")]),
        user(U2, "q\n[id:xs0]"),
    ]


def test_runs_after_hygiene(impl):
    # step 11 comes after step 7: the (no content) text gets the id too
    assert impl.normalize_for_api([user(U3, " ")], short_ids=True) == [
        user(U3, "(no content)\n[id:35s]")
    ]


def test_merged_record_uses_its_surviving_uuid(impl):
    # §4.4: a is meta, so the merged record has b's uuid
    records = [meta_user(U3, "ctx"), user(U2, "hi")]
    assert impl.normalize_for_api(records, short_ids=True) == [
        user(U2, [text("ctx\n"), text("hi\n[id:xs0]")])
    ]


def test_non_hex_uuid_raises(impl):
    # A18: derive_short_message_id's ValueError is an InvalidRecordError naming
    # the record (no partial output)
    with raises_invalid(impl, 1, "records[1].uuid"):
        impl.normalize_for_api([asst("a0", "x"), user("user_001", "hi")], short_ids=True)


def test_non_hex_uuid_of_a_merged_record(impl):
    # A9: the merged record carries b's uuid (a is meta), so b is named
    records = [meta_user(U1, "ctx"), user("user_002", "hi")]
    with raises_invalid(impl, 1, "records[1].uuid"):
        impl.normalize_for_api(records, short_ids=True)
    # a non-hex uuid of a meta record or of a record without text is never read
    records = [
        meta_user("meta_1", "ctx"),
        asst("a1", [tool_use("t1")]),
        user("user_3", [tool_result("t1")]),
    ]
    assert impl.normalize_for_api(records, short_ids=True) == [
        meta_user("meta_1", "ctx"),
        asst("a1", [tool_use("t1")]),
        user("user_3", [tool_result("t1")]),
    ]
