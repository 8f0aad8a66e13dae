//! `perfreport gate`: the nightly lane's check against checked-in
//! expectations. A figure outside its band in the worse direction is a
//! regression; a metric the fleet cannot resolve is reported, not gated.

use crate::analysis::comparable::{comparable, Comparability};
use crate::view::{TargetView, View};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Default bands, percent of the expected value, from the spread each metric
/// shows on the fleet: a target's own steps repeat within a few percent,
/// setup/export and upload vary with the registry and the links.
pub const DEFAULT_BANDS: [(&str, f64); 5] = [
    ("total_s", 10.0),
    ("build_s", 10.0),
    ("gap_s", 25.0),
    ("upload_s", 30.0),
    ("steps_cached", 0.0),
];

/// Below this many seconds a time is scheduling noise: not gateable.
pub const RESOLUTION_S: f64 = 5.0;

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct Expectations {
    #[serde(default)]
    pub bands_pct: BTreeMap<String, f64>,
    #[serde(default)]
    pub targets: BTreeMap<String, BTreeMap<String, f64>>,
    /// The coordinates the expectations were measured at (written by --update).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub target: String,
    pub metric: String,
    pub measured: Option<f64>,
    pub expected: f64,
    pub drift_pct: Option<f64>,
    pub band_pct: f64,
    /// ok / REGRESSION / improved / ungateable: <why>
    pub verdict: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    pub run: String,
    /// The tool that gated, and the run's provenance.
    pub tool: crate::view::Tool,
    pub provenance: crate::view::Provenance,
    pub refused: Option<String>,
    pub checks: Vec<Check>,
    pub regressions: usize,
}

fn metric(t: &TargetView, m: &str) -> Option<f64> {
    match m {
        "total_s" => t.total_s,
        "build_s" => t.build_s,
        "gap_s" => t.gap_s,
        "upload_s" => t.upload_s,
        "steps_cached" => t.steps_cached.map(|x| x as f64),
        "steps_total" => t.steps_total.map(|x| x as f64),
        _ => None,
    }
}

fn band(e: &Expectations, m: &str) -> f64 {
    e.bands_pct
        .get(m)
        .copied()
        .or_else(|| DEFAULT_BANDS.iter().find(|(k, _)| *k == m).map(|(_, b)| *b))
        .unwrap_or(10.0)
}

pub fn gate(v: &View, e: &Expectations) -> GateReport {
    let mut r = GateReport {
        run: v.stamp.clone(),
        tool: crate::view::Tool::this(),
        provenance: v.provenance.clone(),
        refused: None,
        checks: vec![],
        regressions: 0,
    };
    if let Some(c) = &e.coordinates {
        let expected: crate::view::Provenance = {
            let mut p = v.provenance.clone();
            p.run.stamp = "the expectations".into();
            p.run.mode = c.get("mode").and_then(|m| serde_json::from_value(m.clone()).ok());
            p.run.arch = c.get("arch").and_then(|a| a.as_str()).map(str::to_string);
            p.run.job_width = c.get("job_width").and_then(|w| w.as_u64()).map(|w| w as u32);
            p
        };
        if let Comparability::No { reasons } = comparable(&expected, &v.provenance) {
            r.refused = Some(reasons.join("; "));
            return r;
        }
    }
    for (target, metrics) in &e.targets {
        let t = v.targets.iter().find(|t| &t.name == target);
        for (m, expected) in metrics {
            let band_pct = band(e, m);
            let measured = t.and_then(|t| metric(t, m));
            let why_null = t.and_then(|t| t.why_null.get(m).cloned());
            let time = m.ends_with("_s");
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
                Some(x) => {
                    let drift = if *expected != 0.0 {
                        100.0 * (x - expected) / expected
                    } else if x == 0.0 {
                        0.0
                    } else {
                        f64::INFINITY
                    };
                    // Time: higher is worse. Steps cached: lower is worse.
                    let worse = if time { drift > band_pct } else { drift < -band_pct };
                    let better = if time { drift < -band_pct } else { drift > band_pct };
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
            };
            if verdict == "REGRESSION" {
                r.regressions += 1;
            }
            r.checks.push(Check {
                target: target.clone(),
                metric: m.clone(),
                measured,
                expected: *expected,
                drift_pct: drift,
                band_pct,
                verdict,
            });
        }
    }
    r
}

/// The current figures as new expectations, keeping the bands.
pub fn update(v: &View, old: &Expectations) -> Expectations {
    let mut e = Expectations {
        bands_pct: old.bands_pct.clone(),
        ..Default::default()
    };
    for t in &v.targets {
        let mut m = BTreeMap::new();
        for (name, _) in DEFAULT_BANDS {
            if let Some(x) = metric(t, name) {
                m.insert(name.to_string(), x);
            }
        }
        if !m.is_empty() {
            e.targets.insert(t.name.clone(), m);
        }
    }
    let r = &v.provenance.run;
    e.coordinates = Some(serde_json::json!({"mode": r.mode, "arch": r.arch, "job_width": r.job_width}));
    e
}

pub fn render_text(r: &GateReport) -> String {
    if let Some(why) = &r.refused {
        return format!(
            "perfreport gate {}: refused, the run is not comparable with the expectations: {why}\n",
            r.run
        );
    }
    let mut s = format!(
        "perfreport {} (commit {}) gate {}: {} checks, {} regressions\n  {:<16} {:<13} {:>10} {:>10} {:>8} {:>6}  verdict\n",
        r.tool.version,
        r.tool.commit,
        r.run,
        r.checks.len(),
        r.regressions,
        "target",
        "metric",
        "measured",
        "expected",
        "drift",
        "band"
    );
    for c in &r.checks {
        let measured = c.measured.map(|x| format!("{x:.1}")).unwrap_or_else(|| "—".into());
        let drift = c.drift_pct.map(|d| format!("{d:+.1}%")).unwrap_or_else(|| "—".into());
        s.push_str(&format!(
            "  {:<16} {:<13} {:>10} {:>10.1} {:>8} {:>5.0}%  {}\n",
            c.target, c.metric, measured, c.expected, drift, c.band_pct, c.verdict
        ));
    }
    s
}
