"""One version everywhere: ``python -m msgnorm --version``, the Rust core
(``msgnorm._native.__version__``, the crate's ``CARGO_PKG_VERSION``), the installed
distribution's metadata and, where the tests sit in a source tree or an unpacked
sdist, ``pyproject.toml`` and the Cargo workspace."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import msgnorm
import pytest
from msgnorm import _native

ROOT = Path(__file__).resolve().parents[1]
# PEP 440 release versions as this project writes them (no local part: PyPI refuses those).
VERSION = re.compile(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")


def toml_value(path: Path, table: str, key: str) -> str | None:
    """``key = "..."`` of ``[table]`` (a line reader: tomllib is 3.11+, the floor is 3.10)."""
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            current = line.strip("[]").strip()
        elif current == table:
            m = re.fullmatch(rf'{re.escape(key)}\s*=\s*"([^"]*)"', line)
            if m:
                return m.group(1)
    return None


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "msgnorm", *args], capture_output=True, text=True, timeout=120
    )


def test_core_version_is_a_release_version() -> None:
    assert VERSION.fullmatch(_native.__version__), _native.__version__
    assert msgnorm.__version__ == _native.__version__


def test_the_extension_names_its_build_profile() -> None:
    """The Cargo profile that built the extension (rust/python/build.rs): ``dist``
    for a published wheel, ``release`` for a source install, ``dev`` for a debug
    ``maturin develop``; never a path fragment the build script misread."""
    assert _native.BUILD_PROFILE in {"dev", "release", "dist"}, _native.BUILD_PROFILE


def test_python_m_msgnorm_version_is_the_core_version() -> None:
    proc = run_module("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"msgnorm {_native.__version__}\n"


def test_installed_metadata_is_the_core_version() -> None:
    assert importlib.metadata.version("msgnorm") == _native.__version__


def test_python_m_msgnorm_runs_the_cli() -> None:
    # no subcommand: argparse's usage error, status 2, on stderr
    proc = run_module()
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("usage: msgnorm")
    proc = run_module("split", "-")
    assert proc.returncode == 2  # empty input is not a transcript: one error line
    assert proc.stderr.startswith("msgnorm: error:"), proc.stderr


def test_source_tree_versions_agree() -> None:
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip(f"no pyproject.toml beside the tests ({ROOT}): testing an installed wheel")
    assert toml_value(pyproject, "project", "name") == "msgnorm"
    assert toml_value(pyproject, "project", "version") == _native.__version__
    cargo = ROOT / "Cargo.toml"
    if cargo.exists():  # the source tree and the sdist both carry the workspace
        assert toml_value(cargo, "workspace.package", "version") == _native.__version__
