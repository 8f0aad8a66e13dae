#!/usr/bin/env python3
"""The change-point benchmark, one command:

    python3 benches/changepoints/bench.py [--quick] [--family NAME ...] [--seed N]
        [--perfreport PATH] [--reuse] [--peer-prefix auto|all|none] [--no-peers]

For each family of labelled nightly histories (generate.py), it writes the
run directories, then runs perfreport as a nightly lane would: night after
night it adds the night's run to a growing root and runs `perfreport gate
--history ROOT --json`, recording the exit status and the checks it calls
regressions; after the last night, `perfreport history ROOT --out DIR`, and
reads each metric's change points. Every night's data.json (`perfreport
report`) is checked against the figures the generator meant, and gives the
series the peers are run on: MongoDB's e-divisive (signal-processing-
algorithms) and Apache Otava, each installed into its own virtual
environment under target/bench/changepoints/ from its pinned requirements
file (the two pin conflicting numpy versions). A peer that cannot be
installed or run is reported as such and the rest goes on. Peers are also
run on each night's prefix of the series (a lane running them nightly)
where that is affordable: `--peer-prefix auto` does it for families up to
48 targets x 120 nights (the 48-target family's prefixes are about three
quarters of a full run's time, most of it e-divisive), `all` everywhere,
`none` nowhere.

Scores (score.py states the matching rule and every category) go to
target/bench/changepoints.md (tables) and target/bench/changepoints.json
(every figure, per family and pooled, plus each night's verdict).

--perfreport PATH gates with another binary (default: this checkout's
release build, built first with `cargo build --release`); --reuse keeps the
generated roots (and peer results on identical series) between runs;
--quick runs smaller versions of three families for iteration.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import score  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(REPO, "target", "bench", "changepoints")
OUT_MD = os.path.join(REPO, "target", "bench", "changepoints.md")
OUT_JSON = os.path.join(REPO, "target", "bench", "changepoints.json")
PEERS = ("edivisive", "otava")
PEER_NAMES = {"edivisive": "e-divisive", "otava": "Otava"}
PREFIX_MIN = 5  # the gate's own minimum of comparable runs
PREFIX_AUTO_MAX = 6000  # targets x nights up to which auto runs peers on prefixes (fleet: 5760)


def log(msg):
    print(f"[changepoints] {msg}", file=sys.stderr, flush=True)


def loud(msg):
    bar = "!" * 72
    print(f"\n{bar}\n{msg}\n{bar}\n", file=sys.stderr, flush=True)


def sha(*paths_or_text):
    h = hashlib.sha256()
    for p in paths_or_text:
        if os.path.exists(p):
            with open(p, "rb") as f:
                h.update(f.read())
        else:
            h.update(p.encode())
    return h.hexdigest()[:16]


def write_json(path, value):
    with open(path + ".tmp", "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


# --- perfreport -------------------------------------------------------------

def perfreport_binary(path):
    if path:
        return os.path.abspath(path)
    log("cargo build --release")
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
    return os.path.join(REPO, "target", "release", "perfreport")


def red_checks(gated):
    """The target/metric pairs a gated run calls new regressions: its
    `regressions` list's `new` entries when the run has one, else the checks
    whose verdict is REGRESSION."""
    regs = gated.get("regressions")
    if isinstance(regs, list):
        return [[r.get("target"), r.get("metric")] for r in regs if r.get("state") == "new"]
    return [[c["target"], c["metric"]] for c in gated.get("checks", []) if c.get("verdict") == "REGRESSION"]


def gate_night(binary, lane):
    p = subprocess.run([binary, "gate", "--history", lane, "--json"], capture_output=True, text=True)
    try:
        night = json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, [], f"no JSON: {p.stderr.strip()[:300]}"
    red = [rc for run in night.get("runs", []) for rc in red_checks(run)]
    return p.returncode, red, None


def history_change_points(hist, night_of):
    """Each metric's change points in history.json: the `change_points` list
    where a metric has one, else its single `change_point`."""
    out = []
    for key in hist.get("keys", []):
        for target, metrics in key.get("targets", {}).items():
            for metric, m in metrics.items():
                if not isinstance(m, dict):
                    continue
                cps = m.get("change_points")
                if not isinstance(cps, list):
                    cps = [m["change_point"]] if isinstance(m.get("change_point"), dict) else []
                for cp in cps:
                    if cp.get("stamp") in night_of:
                        d = cp.get("delta_pct")
                        if d is None and cp.get("after_median") is not None and cp.get("before_median") is not None:
                            d = cp["after_median"] - cp["before_median"]
                        out.append({"target": target, "metric": metric, "night": night_of[cp["stamp"]],
                                    "direction": 0 if d is None else (d > 0) - (d < 0)})
    return out


# --- a family ----------------------------------------------------------------

def family_dir(name, quick, seed):
    tag = name + ("-quick" if quick else "") + (f"-s{seed}" if seed is not None else "")
    return os.path.join(WORK, tag)


def generated(name, quick, seed, reuse):
    """The family's full root, labels and meant figures: reused when asked
    and the generator is unchanged, else written anew."""
    d = family_dir(name, quick, seed)
    key = {"generator": sha(os.path.join(HERE, "generate.py")), "family": name, "quick": quick, "seed": seed}
    key_file = os.path.join(d, "generated.json")
    if reuse and os.path.exists(key_file) and read_json(key_file) == key:
        log(f"{name}: reusing {d}")
        return d, read_json(os.path.join(d, "labels.json")), read_json(os.path.join(d, "meant.json"))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "runs"))
    started = time.time()
    p = generate.plan(name, seed=seed, quick=quick)
    meant = {}
    for n in range(len(p["nights"])):
        m = generate.write_night(p, n, os.path.join(d, "runs"))
        if m is not None:
            meant[str(n)] = m
    labels = generate.labels(p)
    write_json(os.path.join(d, "labels.json"), labels)
    write_json(os.path.join(d, "meant.json"), meant)
    write_json(key_file, key)
    log(f"{name}: generated {len(meant)} nights in {time.time() - started:.0f} s")
    return d, labels, meant


def link_run(src, dst):
    """The night's run added to the lane's root, as hard links (a symlink
    leading out of the root is not read, by design)."""
    os.makedirs(dst)
    for f in os.listdir(src):
        os.link(os.path.join(src, f), os.path.join(dst, f))


def check_figures(data, meant, stamp, problems):
    """data.json's figures against what the generator meant."""
    got = {t["name"]: t for t in data.get("targets", [])}
    for target, figs in meant.items():
        t = got.get(target)
        if t is None:
            problems.append(f"{stamp} {target}: not in data.json")
            continue
        for m, want in figs.items():
            have = t.get(m)
            if have is None or abs(have - want) > 0.0015:
                problems.append(f"{stamp} {target} {m}: data.json {have}, generator meant {want:.4f}")


def run_lane(binary, d, labels, meant):
    """Night by night: gate the growing root, read the night's data.json."""
    lane = os.path.join(d, "lane")
    shutil.rmtree(lane, ignore_errors=True)
    os.makedirs(lane)
    scratch = os.path.join(d, "report")
    nights, series, problems = [], {}, []
    started = time.time()
    for n, stamp in enumerate(labels["stamps"]):
        if str(n) not in meant:
            continue
        link_run(os.path.join(d, "runs", stamp), os.path.join(lane, stamp))
        code, red, err = gate_night(binary, lane)
        nights.append({"night": n, "stamp": stamp, "exit": code, "red": red, **({"error": err} if err else {})})
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run([binary, "report", os.path.join(lane, stamp), "--out", scratch, "-q"],
                       capture_output=True, check=False)
        try:
            data = read_json(os.path.join(scratch, "data.json"))
        except (OSError, json.JSONDecodeError) as e:
            problems.append(f"{stamp}: no data.json ({e})")
            continue
        check_figures(data, meant[str(n)], stamp, problems)
        for t in data.get("targets", []):
            for m in generate.METRICS:
                if t.get(m) is not None:
                    s = series.setdefault(f"{t['name']}|{m}", {"nights": [], "values": []})
                    s["nights"].append(n)
                    s["values"].append(float(t[m]))
    gate_s = time.time() - started
    hist_dir = os.path.join(d, "history")
    shutil.rmtree(hist_dir, ignore_errors=True)
    started = time.time()
    subprocess.run([binary, "history", lane, "--out", hist_dir], capture_output=True, check=False)
    history_s = time.time() - started
    try:
        hist = read_json(os.path.join(hist_dir, "history.json"))
    except (OSError, json.JSONDecodeError) as e:
        loud(f"perfreport history wrote no history.json: {e}")
        hist = {}
    night_of = {s: i for i, s in enumerate(labels["stamps"])}
    return nights, series, problems, history_change_points(hist, night_of), {"gate_and_report_s": gate_s,
                                                                           "history_s": history_s}


# --- peers --------------------------------------------------------------------

def peer_python(tool):
    """The peer's virtual environment, made (or kept, when its pinned
    requirements are unchanged) under target/; None when it cannot be."""
    req = os.path.join(HERE, f"requirements-{tool}.txt")
    venv = os.path.join(WORK, f"venv-{tool}")
    py = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, "requirements.sha")
    want = sha(req)
    if os.path.exists(stamp) and open(stamp).read() == want and os.path.exists(py):
        return py, None
    shutil.rmtree(venv, ignore_errors=True)
    log(f"installing {PEER_NAMES[tool]} into {venv}")
    try:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True, text=True)
        subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", req],
                       check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        return None, f"could not install {PEER_NAMES[tool]} from {os.path.basename(req)}: " \
                     f"{(e.stderr or e.stdout or '').strip()[-600:]}"
    with open(stamp, "w") as f:
        f.write(want)
    return py, None


CHUNKS = 4  # each peer's series run in this many processes, two at a time


def peer_job(tool, py, d, chunk, prefix, reuse):
    """One process of a peer over some series; its result is kept under
    the family's folder, keyed by its input, for --reuse."""
    job = {"series": chunk, "prefix_min": PREFIX_MIN if prefix else None}
    text = json.dumps(job, sort_keys=True)
    key = sha(text, os.path.join(HERE, "peers.py"), os.path.join(HERE, f"requirements-{tool}.txt"))
    out_dir = os.path.join(d, "peers")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, f"{tool}-{key}.json")
    if reuse and os.path.exists(out):
        return {**read_json(out), "reused": True}, None
    src = os.path.join(out_dir, f"{tool}-{key}-in.json")
    with open(src, "w") as f:
        f.write(text)
    p = subprocess.run([py, os.path.join(HERE, "peers.py"), tool, src, out], capture_output=True, text=True)
    os.remove(src)
    if p.returncode != 0:
        return None, f"{PEER_NAMES[tool]} failed: {p.stderr.strip()[-600:]}"
    return read_json(out), None


def run_peers(peer_env, d, series, prefix, reuse):
    """Every available peer on every series, the work spread over two
    processes at a time. Returns {tool: (merged result or None, error)}."""
    items = [{"id": k, "values": v["values"]} for k, v in sorted(series.items())]
    size = max(1, -(-len(items) // CHUNKS))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    futures = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for tool, (py, _) in peer_env.items():
            if py:
                futures[tool] = [pool.submit(peer_job, tool, py, d, c, prefix, reuse) for c in chunks]
    out = {}
    for tool, (py, err) in peer_env.items():
        if not py:
            out[tool] = (None, err)
            continue
        parts = [f.result() for f in futures[tool]]
        failed = [e for r, e in parts if r is None]
        if failed:
            out[tool] = (None, failed[0])
            continue
        merged = dict(parts[0][0])
        merged["results"] = {k: v for r, _ in parts for k, v in r["results"].items()}
        merged["seconds"] = round(sum(r["seconds"] for r, _ in parts), 1)
        merged["reused"] = all(r.get("reused") for r, _ in parts)
        out[tool] = (merged, None)
    return out


def peer_detections(result, series, with_prefix):
    """A peer's change points over the whole series, and (when run on
    prefixes) its nights as a gate."""
    final, red_by_night, errors = [], {}, []
    for sid, r in result["results"].items():
        target, metric = sid.split("|")
        s = series[sid]
        if r.get("error"):
            errors.append(f"{sid}: {r['error']}")
        for i in r["final"]:
            final.append({"target": target, "metric": metric, "night": s["nights"][i]})
        if with_prefix:
            for night in score.prefix_alarms(s["nights"], s["values"], r["prefix"], metric):
                red_by_night.setdefault(night, []).append([target, metric])
    gate = None
    if with_prefix:
        gated = sorted({n for s in series.values() for n in s["nights"][PREFIX_MIN - 1:]})
        gate = [{"night": n, "exit": 1 if red_by_night.get(n) else 0, "red": sorted(red_by_night.get(n, []))}
                for n in gated]
    return final, gate, errors


# --- one family, scored ----------------------------------------------------------

def bench_family(name, args, binary, peer_env):
    d, labels, meant = generated(name, args.quick, args.seed, args.reuse)
    log(f"{name}: gating {len(meant)} nights with {binary}")
    nights, series, problems, hist_cps, timing = run_lane(binary, d, labels, meant)
    if problems:
        loud(f"{name}: data.json differs from what the generator meant on {len(problems)} figures, e.g.\n"
             + "\n".join(problems[:8]))
    labs = score.series_labels(labels)
    total_nights = labels["nights"]
    result = {"family": name, "targets": len(labels["targets"]), "nights": total_nights,
              "nights_present": len(meant), "changes": len(labels["changes"]), "series_labels": len(labs),
              "figure_mismatches": len(problems), "figure_mismatch_examples": problems[:20], "timing_s": timing,
              "tools": {}}
    hc = score.counts(hist_cps, labs, total_nights)
    result["tools"]["perfreport history"] = {"counts": hc, "scores": score.scores(hc)}
    gc, per_night, latency = score.gate_counts(nights, labels, total_nights)
    result["tools"]["perfreport gate"] = {"counts": gc, "scores": score.gate_scores(gc), "nights": per_night,
                                          "latency": latency}
    prefix = args.peer_prefix == "all" or (
        args.peer_prefix == "auto" and len(labels["targets"]) * total_nights <= PREFIX_AUTO_MAX)
    ran = run_peers(peer_env, d, series, prefix, args.reuse) if peer_env else {}
    for tool in PEERS:
        out, err = ran.get(tool, (None, "not run (--no-peers)"))
        if out is None:
            if ran:
                loud(f"{PEER_NAMES[tool]} on {name}: {err}")
            result["tools"][PEER_NAMES[tool]] = {"unavailable": err}
            continue
        final, gate, errors = peer_detections(out, series, prefix)
        c = score.counts(final, labs, total_nights)
        entry = {"version": out["version"], "settings": out["settings"], "seconds": out["seconds"],
                 "series_errors": errors[:20], "series_error_count": len(errors), "counts": c,
                 "scores": score.scores(c)}
        if gate is None:
            entry["gate"] = {"unavailable": f"not run on each night's prefix: {len(series)} series x "
                                            f"{total_nights} nights is over the affordable size here "
                                            f"(--peer-prefix all runs it)"}
        else:
            g, g_nights, g_lat = score.gate_counts(gate, labels, total_nights)
            entry["gate"] = {"counts": g, "scores": score.gate_scores(g), "nights": g_nights, "latency": g_lat}
        if errors:
            loud(f"{PEER_NAMES[tool]} failed on {len(errors)} series of {name}, e.g. {errors[0]}")
        result["tools"][PEER_NAMES[tool]] = entry
        log(f"{name}: {PEER_NAMES[tool]} took {out['seconds']:.0f} s of CPU"
            + (" (an earlier run's results, --reuse)" if out["reused"] else ""))
    return result


# --- output ---------------------------------------------------------------------

def pct(x):
    return "n/a" if x is None else f"{100 * x:.0f}%"


def num(x, digits=2):
    return "n/a" if x is None else f"{x:.{digits}f}"


def whole_cell(t):
    if "counts" not in t:
        return "n/a"
    s = t["scores"]
    return (f"F1 {num(s['f1'])} · P {num(s['precision'])} · R≥4x {num(s['recall_4x'])} · "
            f"R≥6x {num(s['recall_6x'])} · FA {num(s['false_per_100_nights'], 1)}")


def gate_cell(g):
    if g is None or "counts" not in g:
        return "n/a"
    c, s = g["counts"], g["scores"]
    return (f"red {c['red_nights']}/{c['nights_gated']}: new {c['red_new'] + c['red_late']}, "
            f"noise alone {c['red_noise']} ({pct(s['noise_share'])}; a noise check on {c['red_any_noise']}), "
            f"spike {c['red_spike']}, loaded {c['red_loaded']}, repeat {c['red_repeat']}, "
            f"cache miss {c['red_cache_miss']}"
            f"{', other exit ' + str(c['nights_other_exit']) if c['nights_other_exit'] else ''} · "
            f"≥6x by next night {pct(s['red_by_next_night_6x'])} · ≥4x in 2 nights "
            f"{pct(s['red_within_two_nights_4x'])} · F1 {num(s['f1'])} · FA {num(s['false_per_100_nights'], 1)}")


def pooled(results):
    """Counts summed over the families, and their scores."""
    out = {}
    tools = ["perfreport history", "perfreport gate"] + [PEER_NAMES[t] for t in PEERS]
    for tool in tools:
        entries = [r["tools"].get(tool, {}) for r in results]
        whole = [e["counts"] for e in entries if "counts" in e]
        o = {}
        if whole and len(whole) == len(entries):
            c = score.pool(whole)
            o = {"counts": c, "scores": score.gate_scores(c) if tool == "perfreport gate" else score.scores(c)}
        if tool not in ("perfreport history", "perfreport gate"):
            gates = [e.get("gate", {}) for e in entries]
            have = [g["counts"] for g in gates if "counts" in g]
            if have:
                c = score.pool(have)
                o["gate"] = {"counts": c, "scores": score.gate_scores(c),
                             "families": [r["family"] for r, g in zip(results, gates) if "counts" in g]}
        out[tool] = o
    return out


def markdown(results, overall, meta):
    peers = [PEER_NAMES[t] for t in PEERS]
    lines = [f"# Change points: perfreport beside e-divisive and Otava", "",
             f"perfreport: `{meta['perfreport']}` ({meta['perfreport_version']}); "
             f"{'quick' if meta['quick'] else 'full'} run, seed {meta['seed'] or 'each family' + chr(39) + 's own'}, "
             f"{meta['runtime_s']:.0f} s. `tune` is the family to tune on; the others are held out.", ""]
    for tool in PEERS:
        info = meta["peers"].get(tool, {})
        lines.append(f"- {PEER_NAMES[tool]}: {info.get('settings') or info.get('unavailable', 'not run')}")
    lines += ["", "## Change points over the whole history", "",
              "F1 from P (precision) and R≥4x; R = recall of labelled changes of at least 4x / 6x their noise; "
              "FA = false alarms per 100 nights. A detection matches a change of the same target and metric "
              "within ±2 nights, each change matched once.", "",
              "| family | targets × nights | changes (per metric) | perfreport history | " + " | ".join(peers) + " |",
              "|---|---|---|---|" + "---|" * len(peers)]
    total = {"changes": sum(r["changes"] for r in results), "series_labels": sum(r["series_labels"] for r in results)}
    for r in results + [{"family": "**all**", "tools": overall, "targets": "", "nights": "", **total}]:
        size = f"{r['targets']} × {r['nights']}" if r["targets"] != "" else ""
        cells = [whole_cell(r["tools"].get("perfreport history", {}))]
        cells += [whole_cell(r["tools"].get(p, {})) for p in peers]
        lines.append(f"| {r['family']} | {size} | {r['changes']} ({r['series_labels']}) | " + " | ".join(cells) + " |")
    lines += ["", "## The nightly gate", "",
              "Red nights by cause (score.py): new = a change landed on a red series within 3 nights (or first "
              "called later); noise = nothing labelled explains any red check; spike = a labelled one-night "
              "spike; loaded = the target's node was loaded; repeat = a change already called; cache miss = "
              "a layer-cache miss. Latency shares are of changes in the worse direction. Peers as a gate: run "
              "on each night's prefix, red when a change point in the worse direction appears that no earlier "
              "night showed.", "",
              "| family | perfreport gate | " + " | ".join(f"{p} on each prefix" for p in peers) + " |",
              "|---|---|" + "---|" * len(peers)]
    for r in results + [{"family": "**all**", "tools": overall}]:
        cells = [gate_cell(r["tools"].get("perfreport gate"))]
        cells += [gate_cell(r["tools"].get(p, {}).get("gate")) for p in peers]
        lines.append(f"| {r['family']} | " + " | ".join(cells) + " |")
    notes = [f"- {r['family']}: data.json differs from the generator on {r['figure_mismatches']} figures"
             for r in results if r["figure_mismatches"]]
    for r in results:
        for p in peers:
            u = r["tools"].get(p, {}).get("unavailable")
            if u:
                notes.append(f"- {r['family']}, {p}: {u}")
    for p in peers:
        fams = overall.get(p, {}).get("gate", {}).get("families")
        if fams and len(fams) < len(results):
            notes.append(f"- {p}'s **all** gate row pools only the families it ran on prefixes: {', '.join(fams)}")
    if notes:
        lines += ["", "Notes:", ""] + notes
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller versions of three families, for iteration")
    ap.add_argument("--family", action="append", choices=sorted(generate.FAMILIES), help="only this family (repeatable)")
    ap.add_argument("--seed", type=int, help="another seed for every family (default: each family's own)")
    ap.add_argument("--perfreport", help="the perfreport binary to gate with (default: build this checkout's)")
    ap.add_argument("--reuse", action="store_true", help="keep generated roots and peer results between runs")
    ap.add_argument("--peer-prefix", choices=("auto", "all", "none"), default="auto",
                    help="run the peers on each night's prefix: auto (affordable families), all, none")
    ap.add_argument("--no-peers", action="store_true", help="perfreport only")
    args = ap.parse_args()
    started = time.time()
    binary = perfreport_binary(args.perfreport)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    os.makedirs(WORK, exist_ok=True)
    peer_env = {}
    if not args.no_peers:
        for tool in PEERS:
            py, err = peer_python(tool)
            peer_env[tool] = (py, err)
            if err:
                loud(f"{PEER_NAMES[tool]} IS NOT AVAILABLE: {err}\nThe benchmark goes on without it.")
    names = args.family or (list(generate.QUICK_FAMILIES) if args.quick else list(generate.FAMILIES))
    results = [bench_family(n, args, binary, peer_env) for n in names]
    overall = pooled(results)
    meta = {"perfreport": binary, "perfreport_version": version, "quick": args.quick, "seed": args.seed,
            "families": names, "runtime_s": time.time() - started, "peers": {}}
    for tool in PEERS:
        for r in results:
            t = r["tools"].get(PEER_NAMES[tool], {})
            if "settings" in t:
                meta["peers"][tool] = {"settings": t["settings"], "version": t["version"]}
                break
        else:
            meta["peers"][tool] = {"unavailable": peer_env.get(tool, (None, "not run (--no-peers)"))[1]}
    text = markdown(results, overall, meta)
    with open(OUT_MD, "w") as f:
        f.write(text)
    write_json(OUT_JSON, {"meta": meta, "families": results, "overall": overall})
    print(text)
    log(f"wrote {OUT_MD} and {OUT_JSON} in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
