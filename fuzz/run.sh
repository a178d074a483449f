#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build for SECONDS each, seeded from fuzz/corpus/<target>/.
# Usage: fuzz/run.sh BUILD_DIR [SECONDS]. A crash, leak or sanitizer report fails the run and
# leaves the reproducer in BUILD_DIR/fuzz-findings/. FUZZ_SEED fixes libFuzzer's seed (CI sets
# it, so a smoke run explores the same inputs every time); unset, each run explores anew.
set -euo pipefail
build=$1
seconds=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
findings="$build/fuzz-findings"
mkdir -p "$findings"
status=0
for exe in "$build"/fuzz/fuzz_*; do
    [ -x "$exe" ] || continue
    name=$(basename "$exe")
    seeds="$here/corpus/${name#fuzz_}"
    work="$build/fuzz-corpus/$name"
    mkdir -p "$work"
    args=("$work")
    [ -d "$seeds" ] && args+=("$seeds")
    if "$exe" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=5 -rss_limit_mb=2048 \
        -print_final_stats=0 -artifact_prefix="$findings/$name-" "${args[@]}" \
        >"$build/$name.log" 2>&1; then
        echo "fuzz $name: ${seconds}s, no finding"
    else
        echo "fuzz $name: FINDING (see $build/$name.log and $findings/)" >&2
        tail -40 "$build/$name.log" >&2
        status=1
    fi
done
exit $status
