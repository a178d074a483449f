#!/usr/bin/env bash
# Network benchmark: the same files fetched from a local server by aitk-env's downloader
# (sha256 verified while streaming) and by `curl --parallel --parallel-max N`, in one run;
# prints both throughputs, the ratio (goal >= 0.9) and the downloader's peak RSS (goal < 100 MiB).
# Usage: bench/net.sh [BUILD_DIR]   (a Release build with bench_net and bench_net_server)
# Environment: NET_BENCH_FILES (40), NET_BENCH_TOTAL_MB (2048), NET_BENCH_CONCURRENCY (8),
#              NET_BENCH_ROUNDS (3), TMPDIR (where the files go: needs twice the total, plus room)
set -euo pipefail
build=${1:-build/release}
files=${NET_BENCH_FILES:-40}
total_mb=${NET_BENCH_TOTAL_MB:-2048}
concurrency=${NET_BENCH_CONCURRENCY:-8}
rounds=${NET_BENCH_ROUNDS:-3}
tmp=${TMPDIR:-/tmp}

for exe in bench_net bench_net_server; do
    if [ ! -x "$build/bench/$exe" ]; then
        echo "missing $build/bench/$exe (configure with -DAITK_ENV_BENCH=ON and build it)" >&2
        exit 2
    fi
done
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
cleanup() {
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
    local start end
    start=$(now)
    curl -sS --no-progress-meter --fail --parallel --parallel-max "$concurrency" --output-dir "$work/curl" \
        --remote-name-all "${urls[@]}"
    end=$(now)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}
run_aitk() {
    rm -rf "$work/aitk" && sync
    "$build/bench/bench_net" "$work/manifest" "$base" "$work/aitk" "$concurrency" >"$work/aitk.out"
    awk '$1=="seconds" {print $2}' "$work/aitk.out"
}

min() { awk -v x="$1" -v y="$2" 'BEGIN { print (y == "" || x + 0 < y + 0) ? x : y }'; }
best_curl=
best_aitk=
peak_rss=0
for round in $(seq "$rounds"); do
    # Alternate who goes first, so page-cache writeback of the previous run hurts both alike.
    if [ $((round % 2)) -eq 1 ]; then
        c=$(run_curl); a=$(run_aitk)
    else
        a=$(run_aitk); c=$(run_curl)
    fi
    rss=$(awk '$1=="peak_rss_kib" {print $2}' "$work/aitk.out")
    [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
    printf 'round %d: curl %.3fs  aitk-env %.3fs\n' "$round" "$c" "$a"
    best_curl=$(min "$c" "$best_curl")
    best_aitk=$(min "$a" "$best_aitk")
done
# Verify curl's copies too, so both sides demonstrably fetched the same bytes.
(cd "$work/curl" && awk '{print $3 "  " $1}' "$work/manifest" | sha256sum --quiet -c -)

bytes=$((size * files))
awk -v b="$bytes" -v c="$best_curl" -v a="$best_aitk" -v n="$files" -v k="$concurrency" \
    -v rss="$peak_rss" -v r="$rounds" 'BEGIN {
    mib = b / 1048576
    printf "net benchmark: %d files, %.0f MiB, concurrency %d, best of %d rounds\n", n, mib, k, r
    printf "%-40s %8.3fs %9.1f MiB/s\n", "curl --parallel --parallel-max " k, c, mib / c
    printf "%-40s %8.3fs %9.1f MiB/s\n", "aitk-env downloader (sha256 verified)", a, mib / a
    printf "ratio aitk-env/curl throughput: %.2f (goal >= 0.90)\n", c / a
    printf "aitk-env peak RSS: %.1f MiB (goal < 100)\n", rss / 1024
}'
