"""The measurable shape of the repository: rooms of a bounded size, a thin binding,
each default declared once, and nothing tracked reaching outside the repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "msgnorm"
BINDING = ROOT / "rust" / "python" / "src"
#: Where no file may be longer than MAX_LINES (inline test modules count).
SOURCE_DIRS = [PACKAGE, *sorted((ROOT / "rust").glob("*/src"))]
MAX_LINES = 800
SUFFIXES = {".py", ".pyi", ".rs"}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _sources(*dirs: Path) -> list[Path]:
    return sorted(p for d in dirs for p in d.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def test_the_source_directories_are_there() -> None:
    # the checks below read these; an empty glob would pass them vacuously
    assert PACKAGE.is_dir()
    assert BINDING.is_dir()
    assert (ROOT / "rust" / "core" / "src").is_dir()
    assert len(_sources(*SOURCE_DIRS)) > 50


def test_no_source_file_is_over_800_lines() -> None:
    over = {
        str(p.relative_to(ROOT)): n for p in _sources(*SOURCE_DIRS) if (n := _lines(p)) > MAX_LINES
    }
    assert over == {}


def test_the_binding_lib_only_registers() -> None:
    assert _lines(BINDING / "lib.rs") <= 250


def test_the_cli_is_a_package() -> None:
    assert not (PACKAGE / "cli.py").exists()
    assert (PACKAGE / "cli" / "__init__.py").is_file()


def test_max_media_default_is_written_at_most_twice() -> None:
    # declared once where the native function is defined (its text signature
    # shows it); the Python layer re-exports it rather than writing it again
    found = {
        str(p.relative_to(ROOT)): n
        for p in _sources(PACKAGE, BINDING)
        if (n := p.read_text(encoding="utf-8").count("max_media=100"))
    }
    assert sum(found.values()) <= 2, found


def test_no_tracked_file_but_ci_reaches_outside_the_repository() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    top = subprocess.run(
        [git, "-C", str(ROOT), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        check=False,
    )
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT:
        pytest.skip("not a git checkout of this repository")
    outside = "/".join(("..", "shared"))  # spelt apart so this file does not name it
    hits = subprocess.run(
        [git, "-C", str(ROOT), "grep", "-l", "-F", outside],
        capture_output=True,
        text=True,
        check=False,
    )
    assert hits.returncode in (0, 1), hits.stderr  # 1: no file matched
    files = [f for f in hits.stdout.splitlines() if not f.startswith(".ci/")]
    assert files == []
