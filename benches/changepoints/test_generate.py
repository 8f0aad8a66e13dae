"""A self-check of the generator (no perfreport, no network):
python3 -m unittest discover -s benches/changepoints -p 'test_*.py'"""
import json
import os
import random
import statistics
import tempfile
import unittest

import generate


class Noise(unittest.TestCase):
    def test_every_shape_has_the_stated_standard_deviation_and_no_bias(self):
        rng = random.Random(7)
        for shape in generate.SHAPES:
            n = generate.Noise(random.Random(1), (shape,), 3.0, 3.0)
            draws = [n.draw(rng) for _ in range(40000)]
            self.assertAlmostEqual(statistics.pstdev(draws), 0.03, delta=0.003, msg=shape)
            self.assertAlmostEqual(statistics.fmean(draws), 0.0, delta=0.001, msg=shape)

    def test_the_log_normal_is_skewed_right(self):
        rng = random.Random(3)
        n = generate.Noise(random.Random(1), ("lognormal",), 4.0, 4.0)
        draws = [n.draw(rng) for _ in range(20000)]
        self.assertLess(statistics.median(draws), 0.0, "most nights below the mean, a long tail above")


class Plan(unittest.TestCase):
    def setUp(self):
        self.p = generate.plan("tune", quick=True)
        self.l = generate.labels(self.p)

    def test_the_same_seed_gives_the_same_history(self):
        again = generate.labels(generate.plan("tune", quick=True))
        self.assertEqual(json.dumps(self.l, sort_keys=True), json.dumps(again, sort_keys=True))
        other = generate.labels(generate.plan("tune", seed=2, quick=True))
        self.assertNotEqual(self.l["changes"], other["changes"])

    def test_changes_are_a_few_nights_apart_sized_and_recorded_per_metric(self):
        by_target = {}
        for c in self.l["changes"]:
            by_target.setdefault(c["target"], []).append(c["planned_night"])
            self.assertTrue(2.0 <= c["primary_size"] <= 10.0)
            moved = set(c["sizes"])
            self.assertEqual(moved, {"build_s", "total_s"} if c["component"] == "step"
                             else {"upload_s", "gap_s", "total_s"})
        for nights in by_target.values():
            self.assertTrue(all(b - a >= generate.MIN_APART for a, b in zip(nights, nights[1:])))
        self.assertGreater(len(self.l["changes"]), 5)

    def test_a_step_change_changes_the_revision_that_night(self):
        rev = {r["night"]: r["revision"] for r in self.l["revisions"]}
        for c in self.l["changes"]:
            n = c["planned_night"]
            if c["component"] == "step" and n in rev and n - 1 in rev:
                self.assertNotEqual(rev[n], rev[n - 1], c["id"])


class Steps(unittest.TestCase):
    def test_a_step_change_gives_the_step_a_new_vertex_and_maybe_a_new_command_at_the_same_position(self):
        p = generate.plan("fleet")
        seen = set()
        for c in (c for c in p["changes"] if c["component"] == "step"):
            t = next(t for t in p["targets"] if t["name"] == c["target"])
            before = generate._target_night(p, t, c["night"] - 1, random.Random(1))["steps"][c["step"]]
            after = generate._target_night(p, t, c["night"], random.Random(1))["steps"][c["step"]]
            self.assertNotEqual(before[3], after[3], "the vertex digest changes")
            self.assertEqual(before[0].split("]")[0], after[0].split("]")[0], "same [stage n/m]")
            self.assertEqual(before[0] != after[0], c["command_changed"], c["id"])
            seen.add(c["command_changed"])
        self.assertEqual(seen, {True, False}, "the family has both kinds")


class Night(unittest.TestCase):
    def test_a_loaded_node_ends_above_its_cores_and_its_targets_run_slower(self):
        p = generate.plan("skewed")
        n = next(nt["night"] for nt in p["nights"] if nt["loaded"] and nt["present"])
        node = p["nights"][n]["loaded"][0]
        with tempfile.TemporaryDirectory() as d:
            generate.write_night(p, n, d)
            stamp = generate.stamp_of(n)
            last = {}
            with open(os.path.join(d, stamp, "samples.jsonl")) as f:
                for line in f:
                    s = json.loads(line)
                    last[s["node"]] = s["load1"]
            with open(os.path.join(d, stamp, "run.json")) as f:
                run = json.load(f)
            cores = {x["name"]: x["cores"] for x in run["nodes"]}
            for name, load in last.items():
                self.assertEqual(load > cores[name], name in p["nights"][n]["loaded"], name)
            self.assertIn(node, last)

    def test_a_cache_miss_runs_the_cached_steps(self):
        p = generate.plan("tune", quick=True)
        t = p["targets"][0]
        for n in (20, 21):
            p["nights"][n].update(present=True, loaded=[], spikes=[], cache_misses=[], missing_targets=[])
        p["nights"][20]["cache_misses"] = [t["name"]]
        with tempfile.TemporaryDirectory() as d:
            missed = generate.write_night(p, 20, d)[t["name"]]
            normal = generate.write_night(p, 21, d)[t["name"]]
        self.assertEqual(missed["steps_cached"], 0)
        self.assertGreater(normal["steps_cached"], 0)
        self.assertGreater(missed["build_s"] - normal["build_s"], 30.0)


if __name__ == "__main__":
    unittest.main()
