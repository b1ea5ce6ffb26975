"""SPEC §4 step 7: Content hygiene (blank texts, is_error joining, media limit)."""

from __future__ import annotations

import pytest
from support.helpers import asst, document, image, text, tool_result, tool_use, user


def img_omitted(n: int) -> dict:
    return text(f"[image omitted: over the media limit of {n}]")


def doc_omitted(n: int) -> dict:
    return text(f"[document omitted: over the media limit of {n}]")


# ---------------------------------------------------------------- blank texts


def test_blank_text_blocks_are_removed(impl):
    # §4.7: "text blocks that are empty or whitespace-only are removed from every
    # user and assistant content list"
    records = [
        user("u0", [text("a"), text(" "), text(""), text("\u3000\n")]),
        asst("a1", [text("\n"), text("x")]),
    ]
    assert impl.normalize_for_api(records) == [user("u0", [text("a")]), asst("a1", [text("x")])]


def test_blank_user_string_becomes_no_content(impl):
    # §4.7: "a user string content that is empty or whitespace-only becomes (no content)"
    assert impl.normalize_for_api([user("u0", "  \n\t")]) == [user("u0", "(no content)")]
    assert impl.normalize_for_api([user("u0", "")]) == [user("u0", "(no content)")]
    # §1: null counts as the empty string (A14)
    assert impl.normalize_for_api([user("u0", None)]) == [user("u0", "(no content)")]


def test_user_list_emptied_becomes_no_content(impl):
    # §4.7: "a user list emptied this way becomes [{type: text, text: "(no content)"}]"
    assert impl.normalize_for_api([user("u0", [text(" "), text("")])]) == [
        user("u0", [text("(no content)")])
    ]


def test_empty_user_list_becomes_no_content(impl):
    # A14: an already-empty user list too (§4 guarantee: no user content is empty)
    assert impl.normalize_for_api([user("u0", [])]) == [user("u0", [text("(no content)")])]


def test_whitespace_is_unicode_white_space(impl):
    # A5: U+001C is not White_Space (Python's str.isspace says it is)
    assert impl.normalize_for_api([user("u0", "\x1c")]) == [user("u0", "\x1c")]
    assert impl.normalize_for_api([user("u0", [text("\x1c"), text("\x85\u2028")])]) == [
        user("u0", [text("\x1c")])
    ]


def test_blank_texts_inside_tool_results_are_removed(impl):
    # A14: a tool_result's content list is a content list too ("text content
    # blocks must be non-empty" holds there as well)
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [text(" "), text("x")])]),
    ]
    assert impl.normalize_for_api(records)[2] == user("r1", [tool_result("t1", [text("x")])])


def test_a_tool_result_emptied_of_blank_texts_keeps_an_empty_list(impl):
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [text(""), text("\n")])]),
    ]
    assert impl.normalize_for_api(records)[2] == user("r1", [tool_result("t1", [])])


def test_blank_texts_inside_tool_results_are_counted():
    msgnorm = pytest.importorskip("msgnorm")
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [text(""), text("\n"), text("x")])]),
    ]
    assert msgnorm.normalize_for_api_report(records)[1]["blank_texts_removed"] == 2


# ---------------------------------------------------------------- is_error


def test_error_result_with_media_is_joined(impl):
    # §4.7: "a tool_result with is_error: true whose list content holds anything
    # but text blocks gets content = its texts joined with "\n\n""
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [text("line1"), image(), text("line2")], is_error=True)]),
    ]
    assert impl.normalize_for_api(records)[2] == user(
        "r1", [tool_result("t1", "line1\n\nline2", is_error=True)]
    )


def test_error_result_without_texts_is_joined_to_empty(impl):
    # §4.7: "its texts joined with \n\n" - no texts, the empty string (A15)
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [image()], is_error=True)]),
    ]
    assert impl.normalize_for_api(records)[2] == user("r1", [tool_result("t1", "", is_error=True)])


def test_error_result_with_only_texts_is_unchanged(impl):
    # §4.7: only a list content that "holds anything but text blocks"
    block = tool_result("t1", [text("a"), text("b")], is_error=True)
    records = [user("u0", "go"), asst("a1", [tool_use("t1")]), user("r1", [block])]
    assert impl.normalize_for_api(records)[2] == user("r1", [block])


def test_non_error_result_with_media_is_unchanged(impl):
    for flag in (False, "true", 1):  # A3: only JSON true
        block = tool_result("t1", [text("a"), image()], is_error=flag)
        records = [user("u0", "go"), asst("a1", [tool_use("t1")]), user("r1", [block])]
        assert impl.normalize_for_api(records)[2] == user("r1", [block])


# ---------------------------------------------------------------- media limit


def history_with_media() -> list:
    return [
        user("u0", [image("d1"), text("a"), image("d2")]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [image("d3"), document("d4")])]),
    ]


def test_media_within_the_limit(impl):
    # §4.7: "beyond the limit are replaced"
    assert impl.normalize_for_api(history_with_media(), max_media=4) == history_with_media()


def test_media_limit_replaces_the_oldest(impl):
    # §4.7: "image and document blocks, counted at the top level and inside
    # tool_result lists, beyond the limit are replaced, oldest first, by the
    # text [image omitted: over the media limit of N]" (A15: keep the newest N)
    assert impl.normalize_for_api(history_with_media(), max_media=2) == [
        user("u0", [img_omitted(2), text("a"), img_omitted(2)]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [image("d3"), document("d4")])]),
    ]


def test_media_limit_inside_tool_result(impl):
    # §4.7: media "counted at the top level and inside tool_result lists"
    assert impl.normalize_for_api(history_with_media(), max_media=1) == [
        user("u0", [img_omitted(1), text("a"), img_omitted(1)]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [img_omitted(1), document("d4")])]),
    ]


def test_media_limit_zero_and_documents(impl):
    # "(resp. document)"
    assert impl.normalize_for_api(history_with_media(), max_media=0) == [
        user("u0", [img_omitted(0), text("a"), img_omitted(0)]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [img_omitted(0), doc_omitted(0)])]),
    ]


def test_media_limit_none_is_off(impl):
    # §4.7: "(max_media, default 100, None = off)"
    records = [user("u0", [image(str(i)) for i in range(101)])]
    assert impl.normalize_for_api(records, max_media=None) == records


def test_media_limit_default_is_100(impl):
    # §4.7: "(max_media, default 100, ...)", the oldest one is replaced
    records = [user("u0", [image(str(i)) for i in range(101)])]
    assert impl.normalize_for_api(records) == [
        user("u0", [img_omitted(100)] + [image(str(i)) for i in range(1, 101)])
    ]


def test_error_joining_comes_before_media_counting(impl):
    # §4.7 lists is_error joining before the media limit: the joined result's
    # image no longer counts, so d1 stays within max_media=1
    records = [
        user("u0", [image("d1"), text("look")]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", [text("e"), image("d2")], is_error=True)]),
    ]
    assert impl.normalize_for_api(records, max_media=1) == [
        user("u0", [image("d1"), text("look")]),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "e", is_error=True)]),
    ]


def test_media_in_assistant_records_count(impl):
    # §4.7: media of every user and assistant record count, oldest first
    records = [user("u0", [image("d1")]), asst("a1", [image("d2"), text("x")])]
    assert impl.normalize_for_api(records, max_media=1) == [
        user("u0", [img_omitted(1)]),
        asst("a1", [image("d2"), text("x")]),
    ]
