"""session_usage and ``msgnorm usage``: exact per-request usage against a plain
Python oracle (json.loads per line), claude-code-log's totals, and the cost."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Iterator
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from msgnorm.cli import main
from msgnorm.usage import usage_files
from support import external
from support.usage_sessions import COUNTS, entries, exact, total, write_project

CORPUS = external.CORPUS
needs_corpus = pytest.mark.skipif(CORPUS is None, reason="MSGNORM_CORPUS is not set")


def fields(u: msgnorm.Usage) -> dict[str, Any]:
    d = {k: getattr(u, k) for k in COUNTS}
    d["requests"] = u.requests
    d["server_tool_use"] = u.server_tool_use
    return d


@pytest.fixture(params=[1, 2, 3, 4])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, list[Path]]]:
    files = write_project(tmp_path, seed=request.param, sessions=8)
    yield tmp_path, files


def quiet(f: Any, *a: Any, **k: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def test_directory_total_is_the_exact_sum_once_across_files(
    project: tuple[Path, list[Path]],
) -> None:
    root, files = project
    u = quiet(msgnorm.session_usage, root, prices=False)
    expect = exact(sorted(files))
    assert fields(u) == total(expect)
    assert u.requests > 0 and u.cost is None
    # per model and the subagents' share
    for model in {e["model"] for e in expect}:
        assert fields(u.models[model]) == total([e for e in expect if e["model"] == model])
    assert u.subagents is not None
    assert fields(u.subagents) == total([e for e in expect if e["sidechain"]])
    assert "<synthetic>" not in u.models


def test_each_file_is_its_own_exact_sum(project: tuple[Path, list[Path]]) -> None:
    _root, files = project
    for f in files:
        if f.name.startswith("agent-"):
            continue
        got = quiet(msgnorm.session_usage, f, prices=False)
        # a session file brings its subagent files
        assert fields(got) == total(exact(usage_files(f)))


def test_replays_are_counted_once_and_the_last_record_wins(tmp_path: Path) -> None:
    # seeds with a resumed session: a per-file sum counts the replayed requests twice
    for seed in range(1, 30):
        root = tmp_path / str(seed)
        files = write_project(root, seed=seed, sessions=4)
        per_file = sum(total(exact([f]))["cache_read_input_tokens"] for f in files)
        once = total(exact(files))["cache_read_input_tokens"]
        if per_file > once:
            u = quiet(msgnorm.session_usage, root, prices=False)
            assert u.cache_read_input_tokens == once < per_file
            break
    else:
        pytest.fail("no generated project replayed a request")
    # the first record of each stream undercounts the output
    first: dict[Any, int] = {}
    for f in files:
        for e in entries(f, False)[0]:
            if e["id"] is not None and e["model"] != "<synthetic>":
                first.setdefault((e["id"], e["request"]), e["output_tokens"])
    assert u.output_tokens > sum(first.values())


def test_by_groups_partition_the_total(project: tuple[Path, list[Path]]) -> None:
    root, files = project
    u = quiet(msgnorm.session_usage, root, prices=False)
    expect = exact(sorted(files))
    for by, key in (("session", "session"), ("model", "model"), ("project", "cwd")):
        groups = quiet(msgnorm.session_usage, root, by=by, prices=False)
        assert set(groups) == {e[key] for e in expect}
        for k, g in groups.items():
            assert fields(g) == total([e for e in expect if e[key] == k])
        assert sum(g.requests for g in groups.values()) == u.requests


def test_by_day_in_utc_and_in_the_local_zone(
    project: tuple[Path, list[Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, files = project
    expect = exact(sorted(files))
    days = quiet(msgnorm.session_usage, root, by="day", utc=True, prices=False)
    assert set(days) == {e["timestamp"][:10] for e in expect}
    for d, g in days.items():
        assert fields(g) == total([e for e in expect if e["timestamp"][:10] == d])
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # +05:30: minutes matter
    time.tzset()
    try:
        local = quiet(msgnorm.session_usage, root, by="day", prices=False)

        def day(ts: str) -> str:
            t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
            return t.astimezone().date().isoformat()

        assert set(local) == {day(e["timestamp"]) for e in expect}
        for d, g in local.items():
            assert fields(g) == total([e for e in expect if day(e["timestamp"]) == d])
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_since_and_until(project: tuple[Path, list[Path]]) -> None:
    root, files = project
    expect = exact(sorted(files))
    u = quiet(
        msgnorm.session_usage, root, since="2026-01-02", until="2026-01-02", utc=True, prices=False
    )
    want = [e for e in expect if e["timestamp"][:10] == "2026-01-02"]
    assert fields(u) == total(want)
    # files last modified before --since are not read
    old = datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp()
    for f in files:
        os.utime(f, (old, old))
    assert quiet(msgnorm.session_usage, root, since="2025-06-01", prices=False).requests == 0
    assert quiet(msgnorm.session_usage, root, since="2024-06-01", prices=False).requests == len(
        expect
    )


def test_unreadable_lines_are_counted(tmp_path: Path) -> None:
    for seed in range(1, 40):
        files = write_project(tmp_path / str(seed), seed=seed, sessions=3)
        bad = sum(entries(f, False)[1] for f in files)
        if bad:
            break
    with pytest.warns(UserWarning, match=f"{bad} line"):
        msgnorm.session_usage(tmp_path / str(seed), prices=False)


def test_a_negative_count_is_skipped_not_summed(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    good = {
        "type": "assistant",
        "requestId": "r",
        "message": {"id": "m", "model": "x", "usage": {"input_tokens": 5, "output_tokens": 2}},
    }
    bad = {
        "type": "assistant",
        "requestId": "r2",
        "message": {"id": "m2", "model": "x", "usage": {"input_tokens": -5}},
    }
    f.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.warns(UserWarning, match="1 line"):
        u = msgnorm.session_usage(f, prices=False)
    assert (u.requests, u.input_tokens, u.output_tokens) == (1, 5, 2)


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(msgnorm.MsgnormError):
        msgnorm.session_usage(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="by must be"):
        msgnorm.session_usage(tmp_path, by="week")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="ISO date"):
        msgnorm.session_usage(tmp_path, since="yesterday")


def test_cost_from_a_table_splits_cache_writes(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    rec = {
        "type": "assistant",
        "requestId": "r",
        "message": {
            "id": "m",
            "model": "mine",
            "usage": {
                "input_tokens": 1_000_000,
                "output_tokens": 2_000_000,
                "cache_creation_input_tokens": 4_000_000,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 1_000_000,
                    "ephemeral_1h_input_tokens": 2_000_000,
                },
                "cache_read_input_tokens": 10_000_000,
                "server_tool_use": {"web_search_requests": 3},
            },
        },
    }
    other = json.loads(json.dumps(rec))
    other["requestId"] = "r2"
    other["message"]["model"] = "unknown-model"
    f.write_text(json.dumps(rec) + "\n" + json.dumps(other) + "\n")
    table = {
        "mine": {
            "input": 3,
            "output": 15,
            "cache_write_5m": 3.75,
            "cache_write_1h": 6,
            "cache_read": 0.3,
            "web_search": 0.01,
        }
    }
    u = msgnorm.session_usage(f, prices=table)
    # 1M unsplit cache writes are priced as 5-minute writes
    want = 3 + 2 * 15 + (1 + 1) * 3.75 + 2 * 6 + 10 * 0.3 + 3 * 0.01
    assert u.models["mine"].cost == pytest.approx(want)
    assert u.cost == pytest.approx(want)
    assert u.unpriced == ["unknown-model"]
    assert u.models["unknown-model"].cost is None
    star = msgnorm.session_usage(f, prices={"*": table["mine"]})
    assert star.cost == pytest.approx(2 * want) and star.unpriced == []


def test_cost_from_genai_prices(tmp_path: Path) -> None:
    genai_prices = pytest.importorskip("genai_prices")
    files = write_project(tmp_path, seed=7, sessions=4)
    u = quiet(msgnorm.session_usage, tmp_path)
    assert u.cost is not None and u.unpriced == []
    expect = exact(files)
    want = Decimal(0)
    for model in {e["model"] for e in expect}:
        t = total([e for e in expect if e["model"] == model])
        calc = genai_prices.calc_price(
            genai_prices.Usage(
                input_tokens=t["input_tokens"]
                + t["cache_creation_input_tokens"]
                + t["cache_read_input_tokens"],
                output_tokens=t["output_tokens"],
                cache_write_tokens=t["cache_creation_input_tokens"],
                cache_write_1h_tokens=t["cache_creation_1h_input_tokens"],
                cache_read_tokens=t["cache_read_input_tokens"],
                web_searches=t["server_tool_use"].get("web_search_requests", 0),
            ),
            model,
            provider_id="anthropic",
        )
        assert u.models[model].cost == pytest.approx(float(calc.total_price))
        want += calc.total_price
    assert u.cost == pytest.approx(float(want))
    # 1-hour writes cost more than 5-minute ones
    assert any(e["cache_creation_1h_input_tokens"] for e in expect)
    flat = {m: {"input": 0, "output": 0, "cache_write_5m": 1, "cache_read": 0} for m in u.models}
    assert quiet(msgnorm.session_usage, tmp_path, prices=flat).cost == pytest.approx(
        u.cache_creation_input_tokens / 1e6
    )


@needs_corpus
def test_real_sessions_equal_the_exact_sum() -> None:
    files = usage_files(CORPUS)
    assert len(files) >= 10
    for f in files:
        got = quiet(msgnorm.session_usage, [f], prices=False)
        if f.name.startswith("agent-") or "subagents" in f.parts:
            assert fields(got) == total(exact([f]))
        else:
            assert fields(got) == total(exact(usage_files(f)))
    assert fields(quiet(msgnorm.session_usage, CORPUS, prices=False)) == total(exact(files))


def test_claude_code_log_agrees_on_input_and_cache_and_undercounts_output(tmp_path: Path) -> None:
    converter = pytest.importorskip("claude_code_log.converter")
    files = write_project(tmp_path, seed=11, sessions=6, idless=0.0)
    messages: list[Any] = []
    for f in files:  # claude-code-log reads subagent files when it is given them
        messages += converter.load_transcript(f, silent=True)
    theirs = converter.compute_project_aggregates(messages)
    ours = quiet(msgnorm.session_usage, tmp_path, prices=False)
    # claude-code-log keys by requestId and keeps a request's first record. The
    # first record of a stream has the same input and cache counts as the last:
    # those totals agree.
    seen: set[Any] = set()
    first_out = 0
    for f in files:
        for e in entries(f, False)[0]:
            if e["request"] not in seen:
                seen.add(e["request"])
                first_out += e["output_tokens"]
    assert theirs["total_input_tokens"] == ours.input_tokens == total(exact(files))["input_tokens"]
    assert theirs["total_cache_creation_tokens"] == ours.cache_creation_input_tokens
    assert theirs["total_cache_read_tokens"] == ours.cache_read_input_tokens
    # ... but the output of the first record is only the stream's start
    assert theirs["total_output_tokens"] == first_out < ours.output_tokens


# --- the command ------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_totals_and_groups(
    project: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, files = project
    code, out, _err = run(["usage", str(root), "--json", "--by", "session", "--no-cost"], capsys)
    assert code == 0
    doc = json.loads(out)
    expect = exact(sorted(files))
    want = total(expect)
    assert {k: doc["total"][k] for k in want} == want
    assert doc["total"]["cost"] is None
    assert set(doc["groups"]) == {e["session"] for e in expect}
    assert sum(g["requests"] for g in doc["groups"].values()) == want["requests"]
    assert doc["total"]["subagents"]["requests"] == len([e for e in expect if e["sidechain"]])


def test_cli_table(project: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]) -> None:
    root, files = project
    code, out, _err = run(["usage", str(root), "--by", "model", "--no-cost"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "requests",
        "input",
        "output",
        "cache",
        "write",
        "cache",
        "read",
        "cost",
    ]
    want = total(exact(sorted(files)))
    total_line = next(line for line in lines if line.startswith("total"))
    cells = total_line.split()
    assert cells[1:5] == [
        f"{want['requests']:,}",
        f"{want['input_tokens']:,}",
        f"{want['output_tokens']:,}",
        f"{want['cache_creation_input_tokens']:,}",
    ]
    if want["cache_creation_1h_input_tokens"]:
        assert f"({want['cache_creation_1h_input_tokens']:,} 1h)" in total_line
    assert f"{want['cache_read_input_tokens']:,}" in total_line


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(["usage", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "no session file" in err
    code, _out, err = run(["usage", str(tmp_path), "--since", "soon"], capsys)
    assert code == 2 and "ISO date" in err


# --- the per-file cache -----------------------------------------------------


def test_cache_gives_the_same_usage_and_reads_only_changed_files(
    project: tuple[Path, list[Path]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root, files = project
    cache = tmp_path_factory.mktemp("cache")
    plain = quiet(msgnorm.session_usage, root, by="session", prices=False)
    first = quiet(msgnorm.session_usage, root, by="session", prices=False, cache=cache)
    again = quiet(msgnorm.session_usage, root, by="session", prices=False, cache=cache)
    assert first == again == plain
    assert quiet(msgnorm.session_usage, root, prices=False, cache=cache) == quiet(
        msgnorm.session_usage, root, prices=False
    )
    # a file rewritten with the same size and mtime is not read again ...
    before = total(exact(files))
    victim = next(f for f in files if b'"output_tokens": 1' in f.read_bytes())
    st = victim.stat()
    victim.write_bytes(victim.read_bytes().replace(b'"output_tokens": 1', b'"output_tokens": 2'))
    assert victim.stat().st_size == st.st_size
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = total(exact(files))
    assert after["output_tokens"] > before["output_tokens"]
    cached = quiet(msgnorm.session_usage, root, prices=False, cache=cache)
    assert fields(cached) == before
    # ... and is once its mtime changes
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    fresh = quiet(msgnorm.session_usage, root, prices=False, cache=cache)
    assert fields(fresh) == after
    assert fresh == quiet(msgnorm.session_usage, root, prices=False)


def test_cache_keeps_the_skipped_line_count(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text('{"type":"assistant","message":{"usage": broken\n')
    for _ in range(2):
        with pytest.warns(UserWarning, match="1 line"):
            msgnorm.session_usage(f, prices=False, cache=tmp_path / "c")


def test_cli_cache(project: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]) -> None:
    root, files = project
    cache = root.parent / (root.name + "-cache")
    outs = []
    for _ in range(2):
        assert main(["usage", str(root), "--json", "--no-cost", "--cache", str(cache)]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1]
    want = total(exact(sorted(files)))
    assert {k: outs[1]["total"][k] for k in want} == want
    assert (cache / "index.json").is_file()


def test_a_home_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = write_project(tmp_path / "home", seed=2, sessions=2)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    u = quiet(msgnorm.session_usage, "~", prices=False, cache="~/cache")
    assert fields(u) == total(exact(files))
    assert (tmp_path / "home" / "cache" / "index.json").is_file()
    assert len(msgnorm.list_sessions("~/-home-user-proj")) == 2
