#!/usr/bin/env bash
# The benchmark report: every speed claim of aitk-env measured against the reference tool on the
# same work in one run, REPS times each, written as bench/results/report-<date>.md (and
# latest.md) with a bar chart of the ratios (ratios.png).
#   lock      bench_lock: an AI-Toolkit-sized universe (~170 packages in the resolution) on
#             127.0.0.1; `aitk-env lock` cold and warm vs `pip install --dry-run
#             --ignore-installed --report -` without and with pip's cache (REPS rounds)
#   real uv projects  bench/lock_real_projects.sh: the fifteen uv projects of
#             ../shared/realworld/uv (REAL_UV_DIR), each uv.lock rebuilt as a local index:
#             aitk-env's and pip's agreement with uv's set, one cold lock vs one pip run per
#             environment (QUICK: three projects, Linux rows only)
#   setup     bench_setup, REPS times: the torch-like scenario (78 wheels, 32,639 files,
#             1.99 GB) on 127.0.0.1; `aitk-env setup -l LOCK` cold and warm vs `python -m venv`
#             + `pip install --require-hashes` with an empty and a warm pip cache; no-op
#             `aitk-env sync`; `cp -al` of the installed site-packages (the warm path's floor)
#   uv.lock   bench_uv_lock: reading a 333-package uv.lock; `aitk-env setup -l uv.lock` vs
#             `aitk-env setup -l` of the lockfile `lock --from` makes of it, warm (REPS rounds)
#   download  the same 78 wheels fetched by aitk-env's downloader (bench_net) and by
#             `curl --parallel --parallel-max 8` from a local sendfile server (REPS rounds),
#             then REPS rounds more under a CPU hog (`stress-ng --cpu $(nproc)` in a session of
#             its own, like an unrelated build): the "download under a CPU hog" row
# The benchmark programs check that both sides did the same work before they record a run.
#
# Usage: bash bench/report.sh [BUILD_DIR]
#   BUILD_DIR: a Release build with tests and benchmarks on; configured (when it has no
#              CMakeCache.txt) and built here. Default: build/release.
# Environment:
#   REPS (3)          repetitions of every measurement (the no-op sync: SYNC_ROUNDS per rep)
#   QUICK (0)         1: a check of the script itself: REPS=1, blobs at 5% of their size
#                     (same files), results under $TMPDIR/aitk-bench-quick-results
#   KEEP (0)          1: keep the work folder (scenario, logs, prefixes of the last rep)
#   PYTHON            the interpreter of both sides (default pyenv's 3.12.1)
#   JOBS (nproc)      build parallelism
#   SETTLE_S (65)     pause (after a sync) before the real-graph lock, before the setup reps,
#                     before the download reps and after each setup rep's
#                     deletions, which are made only when the disk lacks room to keep every
#                     rep until the end: ext4 without a journal skips inodes freed in the last
#                     60 s (300 s while their inode table is dirty), one by one, so a run that
#                     follows a big deletion creates its files several times slower
#   SYNC_ROUNDS (5)   no-op syncs per setup rep
#   MIN_FREE_GB       refuse to start with less free space in $TMPDIR (20; QUICK: 8)
#   RESULTS_DIR       where the report goes (default bench/results)
#   TMPDIR            where the work folder goes (default /tmp)
set -euo pipefail
started=$SECONDS
root=$(cd "$(dirname "$0")/.." && pwd)
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
    reps=${REPS:-1}
    settle=${SETTLE_S:-0}
    min_free_gb=${MIN_FREE_GB:-8}
    sync_rounds=${SYNC_ROUNDS:-3}
    results_dir=${RESULTS_DIR:-${TMPDIR:-/tmp}/aitk-bench-quick-results}
    scale=0.05
else
    reps=${REPS:-3}
    settle=${SETTLE_S:-65}
    min_free_gb=${MIN_FREE_GB:-20}
    sync_rounds=${SYNC_ROUNDS:-5}
    results_dir=${RESULTS_DIR:-$root/bench/results}
    scale=1
fi
python=${PYTHON:-/root/.pyenv/versions/3.12.1/bin/python3.12}
jobs=${JOBS:-$(nproc)}
tmp=${TMPDIR:-/tmp}
build=${1:-build/release}
case "$build" in /*) ;; *) build="$root/$build" ;; esac

say() { printf '[report %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() {
    printf 'report.sh: %s\n' "$*" >&2
    exit 2
}
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "REPS wants a positive number, not '$reps'"

# ---- what the run needs ----
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
command -v curl >/dev/null || missing+=(curl)
command -v stress-ng >/dev/null || missing+=(stress-ng)
command -v unzip >/dev/null || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: sudo apt-get install -y ${missing[*]}"
    say "installing ${missing[*]}"
    apt-get install -y "${missing[@]}" >/dev/null
fi
"$python" -c 'import venv, ensurepip' 2>/dev/null ||
    die "$python cannot make venvs with pip (PYTHON=... names another interpreter)"
"$python" -m pip --version >/dev/null 2>&1 || die "no pip for $python"
free_gb=$(df -Pk "$tmp" | awk 'NR==2 {printf "%d", $4 / 1048576}')
if [ "$free_gb" -lt "$min_free_gb" ]; then
    die "only ${free_gb} GB free in $tmp, the run needs ${min_free_gb} GB (prefixes, caches and" \
        "the scenario of one rep; TMPDIR=... picks another disk, MIN_FREE_GB=... lowers the bar)"
fi

# ---- the build ----
if [ ! -f "$build/CMakeCache.txt" ]; then
    say "configuring $build (Release, tests and benchmarks on)"
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DAITK_ENV_TESTS=ON -DAITK_ENV_BENCH=ON >/dev/null
elif grep -q '^AITK_ENV_\(TESTS\|BENCH\):BOOL=OFF$' "$build/CMakeCache.txt"; then
    # README's command 1 makes build/release with the tool only: the benchmarks need both.
    say "turning tests and benchmarks on in $build (bench_lock and bench_setup need both)"
    cmake "$build" -DAITK_ENV_TESTS=ON -DAITK_ENV_BENCH=ON >/dev/null
elif ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt"; then
    die "$build is not a Release build: its numbers would say little"
fi
say "building aitk-env and the benchmark programs in $build (-j$jobs)"
build_log=$(mktemp "$tmp/aitk-bench-build.XXXXXX")
if ! cmake --build "$build" -j"$jobs" --target aitk-env bench_lock bench_setup bench_net \
    bench_net_server bench_uv_lock >"$build_log" 2>&1; then
    tail -n 60 "$build_log" >&2
    rm -f "$build_log"
    exit 1
fi
rm -f "$build_log"

# ---- the work folder, and what stops whatever runs when the script ends ----
work=$(mktemp -d "$tmp/aitk-bench-report.XXXXXX")
child=
server=
hog=
cleanup() {
    local status=$?
    set +e
    trap - EXIT INT TERM
    # The CPU hog leads its own session and process group.
    [ -n "$hog" ] && kill -TERM -- "-$hog" 2>/dev/null && wait "$hog" 2>/dev/null
    # Benchmark programs run in their own session: their whole group (pip, aitk-env) stops.
    [ -n "$child" ] && kill -TERM -- "-$child" 2>/dev/null && wait "$child" 2>/dev/null
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    if [ "${KEEP:-0}" = 1 ]; then
        say "kept $work"
    else
        say "removing $work"
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# In the background and waited for, so a signal reaches the trap at once.
run_child() {
    setsid "$@" </dev/null &
    child=$!
    local status=0
    wait "$child" || status=$?
    child=
    return "$status"
}
results=$work/results.tsv
: >"$results"
record_info() { printf 'info\t%s\t%s\n' "$1" "$2" >>"$results"; }
export TMPDIR=$work

tree=unknown
if git -C "$root" rev-parse --short HEAD >/dev/null 2>&1; then
    changes=$(git -C "$root" status --porcelain -- src | wc -l)
    tree="$(git -C "$root" rev-parse --short HEAD)"
    [ "$changes" -gt 0 ] && tree+=" + $changes uncommitted change(s) in src/"
fi
# A build folder inside the checkout is named relative to it: the report is committed.
build_arg=${1:+${1#"$root"/}}
invocation="bash bench/report.sh${build_arg:+ $build_arg}"
[ "$quick" = 1 ] && invocation="QUICK=1 $invocation"
[ -n "${REPS:-}" ] && invocation="REPS=$reps $invocation"
record_info date "$(date -u '+%Y-%m-%d %H:%M UTC')"
record_info invocation "$invocation"
record_info mode "$([ "$quick" = 1 ] && echo "QUICK: blobs at 5%, " || echo "")REPS=$reps, medians"
record_info tree "$tree"
record_info cpu "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
record_info nproc "$(nproc)"
record_info ram "$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
record_info disk "${free_gb} GB in $tmp"
record_info filesystem "$(findmnt -n -o FSTYPE,OPTIONS -T "$work" 2>/dev/null || echo '?')"
record_info kernel "$(uname -r)"
record_info load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
record_info lock_pip "$("$python" -m pip --version | cut -d' ' -f1-2)"
record_info curl "$(curl --version | head -n1 | cut -d' ' -f1-2)"
say "work folder $work; aitk-env $tree; REPS=$reps$([ "$quick" = 1 ] && echo ", QUICK")"

# ---- lock ----
say "lock: the AI-Toolkit-sized universe, $reps round(s) of aitk-env cold/warm and pip cold/warm"
run_child "$build/bench/bench_lock" --aitk-env "$build/aitk-env" --python "$python" \
    --rounds "$reps" --memory-cache "" --results "$results"

# ---- lock on a real published graph (nari-labs/dia's uv.lock; ../shared, not in a clone) ----
real_lock=${REAL_GRAPH_LOCK:-$root/../shared/realworld/nari-labs_dia__uv.lock}
if [ -f "$real_lock" ]; then
    if [ "$settle" -gt 0 ]; then
        say "settling ${settle}s after the lock benchmark's deletions"
        sync
        sleep "$settle"
    fi
    say "lock: real graph ($(basename "$real_lock")) served by nginx, $reps round(s)"
    run_child env RESULTS="$results" REAL_GRAPH_LOCK="$real_lock" LOCK_BENCH_ROUNDS="$reps" \
        bash "$root/bench/lock_real.sh" "$build" "$python"
else
    say "lock: no $real_lock, the real-graph row is left out"
fi

# ---- lock on the fifteen real uv projects (../shared/realworld/uv, not in a clone) ----
real_uv=${REAL_UV_DIR:-$root/../shared/realworld/uv}
if [ -d "$real_uv" ]; then
    # QUICK: three projects' Linux rows (a vllm index, a PyTorch index with a torchvision
    # from PyPI, backend extras in conflicts).
    subset=()
    [ "$quick" = 1 ] && subset=(NVIDIA-NeMo_Curator m-bain_whisperX karpathy_nanochat)
    say "lock: real uv projects ($([ "$quick" = 1 ] && echo "${#subset[@]}, Linux" || echo 15))," \
        "one cold aitk-env lock and one pip run per environment"
    real_status=0
    run_child env RESULTS="$results" REAL_UV_DIR="$real_uv" PYTHON="$python" \
        LOCK_REAL_OS="$([ "$quick" = 1 ] && echo linux || true)" \
        bash "$root/bench/lock_real_projects.sh" "$build" "${subset[@]}" || real_status=$?
    if [ "$real_status" = 1 ]; then
        say "aitk-env disagrees with uv on some real projects (the report's table says where)"
    elif [ "$real_status" != 0 ]; then
        die "bench/lock_real_projects.sh failed ($real_status)"
    fi
else
    say "lock: no $real_uv, the real uv projects are left out"
fi

# ---- uv.lock: reading lerobot's (../shared, not in a clone), setup -l uv.lock vs its lockfile ----
say "uv.lock: read and setup -l uv.lock vs setup -l of its lockfile, $reps round(s)"
run_child env RESULTS="$results" UV_LOCK_BENCH_ROUNDS="$reps" \
    bash "$root/bench/uv_lock.sh" "$build" "$python"

# ---- setup, no-op sync, cp -al ----
mirror=$work/mirror
# Deleting a rep's prefixes and caches (~11 GB, ~200,000 files) takes minutes on a disk mounted
# with `discard` and slows the next rep: when the disk has room for every rep, they all stay
# until the end (removed with the work folder, after the report is written).
per_rep_gb=$([ "$quick" = 1 ] && echo 2 || echo 12)
free_now_gb=$(df -Pk "$tmp" | awk 'NR==2 {printf "%d", $4 / 1048576}')
defer=0
if [ "$free_now_gb" -ge $((min_free_gb + (reps - 1) * per_rep_gb)) ]; then
    defer=1
    mkdir -p "$work/setup-reps"
    say "setup: ${free_now_gb} GB free: every rep's files stay until the end"
fi
if [ "$settle" -gt 0 ]; then
    say "settling ${settle}s after the lock benchmarks' deletions"
    sync
    sleep "$settle"
fi
for rep in $(seq "$reps"); do
    say "setup: rep $rep of $reps (torch-like scenario; cold and warm, both sides)"
    setup_args=(--aitk-env "$build/aitk-env" --python "$python" --mirror-cache "$mirror"
        --scale "$scale" --sync-rounds "$sync_rounds" --results "$results")
    if [ "$defer" = 1 ]; then
        run_child "$build/bench/bench_setup" "${setup_args[@]}" --work-dir "$work/setup-reps" \
            --keep
        continue
    fi
    run_child "$build/bench/bench_setup" "${setup_args[@]}" --work-dir "$work"
    if [ "$settle" -gt 0 ] && [ "$rep" -lt "$reps" ]; then
        say "settling ${settle}s after the rep's deletions"
        sync
        sleep "$settle"
    fi
done

# ---- download: the scenario's wheels, aitk-env's downloader vs curl ----
# The setup reps leave tens of GB written: their writeback would fall into the download reps.
if [ "$settle" -gt 0 ]; then
    say "settling ${settle}s after the setup reps' writes"
    sync
    sleep "$settle"
fi
scenario=$(find "$mirror" -mindepth 1 -maxdepth 1 -type d -name 'setup-*' | head -n1)
[ -n "$scenario" ] || die "no setup scenario under $mirror"
served=$work/net-served
mkdir -p "$served"
# One flat folder of hard links: curl names its files after the URL's last part.
find "$scenario" -type f -name '*.whl' -exec ln -t "$served" {} +
(cd "$served" && for f in *.whl; do
    printf '%s %s %s\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
done) >"$work/net-manifest"
wheels=$(wc -l <"$work/net-manifest")
bytes=$(awk '{s += $2} END {print s}' "$work/net-manifest")
record_info download "$wheels wheels, $(awk -v b="$bytes" 'BEGIN {printf "%.2f GB", b / 1e9}')"
"$build/bench/bench_net_server" "$served" "$work/net-port" &
server=$!
for _ in $(seq 200); do [ -s "$work/net-port" ] && break; sleep 0.05; done
[ -s "$work/net-port" ] || die "bench_net_server did not start"
base="http://127.0.0.1:$(cat "$work/net-port")"
urls=()
while read -r name _; do urls+=("$base/$name"); done <"$work/net-manifest"
curl_argv=(curl -sS --no-progress-meter --fail --parallel --parallel-max 8
    --output-dir "$work/net-curl" --remote-name-all)
printf 'command\tdownload\taitk\t%s\n' \
    "$build/bench/bench_net $work/net-manifest $base $work/net-aitk 8" >>"$results"
printf 'command\tdownload\tref\t%s\n' \
    "${curl_argv[*]} $base/NAME.whl … (all $wheels wheels)" >>"$results"
hog_argv=(stress-ng --cpu "$(nproc)" --cpu-method int64 --quiet)
for side in aitk ref; do
    printf 'command\tdownload_load\t%s\t%s\n' "$side" \
        "(beside \`setsid ${hog_argv[*]}\`) the download row's command" >>"$results"
done

now() { date +%s.%N; }
# measure SIDE COMMAND...: one timed run with GNU time's peak RSS, recorded under $key.
key=download
measure() {
    local side=$1 start end
    shift
    sync
    bash "$root/bench/settle-memory.sh"
    start=$(now)
    run_child /usr/bin/time -f %M -o "$work/net-rss" "$@"
    end=$(now)
    printf 'run\t%s\t%s\t%s\t%s\n' "$key" "$side" \
        "$(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.6f", e - s}')" \
        "$(tail -n1 "$work/net-rss")" >>"$results"
}
aitk_download() {
    rm -rf "$work/net-aitk"
    # bench_net checks every size and sha256 itself.
    measure aitk "$build/bench/bench_net" "$work/net-manifest" "$base" "$work/net-aitk" 8 >/dev/null
    rm -rf "$work/net-aitk"
}
curl_download() {
    rm -rf "$work/net-curl" && mkdir -p "$work/net-curl"
    measure ref "${curl_argv[@]}" "${urls[@]}"
    # The same bytes as the manifest, or the run does not count.
    (cd "$work/net-curl" && awk '{print $3 "  " $1}' "$work/net-manifest" | sha256sum --quiet -c -)
    rm -rf "$work/net-curl"
}
for rep in $(seq "$reps"); do
    say "download: rep $rep of $reps ($wheels wheels from $base)"
    # Alternate who goes first, so the previous run's writeback hurts both alike.
    if [ $((rep % 2)) -eq 1 ]; then
        aitk_download
        curl_download
    else
        curl_download
        aitk_download
    fi
done
# The same again beside a CPU hog in a session of its own (as an unrelated build would run:
# with autogroup scheduling a session competes as a whole), both sides under the same hog.
# A background job of a script is no group leader, so setsid execs in place: $! is the hog.
setsid "${hog_argv[@]}" </dev/null >/dev/null &
hog=$!
sleep 1
key=download_load
for rep in $(seq "$reps"); do
    say "download under a CPU hog: rep $rep of $reps"
    if [ $((rep % 2)) -eq 1 ]; then
        curl_download
        aitk_download
    else
        aitk_download
        curl_download
    fi
done
record_info download_load "$(cut -d' ' -f1-3 /proc/loadavg)"
{ kill -TERM -- "-$hog" && wait "$hog"; } 2>/dev/null || true
hog=
{ kill "$server" && wait "$server"; } 2>/dev/null || true
server=

# ---- the report ----
record_info load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
elapsed=$((SECONDS - started))
record_info duration "$((elapsed / 60)) min $((elapsed % 60)) s (build included)"
mkdir -p "$work/plot" "$results_dir"
day=$(date -u +%Y-%m-%d)
report=$results_dir/report-$day.md
"$python" "$root/bench/report_table.py" "$results" "$report" "$work/plot" \
    --replace "$work=\$WORK" --replace "$build=\$BUILD" --replace "$python=\$PYTHON"
gnuplot "$work/plot/ratios.gp"
cp "$work/plot/ratios.png" "$results_dir/ratios.png"
cp "$report" "$results_dir/latest.md"
[ "${KEEP:-0}" = 1 ] && cp "$results" "$results_dir/results-$day.tsv"
say "wrote $report, $results_dir/latest.md and $results_dir/ratios.png"
sed -n '/^| measurement/,/^$/p' "$report"
