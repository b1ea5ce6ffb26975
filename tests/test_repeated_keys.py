"""SPEC §1: a key repeated in an object takes its last value, in every reader
of JSON text, as Python's :mod:`json` reads it; the output holds each key once.

The same text given as ``bytes``, as ``str`` and as what :func:`json.loads`
makes of it gives one result: the same output, or the same error at the same
place. Whatever :func:`msgnorm.load_session` returns, ``normalize_for_api``
takes.
"""

from __future__ import annotations

import json
from typing import Any

import msgnorm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.strategies import histories, invalid_histories

# The input the fuzz `session` target found (fuzz/regressions/session/): the
# first record repeats `message`, its first value a string; the second line
# ends with a `]` after its record.
LINE1 = b'{"message":"","type":"user","message":{"role":"r","content":""},"uuid":"c"}'
LINE2 = b'{"h":"","type":"user","message":{"role":"u","content":"G."},"uuid":""}'
FOUND = LINE1 + b"\n" + LINE2 + b"]"

MERGED = [
    {
        "message": {"role": "r", "content": [{"type": "text", "text": "G."}]},
        "type": "user",
        "uuid": "c",
    }
]


def outcome(records: Any) -> tuple[str, Any]:
    """``normalize_for_api`` of ``records``: its output as JSON values, or its
    error's class and place (record index and path, or line and column)."""
    try:
        out = msgnorm.normalize_for_api(records)
    except msgnorm.InvalidRecordError as e:
        return "InvalidRecordError", (e.index, e.path)
    except msgnorm.JSONDecodeError as e:
        return "JSONDecodeError", (e.line, e.column)
    if isinstance(out, bytes | str):
        return "ok", json.loads(out)
    return "ok", out


def python_reading(data: bytes) -> Any:
    """What Python's json reads: an array, or one value per non-blank line;
    ``None`` when it refuses the text."""
    text = data.decode()
    try:
        if text.lstrip(" \t\r\n").startswith("["):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                pass
        return [json.loads(line) for line in text.split("\n") if line.strip(" \t\r")]
    except json.JSONDecodeError:
        return None


def test_the_found_input_reads_alike_through_every_kind() -> None:
    records = msgnorm.load_session(FOUND, kind="bytes").records
    # load_session leaves the junk out; the record it wrote holds one message
    assert json.loads(records)[0] == json.loads(LINE1)
    assert b'"message":""' not in records
    assert outcome(records) == ("ok", MERGED)
    # with the junk: refused where the junk is, from bytes and str alike
    for data in (FOUND, FOUND.decode()):
        assert outcome(data) == ("JSONDecodeError", (2, 71))
    with pytest.raises(msgnorm.JSONDecodeError) as info:
        msgnorm.load_session(FOUND, kind="bytes", errors="raise")
    assert (info.value.line, info.value.column) == (2, 71)
    # without it: JSON Lines, an array, str and json.loads give one output
    lines = LINE1 + b"\n" + LINE2
    array = b"[" + LINE1 + b",\n" + LINE2 + b"]"
    for data in (lines, array):
        assert outcome(data) == ("ok", MERGED)
        assert outcome(data.decode()) == ("ok", MERGED)
        assert outcome(python_reading(data)) == ("ok", MERGED)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        # a good value shadowed by a bad one: the bad one is judged
        (
            '{"type":"user","uuid":"u","message":{"role":"user","content":"a"},"message":[]}',
            (0, "records[0].message"),
        ),
        (
            '{"type":"user","uuid":"u","message":{"role":"user","content":"a","role":3}}',
            (0, "records[0].message.role"),
        ),
        (
            '{"type":"user","uuid":"u","message":{"role":"user",'
            '"content":[{"type":"text","text":"a","type":5}]}}',
            (0, "records[0].message.content[0].type"),
        ),
        # a bad value shadowed by a good one: accepted
        (
            '{"type":"user","uuid":1,"uuid":"u","message":{"role":"user","content":"a"}}',
            None,
        ),
        (
            '{"type":"user","uuid":"u","message":{"role":"user","content":{}},'
            '"message":{"role":"user","content":"a"}}',
            None,
        ),
        # a bad value met before the key that shadows it
        (
            '{"type":"user","uuid":"u","message":{"role":"user","content":[1],"content":"a"}}',
            None,
        ),
        # escaped keys are the same key
        (
            '{"type":"user","uuid":"u","message":{"role":"user","content":"a"},'
            '"\\u006dessage":{"role":"user","content":7}}',
            (0, "records[0].message.content"),
        ),
    ],
)
def test_the_last_value_is_the_one_judged(text: str, error: tuple[int, str] | None) -> None:
    for data in (text.encode(), text, "[" + text + "]", [json.loads(text)]):
        kind, got = outcome(data)
        if error is None:
            assert kind == "ok", (data, got)
            assert got == outcome([json.loads(text)])[1]
        else:
            assert (kind, got) == ("InvalidRecordError", error), data


def test_the_output_holds_each_key_once() -> None:
    rec = (
        '{"type":"assistant","uuid":"a","x":[{"k":1,"k":2}],"message":{"role":"assistant",'
        '"content":[{"type":"tool_use","id":"t","id":"t1","name":"n","input":{"a":1,"a":{"b":2,"b":3}}}]}}'
    )
    result = (
        '{"type":"user","uuid":"u","message":{"role":"user","content":'
        '[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}}'
    )
    out = msgnorm.normalize_for_api((rec + "\n" + result).encode())
    assert b'"x":[{"k":2}]' in out
    assert b'"id":"t1","name":"n","input":{"a":{"b":3}}' in out
    assert out.count(b'"id"') == 1
    # the same as from the dicts Python's json reads
    assert json.loads(out) == msgnorm.normalize_for_api([json.loads(rec), json.loads(result)])
    # load_session writes it once too
    session = msgnorm.load_session((rec + "\n").encode(), kind="bytes").records
    assert session == (
        b'[{"type":"assistant","uuid":"a","x":[{"k":2}],"message":{"role":"assistant",'
        b'"content":[{"type":"tool_use","id":"t1","name":"n","input":{"a":{"b":3}}}]}}]'
    )


# --------------------------------------------------------------------------
# the cross-kind property
# --------------------------------------------------------------------------

SPACE = st.sampled_from(["", "", "", " ", "\t", " \r", "\n  "])
JUNK = st.sampled_from(["]", "}", "x", ",", "[]", '""', "null"])
EXTRA = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(st.sampled_from('ab"\\é😀\n'), max_size=3),
    st.just({}),
    st.just([1, {"type": "text"}]),
    st.just({"role": 1, "content": {}}),
)


def escaped(key: str, esc: bool) -> str:
    """``key`` as a JSON string, every character ``\\u``-escaped when ``esc``."""
    if not esc or not key:
        return json.dumps(key)
    return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key) + '"'


@st.composite
def dumped(draw: Any, v: Any) -> str:
    """``v`` as JSON text with odd white space, escaped keys, and members that
    a later member of their key shadows."""
    sp = draw(SPACE)
    if isinstance(v, dict):
        members = []
        for k, x in v.items():
            if draw(st.integers(0, 5)) == 0:
                members.append((k, draw(EXTRA)))
            members.append((k, x))
        parts = [
            f"{sp}{escaped(k, draw(st.integers(0, 9)) == 0)}{sp}:{draw(dumped(x))}"
            for k, x in members
        ]
        return "{" + ",".join(parts) + sp + "}"
    if isinstance(v, list):
        return "[" + ",".join(draw(dumped(x)) for x in v) + sp + "]"
    return sp + json.dumps(v, ensure_ascii=draw(st.booleans())) + sp


@st.composite
def texts(draw: Any) -> bytes:
    recs = draw(st.one_of(histories(max_events=5), invalid_histories()))
    items = [draw(dumped(r)) for r in recs]
    if not items or draw(st.booleans()):
        text = "[" + ",\n".join(items) + "]"
    else:
        text = "\n".join(items) + draw(st.sampled_from(["", "\n", "\n\n"]))
    if draw(st.integers(0, 4)) == 0:
        # junk on the last line
        text += draw(JUNK)
    return text.encode()


@settings(max_examples=60, deadline=None)
@given(texts())
def test_every_kind_of_the_same_text_gives_one_result(data: bytes) -> None:
    from_bytes = outcome(data)
    assert outcome(data.decode()) == from_bytes
    python = python_reading(data)
    if python is None:
        assert from_bytes[0] == "JSONDecodeError", from_bytes
    else:
        assert outcome(python) == from_bytes
    # whatever load_session returns, normalize_for_api takes
    try:
        loaded = msgnorm.load_session(data, kind="bytes").records
    except msgnorm.MsgnormError:
        return
    assert outcome(loaded)[0] == "ok"
    assert python_reading(loaded) == json.loads(loaded)


def test_counts_read_the_last_value() -> None:
    """§6 counts the record Python's json reads: a shadowed member counts nothing."""
    text = (
        '{"type":"user","type":"user","uuid":"u","message":{"role":"user","content":['
        '{"type":"image","source":{"data":"' + "x" * 400 + '"},"source":{"data":"y"}},'
        '{"type":"tool_result","tool_use_id":"t","content":"' + "z" * 400 + '","content":"w"}]}}'
    )
    want = msgnorm.count_tokens_per_record([json.loads(text)])
    for data in (text.encode(), text, "[" + text + "]"):
        assert msgnorm.count_tokens_per_record(data) == want


TOOL_PAIR = (
    '[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use",'
    '"id":"t0","id":"t1","name":"f","input":{}}]},{"role":"user","content":'
    '[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]'
)


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        # the last id is the one answered
        (TOOL_PAIR, []),
        # the last id is not
        (
            TOOL_PAIR.replace('"id":"t0","id":"t1"', '"id":"t1","id":"t0"'),
            ["anthropic/tool-use-without-result", "anthropic/tool-result-without-use"],
        ),
    ],
)
def test_validate_reads_the_last_value(text: str, rules: list[str]) -> None:
    want = msgnorm.validate(json.loads(text), "anthropic")
    assert [v.rule for v in want] == rules
    assert msgnorm.validate(text.encode(), "anthropic") == want
    assert msgnorm.validate(text, "anthropic") == want
