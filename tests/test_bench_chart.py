"""The benchmark table in docs/benchmarks.md and the chart drawn from it
(tests/support/bench_chart.py, used by benches/report.py --write-docs and --chart)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import bench_chart

TABLE = """\
| Measure | Ours | Peer / limit | Ratio | Target | Result |
|---|---|---|---|---|---|
| a cost that meets its limit | 1 ms | 4 ms | 0.25× | ≤ 0.5× | PASS |
| a cost over its limit | 4 ms | 1 ms | 4.00× | ≤ 2× | MISS |
| a speed-up | 1 ms | 20 ms | 20.00× | ≥ 10× faster | PASS |
| a throughput | 5 ms | — | 5.00 GB/s | ≥ 1 GB/s | PASS |
| scaling | 10k: 1 ns | control | 0.95× (1.02 × control) | ≤ 1.2 × control (≤ 1.12×) | PASS |
| information | 1 ms | 2 ms | 2.00× | — | info |
| a pipe \\| in a cell | 1 ms | 2 ms | 0.50× | ≤ 1× | PASS |
"""


def test_each_row_with_a_target_is_a_bar_scored_against_it() -> None:
    bars = bench_chart.bars(TABLE)
    scores = {b.measure: round(b.score, 3) for b in bars}
    assert scores == {
        "a cost that meets its limit": 0.5,
        "a cost over its limit": 2.0,
        "a speed-up": 0.5,
        "a throughput": 0.2,
        "scaling": round(0.95 / 1.12, 3),
        "a pipe | in a cell": 0.5,
    }
    assert [b.result for b in bars].count("MISS") == 1


def test_the_svg_draws_every_bar_and_the_target_line() -> None:
    drawn = bench_chart.svg(bench_chart.bars(TABLE))
    assert drawn.startswith("<svg ") and drawn.rstrip().endswith("</svg>")
    assert drawn.count("<rect ") == 1 + 6  # the background, one bar per row with a target
    assert "5 of 6 met" in drawn and "a pipe | in a cell" in drawn
    assert drawn.count('fill="#c62828"><title>') == 1  # the one MISS bar is red
    with pytest.raises(ValueError, match="no row"):
        bench_chart.svg([])


def test_the_table_is_written_between_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "bench.md"
    page.write_text(f"# B\n\nbefore\n\n{bench_chart.START}\nold\n{bench_chart.END}\n\nafter\n")
    bench_chart.write_table("new table\n", page)
    assert page.read_text() == (
        f"# B\n\nbefore\n\n{bench_chart.START}\nnew table\n{bench_chart.END}\n\nafter\n"
    )
    page.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        bench_chart.write_table("x", page)


def test_the_committed_chart_is_drawn_from_the_committed_table(tmp_path: Path) -> None:
    if not bench_chart.PAGE.exists() or not bench_chart.CHART.exists():
        pytest.skip("docs/ is not beside the tests")
    redrawn = bench_chart.draw(bench_chart.PAGE, tmp_path / "chart.svg")
    assert redrawn.read_text(encoding="utf-8") == bench_chart.CHART.read_text(encoding="utf-8")
