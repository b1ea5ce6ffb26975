"""Directory runs a user can trust: ``msgnorm normalize DIR -o OUT`` and ``count
DIR`` take a session as ``load_session`` does (its subagent files with it), write
each output atomically, skip outputs whose inputs and options are unchanged, and
an interrupted run leaves no partial or temporary file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgnorm
import pytest
from msgnorm.cli import directory
from msgnorm.cli.directory import MANIFEST, TMP_PREFIX
from support.cli import run_cli
from support.session_trees import random_session, write_session


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return run_cli(args, text=True)


def expected(path: Path, **options: object) -> bytes:
    records = msgnorm.load_session(path, kind="bytes").records
    out: bytes = msgnorm.normalize_for_api(records, **options)
    return out + b"\n"


def project(root: Path, n: int, first_seed: int = 0) -> list[Path]:
    """``n`` generated sessions (subagent files, damage and all) in one project directory."""
    paths = [write_session(root, random_session(first_seed + s)) for s in range(n)]
    return paths


def outputs(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }


def temporaries(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.name.startswith(TMP_PREFIX)]


def head(proc: subprocess.CompletedProcess[str]) -> str:
    return next(line for line in proc.stderr.splitlines() if line.startswith("msgnorm: "))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, list[Path]]:
    root = tmp_path / "in"
    paths = project(root, 12)
    return root, paths


def test_one_output_per_session_with_its_subagent_files(
    tree: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    root, paths = tree
    subagent_files = list(root.rglob("subagents/**/agent-*.jsonl"))
    assert len(subagent_files) >= 3, "the generated sessions have subagent files"
    out = tmp_path / "out"
    proc = run(["normalize", str(root), "-o", f"{out}/", "-j", "2"])
    assert proc.returncode == 0, proc.stderr
    want = {p.relative_to(root).with_suffix(".json").as_posix(): expected(p) for p in paths}
    assert outputs(out) == want
    assert head(proc).startswith(f"msgnorm: {len(paths)} sessions, {len(paths)} written, ")
    assert not any("subagents" in name for name in outputs(out))


def test_an_agent_file_no_session_claims_is_an_item_of_its_own(tmp_path: Path) -> None:
    root = tmp_path / "in"
    [main] = project(root, 1)
    lone = root / "projects" / "other" / "agent-lone.jsonl"
    lone.parent.mkdir(parents=True)
    lone.write_bytes(main.read_bytes())
    units = directory.tree_units(root)
    assert [u.rel for u in units] == sorted([main.relative_to(root), lone.relative_to(root)])
    assert units[0].files == tuple(p.relative_to(root) for p in msgnorm.session_files(main))
    assert units[1].files == (lone.relative_to(root),)
    flat = directory.tree_units(root, session=False)
    assert len(flat) == len(list(root.rglob("*.jsonl"))) > 2


@pytest.fixture
def done_once(tree: tuple[Path, list[Path]], tmp_path: Path) -> tuple[Path, list[Path], Path]:
    """The tree normalized once into ``out``."""
    root, paths = tree
    out = tmp_path / "out"
    proc = run(["normalize", str(root), "-o", f"{out}/"])
    assert proc.returncode == 0, proc.stderr
    return root, paths, out


def test_a_rerun_rewrites_nothing_and_force_rewrites_all(
    done_once: tuple[Path, list[Path], Path],
) -> None:
    root, paths, out = done_once
    first = {p: p.stat().st_mtime_ns for p in out.rglob("*.json") if p.name != MANIFEST}
    time.sleep(0.01)
    again = run(["normalize", str(root), "-o", f"{out}/"])
    assert again.returncode == 0, again.stderr
    n = len(paths)
    assert head(again).startswith(f"msgnorm: {n} sessions, 0 written, {n} up to date (skipped),")
    assert {p: p.stat().st_mtime_ns for p in first} == first
    forced = run(["normalize", str(root), "-o", f"{out}/", "--force"])
    assert head(forced).startswith(f"msgnorm: {n} sessions, {n} written, ")
    assert all(p.stat().st_mtime_ns != m for p, m in first.items())


def test_a_changed_input_or_output_or_option_is_redone(
    done_once: tuple[Path, list[Path], Path],
) -> None:
    root, paths, out = done_once
    n = len(paths)
    # A subagent file is an input of its session: touching it redoes that session.
    sub = sorted(root.rglob("subagents/**/agent-*.jsonl"))[0]
    owner = next(p for p in paths if sub in msgnorm.session_files(p))
    with sub.open("ab") as f:
        f.write(b"\n")
    # An output changed by hand is redone; a deleted one too.
    victim = out / paths[0].relative_to(root).with_suffix(".json")
    other = out / paths[1].relative_to(root).with_suffix(".json")
    assert owner not in paths[:2]
    victim.write_bytes(b"[]\n")
    other.unlink()
    proc = run(["normalize", str(root), "-o", f"{out}/"])
    assert head(proc).startswith(f"msgnorm: {n} sessions, 3 written, {n - 3} up to date")
    assert victim.read_bytes() == expected(paths[0])
    assert other.read_bytes() == expected(paths[1])
    # Other options: every output is redone.
    proc = run(["normalize", str(root), "-o", f"{out}/", "--max-media", "1"])
    assert head(proc).startswith(f"msgnorm: {n} sessions, {n} written, ")
    assert outputs(out) == {
        p.relative_to(root).with_suffix(".json").as_posix(): expected(p, max_media=1) for p in paths
    }


def test_the_manifest_records_sizes_and_mtimes(
    tree: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    root, paths = tree
    out = tmp_path / "out"
    directory.normalize_tree(root, out, progress=False)
    doc = json.loads((out / MANIFEST).read_bytes())
    assert doc["version"] == 1
    rel = paths[0].relative_to(root)
    entry = doc["outputs"][rel.with_suffix(".json").as_posix()]
    files = msgnorm.session_files(paths[0])
    assert entry["inputs"] == [
        [p.relative_to(root).as_posix(), p.stat().st_size, p.stat().st_mtime_ns] for p in files
    ]
    target = out / rel.with_suffix(".json")
    assert entry["output"] == [target.stat().st_size, target.stat().st_mtime_ns]


def test_a_failed_write_leaves_no_partial_or_temporary_file(
    tree: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, paths = tree
    out = tmp_path / "out"
    real = os.replace
    calls = {"n": 0}

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst).name != MANIFEST:
            calls["n"] += 1
            if calls["n"] == 5:
                raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(directory.os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        directory.normalize_tree(root, out, progress=False)
    monkeypatch.setattr(directory.os, "replace", real)
    assert temporaries(out) == []
    done = outputs(out)
    assert len(done) == 4
    for name, data in done.items():
        assert data == expected(root / Path(name).with_suffix(".jsonl"))
    # The manifest knows the four: the rerun writes the rest only.
    s = directory.normalize_tree(root, out, progress=False)
    assert (s.written, s.fresh) == (len(paths) - 4, 4)
    assert len(outputs(out)) == len(paths)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_run_leaves_complete_outputs_only(tmp_path: Path, sig: int) -> None:
    root = tmp_path / "in"
    paths = project(root, 300)
    out = tmp_path / "out"
    # Each output waits 50 ms once written, so that the run (at least 15 s) is
    # still going when the signal comes, however loaded the machine is. Ctrl-C
    # is what SIGINT means here: a parent that ignores SIGINT (a background
    # job of a non-interactive shell) passes the ignoring on, so it is restored.
    slowed = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from msgnorm import cli\n"
        "from msgnorm.cli import directory\n"
        "write = directory.write_atomic\n"
        "def slow(target, data):\n"
        "    write(target, data)\n"
        "    time.sleep(0.05)\n"
        "directory.write_atomic = slow\n"
        "sys.argv[0] = 'msgnorm'\n"
        "sys.exit(cli.main())\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", slowed, "normalize", str(root), "-o", f"{out}/", "-j", "1"],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not any(out.rglob("*.json")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(sig)
    proc.communicate(timeout=120)
    assert proc.returncode != 0, "the run was interrupted"
    assert len(outputs(out)) < len(paths)
    if sig != signal.SIGKILL:
        assert temporaries(out) == []
    for name, data in outputs(out).items():
        if not Path(name).name.startswith(TMP_PREFIX):  # a killed run's, removed by the next
            assert data == expected(root / Path(name).with_suffix(".jsonl")), name
    again = run(["normalize", str(root), "-o", f"{out}/"])
    assert again.returncode == 0, again.stderr
    assert temporaries(out) == []
    assert set(outputs(out)) == {p.relative_to(root).with_suffix(".json").as_posix() for p in paths}
    last = run(["normalize", str(root), "-o", f"{out}/"])
    assert head(last).startswith(f"msgnorm: {len(paths)} sessions, 0 written, ")


def test_count_takes_sessions_with_their_subagent_files(
    tree: tuple[Path, list[Path]],
) -> None:
    root, paths = tree
    proc = run(["count", str(root), "--top", "1"])
    assert proc.returncode == 0, proc.stderr
    total = sum(msgnorm.count_tokens(msgnorm.load_session(p, kind="bytes").records) for p in paths)
    assert proc.stdout.splitlines()[0].startswith(
        f"total: {total} tokens in {len(paths)} sessions ("
    )
