"""The native layer keeps to the interpreter's public API and leaves the
interpreter as it found it.

Static checks of the binding's source (``rust/python/src``): no read of an
object's memory by a field name or by offset, no use of the ``gc`` module, the
lints that hold every ``unsafe`` block to a written reason. Runtime checks: a
call leaves the collector's switch and thresholds and the recursion limit as
they were, also when the caller, or another thread, changes the collector
while the call runs.
"""

from __future__ import annotations

import gc
import json
import re
import sys
import sysconfig
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from support.helpers import tool_loops

ROOT = Path(__file__).resolve().parents[1]
BINDING = ROOT / "rust" / "python" / "src"

#: Names of CPython's private object fields: reading them is reading the layout.
PRIVATE_FIELDS = ("ob_item", "ma_keys", "ma_values", "ob_size", "ob_refcnt", "ob_type")
#: Any use of the ``gc`` module from Rust: importing it by name.
GC_MODULE = re.compile(r"""import\(\s*"gc"\s*\)|intern!\([^)]*"gc"\s*\)|\bgc\.|"gc\"""")
#: Pointer arithmetic, and casts that reinterpret an object as raw words.
ARITHMETIC = re.compile(r"\.(add|offset|sub|wrapping_add|wrapping_offset|wrapping_sub|byte_add)\(")
OBJECT_POINTER = re.compile(r"PyObject|as_ptr\(\)|\bPtr\b|ffi::Py")
#: A cast that reads memory as machine words or as a table of pointers.
WORD_CAST = re.compile(r"as \*(const|mut) (usize|isize|u64|\*const|\*mut)")
BYTE_CAST = re.compile(r"as \*(const|mut) (u8|i8|c_void|libc::c_void)\b")


def _sources() -> dict[str, str]:
    files = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in BINDING.glob("*.rs")}
    assert len(files) > 10, "the binding's sources were not found"
    return files


def _pyobject_vars(src: str) -> set[str]:
    """Names bound to a ``*mut/*const PyObject`` (let bindings, parameters, fields)."""
    pat = re.compile(r"\b([a-z_][a-z0-9_]*)\s*:\s*\*(?:mut|const) (?:pyo3::)?(?:ffi::)?PyObject\b")
    return set(pat.findall(src))


def object_pointer_arithmetic(src: str) -> list[str]:
    """Lines that do pointer arithmetic on, or reinterpret, an object pointer."""
    names = _pyobject_vars(src)
    bad = []
    for line in src.splitlines():
        code = line.split("//", 1)[0]
        on_object = OBJECT_POINTER.search(code) or any(
            re.search(rf"\b{re.escape(n)}\s*(\)|\.|as\b)", code) for n in names
        )
        if WORD_CAST.search(code) or (
            on_object and (ARITHMETIC.search(code) or BYTE_CAST.search(code))
        ):
            bad.append(line.strip())
    return bad


def test_the_checker_finds_pointer_arithmetic_on_objects() -> None:
    # the static check below is only as good as this: it must flag what it bans
    flagged = [
        "let n = *(obj as *const usize).add(2);",
        "let keys = *(d.as_ptr() as *const *const u8).add(4);",
        "fn f(o: *mut ffi::PyObject) { let w = o.wrapping_add(1); }",
        "let p = pyo3::ffi::PyList_GetItem(l, 0).offset(3);",
    ]
    for line in flagged:
        assert object_pointer_arithmetic(line) == [line], line
    # ordinary Rust arithmetic and buffer pointers are not objects
    fine = "let total = a.add(b);\nlet buf = addr as *mut u8;\nx.wrapping_add(1);"
    assert object_pointer_arithmetic("let b = (p.as_ptr() as *const u8);") != []
    assert object_pointer_arithmetic(fine) == []


def test_no_private_field_or_offset_read_of_an_object() -> None:
    for name, src in _sources().items():
        for field in PRIVATE_FIELDS:
            assert field not in src, f"{name} names {field}"
        assert object_pointer_arithmetic(src) == [], name


def test_the_gc_module_is_not_used() -> None:
    assert GC_MODULE.search('py.import("gc")?') and GC_MODULE.search("gc.disable()")
    for name, src in _sources().items():
        assert not GC_MODULE.search(src), f"{name} uses the gc module"
        assert "setrecursionlimit" not in src, name


#: A call into the collector's process-wide switches from Python.
PY_GC_SWITCH = re.compile(r"\bgc\.(disable|enable|freeze|unfreeze|collect|set_threshold)\(")


def test_the_python_package_leaves_the_collector_alone() -> None:
    """No module of the package turns the collector off or on, freezes it,
    runs it or changes its thresholds: those are the whole interpreter's."""
    assert PY_GC_SWITCH.search("gc.disable()") and not PY_GC_SWITCH.search("gc.is_tracked(x)")
    files = sorted((ROOT / "python" / "msgnorm").rglob("*.py"))
    assert len(files) > 20
    for f in files:
        src = f.read_text()
        assert not PY_GC_SWITCH.search(src), f"{f.relative_to(ROOT)} switches the collector"
        assert "setrecursionlimit" not in src, f.relative_to(ROOT)


def test_lib_denies_undocumented_unsafe() -> None:
    head = (BINDING / "lib.rs").read_text(encoding="utf-8").split("\nmod ", 1)[0]
    assert "#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]" in head


def test_every_unsafe_block_says_why() -> None:
    # what clippy enforces, read here too: the line before each `unsafe {`
    # block (or its statement) is a `// SAFETY:` comment or its continuation
    for name, src in _sources().items():
        lines = src.splitlines()
        for i, line in enumerate(lines):
            if re.search(r"\bunsafe \{", line) and not line.lstrip().startswith("//"):
                before = "\n".join(lines[max(0, i - 12) : i + 1])
                assert "SAFETY:" in before, f"{name}:{i + 1}: {line.strip()}"


# --------------------------------------------------------------------------- #
# runtime: the interpreter's state after a call
# --------------------------------------------------------------------------- #


CALLS: dict[str, Callable[[Any], Any]] = {
    "normalize_for_api": msgnorm.normalize_for_api,
    "normalize_for_api_report": msgnorm.normalize_for_api_report,
    "normalize_messages": msgnorm.normalize_messages,
    "count_tokens": msgnorm.count_tokens,
    "trim_to_budget": lambda r: msgnorm.trim_to_budget(r, 10**9),
    "clear_tool_results": lambda r: msgnorm.clear_tool_results(r, trigger=None, keep=3),
    "clear_thinking": lambda r: msgnorm.clear_thinking(r),
    "validate": lambda r: msgnorm.validate(r, "anthropic"),
}


def _state() -> tuple[bool, tuple[int, ...], int]:
    return gc.isenabled(), gc.get_threshold(), sys.getrecursionlimit()


@pytest.fixture
def restore() -> Iterator[None]:
    before = _state()
    try:
        yield
    finally:
        gc.enable() if before[0] else gc.disable()
        gc.set_threshold(*before[1])
        sys.setrecursionlimit(before[2])


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("kind", ["dicts", "bytes"])
def test_a_call_leaves_the_interpreter_as_it_was(
    name: str, enabled: bool, kind: str, restore: None
) -> None:
    recs: Any = tool_loops(2500)  # more records than any batch a writer builds
    if kind == "bytes":
        recs = msgnorm.encode(msgnorm.decode(__import__("json").dumps(recs)))
    gc.enable() if enabled else gc.disable()
    gc.set_threshold(1234, 11, 12)
    before = _state()
    collected = [s["collections"] for s in gc.get_stats()]
    out = CALLS[name](recs)
    assert out is not None
    assert _state() == before
    counts = gc.get_count()
    assert len(counts) == 3
    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        # (the free-threaded collector counts allocations less frees: it may go below 0)
        assert all(c >= 0 for c in counts)
    if not enabled:
        # a collector turned off stays idle: no collection was run for the call
        assert [s["collections"] for s in gc.get_stats()] == collected


class Switch:
    """A key that collides with ``"message"``: compared during a call's read,
    it runs ``act`` (what the caller's code does meanwhile) and is equal to
    nothing."""

    def __init__(self, act: Callable[[], None]) -> None:
        self.act = act
        self.armed = False  # building the record compares keys too
        self.calls = 0

    def __hash__(self) -> int:
        return hash("message")

    def __eq__(self, other: object) -> bool:
        if self.armed:
            self.calls += 1
            self.act()
        return False


@pytest.mark.parametrize("name", [n for n in CALLS if n != "validate"])  # it walks, not looks up
@pytest.mark.parametrize("start", [True, False])
def test_a_collector_changed_during_a_call_keeps_the_change(
    name: str, start: bool, restore: None
) -> None:
    gc.enable() if start else gc.disable()
    recs = tool_loops(1500)
    flip = gc.disable if start else gc.enable
    switch = Switch(flip)
    recs[1200] = {switch: 1, **recs[1200]}
    switch.armed = True
    CALLS[name](recs)
    # the user's code turned the collector the other way during the call
    assert switch.calls > 0
    assert gc.isenabled() is not start


def test_another_thread_turns_the_collector_off_during_a_call(restore: None) -> None:
    """Another thread changes the collector while a call runs (the call waits
    inside the caller's code, which lets the thread run): the call does not
    undo it."""
    gc.enable()
    go, done = threading.Event(), threading.Event()

    def other() -> None:
        go.wait(10)
        gc.disable()
        done.set()

    def wait_for_other() -> None:
        go.set()
        deadline = time.monotonic() + 10
        while not done.is_set() and time.monotonic() < deadline:
            time.sleep(0.001)  # releases the GIL

    t = threading.Thread(target=other)
    t.start()
    recs = tool_loops(3000)
    switch = Switch(wait_for_other)
    recs[4000] = {switch: 1, **recs[4000]}
    switch.armed = True
    assert gc.isenabled()
    out = msgnorm.clear_tool_results(recs, trigger=None, keep=3)
    t.join(10)
    assert switch.calls > 0 and done.is_set()
    assert len(out) == len(recs)
    assert not gc.isenabled()


@pytest.mark.parametrize("name", ["normalize_messages", "clear_tool_results"])
def test_the_objects_a_call_builds_are_tracked_when_it_returns(name: str) -> None:
    """A writer keeps what it builds out of the collector's sight only while it
    builds it: every record, message and content list it returns is tracked,
    and a cycle made through one is collected."""
    recs = tool_loops(300)
    out = CALLS[name](recs)
    built = [r for r, o in zip(out, recs, strict=False) if r is not o]
    assert len(built) > 100
    for r in built:
        # as CPython tracks them: a list always, a dict holding a container
        content = r["message"]["content"]
        assert gc.is_tracked(r)
        assert gc.is_tracked(r["message"]) is isinstance(content, list)
        assert isinstance(content, str) or gc.is_tracked(content)

    class Anchor:
        pass

    anchor = Anchor()
    gone = weakref.ref(anchor)
    rec = built[-1]
    rec["anchor"] = anchor
    anchor.back = rec  # type: ignore[attr-defined]
    del anchor, rec, built, out, r, content
    gc.collect()
    assert gone() is None


BULK: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "decode": lambda r: msgnorm.decode(json.dumps(r)),
    "from_builtins": msgnorm.from_builtins,
    "to_builtins": lambda r: msgnorm.to_builtins(msgnorm.from_builtins(r)),
    "encode": lambda r: msgnorm.encode(msgnorm.from_builtins(r)),
    "to_provider": lambda r: msgnorm.to_provider(r, "openai-chat"),
    "from_provider": lambda r: msgnorm.from_provider(
        msgnorm.to_provider(r, "anthropic")["messages"], "anthropic"
    ),
    "convert": lambda r: msgnorm.convert(
        msgnorm.to_provider(r, "anthropic")["messages"], source="anthropic", target="openai-chat"
    ),
}


@pytest.mark.parametrize("name", list(BULK))
def test_the_collector_stays_on_during_a_bulk_call(name: str, restore: None) -> None:
    """The typed model's bulk conversions and the provider conversions leave the
    collector's switch alone: another thread that looks at it while they run
    always finds it on (a call that paused the collector would be seen)."""
    recs = tool_loops(3000)
    gc.enable()
    seen: set[bool] = set()
    looks = 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal looks
        while not stop.is_set():
            seen.add(gc.isenabled())
            looks += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    t = threading.Thread(target=watch)
    t.start()
    try:
        before = looks
        out = BULK[name](recs)
        during = looks - before
    finally:
        stop.set()
        t.join(10)
        sys.setswitchinterval(interval)
    assert out is not None
    assert during > 10, "the watcher never ran during the call"
    assert seen == {True}


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "openai-responses", "gemini"])
def test_provider_outputs_are_tracked_when_they_return(target: str) -> None:
    """The provider writer keeps its lists and dicts out of the collector's sight
    only while it builds them: what it returns is tracked (as CPython tracks
    them: every list, and every dict that holds a container)."""
    out = msgnorm.to_provider(tool_loops(200), target)
    containers: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, list):
            containers.append(v)
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            if any(isinstance(x, (list, dict)) for x in v.values()):
                containers.append(v)
            for x in v.values():
                walk(x)

    walk(out)
    # Responses items hold only strings: CPython does not track such dicts
    assert len(containers) > (0 if target == "openai-responses" else 400)
    assert all(gc.is_tracked(c) for c in containers)
