#!/usr/bin/env bash
# The fifteen real uv projects of ../shared/realworld/uv (NeMo RL, NeMo Curator, NeMo Automodel,
# SkyRL, prime-rl, open-instruct, AReaL, InvokeAI, whisperX, pyvideotrans, kohya_ss,
# fish-speech, lerobot, index-tts, nanochat), each rebuilt as a local index from its uv.lock
# (bench/real_projects.py: every registry on a local index of its own, stand-in wheels for git,
# URL and folder sources, the lock's edges and markers in each wheel's METADATA), served by nginx
# on 127.0.0.1 (bench_lock --serve), and locked from a requirements file of the root's
# requirements by `aitk-env lock` (empty cache) and by `pip install --dry-run` (no cache) for
# Linux x86_64, and by aitk-env alone for Windows x86_64 where uv locked Windows (pip evaluates
# markers and tags for the machine it runs on). Both must pick uv's exact set (walked from the
# lock by bench/uv_lock_walk.py). One line per environment: agreement of each tool with uv, both
# times and their ratio. Exit 1 naming the environments where aitk-env disagrees; 3 when the
# corpus is missing. One environment at a time; aitk-env three times (each with a new cache,
# the median reported), pip once per environment.
#
# Usage: bench/lock_real_projects.sh [BUILD_DIR] [PROJECT...]
#   BUILD_DIR: a build with tests and benchmarks on (bench_lock; default build/release)
#   PROJECT:   corpus names (huggingface_lerobot ...); default all fifteen
# Environment:
#   REAL_UV_DIR      the corpus (default ../shared/realworld/uv beside the checkout: not part of
#                    a clone; the script says so and stops when it is missing)
#   AITK_ENV         the aitk-env binary (default BUILD_DIR/aitk-env)
#   PYTHON           the interpreter whose pip 23.2 runs (default pyenv's 3.12.1); it runs with
#                    `--python` for each project's interpreter under PYENV_ROOT/versions
#   LOCK_REAL_OS     linux or windows: only those rows
#   LOCK_BENCH_SERVER nginx (default) or builtin
#   RESULTS          append a line per environment to this file (bench/report.sh)
#   KEEP_WORK        a folder to keep every environment's scenario, lock and logs in
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
[ $# -gt 0 ] && shift
python=${PYTHON:-/root/.pyenv/versions/3.12.1/bin/python}
corpus=${REAL_UV_DIR:-$root/../shared/realworld/uv}
aitk=${AITK_ENV:-$build/aitk-env}

if [ ! -d "$corpus" ]; then
    echo "lock_real_projects.sh: no $corpus (../shared is not part of a clone; REAL_UV_DIR=..." \
        "names the folder of the fifteen uv projects)" >&2
    exit 3
fi
for exe in "$build/bench/bench_lock" "$aitk"; do
    if [ ! -x "$exe" ]; then
        echo "missing $exe (configure with -DAITK_ENV_BENCH=ON and tests on, then build" \
            "bench_lock and aitk-env)" >&2
        exit 2
    fi
done
"$python" -c 'import tomllib' 2>/dev/null || { echo "$python: Python >= 3.11 needed" >&2; exit 2; }
"$python" -m pip --version >/dev/null 2>&1 || { echo "no pip for $python" >&2; exit 2; }
server=${LOCK_BENCH_SERVER:-nginx}
if [ "$server" = nginx ] && [ ! -x /usr/sbin/nginx ]; then
    echo "lock_real_projects.sh: no /usr/sbin/nginx (apt-get install nginx-light)" >&2
    exit 2
fi

work=${KEEP_WORK:-}
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/aitk-real-projects.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
args=(--aitk-env "$aitk" --bench-lock "$build/bench/bench_lock" --corpus "$corpus"
    --work "$work" --server "$server" --pip-python "$python")
[ -n "${LOCK_REAL_OS:-}" ] && args+=(--os "$LOCK_REAL_OS")
[ -n "${RESULTS:-}" ] && args+=(--results "$RESULTS")
for project in "$@"; do args+=(--project "$project"); done
status=0
"$python" "$root/bench/lock_real_projects.py" "${args[@]}" || status=$?
[ -n "${KEEP_WORK:-}" ] || echo "(the work folder goes now; KEEP_WORK=DIR keeps it)"
exit "$status"
