"""Many histories at once, on every core.

Each item is one history: JSON ``bytes``/``str`` (an array or JSON Lines, or with
``session=True`` a Claude Code session file, whose main thread after the last
compaction is used) or a list of records.  The results come back in input order,
each exactly what the single call gives for that item alone.  JSON items run on the
Rust core's batch kernel with the GIL released, on a private pool of
``num_threads`` threads (default: ``MSGNORM_NUM_THREADS``, else the CPUs this process
may use); lists of records are Python objects and run one by one on the calling
thread.  The pool is rebuilt in a forked child (``multiprocessing``, engine workers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from . import _api, _native
from .errors import MsgnormError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._native import _ApiOptions, _Costs

__all__ = [
    "count_tokens_batch",
    "default_num_threads",
    "normalize_batch",
    "normalize_batch_report",
]

Errors = Literal["report", "raise"]


def default_num_threads() -> int:
    """The threads the batch functions use when ``num_threads`` is not given."""
    return int(_native.default_num_threads())


def _threads(num_threads: int | None) -> int | None:
    if num_threads is None:
        return None
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise MsgnormError(f"num_threads must be an int >= 1, not {num_threads!r}")
    return min(num_threads, 1024)


def _split(items: Sequence[Any]) -> tuple[list[int], list[Any], list[int]]:
    """(indices of JSON items, those items as bytes/str, indices of record lists)."""
    if not isinstance(items, Sequence) or isinstance(items, (bytes, str)):
        raise MsgnormError("items must be a list of histories (JSON bytes/str, or record lists)")
    json_at: list[int] = []
    json_items: list[Any] = []
    lists_at: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, (bytes, str)):
            json_at.append(i)
            json_items.append(item)
        elif isinstance(item, (bytearray, memoryview)):
            json_at.append(i)
            json_items.append(bytes(item))
        elif isinstance(item, list):
            lists_at.append(i)
        else:
            raise MsgnormError(
                f"items[{i}]: expected JSON bytes/str or a list of records, "
                f"not {type(item).__name__}"
            )
    return json_at, json_items, lists_at


def _each(
    items: Sequence[Any],
    session: bool,
    json_batch: Callable[[list[Any]], list[Any]],
    one_list: Callable[[Any], Any],
) -> list[Any]:
    """Every item's result, in input order: the JSON items in one ``json_batch``
    call (on every core), each record list by ``one_list``; a bad item's place
    holds its exception, tagged with its index."""
    if session and any(isinstance(it, list) for it in items):
        raise MsgnormError("session=True takes session files as JSON bytes/str, not lists")
    json_at, json_items, lists_at = _split(items)
    out: list[Any] = [None] * len(items)
    if json_items:
        for i, r in zip(json_at, json_batch(json_items), strict=True):
            out[i] = _tag(r, i) if isinstance(r, MsgnormError) else r
    for i in lists_at:
        try:
            out[i] = one_list(items[i])
        except MsgnormError as e:
            out[i] = _tag(e, i)
    return out


def _run(
    items: Sequence[Any],
    session: bool,
    num_threads: int | None,
    errors: Errors,
    kernel: tuple[Any, Any],
    one_list: Callable[[Any], Any],
    each: Callable[[Any], Any] | None = None,
) -> list[Any]:
    """The body of a batch function: :func:`_each` with the core's batch kernel
    (``kernel``: its §4 options and its counting costs, one of them ``None``),
    ``each`` applied to every good result, then ``errors`` applied."""
    api, counting = kernel
    out = _each(
        items,
        session,
        lambda xs: _native.batch_kernel(xs, bool(session), _threads(num_threads), api, counting),
        one_list,
    )
    if each is not None:
        out = [r if isinstance(r, MsgnormError) else each(r) for r in out]
    return _finish(out, errors)


def _tag(err: MsgnormError, i: int) -> MsgnormError:
    err.item = i  # type: ignore[attr-defined]
    return err


def _finish(out: list[Any], errors: Errors) -> list[Any]:
    if errors == "raise":
        for value in out:
            if isinstance(value, MsgnormError):
                raise value
    return out


def _check_errors(errors: str) -> None:
    if errors not in ("report", "raise"):
        raise MsgnormError(f"errors must be 'report' or 'raise', not {errors!r}")


def _outputs(results: list[Any]) -> list[Any]:
    return [r if isinstance(r, MsgnormError) else r[0] for r in results]


@_api._with_options(_api._API_DEFAULTS)
def normalize_batch_report(
    items: Sequence[Any],
    *,
    num_threads: int | None = None,
    errors: Errors = "report",
    session: bool = False,
    **options: Unpack[_ApiOptions],
) -> list[Any]:
    """:func:`normalize_batch` with each item's repair counts: ``(output, report)``
    per good item; a bad item is its exception (with ``.item``, its index)."""
    _check_errors(errors)
    api = _api._api_of(options)
    return _run(
        items,
        session,
        num_threads,
        errors,
        (api, None),
        lambda records: _api.normalize_for_api_report(records, **options),
    )


normalize_batch = _api._derived(
    normalize_batch_report,
    _outputs,
    "normalize_batch",
    """``normalize_for_api`` of every item, in input order, on every core.

    ``errors="report"``: a bad item's place holds its exception (a
    :class:`msgnorm.MsgnormError` with ``.item``, and its ``line``/``column`` or
    ``index``/``path``), and the other items are unaffected; ``errors="raise"``
    raises the first one.  ``session=True`` reads each item as a session file
    (its main thread after the last compaction, broken lines skipped).
    """,
)


@_api._with_options(_api._COUNTING_DEFAULTS)
def count_tokens_batch(
    items: Sequence[Any],
    *,
    num_threads: int | None = None,
    errors: Errors = "report",
    session: bool = False,
    per_record: bool = False,
    **costs: Unpack[_Costs],
) -> list[Any]:
    """``count_tokens`` of every item (``per_record=True``: ``count_tokens_per_record``),
    in input order, on every core; errors as in :func:`normalize_batch`."""
    _check_errors(errors)
    counting = _api._costs_of(costs)
    return _run(
        items,
        session,
        num_threads,
        errors,
        (None, counting),
        lambda records: _native.count_tokens_per_record(records, **costs),
        None if per_record else sum,
    )
