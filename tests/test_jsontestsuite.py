"""JSON conformance from outside: nst/JSONTestSuite's parsing cases through the bytes path.

The project's own cases (tests/support/json_cases.py, tests/test_json_conformance.py)
cover the same ground; these are extra validation when ``MSGNORM_JSONTESTSUITE``
names a JSONTestSuite checkout (``.ci/run`` sets it; the module is one skip
when it is unset).

Each case file is embedded as a ``tool_use`` block's ``input`` in a small valid
history and the bytes are passed to :func:`msgnorm.normalize_for_api`:

* every ``y_`` case is accepted and the tool_use block comes back byte for byte
  (the value with the whitespace around it: unchanged blocks are copied, SPEC §1
  "Fields that this page does not name are kept unchanged");
* every ``n_`` case is refused with :class:`msgnorm.JSONDecodeError`;
* ``i_`` (implementation-defined) cases: what msgnorm does is written down in
  ``I_ACCEPTED`` below, and the test fails if it changes.

The cases are read from ``$MSGNORM_JSONTESTSUITE/test_parsing`` (never copied into
the project).
"""

from __future__ import annotations

from pathlib import Path

import msgnorm
import pytest
from support import external

if external.JSONTESTSUITE is None:
    pytest.skip(
        "MSGNORM_JSONTESTSUITE is not set: JSONTestSuite's cases are not checked",
        allow_module_level=True,
    )

CASES = external.jsontestsuite_cases()
test_external_jsontestsuite = external.jsontestsuite_check

BLOCK = b'{"type":"tool_use","id":"t1","name":"x","input":'
PRE = (
    b'[{"type":"user","uuid":"u1","message":{"role":"user","content":"go"}},'
    b'{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[' + BLOCK
)
POST = (
    b'}]}},{"type":"user","uuid":"u2","message":{"role":"user","content":'
    b'[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}]'
)

# i_ cases msgnorm accepts; every other i_ case is refused with JSONDecodeError.
# Numbers of any size or exponent are accepted (a tool input is carried through as
# its bytes, never converted); strings that are not valid UTF-8 text (lone or
# inverted surrogate escapes, invalid or overlong UTF-8, Latin-1, UTF-16) and a
# byte order mark inside the document are refused; 500 nested arrays are within
# the depth limit.
I_ACCEPTED = frozenset(
    {
        "i_number_double_huge_neg_exp.json",
        "i_number_huge_exp.json",
        "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json",
        "i_number_real_neg_overflow.json",
        "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json",
        "i_number_too_big_neg_int.json",
        "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json",
        "i_structure_500_nested_arrays.json",
    }
)


def _cases(prefix: str) -> list[Path]:
    return [p for p in CASES if p.name.startswith(prefix)]


def _param(prefix: str) -> list[object]:
    return [pytest.param(p, id=p.name) for p in _cases(prefix)]


def _embed(case: Path) -> tuple[bytes, bytes]:
    data = case.read_bytes()
    return PRE + data + POST, data


@pytest.mark.parametrize("case", _param("y_"))
def test_accepted_and_carried_byte_for_byte(case: Path) -> None:
    doc, data = _embed(case)
    out = msgnorm.normalize_for_api(doc)
    assert isinstance(out, bytes)
    assert BLOCK + data + b"}" in out


@pytest.mark.parametrize("case", _param("n_"))
def test_refused_with_json_decode_error(case: Path) -> None:
    doc, _ = _embed(case)
    with pytest.raises(msgnorm.JSONDecodeError) as e:
        msgnorm.normalize_for_api(doc)
    assert isinstance(e.value, ValueError)
    assert e.value.line >= 1 and e.value.column >= 1


@pytest.mark.parametrize("case", _param("i_"))
def test_implementation_defined_behaviour_is_as_written(case: Path) -> None:
    doc, data = _embed(case)
    if case.name in I_ACCEPTED:
        assert BLOCK + data + b"}" in msgnorm.normalize_for_api(doc)
    else:
        with pytest.raises(msgnorm.JSONDecodeError):
            msgnorm.normalize_for_api(doc)


def test_the_written_i_cases_exist() -> None:
    # The list above names real files (a typo would silently turn into "refused").
    assert I_ACCEPTED <= {p.name for p in _cases("i_")}
