"""The speed of the two build profiles, side by side: `release` (what a source
install gets: thin LTO, 16 codegen units) against `dist` (the published wheels:
fat LTO, one codegen unit).

    python benches/profiles.py                       # builds both wheels first
    python benches/profiles.py RELEASE.whl DIST.whl  # or measures these two

Each wheel goes into a virtual environment of its own; the same workload (a
generated history of ``--size`` records: ``normalize_for_api`` on its JSON bytes
and on its dicts, ``count_tokens`` on the dicts) runs in one subprocess per
environment and round, the two environments alternating, and each keeps its
best time of ``--rounds`` rounds. Prints one Markdown table: the times and
``release / dist``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside each environment: best of `repeat` calls of each workload on the
# one input, printed as JSON (seconds).
WORKLOAD = r"""
import json, sys, time
import msgspec
import msgnorm, msgnorm._native as native
data = sys.stdin.buffer.read()
records = msgspec.json.decode(data)
repeat = int(sys.argv[1])
def best(f):
    b = float("inf")
    for _ in range(repeat):
        t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
    return b
print(json.dumps({
    "profile": native.BUILD_PROFILE,
    "normalize_for_api, bytes": best(lambda: msgnorm.normalize_for_api(data)),
    "normalize_for_api, dicts": best(lambda: msgnorm.normalize_for_api(records)),
    "count_tokens, dicts": best(lambda: msgnorm.count_tokens(records)),
}))
"""


def build(profile: str, out: Path) -> Path:
    flag = ["--release"] if profile == "release" else ["--profile", profile]
    subprocess.run(["maturin", "build", *flag, "--locked", "--out", str(out)], cwd=ROOT, check=True)
    (wheel,) = out.glob("msgnorm-*.whl")
    return wheel


def environment(wheel: Path, where: Path) -> Path:
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel)], check=True)
    return python


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="*", type=Path, help="the release wheel and the dist wheel")
    ap.add_argument("--size", type=int, default=100_000, help="records in the history")
    ap.add_argument("--rounds", type=int, default=5, help="subprocess rounds per profile")
    ap.add_argument("--repeat", type=int, default=3, help="calls per workload and round")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from support.generate import generate_bytes  # the suite's generator

    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        if args.wheels:
            if len(args.wheels) != 2:
                ap.error("give two wheels (release, dist) or none")
            wheels = dict(zip(("release", "dist"), args.wheels, strict=True))
        else:
            wheels = {p: build(p, t / p) for p in ("release", "dist")}
        pythons = {p: environment(w, t / f"venv-{p}") for p, w in wheels.items()}
        data = generate_bytes(args.size, seed=1)
        best: dict[str, dict[str, float]] = {p: {} for p in pythons}
        for _ in range(args.rounds):
            for profile, python in pythons.items():
                out = subprocess.run(
                    [str(python), "-c", WORKLOAD, str(args.repeat)],
                    input=data,
                    capture_output=True,
                    check=True,
                    cwd=t,
                )
                got = json.loads(out.stdout)
                if got.pop("profile") != profile:
                    raise SystemExit(f"the {profile} environment runs another build")
                for k, v in got.items():
                    best[profile][k] = min(best[profile].get(k, v), v)
    print(f"{args.size:,} records, best of {args.rounds} rounds x {args.repeat} calls\n")
    print("| workload | release | dist | release / dist |")
    print("|---|---:|---:|---:|")
    for k in best["dist"]:
        r, d = best["release"][k], best["dist"][k]
        print(f"| {k} | {r * 1e3:.1f} ms | {d * 1e3:.1f} ms | {r / d:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
