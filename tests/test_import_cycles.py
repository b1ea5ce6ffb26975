"""No module imports itself back, in the Rust crates and in the Python package.

Arrows run one way through the house (docs/development.md, "Layout"): a module
that another imports never needs that other, directly or through a third. An
arrow here is what the code names:

- Rust: a `use` tree (from `crate::`, `self::`, `super::` or a child
  module), or a path starting with `crate::`/`super::` in the code, leads to
  the file that defines the item it names: the file of the longest module
  prefix, or, where that module re-exports the name (`pub use`), the file
  the re-export leads to. A re-export itself is no arrow (a name handed on,
  not a need), nor is a `mod x;` declaration or test code (`#[cfg(test)]`
  modules, inline or in their own file).
- Python: every `import`/`from … import` of the package (at any depth, lazy
  ones too, but not under `if TYPE_CHECKING:`), to the module it names
  (`from .pkg import name` leads to `pkg` when `name` is not a module of it).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "rust" / "core" / "src", ROOT / "rust" / "python" / "src"]
PACKAGE = ROOT / "python" / "msgnorm"

Graph = dict[str, set[str]]


# --- Rust ----------------------------------------------------------------------


def _module_path(src: Path, file: Path) -> tuple[str, ...]:
    parts = file.relative_to(src).with_suffix("").parts
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return tuple(parts)


LEXEMES = re.compile(
    r'r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?\'(?:\\.|[^\\\'])\'|//[^\n]*|/\*.*?\*/', re.S
)


def _blank(text: str) -> str:
    """`text` with its comments gone and its string and character literals
    emptied (what they hold is neither code nor braces)."""
    return LEXEMES.sub(lambda m: " " if m.group(0).startswith("/") else '""', text)


def _test_modules(text: str) -> tuple[str, set[str]]:
    """`text` blanked ([`_blank`]) without its inline `#[cfg(test)]` modules,
    and the files of the test modules it declares in files of their own (a
    `#[path]`'s file, or the module's name)."""
    attrs = r'#\[cfg\(test\)\]\s*(#\[path\s*=\s*"([^"]*)"\]\s*)?'
    paths = [m.group(2) for m in re.finditer(attrs, text) if m.group(1)]
    code = _blank(text)
    outside: set[str] = set()
    out = []
    pos = 0
    for m in re.finditer(attrs + r"(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])", code):
        path = paths.pop(0) if m.group(1) else None
        if m.start() < pos:
            continue
        out.append(code[pos : m.start()])
        if m.group(4) == ";":
            outside.add(path or m.group(3))
            pos = m.end()
            continue
        depth, i = 1, m.end()
        while depth and i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        pos = i
    out.append(code[pos:])
    return "".join(out), outside


def _use_paths(tree: str) -> list[list[str]]:
    """The paths of a `use` tree (`a::{b, c::{d, e}}` → a::b, a::c::d, a::c::e)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    brace = tree.find("{")
    if brace < 0:
        return [[p for p in tree.split("::") if p]]
    head = [p for p in tree[:brace].split("::") if p]
    inner = tree[brace + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [head + p for item in items if item for p in _use_paths(item)]


def _absolute(path: list[str], here: tuple[str, ...]) -> tuple[str, ...] | None:
    """A `crate::`/`self::`/`super::` path as a path from the crate root."""
    if path[0] == "crate":
        return tuple(path[1:])
    if path[0] == "self":
        return here + tuple(path[1:])
    if path[0] == "super":
        base, rest = here, path
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
        return base + tuple(rest)
    return None


PUBLIC = r"\bpub(?:\([^)]*\))?\s+(?:fn|struct|enum|type|const|static|trait)\s+(\w+)"
DEFINES = r"\b(?:fn|struct|enum|type|const|static|trait|mod|macro_rules!)\s+{}\b"


def rust_graph(src: Path, root: Path = ROOT) -> Graph:
    files = {_module_path(src, f): f for f in sorted(src.rglob("*.rs"))}
    tests: set[tuple[str, ...]] = set()
    code: dict[tuple[str, ...], str] = {}
    for mod, f in files.items():
        text, outside = _test_modules(f.read_text())
        code[mod] = text
        for name in outside:
            own = (f.parent / name) if name.endswith(".rs") else None
            tests.add(_module_path(src, own) if own else (*mod, name))
    # a name a module hands on (`pub use a::b::X;`) is the file that defines it
    handed: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
    globs: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for mod, text in code.items():
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for path in _use_paths(m.group(1)):
                if path[0] not in ("crate", "self", "super"):
                    path = ["self", *path]
                full = _absolute(path, mod)
                if full is None:
                    continue
                if full[-1] == "*":
                    globs.setdefault(mod, []).append(full[:-1])
                else:
                    handed.setdefault(mod, {})[full[-1]] = full

    def file_of(target: tuple[str, ...], hops: int = 0) -> tuple[str, ...] | None:
        rest: tuple[str, ...] = ()
        while target not in files and target:
            target, rest = target[:-1], target[-1:] + rest
        if target not in files or not rest or hops > 8:
            return target if target in files else None
        name = rest[0]
        if name in handed.get(target, {}):
            return file_of(handed[target][name] + rest[1:], hops + 1)
        for g in globs.get(target, []):
            inner = file_of(g, hops + 1)
            if inner is not None and re.search(DEFINES.format(re.escape(name)), code[inner]):
                return file_of(g + rest, hops + 1)
        return target

    def exported(m: tuple[str, ...], hops: int = 0) -> dict[str, tuple[str, ...]]:
        """The names module `m` defines or hands on, and the file defining each."""
        names = dict.fromkeys(re.findall(PUBLIC, code[m]), m)
        for name, full in handed.get(m, {}).items():
            where = file_of(full)
            if where is not None:
                names[name] = where
        for g in globs.get(m, []):
            inner = file_of(g)
            if inner is not None and inner != m and hops < 8:
                names.update(exported(inner, hops + 1))
        return names

    graph: Graph = {}
    for mod, text in code.items():
        if any(mod[: len(t)] == t for t in tests):
            continue
        # a re-export (`pub use`) is a name handed on, not a need: the paths
        # that name it lead through it to the file that defines the item
        uses = re.finditer(r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]+);", text)
        paths = [p for m in uses if not m.group(1) for p in _use_paths(m.group(2))]
        body = re.sub(r"\buse\s+[^;]+;", "", text)
        paths += [m.group(0).split("::") for m in re.finditer(r"\b(?:crate|super)(?:::\w+)+", body)]
        arrows = graph.setdefault(str(files[mod].relative_to(root)), set())
        # a name a glob (`use x::*`) brings in, used in the code, is a need of
        # the file that defines it
        for g in globs.get(mod, []) + [
            _absolute(p[:-1], mod) or ()
            for m in re.finditer(r"\buse\s+([^;]+\*[^;]*);", text)
            for p in _use_paths(m.group(1))
            if p[-1] == "*" and p[0] in ("crate", "self", "super")
        ]:
            inner = file_of(g)
            for name, where in [] if inner is None else exported(inner).items():
                if where != mod and re.search(rf"\b{name}\b", body):
                    arrows.add(str(files[where].relative_to(root)))
        for path in paths:
            if path[0] not in ("crate", "self", "super") and (*mod, path[0]) in files:
                path = ["self", *path]  # a child module, named from its parent
            full = _absolute(path, mod)
            target = None if full is None else file_of(tuple(p for p in full if p != "*"))
            if (
                target is not None
                and target != mod
                and not any(target[: len(t)] == t for t in tests)
            ):
                arrows.add(str(files[target].relative_to(root)))
    return graph


# --- Python --------------------------------------------------------------------


def _py_modules() -> dict[str, Path]:
    out = {}
    # the extension module is known by its stub
    for f in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]):
        parts = ("msgnorm", *f.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.setdefault(".".join(parts), f)
    return out


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    walk(other)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            walk(child)

    walk(tree)
    return found


def python_graph() -> Graph:
    modules = _py_modules()
    graph: Graph = {}
    for name, f in modules.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        arrows = graph.setdefault(str(f.relative_to(ROOT)), set())
        for node in _imports(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [
                    f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin
                    for a in node.names
                ]
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    arrows.add(str(modules[t].relative_to(ROOT)))
    return graph


# --- the check -----------------------------------------------------------------


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected parts of more than one file (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("src", CRATES, ids=lambda p: p.parent.name)
def test_no_rust_module_imports_itself_back(src: Path) -> None:
    graph = rust_graph(src)
    assert len(graph) > 20  # the files were found and read
    assert sum(map(len, graph.values())) > 2 * len(graph) - 10  # and their arrows
    assert cycles(graph) == []


def test_no_python_module_imports_itself_back() -> None:
    graph = python_graph()
    assert len(graph) > 30
    assert sum(map(len, graph.values())) > 50
    assert cycles(graph) == []


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    # the two readers see a circle where one is, and none where none is
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    (src / "a" / "mod.rs").write_text("pub mod c;\nuse crate::b::{x, y::{z}};\n")
    (src / "a" / "c.rs").write_text("fn f() { super::super::b::g(); }\n")
    (src / "b.rs").write_text(
        "//! use crate::a;\n#[cfg(test)]\nmod tests { use crate::a::c; }\nfn g() {}\n"
    )
    assert cycles(rust_graph(src, tmp_path)) == []
    assert rust_graph(src, tmp_path)["src/a/mod.rs"] == {"src/b.rs"}
    assert rust_graph(src, tmp_path)["src/a/c.rs"] == {"src/b.rs"}
    assert rust_graph(src, tmp_path)["src/b.rs"] == set()
    (src / "b.rs").write_text("use crate::a::c::f;\n")
    assert cycles(rust_graph(src, tmp_path)) == [["src/a/c.rs", "src/b.rs"]]
    assert cycles({"p.py": {"q.py"}, "q.py": {"r.py"}, "r.py": {"p.py"}}) == [
        ["p.py", "q.py", "r.py"]
    ]
    assert _use_paths("a::{b as c, d::{e, f as g}}") == [
        ["a", "b"],
        ["a", "d", "e"],
        ["a", "d", "f"],
    ]
