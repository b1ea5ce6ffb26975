"""Measure msgnorm against its peers and limits, and print one Markdown table of ratios.

    python benches/report.py            # full: 100k records, scaling to 1M records
    python benches/report.py --quick    # 10k records, scaling to 100k (under 4 min)
    python benches/report.py --smoke    # 2k records, scaling to 20k: the harness runs (CI)
    python benches/report.py --build    # first `maturin develop --profile dist`
    python benches/report.py --write-docs   # ... and put the table into docs/benchmarks.md
    python benches/report.py --chart    # only redraw the chart of docs/benchmarks.md's table

The table is meant to measure the `dist` build (fat LTO, one codegen unit: what the
published wheels are); the header names the profile of the extension it measured
(`_native.BUILD_PROFILE`) and warns when it is another one.

Every ratio is measured in this run: the contenders of a comparison are timed
interleaved (round r calls each once, in turn) and each keeps its best call, so the
machine's load drifts alike for all of them. Memory is measured in subprocesses.
The exit status is 0 whether or not a target is met (this is a report); it is 1 only
when a measurement could not be made (a contender raised, a probe failed).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import GenericAlias
from typing import Any

# Run as a script: the shared support package (tests/support) is found as pytest
# finds it (``pythonpath`` in pyproject.toml).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import msgspec
from support import (
    bench_chart,
    claude_projects,
    fair_reference,
    generate,
    harness,
)
from support.harness import Contender, race

BENCH_DIR = Path(__file__).resolve().parent
#: the Cargo profile the documentation's table is measured on (Cargo.toml, `[profile.dist]`)
PROFILE = "dist"
#: the scaling rows' target: our per-record growth at most this many times the
#: control's (a Raw scan of the same inputs, in the same race)
GROWTH_SLACK = 1.2


@dataclass
class Row:
    measure: str
    ours: str
    peer: str
    ratio: str
    target: str
    result: str


@dataclass
class Plan:
    name: str
    size: int
    scaling: list[int]
    memory: list[int]
    rounds: int
    budget_s: float


QUICK = Plan("quick", 10_000, [10_000, 100_000], [100_000], rounds=5, budget_s=1.5)
#: every measurement once more, on small inputs: that the harness runs (its ratios are noise)
SMOKE = Plan("smoke", 2_000, [2_000, 20_000], [20_000], rounds=3, budget_s=0.3)
FULL = Plan(
    "full", 100_000, [10_000, 100_000, 1_000_000], [100_000, 1_000_000], rounds=7, budget_s=8.0
)
#: corpus scale: histories per batch (of `size // histories` records each) and the
#: session files of the directory the engines and the CLI run on
SCALE = {"smoke": (40, 40), "quick": (200, 200), "full": (1_000, 1_000)}


def frozen_inputs() -> None:
    """A collection, then what is alive (the inputs) frozen out of the collector:
    the collections the timed calls trigger do not scan the inputs."""
    gc.collect()
    gc.freeze()


def thawed() -> None:
    """The inputs given back to the collector, and collected."""
    gc.unfreeze()
    gc.collect()


def fmt_time(s: float) -> str:
    if s != s:  # nan
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1.0:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_n(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000 and n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def mem_total_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.0f} GiB"
    except OSError:
        pass
    return "?"


class Report:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.errors: list[str] = []
        self.mn = harness.load_msgnorm()
        self.mn_why = harness.msgnorm_error()
        self.ref = harness.load_reference()
        self.fair = fair_reference.load()
        self.lc = harness.load_langchain()

    # -- helpers ---------------------------------------------------------------------

    def log(self, msg: str) -> None:
        print(f"[report] {msg}", file=sys.stderr, flush=True)

    def race(self, contenders: list[Contender], *, rounds: int | None = None) -> None:
        race(
            contenders,
            rounds=rounds or self.plan.rounds,
            min_rounds=2,
            budget_s=self.plan.budget_s,
        )
        for c in contenders:
            if c.error:
                self.errors.append(f"{c.name}: {c.error}")
                self.log(f"ERROR {c.name}: {c.error}")
            else:
                self.log(f"{c.name:<40} best {fmt_time(c.best)} of {len(c.times)}")

    def skip(self, measure: str, target: str, why: str) -> None:
        self.rows.append(Row(measure, "n/a", "n/a", "n/a", target, f"SKIP ({why})"))

    def failed(self, measure: str, target: str) -> None:
        """A row whose measure could not be taken (the error is in ``errors``)."""
        self.rows.append(Row(measure, "n/a", "n/a", "n/a", target, "ERROR"))

    def without_msgnorm(self, *rows: tuple[str, str]) -> bool:
        """Whether msgnorm does not import; then each ``(measure, target)`` row is a skip."""
        if self.mn is not None:
            return False
        for measure, target in rows:
            self.skip(measure, target, f"msgnorm does not import: {self.mn_why}")
        return True

    def info_row(self, measure: str, ours: Contender | None, peer: Contender | None) -> None:
        """A speed-up against a peer (peer/ours), as information: no target."""
        self.ratio_row(measure, ours, peer, target=None, faster=True)

    def cost_row(
        self, measure: str, ours: Contender | None, limit: Contender | None, target: float | None
    ) -> None:
        """A cost against a limit: ours/limit, lower is better."""
        self.ratio_row(measure, ours, limit, target=target, faster=False)

    def ratio_row(
        self,
        measure: str,
        ours: Contender | None,
        peer: Contender | None,
        *,
        target: float | None,
        faster: bool,
        why_missing: str = "",
        info: bool = False,
    ) -> None:
        """``faster``: the ratio is peer/ours (a speed-up, higher is better); else it is
        ours/peer (a cost relative to a limit, lower is better). ``info``: the target is
        an aim shown for information, its row neither a PASS nor a MISS."""
        tgt = "—" if target is None else (f"≥ {target:g}× faster" if faster else f"≤ {target:g}×")
        if info:
            tgt += " (aim, information)"
        if ours is None or peer is None:
            self.skip(measure, tgt, why_missing or "not available")
            return
        if ours.error or peer.error:
            self.rows.append(
                Row(measure, fmt_time(ours.best), fmt_time(peer.best), "n/a", tgt, "ERROR")
            )
            return
        ratio = peer.best / ours.best if faster else ours.best / peer.best
        if target is None:
            result = "info"
        else:
            ok = ratio >= target if faster else ratio <= target
            if info:
                result = "info: met" if ok else "info: not met"
            else:
                result = "PASS" if ok else "MISS"
        self.rows.append(
            Row(measure, fmt_time(ours.best), fmt_time(peer.best), f"{ratio:.2f}×", tgt, result)
        )

    # -- the comparisons -------------------------------------------------------------

    def normalize(self) -> None:
        n = self.plan.size
        mn, ref, fair = self.mn, self.ref, self.fair
        data = generate.generate_bytes(n)
        records = generate.generate(n)
        self.notes.append(
            f"History: {n:,} generated records, {len(data) / 1e6:.1f} MB of JSON "
            f"({len(data) / n:.0f} B/record), seed 0."
        )
        raw_dec = msgspec.json.Decoder(list[msgspec.Raw])
        any_dec = msgspec.json.Decoder()
        encoder = msgspec.json.Encoder()
        # Each floor races with ours alone, interleaved: the memory the slow
        # peers allocate and free does not land between the two of a ratio.
        # The peers race with ours apart.
        floors = {
            "raw": [Contender("msgspec Raw scan", lambda: raw_dec.decode(data))],
            "encode": [Contender("msgspec encode of the input", lambda: encoder.encode(records))],
        }
        c: dict[str, Contender] = {
            "untyped": Contender("msgspec untyped decode", lambda: any_dec.decode(data)),
        }
        if mn is not None:
            c["bytes"] = Contender("ours bytes", lambda: mn.normalize_for_api(data))
            c["dicts"] = Contender("ours dicts", lambda: mn.normalize_for_api(records))
            c["nm"] = Contender(
                "ours normalize_messages dicts", lambda: mn.normalize_messages(records)
            )
            floors["raw"].append(Contender("ours bytes", lambda: mn.normalize_for_api(data)))
            floors["encode"].append(Contender("ours dicts", lambda: mn.normalize_for_api(records)))
        if ref is not None:
            c["ref"] = Contender("reference dicts", lambda: ref(records))
        if fair is not None:
            c["fair"] = Contender("fair pure-Python dicts", lambda: fair(records))
        lc_raw: list[Any] = []
        if self.lc is not None:
            from langchain_core.messages.utils import merge_message_runs

            lc_raw = harness.to_langchain(records)
            c["merge"] = Contender(
                "langchain merge_message_runs", lambda: merge_message_runs(lc_raw)
            )
        frozen_inputs()
        for name, pair in floors.items():
            self.log(f"normalize_for_api vs the {name} floor, {fmt_n(n)} records")
            self.race(pair)
        self.log(f"normalize_for_api vs the peers, {fmt_n(n)} records")
        self.race(list(c.values()))
        # the floor rows read the floor races
        floor = {"raw": floors["raw"][0], "encode": floors["encode"][0]}
        if mn is not None:
            floor["bytes"], floor["dicts"] = floors["raw"][1], floors["encode"][1]
        why = f"msgnorm does not import: {self.mn_why}"
        no_ref = why if mn is None else "tests/support/reference.py is absent"
        no_lc = why if mn is None else "langchain-core is not installed"
        Spec = tuple[str, str, str, float | None, bool, str]

        def rows(specs: list[Spec], race: dict[str, Contender] = c) -> None:
            for label, ours, peer, target, faster, missing in specs:
                self.ratio_row(
                    f"{label} ({fmt_n(n)})",
                    race.get(ours),
                    race.get(peer),
                    target=target,
                    faster=faster,
                    why_missing=missing,
                )

        rows(
            [
                ("normalize_for_api bytes vs msgspec Raw scan", "bytes", "raw", 3, False, why),
            ],
            floor,
        )
        # the next aim, on the same measurements, shown for information
        self.ratio_row(
            f"normalize_for_api bytes vs msgspec Raw scan, next aim ({fmt_n(n)})",
            floor.get("bytes"),
            floor.get("raw"),
            target=2,
            faster=False,
            why_missing=why,
            info=True,
        )
        rows(
            [
                (
                    "normalize_for_api dicts vs msgspec untyped decode of the input",
                    *("dicts", "untyped", 0.5, False, why),
                ),
            ]
        )
        rows(
            [
                (
                    "normalize_for_api dicts vs msgspec encode of the same objects (floor)",
                    *("dicts", "encode", 1.5, False, why),
                ),
            ],
            floor,
        )
        self.normalize_structs()
        rows(
            [
                (
                    "normalize_for_api dicts vs fair pure-Python baseline, no deep copies",
                    *("dicts", "fair", 10, True, no_ref),
                ),
                (
                    "normalize_for_api dicts vs deep-copying pure-Python reference",
                    *("dicts", "ref", None, True, no_ref),
                ),
                (
                    "normalize_for_api bytes vs pure-Python reference on dicts",
                    *("bytes", "ref", None, True, no_ref),
                ),
                (
                    "normalize_for_api dicts vs LangChain merge_message_runs",
                    *("dicts", "merge", None, True, no_lc),
                ),
                (
                    "normalize_messages dicts vs msgspec untyped decode",
                    *("nm", "untyped", None, False, why),
                ),
            ]
        )
        thawed()

    def validate(self) -> None:
        n = self.plan.size
        mn = self.mn
        if mn is None:
            self.skip(f"validate vs normalize_for_api ({fmt_n(n)})", "≤ 1×", "msgnorm")
            return
        data = generate.generate_bytes(n)
        records = generate.generate(n)
        c = {
            "v_dicts": Contender("ours validate dicts", lambda: mn.validate(records, "anthropic")),
            "n_dicts": Contender(
                "ours normalize_for_api dicts", lambda: mn.normalize_for_api(records)
            ),
            "v_bytes": Contender("ours validate bytes", lambda: mn.validate(data, "anthropic")),
            "n_bytes": Contender(
                "ours normalize_for_api bytes", lambda: mn.normalize_for_api(data)
            ),
        }
        self.log(f"validate, {fmt_n(n)} records")
        self.race(list(c.values()))
        for kind in ("dicts", "bytes"):
            self.cost_row(
                f"validate {kind} vs normalize_for_api {kind} ({fmt_n(n)})",
                c[f"v_{kind}"],
                c[f"n_{kind}"],
                1,
            )

    def providers(self) -> None:
        """convert() on an OpenAI Chat and an Anthropic history in and out vs
        normalize_for_api on its records."""
        n, mn = self.plan.size, self.mn
        if mn is None or not hasattr(mn, "convert"):
            for p in ("openai-chat", "anthropic"):
                measure = f"convert {p} in and out vs normalize_for_api on its records ({fmt_n(n)})"
                self.skip(measure, "≤ 1.3×", f"msgnorm does not import: {self.mn_why}")
            return
        from support.provider_history import openai_chat_history

        chat = openai_chat_history(n)
        anth = mn.convert(chat, source="openai-chat", target="anthropic")
        histories = {
            "openai-chat": (chat, None),
            "anthropic": (anth["messages"], anth.get("system")),
        }
        for p, (messages, system) in histories.items():
            measure = f"convert {p} in and out vs normalize_for_api on its records ({fmt_n(n)})"
            records = mn.from_provider(messages, p, system=system)
            c = {
                "convert": Contender(
                    f"ours convert {p}",
                    lambda m=messages, p=p, s=system: mn.convert(m, source=p, target=p, system=s),
                ),
                "normalize": Contender(
                    "ours normalize_for_api", lambda r=records: mn.normalize_for_api(r)
                ),
            }
            frozen_inputs()
            self.log(f"providers {p}, {fmt_n(n)} messages")
            self.race(list(c.values()))
            self.ratio_row(measure, c["convert"], c["normalize"], target=1.3, faster=False)
            thawed()

    def normalize_structs(self) -> None:
        n, tgt = self.plan.size, "≤ 1.5×"
        measure = f"normalize_for_api Structs vs msgspec typed decode ({fmt_n(n)})"
        if self.without_msgnorm((measure, tgt)):
            return
        mn = self.mn
        data = generate.messages_only_bytes(n)
        try:
            typed_dec = msgspec.json.Decoder(GenericAlias(list, (mn.Message,)))
            structs = mn.decode(data)
        except Exception as e:
            self.errors.append(f"Struct path setup: {type(e).__name__}: {e}")
            self.failed(measure, tgt)
            return
        frozen_inputs()
        c = {
            "structs": Contender("ours structs", lambda: mn.normalize_for_api(structs)),
            "typed": Contender("msgspec typed decode", lambda: typed_dec.decode(data)),
            "decode": Contender("ours msgnorm.decode", lambda: mn.decode(data)),
        }
        self.log(f"Struct path, {fmt_n(n)} records less entries")
        self.race(list(c.values()))
        self.cost_row(measure, c["structs"], c["typed"], 1.5)
        m_decode = f"msgnorm.decode vs msgspec typed decode ({fmt_n(n)})"
        self.cost_row(m_decode, c["decode"], c["typed"], None)
        thawed()

    def tokens(self) -> None:
        n = self.plan.size
        mn = self.mn
        t_count = t_trim = "—"
        m_count = f"count_tokens vs LangChain count_tokens_approximately ({fmt_n(n)})"
        m_trim = f"trim_to_budget vs LangChain trim_messages ({fmt_n(n)})"
        if mn is None:
            why = f"msgnorm does not import: {self.mn_why}"
            self.skip(m_count, t_count, why)
            self.skip(m_trim, t_trim, why)
            return
        if self.lc is None:
            self.skip(m_count, t_count, "langchain-core is not installed")
            self.skip(m_trim, t_trim, "langchain-core is not installed")
            return
        from langchain_core.messages.utils import count_tokens_approximately, trim_messages

        try:
            norm = mn.normalize_for_api(generate.generate(n))
            lc_norm = harness.to_langchain(norm)
            budget = mn.count_tokens(norm, tokenizer="chars") // 2
        except Exception as e:
            self.errors.append(f"token setup: {type(e).__name__}: {e}")
            self.failed(m_count, t_count)
            self.failed(m_trim, t_trim)
            return
        lc_budget = count_tokens_approximately(lc_norm) // 2
        self.notes.append(
            f"Token benchmarks: the normalized history ({len(norm):,} records; "
            f"{len(lc_norm):,} LangChain messages), trimmed to half its own count."
        )
        encoder = msgspec.json.Encoder()
        data = encoder.encode(norm)
        c = {
            # the rows that compare with earlier counts use SPEC §6's formula
            "count": Contender(
                "ours count_tokens chars", lambda: mn.count_tokens(norm, tokenizer="chars")
            ),
            "claude": Contender(
                "ours count_tokens claude", lambda: mn.count_tokens(norm, tokenizer="claude")
            ),
            "chars_bytes": Contender(
                "ours count_tokens chars bytes", lambda: mn.count_tokens(data, tokenizer="chars")
            ),
            "claude_bytes": Contender(
                "ours count_tokens claude bytes",
                lambda: mn.count_tokens(data, tokenizer="claude"),
            ),
            "encode": Contender("msgspec encode of the same objects", lambda: encoder.encode(norm)),
            "lc_count": Contender(
                "langchain count_tokens_approximately", lambda: count_tokens_approximately(lc_norm)
            ),
            "trim": Contender(
                "ours trim_to_budget",
                lambda: mn.trim_to_budget(norm, budget, tokenizer="chars"),
            ),
            "lc_trim": Contender(
                "langchain trim_messages",
                lambda: trim_messages(
                    lc_norm,
                    strategy="last",
                    token_counter=count_tokens_approximately,
                    max_tokens=lc_budget,
                ),
            ),
        }
        frozen_inputs()
        self.log(f"tokens, {fmt_n(n)} records")
        self.race(list(c.values()))
        # The floor: the cheapest C-level walk over the same objects.
        m_floor = f"count_tokens vs msgspec encode of the same objects (floor) ({fmt_n(n)})"
        self.cost_row(m_floor, c["count"], c["encode"], 0.7)
        m_trim_count = f"trim_to_budget vs count_tokens of the same objects ({fmt_n(n)})"
        self.cost_row(m_trim_count, c["trim"], c["count"], 1.3)
        # The calibrated estimate reads every character once, in the same pass.
        m_claude = (
            f'count_tokens(tokenizer="claude") vs msgspec encode of the same objects ({fmt_n(n)})'
        )
        self.cost_row(m_claude, c["claude"], c["encode"], 1.0)
        m_claude_bytes = f'count_tokens "claude" vs "chars" on JSON bytes ({fmt_n(n)})'
        self.cost_row(m_claude_bytes, c["claude_bytes"], c["chars_bytes"], 1.5)
        # The peer, as information: it pays the same first touch of every object.
        self.info_row(m_count, c["count"], c["lc_count"])
        self.info_row(m_trim, c["trim"], c["lc_trim"])
        thawed()

    def exact_tokens(self) -> None:
        """Exact o200k_base counts (SPEC §6.3) against tiktoken's encode_ordinary of the
        same content texts, one thread each."""
        n = self.plan.size
        mn = self.mn
        target = "≤ 1.0 (aim 0.5)"
        m_records = f"exact o200k counts vs tiktoken encode_ordinary of the same texts ({fmt_n(n)})"
        m_merge = f"exact o200k merge alone vs tiktoken encode_ordinary ({fmt_n(n)})"
        if self.without_msgnorm((m_records, target), (m_merge, "—")):
            return
        import tempfile

        from msgnorm import _exact
        from support.bpe_files import rank_file, tiktoken_encoding

        try:
            import tiktoken  # noqa: F401
        except ImportError:
            for m, t in ((m_records, target), (m_merge, "—")):
                self.skip(m, t, "tiktoken is not installed")
            return
        if rank_file("o200k_base") is None:
            for m, t in ((m_records, target), (m_merge, "—")):
                self.skip(m, t, "no o200k_base.tiktoken (MSGNORM_BPE_DIR, TIKTOKEN_CACHE_DIR)")
            return
        with tempfile.TemporaryDirectory() as scratch:
            enc = tiktoken_encoding("o200k_base", Path(scratch))
        norm = mn.normalize_for_api(generate.generate(n))
        table = _exact.bpe("o200k_base")
        texts = [t for t in _exact.content_texts(norm) if t is not None]
        encode = enc.encode_ordinary
        c = {
            "records": Contender(
                "ours exact_counts (records)", lambda: _exact.exact_counts(norm, "o200k_base")
            ),
            "merge": Contender("ours Bpe.count_many (texts)", lambda: table.count_many(texts)),
            "tiktoken": Contender(
                "tiktoken encode_ordinary (texts)", lambda: [len(encode(t)) for t in texts]
            ),
        }
        frozen_inputs()
        self.log(f"exact tokens, {fmt_n(n)} records, {len(texts):,} content texts")
        self.race(list(c.values()))
        self.cost_row(m_records, c["records"], c["tiktoken"], 1.0)
        self.cost_row(m_merge, c["merge"], c["tiktoken"], None)
        thawed()

    def editing(self) -> None:
        n = self.plan.size
        mn = self.mn
        target = "—"
        m = f"clear_tool_results vs LangChain ClearToolUsesEdit.apply ({fmt_n(n)})"
        if self.without_msgnorm((m, target)):
            return
        try:
            from langchain.agents.middleware.context_editing import ClearToolUsesEdit
            from langchain_core.messages.utils import count_tokens_approximately
        except ImportError:
            self.skip(m, target, "langchain (v1) is not installed")
            return
        try:
            norm = mn.normalize_for_api(generate.generate(n))
            lc_norm = harness.to_langchain(norm)
        except Exception as e:
            self.errors.append(f"editing setup: {type(e).__name__}: {e}")
            self.failed(m, target)
            return
        edit = ClearToolUsesEdit(trigger=-1, keep=3)

        def lc_run() -> Any:
            msgs = list(lc_norm)
            edit.apply(msgs, count_tokens=count_tokens_approximately)
            return msgs

        _, rep = mn.clear_tool_results_report(norm, trigger=None, keep=3)
        self.notes.append(
            f"Context editing: the normalized history ({len(norm):,} records), every tool "
            f"result but the last 3 cleared ({rep['results_cleared']:,} results, "
            f"{rep['tokens_saved']:,} of {rep['tokens_before']:,} tokens); msgnorm on dicts "
            "(read natively), LangChain on a fresh copy of the message list."
        )
        # Per model call in an agent loop: LangChain's ContextEditingMiddleware runs
        # apply on the whole history of every call (trigger at 70% of its tokens, so
        # it fires on every call); a Conversation with the same policy appends the
        # turn's records: its clearing fired once on the history, brought it under the
        # trigger, and stays applied.
        half = rep["tokens_before"] * 7 // 10
        per_call = ClearToolUsesEdit(trigger=half, keep=3)

        def lc_call() -> Any:
            msgs = list(lc_norm)
            per_call.apply(msgs, count_tokens=count_tokens_approximately)
            return msgs

        conv = mn.Conversation(kind="dicts", clear_tool_results={"trigger": half, "keep": 3})
        conv.append(norm[: len(norm) - 600])
        conv.for_api()
        turns = iter([norm[i : i + 2] for i in range(len(norm) - 600, len(norm), 2)])

        def conv_turn() -> Any:
            conv.append(next(turns))
            return conv.for_api()

        m_turn = (
            f"Conversation turn with a clear_tool_results policy vs LangChain "
            f"ContextEditingMiddleware's per-call apply ({fmt_n(n)})"
        )
        c = {
            "ours": Contender(
                "ours clear_tool_results", lambda: mn.clear_tool_results(norm, trigger=None)
            ),
            "lc": Contender("langchain ClearToolUsesEdit.apply", lc_run),
            "turn": Contender("ours Conversation turn, policy", conv_turn),
            "call": Contender("langchain apply per model call", lc_call),
        }
        frozen_inputs()
        # The floor comparison in a race of its own, best of the plan's rounds (the
        # LangChain calls take seconds each: their race runs 3 rounds).
        floor = {
            "ours": Contender(
                "ours clear_tool_results", lambda: mn.clear_tool_results(norm, trigger=None)
            ),
            "count": Contender("ours count_tokens", lambda: mn.count_tokens(norm)),
        }
        self.log(f"editing, {fmt_n(n)} records")
        self.race(list(floor.values()))
        self.race(list(c.values()), rounds=min(self.plan.rounds, 3))
        m_floor = f"clear_tool_results vs count_tokens of the same objects ({fmt_n(n)})"
        self.cost_row(m_floor, floor["ours"], floor["count"], 1.5)
        self.info_row(m, c["ours"], c["lc"])
        self.info_row(m_turn, c["turn"], c["call"])
        thawed()

    def usage(self) -> None:
        """Exact usage of a ~/.claude/projects-like tree (Claude Code's size profile):
        session_usage against a plain Python json.loads-per-line sum and against
        claude-code-log; list_sessions against session_usage; search throughput."""
        mn = self.mn
        m_py = "usage: session_usage vs a plain Python json.loads-per-line sum"
        m_ccl = "usage: session_usage vs claude-code-log load_transcript + aggregates"
        m_ls = "sessions: list_sessions vs session_usage, same directory"
        m_search = "search: a rare query, 1 thread (GB/s)"
        if mn is None:
            for m in (m_py, m_ccl, m_ls, m_search):
                self.skip(m, "—", f"msgnorm does not import: {self.mn_why}")
            return
        root = claude_projects.tree()
        files = sorted(root.rglob("*.jsonl"))
        nbytes = sum(f.stat().st_size for f in files)
        self.log(f"usage tree: {len(files)} files, {nbytes / 1e6:.0f} MB")
        expect = plain_usage(files)
        got = mn.session_usage(root)
        if (got.output_tokens, got.cache_read_input_tokens, got.requests) != expect:
            self.errors.append(f"session_usage disagrees with the plain sum: {got} vs {expect}")
        c = {
            "ours": Contender("session_usage (with cost)", lambda: mn.session_usage(root)),
            "py": Contender("plain Python sum", lambda: plain_usage(files)),
            "ls": Contender("list_sessions", lambda: mn.list_sessions(root)),
        }
        self.race([c["ours"], c["py"], c["ls"]], rounds=max(3, self.plan.rounds - 2))
        self.ratio_row(m_py, c["ours"], c["py"], target=10, faster=True)
        try:
            from claude_code_log import converter
        except ImportError:
            self.skip(m_ccl, "≥ 15× faster", "claude-code-log is not installed")
        else:

            def ccl() -> Any:
                messages: list[Any] = []
                for f in files:
                    messages += converter.load_transcript(f, silent=True)
                return converter.compute_project_aggregates(messages)

            c["ccl"] = Contender("claude-code-log", ccl)
            self.race([c["ours"], c["ccl"]], rounds=2)
            self.ratio_row(m_ccl, c["ours"], c["ccl"], target=15, faster=True)
        self.ratio_row(m_ls, c["ls"], c["ours"], target=1 / 3, faster=False)
        s = Contender(
            "search 1 thread",
            lambda: mn.search_sessions(root, "qzxv-not-there", num_threads=1),
        )
        self.race([s], rounds=max(3, self.plan.rounds - 2))
        if s.error:
            self.rows.append(Row(m_search, "n/a", "—", "n/a", "≥ 1 GB/s", "ERROR"))
        else:
            gbps = nbytes / s.best / 1e9
            result = "PASS" if gbps >= 1 else "MISS"
            self.rows.append(
                Row(m_search, fmt_time(s.best), "—", f"{gbps:.2f} GB/s", "≥ 1 GB/s", result)
            )

    def sessions(self) -> None:
        """The session loader against normalize_for_api on the same JSON Lines, and the
        Agent SDK's own reader (its JSON Lines parse and chain walk, pure Python)."""
        n = self.plan.memory[-1]
        mn = self.mn
        m_full = (
            f"load_session, whole history, vs normalize_for_api on the same JSON Lines ({fmt_n(n)})"
        )
        m_tail = f"load_session, after the last compaction, vs normalize_for_api ({fmt_n(n)})"
        m_sdk = f"load_session vs claude-agent-sdk session reader ({fmt_n(n)})"
        if mn is None:
            why = f"msgnorm does not import: {self.mn_why}"
            self.skip(m_full, "≤ 1.5×", why)
            return
        self.log(f"sessions: preparing {fmt_n(n)} records")
        data = generate.generate_bytes(n, jsonl=True)
        c = {
            "normalize": Contender("normalize_for_api JSONL", _bind(mn.normalize_for_api, data)),
            "full": Contender(
                "load_session full history",
                lambda: mn.load_session(data, kind="bytes", after_compaction=False),
            ),
            "tail": Contender("load_session default", lambda: mn.load_session(data, kind="bytes")),
        }
        rounds = max(3, self.plan.rounds - 2)
        self.log("sessions")
        self.race(list(c.values()), rounds=rounds)
        self.ratio_row(m_full, c["full"], c["normalize"], target=1.5, faster=False)
        self.ratio_row(m_tail, c["tail"], c["normalize"], target=None, faster=False)
        # the SDK's reader (pure Python) races apart, with ours: the memory it
        # churns does not fall between the two sides of the ratio above
        sdk_race: dict[str, Contender] = {}
        try:
            from claude_agent_sdk._internal import sessions as sdk

            def sdk_read() -> Any:
                return sdk._build_conversation_chain(sdk._parse_transcript_entries(data.decode()))

            sdk_race = {
                "sdk": Contender("claude-agent-sdk reader", sdk_read),
                "full": Contender(
                    "load_session full history",
                    lambda: mn.load_session(data, kind="bytes", after_compaction=False),
                ),
            }
            self.log("sessions vs the SDK")
            self.race(list(sdk_race.values()), rounds=rounds)
        except ImportError:
            pass
        self.ratio_row(
            m_sdk,
            sdk_race.get("full", c["full"]),
            sdk_race.get("sdk"),
            target=None,
            faster=True,
            why_missing="claude-agent-sdk is not installed",
        )
        self.notes.append(
            f"Sessions: the {fmt_n(n)}-record history as JSON Lines (a tree through parentUuid, "
            "with compactions); the SDK's reader is `_parse_transcript_entries` + "
            "`_build_conversation_chain` on the decoded text, what `get_session_messages` runs "
            "after reading the file."
        )
        del c
        gc.collect()

    def conversation(self) -> None:
        """A turn (5 records appended, for_api, count_tokens) on a Conversation holding
        the history, against normalize_for_api + count_tokens of the whole history."""
        n = self.plan.memory[-1]
        mn = self.mn
        m_dicts = (
            f"Conversation turn (dicts) vs batch normalize_for_api + count_tokens ({fmt_n(n)})"
        )
        m_bytes = (
            f"Conversation turn (bytes) vs batch normalize_for_api + count_tokens ({fmt_n(n)})"
        )
        m_mem = f"Conversation saved state / history JSON size ({fmt_n(n)})"
        if self.without_msgnorm((m_dicts, "≥ 100× faster")):
            return
        self.log(f"conversation: preparing {fmt_n(n)} records")
        lines = generate.generate_bytes(n + 3000, jsonl=True).splitlines()
        history = b"\n".join(lines[:n])
        turns = [b"\n".join(lines[i : i + 5]) for i in range(n, len(lines), 5)]
        convs = {}
        for kind in ("dicts", "bytes"):
            conv = mn.Conversation(kind=kind)
            conv.append(history)
            conv.for_api()
            convs[kind] = conv
        # The same turn with a context-editing policy: one whose trigger is never
        # crossed, and one that fired once on the history (with what it cleared applied
        # to every later turn) and does not fire again: its trigger lies halfway between
        # the history's count after the clearing (probed) and before it.
        tokens = convs["dicts"].count_tokens()
        probe = mn.Conversation(kind="dicts", clear_tool_results={"trigger": tokens - 1})
        probe.append(history)
        probe.for_api()
        cleared = probe.count_tokens()
        del probe
        for kind, trigger in (("never", 10**15), ("fired", (tokens + cleared) // 2)):
            conv = mn.Conversation(kind="dicts", clear_tool_results={"trigger": trigger})
            conv.append(history)
            conv.for_api()
            convs[kind] = conv
        fired = len(convs["fired"].edits)
        # The same turn asking prompt_tokens (SPEC §6.1) instead of count_tokens.
        conv = mn.Conversation(kind="dicts")
        conv.append(history)
        conv.for_api()
        convs["prompt"] = conv
        supply = {kind: iter(turns) for kind in convs}

        def turn(kind: str) -> Callable[[], Any]:
            def run() -> Any:
                conv = convs[kind]
                conv.append(next(supply[kind]))
                return conv.for_api(), conv.count_tokens()

            return run

        m_never = f"Conversation turn with an editing policy that never fired vs none ({fmt_n(n)})"
        m_fired = (
            f"Conversation turn with an editing policy that fired before, not now, vs none "
            f"({fmt_n(n)})"
        )

        def prompt_turn() -> Any:
            conv = convs["prompt"]
            conv.append(next(supply["prompt"]))
            return conv.for_api(), conv.prompt_tokens()

        m_prompt = f"Conversation turn with prompt_tokens vs with count_tokens ({fmt_n(n)})"

        def batch() -> Any:
            out = mn.normalize_for_api(history)
            return out, mn.count_tokens(out)

        c = {
            "batch": Contender("batch normalize_for_api + count_tokens", batch),
            "dicts": Contender("Conversation turn, dicts", turn("dicts")),
            "bytes": Contender("Conversation turn, bytes", turn("bytes")),
            "never": Contender("Conversation turn, dicts, policy never fired", turn("never")),
            "fired": Contender("Conversation turn, dicts, policy fired before", turn("fired")),
            "prompt": Contender("Conversation turn, dicts, prompt_tokens", prompt_turn),
        }
        self.log("conversation")
        self.race(list(c.values()), rounds=max(5, self.plan.rounds))
        self.ratio_row(m_dicts, c["dicts"], c["batch"], target=100, faster=True)
        self.info_row(m_bytes, c["bytes"], c["batch"])
        self.ratio_row(m_never, c["never"], c["dicts"], target=1.1, faster=False)
        self.ratio_row(m_fired, c["fired"], c["dicts"], target=1.1, faster=False)
        self.ratio_row(m_prompt, c["prompt"], c["dicts"], target=1.1, faster=False)
        if len(convs["fired"].edits) != fired:
            self.errors.append("conversation: the policy fired during the timed turns")
        state = len(convs["bytes"].to_bytes())
        self.rows.append(
            Row(
                m_mem,
                f"{state / 1e6:.0f} MB",
                f"{len(history) / 1e6:.0f} MB",
                f"{state / len(history):.2f}×",
                "≤ 1.2×",
                "PASS" if state <= 1.2 * len(history) else "MISS",
            )
        )
        self.notes.append(
            "Conversation: a turn appends 5 generated records to a conversation holding the "
            "history, then calls for_api() and count_tokens(); the bytes kind copies the whole "
            "output into a new bytes object every turn, the dicts kind reuses the settled dicts."
        )
        del c
        gc.collect()

    def corpus_scale(self, engines: bool = True) -> None:
        """Many histories: normalize_batch on 1 and 2 threads against a loop of single
        calls, the Arrow kernel against normalize_batch, and a directory of session
        files through the CLI (--jobs 2), Ray Data and Daft."""
        mn = self.mn
        n_hist, n_files = SCALE[self.plan.name]
        per = max(10, self.plan.size // n_hist)
        m_par = f"normalize_batch 2 threads vs 1 thread ({n_hist} histories × {per} records)"
        m_loop = "normalize_batch 1 thread vs a loop of normalize_for_api on bytes"
        m_arrow = "Arrow kernel vs normalize_batch, bytes throughput, 2 threads"
        if self.without_msgnorm((m_par, "≥ 1.8×")):
            return
        items = [generate.generate_bytes(per, seed=s) for s in range(n_hist)]
        nbytes = sum(len(x) for x in items)
        cpu: dict[int, list[tuple[float, float]]] = {1: [], 2: []}  # (wall, CPU) per call

        def batch_call(threads: int) -> Any:
            t0, w0 = time.process_time(), time.perf_counter()
            out = mn.normalize_batch(items, num_threads=threads)
            cpu[threads].append((time.perf_counter() - w0, time.process_time() - t0))
            return out

        c = {
            "loop": Contender(
                "loop of normalize_for_api", lambda: [mn.normalize_for_api(x) for x in items]
            ),
            "b1": Contender("normalize_batch 1 thread", lambda: batch_call(1)),
            "b2": Contender("normalize_batch 2 threads", lambda: batch_call(2)),
        }
        try:
            import msgnorm.arrow as mna
            import pyarrow as pa

            arr = pa.array(items, type=pa.binary())
            chunked = pa.chunked_array([arr.slice(i, 128) for i in range(0, n_hist, 128)])
            c["a2"] = Contender(
                "arrow 2 threads", lambda: mna.normalize_for_api(arr, num_threads=2, tokens=False)
            )
            c["c2"] = Contender(
                "arrow 2 threads, 128-row chunks",
                lambda: mna.normalize_for_api(chunked, num_threads=2, tokens=False),
            )
            c["a1"] = Contender(
                "arrow 1 thread", lambda: mna.normalize_for_api(arr, num_threads=1, tokens=False)
            )
            c["c1"] = Contender(
                "arrow 1 thread, 128-row chunks",
                lambda: mna.normalize_for_api(chunked, num_threads=1, tokens=False),
            )
            c["t2"] = Contender(
                "arrow 2 threads, with tokens", lambda: mna.normalize_for_api(arr, num_threads=2)
            )
        except ImportError as e:
            self.notes.append(f"Arrow kernel not measured: {e}")
        frozen_inputs()
        self.log(f"corpus scale: {n_hist} histories, {nbytes / 1e6:.1f} MB")
        self.race(list(c.values()))
        self.ratio_row(m_par, c["b2"], c["b1"], target=1.8, faster=True)
        self.ratio_row(m_loop, c["b1"], c["loop"], target=1.05, faster=False)
        if "a2" in c:
            self.ratio_row(m_arrow, c["a2"], c["b2"], target=0.95, faster=True)
            # information rows: (measure, ours, against, faster)
            for measure, ours, peer, faster in (
                ("Arrow kernel in 128-row chunks vs normalize_batch, 2 threads", "c2", "b2", True),
                (
                    "Arrow kernel vs normalize_batch, 1 thread (one array; 128-row chunks below)",
                    "a1",
                    "b1",
                    True,
                ),
                ("Arrow kernel in 128-row chunks vs normalize_batch, 1 thread", "c1", "b1", True),
                ("Arrow kernel with token counts vs without, 2 threads", "t2", "a2", False),
            ):
                self.ratio_row(measure, c[ours], c[peer], target=None, faster=faster)
        gc.unfreeze()
        # how many cores the fastest calls got (the machine is shared)
        busy = {k: v[1] / v[0] for k, v in ((k, min(v)) for k, v in cpu.items())}
        speedup = c["b1"].best / c["b2"].best
        more = busy[2] / busy[1]
        per_core = nbytes / c["b1"].best / 1e6
        self.notes.append(
            f"Corpus scale: {n_hist} generated histories of {per} records, {nbytes / 1e6:.1f} MB "
            f"of JSON; one core normalizes {per_core:.0f} MB/s "
            f"({n_hist * per / c['b1'].best:,.0f} records/s). The fastest calls kept "
            f"{busy[1]:.2f} (1 thread) and {busy[2]:.2f} (2 threads) cores busy (process CPU "
            f"time / wall time): the 2-thread speed-up, {speedup:.2f}×, is {speedup / more:.0%} "
            f"of the {more:.2f}× CPU it got. Other sessions' work on this shared machine runs "
            "in other scheduler groups and takes its share whatever our threads do."
        )
        del c
        gc.collect()
        if engines:
            self.engines(n_files, per)

    def engines(self, n_files: int, per: int) -> None:
        """One directory of session files, end to end: the CLI with --jobs 2, --engine
        ray and --engine daft, each in its own process; start-up reported apart."""
        import re
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory(prefix="msgnorm-bench-") as tmp:
            root = Path(tmp) / "in"
            for i in range(n_files):
                sub = root / f"p{i % 10}"
                sub.mkdir(parents=True, exist_ok=True)
                data = generate.generate_bytes(per, seed=i, jsonl=True)
                (sub / f"s{i:05d}.jsonl").write_bytes(data)
            size = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
            (Path(tmp) / "r").mkdir()
            env = {
                **os.environ,
                "RAY_TMPDIR": str(Path(tmp) / "r"),  # a short path: Ray's sockets live there
                "RAY_AUTH_MODE": "disabled",
                "RAY_USAGE_STATS_ENABLED": "0",
            }
            runs: dict[str, tuple[float, float] | str] = {}
            for name, extra in (
                ("cli", ["--jobs", "2"]),
                ("ray", ["--engine", "ray", "--jobs", "2"]),
                ("daft", ["--engine", "daft", "--jobs", "2"]),
            ):
                out = Path(tmp) / f"out-{name}"
                self.log(f"engines: {name} on {n_files} files")
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "msgnorm.cli",
                        "normalize",
                        str(root),
                        "-o",
                        str(out),
                        "--no-progress",
                        *extra,
                    ],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=1800,
                )
                wall = time.perf_counter() - t0
                m = re.search(r" in ([0-9.]+)s", proc.stderr)
                if proc.returncode != 0 or m is None:
                    runs[name] = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
                    continue
                up = re.search(r"engine start-up ([0-9.]+)s", proc.stderr)
                startup = float(up.group(1)) if up else 0.0
                runs[name] = (float(m.group(1)) - startup, startup)
                self.log(f"engines: {name} {wall:.1f}s wall, job {runs[name][0]:.2f}s")
        cli = runs["cli"]
        for name in ("ray", "daft"):
            r = runs[name]
            measure = f"{name} end to end vs the CLI --jobs 2 ({n_files} session files, {size / 1e6:.0f} MB)"
            if isinstance(r, str) or isinstance(cli, str):
                why = r if isinstance(r, str) else str(cli)
                if "No module named" in why:
                    self.skip(measure, "—", why)
                else:
                    self.errors.append(f"{name}: {why}")
                    self.failed(measure, "—")
                continue
            self.rows.append(
                Row(
                    measure,
                    f"{fmt_time(r[0])} (+ start-up {fmt_time(r[1])})",
                    fmt_time(cli[0]),
                    f"{cli[0] / r[0]:.2f}×",
                    "—",
                    "info",
                )
            )
        if not isinstance(cli, str):
            self.notes.append(
                f"Engines: one directory of {n_files} session files ({size / 1e6:.0f} MB, "
                f"{per} records each); each run a fresh `msgnorm normalize DIR -o OUT` process "
                "writing every output file; the job time excludes the engine's start-up "
                "(ray.init of a local 2-CPU cluster; Daft's native runner needs none), the "
                f"ratio is the CLI's time over the engine's. CLI: {n_files / cli[0]:,.0f} files/s."
            )

    def scaling(self) -> None:
        """Per-record growth from the smallest size to the largest, against the growth
        of a validating scan of the same inputs measured in the same race: the target is
        ours(largest)/ours(smallest) ≤ 1.2 × scan(largest)/scan(smallest), so the
        machine's own cache and memory scaling is measured, not assumed."""
        sizes = self.plan.scaling
        mn = self.mn
        span = f"{fmt_n(sizes[0])} → {fmt_n(sizes[-1])}"
        target = f"≤ {GROWTH_SLACK:g} × control"
        for label, make in (
            ("bytes path", generate.generate_bytes),
            ("adversarial assistant run, bytes", generate.adversarial_bytes),
            ("one reply interleaved with tool results, bytes", generate.interleaved_bytes),
            ("blocks in one record, bytes (per block)", generate.blocks_bytes),
        ):
            measure = f"{label}: per-record time, {span}"
            if self.without_msgnorm((measure, target)):
                continue
            cs: list[Contender] = []
            ctl: list[Contender] = []
            raw_dec = msgspec.json.Decoder(list[msgspec.Raw])
            for n in sizes:
                self.log(f"scaling {label}: preparing {fmt_n(n)} records")
                data = make(n)
                cs.append(Contender(f"{label} {fmt_n(n)}", _bind(mn.normalize_for_api, data)))
                ctl.append(Contender(f"control Raw scan {fmt_n(n)}", _bind(raw_dec.decode, data)))
            self.log(f"scaling {label}")
            self.race(cs + ctl, rounds=max(3, self.plan.rounds - 2))
            if any(c.error for c in cs + ctl):
                self.failed(measure, target)
                continue
            per = [c.best / n for c, n in zip(cs, sizes, strict=True)]
            ctl_per = [c.best / n for c, n in zip(ctl, sizes, strict=True)]
            ratio = per[-1] / per[0]
            ctl_ratio = ctl_per[-1] / ctl_per[0]
            limit = GROWTH_SLACK * ctl_ratio
            self.rows.append(
                Row(
                    measure,
                    _per_record(sizes, per),
                    f"msgspec Raw scan (control, {ctl_ratio:.2f}×): {_per_record(sizes, ctl_per)}",
                    f"{ratio:.2f}× ({ratio / ctl_ratio:.2f} × control)",
                    f"{target} (≤ {limit:.2f}×)",
                    "PASS" if ratio <= limit else "MISS",
                )
            )
            del cs, ctl
            gc.collect()

    def memory(self) -> None:
        mn = self.mn
        for n in self.plan.memory:
            m_bytes = f"bytes path peak memory (input included) / input size ({fmt_n(n)})"
            m_dicts = f"dict path peak extra memory / JSON input size ({fmt_n(n)})"
            if mn is None:
                why = f"msgnorm does not import: {self.mn_why}"
                self.skip(m_bytes, "≤ 2.5×", why)
                self.skip(m_dicts, "—", why)
                continue
            generate.generate_bytes(n)
            path = generate.cache_path(n)
            for mode, measure in (("bytes", m_bytes), ("dicts", m_dicts)):
                self.log(f"memory {mode}, {fmt_n(n)} records")
                try:
                    r = harness.peak_memory(mode, path)
                except Exception as e:
                    self.errors.append(f"memory {mode} {fmt_n(n)}: {e}")
                    self.failed(measure, "")
                    continue
                size_mb = r["input_bytes"] / 1e6
                if mode == "bytes":
                    ratio = r["total_ratio"]
                    ours = f"{(r['peak'] - r['rss_before_input']) / 1e6:.0f} MB"
                    out_mb = (r["output_bytes"] or 0) / 1e6
                    self.rows.append(
                        Row(
                            measure,
                            ours,
                            f"input {size_mb:.0f} MB (output {out_mb:.0f} MB)",
                            f"{ratio:.2f}×",
                            "≤ 2.5×",
                            "PASS" if ratio <= 2.5 else "MISS",
                        )
                    )
                else:
                    ratio = r["extra_ratio"]
                    ours = f"{(r['peak'] - r['rss_with_input']) / 1e6:.0f} MB"
                    self.rows.append(
                        Row(
                            measure,
                            ours,
                            f"input {size_mb:.0f} MB (dicts: {r['input_footprint_ratio']:.1f}×)",
                            f"{ratio:.2f}×",
                            "—",
                            "info",
                        )
                    )

    # -- output ----------------------------------------------------------------------

    def profile(self) -> str:
        """The Cargo profile of the msgnorm extension measured (``?`` if unknown)."""
        if self.mn is None:
            return "?"
        return str(getattr(self.mn._native, "BUILD_PROFILE", "?"))

    def header(self) -> str:
        mn_version = "absent"
        if self.mn is not None:
            mn_version = str(getattr(self.mn, "__version__", harness.version_of("msgnorm")))
            mn_version += f" (`{self.profile()}` build)"
        lines = [
            f"## msgnorm benchmark report ({self.plan.name}, `{self.profile()}` build)",
            "",
            f"- Machine: {os.cpu_count()} cores, {cpu_model()}, {mem_total_gib()} RAM, "
            f"{platform.system()} {platform.release()}",
            f"- Versions: Python {platform.python_version()}, msgspec {msgspec.__version__}, "
            f"msgnorm {mn_version}, langchain-core {harness.version_of('langchain-core')}, "
            f"langchain {harness.version_of('langchain')}",
            f"- Date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; load average before the run: "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        ]
        if self.mn is not None and self.profile() != PROFILE:
            lines.append(
                f"- NOTE: the extension measured is a `{self.profile()}` build, not `{PROFILE}` "
                "(the published wheels' profile): `python benches/report.py --build` builds it"
            )
        lines.append("")
        return "\n".join(lines)

    def table(self) -> str:
        head = ["Measure", "Ours", "Peer / limit", "Ratio", "Target", "Result"]
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
        for r in self.rows:
            cells = [r.measure, r.ours, r.peer, r.ratio, r.target, r.result]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        return "\n".join(lines)

    def footer(self) -> str:
        n_pass = sum(r.result == "PASS" for r in self.rows)
        n_miss = sum(r.result == "MISS" for r in self.rows)
        lines = [
            "",
            f"{n_pass} PASS, {n_miss} MISS, {sum(r.result.startswith('SKIP') for r in self.rows)} SKIP, "
            f"{sum(r.result == 'ERROR' for r in self.rows)} ERROR.",
            "",
            "Ratios: a cost against a limit is ours/limit (lower is better); a speed-up is "
            "peer/ours. Times are the best call of N, the contenders of a comparison timed "
            "interleaved, with a garbage collection before each call and the inputs frozen "
            "out of the collector. Memory: peak RSS of one call in a fresh process "
            "(VmHWM reset before the call), less the RSS before the input was read "
            "(bytes path: input + work + output) or with the input loaded (dict path). "
            "Scaling: per-record time at the largest size over that at 10k, against "
            f"{GROWTH_SLACK:g} × the same growth of the msgspec Raw scan of the same inputs "
            "(the control for the machine's own scaling, timed in the same race).",
        ]
        lines += [f"- {note}" for note in self.notes]
        lines += [f"- ERROR {e}" for e in self.errors]
        return "\n".join(lines)


def _per_record(sizes: list[int], per: list[float]) -> str:
    return ", ".join(f"{fmt_n(n)}: {p * 1e9:.0f} ns" for n, p in zip(sizes, per, strict=True))


def _bind(fn: Callable[[Any], Any], arg: Any) -> Callable[[], Any]:
    return lambda: fn(arg)


def plain_usage(files: list[Path]) -> tuple[int, int, int]:
    """Exact usage the plain way: json.loads on every line, the record with the most
    output tokens per (message.id, requestId) across the files."""
    import json

    kept: dict[tuple[Any, Any], tuple[int, int]] = {}
    for f in files:
        with f.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(rec, dict) or rec.get("type") != "assistant":
                    continue
                msg = rec.get("message")
                if not isinstance(msg, dict) or msg.get("model") == "<synthetic>":
                    continue
                u = msg.get("usage")
                if not isinstance(u, dict):
                    continue
                key = (msg.get("id"), rec.get("requestId"))
                out = u.get("output_tokens") or 0
                old = kept.get(key)
                if old is None or out > old[0]:
                    kept[key] = (out, u.get("cache_read_input_tokens") or 0)
    return (
        sum(v[0] for v in kept.values()),
        sum(v[1] for v in kept.values()),
        len(kept),
    )


def build_dist() -> None:
    """``maturin develop --profile dist`` in this checkout, into the running Python."""
    maturin = shutil.which("maturin")
    cmd = [maturin] if maturin else [sys.executable, "-m", "maturin"]
    cmd += ["develop", "--profile", PROFILE, "--locked"]
    print(f"[report] {' '.join(cmd)}", file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=BENCH_DIR.parent, check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="10k records, scaling to 100k")
    ap.add_argument(
        "--smoke", action="store_true", help="2k records, scaling to 20k: that the harness runs"
    )
    ap.add_argument("--size", type=int, help="records for the side-by-side comparisons")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory probes")
    ap.add_argument("--no-engines", action="store_true", help="skip the Ray/Daft/CLI runs")
    ap.add_argument("--only-scale", action="store_true", help="only the corpus-scale section")
    ap.add_argument(
        "--only",
        help="comma-separated sections: normalize, tokens, exact_tokens, editing, sessions, usage, conversation, "
        "scaling, corpus_scale, memory",
    )
    ap.add_argument(
        "--build",
        action="store_true",
        help=f"first build and install the extension with `maturin develop --profile {PROFILE}`",
    )
    ap.add_argument(
        "--write-docs",
        action="store_true",
        help="write the report between the markers of docs/benchmarks.md and redraw its chart",
    )
    ap.add_argument(
        "--chart",
        action="store_true",
        help="measure nothing: redraw docs/assets/bench-ratios.svg from docs/benchmarks.md",
    )
    args = ap.parse_args(argv)
    if args.chart:
        print(f"[report] wrote {bench_chart.draw()}", file=sys.stderr)
        return 0
    if args.build:
        build_dist()
    plan = SMOKE if args.smoke else QUICK if args.quick else FULL
    if args.size:
        plan.size = args.size
    t0 = time.perf_counter()
    rep = Report(plan)
    header = rep.header()
    try:
        if args.only:
            for name in args.only.split(","):
                getattr(rep, name.strip())()
        elif not args.only_scale:
            rep.normalize()
            rep.validate()
            rep.providers()
            rep.tokens()
            rep.exact_tokens()
            rep.editing()
            rep.sessions()
            rep.usage()
            rep.conversation()
            rep.scaling()
        if not args.only:
            rep.corpus_scale(engines=not args.no_engines)
        if not args.no_memory and not args.only_scale and not args.only:
            rep.memory()
    except Exception as e:  # the harness itself broke
        import traceback

        traceback.print_exc()
        print(header)
        print(rep.table())
        print(rep.footer())
        print(f"\nHARNESS ERROR: {type(e).__name__}: {e}")
        return 2
    text = "\n".join(
        [
            header,
            rep.table(),
            rep.footer(),
            f"- Report time: {time.perf_counter() - t0:.0f} s; load average after: "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (other work on the machine "
            "skews absolute times more than the interleaved ratios).",
        ]
    )
    print(text)
    if args.write_docs:
        command = " ".join(["python benches/report.py", *(argv or sys.argv[1:])])
        bench_chart.write_table(f"Latest run (`{command}`):\n\n{text}")
        print(f"[report] wrote {bench_chart.PAGE} and {bench_chart.draw()}", file=sys.stderr)
    return 1 if rep.errors else 0


if __name__ == "__main__":
    sys.exit(main())
