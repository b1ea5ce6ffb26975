"""The examples of docs/guides/frameworks.md run as written (each block in a
fresh namespace), and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guides" / "frameworks.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
NEEDS = {0: "langchain.agents", 1: "pydantic_ai.capabilities", 2: "agents"}


def test_the_guide_has_one_example_per_framework() -> None:
    assert len(BLOCKS) == len(NEEDS)


@pytest.mark.parametrize("index", sorted(NEEDS))
def test_guide_example_runs(index: int) -> None:
    pytest.importorskip(NEEDS[index])
    code = BLOCKS[index]
    expected = [c.strip() for c in re.findall(r"print\(.*\)\s+# (.*)", code)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{GUIDE.name}[{index}]", "exec"), {"__name__": "guide"})
    assert out.getvalue().split("\n")[:-1] == expected
