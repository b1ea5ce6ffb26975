"""SPEC §4 step 8: Final assistant."""

from __future__ import annotations

from support.helpers import asst, redacted, text, thinking, tool_use, user


def test_trailing_thinking_dropped_and_text_stripped(impl):
    # §4.8: "If the last record is an assistant: repeatedly drop a trailing
    # thinking/redacted_thinking block, strip trailing whitespace from a
    # trailing text block and drop it if that empties it."
    records = [user("u0", "go"), asst("a1", [text("answer  \n"), thinking()])]
    assert impl.normalize_for_api(records) == [user("u0", "go"), asst("a1", [text("answer")])]


def test_repeatedly(impl):
    # §4.8: "repeatedly drop a trailing thinking/redacted_thinking block, strip ..."
    records = [
        user("u0", "go"),
        asst("a1", [text("a"), thinking(), text(" b \t"), redacted(), thinking()]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("a"), thinking(), text(" b")]),
    ]


def test_leading_whitespace_is_kept(impl):
    # §4.8: "strip trailing whitespace"
    records = [user("u0", "go"), asst("a1", "\n  answer\n")]
    assert impl.normalize_for_api(records) == [user("u0", "go"), asst("a1", [text("\n  answer")])]


def test_nothing_left(impl):
    # §4.8: "If nothing is left, the content is [No message content]." (A16)
    records = [user("u0", "go"), asst("a1", "")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("[No message content]")]),
    ]


def test_other_trailing_block_stops(impl):
    # §4.8: only trailing thinking and text blocks are touched
    records = [user("u0", "go"), asst("a1", [text("a "), {"type": "foo"}])]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("a "), {"type": "foo"}]),
    ]


def test_only_the_last_record(impl):
    # §4.8: "If the last record is an assistant"
    records = [user("u0", "go"), asst("a1", [text("x  "), thinking()]), user("u1", "q")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("x  "), thinking()]),
        user("u1", "q"),
    ]


def test_white_space_definition(impl):
    # A5: U+3000 and U+0085 are White_Space and stripped; U+001C is not
    records = [user("u0", "go"), asst("a1", "a\u3000\x85")]
    assert impl.normalize_for_api(records)[1] == asst("a1", [text("a")])
    records = [user("u0", "go"), asst("a1", "a\x1c")]
    assert impl.normalize_for_api(records)[1] == asst("a1", [text("a\x1c")])


def test_tool_use_is_never_last(impl):
    # §4.6 puts the synthetic results after it, so step 8 does not touch it
    out = impl.normalize_for_api([user("u0", "go"), asst("a1", [text("x "), tool_use("t1")])])
    assert out[1] == asst("a1", [text("x "), tool_use("t1")])
    assert out[2]["type"] == "user"
