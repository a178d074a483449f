#!/usr/bin/env python3
"""A real published dependency graph (a uv.lock) as a scenario for bench_lock.

Reads a uv.lock made against PyPI and PyTorch backend indexes and writes, into OUT_DIR:
  scenario.json     for bench_lock --scenario (tests/support/mirror_builder.hpp's format): every
                    wheel file the lock names (same project, version and file name), on the
                    index it came from ("simple" for PyPI, "whl/<backend>" for
                    download.pytorch.org/whl/<backend>); each wheel's METADATA carries the
                    lock's edges as Requires-Dist (with their markers; extras as
                    `extra == "x"`), pinned with == where the lock holds several versions of
                    the target (uv's forks), and the lock's optional dependencies as extras.
                    Both indexes get PEP 658 .metadata files and #sha256= fragments.
  requirements.txt  the root project's requires-dist (specifiers and markers as uv read them)
  expected.txt      uv's choice for the platform: "name==version" per line, walked from the root
                    with the markers evaluated for (PYTHON_VERSION, linux, x86_64)
  info.json         counts, the target, the backend

Usage: real_graph.py UV_LOCK OUT_DIR [--python 3.12.1] [--machine x86_64]
Needs Python >= 3.11 (tomllib) and `packaging` (pip's vendored copy is used when needed).
"""
import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

try:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name
except ImportError:  # pip's own copy
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name


def index_of(source):
    registry = source.get("registry", "")
    m = re.match(r"https://download\.pytorch\.org/whl/([a-z0-9.]+)", registry)
    if m:
        return "whl/" + m.group(1)
    if registry.startswith("https://pypi.org/simple"):
        return "simple"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lock")
    ap.add_argument("out")
    ap.add_argument("--python", default="3.12.1")
    ap.add_argument("--machine", default="x86_64")
    args = ap.parse_args()

    lock = tomllib.loads(Path(args.lock).read_text())
    packages = lock["package"]
    by_name = {}
    root = None
    for p in packages:
        if "editable" in p["source"] or "virtual" in p["source"]:
            root = p
            continue
        by_name.setdefault(canonicalize_name(p["name"]), []).append(p)
    if root is None:
        sys.exit("real_graph.py: the lock has no editable/virtual root project")

    def requirement(dep, extra=None, pin=True):
        name = dep["name"]
        text = name
        if dep.get("extra"):
            text += "[" + ",".join(sorted(dep["extra"])) + "]"
        versions = by_name.get(canonicalize_name(name), [])
        if pin and len(versions) > 1 and "version" in dep:
            text += "==" + dep["version"]
        marker = dep.get("marker")
        if extra is not None:
            extra_marker = f'extra == "{extra}"'
            marker = f"({marker}) and {extra_marker}" if marker else extra_marker
        if marker:
            text += " ; " + marker
        return text

    scenario = {
        "indexes": {"simple": {"pep658": True}},
        "wheels": [],
    }
    backends = set()
    wheels = 0
    sdist_only = []
    for name, versions in sorted(by_name.items()):
        for p in versions:
            index = index_of(p["source"])
            if index is None:
                sys.exit(f"real_graph.py: {p['name']}: unknown source {p['source']}")
            if index.startswith("whl/"):
                backends.add(index[4:])
                scenario["indexes"].setdefault(index, {"style": "pytorch", "pep658": True})
            requires = [requirement(d) for d in p.get("dependencies", [])]
            extras = sorted(p.get("optional-dependencies", {}))
            for extra in extras:
                requires += [requirement(d, extra) for d in p["optional-dependencies"][extra]]
            # Wheels grouped by (dist name, version, build tag) as their file names spell them.
            groups = {}
            for w in p.get("wheels", []):
                filename = w["url"].rsplit("/", 1)[1].replace("%2B", "+")
                parts = filename[: -len(".whl")].split("-")
                if len(parts) == 6:
                    dist, version, build, tag = parts[0], parts[1], parts[2], "-".join(parts[3:])
                else:
                    dist, version, build, tag = parts[0], parts[1], "", "-".join(parts[2:])
                groups.setdefault((dist, version, build), []).append(tag)
                wheels += 1
            if not groups:
                # sdist-only on PyPI: building it would need a build backend on the local
                # index, for both sides; a pure wheel of the same name and version stands in.
                filename = p["sdist"]["url"].rsplit("/", 1)[1]
                dist = filename[: -len("-" + p["version"] + ".tar.gz")]
                groups[(dist, p["version"], "")] = ["py3-none-any"]
                sdist_only.append(p["name"])
                wheels += 1
            for (dist, version, build), tags in groups.items():
                scenario["wheels"].append({
                    "index": index,
                    "name": dist,
                    "version": version,
                    "build_tag": build,
                    "tags": tags,
                    "requires_dist": requires,
                    "provides_extra": extras,
                })

    env = {
        "python_version": ".".join(args.python.split(".")[:2]),
        "python_full_version": args.python,
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": args.machine,
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }

    def applies(marker, extra=""):
        if not marker:
            return True
        return Marker(marker).evaluate(dict(env, extra=extra))

    # uv's choice for this platform: from the root, every edge whose marker holds.
    def pick(dep):
        versions = by_name[canonicalize_name(dep["name"])]
        if len(versions) == 1:
            return versions[0]
        for p in versions:
            if p["version"] == dep.get("version") and (
                "source" not in dep or dep["source"] == p["source"]
            ):
                return p
        sys.exit(f"real_graph.py: cannot tell which {dep['name']} an edge means")

    chosen = {}
    todo = [(d, ()) for d in root.get("dependencies", []) if applies(d.get("marker"))]
    seen = set()
    while todo:
        dep, _ = todo.pop()
        p = pick(dep)
        key = (canonicalize_name(p["name"]), p["version"])
        extras = tuple(sorted(dep.get("extra", [])))
        if (key, extras) in seen:
            continue
        seen.add((key, extras))
        if key[0] in chosen and chosen[key[0]] != p["version"]:
            sys.exit(f"real_graph.py: two versions of {key[0]} chosen")
        chosen[key[0]] = p["version"]
        edges = [d for d in p.get("dependencies", []) if applies(d.get("marker"))]
        for extra in extras:
            edges += [d for d in p.get("optional-dependencies", {}).get(extra, [])
                      if applies(d.get("marker"), extra)]
        todo += [(d, ()) for d in edges]

    requirements = []
    for r in root.get("metadata", {}).get("requires-dist", []):
        text = r["name"]
        if r.get("extras"):
            text += "[" + ",".join(r["extras"]) + "]"
        text += r.get("specifier", "")
        if r.get("marker"):
            text += " ; " + r["marker"]
        requirements.append(text)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.json").write_text(json.dumps(scenario, indent=1) + "\n")
    (out / "requirements.txt").write_text("\n".join(requirements) + "\n")
    (out / "expected.txt").write_text(
        "".join(f"{n}=={v}\n" for n, v in sorted(chosen.items())))
    if len(backends) != 1:
        sys.exit(f"real_graph.py: expected one PyTorch backend index, found {sorted(backends)}")
    info = {
        "projects": len(by_name),
        "wheels": wheels,
        "root": root["name"],
        "root_requirements": len(requirements),
        "backend": next(iter(backends)),
        "python": args.python,
        "target": f"linux-{args.machine}-{next(iter(backends))}",
        "chosen": len(chosen),
        "sdist_only_as_wheels": sdist_only,
    }
    (out / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
