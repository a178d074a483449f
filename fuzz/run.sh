#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build for SECONDS each, seeded from fuzz/corpus/<target>/.
# Usage: fuzz/run.sh BUILD_DIR [SECONDS]. A crash, leak or sanitizer report fails the run and
# leaves the reproducer in BUILD_DIR/fuzz-findings/. FUZZ_SEED fixes libFuzzer's seed (CI sets
# it, so a smoke run explores the same inputs every time); unset, each run explores anew.
# FUZZ_JOBS runs that many targets at a time (default 1).
set -euo pipefail
build=$1
seconds=${2:-10}
parallel=${FUZZ_JOBS:-1}
here=$(cd "$(dirname "$0")" && pwd)
findings="$build/fuzz-findings"
mkdir -p "$findings"

run_one() {  # EXE: runs it, then records its verdict in $build/<name>.verdict
    local exe=$1 name seeds work
    name=$(basename "$exe")
    seeds="$here/corpus/${name#fuzz_}"
    work="$build/fuzz-corpus/$name"
    mkdir -p "$work"
    local args=("$work")
    [ -d "$seeds" ] && args+=("$seeds")
    if "$exe" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=5 -rss_limit_mb=2048 \
        -print_final_stats=0 -artifact_prefix="$findings/$name-" "${args[@]}" \
        >"$build/$name.log" 2>&1; then
        echo "fuzz $name: ${seconds}s, no finding"
        echo ok >"$build/$name.verdict"
    else
        { echo "fuzz $name: FINDING (see $build/$name.log and $findings/)"; tail -40 "$build/$name.log"; } >&2
        echo finding >"$build/$name.verdict"
    fi
}

targets=()
for exe in "$build"/fuzz/fuzz_*; do
    [ -x "$exe" ] && targets+=("$exe")
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no fuzz targets in $build/fuzz (configure with -DAITK_ENV_FUZZ=ON)" >&2; exit 1; }
for exe in "${targets[@]}"; do
    rm -f "$build/$(basename "$exe").verdict"
    run_one "$exe" &
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
        wait -n || true
    done
done
wait
status=0
for exe in "${targets[@]}"; do
    [ "$(cat "$build/$(basename "$exe").verdict" 2>/dev/null)" = ok ] || status=1
done
exit $status
