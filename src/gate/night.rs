//! Gating a night: which runs under a root a nightly lane gates, each
//! against the comparable runs that started before it, and the exit status a
//! lane can trust. A night is the newest run of every coordinate key whose
//! newest run started within a window (24 h by default) before the newest run
//! under the root, so a regressed gfx1201 night is gated even when a gfx950
//! run happened to start last.

use super::judge::{gate_judged, not_judged, GateOptions};
use super::Check;
use crate::figures::Figures;
use crate::history::regressions::{judge_all, KeyJudged};
use crate::history::{key_label, Key};
use serde::Serialize;
use std::collections::BTreeMap;

/// The night `gate --window` takes by default (24h), for the tests.
#[cfg(test)]
const DEFAULT_WINDOW_S: f64 = 24.0 * 3600.0;

/// Exit statuses of `gate`, stated in `--help` and in docs/commands/gate.md.
pub(crate) const EXIT_PASSED: u8 = 0;
pub(crate) const EXIT_REGRESSED: u8 = 1;
pub const EXIT_UNUSABLE: u8 = 2;
pub(crate) const EXIT_NOTHING_GATED: u8 = 3;

/// One run's verdict as a lane, the site and a person read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Verdict {
    /// At least one metric beyond its band in the worse direction.
    Regressed,
    /// At least one check ran and none regressed.
    Passed,
    /// No check could run: the reason says why.
    NotGated,
}

/// One gated run: its coordinates, what it was gated against, its checks.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GatedRun {
    /// Its path under the root.
    pub(crate) dir: String,
    pub(crate) stamp: String,
    /// run.json's `started_at`, RFC 3339; `None` when it has none.
    pub(crate) started_at: Option<String>,
    pub(crate) mode: Option<String>,
    pub(crate) arch: Option<String>,
    pub(crate) max_jobs: Option<u32>,
    /// The coordinate key in words ("warm · gfx1201 · max_jobs 32").
    pub(crate) key: String,
    pub(crate) verdict: Verdict,
    /// Why it was not gated, when it was not.
    pub(crate) not_gated: Option<String>,
    /// How many comparable runs started before it (the newest `spread::WINDOW`).
    pub(crate) comparable_runs: usize,
    /// What the expected values and bands rest on.
    pub(crate) against: String,
    pub(crate) checks: Vec<Check>,
    /// Checks that compared a figure with a band.
    pub(crate) checked: usize,
    pub(crate) regressions: usize,
    /// The regressions called on this run (new tonight unless another lane
    /// called them), each with its identity, cause and state.
    pub(crate) called: Vec<crate::history::regressions::Regression>,
    /// The regressions called on an earlier night and still open.
    pub(crate) open: Vec<crate::history::regressions::Regression>,
    /// Targets the comparable runs measured that this run did not, with why:
    /// a night that lost a target's trace is not a green night.
    pub(crate) unmeasured: Vec<Unmeasured>,
    /// The run cannot stand in the night as it should (broken, unreadable,
    /// undated, or a target unmeasured): the lane exits 2 unless it regressed.
    pub(crate) unusable: bool,
}

impl GatedRun {
    /// A run not gated yet: its coordinates only.
    pub(crate) fn of(run: &Figures) -> GatedRun {
        GatedRun {
            dir: run.dir.clone(),
            stamp: run.stamp.clone(),
            started_at: run.started_us().map(crate::timefmt::format_rfc3339),
            mode: run.mode.value().cloned(),
            arch: run.arch.value().cloned(),
            max_jobs: run.job_width.get(),
            key: key_label(&run.key()),
            verdict: Verdict::NotGated,
            not_gated: None,
            comparable_runs: 0,
            against: String::new(),
            checks: vec![],
            checked: 0,
            regressions: 0,
            called: vec![],
            open: vec![],
            unmeasured: vec![],
            unusable: false,
        }
    }

    /// Its regressions, worst drift first.
    pub(crate) fn regressed_checks(&self) -> Vec<&Check> {
        let mut v: Vec<&Check> = self.checks.iter().filter(|c| c.is_regression()).collect();
        v.sort_by(|a, b| {
            let d = |c: &Check| c.drift_pct.unwrap_or(f64::INFINITY);
            d(b).total_cmp(&d(a))
                .then_with(|| (&a.target, &a.metric).cmp(&(&b.target, &b.metric)))
        });
        v
    }

    /// The verdict in words: "regressed: pytorch build_s +13.5%", "passed (12 checks)", "not gated: ...".
    pub(crate) fn verdict_line(&self) -> String {
        let line = match self.verdict {
            Verdict::Regressed => {
                let named: Vec<String> = self.regressed_checks().iter().map(|c| c.named()).collect();
                format!("regressed: {}", named.join(", "))
            }
            Verdict::Passed => {
                let mut line = format!(
                    "passed ({})",
                    crate::fmt::counted(self.checked as u64, "check", "checks")
                );
                // What a green night still carries: a night beyond its level
                // (tomorrow tells), a change called earlier, a loaded node.
                for (word, prefix) in [("watch", "watch"), ("open", "open since"), ("loaded", "loaded")] {
                    let named: Vec<String> = self
                        .checks
                        .iter()
                        .filter(|c| c.verdict.starts_with(prefix))
                        .map(|c| c.named())
                        .collect();
                    if !named.is_empty() {
                        line.push_str(&format!("; {word}: {}", named.join(", ")));
                    }
                }
                line
            }
            Verdict::NotGated => format!("not gated: {}", self.not_gated.as_deref().unwrap_or("no check ran")),
        };
        if self.unmeasured.is_empty() {
            line
        } else {
            let said: Vec<String> = self.unmeasured.iter().map(ToString::to_string).collect();
            format!("{line}; not measured in this run: {}", said.join("; "))
        }
    }
}

/// The night under a root: the runs gated and the status a lane exits with.
#[derive(Debug, Clone, Serialize)]
pub struct Night {
    /// The newest run under the root, which the window is measured back from.
    pub(crate) newest: Option<String>,
    pub(crate) window_s: f64,
    pub(crate) runs: Vec<GatedRun>,
    /// Keys whose newest run started before the window: not tonight's.
    pub(crate) keys_outside: Vec<String>,
    /// Runs dated after the clock (plus an hour's skew): left out of the
    /// night, since one would push every other key out of the window.
    pub(crate) dated_in_future: Vec<String>,
    pub(crate) checked: usize,
    pub(crate) regressions: usize,
    /// Runs of the night that could not stand as they should (see `GatedRun::unusable`).
    pub(crate) unusable: usize,
}

impl Night {
    pub fn exit_status(&self, allow_empty: bool) -> u8 {
        exit_status(self.checked, self.regressions, self.unusable, allow_empty)
    }

    /// The lane's verdict in words, with its exit status.
    pub fn status_line(&self, allow_empty: bool) -> String {
        let code = self.exit_status(allow_empty);
        let what = match code {
            EXIT_REGRESSED => "a regression",
            EXIT_UNUSABLE => "a run of the night could not be gated as it should (see above)",
            EXIT_NOTHING_GATED => "nothing could be gated",
            _ if self.checked == 0 => "nothing could be gated (allowed)",
            _ => "passed",
        };
        format!("the lane's verdict: {what} (exit {code})")
    }
}

/// 1 on any regression, else 2 when a run of the night could not be gated
/// as it should, else 0 when at least one check ran, else 3 (or 0 with
/// `allow_empty`, for a lane's first nights): a gate that checked nothing is
/// never green by accident.
pub fn exit_status(checked: usize, regressions: usize, unusable: usize, allow_empty: bool) -> u8 {
    if regressions > 0 {
        EXIT_REGRESSED
    } else if unusable > 0 {
        EXIT_UNUSABLE
    } else if checked > 0 || allow_empty {
        EXIT_PASSED
    } else {
        EXIT_NOTHING_GATED
    }
}

/// A run dated this far past the clock is a clock's error, not tonight's.
const FUTURE_SKEW_US: i64 = 3_600_000_000;

/// What a night gates, and what it left out.
#[derive(Debug, Default)]
pub(crate) struct Picked<'a> {
    /// Oldest first.
    pub(crate) runs: Vec<&'a Figures>,
    /// The labels of keys whose runs all started before the window.
    pub(crate) keys_outside: Vec<String>,
    /// Runs dated after `now_us` (plus an hour), by folder.
    pub(crate) dated_in_future: Vec<String>,
}

/// The runs a night gates. The window ends at the newest dated run under the
/// root (one dated past `now_us` is left out and named). Per coordinate key
/// with a run in the window: its newest run that can be gated, every run
/// that started with it, and every newer run of the key (in flight or
/// broken), so a run still in flight cannot hide the night's regression.
/// A run without a start time (or whose run.json could not be read) that
/// sorts after the newest dated run is in the night too, as not gated.
pub(crate) fn pick(all: &[Figures], window_s: f64, now_us: i64) -> Picked<'_> {
    let mut out = Picked::default();
    let future = |r: &Figures| {
        r.started_us()
            .is_some_and(|t| t > now_us.saturating_add(FUTURE_SKEW_US))
    };
    out.dated_in_future = all.iter().filter(|r| future(r)).map(|r| r.dir.clone()).collect();
    let dated: Vec<&Figures> = all.iter().filter(|r| r.started_us().is_some() && !future(r)).collect();
    let newest = dated.iter().copied().max_by(|a, b| a.order().cmp(&b.order()));
    let undated_after = |r: &Figures| {
        r.started_us().is_none()
            && newest.is_none_or(|n| (r.stamp.as_str(), r.dir.as_str()) >= (n.stamp.as_str(), n.dir.as_str()))
    };
    let Some(newest) = newest else {
        // Nothing dated: the run newest by stamp and folder stands alone.
        out.runs.extend(
            all.iter()
                .filter(|r| undated_after(r))
                .max_by(|a, b| a.order().cmp(&b.order())),
        );
        return out;
    };
    let from = newest.started_us().unwrap_or(0).saturating_sub((window_s * 1e6) as i64);
    let mut by_key: BTreeMap<Key, Vec<&Figures>> = BTreeMap::new();
    for r in &dated {
        by_key.entry(r.key()).or_default().push(r);
    }
    for (key, mut runs) in by_key {
        runs.sort_by(|a, b| a.order().cmp(&b.order()));
        runs.retain(|r| r.started_us().is_some_and(|t| t >= from));
        if runs.is_empty() {
            out.keys_outside.push(key_label(&key));
            continue;
        }
        let gateable = runs.iter().rposition(|r| r.left_out.is_none());
        let first = match gateable {
            // Its ties in start time are gated too, each on its own.
            Some(g) => runs
                .iter()
                .position(|r| r.started_us() == runs[g].started_us())
                .unwrap_or(g),
            None => runs.len() - 1,
        };
        out.runs.extend(&runs[first..]);
    }
    out.runs.extend(all.iter().filter(|r| undated_after(r)));
    out.runs.sort_by(|a, b| a.order().cmp(&b.order()));
    out
}

/// Gates `run` as the night it was judged on: against its key's judged
/// history up to it.
pub(crate) fn gate_run(judged: &[KeyJudged], run: &Figures, opts: &GateOptions) -> GatedRun {
    if let Some(why) = &run.left_out {
        // A run in flight is not final yet; a broken or unreadable one is a problem.
        let unusable = !why.starts_with("in flight");
        return not_judged(run, format!("the run is left out of history: {why}"), unusable);
    }
    if run.started_us().is_none() {
        return not_judged(
            run,
            "run.json gives no started_at: the run cannot be placed among the runs before it".into(),
            true,
        );
    }
    let key = run.key();
    if key.lone.is_some() {
        return not_judged(
            run,
            format!("{}: no run can be compared with it", key_label(&key)),
            false,
        );
    }
    let Some((k, at)) = judged
        .iter()
        .find(|k| k.key == key)
        .and_then(|k| Some((k, k.runs.iter().position(|r| std::ptr::eq(*r, run))?)))
    else {
        return not_judged(run, format!("{}: not among its key's runs", key_label(&key)), false);
    };
    if at == 0 {
        return not_judged(
            run,
            format!("no comparable run ({}) started before it", key_label(&key)),
            false,
        );
    }
    gate_judged(k, at, opts)
}

/// Gates the run in folder `run_dir` as the night it was judged on, when it
/// is among the runs of `root` (`all`): the verdict the nightly gate gave or
/// would give it. `None` when the run is not under the root.
pub fn gate_in_root(
    all: &[Figures],
    root: &std::path::Path,
    run_dir: &std::path::Path,
    opts: &GateOptions,
) -> Option<super::GateReport> {
    let want = std::fs::canonicalize(run_dir).ok()?;
    let run = all
        .iter()
        .find(|r| std::fs::canonicalize(root.join(&r.dir)).is_ok_and(|p| p == want))?;
    let judged = judge_all(all);
    let g = gate_run(&judged, run, opts);
    Some(super::GateReport {
        run: run.stamp.clone(),
        tool: crate::figures::Tool::this(),
        provenance: run.provenance.clone(),
        refused: None,
        against: match &g.not_gated {
            Some(why) if g.checks.is_empty() => format!("history: not gated: {why}"),
            _ => g.against.clone(),
        },
        checked: g.checked,
        regressions: g.regressions,
        checks: g.checks,
    })
}

/// A target the runs before measured that this run did not, and why: kept
/// apart, so a target's name holding " (" is never cut from its reason.
/// Said (and written in `gate --json`) as "pytorch (no trace-pytorch.json in
/// this run)".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unmeasured {
    pub(crate) target: String,
    pub(crate) why: String,
}

impl std::fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.target, self.why)
    }
}

impl Serialize for Unmeasured {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The targets the runs before measured (a total) that `run` did not, each
/// with why: a lost trace would otherwise only skip its checks.
pub(crate) fn unmeasured(earlier: &[&Figures], run: &Figures) -> Vec<Unmeasured> {
    let mut before: Vec<&str> = earlier
        .iter()
        .flat_map(|r| {
            r.targets
                .iter()
                .filter(|(_, t)| !t.total.is_missing())
                .map(|(n, _)| n.as_str())
        })
        .collect();
    before.sort_unstable();
    before.dedup();
    before
        .into_iter()
        .filter(|t| run.targets.get(*t).is_none_or(|f| f.total.is_missing()))
        .map(|t| Unmeasured {
            target: t.to_string(),
            why: match run.targets.get(t).and_then(|f| f.total.why()) {
                Some(why) => why.to_string(),
                None => "not in this run".to_string(),
            },
        })
        .collect()
}

/// Gates the night under a root whose runs are `all`, `now_us` being the clock.
pub fn gate_night(all: &[Figures], window_s: f64, now_us: i64, opts: &GateOptions) -> Night {
    let picked = pick(all, window_s, now_us);
    let judged = judge_all(all);
    let runs: Vec<GatedRun> = picked.runs.iter().map(|r| gate_run(&judged, r, opts)).collect();
    Night {
        newest: picked
            .runs
            .iter()
            .filter(|r| r.started_us().is_some())
            .max_by(|a, b| a.order().cmp(&b.order()))
            .map(|r| r.stamp.clone()),
        window_s,
        checked: runs.iter().map(|r| r.checked).sum(),
        regressions: runs.iter().map(|r| r.regressions).sum(),
        // A run dated after the clock is one the night could not place: not green.
        unusable: runs.iter().filter(|r| r.unusable).count() + picked.dated_in_future.len(),
        runs,
        keys_outside: picked.keys_outside,
        dated_in_future: picked.dated_in_future,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::regressions::tests::{history, night};

    /// The clock: long after every run.
    const NOW: i64 = i64::MAX / 2;

    fn gate_one(all: &[Figures], at: usize) -> GatedRun {
        gate_run(&judge_all(all), &all[at], &GateOptions::default())
    }

    /// Twenty-five gfx1201 nights (±0.5%), pytorch 20% slower from night 23
    /// (called on night 24); a gfx950 run two hours after the last; a gfx942
    /// key last seen three weeks before.
    fn root() -> Vec<Figures> {
        let mut all = history(25, 23, 1.2);
        let mut mi350 = night(24, 900.0, "3f9c2e1a7b44", false);
        mi350.stamp = "mi350".into();
        mi350.dir = "mi350".into();
        mi350.started = crate::figures::Value(mi350.started_us().unwrap_or(0) + 2 * 3_600_000_000);
        mi350.arch = crate::figures::Value("gfx950".into());
        all.push(mi350);
        let mut old = night(3, 900.0, "3f9c2e1a7b44", false);
        old.stamp = "old".into();
        old.dir = "old".into();
        old.arch = crate::figures::Value("gfx942".into());
        all.push(old);
        all
    }

    #[test]
    fn the_night_gates_every_key_started_within_a_day_of_the_newest_not_only_the_newest() {
        let all = root();
        let picked = pick(&all, DEFAULT_WINDOW_S, NOW);
        let stamps: Vec<&str> = picked.runs.iter().map(|r| r.stamp.as_str()).collect();
        assert_eq!(
            stamps,
            ["20261225", "mi350"],
            "the gfx1201 night is in, the old key is not"
        );
        assert_eq!(picked.keys_outside, ["warm · gfx942 · max_jobs 32"]);
        let night = gate_night(&all, DEFAULT_WINDOW_S, NOW, &GateOptions::default());
        assert_eq!(
            night.runs[0].verdict,
            Verdict::Regressed,
            "{}",
            night.runs[0].verdict_line()
        );
        assert!(
            night.runs[0]
                .verdict_line()
                .starts_with("regressed: pytorch build_s +2"),
            "{}",
            night.runs[0].verdict_line()
        );
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
        let short = gate_night(&all, 3600.0, NOW, &GateOptions::default());
        assert_eq!(short.runs.len(), 1);
        assert_eq!(short.exit_status(false), EXIT_NOTHING_GATED);
        assert_eq!(
            short.exit_status(true),
            EXIT_PASSED,
            "--allow-empty for a lane's first nights"
        );
    }

    #[test]
    fn a_change_is_red_on_the_night_it_is_called_and_open_after_not_new_each_night() {
        let all = history(30, 20, 1.2);
        let landed = gate_one(&all, 20);
        assert_eq!(
            landed.regressions,
            0,
            "one night beyond is watched: {}",
            landed.verdict_line()
        );
        let watched = landed
            .checks
            .iter()
            .find(|c| c.metric == crate::figures::Metric::Build)
            .unwrap();
        assert!(watched.verdict.starts_with("watch: "), "{}", watched.verdict);
        let called = gate_one(&all, 21);
        assert_eq!(called.verdict, Verdict::Regressed, "{}", called.verdict_line());
        assert_eq!(called.called.len(), 2, "build_s and total_s: {:#?}", called.called);
        let later = gate_one(&all, 23);
        assert_eq!(later.verdict, Verdict::Passed, "{}", later.verdict_line());
        let build = later
            .checks
            .iter()
            .find(|c| c.metric == crate::figures::Metric::Build)
            .unwrap();
        assert_eq!(build.verdict, "open since 20261221 (night 4 at its new level)");
        assert_eq!(later.open.len(), 2);
        // --fail-on-open keeps the lane red while it is open.
        let opts = GateOptions {
            fail_on_open: true,
            ..Default::default()
        };
        let red = gate_run(&judge_all(&all), &all[23], &opts);
        assert_eq!(red.verdict, Verdict::Regressed);
        // Accepted, it is green even so, and says why.
        let opts = GateOptions {
            fail_on_open: true,
            accepted: crate::history::regressions::Accepted::parse(
                "[[accepted]]\nid = \"gfx1201.warm.j32/pytorch/*\"\nnote = \"new kernels\"\n",
            )
            .unwrap(),
            ..Default::default()
        };
        let green = gate_run(&judge_all(&all), &all[23], &opts);
        assert_eq!(green.verdict, Verdict::Passed, "{}", green.verdict_line());
        let build = green
            .checks
            .iter()
            .find(|c| c.metric == crate::figures::Metric::Build)
            .unwrap();
        assert_eq!(build.verdict, "accepted since 20261221: new kernels");
    }

    #[test]
    fn a_regression_another_lane_called_is_open_here_not_new() {
        let all = history(25, 23, 1.2);
        let mine = gate_one(&all, 24);
        let id = mine.called[0].shift.id.clone();
        let opts = GateOptions {
            called_elsewhere: mine
                .called
                .iter()
                .map(|r| (r.shift.id.clone(), "arch=gfx1201".into()))
                .collect(),
            ..Default::default()
        };
        let theirs = gate_run(&judge_all(&all), &all[24], &opts);
        assert_eq!(theirs.verdict, Verdict::Passed, "{}", theirs.verdict_line());
        let c = theirs
            .checks
            .iter()
            .find(|c| c.regression.as_ref().is_some_and(|r| r.shift.id == id))
            .unwrap();
        assert!(c.verdict.contains("called by lane arch=gfx1201"), "{}", c.verdict);
    }

    #[test]
    fn a_run_with_too_few_nights_before_it_is_not_gated_and_says_why() {
        let all = history(25, 99, 1.0);
        let g = gate_one(&all, 3);
        assert_eq!(g.verdict, Verdict::NotGated);
        assert!(
            g.not_gated.as_deref().unwrap().contains("3 comparable runs"),
            "{:?}",
            g.not_gated
        );
        let g = gate_one(&all, 20);
        assert_eq!(g.verdict, Verdict::Passed, "{}", g.verdict_line());
        assert!(g.checked > 0);
    }

    #[test]
    fn a_run_left_out_or_of_an_unknown_key_says_why_it_was_not_gated() {
        let mut all = root();
        all[24].left_out = Some("in flight: its figures are not final".into());
        let g = gate_one(&all, 24);
        assert_eq!(g.verdict, Verdict::NotGated);
        assert!(g.not_gated.unwrap().contains("in flight"));
        let mut lone = night(26, 1000.0, "3f9c2e1a7b44", false);
        lone.mode = crate::figures::Measured::missing("run.json has no `mode`");
        all.push(lone);
        let g = gate_one(&all, all.len() - 1);
        assert!(g.not_gated.unwrap().contains("no run can be compared"));
    }

    #[test]
    fn exit_status_is_three_when_nothing_was_checked_two_when_a_run_was_unusable_and_one_on_any_regression() {
        assert_eq!(exit_status(0, 0, 0, false), 3);
        assert_eq!(exit_status(4, 0, 0, false), 0);
        assert_eq!(exit_status(4, 1, 1, true), 1);
        assert_eq!(exit_status(4, 0, 1, true), 2);
        assert_eq!(exit_status(0, 0, 0, true), 0);
    }

    #[test]
    fn a_newer_run_in_flight_or_undated_cannot_hide_the_nights_regression() {
        let mut all = root();
        let mut flight = night(24, 1000.0, "3f9c2e1a7b44", false);
        flight.stamp = "20261225b".into();
        flight.dir = "20261225b".into();
        flight.started = crate::figures::Value(flight.started_us().unwrap_or(0) + 3 * 3_600_000_000);
        flight.left_out = Some("in flight: its figures are not final".into());
        all.push(flight);
        let night = gate_night(&all, DEFAULT_WINDOW_S, NOW, &GateOptions::default());
        let stamps: Vec<&str> = night.runs.iter().map(|r| r.stamp.as_str()).collect();
        assert_eq!(stamps, ["20261225", "mi350", "20261225b"]);
        assert_eq!(night.exit_status(false), EXIT_REGRESSED);
        // Tonight's run whose run.json lost started_at: in the night, not
        // gated, and the lane is not green (the older dated run cannot stand in).
        let mut all = history(24, 99, 1.0);
        let mut undated = night_undated();
        undated.stamp = "20261299".into();
        undated.dir = "20261299".into();
        all.push(undated);
        let night = gate_night(&all, DEFAULT_WINDOW_S, NOW, &GateOptions::default());
        let last = night
            .runs
            .iter()
            .find(|r| r.stamp == "20261299")
            .expect("tonight's undated run is in the night");
        assert!(last.not_gated.as_deref().unwrap().contains("no started_at"));
        assert_eq!(night.exit_status(false), EXIT_UNUSABLE);
    }

    fn night_undated() -> Figures {
        let mut f = night(30, 1000.0, "3f9c2e1a7b44", false);
        f.started = crate::figures::Measured::missing("run.json has no `started_at`");
        f
    }

    #[test]
    fn a_run_dated_in_the_future_is_named_and_pushes_no_key_out_of_the_night() {
        let mut all = root();
        let mut skewed = night(5 * 365, 900.0, "3f9c2e1a7b44", false);
        skewed.stamp = "skewed".into();
        skewed.dir = "skewed".into();
        skewed.arch = crate::figures::Value("gfx950".into());
        all.push(skewed);
        let now = 26 * 24 * 3_600_000_000;
        let night = gate_night(&all, DEFAULT_WINDOW_S, now, &GateOptions::default());
        assert_eq!(night.dated_in_future, ["skewed"]);
        assert_eq!(
            night.exit_status(false),
            EXIT_REGRESSED,
            "the gfx1201 regression is still gated"
        );
        // Without the regression the night is not green: a run it could not place is 2.
        let mut quiet = history(24, 99, 1.0);
        let mut skewed = crate::history::regressions::tests::night(5 * 365, 1000.0, "3f9c2e1a7b44", false);
        skewed.stamp = "skewed".into();
        skewed.dir = "skewed".into();
        quiet.push(skewed);
        let n = gate_night(&quiet, DEFAULT_WINDOW_S, now, &GateOptions::default());
        assert_eq!(n.exit_status(false), EXIT_UNUSABLE);
        assert_eq!(n.unjudged().len(), 1);
        assert_eq!(n.unjudged()[0].dir, "skewed");
    }

    #[test]
    fn a_target_the_runs_before_measured_and_this_run_did_not_is_unusable_not_green() {
        let mut all = history(24, 99, 1.0);
        let t = all[23].targets.get_mut("pytorch").unwrap();
        t.total = crate::figures::Measured::missing("no trace-pytorch.json in this run");
        t.build = crate::figures::Measured::missing("no trace-pytorch.json in this run");
        let g = gate_one(&all, 23);
        let said: Vec<String> = g.unmeasured.iter().map(ToString::to_string).collect();
        assert_eq!(said, ["pytorch (no trace-pytorch.json in this run)"]);
        assert!(
            g.verdict_line().contains("not measured in this run: pytorch"),
            "{}",
            g.verdict_line()
        );
        assert_eq!(
            gate_night(&all, DEFAULT_WINDOW_S, NOW, &GateOptions::default()).exit_status(false),
            EXIT_UNUSABLE
        );
    }
}
