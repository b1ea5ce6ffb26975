"""Fit the weights of the calibrated token estimates (SPEC §6, tokenizer families).

    python benches/calibrate_tokens.py o200k DIR [DIR ...]
    python benches/calibrate_tokens.py claude DIR [DIR ...]

Reads every ``*.jsonl`` transcript under the folders given (nothing is copied into
the repository) and prints the weights to paste into
``rust/core/src/tokens/weights.rs``, then the fit's errors on what it held out
(every fourth file, by a hash of its name: the fit never sees them; for ``o200k``, a
file of independent texts, such as the CJK texts, is held out text by text), overall
and for CJK prose and compact JSON (tool calls).

The features of a record are what the core gathers in its reading pass
(``msgnorm._native._token_features``): characters by class, blocks, tool calls and
tool results, images and documents.

- ``o200k``: the target of each message is the exact count of OpenAI's o200k_base
  encoding (tiktoken; set ``TIKTOKEN_CACHE_DIR`` to a folder holding its BPE file
  to run offline) of the record's content text (``msgnorm._native.content_texts``)
  plus 3. Fitted on the relative error of messages of at least 50 tokens. Run on
  ``$MSGNORM_CORPUS``, the spotter transcripts and real CJK texts (zh, ja, ko)
  for the shipped weights.
- ``claude``: Claude's tokenizer is not public; the target is what Claude billed.
  Between two consecutive requests of one model in a transcript, the prompt grew
  by ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` of
  the second minus the first; the records from the first request's reply to the
  second's are what was added. The fit is on the ratio of estimate to growth; the
  weights are then scaled so that, on the fitted files, the median ratio is 1.05
  and the summed ratio at least 1.0, whichever asks more (an undercount sends a
  prompt that is too long, an overcount trims a little early).

The transcripts read to set the shipped weights, all public repositories:

- marot/spotter, ``test/fixtures/transcripts/`` at 8cc42b0 (26 sessions and
  subagent files of real Claude Code work, with ``message.usage``): claude, o200k;
- d-kimuson/claude-code-viewer, ``mock-global-claude-dir/projects/`` at 9367cf0;
  daaain/claude-code-log, ``test/test_data/`` at a641071;
  moredip/session-share, ``samples/claude-code-projects/`` at c822452
  (the files of ``$MSGNORM_CORPUS``): o200k, and claude where they carry usage.

Needs numpy and tiktoken (not dependencies of msgnorm).
"""

from __future__ import annotations

import itertools
import statistics
import sys
import zlib
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
from msgnorm import _native
from prompt_eval import _records, _requests  # the same bills and records (benches/)

#: The feature names, in ``_token_features``' order.
FEATURES = (
    "letters words digits numbers punct puncts spaces newlines cjk kana hangul other leaves "
    "scalars escapes "
    "blocks calls results images documents message"
).split()
#: The features each family's weights cover (media and the per-message tokens are
#: set from the providers' published rules, not fitted).
FITTED = FEATURES[:18]
IMAGES, DOCUMENTS, MESSAGE = 18, 19, 20
#: The character classes (the weights' ``cls``).
CLASSES = 15


def _files(dirs: list[str]) -> tuple[list[Path], list[Path]]:
    """(fitted, held out): every fourth file by a hash of its name is held out."""
    paths = sorted({p for d in dirs for p in Path(d).rglob("*.jsonl")})
    held = [p for p in paths if zlib.crc32(p.name.encode()) % 4 == 0]
    return [p for p in paths if p not in held], held


def _features(recs: list[dict[str, Any]]) -> np.ndarray | None:
    try:
        return np.array(_native._token_features(msgspec.json.encode(recs)), dtype=float)
    except ValueError:
        return None  # a record SPEC §1 refuses (a deliberately broken test file)


def _nnls(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares with weights >= 0 (features with a negative weight dropped, refit)."""
    keep = np.ones(a.shape[1], dtype=bool)
    while True:
        w = np.zeros(a.shape[1])
        sol, *_ = np.linalg.lstsq(a[:, keep], b, rcond=None)
        w[keep] = sol
        if (w >= 0).all():
            return w
        keep &= w > 0


def _print_weights(w: np.ndarray) -> None:
    cls = ", ".join(f"{x:.4f}" for x in w[:CLASSES])
    print(f"    cls: [{cls}],")
    for name, x in zip(("block", "call", "result"), w[CLASSES : CLASSES + 3], strict=True):
        print(f"    {name}: {x:.4f},")


def _kinds(x: np.ndarray) -> dict[str, np.ndarray]:
    """Rows by kind of content, for the report: CJK prose (CJK characters are at
    least a third of the characters) and compact JSON (tool calls only)."""
    f = {n: x[:, i] for i, n in enumerate(FEATURES)}
    cjk = f["cjk"] + f["kana"] + f["hangul"]
    chars = sum(f[n] for n in "letters digits punct spaces newlines other".split()) + cjk
    return {
        "all": np.ones(len(x), dtype=bool),
        "CJK prose": cjk * 3 >= np.maximum(chars, 1),
        "compact JSON": (f["calls"] > 0) & (f["blocks"] == f["calls"]),
    }


def o200k(dirs: list[str]) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    paths = sorted({p for d in dirs for p in Path(d).rglob("*.jsonl")})
    xs, ys, held = [], [], []
    for p in paths:
        recs = _records(p)
        f = _features(recs) if recs else None
        if f is None:
            continue
        texts = _native.content_texts(msgspec.json.encode(recs))
        # A transcript is held out whole (every fourth file); a file of
        # independent texts (no record names a parent: the CJK texts) record by
        # record, so that every script is both fitted and held out.
        whole = any("parentUuid" in r for r in recs)
        for i, (feat, text) in enumerate(zip(f, texts, strict=True)):
            if text is None:
                continue
            key = p.name if whole else f"{p.name}#{i}"
            xs.append(feat)
            ys.append(len(enc.encode(text, disallowed_special=())) + 3)
            held.append(zlib.crc32(key.encode()) % 4 == 0)
    x, y, h = np.array(xs), np.array(ys, dtype=float), np.array(held)
    fit = ~h & (y >= 50)
    # relative error: each row divided by its target; the 3 per message is fixed
    a = x[fit][:, : len(FITTED)] / y[fit][:, None]
    b = (y[fit] - 3) / y[fit]
    w = _nnls(a, b)
    print(f"o200k: {int(fit.sum())} messages fitted")
    _print_weights(w)
    est = np.ceil(x[:, : len(FITTED)] @ w) + 3
    for name, part in (("fitted", ~h), ("held out", h)):
        for kind, m in _kinds(x).items():
            m = m & part & (y >= 50)
            if not m.any():
                continue
            r = est[m] / y[m]
            err = np.abs(r - 1)
            print(
                f"  {name}, {kind}: {int(m.sum())} messages of 50+ tokens, median error "
                f"{np.median(err):.3f}, within 10%: {(err <= 0.1).mean():.1%}, "
                f"median ratio {np.median(r):.3f}, summed ratio {est[m].sum() / y[m].sum():.3f}"
            )


def _growth(paths: list[Path]) -> tuple[list[np.ndarray], list[int], list[tuple[np.ndarray, int]]]:
    """Per pair of consecutive requests: the features summed over the records added
    and the billed growth; per session: the same from its first request to its last."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    sessions: list[tuple[np.ndarray, int]] = []
    for p in paths:
        recs = _records(p)
        f = _features(recs) if recs else None
        if f is None:
            continue
        reqs = [(i, model, prompt) for i, model, prompt, _ in _requests(recs)]
        msg = f[:, MESSAGE : MESSAGE + 1] > 0
        for (i1, m1, p1), (i2, m2, p2) in itertools.pairwise(reqs):
            if m1 == m2 and p2 > p1:
                xs.append((f[i1:i2] * msg[i1:i2]).sum(axis=0))
                ys.append(p2 - p1)
        if len(reqs) >= 2 and reqs[-1][2] > reqs[0][2]:
            i1, i2 = reqs[0][0], reqs[-1][0]
            sessions.append(((f[i1:i2] * msg[i1:i2]).sum(axis=0), reqs[-1][2] - reqs[0][2]))
    return xs, ys, sessions


#: The classes the billed data holds too little of to fit: Claude's weight is
#: o200k's times this (the ratio of Claude's tokens to o200k's on the same
#: English text).
FROM_O200K = ("digits", "cjk", "kana", "hangul")
CLAUDE_PER_O200K = 1.35


def _o200k_weights() -> np.ndarray:
    """The o200k weights shipped in rust/core/src/tokens/weights.rs."""
    src = (Path(__file__).parents[1] / "rust/core/src/tokens/weights.rs").read_text()
    block = src.split("pub const O200K: Weights = Weights {", 1)[1]
    cls = block.split("cls: [", 1)[1].split("]", 1)[0]
    return np.array([float(v) for v in cls.split(",") if v.strip()])


def _scale_for_median(est: np.ndarray, fixed: np.ndarray, y: np.ndarray, m: float) -> float:
    """The factor of ``est`` that makes the median of ``(est * k + fixed) / y`` ``m``."""
    lo, hi = 0.0, 100.0
    for _ in range(100):
        k = (lo + hi) / 2
        lo, hi = (k, hi) if np.median((est * k + fixed) / y) < m else (lo, k)
    return (lo + hi) / 2


def claude(dirs: list[str], media: tuple[float, float, float]) -> None:
    fit, held = _files(dirs)
    xs, ys, _ = _growth(fit)
    x, y = np.array(xs), np.array(ys, dtype=float)
    preset = np.zeros(len(FITTED))
    for name in FROM_O200K:
        i = FEATURES.index(name)
        preset[i] = _o200k_weights()[i] * CLAUDE_PER_O200K
    free = preset == 0
    # media, the per-message tokens and the preset classes at their set values;
    # the rest fitted
    fixed = x[:, IMAGES] * media[0] + x[:, DOCUMENTS] * media[1] + x[:, MESSAGE] * media[2]
    fixed = fixed + x[:, : len(FITTED)] @ preset
    a = x[:, : len(FITTED)] * free / y[:, None]
    b = (y - fixed) / y
    w = _nnls(a, b) * free
    part = x[:, : len(FITTED)] @ w
    # scaled so that the median ratio is 1.05 and the summed ratio at least
    # 1.0, whichever asks more (the fitted part only: the rest is set)
    scale = max(
        _scale_for_median(part, fixed, y, 1.05),
        (y.sum() - fixed.sum()) / part.sum(),
    )
    w = w * scale + preset
    print(f"claude: {len(y)} request pairs fitted (scaled by {scale:.3f})")
    _print_weights(w)
    for name, paths in (("fitted", fit), ("held out", held)):
        gx, gy, sessions = _growth(paths)
        if not gy:
            print(f"  {name}: no request pairs")
            continue

        def est(v: np.ndarray) -> float:
            return float(v[: len(FITTED)] @ w + v[IMAGES] * media[0] + v[DOCUMENTS] * media[1])

        def est_msgs(v: np.ndarray) -> float:
            return est(v) + v[MESSAGE] * media[2]

        r = [est_msgs(v) / g for v, g in zip(gx, gy, strict=True)]
        summed = sum(est_msgs(v) for v in gx) / sum(gy)
        s = [est_msgs(v) / g for v, g in sessions]
        print(
            f"  {name}: {len(r)} pairs, median ratio {statistics.median(r):.3f} "
            f"(10th {np.percentile(r, 10):.3f}, 90th {np.percentile(r, 90):.3f}), "
            f"summed {summed:.3f}; {len(s)} sessions, median "
            f"{statistics.median(s) if s else float('nan'):.3f}"
        )


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in ("o200k", "claude"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "o200k":
        o200k(sys.argv[2:])
    else:
        # Anthropic: an image of at most 1.15 megapixels costs w*h/750 (1,568 at
        # 1092x1092); a PDF page ~1,500-3,000; 4 tokens of role wrapping a message.
        claude(sys.argv[2:], (1600.0, 3000.0, 4.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
