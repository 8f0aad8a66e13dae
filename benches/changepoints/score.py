"""Scoring detections against a history's labels: pure functions, standard
library only (the self-check, test_score.py, runs them on hand-made cases).

The matching rule: a detection matches a labelled change on the same target
and metric within +-TOL nights (nights are calendar nights, a missing night
counts), each label matched at most once, each detection at most once. A
change of a component counts for every metric it moves (a step's change
moves build_s and total_s; an upload's moves upload_s, gap_s and total_s),
with its size in that metric's own noise. For a gate (a verdict on the
night, which cannot see a change before it lands), a red check matches a
change that landed 0..TOL nights before it, and only changes in the worse
direction (a time up, a count of cached steps down) count: a gate is not red
for an improvement.

Over a whole history: precision = matched detections / detections; recall
= labelled changes of at least 4x (and 6x) their noise that were matched /
all such changes; F1 from precision and the 4x recall; false alarms =
unmatched detections per 100 nights of the family.

For a gate, each red check is explained by the first that applies: `new`
(a change in the worse direction landed on that series at most RECENT
nights before and this is its first red), `late` (its first red, at most
LATE nights after it landed), `repeat` (a red on a series whose change was
already called, at most EXPLAINS nights after it landed), `loaded` (the
target's node was loaded that night), `cache_miss` (the target's layer cache
missed that night), `spike` (a labelled one-night spike of the target),
`noise` (nothing labelled explains it). A red night takes the first of
those categories, in that order, that any of its red checks has: a night is
red "from noise alone" when every red check is noise. Latency is the
nights from a change landing to its first red on that series.
"""

TOL = 2
RECENT = 3
LATE = 10
EXPLAINS = 30
SIZES = (4.0, 6.0)
CATEGORIES = ("new", "late", "repeat", "loaded", "cache_miss", "spike", "noise")


def worse(metric, direction):
    """A change in this direction makes the metric worse."""
    return direction < 0 if metric == "steps_cached" else direction > 0


def series_labels(labels):
    """One label per metric a change moves: {target, metric, night, size,
    direction, id}, sorted by series and night."""
    out = []
    for c in labels["changes"]:
        for metric, size in c["sizes"].items():
            out.append({"target": c["target"], "metric": metric, "night": c["night"], "size": size,
                        "direction": c["direction"], "id": c["id"]})
    out.sort(key=lambda l: (l["target"], l["metric"], l["night"]))
    return out


def _by_series(items):
    out = {}
    for it in items:
        out.setdefault((it["target"], it["metric"]), []).append(it)
    for v in out.values():
        v.sort(key=lambda it: it["night"])
    return out


def match(detections, labs, before=TOL, after=TOL):
    """Greedy matching in night order, per series: each detection takes the
    earliest unmatched label with label.night in [night - before, night +
    after]. Optimal for such interval constraints. Returns the list of
    (detection, label) pairs."""
    pairs = []
    lab_by = _by_series(labs)
    for key, dets in _by_series(detections).items():
        free = list(lab_by.get(key, []))
        for d in dets:
            for i, l in enumerate(free):
                if d["night"] - before <= l["night"] <= d["night"] + after:
                    pairs.append((d, l))
                    del free[i]
                    break
    return pairs


def counts(detections, labs, nights, before=TOL, after=TOL):
    """The additive counts behind the scores (so families pool by summing)."""
    pairs = match(detections, labs, before, after)
    hit = {id(l) for _, l in pairs}
    c = {"detections": len(detections), "matched": len(pairs), "false": len(detections) - len(pairs),
         "nights": nights}
    for s in SIZES:
        big = [l for l in labs if l["size"] >= s]
        c[f"labels_{s:g}x"] = len(big)
        c[f"found_{s:g}x"] = sum(1 for l in big if id(l) in hit)
    return c


def ratio(a, b):
    return None if b == 0 else a / b


def scores(c):
    """Precision, recall (4x, 6x), F1 and false alarms per 100 nights."""
    p = ratio(c["matched"], c["detections"])
    r4 = ratio(c["found_4x"], c["labels_4x"])
    r6 = ratio(c["found_6x"], c["labels_6x"])
    f1 = None if p is None or r4 is None or p + r4 == 0 else 2 * p * r4 / (p + r4)
    fa = ratio(100.0 * c["false"], c["nights"])
    return {"precision": p, "recall_4x": r4, "recall_6x": r6, "f1": f1, "false_per_100_nights": fa}


def pool(items):
    """Sums counts dicts key by key (numbers only)."""
    out = {}
    for c in items:
        for k, v in c.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
    return out


def _events(labels):
    node_of = {t: v["node"] for t, v in labels["targets"].items()}
    loaded = {(e["night"], e["node"]) for e in labels["loaded"]}
    misses = {(e["night"], e["target"]) for e in labels["cache_misses"]}
    spikes = {(e["night"], e["target"]) for e in labels["spikes"]}
    return node_of, loaded, misses, spikes


def classify(nights, labels):
    """Each gated night's red checks and the night's category.

    `nights`: [{"night": n, "exit": code, "red": [[target, metric], ...]}]
    in night order. Returns (per-night records, latency per worse label)."""
    labs = _by_series(series_labels(labels))
    node_of, loaded, misses, spikes = _events(labels)
    called = {}  # label id per series -> first night red
    first_red = {}
    out = []
    for rec in nights:
        n = rec["night"]
        cats = []
        for target, metric in rec["red"]:
            key = (target, metric)
            before = [l for l in labs.get(key, []) if l["night"] <= n]
            last = before[-1] if before else None
            cat = None
            if last is not None and worse(metric, last["direction"]):
                lk = (key, last["night"])
                age = n - last["night"]
                if lk in called and age <= EXPLAINS:
                    cat = "repeat"
                elif lk not in called and age <= LATE:
                    called[lk] = n
                    first_red[lk] = n
                    cat = "new" if age <= RECENT else "late"
            if cat is None:
                if (n, node_of.get(target)) in loaded:
                    cat = "loaded"
                elif (n, target) in misses:
                    cat = "cache_miss"
                elif (n, target) in spikes:
                    cat = "spike"
                else:
                    cat = "noise"
            cats.append({"target": target, "metric": metric, "category": cat})
        red = rec["exit"] == 1
        category = None
        if red:
            found = {c["category"] for c in cats}
            category = next((c for c in CATEGORIES if c in found), "noise")
        out.append({"night": n, "exit": rec["exit"], "red": red, "category": category, "checks": cats})
    # Latency counts the nights that ran: a change that lands before a
    # missing night is red "by the next night" on the next run there is.
    present = sorted(rec["night"] for rec in nights)
    latency = []
    for key, ls in labs.items():
        for l in ls:
            if worse(key[1], l["direction"]):
                n = first_red.get((key, l["night"]))
                ran = None
                if n is not None:
                    ran = sum(1 for m in present if l["night"] < m <= n) - (0 if l["night"] in present else 1)
                latency.append({"target": key[0], "metric": key[1], "night": l["night"], "size": l["size"],
                                "latency": ran})
    return out, latency


def gate_counts(nights, labels, total_nights):
    """The gate's counts: red nights by category, exits, latency shares, and
    the detection counts of its red checks (each red check is a detection:
    one repeated on later nights is a false one)."""
    per_night, latency = classify(nights, labels)
    c = {"nights_gated": sum(1 for r in per_night if r["exit"] in (0, 1)),
         "nights_other_exit": sum(1 for r in per_night if r["exit"] not in (0, 1)),
         "red_nights": sum(1 for r in per_night if r["red"])}
    for cat in CATEGORIES:
        c[f"red_{cat}"] = sum(1 for r in per_night if r["category"] == cat)
    c["red_any_noise"] = sum(1 for r in per_night if r["red"] and any(k["category"] == "noise" for k in r["checks"]))
    big6 = [l for l in latency if l["size"] >= 6]
    big4 = [l for l in latency if l["size"] >= 4]
    c["labels_6x_worse"] = len(big6)
    c["red_by_next_night_6x"] = sum(1 for l in big6 if l["latency"] is not None and l["latency"] <= 1)
    c["labels_4x_worse"] = len(big4)
    c["red_within_two_nights_4x"] = sum(1 for l in big4 if l["latency"] is not None and l["latency"] <= 2)
    dets = [{"target": t, "metric": m, "night": r["night"]} for r in nights for t, m in r["red"]]
    worse_labs = [l for l in series_labels(labels) if worse(l["metric"], l["direction"])]
    c.update(counts(dets, worse_labs, total_nights, before=TOL, after=0))
    return c, per_night, latency


def gate_scores(c):
    s = scores(c)
    s["red_share"] = ratio(c["red_nights"], c["nights_gated"])
    s["noise_share"] = ratio(c["red_noise"], c["nights_gated"])
    s["any_noise_share"] = ratio(c["red_any_noise"], c["nights_gated"])
    s["red_by_next_night_6x"] = ratio(c["red_by_next_night_6x"], c["labels_6x_worse"])
    s["red_within_two_nights_4x"] = ratio(c["red_within_two_nights_4x"], c["labels_4x_worse"])
    return s


def direction_at(values, cps, i):
    """The sign of the level change at change point index `i` (between the
    segments either side of it, bounded by the neighbouring change points)."""
    cuts = [0] + sorted(cps) + [len(values)]
    k = cuts.index(i)
    left = values[cuts[k - 1]:i]
    right = values[i:cuts[k + 1]]
    if not left or not right:
        return 0
    d = sum(right) / len(right) - sum(left) / len(left)
    return (d > 0) - (d < 0)


def prefix_alarms(nights, values, prefix, metric):
    """A peer run as a lane: on the night of each prefix's last point, a
    change point in the worse direction that no earlier night's run showed
    (within +-TOL nights) is a red check. `nights[i]` is the night of
    `values[i]`; `prefix` is [[length, [indices]], ...]. Returns the nights
    red for this series."""
    alarmed = []
    red = []
    for length, cps in prefix:
        night = nights[length - 1]
        shown = values[:length]
        fresh = False
        for i in cps:
            at = nights[i]
            if any(abs(at - a) <= TOL for a in alarmed):
                continue
            if worse(metric, direction_at(shown, cps, i)):
                alarmed.append(at)
                fresh = True
        if fresh:
            red.append(night)
    return red
