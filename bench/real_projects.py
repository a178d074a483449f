#!/usr/bin/env python3
"""The fifteen real uv projects of ../shared/realworld/uv (README.md there), each as a local index
rebuilt from its uv.lock and a requirements file of its root's requirements, per environment.

For every project: one environment on Linux x86_64 (the root's dependencies, plus the extra or
group that brings the project's torch build, or the vllm index, when it has one: PROJECTS
below), and the same on Windows x86_64 where uv locked Windows (no `environments` of the project
leaves it out). Each environment gets a folder, a `bench_lock --scenario` folder:

  scenario.json     the lock's files on local indexes (bench/real_graph.py build_scenario): PyPI
                    as "simple", download.pytorch.org/whl/<b> as "whl/<b>" (PyTorch style), any
                    other registry under its host and path ("wheels.vllm.ai/0.22.0/cu129",
                    "flashinfer.ai/whl/cu130", ...). Stand-ins: git, URL, folder and workspace
                    member sources become wheels of the same name and version on "local/simple"
                    (a URL's wheels keep their file names; see real_graph.py). uv's conflict
                    terms in the edges' markers are decided for the environment. A torch core
                    package (torch, torchvision, torchaudio) uv took from another index than the
                    environment's PyTorch backend index (whisperX's torchvision, from PyPI) gets
                    its files on the backend index too: the real backend index has that release.
  requirements.txt  what a user of the project writes: the root's requires-dist (and the chosen
                    extras' and groups'; markers with `extra` decided), a requirement with a
                    git/URL/path source as `name==version` (its stand-in), and the index lines:
                    `--extra-index-url @INDEX@/whl/<backend>/` for the PyTorch index, one per
                    other registry the environment uses (vllm's, flashinfer's, ...), and
                    @INDEX@/local/simple/ for the stand-ins. @INDEX@ is the served mirror's base
                    URL (bench_lock and lock_real_projects.py put it in); PyPI is the tools'
                    --index-url.
  expected.txt      uv's choice for the environment, "name==version" a line: the packages
                    `uv sync --frozen --no-default-groups [--extra E] [--group G]` installs,
                    walked from the lock by bench/uv_lock_walk.py (independent of aitk-env), the
                    project itself left out
  info.json         what bench_lock reads (target, backend, counts) and what the environment is

Usage: real_projects.py OUT_DIR [--corpus DIR] [--project NAME]...
  (DIR: default ../shared/realworld/uv beside the checkout; REAL_UV_DIR overrides)
Writes OUT_DIR/<project>__<os>/ per environment and prints one JSON line per environment.
Needs Python >= 3.11 (tomllib) and `packaging` (pip's vendored copy is used when needed).
"""
import argparse
import json
import os
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_graph import (DYNAMIC_VERSION, STAND_IN_INDEX, backend_of,  # noqa: E402
                        build_scenario, index_of, root_of, wheel_groups)
from uv_lock_walk import environment, walk  # noqa: E402

try:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name
except ImportError:  # pip's own copy
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name

# (corpus name, Python, extras, groups, why): the Python is one the project allows that
# pyenv has here; extras/groups only where the project's torch build (or the index the issue
# is about) comes through one.
PROJECTS = [
    ("NVIDIA-NeMo_Automodel", "3.12.1", [], [], "torch from cu130 by marker"),
    ("NVIDIA-NeMo_Curator", "3.12.1", ["vllm"], [], "vllm 0.22.0+cu129 from vllm's index"),
    ("NVIDIA-NeMo_RL", "3.13.0", [], [], "requires-python 3.13"),
    ("NovaSky-AI_SkyRL", "3.12.1", ["fsdp"], [], "torch only through an extra"),
    ("PrimeIntellect-ai_prime-rl", "3.12.1", [], [], "workspace, URL wheels"),
    ("allenai_open-instruct", "3.12.1", [], ["cuda12"], "torch cu128 by its default group"),
    ("bmaltais_kohya_ss", "3.11.7", [], [], "requires-python < 3.12"),
    ("fishaudio_fish-speech", "3.12.1", ["cu128"], [], "backend extras in conflicts"),
    ("huggingface_lerobot", "3.12.1", [], [], "torch from cu128 on Linux"),
    ("inclusionAI_AReaL", "3.12.1", ["cuda"], [], "torch cu129 only through an extra"),
    ("index-tts_index-tts", "3.11.7", [], [], "requires-python < 3.12"),
    ("invoke-ai_InvokeAI", "3.12.1", ["cuda"], [], "backend extras in conflicts"),
    ("jianchang512_pyvideotrans", "3.10.13", [], [], "requires-python 3.10"),
    ("karpathy_nanochat", "3.12.1", ["gpu"], [], "backend extras in conflicts"),
    ("m-bain_whisperX", "3.12.1", [], [], "torchvision from PyPI beside cu128 torch"),
]
TORCH_CORE = ("torch", "torchvision", "torchaudio")
SOURCE_KEYS = ("git", "url", "path", "directory", "editable")


def default_corpus():
    root = Path(__file__).resolve().parent.parent
    return Path(os.environ.get("REAL_UV_DIR") or root.parent / "shared" / "realworld" / "uv")


def locks_windows(lock):
    """Whether uv locked Windows x86_64: no `environments` (supported-markers) leave it out."""
    markers = lock.get("supported-markers")
    if not markers:
        return True
    env = environment("windows", "x86_64", "3.12.1")
    return any(Marker(m).evaluate(dict(env, extra="")) for m in markers)


def wheel_fits(tag, os_name, python):
    """Whether a wheel's compressed tag set ("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_
    x86_64") installs on CPython `python` for Linux or Windows x86_64, any manylinux level (uv
    locks for every glibc)."""
    interpreters, abis, platforms = (part.split(".") for part in tag.split("-"))
    xy = "".join(python.split(".")[:2])
    interpreter = any(
        i in (f"cp{xy}", f"py{xy}", "py3") or
        (i.startswith("cp3") and "abi3" in abis and i[2:].isdigit() and int(i[2:]) <= int(xy))
        for i in interpreters)
    abi = any(a in ("none", "abi3", f"cp{xy}") for a in abis)
    if os_name == "windows":
        platform = any(p in ("any", "win_amd64") for p in platforms)
    else:
        platform = any(p in ("any", "linux_x86_64") or
                       (p.startswith("manylinux") and p.endswith("_x86_64")) for p in platforms)
    return interpreter and abi and platform


def holds(marker, env, extras):
    """A marker of the root's requirements for this environment and its chosen extras."""
    if not marker:
        return True
    m = Marker(marker)
    if "extra" not in marker:
        return m.evaluate(dict(env, extra=""))
    return any(m.evaluate(dict(env, extra=e)) for e in (sorted(extras) or [""]))


def root_requirements(root, env, extras, groups, versions, overrides=()):
    """The requirements file's requirement lines: the root's requires-dist for its default
    dependencies and `extras`, and the requires-dev of `groups`, with uv's `overrides` (the
    lock's [manifest]) applied. `versions`: uv's choice."""
    metadata = root.get("metadata", {})
    root_name = canonicalize_name(root["name"])
    extras = {canonicalize_name(e) for e in extras}
    # An extra that names the project's own extras ("areal[sglang]") brings those too.
    while True:
        more = set()
        for r in metadata.get("requires-dist", []):
            if canonicalize_name(r["name"]) == root_name and holds(r.get("marker"), env, extras):
                more |= {canonicalize_name(e) for e in r.get("extras", [])}
        if more <= extras:
            break
        extras |= more
    entries = list(metadata.get("requires-dist", []))
    for g in groups:
        entries += metadata.get("requires-dev", {}).get(g, [])
    # uv's override-dependencies replace every requirement of their name; the replaced
    # requirement's marker still applies (uv ANDs the two).
    by_name = {}
    for o in overrides:
        by_name.setdefault(canonicalize_name(o["name"]), []).append(o)
    replaced = []
    for r in entries:
        for o in by_name.get(canonicalize_name(r["name"]), [r]):
            if o is not r:
                markers = [m for m in (r.get("marker"), o.get("marker")) if m]
                o = dict(o, marker=" and ".join(f"({m})" for m in markers) if markers else None)
                if r.get("extras") and not o.get("extras"):
                    o["extras"] = r["extras"]
            replaced.append(o)
    entries = replaced
    lines = []
    for r in entries:
        name = canonicalize_name(r["name"])
        if name == root_name:
            continue
        marker = r.get("marker")
        if "extra" in (marker or "") or any(k in r for k in SOURCE_KEYS):
            # Decided here: the root's extras are ours to choose, and a source's pin is the
            # version uv took for this environment.
            if not holds(marker, env, extras):
                continue
            marker = None
        text = r["name"]
        if r.get("extras"):
            text += "[" + ",".join(r["extras"]) + "]"
        if any(k in r for k in SOURCE_KEYS):
            if name not in versions:
                continue
            text += "==" + versions[name]
        else:
            text += r.get("specifier", "")
        if marker:
            text += " ; " + marker
        if text not in lines:
            lines.append(text)
    return lines


def make_environment(corpus, project, os_name, python, extras, groups, out):
    lock = tomllib.loads((corpus / f"{project}__uv.lock").read_text())
    root = root_of(lock)
    chosen, active = walk(lock, os_name, "x86_64", python, extras, groups, False)
    chosen = [p for p in chosen if not any(p["source"].get(k) == "." for k in
                                           ("editable", "virtual", "directory"))]
    versions = {canonicalize_name(p["name"]): p.get("version", DYNAMIC_VERSION) for p in chosen}
    indexes = {canonicalize_name(p["name"]): index_of(p["source"]) for p in chosen}

    # The backend: where uv took torch from for this environment.
    backend = backend_of(indexes.get("torch")) or "cpu"
    backend_index = f"whl/{backend}"
    copies = [(p, backend_index) for p in chosen
              if canonicalize_name(p["name"]) in TORCH_CORE and indexes[canonicalize_name(
                  p["name"])] != backend_index]
    # uv builds a package from its sdist where none of its wheels fits: a pure wheel of the
    # same name and version stands in for that build, on the same index.
    builds = [p for p in chosen if "registry" in p["source"] and "sdist" in p
              and not any(wheel_fits(tag, os_name, python)
                          for tags in wheel_groups(p).values() for tag in tags)]
    scenario, notes = build_scenario(lock, active if lock.get("conflicts") else None, copies,
                                     builds)

    env = environment(os_name, "x86_64", python)
    requirements = root_requirements(root, env, extras, groups, versions,
                                     lock.get("manifest", {}).get("overrides", []))
    used = set(indexes.values())
    index_lines = []
    if backend_index in used:
        index_lines.append(f"--extra-index-url @INDEX@/{backend_index}/")
    for index in sorted(used - {"simple", backend_index, STAND_IN_INDEX}):
        index_lines.append(f"--extra-index-url @INDEX@/{index}/")
    if STAND_IN_INDEX in used:
        index_lines.append(f"--extra-index-url @INDEX@/{STAND_IN_INDEX}/")
    target = f"{os_name}-x86_64-{backend}"
    selection = "".join(f" --extra {e}" for e in extras) + "".join(f" --group {g}"
                                                                   for g in groups)
    header = [
        f"# {project}: the root's requirements for {target}, Python {python}"
        f"{selection and ' (' + selection.strip() + ')'}",
        "# (bench/real_projects.py; @INDEX@ is the local mirror; git/URL/path sources are",
        "# stand-in wheels on local/simple, pinned to the version uv.lock holds)",
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.json").write_text(json.dumps(scenario, indent=1) + "\n")
    (out / "requirements.txt").write_text("\n".join(header + index_lines + requirements) + "\n")
    (out / "expected.txt").write_text(
        "".join(f"{n}=={v}\n" for n, v in sorted(versions.items())))
    info = {
        "project": project,
        "root": root["name"],
        "os": os_name,
        "python": python,
        "extras": extras,
        "groups": groups,
        "target": target,
        "backend": backend,
        "projects": len({canonicalize_name(p["name"]) for p in lock["package"]}),
        "wheels": notes["wheels"],
        "root_requirements": len(requirements),
        "chosen": len(versions),
        "indexes": notes["indexes"],
        "index_lines": [line.split(" ", 1)[1] for line in index_lines],
        "copied_to_backend_index": [p["name"] for p, _ in copies],
        "stand_ins": notes["stand_ins"],
        "sdist_only_as_wheels": notes["sdist_only_as_wheels"],
        "sdist_builds_as_wheels": [p["name"] for p in builds],
    }
    (out / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def environments(corpus, only=()):
    """(project, os, python, extras, groups) of every environment, in table order."""
    for project, python, extras, groups, _ in PROJECTS:
        if only and project not in only:
            continue
        yield project, "linux", python, extras, groups
        lock = tomllib.loads((corpus / f"{project}__uv.lock").read_text())
        if locks_windows(lock):
            yield project, "windows", python, extras, groups


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--project", action="append", default=[])
    args = ap.parse_args()
    corpus = args.corpus or default_corpus()
    if not corpus.is_dir():
        sys.exit(f"real_projects.py: no {corpus} (../shared is not part of a clone; "
                 "REAL_UV_DIR=... names the folder of the fifteen uv projects)")
    for project, os_name, python, extras, groups in environments(corpus, args.project):
        info = make_environment(corpus, project, os_name, python, extras, groups,
                                Path(args.out) / f"{project}__{os_name}")
        print(json.dumps(info))


if __name__ == "__main__":
    main()
