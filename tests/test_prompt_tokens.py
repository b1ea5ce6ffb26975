"""SPEC §6.1 Prompt size, anchored on reported usage."""

from __future__ import annotations

import math
from typing import Any

import msgnorm
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgnorm.model import from_builtins
from support import strategies as S
from support.helpers import asst, system, text, tool_result, tool_use, user

Rec = dict[str, Any]


def anth(prompt: int, output: int) -> dict[str, int]:
    """An Anthropic usage whose prompt is ``prompt`` (split over its three keys)."""
    return {
        "input_tokens": prompt // 10,
        "cache_creation_input_tokens": prompt // 10,
        "cache_read_input_tokens": prompt - 2 * (prompt // 10),
        "output_tokens": output,
    }


def reply(uuid: str, content: Any, mid: str, usage: Any, model: str = "claude-test-1") -> Rec:
    r = asst(uuid, content, mid=mid, model=model)
    if usage is not None:
        r["message"]["usage"] = usage
    return r


def kinds(records: list[Rec]) -> list[Any]:
    """The same history as each input kind: dicts, JSON bytes, JSON str, Structs."""
    data = msgspec.json.encode(records)
    return [records, data, data.decode(), from_builtins(records)]


#: The numbers below are SPEC §6's formula's ("chars"); the families are tested in
#: test_tokenizers.py.
CHARS = {"tokenizer": "chars"}


def _chars(kw: dict[str, Any]) -> dict[str, Any]:
    return kw if kw.keys() - {"system", "tools"} else {**CHARS, **kw}


def prompt(records: list[Rec], **kw: Any) -> int:
    """prompt_tokens of every input kind, which must agree."""
    sizes = {msgnorm.prompt_tokens(r, **_chars(kw)) for r in kinds(records)}
    assert len(sizes) == 1, sizes
    return sizes.pop()


def est(records: list[Rec], **kw: Any) -> int:
    return msgnorm.count_tokens(records, **_chars(kw))


Q = user("u1", "what is in the directory?")
CALL = [text("let me look"), tool_use("t1", "Bash", {"command": "ls"})]
RESULT = user("u2", [tool_result("t1", "a.txt b.txt")])


def test_nothing_reported_is_the_estimate_with_system_and_tools() -> None:
    # §6.1 "Not anchored: the §6 estimate of the records + ceil(chars(system) /
    # chars_per_token) + ceil(chars(J) / chars_per_token) for each tool schema"
    recs = [Q, asst("a1", CALL), RESULT]
    assert prompt(recs) == est(recs)
    tool = {"name": "Bash", "input_schema": {"type": "object"}}
    j = msgspec.json.encode(tool).decode()
    want = est(recs) + math.ceil(len("You are terse.") / 4) + math.ceil(len(j) / 4)
    assert prompt(recs, system="You are terse.", tools=[tool]) == want
    # a list of text blocks is its texts
    assert prompt(recs, system=[text("You are"), text(" terse.")]) == est(recs) + 2 + 2
    # §6 options apply
    assert prompt(recs, chars_per_token=2.0) == est(recs, chars_per_token=2.0)
    assert prompt([]) == 0


def test_anchor_is_the_reported_prompt_plus_reply_plus_what_follows() -> None:
    # §6.1 "Anchored: the anchor's prompt + max(reply output, reply estimate) +
    # the §6 estimate of every other record after the anchor's first record"
    a = reply("a1", CALL, "msg_1", anth(12_000, 40))
    after = [RESULT, user("u3", "and now?")]
    recs = [Q, a, *after]
    assert prompt(recs) == 12_000 + 40 + est(after)
    # an anchored prompt already holds the system prompt and tools
    assert prompt(recs, system="x" * 400, tools=[{"name": "T"}]) == prompt(recs)
    # the latest report anchors
    b = reply("a2", [text("done")], "msg_2", anth(12_500, 9))
    assert prompt([*recs, b]) == 12_500 + max(9, est([b]))


def test_streamed_reply_is_one_request_with_its_largest_output() -> None:
    # §6.1 "they are one request, counted once with the largest reported output"
    parts = [
        reply("a1", [text("thinking about it")], "msg_1", anth(5_000, 1)),
        reply("a2", [tool_use("t1", "Bash", {"command": "ls"})], "msg_1", anth(5_000, 300)),
        reply("a3", [tool_use("t2", "Bash", {"command": "pwd"})], "msg_1", anth(5_000, 120)),
    ]
    results = [user("u2", [tool_result("t1", "x")]), user("u3", [tool_result("t2", "y")])]
    # the tool results interleave with the reply's records, as Claude Code writes them
    recs = [Q, parts[0], parts[1], results[0], parts[2], results[1]]
    assert prompt(recs) == 5_000 + 300 + est(results)


def test_truncated_output_gives_way_to_the_reply_estimate() -> None:
    # §6.1 "the §6 estimate of the reply's own records replaces the reported
    # output where it is larger"
    long = [text("word " * 400)]
    parts = [
        reply("a1", long, "msg_1", anth(800, 2)),
        reply("a2", long, "msg_1", anth(800, 3)),
    ]
    recs = [Q, *parts]
    assert est(parts) > 3
    assert prompt(recs) == 800 + est(parts)


@pytest.mark.parametrize(
    "boundary",
    [
        system("s1", "Conversation compacted", subtype="compact_boundary"),
        user("u9", "Summary of the conversation so far", isCompactSummary=True),
    ],
)
def test_compaction_drops_the_anchor_and_what_came_before(boundary: Rec) -> None:
    # §6.1 "A compaction ... drops the anchor and every record before it"
    a = reply("a1", CALL, "msg_1", anth(150_000, 40))
    after = [boundary, user("u4", "go on")]
    assert prompt([Q, a, RESULT, *after]) == est(after)
    assert prompt([Q, a, RESULT, *after], system="abcd") == est(after) + 1
    # a later report anchors again
    b = reply("a2", [text("ok")], "msg_2", anth(3_000, 5))
    assert prompt([Q, a, RESULT, *after, b]) == 3_000 + max(5, est([b]))


def test_model_switch_estimates_the_whole_history() -> None:
    # §6.1 "A model switch ... drops the anchor but keeps the records"
    a = reply("a1", CALL, "msg_1", anth(9_000, 40))
    other = reply("a2", [text("hello from another model")], "msg_2", None, model="gpt-test")
    recs = [Q, a, RESULT, other]
    assert prompt(recs) == est(recs)
    # "An assistant record that names no model, or the anchor's, does not"
    same = reply("a3", [text("more")], "msg_3", None)
    assert prompt([Q, a, RESULT, same]) == 9_000 + 40 + est([RESULT, same])
    unnamed = asst("a4", [text("more")], mid="msg_4")
    assert prompt([Q, a, RESULT, unnamed]) == 9_000 + 40 + est([RESULT, unnamed])


def test_synthetic_and_empty_usage_report_nothing() -> None:
    # §6.1 "a prompt count > 0"; "<synthetic>" reports nothing
    zero = {"input_tokens": 0, "output_tokens": 0}
    synth = reply("a1", [text("No response requested.")], "msg_s", zero, model="<synthetic>")
    assert prompt([Q, synth]) == est([Q, synth])
    empty = reply("a2", [text("hi")], "msg_e", {"output_tokens": 7})
    assert prompt([Q, empty]) == est([Q, empty])
    # a synthetic record after an anchor is estimated, and does not switch models
    a = reply("a3", [text("ok")], "msg_1", anth(2_000, 10))
    assert prompt([Q, a, synth]) == 2_000 + 10 + est([synth])
    # counts that are not non-negative integers are not read
    bad = reply("a4", [text("ok")], "msg_b", {"input_tokens": -5, "prompt_tokens": "9"})
    assert prompt([Q, bad]) == est([Q, bad])


@pytest.mark.parametrize(
    ("usage", "size"),
    [
        # OpenAI Responses: input_tokens holds the cached tokens
        (
            {
                "input_tokens": 700,
                "output_tokens": 30,
                "input_tokens_details": {"cached_tokens": 600},
            },
            730,
        ),
        # OpenAI Chat
        ({"prompt_tokens": 640, "completion_tokens": 25, "total_tokens": 665}, 665),
        # Gemini
        ({"promptTokenCount": 512, "candidatesTokenCount": 21, "totalTokenCount": 533}, 533),
        # Anthropic, every key
        (anth(1_000, 50), 1_050),
    ],
)
def test_provider_usage_shapes(usage: dict[str, Any], size: int) -> None:
    # §6.1 "Reported usage": Anthropic's, OpenAI Responses', OpenAI Chat's, Gemini's keys
    a = reply("a1", [text("ok")], "msg_1", usage)
    assert prompt([Q, a]) == size


def test_bad_input_is_named() -> None:
    # §6.1 "Bad system ... or tools ... is a MsgnormError naming system[i].text or tools[i]"
    with pytest.raises(msgnorm.MsgnormError, match=r"system\[1\]\.text"):
        msgnorm.prompt_tokens([Q], system=[text("a"), {"type": "text"}])
    with pytest.raises(msgnorm.MsgnormError, match=r"^system: "):
        msgnorm.prompt_tokens([Q], system=5)
    with pytest.raises(msgnorm.MsgnormError, match=r"tools\[0\]"):
        msgnorm.prompt_tokens([Q], tools=["Bash"])
    with pytest.raises(msgnorm.MsgnormError, match=r"tools\[0\]"):
        msgnorm.prompt_tokens([Q], tools=[{"name": object()}])
    with pytest.raises(TypeError):
        msgnorm.prompt_tokens([Q], tokenizer="claude", chars_per_token=4)
    with pytest.raises(ValueError, match="chars_per_token"):
        msgnorm.prompt_tokens([Q], chars_per_token=0)
    # records are checked as count_tokens checks them, on every input kind
    bad = [Q, {"type": "assistant", "uuid": "a1"}]
    for r in (bad, msgspec.json.encode(bad)):
        with pytest.raises(msgnorm.InvalidRecordError) as e:
            msgnorm.prompt_tokens(r)
        assert e.value.index == 1
    with pytest.raises(msgnorm.JSONDecodeError) as j:
        msgnorm.prompt_tokens(b'[{"type": "user",\n  oops}]')
    assert j.value.line == 2


def test_conversation_record_usage() -> None:
    # §6.1 "Conversation.record_usage(usage) ... the assistant records at the end of
    # the history are its reply, or ... the next assistant record appended is"
    conv = msgnorm.Conversation(tokenizer="chars")
    conv.append([Q])
    assert conv.prompt_tokens(system="abcd") == est([Q]) + 1
    conv.record_usage({"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 60})
    # the reply is counted by its reported output until it is appended
    assert conv.prompt_tokens(system="abcd") == 1_000 + 60
    a = asst("a1", CALL, mid="msg_1")
    conv.append([a])
    assert conv.prompt_tokens() == 1_000 + max(60, est([a]))
    conv.append([RESULT])
    assert conv.prompt_tokens() == 1_000 + max(60, est([a])) + est([RESULT])
    # the reply appended before its usage
    b = asst("a2", [text("b" * 2_000)], mid="msg_2")
    conv.append([b])
    conv.record_usage({"prompt_tokens": 1_200, "completion_tokens": 5})
    assert conv.prompt_tokens() == 1_200 + est([b])

    # a provider SDK's usage object, as the API names its fields
    class SdkUsage:
        def model_dump(self, by_alias: bool = False) -> dict[str, int]:
            if by_alias:
                return {"promptTokenCount": 1_500, "candidatesTokenCount": 7}
            return {"prompt_token_count": 1_500, "candidates_token_count": 7}

    conv.record_usage(SdkUsage())
    assert conv.prompt_tokens() == 1_500 + est([b])
    with pytest.raises(msgnorm.MsgnormError, match="usage"):
        conv.record_usage({"output_tokens": 3})
    with pytest.raises(msgnorm.MsgnormError, match="usage"):
        conv.record_usage([1])  # type: ignore[arg-type]


def test_conversation_record_usage_applies_where_it_was_given() -> None:
    # §6.1 "for the request made with the history so far": records appended before
    # it (and never asked about) come before it, records appended after it after it
    a = asst("a1", CALL, mid="msg_1")
    usage = {"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 2}
    lazy, eager = msgnorm.Conversation(tokenizer="chars"), msgnorm.Conversation(tokenizer="chars")
    for conv, ask in ((lazy, False), (eager, True)):
        conv.append([Q])
        if ask:
            conv.prompt_tokens()
        conv.append([a])
        conv.record_usage(usage)
        conv.append([RESULT])
    assert lazy.prompt_tokens() == eager.prompt_tokens() == 1_000 + est([a]) + est([RESULT])
    # given before its reply is appended: the next assistant record is the reply
    pending = msgnorm.Conversation(tokenizer="chars")
    pending.append([Q])
    pending.append([RESULT])
    pending.record_usage(usage)
    pending.append([a, Q])
    assert pending.prompt_tokens() == 1_000 + est([a]) + est([Q])


def test_conversation_saved_reads_the_anchor_again() -> None:
    # §6.1 "a loaded one reads the anchor again from its records"
    conv = msgnorm.Conversation(tokenizer="chars")
    conv.append([Q, reply("a1", CALL, "msg_1", anth(4_000, 50)), RESULT])
    # saved before it was ever asked, and after
    never = msgnorm.Conversation.from_bytes(conv.to_bytes())
    back = msgnorm.Conversation.from_bytes(conv.to_bytes())
    assert back.prompt_tokens() == conv.prompt_tokens() == 4_050 + est([RESULT])
    assert never.prompt_tokens() == 4_050 + est([RESULT])
    again = msgnorm.Conversation.from_bytes(conv.to_bytes())
    again.append([Q])
    assert again.prompt_tokens() == 4_050 + est([RESULT, Q])


def _with_usage(records: list[Rec], draw: Any) -> list[Rec]:
    """``records`` with usage on some assistant records, compactions and model switches."""
    out: list[Rec] = []
    for r in records:
        r = msgspec.json.decode(msgspec.json.encode(r))
        if r.get("type") == "assistant" and isinstance(r.get("message"), dict):
            m = r["message"]
            m["model"] = draw(st.sampled_from(["claude-a", "claude-a", "claude-b", "<synthetic>"]))
            m["id"] = draw(st.sampled_from(["msg_1", "msg_2", "msg_3"]))
            if draw(st.booleans()):
                m["usage"] = draw(
                    st.sampled_from(
                        [
                            anth(draw(st.integers(0, 50_000)), draw(st.integers(0, 400))),
                            {"prompt_tokens": draw(st.integers(1, 9_000)), "completion_tokens": 3},
                            {"promptTokenCount": draw(st.integers(1, 9_000))},
                        ]
                    )
                )
        out.append(r)
        if draw(st.integers(0, 9)) == 0:
            out.append(
                system(f"cb{len(out)}", "Conversation compacted", subtype="compact_boundary")
            )
    return out


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_conversation_prompt_tokens_equals_whole_history(data: st.DataObject) -> None:
    # §6.1 "Conversation.prompt_tokens() is the same over the records appended so far"
    records = _with_usage(data.draw(S.histories(max_events=12)), data.draw)
    conv = msgnorm.Conversation(tokenizer="chars")
    # asked only now and then: it takes in several appends at once
    lazy = msgnorm.Conversation(tokenizer="chars")
    sys_prompt = "You are a careful assistant."
    assert conv.prompt_tokens(system=sys_prompt) == msgnorm.prompt_tokens(
        [], system=sys_prompt, **CHARS
    )
    i = 0
    while i < len(records):
        n = data.draw(st.integers(1, 3))
        conv.append(records[i : i + n])
        lazy.append(records[i : i + n])
        i += n
        history = records[:i]
        assert conv.prompt_tokens() == msgnorm.prompt_tokens(history, **CHARS)
        assert conv.prompt_tokens(system=sys_prompt) == msgnorm.prompt_tokens(
            msgspec.json.encode(history), system=sys_prompt, **CHARS
        )
        if i == len(records) or data.draw(st.integers(0, 3)) == 0:
            assert lazy.prompt_tokens() == msgnorm.prompt_tokens(history, **CHARS)
