"""The suite's data: the project's own, and the optional external copies.

The project carries its own data (``examples/``, ``tests/support/json_cases.py``), so a
clone runs the whole suite. Two external collections add validation when an
environment variable names them (a relative path is read from the repository
root; ``.ci/run`` sets both):

* ``MSGNORM_CORPUS``: a directory of real Claude Code transcripts (``*.jsonl``,
  subagent files in ``<session>/subagents/``);
* ``MSGNORM_JSONTESTSUITE``: a checkout of nst/JSONTestSuite (its
  ``test_parsing/`` cases).

A module that uses one of them takes ``corpus_check``/``jsontestsuite_check`` as
a test: ONE visible skip when the variable is unset, a failure when it names a
directory without the data (so a typo is not a silent skip).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from . import session_trees

ROOT = Path(__file__).resolve().parents[2]


def _env_dir(var: str) -> Path | None:
    value = os.environ.get(var, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    # resolved: a value may climb out of the repository (`<repo>/../data`), which
    # must not read as a path inside it
    return (path if path.is_absolute() else ROOT / path).resolve()


CORPUS = _env_dir("MSGNORM_CORPUS")
JSONTESTSUITE = _env_dir("MSGNORM_JSONTESTSUITE")


def corpus_files(recursive: bool = True) -> list[Path]:
    """The corpus's ``*.jsonl`` files (with subagent files when ``recursive``); [] when unset."""
    if CORPUS is None or not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("*.jsonl") if recursive else CORPUS.glob("*.jsonl"))


def corpus_sessions() -> list[Path]:
    """The corpus's session files: top-level ones and those of ``session-share/``-like folders."""
    return [p for p in corpus_files() if "subagents" not in p.parts]


def jsontestsuite_cases() -> list[Path]:
    """JSONTestSuite's ``test_parsing/*.json`` cases; [] when unset."""
    if JSONTESTSUITE is None:
        return []
    cases = JSONTESTSUITE / "test_parsing"
    return sorted(cases.glob("*.json")) if cases.is_dir() else []


def example_files() -> list[Path]:
    """The project's own transcripts: every ``*.jsonl`` under ``examples/``."""
    return session_trees.example_files()


def example_sessions() -> list[Path]:
    """The project's own session files (subagent files are read with their session)."""
    return [p for p in example_files() if "subagents" not in p.parts]


def file_id(path: Path) -> str:
    """A test id naming where a transcript comes from: ``examples/...`` or ``corpus/...``."""
    if path.is_relative_to(ROOT):
        return str(path.relative_to(ROOT))
    assert CORPUS is not None
    return f"corpus/{path.relative_to(CORPUS)}"


def _check(var: str, where: Path | None, found: Callable[[], list[Path]], what: str) -> None:
    if where is None:
        pytest.skip(f"{var} is not set: the external {what} is not checked")
    assert found(), f"{var}={where} holds no {what}"


def corpus_check() -> None:
    """The external corpus is checked too (skipped when MSGNORM_CORPUS is unset)."""
    _check("MSGNORM_CORPUS", CORPUS, corpus_files, "corpus (*.jsonl transcripts)")


def jsontestsuite_check() -> None:
    """JSONTestSuite's cases are checked too (skipped when MSGNORM_JSONTESTSUITE is unset)."""
    _check("MSGNORM_JSONTESTSUITE", JSONTESTSUITE, jsontestsuite_cases, "JSONTestSuite cases")
