"""The BPE rank files of the exact-count tests and benchmarks, found offline.

``MSGNORM_BPE_DIR`` names a directory holding ``o200k_base.tiktoken`` and
``cl100k_base.tiktoken`` (.ci/run points it at the files the tiktoken-rs crate,
a dev-dependency of the core, brings into the cargo registry); else tiktoken's
own cache (``TIKTOKEN_CACHE_DIR``) may hold them. Nothing here downloads.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from msgnorm._exact import ENCODINGS


def _cache_key(encoding: str) -> str:
    return hashlib.sha1(ENCODINGS[encoding][0].encode()).hexdigest()


def rank_file(encoding: str) -> Path | None:
    """Where the rank file of ``encoding`` is, without fetching it; ``None`` if nowhere."""
    where = os.environ.get("MSGNORM_BPE_DIR")
    if where:
        p = Path(where) / f"{encoding}.tiktoken"
        return p if p.is_file() else None
    cache = os.environ.get("TIKTOKEN_CACHE_DIR")
    if cache:
        p = Path(cache) / _cache_key(encoding)
        return p if p.is_file() else None
    return None


def tiktoken_encoding(encoding: str, scratch: Path) -> Any:
    """tiktoken's own ``Encoding``, built offline from the rank file (copied into a
    tiktoken cache under ``scratch`` when it is not in one); ``None`` when tiktoken
    or the file is missing."""
    try:
        import tiktoken
        import tiktoken.registry
    except ImportError:
        return None
    src = rank_file(encoding)
    if src is None:
        return None
    cache = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or scratch)
    if src.parent != cache:
        cache = scratch
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, cache / _cache_key(encoding))
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    try:
        return tiktoken.get_encoding(encoding)
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old
