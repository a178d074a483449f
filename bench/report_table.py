#!/usr/bin/env python3
"""Turns the records bench/report.sh collected (bench/results_file.hpp's format) into the
Markdown report and the gnuplot script of bench/results/ratios.png.

Usage: report_table.py RESULTS.tsv REPORT.md PLOT_DIR [--replace TEXT=NAME]...
  PLOT_DIR receives ratios.dat and ratios.gp (gnuplot writes PLOT_DIR/ratios.png from them).
  --replace shortens the commands: every TEXT becomes NAME (the run's temporary folder, ...).
Exit 1 when a measurement the report needs has no runs.
"""
import re
import statistics
import sys

# Rows of the table: key of the aitk-env side, key of the reference side, what each side is.
# The ratio is always reference time / aitk-env time (> 1: aitk-env is faster).
ROWS = [
    ("lock_cold", "lock_cold", "lock, empty caches",
     "`aitk-env lock`, empty cache", "`pip install --dry-run --ignore-installed --report -`, "
     "`--no-cache-dir`"),
    ("lock_warm", "lock_warm", "lock, warm caches",
     "`aitk-env lock`, its cache from the cold run", "the same pip command, pip's warm cache"),
    ("lock_real_cold", "lock_real_cold", "lock, real graph (nari-labs/dia)",
     "`aitk-env lock`, empty cache, on nari-labs/dia's uv.lock rebuilt as a local index",
     "`pip install --dry-run --ignore-installed --report -`, `--no-cache-dir`"),
    ("uv_lock_read", None, "read a 333-package uv.lock",
     "reading huggingface/lerobot's uv.lock for linux-x86_64 (`app::read_uv_lock`: TOML, uv's "
     "walk, the conversion), in-process", "(none)"),
    ("setup_uv_warm", "setup_uv_warm", "setup -l uv.lock vs -l its lockfile, warm",
     "`aitk-env setup -l uv.lock`, warm cache (nari-labs/dia's graph)",
     "`aitk-env setup -l LOCK` of the lockfile `lock --from uv.lock` made of it, warm cache"),
    ("setup_cold", "setup_cold", "setup, empty caches",
     "`aitk-env setup -l LOCK`, empty cache", "`python -m venv` + `pip install --require-hashes`, "
     "empty pip cache"),
    ("setup_floor", "setup_floor", "cold setup vs its floor",
     "`aitk-env setup -l LOCK`, empty cache (as above)",
     "the larger of `curl --parallel --parallel-max 8` of the same wheels and `unzip` of each, "
     "one per core"),
    ("setup_warm", "setup_warm", "setup, warm caches, new prefix",
     "`aitk-env setup -l LOCK`, warm cache", "`python -m venv` + `pip install --require-hashes`, "
     "warm pip cache"),
    ("sync_noop", None, "no-op sync", "`aitk-env sync -l LOCK -p PREFIX` on an up-to-date prefix",
     "(none)"),
    ("setup_warm", "floor", "warm setup vs cp -al (the floor)",
     "`aitk-env setup`, warm cache (as above)", "`cp -al` of the installed site-packages"),
    ("download", "download", "download (the setup wheels)",
     "aitk-env's downloader (`bench_net`, sha256 verified)", "`curl --parallel --parallel-max 8`"),
    ("download_load", "download_load", "download under a CPU hog",
     "the same downloader beside `stress-ng --cpu NPROC`", "the same curl beside the same hog"),
]

# Rows left out (with a note) when they have no runs: the real graph's uv.lock lives in
# ../shared, which a clone does not have.
OPTIONAL = {"lock_real_cold", "uv_lock_read", "setup_uv_warm"}


def read_records(path):
    runs, commands, info, projects = {}, {}, {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "real_project" and len(fields) == 8:
                # bench/lock_real_projects.py: project, target, packages, aitk-env's and pip's
                # agreement with uv, both times ("" where a side did not run)
                projects.append(fields[1:])
            elif fields[0] == "run" and len(fields) == 5:
                runs.setdefault((fields[1], fields[2]), []).append(
                    (float(fields[3]), int(fields[4])))
            elif fields[0] == "command" and len(fields) == 4:
                commands.setdefault((fields[1], fields[2]), fields[3])
            elif fields[0] == "info" and len(fields) == 3:
                info.setdefault(fields[1], fields[2])
    return runs, commands, info, projects


def projects_table(projects):
    """The real uv projects' rows: agreement with uv's set and lock time vs pip."""
    rows = ["| project | target | packages | aitk-env = uv | pip = uv | aitk-env lock, "
            "empty cache | pip, no cache | pip / aitk-env |",
            "|---|---|---:|---|---|---:|---:|---:|"]
    for name, target, packages, ours, theirs, ours_s, theirs_s in projects:
        ratio = "–"
        if ours == "yes" and theirs == "yes" and ours_s and theirs_s:
            ratio = f"**{ratio_text(float(theirs_s) / float(ours_s))}**"
        rows.append("| " + " | ".join([
            name, target, packages, ours, theirs, seconds(float(ours_s)) if ours_s else "–",
            seconds(float(theirs_s)) if theirs_s else "–", ratio]) + " |")
    return rows


def seconds(value):
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s" if value < 100 else f"{value:.0f} s"


def spread(values):
    return f"{seconds(min(values))} – {seconds(max(values))}" if len(values) > 1 else "(1 run)"


def rss(samples):
    peaks = [kib for _, kib in samples if kib >= 0]
    return f"{max(peaks) / 1024:.0f} MiB" if peaks else "?"


def ratio_text(ratio):
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.0f}x"


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    results, report, plot_dir = argv[1], argv[2], argv[3]
    replacements = []
    rest = argv[4:]
    while rest:
        if rest[0] != "--replace" or len(rest) < 2 or "=" not in rest[1]:
            sys.exit(__doc__)
        text, name = rest[1].split("=", 1)
        replacements.append((text, name))
        rest = rest[2:]

    runs, commands, info, projects = read_records(results)
    # `pip --version` names where pip lives (a temporary venv): its version is what matters.
    for name in ("lock_pip", "setup_pip"):
        if name in info:
            info[name] = " ".join(info[name].split()[:2])
    rows = [row for row in ROWS
            if row[0] not in OPTIONAL or ((row[0], "aitk") in runs and
                                          (row[1] is None or (row[1], "ref") in runs))]
    missing = [key for row in rows for key in ((row[0], "aitk"), (row[1], "ref"))
               if key[0] is not None and key not in runs]
    if missing:
        sys.exit(f"report_table.py: no runs for {', '.join(k + ' (' + s + ')' for k, s in missing)}")

    table = ["| measurement | aitk-env median | aitk-env spread (min – max) | reference median | "
             "reference spread | ratio (reference / aitk-env) | peak RSS aitk-env | "
             "peak RSS reference | runs |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    plot = []
    for aitk_key, ref_key, title, _, _ in rows:
        ours = runs[(aitk_key, "aitk")]
        ours_s = [s for s, _ in ours]
        cells = [title, seconds(statistics.median(ours_s)), spread(ours_s)]
        if ref_key is None:
            cells += ["–", "–", "–", rss(ours), "–", str(len(ours))]
        else:
            theirs = runs[(ref_key, "ref")]
            theirs_s = [s for s, _ in theirs]
            ratio = statistics.median(theirs_s) / statistics.median(ours_s)
            cells += [seconds(statistics.median(theirs_s)), spread(theirs_s),
                      f"**{ratio_text(ratio)}**", rss(ours), rss(theirs),
                      f"{len(ours)} / {len(theirs)}"]
            plot.append((title, ratio))
        table.append("| " + " | ".join(cells) + " |")

    floor = statistics.median(s for s, _ in runs[("floor", "ref")])
    warm = statistics.median(s for s, _ in runs[("setup_warm", "aitk")])

    def shorten(text):
        for old, new in replacements:
            text = text.replace(old, new)
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:$PORT", text)

    lines = [f"# aitk-env benchmark report, {info.get('date', '?')}", ""]
    lines += [f"`{shorten(info.get('invocation', 'bash bench/report.sh'))}` "
              f"({info.get('mode', '?')}); "
              f"aitk-env {info.get('tree', '?')}. Every ratio compares the two tools on the "
              "same work in the same run; both sides' work was checked to be the same before "
              "any number was written (the same resolution, the same distributions and files "
              "in site-packages, the same bytes downloaded).", ""]
    lines += table
    lines += ["",
              f"The warm setup takes **{warm / floor:.1f}x** the time of `cp -al` of the tree "
              f"it installs ({seconds(warm)} vs {seconds(floor)}): the rest is the interpreter, "
              "the venv, reading the lock, checking the cache and writing RECORD files, shims "
              "and the receipt.", ""]
    cold = statistics.median(s for s, _ in runs[("setup_cold", "aitk")])
    cold_floor = statistics.median(s for s, _ in runs[("setup_floor", "ref")])
    floor_parts = ""
    if ("setup_floor_download", "ref") in runs and ("setup_floor_unzip", "ref") in runs:
        download = statistics.median(s for s, _ in runs[("setup_floor_download", "ref")])
        unzip = statistics.median(s for s, _ in runs[("setup_floor_unzip", "ref")])
        floor_parts = (f" (curl's download {seconds(download)}, a parallel unzip "
                       f"{seconds(unzip)})")
    lines += [f"The cold setup takes **{cold / cold_floor:.2f}x** its floor, the larger of "
              f"fetching the wheels with curl and unzipping them one per core{floor_parts}: "
              f"{seconds(cold)} vs {seconds(cold_floor)}.", ""]
    if projects:
        agree = sum(p[3] == "yes" for p in projects)
        lines += ["## Real uv projects", "",
                  f"aitk-env picks uv's exact set in **{agree} of {len(projects)}** "
                  "environments (`bench/lock_real_projects.sh`: each project's uv.lock rebuilt "
                  "as a local index, locked from a requirements file of its root's "
                  "requirements; pip runs for the Linux rows only, the ratio where both agree "
                  "with uv).", ""]
        lines += projects_table(projects)
        lines += [""]
    lines += ["## What was measured", ""]
    lines += [f"- **lock**: {info.get('lock_universe', '?')}; {info.get('lock_packages', '?')} "
              f"packages in the resolution for linux-x86_64-cu130, Python "
              f"{info.get('lock_python', '?')} ({info.get('lock_differences', '?')} packages "
              "resolved differently after a conflict both solved); pip: "
              f"{info.get('lock_pip', '?')}; served by {info.get('lock_server', '?')}.",
              (f"- **lock, real graph**: {info['lock_real_universe']}, rebuilt from "
               "nari-labs/dia's uv.lock (`bench/real_graph.py`: same names, versions, wheel "
               "file names, edges and markers; PEP 658 files); "
               f"{info.get('lock_real_packages', '?')} packages for "
               f"{info.get('lock_real_target', '?')}, Python {info.get('lock_real_python', '?')}, "
               "both sides checked to pick exactly uv's set; served by "
               f"{info.get('lock_real_server', '?')}."
               if "lock_real_universe" in info else
               "- **lock, real graph**: not measured (no ../shared/realworld/nari-labs_dia__uv.lock)."),
              ("- **real uv projects**: the fifteen projects of ../shared/realworld/uv "
               "(`bench/real_projects.py`: every registry of a lock on a local index of its "
               "own, stand-in wheels for git, URL and folder sources), one Linux x86_64 "
               "environment each and a Windows x86_64 one where uv locked Windows; one cold "
               "`aitk-env lock` and one `pip install --dry-run --no-cache-dir` per environment, "
               f"one environment at a time; {info.get('real_projects_note', '')}"
               if projects else
               "- **real uv projects**: not measured (no ../shared/realworld/uv)."),
              (f"- **uv.lock**: read: {info['uv_lock_read_lock']} (goal: at most 100 ms); "
               f"setup: {info.get('setup_uv_graph', '?')}, both sides with `--no-build "
               "--no-smoke-test` (the same wheel installs; the lock's sdist-only packages and "
               "the editable project left out alike), the order alternating; goal: the uv.lock "
               "side at most 1.3x the lockfile's (a ratio of at least 0.77)."
               if "uv_lock_read_lock" in info else
               "- **uv.lock**: not measured (no ../shared/realworld/uv/huggingface_lerobot__uv.lock)."),
              f"- **setup, no-op sync, floor, download**: the torch-like scenario, "
              f"{info.get('setup_universe', '?')} (torch, triton, nvidia-* CUDA 13 wheels, an "
              f"AI-Toolkit-style stack); Python {info.get('setup_python', '?')}, target "
              f"{info.get('setup_target', '?')}; pip in the venv: {info.get('setup_pip', '?')}; "
              f"{info.get('curl', '?')}.",
              f"- **download**: {info.get('download', '?')} (the scenario's wheels) from a "
              "local sendfile server (`bench_net_server`), 8 transfers at a time on both sides; "
              "the order of the two sides alternates between reps; then the same reps beside "
              "`stress-ng --cpu NPROC` in a session of its own (load average at the end of "
              f"those reps: {info.get('download_load', '?')}).",
              "- Both indexes are served on 127.0.0.1 by the benchmark programs; every run "
              "starts after `sync`; pip runs with `--trusted-host 127.0.0.1` (otherwise it "
              "caches nothing from a plain-http index) and byte-compiles what it installs, "
              "aitk-env does not by default.",
              "- Times are wall-clock; peak RSS is the largest `ru_maxrss` of the measured "
              "process over its runs (from `wait4`, or GNU time's `%M`); for venv + pip the "
              "larger of the two processes.", ""]
    lines += ["## Machine", ""]
    for name, label in [("cpu", "CPU"), ("nproc", "nproc"), ("ram", "RAM"),
                        ("disk", "disk free at the start"), ("filesystem", "filesystem"),
                        ("kernel", "kernel"), ("load_before", "load average before"),
                        ("load_after", "load average after"), ("duration", "duration of the run")]:
        lines.append(f"- {label}: {info.get(name, '?')}")
    lines += ["", "## Commands", "",
              "As run (`$WORK` is the run's temporary folder, `$PORT` the local server's port).",
              ""]
    for aitk_key, ref_key, title, aitk_what, ref_what in rows:
        lines.append(f"- **{title}**")
        for key, side, what in ((aitk_key, "aitk", aitk_what), (ref_key, "ref", ref_what)):
            if key is None:
                continue
            lines.append(f"  - {what}:")
            lines.append("    ```sh")
            lines.append("    " + shorten(commands.get((key, side), "(not recorded)")))
            lines.append("    ```")
    with open(report, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")

    with open(f"{plot_dir}/ratios.dat", "w", encoding="utf-8") as f:
        for title, ratio in plot:
            f.write(f'"{title}" {ratio:.4f}\n')
    values = [r for _, r in plot]
    log = max(values) / min(values) >= 30
    with open(f"{plot_dir}/ratios.gp", "w", encoding="utf-8") as f:
        f.write(f"""set terminal pngcairo size 1100,600 font ",10"
set output "{plot_dir}/ratios.png"
set title "aitk-env vs the reference tool: reference time / aitk-env time ({info.get('date', '')})"
set ylabel "speed ratio (> 1: aitk-env faster){', log scale' if log else ''}"
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set xtics rotate by -20 left
set bmargin 7
set rmargin 16
set key off
set xrange [-0.6:{len(plot) - 0.4}]
""")
        if log:
            f.write(f"set logscale y 10\nset yrange [{min(min(values) / 2, 0.5)}:{max(values) * 3}]\n")
        else:
            f.write(f"set yrange [0:{max(max(values) * 1.2, 1.2)}]\n")
        f.write(f'plot "{plot_dir}/ratios.dat" using 0:2:xtic(1) with boxes lc rgb "#3b6ea5", '
                f'"" using 0:2:($2 < 10 ? sprintf("%.2fx", $2) : sprintf("%.0fx", $2)) '
                f'with labels offset 0,1, '
                f'1 with lines dt 2 lc rgb "#aa0000"\n')


if __name__ == "__main__":
    main(sys.argv)
