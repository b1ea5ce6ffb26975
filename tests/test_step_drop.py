"""SPEC §4 step 3: Drop."""

from __future__ import annotations

import msgnorm
from support.helpers import (
    asst,
    entry,
    local_command,
    progress,
    system,
    text,
    tool_use_summary,
    user,
)


def test_non_messages_are_dropped(impl):
    # §4.3: "Drop progress, tool_use_summary, entries, system records other than
    # subtype == "local_command""
    records = [
        entry("summary", summary="S", leafUuid="u0"),
        user("u0", "hi"),
        progress("p1"),
        tool_use_summary("s1"),
        system("s2", "compacted", subtype="compact_boundary"),
        system("s3", "info"),
        entry("file-history-snapshot", messageId="m", snapshot={}),
        entry("queue-operation", operation="enqueue"),
        asst("a1", "ok"),
    ]
    assert impl.normalize_for_api(records) == [user("u0", "hi"), asst("a1", [text("ok")])]


def test_virtual_records_are_dropped(impl):
    # §4.3: "user/assistant records with isVirtual"
    records = [
        user("u0", "hi"),
        asst("av", "x", isVirtual=True),
        user("uv", "y", isVirtual=True),
        asst("a1", "ok"),
    ]
    assert impl.normalize_for_api(records) == [user("u0", "hi"), asst("a1", [text("ok")])]


def test_is_virtual_must_be_true(impl):
    # A3: a flag is set only when it is JSON true
    records = [user("u0", "hi"), asst("a1", "ok", isVirtual=False)]
    assert impl.normalize_for_api(records) == [
        user("u0", "hi"),
        asst("a1", [text("ok")], isVirtual=False),
    ]


def test_synthetic_error_replies_are_dropped(impl):
    # §4.3: "synthetic error replies (assistant with isApiErrorMessage and
    # message.model == "<synthetic>")" - both conditions are needed
    records = [
        user("u0", "hi"),
        asst("e1", "API Error", model="<synthetic>", isApiErrorMessage=True),
        user("u1", "again"),
        asst("e2", "err", model="claude-x", isApiErrorMessage=True),
        user("u2", "third"),
        asst("e3", "synthetic but no error flag", model="<synthetic>"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", [text("hi\n"), text("again")]),
        asst("e2", [text("err")], model="claude-x", isApiErrorMessage=True),
        user("u2", "third"),
        asst("e3", [text("synthetic but no error flag")], model="<synthetic>"),
    ]


def test_local_command_is_kept_as_a_user_record(impl):
    # §4.3 keeps subtype == "local_command"; §4.4 "becomes a user record with the
    # same uuid and timestamp and its content string"; §4: such a record has
    # exactly type, uuid, message, timestamp (level, cwd... are not kept)
    records = [local_command("l1", "out", timestamp="T", level="info", cwd="/x")]
    assert impl.normalize_for_api(records) == [
        {
            "type": "user",
            "uuid": "l1",
            "message": {"role": "user", "content": "out"},
            "timestamp": "T",
        }
    ]


def test_everything_dropped_gives_nothing(impl):
    # §4: "Returns only user and assistant records"
    records = [progress("p"), entry("summary"), system("s", "x"), user("v", "y", isVirtual=True)]
    assert impl.normalize_for_api(records) == []


def test_empty_input(impl):
    # §4: "Returns only user and assistant records" (none here)
    assert impl.normalize_for_api([]) == []


def _prompt(uuid: str, content: str) -> dict[str, object]:
    return {
        "type": "system",
        "subtype": "system_prompt",
        "uuid": uuid,
        "role": "system",
        "content": content,
    }


def test_system_prompt_records_are_kept_in_place(impl):
    # §4.3, amended: "system records other than subtype == "local_command"" are
    # dropped, except a provider's system prompt (subtype == "system_prompt", the
    # records from_provider makes): it is the request's system text, kept where it
    # is; nothing joins across it (§4.4), and §4.10 puts the first user after it
    records = [
        _prompt("p0", "Be brief."),
        user("u0", "hi"),
        asst("a1", "ok"),
        _prompt("p1", "Now in French."),
        user("u1", "more"),
        user("u2", "still more"),
        system("s3", "info"),
    ]
    out = impl.normalize_for_api(records)
    assert [r["type"] for r in out] == ["system", "user", "assistant", "system", "user"]
    assert out[0] == _prompt("p0", "Be brief.") and out[3] == _prompt("p1", "Now in French.")
    first = impl.normalize_for_api([_prompt("p0", "Be brief."), asst("a1", "ok")])
    assert [r["type"] for r in first] == ["system", "user", "assistant"]


def test_a_blank_system_prompt_is_dropped_and_counted(impl):
    # §4.3, amended: a system prompt with no content or only whitespace goes (no
    # provider takes a system text without a non-whitespace character; Anthropic
    # answers "text content blocks must contain non-whitespace text"); counted in
    # blank_texts_removed. A fuzz regression: it stood between two user records.
    no_content = _prompt("p2", "")
    del no_content["content"]
    records = [
        user("u0", "hi"),
        asst("a1", "ok"),
        _prompt("p1", " \t\n"),
        user("u1", "more"),
        no_content,
        asst("a2", "done"),
    ]
    out = impl.normalize_for_api(records)
    assert [r["type"] for r in out] == ["user", "assistant", "user", "assistant"]
    if impl.name == "msgnorm":
        _, report = msgnorm.normalize_for_api_report(records)
        assert report["blank_texts_removed"] == 2 and report["dropped"] == 0
        request = msgnorm.to_provider(out, "anthropic")
        assert (
            msgnorm.validate(request["messages"], "anthropic", system=request.get("system")) == []
        )
    # a prompt of blocks stays: the provider writer checks it block by block
    blocks = _prompt("p3", "")
    blocks["content"] = [{"type": "text", "text": "Be brief."}]
    kept = impl.normalize_for_api([blocks, user("u0", "hi"), asst("a1", "ok")])
    assert [r["type"] for r in kept] == ["system", "user", "assistant"]


def test_claude_code_system_records_are_still_dropped(impl):
    records = [user("u0", "hi"), system("s1", "x", subtype="informational"), asst("a1", "ok")]
    assert impl.normalize_for_api(records) == [user("u0", "hi"), asst("a1", [text("ok")])]
