#!/usr/bin/env bash
# Setup benchmark: a torch-sized universe (78 wheels, 32,639 files, 1.99 GB: a 896 MiB torch,
# triton, nvidia-* wheels sharing nvidia/, an AI-Toolkit-style stack) served on 127.0.0.1 and
# locked with `aitk-env lock`; then, in one run, `aitk-env setup -l LOCK` with an empty cache
# vs `python -m venv` + `pip install --require-hashes -r` (the lock's pip lines) with an empty
# pip cache, both again into new prefixes with their caches warm, and a no-op `aitk-env sync`
# (median of 5). Prints times, ratios and PASS/FAIL per goal: cold >= 5x pip, warm >= 30x pip,
# no-op sync <= 150 ms, peak RSS of aitk-env <= 250 MB.
# Usage: bench/setup.sh [BUILD_DIR] [PYTHON]
#   BUILD_DIR: a Release build dir, configured (tests on) and built here when needed
#              (default build/release)
#   PYTHON: the interpreter of both sides (default pyenv's 3.12.1)
# Environment: SETUP_BENCH_MIRROR (where the generated mirror is kept between runs; default
#   ~/.cache/aitk-env-bench), SETUP_BENCH_SCALE (1: multiplies the native blobs' sizes),
#   SETUP_BENCH_SEED (1), SETUP_BENCH_SYNC_ROUNDS (5), SETUP_BENCH_PIP_NO_COMPILE (0; 1 passes
#   --no-compile to pip), SETUP_BENCH_KEEP (0; 1 keeps the prefixes and logs),
#   SETUP_BENCH_JOBS (build parallelism; nproc), TMPDIR (the work folder; needs ~12 GB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
python=${2:-/root/.pyenv/versions/3.12.1/bin/python3.12}
jobs=${SETUP_BENCH_JOBS:-$(nproc)}

"$python" -c 'import venv, ensurepip' 2>/dev/null || {
    echo "$python cannot make venvs with pip (venv/ensurepip missing)" >&2
    exit 2
}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DAITK_ENV_TESTS=ON -DAITK_ENV_BENCH=ON >/dev/null
elif grep -q '^AITK_ENV_\(TESTS\|BENCH\):BOOL=OFF$' "$build/CMakeCache.txt"; then
    # README's command 1 makes build/release with the tool only: bench_setup needs both.
    echo "turning tests and benchmarks on in $build (bench_setup needs both)" >&2
    cmake "$build" -DAITK_ENV_TESTS=ON -DAITK_ENV_BENCH=ON >/dev/null
elif ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt"; then
    echo "note: $build is not a Release build; its numbers say little" >&2
fi
build_log=$(mktemp)
if ! cmake --build "$build" -j"$jobs" --target aitk-env bench_setup >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    exit 1
fi
rm -f "$build_log"

# The prefixes, caches and venvs (~12 GB at the peak) go, whatever happens to the run.
work=$(mktemp -d "${TMPDIR:-/tmp}/aitk-setup-bench.XXXXXX")
if [ "${SETUP_BENCH_KEEP:-0}" = 1 ]; then
    trap 'echo "kept $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# Which tree the numbers belong to (others change src/ while benchmarks run).
if git -C "$root" rev-parse --short HEAD >/dev/null 2>&1; then
    changes=$(git -C "$root" status --porcelain -- src | wc -l)
    echo "aitk-env from $(git -C "$root" rev-parse --short HEAD)$([ "$changes" -gt 0 ] &&
        echo " + $changes uncommitted change(s) in src/"), built $(date -u -r "$build/aitk-env" +%H:%M:%SZ)"
fi

args=(--aitk-env "$build/aitk-env" --python "$python"
      --seed "${SETUP_BENCH_SEED:-1}" --scale "${SETUP_BENCH_SCALE:-1}"
      --sync-rounds "${SETUP_BENCH_SYNC_ROUNDS:-5}" --work-dir "$work")
[ -n "${SETUP_BENCH_MIRROR:-}" ] && args+=(--mirror-cache "$SETUP_BENCH_MIRROR")
[ "${SETUP_BENCH_PIP_NO_COMPILE:-0}" = 1 ] && args+=(--pip-no-compile)
[ "${SETUP_BENCH_KEEP:-0}" = 1 ] && args+=(--keep)
"$build/bench/bench_setup" "${args[@]}"
