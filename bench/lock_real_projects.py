#!/usr/bin/env python3
"""Locks the fifteen real uv projects (bench/real_projects.py) with aitk-env and with pip, each
against its uv.lock rebuilt as a local index, and compares both with uv's exact set.

Per environment (one Linux x86_64 row per project, one Windows x86_64 row where uv locked
Windows), one after the other:
  1. real_projects.py writes the scenario (the mirror, requirements.txt, expected.txt);
  2. `bench_lock --serve --scenario DIR` builds the mirror and serves it on 127.0.0.1 (nginx, or
     the test server with --server builtin);
  3. `aitk-env lock --target OS-x86_64-BACKEND --python X.Y.Z -r requirements.txt` with an empty
     cache (`--index-url` the local PyPI, `--torch-index-url` the local PyTorch indexes; the
     file's own `--extra-index-url` lines name the rest), then `aitk-env export` of the lock;
  4. Linux rows: `pip install --dry-run --ignore-installed --report - --only-binary=:all:
     --no-cache-dir -r requirements.txt` with pip 23.2 (PIP_PYTHON; `--python` runs it for the
     environment's interpreter under PYENV). Windows rows: aitk-env only (pip evaluates markers
     and wheel tags for the machine it runs on, and this one is Linux);
  5. both sets against uv's: "yes", or the names whose versions differ (expected | got).

Prints one line per environment and exits 1 naming the environments where aitk-env disagrees
with uv (or fails); 0 when it agrees everywhere. "as pip, not uv": aitk-env picked exactly what
pip picked, and uv's own choice differs from both (a version uv's fork resolution kept that a
requirements file does not ask for); it counts as a disagreement all the same. Each
environment's folder under --work keeps the scenario, the lock, both tools' output and
result.json (the differences in full).

Usage: lock_real_projects.py --aitk-env PATH --bench-lock PATH [--corpus DIR] [--work DIR]
         [--project NAME]... [--os linux|windows] [--server nginx|builtin] [--no-pip]
         [--pip-python PATH] [--pyenv DIR] [--results FILE] [--aitk-runs N]
  --aitk-runs: cold aitk-env locks per environment (default 3), each with a new cache; the
               median is reported (pip runs once: its variance is a small part of its time)
  --results: append a tab-separated line per environment (for bench/report.sh)
Needs Python >= 3.11 (tomllib) and `packaging` (pip's vendored copy is used when needed).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_projects import default_corpus, environments, make_environment  # noqa: E402

try:
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version
except ImportError:  # pip's own copy
    from pip._vendor.packaging.utils import canonicalize_name
    from pip._vendor.packaging.version import InvalidVersion, Version

SHORT = {  # column names
    "NVIDIA-NeMo_Automodel": "NeMo Automodel", "NVIDIA-NeMo_Curator": "NeMo Curator",
    "NVIDIA-NeMo_RL": "NeMo RL", "NovaSky-AI_SkyRL": "SkyRL",
    "PrimeIntellect-ai_prime-rl": "prime-rl", "allenai_open-instruct": "open-instruct",
    "bmaltais_kohya_ss": "kohya_ss", "fishaudio_fish-speech": "fish-speech",
    "huggingface_lerobot": "lerobot", "inclusionAI_AReaL": "AReaL",
    "index-tts_index-tts": "index-tts", "invoke-ai_InvokeAI": "InvokeAI",
    "jianchang512_pyvideotrans": "pyvideotrans", "karpathy_nanochat": "nanochat",
    "m-bain_whisperX": "whisperX",
}


def clean_environment():
    """Neither tool sees the machine's proxies, pip configuration or aitk-env settings."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PIP_") or k.startswith("AITK_ENV_") or k.lower().endswith(
               "_proxy"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def normalized(version):
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def read_set(lines):
    out = {}
    for line in lines:
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)", line)
        if m:
            out[canonicalize_name(m.group(1))] = normalized(m.group(3))
    return out


def differences(expected, got):
    """"name expected | got" for every name on which the two sets differ."""
    out = []
    for name in sorted(set(expected) | set(got)):
        if expected.get(name) != got.get(name):
            out.append(f"{name} {expected.get(name, '-')} | {got.get(name, '-')}")
    return out


def timed(argv, env, cwd, log_prefix, timeout=900):
    start = time.monotonic()
    try:
        r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or "", (e.stderr or "") + f"\ntimed out after {timeout} s"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    seconds = time.monotonic() - start
    Path(f"{log_prefix}.out").write_text(out)
    Path(f"{log_prefix}.err").write_text(err)
    return rc, out, err, seconds


class Mirror:
    """bench_lock --serve: builds the scenario's mirror and serves it until stopped."""

    def __init__(self, bench_lock, scenario, server):
        self.proc = subprocess.Popen(
            [bench_lock, "--serve", "--scenario", str(scenario), "--server", server],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=clean_environment())
        self.base = None
        self.built = ""
        lines = []
        for line in self.proc.stdout:
            lines.append(line)
            if line.startswith("real graph "):
                self.built = line.strip()
            m = re.match(r"served by .* at (http://127\.0\.0\.1:[0-9]+)/", line)
            if m:
                self.base = m.group(1)
            if line.startswith("press Enter"):
                break
        if self.base is None:
            self.proc.kill()
            err = self.proc.stderr.read()
            raise RuntimeError(f"bench_lock --serve did not start:\n{''.join(lines)}{err}")

    def stop(self):
        try:
            self.proc.stdin.write("\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=60)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def run_environment(args, corpus, work, project, os_name, python, extras, groups):
    folder = work / f"{project}__{os_name}"
    if folder.exists():
        shutil.rmtree(folder)
    info = make_environment(corpus, project, os_name, python, extras, groups, folder)
    expected = read_set((folder / "expected.txt").read_text().splitlines())
    row = {"project": project, "os": os_name, "target": info["target"], "python": python,
           "extras": extras, "groups": groups, "packages": len(expected)}
    env = clean_environment()
    mirror = Mirror(args.bench_lock, folder, args.server)
    try:
        base = mirror.base
        requirements = folder / "requirements.local.txt"
        requirements.write_text((folder / "requirements.txt").read_text().replace("@INDEX@",
                                                                                  base))
        lockfile = folder / "aitk.lock.yml"
        # --aitk-runs cold locks, each with a new cache folder, and their median: one run on a
        # small VM varies by 2x. Each run writes the same lock; the last one is compared.
        times = []
        for run in range(args.aitk_runs):
            cache = folder / f"aitk-cache-{run}"
            rc, out, err, seconds = timed(
                [args.aitk_env, "--cache-dir", str(cache), "-q", "--no-progress",
                 "--index-url", f"{base}/simple/", "--torch-index-url", f"{base}/whl",
                 "lock", "--target", info["target"], "--python", python,
                 "-r", str(requirements), "-o", str(lockfile)], env, folder, folder / "aitk-lock")
            times.append(seconds)
            if rc != 0:
                break
        row["aitk_seconds"] = statistics.median(times)
        row["aitk_exit"] = rc
        if rc == 0:
            erc, eout, eerr, _ = timed(
                [args.aitk_env, "export", "--lock", str(lockfile), "--format", "requirements",
                 "--target", info["target"]], env, folder, folder / "aitk-export")
            got = read_set(eout.splitlines()) if erc == 0 else {}
            row["aitk_differences"] = differences(expected, got)
            if erc != 0:
                row["aitk_differences"] = [f"export failed: {eerr.strip()[:300]}"]
        else:
            row["aitk_message"] = [line for line in err.strip().splitlines() if line][:12]
        # Kept until the work folder goes (or KEEP_WORK keeps it): a cache removed just before
        # the next environment's run would slow its file creation on ext4 (recently_deleted),
        # which a user's first run never meets.

        interpreter = Path(args.pyenv) / python / "bin" / "python"
        if os_name == "linux" and not args.no_pip and interpreter.exists():
            argv = [args.pip_python, "-m", "pip"]
            if Path(args.pip_python).resolve() != interpreter.resolve():
                argv += ["--python", str(interpreter)]
            argv += ["install", "--dry-run", "--ignore-installed", "--quiet",
                     "--disable-pip-version-check", "--report", "-", "--only-binary=:all:",
                     "--index-url", f"{base}/simple/", "--no-cache-dir", "-r", str(requirements)]
            rc, out, err, seconds = timed(argv, env, folder, folder / "pip")
            row["pip_seconds"] = seconds
            row["pip_exit"] = rc
            if rc == 0:
                got = {canonicalize_name(i["metadata"]["name"]): normalized(
                    i["metadata"]["version"]) for i in json.loads(out)["install"]}
                row["pip_differences"] = differences(expected, got)
            else:
                row["pip_message"] = [line for line in err.strip().splitlines() if line][-6:]
        elif os_name == "linux" and not args.no_pip:
            row["pip_skipped"] = f"no {interpreter}"
    finally:
        mirror.stop()
    row["mirror"] = mirror.built
    (folder / "result.json").write_text(json.dumps(row, indent=1) + "\n")
    return row


def failure(row):
    """aitk-env's exit as "exit 3 (glibc: vllm)": the package its derivation starts from, and
    the kind of reason its message gives (a guess from the words, for the table)."""
    text = " ".join(row.get("aitk_message", []))
    name = r"no version of ([A-Za-z0-9._-]+)[^()]*\("
    kinds = [(name + r"[^)]*is built for", "local label"),
             (name + r"[^)]*\boffers? \S+ for this target", "index"),
             (name + r"[^)]*other platforms[^)]*manylinux_2_(29|[3-9][0-9])_x86_64", "glibc"),
             (name + r"[^)]*other platforms", "tags"), (r"Because ([A-Za-z0-9._-]+)", None)]
    kind, m = next(((k, m) for words, k in kinds for m in [re.search(words, text)] if m),
                   (None, None))
    detail = ": ".join(x for x in (kind, m.group(1) if m else None) if x)
    return f"exit {row['aitk_exit']}" + (f" ({detail})" if detail else "")


def verdict(row, side):
    if f"{side}_exit" not in row:
        return "-"
    if row[f"{side}_exit"] != 0:
        return failure(row) if side == "aitk" else f"exit {row[side + '_exit']}"
    diff = row[f"{side}_differences"]
    if not diff:
        return "yes"
    if side == "aitk" and diff == row.get("pip_differences"):
        return "as pip, not uv"  # uv's choice is its own (a fork), not the requirements'
    names = [d.split(" ", 1)[0] for d in diff]
    return "no: " + ", ".join(names[:3]) + (f" (+{len(names) - 3})" if len(names) > 3 else "")


def line_of(row):
    label = SHORT.get(row["project"], row["project"])
    selection = "".join(f" [{e}]" for e in row["extras"]) + "".join(
        f" +{g}" for g in row["groups"])
    a, p = row.get("aitk_seconds"), row.get("pip_seconds")
    ratio = f"{p / a:.1f}x" if a and p and row.get("aitk_exit") == 0 and row.get(
        "pip_exit") == 0 else "-"
    a_text = f"{a:.2f}" if a is not None else "-"
    p_text = f"{p:.2f}" if p is not None else "-"
    return (f"{label + selection:<26} {row['target']:<21} {row['packages']:>4}  "
            f"{verdict(row, 'aitk'):<28} {verdict(row, 'pip'):<24} "
            f"{a_text:>7} {p_text:>7} {ratio:>7}")


HEADER = (f"{'project':<26} {'target':<21} {'pkgs':>4}  {'aitk-env = uv':<28} "
          f"{'pip = uv':<24} {'aitk s':>7} {'pip s':>7} {'pip/aitk':>7}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aitk-env", required=True)
    ap.add_argument("--bench-lock", required=True)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--project", action="append", default=[])
    ap.add_argument("--os", choices=["linux", "windows"], default=None)
    ap.add_argument("--server", choices=["nginx", "builtin"], default="nginx")
    ap.add_argument("--aitk-runs", type=int, default=3,
                    help="cold aitk-env locks per environment; their median is reported")
    ap.add_argument("--no-pip", action="store_true")
    ap.add_argument("--pip-python", default="/root/.pyenv/versions/3.12.1/bin/python")
    ap.add_argument("--pyenv", default=os.environ.get("PYENV_ROOT", "/root/.pyenv") +
                    "/versions")
    ap.add_argument("--results", default=None)
    args = ap.parse_args()
    args.aitk_env = str(Path(args.aitk_env).resolve())
    args.bench_lock = str(Path(args.bench_lock).resolve())
    corpus = args.corpus or default_corpus()
    if not corpus.is_dir():
        print(f"lock_real_projects.py: no {corpus} (../shared is not part of a clone; "
              "REAL_UV_DIR=... names the folder of the fifteen uv projects)", file=sys.stderr)
        return 3
    unknown = set(args.project) - set(SHORT)
    if unknown:
        print(f"lock_real_projects.py: unknown project(s) {sorted(unknown)}; known: "
              f"{sorted(SHORT)}", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="aitk-real-projects."))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder {work}; aitk-env {args.aitk_env}; pip {args.pip_python}")
    print(HEADER, flush=True)
    rows = []
    if args.results:
        with open(args.results, "a") as f:
            f.write(f"info\treal_projects_note\tserved by {args.server} on 127.0.0.1, pip "
                    "23.2 with `--python` for each project's interpreter.\n")
    for project, os_name, python, extras, groups in environments(corpus, args.project):
        if args.os and os_name != args.os:
            continue
        row = run_environment(args, corpus, work, project, os_name, python, extras, groups)
        rows.append(row)
        print(line_of(row), flush=True)
        if args.results:
            with open(args.results, "a") as f:
                f.write("real_project\t" + "\t".join(str(x) for x in (
                    SHORT[project], row["target"], row["packages"], verdict(row, "aitk"),
                    verdict(row, "pip"), row.get("aitk_seconds", ""),
                    row.get("pip_seconds", ""))) + "\n")
    agree = [r for r in rows if verdict(r, "aitk") == "yes"]
    print(f"aitk-env picks uv's exact set in {len(agree)} of {len(rows)} environments; pip in "
          f"{sum(verdict(r, 'pip') == 'yes' for r in rows)} of "
          f"{sum('pip_exit' in r for r in rows)} (Linux only)")
    failed = [r for r in rows if verdict(r, "aitk") != "yes"]
    for r in failed:
        detail = r.get("aitk_message") or r.get("aitk_differences")
        print(f"  aitk-env != uv: {SHORT[r['project']]} {r['target']}: {detail[:6]}")
    print(f"details: {work}/<project>__<os>/result.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
