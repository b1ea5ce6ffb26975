"""msgnorm.daft on Daft's native runner: every row the single call's."""

from __future__ import annotations

from pathlib import Path

import msgnorm
import pytest
from support.engines import BROKEN, histories, row_of, single, threads_named_msgnorm, write_tree

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'msgnorm[daft]')")
daft = pytest.importorskip(
    "daft", reason="daft is not installed for this Python (pip install 'msgnorm[daft]')"
)

import msgnorm.daft  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def native_runner() -> None:
    try:
        daft.set_runner_native()
    except Exception as e:  # a runner was set before in this process
        if daft.get_or_infer_runner_type() != "native":
            pytest.skip(f"Daft's runner is already {daft.get_or_infer_runner_type()}: {e}")


def test_normalize_dataframe_rows_are_the_single_calls() -> None:
    items: list[bytes | None] = [*histories(150), None, BROKEN, b"[{oops", *histories(30)]
    df = daft.from_pydict({"h": items, "i": list(range(len(items)))})
    out = msgnorm.daft.normalize_dataframe(df, "h", batch_size=16).sort("i").to_pylist()
    assert [r["i"] for r in out] == list(range(len(items)))
    for r, data in zip(out, items, strict=True):
        assert row_of(r) == single(data), r["i"]
    assert out[151]["error"].startswith("records[0].message.content")


def test_string_columns_and_options() -> None:
    items = [h.decode() for h in histories(30)]
    df = daft.from_pydict({"h": items})
    out = msgnorm.daft.normalize_dataframe(df, "h", max_media=1, strict=True).to_arrow()
    assert out.schema.field("normalized").type == pa.large_string()
    for r, data in zip(out.to_pylist(), items, strict=True):
        assert row_of(r) == single(data.encode(), max_media=1, strict=True)


def test_the_batch_udf_and_a_directory(tmp_path: Path) -> None:
    files = write_tree(tmp_path, [*histories(40), BROKEN])
    df = daft.from_glob_path(str(tmp_path / "**" / "*.jsonl"))
    df = df.with_column("data", df["path"].download())
    got = df.select("path", msgnorm.daft.normalize(df["data"], session=True)).to_pylist()
    assert len(got) == len(files)
    for r in got:
        rel = Path(r["path"].removeprefix("file://")).relative_to(tmp_path).as_posix()
        assert row_of(r) == single(files[rel], session=True), rel


def test_the_kernel_runs_on_one_thread_in_the_udf(monkeypatch: pytest.MonkeyPatch) -> None:
    # the UDF runs in this process (native runner): a kernel left to its default
    # would build a pool of MSGNORM_NUM_THREADS threads here
    if threads_named_msgnorm() < 0:
        pytest.skip("needs Linux /proc")
    monkeypatch.setenv("MSGNORM_NUM_THREADS", "7")
    before = threads_named_msgnorm()
    df = daft.from_pydict({"h": histories(40)})
    msgnorm.daft.normalize_dataframe(df, "h", batch_size=8).collect()
    assert threads_named_msgnorm() == before  # no pool was built: rows ran inline


def test_bad_columns_are_clear_errors() -> None:
    df = daft.from_pydict({"h": [1, 2], "error": ["a", "b"]})
    with pytest.raises(msgnorm.MsgnormError, match="no column 'x'"):
        msgnorm.daft.normalize_dataframe(df, "x")
    with pytest.raises(msgnorm.MsgnormError, match="already has"):
        msgnorm.daft.normalize_dataframe(df, "h")
    with pytest.raises(msgnorm.MsgnormError, match="Binary or String"):
        msgnorm.daft.normalize_dataframe(df.exclude("error"), "h")
