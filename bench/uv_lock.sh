#!/usr/bin/env bash
# uv.lock as an input (issue 29, item 3), measured by bench_uv_lock:
#   read   app::read_uv_lock (TOML, the model, uv's walk, the conversion for linux-x86_64) on
#          huggingface/lerobot's uv.lock, 333 packages (goal: <= 100 ms);
#   setup  `aitk-env setup -l uv.lock` with a warm cache vs `aitk-env setup -l` of the lockfile
#          `aitk-env lock --from uv.lock` makes of it, into new prefixes, alternating (goal:
#          <= 1.3x), on nari-labs/dia's uv.lock rebuilt as a local index on 127.0.0.1.
# Usage: bench/uv_lock.sh [BUILD_DIR] [PYTHON]
#   BUILD_DIR: a Release build configured with tests and benchmarks on (default build/release);
#              bench_uv_lock and aitk-env are built there
#   PYTHON: the prefixes' interpreter (default pyenv's 3.12.1)
# Environment: UV_LOCK_BENCH_ROUNDS (3); UV_LOCK_READ_LOCK (the big uv.lock; default
#   ../shared/realworld/uv/huggingface_lerobot__uv.lock beside the checkout, or beside the folder
#   of worktrees: not in a clone, the read row is then left out); RESULTS (append the runs to
#   this results file, as bench/report.sh does)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
python=${2:-/root/.pyenv/versions/3.12.1/bin/python3.12}
rounds=${UV_LOCK_BENCH_ROUNDS:-3}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
read_lock=${UV_LOCK_READ_LOCK:-}
if [ -z "$read_lock" ]; then
    for shared in "$root/../shared" "$root/../../shared"; do
        if [ -f "$shared/realworld/uv/huggingface_lerobot__uv.lock" ]; then
            read_lock=$shared/realworld/uv/huggingface_lerobot__uv.lock
            break
        fi
    done
fi
[ -x "$python" ] || { echo "uv_lock.sh: no interpreter $python" >&2; exit 2; }
cmake --build "$build" --target aitk-env bench_uv_lock >/dev/null
args=(--aitk-env "$build/aitk-env" --python "$python" --rounds "$rounds")
[ -n "$read_lock" ] && args+=(--read-lock "$read_lock")
[ -n "${RESULTS:-}" ] && args+=(--results "$RESULTS")
"$build/bench/bench_uv_lock" "${args[@]}"
