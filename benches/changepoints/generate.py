"""Labelled nightly histories, written as the harness writes run directories.

A family is a fleet (nodes, targets placed on them) run night after night in
warm mode. Every target's cost is three components with their own noise:
its running steps (build), its setup and export overhead, and its upload.
Each component's noise has a level (a percent of the component's level) and
a shape (gaussian, Student-t with a few degrees of freedom, or a right-skewed
log-normal), each scaled to the stated standard deviation. On top of the
noise the generator places, with fixed seeds:

- changes of level: a running step gets slower or faster (its vertex digest
  changes, sometimes its command text too, and run.json's revision changes
  that night), or the upload gets slower or faster; 2-10x the noise of the
  metric the component is (build_s, upload_s), a few nights apart;
- loaded nights: a node whose targets' steps are inflated, with its samples
  showing a load above its cores up to the last poll;
- one-night spikes of a step or an upload, gone the next night;
- layer-cache misses: the cached steps run instead of being loaded;
- missing nights (no run directory) and missing targets (no trace).

`plan()` decides all of it from the family and seed; `write_night()` writes
one night's directory and returns the figures the generator meant
(total_s, build_s, gap_s, upload_s, steps_cached per target); `labels()`
is the answer key. Standard library only, deterministic for a seed.
"""
import hashlib
import json
import math
import os
import random
from datetime import datetime, timedelta, timezone

US = 1_000_000
FIRST_NIGHT = datetime(2026, 6, 1, 2, 0, 0, tzinfo=timezone.utc)
METRICS = ("total_s", "build_s", "gap_s", "upload_s", "steps_cached")
SHAPES = ("gaussian", "student_t", "lognormal")
ARCH = "gfx1201"
MAX_JOBS = 32

# Families: `fleet` is a whole fleet's size; `tune` is the one to tune on; the
# rest are held out, each leaning on one difficulty.
FAMILIES = {
    "fleet": dict(targets=48, nights=120, nodes=8, shapes=SHAPES, noise=(0.5, 6.0), changes=(0, 3),
                  loaded=0.06, spikes=0.004, cache_miss=0.002, missing_night=0.03, missing_target=0.0008,
                  seed=4301),
    "tune": dict(targets=16, nights=60, nodes=4, shapes=SHAPES, noise=(0.5, 6.0), changes=(0, 3),
                 loaded=0.06, spikes=0.004, cache_miss=0.002, missing_night=0.03, missing_target=0.001,
                 seed=4302),
    "gauss": dict(targets=12, nights=60, nodes=3, shapes=("gaussian",), noise=(0.5, 3.0), changes=(0, 2),
                  loaded=0.03, spikes=0.002, cache_miss=0.001, missing_night=0.02, missing_target=0.0,
                  seed=4303),
    "heavy": dict(targets=12, nights=60, nodes=3, shapes=("student_t",), noise=(1.0, 6.0), changes=(0, 3),
                  loaded=0.05, spikes=0.006, cache_miss=0.002, missing_night=0.02, missing_target=0.001,
                  seed=4304),
    "skewed": dict(targets=12, nights=60, nodes=3, shapes=("lognormal",), noise=(1.0, 6.0), changes=(0, 3),
                   loaded=0.10, spikes=0.004, cache_miss=0.002, missing_night=0.02, missing_target=0.001,
                   seed=4305),
    "gappy": dict(targets=12, nights=60, nodes=3, shapes=SHAPES, noise=(0.5, 6.0), changes=(0, 3),
                  loaded=0.05, spikes=0.004, cache_miss=0.008, missing_night=0.10, missing_target=0.006,
                  seed=4306),
}

QUICK = {"fleet": dict(targets=16, nights=48), "tune": dict(nights=40), "heavy": dict(nights=40)}
QUICK_FAMILIES = ("fleet", "tune", "heavy")

MIN_APART = 8  # nights between two changes of one target, at least
EDGE_BEFORE = 10  # no change before this night: the history needs a level first
EDGE_AFTER = 5  # nor in the last nights: a level after needs points too

CACHED_STEPS = [
    ("RUN apt-get update && apt-get install -y ninja-build ccache libnuma-dev", (60, 200)),
    ("COPY requirements.txt /src/", (1, 3)),
    ("RUN pip install -r /src/requirements.txt", (40, 160)),
    ("ENV SCCACHE_WEBDAV_ENDPOINT=http://cache.fleet:8080 RUSTC_WRAPPER=sccache", (1, 2)),
]
RUNNING_STEPS = [
    "RUN git clone --depth 1 https://example.invalid/{t} /src/{t} && git -C /src/{t} checkout {rev}",
    "RUN cd /src/{t} && MAX_JOBS={jobs} python setup.py bdist_wheel",
    "RUN ./build_kernels.sh --arch gfx1201 --jobs {jobs}",
    "RUN sccache --show-stats > /opt/sccache-stats.txt",
    "RUN pip install /src/dist/*.whl && python -c 'import {t}'",
    "RUN strip --strip-debug /opt/rocm/lib/*.so",
]
TARGET_NAMES = ["pytorch", "triton-wheel", "aiter-wheel", "vllm", "rccl", "hipblaslt", "composable-kernel",
                "flash-attn", "torchvision", "torchaudio", "xformers", "apex", "deepspeed", "onnxruntime",
                "bitsandbytes", "megatron"]


def family_config(name, quick=False):
    cfg = dict(FAMILIES[name])
    if quick:
        cfg.update(QUICK.get(name, {}))
    return cfg


def stamp_of(night):
    return (FIRST_NIGHT + timedelta(days=night)).strftime("%Y%m%dT%H%M%SZ")


def rfc3339(us):
    t = datetime.fromtimestamp(us // US, tz=timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{us % US:06d}Z"


def hexid(rng, digits):
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


def digest(*parts):
    return "sha256:" + hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()


class Noise:
    """One component's night-to-night noise: zero mean, standard deviation
    `pct` percent of the level, in the given shape."""

    def __init__(self, rng, shapes, lo, hi):
        self.pct = round(rng.uniform(lo, hi), 2)
        self.shape = rng.choice(shapes)
        self.dof = rng.choice((3, 4, 5)) if self.shape == "student_t" else None
        self.skew = round(rng.uniform(0.5, 1.0), 2) if self.shape == "lognormal" else None

    def draw(self, rng):
        """A relative deviation: the level is multiplied by 1 + this."""
        s = self.pct / 100.0
        if self.shape == "gaussian":
            z = rng.gauss(0.0, 1.0)
        elif self.shape == "student_t":
            k = self.dof
            chi2 = sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(k))
            z = rng.gauss(0.0, 1.0) / math.sqrt(chi2 / k) / math.sqrt(k / (k - 2))
        else:
            v = self.skew
            mean = math.exp(v * v / 2)
            sd = math.sqrt((math.exp(v * v) - 1) * math.exp(v * v))
            z = (math.exp(v * rng.gauss(0.0, 1.0)) - mean) / sd
        # A component never runs in less than half its level: the clamp
        # touches only the far left tail of the widest noise.
        return max(-0.5, s * z)

    def describe(self):
        d = {"pct": self.pct, "shape": self.shape}
        if self.dof:
            d["dof"] = self.dof
        if self.skew:
            d["lognormal_sigma"] = self.skew
        return d


def _nodes(rng, n):
    out = []
    for i in range(n):
        cores = rng.choice((16, 32, 32, 64))
        out.append({"name": f"n{i}", "builder": f"snoc-n{i}", "addr": f"10.0.3.{10 + i}", "cores": cores,
                    "mem_bytes": (128 if cores >= 32 else 64) << 30,
                    "link_mbps": round(rng.uniform(4.0, 110.0), 1)})
    return out


def _target_names(n):
    names = []
    for i in range(n):
        base = TARGET_NAMES[i % len(TARGET_NAMES)]
        names.append(base if i < len(TARGET_NAMES) else f"{base}-{i // len(TARGET_NAMES) + 1}")
    return names


def _plan_target(rng, cfg, name, node):
    n_cached = rng.randint(2, len(CACHED_STEPS))
    n_running = rng.randint(3, len(RUNNING_STEPS))
    build = rng.uniform(400.0, 3000.0)
    heavy = rng.randrange(1, 3)  # the compile step: setup.py or build_kernels
    weights = [rng.uniform(0.01, 0.06) for _ in range(n_running)]
    weights[heavy] = rng.uniform(0.6, 0.85)
    total_w = sum(weights)
    steps = []
    for i in range(n_cached):
        cmd, (lo, hi) = CACHED_STEPS[i]
        steps.append({"cmd": cmd, "cached": True, "level": rng.uniform(lo, hi), "version": 0})
    for i in range(n_running):
        steps.append({"cmd": RUNNING_STEPS[i], "cached": False, "level": build * weights[i] / total_w,
                      "version": 0, "heavy": i == heavy})
    lo, hi = cfg["noise"]
    t = {"name": name, "node": node, "steps": steps,
         "setup": rng.uniform(8.0, 40.0), "export": rng.uniform(10.0, 40.0),
         "upload": rng.uniform(60.0, 900.0), "blobs": rng.randint(2, 5),
         "noise": {"build": Noise(rng, cfg["shapes"], lo, hi), "overhead": Noise(rng, cfg["shapes"], lo, hi),
                   "upload": Noise(rng, cfg["shapes"], lo, hi)}}
    return t


def _sigmas(t, step_levels, upload):
    """The noise (standard deviation, seconds) of each time metric at the
    given levels: build_s is the running steps, upload_s the upload, gap_s
    setup + export + upload, total_s all of it."""
    build = sum(lvl for s, lvl in zip(t["steps"], step_levels) if not s["cached"])
    nb, no, nu = (t["noise"][k].pct / 100.0 for k in ("build", "overhead", "upload"))
    sb, su, so = nb * build, nu * upload, no * math.hypot(t["setup"], t["export"])
    sg = math.hypot(so, su)
    return {"build_s": sb, "upload_s": su, "gap_s": sg, "total_s": math.hypot(sb, sg)}


def _change_nights(rng, cfg, count):
    nights = cfg["nights"]
    chosen = []
    for _ in range(50):
        if len(chosen) == count:
            break
        n = rng.randrange(EDGE_BEFORE, nights - EDGE_AFTER)
        if all(abs(n - c) >= MIN_APART for c in chosen):
            chosen.append(n)
    return sorted(chosen)


def _plan_changes(rng, cfg, t, changes):
    """Places the target's changes of level; each moves every metric its
    component is part of, by a size recorded in each metric's noise."""
    lo, hi = cfg["changes"]
    levels = [s["level"] for s in t["steps"]]
    upload = t["upload"]
    t["timeline"] = []
    for night in _change_nights(rng, cfg, rng.randint(lo, hi)):
        sig = _sigmas(t, levels, upload)
        k = rng.uniform(2.0, 10.0)
        direction = rng.choice((1, -1))
        if rng.random() < 0.7:
            running = [i for i, s in enumerate(t["steps"]) if not s["cached"]]
            heavy = [i for i in running if t["steps"][i].get("heavy")]
            idx = heavy[0] if rng.random() < 0.75 else rng.choice(running)
            delta = direction * k * sig["build_s"]
            if levels[idx] + delta < 0.3 * levels[idx]:
                direction, delta = 1, abs(delta)
            levels[idx] += delta
            cmd = t["steps"][idx]["cmd"]
            # Half the changes come with a new command (a checkout, a job count), where it has one.
            changed = rng.random() < 0.5 and ("{rev}" in cmd or "{jobs}" in cmd)
            component = {"component": "step", "step": idx, "command_changed": changed}
            moved = ("build_s", "total_s")
        else:
            delta = direction * k * sig["upload_s"]
            if upload + delta < 0.3 * upload:
                direction, delta = 1, abs(delta)
            upload += delta
            component = {"component": "upload"}
            moved = ("upload_s", "gap_s", "total_s")
        change = {"id": f"{t['name']}@{night}", "target": t["name"], "night": night, "direction": direction,
                  "delta_s": round(delta, 3), "primary_size": round(k, 2),
                  "sizes": {m: round(abs(delta) / sig[m], 2) for m in moved}, **component}
        changes.append(change)
        t["timeline"].append((night, list(levels), upload, change))


def plan(family, seed=None, quick=False):
    """Everything a family's history holds, decided up front from its seed."""
    cfg = family_config(family, quick)
    rng = random.Random(cfg["seed"] if seed is None else seed * 1000 + cfg["seed"])
    nodes = _nodes(rng, cfg["nodes"])
    names = _target_names(cfg["targets"])
    targets = [_plan_target(rng, cfg, name, nodes[i % len(nodes)]["name"]) for i, name in enumerate(names)]
    changes = []
    for t in targets:
        _plan_changes(rng, cfg, t, changes)
    nights = cfg["nights"]
    missing_nights = sorted(n for n in range(6, nights) if rng.random() < cfg["missing_night"])
    per_night = []
    revision = hexid(rng, 12)
    for n in range(nights):
        stepped = any(c["night"] == n and c["component"] == "step" for c in changes)
        if n > 0 and (stepped or rng.random() < 0.25):
            revision = hexid(rng, 12)
        night = {"night": n, "stamp": stamp_of(n), "present": n not in missing_nights, "revision": revision,
                 "loaded": [], "loaded_by": {}, "spikes": [], "cache_misses": [], "missing_targets": [], "seed": rng.getrandbits(48)}
        if n >= 3:
            night["loaded"] = [nd["name"] for nd in nodes if rng.random() < cfg["loaded"]]
            # How much slower a loaded node's steps run that night.
            night["loaded_by"] = {name: round(rng.uniform(0.12, 0.4), 3) for name in night["loaded"]}
            for t in targets:
                if rng.random() < cfg["spikes"]:
                    comp = rng.choice(("step", "upload"))
                    night["spikes"].append({"target": t["name"], "component": comp,
                                            "size": round(rng.uniform(6.0, 12.0), 2)})
                if rng.random() < cfg["cache_miss"]:
                    night["cache_misses"].append(t["name"])
                if rng.random() < cfg["missing_target"]:
                    night["missing_targets"].append(t["name"])
        per_night.append(night)
    return {"family": family, "config": cfg, "nodes": nodes, "targets": targets, "changes": changes,
            "nights": per_night, "quick": quick, "seed": seed}


def _levels_at(t, night):
    levels = [s["level"] for s in t["steps"]]
    upload = t["upload"]
    versions = [0] * len(levels)
    commands = [0] * len(levels)
    for n, lv, up, change in t["timeline"]:
        if n <= night:
            levels, upload = lv, up
            if change["component"] == "step":
                versions[change["step"]] += 1
                commands[change["step"]] += 1 if change["command_changed"] else 0
    return levels, upload, versions, commands


def _command(t, i, version):
    """Step i's command text at its `version`-th change of command."""
    return t["steps"][i]["cmd"].format(t=t["name"], rev=f"v{version}", jobs=32 + 4 * version)


def _step_label(stage, n, total):
    width = len(str(total))
    return f"[{stage} {n:>{width}}/{total}]"


def _target_night(p, t, night, rng):
    """One target's night: its step durations, setup, export and upload (s)."""
    nt = p["nights"][night]
    levels, upload, versions, commands = _levels_at(t, night)
    e_build = t["noise"]["build"].draw(rng)
    e_over = t["noise"]["overhead"].draw(rng)
    e_over2 = t["noise"]["overhead"].draw(rng)
    e_up = t["noise"]["upload"].draw(rng)
    factor = 1.0 + e_build
    if t["node"] in nt["loaded"]:
        factor *= 1.0 + nt["loaded_by"][t["node"]]
    up_factor = 1.0 + e_up
    for s in nt["spikes"]:
        if s["target"] == t["name"]:
            if s["component"] == "step":
                factor += s["size"] * t["noise"]["build"].pct / 100.0
            else:
                up_factor += s["size"] * t["noise"]["upload"].pct / 100.0
    miss = t["name"] in nt["cache_misses"]
    steps = []
    total = len(t["steps"])
    for i, s in enumerate(t["steps"]):
        stage = "final" if i + 1 == total else "builder"
        name = f"{_step_label(stage, i + 1, total)} {_command(t, i, commands[i])}"
        vertex = digest(t["name"], i, versions[i])
        if s["cached"] and not miss:
            steps.append((name, rng.uniform(0.02, 0.2), True, vertex))
        elif s["cached"]:
            steps.append((name, levels[i] * (1.0 + e_build), False, vertex))
        else:
            steps.append((name, levels[i] * factor, False, vertex))
    return {"steps": steps, "setup": t["setup"] * (1.0 + e_over), "export": t["export"] * (1.0 + e_over2),
            "upload": upload * up_factor, "blobs": t["blobs"]}


def _span(spans, rng, parent, name, start, end, tags=()):
    sid = hexid(rng, 16)
    spans.append((sid, parent, name, start, end, list(tags)))
    return sid


def _trace(rng, start, tn):
    """The target's Jaeger trace and the figures it means."""
    spans = []
    root = hexid(rng, 16)
    t = start
    solve_start = t + 100_000
    first_step = t + int(tn["setup"] * US)
    setup_names = ["[internal] load build definition from Dockerfile",
                   f"[internal] load metadata for docker.io/rocm/dev-ubuntu-24.04:6.4-complete",
                   "[internal] load .dockerignore", "[internal] load build context"]
    solve_children = []
    seg = (first_step - solve_start - 100_000) // len(setup_names)
    for i, name in enumerate(setup_names):
        s = solve_start + 50_000 + i * seg
        solve_children.append((name, s, s + max(seg - 20_000, 1000), ()))
    now = first_step
    step_spans = []
    for name, dur, cached, vertex in tn["steps"]:
        end = now + max(int(dur * US), 1000)
        solve_children.append((f"cache request: {name}", now - 300, now - 100, ()))
        shown = f"load cache: {name}" if cached else name
        step_spans.append((shown, now, end, (("vertex", vertex),)))
        now = end + 50_000
    last_step_end = now - 50_000
    export_start = last_step_end + 100_000
    pre = int(tn["export"] * 0.6 * US)
    post = int(tn["export"] * 0.4 * US)
    up_start = export_start + pre
    blobs = tn["blobs"]
    up_total = int(tn["upload"] * US)
    blob_gap = 200_000
    uploads = []
    at = up_start
    for b in range(blobs):
        length = up_total // blobs if b + 1 < blobs else up_total - (up_total // blobs) * (blobs - 1)
        uploads.append((at, at + length))
        at += length + blob_gap
    up_end = at - blob_gap
    end = up_end + post + 300_000
    solve_id = _span(spans, rng, root, "moby.buildkit.v1.Control/Solve", solve_start, end - 100_000)
    for name, s, e, tags in solve_children:
        _span(spans, rng, solve_id, name, s, e, tags)
    for name, s, e, tags in step_spans:
        _span(spans, rng, solve_id, name, s, e, tags)
    exp = _span(spans, rng, solve_id, "exporting to image", export_start, end - 200_000)
    _span(spans, rng, exp, "exporting layers", export_start + 50_000, export_start + pre - 50_000)
    _span(spans, rng, solve_id, "exporting cache to registry", up_start - 20_000, end - 150_000)
    push = _span(spans, rng, exp, "pushing layers", up_start - 10_000, up_end + 10_000)
    for i, (s, e) in enumerate(uploads):
        outer = _span(spans, rng, push, "remotes.docker.resolver.HTTPRequest", s, e, (("http.request.method", "PUT"),))
        _span(spans, rng, outer, "HTTP PUT", s + 20, e - 20, (("http.request.method", "PUT"),))
        if i == 0 and e - s > 2_000_000:
            # A concurrent small blob inside the first: uploads overlap, counted once.
            inner = _span(spans, rng, push, "remotes.docker.resolver.HTTPRequest", s + 500_000, s + 1_500_000,
                          (("http.request.method", "PUT"),))
            _span(spans, rng, inner, "HTTP PUT", s + 500_020, s + 1_499_980, (("http.request.method", "PUT"),))
        h = _span(spans, rng, push, "remotes.docker.resolver.HTTPRequest", s - 40_000, s - 10_000)
        _span(spans, rng, h, "HTTP HEAD", s - 39_000, s - 11_000, (("http.request.method", "HEAD"),))
    _span(spans, rng, exp, "writing manifest sha256:" + hexid(rng, 64), up_end + 20_000, up_end + post)
    spans.insert(0, (root, None, "build", start, end, []))
    trace_id = hexid(rng, 32)
    js = [{"traceID": trace_id, "spanID": sid,
           "operationName": name,
           "references": [{"refType": "CHILD_OF", "traceID": trace_id, "spanID": parent or "0" * 16}],
           "startTime": s, "duration": e - s,
           "tags": [{"key": k, "type": "string", "value": v} for k, v in tags],
           "logs": [], "processID": "p1", "warnings": None}
          for sid, parent, name, s, e, tags in spans]
    doc = {"data": [{"traceID": trace_id, "spans": js, "processes": {"p1": {"serviceName": "buildx", "tags": []}},
                     "warnings": None}], "total": 0, "limit": 0, "offset": 0, "errors": None}
    first = step_spans[0][1]
    last = max(s[2] for s in step_spans)
    union = sum(e - 20 - (s + 20) for s, e in uploads)
    meant = {"total_s": (end - start) / US, "build_s": (last - first) / US,
             "gap_s": ((end - start) - (last - first)) / US, "upload_s": union / US,
             "steps_cached": sum(1 for s in step_spans if s[0].startswith("load cache: "))}
    return json.dumps(doc, indent=1) + "\n", end, meant


def _samples(rng, nodes, busy, started, finished, loaded, loaded_by):
    """node_exporter polls every 60 s; a loaded node runs above its cores
    throughout and at its last poll, the others stay below theirs."""
    lines = []
    state = {n["name"]: [8.0e4, 5.0e3, 9.9e5, 300.0, 90.0, 1.2e8, 9.8e8, 5.5e9, 1.1e9] for n in nodes}
    t = started + 5 * US
    polls = []
    while t < finished - 5 * US:
        polls.append(t)
        t += 60 * US
    polls.append(finished - 5 * US)
    for k, t in enumerate(polls):
        last = k + 1 == len(polls)
        for n in nodes:
            name, cores = n["name"], n["cores"]
            active = any(s <= t <= e for s, e in busy.get(name, []))
            if name in loaded:
                load = cores * (1.0 + loaded_by[name] * rng.uniform(1.2, 2.0))
                frac = 0.97
            elif active and not last:
                load = cores * rng.uniform(0.6, 0.95)
                frac = rng.uniform(0.8, 0.95)
            else:
                load = cores * rng.uniform(0.02, 0.5)
                frac = rng.uniform(0.02, 0.3)
            st = state[name]
            cpu_s = cores * 60.0
            st[0] += cpu_s * frac * 0.9
            st[1] += cpu_s * frac * 0.08
            st[4] += cpu_s * frac * 0.02
            st[2] += cpu_s * (1 - frac) * 0.97
            st[3] += cpu_s * (1 - frac) * 0.03
            st[5] += rng.uniform(1e5, 3e7)
            st[6] += rng.uniform(1e5, 4e7)
            st[7] += rng.uniform(1e4, 5e6)
            st[8] += rng.uniform(1e4, 5e6)
            total = n["mem_bytes"]
            avail = int(total * (1 - rng.uniform(0.1, 0.7)))
            lines.append(json.dumps({
                "ts": rfc3339(t + rng.randrange(200_000)), "node": name,
                "cpu": {"user": round(st[0], 1), "nice": 0.0, "system": round(st[1], 1), "idle": round(st[2], 1),
                        "iowait": round(st[3], 1), "irq": 0.0, "softirq": round(st[4], 1), "steal": 0.0},
                "mem": {"total": total, "available": avail},
                "disk": {"read": int(st[5]), "written": int(st[6])}, "net": {"rx": int(st[7]), "tx": int(st[8])},
                "load1": round(load, 2)}))
    return "\n".join(lines) + "\n"


def _write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_night(p, night, root):
    """Writes night `night` of plan `p` under `root` (nothing for a missing
    night) and returns {target: figures meant} for the targets it ran."""
    nt = p["nights"][night]
    if not nt["present"]:
        return None
    rng = random.Random(nt["seed"])
    stamp = nt["stamp"]
    d = os.path.join(root, stamp)
    os.makedirs(d, exist_ok=True)
    started = int((FIRST_NIGHT + timedelta(days=night)).timestamp()) * US + rng.randrange(0, 60) * US
    free = {n["name"]: started + rng.randrange(2, 8) * US for n in p["nodes"]}
    busy = {}
    meant = {}
    placement = ["# balancer: est_s = build_s + cache_bytes / (link_mbps * 1e6); the node that finishes soonest wins"]
    previous = {}
    for t in p["targets"]:
        tn = _target_night(p, t, night, rng)
        node = t["node"]
        after = f" after={previous[node]}" if node in previous else ""
        placement.append(f"placement target={t['name']} node={node} builder=snoc-{node} "
                         f"build_s={sum(s[1] for s in tn['steps']):.0f}{after}")
        previous[node] = t["name"]
        if t["name"] in nt["missing_targets"]:
            continue
        start = free[node] + rng.randrange(1, 5) * US
        text, end, figures = _trace(rng, start, tn)
        _write(os.path.join(d, f"trace-{t['name']}.json"), text)
        busy.setdefault(node, []).append((start, end))
        free[node] = end
        meant[t["name"]] = figures
    finished = max(free.values()) + 30 * US
    run = {"stamp": stamp, "mode": "warm", "arch": ARCH, "max_jobs": MAX_JOBS,
           "targets": [t["name"] for t in p["targets"]], "namespace": "rocm-warmrun",
           "sccache_prefix": f"perf-{stamp}", "started_at": rfc3339(started), "finished_at": rfc3339(finished),
           "nodes": p["nodes"], "revision": nt["revision"]}
    _write(os.path.join(d, "placement.txt"), "\n".join(placement) + "\n")
    _write(os.path.join(d, "samples.jsonl"),
           _samples(rng, p["nodes"], busy, started, finished, nt["loaded"], nt["loaded_by"]))
    _write(os.path.join(d, "run.json"), json.dumps(run, indent=2) + "\n")
    return meant


def _first_present(p, target, night):
    """The first night at or after `night` on which `target` ran."""
    for nt in p["nights"][night:]:
        if nt["present"] and target not in nt["missing_targets"]:
            return nt["night"]
    return None


def labels(p):
    """The answer key: every change (per metric it moves, with its size in
    that metric's noise), spike, loaded night, cache miss and missing night."""
    node_of = {t["name"]: t["node"] for t in p["targets"]}
    changes = []
    for c in p["changes"]:
        lands = _first_present(p, c["target"], c["night"])
        if lands is None:
            continue
        changes.append({**c, "night": lands, "stamp": stamp_of(lands), "planned_night": c["night"]})
    present = [nt for nt in p["nights"] if nt["present"]]
    return {
        "family": p["family"], "config": {k: v for k, v in p["config"].items()}, "quick": p["quick"],
        "seed": p["seed"], "nights": len(p["nights"]), "stamps": [nt["stamp"] for nt in p["nights"]],
        "targets": {t["name"]: {"node": t["node"], "noise": {k: n.describe() for k, n in t["noise"].items()},
                                "sigma_s": {m: round(v, 3) for m, v in
                                            _sigmas(t, [s["level"] for s in t["steps"]], t["upload"]).items()}}
                    for t in p["targets"]},
        "nodes": {n["name"]: n["cores"] for n in p["nodes"]},
        "changes": changes,
        "spikes": [{**s, "night": nt["night"], "stamp": nt["stamp"]} for nt in present for s in nt["spikes"]
                   if s["target"] not in nt["missing_targets"]],
        "loaded": [{"night": nt["night"], "stamp": nt["stamp"], "node": node, "slower_by": nt["loaded_by"][node],
                    "targets": sorted(t for t, n in node_of.items() if n == node)}
                   for nt in present for node in nt["loaded"]],
        "cache_misses": [{"night": nt["night"], "stamp": nt["stamp"], "target": t}
                         for nt in present for t in nt["cache_misses"] if t not in nt["missing_targets"]],
        "missing_nights": [nt["night"] for nt in p["nights"] if not nt["present"]],
        "missing_targets": [{"night": nt["night"], "target": t} for nt in present for t in nt["missing_targets"]],
        "revisions": [{"night": nt["night"], "revision": nt["revision"]} for nt in present],
    }
