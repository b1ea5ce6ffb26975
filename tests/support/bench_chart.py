"""The benchmark report's table in the documentation, and a chart of its ratios.

``benches/report.py --write-docs`` puts the Markdown it printed between the
``<!-- bench-table -->`` markers of ``docs/benchmarks.md`` and redraws
``docs/assets/bench-ratios.svg`` from that table; ``--chart`` only redraws the
chart. The chart is plain SVG written here (no plotting library): one bar per row
with a target, its length the ratio measured against the target, so every bar
left of the target line met it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
CHART = ROOT / "docs" / "assets" / "bench-ratios.svg"
START, END = "<!-- bench-table -->", "<!-- /bench-table -->"

_NUMBER = r"(\d+(?:\.\d+)?)"


@dataclass(frozen=True)
class Bar:
    measure: str
    ratio: str  # as the table writes it
    target: str
    result: str
    #: measured / target for a cost (lower is better), target / measured for a
    #: speed-up or a throughput: at most 1 when the target is met
    score: float


def _first_number(text: str) -> float | None:
    m = re.search(_NUMBER, text)
    return float(m.group(1)) if m else None


def bar_of(measure: str, ratio: str, target: str, result: str) -> Bar | None:
    """The bar of one table row, or None for a row without a numeric target."""
    if result not in ("PASS", "MISS"):
        return None
    # a scaling row's target reads "≤ 1.2 × control (≤ 1.12×)": the bracket is the bound
    inner = re.search(r"\(([≤≥][^)]*)\)", target)
    bound_text = inner.group(1) if inner else target
    bound = _first_number(bound_text)
    measured = _first_number(ratio)
    if bound is None or measured is None or bound <= 0 or measured <= 0:
        return None
    at_most = bound_text.lstrip().startswith("≤")
    score = measured / bound if at_most else bound / measured
    return Bar(measure, ratio, target, result, score)


def table_rows(markdown: str) -> list[list[str]]:
    """The cells of every row of the first report table in ``markdown``."""
    rows: list[list[str]] = []
    for line in markdown.splitlines():
        if not line.startswith("| ") or line.startswith("| Measure |"):
            if rows:
                break
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 6:
            rows.append(cells)
    return rows


def bars(markdown: str) -> list[Bar]:
    out = []
    for measure, _ours, _peer, ratio, target, result in table_rows(markdown):
        bar = bar_of(measure, ratio, target, result)
        if bar is not None:
            out.append(bar)
    return out


def svg(items: list[Bar], *, width: int = 960) -> str:
    """A horizontal bar chart of ``items``' scores on a log scale, the target at 1."""
    if not items:
        raise ValueError("no row of the table has a numeric target to draw")
    label_w, right = 470, 150
    row_h, top = 24, 56
    plot_w = width - label_w - right
    lo, hi = 1 / 32, 4.0  # scores drawn on log2 from 1/32 to 4; beyond: clipped
    height = top + row_h * len(items) + 40

    def x(score: float) -> float:
        s = min(max(score, lo), hi)
        return label_w + plot_w * (math.log2(s) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))

    n_pass = sum(b.result == "PASS" for b in items)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="10" y="20" font-size="15" font-weight="bold">Ratios against their targets: '
        f"{n_pass} of {len(items)} met</text>",
        '<text x="10" y="38" fill="#555">measured / target for a cost, target / measured for '
        "a speed-up; left of the line: met (log scale)</text>",
    ]
    for tick in (1 / 16, 1 / 4, 1, 4):
        tx = x(tick)
        label = f"1/{round(1 / tick)}" if tick < 1 else f"{tick:g}"
        parts.append(
            f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{height - 34}" '
            f'stroke="{"#222" if tick == 1 else "#ddd"}" stroke-width="{2 if tick == 1 else 1}"/>'
        )
        parts.append(
            f'<text x="{tx:.1f}" y="{height - 18}" text-anchor="middle" fill="#555">{label}</text>'
        )
    for i, b in enumerate(items):
        y = top + i * row_h
        colour = "#2e7d32" if b.result == "PASS" else "#c62828"
        measure = b.measure if len(b.measure) <= 72 else b.measure[:71] + "…"
        x0, x1 = x(lo), x(b.score)
        parts += [
            f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{escape(measure)}</text>',
            f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1):.1f}" height="{row_h - 8}" '
            f'fill="{colour}"><title>{escape(b.measure)}: {escape(b.ratio)}, target '
            f"{escape(b.target)}</title></rect>",
            f'<text x="{width - right + 8}" y="{y + 15}" fill="{colour}">'
            f"{escape(b.result)} {escape(b.ratio.split(' ')[0])}</text>",
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_table(text: str, page: Path = PAGE) -> None:
    """``text`` between the markers of ``page`` (everything between them replaced)."""
    body = page.read_text(encoding="utf-8")
    if START not in body or END not in body:
        raise ValueError(f"{page}: no {START} ... {END} markers to write the table between")
    head, rest = body.split(START, 1)
    _, tail = rest.split(END, 1)
    page.write_text(f"{head}{START}\n{text.strip()}\n{END}{tail}", encoding="utf-8")


def draw(page: Path = PAGE, chart: Path = CHART) -> Path:
    """Redraw ``chart`` from the table between the markers of ``page``."""
    body = page.read_text(encoding="utf-8")
    table = body.split(START, 1)[-1].split(END, 1)[0]
    chart.parent.mkdir(parents=True, exist_ok=True)
    chart.write_text(svg(bars(table)), encoding="utf-8")
    return chart
