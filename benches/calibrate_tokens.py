"""Fit the weights of the calibrated token estimates (SPEC §6, tokenizer families).

    python benches/calibrate_tokens.py o200k DIR [DIR ...]
    python benches/calibrate_tokens.py claude DIR [DIR ...]
    python benches/calibrate_tokens.py han

Reads every ``*.jsonl`` transcript (and, for ``o200k``, every ``*.md`` page) under
the folders given (nothing is copied into the repository) and prints the weights
to paste into ``rust/core/src/tokens/weights.rs``, then the fit's errors on what
it held out (every fourth file, by a hash of its name: the fit never sees them;
for ``o200k``, a Markdown page is cut into texts of about 1,500 characters,
held out text by text), overall and for CJK prose and compact JSON (tool calls).
With ``CALIBRATE_WORST=N``, ``o200k`` also prints the N held-out messages it
misses most, to see what the classes do not capture.

The features of a record are what the core gathers in its reading pass
(``msgnorm._native._token_features``): characters by class, blocks, tool calls and
tool results, images and documents.

- ``o200k``: the target of each message is the exact count of OpenAI's o200k_base
  encoding (tiktoken; set ``TIKTOKEN_CACHE_DIR`` to a folder holding its BPE file
  to run offline) of the record's content text (``msgnorm._native.content_texts``)
  plus 3. Fitted on the relative error of messages of at least 50 tokens, a Han
  character's weights (``cjk`` + ``rare_han``) capped at 3 tokens. Run on
  ``$MSGNORM_CORPUS``, the spotter transcripts and the FastAPI translations for
  the shipped weights.
- ``claude``: Claude's tokenizer is not public; the target is what Claude billed.
  Between two consecutive requests of one model in a transcript, the prompt grew
  by ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` of
  the second minus the first; the records from the first request's reply to the
  second's are what was added. The fit is on the ratio of estimate to growth; the
  weights are then scaled so that, on the fitted files, the median ratio is 1.05
  and the summed ratio at least 1.0, whichever asks more (an undercount sends a
  prompt that is too long, an overcount trims a little early). A whole session
  runs from a file's first request to its last, ended early by a model switch or
  a compaction (across one, the prompt is not the sum of the records).
- ``han``: prints the table of ``rust/core/src/tokens/han.rs`` (the Han
  characters o200k_base has no token of its own for) from the BPE file.

The files read to set the shipped weights, all public repositories:

- marot/spotter, ``test/fixtures/transcripts/`` at 8cc42b0 (26 sessions and
  subagent files of real Claude Code work, with ``message.usage``): claude, o200k;
- d-kimuson/claude-code-viewer, ``mock-global-claude-dir/projects/`` at 9367cf0;
  daaain/claude-code-log, ``test/test_data/`` at a641071;
  moredip/session-share, ``samples/claude-code-projects/`` at c822452
  (the files of ``$MSGNORM_CORPUS``): o200k, and claude where they carry usage;
- DRMacIver/claude-reliability, ``snapshot-tests/tests/*/transcript.jsonl`` at
  4e49f16 (7 real Claude Code sessions with ``message.usage``): claude;
- fastapi/fastapi, ``docs/zh/``, ``docs/zh-hant/``, ``docs/ja/`` and
  ``docs/ko/`` at c3f316b (the documentation's translations, 500 pages of
  Chinese, Japanese and Korean prose with code and Markdown): o200k.

Needs numpy and tiktoken (not dependencies of msgnorm).
"""

from __future__ import annotations

import os
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
    "scalars escapes rare_han gaps "
    "blocks calls results images documents message"
).split()
#: The features each family's weights cover (media and the per-message tokens are
#: set from the providers' published rules, not fitted).
FITTED = FEATURES[:20]
IMAGES, DOCUMENTS, MESSAGE = 20, 21, 22
#: The character classes (the weights' ``cls``).
CLASSES = 17


def _files(dirs: list[str]) -> tuple[list[Path], list[Path]]:
    """(fitted, held out): every fourth file by a hash of its name is held out."""
    paths = sorted({p for d in dirs for p in Path(d).rglob("*.jsonl")})
    held = [p for p in paths if zlib.crc32(_key(p).encode()) % 4 == 0]
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


def _md_texts(path: Path) -> list[dict[str, Any]]:
    """A Markdown file as user messages of about 1,500 characters at most, cut
    between paragraphs (a longer paragraph is a message of its own)."""
    out: list[dict[str, Any]] = []
    cur: list[str] = []
    for para in path.read_text(encoding="utf-8").split("\n\n"):
        if cur and sum(len(c) for c in cur) + len(para) > 1500:
            out.append("\n\n".join(cur))
            cur = []
        cur.append(para)
    if cur:
        out.append("\n\n".join(cur))
    return [
        {"type": "user", "uuid": f"{path.name}#{i}", "message": {"role": "user", "content": t}}
        for i, t in enumerate(t for t in out if t.strip())
    ]


def _texts(dirs: list[str]) -> list[tuple[Path, list[dict[str, Any]], bool]]:
    """(file, records, whether held out whole) of every transcript and Markdown
    page under ``dirs``."""
    paths = sorted({p for d in dirs for ext in ("*.jsonl", "*.md") for p in Path(d).rglob(ext)})
    read = {".jsonl": _records, ".md": _md_texts}
    return [(p, read[p.suffix](p), p.suffix == ".jsonl") for p in paths]


def _key(p: Path) -> str:
    """A file's name for the held-out hash: its name, with its folder's when the
    name is a common one (``transcript.jsonl``, ``index.md``)."""
    return f"{p.parent.name}/{p.name}" if p.name in COMMON else p.name


#: The most tokens a Han character costs in o200k_base (one per UTF-8 byte).
HAN_MAX = 3.0

#: File names too common to tell files apart.
COMMON = {"transcript.jsonl", "index.md", "README.md"}


def o200k(dirs: list[str], worst: int = 0) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    xs, ys, held, texts = [], [], [], []
    for p, recs, whole in _texts(dirs):
        f = _features(recs) if recs else None
        if f is None:
            continue
        contents = _native.content_texts(msgspec.json.encode(recs))
        # A transcript is held out whole (every fourth file); a file of
        # independent texts (Markdown pages) text by text, so that every
        # script is both fitted and held out.
        for i, (feat, text) in enumerate(zip(f, contents, strict=True)):
            if text is None:
                continue
            key = _key(p) if whole else f"{_key(p)}#{i}"
            xs.append(feat)
            ys.append(len(enc.encode(text, disallowed_special=())) + 3)
            held.append(zlib.crc32(key.encode()) % 4 == 0)
            texts.append(text)
    x, y, h = np.array(xs), np.array(ys, dtype=float), np.array(held)
    fit = ~h & (y >= 50)
    # relative error: each row divided by its target; the 3 per message is fixed
    a = x[fit][:, : len(FITTED)] / y[fit][:, None]
    b = (y[fit] - 3) / y[fit]
    w = _nnls(a, b)
    # A Han character is at most 3 tokens (its 3 UTF-8 bytes); the fit asks
    # more of a rare one (rare_han stands for how little a text's Han merges),
    # which would overcount a text of rare characters: capped, the rest refitted.
    ci, ri = FEATURES.index("cjk"), FEATURES.index("rare_han")
    for _ in range(10):
        if w[ci] + w[ri] <= HAN_MAX + 1e-9:
            break
        k = HAN_MAX - w[ci]
        free = np.arange(len(FITTED)) != ri
        w = _nnls(a * free, b - a[:, ri] * k) * free
        w[ri] = k
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
    if worst:
        # the held-out messages furthest off, for a look at what the classes miss
        m = np.flatnonzero(h & (y >= 50))
        for j in sorted(m, key=lambda j: -abs(est[j] / y[j] - 1))[:worst]:
            print(f"--- ratio {est[j] / y[j]:.3f} ({int(est[j])} / {int(y[j])})")
            print(texts[j][:400])


def _compaction(r: dict[str, Any]) -> bool:
    """A compaction's boundary or summary: the prompt is rebuilt there."""
    return bool(
        (r.get("type") == "system" and r.get("subtype") == "compact_boundary")
        or r.get("isCompactSummary")
    )


def _growth(paths: list[Path]) -> tuple[list[np.ndarray], list[int], list[tuple[np.ndarray, int]]]:
    """Per pair of consecutive requests: the features summed over the records added
    and the billed growth; per whole session: the same from its first request to
    its last, a session ending at a model switch or a compaction (the prompt is
    not the records' sum across one: a new model's cache, a summary)."""
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
        runs: list[list[tuple[int, str, int]]] = []
        for k, (i2, m2, p2) in enumerate(reqs):
            if k:
                i1, m1, p1 = reqs[k - 1]
                if m1 == m2 and p2 > p1:
                    xs.append((f[i1:i2] * msg[i1:i2]).sum(axis=0))
                    ys.append(p2 - p1)
                if m1 == m2 and not any(_compaction(r) for r in recs[i1:i2]):
                    runs[-1].append((i2, m2, p2))
                    continue
            runs.append([(i2, m2, p2)])
        for run in runs:
            if len(run) >= 2 and run[-1][2] > run[0][2]:
                i1, i2 = run[0][0], run[-1][0]
                sessions.append(((f[i1:i2] * msg[i1:i2]).sum(axis=0), run[-1][2] - run[0][2]))
    return xs, ys, sessions


#: The classes the billed data holds too little of to fit: Claude's weight is
#: o200k's times this (the ratio of Claude's tokens to o200k's on the same
#: English text). Its other non-ASCII characters are mostly the arrows of line
#: numbers, one a line: fitted, they vanish into the newlines' weight, and a
#: text in another script (Thai, Devanagari, emoji) would cost nothing.
FROM_O200K = ("digits", "cjk", "kana", "hangul", "other", "rare_han")
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


def han() -> None:
    """Prints ``rust/core/src/tokens/han.rs``'s table: bit ``c - 0x4E00`` set for
    each Han character of U+4E00..U+9FFF that o200k_base has no token of its own for."""
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    bits = [len(enc.encode(chr(0x4E00 + i))) > 1 for i in range(HAN_LEN)]
    words = [sum(1 << j for j in range(64) if bits[i * 64 + j]) for i in range(HAN_LEN // 64)]
    print(f"// {sum(bits)} of {HAN_LEN} Han characters are rare")
    print(f"static RARE: [u64; {len(words)}] = [")
    for i in range(0, len(words), 4):
        print("    " + " ".join(f"0x{w:016x}," for w in words[i : i + 4]))
    print("];")


#: U+4E00..U+9FFF, the CJK Unified Ideographs: 328 words of 64 bits.
HAN_LEN = 0xA000 - 0x4E00


def main() -> int:
    if len(sys.argv) == 2 and sys.argv[1] == "han":
        han()
        return 0
    if len(sys.argv) < 3 or sys.argv[1] not in ("o200k", "claude"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "o200k":
        worst = int(os.environ.get("CALIBRATE_WORST", "0"))
        o200k(sys.argv[2:], worst)
    else:
        # Anthropic: an image of at most 1.15 megapixels costs w*h/750 (1,568 at
        # 1092x1092); a PDF page ~1,500-3,000; 4 tokens of role wrapping a message.
        claude(sys.argv[2:], (1600.0, 3000.0, 4.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
