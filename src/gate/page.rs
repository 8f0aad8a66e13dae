//! What a run's own page leads with: its night as the gate judged it (the
//! same `GatedRun` the index, the job summary and JUnit read), each target
//! against the comparable night before it, and where to go next. The view
//! is built here; `render::night` only writes it.

use super::judge::GateOptions;
use super::night::{gate_run, GatedRun};
use crate::figures::{Figures, Metric};
use crate::history::regressions::{cause, Cause, KeyJudged};
use std::collections::BTreeMap;

/// A run's night, for the top of its page.
#[derive(Debug, Clone)]
pub(crate) struct RunNight {
    pub(crate) gated: GatedRun,
    /// run.json's `revision`, when it records one.
    pub(crate) revision: Option<String>,
    /// The comparable runs either side (stamp, site folder), never another key's.
    pub(crate) previous: Option<(String, String)>,
    pub(crate) next: Option<(String, String)>,
    /// Each target against the night before, most moved first.
    pub(crate) targets: Vec<TargetNight>,
}

/// One target's total against the comparable night before.
#[derive(Debug, Clone)]
pub(crate) struct TargetNight {
    pub(crate) target: String,
    pub(crate) before: Option<f64>,
    pub(crate) now: Option<f64>,
    pub(crate) change_pct: Option<f64>,
    /// The steps and revisions behind the move, from every step of both.
    pub(crate) cause: Cause,
}

/// Below this share of its total a target's move is not worth a line.
const MOVED_PCT: f64 = 1.0;

/// The nights of the runs in `wanted` (folders), and of the comparable run
/// before each (whose page gains its "next" link), from a judged history.
pub(crate) fn run_nights(judged: &[KeyJudged], wanted: &[&str], opts: &GateOptions) -> BTreeMap<String, RunNight> {
    let mut out = BTreeMap::new();
    for k in judged {
        for (at, run) in k.runs.iter().enumerate() {
            if !wanted.contains(&run.dir.as_str()) {
                continue;
            }
            for at in at.saturating_sub(1)..=at {
                let run = k.runs[at];
                out.entry(run.dir.clone()).or_insert_with(|| night_of(k, at, opts));
            }
        }
    }
    out
}

/// Run `at` of a judged key, with its neighbours and each target since the night before.
fn night_of(k: &KeyJudged, at: usize, opts: &GateOptions) -> RunNight {
    let run = k.runs[at];
    let side = |i: Option<usize>| i.and_then(|i| k.runs.get(i)).map(|r| (r.stamp.clone(), r.dir.clone()));
    let before = at.checked_sub(1).and_then(|i| k.runs.get(i)).copied();
    RunNight {
        gated: gate_run(std::slice::from_ref(k), run, opts),
        revision: run.revision.value().cloned(),
        previous: side(at.checked_sub(1)),
        next: side(Some(at + 1)),
        targets: before.map(|b| targets_against(b, run)).unwrap_or_default(),
    }
}

/// Each target of `run` against `before`: those whose total moved past 1%
/// or the time resolution, most moved first.
fn targets_against(before: &Figures, run: &Figures) -> Vec<TargetNight> {
    let mut v: Vec<TargetNight> = run
        .targets
        .iter()
        .map(|(name, t)| {
            let now = t.metric(Metric::Total).get();
            let was = before.targets.get(name).and_then(|b| b.metric(Metric::Total).get());
            TargetNight {
                target: name.clone(),
                before: was,
                now,
                change_pct: now
                    .zip(was)
                    .and_then(|(n, b)| crate::analysis::spread::change_pct(n, b)),
                cause: cause(name, Metric::Total, before, run),
            }
        })
        .filter(|t| match (t.now, t.before, t.change_pct) {
            (Some(n), Some(b), Some(p)) => {
                p.abs() >= MOVED_PCT && (n - b).abs() > crate::analysis::levels::TIME_RESOLUTION_S
            }
            // A target on one side only is news.
            (Some(_), None, _) | (None, Some(_), _) => true,
            _ => false,
        })
        .collect();
    v.sort_by(|a, b| {
        let m = |t: &TargetNight| t.change_pct.map_or(f64::INFINITY, f64::abs);
        m(b).total_cmp(&m(a)).then_with(|| a.target.cmp(&b.target))
    });
    v
}
