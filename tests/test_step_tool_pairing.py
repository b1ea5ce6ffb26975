"""SPEC §4 step 6: Tool pairing (and strict mode)."""

from __future__ import annotations

import pytest
from support.helpers import (
    asst,
    entry,
    meta_user,
    missing,
    progress,
    raises_pairing,
    results_uuid,
    server_tool_use,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
)

ORPHANED = "[Orphaned tool result removed due to conversation resume]"


def test_results_uuid_vector():
    # §4.6: uuid5(NAMESPACE_URL, "msgnorm:tool-results:" + assistant uuid)
    assert results_uuid("a1") == "67c894d2-e546-5a75-b3d9-7b241bcec18a"


def test_orphan_results_in_the_first_record(impl):
    # §4.6: "a user record with list content whose previous output record is not
    # an assistant loses its tool_result blocks; if that empties it, it becomes
    # the text [Orphaned ...] when it is the first output record"
    # (A26: the record keeps its other fields)
    records = [user("r0", [tool_result("t9", "x")], timestamp="T", cwd="/w"), asst("a1", "hi")]
    assert impl.normalize_for_api(records) == [
        user("r0", [text(ORPHANED)], timestamp="T", cwd="/w"),
        asst("a1", [text("hi")]),
    ]


def test_orphan_results_with_other_content(impl):
    # §4.6: the record "loses its tool_result blocks"; not emptied, so it stays
    records = [user("r0", [tool_result("t9"), text("hello")])]
    assert impl.normalize_for_api(records) == [user("r0", [text("hello")])]


def test_missing_results_are_inserted_in_tool_use_order_first(impl):
    # §4.6: "a missing id gets {type: tool_result, tool_use_id, content: "[Tool
    # result missing due to internal error]", is_error: true}, inserted in
    # tool_use order before the existing results"
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2"), tool_use("t3")]),
        user("r1", [tool_result("t2", "two"), text("note")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2"), tool_use("t3")]),
        user("r1", [missing("t1"), missing("t3"), tool_result("t2", "two"), text("note")]),
    ]


def test_existing_results_keep_their_order(impl):
    # A11: existing results keep their relative order after the synthetic ones
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2"), tool_use("t3")]),
        user("r1", [tool_result("t3"), tool_result("t1")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1"), tool_use("t2"), tool_use("t3")]),
        user("r1", [missing("t2"), tool_result("t3"), tool_result("t1")]),
    ]


def test_results_for_other_ids_and_repeats_are_removed(impl):
    # §4.6: "its tool_result blocks for other ids, and repeats of an id, are removed"
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user(
            "r1",
            [tool_result("t1", "first"), tool_result("t9", "other"), tool_result("t1", "again")],
        ),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1", "first")]),
    ]


def test_string_content_becomes_a_text_block_after_the_results(impl):
    # §4.6: "tool_result blocks go first (string content becomes one text block)"
    records = [user("u0", "go"), asst("a1", [tool_use("t1")]), user("u1", "I interrupted")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("u1", [missing("t1"), text("I interrupted")]),
    ]


def test_results_are_moved_first(impl):
    # §4.6: "tool_result blocks go first"
    records = [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [text("see"), tool_result("t1")]),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")]),
        user("r1", [tool_result("t1"), text("see")]),
    ]


def test_record_left_empty_becomes_meta_no_content(impl):
    # §4.6: "If it is left empty it becomes the text (no content) and meta."
    records = [
        user("u0", "go"),
        asst("a1", "plain"),
        user("r1", [tool_result("t9")], timestamp="T"),
    ]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("plain")]),
        meta_user("r1", [text("(no content)")], timestamp="T"),
    ]


def test_no_next_user_record_inserts_synthetic_results(impl):
    # §4.6: "If the assistant has tool_use blocks and the next record is not a
    # user record (or there is none), a meta user record holding only the
    # synthetic results is inserted, with uuid uuid5(...)"; §4: timestamp from
    # its source (A12: the assistant)
    records = [user("u0", "go"), asst("a1", [tool_use("t1")], timestamp="T1"), asst("a2", "after")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [tool_use("t1")], timestamp="T1"),
        {
            "type": "user",
            "uuid": "67c894d2-e546-5a75-b3d9-7b241bcec18a",
            "message": {"role": "user", "content": [missing("t1")]},
            "timestamp": "T1",
            "isMeta": True,
        },
        asst("a2", [text("after")]),
    ]


def test_no_record_at_all_after_the_tool_use(impl):
    # §4.6: "(or there is none)": synthetic results in tool_use order, meta, uuid5
    records = [user("u0", "go"), asst("a7", [text("let me"), tool_use("t1"), tool_use("t2")])]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a7", [text("let me"), tool_use("t1"), tool_use("t2")]),
        meta_user(results_uuid("a7"), [missing("t1"), missing("t2")]),
    ]


def test_assistant_without_tool_use_and_plain_user_untouched(impl):
    # §4.6: the repair applies only "if the assistant has tool_use blocks or the user record has tool_result blocks"
    records = [user("u0", "go"), asst("a1", "hi"), user("u1", "thanks")]
    assert impl.normalize_for_api(records) == [
        user("u0", "go"),
        asst("a1", [text("hi")]),
        user("u1", "thanks"),
    ]


# ---------------------------------------------------------------- strict
# §4.6: "With strict=True nothing is repaired: the first record that step 5's
# first two rules or this step would change raises msgnorm.PairingError (a
# ValueError) naming the record index and the ids." (A9, A10 for which ones)


def test_strict_accepts_a_well_paired_history(impl):
    records = [
        user("u0", "go"),
        asst("a1", [thinking(), tool_use("t1")]),
        user("r1", [tool_result("t1"), text("note")]),
        asst("a2", [thinking()]),  # step 5's fourth rule still applies
        asst("a3", "done"),
    ]
    expected = [
        user("u0", "go"),
        asst("a1", [thinking(), tool_use("t1")]),
        user("r1", [tool_result("t1"), text("note")]),
        asst("a3", [text("done")]),
    ]
    assert impl.normalize_for_api(records, strict=True) == expected
    assert impl.normalize_for_api(records) == expected


def test_pairing_error_is_a_value_error(impl):
    # §4.6: "msgnorm.PairingError (a ValueError)"
    assert issubclass(impl.PairingError, ValueError)


_STRICT_REFUSALS = [
    # §4.6 strict: the orphan rule would change record 0; ids: its results (A10)
    pytest.param(
        [user("r0", [tool_result("t9"), text("x"), tool_result("t8")])],
        0,
        ["t9", "t8"],
        id="orphan",
    ),
    # A10: the user record that would change; ids: missing (tool_use order) then removed
    pytest.param(
        [
            user("u0", "go"),
            asst("a1", [tool_use("t1"), tool_use("t2"), tool_use("t3")]),
            user("r1", [tool_result("t2"), tool_result("t7")]),
        ],
        2,
        ["t1", "t3", "t7"],
        id="missing_result_names_the_user_record",
    ),
    # A10: an assistant with tool_use and no next user record; indices are input indices
    pytest.param(
        [
            progress("p"),
            entry("summary"),
            user("u0", "go"),
            asst("a1", [tool_use("t1"), tool_use("t2")]),
        ],
        3,
        ["t1", "t2"],
        id="no_next_user_names_the_assistant",
    ),
    # §4.6 strict: "repeats of an id, are removed" would change record 2
    pytest.param(
        [
            user("u0", "go"),
            asst("a1", [tool_use("t1")]),
            user("r1", [tool_result("t1"), tool_result("t1")]),
        ],
        2,
        ["t1"],
        id="repeated_result",
    ),
    # A10: when only the order would change, the ids of all its results
    pytest.param(
        [
            user("u0", "go"),
            asst("a1", [tool_use("t1")]),
            user("r1", [text("x"), tool_result("t1")]),
        ],
        2,
        ["t1"],
        id="reorder_only",
    ),
    # §4.6 strict: "its tool_result blocks for other ids ... are removed" would change record 2
    pytest.param(
        [user("u0", "go"), asst("a1", "hi"), user("r1", [tool_result("t1")])],
        2,
        ["t1"],
        id="result_without_tool_use",
    ),
    # §4.5 first rule
    pytest.param(
        [
            user("u0", "go"),
            asst("a1", [tool_use("t1")]),
            user("r1", [tool_result("t1")]),
            asst("a2", [tool_use("t2"), tool_use("t1")]),
            user("r2", [tool_result("t2")]),
        ],
        3,
        ["t1"],
        id="repeated_tool_use",
    ),
    # §4.5 second rule
    pytest.param(
        [user("u0", "go"), asst("a1", [server_tool_use("s1"), text("x")])],
        1,
        ["s1"],
        id="unanswered_server_tool_use",
    ),
    # A10: step 5's checks run over all records before step 6's walk
    pytest.param(
        [
            user("r0", [tool_result("t9"), text("x")]),
            asst("a1", [tool_use("t1"), tool_use("t1")]),
            user("r1", [tool_result("t1")]),
        ],
        1,
        ["t1"],
        id="step5_is_checked_before_step6",
    ),
    # A9: the record carrying the fields of the first fragment (input index 1)
    pytest.param(
        [
            user("u0", "go"),
            asst("a1", [text("x")], mid="m"),
            asst("a2", [tool_use("t1")], mid="m"),
        ],
        1,
        ["t1"],
        id="index_of_a_rejoined_assistant",
    ),
]


@pytest.mark.parametrize(("records", "index", "ids"), _STRICT_REFUSALS)
def test_strict_refuses_what_it_would_repair(impl, records, index, ids):
    """The first record the repair would change, its index and ids (§4.6, A10)."""
    with raises_pairing(impl, index, ids):
        impl.normalize_for_api(records, strict=True)


@pytest.mark.parametrize("strict", [False, True])
def test_strict_default_is_off(impl, strict):
    # §4.6: strict is off unless strict=True
    records = [user("u0", "go"), asst("a1", [tool_use("t1")])]
    if strict:
        with pytest.raises(ValueError):
            impl.normalize_for_api(records, strict=True)
    else:
        assert impl.normalize_for_api(records) == [
            user("u0", "go"),
            asst("a1", [tool_use("t1")]),
            meta_user(results_uuid("a1"), [missing("t1")]),
        ]
