"""The published change-point detectors, run on the very series perfreport
sees. Run by bench.py with each peer's own virtual environment's Python:

    python peers.py edivisive|otava IN.json OUT.json

IN.json: {"series": [{"id": "...", "values": [...]}], "prefix_min": N or null}.
OUT.json: per series id, the change points of the whole series ("final",
indices of the first point at a new level) and, when prefix_min is given,
those of every prefix of at least prefix_min points ("prefix": [[length,
[indices]], ...]), as a lane running the tool each night would see them.

Settings are each tool's documented defaults:
- e-divisive (signal_processing_algorithms.energy_statistics.e_divisive):
  pvalue 0.05, permutations 100; numpy's generator seeded per series so a
  run repeats.
- Otava (otava.analysis.compute_change_points, the algorithm of `otava
  analyze`): window_len 50, max_pvalue 0.001, min_magnitude 0.0, the
  defaults of its analysis options.
"""
import json
import sys
import time
import zlib

SETTINGS = {
    "edivisive": "signal-processing-algorithms e_divisive(pvalue=0.05, permutations=100), numpy seeded per series",
    "otava": "apache-otava compute_change_points(window_len=50, max_pvalue=0.001, min_magnitude=0.0)",
}


def detector(tool):
    if tool == "edivisive":
        import numpy as np
        from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive

        def run(values, seed):
            np.random.seed(seed)
            return sorted(int(i) for i in e_divisive(values, pvalue=0.05, permutations=100))

        return run
    if tool == "otava":
        from otava.analysis import compute_change_points

        def run(values, seed):
            cps, _ = compute_change_points(list(values), window_len=50, max_pvalue=0.001, min_magnitude=0.0)
            return sorted(int(c.index) for c in cps)

        return run
    raise SystemExit(f"unknown tool {tool}")


def version(tool):
    from importlib.metadata import version as v

    return v("signal-processing-algorithms" if tool == "edivisive" else "apache-otava")


def main():
    tool, src, dst = sys.argv[1:4]
    with open(src) as f:
        job = json.load(f)
    run = detector(tool)
    started = time.time()
    results = {}
    for s in job["series"]:
        values = [float(v) for v in s["values"]]
        seed = zlib.crc32(s["id"].encode())
        out = {"final": [], "prefix": [], "error": None}
        try:
            out["final"] = run(values, seed) if len(values) >= 2 else []
            if job.get("prefix_min"):
                for n in range(job["prefix_min"], len(values) + 1):
                    out["prefix"].append([n, run(values[:n], seed)])
        except Exception as e:  # a tool that fails on one series is reported, the rest go on
            out["error"] = f"{type(e).__name__}: {e}"
        results[s["id"]] = out
    with open(dst + ".tmp", "w") as f:
        json.dump({"tool": tool, "version": version(tool), "settings": SETTINGS[tool], "results": results,
                   "seconds": round(time.time() - started, 1)}, f)
    import os

    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
