"""The native module's stub matches the module (``python -m mypy.stubtest``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import msgnorm
import pytest


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_native_stub_matches_the_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "msgnorm._native"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_public_api_is_exported() -> None:
    for name in msgnorm.__all__:
        assert hasattr(msgnorm, name), name
    assert "normalize_for_api" in msgnorm.__all__
    assert isinstance(msgnorm.__version__, str)
