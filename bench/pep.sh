#!/usr/bin/env bash
# pep benchmark: the same 200k-version parse+sort and 200k specifier checks through aitk-env's
# pep layer and through Python's `packaging` (pip's vendored copy), in one run; prints the ratio.
# Usage: bench/pep.sh [BUILD_DIR] [COUNT]   (BUILD_DIR must be a Release build with bench_pep)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/release}
count=${2:-200000}
python=${PYTHON:-python3}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

"$python" "$here/gen_pep_data.py" "$data" "$count"
cpp=$("$build/bench/bench_pep" "$data")
py=$("$python" "$here/pep_packaging.py" "$data")

# Both sides must have done the same work.
for key in hits first_last; do
    a=$(grep "^$key " <<<"$cpp"); b=$(grep "^$key " <<<"$py")
    if [ "$a" != "$b" ]; then echo "results differ: aitk-env '$a' vs packaging '$b'" >&2; exit 1; fi
done

echo "pep benchmark, $count items ($("$python" -c 'import sys; print(sys.version.split()[0])'))"
printf '%-22s %12s %12s %8s\n' phase aitk-env packaging ratio
for phase in versions_parse_sort specifier_checks; do
    a=$(awk -v k=$phase '$1==k {print $2}' <<<"$cpp")
    b=$(awk -v k=$phase '$1==k {print $2}' <<<"$py")
    awk -v p=$phase -v a="$a" -v b="$b" 'BEGIN { printf "%-22s %11.4fs %11.4fs %7.1fx\n", p, a, b, b / a }'
done
