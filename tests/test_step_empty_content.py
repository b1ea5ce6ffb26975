"""SPEC §4 step 9: empty non-last assistant content."""

from __future__ import annotations

from support.helpers import asst, text, user


def test_empty_assistant_not_last(impl):
    # §4.9: "An assistant record that is not last and has empty content gets (no content)." (A16)
    for content in ("", None, []):
        records = [user("u0", "go"), asst("a1", content), user("u1", "q")]
        assert impl.normalize_for_api(records) == [
            user("u0", "go"),
            asst("a1", [text("(no content)")]),
            user("u1", "q"),
        ]


def test_empty_assistant_before_another_assistant(impl):
    # §4.9: "An assistant record that is not last and has empty content gets (no content)."
    records = [user("u0", "go"), asst("a1", []), asst("a2", "x")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("(no content)")]),
        asst("a2", [text("x")]),
    ]


def test_last_empty_assistant_gets_step_8_text(impl):
    # §4.8 handles the last one: [No message content], not (no content)
    records = [user("u0", "go"), asst("a1", []), asst("a2", None)]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("(no content)")]),
        asst("a2", [text("[No message content]")]),
    ]
