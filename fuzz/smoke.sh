#!/usr/bin/env bash
# Fuzz smoke: runs every fuzz target for SECONDS (default 20) each, two at a time,
# and exits non-zero if any check fails (a crash, a broken invariant or a hang).
#
#   bash fuzz/smoke.sh                        # stable toolchain: seeded random driver
#   FUZZ_ENGINE=libfuzzer bash fuzz/smoke.sh  # cargo-fuzz (needs `cargo install cargo-fuzz`)
#   FUZZ_JOBS=1 ...                           # one target at a time (default: two)
#   FUZZ_TARGETS="budget providers" ...       # some targets only (default: all eight)
#
# The libFuzzer engine needs nightly features; on a stable toolchain it runs with
# RUSTC_BOOTSTRAP=1. Failing inputs land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${SECONDS_EACH:-${1:-20}}"
ENGINE="${FUZZ_ENGINE:-stable}"
JOBS="${FUZZ_JOBS:-2}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
LIMIT=$((SECONDS_EACH + 60)) # a hang (or a check stuck on one input) fails the run
# FUZZ_TARGETS="budget session" runs some targets only
# FUZZ_SANITIZER=none builds without AddressSanitizer (much faster to build; the
# core forbids unsafe code): what CI's smoke uses; campaigns keep the default.
SANITIZER="${FUZZ_SANITIZER:-address}"
read -r -a TARGETS <<<"${FUZZ_TARGETS:-normalize_for_api normalize_messages count_tokens budget session conversation providers rules}"

# Per-target corpora from the shared seeds, with the option bytes each target reads first.
prefix() {
    case "$1" in
        normalize_for_api) printf '\x00' ;;
        count_tokens) printf '\x00' ;;
        session) printf '\x00' ;;
        conversation) printf '\x00' ;;
        providers) printf '\x00' ;;
        budget) printf '\x00\x10\x00' ;;
        *) ;;
    esac
}
seed_corpus() {
    local t="$1" dir="corpus/$1"
    mkdir -p "$dir"
    for f in seeds/*; do
        [ -e "$dir/seed-$(basename "$f")" ] || { prefix "$t"; cat "$f"; } >"$dir/seed-$(basename "$f")"
    done
    # the inputs a run failed on (they carry their option bytes): replayed first
    for f in regressions/"$t"/*; do
        [ -e "$f" ] && cp "$f" "$dir/regression-$(basename "$f")"
    done
    return 0
}

run_one() {
    local t="$1"
    if [ "$ENGINE" = libfuzzer ]; then
        seed_corpus "$t"
        RUSTC_BOOTSTRAP=1 timeout "$LIMIT" cargo fuzz run --fuzz-dir . --sanitizer "$SANITIZER" "$t" "corpus/$t" -- \
            -dict=json.dict -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
            -max_total_time="$SECONDS_EACH" -print_final_stats=1 >"logs/$t.log" 2>&1
    else
        timeout "$LIMIT" "$TARGET_DIR/release/smoke" --seconds "$SECONDS_EACH" "$t" >"logs/$t.log" 2>&1
    fi
}

mkdir -p logs
if [ "$ENGINE" = libfuzzer ]; then
    # the instrumented core is compiled once, by the first target's build; each
    # target by name (a plain `cargo fuzz build` would also build the stable
    # driver, which has no libFuzzer to link against without a sanitizer runtime)
    for t in "${TARGETS[@]}"; do
        RUSTC_BOOTSTRAP=1 cargo fuzz build --fuzz-dir . --sanitizer "$SANITIZER" "$t"
    done
else
    cargo build --release --no-default-features --bin smoke
fi

# One line of figures from a log: executions and seconds; libFuzzer's last
# coverage (edges), features and corpus size.
summary() {
    if [ "$ENGINE" = libfuzzer ]; then
        local done cov
        done=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$1" | tail -1 | sed -E 's/Done ([0-9]+) runs in ([0-9]+) second/\1 executions in \2 s/')
        cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$1" | tail -1)
        echo "$done; $cov"
    else
        grep -Eo '[0-9]+ executions in [0-9.]+ s' "$1" | tail -1
    fi
}

status=0
run_pair() {
    local pids=() names=() i
    for t in "$@"; do
        run_one "$t" &
        pids+=($!)
        names+=("$t")
    done
    for i in "${!pids[@]}"; do
        if wait "${pids[$i]}"; then
            echo "fuzz smoke ${names[$i]}: ok ($(summary "logs/${names[$i]}.log"))"
        else
            echo "fuzz smoke ${names[$i]}: FAILED"
            tail -40 "logs/${names[$i]}.log"
            status=1
        fi
    done
}
for ((at = 0; at < ${#TARGETS[@]}; at += JOBS)); do
    run_pair "${TARGETS[@]:at:JOBS}"
done
exit "$status"
