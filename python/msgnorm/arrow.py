"""The Arrow kernel: one history per row of an Arrow array, every row on every core.

The input is any object with ``__arrow_c_array__`` or ``__arrow_c_stream__`` (the
Arrow PyCapsule interface: a pyarrow ``Array`` or ``ChunkedArray``, a Polars or
Daft ``Series``, an arro3 array, ...) of ``binary``, ``large_binary``, ``utf8`` or
``large_utf8`` (or their ``*_view`` forms), one JSON history per row (an array or
JSON Lines; with ``session=True`` a Claude Code session file).  The rows are read
in place, run on the core's batch kernel with the GIL released, and the result is
an Arrow struct array with one row per input row::

    normalized  the normalized JSON array, of the input's own type
    repairs     struct of int64 counts, one per rule (normalize_for_api_report)
    tokens      int64, count_tokens of the normalized history (tokens=False: null)
    error       utf8, the row's error message, null when the row is fine

A null row gives a null struct (all fields null); a row that fails gives null
``normalized``/``repairs``/``tokens`` and its message in ``error``, and the other
rows are unaffected (``errors="raise"`` raises the first failure instead, with
``.item``, the row index).  Each row's ``normalized`` is byte for byte what
``msgnorm.normalize_for_api`` gives for that row's bytes.

The result is handed back through the same interface: a pyarrow input gives a
pyarrow result (``pyarrow.StructArray``, or ``ChunkedArray`` for a chunked input);
any other input gives a small Arrow object with ``__arrow_c_array__`` (or
``__arrow_c_stream__`` for a stream) that ``pyarrow.array``,
``polars.Series``/``polars.from_arrow`` and friends take without a copy.
pyarrow is not needed: ``pip install 'msgnorm[arrow]'`` brings it for convenience.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from . import _api, _native
from .batch import _check_errors, _threads
from .errors import MsgnormError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._api import _ApiAndCosts
    from ._native import _Costs

__all__ = ["REPAIRS", "count_tokens", "normalize_for_api"]

#: The fields of the ``repairs`` struct, in pipeline order.
REPAIRS: tuple[str, ...] = (
    "tombstoned",
    "dropped",
    "attachments_dropped",
    "users_merged",
    "assistant_fragments_joined",
    "duplicate_tool_uses_removed",
    "unanswered_server_tool_uses_removed",
    "thinking_only_dropped",
    "orphan_results_removed",
    "stray_results_removed",
    "missing_results_inserted",
    "blank_texts_removed",
    "error_results_joined",
    "media_omitted",
    "final_blocks_trimmed",
    "no_content_filled",
    "first_user_inserted",
)


def _check_array(array: Any) -> None:
    if not (hasattr(array, "__arrow_c_array__") or hasattr(array, "__arrow_c_stream__")):
        raise MsgnormError(
            "expected an Arrow array (an object with __arrow_c_array__ or "
            f"__arrow_c_stream__), not {type(array).__name__}"
        )


def _like_input(array: Any, out: Any) -> Any:
    """pyarrow in, pyarrow out (zero copy, through the capsule interface)."""
    module = type(array).__module__ or ""
    if module == "pyarrow" or module.startswith("pyarrow."):
        import pyarrow as pa  # type: ignore[import-untyped]  # the input is pyarrow

        if hasattr(out, "__arrow_c_stream__") and not hasattr(out, "__arrow_c_array__"):
            return pa.chunked_array(out)
        return pa.array(out)
    return out


@_api._with_options(_api._API_DEFAULTS, _api._COUNTING_DEFAULTS)
def normalize_for_api(
    array: Any,
    *,
    session: bool = False,
    num_threads: int | None = None,
    errors: Literal["report", "raise"] = "report",
    tokens: bool = True,
    **options: Unpack[_ApiAndCosts],
) -> Any:
    """``normalize_for_api`` of every row of ``array``: a struct array of
    ``normalized``, ``repairs``, ``tokens`` and ``error`` (see the module doc).

    ``tokens=False`` skips counting the output's tokens (it re-reads the output,
    about 40% more work) and leaves the column null.  ``num_threads`` as in
    :func:`msgnorm.normalize_batch`; engine adapters pass 1.
    """
    _check_errors(errors)
    _check_array(array)
    api = _api._api_of(options)
    counting = _api._costs_of(options) if tokens else None
    out = _native.arrow_kernel(
        array, bool(session), _threads(num_threads), errors == "raise", api, counting
    )
    return _like_input(array, out)


@_api._with_options(_api._COUNTING_DEFAULTS)
def count_tokens(
    array: Any,
    *,
    session: bool = False,
    num_threads: int | None = None,
    errors: Literal["report", "raise"] = "report",
    **costs: Unpack[_Costs],
) -> Any:
    """``count_tokens`` of every row of ``array`` (as given, not normalized): a
    struct array of ``tokens`` (int64) and ``error`` (utf8, null when fine)."""
    _check_errors(errors)
    _check_array(array)
    counting = _api._costs_of(costs)
    out = _native.arrow_kernel(
        array, bool(session), _threads(num_threads), errors == "raise", None, counting
    )
    return _like_input(array, out)
