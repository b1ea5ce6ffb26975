"""Every example transcript, and every file of the external corpus (SPEC §1-§7).

The well-formed records of each file normalize with all SPEC §4 guarantees
holding, equally in the three input kinds and as the reference says; counting
and trimming agree with the reference too. The files are the project's own
``examples/`` and, when ``MSGNORM_CORPUS`` names it, a corpus of real Claude
Code transcripts (tests/support/external.py), never copied into the project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from support import reference, session_trees
from support.external import corpus_check, corpus_files, example_files, file_id

FILES = example_files() + corpus_files(recursive=False)
# Files whose JSON Lines hold a line that is not a valid record, and the error it raises.
BROKEN_FILES = {
    "claude-code-log-edge_cases.jsonl": msgnorm.InvalidRecordError,
    **{
        e.name: msgnorm.InvalidRecordError if e.invalid else msgnorm.JSONDecodeError
        for e in session_trees.EXAMPLES
        if e.skipped
    },
}

test_external_corpus = corpus_check


def well_formed(path: Path) -> list[Any]:
    """The records of a file that SPEC §1 calls valid (one at a time, by the core)."""
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        try:
            msgnorm.count_tokens_per_record([value])
        except msgnorm.InvalidRecordError:
            continue
        records.append(value)
    return records


@pytest.fixture(scope="module", params=FILES, ids=file_id)
def records(request: pytest.FixtureRequest) -> list[Any]:
    recs = well_formed(request.param)
    assert recs, f"{request.param.name} has no well-formed record"
    return recs


def test_normalize_for_api_guarantees_and_reference(records: list[Any]) -> None:
    out = msgnorm.normalize_for_api(records)
    reference.check_guarantees(out, ensure_user_first=True, max_media=100)
    assert out == reference.normalize_for_api(records)
    # §4: idempotent
    assert msgnorm.normalize_for_api(out) == out


def test_three_input_kinds_agree(records: list[Any]) -> None:
    as_dicts = msgnorm.normalize_for_api(records)
    as_bytes = json.loads(msgnorm.normalize_for_api(json.dumps(records).encode()))
    as_structs = msgnorm.to_builtins(msgnorm.normalize_for_api(msgnorm.from_builtins(records)))
    assert as_dicts == as_bytes == as_structs


def test_split_count_and_trim_agree_with_the_reference(records: list[Any]) -> None:
    assert msgnorm.normalize_messages(records) == reference.normalize_messages(records)
    # the reference is SPEC §6's formula: tokenizer="chars"
    counts = msgnorm.count_tokens_per_record(records, tokenizer="chars")
    assert counts == reference.count_tokens_per_record(records)
    out = msgnorm.normalize_for_api(records)
    budget = sum(msgnorm.count_tokens_per_record(out, tokenizer="chars")) // 2
    try:
        expected = reference.trim_to_budget(out, budget, pin=1)
    except ValueError:
        with pytest.raises(msgnorm.BudgetError):
            msgnorm.trim_to_budget(out, budget, pin=1, tokenizer="chars")
        return
    assert msgnorm.trim_to_budget(out, budget, pin=1, tokenizer="chars") == expected


def test_whole_files_as_json_lines_bytes() -> None:
    """A whole file as JSON Lines bytes: normalized, or the documented error for its
    first broken line (``broken-lines.jsonl`` and the corpus's
    ``claude-code-log-edge_cases.jsonl`` have several)."""
    for path in FILES:
        data = path.read_bytes()
        try:
            out = json.loads(msgnorm.normalize_for_api(data))
        except msgnorm.InvalidRecordError as e:
            assert BROKEN_FILES.get(path.name) is msgnorm.InvalidRecordError, (path, str(e))
            assert e.index is not None and e.path.startswith(f"records[{e.index}]")
            assert "(line " in str(e)
            continue
        except msgnorm.JSONDecodeError as e:
            assert BROKEN_FILES.get(path.name) is msgnorm.JSONDecodeError, (path, str(e))
            assert e.line >= 1 and e.column >= 1
            continue
        reference.check_guarantees(out, ensure_user_first=True, max_media=100)
