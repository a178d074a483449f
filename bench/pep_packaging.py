#!/usr/bin/env python3
"""The Python side of the pep benchmark: the same work as bench_pep, through the `packaging`
library vendored in pip. Prints one `name seconds` line per phase."""
import sys
import time

try:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
except ImportError:
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version

def main():
    data = sys.argv[1]
    versions = open(data + "/versions.txt").read().split("\n")[:-1]
    checks = [line.split("\t") for line in open(data + "/checks.txt").read().split("\n")[:-1]]

    t0 = time.perf_counter()
    parsed = [Version(v) for v in versions]
    parsed.sort()
    t1 = time.perf_counter()
    print("versions_parse_sort %.6f" % (t1 - t0))

    # Specifier sets are parsed once per distinct text (as a resolver would), versions per check.
    sets = {}
    hits = 0
    t0 = time.perf_counter()
    for spec, version in checks:
        s = sets.get(spec)
        if s is None:
            s = sets[spec] = SpecifierSet(spec)
        if s.contains(Version(version)):
            hits += 1
    t1 = time.perf_counter()
    print("specifier_checks %.6f" % (t1 - t0))
    print("hits %d" % hits)
    print("first_last %s %s" % (parsed[0], parsed[-1]))

main()
