"""JSON conformance from the project's own cases (tests/support/json_cases.py, SPEC §1).

Each case is embedded as a ``tool_use`` block's ``input`` in a small valid history
and read through two entry points:

* :func:`msgnorm.normalize_for_api` on the history as a JSON array (bytes): an
  accepted text comes back byte for byte with the whitespace around it (unchanged
  blocks are copied, SPEC §1 "Fields that this page does not name are kept
  unchanged"); a refused one raises :class:`msgnorm.JSONDecodeError` with its line
  and column;
* :func:`msgnorm.load_session` on the history as JSON Lines (SPEC §8.1, one record
  a line): an accepted text is in the record returned as written; a refused one
  raises :class:`msgnorm.JSONDecodeError` on its line with ``errors="raise"`` and is
  skipped on that line with the default ``errors="skip"``. Texts holding a line
  break byte are not JSON Lines material and are left to the first entry point.

tests/test_jsontestsuite.py runs nst/JSONTestSuite's cases the same way when
``MSGNORM_JSONTESTSUITE`` names a copy.
"""

from __future__ import annotations

import json

import msgnorm
import pytest
from support.json_cases import FAMILIES, TABLE, Case, all_cases

CASES = all_cases()
LINE_CASES = [c for c in CASES if b"\n" not in c.text and b"\r" not in c.text]

BLOCK = b'{"type":"tool_use","id":"t1","name":"x","input":'
USER = b'{"type":"user","uuid":"u1","message":{"role":"user","content":"go"}}'
ASSISTANT = b'{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[' + BLOCK
RESULT = (
    b'{"type":"user","uuid":"u2","message":{"role":"user","content":'
    b'[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}'
)


def _ids(c: Case) -> str:
    return c.id


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_normalize_for_api_json_array(case: Case) -> None:
    doc = b"[" + USER + b"," + ASSISTANT + case.text + b"}]}}," + RESULT + b"]"
    if case.accepted:
        out = msgnorm.normalize_for_api(doc)
        assert isinstance(out, bytes)
        assert BLOCK + case.text + b"}" in out
    else:
        with pytest.raises(msgnorm.JSONDecodeError) as e:
            msgnorm.normalize_for_api(doc)
        assert isinstance(e.value, ValueError)
        assert e.value.line >= 1 and e.value.column >= 1


@pytest.mark.parametrize("case", LINE_CASES, ids=_ids)
def test_load_session_json_lines(case: Case) -> None:
    lines = [USER, ASSISTANT + case.text + b"}]}}", RESULT]
    doc = b"\n".join(lines) + b"\n"
    if case.accepted:
        s = msgnorm.load_session(doc, errors="raise", kind="bytes")
        # a flat file (§8.3): its records in file order, each exactly as written
        assert s.records == b"[" + b",".join(lines) + b"]"
    else:
        with pytest.raises(msgnorm.JSONDecodeError) as e:
            msgnorm.load_session(doc, errors="raise")
        assert e.value.line == 2 and e.value.column >= 1
        s = msgnorm.load_session(doc)
        # skipped on its line (a "{" later on the broken line may be tried, and skipped, too)
        assert {issue.line for issue in s.report.skipped} == {2}
        assert [r["uuid"] for r in s.records] == ["u1", "u2"]


def test_the_cases_agree_with_pythons_strict_json() -> None:
    """A second opinion on the expectations: Python's json module on the text decoded
    as strict UTF-8, with NaN/Infinity refused and lone surrogates refused (the two
    places it is laxer than RFC 8259). Deep nesting is beyond its recursion."""

    def refuse(name: str) -> None:
        raise ValueError(name)

    def python_accepts(text: bytes) -> bool:
        try:
            value = json.loads(text.decode("utf-8"), parse_constant=refuse)
            json.dumps(value, ensure_ascii=False).encode("utf-8")  # lone surrogates
        except (ValueError, UnicodeError):
            return False
        return True

    checked = [c for c in CASES if not c.id.startswith(("y-depth", "n-depth"))]
    assert len(checked) > 3000
    disagree = [c.id for c in checked if python_accepts(c.text) != c.accepted]
    assert disagree == []


def test_every_family_has_both_answers() -> None:
    """No family is vacuous: each holds accepted and refused texts, and so does the table."""
    assert {c.accepted for c in TABLE} == {True, False}
    for family in FAMILIES:
        assert {c.accepted for c in family()} == {True, False}, family.__doc__
