"""The ``msgnorm`` command (normalize, threads, split, count) on the bundled example and bad input."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from msgnorm.cli import main
from support.cli import run_cli as run
from support.cli import start_cli
from support.helpers import user

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "session.jsonl"


@pytest.fixture(scope="module")
def example() -> bytes:
    if not EXAMPLE.exists():
        pytest.skip(f"{EXAMPLE} is not beside the tests (testing an installed wheel elsewhere)")
    return EXAMPLE.read_bytes()


def main_thread(data: bytes) -> bytes:
    records: bytes = msgnorm.load_session(data, kind="bytes").records
    return records


def test_normalize_writes_what_the_api_accepts(example: bytes) -> None:
    proc = run(["normalize", str(EXAMPLE)])
    assert proc.returncode == 0, proc.stderr
    # piped: compact JSON on one line, nothing on stderr
    assert proc.stdout.count(b"\n") == 1 and proc.stderr == b""
    out = json.loads(proc.stdout)
    # §8: the session's main thread (the API-error retry is a fork it leaves out)
    assert out == json.loads(msgnorm.normalize_for_api(main_thread(example)))
    assert out != json.loads(msgnorm.normalize_for_api(example))
    assert out[0]["type"] == "user"
    # --report: what was chosen and what changed, as one JSON object on stderr
    proc = run(["normalize", "--report", str(EXAMPLE)])
    assert json.loads(proc.stdout) == out
    report = json.loads(proc.stderr)
    assert report["session"].startswith("thread main (main, leaf ")
    assert "9 record(s) of 14" in report["session"] and "nothing skipped" in report["session"]
    assert (report["records_in"], report["records_out"], report["cleared"]) == (9, 4, None)
    expected = msgnorm.normalize_for_api_report(main_thread(example))[1]
    assert report["repairs"] == expected and report["repairs"]["missing_results_inserted"] == 1


def test_normalize_flat_is_the_whole_file(example: bytes) -> None:
    proc = run(["normalize", "--flat", str(EXAMPLE)])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(msgnorm.normalize_for_api(example))
    report = json.loads(run(["normalize", "--flat", "--report", str(EXAMPLE)]).stderr)
    assert (report["records_in"], report["records_out"], report["session"]) == (14, 4, None)


def test_normalize_skips_broken_lines_by_default_and_says_so(tmp_path: Path) -> None:
    good = b'{"type": "user", "uuid": "u", "message": {"role": "user", "content": "x"}}'
    path = tmp_path / "s.jsonl"
    path.write_bytes(good + b"\n{oops\n")
    proc = run(["normalize", "--report", str(path)])
    assert proc.returncode == 0, proc.stderr
    assert [r["uuid"] for r in json.loads(proc.stdout)] == ["u"]
    assert "skipped 1 broken line(s) (2)" in json.loads(proc.stderr)["session"]
    proc = run(["normalize", "--errors", "raise", str(path)])
    assert proc.returncode == 2
    err = proc.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "line 2" in err[0] and str(path) in err[0]


def test_thread_full_history_and_threads_listing(tmp_path: Path) -> None:
    def rec(kind: str, uuid: str, parent: str | None, text: str, **kw: Any) -> dict[str, Any]:
        msg = {"role": kind, "content": text}
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": msg, **kw}

    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": "c",
        "parentUuid": None,
        "logicalParentUuid": "a1",
    }
    history = [
        rec("user", "u1", None, "first prompt"),
        rec("assistant", "a1", "u1", "first answer"),
        boundary,
        rec("user", "s", "c", "the summary", isCompactSummary=True),
        rec("assistant", "a2", "s", "after"),
        rec("user", "x1", None, "side task", isSidechain=True, agentId="ag1"),
        rec("assistant", "x2", "x1", "side answer", isSidechain=True, agentId="ag1"),
    ]
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in history))
    proc = run(["normalize", "--report", str(path)])
    assert [r["uuid"] for r in json.loads(proc.stdout)] == ["s", "a2"]
    assert (
        "started after the last of 1 compaction(s) (2 earlier record(s) left out)"
        in (json.loads(proc.stderr)["session"])
    )
    proc = run(["normalize", "--full-history", str(path)])
    assert [r["uuid"] for r in json.loads(proc.stdout)] == ["u1", "a1", "s", "a2"]
    proc = run(["normalize", "--thread", "ag1", str(path)])
    assert [r["uuid"] for r in json.loads(proc.stdout)] == ["x1", "x2"]
    proc = run(["threads", str(path)])
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.decode().splitlines()
    assert rows[0].split() == ["id", "kind", "records", "last", "timestamp", "first", "prompt"]
    assert rows[1].split()[:3] == ["main", "main", "3"] and rows[1].endswith("first prompt")
    assert rows[2].split()[:3] == ["ag1", "agent", "2"] and rows[2].endswith("side task")
    proc = run(["normalize", "--thread", "nope", str(path)])
    assert proc.returncode == 2 and b'no thread "nope"' in proc.stderr


def test_progress_bar_on_request(example: bytes) -> None:
    pytest.importorskip("tqdm", reason="the progress bar comes with the [cli] extra")
    proc = run(["normalize", "--progress", str(EXAMPLE)])
    assert proc.returncode == 0
    err = proc.stderr.decode()
    assert "reading: 100%" in err and f"{len(example) / 1000:.2f}k" in err
    assert "reading" not in run(["normalize", "--no-progress", str(EXAMPLE)]).stderr.decode()


def test_normalize_options(example: bytes, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    proc = run(
        ["normalize", "-", "--flat", "--format", "anthropic", "--short-ids", "-o", str(target)],
        example,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(target.read_text())
    assert out == json.loads(
        msgnorm.to_anthropic(msgnorm.normalize_for_api(example, short_ids=True))
    )
    assert set(out[0]) == {"role", "content"}
    assert "[id:" in json.dumps(out[0])


def test_normalize_with_a_token_budget(tmp_path: Path) -> None:
    def rec(kind: str, uuid: str, text: str) -> dict[str, Any]:
        return {"type": kind, "uuid": uuid, "message": {"role": kind, "content": text}}

    history = [
        rec("user", "u0", "system rules"),
        rec("assistant", "a0", "ok"),
        rec("user", "u1", "x" * 400),
        rec("assistant", "a1", "y" * 400),
        rec("user", "u2", "short question"),
        rec("assistant", "a2", "short answer"),
    ]
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in history))
    proc = run(["normalize", str(path), "--max-tokens", "40", "--pin", "2"])
    assert proc.returncode == 0, proc.stderr
    out: list[Any] = json.loads(proc.stdout)
    assert [r["uuid"] for r in out] == ["u0", "a0", "u2", "a2"]
    assert out == msgnorm.trim_to_budget(msgnorm.normalize_for_api(history), 40, pin=2)
    assert msgnorm.count_tokens(out) <= 40


def test_strict_reports_the_pairing_problem(example: bytes) -> None:
    proc = run(["normalize", str(EXAMPLE), "--strict"])
    assert proc.returncode == 2
    err = proc.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "records[" in err[0] and "toolu_02" in err[0]


def test_split(example: bytes) -> None:
    proc = run(["split", str(EXAMPLE)])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(msgnorm.normalize_messages(example))


def test_count(example: bytes) -> None:
    proc = run(["count", str(EXAMPLE), "--top", "2"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == f"total: {msgnorm.count_tokens(example)} tokens in 14 records"
    # SPEC §6.1: the next request's prompt
    assert lines[1].startswith(f"next prompt: {msgnorm.prompt_tokens(example)} tokens ")
    assert any(line.strip().startswith("user:") for line in lines)
    assert lines.count("biggest 2 records:") == 1


def test_count_prompt_anchored(tmp_path: Path) -> None:
    # SPEC §6.1: the reported prompt + the reply + the estimate of what follows
    recs = [
        user("u1", "hi"),
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "msg_1",
                "model": "claude-test",
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
                "usage": {"input_tokens": 5000, "output_tokens": 20},
            },
        },
        user("u2", "abcdefgh"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(json.dumps(r).encode() for r in recs))
    proc = run(["count", "--tokenizer", "chars", str(path)])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[1].startswith(f"next prompt: {5000 + 20 + 2 + 3} tokens ")
    # the default: the family of the records' model, higher than SPEC §6's formula
    auto = run(["count", str(path)]).stdout.decode().splitlines()
    assert (
        auto[1]
        == run(["count", "--tokenizer", "claude", str(path)]).stdout.decode().splitlines()[1]
    )
    assert int(auto[0].split()[1]) > int(lines[0].split()[1])


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            b'{"type": "user", "uuid": "u", "message": {"role": "user", "content": "x"}}\n{oops\n',
            "line 2",
        ),
        (b'{"type": "user", "uuid": "u", "message": "x"}\n', "records[0].message"),
        (b"", "empty input"),
    ],
)
def test_bad_input_exits_2_with_one_line(data: bytes, needle: str) -> None:
    for command in (["normalize", "--flat"], ["split"], ["count"]):
        proc = run([*command, "-"], data)
        assert proc.returncode == 2, (command, proc.stdout)
        err = proc.stderr.decode().strip().splitlines()
        assert len(err) == 1 and needle in err[0], (command, err)


def test_missing_file_exits_2(tmp_path: Path) -> None:
    assert main(["normalize", str(tmp_path / "nope.jsonl")]) == 2


def test_help() -> None:
    proc = run(["--help"])
    assert proc.returncode == 0
    assert b"normalize" in proc.stdout and b"split" in proc.stdout and b"count" in proc.stdout


def test_follow_tails_a_growing_session(tmp_path: Path, example: bytes) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(example)
    args = ["follow", str(path), "--interval", "0.05", "--idle-exit", "3"]
    proc = start_cli(args)
    assert proc.stdout is not None
    start = proc.stdout.readline().decode()
    assert start.startswith("start: +9 records; 4 out")
    history = msgnorm.load_session(example).records
    for i in range(3):
        turn = [
            {"type": "user", "uuid": f"x{i}", "message": {"role": "user", "content": f"q{i}"}},
            {
                "type": "assistant",
                "uuid": f"y{i}",
                "message": {"role": "assistant", "id": f"m{i}", "content": "a "},
            },
        ]
        history += turn
        with path.open("a") as f:
            # a line written in two parts waits for its newline
            first = json.dumps(turn[0])
            f.write(first[:10])
            f.flush()
            time.sleep(0.2)
            f.write(first[10:] + "\n" + json.dumps(turn[1]) + "\n")
        line = proc.stdout.readline().decode()
        out = msgnorm.normalize_for_api(history)
        tokens = msgnorm.count_tokens(out)
        assert line.startswith(f"update: +2 records; {len(out)} out ("), line
        assert f"{tokens} tokens" in line
    with path.open("a") as f:
        f.write('{"broken\n')
    assert "1 broken line(s) skipped" in proc.stdout.readline().decode()
    assert proc.wait(timeout=30) == 0


def _tool_history(path: Path, n: int) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [user("u", "go")]
    for i in range(n):
        recs.append(
            {
                "type": "assistant",
                "uuid": f"a{i}",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t" * 40, "signature": "s"},
                        {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"p": i}},
                    ],
                },
            }
        )
        recs.append(
            {
                "type": "user",
                "uuid": f"r{i}",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"t{i}", "content": "o" * 200}
                    ],
                },
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return recs


def test_normalize_clear_tool_results_and_thinking(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = _tool_history(path, 6)
    proc = run(
        ["normalize", str(path), "--flat", "--report", "--clear-tool-results", "--clear-thinking=0"]
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    norm = msgnorm.normalize_for_api(history)
    expect, r1 = msgnorm.clear_tool_results_report(norm, trigger=None, keep=3)
    expect, r2 = msgnorm.clear_thinking_report(expect, keep_turns=0)
    assert out == expect and r1["results_cleared"] == 3 and r2["thinking_cleared"] == 5
    saved = r1["tokens_saved"] + r2["tokens_saved"]
    report = json.loads(proc.stderr)
    assert (report["records_in"], report["records_out"]) == (13, 13)
    assert not any(report["repairs"].values())
    assert report["cleared"] == {"results_cleared": 3, "thinking_cleared": 5, "tokens_saved": saved}
    # KEEP given: the last 5 tool uses keep their results
    proc = run(["normalize", str(path), "--flat", "--report", "--clear-tool-results=5"])
    assert json.loads(proc.stderr)["cleared"]["results_cleared"] == 1
    # without the flags nothing is cleared
    proc = run(["normalize", str(path), "--flat", "--report"])
    assert json.loads(proc.stderr)["cleared"] is None
    proc = run(["normalize", str(path), "--clear-tool-results=-1"])
    assert proc.returncode == 2


def test_normalize_clearing_happens_before_the_token_budget(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = _tool_history(path, 6)
    norm = msgnorm.clear_tool_results(msgnorm.normalize_for_api(history), trigger=None, keep=0)
    budget = msgnorm.count_tokens(norm)
    proc = run(
        ["normalize", str(path), "--flat", "--clear-tool-results=0", "--max-tokens", str(budget)]
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == norm  # fits once cleared: nothing trimmed


def test_follow_with_a_context_editing_policy(tmp_path: Path) -> None:
    """`follow --clear-tool-results`: the line of the turn that crossed the trigger
    says what was cleared and from which record the prompt cache is rewritten,
    exactly as the Conversation policy does it."""
    path = tmp_path / "live.jsonl"
    history = _tool_history(path, 2)
    args = ["follow", str(path), "--interval", "0.05", "--idle-exit", "3"]
    args += ["--clear-tool-results=1", "--trigger", "400"]
    proc = start_cli(args)
    assert proc.stdout is not None
    assert "context edit" not in proc.stdout.readline().decode()
    more = _tool_history(tmp_path / "more.jsonl", 8)[1 + 2 * 2 :]
    conv = msgnorm.Conversation(history, clear_tool_results={"trigger": 400, "keep": 1})
    lines = []
    for i in range(0, len(more), 2):
        with path.open("a") as f:
            f.write("".join(json.dumps(r) + "\n" for r in more[i : i + 2]))
        conv.append(more[i : i + 2])
        conv.for_api()
        lines.append(proc.stdout.readline().decode())
    assert proc.wait(timeout=30) == 0
    fired = [ln for ln in lines if "context edit" in ln]
    assert len(fired) == len(conv.edits) >= 1
    e = conv.edits[0]
    assert (
        f"context edit: {e['results_cleared']} tool results, 0 thinking blocks cleared, "
        f"{e['tokens_saved']} tokens saved, the prompt cache rewritten from record "
        f"{e['first_changed']}"
    ) in fired[0]


def run_on_terminal(args: list[str]) -> tuple[bytes, bytes, int]:
    """``msgnorm ARGS`` with its standard output on a pseudo-terminal (as a person runs
    it), its errors piped: (what the terminal showed, stderr, exit status)."""
    import os
    import subprocess

    from support.cli import CLI

    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    proc = subprocess.Popen([*CLI, *args], stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    err = proc.stderr.read() if proc.stderr is not None else b""
    return bytes(shown).replace(b"\r\n", b"\n"), err, proc.wait(timeout=600)


def test_on_a_terminal_normalize_pretty_prints_and_says_what_it_repaired(example: bytes) -> None:
    shown, err, code = run_on_terminal(["normalize", str(EXAMPLE)])
    assert code == 0, err
    expected = json.loads(msgnorm.normalize_for_api(main_thread(example)))
    assert json.loads(shown) == expected
    assert shown.startswith(b"[\n  {\n") and shown.count(b"\n") > 20  # indented for a person
    report = msgnorm.normalize_for_api_report(main_thread(example))[1]
    fired = sorted(((n, k) for k, n in report.items() if n), key=lambda x: (-x[0], x[1]))
    assert fired and ("missing_results_inserted" in {k for _, k in fired})
    parts = ", ".join(f"{k} ×{n}" for n, k in fired)
    assert err.decode() == f"repaired: {sum(n for n, _ in fired)} ({parts})\n"
    # --quiet: the output alone; --report: the full report as JSON instead of the line
    shown, err, code = run_on_terminal(["normalize", "--quiet", str(EXAMPLE)])
    assert code == 0 and json.loads(shown) == expected and err == b""
    shown, err, code = run_on_terminal(["normalize", "--report", str(EXAMPLE)])
    assert code == 0 and json.loads(err)["repairs"] == report


def test_on_a_terminal_nothing_to_repair_says_so(tmp_path: Path) -> None:
    clean = [
        user("u", "hi"),
        {"type": "assistant", "uuid": "a", "parentUuid": "u",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}},
    ]  # fmt: skip
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in clean))
    shown, err, code = run_on_terminal(["normalize", str(path)])
    assert code == 0 and err == b"repaired: nothing\n"
    assert [r["uuid"] for r in json.loads(shown)] == ["u", "a"]
    # piped, the same file: compact JSON, silent stderr
    proc = run(["normalize", str(path)])
    assert proc.stderr == b"" and json.loads(proc.stdout) == json.loads(shown)
    assert proc.stdout.count(b"\n") == 1


def test_quiet_and_report_are_one_or_the_other() -> None:
    proc = run(["normalize", "--quiet", "--report", str(EXAMPLE)])
    assert proc.returncode == 2 and b"not allowed with argument" in proc.stderr
