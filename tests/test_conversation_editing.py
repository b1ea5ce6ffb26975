"""Context editing as a Conversation policy (docs/CONVERSATION.md, "Context editing").

The oracle is a plain model of the policy built on the public one-shot functions:
what earlier events cleared is applied again to `normalize_for_api` of the whole
history; when that is over the trigger, `clear_tool_results` / `clear_thinking`
run on it and, if they free at least `clear_at_least` tokens, what they changed
is kept. After every append the conversation must give exactly the model's
output; the settled output changes only at events, and only from the event's
`first_changed` record on; the current tool loop is never touched.
"""

from __future__ import annotations

import copy
import itertools
import pickle
import random
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import external, generate
from support import strategies as S

PLACEHOLDER = msgnorm.editing.DEFAULT_PLACEHOLDER
THINKING = ("thinking", "redacted_thinking")


def blocks(r: dict[str, Any]) -> list[Any]:
    c = r.get("message", {}).get("content")
    return c if isinstance(c, list) else []


def has_tool_use(r: dict[str, Any]) -> bool:
    return r["type"] == "assistant" and any(b.get("type") == "tool_use" for b in blocks(r))


def current_loop(recs: list[dict[str, Any]]) -> set[int]:
    at = [i for i, r in enumerate(recs) if has_tool_use(r)]
    if not at:
        return set()
    i = at[-1]
    out = {i}
    if i + 1 < len(recs) and recs[i + 1]["type"] == "user":
        out.add(i + 1)
    return out


class Model:
    """The policy, written plainly over the public functions."""

    def __init__(
        self, *, trigger: int, keep: int, least: int, inputs: bool, thinking: int | None
    ) -> None:
        self.trigger, self.keep, self.least = trigger, keep, least
        self.inputs, self.thinking = inputs, thinking
        self.results: set[str] = set()
        self.cleared_inputs: set[str] = set()
        self.no_thinking: set[str] = set()
        self.events = 0

    def apply(self, base: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = copy.deepcopy(base)
        protected = current_loop(out)
        for i, r in enumerate(out):
            if i in protected:
                continue
            bl = blocks(r)
            if r["type"] == "user":
                for j, b in enumerate(bl):
                    if (
                        b.get("type") == "tool_result"
                        and b.get("tool_use_id") in self.results
                        and b.get("content") != PLACEHOLDER
                    ):
                        bl[j] = {**b, "content": PLACEHOLDER}
            elif r["type"] == "assistant":
                for j, b in enumerate(bl):
                    if (
                        b.get("type") == "tool_use"
                        and b.get("id") in self.cleared_inputs
                        and b.get("input") != {}
                    ):
                        bl[j] = {**b, "input": {}}
                if (
                    r.get("uuid") in self.no_thinking
                    and any(b.get("type") in THINKING for b in bl)
                    and not all(b.get("type") in THINKING for b in bl)
                ):
                    r["message"]["content"] = [b for b in bl if b.get("type") not in THINKING]
        return out

    def step(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        pre = self.apply(msgnorm.normalize_for_api(history))
        if msgnorm.count_tokens(pre) <= self.trigger:
            return pre
        post = msgnorm.clear_tool_results(
            pre, trigger=None, keep=self.keep, clear_tool_inputs=self.inputs
        )
        if self.thinking is not None:
            post = msgnorm.clear_thinking(post, keep_turns=self.thinking)
        saved = msgnorm.count_tokens(pre) - msgnorm.count_tokens(post)
        if post == pre or saved < max(self.least, 1):
            return pre
        self.events += 1
        for a, b in zip(pre, post, strict=True):
            if a == b:
                continue
            after = {
                (x.get("type"), x.get("id") or x.get("tool_use_id")): x
                for x in blocks(b)
                if x.get("type") in ("tool_use", "tool_result")
            }
            for x in blocks(a):
                y = after.get((x.get("type"), x.get("id") or x.get("tool_use_id")))
                if y is not None and y != x and x.get("type") == "tool_result":
                    self.results.add(x["tool_use_id"])
                if y is not None and y != x and x.get("type") == "tool_use":
                    self.cleared_inputs.add(x["id"])
            if sum(x.get("type") in THINKING for x in blocks(a)) != sum(
                x.get("type") in THINKING for x in blocks(b)
            ):
                self.no_thinking.add(a["uuid"])
        return post


def raw_records(out: Any) -> list[bytes]:
    return [bytes(r) for r in msgspec.json.decode(msgspec.json.encode(out), type=list[msgspec.Raw])]


def run_against_model(
    history: list[dict[str, Any]], chunks: list[int], **policy: Any
) -> msgnorm.Conversation:
    model = Model(**policy)
    opts: dict[str, Any] = {
        "trigger": policy["trigger"],
        "keep": policy["keep"],
        "clear_tool_inputs": policy["inputs"],
    }
    if policy["least"]:
        opts["clear_at_least"] = policy["least"]
    conv = msgnorm.Conversation(
        kind="dicts",
        clear_tool_results=opts,
        clear_thinking=None if policy["thinking"] is None else policy["thinking"],
    )
    at = 0
    before: list[bytes] = []
    settled_before = 0
    events = 0
    rewrites = 0
    for size in [*chunks, len(history)]:
        piece = history[at : at + max(size, 1)]
        if not piece:
            break
        conv.append(piece)
        at += len(piece)
        out = conv.for_api()
        assert out == model.step(history[:at]), f"after {at} records"
        now = raw_records(out)
        edits = conv.edits
        assert len(edits) == model.events
        if conv.rewrites > rewrites:
            # A rewrite (a tombstone naming a settled record) settles anew from
            # the whole history: no prefix is promised, only the model's output.
            pass
        elif len(edits) == events:
            # No event: the settled output stays byte for byte.
            assert now[:settled_before] == before[:settled_before], f"settled changed at {at}"
        else:
            # An event changes settled output only from its first changed record on.
            first = min(min(e["first_changed"] for e in edits[events:]), settled_before)
            assert now[:first] == before[:first], f"an event changed records before {first}"
            for e in edits[events:]:
                assert e["tokens_saved"] == e["tokens_before"] - e["tokens_after"] > 0
                assert e["input_len"] == at
        # The current tool loop is the normalized history's, untouched.
        base = msgnorm.normalize_for_api(history[:at])
        for i in current_loop(base):
            assert out[i] == base[i]
        # Still what normalize_for_api accepts unchanged (pairing and all).
        assert msgnorm.normalize_for_api(out) == out
        events, rewrites = len(edits), conv.rewrites
        before, settled_before = now, conv.settled_len
    return conv


POLICIES = [
    {"trigger": 3_000, "keep": 3, "least": 0, "inputs": False, "thinking": None},
    {"trigger": 2_000, "keep": 1, "least": 1_500, "inputs": True, "thinking": 1},
    {"trigger": 6_000, "keep": 0, "least": 0, "inputs": False, "thinking": 0},
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", range(len(POLICIES)))
def test_generated_histories_match_the_model(seed: int, policy: int) -> None:
    history = msgspec.json.decode(generate.generate_bytes(400, seed=seed))
    rng = random.Random(seed)
    chunks = [rng.choice([1, 1, 2, 5, 20]) for _ in range(len(history))]
    conv = run_against_model(history, chunks, **POLICIES[policy])
    assert conv.edits, "the policy never fired on a 400-record history"


@settings(max_examples=60, deadline=None)
@given(
    S.histories(max_events=14),
    st.lists(st.sampled_from([1, 2, 3, 8]), max_size=30),
    st.sampled_from(range(len(POLICIES))),
    st.integers(0, 400),
)
def test_random_histories_match_the_model(
    history: list[Any], chunks: list[int], policy: int, trigger: int
) -> None:
    try:
        msgnorm.normalize_for_api(history)
    except msgnorm.MsgnormError:
        return  # strict-mode-like failures are the batch call's to test
    run_against_model(history, chunks, **{**POLICIES[policy], "trigger": trigger})


def tool_loops(n: int, size: int = 400, start: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(start, start + n):
        out.append(
            {
                "type": "assistant",
                "uuid": f"a{i}",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t" * 50, "signature": f"s{i}"},
                        {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"i": i}},
                    ],
                },
            }
        )
        out.append(
            {
                "type": "user",
                "uuid": f"r{i}",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * size}
                    ],
                },
            }
        )
    return out


PROMPT = {"type": "user", "uuid": "u0", "message": {"role": "user", "content": "go"}}


def test_fires_only_when_the_trigger_is_crossed() -> None:
    # SPEC §6's formula: the numbers below are its
    conv = msgnorm.Conversation(clear_tool_results={"trigger": 1_000, "keep": 2}, tokenizer="chars")
    conv.append([PROMPT])
    fired_at = []
    for i in range(30):
        conv.append(tool_loops(1, start=i))
        tokens = conv.count_tokens()
        if len(conv.edits) > len(fired_at):
            fired_at.append(i)
            assert conv.edits[-1]["tokens_before"] > 1_000
            assert conv.edits[-1]["tokens_after"] == tokens
        else:
            assert tokens <= 1_000  # under the trigger: nothing fired, nothing changed
    # ~110 tokens a loop: the first event comes when the 9th loop crosses 1,000.
    assert fired_at[0] == 8
    assert conv.edits[0]["results_cleared"] == 7  # all but the last 2 (one is the open loop)
    # What stays of a cleared loop (its call, its thinking, the placeholder) adds up,
    # so without clear_at_least the events come closer together: the trade-off
    # clear_at_least is for (next test).
    gaps = [b - a for a, b in itertools.pairwise(fired_at)]
    assert gaps[0] >= 4 and gaps[-1] <= 2


def test_clear_at_least_makes_fewer_bigger_events() -> None:
    def run(least: int | None) -> msgnorm.Conversation:
        conv = msgnorm.Conversation(
            clear_tool_results={"trigger": 1_000, "keep": 2, "clear_at_least": least}
        )
        conv.append([PROMPT])
        for i in range(60):
            conv.append(tool_loops(1, start=i))
            conv.for_api()
        return conv

    plain, big = run(None), run(2_000)
    assert len(big.edits) < len(plain.edits)
    assert min(e["tokens_saved"] for e in big.edits) >= 2_000


def test_tool_uses_trigger_counts_uses_not_yet_reached() -> None:
    conv = msgnorm.Conversation(
        clear_tool_results={"trigger": {"type": "tool_uses", "value": 4}, "keep": 1}
    )
    conv.append([PROMPT])
    fired = []
    for i in range(20):
        conv.append(tool_loops(1, start=i))
        conv.for_api()
        fired.append(len(conv.edits))
    # Fires at the 5th use, then again 4 uses later (1 kept + 4 new > 4).
    assert fired[3] == 0 and fired[4] == 1
    assert fired[8] == 2 and fired[7] == 1


def test_thinking_policy_keeps_the_current_loop_and_signed_blocks() -> None:
    conv = msgnorm.Conversation(clear_thinking={"keep_turns": 1, "trigger": 100})
    conv.append([PROMPT, *tool_loops(6, size=10)])
    out = conv.for_api()
    # keep_turns=1: the current loop is the turn kept (its signed thinking goes back).
    assert conv.edits and conv.edits[0]["thinking_cleared"] == 5
    last = [r for r in out if r["type"] == "assistant"][-1]
    assert last["message"]["content"][0] == {
        "type": "thinking",
        "thinking": "t" * 50,
        "signature": "s5",
    }
    assert conv.edits[0]["results_cleared"] == 0


def test_saved_and_restored_with_its_policy() -> None:
    conv = msgnorm.Conversation(clear_tool_results={"trigger": 800, "keep": 2}, clear_thinking=1)
    conv.append([PROMPT, *tool_loops(10)])
    conv.for_api()
    assert conv.edits
    again = msgnorm.Conversation.from_bytes(conv.to_bytes())
    copy_ = pickle.loads(pickle.dumps(conv))
    for c in (again, copy_):
        assert c.for_api() == conv.for_api()
        assert c.edits == conv.edits
        assert c.cache_breakpoints() == conv.cache_breakpoints()
    more = tool_loops(10, start=10)
    conv.append(more)
    again.append(more)
    assert again.for_api() == conv.for_api()
    assert again.edits == conv.edits


def test_bytes_kind_and_structs_kind_agree_with_dicts() -> None:
    history = msgspec.json.decode(generate.generate_bytes(300, seed=7))
    policy = {"trigger": 2_000, "keep": 2}
    outs = []
    for kind in ("dicts", "bytes", "structs"):
        conv = msgnorm.Conversation(kind=kind, clear_tool_results=policy)
        for i in range(0, len(history), 9):
            conv.append(history[i : i + 9])
            conv.for_api()
        outs.append(conv.for_api())
        assert conv.edits
    dicts, raw, structs = outs
    assert msgspec.json.decode(raw) == dicts
    assert structs == msgnorm.decode(msgspec.json.encode(dicts))


def test_cache_breakpoints_are_not_past_an_event() -> None:
    conv = msgnorm.Conversation(clear_tool_results={"trigger": 3_000, "keep": 2})
    history = msgspec.json.decode(generate.generate_bytes(500, seed=3))
    seen = 0
    for i in range(0, len(history), 5):
        conv.append(history[i : i + 5])
        conv.for_api()
        edits = conv.edits
        if len(edits) > seen:
            # Right after an event, no breakpoint lies at or past its first change.
            first = min(e["first_changed"] for e in edits[seen:])
            assert all(b < first for b in conv.cache_breakpoints())
            seen = len(edits)
    assert seen


def test_bad_policies_are_clear_errors() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="unknown option 'kep'"):
        msgnorm.Conversation(clear_tool_results={"kep": 3})
    with pytest.raises(msgnorm.MsgnormError, match="keep must be an int"):
        msgnorm.Conversation(clear_tool_results={"keep": -1})
    with pytest.raises(msgnorm.MsgnormError, match="clear_tool_results must be True or a dict"):
        msgnorm.Conversation(clear_tool_results=3)  # type: ignore[arg-type]
    with pytest.raises(msgnorm.MsgnormError, match="govern both"):
        msgnorm.Conversation(clear_tool_results=True, clear_thinking={"trigger": 5})


def test_no_policy_no_edits() -> None:
    conv = msgnorm.Conversation()
    conv.append([PROMPT, *tool_loops(50)])
    assert conv.for_api() == msgnorm.normalize_for_api([PROMPT, *tool_loops(50)])
    assert conv.edits == []


TRANSCRIPTS = external.example_files() + external.corpus_files()
test_external_corpus = external.corpus_check


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=external.file_id)
def test_corpus_replayed_turn_by_turn_matches_the_model(path: Path) -> None:
    """Each real transcript's main thread, one record at a time, with a policy that
    fires at a third of its tokens."""
    history = msgnorm.load_session(path).records
    total = msgnorm.count_tokens(msgnorm.normalize_for_api(history))
    policy = {"trigger": max(total // 3, 1), "keep": 1, "least": 0, "inputs": True, "thinking": 1}
    run_against_model(history, [1] * len(history), **policy)


def test_an_event_and_a_rewrite_in_one_append() -> None:
    # A tombstone naming a settled record (a rewrite) arrives in the same append
    # whose records cross the trigger (an event). The rewrite settles anew from
    # the whole history, so the output is the model's but no settled prefix is
    # promised; the event is still counted once.
    def rec(i: int, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
        parent = None if i == 1 else f"rec_{i - 1:03}"
        r = {"type": kind, "uuid": f"rec_{i:03}", "parentUuid": parent, "sessionId": "s1"}
        return {**r, "message": {"role": kind, "content": content}, "isMeta": True, **extra}

    thinking = {"type": "thinking", "thinking": "", "signature": "EqQBCkgIARA"}
    usage = {"input_tokens": 12, "output_tokens": 1 << 40}

    def reply(i: int, content: list[Any]) -> dict[str, Any]:
        r = rec(i, "assistant", content, requestId="req_1")
        r["message"].update(type="message", id="msg_01", model="claude-sonnet-4-5", usage=usage)
        return r

    history = [
        {"type": "tombstone", "message": {"uuid": "gone", "role": "assistant", "content": []}},
        *(rec(i, "user", "") for i in (1, 2, 3)),
        reply(4, [thinking]),
        reply(5, [{"type": "text", "text": ""}]),
        reply(6, [thinking, {"type": "text", "text": "a"}]),
        {
            "type": "system",
            "uuid": "rec_007",
            "parentUuid": "rec_006",
            "sessionId": "s1",
            "subtype": "local_command",
            "content": "",
            "level": "info",
            "isMeta": False,
        },
        rec(8, "user", "0"),
        {"type": "tombstone", "message": {"uuid": "rec_001", "role": "assistant", "content": []}},
        *(rec(i, "user", "") for i in (9, 10, 11, 12)),
        {
            "type": "attachment",
            "uuid": "rec_013",
            "parentUuid": "rec_012",
            "sessionId": "s1",
            "attachment": {"type": "queued_command", "prompt": ""},
        },
    ]
    policy = {"trigger": 33, "keep": 0, "least": 0, "inputs": False, "thinking": 0}
    conv = run_against_model(history, [1, 1, 1, 3, 3], **policy)
    assert conv.rewrites == 1
    assert len(conv.edits) == 1


def test_a_cleared_loop_that_is_current_again_comes_back() -> None:
    # An event clears the first loop's result (the second loop is current);
    # then a tombstone removes the second loop's reply, so the first loop is
    # the current one again. The current loop is never touched: its result
    # comes back, which changes settled output, so it is a rewrite.
    def loop(i: int, result: str) -> list[dict[str, Any]]:
        use = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}}
        res = {"type": "tool_result", "tool_use_id": f"t{i}", "content": result}
        return [
            {
                "type": "assistant",
                "uuid": f"a{i}",
                "message": {"role": "assistant", "content": [use]},
            },
            {"type": "user", "uuid": f"r{i}", "message": {"role": "user", "content": [res]}},
        ]

    def say(kind: str, uuid: str, text: str) -> dict[str, Any]:
        return {"type": kind, "uuid": uuid, "message": {"role": kind, "content": text}}

    tombstone = {"type": "tombstone", "message": {"uuid": "a2", "role": "assistant", "content": []}}
    history = [
        say("user", "u1", "read it"),
        *loop(1, "x" * 400),
        say("assistant", "d1", "done"),
        say("user", "u2", "and the other"),
        *loop(2, "y" * 400),
        tombstone,
    ]
    policy = {"trigger": 50, "keep": 1, "least": 0, "inputs": False, "thinking": None}
    conv = run_against_model(history, [1, 2, 2, 2], **policy)
    assert len(conv.edits) == 1 and conv.edits[0]["results_cleared"] == 1
    assert conv.rewrites == 1
    out = conv.for_api()
    assert out[2]["message"]["content"][0]["content"] == "x" * 400
