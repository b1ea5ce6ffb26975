"""normalize_batch's pipeline (more than a few items per thread: the pool works on
one part while the calling thread converts the one before): order, kinds and
error indices stay right across parts."""

from __future__ import annotations

from typing import Any

import msgnorm
import pytest
from support.engines import BROKEN, histories


@pytest.mark.parametrize("threads", [2, 3])
def test_every_part_in_place(threads: int) -> None:
    hs = histories(150)
    items: list[Any] = []
    for i, h in enumerate(hs):
        if i % 37 == 5:
            items.append(BROKEN)
        elif i % 41 == 7:
            items.append(b"[{oops")
        items.append(h.decode() if i % 5 == 0 else h)
    assert len(items) // (4 * threads) >= 8  # eight parts or more in the pipeline
    out = msgnorm.normalize_batch_report(items, num_threads=threads)
    for i, (item, got) in enumerate(zip(items, out, strict=True)):
        try:
            expected = msgnorm.normalize_for_api_report(item)
        except msgnorm.MsgnormError as e:
            assert isinstance(got, type(e)) and str(got) == str(e), i
            assert got.item == i  # type: ignore[attr-defined]
            continue
        assert got == expected, i
        assert isinstance(got[0], type(item))
