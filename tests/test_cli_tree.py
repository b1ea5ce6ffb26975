"""``msgnorm normalize DIR -o OUTDIR --jobs N`` and ``msgnorm count DIR``: a
directory tree on every core (and on Ray and Daft), mirrored, summarised."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import msgnorm
import pytest
from msgnorm.cli import directory
from msgnorm.cli.directory import MANIFEST
from support.cli import run_cli
from support.engines import CORPUS_FILES, histories, write_tree


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, text=True, **env)


def expected(source: Path | bytes, session: bool = True) -> bytes:
    """A session file's output (its subagent files read with it), or a flat file's."""
    data = msgnorm.load_session(source, kind="bytes").records if session else source
    out: bytes = msgnorm.normalize_for_api(data)
    return out + b"\n"


def sessions_of(root: Path) -> list[str]:
    """The session files of a tree (the outputs' names): subagent files go with them."""
    return [u.rel.as_posix() for u in directory.tree_units(root)]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """1,000 files in a tree (the example transcripts among them, subagent files
    too): the root and its sessions."""
    root = tmp_path_factory.mktemp("sessions")
    small = histories(60)
    items = [small[i % len(small)] for i in range(1000 - len(CORPUS_FILES))]
    files = write_tree(root, items)
    assert len(files) == 1000
    (root / "notes.txt").write_text("not a transcript")
    sessions = sessions_of(root)
    assert len(sessions) < len(files), "the examples' subagent files go with their sessions"
    return root, sessions


def test_a_thousand_files_with_two_jobs(tree: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, sessions = tree
    out = tmp_path / "out"
    proc = run(["normalize", str(root), "-o", str(out), "--jobs", "2", "--progress"])
    assert proc.returncode == 0, proc.stderr
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    want = sorted(str(Path(rel).with_suffix(".json")) for rel in sessions)
    assert written == sorted([*want, MANIFEST])
    records = 0
    for rel in sessions:
        got = (out / rel).with_suffix(".json").read_bytes()
        assert got == expected(root / rel), rel
        records += len(json.loads(got))
    lines = proc.stderr.splitlines()
    summary = [line for line in lines if line.startswith("msgnorm: ")]
    assert summary[0].startswith(
        f"msgnorm: {len(sessions)} sessions, {len(sessions)} written, {records} records, 0 errors"
    )
    assert summary[1].startswith("msgnorm: repairs: ")
    assert "normalizing: 100%" in proc.stderr and f"{len(sessions)}/{len(sessions)}" in proc.stderr


def test_errors_are_listed_with_their_files(tmp_path: Path) -> None:
    root = tmp_path / "in"
    files = write_tree(root, histories(6), corpus=False)
    (root / "bad").mkdir()
    (root / "bad" / "broken.jsonl").write_bytes(b"{oops\n")
    out = tmp_path / "out"
    proc = run(["normalize", str(root), "-o", str(out) + "/", "--flat", "--no-progress"])
    assert proc.returncode == 1
    assert "msgnorm: error: bad/broken.jsonl: invalid JSON at line 1 column 2" in proc.stderr
    assert f"{len(files) + 1} files, {len(files)} written" in proc.stderr
    assert not (out / "bad" / "broken.json").exists()
    for rel, data in files.items():
        assert (out / rel).with_suffix(".json").read_bytes() == expected(data, session=False)


def test_count_a_directory(tree: tuple[Path, list[str]]) -> None:
    root, sessions = tree
    proc = run(["count", str(root), "--jobs", "2", "--top", "2"])
    assert proc.returncode == 0, proc.stderr
    total = sum(
        msgnorm.count_tokens(msgnorm.load_session(root / rel, kind="bytes").records)
        for rel in sessions
    )
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"total: {total} tokens in {len(sessions)} sessions (")
    assert proc.stdout.splitlines()[1] == "biggest 2 sessions:"


def test_directory_mode_arguments(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    proc = run(["normalize", str(tmp_path / "in"), "--jobs", "2"])
    assert proc.returncode == 2 and "needs -o OUTDIR" in proc.stderr
    proc = run(["normalize", str(tmp_path / "in"), "-o", str(tmp_path / "in" / "o"), "-j", "1"])
    assert proc.returncode == 2 and "must not be inside" in proc.stderr
    proc = run(["normalize", str(tmp_path / "in"), "-o", str(tmp_path), "--max-tokens", "9"])
    assert proc.returncode == 2 and "--max-tokens: not in directory mode" in proc.stderr
    proc = run(["normalize", str(tmp_path / "in"), "-o", str(tmp_path / "o"), "--jobs", "0"])
    assert proc.returncode == 2 and "--jobs must be an int >= 1" in proc.stderr
    f = tmp_path / "one.jsonl"
    f.write_text("")
    proc = run(["normalize", str(f), "--jobs", "2"])
    assert proc.returncode == 2 and "take a directory" in proc.stderr


@pytest.mark.parametrize("engine", ["ray", "daft"])
def test_engines_write_what_the_local_run_writes(engine: str, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    pytest.importorskip(engine, reason=f"{engine} is not installed for this Python")
    root = tmp_path / "in"
    write_tree(root, histories(40))
    sessions = sessions_of(root)
    local, remote = tmp_path / "local", tmp_path / engine
    assert run(["normalize", str(root), "-o", str(local), "--jobs", "2"]).returncode == 0
    # Ray's files in a short directory of their own: its socket paths (under
    # RAY_TMPDIR/ray/session_<time>/sockets/) must fit in 107 bytes, which a
    # pytest directory under pytest-xdist does not leave room for
    ray_dir = Path(tempfile.mkdtemp(prefix="ray-"))
    env = {"RAY_TMPDIR": str(ray_dir), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    try:
        cmd = ["normalize", str(root), "-o", str(remote), "--engine", engine, "-j", "2"]
        proc = run(cmd, **env)
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(sessions)} sessions, {len(sessions)} written" in proc.stderr
    for rel in sessions:
        target = Path(rel).with_suffix(".json")
        assert (remote / target).read_bytes() == (local / target).read_bytes(), rel
