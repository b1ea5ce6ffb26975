r"""Checks what a release ships, wheel by wheel and the sdist.

    python .ci/check_dist.py dist/msgnorm-0.1.0-cp313-cp313-manylinux2014_x86_64....whl
    python .ci/check_dist.py --expect-platform 'macosx_\d+_\d+_arm64' dist
    python .ci/check_dist.py --expect-python cp310,cp313 dist   # exactly these CPythons
    python .ci/check_dist.py --complete dist      # a release's full set of files

A wheel: named ``msgnorm-<version>-<cpXY>-<cpXY>-<platform>.whl``, one per CPython
version (``INTERPRETERS``: the version-specific ABI, free-threaded 3.14 as
``cp314-cp314t``; no abi3 wheel); holds the package (``__main__``, ``py.typed``, the stub, one
native extension), the LICENSE under ``.dist-info/licenses/``, METADATA with
``License-Expression: MIT``; an ELF extension is stripped (no ``.symtab``).
The sdist: the LICENSE, ``Cargo.lock``, both crates, the tests and the example
they read, no build leftovers. ``--complete``: exactly the platforms the
release workflow builds, each with one wheel per interpreter, plus the sdist, all of one version (pyproject's).
Standard library only: runs on every runner and on the oldest Python.
"""

from __future__ import annotations

import argparse
import re
import struct
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "msgnorm"
# The platforms the release workflow builds: a platform tag each wheel's name must
# carry (macOS: any deployment target maturin picks).
PLATFORMS = {
    "manylinux2014-x86_64": r"manylinux_2_17_x86_64",
    "manylinux2014-aarch64": r"manylinux_2_17_aarch64",
    "musllinux_1_2-x86_64": r"musllinux_1_2_x86_64",
    "musllinux_1_2-aarch64": r"musllinux_1_2_aarch64",
    "macos-x86_64": r"macosx_\d+_\d+_x86_64",
    "macos-arm64": r"macosx_\d+_\d+_arm64",
    "windows-x64": r"win_amd64",
}
# The CPythons the release workflow builds a wheel for on every platform: the
# wheel's Python tag and ABI tag (pyproject's classifiers, and 3.14t).
INTERPRETERS = {
    "cp310": "cp310",
    "cp311": "cp311",
    "cp312": "cp312",
    "cp313": "cp313",
    "cp314": "cp314",
    "cp314t": "cp314",
}
WHEEL_RE = re.compile(
    rf"{NAME}-(?P<version>[^-]+)-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl"
)


def project_version() -> str:
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r'version\s*=\s*"([^"]+)"', line.strip())
        if m:
            return m.group(1)
    raise SystemExit("no version in pyproject.toml")


def platform_tags(wheel: Path) -> list[str]:
    return wheel.name.removesuffix(".whl").split("-")[-1].split(".")


def license_classifiers(meta: str) -> list[str]:
    """PEP 639: with a License-Expression, no ``License ::`` classifier (PyPI refuses both)."""
    found = [line for line in meta.splitlines() if line.startswith("Classifier: License ::")]
    return [f"license classifier beside License-Expression: {line}" for line in found]


def elf_is_stripped(data: bytes) -> bool:
    """True when a 64-bit little-endian ELF file has no ``.symtab`` section."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def section(i: int) -> tuple[int, int, int]:
        base = shoff + i * shentsize
        (name,) = struct.unpack_from("<I", data, base)
        offset, size = struct.unpack_from("<QQ", data, base + 0x18)
        return name, offset, size

    _, str_off, str_size = section(shstrndx)
    names = data[str_off : str_off + str_size]
    for i in range(shnum):
        name_at = section(i)[0]
        name = names[name_at : names.index(b"\0", name_at)]
        if name == b".symtab":
            return False
    return True


def interpreter(wheel: Path) -> str:
    """The wheel's interpreter as INTERPRETERS names it: its ABI tag (``cp314t``)."""
    return wheel.name.removesuffix(".whl").split("-")[-2]


def check_wheel(path: Path, version: str, expect_platform: str | None) -> list[str]:
    problems = []
    m = WHEEL_RE.fullmatch(path.name)
    if not m:
        return [f"{path.name}: not a {NAME} wheel name"]
    if m["version"] != version:
        problems.append(f"version {m['version']}, pyproject says {version}")
    if INTERPRETERS.get(m["abi"]) != m["python"]:
        problems.append(
            f"tag {m['python']}-{m['abi']}, expected one of "
            f"{', '.join(f'{p}-{a}' for a, p in INTERPRETERS.items())} (a wheel per CPython)"
        )
    platforms = m["platform"].split(".")
    if expect_platform and not any(re.fullmatch(expect_platform, t) for t in platforms):
        problems.append(f"platform tags {platforms}, expected {expect_platform}")
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        info = f"{NAME}-{m['version']}.dist-info"
        for needed in (
            f"{NAME}/__init__.py",
            f"{NAME}/__main__.py",
            f"{NAME}/cli/__init__.py",
            f"{NAME}/cli/__main__.py",
            f"{NAME}/providers/__init__.py",
            f"{NAME}/py.typed",
            f"{NAME}/_native.pyi",
            f"{info}/licenses/LICENSE",
            f"{info}/METADATA",
            f"{info}/entry_points.txt",
        ):
            if needed not in names:
                problems.append(f"missing {needed}")
        natives = [n for n in names if re.fullmatch(rf"{NAME}/_native\..*(so|pyd)", n)]
        if len(natives) != 1:
            problems.append(f"expected one native extension, found {natives}")
        elif natives[0].endswith(".so") and "linux" in m["platform"]:
            if not elf_is_stripped(z.read(natives[0])):
                problems.append(f"{natives[0]} is not stripped (it has a .symtab)")
        if any("__pycache__" in n or n.endswith(".pyc") for n in names):
            problems.append("holds compiled bytecode")
        if any(n.startswith("tests/") for n in names):
            problems.append("holds the tests (they belong in the sdist)")
        if f"{info}/METADATA" in names:
            meta = z.read(f"{info}/METADATA").decode()
            for line in ("License-Expression: MIT", "License-File: LICENSE", f"Version: {version}"):
                if line not in meta.splitlines():
                    problems.append(f"METADATA lacks {line!r}")
            problems += license_classifiers(meta)
        if f"{info}/licenses/LICENSE" in names:
            if b"the msgnorm authors" not in z.read(f"{info}/licenses/LICENSE"):
                problems.append("LICENSE does not name the msgnorm authors")
    return [f"{path.name}: {p}" for p in problems]


def check_sdist(path: Path, version: str) -> list[str]:
    problems = []
    top = f"{NAME}-{version}"
    if path.name != f"{top}.tar.gz":
        return [f"{path.name}: expected {top}.tar.gz"]
    with tarfile.open(path) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        for needed in (
            "LICENSE",
            "PKG-INFO",
            "pyproject.toml",
            "Cargo.toml",
            "Cargo.lock",
            "README.md",
            "CHANGELOG.md",
            "rust/core/Cargo.toml",
            "rust/python/Cargo.toml",
            "rust/python/src/lib.rs",
            "python/msgnorm/__init__.py",
            "python/msgnorm/__main__.py",
            "tests/conftest.py",
            "tests/support/reference.py",
            "tests/test_version.py",
            "tests/test_cli.py",
            "examples/session.jsonl",
        ):
            if needed not in names:
                problems.append(f"missing {needed}")
        if not any(n.startswith("tests/data/") and n.endswith(".json") for n in names):
            problems.append("missing tests/data/ (the fixtures the tests read)")
        tests = [n for n in names if re.fullmatch(r"tests/test_\w+\.py", n)]
        if len(tests) < 20:
            problems.append(f"only {len(tests)} test modules")
        junk = [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".so", ".pyd"))]
        if junk:
            problems.append(f"build leftovers: {sorted(junk)[:5]}")
        pkg_info = t.extractfile(f"{top}/PKG-INFO")
        meta = pkg_info.read().decode() if pkg_info else ""
        if "License-Expression: MIT" not in meta.splitlines():
            problems.append("PKG-INFO lacks 'License-Expression: MIT'")
        problems += license_classifiers(meta)
    return [f"{path.name}: {p}" for p in problems]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="wheels and sdists, or a directory")
    ap.add_argument(
        "--expect-platform", help="a platform tag (a regular expression) every wheel must carry"
    )
    ap.add_argument(
        "--expect-python",
        help="comma-separated ABI tags (cp310,cp314t): exactly one wheel for each, and no other",
    )
    ap.add_argument(
        "--complete",
        action="store_true",
        help="exactly one wheel per release platform and interpreter + sdist",
    )
    args = ap.parse_args(argv)
    version = project_version()
    files = []
    for p in args.paths:
        files += sorted(p.iterdir()) if p.is_dir() else [p]
    problems = []
    wheels = [f for f in files if f.suffix == ".whl"]
    sdists = [f for f in files if f.name.endswith(".tar.gz")]
    others = [f for f in files if f not in wheels and f not in sdists]
    if others:
        problems.append(f"not a wheel or sdist: {[f.name for f in others]}")
    for w in wheels:
        problems += check_wheel(w, version, args.expect_platform)
    if args.expect_platform and not wheels:
        problems.append(f"no wheel to check for {args.expect_platform}")
    if args.expect_python:
        expected = sorted(args.expect_python.split(","))
        found = sorted(interpreter(w) for w in wheels)
        if found != expected:
            problems.append(f"wheels for {found}, expected one each for {expected}")
    for s in sdists:
        problems += check_sdist(s, version)
    if args.complete:
        if len(sdists) != 1:
            problems.append(f"expected one sdist, found {len(sdists)}")
        for platform, tag in PLATFORMS.items():
            having = [w for w in wheels if any(re.fullmatch(tag, t) for t in platform_tags(w))]
            for abi in INTERPRETERS:
                n = sum(interpreter(w) == abi for w in having)
                if n != 1:
                    problems.append(f"{platform}: expected one {abi} wheel tagged {tag}, found {n}")
        if len(wheels) != len(PLATFORMS) * len(INTERPRETERS):
            problems.append(
                f"expected {len(PLATFORMS) * len(INTERPRETERS)} wheels "
                f"({len(PLATFORMS)} platforms x {len(INTERPRETERS)} CPythons), found {len(wheels)}"
            )
    for p in problems:
        print(f"check_dist: {p}", file=sys.stderr)
    if problems:
        return 1
    for f in files:
        print(f"check_dist: ok {f.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
