//! `perfreport compare`: what changed from one run to another, honestly.
//! Runs of another mode, arch or job width are not compared at all; a change
//! inside the noise (the spread repeated runs show) is not a ranking; a
//! target that moved nodes says so, since it lost that node's local cache.

pub(crate) mod comparable;

use crate::analysis::step_diff::{self, StepChange};
use crate::history::why;
use crate::history::RunFigures;
use crate::view::View;
use comparable::{comparable, Comparability};
use serde::Serialize;
use std::collections::BTreeMap;

/// Without history, a change within this share of the earlier value is called noise.
pub(crate) const DEFAULT_BAND_PCT: f64 = 10.0;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Change {
    pub(crate) metric: &'static str,
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
    pub(crate) changes: Vec<Change>,
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
    pub(crate) tool: crate::view::Tool,
    pub(crate) provenance_a: crate::view::Provenance,
    pub(crate) provenance_b: crate::view::Provenance,
}

/// A time-like metric: lower is better. `steps_cached`: higher is better.
fn verdict(metric: &str, a: f64, b: f64, band_pct: f64) -> String {
    let delta = b - a;
    if delta == 0.0 {
        return "unchanged".into();
    }
    let pct = if a != 0.0 { 100.0 * delta / a } else { f64::INFINITY };
    if pct.abs() <= band_pct {
        return "within noise".into();
    }
    match (metric, delta > 0.0) {
        ("steps_cached", true) => "more cached".into(),
        ("steps_cached", false) => "fewer cached".into(),
        (_, true) => "slower".into(),
        (_, false) => "faster".into(),
    }
}

fn change(metric: &'static str, a: Option<f64>, b: Option<f64>, band: (f64, String, usize)) -> Change {
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
    Change {
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
/// set the noise bands, so no band rests on a night after B.
pub fn compare(a: &View, b: &View, history: &[RunFigures]) -> CompareView {
    let mut out = CompareView {
        a: a.stamp.clone(),
        b: b.stamp.clone(),
        comparable: true,
        reasons: vec![],
        warnings: vec![],
        revision_a: a.provenance.run.revision.clone(),
        revision_b: b.provenance.run.revision.clone(),
        targets: vec![],
        nodes: vec![],
        tool: crate::view::Tool::this(),
        provenance_a: a.provenance.clone(),
        provenance_b: b.provenance.clone(),
    };
    match comparable(&a.provenance, &b.provenance) {
        Comparability::No { reasons } => {
            out.comparable = false;
            out.reasons = reasons;
            return out;
        }
        Comparability::Yes { warnings } => out.warnings = warnings,
    }
    let history = crate::history::bands::earlier(history, &RunFigures::from_view("", b));
    let target_band = |t: &str, m: &str| noise_band(crate::history::bands::metric_band(&history, t, m));
    let node_band = |n: &str, m: &str| noise_band(crate::history::bands::node_band(&history, n, m));
    type Get = fn(&crate::view::TargetView) -> Option<f64>;
    let metrics: [(&'static str, Get); 5] = [
        ("total_s", |t| t.total_s),
        ("build_s", |t| t.build_s),
        ("gap_s", |t| t.gap_s),
        ("upload_s", |t| t.upload_s),
        ("steps_cached", |t| t.steps_cached.map(|x| x as f64)),
    ];
    let b_targets: BTreeMap<&str, &crate::view::TargetView> = b.targets.iter().map(|t| (t.name.as_str(), t)).collect();
    for ta in &a.targets {
        let Some(tb) = b_targets.get(ta.name.as_str()) else {
            continue;
        };
        let moved = match (&ta.node, &tb.node) {
            (Some(x), Some(y)) if x != y => Some(format!("moved from {x} to {y}: it could not use {x}'s local cache")),
            _ => None,
        };
        let changes: Vec<Change> = metrics
            .iter()
            .map(|(m, get)| change(m, get(ta), get(tb), target_band(&ta.name, m)))
            .collect();
        let steps = step_diff::diff(&ta.step_records(), &tb.step_records());
        let build_delta = changes.iter().find(|c| c.metric == "build_s").and_then(|c| c.delta);
        let beside = beside(ta, tb);
        let why = headline_change(&changes).map(|c| {
            why::sentence(&why::Why {
                target: &ta.name,
                metric: c.metric,
                delta: c.delta,
                steps: &steps,
                beside: &beside,
                moved: moved.as_deref(),
                revision_a: out.revision_a.as_deref(),
                revision_b: out.revision_b.as_deref(),
            })
        });
        out.targets.push(TargetChange {
            target: ta.name.clone(),
            node_a: ta.node.clone(),
            node_b: tb.node.clone(),
            moved,
            changes,
            steps_explain_pct: Some(build_delta.and_then(|d| step_diff::explained_pct(&steps, d, why::TOP))),
            steps: Some(steps),
            beside: Some(beside),
            why,
        });
    }
    out.nodes = node_changes(a, b, node_band);
    out
}

/// Each node's busy, idle and mean CPU from A to B, banded by `band`.
fn node_changes(a: &View, b: &View, band: impl Fn(&str, &str) -> (f64, String, usize)) -> Vec<TargetChange> {
    let mut rows = vec![];
    for na in &a.nodes {
        let Some(nb) = b.nodes.iter().find(|n| n.name == na.name) else {
            continue;
        };
        let changes = vec![
            change("busy_s", na.busy_s, nb.busy_s, band(&na.name, "busy_s")),
            change("idle_s", na.idle_s, nb.idle_s, band(&na.name, "idle_s")),
            change(
                "cpu_pct_mean",
                na.cpu_pct_mean,
                nb.cpu_pct_mean,
                band(&na.name, "cpu_pct_mean"),
            ),
        ];
        rows.push(TargetChange {
            target: na.name.clone(),
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

/// What moved beside a target's steps.
fn beside(a: &crate::view::TargetView, b: &crate::view::TargetView) -> Vec<why::Beside> {
    let bytes = |t: &crate::view::TargetView| t.upload_bytes.map(|x| x as f64);
    vec![
        why::Beside {
            what: "setup_s",
            a: a.setup_s,
            b: b.setup_s,
        },
        why::Beside {
            what: "export_s",
            a: a.export_s,
            b: b.export_s,
        },
        why::Beside {
            what: "upload_s",
            a: a.upload_s,
            b: b.upload_s,
        },
        why::Beside {
            what: "upload_bytes",
            a: bytes(a),
            b: bytes(b),
        },
        why::Beside {
            what: "upload_mbps",
            a: a.upload_mbps,
            b: b.upload_mbps,
        },
    ]
}

/// The change a target's sentence explains: its build when that moved
/// beyond the noise, else its total.
fn headline_change(changes: &[Change]) -> Option<&Change> {
    let moved = |m: &str| {
        changes
            .iter()
            .find(|c| c.metric == m && matches!(c.verdict.as_str(), "slower" | "faster"))
    };
    moved("build_s").or_else(|| moved("total_s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_inside_the_band_is_no_ranking() {
        assert_eq!(verdict("build_s", 100.0, 105.0, 10.0), "within noise");
        assert_eq!(verdict("build_s", 100.0, 130.0, 10.0), "slower");
        assert_eq!(verdict("build_s", 100.0, 70.0, 10.0), "faster");
        assert_eq!(verdict("steps_cached", 2.0, 9.0, 10.0), "more cached");
    }

    #[test]
    fn the_noise_band_is_the_gates_band_and_says_its_n() {
        let run = |build: f64| {
            let mut r = RunFigures {
                mode: Some("warm".into()),
                arch: Some("gfx1201".into()),
                ..Default::default()
            };
            r.targets.insert(
                "pytorch".into(),
                crate::history::TargetFigures {
                    build_s: Some(build),
                    ..Default::default()
                },
            );
            r
        };
        let runs = [run(90.0), run(100.0), run(110.0)];
        let refs: Vec<&RunFigures> = runs.iter().collect();
        // Median 100, MAD 10: spread 14.826%, band 3× that.
        let band_of = |runs: &[&RunFigures]| noise_band(crate::history::bands::metric_band(runs, "pytorch", "build_s"));
        let (band, from, n) = band_of(&refs);
        assert!((band - 44.478).abs() < 1e-9, "{band}");
        assert_eq!(
            (from.as_str(), n),
            ("3× spread 14.8% over 3 earlier runs, too few to gate", 3)
        );
        // Identical runs show no spread: the band is floored, so 100 s -> 100.5 s is noise.
        let same = [run(100.0), run(100.0), run(100.0)];
        let same: Vec<&RunFigures> = same.iter().collect();
        let (band, from, _) = band_of(&same);
        assert_eq!(band, 5.0, "5 s of 100 s: {from}");
        assert_eq!(verdict("build_s", 100.0, 100.5, band), "within noise");
        let (band, from, n) = band_of(&refs[..2]);
        assert_eq!((band, n), (DEFAULT_BAND_PCT, 0));
        assert!(from.starts_with("assumed: no history (2 earlier"), "{from}");
    }
}
