//! A run weighed against the comparable runs before it: the median and the
//! band of each metric (what the gate gates on, what compare calls noise,
//! what the site's index quotes), from the spread those runs show.

use super::Figures;
use crate::analysis::spread::{self, Band};
use crate::figures::Metric;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One metric's band, as the gate applies it and `--update` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricBand {
    /// The median of the runs it rests on; `None` when none measured it.
    pub(crate) median: Option<f64>,
    /// ±percent of the median; `None` when the metric is not gateable.
    pub(crate) band_pct: Option<f64>,
    pub(crate) spread_pct: Option<f64>,
    pub(crate) n: usize,
    /// "not gateable: spread X% over n runs", when it is not.
    pub(crate) not_gateable: Option<String>,
    /// The stamps of the runs it rests on, oldest first.
    pub(crate) runs: Vec<String>,
    /// How many of those ran on a node that ended its run loaded.
    pub(crate) loaded: usize,
    /// A time's narrowest band (`spread::time_band_floor_pct`), when the
    /// spread alone would draw a narrower one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) floor_pct: Option<f64>,
    /// The run nearest the median (the newest of equals): what a
    /// regression's steps are compared with. Not written to a file.
    #[serde(skip)]
    pub(crate) typical: Option<Typical>,
    /// The first run of the level the band rests on, when a change of level
    /// lies among its runs (`level_band`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) level_from: Option<String>,
}

/// A run as typical of a metric: its value, revision and steps.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Typical {
    pub(crate) stamp: String,
    pub(crate) value: f64,
    pub(crate) revision: Option<String>,
    pub(crate) steps: Vec<crate::analysis::step_diff::StepRecord>,
}

impl MetricBand {
    /// "3× spread 1.2% over 14 runs", or why there is no band.
    pub(crate) fn describe(&self) -> String {
        match (self.band_pct, self.spread_pct, &self.not_gateable) {
            (Some(_), Some(s), _) => {
                let loaded = if self.loaded > 0 {
                    format!(", {} of them loaded", self.loaded)
                } else {
                    String::new()
                };
                let floor = self
                    .floor_pct
                    .map(|f| format!(", at least ±{f:.1}% (below it a change is rounding or scheduling)"))
                    .unwrap_or_default();
                let level = self
                    .level_from
                    .as_ref()
                    .map(|f| format!(", at the new level since {f} (that change was flagged on its own night)"))
                    .unwrap_or_default();
                format!(
                    "{}× spread {s:.1}% over {} runs{loaded}{floor}{level}",
                    spread::BAND_SPREADS,
                    self.n
                )
            }
            (_, _, Some(why)) => why.clone(),
            _ => format!("no band over {}", crate::fmt::counted(self.n as u64, "run", "runs")),
        }
    }
}

/// The runs comparable with `run` (same key, not left out) that came before
/// it, the newest `spread::WINDOW` of them, oldest first.
pub fn earlier<'a>(all: &'a [Figures], run: &Figures) -> Vec<&'a Figures> {
    Comparable::new(all).earlier(run)
}

/// The runs of a history that can be pooled (not left out), grouped by key,
/// each group oldest first: what [`earlier`] asks of every run at once, so
/// weighing each run of a site of hundreds groups and sorts them once, not
/// once a run.
pub(crate) struct Comparable<'a>(BTreeMap<super::Key, Vec<&'a Figures>>);

impl<'a> Comparable<'a> {
    pub(crate) fn new(all: &'a [Figures]) -> Comparable<'a> {
        let mut by_key: BTreeMap<super::Key, Vec<&Figures>> = BTreeMap::new();
        for r in all.iter().filter(|r| r.left_out.is_none()) {
            by_key.entry(r.key()).or_default().push(r);
        }
        for runs in by_key.values_mut() {
            runs.sort_by(|a, b| a.order().cmp(&b.order()));
        }
        Comparable(by_key)
    }

    /// The runs of `run`'s key that came before it, the newest
    /// `spread::WINDOW` of them, oldest first.
    pub(crate) fn earlier(&self, run: &Figures) -> Vec<&'a Figures> {
        let Some(runs) = self.0.get(&run.key()) else {
            return vec![];
        };
        let at = (run.started_us(), run.stamp.as_str());
        // Two dated runs are ordered by their start alone: one that started at
        // the same moment did not come before. In a key's runs, oldest first,
        // those before `run` are a prefix (undated runs sort first).
        let before = |r: &&Figures| match (r.started_us(), run.started_us()) {
            (Some(a), Some(b)) => a < b,
            _ => (r.started_us(), r.stamp.as_str()) < at,
        };
        let end = runs.partition_point(before);
        runs[end.saturating_sub(spread::WINDOW)..end].to_vec()
    }
}

/// The newest `spread::WINDOW` runs of `all` comparable with `run`, itself
/// included when it is among them: what compare's noise and `--update` rest on.
pub fn newest_comparable<'a>(all: &'a [Figures], run: &Figures) -> Vec<&'a Figures> {
    let key = run.key();
    let mut v: Vec<&Figures> = all.iter().filter(|r| r.left_out.is_none() && r.key() == key).collect();
    v.sort_by(|a, b| a.order().cmp(&b.order()));
    let skip = v.len().saturating_sub(spread::WINDOW);
    v.split_off(skip)
}

type BandPoint<'a> = (&'a Figures, f64, bool);

fn band_points<'a>(runs: &[&'a Figures], target: &str, metric: Metric) -> Vec<BandPoint<'a>> {
    runs.iter()
        .filter_map(|r| {
            let t = r.targets.get(target)?;
            Some((*r, t.metric(metric).get()?, t.loaded() == Some(true)))
        })
        .collect()
}

/// The band of one metric of one target over `runs`.
pub(crate) fn metric_band(runs: &[&Figures], target: &str, metric: Metric) -> MetricBand {
    band_of(&band_points(runs, target, metric), 0, target, metric)
}

/// The band of one metric of one node over `runs` (compare's node rows).
pub(crate) fn node_band(runs: &[&Figures], node: &str, metric: Metric) -> MetricBand {
    let points: Vec<BandPoint> = runs
        .iter()
        .filter_map(|r| Some((*r, r.nodes.get(node)?.metric(metric).get()?, false)))
        .collect();
    band_of(&points, 0, node, metric)
}

/// The band of one metric of one target over `runs`, at its newest level:
/// when a change of level (`spread::find_step`: both levels on at least 3
/// runs) lies among them, the points before it are scaled to the new level,
/// so the gate expects the new level and its band keeps the spread of all
/// the runs. The night the level changed was flagged on its own; the nights
/// after it are weighed against the new level, not the old.
pub(crate) fn level_band(runs: &[&Figures], target: &str, metric: Metric) -> MetricBand {
    let mut points = band_points(runs, target, metric);
    let values: Vec<f64> = points.iter().map(|p| p.1).collect();
    let Some(step) = spread::find_step(&values).filter(|s| s.before != 0.0) else {
        return band_of(&points, 0, target, metric);
    };
    let scale = step.after / step.before;
    for p in &mut points[..step.at] {
        p.1 *= scale;
    }
    let mut b = band_of(&points, step.at, target, metric);
    // The new level's own median, not one blurred by the scaling's rounding.
    b.median = Some(step.after);
    b.level_from = points.get(step.at).map(|p| p.0.stamp.clone());
    b
}

/// The band over `points`; the typical run is sought from `typical_from` on.
fn band_of(points: &[BandPoint], typical_from: usize, target: &str, metric: Metric) -> MetricBand {
    let values: Vec<f64> = points.iter().map(|p| p.1).collect();
    let spread = spread::spread_pct(&values);
    let (band_pct, not_gateable) = match spread::band(&spread, values.len()) {
        Band::Gate { pct, .. } => (Some(pct), None),
        Band::NotGateable(why) => (None, Some(why)),
    };
    let median = spread::median(&values);
    // Exactly repeated times show a spread of 0: no band narrower than the floor.
    let floor_pct = median
        .filter(|_| metric.is_time())
        .map(spread::time_band_floor_pct)
        .filter(|f| spread.as_ref().ok().is_none_or(|s| spread::BAND_SPREADS * s < *f));
    let typical = median.and_then(|m| {
        let (r, value, _) = points[typical_from.min(points.len())..]
            .iter()
            .rev()
            .min_by(|a, b| (a.1 - m).abs().total_cmp(&(b.1 - m).abs()))?;
        let t = r.targets.get(target)?;
        Some(Typical {
            stamp: r.stamp.clone(),
            value: *value,
            revision: r.revision.value().cloned(),
            steps: t.steps.clone(),
        })
    });
    MetricBand {
        typical,
        level_from: None,
        median,
        floor_pct,
        band_pct: band_pct.map(|b| floor_pct.map_or(b, |f| b.max(f))),
        spread_pct: spread.ok(),
        n: values.len(),
        not_gateable,
        runs: points.iter().map(|p| p.0.stamp.clone()).collect(),
        loaded: points.iter().filter(|p| p.2).count(),
    }
}

/// Every metric of every target of `run`, over `runs`: target -> metric -> band.
pub fn all_bands(runs: &[&Figures], run: &Figures) -> BTreeMap<String, BTreeMap<Metric, MetricBand>> {
    run.targets
        .keys()
        .map(|t| {
            let metrics = Metric::TARGET
                .iter()
                .map(|m| (*m, level_band(runs, t, *m)))
                .filter(|(_, b)| b.n > 0)
                .collect();
            (t.clone(), metrics)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::figures::{Load, TargetFigures, Value};

    /// A warm-or-`mode` gfx1201 run of `day` whose pytorch built in `build` s.
    pub(crate) fn run(stamp: &str, day: i64, mode: Option<&str>, build: f64, loaded: bool) -> Figures {
        let mut t = TargetFigures::unmeasured("not measured");
        t.set(Metric::Total, build + 100.0).set(Metric::Build, build);
        t.load = Value(if loaded {
            Load::Loaded("n0 ended the run loaded".into())
        } else {
            Load::Clear
        });
        let mut f = Figures::dated(stamp, day, mode);
        f.targets.insert("pytorch".to_string(), t);
        f
    }

    #[test]
    fn a_run_is_weighed_against_the_comparable_runs_before_it_only() {
        let mut all: Vec<Figures> = (0..6)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 1000.0 + d as f64, d == 2))
            .collect();
        all.push(run("cold", 3, Some("cold"), 5000.0, false));
        all.push(run("nomode", 4, None, 5000.0, false));
        let mut flight = run("flight", 4, Some("warm"), 9000.0, false);
        flight.left_out = Some("in flight".into());
        all.push(flight);
        let before: Vec<&str> = earlier(&all, &all[5]).iter().map(|r| r.stamp.as_str()).collect();
        assert_eq!(
            before,
            ["d0", "d1", "d2", "d3", "d4"],
            "not the cold run, not in flight, not itself"
        );
        // Builds 1000..1004: median 1002, deviations 2,1,0,1,2 -> MAD 1 -> 0.148%.
        let b = metric_band(&earlier(&all, &all[5]), "pytorch", Metric::Build);
        assert_eq!((b.median, b.n, b.loaded), (Some(1002.0), 5, 1));
        let spread = 100.0 * 1.4826 / 1002.0;
        assert!((b.spread_pct.unwrap() - spread).abs() < 1e-9);
        // 3× that is 0.44%, under a time's 1% floor.
        assert_eq!(b.band_pct, Some(spread::MIN_BAND_PCT));
        assert_eq!(
            b.describe(),
            "3× spread 0.1% over 5 runs, 1 of them loaded, at least ±1.0% (below it a change is rounding or scheduling)"
        );
        // A run without mode is its own key: nothing before it.
        assert!(earlier(&all, &all[7]).is_empty());
        // Four earlier runs carry no gate.
        let four = metric_band(&earlier(&all, &all[4]), "pytorch", Metric::Build);
        assert_eq!(four.band_pct, None);
        assert!(four.not_gateable.unwrap().contains("over 4 runs (5 needed)"));
    }

    #[test]
    fn a_noise_free_history_does_not_gate_a_one_second_change_as_a_regression() {
        // Seven identical nights: MAD 0, spread 0%. A band of 3× 0 would call
        // 1001 s against 1000 s (+0.1%) a regression: the band is floored.
        let all: Vec<Figures> = (0..7)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 1000.0, false))
            .collect();
        let refs: Vec<&Figures> = all.iter().collect();
        let b = metric_band(&refs, "pytorch", Metric::Build);
        assert_eq!(b.spread_pct, Some(0.0));
        assert_eq!(b.band_pct, Some(spread::MIN_BAND_PCT), "1% beats 5 s of 1000 s (0.5%)");
        assert!(b.describe().contains("at least ±1.0%"), "{}", b.describe());
        // On a short time the fleet's 5 s resolution is the floor: 5 s of 100 s.
        let short: Vec<Figures> = (0..7)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 100.0, false))
            .collect();
        let refs: Vec<&Figures> = short.iter().collect();
        assert_eq!(metric_band(&refs, "pytorch", Metric::Build).band_pct, Some(5.0));
        // A count is not floored: one cached step fewer is a real cache miss.
        let mut counted = all.clone();
        for r in &mut counted {
            r.targets.get_mut("pytorch").unwrap().set(Metric::StepsCached, 200.0);
        }
        let refs: Vec<&Figures> = counted.iter().collect();
        assert_eq!(metric_band(&refs, "pytorch", Metric::StepsCached).band_pct, Some(0.0));
    }

    #[test]
    fn after_a_change_of_level_the_gate_expects_the_new_level_and_one_outlier_is_none() {
        let build = |d: i64| if d >= 10 { 1150.0 } else { 1000.0 } + [0.0, 2.0, -2.0][d as usize % 3];
        let all: Vec<Figures> = (0..14)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), build(d), false))
            .collect();
        let refs: Vec<&Figures> = all.iter().collect();
        let b = level_band(&refs, "pytorch", Metric::Build);
        assert_eq!(b.level_from.as_deref(), Some("d10"));
        assert_eq!(
            b.median,
            Some(1151.0),
            "the new level (1152, 1148, 1150, 1152), not the old"
        );
        assert_eq!(b.n, 14, "the old runs still give the spread");
        assert_eq!(
            b.typical.as_ref().map(|t| t.stamp.as_str()),
            Some("d13"),
            "nearest the median, the newest of equals"
        );
        assert!(b.describe().contains("at the new level since d10"), "{}", b.describe());
        // 1150 s the night after is ok against the new level.
        assert!(100.0 * (1152.0 - 1150.0) / 1150.0 < b.band_pct.unwrap());
        // One outlier night is no change of level: the band is the plain one.
        let mut one = all[..10].to_vec();
        one[6].targets.get_mut("pytorch").unwrap().set(Metric::Build, 1400.0);
        let refs: Vec<&Figures> = one.iter().collect();
        let b = level_band(&refs, "pytorch", Metric::Build);
        assert_eq!((b.level_from, b.median), (None, Some(1000.0)));
    }
}
