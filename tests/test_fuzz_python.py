"""Hypothesis fuzz of the Python entry points (issue "Reliability").

Arbitrary JSON-ish values (None, bools, ints of any size, floats incl. NaN and
infinities, strings incl. lone surrogates, lists, dicts), shaped or not like
transcript records, go in as records and as JSON bytes. Every call returns or
raises a ``msgnorm.MsgnormError`` (a ``ValueError``): never a ``TypeError``,
``KeyError``, ``SystemError``, ``RecursionError`` or a panic. Where the value
is representable in JSON, the bytes and dicts paths agree: both succeed with
equal outputs, or both raise the same error class at the same place.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import msgnorm
from hypothesis import example, given
from hypothesis import strategies as st
from support import reference

# Set to True to tolerate UnicodeEncodeError for inputs holding a lone surrogate
# (the bug this fuzz found first, since fixed: such strings are InvalidRecordError).
SURROGATE_BUG = False

#: The record types the reference knows, and one it does not.
RECORD_TYPES = [*reference.KNOWN_TYPES, "summary"]
BLOCK_TYPES = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "document",
    "server_tool_use",
    "mcp_tool_use",
    "web_search_tool_result",
    "foo",
]
KEYS = [
    "type",
    "uuid",
    "message",
    "role",
    "content",
    "id",
    "model",
    "text",
    "input",
    "name",
    "tool_use_id",
    "is_error",
    "isMeta",
    "isVirtual",
    "isApiErrorMessage",
    "subtype",
    "attachment",
    "data",
    "toolUseID",
    "summary",
    "precedingToolUseIds",
    "source",
    "timestamp",
    "date",
    "prompt",
]

# --------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------

lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
strings = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", " ", "\n", "local_command", "<synthetic>", "t1", "u1", *RECORD_TYPES]),
    st.lists(st.one_of(st.characters(), lone_surrogates), max_size=4).map("".join),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.integers(-(2**200), 2**200),
    st.floats(),  # NaN and infinities included
    strings,
)
keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=3))
json_ish = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=8,
)


def _shaped(types: list[str], fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict with a plausible ``type`` and random (often plausible) other fields."""
    return st.builds(
        lambda t, extra, drop: {k: v for k, v in {"type": t, **extra}.items() if k not in drop},
        st.one_of(st.sampled_from(types), json_ish),
        st.dictionaries(st.sampled_from(KEYS), fields, max_size=5),
        st.sets(st.sampled_from(["type", "uuid", "message"]), max_size=1),
    )


blocks = _shaped(BLOCK_TYPES, st.one_of(strings, json_ish))
contents = st.one_of(strings, st.none(), st.lists(st.one_of(blocks, json_ish), max_size=3))
messages = st.builds(
    lambda role, content, extra: {"role": role, "content": content, **extra},
    st.sampled_from(["user", "assistant"]) | json_ish,
    contents,
    st.dictionaries(st.sampled_from(["id", "model"]), strings, max_size=2),
)
record_fields = st.one_of(strings, messages, contents, json_ish)
records = st.one_of(
    _shaped(RECORD_TYPES, record_fields).map(
        lambda r: {**r, "uuid": r["uuid"]} if "uuid" in r else {**r, "uuid": "u1"}
    ),
    _shaped(RECORD_TYPES, record_fields),
    json_ish,
)
histories = st.lists(records, max_size=6)

# --------------------------------------------------------------------------
# the calls
# --------------------------------------------------------------------------

CALLS: dict[str, Callable[[Any], Any]] = {
    "normalize_for_api": msgnorm.normalize_for_api,
    "normalize_for_api-strict": lambda r: msgnorm.normalize_for_api(r, strict=True),
    "normalize_for_api-options": lambda r: msgnorm.normalize_for_api(
        r, short_ids=True, max_media=0, ensure_user_first=False
    ),
    "normalize_for_api_report": lambda r: msgnorm.normalize_for_api_report(r)[0],
    "normalize_messages": msgnorm.normalize_messages,
    "to_anthropic": msgnorm.to_anthropic,
    "count_tokens_per_record": msgnorm.count_tokens_per_record,
    "find_cutoff": lambda r: msgnorm.find_cutoff(r, 40, pin=1),
    "trim_to_budget": lambda r: msgnorm.trim_to_budget(r, 40, pin=1),
    "split_for_summary": lambda r: msgnorm.split_for_summary(r, 40),
}


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    return False


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    return False


def _outcome(call: Callable[[Any], Any], records: Any) -> tuple[Any, ...]:
    """``("ok", result)`` or ``("error", class name, where)``; foreign errors propagate."""
    try:
        return ("ok", call(records))
    except msgnorm.MsgnormError as e:
        assert isinstance(e, ValueError)
        where = tuple(getattr(e, k, None) for k in ("index", "path", "ids"))
        return ("error", type(e).__name__, where)
    except UnicodeEncodeError:
        if SURROGATE_BUG and _has_surrogate(records):
            return ("known-bug",)
        raise


def _decoded(value: Any) -> Any:
    if isinstance(value, bytes):
        return json.loads(value)
    if isinstance(value, tuple):
        return tuple(_decoded(v) for v in value)
    return value


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


@given(histories)
@example([{"type": "user", "uuid": "u", "message": {"role": "user", "content": [1]}}])
@example([{"type": "assistant", "uuid": "u", "message": {"role": "assistant", "content": None}}])
@example([{"type": "attachment", "uuid": "a", "attachment": {"type": "date", "date": 2**70}}])
@example(
    [
        {
            "type": "user",
            "uuid": "u",
            "message": {"role": "user", "content": [{"type": "tool_result"}]},
        }
    ]
)
@example([{"type": "tombstone", "message": {"uuid": None}}])
@example([{"type": "user", "uuid": "u", "message": {"role": "user", "content": float("nan")}}])
def test_records_return_or_raise_a_msgnorm_error(history: list[Any]) -> None:
    for name, call in CALLS.items():
        try:
            _outcome(call, history)
        except Exception as e:  # pragma: no cover - the failure report
            raise AssertionError(f"{name} raised {type(e).__name__}: {e}") from e


@given(histories)
def test_json_bytes_and_dicts_agree(history: list[Any]) -> None:
    """Representable in JSON: the same outcome from both paths, at the same place."""
    if _has_surrogate(history) or _has_non_finite(history):
        return
    data = json.dumps(history).encode()
    for name, call in CALLS.items():
        from_dicts = _outcome(call, history)
        from_bytes = _outcome(call, data)
        if from_dicts[0] == "ok" and from_bytes[0] == "ok":
            assert _decoded(from_bytes[1]) == _decoded(from_dicts[1]), name
        else:
            assert from_bytes == from_dicts, name


@given(histories)
def test_json_text_the_stdlib_writes_for_any_value(history: list[Any]) -> None:
    """``json.dumps`` output (with NaN, Infinity and escaped lone surrogates) never crashes:
    NaN/Infinity literals are a JSONDecodeError."""
    data = json.dumps(history).encode()
    for name, call in CALLS.items():
        outcome = _outcome(call, data)
        if _has_non_finite(history) and outcome[0] == "error":
            assert outcome[1] in ("JSONDecodeError", "InvalidRecordError"), name


@given(
    st.one_of(st.binary(max_size=64), histories.map(lambda h: json.dumps(h).encode())), st.data()
)
def test_arbitrary_and_truncated_bytes(data: bytes, draw: st.DataObject) -> None:
    """Any bytes (and any prefix of a JSON text) return or raise a msgnorm error."""
    cut = draw.draw(st.integers(0, len(data)))
    for blob in (data, data[:cut], data[cut:], bytearray(data[:cut])):
        for name, call in CALLS.items():
            try:
                _outcome(call, blob)
            except Exception as e:  # pragma: no cover - the failure report
                raise AssertionError(f"{name}({blob!r}) raised {type(e).__name__}: {e}") from e
