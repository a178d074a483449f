#!/usr/bin/env bash
# Lock benchmark: an AI-Toolkit-sized generated universe (~170 packages in the resolution, the
# torch family on a cu130 backend index, JSON pages and PEP 658 metadata on the main index)
# served on 127.0.0.1, resolved in the same run by `aitk-env lock` (empty cache, then warm
# cache) and by `pip install --dry-run --ignore-installed --report -` (no cache, then pip's
# warm cache); checks that both chose the same versions, then prints medians and ratios
# (goals: >= 10x faster than pip cold; warm lock <= 0.5 s) and how long the server alone takes
# for the cold lock's requests.
# Usage: bench/lock.sh [BUILD_DIR] [PYTHON]
#   BUILD_DIR: a Release build configured with tests and benchmarks (default build/release)
#   PYTHON: pip's interpreter; the lock uses its exact version (default pyenv's 3.12.1)
# Environment: LOCK_BENCH_ROUNDS (3), LOCK_BENCH_SEED (1)
set -euo pipefail
build=${1:-build/release}
python=${2:-/root/.pyenv/versions/3.12.1/bin/python}
rounds=${LOCK_BENCH_ROUNDS:-3}
seed=${LOCK_BENCH_SEED:-1}

for exe in "$build/bench/bench_lock" "$build/aitk-env"; do
    if [ ! -x "$exe" ]; then
        echo "missing $exe (configure with -DAITK_ENV_BENCH=ON and tests on, then build" \
            "bench_lock and aitk-env)" >&2
        exit 2
    fi
done
"$python" -m pip --version >/dev/null 2>&1 || { echo "no pip for $python" >&2; exit 2; }

exec "$build/bench/bench_lock" --aitk-env "$build/aitk-env" --python "$python" \
    --rounds "$rounds" --seed "$seed"
