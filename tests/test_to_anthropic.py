"""SPEC §4 end: to_anthropic."""

from __future__ import annotations

from support.helpers import asst, image, progress, raises_invalid, text, tool_result, tool_use, user


def test_maps_role_and_content(impl):
    # §4: "to_anthropic(records) maps each record to {"role": type, "content":
    # message.content}"
    records = [
        user("u0", "hi", isMeta=True, timestamp="T"),
        asst("a1", [text("x"), tool_use("t1")], mid="m"),
        user("r1", [tool_result("t1", [image()])]),
    ]
    assert impl.to_anthropic(records) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [text("x"), tool_use("t1")]},
        {"role": "user", "content": [tool_result("t1", [image()])]},
    ]


def test_of_normalized_output(impl):
    # §4: "the messages parameter of the Anthropic Messages API"
    out = impl.normalize_for_api([user("u0", "go"), asst("a1", [tool_use("t1")])])
    assert impl.to_anthropic(out) == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [tool_use("t1")]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "[Tool result missing due to internal error]",
                    "is_error": True,
                }
            ],
        },
    ]


def test_empty(impl):
    # §4: "maps each record" - none
    assert impl.to_anthropic([]) == []


def test_non_message_records_raise(impl):
    # A19: only user/assistant records
    with raises_invalid(impl, 1, "records[1].type"):
        impl.to_anthropic([user("u0", "hi"), progress("p")])
