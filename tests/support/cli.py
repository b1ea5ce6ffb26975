"""The ``msgnorm`` command run in a child process, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

CLI = [sys.executable, "-m", "msgnorm.cli"]


def run_cli(
    args: list[str], stdin: bytes | None = None, *, text: bool = False, **env: str
) -> subprocess.CompletedProcess[Any]:
    """``msgnorm ARGS`` to its end: output as bytes (``text=True``: str), ``env``
    added to this process's environment."""
    return subprocess.run(
        [*CLI, *args],
        input=stdin,
        capture_output=True,
        text=text,
        timeout=600,
        env={**os.environ, **env},
    )


def start_cli(args: list[str]) -> subprocess.Popen[bytes]:
    """``msgnorm ARGS`` started, its output and errors piped."""
    return subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
