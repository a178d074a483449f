#!/usr/bin/env bash
# Network benchmark: the same files fetched from a local server by aitk-env's downloader
# (sha256 verified while streaming) and by `curl --parallel --parallel-max N`, in one run, on a
# quiet machine and again under a CPU hog this script starts (both sides under the same hog);
# prints both throughputs, both ratios (goals >= 0.9 quiet, >= 0.8 loaded) and the downloader's
# peak RSS (goal < 100 MiB).
# Usage: bench/net.sh [BUILD_DIR]   (a Release build with bench_net and bench_net_server)
# Environment: NET_BENCH_FILES (40), NET_BENCH_TOTAL_MB (2048), NET_BENCH_CONCURRENCY (8),
#              NET_BENCH_ROUNDS (3), TMPDIR (where the files go: needs twice the total, plus room)
#   NET_BENCH_LOAD_ROUNDS (NET_BENCH_ROUNDS)  rounds under the hog; 0: no loaded phase
#   NET_BENCH_HOG (nproc)   busy threads of the hog: `stress-ng --cpu N` (a shell busy loop per
#                           thread without stress-ng), started in a session of its own, as an
#                           unrelated build would run (with autogroup scheduling, a session
#                           competes as a whole, whatever its number of threads)
#   NET_BENCH_BEFORE        another bench_net binary (e.g. an older tree's) measured in the same
#                           rounds, for before/after numbers from one run
set -euo pipefail
build=${1:-build/release}
files=${NET_BENCH_FILES:-40}
total_mb=${NET_BENCH_TOTAL_MB:-2048}
concurrency=${NET_BENCH_CONCURRENCY:-8}
rounds=${NET_BENCH_ROUNDS:-3}
load_rounds=${NET_BENCH_LOAD_ROUNDS:-$rounds}
hog_threads=${NET_BENCH_HOG:-$(nproc)}
before=${NET_BENCH_BEFORE:-}
tmp=${TMPDIR:-/tmp}
here=$(cd "$(dirname "$0")" && pwd)

for exe in bench_net bench_net_server; do
    if [ ! -x "$build/bench/$exe" ]; then
        echo "missing $build/bench/$exe (configure with -DAITK_ENV_BENCH=ON and build it)" >&2
        exit 2
    fi
done
if [ -n "$before" ] && [ ! -x "$before" ]; then
    echo "NET_BENCH_BEFORE=$before is not an executable" >&2
    exit 2
fi
command -v curl >/dev/null || { echo "curl is needed for the comparison" >&2; exit 2; }

# The served files plus one downloaded copy at a time, with a quarter to spare.
free_mb=$(df -Pm "$tmp" | awk 'NR==2 {print $4}')
if [ $((total_mb * 5 / 2)) -gt "$free_mb" ]; then
    total_mb=$((free_mb * 2 / 5))
    echo "note: only ${free_mb} MiB free in $tmp; using ${total_mb} MiB in total" >&2
fi
size=$((total_mb * 1024 * 1024 / files))

work=$(mktemp -d "$tmp/aitk-net-bench.XXXXXX")
server_pid=
hog_pid=
hog_pids=()
stop_hog() {
    if [ -n "$hog_pid" ]; then
        # The hog leads its own session and process group: stop the whole group.
        kill -TERM -- "-$hog_pid" 2>/dev/null || kill -TERM "$hog_pid" 2>/dev/null || true
        wait "$hog_pid" 2>/dev/null || true
    fi
    for pid in "${hog_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    hog_pid=
    hog_pids=()
}
start_hog() {
    if command -v stress-ng >/dev/null; then
        # A background job of a script is no group leader, so setsid(1) execs in place: $! is
        # stress-ng itself, leader of the new session.
        setsid stress-ng --cpu "$hog_threads" --cpu-method int64 --quiet </dev/null >/dev/null &
        hog_pid=$!
    else
        for _ in $(seq "$hog_threads"); do
            setsid bash -c 'while :; do :; done' </dev/null >/dev/null &
            hog_pids+=($!)
        done
    fi
    sleep 1  # let it spin up
}
cleanup() {
    stop_hog
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/srv"
: >"$work/manifest"
for i in $(seq -w 1 "$files"); do
    name="pkg$i-1.0-py3-none-any.whl"
    head -c "$size" /dev/urandom >"$work/srv/$name"
    echo "$name $size $(sha256sum "$work/srv/$name" | cut -d' ' -f1)" >>"$work/manifest"
done

"$build/bench/bench_net_server" "$work/srv" "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")"
urls=()
while read -r name _; do urls+=("$base/$name"); done <"$work/manifest"

now() { date +%s.%N; }
run_curl() {
    rm -rf "$work/curl" && mkdir -p "$work/curl" && sync
    bash "$here/settle-memory.sh"
    local start end
    start=$(now)
    curl -sS --no-progress-meter --fail --parallel --parallel-max "$concurrency" --output-dir "$work/curl" \
        --remote-name-all "${urls[@]}"
    end=$(now)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}
# run_aitk [BINARY]: one download of the manifest by a bench_net (default: this build's).
run_aitk() {
    local exe=${1:-$build/bench/bench_net}
    rm -rf "$work/aitk" && sync
    bash "$here/settle-memory.sh"
    "$exe" "$work/manifest" "$base" "$work/aitk" "$concurrency" >"$work/aitk.out"
    awk '$1=="seconds" {print $2}' "$work/aitk.out"
}

min() { awk -v x="$1" -v y="$2" 'BEGIN { print (y == "" || x + 0 < y + 0) ? x : y }'; }
peak_rss=0
# phase LABEL ROUNDS: best times of ROUNDS rounds into best_curl, best_aitk (and best_before).
phase() {
    local label=$1 n=$2 round c a b=
    best_curl= best_aitk= best_before=
    for round in $(seq "$n"); do
        # Alternate who goes first, so page-cache writeback of the previous run hurts both alike.
        if [ $((round % 2)) -eq 1 ]; then
            c=$(run_curl); a=$(run_aitk)
            rss=$(awk '$1=="peak_rss_kib" {print $2}' "$work/aitk.out")
            [ -n "$before" ] && b=$(run_aitk "$before")
        else
            [ -n "$before" ] && b=$(run_aitk "$before")
            a=$(run_aitk)
            rss=$(awk '$1=="peak_rss_kib" {print $2}' "$work/aitk.out")
            c=$(run_curl)
        fi
        [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
        if [ -n "$before" ]; then
            printf 'round %d%s: curl %.3fs  aitk-env %.3fs  before %.3fs\n' "$round" "$label" "$c" "$a" "$b"
            best_before=$(min "$b" "$best_before")
        else
            printf 'round %d%s: curl %.3fs  aitk-env %.3fs\n' "$round" "$label" "$c" "$a"
        fi
        best_curl=$(min "$c" "$best_curl")
        best_aitk=$(min "$a" "$best_aitk")
    done
}
load_start=$(cut -d' ' -f1 /proc/loadavg)
phase "" "$rounds"
quiet_curl=$best_curl quiet_aitk=$best_aitk quiet_before=$best_before
load_curl= load_aitk= load_before= load_during=
if [ "$load_rounds" -gt 0 ]; then
    start_hog
    phase " (under load)" "$load_rounds"
    load_during=$(cut -d' ' -f1 /proc/loadavg)
    stop_hog
    load_curl=$best_curl load_aitk=$best_aitk load_before=$best_before
fi
# Verify curl's copies too, so both sides demonstrably fetched the same bytes.
(cd "$work/curl" && awk '{print $3 "  " $1}' "$work/manifest" | sha256sum --quiet -c -)

bytes=$((size * files))
awk -v b="$bytes" -v c="$quiet_curl" -v a="$quiet_aitk" -v n="$files" -v k="$concurrency" \
    -v rss="$peak_rss" -v r="$rounds" -v lr="$load_rounds" -v lc="$load_curl" -v la="$load_aitk" \
    -v qb="$quiet_before" -v lb="$load_before" -v hog="$hog_threads" -v l0="$load_start" \
    -v l1="$load_during" 'BEGIN {
    mib = b / 1048576
    printf "net benchmark: %d files, %.0f MiB, concurrency %d, best of %d rounds\n", n, mib, k, r
    printf "%-40s %8.3fs %9.1f MiB/s\n", "curl --parallel --parallel-max " k, c, mib / c
    printf "%-40s %8.3fs %9.1f MiB/s\n", "aitk-env downloader (sha256 verified)", a, mib / a
    if (qb != "") printf "%-40s %8.3fs %9.1f MiB/s\n", "before (NET_BENCH_BEFORE)", qb, mib / qb
    printf "ratio aitk-env/curl throughput: %.2f (goal >= 0.90)\n", c / a
    if (qb != "") printf "ratio before/curl throughput: %.2f\n", c / qb
    if (lr > 0) {
        printf "under load (%d CPU hog threads, load average %s at the start, %s under the hog), best of %d rounds\n", hog, l0, l1, lr
        printf "%-40s %8.3fs %9.1f MiB/s\n", "curl --parallel --parallel-max " k, lc, mib / lc
        printf "%-40s %8.3fs %9.1f MiB/s\n", "aitk-env downloader (sha256 verified)", la, mib / la
        if (lb != "") printf "%-40s %8.3fs %9.1f MiB/s\n", "before (NET_BENCH_BEFORE)", lb, mib / lb
        printf "ratio aitk-env/curl throughput under load: %.2f (goal >= 0.80)\n", lc / la
        if (lb != "") printf "ratio before/curl throughput under load: %.2f\n", lc / lb
    }
    printf "aitk-env peak RSS: %.1f MiB (goal < 100)\n", rss / 1024
}'
