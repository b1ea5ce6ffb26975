"""Exact token counts of OpenAI's public encodings (SPEC §6.3).

The BPE merge runs in the core; its rank tables are not in the wheel. They are
read at run time from the encoding's ``.tiktoken`` file: from the directory named
by ``MSGNORM_BPE_DIR`` when it is set, else through tiktoken (the ``[exact]``
extra), which downloads the file once and keeps it in its cache
(``TIKTOKEN_CACHE_DIR``). Each file is checked against its published SHA-256 and
built into a table once per process.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from . import _native
from .errors import MsgnormError

__all__ = ["ENCODINGS", "bpe", "content_texts", "exact_counts"]

#: The encodings counted exactly: where tiktoken fetches each file, and its SHA-256.
ENCODINGS: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}

_lock = threading.Lock()
_T = TypeVar("_T")


def _rank_file(encoding: str) -> bytes:
    url, sha256 = ENCODINGS[encoding]
    where = os.environ.get("MSGNORM_BPE_DIR")
    if where:
        path = Path(where) / f"{encoding}.tiktoken"
        try:
            data = path.read_bytes()
        except OSError as e:
            raise MsgnormError(
                f"{encoding}: MSGNORM_BPE_DIR is set but {path} cannot be read ({e.strerror})"
            ) from None
        origin = str(path)
    else:
        try:
            import tiktoken.load
        except ImportError:
            raise ImportError(
                f"exact {encoding} counts need the encoding's BPE file: install the "
                "[exact] extra (pip install 'msgnorm[exact]'), which fetches and caches it, "
                "or set MSGNORM_BPE_DIR to a directory holding "
                f"{encoding}.tiktoken"
            ) from None
        # tiktoken checks the hash too, and downloads the file only when its cache lacks it
        data = tiktoken.load.read_file_cached(url, sha256)
        origin = url
    if hashlib.sha256(data).hexdigest() != sha256:
        raise MsgnormError(f"{encoding}: {origin} is not the published {encoding}.tiktoken")
    return data


@functools.cache
def _built(encoding: str) -> _native.Bpe:
    return _native.Bpe(encoding, _rank_file(encoding))


def bpe(encoding: str) -> _native.Bpe:
    """The rank table of ``encoding``, read and built on first use."""
    if encoding not in ENCODINGS:
        names = ", ".join(repr(e) for e in ENCODINGS)
        raise MsgnormError(f"encoding: expected one of {names}, not {encoding!r}")
    with _lock:  # built once, even when threads ask together
        return _built(encoding)


def _read(records: Any, read: Callable[[bytes], _T]) -> _T:
    """``read`` of JSON input (bytes, or a str as UTF-8); a list is read directly by
    the callers. The core reads the text as every count function does; when that
    fails, the input's own reading raises the error every count function raises
    on it (naming the record and field, or the line and column)."""
    if isinstance(records, (bytes, bytearray, memoryview)):
        return read(bytes(records))
    if not isinstance(records, str):
        _native.count_tokens_per_record(records)  # raises: not an input kind
    try:
        return read(records.encode())
    except (TypeError, ValueError) as e:  # MsgnormError is a ValueError
        _native.count_tokens_per_record(records)
        if isinstance(e, MsgnormError):
            raise
        raise MsgnormError(f"records: not JSON data ({e})") from None


def exact_counts(records: Any, encoding: str) -> list[int]:
    """Per record: 0 for a record that is not a message, else the exact tokens of
    its content text (``content_texts``) in ``encoding`` + 3."""
    table = bpe(encoding)
    if isinstance(records, list):  # read directly, as every count function reads them
        return table.count_list(records)
    return _read(records, table.count_records)


def content_texts(records: Any) -> list[str | None]:
    """Per record, the text that ``exact_counts`` counts (``None`` for a record
    that is not a message)."""
    if isinstance(records, list):
        return _native.content_texts(records)
    return _read(records, _native.content_texts)
