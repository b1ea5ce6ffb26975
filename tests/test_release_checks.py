"""The release's wheel checks (``.ci/check_dist.py``) follow the version-specific tags:
a wheel per CPython (``cp310-cp310`` ... ``cp314-cp314``, ``cp314-cp314t``), never abi3.

The wheels here are small zips of our own with the entries the check reads (Windows
platform tags: no ELF section table to read). Skipped where ``.ci/`` is not beside
the tests (the sdist's tests).
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

CHECK = Path(__file__).resolve().parents[1] / ".ci" / "check_dist.py"
if not CHECK.is_file():
    pytest.skip(".ci/check_dist.py is not beside the tests", allow_module_level=True)


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_dist", CHECK)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check_dist = _load()
VERSION = check_dist.project_version()


def _wheel(where: Path, python: str, abi: str, platform: str = "win_amd64") -> Path:
    path = where / f"msgnorm-{VERSION}-{python}-{abi}-{platform}.whl"
    info = f"msgnorm-{VERSION}.dist-info"
    meta = f"Metadata-Version: 2.4\nName: msgnorm\nVersion: {VERSION}\n"
    meta += "License-Expression: MIT\nLicense-File: LICENSE\n"
    with zipfile.ZipFile(path, "w") as z:
        for name in (
            "msgnorm/__init__.py",
            "msgnorm/__main__.py",
            "msgnorm/cli/__init__.py",
            "msgnorm/cli/__main__.py",
            "msgnorm/providers/__init__.py",
            "msgnorm/py.typed",
            "msgnorm/_native.pyi",
            f"{info}/entry_points.txt",
        ):
            z.writestr(name, "")
        z.writestr(f"msgnorm/_native.{abi}-win_amd64.pyd", b"MZ")
        z.writestr(f"{info}/METADATA", meta)
        z.writestr(f"{info}/licenses/LICENSE", "Copyright (c) the msgnorm authors")
    return path


TAGS = [
    ("cp310", "cp310"),
    ("cp311", "cp311"),
    ("cp312", "cp312"),
    ("cp313", "cp313"),
    ("cp314", "cp314"),
    ("cp314", "cp314t"),
]


def test_the_interpreters_are_the_release_set() -> None:
    assert sorted((p, a) for a, p in check_dist.INTERPRETERS.items()) == TAGS


@pytest.mark.parametrize(("python", "abi"), TAGS)
def test_each_version_specific_tag_passes(tmp_path: Path, python: str, abi: str) -> None:
    w = _wheel(tmp_path, python, abi)
    assert check_dist.check_wheel(w, VERSION, "win_amd64") == []
    assert check_dist.main(["--expect-python", abi, str(w)]) == 0


@pytest.mark.parametrize(
    ("python", "abi"),
    [("cp310", "abi3"), ("cp314t", "cp314t"), ("cp313", "cp314"), ("cp39", "cp39")],
)
def test_abi3_and_mismatched_tags_fail(tmp_path: Path, python: str, abi: str) -> None:
    problems = check_dist.check_wheel(_wheel(tmp_path, python, abi), VERSION, None)
    assert any("a wheel per CPython" in p for p in problems), problems


def test_expect_python_wants_exactly_the_set(tmp_path: Path) -> None:
    _wheel(tmp_path, "cp310", "cp310")
    _wheel(tmp_path, "cp313", "cp313")
    assert check_dist.main(["--expect-python", "cp310,cp313", str(tmp_path)]) == 0
    assert check_dist.main(["--expect-python", "cp310,cp313,cp314t", str(tmp_path)]) == 1
    assert check_dist.main(["--expect-python", "cp313", str(tmp_path)]) == 1


PLATFORM_TAGS = {
    "manylinux2014-x86_64": "manylinux_2_17_x86_64",
    "manylinux2014-aarch64": "manylinux_2_17_aarch64",
    "musllinux_1_2-x86_64": "musllinux_1_2_x86_64",
    "musllinux_1_2-aarch64": "musllinux_1_2_aarch64",
    "macos-x86_64": "macosx_11_0_x86_64",
    "macos-arm64": "macosx_11_0_arm64",
    "windows-x64": "win_amd64",
}


def test_complete_wants_every_cpython_on_every_platform(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert set(PLATFORM_TAGS) == set(check_dist.PLATFORMS)
    for tag in PLATFORM_TAGS.values():
        for abi, python in check_dist.INTERPRETERS.items():
            _wheel(tmp_path, python, abi, tag)
    # every wheel there: only the sdist is missing
    assert check_dist.main(["--complete", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "check_dist: expected one sdist, found 0"
    ]
    (tmp_path / f"msgnorm-{VERSION}-cp314-cp314t-macosx_11_0_arm64.whl").unlink()
    assert check_dist.main(["--complete", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "macos-arm64: expected one cp314t wheel tagged" in err
    assert f"expected {7 * len(check_dist.INTERPRETERS)} wheels" in err
