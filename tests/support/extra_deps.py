"""The test extra's dependencies that this interpreter lacks.

On a free-threaded CPython (3.14t) a package of the test extra without a
free-threaded wheel is not installed (``.ci/test-wheel`` installs the extra
package by package, wheels only); the tests that need it skip
(``pytest.importorskip``), and ``tests/conftest.py`` lists, at the end of the
run, which packages were missing and which tests skipped for want of them.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import sysconfig

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def _marker_applies(marker: str) -> bool:
    """A requirement marker of the test extra, evaluated here (packaging when
    installed, else pip's copy of it); unknown: assumed to apply."""
    try:
        from packaging.markers import Marker
    except ImportError:  # pragma: no cover - packaging comes with pytest
        try:
            from pip._vendor.packaging.markers import Marker
        except ImportError:
            return True
    m = Marker(marker)
    return bool(m.evaluate({"extra": "test"})) and not m.evaluate({"extra": ""})


def requirements() -> list[str]:
    """The distribution names of the test extra that apply to this interpreter."""
    try:
        requires = importlib.metadata.requires("msgnorm") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    names = []
    for req in requires:
        spec, _, marker = req.partition(";")
        if "extra" not in marker or not _marker_applies(marker.strip()):
            continue
        name = re.match(r"[A-Za-z0-9._-]+", spec.strip())
        if name:
            names.append(name.group(0))
    return names


def missing() -> list[str]:
    """The test extra's distributions (for this interpreter) not installed."""
    out = []
    for name in requirements():
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            out.append(name)
    return out


def interpreter() -> str:
    """This interpreter, named with its build (``3.14.7 free-threaded``)."""
    build = "free-threaded" if FREE_THREADED else "with the GIL"
    return f"CPython {sys.version.split()[0]} {build}"
