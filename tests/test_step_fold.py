"""SPEC §4 step 4: Fold (user merge, local_command, attachments, assistant re-join)."""

from __future__ import annotations

from support.helpers import (
    asst,
    date_att,
    image,
    local_command,
    meta_user,
    reminder,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
)

R_DATE = reminder("Today's date is 2025-01-02.")

# ---------------------------------------------------------------- user merge


def test_user_merge_seam(impl):
    # §4.4: "string contents become one text block; if a ends with a text block
    # and b starts with one, "\n" is appended to a's last text (the seam)"
    records = [user("u1", "a"), user("u2", "b")]
    assert impl.normalize_for_api(records) == [user("u1", [text("a\n"), text("b")])]


def test_three_user_records(impl):
    # §4.4: "a user record merges into the previous result record if that is a user record"
    records = [user("u1", "a"), user("u2", [text("b"), text("c")]), user("u3", "d")]
    assert impl.normalize_for_api(records) == [
        user("u1", [text("a\n"), text("b"), text("c\n"), text("d")])
    ]


def test_no_seam_when_a_does_not_end_with_text(impl):
    # §4.4: the seam only "if a ends with a text block and b starts with one"
    records = [user("u1", [text("see"), image()]), user("u2", "b")]
    assert impl.normalize_for_api(records) == [user("u1", [text("see"), image(), text("b")])]


def test_no_seam_when_b_does_not_start_with_text(impl):
    # §4.4: the seam only "if a ends with a text block and b starts with one"
    records = [user("u1", "a"), user("u2", [image(), text("b")])]
    assert impl.normalize_for_api(records) == [user("u1", [text("a"), image(), text("b")])]


def test_merge_moves_tool_results_to_the_front(impl):
    # §4.4: "the blocks are concatenated and then all tool_result blocks are
    # moved to the front, keeping relative order" (no seam: a ends with a result)
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2")]),
        user("u1", [tool_result("t1", "one")]),
        user("u2", [text("note"), tool_result("t2", "two")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2")]),
        user("u1", [tool_result("t1", "one"), tool_result("t2", "two"), text("note")]),
    ]


def test_merge_keeps_a_fields_and_b_uuid_when_a_is_meta(impl):
    # §4.4: "The merged record has a's fields except two: uuid is b's if a is
    # meta, else a's; isMeta is true if both were meta and absent otherwise."
    records = [
        meta_user("m1", "ctx", timestamp="T1", origin="x"),
        user("u2", "hi", timestamp="T2", cwd="/b"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u2", [text("ctx\n"), text("hi")], timestamp="T1", origin="x"),
    ]


def test_merge_keeps_a_uuid_when_a_is_not_meta(impl):
    # §4.4: "uuid is b's if a is meta, else a's; isMeta is true if both were meta and absent otherwise"
    records = [user("u1", "hi", timestamp="T1"), meta_user("m2", "ctx", timestamp="T2")]
    assert impl.normalize_for_api(records) == [
        user("u1", [text("hi\n"), text("ctx")], timestamp="T1"),
    ]


def test_merge_of_two_meta_records_is_meta(impl):
    # §4.4: "isMeta is true if both were meta"; uuid is b's as a is meta
    records = [meta_user("m1", "x"), meta_user("m2", "y")]
    assert impl.normalize_for_api(records) == [meta_user("m2", [text("x\n"), text("y")])]


def test_is_meta_false_is_removed_by_a_merge(impl):
    # §4.4: isMeta is "absent otherwise" (A3: false is not meta)
    records = [user("u1", "x", isMeta=False), user("u2", "y")]
    assert impl.normalize_for_api(records) == [user("u1", [text("x\n"), text("y")])]


def test_meta_meta_user_chain(impl):
    # (m1 + m2) is meta with uuid m2; + u3: uuid u3, not meta
    records = [meta_user("m1", "a"), meta_user("m2", "b"), user("u3", "c")]
    assert impl.normalize_for_api(records) == [user("u3", [text("a\n"), text("b\n"), text("c")])]


def test_null_and_empty_string_contents_in_a_merge(impl):
    # A6: null counts as the empty string and becomes one (empty) text block, so
    # the seam makes it "\n"; step 7 then removes that blank text
    records = [user("u1", None), user("u2", "b")]
    assert impl.normalize_for_api(records) == [user("u1", [text("b")])]
    # ... and an empty b leaves the seam on a's text
    records = [user("u1", "a"), user("u2", "")]
    assert impl.normalize_for_api(records) == [user("u1", [text("a\n")])]


# ---------------------------------------------------------------- attachments


def test_attachment_merges_without_the_seam(impl):
    # §4.4: "merged into the previous user record *without the seam newline*"
    # (§4.2: R1 starts with a tool_result, so it is a stop and the attachment
    # stays right after it)
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1"), text("hi")]),
        date_att("t"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1"), text("hi"), text(R_DATE)]),
    ]


def test_attachment_after_meta_user_takes_its_uuid_and_stays_meta(impl):
    # §4.4 user merge rules apply to the attachment's meta user record: uuid is
    # b's (a is meta), isMeta stays (both meta), other fields are a's (so the
    # attachment's timestamp is not kept)
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        meta_user("r1", [tool_result("t1"), text("ctx")], origin="o"),
        date_att("t", timestamp="T"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        meta_user("t", [tool_result("t1"), text("ctx"), text(R_DATE)], origin="o"),
    ]


def test_user_after_attachment_gets_the_seam(impl):
    # §4.4: only the attachment itself merges "without the seam newline"; a user record after it gets it
    records = [date_att("t1"), user("u1", "hi")]
    assert impl.normalize_for_api(records) == [user("u1", [text(R_DATE + "\n"), text("hi")])]


# ---------------------------------------------------------------- local_command


def test_local_command_merges_as_a_user_record(impl):
    # §4.4: "a local_command system record becomes a user record ... then is
    # folded as a user record"
    records = [user("u0", "hi"), local_command("l1", "out")]
    assert impl.normalize_for_api(records) == [user("u0", [text("hi\n"), text("out")])]


def test_local_command_first_keeps_its_uuid_and_timestamp(impl):
    # §4.4: "becomes a user record with the same uuid and timestamp"; the merge keeps a's fields
    records = [local_command("l1", "out", timestamp="T"), user("u1", "next", timestamp="T9")]
    assert impl.normalize_for_api(records) == [
        user("l1", [text("out\n"), text("next")], timestamp="T"),
    ]


# ---------------------------------------------------------------- assistants


def test_assistant_string_content_becomes_a_text_block(impl):
    # §4.4: "an assistant record's string content becomes a list of one text
    # block (none if empty)"; §4.9 then gives the empty non-last one (no content)
    records = [
        user("u0", "hi"),
        asst("a1", "yes"),
        user("u1", "q"),
        asst("a2", ""),
        user("u2", "r"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "hi"),
        asst("a1", [text("yes")]),
        user("u1", "q"),
        asst("a2", [text("(no content)")]),
        user("u2", "r"),
    ]


def test_streamed_fragments_rejoin_across_tool_result_only_users(impl):
    # §4.4: "one with a non-null message.id walks the result backwards, skipping
    # ... user records that hold nothing but tool_result blocks ... If it meets
    # an assistant with the same message.id, its blocks are appended to that
    # record's content" - the first fragment's record (uuid a1) is kept (A8)
    records = [
        user("u0", "go"),
        asst("a1", [thinking("plan")], mid="m1"),
        asst("a2", [tool_use("t1")], mid="m1"),
        user("r1", [tool_result("t1")]),
        asst("a3", [text("done")], mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [thinking("plan"), tool_use("t1"), text("done")], mid="m1"),
        user("r1", [tool_result("t1")]),
    ]


def test_rejoin_skips_assistants_with_another_id(impl):
    # §4.4: "skipping assistant records with another message.id"
    records = [
        user("u0", "go"),
        asst("a1", "x", mid="m1"),
        asst("b1", "y", mid="m2"),
        asst("a2", "z", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x"), text("z")], mid="m1"),
        asst("b1", [text("y")], mid="m2"),
    ]


def test_rejoin_skips_assistants_without_id(impl):
    # A4: an assistant with no (or a null) message.id is one "with another message.id"
    records = [
        user("u0", "go"),
        asst("a1", "x", mid="m1"),
        asst("b1", "y"),
        asst("c1", "w", mid=None),
        asst("a2", "z", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x"), text("z")], mid="m1"),
        asst("b1", [text("y")]),
        asst("c1", [text("w")], mid=None),
    ]


def test_rejoin_skips_results_with_blank_text(impl):
    # §4.4: "... and empty or whitespace-only text"; §4.7 removes the blank text later
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")], mid="m1"),
        user("r1", [tool_result("t1"), text("  ")]),
        asst("a2", "end", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), text("end")], mid="m1"),
        user("r1", [tool_result("t1")]),
    ]


def test_rejoin_skips_null_and_blank_string_users(impl):
    # §4.4: "(a string or null content counts as text)"
    records = [
        user("u0", "go"),
        asst("a1", "x", mid="m1"),
        user("n1", None),
        user("n2", " \n"),
        asst("a2", "y", mid="m1"),
    ]
    # N1 and N2 merge first (N1 [text "\n", text " \n"]: still only blank text),
    # so A2 re-joins A1; §4.7 then empties N1 and gives it (no content)
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x"), text("y")], mid="m1"),
        user("n1", [text("(no content)")]),
    ]


def test_rejoin_stops_at_a_real_user_message(impl):
    # §4.4: "stopping at anything else ... Otherwise it is appended"
    records = [
        user("u0", "go"),
        asst("a1", "x", mid="m1"),
        user("u1", "more"),
        asst("a2", "y", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x")], mid="m1"),
        user("u1", "more"),
        asst("a2", [text("y")], mid="m1"),
    ]


def test_rejoin_stops_at_an_attachment(impl):
    # the attachment's meta user record holds text: it stops the walk
    records = [
        user("u0", "go"),
        asst("a1", "x", mid="m1"),
        date_att("t"),
        asst("a2", "y", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x")], mid="m1"),
        meta_user("t", [text(R_DATE)]),
        asst("a2", [text("y")], mid="m1"),
    ]


def test_rejoin_stops_at_results_with_real_text(impl):
    # §4.4: only users holding "nothing but tool_result blocks and empty or whitespace-only text" are skipped
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")], mid="m1"),
        user("r1", [tool_result("t1"), text("interrupt")]),
        asst("a2", "y", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")], mid="m1"),
        user("r1", [tool_result("t1"), text("interrupt")]),
        asst("a2", [text("y")], mid="m1"),
    ]


def test_assistants_without_id_never_rejoin(impl):
    # §4.4: only "one with a non-null message.id" walks back
    records = [user("u0", "go"), asst("a1", "x"), asst("a2", "y"), asst("a3", "z", mid=None)]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x")]),
        asst("a2", [text("y")]),
        asst("a3", [text("z")], mid=None),
    ]


def test_rejoin_meets_the_latest_fragment(impl):
    # the walk meets the nearest assistant with the same id; a later fragment
    # then appends after the earlier ones, in order
    records = [
        user("u0", "go"),
        asst("a1", "1", mid="m1"),
        asst("a2", "2", mid="m1"),
        asst("a3", "3", mid="m1"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("1"), text("2"), text("3")], mid="m1"),
    ]


def test_local_command_is_not_meta(impl):
    # A25: "becomes a user record with the same uuid and timestamp and its
    # content string" - never meta, whatever the system record says
    records = [local_command("l1", "out", isMeta=True), asst("a1", "ok")]
    assert impl.normalize_for_api(records) == [user("l1", "out"), asst("a1", [text("ok")])]
