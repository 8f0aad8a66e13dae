//! Gating a night: which runs under a root a nightly lane gates, each
//! against the comparable runs that started before it, and the exit status a
//! lane can trust. A night is the newest run of every coordinate key whose
//! newest run started within a window (24 h by default) before the newest run
//! under the root, so a regressed gfx1201 night is gated even when a gfx950
//! run happened to start last.

use super::{checks, from_history, Check};
use crate::history::{bands, key_label, Key, RunFigures};
use serde::Serialize;
use std::collections::BTreeMap;

/// The default night: runs that started at most this long before the newest.
pub const DEFAULT_WINDOW_S: f64 = 24.0 * 3600.0;

/// Exit statuses of `gate`, stated in `--help` and the README.
pub const EXIT_PASSED: u8 = 0;
pub const EXIT_REGRESSED: u8 = 1;
pub const EXIT_UNUSABLE: u8 = 2;
pub const EXIT_NOTHING_GATED: u8 = 3;

/// One run's verdict as a lane, the site and a person read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// At least one metric beyond its band in the worse direction.
    Regressed,
    /// At least one check ran and none regressed.
    Passed,
    /// No check could run: the reason says why.
    NotGated,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Passed => "passed",
            Verdict::NotGated => "not gated",
        }
    }
}

/// One gated run: its coordinates, what it was gated against, its checks.
#[derive(Debug, Clone, Serialize)]
pub struct GatedRun {
    /// Its path under the root.
    pub dir: String,
    pub stamp: String,
    /// run.json's `started_at`, RFC 3339; `None` when it has none.
    pub started_at: Option<String>,
    pub mode: Option<String>,
    pub arch: Option<String>,
    pub max_jobs: Option<u32>,
    /// The coordinate key in words ("warm · gfx1201 · max_jobs 32").
    pub key: String,
    pub verdict: Verdict,
    /// Why it was not gated, when it was not.
    pub not_gated: Option<String>,
    /// How many comparable runs started before it (the newest `spread::WINDOW`).
    pub comparable_runs: usize,
    /// What the expected values and bands rest on.
    pub against: String,
    pub checks: Vec<Check>,
    /// Checks that compared a figure with a band.
    pub checked: usize,
    pub regressions: usize,
}

impl GatedRun {
    /// Its regressions, worst drift first.
    pub fn regressed_checks(&self) -> Vec<&Check> {
        let mut v: Vec<&Check> = self.checks.iter().filter(|c| c.is_regression()).collect();
        v.sort_by(|a, b| {
            let d = |c: &Check| c.drift_pct.unwrap_or(f64::INFINITY);
            d(b).total_cmp(&d(a))
                .then_with(|| (&a.target, &a.metric).cmp(&(&b.target, &b.metric)))
        });
        v
    }

    /// The verdict in words: "regressed: pytorch build_s +13.5%", "passed (12 checks)", "not gated: ...".
    pub fn verdict_line(&self) -> String {
        match self.verdict {
            Verdict::Regressed => {
                let named: Vec<String> = self
                    .regressed_checks()
                    .iter()
                    .map(|c| {
                        let drift = c.drift_pct.map(|d| format!(" {d:+.1}%")).unwrap_or_default();
                        format!("{} {}{drift}", c.target, c.metric)
                    })
                    .collect();
                format!("regressed: {}", named.join(", "))
            }
            Verdict::Passed => format!(
                "passed ({})",
                crate::fmt::counted(self.checked as u64, "check", "checks")
            ),
            Verdict::NotGated => format!("not gated: {}", self.not_gated.as_deref().unwrap_or("no check ran")),
        }
    }
}

/// The night under a root: the runs gated and the status a lane exits with.
#[derive(Debug, Clone, Serialize)]
pub struct Night {
    /// The newest run under the root, which the window is measured back from.
    pub newest: Option<String>,
    pub window_s: f64,
    pub runs: Vec<GatedRun>,
    /// Keys whose newest run started before the window: not tonight's.
    pub keys_outside: usize,
    pub checked: usize,
    pub regressions: usize,
}

impl Night {
    pub fn exit_status(&self, allow_empty: bool) -> u8 {
        exit_status(self.checked, self.regressions, allow_empty)
    }
}

/// 1 on any regression, else 0 when at least one check ran, else 3 (or 0
/// with `allow_empty`, for a lane's first nights): a gate that checked
/// nothing is never green by accident.
pub fn exit_status(checked: usize, regressions: usize, allow_empty: bool) -> u8 {
    if regressions > 0 {
        EXIT_REGRESSED
    } else if checked > 0 || allow_empty {
        EXIT_PASSED
    } else {
        EXIT_NOTHING_GATED
    }
}

/// The runs a night gates: per coordinate key its newest run, when that
/// started at most `window_s` before the newest run under the root. A run
/// without a start time is placed only when it is the newest of all.
/// Returns them oldest key first, and how many keys lay outside.
pub fn pick(all: &[RunFigures], window_s: f64) -> (Vec<&RunFigures>, usize) {
    let Some(newest) = all.iter().max_by(|a, b| a.order().cmp(&b.order())) else {
        return (vec![], 0);
    };
    let mut by_key: BTreeMap<Key, &RunFigures> = BTreeMap::new();
    for r in all {
        let e = by_key.entry(r.key()).or_insert(r);
        if r.order() > e.order() {
            *e = r;
        }
    }
    let window_us = (window_s * 1e6) as i64;
    let in_night = |r: &RunFigures| {
        std::ptr::eq(r, newest)
            || matches!((r.started_us, newest.started_us), (Some(t), Some(n)) if n.saturating_sub(t) <= window_us)
    };
    let keys = by_key.len();
    let mut picked: Vec<&RunFigures> = by_key.into_values().filter(|r| in_night(r)).collect();
    picked.sort_by(|a, b| a.order().cmp(&b.order()));
    let outside = keys - picked.len();
    (picked, outside)
}

/// Gates `run` against the comparable runs of `all` that started before it.
pub fn gate_run(all: &[RunFigures], run: &RunFigures) -> GatedRun {
    let earlier = bands::earlier(all, run);
    let mut g = GatedRun {
        dir: run.dir.clone(),
        stamp: run.stamp.clone(),
        started_at: run.started_us.map(crate::timefmt::format_rfc3339),
        mode: run.mode.clone(),
        arch: run.arch.clone(),
        max_jobs: run.max_jobs,
        key: key_label(&run.key()),
        verdict: Verdict::NotGated,
        not_gated: None,
        comparable_runs: earlier.len(),
        against: String::new(),
        checks: vec![],
        checked: 0,
        regressions: 0,
    };
    if let Some(why) = &run.left_out {
        g.not_gated = Some(format!("the run is left out of history: {why}"));
        return g;
    }
    if run.key().lone.is_some() {
        g.not_gated = Some(format!("{}: no run can be compared with it", g.key));
        return g;
    }
    if earlier.is_empty() {
        g.not_gated = Some(format!("no comparable run ({}) started before it", g.key));
        return g;
    }
    let e = from_history(None, earlier.len(), bands::all_bands(&earlier, run));
    g.against = super::against(&e);
    g.checks = checks(run, &e);
    g.checked = g.checks.iter().filter(|c| c.checked()).count();
    g.regressions = g.checks.iter().filter(|c| c.is_regression()).count();
    (g.verdict, g.not_gated) = if g.regressions > 0 {
        (Verdict::Regressed, None)
    } else if g.checked > 0 {
        (Verdict::Passed, None)
    } else {
        (Verdict::NotGated, Some(no_band_why(&g.checks, earlier.len())))
    };
    g
}

/// Why a run with history had no metric to gate: too few runs before it,
/// else its first metric's reason.
fn no_band_why(checks: &[Check], runs: usize) -> String {
    use crate::analysis::spread::MIN_GATE_N;
    if runs < MIN_GATE_N {
        return format!(
            "{} before it, a band needs {MIN_GATE_N}",
            crate::fmt::counted(runs as u64, "comparable run", "comparable runs")
        );
    }
    let first = checks
        .iter()
        .map(|c| c.verdict.as_str())
        .find(|v| v.contains("gateable"));
    match first {
        Some(why) => format!(
            "no metric carries a band over the {} before it (e.g. {why})",
            crate::fmt::counted(runs as u64, "comparable run", "comparable runs")
        ),
        None => format!(
            "none of its targets was measured in the {} before it",
            crate::fmt::counted(runs as u64, "comparable run", "comparable runs")
        ),
    }
}

/// Gates the night under a root whose runs are `all`.
pub fn gate_night(all: &[RunFigures], window_s: f64) -> Night {
    let (picked, keys_outside) = pick(all, window_s);
    let runs: Vec<GatedRun> = picked.iter().map(|r| gate_run(all, r)).collect();
    Night {
        newest: all
            .iter()
            .max_by(|a, b| a.order().cmp(&b.order()))
            .map(|r| r.stamp.clone()),
        window_s,
        checked: runs.iter().map(|r| r.checked).sum(),
        regressions: runs.iter().map(|r| r.regressions).sum(),
        runs,
        keys_outside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warm run of `arch` starting `hours` after the epoch, pytorch building in `build` s.
    fn run(stamp: &str, hours: i64, arch: &str, build: f64) -> RunFigures {
        let mut r = crate::history::bands::tests::run(stamp, 0, Some("warm"), build, false);
        r.started_us = Some(hours * 3_600_000_000);
        r.arch = Some(arch.into());
        r
    }

    /// Eight gfx1201 nights at 1000 s (±0.2%), then a 1135 s night; a gfx950
    /// run starting two hours after it; a gfx942 key last seen a week ago.
    fn root() -> Vec<RunFigures> {
        let mut all: Vec<RunFigures> = (0..8)
            .map(|d| run(&format!("n{d}"), d * 24, "gfx1201", 1000.0 + (d % 3) as f64))
            .collect();
        all.push(run("n8", 8 * 24, "gfx1201", 1135.0));
        all.push(run("mi350", 8 * 24 + 2, "gfx950", 900.0));
        all.push(run("old", 24, "gfx942", 900.0));
        all
    }

    #[test]
    fn the_night_gates_every_key_started_within_a_day_of_the_newest_not_only_the_newest() {
        let all = root();
        let (picked, outside) = pick(&all, DEFAULT_WINDOW_S);
        let stamps: Vec<&str> = picked.iter().map(|r| r.stamp.as_str()).collect();
        assert_eq!(
            stamps,
            ["n8", "mi350"],
            "the regressed gfx1201 night is in, last week's key is not"
        );
        assert_eq!(outside, 1);
        let night = gate_night(&all, DEFAULT_WINDOW_S);
        assert_eq!(night.runs[0].verdict, Verdict::Regressed);
        assert!(night.runs[0]
            .verdict_line()
            .starts_with("regressed: pytorch build_s +13."));
        assert_eq!(night.runs[1].verdict, Verdict::NotGated);
        assert!(
            night.runs[1]
                .not_gated
                .as_deref()
                .unwrap()
                .contains("no comparable run"),
            "{:?}",
            night.runs[1].not_gated
        );
        assert_eq!(night.exit_status(false), EXIT_REGRESSED);
        // A window of one hour leaves the gfx1201 night out: only gfx950, which gates nothing.
        let short = gate_night(&all, 3600.0);
        assert_eq!(short.runs.len(), 1);
        assert_eq!(short.exit_status(false), EXIT_NOTHING_GATED);
        assert_eq!(
            short.exit_status(true),
            EXIT_PASSED,
            "--allow-empty for a lane's first nights"
        );
    }

    #[test]
    fn a_run_is_gated_only_against_runs_that_started_before_it() {
        let all = root();
        // n5 has five nights before it; the later n6..n8 (n8 regressed) do not count.
        let g = gate_run(&all, &all[5]);
        assert_eq!(g.comparable_runs, 5);
        assert_eq!(g.verdict, Verdict::Passed, "{}", g.verdict_line());
        assert!(g.checked > 0);
        // n3 has three before it: a spread, but no gate (5 needed); it says why.
        let g = gate_run(&all, &all[3]);
        assert_eq!(g.verdict, Verdict::NotGated);
        assert!(
            g.not_gated.as_deref().unwrap().contains("3 comparable runs"),
            "{:?}",
            g.not_gated
        );
    }

    #[test]
    fn a_run_left_out_or_of_an_unknown_key_says_why_it_was_not_gated() {
        let mut all = root();
        all[8].left_out = Some("in flight: its figures are not final".into());
        let g = gate_run(&all, &all[8]);
        assert_eq!(g.verdict, Verdict::NotGated);
        assert!(g.not_gated.unwrap().contains("in flight"));
        let mut lone = run("lone", 9 * 24, "gfx1201", 1000.0);
        lone.mode = None;
        all.push(lone);
        let g = gate_run(&all, all.last().unwrap());
        assert!(g.not_gated.unwrap().contains("no run can be compared"));
    }

    #[test]
    fn exit_status_is_three_when_nothing_was_checked_and_one_on_any_regression() {
        assert_eq!(exit_status(0, 0, false), 3);
        assert_eq!(exit_status(4, 0, false), 0);
        assert_eq!(exit_status(4, 1, true), 1);
        assert_eq!(exit_status(0, 0, true), 0);
        let empty: Vec<RunFigures> = vec![];
        assert_eq!(gate_night(&empty, DEFAULT_WINDOW_S).exit_status(false), 3);
    }
}
