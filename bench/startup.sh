#!/usr/bin/env bash
# Start-up cost of the commands run most often, on this machine as it is (its PATH, HOME and
# PYENV_ROOT: on a pyenv machine the shims are on PATH): `doctor` with an empty cache and warm,
# a no-op `setup --dry-run` and a no-op `setup` of a prefix made once before. Per row: the median
# and spread of RUNS wall-clock runs after one warm-up, the programs each run starts (its
# successful execve calls, the command itself not counted, from one run under strace -f) and
# all its execve calls (a pyenv shim is bash trying every PATH folder for each program).
#
# Usage: bash bench/startup.sh [BUILD_DIR] [BEFORE]
#   BUILD_DIR  holds the aitk-env to measure (default build/release; not built here)
#   BEFORE     another aitk-env (e.g. the previous release) measured the same way, in the same
#              run, for a before/after table
# Environment: RUNS (10), RESULTS (a file the markdown table is also written to), TMPDIR.
# Needs strace for the process counts (without it they read "-").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
after=$build/aitk-env
before=${2:-}
runs=${RUNS:-10}
[ -x "$after" ] || { echo "startup.sh: no aitk-env in $build" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "startup.sh: $before is not executable" >&2; exit 2; }
[ -z "$before" ] || before=$(cd "$(dirname "$before")" && pwd)/$(basename "$before")
work=$(mktemp -d "${TMPDIR:-/tmp}/aitk-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# Median, min and max in ms of RUNS runs of "$@" (after one warm-up), output thrown away.
time_runs() {
    "$@" >/dev/null 2>&1 || true
    local i t0 t1 times=()
    for ((i = 0; i < runs; i++)); do
        t0=$(now_ns)
        "$@" >/dev/null 2>&1 || true
        t1=$(now_ns)
        times+=($(((t1 - t0) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.0f %.0f %.0f\n", m / 1000, v[1] / 1000, v[NR] / 1000 }'
}

# Programs one run of "$@" starts (successful execve) and its execve calls (with the failed
# ones of PATH lookups: a shell script tries each PATH folder), the command itself not counted.
programs() {
    command -v strace >/dev/null || { echo "-|-"; return; }
    strace -f -qq -e trace=execve -e signal=none -o "$work/trace" "$@" >/dev/null 2>&1 || true
    local ok all
    ok=$(grep -c 'execve(.*) = 0' "$work/trace" || true)
    all=$(grep -c 'execve(' "$work/trace" || true)
    echo "$((ok - 1))|$((all - 1))"
}

rows=()
# One tool ($1: label, $2: binary), in its own cache and project folder.
measure() {
    local label=$1 exe=$2 dir="$work/$1" cold
    mkdir -p "$dir/cache" "$dir/project"
    : >"$dir/project/requirements.txt"
    export AITK_ENV_CACHE_DIR="$dir/cache"
    cd "$dir/project"
    # Cold: every run gets an empty cache (one run counted for the processes, RUNS/2 timed).
    local t0 t1 cold_ms=() i
    for ((i = 0; i < (runs + 1) / 2; i++)); do
        rm -rf "$dir/cache" && mkdir -p "$dir/cache"
        t0=$(now_ns)
        "$exe" doctor >/dev/null 2>&1 || true
        t1=$(now_ns)
        cold_ms+=($(((t1 - t0) / 1000000)))
    done
    cold=$(printf '%s\n' "${cold_ms[@]}" | sort -n | awk '{ v[NR] = $1 } END {
        printf "%d %d %d\n", v[int((NR + 1) / 2)], v[1], v[NR] }')
    rm -rf "$dir/cache" && mkdir -p "$dir/cache"
    rows+=("$label|doctor, empty cache|$cold|$(programs "$exe" doctor)")
    rows+=("$label|doctor, warm|$(time_runs "$exe" doctor)|$(programs "$exe" doctor)")
    # The prefix is made once; then both setups have nothing to do.
    "$exe" setup -r requirements.txt --no-smoke-test >"$dir/setup.log" 2>&1 ||
        { echo "startup.sh: $label: setup failed (see below)" >&2; cat "$dir/setup.log" >&2; exit 1; }
    local dry=(setup -r requirements.txt --dry-run) noop=(setup -r requirements.txt --no-smoke-test)
    rows+=("$label|setup --dry-run, no-op|$(time_runs "$exe" "${dry[@]}")|$(programs "$exe" "${dry[@]}")")
    rows+=("$label|setup, no-op|$(time_runs "$exe" "${noop[@]}")|$(programs "$exe" "${noop[@]}")")
    cd "$root"
}

measure after "$after"
[ -z "$before" ] || measure before "$before"

table() {
    echo "| build | command | median | min – max | programs started | execve calls |"
    echo "|---|---|---:|---:|---:|---:|"
    local r label what med lo hi progs calls
    for r in "${rows[@]}"; do
        IFS='|' read -r label what times progs calls <<<"$r"
        read -r med lo hi <<<"$times"
        echo "| $label | \`$what\` | $med ms | $lo – $hi ms | $progs | $calls |"
    done
    echo
    echo "aitk-env: $after$([ -z "$before" ] || echo "; before: $before"); RUNS=$runs;" \
        "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg);" \
        "pyenv shims on PATH: $(case ":$PATH:" in *"/.pyenv/shims:"*) echo yes ;; *) echo no ;; esac)"
}
table | tee ${RESULTS:+"$RESULTS"}
