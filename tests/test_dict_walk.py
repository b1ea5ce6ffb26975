"""Reading a list of dicts: a key's ``__eq__`` runs Python code in the middle
of a call (it can raise, or empty what is being read), and writers that build
many records leave the cyclic collector alone. None of it may change a result,
lose an error, or touch the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import msgnorm
import pytest
from support.helpers import tool_loops


class Boom:
    """A key that collides with ``"message"`` and, once armed, raises when compared."""

    armed = False

    def __hash__(self) -> int:
        return hash("message")

    def __eq__(self, other: object) -> bool:
        if Boom.armed:
            raise RuntimeError("boom: compared with " + repr(other))
        return False


class Quiet(Boom):
    """Collides with ``"message"`` and is equal to nothing."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = Boom.__hash__


CALLS: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "count_tokens": msgnorm.count_tokens,
    "count_tokens_per_record": msgnorm.count_tokens_per_record,
    "trim_to_budget": lambda r: msgnorm.trim_to_budget(r, 10**9),
    "normalize_for_api": msgnorm.normalize_for_api,
    "clear_tool_results": lambda r: msgnorm.clear_tool_results(r, trigger=None),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_an_error_met_by_the_look_ahead_is_raised_by_the_read(name: str) -> None:
    recs = tool_loops(20)
    recs[25] = {Boom(): 1, **recs[25]}  # met first by a lookup of "message"
    Boom.armed = True
    try:
        with pytest.raises(RuntimeError, match="boom"):
            CALLS[name](recs)
    finally:
        Boom.armed = False
    # nothing is left pending: the next call on a clean list works
    clean = tool_loops(20)
    assert CALLS[name](clean) == CALLS[name](tool_loops(20))


@pytest.mark.parametrize("name", list(CALLS))
def test_a_colliding_key_changes_nothing(name: str) -> None:
    recs = tool_loops(20)
    odd = [{Quiet(): 1, **r} if i % 3 == 0 else r for i, r in enumerate(recs)]
    got, want = CALLS[name](odd), CALLS[name](recs)
    if isinstance(got, list) and isinstance(got[0], dict):
        # the odd records come back as they are (or as copies keeping the key)
        strip = [{k: v for k, v in r.items() if isinstance(k, str)} for r in got]
        assert strip == want
        assert any(not isinstance(k, str) for k in got[0])
    else:
        assert got == want


class Vandal:
    """Collides with ``"message"`` / ``"content"``; compared, it empties the
    containers it was given (the record, its message, the history) once."""

    def __init__(self, like: str, *victims: Any) -> None:
        self.like = like
        self.victims = list(victims)

    def __hash__(self) -> int:
        return hash(self.like)

    def __eq__(self, other: object) -> bool:
        for v in self.victims:
            v.clear()
        self.victims = []
        return False


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("like", ["message", "content"])
def test_a_key_that_empties_what_is_looked_into_breaks_nothing(name: str, like: str) -> None:
    """A lookup of the look-ahead runs the key's ``__eq__``, which drops the
    record, its message and the rest of the history: every object the
    look-ahead follows stays alive, and the call gives a result or a clear
    error, as it would for the history as it is left."""
    recs = tool_loops(20)
    at = 30
    rec = recs[at]
    msg = rec["message"]
    holder = msg if like == "content" else rec
    holder[Vandal(like, msg, rec, recs)] = 1
    try:
        CALLS[name](recs)
    except msgnorm.MsgnormError as e:
        assert isinstance(e, ValueError)
    # nothing is left pending
    assert CALLS[name](tool_loops(3)) == CALLS[name](tool_loops(3))


@pytest.mark.parametrize("name", list(CALLS))
def test_records_that_are_not_dicts_ahead_are_reported(name: str) -> None:
    recs: list[Any] = tool_loops(20)
    recs[30] = ["not", "a", "record"]
    with pytest.raises(msgnorm.InvalidRecordError) as e:
        CALLS[name](recs)
    assert e.value.index == 30


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generations the cyclic collector collected while the test ran."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def test_a_collector_turned_off_stays_off_and_idle(collections: list[int]) -> None:
    recs = tool_loops(2500)  # more changed records than one pace
    gc.collect()
    gc.disable()
    try:
        del collections[:]
        out, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
        assert not gc.isenabled()
        assert collections == []
    finally:
        gc.enable()
    assert rep["results_cleared"] == 2497  # all but the last 3
    assert out[2]["message"]["content"][0]["content"] == "[cleared]"


def test_the_collector_is_left_on_with_its_thresholds() -> None:
    recs = tool_loops(2500)
    gc.collect()
    assert gc.isenabled()
    threshold = gc.get_threshold()
    out, rep = msgnorm.clear_tool_results_report(recs, trigger=None)
    assert gc.isenabled()
    assert gc.get_threshold() == threshold
    assert rep["results_cleared"] == 2497  # all but the last 3
    assert out[-1] is recs[-1] and out[0] is recs[0]
