//! Changes of level across a key's whole history (`analysis::levels`,
//! every metric of every target judged night by night, all of them as one
//! night's checks), and the regressions among them: each change to the worse
//! is a thing with an identity, its cause told from one pair of nights (the
//! last before it and the first after it, every step of both), and a state
//! on any night: open from the night it was called, recovered when the level
//! returns, accepted when someone said so (`Accepted`).

use super::Key;
use crate::analysis::levels::{self, Judged, LevelChange, Levels, Scale, SeriesNight};
use crate::analysis::step_diff::{self, StepChange};
use crate::figures::{Figures, Metric};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One key's runs (not left out, oldest first) with every series judged.
pub(crate) struct KeyJudged<'a> {
    pub(crate) key: Key,
    pub(crate) runs: Vec<&'a Figures>,
    pub(crate) series: BTreeMap<(String, Metric), JudgedSeries>,
}

/// One metric of one target: the runs it was measured in, judged.
pub(crate) struct JudgedSeries {
    /// Each night's run, as an index into the key's `runs`.
    pub(crate) runs: Vec<usize>,
    pub(crate) levels: Levels,
}

impl JudgedSeries {
    /// The night of run `run`, if the series has one.
    pub(crate) fn night_of(&self, run: usize) -> Option<usize> {
        self.runs.binary_search(&run).ok()
    }
}

/// A series' scale and its nights, each with its index into the key's runs.
type SeriesNights = (Scale, Vec<(usize, SeriesNight)>);

/// Judges every series of a key's `runs` (oldest first, none left out).
pub(crate) fn judge_key<'a>(key: Key, runs: Vec<&'a Figures>) -> KeyJudged<'a> {
    let mut points: BTreeMap<(String, Metric), SeriesNights> = BTreeMap::new();
    for (i, r) in runs.iter().enumerate() {
        for (name, t) in &r.targets {
            for m in Metric::TARGET {
                let Some(value) = t.metric(m).get() else { continue };
                let scale = if m.is_time() { Scale::Time } else { Scale::Count };
                let night = SeriesNight {
                    value,
                    loaded: t.loaded() == Some(true),
                };
                points
                    .entry((name.clone(), m))
                    .or_insert((scale, vec![]))
                    .1
                    .push((i, night));
            }
        }
    }
    let (keys, series): (Vec<(String, Metric)>, Vec<SeriesNights>) = points.into_iter().unzip();
    let judged = levels::judge_together(&series);
    let series = keys
        .into_iter()
        .zip(series)
        .zip(judged)
        .map(|((k, (_, p)), levels)| {
            let runs = p.iter().map(|x| x.0).collect();
            (k, JudgedSeries { runs, levels })
        })
        .collect();
    KeyJudged { key, runs, series }
}

/// The key in a regression's id and a JUnit class: `gfx1201.warm.j32`.
pub(crate) fn key_slug(k: &Key) -> String {
    match &k.lone {
        Some(dir) => format!("unknown.{dir}"),
        None => format!(
            "{}.{}.j{}",
            k.arch.as_deref().unwrap_or("?"),
            k.mode.as_deref().unwrap_or("?"),
            k.max_jobs.map(|j| j.to_string()).unwrap_or_else(|| "none".into())
        ),
    }
}

/// What moved between the pair of nights a change rests on, in kinds and words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Cause {
    /// "layer-cache miss", "command changed", "revision change", "a step's
    /// inputs changed", "a step took longer", "a step took less", "upload",
    /// "setup", "export", "moved node": what the pair shows, most telling first.
    pub(crate) kinds: Vec<&'static str>,
    /// The pair's steps that moved most (at most `CAUSE_STEPS`), largest first.
    pub(crate) steps: Vec<StepChange>,
    /// Each night's revision, when the pair built different ones; `null` when
    /// the pair shares one (or neither recorded it).
    pub(crate) revision_before: Option<String>,
    pub(crate) revision_after: Option<String>,
    /// The same in a sentence (markdown).
    pub(crate) why: String,
}

/// How many steps a cause carries.
pub(crate) const CAUSE_STEPS: usize = 5;

/// Why `target`'s `metric` moved from run `a` to run `b`, from every step of both.
pub(crate) fn cause(target: &str, metric: Metric, a: &Figures, b: &Figures) -> Cause {
    let (ta, tb) = (a.targets.get(target), b.targets.get(target));
    let steps = match (ta, tb) {
        (Some(ta), Some(tb)) => step_diff::diff(&ta.steps, &tb.steps),
        _ => vec![],
    };
    let (ra, rb) = (a.revision.value().cloned(), b.revision.value().cloned());
    let revision_moved = ra != rb && (ra.is_some() || rb.is_some());
    let moved = ta.zip(tb).and_then(|(x, y)| match (x.node.value(), y.node.value()) {
        (Some(p), Some(q)) if p != q => Some(format!("moved from {p} to {q}: it could not use {p}'s local cache")),
        _ => None,
    });
    let beside = ta
        .zip(tb)
        .map(|(x, y)| super::why::Beside::all(x, y))
        .unwrap_or_default();
    let mut kinds = vec![];
    let resolution = levels::TIME_RESOLUTION_S;
    let named: Vec<&StepChange> = steps.iter().filter(|s| s.delta_s.abs() > resolution).collect();
    if named.iter().any(|s| s.layer_cache_miss)
        || (metric == Metric::StepsCached && steps.iter().any(|s| s.layer_cache_miss))
    {
        kinds.push("layer-cache miss");
    }
    if named.iter().any(|s| s.command_was.is_some()) {
        kinds.push("command changed");
    }
    if revision_moved {
        kinds.push("revision change");
    }
    if named
        .iter()
        .any(|s| s.vertex_changed == Some(true) && s.command_was.is_none())
    {
        kinds.push("a step's inputs changed");
    }
    let plain = |s: &&&StepChange| s.cause().is_none();
    if named.iter().filter(plain).any(|s| s.delta_s > 0.0) {
        kinds.push("a step took longer");
    }
    if named.iter().filter(plain).any(|s| s.delta_s < 0.0) {
        kinds.push("a step took less");
    }
    for b in &beside {
        if let (Some(x), Some(y)) = (b.a, b.b) {
            if (y - x).abs() > resolution && b.what.is_phase() {
                kinds.push(b.what.label());
            }
        }
    }
    if moved.is_some() {
        kinds.push("moved node");
    }
    let delta = ta
        .zip(tb)
        .and_then(|(x, y)| Some(y.metric(metric).get()? - x.metric(metric).get()?));
    let why = super::why::sentence(&super::why::Why {
        target,
        metric,
        delta,
        steps: &steps,
        beside: &beside,
        moved: moved.as_deref(),
        revision_a: ra.as_deref(),
        revision_b: rb.as_deref(),
    });
    let mut top = steps;
    top.truncate(CAUSE_STEPS);
    Cause {
        kinds,
        steps: top,
        revision_before: if revision_moved { ra } else { None },
        revision_after: if revision_moved { rb } else { None },
        why,
    }
}

/// A change of level of one target's metric, found in its key's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Shift {
    /// `gfx1201.warm.j32/pytorch/build_s/20261201T020000Z`: key, target,
    /// metric and the first night at the new level.
    pub(crate) id: String,
    pub(crate) target: String,
    pub(crate) metric: Metric,
    /// A change to the worse: higher for a time, fewer for steps cached.
    pub(crate) worse: bool,
    /// The last night before it and the first at the new level (stamps),
    /// the pair its cause rests on, and the night that called it.
    pub(crate) last_before: String,
    pub(crate) first: String,
    pub(crate) called: String,
    /// Their folders, as `last_before`, `first`, `called`.
    pub(crate) last_before_dir: String,
    pub(crate) first_dir: String,
    pub(crate) called_dir: String,
    /// The levels either side (medians), and the change.
    pub(crate) before: f64,
    pub(crate) after: f64,
    pub(crate) change_pct: f64,
    pub(crate) delta: f64,
    /// The noise it stood against (percent of the level), and the change in
    /// units of it; a count has neither.
    pub(crate) noise_pct: Option<f64>,
    pub(crate) sigmas: Option<f64>,
    pub(crate) cause: Cause,
    /// Index into the key's runs of `last_before`, `first`, `called`.
    #[serde(skip)]
    pub(crate) at: (usize, usize, usize),
}

impl KeyJudged<'_> {
    /// Every change of level of every series, oldest first (by the night it
    /// was called, then target and metric).
    pub(crate) fn shifts(&self) -> Vec<Shift> {
        let mut out = vec![];
        for ((target, metric), s) in &self.series {
            for c in &s.levels.changes {
                out.push(self.shift(target, *metric, s, c));
            }
        }
        out.sort_by(|a, b| (a.at.2, &a.target, a.metric).cmp(&(b.at.2, &b.target, b.metric)));
        out
    }

    fn shift(&self, target: &str, metric: Metric, s: &JudgedSeries, c: &LevelChange) -> Shift {
        let at = (s.runs[c.last_before], s.runs[c.first], s.runs[c.called]);
        let (rb, rf, rc) = (self.runs[at.0], self.runs[at.1], self.runs[at.2]);
        let worse = c.up() == metric.lower_is_better();
        let time = metric.is_time();
        Shift {
            id: format!("{}/{target}/{metric}/{}", key_slug(&self.key), rf.stamp),
            target: target.to_string(),
            metric,
            worse,
            last_before: rb.stamp.clone(),
            first: rf.stamp.clone(),
            called: rc.stamp.clone(),
            last_before_dir: rb.dir.clone(),
            first_dir: rf.dir.clone(),
            called_dir: rc.dir.clone(),
            before: crate::figures::ms(c.before),
            after: crate::figures::ms(c.after),
            change_pct: (c.change_pct * 10.0).round() / 10.0,
            delta: crate::figures::ms(c.delta),
            noise_pct: time.then(|| (c.noise_pct * 100.0).round() / 100.0),
            sigmas: c.sigmas.map(|x| (x * 10.0).round() / 10.0),
            cause: cause(target, metric, rb, rf),
            at,
        }
    }

    /// The regressions as of run `at` (an index into `runs`): every change to
    /// the worse called on or before it, each in its state that night.
    pub(crate) fn regressions(&self, at: usize, accepted: &Accepted) -> Vec<Regression> {
        let shifts = self.shifts();
        shifts
            .iter()
            .filter(|s| s.worse && s.at.2 <= at)
            .map(|s| {
                // A later change of the same series, called by `at`, that
                // brings the level back nearer the old than the new.
                let back = shifts.iter().find(|t| {
                    t.target == s.target
                        && t.metric == s.metric
                        && t.at.2 > s.at.2
                        && t.at.2 <= at
                        && (t.after - s.before).abs() < (t.after - s.after).abs()
                });
                let nights = self.runs[s.at.1..=at].len();
                let state = match (back, accepted.note(&s.id)) {
                    (Some(t), _) => RegressionState::Recovered { on: t.first.clone() },
                    (None, Some(note)) => RegressionState::Accepted { note: note.to_string() },
                    (None, None) => RegressionState::Open,
                };
                Regression {
                    shift: s.clone(),
                    state,
                    nights,
                }
            })
            .collect()
    }

    /// What the series said of run `at` on its own night.
    pub(crate) fn said(&self, target: &str, metric: Metric, at: usize) -> Option<(Judged, &levels::Deviation)> {
        let s = self.series.get(&(target.to_string(), metric))?;
        let n = s.night_of(at)?;
        Some((s.levels.then[n], s.levels.against[n].as_ref()?))
    }
}

/// A regression's state on a night.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum RegressionState {
    /// Called and still at its level.
    Open,
    /// The level returned (the first night back).
    Recovered { on: String },
    /// Someone accepted the new level, and why.
    Accepted { note: String },
}

/// A change to the worse, in its state on a night.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Regression {
    #[serde(flatten)]
    pub(crate) shift: Shift,
    #[serde(flatten)]
    pub(crate) state: RegressionState,
    /// Nights of the key from its first night to the night it is judged on.
    pub(crate) nights: usize,
}

impl Shift {
    /// The change in words: "a change of level from 20261201: 16m40s → 20m20s,
    /// 41× its noise of 0.5% (last before it: 20261130)".
    pub(crate) fn describe(&self) -> String {
        let name = self.metric.name();
        let noise = match (self.sigmas, self.noise_pct) {
            (Some(k), Some(p)) => format!(
                ", {}× its noise of {}%",
                crate::fmt::fixed(k, 1),
                crate::fmt::fixed(p, 2)
            ),
            _ => String::new(),
        };
        format!(
            "a change of level from {}: {} → {}{noise} (last before it: {})",
            self.first,
            crate::fmt::metric(name, self.before),
            crate::fmt::metric(name, self.after),
            self.last_before
        )
    }
}

impl Regression {
    /// In words: "pytorch build_s +22.0% (16m40s → 20m20s) since 20261201, night 3, open";
    /// a count without a percent: "pytorch steps_cached (2 → 1) since ...".
    pub(crate) fn line(&self) -> String {
        let s = &self.shift;
        let sizes = format!(
            "{} → {}",
            crate::fmt::metric(s.metric.name(), s.before),
            crate::fmt::metric(s.metric.name(), s.after)
        );
        let state = match &self.state {
            RegressionState::Open => "open".to_string(),
            RegressionState::Recovered { on } => format!("recovered on {on}"),
            RegressionState::Accepted { note } => format!("accepted: {note}"),
        };
        // A count moves by steps, said as they are; a time by its share.
        let change = if s.metric.is_time() {
            format!("{} ", crate::fmt::change(s.change_pct, 1))
        } else {
            String::new()
        };
        format!(
            "{} {} {change}({sizes}) since {}, night {}, {state}",
            s.target, s.metric, s.first, self.nights
        )
    }
}

/// The reviewed file of accepted regressions (`perf-accepted.toml`):
///
/// ```toml
/// [[accepted]]
/// id = "gfx1201.warm.j32/pytorch/build_s/20261201T020000Z"
/// note = "the new ROCm kernels build longer; accepted by the fleet's owner"
/// ```
///
/// An id may end in `/*` in place of the metric and night
/// (`gfx1201.warm.j32/pytorch/*`): every regression of that target.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    #[serde(default)]
    accepted: Vec<AcceptedEntry>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptedEntry {
    id: String,
    note: String,
}

impl Accepted {
    /// Reads an accepted file's text; the error names the line.
    pub(crate) fn parse(text: &str) -> Result<Accepted, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// The note of the entry accepting regression `id`, if one does.
    pub(crate) fn note(&self, id: &str) -> Option<&str> {
        self.accepted
            .iter()
            .find(|e| match e.id.strip_suffix("/*") {
                Some(prefix) => id.starts_with(&format!("{prefix}/")),
                None => e.id == id,
            })
            .map(|e| e.note.as_str())
    }
}

/// Every key of `all` judged: the runs not left out, grouped by key.
pub(crate) fn judge_all(all: &[Figures]) -> Vec<KeyJudged<'_>> {
    let mut by_key: BTreeMap<Key, Vec<&Figures>> = BTreeMap::new();
    for r in all.iter().filter(|r| r.left_out.is_none()) {
        by_key.entry(r.key()).or_default().push(r);
    }
    by_key
        .into_iter()
        .map(|(k, mut runs)| {
            runs.sort_by(|a, b| a.order().cmp(&b.order()));
            judge_key(k, runs)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
