"""A fair pure-Python baseline for ``normalize_for_api`` on dicts.

``tests/support/reference.py`` is the test oracle: written for obvious correctness, it
returns a deep copy of its output, which a user writing the same pipeline by
hand would not do.
This module runs the reference's own steps — the same SPEC §4 rules, one pass
each, never mutating the input — without the final deep copy (an inserted record's ``timestamp``, a str, is
still passed through ``copy.deepcopy``, which returns it): records and blocks
the steps do not change are shared with the input, as msgnorm's are. Its output
is equal (``==``) to the reference's; only the copying differs.

So the report can show both lines: msgnorm against the deep-copying oracle (the
old figure) and against this baseline (the fair one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def load() -> Callable[..., list[Any]] | None:
    """The fair ``normalize_for_api`` (the reference is in this package: never ``None``)."""
    from . import reference as ref

    def normalize_for_api(
        records: Sequence[Any],
        *,
        strict: bool = False,
        max_media: int | None = 100,
        short_ids: bool = False,
        ensure_user_first: bool = True,
        attachment_templates: Mapping[str, str | None] | None = None,
    ) -> list[Any]:
        """§4 steps 1-11 as ``reference.normalize_for_api``, without the deep copies."""
        ref.check_max_media(max_media)
        ref.check_templates(attachment_templates)
        ref.validate_records(records)
        items = list(enumerate(records))
        items = ref.step1_tombstones(items)
        items = ref.step2_bubble_attachments(items)
        items = ref.step3_drop(items)
        items = ref.step4_fold(items, attachment_templates)
        items = ref.step5_assistant_cleanup(items, strict=strict)
        items = ref.step6_tool_pairing(items, strict=strict)
        indices = [index for index, _ in items]
        recs = [rec for _, rec in items]
        recs = ref.step7_hygiene(recs, max_media)
        recs = ref.step8_final_assistant(recs)
        recs = ref.step9_empty_content(recs)
        if ensure_user_first:
            inserted = ref.step10_user_first(recs)
            if len(inserted) > len(recs):
                indices = indices[:1] + indices
            recs = inserted
        if short_ids:
            pairs = list(zip(indices, recs, strict=True))
            recs = [rec for _, rec in ref.step11_short_ids(pairs)]
        return recs

    return normalize_for_api
