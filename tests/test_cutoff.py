"""SPEC §7 Safe cut-off and trimming."""

from __future__ import annotations

import pytest
from support.helpers import asst, entry, meta_user, text, tool_result, tool_use, user

# With chars_per_token=1 and tokens_per_message=0 a record costs its characters.
KW = {"chars_per_token": 1.0, "tokens_per_message": 0}


def history() -> list:
    return [
        user("u0", "aaaa"),  # 0: 4, turn start
        asst("a1", [text("bb")]),  # 1: 2
        user("u1", "cccc"),  # 2: 4, turn start
        asst("a2", [tool_use("t1", "x", {})]),  # 3: 1
        user("r1", [tool_result("t1", "dd")]),  # 4: 2, not a turn start
        asst("a3", [text("ee")]),  # 5: 2
        user("u2", "ff"),  # 6: 2, turn start
        asst("a4", [text("g")]),  # 7: 1
    ]  # total 18


def test_everything_fits(impl):
    # §7: "the smallest k such that the first pin records plus records[k:] cost
    # at most max_tokens, where k == pin or records[k] is a turn start"
    assert impl.count_tokens_per_record(history(), **KW) == [4, 2, 4, 1, 2, 2, 2, 1]
    assert impl.find_cutoff(history(), 18, **KW) == 0
    assert impl.find_cutoff(history(), 10**6, **KW) == 0


def test_cut_at_a_turn_start(impl):
    # records[2:] costs 12, records[6:] costs 3
    assert impl.find_cutoff(history(), 17, **KW) == 2
    assert impl.find_cutoff(history(), 12, **KW) == 2


def test_cut_between_call_and_result_moves_to_next_turn_start(impl):
    # §7: "(so a tool_use is never separated from its result)": records[3:]
    # (cost 8) or records[4:] (cost 7) would fit 11, but 4 is a tool_result and
    # 3 and 5 are assistants: the next turn start is 6
    assert impl.find_cutoff(history(), 11, **KW) == 6
    assert impl.find_cutoff(history(), 8, **KW) == 6
    assert impl.find_cutoff(history(), 3, **KW) == 6


def test_budget_error(impl):
    # §7: "msgnorm.BudgetError (a ValueError) if there is none" (A21: k == len
    # is no candidate, the last turn is always kept)
    assert issubclass(impl.BudgetError, ValueError)
    with pytest.raises(impl.BudgetError):
        impl.find_cutoff(history(), 2, **KW)
    with pytest.raises(ValueError):
        impl.find_cutoff(history(), -1, **KW)


def test_pin(impl):
    # pinned cost 4: k == pin (1) costs 4 + 14; turn starts 2 (4 + 12), 6 (4 + 3)
    assert impl.find_cutoff(history(), 18, pin=1, **KW) == 1
    assert impl.find_cutoff(history(), 17, pin=1, **KW) == 2
    assert impl.find_cutoff(history(), 16, pin=1, **KW) == 2
    assert impl.find_cutoff(history(), 15, pin=1, **KW) == 6
    assert impl.find_cutoff(history(), 7, pin=1, **KW) == 6
    with pytest.raises(impl.BudgetError):
        impl.find_cutoff(history(), 6, pin=1, **KW)


def test_pin_at_a_non_turn_start(impl):
    # k == pin is always a candidate, whatever records[pin] is: pinned 11 + 7
    assert impl.find_cutoff(history(), 18, pin=4, **KW) == 4
    assert impl.find_cutoff(history(), 17, pin=4, **KW) == 6


def test_pin_everything(impl):
    # §7: k == pin == len(records): the pinned records alone
    n = len(history())
    assert impl.find_cutoff(history(), 18, pin=n, **KW) == n
    with pytest.raises(impl.BudgetError):
        impl.find_cutoff(history(), 17, pin=n, **KW)


@pytest.mark.parametrize("pin", [-1, 9])
def test_pin_out_of_range(impl, pin):
    # A21
    with pytest.raises(ValueError):
        impl.find_cutoff(history(), 100, pin=pin, **KW)


def test_default_counting(impl):
    # default §6 parameters: 4 chars per token + 3 per message
    records = [user("u0", "x" * 40), asst("a1", "y" * 40), user("u1", "z" * 4), asst("a2", "w")]
    # costs 13, 13, 4, 4
    assert impl.count_tokens_per_record(records) == [13, 13, 4, 4]
    assert impl.find_cutoff(records, 34) == 0
    assert impl.find_cutoff(records, 33) == 2


def test_non_messages_are_free_and_not_turn_starts(impl):
    # §6: "0 for records other than user/assistant"; §7: only user records are turn starts
    records = [
        user("u0", "aaaa"),
        entry("summary"),
        asst("a1", "b"),
        entry("custom-title"),
        user("u1", "c"),
    ]
    assert impl.count_tokens_per_record(records, **KW) == [4, 0, 1, 0, 1]
    assert impl.find_cutoff(records, 6, **KW) == 0
    assert impl.find_cutoff(records, 5, **KW) == 4
    with pytest.raises(impl.BudgetError):
        impl.find_cutoff(records, 0, **KW)


def test_meta_user_is_a_turn_start(impl):
    # §7: "A turn start is a user record with no tool_result block."
    records = [user("u0", "aaaa"), asst("a1", "b"), meta_user("m", "c"), asst("a2", "d")]
    assert impl.find_cutoff(records, 2, **KW) == 2


# ---------------------------------------------------------------- trim_to_budget


def test_trim(impl):
    # §7: "trim_to_budget(records, max_tokens, pin=0, ...) returns records[:pin] + records[k:]"
    assert impl.trim_to_budget(history(), 11, **KW) == history()[6:]
    assert impl.trim_to_budget(history(), 12, **KW) == history()[2:]
    assert impl.trim_to_budget(history(), 18, **KW) == history()


def test_trim_merges_users_at_the_joint(impl):
    # §7: "user-merging the two records at the joint if both are user records"
    # (§4.4 user merge: seam, a's fields)
    assert impl.trim_to_budget(history(), 15, pin=1, **KW) == [
        user("u0", [text("aaaa\n"), text("ff")]),
        asst("a4", [text("g")]),
    ]


def test_trim_joint_merge_uses_the_uuid_rule(impl):
    # §4.4: uuid is b's if a is meta; isMeta absent unless both meta
    records = [meta_user("sys", "rules"), asst("a1", "xx"), user("u1", "q"), asst("a2", "y")]
    assert impl.trim_to_budget(records, 7, pin=1, **KW) == [
        user("u1", [text("rules\n"), text("q")]),
        asst("a2", "y"),
    ]


def test_trim_without_a_cut_does_not_merge(impl):
    # A21: the joint merge happens only when something was cut
    records = [user("u0", "a"), user("u1", "b")]
    assert impl.trim_to_budget(records, 100, pin=1, **KW) == records


def test_trim_joint_user_then_assistant(impl):
    # pinned 6 + records[6:] 3
    assert impl.trim_to_budget(history(), 9, pin=2, **KW) == [*history()[:2], *history()[6:]]


def test_trim_budget_error(impl):
    # §7: find_cutoff's BudgetError
    with pytest.raises(impl.BudgetError):
        impl.trim_to_budget(history(), 2, **KW)


# ---------------------------------------------------------------- split_for_summary


def test_split_for_summary(impl):
    # §7: "returns (records[pin:k], records[k:]) with k = find_cutoff(records,
    # keep_tokens, pin=pin, ...)"
    h = history()
    assert impl.split_for_summary(h, 11, **KW) == (h[:6], h[6:])
    assert impl.split_for_summary(h, 12, **KW) == (h[:2], h[2:])
    assert impl.split_for_summary(h, 100, **KW) == ([], h)
    # "the pinned records are the caller's"
    assert impl.split_for_summary(h, 7, pin=1, **KW) == (h[1:6], h[6:])


def test_split_for_summary_budget_error(impl):
    # §7: k = find_cutoff(...), which raises BudgetError
    with pytest.raises(impl.BudgetError):
        impl.split_for_summary(history(), 1, **KW)
