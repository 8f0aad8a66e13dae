#!/usr/bin/env python3
"""History at scale, one command:

    python3 benches/history_scale.py      # HISTORY_RUNS=1000, BENCH_DIR=target/bench

Generates a root of nightly runs with the project's seeded generator
(`examples/synth/ nightly`: warm runs of 6 targets on 5 nodes, 30 s polls,
pytorch 15% slower from the middle night on), then times `perfreport
history` from scratch (every run read), again (every run from the cache),
and with one run added; `publish` of the whole root, and adding one run to
that site; and prints the sizes of history.html, history.json and the chart.
Nothing here is a pass/fail test: the figures go into BENCHMARKS.md.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("BENCH_DIR", os.path.join(ROOT, "target", "bench"))
BIN = os.path.join(ROOT, "target", "release", "perfreport")
SYNTH = os.path.join(ROOT, "target", "release", "examples", "synth")
RUNS = int(os.environ.get("HISTORY_RUNS", "1000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def fmt(samples):
    return f"{statistics.median(samples):.3f} s (min {min(samples):.3f}, max {max(samples):.3f}, n={len(samples)})"


def size(path):
    return os.path.getsize(path) / 1e3


def main():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bins", "--examples"], cwd=ROOT, check=True)
    root = os.path.join(WORK, f"nightly-{RUNS}")
    if not os.path.isdir(root) or len(os.listdir(root)) < RUNS:
        shutil.rmtree(root, ignore_errors=True)
        t = timed([SYNTH, "nightly", root, "--runs", str(RUNS)])
        print(f"generated {RUNS} runs in {t:.1f} s")
    du = subprocess.run(["du", "-sm", root], capture_output=True, text=True, check=True).stdout.split()[0]
    print(f"machine: {os.cpu_count()} cores; root: {RUNS} runs, {du} MB")

    out = os.path.join(WORK, "history-out")
    shutil.rmtree(out, ignore_errors=True)
    cold = timed([BIN, "history", root, "--out", out])
    cached = [timed([BIN, "history", root, "--out", out]) for _ in range(ROUNDS)]
    extra = os.path.join(root, "zz-added")
    added = []
    for _ in range(ROUNDS):
        shutil.copytree(os.path.join(root, sorted(os.listdir(root))[0]), extra)
        added.append(timed([BIN, "history", root, "--out", out]))
        shutil.rmtree(extra)
    charts = [os.path.join(out, "charts", f) for f in os.listdir(os.path.join(out, "charts"))]
    print(f"history from scratch (every run read): {cold:.3f} s")
    print(f"history again (every run from the cache): {fmt(cached)}")
    print(f"history with one run added (that run read): {fmt(added)}")
    print(f"history.json {size(os.path.join(out, 'history.json')):.0f} kB, history.md {size(os.path.join(out, 'history.md')):.0f} kB, "
          f"largest chart {max(size(c) for c in charts):.0f} kB")

    site = os.path.join(WORK, "history-site")
    shutil.rmtree(site, ignore_errors=True)
    scratch = timed([BIN, "publish", root, "--site", site, "-q"])
    add = []
    for _ in range(ROUNDS):
        shutil.copytree(os.path.join(root, sorted(os.listdir(root))[0]), extra)
        add.append(timed([BIN, "publish", root, "--site", site, "-q"]))
        shutil.rmtree(extra)
    print(f"publish {RUNS} runs from scratch: {scratch:.1f} s; adding one run to that site: {fmt(add)}")
    print(f"site: history.html {size(os.path.join(site, 'history.html')):.0f} kB, history.json {size(os.path.join(site, 'history.json')):.0f} kB, "
          f"manifest.json {size(os.path.join(site, 'manifest.json')):.0f} kB, index.html {size(os.path.join(site, 'index.html')):.0f} kB")


if __name__ == "__main__":
    sys.exit(main())
