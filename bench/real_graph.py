#!/usr/bin/env python3
"""A real published dependency graph (a uv.lock) as a scenario for bench_lock.

Reads a uv.lock and writes, into OUT_DIR:
  scenario.json     for bench_lock --scenario (tests/support/mirror_builder.hpp's format): every
                    wheel file the lock names (same project, version, build tag and tags; the
                    mirror builder writes the name normalised), on a local index for the
                    registry it came from (registry_index below: "simple" for PyPI,
                    "whl/<backend>" PyTorch-style for download.pytorch.org/whl/<backend>, the
                    host and path for any other registry: "wheels.vllm.ai/0.22.0/cu129"); each
                    wheel's METADATA carries the lock's edges as Requires-Dist (with their
                    markers; extras as `extra == "x"`), pinned with == where the lock holds
                    several versions of the target (uv's forks), and the lock's optional
                    dependencies as extras. Every index gets PEP 658 .metadata files and
                    #sha256= fragments.
                    Stand-ins: a package published only as an sdist gets a pure wheel of the
                    same name and version on its registry's index (building it would need a
                    build backend on the local index, for both sides), and so does one whose
                    wheels do not fit the environment uv builds it for; a package from a git
                    repository, a URL, a folder or a workspace member gets one on the index
                    "local/simple" (STAND_IN_INDEX) — the wheels of a URL source keep their
                    file names (tags); a member whose version is dynamic (none in the lock)
                    gets version 0.
  requirements.txt  the root project's requires-dist (specifiers and markers as uv read them)
  expected.txt      uv's choice for the platform: "name==version" per line, walked from the root
                    with the markers evaluated for (PYTHON_VERSION, linux, x86_64)
  info.json         counts, the target, the backend

Usage: real_graph.py UV_LOCK OUT_DIR [--python 3.12.1] [--machine x86_64]
(for one PyPI + one PyTorch backend lock such as nari-labs/dia's; bench/real_projects.py uses
the functions below for any lock and environment.)
Needs Python >= 3.11 (tomllib) and `packaging` (pip's vendored copy is used when needed).
"""
import argparse
import functools
import json
import re
import sys
import tomllib
from pathlib import Path
from urllib.parse import unquote

try:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name
except ImportError:  # pip's own copy
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name

PYPI_INDEX = "simple"
STAND_IN_INDEX = "local/simple"
# The version of a stand-in for a workspace member whose version uv.lock does not hold (dynamic).
DYNAMIC_VERSION = "0"
# uv's encoded conflict items in markers: extra-7-nemo-rl-vllm, group-13-open-instruct-cuda12.
CONFLICT_ITEM = re.compile(r"^(extra|group|project)-[0-9]+-")


def registry_index(registry):
    """The local index path and its scenario options for a registry URL of the lock."""
    url = registry.rstrip("/")
    m = re.match(r"https://download\.pytorch\.org/(whl(?:/(?:test|nightly))?/[a-z0-9.]+)$", url)
    if m:
        return m.group(1), {"style": "pytorch", "pep658": True}
    if url == "https://pypi.org/simple":
        return PYPI_INDEX, {"pep658": True}
    m = re.match(r"https?://(.+)$", url)
    if not m:
        return None
    return m.group(1), {"pep658": True}


def index_of(source):
    """The local index a package's source maps to; STAND_IN_INDEX for non-registry sources."""
    if "registry" in source:
        found = registry_index(source["registry"])
        return found[0] if found else None
    if any(k in source for k in ("git", "url", "path", "directory", "editable")):
        return STAND_IN_INDEX
    return None


def backend_of(index):
    """"whl/cu128" -> "cu128"; None for an index that is no PyTorch backend index."""
    m = re.match(r"whl/([a-z0-9.]+)$", index or "")
    return m.group(1) if m else None


@functools.lru_cache(maxsize=None)
def parsed_marker(marker):
    """Markers repeat across a lock's edges, and packaging's parser is slow on uv's long ones."""
    return Marker(marker)


def simplify_marker(marker, decide):
    """`marker` with every term for which decide(variable, op, value) answers True or False
    replaced and the result simplified: True, False, or the remaining marker text."""
    if not marker:
        return True
    decided = []

    def term_text(term):
        return " ".join(node.serialize() for node in term)

    def walk(items):
        groups = [[]]
        for item in items:
            if item == "or":
                groups.append([])
            elif item != "and":
                groups[-1].append(item)
        alternatives = []
        for group in groups:
            parts = []
            for item in group:
                if isinstance(item, list):
                    value = walk(item)
                else:
                    lhs, op, rhs = item
                    value = None
                    if lhs.__class__.__name__ == "Variable":
                        value = decide(str(lhs.value), str(op.value), str(rhs.value))
                        if value is not None:
                            decided.append(value)
                    if value is None:
                        value = (term_text(item), "atom")
                if value is False:
                    parts = None
                    break
                if value is not True:
                    parts.append(value)
            if parts is None:
                continue
            if not parts:
                return True
            if len(parts) == 1:
                alternatives.append(parts[0])
            else:
                alternatives.append((" and ".join(f"({t})" if k == "or" else t
                                                  for t, k in parts), "and"))
        if not alternatives:
            return False
        if len(alternatives) == 1:
            return alternatives[0]
        return (" or ".join(t for t, _ in alternatives), "or")

    result = walk(parsed_marker(marker)._markers)
    if not decided:
        return marker  # as written
    return result if isinstance(result, bool) else result[0]


def conflict_decider(active):
    """Decides uv's conflict terms (`extra == 'extra-7-nemo-rl-vllm'`) by membership in
    `active`, the items of one environment (None: the lock has no conflicts)."""

    def decide(variable, op, value):
        if active is None or variable != "extra" or not CONFLICT_ITEM.match(value):
            return None
        return (canonicalize_name(value) in active) == (op == "==")

    return decide


def wheel_groups(package):
    """{(dist, version, build tag): [tags]} of the package's wheels as their file names
    spell them; empty when it has none."""
    groups = {}
    for w in package.get("wheels", []):
        filename = unquote(w["url"].rsplit("/", 1)[1]) if "url" in w else w["filename"]
        parts = filename[: -len(".whl")].split("-")
        if len(parts) == 6:
            dist, version, build, tag = parts[0], parts[1], parts[2], "-".join(parts[3:])
        else:
            dist, version, build, tag = parts[0], parts[1], "", "-".join(parts[2:])
        tags = groups.setdefault((dist, version, build), [])
        if tag not in tags:
            tags.append(tag)
    return groups


def build_scenario(lock, active=None, copies=(), builds=()):
    """The mirror of `lock` (bench_lock's scenario.json format) and notes about it.

    active: uv's conflict items of the environment (see uv_lock_walk.walk), to decide the
            conflict terms of the edges' markers; None for a lock without conflicts.
    copies: (package, index): more copies of a package's files on another index (a torch
            core package uv took from PyPI, given to the backend index the environment uses).
    builds: packages uv builds from their sdist in the environment (no wheel fits it): a pure
            wheel of the same name and version stands in for the build, beside their wheels.
    """
    packages = lock["package"]
    by_name = {}
    for p in packages:
        by_name.setdefault(canonicalize_name(p["name"]), []).append(p)
    decide = conflict_decider(active)

    def requirement(dep, extra=None):
        marker = simplify_marker(dep.get("marker"), decide)
        if marker is False:
            return None
        name = dep["name"]
        text = name
        if dep.get("extra"):
            text += "[" + ",".join(sorted(dep["extra"])) + "]"
        versions = by_name.get(canonicalize_name(name), [])
        if len(versions) > 1 and "version" in dep:
            text += "==" + dep["version"]
        marker = None if marker is True else marker
        if extra is not None:
            extra_marker = f'extra == "{extra}"'
            marker = f"({marker}) and {extra_marker}" if marker else extra_marker
        if marker:
            text += " ; " + marker
        return text

    scenario = {"indexes": {PYPI_INDEX: {"pep658": True}}, "wheels": []}
    notes = {"wheels": 0, "sdist_only_as_wheels": [], "stand_ins": [], "indexes": []}
    published = {}  # (index, dist, version, build, tag) -> the scenario wheel

    def publish(index, package, build=False):
        source = package["source"]
        if "registry" in source:
            scenario["indexes"].setdefault(index, registry_index(source["registry"])[1])
        else:
            scenario["indexes"].setdefault(index, {"pep658": True})
        requires = [r for r in (requirement(d) for d in package.get("dependencies", [])) if r]
        extras = sorted(package.get("optional-dependencies", {}))
        for extra in extras:
            requires += [r for r in (requirement(d, extra)
                                     for d in package["optional-dependencies"][extra]) if r]
        groups = {} if build else wheel_groups(package)
        if not groups:
            dist = re.sub(r"[-_.]+", "_", package["name"]).lower()
            groups[(dist, package.get("version", DYNAMIC_VERSION), "")] = ["py3-none-any"]
            if not build:
                kind = "sdist_only_as_wheels" if "registry" in source else "stand_ins"
                notes[kind].append(package["name"])
        for (dist, version, build), tags in groups.items():
            for tag in tags:
                key = (index, canonicalize_name(dist), version, build, tag)
                if key in published:
                    # The same file twice (one git revision per platform, same version): one
                    # file whose metadata has the edges of both.
                    wheel = published[key]
                    wheel["requires_dist"] += [r for r in requires
                                               if r not in wheel["requires_dist"]]
                    continue
                wheel = {"index": index, "name": dist, "version": version, "build_tag": build,
                         "tags": [tag], "requires_dist": list(requires),
                         "provides_extra": extras}
                published[key] = wheel
                scenario["wheels"].append(wheel)
                notes["wheels"] += 1

    for name, versions in sorted(by_name.items()):
        for p in versions:
            if any(p["source"].get(k) == "." for k in ("editable", "virtual", "directory")):
                continue  # the workspace root: its requirements are the input
            if "virtual" in p["source"]:
                continue
            index = index_of(p["source"])
            if index is None:
                sys.exit(f"real_graph.py: {p['name']}: unknown source {p['source']}")
            publish(index, p)
    for p, index in copies:
        publish(index, p)
    for p in builds:
        publish(index_of(p["source"]), p, build=True)
    notes["indexes"] = sorted(scenario["indexes"])
    return scenario, notes


def root_of(lock):
    for p in lock["package"]:
        if any(p["source"].get(k) == "." for k in ("editable", "virtual", "directory")):
            return p
    sys.exit("real_graph.py: the lock has no editable/virtual root project")


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
    for p in packages:
        if "editable" in p["source"] or "virtual" in p["source"]:
            continue
        by_name.setdefault(canonicalize_name(p["name"]), []).append(p)
    root = root_of(lock)
    scenario, notes = build_scenario(lock)
    backends = {backend_of(i) for i in scenario["indexes"]} - {None}
    if set(scenario["indexes"]) - {PYPI_INDEX} - {f"whl/{b}" for b in backends}:
        sys.exit(f"real_graph.py: a source other than PyPI and PyTorch backend indexes: "
                 f"{notes['indexes']} (bench/real_projects.py handles those)")

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
        "wheels": notes["wheels"],
        "root": root["name"],
        "root_requirements": len(requirements),
        "backend": next(iter(backends)),
        "python": args.python,
        "target": f"linux-{args.machine}-{next(iter(backends))}",
        "chosen": len(chosen),
        "sdist_only_as_wheels": notes["sdist_only_as_wheels"],
    }
    (out / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
