"""session_usage, list_sessions and search_sessions on a tree with Claude Code's size
profile (tests/support/claude_projects.py), beside the plain Python sum they replace.

As a smoke test (``--benchmark-disable``) the tree has 20 sessions; measured, 550.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from report import plain_usage
from support import claude_projects
from support.harness import run_bench


@pytest.fixture(scope="module")
def tree(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if request.config.getoption("benchmark_disable", default=False):
        root = tmp_path_factory.mktemp("projects")
        claude_projects.write_tree(root, files=20, seed=1)
        return root
    return claude_projects.tree()


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def _nbytes(root: Path) -> int:
    return sum(f.stat().st_size for f in _files(root))


def test_session_usage(benchmark: Any, mn: ModuleType, tree: Path) -> None:
    u = run_bench(
        benchmark,
        lambda: mn.session_usage(tree, prices=False),
        group="usage",
        n=_nbytes(tree) // 1000,
        nbytes=_nbytes(tree),
    )
    assert (u.output_tokens, u.cache_read_input_tokens, u.requests) == plain_usage(_files(tree))


def test_plain_python_sum(benchmark: Any, tree: Path) -> None:
    out = run_bench(
        benchmark,
        lambda: plain_usage(_files(tree)),
        group="usage",
        n=_nbytes(tree) // 1000,
        nbytes=_nbytes(tree),
    )
    assert out[2] > 0


def test_list_sessions(benchmark: Any, mn: ModuleType, tree: Path) -> None:
    infos = run_bench(
        benchmark,
        lambda: mn.list_sessions(tree),
        group="usage",
        n=_nbytes(tree) // 1000,
        nbytes=_nbytes(tree),
    )
    assert len(infos) == len([f for f in _files(tree) if not f.name.startswith("agent-")])


def test_search_rare(benchmark: Any, mn: ModuleType, tree: Path) -> None:
    hits = run_bench(
        benchmark,
        lambda: mn.search_sessions(tree, "qzxv-not-there", num_threads=1),
        group="search",
        n=_nbytes(tree) // 1000,
        nbytes=_nbytes(tree),
    )
    assert hits == []
    assert mn.search_sessions(tree, 'error "x"', tools=True)
