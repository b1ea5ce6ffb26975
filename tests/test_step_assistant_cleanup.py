"""SPEC §4 step 5: Assistant clean-up."""

from __future__ import annotations

from support.helpers import (
    asst,
    mcp_tool_use,
    meta_user,
    redacted,
    server_result,
    server_tool_use,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
)

INTERRUPTED = "[Tool use interrupted]"


def test_repeated_tool_use_in_a_later_record_is_removed(impl):
    # §4.5: "a tool_use whose id already appeared (earlier in this record or in
    # an earlier one) is removed: the first wins". A2 keeps its text; §4.6 then
    # removes R2's result (A2 has no tool_use) and R2 becomes (no content), meta.
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "one")]),
        asst("a2", [text("again"), tool_use("t1", name="Other")]),
        user("r2", [tool_result("t1", "two")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "one")]),
        asst("a2", [text("again")]),
        meta_user("r2", [text("(no content)")]),
    ]


def test_repeated_tool_use_in_the_same_record_is_removed(impl):
    # §4.5: "(earlier in this record or in an earlier one) ... the first wins"
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1", name="A"), tool_use("t1", name="B")]),
        user("r1", [tool_result("t1")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1", name="A")]),
        user("r1", [tool_result("t1")]),
    ]


def test_unanswered_server_tool_use_is_removed(impl):
    # §4.5: "a server_tool_use/mcp_tool_use with no *_tool_result block carrying
    # its id as tool_use_id in the same record is removed"
    records = [
        user("u0", "go"),
        asst(
            "a1", [server_tool_use("s1"), server_result("s1"), server_tool_use("s2"), text("ans")]
        ),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [server_tool_use("s1"), server_result("s1"), text("ans")]),
    ]


def test_mcp_tool_use_answered_in_a_rejoined_fragment_is_kept(impl):
    # §4.4 joins the fragments first, so the result is "in the same record"
    records = [
        user("u0", "go"),
        asst("a1", [mcp_tool_use("m1")], mid="X"),
        asst("a2", [server_result("m1", "mcp_tool_result")], mid="X"),
        asst("a3", [mcp_tool_use("m2")], mid="X"),
        asst("a4", [text("ok")], mid="X"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst(
            "a1", [mcp_tool_use("m1"), server_result("m1", "mcp_tool_result"), text("ok")], mid="X"
        ),
    ]


def test_result_in_another_record_does_not_count(impl):
    # §4.5: "... in the same record"; "if that empties the record, its content
    # becomes the text [Tool use interrupted]". The lone result is kept (A23).
    records = [
        user("u0", "go"),
        asst("a1", [server_tool_use("s1")], mid="X"),
        asst("a2", [server_result("s1"), text("t")], mid="Y"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text(INTERRUPTED)], mid="X"),
        asst("a2", [server_result("s1"), text("t")], mid="Y"),
    ]


def test_record_emptied_by_a_repeated_tool_use(impl):
    # §4.5: "if that empties the record, its content becomes the text [Tool use interrupted]"
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1")]),
        asst("a2", [tool_use("t1")]),
        user("u2", "next"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1")]),
        asst("a2", [text(INTERRUPTED)]),
        user("u2", "next"),
    ]


def test_thinking_only_record_is_dropped_and_users_remerged(impl):
    # §4.5: "a record whose content is non-empty and holds nothing but
    # thinking/redacted_thinking blocks and empty or whitespace-only text blocks
    # is dropped. Then user records made adjacent are user-merged."
    records = [
        user("u0", "go"),
        asst("a1", [thinking(), redacted(), text("  ")]),
        user("u1", "more"),
    ]
    assert impl.normalize_for_api(records) == [user("u0", [text("go\n"), text("more")])]


def test_blank_text_only_record_is_dropped(impl):
    # §4.5: "... and empty or whitespace-only text blocks is dropped"; the users are re-merged
    records = [user("u0", "hi"), asst("a1", " "), user("u1", "x")]
    assert impl.normalize_for_api(records) == [user("u0", [text("hi\n"), text("x")])]


def test_thinking_left_after_removal_is_dropped(impl):
    # rules apply in order: removing the unanswered server use leaves only
    # thinking (not emptied, so no [Tool use interrupted]) and the record goes
    records = [user("u0", "go"), asst("a1", [thinking(), server_tool_use("s1")]), user("u1", "x")]
    assert impl.normalize_for_api(records) == [user("u0", [text("go\n"), text("x")])]


def test_empty_record_is_not_dropped(impl):
    # §4.5: only a record whose content is *non-empty*; §4.9 then fills it
    records = [user("u0", "go"), asst("a1", []), user("u1", "x")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("(no content)")]),
        user("u1", "x"),
    ]


def test_thinking_with_real_text_is_kept(impl):
    # §4.5: only records holding "nothing but" thinking and blank texts are dropped
    records = [user("u0", "go"), asst("a1", [thinking(), text("answer")]), user("u1", "x")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [thinking(), text("answer")]),
        user("u1", "x"),
    ]


def test_remerge_uses_the_user_merge_rules(impl):
    # the re-merge is a §4.4 user merge: uuid b's when a is meta
    records = [meta_user("m0", "ctx"), asst("a1", [thinking()]), user("u1", "q")]
    assert impl.normalize_for_api(records) == [user("u1", [text("ctx\n"), text("q")])]
