"""The version-specific extension, and one Conversation shared by many threads.

- the extension is built for the running CPython (its own suffix, not abi3), and on a
  free-threaded CPython importing msgnorm leaves the GIL disabled;
- threads appending to, reading and saving one ``Conversation`` at once see only
  whole states: every result any thread reads is the batch result of some prefix of
  the appends, in the order they took effect, and each thread's appends keep its own
  order. Runs on every CPython (the native calls release the GIL); on a
  free-threaded one it is the test that the shared state is never corrupted.
"""

from __future__ import annotations

import importlib.machinery
import json
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Any

import msgnorm
import msgnorm._native
import pytest

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
THREADS = 6
CHUNKS = 15  # appends per writer thread


def test_extension_is_built_for_this_cpython() -> None:
    name = Path(msgnorm._native.__file__ or "").name
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    assert ".abi3." not in name
    assert name.endswith(suffix), (name, suffix)


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded CPython (3.14t) only")
def test_import_leaves_the_gil_disabled() -> None:
    # msgnorm is imported (conftest, this module): a module needing the GIL
    # would have re-enabled it, with a RuntimeWarning
    assert not sys._is_gil_enabled()  # type: ignore[attr-defined]


def _chunk(t: int, k: int) -> list[bytes]:
    """One turn, named by its writer `t` and its number `k` in that writer's appends."""
    tag = f"{t:02x}{k:04x}"
    user = {
        "type": "user",
        "uuid": f"00000000-0000-4000-8000-1{tag:0>11}",
        "message": {"role": "user", "content": f"chunk {t}-{k}"},
    }
    assistant = {
        "type": "assistant",
        "uuid": f"00000000-0000-4000-8000-2{tag:0>11}",
        "message": {
            "role": "assistant",
            "id": f"msg_{tag}",
            "model": "claude",
            "content": [{"type": "text", "text": f"reply {t}-{k}"}],
        },
    }
    return [json.dumps(user).encode(), json.dumps(assistant).encode()]


def _chunks_in(output: list[Any]) -> list[tuple[int, int]]:
    """The chunks an output holds, in order (read back from the user turns' text)."""
    found = []
    for rec in output:
        content = rec["message"]["content"]
        text = content if isinstance(content, str) else content[0].get("text", "")
        if rec["type"] == "user" and text.startswith("chunk "):
            t, k = text.removeprefix("chunk ").split("-")
            found.append((int(t), int(k)))
    return found


def _batch(order: list[tuple[int, int]]) -> list[Any]:
    lines = [line for t, k in order for line in _chunk(t, k)]
    out: list[Any] = json.loads(msgnorm.normalize_for_api(b"\n".join(lines)))
    return out


@pytest.mark.parametrize("kind", ["bytes", "dicts"])
def test_one_conversation_hammered_from_threads(kind: Any) -> None:
    conv = msgnorm.Conversation(kind=kind)
    conv.append(b"\n".join(_chunk(255, 0)))  # fixes the kind before the race
    seen: list[tuple[str, Any]] = []  # (what was read, the value)
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS + 3)
    writers_done = threading.Event()

    def writer(t: int) -> None:
        start.wait()
        for k in range(CHUNKS):
            lines = _chunk(t, k)
            # both input forms: JSON Lines bytes and a list of dicts
            conv.append(b"\n".join(lines) if k % 2 else [json.loads(x) for x in lines])

    def reader() -> None:
        start.wait()
        while not writers_done.is_set():
            out = conv.for_api()
            seen.append(("for_api", json.loads(out) if kind == "bytes" else out))
            seen.append(("len", len(conv)))

    def saver() -> None:
        start.wait()
        while not writers_done.is_set():
            restored = msgnorm.Conversation.from_bytes(conv.to_bytes(), kind="dicts")
            seen.append(("restored", restored.for_api()))

    def guarded(f: Any, *args: Any) -> None:
        try:
            f(*args)
        except BaseException as e:  # reported below, with the thread's result
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # a GIL build switches threads as often as it can
    try:
        writers = [threading.Thread(target=guarded, args=(writer, t)) for t in range(THREADS)]
        others = [threading.Thread(target=guarded, args=(f,)) for f in (reader, reader, saver)]
        for th in writers + others:
            th.start()
        for th in writers:
            th.join()
        writers_done.set()
        for th in others:
            th.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []

    final = conv.for_api()
    final = json.loads(final) if kind == "bytes" else final
    order = _chunks_in(final)
    # every append took effect once, each writer's in its own order
    assert order[0] == (255, 0)
    assert sorted(order[1:]) == [(t, k) for t in range(THREADS) for k in range(CHUNKS)]
    for t in range(THREADS):
        assert [k for tt, k in order if tt == t] == list(range(CHUNKS))
    assert final == _batch(order)
    assert len(conv) == len(final)

    # every state any thread read is the batch result of a prefix of that order
    assert seen, "the readers read nothing"
    sizes = {len(_batch(order[:n])): n for n in range(1, len(order) + 1)}
    for what, value in seen:
        if what == "len":
            assert value in sizes, value
            continue
        got = _chunks_in(value)
        assert got == order[: len(got)], what
        assert value == _batch(got), what
