"""Responses continuations (docs/PROVIDERS.md, "Responses continuations"):
the ``function_call_output`` items that lead a request continuing a stored
response answer calls the server holds; they are sent as given, and only
``continuation=False`` makes them SPEC §4 step 6 orphans."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest
from hypothesis import given
from hypothesis import strategies as st

R = "openai-responses"


def output(call_id: str, text: str = "done") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def continuation(*call_ids: str) -> list[dict[str, Any]]:
    """A continuation request's input: the outputs of the stored response's
    calls, then the user's next message."""
    return [*(output(c, f"result of {c}") for c in call_ids), user("And tomorrow?")]


def test_a_continuation_comes_back_unchanged_by_default() -> None:
    items = continuation("call_1", "call_2")
    out, report = msgnorm.convert_report(items, source=R, target=R)
    assert out == items
    assert report["orphan_results_removed"] == 0
    # the provider's rules agree: with stored responses the call is the server's
    assert msgnorm.validate(out, R) == []


def test_the_outputs_stay_after_the_system_and_developer_messages() -> None:
    items = [
        {"role": "developer", "content": "Answer in one line."},
        output("call_9", "42"),
        user("Why?"),
    ]
    out = msgnorm.convert(items, source=R, target=R)
    assert [o.get("type") == "function_call_output" for o in out] == [False, True, False]
    assert out[1] == items[1] and out[0]["role"] == "developer"


def test_continuation_false_removes_them_as_orphans() -> None:
    items = continuation("call_1", "call_2")
    out, report = msgnorm.convert_report(items, source=R, target=R, continuation=False)
    assert [o.get("type") for o in out] == ["message"]
    assert report["orphan_results_removed"] == 2


def test_a_stateless_request_has_nothing_to_continue() -> None:
    # the default keeps them only where a stored response can hold the calls
    out, report = msgnorm.convert_report(continuation("call_1"), source=R, target=R, store=False)
    assert all(o.get("type") != "function_call_output" for o in out)
    assert report["orphan_results_removed"] == 1


def test_continuation_true_keeps_results_of_any_source() -> None:
    # Claude Code records whose first turn answers calls made before the history
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_7", "content": "ok"}],
            },
        },
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "next"}},
    ]
    kept = msgnorm.to_provider(records, R, continuation=True)
    assert kept[0] == {"type": "function_call_output", "call_id": "call_7", "output": "ok"}
    # the records were not read from a Responses input: the default drops them
    out, report = msgnorm.to_provider_report(records, R)
    assert all(o.get("type") != "function_call_output" for o in out)
    assert report["orphan_results_removed"] == 1


def test_an_output_later_in_the_input_still_needs_its_call() -> None:
    items = [*continuation("call_1"), output("call_late")]
    out, report = msgnorm.convert_report(items, source=R, target=R, continuation=True)
    assert [o.get("call_id") for o in out if o.get("type") == "function_call_output"] == ["call_1"]
    assert report["orphan_results_removed"] == 1


def test_a_continuation_with_its_own_calls_after_it() -> None:
    items = [
        output("call_1", "Sunny"),
        user("And in Paris?"),
        {"type": "function_call", "call_id": "call_2", "name": "weather", "arguments": "{}"},
        output("call_2", "Rain"),
    ]
    assert msgnorm.convert(items, source=R, target=R) == items


def test_continuation_is_for_the_responses_target() -> None:
    with pytest.raises(ValueError, match="openai-responses"):
        msgnorm.convert(continuation("call_1"), source=R, target="anthropic", continuation=True)
    with pytest.raises(ValueError, match="openai-responses"):
        msgnorm.to_provider([], "openai-chat", continuation=True)


def test_other_targets_cannot_continue_a_stored_response() -> None:
    # Anthropic has no stored responses: the leading result is an orphan there
    out, report = msgnorm.convert_report(continuation("call_1"), source=R, target="anthropic")
    assert report["orphan_results_removed"] == 1
    assert "tool_result" not in str(out)


@given(
    st.lists(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12),
        min_size=1,
        max_size=6,
        unique=True,
    ),
    st.text(min_size=1, max_size=20).filter(str.strip),
)
def test_any_continuation_replays_unchanged(call_ids: list[str], text: str) -> None:
    items = [*(output(f"call_{c}", text) for c in call_ids), user(text)]
    out = msgnorm.convert(items, source=R, target=R)
    assert out == items
    assert all(a is b for a, b in zip(out, items, strict=True))
