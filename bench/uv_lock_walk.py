#!/usr/bin/env python3
"""What `uv sync --frozen` installs from a uv.lock for one environment, computed independently of
aitk-env (Python, packaging's markers), to check aitk-env's reading of uv.lock against.

It follows uv's walk (crates/uv-resolver/src/lock/installable.rs): from the workspace root (the
package whose source is editable/virtual/directory "."), with the chosen extras and dependency
groups (default groups: "dev"), every edge whose marker holds. Markers of locks with `conflicts`
compare `extra` with uv's encoded conflict items ("extra-8-nanochat-cpu"); they are evaluated with
the active items (the root as "project-N-name", its chosen extras and groups, and every extra an
edge enables, collected by a first walk).

Usage: uv_lock_walk.py UV_LOCK [--os linux|windows|macos] [--machine x86_64] [--python 3.12.1]
                       [--extra E]... [--group G]... [--no-default-groups]
Prints "name==version" per installed package (virtual packages left out), sorted.
Needs Python >= 3.11 (tomllib) and `packaging` (pip's vendored copy is used when needed).
"""
import argparse
import functools
import re
import sys
import tomllib
from collections import deque
from pathlib import Path

try:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name
except ImportError:  # pip's own copy
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name

EXTRA_TERM = re.compile(r"extra\s*(==|!=)\s*'([^']*)'")


def environment(os_name, machine, python):
    system = {"linux": ("linux", "Linux", "posix"), "windows": ("win32", "Windows", "nt"),
              "macos": ("darwin", "Darwin", "posix")}[os_name]
    if os_name == "windows":
        machine = {"x86_64": "AMD64", "aarch64": "ARM64"}.get(machine, machine)
    return {
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "sys_platform": system[0],
        "platform_system": system[1],
        "os_name": system[2],
        "platform_machine": machine,
        "implementation_name": "cpython",
        "implementation_version": python,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_version": "",
    }


def holds(marker, env, active):
    """packaging evaluates one `extra` value; uv's markers ask about a set of them. Each
    `extra == 'x'` term becomes a comparison that is true or false by membership."""
    if not marker:
        return True

    def term(m):
        value = canonicalize_name(m.group(2))
        true = (value in active) == (m.group(1) == "==")
        return "python_version >= '0'" if true else "python_version < '0'"

    return parsed(EXTRA_TERM.sub(term, marker)).evaluate(dict(env, extra=""))


@functools.lru_cache(maxsize=None)
def parsed(marker):
    """Markers repeat across a lock's edges, and packaging's parser is slow on uv's long ones."""
    return Marker(marker)


def encode(kind, package, name=None):
    package = canonicalize_name(package)
    if kind == "project":
        return f"project-{len(package)}-{package}"
    return f"{kind}-{len(package)}-{package}-{canonicalize_name(name)}"


def walk(lock, os_name="linux", machine="x86_64", python="3.12.1", extra=(), group=(),
         default_groups=True):
    """The packages (the lock's tables) `uv sync --frozen` installs, virtual ones left out, and
    the conflict items active in the environment (empty for a lock without conflicts).
    `lock` is the parsed uv.lock; default_groups adds "dev" (uv's default)."""
    packages = lock["package"]
    by_name = {}
    for i, p in enumerate(packages):
        by_name.setdefault(canonicalize_name(p["name"]), []).append(i)

    def target(dep):
        candidates = by_name[canonicalize_name(dep["name"])]
        if len(candidates) == 1:
            return candidates[0]
        found = [i for i in candidates
                 if ("version" not in dep or packages[i].get("version") == dep["version"])
                 and ("source" not in dep or packages[i]["source"] == dep["source"])]
        if len(found) != 1:
            sys.exit(f"uv_lock_walk.py: cannot tell which {dep['name']} an edge means")
        return found[0]

    roots = [i for i, p in enumerate(packages)
             if any(p["source"].get(k) == "." for k in ("editable", "virtual", "directory"))]
    if not roots:
        sys.exit("uv_lock_walk.py: no workspace root")
    env = environment(os_name, machine, python)
    extras = {canonicalize_name(e) for e in extra}
    groups = {canonicalize_name(g) for g in group}
    if default_groups:
        groups.add("dev")
    conflicts = bool(lock.get("conflicts"))

    active = set()
    nodes = {}
    queue = deque()
    seen = set()

    def push(i, extra):
        if (i, extra) not in seen:
            seen.add((i, extra))
            queue.append((i, extra))

    def take(src, dep):
        j = target(dep)
        nodes.setdefault(j, set())
        push(j, None)
        for e in dep.get("extra", []):
            push(j, canonicalize_name(e))

    for r in roots:
        p = packages[r]
        nodes.setdefault(r, set())
        root_extras = [e for e in p.get("optional-dependencies", {}) if e in extras]
        if conflicts:
            active.add(encode("project", p["name"]))
            active.update(encode("extra", p["name"], e) for e in root_extras)
            active.update(encode("group", p["name"], g)
                          for g in p.get("dev-dependencies", {}) if g in groups)
        push(r, None)
        for e in root_extras:
            push(r, e)
    for r in roots:
        p = packages[r]
        for g, deps in p.get("dev-dependencies", {}).items():
            if canonicalize_name(g) not in groups:
                continue
            for dep in deps:
                new = {encode("extra", dep["name"], e) for e in dep.get("extra", [])} - active
                if not holds(dep.get("marker"), env, active | new):
                    continue
                active |= new
                take(r, dep)

    def edges(i, extra):
        p = packages[i]
        if extra is None:
            return p.get("dependencies", [])
        return p.get("optional-dependencies", {}).get(extra, [])

    if conflicts:
        q = deque(queue)
        s = set(seen)
        while q:
            i, extra = q.popleft()
            for dep in edges(i, extra):
                new = {encode("extra", dep["name"], e) for e in dep.get("extra", [])} - active
                if not holds(dep.get("marker"), env, active | new):
                    continue
                active |= new
                j = target(dep)
                for key in [(j, None)] + [(j, canonicalize_name(e)) for e in dep.get("extra", [])]:
                    if key not in s:
                        s.add(key)
                        q.append(key)

    while queue:
        i, extra = queue.popleft()
        for dep in edges(i, extra):
            if holds(dep.get("marker"), env, active):
                take(i, dep)

    chosen = [packages[i] for i in nodes if "virtual" not in packages[i]["source"]]
    names = [canonicalize_name(p["name"]) for p in chosen]
    if len(names) != len(set(names)):
        sys.exit("uv_lock_walk.py: two versions of one package")
    return chosen, active


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lock")
    ap.add_argument("--os", default="linux")
    ap.add_argument("--machine", default="x86_64")
    ap.add_argument("--python", default="3.12.1")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--group", action="append", default=[])
    ap.add_argument("--no-default-groups", action="store_true")
    args = ap.parse_args()

    lock = tomllib.loads(Path(args.lock).read_text())
    chosen, _ = walk(lock, args.os, args.machine, args.python, args.extra, args.group,
                  not args.no_default_groups)
    print("\n".join(sorted(f"{canonicalize_name(p['name'])}=={p.get('version', '')}"
                           for p in chosen)))


if __name__ == "__main__":
    main()
