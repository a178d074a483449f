#!/usr/bin/env bash
# Lock benchmark on a real published graph: nari-labs/dia's uv.lock (uv against PyPI and
# download.pytorch.org/whl/cu126) rebuilt as a local index with the same project names,
# versions, wheel file names, dependency edges and markers (bench/real_graph.py), served by
# nginx on 127.0.0.1, then `aitk-env lock` (empty cache, then warm) and `pip install --dry-run
# --ignore-installed --report -` (no cache, then warm) in the same run. Both sides must pick
# exactly uv's set for linux-x86_64 and the interpreter's Python before a number is printed.
# Usage: bench/lock_real.sh [BUILD_DIR] [PYTHON]
#   BUILD_DIR: a Release build configured with tests and benchmarks (default build/release)
#   PYTHON: pip's interpreter (>= 3.11 for tomllib); the lock uses its exact version
#           (default pyenv's 3.12.1)
# Environment: LOCK_BENCH_ROUNDS (3); REAL_GRAPH_LOCK (the uv.lock; default
#   ../shared/realworld/nari-labs_dia__uv.lock next to the checkout: not part of a clone, the
#   script says so and stops when it is missing); RESULTS (append the runs to this results file,
#   as bench/report.sh does); LOCK_BENCH_SERVER (nginx, or builtin for the test server)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
python=${2:-/root/.pyenv/versions/3.12.1/bin/python}
rounds=${LOCK_BENCH_ROUNDS:-3}
lock=${REAL_GRAPH_LOCK:-$root/../shared/realworld/nari-labs_dia__uv.lock}

if [ ! -f "$lock" ]; then
    echo "lock_real.sh: no $lock (../shared is not part of a clone; REAL_GRAPH_LOCK=... names" \
        "a uv.lock)" >&2
    exit 3
fi
for exe in "$build/bench/bench_lock" "$build/aitk-env"; do
    if [ ! -x "$exe" ]; then
        echo "missing $exe (configure with -DAITK_ENV_BENCH=ON and tests on, then build" \
            "bench_lock and aitk-env)" >&2
        exit 2
    fi
done
"$python" -m pip --version >/dev/null 2>&1 || { echo "no pip for $python" >&2; exit 2; }
server=${LOCK_BENCH_SERVER:-nginx}
if [ "$server" = nginx ] && [ ! -x /usr/sbin/nginx ]; then
    echo "lock_real.sh: no /usr/sbin/nginx (apt-get install nginx-light)" >&2
    exit 2
fi

scenario=$(mktemp -d "${TMPDIR:-/tmp}/aitk-real-graph.XXXXXX")
trap 'rm -rf "$scenario"' EXIT
py_version=$("$python" -c 'import platform; print(platform.python_version())')
"$python" "$root/bench/real_graph.py" "$lock" "$scenario" --python "$py_version" >/dev/null

results=()
[ -n "${RESULTS:-}" ] && results=(--results "$RESULTS")
"$build/bench/bench_lock" --aitk-env "$build/aitk-env" --python "$python" --rounds "$rounds" \
    --scenario "$scenario" --label lock_real --server "$server" --memory-cache "" \
    "${results[@]}"
