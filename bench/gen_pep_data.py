#!/usr/bin/env python3
"""Writes the benchmark inputs shared by the C++ and the Python side: realistic version strings
(release, pre/post/dev, local torch-style labels) and specifier checks, from a fixed seed."""
import random
import sys

def version(rng):
    parts = [str(rng.choice([0, 1, 2, 3, 10, 24, 2023])), str(rng.randrange(0, 30))]
    if rng.random() < 0.6:
        parts.append(str(rng.randrange(0, 12)))
    v = ".".join(parts)
    r = rng.random()
    if r < 0.1:
        v += rng.choice(["a", "b", "rc", ".alpha", "-beta", "c"]) + str(rng.randrange(0, 5))
    elif r < 0.15:
        v += rng.choice([".post", "-", ".rev", "post"]) + str(rng.randrange(1, 4))
    elif r < 0.2:
        v += ".dev" + str(rng.randrange(0, 100))
    if rng.random() < 0.1:
        v += "+" + rng.choice(["cu118", "cu126", "cu128", "cpu", "rocm6.3", "ubuntu.1"])
    if rng.random() < 0.05:
        v = "v" + v.upper()
    return v

def spec(rng):
    clauses = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        op = rng.choice([">=", "<", "==", "!=", "~=", "<=", ">", "=="])
        base = "%d.%d" % (rng.choice([0, 1, 2, 3]), rng.randrange(0, 20))
        if op in ("==", "!=") and rng.random() < 0.3:
            base += ".*"
        clauses.append(op + base)
    return ",".join(clauses)

def main():
    out_dir = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    rng = random.Random(20261129)
    with open(out_dir + "/versions.txt", "w") as f:
        for _ in range(count):
            f.write(version(rng) + "\n")
    specs = [spec(rng) for _ in range(500)]
    with open(out_dir + "/checks.txt", "w") as f:
        for _ in range(count):
            f.write(rng.choice(specs) + "\t" + version(rng) + "\n")

main()
