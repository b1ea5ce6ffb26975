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


def _system_prompt(uuid: str, content: str) -> dict:
    return {"type": "system", "subtype": "system_prompt", "uuid": uuid, "content": content}


def test_system_prompt_records_after_the_final_assistant_do_not_count(impl):
    # §4 steps 5, 8, 9: "last" is the last record that is not a system_prompt
    # record (those go to the system parameter). Found by the providers fuzz
    # target: convert(to_provider(x)) trimmed a final model turn once more.
    prompt = _system_prompt("s1", "be brief")
    records = [user("u0", "go"), asst("a1", [text("x  "), thinking()]), prompt]
    assert impl.normalize_for_api(records) == [user("u0", "go"), asst("a1", [text("x")]), prompt]


def test_convert_of_to_provider_output_is_a_fixed_point_with_a_late_system_prompt():
    import msgnorm

    prompt = _system_prompt("s1", "be brief")
    records = [user("u0", "go"), asst("a1", [text("x  ")]), prompt]
    for p in ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock"):
        once = msgnorm.to_provider(records, p)
        messages = once if isinstance(once, list) else once.get("messages", once.get("contents"))
        system = (
            None if isinstance(once, list) else once.get("system", once.get("system_instruction"))
        )
        assert msgnorm.convert(messages, source=p, target=p, system=system) == once, p
