//! `perfreport compare`: what changed from one run to another, honestly.
//! Runs of another mode, arch or job width are not compared at all; a change
//! inside the noise (the spread repeated runs show) is not a ranking; a
//! target that moved nodes says so, since it lost that node's local cache.

pub(crate) mod comparable;

use crate::analysis::step_diff::{self, StepChange};
use crate::figures::{Figures, Metric, NodeFigures, Provenance, TargetFigures};
use crate::history::why;
use comparable::{comparable, Comparability};
use serde::Serialize;

/// Without history, a change within this share of the earlier value is called noise.
pub(crate) const DEFAULT_BAND_PCT: f64 = 10.0;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MetricChange {
    pub(crate) metric: Metric,
    pub(crate) a: Option<f64>,
    pub(crate) b: Option<f64>,
    pub(crate) delta: Option<f64>,
    pub(crate) delta_pct: Option<f64>,
    /// The noise band used, in percent of A, and where it came from.
    pub(crate) band_pct: f64,
    pub(crate) band_from: String,
    /// How many runs the band rests on; 0: the default, assumed.
    pub(crate) band_runs: usize,
    /// faster / slower / within noise / more cached / fewer cached / unchanged / not measured.
    pub(crate) verdict: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetChange {
    pub(crate) target: String,
    pub(crate) node_a: Option<String>,
    pub(crate) node_b: Option<String>,
    /// Set when the target ran on another node in B.
    pub(crate) moved: Option<String>,
    pub(crate) changes: Vec<MetricChange>,
    /// Its steps matched across the runs, largest change first
    /// (`analysis::step_diff`); empty for a node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) steps: Option<Vec<StepChange>>,
    /// The share of the build's change the top 3 steps explain; `null` when
    /// the build did not move or was not measured in both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) steps_explain_pct: Option<Option<f64>>,
    /// What moved beside the steps: setup, export, upload, upload bytes and rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) beside: Option<Vec<why::Beside>>,
    /// Why the target's figure moved, in a sentence, when it moved beyond its noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) why: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareView {
    pub(crate) a: String,
    pub(crate) b: String,
    pub comparable: bool,
    /// Why not, when not.
    pub(crate) reasons: Vec<String>,
    pub(crate) warnings: Vec<String>,
    /// run.json's `revision` of each run; `null` when not recorded.
    pub(crate) revision_a: Option<String>,
    pub(crate) revision_b: Option<String>,
    pub(crate) targets: Vec<TargetChange>,
    pub(crate) nodes: Vec<TargetChange>,
    /// The tool that compared, and each run's own provenance (inputs, coordinates).
    pub(crate) tool: crate::figures::Tool,
    pub(crate) provenance_a: Provenance,
    pub(crate) provenance_b: Provenance,
}

/// A time-like metric: lower is better. `steps_cached`: higher is better.
fn verdict(metric: Metric, a: f64, b: f64, band_pct: f64) -> String {
    let delta = b - a;
    if delta == 0.0 {
        return "unchanged".into();
    }
    let pct = if a != 0.0 { 100.0 * delta / a } else { f64::INFINITY };
    if pct.abs() <= band_pct {
        return "within noise".into();
    }
    match (metric, delta > 0.0) {
        (Metric::StepsCached, true) => "more cached".into(),
        (Metric::StepsCached, false) => "fewer cached".into(),
        (_, true) => "slower".into(),
        (_, false) => "faster".into(),
    }
}

fn change(metric: Metric, a: Option<f64>, b: Option<f64>, band: (f64, String, usize)) -> MetricChange {
    let (band_pct, band_from, band_runs) = band;
    let (delta, delta_pct, v) = match (a, b) {
        (Some(a), Some(b)) => {
            let d = b - a;
            // No infinity or NaN reaches the output: a change too large for a
            // number is not measured (the verdict still says which way).
            let finite = |x: f64| Some(x).filter(|x| x.is_finite());
            let pct = (a != 0.0).then(|| (1000.0 * d / a).round() / 10.0).and_then(finite);
            (
                finite((d * 1000.0).round() / 1000.0),
                pct,
                verdict(metric, a, b, band_pct),
            )
        }
        _ => (None, None, "not measured in both runs".into()),
    };
    MetricChange {
        metric,
        a,
        b,
        delta,
        delta_pct,
        band_pct,
        band_from,
        band_runs,
        verdict: v,
    }
}

/// The noise band of a metric from its band over the comparable runs before
/// B (the gate's: 3× their spread, `history::bands`), with how many runs it
/// rests on; without enough history the default, said as an assumption.
fn noise_band(b: crate::history::bands::MetricBand) -> (f64, String, usize) {
    match (b.spread_pct, b.band_pct) {
        (Some(s), band) => {
            let wide = match band {
                Some(_) => "",
                None if s > crate::analysis::spread::MAX_GATE_SPREAD_PCT => ", too wide to gate",
                None => ", too few to gate",
            };
            let floor = b.floor_pct.map(|f| format!(", at least ±{f:.1}%")).unwrap_or_default();
            (
                (crate::analysis::spread::BAND_SPREADS * s).max(b.floor_pct.unwrap_or(0.0)),
                format!(
                    "{}× spread {s:.1}% over {} earlier runs{wide}{floor}",
                    crate::analysis::spread::BAND_SPREADS,
                    b.n
                ),
                b.n,
            )
        }
        (None, _) => (
            DEFAULT_BAND_PCT,
            format!(
                "assumed: no history ({} earlier comparable runs measured it, {} needed for a spread)",
                b.n,
                crate::analysis::spread::MIN_SPREAD_N
            ),
            0,
        ),
    }
}

/// Compares B against A. `history`: the runs of a history root; those
/// comparable with B (same mode, arch and job width) that started before it
/// set the noise bands, so no band rests on a night after B. Both runs are
/// read just now (their provenance is known).
pub fn compare(a: &Figures, b: &Figures, history: &[Figures]) -> CompareView {
    let unknown = || Provenance {
        tool: crate::figures::Tool::this(),
        inputs: Default::default(),
        run: crate::figures::RunCoordinates {
            stamp: String::new(),
            mode: crate::figures::Measured::missing("not known"),
            arch: crate::figures::Measured::missing("not known"),
            namespace: crate::figures::Measured::missing("not known"),
            sccache_prefix: crate::figures::Measured::missing("not known"),
            nodes: vec![],
            job_width: crate::figures::Measured::missing("not known"),
            revision: crate::figures::Measured::missing("not known"),
            why_null: Default::default(),
        },
    };
    let (pa, pb) = (
        a.provenance.clone().unwrap_or_else(unknown),
        b.provenance.clone().unwrap_or_else(unknown),
    );
    let mut out = CompareView {
        a: a.stamp.clone(),
        b: b.stamp.clone(),
        comparable: true,
        reasons: vec![],
        warnings: vec![],
        revision_a: a.revision.value().cloned(),
        revision_b: b.revision.value().cloned(),
        targets: vec![],
        nodes: vec![],
        tool: crate::figures::Tool::this(),
        provenance_a: pa,
        provenance_b: pb,
    };
    match comparable(&out.provenance_a, &out.provenance_b) {
        Comparability::No { reasons } => {
            out.comparable = false;
            out.reasons = reasons;
            return out;
        }
        Comparability::Yes { warnings } => out.warnings = warnings,
    }
    let history = crate::history::bands::earlier(history, b);
    let target_band = |t: &str, m: Metric| noise_band(crate::history::bands::metric_band(&history, t, m));
    let node_band = |n: &str, m: Metric| noise_band(crate::history::bands::node_band(&history, n, m));
    for (name, ta) in &a.targets {
        let Some(tb) = b.targets.get(name) else {
            continue;
        };
        out.targets.push(target_change(name, ta, tb, &out, target_band));
    }
    // A's timeline order (by start, then name), as its report lists them.
    out.targets.sort_by(|x, y| {
        let start = |t: &TargetChange| a.targets.get(&t.target).and_then(|f| f.start.get());
        (start(x).is_none(), start(x), &x.target).cmp(&(start(y).is_none(), start(y), &y.target))
    });
    out.nodes = node_changes(&a.nodes, &b.nodes, node_band);
    out
}

/// One target's change from A to B: each metric against its band, its
/// steps matched, what moved beside them, and why in a sentence.
fn target_change(
    name: &str,
    ta: &TargetFigures,
    tb: &TargetFigures,
    out: &CompareView,
    band: impl Fn(&str, Metric) -> (f64, String, usize),
) -> TargetChange {
    let moved = match (ta.node.value(), tb.node.value()) {
        (Some(x), Some(y)) if x != y => Some(format!("moved from {x} to {y}: it could not use {x}'s local cache")),
        _ => None,
    };
    let changes: Vec<MetricChange> = Metric::TARGET
        .iter()
        .map(|m| change(*m, ta.metric(*m).get(), tb.metric(*m).get(), band(name, *m)))
        .collect();
    let steps = step_diff::diff(&ta.steps, &tb.steps);
    let build_delta = changes.iter().find(|c| c.metric == Metric::Build).and_then(|c| c.delta);
    let beside = why::Beside::all(ta, tb);
    let why = headline_change(&changes).map(|c| {
        why::sentence(&why::Why {
            target: name,
            metric: c.metric,
            delta: c.delta,
            steps: &steps,
            beside: &beside,
            moved: moved.as_deref(),
            revision_a: out.revision_a.as_deref(),
            revision_b: out.revision_b.as_deref(),
        })
    });
    TargetChange {
        target: name.to_string(),
        node_a: ta.node.value().cloned(),
        node_b: tb.node.value().cloned(),
        moved,
        changes,
        steps_explain_pct: Some(build_delta.and_then(|d| step_diff::explained_pct(&steps, d, why::TOP))),
        steps: Some(steps),
        beside: Some(beside),
        why,
    }
}

/// Each node's busy, idle and mean CPU from A to B, banded by `band`.
fn node_changes(
    a: &std::collections::BTreeMap<String, NodeFigures>,
    b: &std::collections::BTreeMap<String, NodeFigures>,
    band: impl Fn(&str, Metric) -> (f64, String, usize),
) -> Vec<TargetChange> {
    let mut rows = vec![];
    for (name, na) in a {
        let Some(nb) = b.get(name) else {
            continue;
        };
        let changes = Metric::NODE
            .iter()
            .map(|m| change(*m, na.metric(*m).get(), nb.metric(*m).get(), band(name, *m)))
            .collect();
        rows.push(TargetChange {
            target: name.clone(),
            node_a: None,
            node_b: None,
            moved: None,
            changes,
            steps: None,
            steps_explain_pct: None,
            beside: None,
            why: None,
        });
    }
    rows
}

/// The change a target's sentence explains: its build when that moved
/// beyond the noise, else its total.
fn headline_change(changes: &[MetricChange]) -> Option<&MetricChange> {
    let moved = |m: Metric| {
        changes
            .iter()
            .find(|c| c.metric == m && matches!(c.verdict.as_str(), "slower" | "faster"))
    };
    moved(Metric::Build).or_else(|| moved(Metric::Total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_inside_the_band_is_no_ranking() {
        assert_eq!(verdict(Metric::Build, 100.0, 105.0, 10.0), "within noise");
        assert_eq!(verdict(Metric::Build, 100.0, 130.0, 10.0), "slower");
        assert_eq!(verdict(Metric::Build, 100.0, 70.0, 10.0), "faster");
        assert_eq!(verdict(Metric::StepsCached, 2.0, 9.0, 10.0), "more cached");
    }

    #[test]
    fn the_noise_band_is_the_gates_band_and_says_its_n() {
        let run = |build: f64| {
            let mut r = Figures::dated("r", 0, Some("warm"));
            let mut t = TargetFigures::unmeasured("not measured");
            t.set(Metric::Build, build);
            r.targets.insert("pytorch".into(), t);
            r
        };
        let runs = [run(90.0), run(100.0), run(110.0)];
        let refs: Vec<&Figures> = runs.iter().collect();
        // Median 100, MAD 10: spread 14.826%, band 3× that.
        let band_of =
            |runs: &[&Figures]| noise_band(crate::history::bands::metric_band(runs, "pytorch", Metric::Build));
        let (band, from, n) = band_of(&refs);
        assert!((band - 44.478).abs() < 1e-9, "{band}");
        assert_eq!(
            (from.as_str(), n),
            ("3× spread 14.8% over 3 earlier runs, too few to gate", 3)
        );
        // Identical runs show no spread: the band is floored, so 100 s -> 100.5 s is noise.
        let same = [run(100.0), run(100.0), run(100.0)];
        let same: Vec<&Figures> = same.iter().collect();
        let (band, from, _) = band_of(&same);
        assert_eq!(band, 5.0, "5 s of 100 s: {from}");
        assert_eq!(verdict(Metric::Build, 100.0, 100.5, band), "within noise");
        let (band, from, n) = band_of(&refs[..2]);
        assert_eq!((band, n), (DEFAULT_BAND_PCT, 0));
        assert!(from.starts_with("assumed: no history (2 earlier"), "{from}");
    }
}
