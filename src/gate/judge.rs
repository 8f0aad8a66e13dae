//! A run gated on its key's history as that history judged it
//! (`history::regressions`): every metric of every target against its level,
//! red only for a change to the worse called on this very run. A change
//! called on an earlier night is open since it, not new; one accepted says
//! so; a night beyond its level once is watched, not red; a night whose node
//! was loaded is said to be loaded, not red.

use super::night::{GatedRun, Verdict};
use super::Check;
use crate::analysis::levels::{self, Judged};
use crate::figures::{Figures, Load, Metric};
use crate::history::regressions::{Accepted, KeyJudged, Regression, RegressionState};

/// What a lane gates with beyond the runs: the accepted file, whether an
/// open regression keeps it red, and the regressions other lanes called.
#[derive(Debug, Clone, Default)]
pub struct GateOptions {
    pub accepted: Accepted,
    /// `--fail-on-open`: an open regression nobody accepted fails the lane
    /// every night, not only the night it was called.
    pub fail_on_open: bool,
    /// Regressions another lane already called (their ids, with the lane):
    /// open here, not new (`gate::ledger`).
    pub called_elsewhere: std::collections::BTreeMap<String, String>,
}

/// The accepted file a root keeps beside its runs, unless a flag names another.
pub const ACCEPTED_FILE: &str = "perf-accepted.toml";

/// The most bytes an accepted file may be (a reviewed list of a few hundred entries).
const ACCEPTED_MAX: u64 = 1 << 20;

impl GateOptions {
    /// The options with the accepted regressions of `file`: none when it is
    /// absent; an error naming the file when it is not a regular file of at
    /// most 1 MiB, or not an accepted file.
    pub fn with_accepted(file: &std::path::Path) -> Result<GateOptions, String> {
        let shown = file.display();
        let meta = match std::fs::symlink_metadata(file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(GateOptions::default()),
            Err(e) => return Err(format!("{shown}: {e}")),
            Ok(m) => m,
        };
        if !meta.is_file() {
            return Err(format!(
                "{shown}: not a regular file (a link, a FIFO or a folder is not read)"
            ));
        }
        let bytes = match crate::model::read_at_most(file, ACCEPTED_MAX) {
            Ok(Ok(b)) => b,
            Ok(Err(size)) => {
                return Err(format!(
                    "{shown}: {size} bytes, more than an accepted file may be (1 MiB)"
                ))
            }
            Err(e) => return Err(format!("{shown}: {e}")),
        };
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        let accepted = Accepted::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
        Ok(GateOptions {
            accepted,
            ..Default::default()
        })
    }
}

/// Gates run `at` (an index into `k.runs`) of a judged key.
pub(crate) fn gate_judged(k: &KeyJudged, at: usize, opts: &GateOptions) -> GatedRun {
    let run = k.runs[at];
    let mut g = GatedRun::of(run);
    g.comparable_runs = at;
    let regressions = k.regressions(at, &opts.accepted);
    g.against = format!(
        "history: each metric's level and noise over the {} before it, judged night by night as the lane would have",
        crate::fmt::counted(at as u64, "comparable run", "comparable runs")
    );
    for (name, t) in &run.targets {
        for m in Metric::TARGET {
            g.checks
                .push(check(k, at, name, m, t.metric(m).get(), &regressions, opts));
        }
    }
    for c in &mut g.checks {
        if c.is_regression() {
            g.called.extend(c.regression.clone());
        }
    }
    g.open = regressions
        .iter()
        .filter(|r| r.state == RegressionState::Open && r.shift.at.2 < at)
        .cloned()
        .collect();
    g.checked = g.checks.iter().filter(|c| c.checked()).count();
    g.regressions = g.checks.iter().filter(|c| c.is_regression()).count();
    if opts.fail_on_open {
        g.regressions += g
            .open
            .iter()
            .filter(|r| !opts.called_elsewhere.contains_key(&r.shift.id))
            .count();
    }
    g.unmeasured = super::night::unmeasured(&k.runs[..at], run);
    g.unusable = !g.unmeasured.is_empty();
    (g.verdict, g.not_gated) = if g.regressions > 0 {
        (Verdict::Regressed, None)
    } else if g.checked > 0 {
        (Verdict::Passed, None)
    } else {
        (Verdict::NotGated, Some(no_level_why(at)))
    };
    g
}

/// Why a run with history had nothing judged: too few nights before it.
fn no_level_why(at: usize) -> String {
    format!(
        "{} before it: a level and its noise need {} nights or so (the noise rests on {} night-to-night differences)",
        crate::fmt::counted(at as u64, "comparable run", "comparable runs"),
        levels::MIN_DIFFS + 1,
        levels::MIN_DIFFS
    )
}

/// One target's metric on run `at`, as its series judged it that night.
fn check(
    k: &KeyJudged,
    at: usize,
    target: &str,
    metric: Metric,
    measured: Option<f64>,
    regressions: &[Regression],
    opts: &GateOptions,
) -> Check {
    let run = k.runs[at];
    let mut c = Check {
        target: target.to_string(),
        metric,
        measured,
        expected: None,
        drift_pct: None,
        band_pct: None,
        band_from: String::new(),
        verdict: String::new(),
        rests_on_loaded: None,
        why: None,
        regression: None,
    };
    let Some(x) = measured else {
        let why = run
            .targets
            .get(target)
            .and_then(|t| t.metric(metric).why().map(str::to_string))
            .unwrap_or_else(|| "not measured".into());
        c.verdict = format!("ungateable: {why}");
        return c;
    };
    let mine = |r: &&Regression| r.shift.target == target && r.shift.metric == metric;
    let earlier = regressions
        .iter()
        .filter(mine)
        .rfind(|r| r.shift.at.2 < at && !matches!(r.state, RegressionState::Recovered { .. }));
    let Some((said, dev)) = k.said(target, metric, at) else {
        c.verdict = match earlier {
            Some(r) => {
                c.regression = Some(r.clone());
                format!(
                    "open since {} (night {}; too few nights at the new level to judge this one)",
                    r.shift.first, r.nights
                )
            }
            None => format!("not gateable: {}", no_level_why(at)),
        };
        return c;
    };
    if dev.spread_pct > levels::WIDE_PCT {
        c.verdict = format!(
            "not gateable: spread {}% over {} (over {}%: too wide to resolve a change)",
            crate::fmt::fixed(dev.spread_pct, 1),
            crate::fmt::counted(dev.n as u64, "run", "runs"),
            levels::WIDE_PCT
        );
        return c;
    }
    c.expected = Some(crate::figures::ms(dev.level));
    c.drift_pct = Some((dev.change_pct * 10.0).round() / 10.0).filter(|d| d.is_finite());
    // A count has no band: one cached step fewer is the change itself.
    c.band_pct = metric.is_time().then(|| (dev.band_pct * 10.0).round() / 10.0);
    c.band_from = if metric.is_time() {
        format!(
            "its level since its last change, its nights beyond {} ({}x its noise) watched",
            fmt_pct(dev.band_pct),
            levels::EACH_BEYOND
        )
    } else {
        "its count since its last change".into()
    };
    let worse_side = (x > dev.level) == metric.lower_is_better();
    let tonight = regressions.iter().filter(mine).find(|r| r.shift.at.2 == at);
    let on = On { k, at, target, metric };
    c.verdict = verdict(&mut c, &on, (said, dev), tonight, earlier, worse_side, opts);
    c
}

/// The night and the series a check is on.
struct On<'k, 'a> {
    k: &'k KeyJudged<'a>,
    at: usize,
    target: &'k str,
    metric: Metric,
}

/// A judged check's verdict: called tonight, loaded, watched, open or
/// accepted since an earlier night, improved, or at its level.
fn verdict(
    c: &mut Check,
    on: &On,
    (said, dev): (Judged, &levels::Deviation),
    tonight: Option<&Regression>,
    earlier: Option<&Regression>,
    worse_side: bool,
    opts: &GateOptions,
) -> String {
    let (k, at, target, metric) = (on.k, on.at, on.target, on.metric);
    let run = k.runs[at];
    match (said, tonight, earlier) {
        (_, Some(r), _) => {
            c.band_from = r.shift.describe();
            c.why = Some(r.check_why());
            c.regression = Some(r.clone());
            match (&r.state, opts.called_elsewhere.get(&r.shift.id)) {
                (RegressionState::Accepted { note }, _) => format!("accepted: {note}"),
                (_, Some(lane)) => format!("open since {} (called by lane {lane})", r.shift.first),
                _ => "REGRESSION".into(),
            }
        }
        (Judged::Loaded, ..) => {
            c.rests_on_loaded = run.targets.get(target).and_then(|t| match t.load.value() {
                Some(Load::Loaded(why)) => Some(why.clone()),
                _ => None,
            });
            format!(
                "loaded: {}",
                c.rests_on_loaded
                    .as_deref()
                    .unwrap_or("its node ended the run loaded beyond its cores")
            )
        }
        (Judged::Watched, ..) if worse_side && dev.decisive => {
            c.why = night_before(k, target, metric, at).map(|before| {
                let cause = crate::history::regressions::cause(target, metric, before, run);
                crate::history::why::CheckWhy {
                    against: before.stamp.clone(),
                    text: format!("against {}: {}", crate::escape::md_text(&before.stamp), cause.why),
                    steps: cause.steps,
                    revision_before: cause.revision_before,
                    revision_after: cause.revision_after,
                }
            });
            "watch: one night beyond its level; the next night confirms a change or leaves it an outlier".into()
        }
        (_, None, Some(r)) => {
            c.regression = Some(r.clone());
            match &r.state {
                RegressionState::Accepted { note } => format!("accepted since {}: {note}", r.shift.first),
                _ => format!("open since {} (night {} at its new level)", r.shift.first, r.nights),
            }
        }
        (Judged::Changed | Judged::Confirmed, ..) if !worse_side => "improved".into(),
        _ => "ok".into(),
    }
}

/// The series' night before run `at` (the pair a watched night is told from).
fn night_before<'a>(k: &KeyJudged<'a>, target: &str, metric: Metric, at: usize) -> Option<&'a Figures> {
    let s = k.series.get(&(target.to_string(), metric))?;
    let n = s.night_of(at)?;
    Some(k.runs[*s.runs.get(n.checked_sub(1)?)?])
}

fn fmt_pct(p: f64) -> String {
    format!("±{}%", crate::fmt::fixed(p, 1))
}

impl Regression {
    /// The steps and revisions behind it, as a gate check carries them.
    pub(crate) fn check_why(&self) -> crate::history::why::CheckWhy {
        let c = &self.shift.cause;
        crate::history::why::CheckWhy {
            against: self.shift.last_before.clone(),
            steps: c.steps.clone(),
            revision_before: c.revision_before.clone(),
            revision_after: c.revision_after.clone(),
            text: format!("against {}: {}", crate::escape::md_text(&self.shift.last_before), c.why),
        }
    }
}

/// A run the key's history could not judge (left out, undated, of no key, first of its key).
pub(crate) fn not_judged(run: &Figures, why: String, unusable: bool) -> GatedRun {
    let mut g = GatedRun::of(run);
    g.not_gated = Some(why);
    g.unusable = unusable;
    g
}
