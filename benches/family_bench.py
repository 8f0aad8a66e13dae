"""Part two of benches/bench.py: perfreport on the family of
generated logs (benches/family) against the library baselines of the same
aggregations (benches/baseline) and cat, alternately in the same rounds, with
peak memory; see bench.py's docstring. `family(bench)` takes the bench module
for its paths and helpers."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

FILES = {"zot": "zot.jsonl", "samples": "samples.jsonl", "sccache": "sccache.log"}
FAMILY_MB = 300
MEMORY_MB = (30, 300, 1000)
ZOT_FIGURES = ("requests", "reads", "read_bytes", "blob_writes", "manifest_writes", "blob_write_bytes",
               "cache_write_bytes", "image_write_bytes", "writes_unsized", "failed_writes", "not_json")
SCCACHE_FIGURES = ("hits", "misses", "writes", "write_bytes", "writes_unsized", "failed_writes", "overhead",
                   "checks", "other_prefix")


def members(b):
    out = subprocess.run([b.FAMILY, "list"], check=True, capture_output=True, text=True).stdout
    listed = [tuple(line.split("\t")[:2]) for line in out.splitlines()]
    return [(kind, name) for kind, name in listed if not b.MEMBERS or name in b.MEMBERS]


def member_run(b, kind, name, mb, start=None, tag=""):
    """The member's run directory and the generator's tally, generated unless
    an earlier run left them and the generator has not been rebuilt since."""
    d = os.path.join(b.WORK, "family", f"{kind}-{name}-{mb}mb{tag}")
    tally = d + ".tally.json"
    if not (os.path.exists(tally) and os.path.getmtime(tally) >= os.path.getmtime(b.FAMILY)):
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        cmd = [b.FAMILY, kind, name, d, "--mb", str(mb)] + (["--start", start] if start else [])
        with open(tally + ".tmp", "w") as f:
            subprocess.run(cmd, check=True, stdout=f)
        os.replace(tally + ".tmp", tally)
    with open(tally) as f:
        return d, json.load(f)


def drop(d):
    shutil.rmtree(d, ignore_errors=True)
    if os.path.exists(d + ".tally.json"):
        os.remove(d + ".tally.json")


def warm(path):
    with open(path, "rb") as fh:
        while fh.read(1 << 24):
            pass


def same_list(what, got, want, diffs):
    if got == want:
        return
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    diffs.append(f"{what}: {len(got)} against {len(want)} entries, first difference at {first}: "
                 f"{got[first:first + 1]} against {want[first:first + 1]}")


def differences(kind, data, base, tally):
    """Where perfreport's data.json, the baseline and the generator disagree."""
    diffs = []

    def same(what, got, want, against="baseline"):
        if got != want:
            diffs.append(f"{what}: perfreport {got}, {against} {want}")

    counts = tally["counts"]
    inp = data["inputs"][FILES[kind]]
    for k in ("lines", "records", "skipped", "malformed"):
        same(k, inp[k], base.get(k, 0))
        same(k + " (baseline)", base.get(k, 0), counts.get(k, 0), "generator")
    if kind == "zot":
        z = data["zot"]
        for k in ZOT_FIGURES:
            want = None if k == "read_bytes" and base.get("reads_unsized") else base.get(k, 0)
            same(k, z[k], want)
        same("by_message", z["by_message"], base["by_message"])
        lane = [[p["cache_bytes"], p["image_bytes"]] for p in z["series"] if p["cache_bytes"] or p["image_bytes"]]
        same_list("write lane, buckets with bytes", lane, base["lane"], diffs)
        same("upload starts (baseline)", base.get("upload_starts", 0), counts.get("upload_starts", 0), "generator")
        for addr, n in base["nodes"].items():
            t = tally["nodes"].get(addr, {})
            want = {"writes": int(t.get("writes", 0)), "write_bytes": int(t.get("write_bytes", 0))}
            same(f"writes from {addr} (baseline)", n, want, "generator")
    elif kind == "sccache":
        s = data["sccache"]
        for k in SCCACHE_FIGURES:
            same(k, s[k], base.get(k, 0))
        lane = [[p["hits"], p["misses"], p["writes"], p["write_bytes"]] for p in s["series"]
                if p["hits"] or p["misses"] or p["writes"]]
        same_list("cache lane, buckets with requests", lane, base["lane"], diffs)
    else:
        nodes = {n["name"]: n for n in data["nodes"]}
        for name, bn in base["nodes"].items():
            n = nodes.get(name, {})
            if n.get("load1_max") != bn["load1_max"]:
                diffs.append(f"{name} load1_max: perfreport {n.get('load1_max')}, baseline {bn['load1_max']}")
            for k in ("mem_pct_max", "cpu_pct_mean"):
                # data.json gives these to 0.1 point.
                if n.get(k) is None or bn[k] is None or abs(n[k] - bn[k]) > 0.051:
                    diffs.append(f"{name} {k}: perfreport {n.get(k)}, baseline {bn[k]}")
            same(f"{name} samples (baseline)", bn["samples"], int(tally["nodes"][name]["samples"]), "generator")
    return diffs


def check(b, kind, name, d, tally, out):
    """Once per member before timing: perfreport and the baseline must agree,
    or the baseline is not one."""
    subprocess.run([b.BIN, "report", d, "--out", out, "-q"], check=True)
    with open(os.path.join(out, "data.json")) as f:
        data = json.load(f)
    base = json.loads(subprocess.run([b.BASELINE, kind, d], check=True, capture_output=True, text=True).stdout)
    diffs = differences(kind, data, base, tally)
    if kind in ("zot", "samples"):
        # The floor is timed, never compared: a floor that failed on every
        # line would look fast. Each record perfreport took is a line the
        # floor's struct must parse too.
        floor = json.loads(subprocess.run([b.BASELINE, f"{kind}-parse", d], check=True, capture_output=True,
                                          text=True).stdout)
        records = data["inputs"][FILES[kind]]["records"]
        if floor["parsed"] < records:
            sys.exit(f"ABORT: the library floor ({kind}-parse) parsed {floor['parsed']} lines of {name} ({d}), "
                     f"fewer than perfreport's {records} records: its timings would not be a floor")
    if diffs:
        sys.exit(f"ABORT: perfreport and the {kind} baseline disagree on {name} ({d}):\n  " + "\n  ".join(diffs))


def memory(b, kind, name, d300, out):
    """Peak RssAnon at 30 MB, 300 MB and 1 GB; the 1 GB run is deleted after."""
    peaks = []
    for mb in MEMORY_MB:
        d = d300 if mb == FAMILY_MB else member_run(b, kind, name, mb)[0]
        peaks.append(b.peak_rss_anon(d, out))
        if mb >= 1000:
            drop(d)
    return peaks


def measure(b, kind, name):
    out = os.path.join(b.WORK, "out-family")
    d, tally = member_run(b, kind, name, FAMILY_MB)
    log = os.path.join(d, FILES[kind])
    check(b, kind, name, d, tally, out)
    warm(log)
    mark = b.steal_mark()
    report, base, floor, cat = [], [], [], []
    also = {other: [] for other, _ in b.ALSO}
    for _ in range(b.ROUNDS):
        report.append(b.timed([b.BIN, "report", d, "--out", out, "-q"]))
        for other, binary in b.ALSO:
            also[other].append(b.timed([binary, "report", d, "--out", out, "-q"]))
        base.append(b.timed([b.BASELINE, kind, d]))
        if kind in ("zot", "samples"):
            # The library's floor: the same parse with nothing aggregated.
            floor.append(b.timed([b.BASELINE, f"{kind}-parse", d]))
        cat.append(b.timed(["cat", log]))
    steal = b.steal_since(mark)
    return {"name": name, "bytes": os.path.getsize(log), "report": report, "baseline": base, "floor": floor,
            "cat": cat, "also": also, "steal": steal, "peaks": memory(b, kind, name, d, out)}


def spread(xs):
    return f"{statistics.median(xs):.3f} s ({min(xs):.3f} – {max(xs):.3f})"


def row(r):
    rep, base = statistics.median(r["report"]), statistics.median(r["baseline"])
    peaks = r["peaks"]
    flat = (max(peaks) - min(peaks)) / min(peaks) * 100
    mark = " †" if r.get("steal", {}).get("kept_over") else ""
    return (f"| `{r['name']}`{mark} | {spread(r['report'])} | {r['bytes'] / rep / 1e9:.2f} | {spread(r['baseline'])} | "
            f"{r['bytes'] / base / 1e9:.2f} | {rep / base:.2f}× | "
            f"{spread(r['floor']) if r['floor'] else '—'} | {statistics.median(r['cat']):.3f} s | "
            f"{' / '.join(f'{p:.1f}' for p in peaks)} ({flat:.0f}%) |")


def table(b, kind, rows):
    """Worst first: the lowest GB/s of perfreport's whole command."""
    rows = sorted(rows, key=lambda r: r["bytes"] / statistics.median(r["report"]))
    head = [f"#### {FILES[kind]}, {FAMILY_MB} MB per member, worst first (lowest perfreport GB/s)", "",
            "| member | perfreport, whole command: median (min – max) | GB/s | baseline ("
            + ("regex + rayon" if kind == "sccache" else "sonic-rs + rayon") + ") | GB/s | perfreport ÷ baseline | "
            "library floor: sonic-rs parse only, nothing aggregated | cat | "
            f"peak RssAnon MB at 30 MB / 300 MB / 1 GB, highest of {b.MEMORY_ROUNDS} (spread) |",
            "|---|---|---|---|---|---|---|---|---|"]
    return head + [row(r) for r in rows] + ["", b.steal_note(b.steal_sum([r["steal"] for r in rows]), marked=True), ""]


def beside(b, kind, rows):
    """perfreport against each other build (BENCH_ALSO) timed in the same
    rounds, worst first as in `table`."""
    rows = sorted(rows, key=lambda r: r["bytes"] / statistics.median(r["report"]))
    names = [name for name, _ in b.ALSO]
    head = [f"#### {FILES[kind]}: this build beside " + ", ".join(f"`{n}`" for n in names) + " (same rounds)", "",
            "| member | this build | " + " | ".join(f"{n} | this ÷ {n}" for n in names) + " |",
            "|---|---|" + "---|---|" * len(names)]
    body = []
    for r in rows:
        mine = statistics.median(r["report"])
        cells = [f"{spread(r['also'][n])} | {mine / statistics.median(r['also'][n]):.2f}×" for n in names]
        body.append(f"| `{r['name']}` | {spread(r['report'])} | " + " | ".join(cells) + " |")
    return head + body + [""]


def worst_in_the_whole_report(b, worst):
    """Target 1 on the worst zot member: the 300 MB run of `synth big` with
    its zot.jsonl replaced by the worst member's log (dated into the run's
    window, so its writes are tied to targets as a real log's are), against
    the Python reference on that log, in the same rounds."""
    big = b.generate("big-300", 300, 50)
    with open(os.path.join(big, "run.json")) as f:
        started = json.load(f).get("started_at")
    # The generator takes whole seconds in UTC.
    start = datetime.fromisoformat(started.replace("Z", "+00:00")).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    d, _ = member_run(b, "zot", worst, FAMILY_MB, start=start, tag="-in-big")
    run = os.path.join(b.WORK, "family", f"big-300-with-{worst}")
    if os.path.exists(run):
        shutil.rmtree(run)
    os.makedirs(run)
    # Hard links, not symbolic ones: perfreport does not follow a link out
    # of the run directory, and a report that read nothing is fast.
    for f in os.listdir(big):
        os.link(os.path.join(d if f == "zot.jsonl" else big, f), os.path.join(run, f))
    log = os.path.join(run, "zot.jsonl")
    out = os.path.join(b.WORK, "out-family-big")
    b.read_everything(run, out)
    warm(log)
    mark = b.steal_mark()
    report, python, cat = [], [], []
    for _ in range(b.ROUNDS):
        report.append(b.timed([b.BIN, "report", run, "--out", out, "-q"]))
        python.append(b.timed([sys.executable, os.path.join(b.ROOT, "benches", "zot_reference.py"), log]))
        cat.append(b.timed(["cat", log]))
    r, p = statistics.median(report), statistics.median(python)
    return [f"Target 1 on the worst zot member (`{worst}`): the whole report of the 300 MB run "
            f"(`synth big`, its zot.jsonl replaced by `{worst}`'s) {spread(report)} (target ≤ 0.35 s); "
            f"Python reference on that log {spread(python)}: {p / r:.1f}× (target ≥ 15×); "
            f"cat {statistics.median(cat):.3f} s. {b.steal_note(b.steal_since(mark))}", ""]


def family(b):
    started = time.perf_counter()
    by_kind = {}
    for kind, name in members(b):
        if kind in b.KINDS:
            r = measure(b, kind, name)
            by_kind.setdefault(kind, []).append(r)
            print(row(r).replace("|", " ").strip(), f"[{kind}]", flush=True)
    lines = [f"### The family of generated logs ({os.cpu_count()} cores, {b.ROUNDS} alternating rounds, "
             f"{time.strftime('%Y-%m-%d')})", ""]
    if "zot" in by_kind:
        worst = min(by_kind["zot"], key=lambda r: r["bytes"] / statistics.median(r["report"]))["name"]
        lines += worst_in_the_whole_report(b, worst)
    for kind in FILES:
        if kind in by_kind:
            lines += table(b, kind, by_kind[kind])
            if b.ALSO:
                lines += beside(b, kind, by_kind[kind])
    lines.append(f"(part two took {(time.perf_counter() - started) / 60:.1f} min)")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(b.WORK, "family.md"), "w") as f:
        f.write(text)
    print()
    print(text)
