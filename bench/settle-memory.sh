#!/usr/bin/env bash
# Waits until a VM that hands free memory back to its host (free page reporting, e.g. under
# Firecracker) has nothing left to report: when reported_kib has not moved for a second, or
# after 15 s. Memory the host took back is faulted in again on its first write, and a run that
# writes into it takes several times longer (1.9 GB into new files: 4.3 s against 0.5 s for
# `dd` right after a deletion, bench/results/net-2026-12-03.md), so without this wait the side
# that happens to run after the report wins. Both sides of a measurement then start from the
# same state: the memory freed by the previous run already given back. Does nothing elsewhere.
set -euo pipefail
counter=/sys/module/page_reporting/parameters/reported_kib
[ -r "$counter" ] || exit 0
previous=$(cat "$counter")
steady=0
for _ in $(seq 60); do
    sleep 0.25
    current=$(cat "$counter")
    if [ "$current" = "$previous" ]; then
        steady=$((steady + 1))
        [ "$steady" -ge 4 ] && exit 0
    else
        steady=0
        previous=$current
    fi
done
