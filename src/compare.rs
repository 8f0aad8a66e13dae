//! `perfreport compare`: what changed from one run to another, honestly.
//! Runs of another mode, arch or job width are not compared at all; a change
//! inside the noise (the spread repeated runs show) is not a ranking; a
//! target that moved nodes says so, since it lost that node's local cache.

use crate::analysis::comparable::{comparable, Comparability};
use crate::render::escape::md_text as md;
use crate::view::View;
use serde::Serialize;
use std::collections::BTreeMap;

/// Without history, a change within this share of the earlier value is called noise.
pub const DEFAULT_BAND_PCT: f64 = 10.0;

#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub metric: &'static str,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub delta: Option<f64>,
    pub delta_pct: Option<f64>,
    /// The noise band used, in percent of A, and where it came from.
    pub band_pct: f64,
    pub band_from: String,
    /// faster / slower / within noise / more cached / fewer cached / unchanged / not measured.
    pub verdict: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetChange {
    pub target: String,
    pub node_a: Option<String>,
    pub node_b: Option<String>,
    /// Set when the target ran on another node in B.
    pub moved: Option<String>,
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareView {
    pub a: String,
    pub b: String,
    pub comparable: bool,
    /// Why not, when not.
    pub reasons: Vec<String>,
    pub warnings: Vec<String>,
    pub targets: Vec<TargetChange>,
    pub nodes: Vec<TargetChange>,
    /// The tool that compared, and each run's own provenance (inputs, coordinates).
    pub tool: crate::view::Tool,
    pub provenance_a: crate::view::Provenance,
    pub provenance_b: crate::view::Provenance,
}

/// Observed spread of a metric over repeated runs: (max - min) / median, percent.
pub fn spread_pct(values: &[f64]) -> Option<f64> {
    if values.len() < 3 {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let median = v[v.len() / 2];
    (median > 0.0).then(|| 100.0 * (v[v.len() - 1] - v[0]) / median)
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

fn change(metric: &'static str, a: Option<f64>, b: Option<f64>, band: (f64, String)) -> Change {
    let (band_pct, band_from) = band;
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
        verdict: v,
    }
}

/// Compares B against A. `history`: earlier comparable runs, for noise bands.
pub fn compare(a: &View, b: &View, history: &[View]) -> CompareView {
    let mut out = CompareView {
        a: a.stamp.clone(),
        b: b.stamp.clone(),
        comparable: true,
        reasons: vec![],
        warnings: vec![],
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
    let history: Vec<&View> = history
        .iter()
        .filter(|h| matches!(comparable(&a.provenance, &h.provenance), Comparability::Yes { .. }))
        .collect();
    let band = |target: &str, metric: &str, get: &dyn Fn(&crate::view::TargetView) -> Option<f64>| -> (f64, String) {
        let values: Vec<f64> = history
            .iter()
            .filter_map(|h| h.targets.iter().find(|t| t.name == target))
            .filter_map(get)
            .collect();
        match spread_pct(&values) {
            Some(s) => (
                s.max(1.0) / 2.0,
                format!("half the spread of {} earlier runs", values.len()),
            ),
            None => (
                DEFAULT_BAND_PCT,
                format!("default ({} repeated runs of {metric} needed for a measured band)", 3),
            ),
        }
    };
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
        let changes = metrics
            .iter()
            .map(|(m, get)| change(m, get(ta), get(tb), band(&ta.name, m, get)))
            .collect();
        out.targets.push(TargetChange {
            target: ta.name.clone(),
            node_a: ta.node.clone(),
            node_b: tb.node.clone(),
            moved,
            changes,
        });
    }
    for na in &a.nodes {
        let Some(nb) = b.nodes.iter().find(|n| n.name == na.name) else {
            continue;
        };
        let d = || (DEFAULT_BAND_PCT, "default".to_string());
        let changes = vec![
            change("busy_s", na.busy_s, nb.busy_s, d()),
            change("idle_s", na.idle_s, nb.idle_s, d()),
            change("cpu_pct_mean", na.cpu_pct_mean, nb.cpu_pct_mean, d()),
        ];
        out.nodes.push(TargetChange {
            target: na.name.clone(),
            node_a: None,
            node_b: None,
            moved: None,
            changes,
        });
    }
    out
}

fn num(v: Option<f64>) -> String {
    v.map(|x| {
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.1}")
        }
    })
    .unwrap_or_else(|| "—".into())
}

/// Who compared what: the tool and both runs' coordinates and input hashes.
fn provenance_footer(c: &CompareView) -> String {
    let run = |p: &crate::view::Provenance| {
        let hashes: Vec<String> = p
            .inputs
            .iter()
            .map(|(n, i)| format!("{} {}", md(n), md(i.xxh3.as_deref().unwrap_or("—"))))
            .collect();
        format!(
            "- {}: mode {}, arch {}, job width {}, made by perfreport {} ({}); inputs: {}\n",
            md(&p.run.stamp),
            p.run
                .mode
                .map(|m| format!("{m:?}").to_lowercase())
                .unwrap_or_else(|| "—".into()),
            md(p.run.arch.as_deref().unwrap_or("—")),
            p.run.job_width.map(|w| w.to_string()).unwrap_or_else(|| "—".into()),
            p.tool.version,
            p.tool.commit,
            hashes.join(", ")
        )
    };
    format!(
        "\n## Provenance\n\nCompared by perfreport {} (commit {}).\n\n{}{}",
        c.tool.version,
        c.tool.commit,
        run(&c.provenance_a),
        run(&c.provenance_b)
    )
}

/// The comparison as markdown; every name from the runs is escaped as
/// markdown text (it lands in the published report page too).
pub fn render_markdown(c: &CompareView) -> String {
    let mut s = format!("# {} → {}\n\n", md(&c.a), md(&c.b));
    if !c.comparable {
        s.push_str("**Not comparable**: no ranking is given.\n\n");
        for r in &c.reasons {
            s.push_str(&format!("- {}\n", md(r)));
        }
        s.push_str(&provenance_footer(c));
        return s;
    }
    for w in &c.warnings {
        s.push_str(&format!("- ⚠ {}\n", md(w)));
    }
    s.push_str(
        "\n## Targets\n\n| target | metric | A | B | change | band | verdict |\n|---|---|--:|--:|--:|--:|---|\n",
    );
    for t in &c.targets {
        for (i, ch) in t.changes.iter().enumerate() {
            let name = if i == 0 { md(&t.target) } else { String::new() };
            let pct = ch.delta_pct.map(|p| format!("{p:+.1}%")).unwrap_or_else(|| "—".into());
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {pct} | ±{:.1}% | {} |\n",
                ch.metric,
                num(ch.a),
                num(ch.b),
                ch.band_pct,
                ch.verdict
            ));
        }
        if let Some(m) = &t.moved {
            s.push_str(&format!(
                "| | placement | {} | {} | | | {} |\n",
                md(t.node_a.as_deref().unwrap_or("—")),
                md(t.node_b.as_deref().unwrap_or("—")),
                md(m)
            ));
        }
    }
    s.push_str("\n## Nodes\n\n| node | metric | A | B | change | verdict |\n|---|---|--:|--:|--:|---|\n");
    for n in &c.nodes {
        for ch in &n.changes {
            let pct = ch.delta_pct.map(|p| format!("{p:+.1}%")).unwrap_or_else(|| "—".into());
            s.push_str(&format!(
                "| {} | {} | {} | {} | {pct} | {} |\n",
                md(&n.target),
                ch.metric,
                num(ch.a),
                num(ch.b),
                ch.verdict
            ));
        }
    }
    s.push_str(&provenance_footer(c));
    s
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
    fn the_band_is_the_spread_repeated_runs_show() {
        assert_eq!(spread_pct(&[100.0, 110.0]), None, "two runs say nothing of the spread");
        assert_eq!(spread_pct(&[90.0, 100.0, 110.0]), Some(20.0));
    }
}
