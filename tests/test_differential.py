"""Differential and property tests: every implementation agrees with the
reference on arbitrary valid (and corrupted) histories, and every output keeps
the §4 guarantees (reference.check_guarantees) and is idempotent."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from support import strategies as S
from support.reference import check_guarantees


def outcome(impl: Any, fn: str, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", result) or ("error", comparable description of the ValueError)."""
    try:
        return "ok", impl.call(fn, *args, **kwargs)
    except ValueError as exc:
        return "error", describe(impl, exc)


def describe(impl: Any, exc: ValueError) -> tuple[Any, ...]:
    # compared between implementations: the class, and index/path or index/ids
    if isinstance(exc, impl.InvalidRecordError):
        return ("InvalidRecordError", exc.index, exc.path)  # type: ignore[attr-defined]
    if isinstance(exc, impl.PairingError):
        return ("PairingError", exc.index, list(exc.ids))  # type: ignore[attr-defined]
    if isinstance(exc, impl.BudgetError):
        return ("BudgetError",)
    return ("ValueError",)


def guarantees_for(out: list[Any], opts: dict[str, Any]) -> None:
    check_guarantees(
        out,
        ensure_user_first=opts.get("ensure_user_first", True),
        max_media=opts.get("max_media", 100),
    )


@given(records=S.histories(), opts=S.api_options())
def test_normalize_for_api(impl, ref, records, opts):
    expected = outcome(ref, "normalize_for_api", records, **opts)
    got = outcome(impl, "normalize_for_api", records, **opts)
    assert got == expected
    if got[0] == "ok":
        guarantees_for(got[1], opts)


@given(records=S.histories(), opts=S.api_options())
def test_normalize_for_api_is_idempotent(impl, records, opts):
    # §4: "normalize_for_api(normalize_for_api(x)) == normalize_for_api(x) when
    # short_ids is off" - and the output needs no repair, even in strict mode
    opts.pop("short_ids", None)
    opts.pop("strict", None)
    out = impl.normalize_for_api(records, **opts)
    assert impl.normalize_for_api(out, **opts) == out
    assert impl.normalize_for_api(out, strict=True, **opts) == out


@given(records=S.histories())
def test_normalize_for_api_is_deterministic(impl, records):
    # §4: "the result is deterministic"
    assert impl.normalize_for_api(records) == impl.normalize_for_api(records)


@given(records=S.invalid_histories(), opts=S.api_options())
def test_invalid_histories(impl, ref, records, opts):
    # §1: the same InvalidRecordError index and path (or the same success)
    assert outcome(impl, "normalize_for_api", records, **opts) == outcome(
        ref, "normalize_for_api", records, **opts
    )
    assert outcome(impl, "count_tokens_per_record", records) == outcome(
        ref, "count_tokens_per_record", records
    )


@given(records=S.histories())
def test_normalize_messages(impl, ref, records):
    assert outcome(impl, "normalize_messages", records) == outcome(
        ref, "normalize_messages", records
    )


@given(records=S.histories(), kw=S.count_options, normalized=st.booleans())
def test_count_tokens_per_record(impl, ref, records, kw, normalized):
    if normalized:
        records = ref.normalize_for_api(records)
    expected = ref.count_tokens_per_record(records, **kw)
    assert impl.count_tokens_per_record(records, **kw) == expected
    assert impl.count_tokens(records, **kw) == sum(expected)


@given(records=S.histories(), normalized=st.booleans())
def test_to_anthropic(impl, ref, records, normalized):
    if normalized:
        records = ref.normalize_for_api(records)
    assert outcome(impl, "to_anthropic", records) == outcome(ref, "to_anthropic", records)


@given(data=st.data(), records=S.histories(), kw=S.count_options, normalized=st.booleans())
def test_trim_to_budget(impl, ref, data, records, kw, normalized):
    if normalized:
        records = ref.normalize_for_api(records)
    total = ref.count_tokens(records, **kw)
    max_tokens = data.draw(st.integers(0, total + 5), label="max_tokens")
    pin = data.draw(st.integers(0, len(records)), label="pin")
    for fn in ("find_cutoff", "trim_to_budget", "split_for_summary"):
        expected = outcome(ref, fn, records, max_tokens, pin=pin, **kw)
        assert outcome(impl, fn, records, max_tokens, pin=pin, **kw) == expected, fn
    # §7: the kept part fits and never starts with a tool_result
    kind, k = outcome(ref, "find_cutoff", records, max_tokens, pin=pin, **kw)
    if kind == "ok":
        kept = records[:pin] + records[k:]
        assert ref.count_tokens(kept, **kw) <= max_tokens
        assert k == pin or ref.module.is_turn_start(records[k])
