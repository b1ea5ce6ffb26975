"""Imports between ``msgnorm.providers`` and ``msgnorm.frameworks`` run one way."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import msgnorm

PACKAGE = Path(msgnorm.__file__).parent


def _module_level_imports(path: Path) -> list[str]:
    """The modules a file imports at module level (relative ones resolved to a dotted tail)."""
    tree = ast.parse(path.read_text())
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            out.append("." * node.level + (node.module or ""))
            out.extend(f"{'.' * node.level}{node.module or ''}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return out


def test_providers_never_import_frameworks_at_module_level() -> None:
    files = sorted((PACKAGE / "providers").glob("*.py"))
    assert files, "msgnorm/providers is a package"
    for f in files:
        for name in _module_level_imports(f):
            assert "frameworks" not in name, f"{f.name} imports {name}"


def test_frameworks_register_into_providers() -> None:
    from msgnorm.frameworks import FRAMEWORKS
    from msgnorm.providers import _registry

    assert _registry.frameworks() == FRAMEWORKS
    for name in FRAMEWORKS:
        assert _registry.is_framework(name)
    assert not _registry.is_framework("anthropic")


def test_importing_providers_imports_no_framework_adapter() -> None:
    code = (
        "import sys, msgnorm.providers; "
        "print(sorted(m for m in sys.modules if m.startswith('msgnorm.frameworks.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
