"""A self-check of the scorer on hand-made labelled cases (no network, no
perfreport): python3 -m unittest discover -s benches/changepoints -p 'test_*.py'"""
import unittest

import score


def labels(changes=(), loaded=(), misses=(), spikes=()):
    return {"changes": list(changes), "targets": {"a": {"node": "n0"}, "b": {"node": "n1"}},
            "loaded": [{"night": n, "node": node} for n, node in loaded],
            "cache_misses": [{"night": n, "target": t} for n, t in misses],
            "spikes": [{"night": n, "target": t} for n, t in spikes]}


def step(target, night, size, direction=1):
    """A step change: it moves build_s by `size` noise units, total_s by half."""
    return {"id": f"{target}@{night}", "target": target, "night": night, "direction": direction,
            "sizes": {"build_s": size, "total_s": size / 2}}


def det(target, metric, night):
    return {"target": target, "metric": metric, "night": night}


class WholeHistory(unittest.TestCase):
    def test_a_detection_within_two_nights_matches_and_each_label_only_once(self):
        labs = score.series_labels(labels([step("a", 20, 8.0)]))
        c = score.counts([det("a", "build_s", 22), det("a", "build_s", 21), det("a", "build_s", 17)], labs, 100)
        self.assertEqual(c["matched"], 1, "one label, matched once, however many detections are near it")
        self.assertEqual(c["false"], 2)
        self.assertEqual((c["labels_4x"], c["found_4x"]), (2, 1), "build_s at 8x is found; total_s at 4x is not")
        s = score.scores(c)
        self.assertAlmostEqual(s["precision"], 1 / 3)
        self.assertEqual(s["false_per_100_nights"], 2.0)

    def test_a_detection_on_another_metric_or_three_nights_off_is_false(self):
        labs = score.series_labels(labels([step("a", 20, 8.0)]))
        c = score.counts([det("a", "upload_s", 20), det("a", "build_s", 23), det("b", "build_s", 20)], labs, 50)
        self.assertEqual(c["matched"], 0)
        self.assertEqual(score.scores(c)["recall_4x"], 0.0)

    def test_a_change_counts_for_every_metric_it_moves_with_its_own_size(self):
        labs = score.series_labels(labels([step("a", 20, 6.0)]))
        self.assertEqual([(l["metric"], l["size"]) for l in labs], [("build_s", 6.0), ("total_s", 3.0)])
        c = score.counts([det("a", "total_s", 20)], labs, 100)
        self.assertEqual((c["matched"], c["found_4x"], c["labels_4x"]), (1, 0, 1),
                         "a small label matched is precision, not 4x recall")

    def test_greedy_matching_pairs_two_close_changes_with_two_detections(self):
        labs = score.series_labels(labels([step("a", 20, 8.0), step("a", 23, 8.0)]))
        c = score.counts([det("a", "build_s", 21), det("a", "build_s", 23)], labs, 100)
        self.assertEqual(c["matched"], 2)

    def test_pooling_sums_counts_and_scores_them_together(self):
        a = {"detections": 4, "matched": 2, "false": 2, "nights": 50, "labels_4x": 2, "found_4x": 2,
             "labels_6x": 1, "found_6x": 1}
        b = {"detections": 0, "matched": 0, "false": 0, "nights": 50, "labels_4x": 2, "found_4x": 0,
             "labels_6x": 1, "found_6x": 0}
        s = score.scores(score.pool([a, b]))
        self.assertEqual((s["precision"], s["recall_4x"], s["false_per_100_nights"]), (0.5, 0.5, 2.0))


def night(n, red, code=None):
    return {"night": n, "exit": code if code is not None else (1 if red else 0), "red": red}


class Gate(unittest.TestCase):
    def test_first_red_is_new_the_next_ones_repeat_and_latency_is_counted_from_landing(self):
        lab = labels([step("a", 10, 8.0)])
        nights = [night(9, []), night(10, []), night(11, [["a", "build_s"]]), night(12, [["a", "build_s"]])]
        c, per, lat = score.gate_counts(nights, lab, 20)
        self.assertEqual([r["category"] for r in per], [None, None, "new", "repeat"])
        self.assertEqual((c["red_new"], c["red_repeat"], c["red_nights"]), (1, 1, 2))
        build = [l for l in lat if l["metric"] == "build_s"][0]
        self.assertEqual(build["latency"], 1)
        self.assertEqual((c["red_by_next_night_6x"], c["labels_6x_worse"]), (1, 1))
        self.assertEqual((c["matched"], c["false"]), (1, 1), "the repeat is a false red check")

    def test_latency_counts_the_nights_that_ran(self):
        # Night 11 did not run: red on night 12 is red by the next night there was.
        lab = labels([step("a", 10, 8.0)])
        nights = [night(9, []), night(10, []), night(12, [["a", "build_s"]])]
        c, per, lat = score.gate_counts(nights, lab, 20)
        build = [l for l in lat if l["metric"] == "build_s"][0]
        self.assertEqual(build["latency"], 1)
        # A change landing on a night that did not run lands on the next run.
        nights = [night(9, []), night(11, [["a", "build_s"]])]
        c, per, lat = score.gate_counts(nights, lab, 20)
        self.assertEqual([l for l in lat if l["metric"] == "build_s"][0]["latency"], 0)

    def test_a_gate_cannot_call_a_change_before_it_lands(self):
        lab = labels([step("a", 10, 8.0)])
        c, per, _ = score.gate_counts([night(9, [["a", "build_s"]])], lab, 20)
        self.assertEqual(per[0]["category"], "noise")
        self.assertEqual(c["matched"], 0)

    def test_an_improvement_is_not_a_gate_s_to_find(self):
        lab = labels([step("a", 10, 8.0, direction=-1)])
        c, per, lat = score.gate_counts([night(10, [["a", "build_s"]])], lab, 20)
        self.assertEqual(lat, [])
        self.assertEqual(c["labels_4x_worse"], 0)
        self.assertEqual(per[0]["category"], "noise")

    def test_loaded_cache_miss_and_spike_explain_a_red_check_noise_is_the_rest(self):
        lab = labels(loaded=[(5, "n0")], misses=[(6, "a")], spikes=[(7, "b")])
        nights = [night(5, [["a", "total_s"]]), night(6, [["a", "steps_cached"]]), night(7, [["b", "upload_s"]]),
                  night(8, [["b", "upload_s"]]), night(9, [["b", "gap_s"], ["a", "total_s"]], code=1)]
        c, per, _ = score.gate_counts(nights, lab, 20)
        self.assertEqual([r["category"] for r in per], ["loaded", "cache_miss", "spike", "noise", "noise"])
        self.assertEqual((c["red_noise"], c["red_any_noise"]), (2, 2))

    def test_a_night_takes_its_best_explanation_and_still_counts_a_noise_check(self):
        lab = labels([step("a", 10, 8.0)])
        c, per, _ = score.gate_counts([night(10, [["b", "build_s"], ["a", "build_s"]])], lab, 20)
        self.assertEqual(per[0]["category"], "new")
        self.assertEqual((c["red_noise"], c["red_any_noise"]), (0, 1))

    def test_a_red_long_after_a_change_is_no_longer_explained_by_it(self):
        lab = labels([step("a", 10, 8.0)])
        _, per, _ = score.gate_counts([night(10 + score.LATE + 1, [["a", "build_s"]])], lab, 60)
        self.assertEqual(per[0]["category"], "noise")
        nights = [night(10, [["a", "build_s"]]), night(10 + score.EXPLAINS + 1, [["a", "build_s"]])]
        _, per, _ = score.gate_counts(nights, lab, 60)
        self.assertEqual([r["category"] for r in per], ["new", "noise"])

    def test_other_exits_are_neither_gated_nor_red(self):
        c, per, _ = score.gate_counts([night(3, [], code=3), night(4, [], code=2)], labels(), 10)
        self.assertEqual((c["nights_gated"], c["nights_other_exit"], c["red_nights"]), (0, 2, 0))


class PeerAsGate(unittest.TestCase):
    def test_a_change_point_is_red_once_on_the_night_it_first_appears_and_only_upwards_for_a_time(self):
        values = [10.0] * 6 + [20.0] * 6
        nights = list(range(12))
        prefix = [[n, [6] if n >= 9 else []] for n in range(5, 13)]
        self.assertEqual(score.prefix_alarms(nights, values, prefix, "build_s"), [8])
        self.assertEqual(score.prefix_alarms(nights, values, prefix, "steps_cached"), [],
                         "more cached steps is better: no red")

    def test_a_change_point_that_moves_by_a_night_is_not_red_again(self):
        values = [10.0] * 6 + [20.0] * 6
        prefix = [[9, [6]], [10, [5]], [11, [6]], [12, [6, 9]]]
        red = score.prefix_alarms(list(range(12)), values, prefix, "build_s")
        self.assertEqual(red, [8], "the shifted point is the same change; the one at 9 is flat, no worse")

    def test_direction_uses_the_segments_either_side(self):
        values = [1.0, 1.0, 5.0, 5.0, 2.0, 2.0]
        self.assertEqual(score.direction_at(values, [2, 4], 2), 1)
        self.assertEqual(score.direction_at(values, [2, 4], 4), -1)


if __name__ == "__main__":
    unittest.main()
