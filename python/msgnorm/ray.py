"""Ray Data adapter: the Arrow kernel as a ``map_batches`` function.

``pip install 'msgnorm[ray]'``.  Ray already runs one task per CPU, so the kernel
runs on one thread inside each task (``num_threads=1``)::

    import ray, msgnorm.ray

    ds = ray.data.read_binary_files("transcripts/", include_paths=True)  # "bytes", "path"
    ds = msgnorm.ray.normalize_dataset(ds, column="bytes", session=True)
    ds.drop_columns(["bytes"]).write_parquet("normalized/")

    # or by hand, with map_batches' own options
    ds.map_batches(msgnorm.ray.normalize_table, batch_format="pyarrow",
                   fn_kwargs={"column": "bytes", "session": True})

Each batch gains the columns ``normalized`` (the input's type), ``repairs``
(struct of int64), ``tokens`` (int64) and ``error`` (utf8, null when fine); see
:mod:`msgnorm.arrow`.  A broken row is an error row; the job goes on.
"""

from __future__ import annotations

from typing import Any

from . import arrow as _arrow
from .errors import MsgnormError

__all__ = ["OUTPUT_COLUMNS", "normalize_dataset", "normalize_table"]

#: The columns the adapters add, in order.
OUTPUT_COLUMNS: tuple[str, ...] = ("normalized", "repairs", "tokens", "error")

#: Rows per batch: a batch is one kernel call; session files run to megabytes.
DEFAULT_BATCH_SIZE = 128


def _check_columns(names: list[str], column: str) -> None:
    if column not in names:
        raise MsgnormError(f"no column {column!r} in the batch (columns: {names})")
    clash = [c for c in OUTPUT_COLUMNS if c in names]
    if clash:
        raise MsgnormError(f"the batch already has the output column(s) {clash}")


def normalize_table(
    batch: Any,
    *,
    column: str = "bytes",
    session: bool = False,
    num_threads: int = 1,
    **options: Any,
) -> Any:
    """A ``pyarrow.Table`` batch with the kernel's four columns appended (for
    ``map_batches(..., batch_format="pyarrow")``); ``options`` as in
    :func:`msgnorm.arrow.normalize_for_api`.  Rows that fail keep going as error rows."""
    import pyarrow as pa  # type: ignore[import-untyped]

    if not isinstance(batch, pa.Table):
        raise MsgnormError(
            f"expected a pyarrow.Table batch (batch_format='pyarrow'), not {type(batch).__name__}"
        )
    _check_columns(batch.column_names, column)
    out = _arrow.normalize_for_api(
        batch.column(column), session=session, num_threads=num_threads, **options
    )
    for name, values in zip(OUTPUT_COLUMNS, out.flatten(), strict=True):
        batch = batch.append_column(name, values)
    return batch


def normalize_dataset(
    ds: Any,
    column: str = "bytes",
    *,
    session: bool = False,
    batch_size: int | None = DEFAULT_BATCH_SIZE,
    concurrency: int | None = None,
    **options: Any,
) -> Any:
    """``ds`` (a ``ray.data.Dataset``) with the kernel's four columns added: lazy,
    like every Ray Data transform.  ``options`` as in
    :func:`msgnorm.arrow.normalize_for_api`."""
    kwargs: dict[str, Any] = {}
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    return ds.map_batches(
        normalize_table,
        batch_format="pyarrow",
        batch_size=batch_size,
        zero_copy_batch=True,
        fn_kwargs={"column": column, "session": session, "num_threads": 1, **options},
        **kwargs,
    )
