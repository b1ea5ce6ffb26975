"""msgnorm.Conversation (docs/CONVERSATION.md): after every append, exactly the batch
normalize_for_api of the history so far; settled output byte-identical across later
appends (unless a counted rewrite); cached counts, trimming and splitting equal the
batch functions; state saved and restored; safe from several threads."""

from __future__ import annotations

import json
import pickle
import random
import threading
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from support import external, generate
from support import strategies as S

TRANSCRIPTS = external.example_files() + external.corpus_files()
test_external_corpus = external.corpus_check


def lines_of(records: list[Any]) -> list[bytes]:
    return [msgspec.json.encode(r) for r in records]


def batch(lines: list[bytes], **opts: Any) -> bytes:
    out: bytes = msgnorm.normalize_for_api(b"[" + b",".join(lines) + b"]", **opts)
    return out


def settled_part(conv: msgnorm.Conversation) -> list[bytes]:
    raw = conv.for_api() if conv.kind == "bytes" else msgspec.json.encode(conv.for_api())
    recs = msgspec.json.decode(raw, type=list[msgspec.Raw])
    return [bytes(r) for r in recs[: conv.settled_len]]


def replay(lines: list[bytes], chunks: list[int], **opts: Any) -> msgnorm.Conversation:
    """Appends `lines` in chunks; after each: the batch result, and settled output kept."""
    conv = msgnorm.Conversation(kind="bytes", **opts)
    at = 0
    settled: list[bytes] = []
    rewrites = 0
    for size in [*chunks, len(lines)]:
        piece = lines[at : at + max(size, 1)]
        if not piece:
            break
        conv.append(b"\n".join(piece))
        at += len(piece)
        assert conv.for_api() == batch(lines[:at], **opts), f"after {at} records"
        now = settled_part(conv)
        if conv.rewrites == rewrites:
            assert now[: len(settled)] == settled, f"settled output changed at {at}"
        rewrites = conv.rewrites
        settled = now
    return conv


@pytest.mark.parametrize("seed", range(6))
def test_one_record_at_a_time_equals_batch(seed: int) -> None:
    lines = generate.generate_bytes(700, seed=seed, jsonl=True).splitlines()
    conv = replay(lines, [1] * len(lines))
    assert conv.settled_len > len(conv) // 2  # most of the history settles
    assert conv.rewrites == 0


@pytest.mark.parametrize("seed", range(4))
def test_random_chunks_and_options(seed: int) -> None:
    rng = random.Random(seed)
    lines = generate.generate_bytes(900, seed=100 + seed, jsonl=True).splitlines()
    chunks = [rng.choice([1, 2, 3, 7, 30]) for _ in range(len(lines))]
    replay(lines, chunks, short_ids=True, max_media=None, ensure_user_first=seed % 2 == 0)


@settings(max_examples=150, deadline=None)
@given(S.histories(max_events=14), S.api_options(), st.randoms(use_true_random=False))
def test_hypothesis_histories(records: list[Any], opts: dict[str, Any], rng: Any) -> None:
    lines = lines_of(records)
    chunks = [rng.choice([1, 1, 2, 5]) for _ in range(len(lines))]
    try:
        expected_final = batch(lines, **opts)
    except msgnorm.MsgnormError:
        expected_final = None
    conv = msgnorm.Conversation(kind="bytes", **opts)
    at = 0
    for size in chunks:
        piece = lines[at : at + size]
        if not piece:
            break
        conv.append(b"\n".join(piece))
        at += len(piece)
        try:
            want: Any = batch(lines[:at], **opts)
        except msgnorm.MsgnormError as e:
            want = (type(e), getattr(e, "index", None), getattr(e, "ids", None))
        try:
            got: Any = conv.for_api()
        except msgnorm.MsgnormError as e:
            got = (type(e), getattr(e, "index", None), getattr(e, "ids", None))
        assert got == want
    if expected_final is not None and at == len(lines):
        assert conv.for_api() == expected_final


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=external.file_id)
def test_corpus_sessions_turn_by_turn(path: Path) -> None:
    records = msgnorm.load_session(path).records
    replay(lines_of(records), [1] * len(records))


def test_kinds() -> None:
    records = msgspec.json.decode(generate.generate_bytes(400, seed=7))
    conv = msgnorm.Conversation(records[:200])
    assert conv.kind == "dicts"
    conv.append(records[200:])
    assert conv.for_api() == msgnorm.normalize_for_api(records)
    text = msgnorm.Conversation(generate.generate_bytes(300, seed=8).decode())
    assert isinstance(text.for_api(), str)
    structs = msgnorm.decode(generate.generate_bytes(300, seed=9))
    conv_s = msgnorm.Conversation(structs)
    assert conv_s.for_api() == msgnorm.normalize_for_api(structs)
    # settled dicts are cached: the same objects on the next call
    first, second = conv.for_api(), conv.for_api()
    assert conv.settled_len > 0 and first[0] is second[0]


def test_counting_trimming_and_splitting_match_the_batch_functions() -> None:
    lines = generate.generate_bytes(1500, seed=3, jsonl=True).splitlines()
    conv = msgnorm.Conversation(kind="bytes", chars_per_token=3.0)
    conv.append(b"\n".join(lines[:1000]))
    conv.for_api()
    conv.append(b"\n".join(lines[1000:]))
    out = conv.for_api()
    assert conv.count_tokens() == msgnorm.count_tokens(out, chars_per_token=3.0)
    per = msgnorm.count_tokens_per_record(out, chars_per_token=3.0)
    assert conv.count_tokens_per_record() == per
    total = sum(per)
    for budget, pin in [(total // 2, 0), (total // 3, 1), (total // 5, 2), (total, 0)]:
        assert conv.trim_to_budget(budget, pin=pin) == msgnorm.trim_to_budget(
            out, budget, pin=pin, chars_per_token=3.0
        )
        assert conv.split_for_summary(budget, pin=pin) == msgnorm.split_for_summary(
            out, budget, pin=pin, chars_per_token=3.0
        )
    with pytest.raises(msgnorm.BudgetError):
        conv.trim_to_budget(1, pin=1)


def user(uuid: str, content: Any, **kw: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}, **kw}


def asst(uuid: str, content: Any, mid: str) -> dict[str, Any]:
    msg = {"role": "assistant", "id": mid, "content": content}
    return {"type": "assistant", "uuid": uuid, "message": msg}


def turn(i: int) -> list[dict[str, Any]]:
    return [user(f"u{i}", f"prompt {i}"), asst(f"a{i}", [{"type": "text", "text": "ok "}], f"m{i}")]


def test_settled_part_and_breakpoints_are_stable() -> None:
    conv = msgnorm.Conversation(kind="bytes")
    seen: list[bytes] = []
    marks: list[int] = []
    for i in range(12):
        conv.append(turn(i))
        conv.for_api()
        now = settled_part(conv)
        assert now[: len(seen)] == seen
        seen = now
        marks = conv.cache_breakpoints()
        assert len(marks) <= 4 and all(m < conv.settled_len for m in marks)
    # the final assistant's trailing space is trimmed only while it is last (§4 step 8)
    out = json.loads(conv.for_api())
    assert out[-1]["message"]["content"][0]["text"] == "ok"
    assert out[1]["message"]["content"][0]["text"] == "ok "
    assert conv.settled_len == len(out) - 2 and conv.rewrites == 0
    assert marks == sorted(marks, reverse=True) and marks[0] == conv.settled_len - 1


def test_rewrites_when_settled_output_must_change() -> None:
    conv = msgnorm.Conversation(kind="dicts", max_media=1)
    for i in range(4):
        conv.append(turn(i))
    assert conv.for_api() == msgnorm.normalize_for_api([r for i in range(4) for r in turn(i)])
    assert conv.settled_len > 0 and conv.rewrites == 0
    # a tombstone naming a settled record
    tomb = {"type": "tombstone", "message": {"uuid": "a0", "role": "assistant", "content": []}}
    conv.append([tomb])
    history = [r for i in range(4) for r in turn(i)] + [tomb]
    assert conv.for_api() == msgnorm.normalize_for_api(history)
    assert conv.rewrites == 1
    # two images: the older one is replaced, even when it has settled
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}
    more = [user("i1", [img]), asst("b1", "seen", "mb1"), user("p", "next"), asst("b2", "x", "m")]
    conv.append(more)
    conv.for_api()
    conv.append([user("i2", [img]), asst("b3", "seen", "mb3")])
    history += [*more, user("i2", [img]), asst("b3", "seen", "mb3")]
    assert conv.for_api() == msgnorm.normalize_for_api(history, max_media=1)
    assert conv.rewrites == 2


def test_invalid_records_are_refused_whole_and_named_by_their_place() -> None:
    conv = msgnorm.Conversation(turn(0))
    with pytest.raises(msgnorm.InvalidRecordError) as info:
        conv.append([user("ok", "fine"), {"type": "user", "uuid": "x", "message": 5}])
    assert info.value.index == 3 and info.value.path == "records[3].message"
    assert conv.input_len == 2
    with pytest.raises(msgnorm.JSONDecodeError):
        conv.append(b'{"type": "user", "uuid"')
    with pytest.raises(msgnorm.MsgnormError, match="records"):
        conv.append(5)
    assert conv.for_api() == msgnorm.normalize_for_api(turn(0))


def test_strict_raises_like_the_batch_call() -> None:
    bad = [
        user("u", "x"),
        asst("a", [{"type": "tool_use", "id": "t", "name": "n", "input": {}}], "m"),
    ]
    conv = msgnorm.Conversation(bad, strict=True)
    with pytest.raises(msgnorm.PairingError) as info:
        conv.for_api()
    with pytest.raises(msgnorm.PairingError) as batch_info:
        msgnorm.normalize_for_api(bad, strict=True)
    assert (info.value.index, info.value.ids) == (batch_info.value.index, batch_info.value.ids)


def test_save_restore_and_pickle() -> None:
    lines = generate.generate_bytes(800, seed=5, jsonl=True).splitlines()
    conv = msgnorm.Conversation(kind="bytes", short_ids=True, attachment_templates={"date": None})
    conv.append(b"\n".join(lines[:500]))
    conv.for_api()
    saved = conv.to_bytes()
    again = msgnorm.Conversation.from_bytes(saved, kind="bytes")
    assert again.for_api() == conv.for_api() and again.settled_len == conv.settled_len
    for c in (conv, again, pickle.loads(pickle.dumps(conv))):
        c.append(b"\n".join(lines[500:]))
        assert c.for_api() == batch(lines, short_ids=True, attachment_templates={"date": None})


def test_damaged_saves_raise_a_clear_error() -> None:
    conv = msgnorm.Conversation(turn(0) + turn(1))
    conv.for_api()
    saved = conv.to_bytes()
    rng = random.Random(0)
    for cut in [0, 5, len(saved) // 2, len(saved) - 1]:
        with pytest.raises(msgnorm.MsgnormError, match="saved msgnorm conversation"):
            msgnorm.Conversation.from_bytes(saved[:cut])
    for _ in range(300):
        damaged = bytearray(saved)
        damaged[rng.randrange(len(saved))] ^= 1 << rng.randrange(8)
        try:
            c = msgnorm.Conversation.from_bytes(bytes(damaged))
            c.for_api()  # may hold different (valid) data; it must not crash
        except msgnorm.MsgnormError:
            pass


def test_threads_read_the_same_result() -> None:
    lines = generate.generate_bytes(1500, seed=11, jsonl=True).splitlines()
    conv = msgnorm.Conversation(kind="bytes")
    conv.append(b"\n".join(lines))
    expected = batch(lines)
    results: list[bytes] = []

    def work() -> None:
        for _ in range(5):
            results.append(conv.for_api())

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40 and all(r == expected for r in results)


def test_from_session_and_report() -> None:
    data = generate.generate_bytes(600, seed=12, jsonl=True)
    session = msgnorm.load_session(data)
    conv = msgnorm.Conversation.from_session(session)
    assert conv.for_api() == msgnorm.normalize_for_api(session.records)
    assert set(conv.tail_report()) == set(msgnorm.normalize_for_api_report([])[1])
    assert "settled" in repr(conv)


def test_bad_options() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="kind"):
        msgnorm.Conversation(kind="json")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_media"):
        msgnorm.Conversation(max_media=-1)
    with pytest.raises(msgnorm.MsgnormError):
        msgnorm.Conversation(attachment_templates={"date": "{unclosed"})


class ConversationMachine(RuleBasedStateMachine):
    """append / for_api / trim / split / save-restore in any order: always the batch result."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = msgnorm.Conversation(kind="bytes")
        self.lines: list[bytes] = []
        self.settled: list[bytes] = []
        self.rewrites = 0

    @rule(records=S.histories(max_events=4))
    def append(self, records: list[Any]) -> None:
        # uuids made unique across appends (histories reuse their own names)
        salt = f"-{len(self.lines)}"
        for r in records:
            if isinstance(r.get("uuid"), str):
                r["uuid"] += salt
        lines = lines_of(records)
        if lines:
            self.conv.append(b"\n".join(lines))
            self.lines += lines

    @rule()
    def output_is_the_batch_result(self) -> None:
        if not self.lines:
            return
        assert self.conv.for_api() == batch(self.lines)
        now = settled_part(self.conv)
        if self.conv.rewrites == self.rewrites:
            assert now[: len(self.settled)] == self.settled
        self.settled, self.rewrites = now, self.conv.rewrites

    @rule(fraction=st.floats(0.05, 1.0), pin=st.integers(0, 2))
    def trim_and_split(self, fraction: float, pin: int) -> None:
        if not self.lines:
            return
        out = batch(self.lines)
        budget = int(msgnorm.count_tokens(out) * fraction)
        try:
            want = msgnorm.trim_to_budget(out, budget, pin=pin)
        except msgnorm.MsgnormError as e:  # no cut-off fits, or pin past the end
            with pytest.raises(type(e)):
                self.conv.trim_to_budget(budget, pin=pin)
            return
        assert self.conv.trim_to_budget(budget, pin=pin) == want
        assert self.conv.split_for_summary(budget, pin=pin) == msgnorm.split_for_summary(
            out, budget, pin=pin
        )

    @rule()
    def save_and_restore(self) -> None:
        self.conv = msgnorm.Conversation.from_bytes(self.conv.to_bytes(), kind="bytes")

    @invariant()
    def counts_match(self) -> None:
        if self.lines:
            assert self.conv.count_tokens() == msgnorm.count_tokens(batch(self.lines))


TestConversationMachine = ConversationMachine.TestCase
TestConversationMachine.settings = settings(max_examples=40, stateful_step_count=12, deadline=None)
