"""The Arrow kernel (msgnorm.arrow): every row exactly the single call on that
row's bytes, nulls kept, a broken row an error row, every Arrow string type,
arrays and streams, pyarrow and other producers of the PyCapsule interface."""

from __future__ import annotations

from typing import Any

import msgnorm
import msgnorm.arrow
import pytest
from support import external, generate
from support.engines import single

pa = pytest.importorskip(
    "pyarrow", reason="pyarrow is not installed (pip install 'msgnorm[arrow]')"
)


TRANSCRIPTS = external.example_files() + external.corpus_files()
test_external_corpus = external.corpus_check

BROKEN = b'[{"type": "user", "uuid": "u", "message": {"role": "user", "content": 5}}]'
TYPES = ["binary", "large_binary", "string", "large_string", "binary_view", "string_view"]


@pytest.fixture(scope="module")
def histories() -> list[bytes]:
    # a few hundred generated histories, both JSON arrays and JSON Lines
    return [
        generate.generate_bytes(5 + (s * 37) % 120, seed=s, jsonl=s % 3 == 0) for s in range(300)
    ]


def as_bytes(v: Any) -> Any:
    return v.encode() if isinstance(v, str) else v


def check_rows(rows: list[Any], items: list[bytes | None], **kw: Any) -> None:
    assert len(rows) == len(items)
    for i, (row, data) in enumerate(zip(rows, items, strict=True)):
        if data is None:
            assert row is None, i
            continue
        row = dict(row, normalized=as_bytes(row["normalized"]))
        assert row == single(data, **kw), i


@pytest.mark.parametrize("type_name", TYPES)
def test_every_row_is_the_single_call(histories: list[bytes], type_name: str) -> None:
    items: list[bytes | None] = [*histories[:40], None, BROKEN, b"[{oops", *histories[40:80]]
    typ = getattr(pa, type_name)()
    text = type_name.startswith(("string", "large_string"))
    arr = pa.array([(d.decode() if text and d is not None else d) for d in items], type=typ)
    out = msgnorm.arrow.normalize_for_api(arr, num_threads=2)
    assert isinstance(out, pa.StructArray)
    assert out.type.field("normalized").type == typ
    assert [f.name for f in out.type] == ["normalized", "repairs", "tokens", "error"]
    assert [f.name for f in out.type.field("repairs").type] == list(msgnorm.arrow.REPAIRS)
    check_rows(out.to_pylist(), items)
    # the null row is a null struct; the broken rows carry their error alone
    assert out.is_null().to_pylist()[40] is True
    assert out.field("error").to_pylist()[41].startswith("records[0].message.content")
    assert "line 1 column 3" in out.field("error").to_pylist()[42]


def test_a_few_hundred_histories_on_one_and_two_threads(histories: list[bytes]) -> None:
    items: list[bytes | None] = [*histories[:150], BROKEN, *histories[150:]]
    arr = pa.array(items, type=pa.binary())
    one = msgnorm.arrow.normalize_for_api(arr, num_threads=1)
    two = msgnorm.arrow.normalize_for_api(arr, num_threads=2)
    assert one.equals(two)
    check_rows(two.to_pylist(), items)
    # and the same as normalize_batch
    batch = msgnorm.normalize_batch(items[:150], num_threads=2)
    assert two.field("normalized").to_pylist()[:150] == batch


def test_options_reach_every_row(histories: list[bytes]) -> None:
    kw = {"max_media": 1, "short_ids": True, "ensure_user_first": False}
    arr = pa.array(histories[:30], type=pa.large_binary())
    out = msgnorm.arrow.normalize_for_api(arr, **kw, chars_per_token=2.5)
    for row, data in zip(out.to_pylist(), histories[:30], strict=True):
        expected, report = msgnorm.normalize_for_api_report(data, **kw)
        assert row["normalized"] == expected and row["repairs"] == report
        assert row["tokens"] == msgnorm.count_tokens(expected, chars_per_token=2.5)
    strict = msgnorm.arrow.normalize_for_api(arr, strict=True).to_pylist()
    for row, data in zip(strict, histories[:30], strict=True):
        assert row == single(data, strict=True)
    no_tokens = msgnorm.arrow.normalize_for_api(arr, tokens=False)
    assert no_tokens.field("tokens").null_count == 30
    assert no_tokens.field("normalized").equals(
        msgnorm.arrow.normalize_for_api(arr).field("normalized")
    )


def test_chunked_arrays_and_streams_keep_their_chunks(histories: list[bytes]) -> None:
    chunks = [histories[:10], [None, *histories[10:20]], histories[20:21]]
    ca = pa.chunked_array([pa.array(c, type=pa.binary()) for c in chunks])
    out = msgnorm.arrow.normalize_for_api(ca)
    assert isinstance(out, pa.ChunkedArray)
    assert [len(c) for c in out.chunks] == [10, 11, 1]
    check_rows(out.to_pylist(), [d for c in chunks for d in c])
    empty = msgnorm.arrow.normalize_for_api(pa.chunked_array([], type=pa.string()))
    assert len(empty) == 0 and empty.type.field("normalized").type == pa.string()


class ArrayOnly:
    """A producer that is not pyarrow: only the PyCapsule protocol."""

    def __init__(self, arr: Any) -> None:
        self._arr = arr

    def __arrow_c_array__(self, requested_schema: Any = None) -> Any:
        return self._arr.__arrow_c_array__(requested_schema)


class StreamOnly:
    def __init__(self, arr: Any) -> None:
        self._arr = arr

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._arr.__arrow_c_stream__(requested_schema)


def test_any_capsule_producer_gets_a_capsule_result(histories: list[bytes]) -> None:
    arr = pa.array([*histories[:5], None], type=pa.large_string())
    out = msgnorm.arrow.normalize_for_api(ArrayOnly(arr))
    assert not isinstance(out, pa.Array) and hasattr(out, "__arrow_c_array__")
    assert pa.array(out).equals(msgnorm.arrow.normalize_for_api(arr))
    stream = msgnorm.arrow.normalize_for_api(StreamOnly(pa.chunked_array([arr, arr])))
    assert hasattr(stream, "__arrow_c_stream__")
    assert pa.chunked_array(stream).to_pylist() == pa.array(out).to_pylist() * 2


def test_capsule_results_export_again_and_free_what_is_not_taken(histories: list[bytes]) -> None:
    arr = pa.array(histories[:8], type=pa.binary())
    want = msgnorm.arrow.normalize_for_api(arr)
    out = msgnorm.arrow.normalize_for_api(ArrayOnly(arr))
    assert len(out) == 8 and "8 rows" in repr(out)
    for _ in range(200):  # capsules dropped untaken: their destructors release them
        out.__arrow_c_array__()
        out.__arrow_c_stream__()
        out.__arrow_c_schema__()
    # every export hands out the same rows, as an array and as a one-chunk stream
    assert pa.array(out).equals(want) and pa.array(out).equals(want)
    assert pa.chunked_array(out).combine_chunks().equals(want)
    stream = msgnorm.arrow.normalize_for_api(StreamOnly(pa.chunked_array([arr, arr[:3]])))
    assert not hasattr(stream, "__arrow_c_array__") and len(stream) == 11
    first, second = pa.chunked_array(stream), pa.chunked_array(stream)
    assert [len(c) for c in first.chunks] == [8, 3] and first.equals(second)
    assert pa.schema([pa.field("x", pa.int8())]).field(0).name == "x"  # pyarrow still sane
    assert pa.field(stream).type == want.type  # __arrow_c_schema__


class BrokenStream:
    """A stream whose producer fails after its first chunk."""

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        schema = pa.schema([pa.field("h", pa.binary())])

        def batches() -> Any:
            yield pa.record_batch([pa.array([b"[]"])], schema=schema)
            raise RuntimeError("the producer broke")

        return pa.RecordBatchReader.from_batches(schema, batches()).__arrow_c_stream__()


class NotAPair:
    def __arrow_c_array__(self, requested_schema: Any = None) -> Any:
        return "schema, array"


def test_a_failing_producer_is_a_clear_error() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="the producer broke"):
        msgnorm.arrow.normalize_for_api(BrokenStream())
    with pytest.raises(msgnorm.MsgnormError, match="tuple"):
        msgnorm.arrow.normalize_for_api(NotAPair())


def test_errors_raise_gives_the_first_bad_row(histories: list[bytes]) -> None:
    ca = pa.chunked_array([pa.array(histories[:3]), pa.array([histories[3], b"[{oops", BROKEN])])
    with pytest.raises(msgnorm.JSONDecodeError) as info:
        msgnorm.arrow.normalize_for_api(ca, errors="raise")
    assert info.value.item == 4  # type: ignore[attr-defined]
    assert (info.value.line, info.value.column) == (1, 3)
    with pytest.raises(msgnorm.InvalidRecordError):
        msgnorm.arrow.count_tokens(pa.array([BROKEN]), errors="raise")


def test_count_tokens(histories: list[bytes]) -> None:
    items = [*histories[:20], None, b"[{oops"]
    out = msgnorm.arrow.count_tokens(pa.array(items), chars_per_token=3.0).to_pylist()
    for row, data in zip(out[:20], histories[:20], strict=True):
        assert row == {"tokens": msgnorm.count_tokens(data, chars_per_token=3.0), "error": None}
    assert out[20] is None
    assert out[21]["tokens"] is None and "line 1" in out[21]["error"]


def test_every_transcript_file() -> None:
    data = [p.read_bytes() for p in TRANSCRIPTS]
    arr = pa.array(data, type=pa.large_binary())
    # each file as a flat list: the single call, output or error
    check_rows(msgnorm.arrow.normalize_for_api(arr).to_pylist(), list(data))
    # each file as a session: its main thread, as normalize_batch(session=True) has it
    rows = msgnorm.arrow.normalize_for_api(arr, session=True).to_pylist()
    batch = msgnorm.normalize_batch_report(data, session=True)
    for row, d, b in zip(rows, data, batch, strict=True):
        thread = msgnorm.load_session(d, kind="bytes").records
        assert (row["normalized"], row["repairs"]) == msgnorm.normalize_for_api_report(thread)
        assert (row["normalized"], row["repairs"]) == b
        assert row["tokens"] == msgnorm.count_tokens(row["normalized"])
    counts = msgnorm.arrow.count_tokens(arr, session=True).field("tokens").to_pylist()
    assert counts == msgnorm.count_tokens_batch(data, session=True)


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(msgnorm.MsgnormError, match="Arrow array"):
        msgnorm.arrow.normalize_for_api([b"[]"])
    with pytest.raises(msgnorm.MsgnormError, match="binary, large_binary, utf8"):
        msgnorm.arrow.normalize_for_api(pa.array([1, 2]))
    with pytest.raises(msgnorm.MsgnormError, match="errors"):
        msgnorm.arrow.normalize_for_api(pa.array([b"[]"]), errors="skip")  # type: ignore[arg-type]
    with pytest.raises(msgnorm.MsgnormError, match="num_threads"):
        msgnorm.arrow.normalize_for_api(pa.array([b"[]"]), num_threads=0)
    with pytest.raises(ValueError, match="chars_per_token"):
        msgnorm.arrow.count_tokens(pa.array([b"[]"]), chars_per_token=0.0)
    # invalid UTF-8 in a binary row is that row's error
    out = msgnorm.arrow.normalize_for_api(pa.array([b"[\xff]", b"[]"])).to_pylist()
    assert out[0]["error"] and out[1] == single(b"[]")


def test_dictionary_encoded_strings_are_refused_clearly() -> None:
    arr = pa.array(["[]", "[]"]).dictionary_encode()
    with pytest.raises(msgnorm.MsgnormError, match=r"(?i)dictionary"):
        msgnorm.arrow.normalize_for_api(arr)


def test_polars_series_in(histories: list[bytes]) -> None:
    pl = pytest.importorskip("polars", reason="polars is not installed")
    s = pl.Series("h", [d.decode() for d in histories[:10]] + [None])
    out = msgnorm.arrow.normalize_for_api(s)  # Polars exports a stream of string views
    assert hasattr(out, "__arrow_c_stream__") and not isinstance(out, pa.ChunkedArray)
    series = pl.Series(out)
    assert series.dtype.fields[0].dtype == pl.String  # type: ignore[attr-defined]
    check_rows(series.to_list(), [*histories[:10], None])
    # the corpus-scale guide's Polars one-liner (docs/guides/corpus-scale.md)
    df = pl.DataFrame({"h": s})
    one = pl.col("h").map_batches(lambda x: pl.Series(msgnorm.arrow.normalize_for_api(x)))
    wide = df.with_columns(one.alias("n")).unnest("n")
    assert wide["normalized"].to_list() == series.struct.field("normalized").to_list()


@pytest.mark.parametrize("type_name", ["binary", "large_string", "string_view"])
def test_sliced_arrays_read_their_own_rows(histories: list[bytes], type_name: str) -> None:
    items: list[bytes | None] = [*histories[:12], None, *histories[12:20]]
    typ = getattr(pa, type_name)()
    text = "string" in type_name
    arr = pa.array([(d.decode() if text and d is not None else d) for d in items], type=typ)
    part = arr.slice(5, 10)  # an offset into the buffers and the validity bitmap
    check_rows(msgnorm.arrow.normalize_for_api(part).to_pylist(), items[5:15])
    chunked = pa.chunked_array([arr.slice(0, 7), arr.slice(7)])
    check_rows(msgnorm.arrow.normalize_for_api(chunked).to_pylist(), items)


def test_num_threads_is_honoured(histories: list[bytes]) -> None:
    from support.engines import threads_named_msgnorm, threads_named_msgnorm_at_least

    if threads_named_msgnorm() < 0:
        pytest.skip("needs Linux /proc")
    before = threads_named_msgnorm()
    msgnorm.arrow.normalize_for_api(pa.array(histories[:20]), num_threads=6)
    # a new pool's threads name themselves one by one: wait for all six (a
    # pool from before adds none, and the wait runs out)
    after = threads_named_msgnorm_at_least(before + 6)
    assert after - before in (0, 6)  # a pool of 6 (maybe from before)
    assert after >= 6
    before = threads_named_msgnorm()
    msgnorm.arrow.count_tokens(pa.array(histories[:20]), num_threads=1)
    assert threads_named_msgnorm() == before  # one thread: the rows run inline
