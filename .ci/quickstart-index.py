#!/usr/bin/env python3
"""Writes a static package index of stand-in wheels for the built-in manifest's requirement set.

Usage: quickstart-index.py MANIFEST OUT_DIR [BACKEND=PLATFORM[,PLATFORM...] ...]

OUT_DIR/simple/<project>/index.html is a PEP 503 index (with PEP 658 .metadata files) of one
py3-none-any wheel per requirement of MANIFEST's `requirements` and `extra_requirements`, at a
version its specifier admits; OUT_DIR/whl/<backend>/<project>/ holds the torch family
(`torch.version`, its `torch.packages` and the requirements that aitk-env routes to the torch
index, e.g. torchao) as `<version>+<backend>` wheels for the backend a machine without a GPU
runs ("cpu"). The wheels are real zip files (METADATA,
WHEEL, RECORD with the right hashes) without dependencies, so a resolver's answer is the list
itself; the stand-in torch answers the smoke test (`torch.__version__`, `torch.version.cuda`,
`torch.cuda.is_available()`).

Each BACKEND=PLATFORM argument adds OUT_DIR/whl/BACKEND/ with the torch family as compiled wheels
for those platform tags (cp312-cp312-PLATFORM, e.g. cu130=manylinux_2_28_aarch64): an
index whose builds exist for some architectures only, as download.pytorch.org's do.
Requirements by URL (`name @ git+https://...`) are left out:
CI locks them unbuilt (AITK_ENV_NO_BUILD=1).

Only the manifest's own layout is read (two-space YAML as written in manifests/), without a YAML
library, so the script needs nothing beyond Python's standard library; a manifest it cannot read
fails the run with the line it stopped at.
"""
import base64
import hashlib
import html
import os
import re
import sys
import zipfile

REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*"
    r"(?:\[(?P<extras>[^\]]*)\])?\s*(?P<spec>[^;@]*?)\s*(?:;.*)?$")
CLAUSE = re.compile(r"^(===|==|~=|>=|<=|!=|>|<)\s*(\S+)$")
BACKENDS = ["cpu"]  # the CI machine has no GPU: doctor picks cpu
# The projects aitk-env fetches from the torch backend index only (src/index/routing.cpp,
# default_torch_family()); "*" ends a prefix.
TORCH_FAMILY = ["torch", "torchvision", "torchaudio", "torchao", "torchcodec", "torchtext",
                "torchdata", "torchrec", "torchtune", "torch-tensorrt", "fbgemm-gpu", "xformers",
                "triton", "pytorch-triton*"]
EPOCH = (2020, 1, 1, 0, 0, 0)  # fixed zip timestamps: the same input gives the same bytes


def fail(message):
    sys.exit("quickstart-index.py: " + message)


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def read_manifest(path):
    """(torch version, {family member: version}, [requirement lines]) of a manifest."""
    torch_version, family, requirements = None, {}, []
    section, subsection = None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if indent == 0:
            section, subsection = text.split(":", 1)[0], None
            continue
        if section == "torch":
            if indent == 2:
                key, _, value = text.partition(":")
                subsection = key
                if key == "version":
                    torch_version = value.strip().strip("\"'")
            elif indent == 4 and subsection == "packages":
                key, _, value = text.partition(":")
                family[key.strip()] = value.strip().strip("\"'")
        elif section == "requirements" and text.startswith("- "):
            requirements.append(text[2:].strip().strip("\"'"))
        elif section == "extra_requirements" and text.startswith("- ") and indent >= 6:
            requirements.append(text[2:].strip().strip("\"'"))
        elif section in ("requirements",):
            fail(f"{path}:{number}: cannot read this requirement line: {raw!r}")
    if not torch_version or not requirements:
        fail(f"{path}: no torch.version or no requirements found (has the layout changed?)")
    return torch_version, family, requirements


def in_torch_family(name):
    n = normalize(name)
    return any(n.startswith(p[:-1]) if p.endswith("*") else n == p for p in TORCH_FAMILY)


def version_for(spec, where):
    """A version the specifier admits (the pinned one, the lower bound, or 1.0)."""
    clauses = [c.strip() for c in spec.split(",") if c.strip()]
    chosen = None
    for clause in clauses:
        m = CLAUSE.match(clause)
        if not m:
            fail(f"{where}: cannot read the specifier clause {clause!r}")
        op, version = m.groups()
        if op in ("==", "===") and not version.endswith(".*"):
            return version
        if op in (">=", "~=") and chosen is None:
            chosen = version
        elif op == ">" and chosen is None:
            chosen = version + ".post1"
        elif op in ("<", "<=", "!=", "==") and len(clauses) == 1:
            fail(f"{where}: no stand-in version rule for {clause!r}; extend version_for()")
    return chosen or "1.0"


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def build_wheel(directory, project, version, files, extras=(), tag="py3-none-any"):
    """Writes the wheel; returns (filename, sha256 hex, METADATA bytes)."""
    dist = re.sub(r"[-_.]+", "_", project).lower()
    info = f"{dist}-{version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n"
                f"Summary: {project} (stand-in wheel for aitk-env's CI)\n")
    metadata += "".join(f"Provides-Extra: {e}\n" for e in extras)
    members = dict(files)
    members[f"{info}/METADATA"] = metadata
    members[f"{info}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: aitk-env-ci\n"
                                f"Root-Is-Purelib: {str(tag == 'py3-none-any').lower()}\n"
                                f"Tag: {tag}\n")
    record = ""
    for name, text in members.items():
        data = text.encode()
        record += f"{name},{record_hash(data)},{len(data)}\n"
    record += f"{info}/RECORD,,\n"
    members[f"{info}/RECORD"] = record
    filename = f"{dist}-{version}-{tag}.whl"
    path = os.path.join(directory, filename)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            entry = zipfile.ZipInfo(name, EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            z.writestr(entry, text)
    with open(path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    return filename, sha, metadata.encode()


def write_project(index_dir, project, wheels):
    """index_dir/<project>/index.html linking the wheels (built into that folder)."""
    folder = os.path.join(index_dir, normalize(project))
    os.makedirs(folder, exist_ok=True)
    links = []
    for version, files, extras, *tag in wheels:
        filename, sha, metadata = build_wheel(folder, project, version, files, extras, *tag)
        with open(os.path.join(folder, filename + ".metadata"), "wb") as f:
            f.write(metadata)
        meta = "sha256=" + hashlib.sha256(metadata).hexdigest()
        href = html.escape(filename.replace("+", "%2B"))
        links.append(f'    <a href="{href}#sha256={sha}" data-dist-info-metadata="{meta}" '
                     f'data-core-metadata="{meta}">{html.escape(filename)}</a><br>\n')
    with open(os.path.join(folder, "index.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html><body>\n" + "".join(links) + "</body></html>\n")
    return normalize(project)


def write_root(index_dir, projects):
    with open(os.path.join(index_dir, "index.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html><body>\n")
        for p in sorted(projects):
            f.write(f'    <a href="{p}/">{p}</a><br>\n')
        f.write("</body></html>\n")


def torch_files(version, backend):
    init = (f'__version__ = "{version}"\n'
            "from . import cuda, version  # noqa: E402,F401\n")
    return {
        "torch/__init__.py": init,
        "torch/version.py": f'__version__ = "{version}"\ncuda = None\n',
        "torch/cuda.py": "def is_available():\n    return False\n",
    }


def main():
    if len(sys.argv) < 3:
        fail("usage: quickstart-index.py MANIFEST OUT_DIR [BACKEND=PLATFORM[,PLATFORM...] ...]")
    manifest, out = sys.argv[1], sys.argv[2]
    platforms = {b: None for b in BACKENDS}  # None: one py3-none-any wheel
    for arg in sys.argv[3:]:
        backend, _, tags = arg.partition("=")
        if not backend or not tags:
            fail(f"expected BACKEND=PLATFORM[,PLATFORM...], not {arg!r}")
        platforms[backend] = ["cp312-cp312-" + t for t in tags.split(",")]
    torch_version, family, requirements = read_manifest(manifest)
    family = {"torch": torch_version, **family}
    pinned_family = {normalize(n) for n in family}

    simple = os.path.join(out, "simple")
    os.makedirs(simple, exist_ok=True)
    projects, wanted = [], {}
    for line in requirements:
        if " @ " in line or "://" in line:
            continue  # a URL requirement: locked unbuilt (AITK_ENV_NO_BUILD=1)
        m = REQUIREMENT.match(line)
        if not m:
            fail(f"{manifest}: cannot read the requirement {line!r}")
        name = m.group("name")
        if normalize(name) in pinned_family:
            continue
        extras = [e.strip() for e in (m.group("extras") or "").split(",") if e.strip()]
        version = version_for(m.group("spec"), f"{manifest}: {line}")
        if in_torch_family(name):
            family[name] = version
            continue
        previous = wanted.get(normalize(name))
        if previous and previous[1] != version:
            fail(f"{manifest}: {name} is wanted at {previous[1]} and {version}")
        wanted[normalize(name)] = (name, version, extras)
    for name, version, extras in wanted.values():
        module = re.sub(r"[-_.]+", "_", name).lower()
        files = {f"{module}/__init__.py": f'__version__ = "{version}"\n'}
        projects.append(write_project(simple, name, [(version, files, extras)]))
    write_root(simple, projects)

    count = len(projects)
    for backend, tags in platforms.items():
        backend_dir = os.path.join(out, "whl", backend)
        os.makedirs(backend_dir, exist_ok=True)
        members = []
        for name, version in family.items():
            local = f"{version}+{backend}"
            module = re.sub(r"[-_.]+", "_", name).lower()
            files = (torch_files(local, backend) if name == "torch" else
                     {f"{module}/__init__.py": f'__version__ = "{local}"\n'})
            wheels = [(local, files, [])] if tags is None else [(local, files, [], t) for t in tags]
            members.append(write_project(backend_dir, name, wheels))
            count += len(wheels)
        write_root(backend_dir, members)
    print(f"quickstart index: {count} stand-in wheels under {out} "
          f"(simple/ and whl/{','.join(platforms)}/)")


if __name__ == "__main__":
    main()
