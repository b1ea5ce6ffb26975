"""normalize_batch / count_tokens_batch: many histories on every core, each result
exactly the single call's, errors per item, a pool that survives fork."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from support import external, generate

SESSIONS = external.example_sessions() + external.corpus_files(recursive=False)
test_external_corpus = external.corpus_check

GOOD_USER = {"type": "user", "uuid": "u", "message": {"role": "user", "content": "x"}}


@pytest.fixture(scope="module")
def histories() -> list[bytes]:
    return [generate.generate_bytes(300 + 50 * s, seed=s, jsonl=s % 2 == 1) for s in range(12)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_output_is_the_single_call(histories: list[bytes], threads: int) -> None:
    out = msgnorm.normalize_batch(histories, num_threads=threads)
    assert out == [msgnorm.normalize_for_api(h) for h in histories]
    reports = msgnorm.normalize_batch_report(histories, num_threads=threads, max_media=2)
    for h, (o, r) in zip(histories, reports, strict=True):
        assert (o, r) == msgnorm.normalize_for_api_report(h, max_media=2)


def test_kinds_in_one_batch_keep_their_kind(histories: list[bytes]) -> None:
    text = histories[0].decode()
    records = msgnorm.load_session(histories[1]).records
    out = msgnorm.normalize_batch([text, records, bytearray(histories[2])])
    assert isinstance(out[0], str) and out[0] == msgnorm.normalize_for_api(text)
    assert out[1] == msgnorm.normalize_for_api(records)
    assert out[2] == msgnorm.normalize_for_api(histories[2])


def test_a_bad_item_is_its_error_and_the_others_are_right(histories: list[bytes]) -> None:
    items: list[Any] = [
        histories[0],
        b'{"type": "user", "uuid": "u", "message": {"role": "user", "content": 5}}',
        b"[{oops",
        "\ud800",
        [GOOD_USER, {"type": "user"}],
        histories[1],
    ]
    out = msgnorm.normalize_batch(items, num_threads=2)
    assert out[0] == msgnorm.normalize_for_api(histories[0])
    assert out[5] == msgnorm.normalize_for_api(histories[1])
    bad = out[1]
    assert isinstance(bad, msgnorm.InvalidRecordError)
    assert (bad.item, bad.index, bad.path) == (1, 0, "records[0].message.content")
    assert isinstance(out[2], msgnorm.JSONDecodeError)
    assert (out[2].item, out[2].line, out[2].column) == (2, 1, 3)
    assert isinstance(out[3], msgnorm.JSONDecodeError) and out[3].item == 3
    assert isinstance(out[4], msgnorm.InvalidRecordError) and out[4].item == 4
    with pytest.raises(msgnorm.InvalidRecordError) as info:
        msgnorm.normalize_batch(items, errors="raise")
    assert info.value.item == 1  # type: ignore[attr-defined]
    counts = msgnorm.count_tokens_batch(items)
    assert counts[0] == msgnorm.count_tokens(histories[0])
    assert isinstance(counts[2], msgnorm.JSONDecodeError)


def test_count_tokens_batch(histories: list[bytes]) -> None:
    per = msgnorm.count_tokens_batch(histories, per_record=True, chars_per_token=3.5)
    assert per == [msgnorm.count_tokens_per_record(h, chars_per_token=3.5) for h in histories]
    assert msgnorm.count_tokens_batch(histories) == [msgnorm.count_tokens(h) for h in histories]


def test_session_items_are_the_loaded_main_thread() -> None:
    data = [p.read_bytes() for p in SESSIONS]
    out = msgnorm.normalize_batch(data, session=True, num_threads=2)
    for d, o in zip(data, out, strict=True):
        assert o == msgnorm.normalize_for_api(msgnorm.load_session(d, kind="bytes").records)
    counts = msgnorm.count_tokens_batch(data, session=True)
    for d, c in zip(data, counts, strict=True):
        assert c == msgnorm.count_tokens(msgnorm.load_session(d, kind="bytes").records)


def _threads_named_msgnorm() -> int:
    names = [
        (Path("/proc/self/task") / t / "comm").read_text().strip()
        for t in os.listdir("/proc/self/task")
    ]
    return sum(n.startswith("msgnorm-") for n in names)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_num_threads_is_honoured(histories: list[bytes]) -> None:
    before = _threads_named_msgnorm()
    msgnorm.normalize_batch(histories, num_threads=5)
    # a new thread names itself as it starts, a moment after the pool is built:
    # wait for all five (a pool of 5 made by an earlier test adds none)
    deadline = time.monotonic() + (10 if before < 5 else 2)
    while _threads_named_msgnorm() < before + 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    after = _threads_named_msgnorm()
    assert after - before in (0, 5)  # a pool of 5 exists (maybe from before)
    assert after >= 5
    assert msgnorm.default_num_threads() >= 1


def test_environment_variable_sets_the_default() -> None:
    code = "import msgnorm; print(msgnorm.default_num_threads())"
    env = dict(os.environ, MSGNORM_NUM_THREADS="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "3", out.stderr


def _child(q: Any, items: list[bytes]) -> None:
    q.put(msgnorm.normalize_batch(items, num_threads=2))


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the Linux default start method")
def test_safe_after_fork(histories: list[bytes]) -> None:
    # the parent's pool exists before the fork; the child must build its own, not hang
    expected = msgnorm.normalize_batch(histories, num_threads=2)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q, histories))
    p.start()
    got = q.get(timeout=120)
    p.join(timeout=60)
    assert p.exitcode == 0
    assert got == expected


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_threads": 0}, "num_threads"),
        ({"num_threads": True}, "num_threads"),
        ({"errors": "ignore"}, "errors"),
        ({"max_media": -1}, "max_media"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        msgnorm.normalize_batch([b"[]"], **kwargs)


def test_bad_items() -> None:
    with pytest.raises(msgnorm.MsgnormError, match=r"items\[1\]"):
        msgnorm.normalize_batch([b"[]", 5])
    with pytest.raises(msgnorm.MsgnormError, match="list of histories"):
        msgnorm.normalize_batch(b"[]")
    with pytest.raises(msgnorm.MsgnormError, match="session"):
        msgnorm.normalize_batch([[GOOD_USER]], session=True)
    assert msgnorm.normalize_batch([]) == []
