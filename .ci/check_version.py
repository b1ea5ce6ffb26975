"""One version for a release: pyproject.toml's [project] version, the Cargo
workspace's [workspace.package] version and, given a tag, the tag (``v`` + version).

    python .ci/check_version.py            # pyproject == Cargo
    python .ci/check_version.py v0.1.0     # and the tag names that version

Exits 1 naming every value when they disagree. Reads TOML with ``tomllib``
(Python 3.11+), which the release workflow and CI have.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
# PEP 440 public versions as the project writes them; PyPI refuses local versions.
RELEASE = re.compile(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")


def versions() -> dict[str, str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    found = {
        "pyproject.toml [project] version": pyproject["project"]["version"],
        "Cargo.toml [workspace.package] version": cargo["workspace"]["package"]["version"],
    }
    # Every member crate takes the workspace's version (so the core and the
    # binding report the same `CARGO_PKG_VERSION`).
    for member in cargo["workspace"]["members"]:
        crate = tomllib.loads((ROOT / member / "Cargo.toml").read_text(encoding="utf-8"))
        version = crate["package"]["version"]
        if version != {"workspace": True}:
            found[f"{member}/Cargo.toml [package] version"] = str(version)
    return found


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: check_version.py [TAG]", file=sys.stderr)
        return 2
    found = versions()
    if argv:
        tag = argv[0]
        found["tag"] = tag[1:] if tag.startswith("v") else f"(not v + a version) {tag}"
    values = set(found.values())
    if len(values) != 1:
        print("version mismatch:", file=sys.stderr)
        for where, value in found.items():
            print(f"  {where}: {value}", file=sys.stderr)
        return 1
    (version,) = values
    if not RELEASE.fullmatch(version):
        print(f"not a release version (PEP 440, no local part): {version}", file=sys.stderr)
        return 1
    print(f"version {version}: " + ", ".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
