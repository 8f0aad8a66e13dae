//! `perfreport gate`: the nightly lane's check against checked-in
//! expectations, or against the history of comparable runs. A figure outside
//! its band in the worse direction is a regression; a metric the fleet cannot
//! resolve is reported, not gated. Bands come from the spread history shows
//! (`history::bands`); the constants below are only the stated fallback.
//!
//! `night` picks the runs a nightly lane gates and the exit status it
//! trusts. Its outputs are renderers' (`render::text` for the terminal,
//! `render::junit` and `render::job_summary` for what CI's test-report and
//! job-summary views read).

pub mod index;
pub mod judge;
pub mod ledger;
pub mod night;
pub(crate) mod page;
pub(crate) mod unjudged;

use crate::compare::comparable::{comparable, Comparability};
use crate::figures::{Figures, Metric, Provenance};
use crate::history::bands::MetricBand;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Fallback bands, percent of the expected value, used only without history
/// and said so ("assumed: no history"): guesses that a target's own steps
/// repeat within a few percent, setup/export and upload vary more.
pub(crate) const DEFAULT_BANDS: [(Metric, f64); 5] = [
    (Metric::Total, 10.0),
    (Metric::Build, 10.0),
    (Metric::Gap, 25.0),
    (Metric::Upload, 30.0),
    (Metric::StepsCached, 0.0),
];

/// Below this many seconds a time is scheduling noise: not gateable.
pub(crate) const RESOLUTION_S: f64 = crate::analysis::spread::TIME_RESOLUTION_S;

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct Expectations {
    #[serde(default)]
    pub(crate) bands_pct: BTreeMap<Metric, f64>,
    #[serde(default)]
    pub(crate) targets: BTreeMap<String, BTreeMap<Metric, f64>>,
    /// The coordinates the expectations were measured at (written by --update).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) coordinates: Option<serde_json::Value>,
    /// Bands from history (`--update --history`): target -> metric -> band,
    /// with its spread, n and the runs it came from.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub history_bands: BTreeMap<String, BTreeMap<Metric, MetricBand>>,
    /// Where expectations made from history come from, in words (not written).
    #[serde(skip)]
    pub(crate) source: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    pub(crate) target: String,
    pub(crate) metric: Metric,
    pub(crate) measured: Option<f64>,
    /// What it was checked against (its level, or the file's figure);
    /// `null` where there was nothing to check against.
    pub(crate) expected: Option<f64>,
    pub(crate) drift_pct: Option<f64>,
    /// `None`: the metric carries no gate (see `band_from`).
    pub(crate) band_pct: Option<f64>,
    /// Where the band comes from: "3× spread 1.2% over 14 runs", "assumed: no history", ...
    pub(crate) band_from: String,
    /// ok / REGRESSION / improved / ungateable: <why> / not gateable: <why>
    pub(crate) verdict: String,
    /// Set when a regression rests on a run whose node ended it loaded.
    pub(crate) rests_on_loaded: Option<String>,
    /// A regression's steps and revisions against the band's typical run
    /// (`history::why::check_why`); `null` otherwise or without history.
    pub(crate) why: Option<crate::history::why::CheckWhy>,
    /// The regression this check is about (called tonight, or open since an
    /// earlier night), with its identity, state and cause.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) regression: Option<crate::history::regressions::Regression>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    pub(crate) run: String,
    /// The tool that gated, and the run's provenance.
    pub(crate) tool: crate::figures::Tool,
    pub(crate) provenance: Option<Provenance>,
    pub refused: Option<String>,
    /// What the expected values and bands are: history, the file, or the fallback.
    pub(crate) against: String,
    pub(crate) checks: Vec<Check>,
    /// Checks that compared a figure with a band (ok, improved or REGRESSION):
    /// a gate with none checked nothing, however green.
    pub checked: usize,
    pub regressions: usize,
}

/// The band of a target's metric and where it comes from: history first,
/// then a band set in the file, then the fallback, said as an assumption.
fn band(e: &Expectations, target: &str, m: Metric) -> (Option<f64>, String) {
    if let Some(b) = e.history_bands.get(target).and_then(|t| t.get(&m)) {
        return (b.band_pct, b.describe());
    }
    if let Some(b) = e.bands_pct.get(&m) {
        return (Some(*b), "set in the expectations file".into());
    }
    let fallback = DEFAULT_BANDS.iter().find(|(k, _)| *k == m).map_or(10.0, |(_, b)| *b);
    (Some(fallback), "assumed: no history".into())
}

/// What the expectations rest on, for the report's head.
fn against(e: &Expectations) -> String {
    if let Some(source) = &e.source {
        source.clone()
    } else if !e.history_bands.is_empty() {
        let n = e
            .history_bands
            .values()
            .flat_map(|m| m.values())
            .map(|b| b.n)
            .max()
            .unwrap_or(0);
        format!(
            "history: medians and bands ({}× spread) of up to {n} comparable runs",
            crate::analysis::spread::BAND_SPREADS
        )
    } else if !e.bands_pct.is_empty() {
        "expectations file, its own bands".into()
    } else {
        "expectations file, constant bands (assumed: no history)".into()
    }
}

/// Expectations from history: each metric's median and band over the
/// `runs` comparable runs before the gated one (`history::bands`), at the
/// gated run's `coordinates` when they are to be checked.
pub fn from_history(
    coordinates: Option<serde_json::Value>,
    runs: usize,
    bands: BTreeMap<String, BTreeMap<Metric, MetricBand>>,
) -> Expectations {
    let source = if runs == 0 {
        "history: no comparable run before this one, nothing to gate against".to_string()
    } else {
        format!(
            "history: each metric's median and {}× its spread over the {runs} comparable runs before this one",
            crate::analysis::spread::BAND_SPREADS
        )
    };
    let mut e = Expectations {
        coordinates,
        source: Some(source),
        ..Default::default()
    };
    for (target, metrics) in &bands {
        let expected: BTreeMap<Metric, f64> = metrics.iter().filter_map(|(m, b)| Some((*m, b.median?))).collect();
        if !expected.is_empty() {
            e.targets.insert(target.clone(), expected);
        }
    }
    e.history_bands = bands;
    e
}

/// A run's coordinates as expectations record them.
pub fn coordinates(f: &Figures) -> serde_json::Value {
    serde_json::json!({"mode": f.mode.value(), "arch": f.arch.value(), "job_width": f.job_width.get()})
}

/// Gates a run read in full against `e`, refusing expectations measured at
/// other coordinates.
pub fn gate(f: &Figures, e: &Expectations) -> GateReport {
    let mut r = GateReport {
        run: f.stamp.clone(),
        tool: crate::figures::Tool::this(),
        provenance: f.provenance.clone(),
        refused: None,
        against: against(e),
        checks: vec![],
        checked: 0,
        regressions: 0,
    };
    if let (Some(c), Some(mine)) = (&e.coordinates, &f.provenance) {
        use crate::figures::Measured;
        let recorded = || "the expectations do not record it".to_string();
        let expected: Provenance = {
            let mut p = mine.clone();
            p.run.stamp = "the expectations".into();
            p.run.mode = Measured::from_option(
                c.get("mode").and_then(|m| serde_json::from_value(m.clone()).ok()),
                recorded,
            );
            p.run.arch = Measured::from_option(c.get("arch").and_then(|a| a.as_str()).map(str::to_string), recorded);
            p.run.job_width =
                Measured::from_option(c.get("job_width").and_then(|w| w.as_u64()).map(|w| w as u32), recorded);
            p
        };
        if let Comparability::No { reasons } = comparable(&expected, mine) {
            r.refused = Some(reasons.join("; "));
            return r;
        }
    }
    r.checks = checks(f, e);
    r.checked = r.checks.iter().filter(|c| c.checked()).count();
    r.regressions = r.checks.iter().filter(|c| c.is_regression()).count();
    r
}

impl Check {
    /// The check compared a figure with a band.
    pub(crate) fn checked(&self) -> bool {
        matches!(self.verdict.as_str(), "ok" | "improved" | "REGRESSION")
            || ["open since ", "accepted", "watch:", "loaded:"]
                .iter()
                .any(|p| self.verdict.starts_with(p))
    }

    pub(crate) fn is_regression(&self) -> bool {
        self.verdict == "REGRESSION"
    }

    /// "+13.5% beyond ±4.8%: 3× spread 1.6% over 12 runs": a regression in
    /// one line, for JUnit's failure message and the job summary. A count is
    /// said as a count ("1 fewer than its 2"), never as a percent of it.
    pub(crate) fn regression_line(&self) -> String {
        if !self.metric.is_time() {
            if let (Some(words), Some(e)) = (self.change_words(), self.expected) {
                return format!(
                    "{words} than its {}: {}",
                    crate::fmt::metric(self.metric.name(), e),
                    self.band_from
                );
            }
        }
        let drift = self.drift_pct.map_or("an unbounded change".into(), shown_drift);
        let band = self.band_pct.map_or("its band".into(), shown_band);
        format!("{drift} beyond {band}: {}", self.band_from)
    }

    /// The change in words: "+13.5%" for a time, "1 fewer" or "2 more" for
    /// a count; `None` where nothing was compared.
    pub(crate) fn change_words(&self) -> Option<String> {
        if self.metric.is_time() {
            return self.drift_pct.map(shown_drift);
        }
        let d = self.measured? - self.expected?;
        let n = crate::fmt::metric(self.metric.name(), d.abs());
        Some(if d < 0.0 {
            format!("{n} fewer")
        } else if d > 0.0 {
            format!("{n} more")
        } else {
            "unchanged".into()
        })
    }

    /// "pytorch build_s +13.5%": the check named with its change.
    pub(crate) fn named(&self) -> String {
        let change = self.change_words().map(|w| format!(" {w}")).unwrap_or_default();
        format!("{} {}{change}", self.target, self.metric)
    }
}

/// Each expected figure of `e` checked against the run's own figures: a
/// verdict per target and metric, or why there is none.
pub(crate) fn checks(figures: &Figures, e: &Expectations) -> Vec<Check> {
    let mut out = vec![];
    for (target, metrics) in &e.targets {
        let t = figures.targets.get(target);
        for (&m, expected) in metrics {
            let (band_pct, band_from) = band(e, target, m);
            let measured = t.and_then(|t| t.metric(m).get());
            let why_null = t.and_then(|t| t.metric(m).why().map(str::to_string));
            let time = m.is_time();
            let (drift, verdict) = match measured {
                None => (
                    None,
                    format!(
                        "ungateable: {}",
                        why_null.unwrap_or_else(|| if t.is_none() {
                            "the target is not in this run".into()
                        } else {
                            "not measured".into()
                        })
                    ),
                ),
                Some(_) if time && *expected < RESOLUTION_S => (
                    None,
                    format!("ungateable: {expected} s is below the fleet's {RESOLUTION_S} s resolution"),
                ),
                Some(_) if band_pct.is_none() => (None, band_from.clone()),
                Some(x) => drift_verdict(m, x, *expected, band_pct.unwrap_or(0.0)),
            };
            let rests_on_loaded = match t.and_then(|t| t.load.value()) {
                Some(crate::figures::Load::Loaded(why)) if verdict == "REGRESSION" => Some(why.clone()),
                _ => None,
            };
            let why = if verdict == "REGRESSION" {
                regression_why(figures, e, (target, m), measured)
            } else {
                None
            };
            out.push(Check {
                target: target.clone(),
                metric: m,
                measured,
                expected: Some(*expected),
                drift_pct: drift,
                band_pct,
                band_from,
                verdict,
                rests_on_loaded,
                why,
                regression: None,
            });
        }
    }
    out
}

/// A measured figure `x` against its `expected` one: its drift in percent
/// (rounded to print; none when infinite) and whether it left the band
/// for the worse, the better, or stayed.
fn drift_verdict(m: Metric, x: f64, expected: f64, band_pct: f64) -> (Option<f64>, String) {
    let drift = if expected != 0.0 {
        100.0 * (x - expected) / expected
    } else if x == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    // A time: higher is worse. Steps cached: lower is worse.
    let up_is_worse = m.lower_is_better();
    let worse = if up_is_worse {
        drift > band_pct
    } else {
        drift < -band_pct
    };
    let better = if up_is_worse {
        drift < -band_pct
    } else {
        drift > band_pct
    };
    let v = if worse {
        "REGRESSION"
    } else if better {
        "improved"
    } else {
        "ok"
    };
    // An infinite drift (expected 0, or so small the quotient
    // overflows) still decides the verdict, but is no number to print.
    let shown = Some((drift * 10.0).round() / 10.0).filter(|d| d.is_finite());
    (shown, v.to_string())
}

/// The steps and revision behind a regression, against the run nearest
/// the band's median (`history::why`).
fn regression_why(
    figures: &Figures,
    e: &Expectations,
    (target, m): (&str, Metric),
    measured: Option<f64>,
) -> Option<crate::history::why::CheckWhy> {
    e.history_bands
        .get(target)
        .and_then(|b| b.get(&m))
        .and_then(|b| b.typical.as_ref())
        .zip(measured)
        .and_then(|(typ, x)| crate::history::why::check_why(typ, figures, target, m, x))
}

/// The current figures as new expectations, keeping the bands; with
/// `history_bands` (`--history`), those are recorded with their n and runs.
pub fn update(
    f: &Figures,
    old: &Expectations,
    history_bands: Option<BTreeMap<String, BTreeMap<Metric, MetricBand>>>,
) -> Expectations {
    let mut e = Expectations {
        bands_pct: old.bands_pct.clone(),
        history_bands: history_bands.unwrap_or_else(|| old.history_bands.clone()),
        ..Default::default()
    };
    for (name, t) in &f.targets {
        let m: BTreeMap<Metric, f64> = DEFAULT_BANDS
            .iter()
            .filter_map(|(metric, _)| Some((*metric, t.metric(*metric).get()?)))
            .collect();
        if !m.is_empty() {
            e.targets.insert(name.clone(), m);
        }
    }
    e.coordinates = Some(coordinates(f));
    e
}

/// A check's drift as every output of the gate writes it: `+13.5%`, `-3.2%`
/// (`fmt::change`, as compare writes a change).
pub(crate) fn shown_drift(pct: f64) -> String {
    crate::fmt::change(pct, 1)
}

/// A check's band as every output of the gate writes it: `±4.8%` (as compare's).
pub(crate) fn shown_band(pct: f64) -> String {
    format!("±{}%", crate::fmt::fixed(pct, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drift_and_a_band_read_as_compare_writes_a_change() {
        assert_eq!(shown_drift(13.5), "+13.5%");
        assert_eq!(shown_drift(-3.2), "-3.2%");
        // A drift that rounds to nothing has no sign, as in compare.
        assert_eq!(shown_drift(0.0), "0.0%");
        assert_eq!(shown_drift(-0.04), "0.0%");
        assert_eq!(shown_band(4.8), "±4.8%");
        assert_eq!(shown_band(44.478), "±44.5%");
    }

    #[test]
    fn one_cached_step_fewer_is_said_as_a_count_not_as_a_percent() {
        let c = Check {
            target: "pytorch".into(),
            metric: Metric::StepsCached,
            measured: Some(1.0),
            expected: Some(2.0),
            drift_pct: Some(-50.0),
            band_pct: None,
            band_from: "its count since its last change".into(),
            verdict: "REGRESSION".into(),
            rests_on_loaded: None,
            why: None,
            regression: None,
        };
        assert_eq!(c.named(), "pytorch steps_cached 1 fewer");
        assert_eq!(
            c.regression_line(),
            "1 fewer than its 2: its count since its last change"
        );
        let time = Check {
            metric: Metric::Build,
            measured: Some(1135.0),
            expected: Some(1000.0),
            drift_pct: Some(13.5),
            ..c
        };
        assert_eq!(time.named(), "pytorch build_s +13.5%");
    }
}
