"""SPEC §5 Attachment rendering."""

from __future__ import annotations

import pytest
from support.helpers import asst, attachment, date_att, reminder, text, tool_result, tool_use, user


@pytest.mark.parametrize(
    ("att", "expected"),
    [
        # §5 built-in templates
        (
            {"type": "memory", "path": "/p/CLAUDE.md", "content": "be nice"},
            "Contents of /p/CLAUDE.md:\n\nbe nice",
        ),
        (
            {"type": "nested_memory", "path": "a/CLAUDE.md", "content": "x", "extra": 1.5},
            "Contents of a/CLAUDE.md:\n\nx",
        ),
        (
            {"type": "edited_text_file", "filename": "a.py", "snippet": "1: x = 1"},
            "a.py was modified by the user or a tool. The relevant changes:\n1: x = 1",
        ),
        ({"type": "date", "date": "2025-01-02"}, "Today's date is 2025-01-02."),
        ({"type": "queued_command", "prompt": "run tests"}, "run tests"),
        # "any other type with a string content": {content}
        ({"type": "hook_additional_context", "content": "extra ✓ 😀"}, "extra ✓ 😀"),
        # §5: "an integer as its decimal digits"
        ({"type": "date", "date": 20250102}, "Today's date is 20250102."),
        ({"type": "date", "date": -3}, "Today's date is -3."),
        ({"type": "date", "date": 2**80}, "Today's date is 1208925819614629174706176."),
        # A17: an empty string field still renders (to the wrapped empty text)
        ({"type": "queued_command", "prompt": ""}, ""),
    ],
)
def test_builtin_templates(impl, att, expected):
    # §5: "The text is wrapped as "<system-reminder>\n" + text + "\n</system-reminder>""
    assert (
        impl.render_attachment(att, None)
        == "<system-reminder>\n" + expected + "\n</system-reminder>"
    )


@pytest.mark.parametrize(
    "att",
    [
        # §5: "a missing field or any other value (float, boolean, null, object,
        # array) means the attachment renders to nothing"
        {"type": "date"},
        {"type": "date", "date": 1.5},
        {"type": "date", "date": 3.0},
        {"type": "date", "date": True},
        {"type": "date", "date": False},
        {"type": "date", "date": None},
        {"type": "date", "date": {"y": 2025}},
        {"type": "date", "date": ["2025"]},
        {"type": "memory", "content": "no path"},
        # any other type *with a string content*, else no template
        {"type": "hook_success"},
        {"type": "hook_success", "content": 5},
        {"type": "hook_success", "content": None},
        {"type": "plan_mode", "planExists": True},
    ],
)
def test_renders_to_nothing(impl, att):
    assert impl.render_attachment(att, None) is None


def test_custom_template_added(impl):
    # §5: "Callers pass attachment_templates={type: template or None} to add,
    # replace or (with None) disable templates."
    templates = {"todo": "TODO: {item} ({count})"}
    att = {"type": "todo", "item": "milk", "count": 3}
    assert impl.render_attachment(att, templates) == reminder("TODO: milk (3)")


def test_custom_template_replaces_a_builtin(impl):
    # §5: "to add, replace or (with None) disable templates"
    assert impl.render_attachment(
        {"type": "date", "date": "D"}, {"date": "Date: {date}"}
    ) == reminder("Date: D")


def test_none_disables_a_builtin(impl):
    # §5: "(with None) disable templates"
    assert impl.render_attachment({"type": "date", "date": "D"}, {"date": None}) is None


def test_none_disables_the_content_fallback(impl):
    # §5: "(with None) disable templates" - also the {content} fallback
    assert impl.render_attachment({"type": "foo", "content": "x"}, {"foo": None}) is None


def test_other_templates_are_unaffected(impl):
    # §5: only the named types change
    assert impl.render_attachment(
        {"type": "queued_command", "prompt": "p"}, {"date": None}
    ) == reminder("p")


def test_literal_braces(impl):
    # §5: "({{ and }} are literal braces)"
    templates = {"x": "{{literal}} {v} }}{{{v}}}"}
    assert impl.render_attachment({"type": "x", "v": "V"}, templates) == reminder(
        "{literal} V }{V}"
    )


def test_field_names_are_top_level(impl):
    # §5: "{field} naming a top-level field of the attachment"
    templates = {"x": "{a.b}"}
    assert impl.render_attachment({"type": "x", "a": {"b": "no"}}, templates) is None
    assert impl.render_attachment({"type": "x", "a.b": "yes"}, templates) == reminder("yes")


def test_the_type_field_itself(impl):
    # §5: "{field} naming a top-level field of the attachment" - type is one
    assert impl.render_attachment({"type": "x"}, {"x": "[{type}]"}) == reminder("[x]")


def test_template_without_fields(impl):
    # §5: a template need not name any field
    assert impl.render_attachment({"type": "plan_mode"}, {"plan_mode": "Plan mode."}) == reminder(
        "Plan mode."
    )


@pytest.mark.parametrize("template", ["{unclosed", "a } b", "}", "{a{b}"])
def test_malformed_template_raises(impl, template):
    # A17: a lone "}" or an unclosed "{" is a malformed template -> ValueError
    with pytest.raises(ValueError):
        impl.render_attachment({"type": "x", "a": "1"}, {"x": template})


def test_malformed_template_raises_up_front(impl):
    # A17: checked up front, even when no attachment uses it
    with pytest.raises(ValueError):
        impl.normalize_for_api([user("u0", "hi")], attachment_templates={"x": "{oops"})


# ---------------------------------------------------------------- through §4


def test_templates_in_normalize_for_api(impl):
    # §4.4 "an attachment renders to text (§5)" with the caller's templates
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1")]),
        attachment("x", {"type": "todo", "item": "milk"}),
        date_att("d"),
    ]
    out = impl.normalize_for_api(records, attachment_templates={"todo": "Buy {item}", "date": None})
    assert out == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1"), text(reminder("Buy milk"))]),
    ]


def test_float_field_in_json(impl):
    # §5: a float (even 2.0) renders to nothing; JSON bytes keep 2.0 a float
    records = [user("u0", "go"), asst("a1", "ok"), date_att("d", 2.0), date_att("e", 2)]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("ok")]),
        {
            "type": "user",
            "uuid": "e",
            "message": {"role": "user", "content": [text(reminder("Today's date is 2."))]},
            "isMeta": True,
        },
    ]
