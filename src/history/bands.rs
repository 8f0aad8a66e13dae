//! A run weighed against the comparable runs before it: the median and the
//! band of each metric (what the gate gates on, what compare calls noise,
//! what the site's index quotes), from the spread those runs show.

use super::{RunFigures, METRICS};
use crate::analysis::spread::{self, Band};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One metric's band, as the gate applies it and `--update` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricBand {
    /// The median of the runs it rests on; `None` when none measured it.
    pub median: Option<f64>,
    /// ±percent of the median; `None` when the metric is not gateable.
    pub band_pct: Option<f64>,
    pub spread_pct: Option<f64>,
    pub n: usize,
    /// "not gateable: spread X% over n runs", when it is not.
    pub not_gateable: Option<String>,
    /// The stamps of the runs it rests on, oldest first.
    pub runs: Vec<String>,
    /// How many of those ran on a node that ended its run loaded.
    pub loaded: usize,
    /// A time's narrowest band (`spread::time_band_floor_pct`), when the
    /// spread alone would draw a narrower one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_pct: Option<f64>,
}

impl MetricBand {
    /// "3× spread 1.2% over 14 runs", or why there is no band.
    pub fn describe(&self) -> String {
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
                format!(
                    "{}× spread {s:.1}% over {} runs{loaded}{floor}",
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
pub fn earlier<'a>(all: &'a [RunFigures], run: &RunFigures) -> Vec<&'a RunFigures> {
    let key = run.key();
    let at = (run.started_us, run.stamp.as_str());
    let mut v: Vec<&RunFigures> = all
        .iter()
        .filter(|r| r.left_out.is_none() && r.key() == key && (r.started_us, r.stamp.as_str()) < at)
        .collect();
    v.sort_by(|a, b| a.order().cmp(&b.order()));
    let skip = v.len().saturating_sub(spread::WINDOW);
    v.split_off(skip)
}

/// The newest `spread::WINDOW` runs of `all` comparable with `run`, itself
/// included when it is among them: what compare's noise and `--update` rest on.
pub fn newest_comparable<'a>(all: &'a [RunFigures], run: &RunFigures) -> Vec<&'a RunFigures> {
    let key = run.key();
    let mut v: Vec<&RunFigures> = all.iter().filter(|r| r.left_out.is_none() && r.key() == key).collect();
    v.sort_by(|a, b| a.order().cmp(&b.order()));
    let skip = v.len().saturating_sub(spread::WINDOW);
    v.split_off(skip)
}

/// The band of one metric of one target over `runs`.
pub fn metric_band(runs: &[&RunFigures], target: &str, metric: &str) -> MetricBand {
    let points: Vec<(&RunFigures, f64, bool)> = runs
        .iter()
        .filter_map(|r| {
            let t = r.targets.get(target)?;
            Some((*r, t.metric(metric)?, t.loaded == Some(true)))
        })
        .collect();
    let values: Vec<f64> = points.iter().map(|p| p.1).collect();
    let spread = spread::spread_pct(&values);
    let (band_pct, not_gateable) = match spread::band(&spread, values.len()) {
        Band::Gate { pct, .. } => (Some(pct), None),
        Band::NotGateable(why) => (None, Some(why)),
    };
    let median = spread::median(&values);
    // Exactly repeated times show a spread of 0: no band narrower than the floor.
    let floor_pct = median
        .filter(|_| metric.ends_with("_s"))
        .map(spread::time_band_floor_pct)
        .filter(|f| spread.as_ref().ok().is_none_or(|s| spread::BAND_SPREADS * s < *f));
    MetricBand {
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
pub fn all_bands(runs: &[&RunFigures], run: &RunFigures) -> BTreeMap<String, BTreeMap<String, MetricBand>> {
    run.targets
        .keys()
        .map(|t| {
            let metrics = METRICS
                .iter()
                .map(|m| (m.to_string(), metric_band(runs, t, m)))
                .filter(|(_, b)| b.n > 0)
                .collect();
            (t.clone(), metrics)
        })
        .collect()
}

/// For the site's index, per run folder: how the run's critical target
/// compared with the median of its key before it ("pytorch +12% vs median of 14").
pub fn headlines(all: &[RunFigures]) -> BTreeMap<String, String> {
    let mut by_key: BTreeMap<super::Key, Vec<&RunFigures>> = BTreeMap::new();
    for r in all.iter().filter(|r| r.left_out.is_none()) {
        by_key.entry(r.key()).or_default().push(r);
    }
    let mut out = BTreeMap::new();
    for runs in by_key.values_mut() {
        runs.sort_by(|a, b| a.order().cmp(&b.order()));
        for (i, run) in runs.iter().enumerate() {
            let at = (run.started_us, run.stamp.as_str());
            let mut before: Vec<&RunFigures> = runs[..i]
                .iter()
                .copied()
                .filter(|r| (r.started_us, r.stamp.as_str()) < at)
                .collect();
            let before = before.split_off(before.len().saturating_sub(spread::WINDOW));
            if let Some(h) = headline(&before, run) {
                out.insert(run.dir.clone(), h);
            }
        }
    }
    out
}

/// `run`'s critical target's total against its median over `before`.
fn headline(before: &[&RunFigures], run: &RunFigures) -> Option<String> {
    let target = run.critical_target.as_deref()?;
    let total = run.targets.get(target)?.total_s?;
    let b = metric_band(before, target, "total_s");
    let Some(median) = b.median else {
        return Some(format!("{target}: first run of its key"));
    };
    let pct = spread::change_pct(total, median)?;
    let loaded = if run.targets.get(target).and_then(|t| t.loaded) == Some(true) {
        " (loaded)"
    } else {
        ""
    };
    // A change that rounds to 0 is "+0%", never "-0%".
    let pct = if pct.round() == 0.0 { 0.0 } else { pct };
    Some(format!("{target} {pct:+.0}% vs median of {}{loaded}", b.n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::TargetFigures;

    fn run(stamp: &str, day: i64, mode: Option<&str>, build: f64, loaded: bool) -> RunFigures {
        let mut targets = BTreeMap::new();
        targets.insert(
            "pytorch".to_string(),
            TargetFigures {
                total_s: Some(build + 100.0),
                build_s: Some(build),
                loaded: Some(loaded),
                ..Default::default()
            },
        );
        RunFigures {
            stamp: stamp.into(),
            dir: stamp.into(),
            started_us: Some(day * 86_400_000_000),
            mode: mode.map(str::to_string),
            arch: Some("gfx1201".into()),
            max_jobs: Some(32),
            critical_target: Some("pytorch".into()),
            targets,
            ..Default::default()
        }
    }

    #[test]
    fn a_run_is_weighed_against_the_comparable_runs_before_it_only() {
        let mut all: Vec<RunFigures> = (0..6)
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
        let b = metric_band(&earlier(&all, &all[5]), "pytorch", "build_s");
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
        let four = metric_band(&earlier(&all, &all[4]), "pytorch", "build_s");
        assert_eq!(four.band_pct, None);
        assert!(four.not_gateable.unwrap().contains("over 4 runs (5 needed)"));
    }

    #[test]
    fn a_noise_free_history_does_not_gate_a_one_second_change_as_a_regression() {
        // Seven identical nights: MAD 0, spread 0%. A band of 3× 0 would call
        // 1001 s against 1000 s (+0.1%) a regression: the band is floored.
        let all: Vec<RunFigures> = (0..7)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 1000.0, false))
            .collect();
        let refs: Vec<&RunFigures> = all.iter().collect();
        let b = metric_band(&refs, "pytorch", "build_s");
        assert_eq!(b.spread_pct, Some(0.0));
        assert_eq!(b.band_pct, Some(spread::MIN_BAND_PCT), "1% beats 5 s of 1000 s (0.5%)");
        assert!(b.describe().contains("at least ±1.0%"), "{}", b.describe());
        // On a short time the fleet's 5 s resolution is the floor: 5 s of 100 s.
        let short: Vec<RunFigures> = (0..7)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 100.0, false))
            .collect();
        let refs: Vec<&RunFigures> = short.iter().collect();
        assert_eq!(metric_band(&refs, "pytorch", "build_s").band_pct, Some(5.0));
        // A count is not floored: one cached step fewer is a real cache miss.
        let mut counted = all.clone();
        for r in &mut counted {
            r.targets.get_mut("pytorch").unwrap().steps_cached = Some(200.0);
        }
        let refs: Vec<&RunFigures> = counted.iter().collect();
        assert_eq!(metric_band(&refs, "pytorch", "steps_cached").band_pct, Some(0.0));
    }

    #[test]
    fn the_index_headline_is_the_critical_target_against_its_median() {
        let mut all: Vec<RunFigures> = (0..4)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 1000.0, false))
            .collect();
        all.push(run("slow", 4, Some("warm"), 1220.0, false));
        let h = headlines(&all);
        // Totals 1100 before, 1320 now: +20%.
        assert_eq!(h["slow"], "pytorch +20% vs median of 4");
        assert_eq!(h["d0"], "pytorch: first run of its key");
        assert_eq!(h["d1"], "pytorch +0% vs median of 1");
        all[3].targets.get_mut("pytorch").unwrap().total_s = Some(1099.0);
        assert_eq!(
            headlines(&all)["d3"],
            "pytorch +0% vs median of 3",
            "-0.09% is no \"-0%\""
        );
    }
}
