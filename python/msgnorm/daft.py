"""Daft adapter: the Arrow kernel as a ``@daft.func.batch`` UDF.

``pip install 'msgnorm[daft]'``.  Daft runs batches of a UDF side by side (one
per core on its native runner, one per worker on Ray), so the kernel runs on one
thread inside each (``num_threads=1``)::

    import daft, msgnorm.daft

    df = daft.from_glob_path("transcripts/**/*.jsonl")          # path, size, num_rows
    df = df.with_column("data", df["path"].download())
    df = msgnorm.daft.normalize_dataframe(df, column="data", session=True)
    df.exclude("data").write_parquet("normalized/")

    # or the UDF itself (binary columns), with extra options as keywords
    df.select("*", msgnorm.daft.normalize(df["data"], session=True))

The frame gains the columns ``normalized`` (Binary for a Binary column, String
for a String column), ``repairs`` (struct of Int64), ``tokens`` (Int64) and
``error`` (String, null when fine); see :mod:`msgnorm.arrow`.
"""

from __future__ import annotations

from typing import Any

import daft  # type: ignore[import-untyped,unused-ignore]
import pyarrow as pa  # type: ignore[import-untyped]

from . import arrow as _arrow
from .errors import MsgnormError
from .ray import DEFAULT_BATCH_SIZE, OUTPUT_COLUMNS

__all__ = ["OUTPUT_COLUMNS", "normalize", "normalize_dataframe", "result_dtype"]


def result_dtype(text: bool = False) -> Any:
    """The Daft struct type of the kernel's result (``text``: a String input column)."""
    fields = [
        ("normalized", pa.large_string() if text else pa.large_binary()),
        ("repairs", pa.struct([(name, pa.int64()) for name in _arrow.REPAIRS])),
        ("tokens", pa.int64()),
        ("error", pa.large_string()),
    ]
    return daft.DataType.from_arrow_type(pa.struct(fields))


def _normalize(histories: Any, session: bool = False, options: dict[str, Any] | None = None) -> Any:
    out = _arrow.normalize_for_api(
        histories.to_arrow(), session=session, num_threads=1, **(options or {})
    )
    return daft.Series.from_arrow(out, name=histories.name())


#: The batch UDF over a Binary column: ``normalize(df["data"], session=False,
#: options={...})`` gives the four output columns (``unnest``).
normalize = daft.func.batch(
    return_dtype=result_dtype(False), unnest=True, batch_size=DEFAULT_BATCH_SIZE
)(_normalize)


def normalize_dataframe(
    df: Any,
    column: str = "data",
    *,
    session: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    **options: Any,
) -> Any:
    """``df`` (a ``daft.DataFrame``) with the kernel's four columns added (lazy);
    ``options`` as in :func:`msgnorm.arrow.normalize_for_api`."""
    names = list(df.column_names)
    if column not in names:
        raise MsgnormError(f"no column {column!r} in the frame (columns: {names})")
    clash = [c for c in OUTPUT_COLUMNS if c in names]
    if clash:
        raise MsgnormError(f"the frame already has the output column(s) {clash}")
    dtype = df.schema()[column].dtype
    if dtype == daft.DataType.string():
        text = True
    elif dtype == daft.DataType.binary():
        text = False
    else:
        raise MsgnormError(f"column {column!r} is {dtype}: expected Binary or String")
    udf = daft.func.batch(return_dtype=result_dtype(text), unnest=True, batch_size=batch_size)(
        _normalize
    )
    return df.select("*", udf(df[column], session=session, options=options))
