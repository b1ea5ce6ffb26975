"""SPEC §6.3: exact o200k_base / cl100k_base counts, against tiktoken.

The fixtures (tests/support/exact_fixtures.py) are texts and records we wrote;
their tiktoken counts are stored in tests/data/exact_tokens.json. msgnorm is
always checked against the stored counts when a rank file can be found offline
(``MSGNORM_BPE_DIR``, which .ci/run sets, or tiktoken's cache); tiktoken recounts
them when it is installed. The core's own tests compare the merge with
tiktoken-rs on generated texts (rust/core/src/exact/bpe_tests.rs).
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Literal

import msgnorm
import msgspec
import pytest
from msgnorm import _exact, _native
from support import exact_fixtures as fx
from support import generate
from support.bpe_files import rank_file, tiktoken_encoding

ENCODINGS = ["o200k_base", "cl100k_base"]
STORED: dict[str, Any] = json.loads(fx.STORED.read_text())


def _have_ranks(encoding: str) -> None:
    if rank_file(encoding) is None:
        pytest.skip(
            f"no {encoding}.tiktoken found offline: set MSGNORM_BPE_DIR (as .ci/run does) "
            "or TIKTOKEN_CACHE_DIR to a cache that holds it"
        )
    try:
        _exact.bpe(encoding)
    except ImportError as e:  # only TIKTOKEN_CACHE_DIR, and tiktoken not installed
        pytest.skip(str(e))


@pytest.fixture(params=ENCODINGS)
def encoding(request: pytest.FixtureRequest) -> str:
    enc: str = request.param
    _have_ranks(enc)
    return enc


def test_texts_match_the_stored_tiktoken_counts(encoding: str) -> None:
    table = _exact.bpe(encoding)
    want = STORED[encoding]["texts"]
    assert set(want) == set(fx.TEXTS)
    got = {k: table.count(t) for k, t in fx.TEXTS.items()}
    assert got == want
    assert table.count_many(list(fx.TEXTS.values())) == list(want.values())


@pytest.mark.parametrize("kind", ["dicts", "structs", "bytes", "str", "jsonl"])
def test_records_match_the_stored_counts_in_every_input_kind(encoding: str, kind: str) -> None:
    records: Any = fx.RECORDS
    if kind == "structs":
        records = msgnorm.from_builtins(fx.RECORDS)
    elif kind == "bytes":
        records = msgspec.json.encode(fx.RECORDS)
    elif kind == "str":
        records = json.dumps(fx.RECORDS, ensure_ascii=False)
    elif kind == "jsonl":
        records = b"\n".join(msgspec.json.encode(r) for r in fx.RECORDS) + b"\n"
    assert _exact.exact_counts(records, encoding) == STORED[encoding]["records"]


def test_content_text_is_the_reference_reading() -> None:
    want = [fx.reference_content(r) for r in fx.RECORDS]
    assert _exact.content_texts(fx.RECORDS) == want
    assert _exact.content_texts(msgnorm.from_builtins(fx.RECORDS)) == want
    # not messages: 0; messages: at least the 3 a message adds
    assert want[6] is None and want[-1] is None
    assert want[-2] == ""


@pytest.mark.parametrize("name", ENCODINGS)
def test_tiktoken_recounts_the_stored_counts(name: str, tmp_path: Path) -> None:
    pytest.importorskip("tiktoken", reason="tiktoken (the [exact] extra) is not installed")
    enc = tiktoken_encoding(name, tmp_path)
    if enc is None:
        pytest.skip(f"no {name}.tiktoken found offline (MSGNORM_BPE_DIR, TIKTOKEN_CACHE_DIR)")
    assert fx.tiktoken_counts(enc) == STORED[name]


@pytest.mark.parametrize("name", ENCODINGS)
def test_long_and_generated_texts_match_tiktoken(name: str, tmp_path: Path) -> None:
    pytest.importorskip("tiktoken", reason="tiktoken (the [exact] extra) is not installed")
    _have_ranks(name)
    enc = tiktoken_encoding(name, tmp_path)
    assert enc is not None
    texts = [t * 40 for t in fx.TEXTS.values()] + [" " * 5000 + "a", "字" * 3000, "ab" * 4000]
    ours = _exact.bpe(name).count_many(texts)
    assert ours == [len(enc.encode_ordinary(t)) for t in texts]


def _all_kinds(records: list[Any], encoding: str) -> dict[str, Any]:
    """Content texts and exact counts of ``records`` read as dicts, as Structs and as
    the JSON msgspec writes of them (the direct reading against the JSON one)."""
    structs = msgnorm.from_builtins(records)
    data = msgspec.json.encode(records)
    tokenizer: Literal["o200k_base", "cl100k_base"] = (
        "o200k_base" if encoding == "o200k_base" else "cl100k_base"
    )
    out: dict[str, Any] = {}
    for kind, given in (("dicts", records), ("structs", structs), ("bytes", data)):
        out[kind] = (
            _exact.content_texts(given),
            _exact.exact_counts(given, encoding),
            msgnorm.count_tokens_per_record(given, tokenizer=tokenizer, exact=True),
        )
    return out


def test_dicts_structs_and_json_give_identical_exact_counts(encoding: str) -> None:
    got = _all_kinds(fx.RECORDS, encoding)
    assert got["dicts"] == got["structs"] == got["bytes"]
    assert got["dicts"][1] == STORED[encoding]["records"]


def test_tool_inputs_are_written_as_the_json_path_writes_them() -> None:
    _have_ranks("o200k_base")
    inputs: list[Any] = [
        {"f": [1e16, 1e-7, 100.0, 0.1, -0.0, 5e-324, 1.5e300, float("nan"), float("inf")]},
        {"big": [2**63, -(2**70), 10**30, True, False, None], "t": (1, "two", [3])},
        {"s": 'q"\\\n\t\u0001 \u00e9 日本 \U0001f600', "": {}, "e": []},
        {1: "int key", "b": b"\x00\xffbytes"},
        "just a string",
        [1, {"nested": {"deep": [None]}}],
        {"set": {1}, "uuid": uuid.UUID(int=5)},  # written by msgspec: no plain value
    ]
    records = [
        fx._assistant([{"type": "tool_use", "id": f"t{i}", "name": "Run", "input": x}], f"a{i}")
        for i, x in enumerate(inputs)
    ]
    records.append(fx._assistant([{"type": "tool_use", "id": "n", "name": 7}], "no-name"))
    got = _exact.content_texts(records)
    want = _exact.content_texts(msgspec.json.encode(records))
    assert got == want
    assert got[0] is not None and got[0].startswith('Run{"f":[1e16,1e-7,100.0,')
    assert got[-1] == ""  # a name that is not a str, and no input
    counts = _exact.exact_counts(records, "o200k_base")
    assert counts == _exact.exact_counts(msgspec.json.encode(records), "o200k_base")


def test_a_tool_input_msgspec_cannot_write_is_a_clear_error() -> None:
    _have_ranks("o200k_base")
    records = [
        fx.RECORDS[0],
        fx._assistant(
            [{"type": "tool_use", "id": "t", "name": "R", "input": {"s": object()}}], "a"
        ),
    ]
    with pytest.raises(msgnorm.MsgnormError, match=r"not JSON data \(record 1: "):
        _exact.exact_counts(records, "o200k_base")
    with pytest.raises(msgnorm.MsgnormError, match="not JSON data"):
        msgnorm.count_tokens(records, tokenizer="o200k_base", exact=True)


@pytest.mark.skipif(generate.CORPUS_DIR is None, reason="MSGNORM_CORPUS is not set")
def test_corpus_records_give_identical_exact_counts_in_every_kind() -> None:
    _have_ranks("o200k_base")
    corpus = generate.corpus_records()
    assert corpus, f"MSGNORM_CORPUS={generate.CORPUS_DIR} holds no *.jsonl"
    seen = 0
    for name, records in corpus.items():
        got = _all_kinds(records, "o200k_base")
        assert got["dicts"] == got["structs"] == got["bytes"], name
        seen += sum(t is not None for t in got["dicts"][0])
    assert seen > 100


def test_records_are_checked_as_every_count_function_checks_them() -> None:
    _have_ranks("o200k_base")
    bad = [fx.RECORDS[0], {"type": "user", "uuid": "x", "message": {"role": "user", "content": 5}}]
    with pytest.raises(msgnorm.InvalidRecordError) as e:
        _exact.exact_counts(bad, "o200k_base")
    assert e.value.index == 1
    with pytest.raises(msgnorm.JSONDecodeError):
        _exact.exact_counts(b'[{"type": "user",', "o200k_base")
    with pytest.raises(msgnorm.InvalidRecordError, match="expected a list of records"):
        _exact.exact_counts(fx.RECORDS[0], "o200k_base")
    lone = '[{"type": "user", "uuid": "x", "message": {"role": "user", "content": "\ud800"}}]'
    with pytest.raises(msgnorm.JSONDecodeError, match="lone surrogate"):
        _exact.content_texts(lone)


def test_unknown_encodings_and_bad_rank_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(msgnorm.MsgnormError, match="expected one of 'o200k_base', 'cl100k_base'"):
        _exact.bpe("p50k_base")
    with pytest.raises(msgnorm.MsgnormError, match="expected 'o200k_base' or 'cl100k_base'"):
        _native.Bpe("gpt2", b"")
    with pytest.raises(msgnorm.MsgnormError, match="line 1: the rank is not a number"):
        _native.Bpe("o200k_base", b"YQ== one\n")


def test_a_missing_rank_file_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MSGNORM_BPE_DIR", str(tmp_path))
    with pytest.raises(msgnorm.MsgnormError, match="cannot be read"):
        _exact._rank_file("o200k_base")
    (tmp_path / "o200k_base.tiktoken").write_bytes(b"YQ== 0\n")
    with pytest.raises(msgnorm.MsgnormError, match=r"is not the published o200k_base\.tiktoken"):
        _exact._rank_file("o200k_base")
    monkeypatch.delenv("MSGNORM_BPE_DIR")
    # tiktoken missing: the error names the extra
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    monkeypatch.setitem(sys.modules, "tiktoken.load", None)
    with pytest.raises(ImportError, match=r"msgnorm\[exact\]"):
        _exact._rank_file("cl100k_base")


def test_one_table_is_shared_by_threads() -> None:
    _have_ranks("o200k_base")
    tables: list[Any] = []
    text = fx.TEXTS["english prose"] * 50
    counts: list[int] = []

    def work() -> None:
        t = _exact.bpe("o200k_base")
        tables.append(t)
        counts.append(t.count(text))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(t) for t in tables}) == 1
    assert len(set(counts)) == 1 and counts[0] > 0
