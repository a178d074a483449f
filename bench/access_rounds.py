#!/usr/bin/env python3
"""The round trips of one client run, as nginx saw them (bench_lock's access log format:
"$request_time $status $body_bytes_sent $msec $connection "$request" "$http_range"").

Usage: access_rounds.py ACCESS_LOG [FROM_LINE [TO_LINE]]
Prints the requests, the connections they used, and the "waves": stretches of time with at
least one request in flight. Each wave is one step of the client's critical path (it waited
for the previous one before asking more), so their number is the round trips that cannot
overlap; the idle time between waves is the client's own work (or its waiting elsewhere).
"""
import re
import sys
from collections import Counter


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    lines = open(argv[1], encoding="utf-8").read().splitlines()
    first = int(argv[2]) if len(argv) > 2 else 0
    last = int(argv[3]) if len(argv) > 3 else len(lines)
    reqs = []
    for line in lines[first:last]:
        m = re.match(r'(\S+) (\d+) (\d+) (\S+) (\d+) "(\S+) (\S+)[^"]*" "([^"]*)"', line)
        if not m:
            continue
        duration, status, size, end, conn, method, path, rng = m.groups()
        end = float(end)
        reqs.append((end - float(duration), end, int(status), path, conn, rng))
    if not reqs:
        sys.exit("no requests")
    reqs.sort()
    waves, busy_until = [], None
    for start, end, *_ in reqs:
        if busy_until is None or start > busy_until + 0.0005:
            waves.append([start, end, 0])
        waves[-1][1] = max(waves[-1][1], end)
        waves[-1][2] += 1
        busy_until = waves[-1][1]
    kinds = Counter()
    for r in reqs:
        path, rng = r[3], r[5]
        kinds["range" if rng != "-" else "metadata" if path.endswith(".metadata")
              else "page" if path.endswith("/") or path.endswith(".html") or path.endswith(".json")
              else "file"] += 1
    span = reqs[-1][1] - reqs[0][0]
    busy = sum(e - s for s, e, _ in waves)
    print(f"requests {len(reqs)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"connections {len(set(r[4] for r in reqs))}; statuses "
          f"{dict(Counter(r[2] for r in reqs))}")
    print(f"waves (serial round trips) {len(waves)}; first request to last answer {span:.3f} s, "
          f"server busy {busy:.3f} s, idle between waves {span - busy:.3f} s")
    sizes = Counter(n for *_, n in waves)
    print("requests per wave: " + ", ".join(f"{n}x{c}" for n, c in sorted(sizes.items())))


if __name__ == "__main__":
    main(sys.argv)
