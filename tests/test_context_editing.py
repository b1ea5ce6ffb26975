"""Context editing (issue 15): ``clear_tool_results`` and ``clear_thinking``.

Hand-written cases for every rule, property tests on normalized hypothesis
histories, an oracle comparison with LangChain's ``ClearToolUsesEdit``, and the
example transcripts (and the external corpus when ``MSGNORM_CORPUS`` names it).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from support import external
from support import strategies as S
from support.helpers import redacted, text, thinking, tool_result, tool_use
from support.reference import check_guarantees

P = msgnorm.editing.DEFAULT_PLACEHOLDER
Rec = dict[str, Any]


def user(uuid: str, content: Any) -> Rec:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}}


def assistant(uuid: str, content: Any) -> Rec:
    return {
        "type": "assistant",
        "uuid": uuid,
        "message": {"role": "assistant", "content": content},
    }


def loop_history(n: int, *, names: list[str] | None = None, think: bool = True) -> list[Rec]:
    """A prompt, then ``n`` tool loops (assistant tool_use -> user tool_result), then a reply."""
    recs = [user("u", "please")]
    for i in range(n):
        name = names[i] if names else "Read"
        blocks = [thinking(f"think {i}")] if think else []
        blocks.append(tool_use(f"t{i}", name, {"path": f"/f{i}" * 5}))
        recs.append(assistant(f"a{i}", blocks))
        recs.append(user(f"r{i}", [tool_result(f"t{i}", f"output {i} " * 40)]))
    return recs


def results(out: list[Rec]) -> dict[str, Any]:
    """tool_use_id -> the content of its tool_result."""
    return {
        b["tool_use_id"]: b.get("content")
        for r in out
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b["type"] == "tool_result"
    }


def inputs(out: list[Rec]) -> dict[str, Any]:
    return {
        b["id"]: b["input"]
        for r in out
        if r["type"] == "assistant" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b["type"] == "tool_use"
    }


def cleared_ids(out: list[Rec]) -> set[str]:
    return {k for k, v in results(out).items() if v == P}


def thinking_count(out: list[Rec]) -> int:
    return sum(
        1
        for r in out
        if r["type"] == "assistant" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b["type"] in ("thinking", "redacted_thinking")
    )


def current_loop(recs: list[Rec]) -> list[int]:
    """Indexes of the current tool loop: the last assistant with tool_use, and its answer."""
    for i in range(len(recs) - 1, -1, -1):
        r = recs[i]
        c = r["message"]["content"] if r["type"] == "assistant" else None
        if isinstance(c, list) and any(b.get("type") == "tool_use" for b in c):
            nxt = [i + 1] if i + 1 < len(recs) and recs[i + 1]["type"] == "user" else []
            return [i, *nxt]
    return []


# --------------------------------------------------------------------------
# tool results: hand-written rules
# --------------------------------------------------------------------------


def test_old_results_are_replaced_by_the_placeholder_never_removed() -> None:
    recs = loop_history(6)
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
    # keep=3 (Anthropic's default): t3, t4, t5 keep their results
    assert cleared_ids(out) == {"t0", "t1", "t2"}
    assert results(out)["t3"] == recs[8]["message"]["content"][0]["content"]
    assert len(out) == len(recs)
    assert set(results(out)) == set(results(recs))  # nothing removed
    assert rep["results_cleared"] == 3 and rep["inputs_cleared"] == 0
    assert rep["first_changed"] == 2
    check_guarantees(out)
    assert recs == loop_history(6)  # input not mutated


def test_defaults_match_anthropic_and_langchain() -> None:
    import inspect

    sig = inspect.signature(msgnorm.clear_tool_results)
    assert sig.parameters["trigger"].default == 100_000
    assert sig.parameters["keep"].default == 3
    assert sig.parameters["clear_at_least"].default is None
    assert sig.parameters["clear_tool_inputs"].default is False
    assert sig.parameters["placeholder"].default == "[cleared]"
    assert inspect.signature(msgnorm.clear_thinking).parameters["keep_turns"].default == 1


def test_keep_counts_tool_uses_not_records() -> None:
    recs = [user("u", "go")]
    recs.append(assistant("a0", [tool_use("t0"), tool_use("t1"), tool_use("t2")]))
    recs.append(
        user(
            "r0",
            [tool_result("t0", "x" * 99) for _ in range(1)]
            + [
                tool_result("t1", "y" * 99),
                tool_result("t2", "z" * 99),
            ],
        )
    )
    recs.append(assistant("a1", [tool_use("t3")]))
    recs.append(user("r1", [tool_result("t3", "w" * 99)]))
    recs.append(assistant("a2", [text("done")]))
    out = msgnorm.clear_tool_results(recs, trigger=None, keep=2)
    assert cleared_ids(out) == {"t0", "t1"}
    out = msgnorm.clear_tool_results(recs, trigger=None, keep={"type": "tool_uses", "value": 1})
    assert cleared_ids(out) == {"t0", "t1", "t2"}


def test_the_current_tool_loop_is_never_touched() -> None:
    recs = loop_history(4)
    recs[-2]["message"]["content"].insert(0, redacted())
    out, _rep = msgnorm.clear_tool_results_report(
        recs, trigger=None, keep=0, clear_tool_inputs=True
    )
    assert cleared_ids(out) == {"t0", "t1", "t2"}
    assert out[-2:] == recs[-2:]
    out2 = msgnorm.clear_thinking(out, keep_turns=0)
    assert out2[-2:] == recs[-2:]
    assert thinking_count(out2) == 2  # t3's assistant keeps its thinking and redacted thinking


def test_the_loop_is_the_last_assistant_with_tool_use_even_when_answered_long_ago() -> None:
    recs = [*loop_history(2), assistant("a9", [text("ok")]), user("u9", "thanks")]
    out = msgnorm.clear_tool_results(recs, trigger=None, keep=0)
    assert cleared_ids(out) == {"t0"}


def test_trigger_by_input_tokens_is_strictly_more_than() -> None:
    recs = loop_history(5)
    n = msgnorm.count_tokens(recs)
    assert msgnorm.clear_tool_results(recs, trigger=n) == recs
    assert msgnorm.clear_tool_results(recs, trigger={"type": "input_tokens", "value": n}) == recs
    assert cleared_ids(msgnorm.clear_tool_results(recs, trigger=n - 1)) == {"t0", "t1"}
    # default trigger: 100k tokens
    assert msgnorm.clear_tool_results(recs) == recs


def test_trigger_by_tool_uses() -> None:
    recs = loop_history(5)
    assert msgnorm.clear_tool_results(recs, trigger={"type": "tool_uses", "value": 5}) == recs
    out = msgnorm.clear_tool_results(recs, trigger={"type": "tool_uses", "value": 4})
    assert cleared_ids(out) == {"t0", "t1"}


def test_clear_at_least_clears_all_or_nothing() -> None:
    recs = loop_history(6)
    _, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
    saved = rep["tokens_saved"]
    assert saved > 0
    out, rep2 = msgnorm.clear_tool_results_report(recs, trigger=None, clear_at_least=saved + 1)
    assert out == recs and rep2["first_changed"] is None and rep2["results_cleared"] == 0
    out, rep3 = msgnorm.clear_tool_results_report(
        recs, trigger=None, clear_at_least={"type": "input_tokens", "value": saved}
    )
    assert cleared_ids(out) == {"t0", "t1", "t2"} and rep3["tokens_saved"] == saved


def test_exclude_tools() -> None:
    recs = loop_history(6, names=["Read", "Bash", "Read", "Bash", "Read", "Read"])
    out = msgnorm.clear_tool_results(recs, trigger=None, keep=1, exclude_tools=["Bash"])
    assert cleared_ids(out) == {"t0", "t2", "t4"}


def test_clear_tool_inputs_true_or_by_name() -> None:
    recs = loop_history(5, names=["Read", "Bash", "Read", "Bash", "Read"])
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None, keep=1, clear_tool_inputs=True)
    ins = inputs(out)
    assert [ins[f"t{i}"] for i in range(5)] == [{}, {}, {}, {}, inputs(recs)["t4"]]
    assert rep["inputs_cleared"] == 4
    out = msgnorm.clear_tool_results(recs, trigger=None, keep=1, clear_tool_inputs=["Bash"])
    ins = inputs(out)
    assert ins["t1"] == {} and ins["t3"] == {} and ins["t0"] == inputs(recs)["t0"]
    assert cleared_ids(out) == {"t0", "t1", "t2", "t3"}


def test_nothing_before_the_first_changed_record_changes_byte_for_byte() -> None:
    recs = loop_history(6)
    # keep tool t0, t1 via exclusion: the first change is t2's result
    for i in (1, 3):
        recs[i]["message"]["content"][1]["name"] = "Keep"
    data = json.dumps(recs, indent=None, separators=(", ", ": ")).encode()
    out, rep = msgnorm.clear_tool_results_report(data, trigger=None, exclude_tools=["Keep"])
    assert rep["first_changed"] == 6
    raw_in = msgspec.json.decode(data, type=list[msgspec.Raw])
    raw_out = msgspec.json.decode(out, type=list[msgspec.Raw])
    assert [bytes(r) for r in raw_out[:6]] == [bytes(r) for r in raw_in[:6]]
    assert [bytes(r) for r in raw_out[7:]] == [bytes(r) for r in raw_in[7:]]
    assert bytes(raw_out[6]) != bytes(raw_in[6])


def test_other_record_types_pass_through() -> None:
    recs = loop_history(5)
    recs.insert(2, {"type": "summary", "summary": "s", "leafUuid": "x"})
    recs.insert(4, {"type": "progress", "uuid": "p", "data": {"k": 1}})
    out = msgnorm.clear_tool_results(recs, trigger=None)
    assert out[2] == recs[2] and out[4] == recs[4]
    assert cleared_ids(out) == {"t0", "t1"}


def test_idempotent_and_report_tokens_are_section_6_counts() -> None:
    recs = loop_history(6)
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None, clear_tool_inputs=True)
    assert rep["tokens_before"] == msgnorm.count_tokens(recs)
    assert rep["tokens_after"] == msgnorm.count_tokens(out)
    assert rep["tokens_saved"] == rep["tokens_before"] - rep["tokens_after"]
    again, rep2 = msgnorm.clear_tool_results_report(out, trigger=None, clear_tool_inputs=True)
    assert again == out and rep2["first_changed"] is None and rep2["results_cleared"] == 0


def test_already_cleared_results_do_not_count_toward_clear_at_least() -> None:
    recs = loop_history(6)
    out = msgnorm.clear_tool_results(recs, trigger=None)
    again, rep = msgnorm.clear_tool_results_report(out, trigger=None, clear_at_least=1)
    assert again == out and rep["first_changed"] is None


def test_results_no_bigger_than_the_placeholder_stay() -> None:
    recs = loop_history(5)
    recs[2]["message"]["content"][0]["content"] = "ok"
    del recs[4]["message"]["content"][0]["content"]
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None, keep=1)
    assert cleared_ids(out) == {"t2", "t3"} and out[2] == recs[2] and out[4] == recs[4]
    assert rep["first_changed"] == 6


def test_a_custom_placeholder() -> None:
    out = msgnorm.clear_tool_results(loop_history(5), trigger=None, placeholder="[gone]")
    assert results(out)["t0"] == "[gone]"


def test_results_with_list_content_and_errors() -> None:
    recs = loop_history(5)
    recs[2]["message"]["content"][0] = tool_result(
        "t0",
        [text("a"), {"type": "image", "source": {"type": "base64", "data": "x"}}],
        is_error=True,
    )
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
    blk = out[2]["message"]["content"][0]
    assert blk == {"type": "tool_result", "tool_use_id": "t0", "content": P, "is_error": True}
    assert rep["tokens_saved"] > 1600  # the image's §6 cost is gone


# --------------------------------------------------------------------------
# thinking
# --------------------------------------------------------------------------


def thinking_history() -> list[Rec]:
    return [
        user("u0", "q0"),
        assistant("a0", [thinking("x" * 80), text("r0")]),
        user("u1", "q1"),
        assistant("a1", [redacted("y" * 80), thinking("z"), text("r1")]),
        user("u2", "q2"),
        assistant("a2", [thinking("w" * 80), text("r2")]),
    ]


def test_clear_thinking_keeps_the_last_turns() -> None:
    recs = thinking_history()
    out, rep = msgnorm.clear_thinking_report(recs)
    assert thinking_count(out) == 1 and out[5] == recs[5]
    assert out[1]["message"]["content"] == [text("r0")]
    assert rep["thinking_cleared"] == 3 and rep["first_changed"] == 1
    assert rep["tokens_saved"] > 0
    assert thinking_count(msgnorm.clear_thinking(recs, keep_turns=2)) == 3
    assert msgnorm.clear_thinking(recs, keep_turns="all") == recs
    assert thinking_count(msgnorm.clear_thinking(recs, keep_turns=0)) == 0
    two = msgnorm.clear_thinking(recs, keep_turns={"type": "thinking_turns", "value": 2})
    assert thinking_count(two) == 3


def test_clear_thinking_never_empties_a_content_list() -> None:
    recs = [user("u0", "q"), assistant("a0", [thinking("only")]), user("u1", "q")]
    recs.append(assistant("a1", [text("r")]))
    out, rep = msgnorm.clear_thinking_report(recs, keep_turns=0)
    assert out == recs and rep["first_changed"] is None


def test_clear_thinking_keeps_the_current_loop_thinking() -> None:
    recs = loop_history(3)
    out = msgnorm.clear_thinking(recs, keep_turns=0)
    assert thinking_count(out) == 1 and out[-2:] == recs[-2:]
    # the current loop counts as one of the kept turns
    assert thinking_count(msgnorm.clear_thinking(recs, keep_turns=1)) == 1
    assert thinking_count(msgnorm.clear_thinking(recs, keep_turns=2)) == 2


# --------------------------------------------------------------------------
# input kinds and errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fn", ["clear_tool_results", "clear_thinking"])
def test_three_kinds_agree(fn: str) -> None:
    recs = loop_history(6)
    kw: dict[str, Any] = {"trigger": None} if fn == "clear_tool_results" else {"keep_turns": 0}
    f = getattr(msgnorm, fn)
    out = f(recs, **kw)
    assert json.loads(f(json.dumps(recs).encode(), **kw)) == out
    assert json.loads(f(json.dumps(recs), **kw)) == out
    assert json.loads(f(bytearray(json.dumps(recs).encode()), **kw)) == out
    structs = f(msgnorm.decode(json.dumps(recs)), **kw)
    assert all(isinstance(r, msgnorm.Message) for r in structs)
    assert msgnorm.to_builtins(structs) == out


@pytest.mark.parametrize(
    "kw",
    [
        {"keep": -1},
        {"keep": 1.5},
        {"keep": True},
        {"trigger": -5},
        {"trigger": {"type": "messages", "value": 3}},
        {"keep": {"type": "input_tokens", "value": 3}},
        {"clear_at_least": {"type": "tool_uses", "value": 3}},
        {"exclude_tools": "Bash"},
        {"exclude_tools": [1]},
        {"clear_tool_inputs": "Bash"},
        {"placeholder": ""},
    ],
)
def test_bad_options_raise_msgnorm_error(kw: dict[str, Any]) -> None:
    with pytest.raises(msgnorm.MsgnormError) as e:
        msgnorm.clear_tool_results(loop_history(2), **kw)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("keep_turns", [-1, "some", 2.0, {"type": "tool_uses", "value": 1}])
def test_bad_keep_turns(keep_turns: Any) -> None:
    with pytest.raises(msgnorm.MsgnormError):
        msgnorm.clear_thinking(thinking_history(), keep_turns=keep_turns)


@pytest.mark.parametrize("fn", ["clear_tool_results", "clear_thinking"])
def test_invalid_records_raise_invalid_record_error(fn: str) -> None:
    recs = loop_history(2)
    del recs[3]["uuid"]
    f = getattr(msgnorm, fn)
    for data in (recs, json.dumps(recs), json.dumps(recs).encode()):
        with pytest.raises(msgnorm.InvalidRecordError) as e:
            f(data)
        assert e.value.index == 3 and e.value.path == "records[3].uuid"
    with pytest.raises(msgnorm.InvalidRecordError):
        f(42)
    with pytest.raises(msgnorm.JSONDecodeError):
        f(b"[{")


# --------------------------------------------------------------------------
# properties on normalized hypothesis histories
# --------------------------------------------------------------------------

tool_options = st.fixed_dictionaries(
    {
        "trigger": st.one_of(
            st.none(),
            st.integers(0, 400),
            st.builds(lambda n: {"type": "tool_uses", "value": n}, st.integers(0, 4)),
        ),
        "keep": st.integers(0, 4),
        "clear_at_least": st.one_of(st.none(), st.integers(0, 60)),
        "exclude_tools": st.sampled_from([(), ("Bash",), ("Read", "Écrire")]),
        "clear_tool_inputs": st.one_of(st.booleans(), st.just(["Read"])),
    }
)


def _edit(records: Any, topts: dict[str, Any], keep_turns: Any) -> tuple[Any, int | None]:
    out, r1 = msgnorm.clear_tool_results_report(records, **topts)
    assert r1["tokens_after"] == msgnorm.count_tokens(out)
    assert r1["tokens_before"] == msgnorm.count_tokens(records)
    out, r2 = msgnorm.clear_thinking_report(out, keep_turns=keep_turns)
    assert r2["tokens_after"] == msgnorm.count_tokens(out)
    firsts = [f for f in (r1["first_changed"], r2["first_changed"]) if f is not None]
    return out, min(firsts) if firsts else None


@given(S.histories(), tool_options, st.one_of(st.integers(0, 2), st.just("all")))
def test_properties(history: list[Rec], topts: dict[str, Any], keep_turns: Any) -> None:
    norm = msgnorm.normalize_for_api(history)
    data = msgspec.json.encode(norm)
    before = copy.deepcopy(norm)
    out, first = _edit(norm, topts, keep_turns)
    assert norm == before
    check_guarantees(out)
    # token count never goes up
    assert msgnorm.count_tokens(out) <= msgnorm.count_tokens(norm)
    # idempotent
    assert _edit(out, topts, keep_turns)[0] == out
    # the current tool loop is untouched
    for i in current_loop(norm):
        assert out[i] == norm[i]
    # three kinds agree; nothing before first_changed differs byte for byte
    out_json, first_json = _edit(data, topts, keep_turns)
    assert json.loads(out_json) == out and first_json == first
    raw_in = msgspec.json.decode(data, type=list[msgspec.Raw])
    raw_out = msgspec.json.decode(out_json, type=list[msgspec.Raw])
    assert len(raw_in) == len(raw_out)
    stop = len(raw_in) if first is None else first
    assert [bytes(r) for r in raw_out[:stop]] == [bytes(r) for r in raw_in[:stop]]
    if first is not None:
        assert out[first] != norm[first]
    try:
        structs = msgnorm.decode(data)
    except ValueError:  # the Struct model is stricter than SPEC §1 (e.g. a null uuid field)
        structs = None
    if structs is not None:
        out_structs, _ = _edit(structs, topts, keep_turns)
        assert msgnorm.to_builtins(out_structs) == out
    # normalize_for_api has nothing more to repair
    assert msgnorm.normalize_for_api(out) == out


# --------------------------------------------------------------------------
# oracle: LangChain's ClearToolUsesEdit
# --------------------------------------------------------------------------
#
# The same rule where the two define one: fired, keep N most recent tool uses
# (after normalize_for_api every tool_use has exactly one result, so LangChain's
# "N most recent ToolMessages" is the same set), exclude_tools by name, the
# placeholder "[cleared]", clear_tool_inputs=True sets the tool call's args to {}.
# Differences, tested below:
#  1. msgnorm never touches the current tool loop; LangChain clears its results
#     when keep is smaller than the loop (e.g. keep=0).
#  2. clear_at_least: LangChain clears oldest-first and stops as soon as it has
#     freed that many tokens (by its own counter); msgnorm clears every eligible
#     result or nothing (Anthropic's "if it cannot clear that much, it clears
#     nothing"), by the §6 count. When both clear, LangChain's set is a prefix of ours.
#  3. the trigger: LangChain counts with its own counter (count_tokens_approximately);
#     msgnorm with §6. The oracle comparison fires both unconditionally.
#  4. clear_tool_inputs by tool name: msgnorm only (LangChain takes a bool).


def _langchain() -> Any:
    mod = pytest.importorskip("langchain.agents.middleware.context_editing")
    from support import harness

    return mod, harness.to_langchain


def _lc_state(msgs: list[Any]) -> tuple[set[str], set[str]]:
    from langchain_core.messages import AIMessage, ToolMessage

    cleared = {m.tool_call_id for m in msgs if isinstance(m, ToolMessage) and m.content == P}
    empty_args = {
        c["id"] for m in msgs if isinstance(m, AIMessage) for c in m.tool_calls if c["args"] == {}
    }
    return cleared, empty_args


def _saves(content: Any) -> bool:
    """Replacing a tool_result's content by the placeholder lowers its count (the
    default tokenizer's: the histories here name Claude models)."""
    if content == P:
        return True  # already cleared: the same in both
    a = user("x", [{"type": "tool_result", "tool_use_id": "t", "content": content}])
    b = user("x", [{"type": "tool_result", "tool_use_id": "t", "content": P}])
    # a record of that one block each: the block's estimate and the same per-message tokens
    cost = msgnorm.count_tokens_per_record([a, b], tokenizer="claude")
    return cost[0] > cost[1]


def _results_follow_calls(norm: list[Rec]) -> bool:
    """Every user record's tool results come in the order of the calls before it."""
    calls: list[str] = []
    for r in norm:
        content = r["message"]["content"]
        blocks = content if isinstance(content, list) else []
        if r["type"] == "assistant":
            calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
        else:
            answered = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
            if answered != [c for c in calls if c in answered]:
                return False
    return True


def _loop_ids(norm: list[Rec]) -> set[str]:
    loop = current_loop(norm)
    if not loop:
        return set()
    return {b["id"] for b in norm[loop[0]]["message"]["content"] if b["type"] == "tool_use"}


@st.composite
def tool_histories(draw: Any) -> list[Rec]:
    """Histories dense in tool loops: 1-3 parallel tool uses per turn, results of every size."""
    recs = [user("u", "go")]
    k = 0
    for i in range(draw(st.integers(0, 10))):
        ids = [f"t{k + j}" for j in range(draw(st.integers(1, 3)))]
        k += len(ids)
        names = [draw(st.sampled_from(["Bash", "Read", "Écrire"])) for _ in ids]
        recs.append(
            assistant(
                f"a{i}", [tool_use(t, n, {"q": "x" * 30}) for t, n in zip(ids, names, strict=False)]
            )
        )
        recs.append(
            user(
                f"r{i}",
                [tool_result(t, draw(st.one_of(st.text(max_size=90), st.just(P)))) for t in ids],
            )
        )
        if draw(st.integers(0, 3)) == 0:
            recs.append(assistant(f"b{i}", [text("so")]))
            recs.append(user(f"p{i}", "next"))
    return recs


@given(
    st.one_of(S.histories(max_events=14), tool_histories()),
    st.integers(0, 5),
    st.sampled_from([(), ("Bash",), ("Read", "Écrire")]),
    st.booleans(),
)
def test_oracle_langchain_clear_tool_uses(
    history: list[Rec], keep: int, exclude: tuple[str, ...], clear_inputs: bool
) -> None:
    mod, to_langchain = _langchain()
    norm = msgnorm.normalize_for_api(history)
    # difference 6: `keep` counts tool uses in the order of the calls (msgnorm) or
    # tool messages in the order of the results (LangChain); they agree only where a
    # turn's results come in the order of its calls
    assume(_results_follow_calls(norm))
    out = msgnorm.clear_tool_results(
        norm, trigger=None, keep=keep, exclude_tools=exclude, clear_tool_inputs=clear_inputs
    )
    msgs = to_langchain(norm)
    edit = mod.ClearToolUsesEdit(
        trigger=-1, keep=keep, exclude_tools=exclude, clear_tool_inputs=clear_inputs
    )
    from langchain_core.messages.utils import count_tokens_approximately

    edit.apply(msgs, count_tokens=count_tokens_approximately)
    lc_cleared, lc_empty = _lc_state(msgs)
    loop = _loop_ids(norm)
    ours_empty = {k for k, v in inputs(out).items() if v == {}}
    ours = cleared_ids(out)
    # difference 1: LangChain may clear the current loop, msgnorm never does
    assert ours - loop <= lc_cleared - loop
    # difference 5: msgnorm leaves a result whose clearing would not lower the count
    # (its call's input is cleared all the same)
    orig = results(norm)
    for tid in lc_cleared - loop - ours:
        assert not _saves(orig[tid]), tid
    assert ours_empty - loop == lc_empty - loop
    if keep >= len(loop):
        assert {t for t in lc_cleared if _saves(orig[t])} == ours


def test_oracle_difference_clear_at_least() -> None:
    mod, to_langchain = _langchain()
    from langchain_core.messages.utils import count_tokens_approximately

    recs = loop_history(8)
    msgs = to_langchain(recs)
    mod.ClearToolUsesEdit(trigger=-1, keep=1, clear_at_least=100).apply(
        msgs, count_tokens=count_tokens_approximately
    )
    lc, _ = _lc_state(msgs)
    ours = cleared_ids(msgnorm.clear_tool_results(recs, trigger=None, keep=1, clear_at_least=100))
    # LangChain stops once 100 tokens are freed (two results of ~90 tokens): a prefix
    assert lc == {"t0", "t1"}
    assert ours == {f"t{i}" for i in range(7)}  # msgnorm clears all it may, or nothing
    assert msgnorm.clear_tool_results(recs, trigger=None, keep=1, clear_at_least=10**6) == recs


def test_oracle_difference_current_loop() -> None:
    mod, to_langchain = _langchain()
    from langchain_core.messages.utils import count_tokens_approximately

    recs = loop_history(3)
    msgs = to_langchain(recs)
    mod.ClearToolUsesEdit(trigger=-1, keep=0).apply(msgs, count_tokens=count_tokens_approximately)
    assert _lc_state(msgs)[0] == {"t0", "t1", "t2"}
    assert cleared_ids(msgnorm.clear_tool_results(recs, trigger=None, keep=0)) == {"t0", "t1"}


# --------------------------------------------------------------------------
# the example transcripts and the external corpus
# --------------------------------------------------------------------------

FILES = external.example_files() + external.corpus_files(recursive=False)
test_external_corpus = external.corpus_check


@pytest.mark.parametrize("path", FILES, ids=external.file_id)
def test_corpus_clearing_to_half_keeps_the_guarantees(path: Path) -> None:
    from test_corpus import well_formed

    norm = msgnorm.normalize_for_api(well_formed(path))
    total = msgnorm.count_tokens(norm)
    half = total // 2
    out, rep = msgnorm.clear_tool_results_report(norm, trigger=half, keep=0, clear_tool_inputs=True)
    out = msgnorm.clear_thinking(out, keep_turns=0)
    check_guarantees(out)
    assert msgnorm.normalize_for_api(out) == out
    for i in current_loop(norm):
        assert out[i] == norm[i]
    assert msgnorm.count_tokens(out) <= total
    if rep["tokens_before"] > half and rep["results_cleared"]:
        assert rep["tokens_after"] < rep["tokens_before"]
    # The provider's rules hold on what is sent (rules whose repair is the
    # source's to make, as tool names the API refuses, are left out).
    sent = msgnorm.to_anthropic(out)
    broken = [v for v in msgnorm.validate(sent, provider="anthropic") if v.repair != "none"]
    assert broken == [], broken[:3]


def test_dicts_unchanged_records_are_the_input_objects() -> None:
    recs = loop_history(6)
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
    first = rep["first_changed"]
    assert first == 2
    assert all(out[i] is recs[i] for i in range(first))
    assert out[first] is not recs[first]
    assert out[-1] is recs[-1]
    # a changed record shares its unchanged blocks
    out = msgnorm.clear_tool_results(recs, trigger=None, clear_tool_inputs=True)
    assert out[1]["message"]["content"][0] is recs[1]["message"]["content"][0]
