//! The history view model: what `history.json` serialises (its field names
//! are the spec's contract, "Across runs: history") and every history
//! output renders.

use super::regressions::{judge_key, Accepted, KeyJudged, Regression, Shift};
use super::{key_label, Figures, Key};
use crate::analysis::levels::MIN_SEGMENT;
use crate::analysis::spread;
use crate::figures::Tool;
use crate::figures::{Measured, Metric, Value};
use crate::measured::explained::explained;
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) const FILE: &str = "history.json";

/// How the spread is estimated, said in every output.
pub(crate) const ESTIMATOR: &str = "spread_pct: the median absolute deviation × 1.4826 (σ for normal noise, barely moved by an outlier), in percent of the median; null below 3 points";
/// What `loaded` means.
pub(crate) const LOADED_RULE: &str =
    "loaded: the target's node ended the run (its last poll) at a 1-minute load above its cores";

#[derive(Debug, Clone, Serialize)]
pub struct HistoryView {
    pub(crate) schema: u32,
    pub(crate) root: String,
    pub(crate) estimator: &'static str,
    pub(crate) loaded_rule: &'static str,
    pub(crate) keys: Vec<KeyView>,
    /// Runs left out (in flight, broken, unreadable), with the reason.
    pub(crate) left_out: Vec<LeftOutRun>,
    pub(crate) tool: Tool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LeftOutRun {
    pub(crate) run: String,
    pub(crate) reason: String,
}

explained! {
    /// One key's runs (one mode, arch and job width): each target's metrics,
    /// its loaded nights, its steps and its regressions.
    #[derive(Debug, Clone)]
    pub(crate) struct KeyView {
        [measured] pub(crate) mode: Measured<String>,
        [measured] pub(crate) arch: Measured<String>,
        [measured] pub(crate) max_jobs: Measured<u32>,
        /// The key in words; an unknown key names its run and what run.json lacks.
        [plain] pub(crate) label: String,
        [plain] pub(crate) unknown: bool,
        /// Stamps, oldest first.
        [plain] pub(crate) runs: Vec<String>,
        /// Each run's folder (under the root, or under a site's `runs/`), as `runs`.
        [plain] pub(crate) run_dirs: Vec<String>,
        /// Each run's day (`2026-10-01`, run.json `started_at`), as `runs`;
        /// `null` where the run does not say when it started.
        [plain] pub(crate) run_days: Vec<Option<String>>,
        /// Said instead of a trend, e.g. for a key of one run.
        [plain] pub(crate) note: Option<String>,
        /// Its chart under `charts/`, or why it has none.
        [measured] pub(crate) chart: Measured<String>,
        [plain] pub(crate) targets: BTreeMap<String, BTreeMap<Metric, MetricView>>,
        /// Per run stamp and target: the points whose node ended the run loaded, and how.
        [plain] pub(crate) loaded: BTreeMap<String, BTreeMap<String, String>>,
        /// Per run stamp and target: why the load of a point's node is not known.
        [plain] pub(crate) load_unknown: BTreeMap<String, BTreeMap<String, String>>,
        /// Per target, its most expensive steps (by total time over the key's
        /// runs, at most `STEP_LINES`) and their seconds in each run.
        [plain] pub(crate) step_durations: BTreeMap<String, Vec<StepLine>>,
        /// Why a field above is `null`.
        [why_null] pub(crate) why_null: crate::measured::explained::Reasons,
        /// Every change to the worse over the key's history, each with its id,
        /// the pair of nights it rests on, its cause and its state as of the
        /// newest run (`open`, `recovered`, `accepted`).
        [plain] pub(crate) regressions: Vec<Regression>,
        /// The gate's verdict on the key's newest run against the runs before it
        /// regressed (what history.md and history.html lead with).
        [plain] pub(crate) newest_regressed: bool,
        /// That verdict in words ("regressed: pytorch build_s +13.5%", "not gated: ..."),
        /// when the caller gated it.
        [plain] pub(crate) newest_verdict_words: Option<String>,
    }
}

/// How many of a target's steps history follows across runs.
pub(crate) const STEP_LINES: usize = 5;

/// One step's seconds across a key's runs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepLine {
    /// Its name in the newest run that has it.
    pub(crate) step: String,
    /// Its seconds summed over the runs that kept it.
    pub(crate) total_s: f64,
    pub(crate) points: Vec<StepPoint>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepPoint {
    pub(crate) stamp: String,
    /// Index into the key's `runs`.
    pub(crate) run: usize,
    pub(crate) value: f64,
    /// `false`: it came from the layer cache that run.
    pub(crate) ran: bool,
}

/// A target's most expensive steps across `runs`, matched by name without
/// numbering (`steps::match_key`: a step keeps its line when its vertex changes).
/// Only the slowest steps of each run are kept (`history::STEPS_KEPT`), so a
/// line lacks the runs where its step was not among them.
fn step_lines(runs: &[&Figures], target: &str) -> Vec<StepLine> {
    /// A line as it is gathered: its points as (run, step), copied out only
    /// for the lines kept.
    struct Gathered<'a> {
        total_s: f64,
        points: Vec<(usize, &'a crate::analysis::step_diff::StepRecord)>,
    }
    let mut lines: BTreeMap<String, Gathered> = BTreeMap::new();
    for (i, r) in runs.iter().enumerate() {
        let Some(t) = r.targets.get(target) else { continue };
        for s in &t.steps {
            let key = crate::analysis::steps::match_key(&s.name).unwrap_or_else(|| s.name.clone());
            let line = lines.entry(key).or_insert_with(|| Gathered {
                total_s: 0.0,
                points: vec![],
            });
            line.total_s += s.s();
            line.points.push((i, s));
        }
    }
    /// Its name in the newest run that has it.
    fn name<'a>(l: &Gathered<'a>) -> &'a str {
        l.points.last().map_or("", |(_, s)| s.name.as_str())
    }
    let mut v: Vec<Gathered> = lines.into_values().collect();
    v.sort_by(|a, b| b.total_s.total_cmp(&a.total_s).then_with(|| name(a).cmp(name(b))));
    v.truncate(STEP_LINES);
    v.iter()
        .map(|l| StepLine {
            step: name(l).to_string(),
            total_s: r1(l.total_s),
            points: l
                .points
                .iter()
                .map(|(i, s)| StepPoint {
                    stamp: runs[*i].stamp.clone(),
                    run: *i,
                    value: crate::figures::secs_ms(s.us),
                    ran: s.ran,
                })
                .collect(),
        })
        .collect()
}

explained! {
    /// One metric of one target over a key's runs: each figure its value or
    /// why it has none, the reasons gathered under `why_null` as it is written.
    #[derive(Debug, Clone)]
    pub(crate) struct MetricView {
        [plain] pub(crate) n: usize,
        [measured] pub(crate) median: Measured<f64>,
        [measured] pub(crate) spread_pct: Measured<f64>,
        [measured] pub(crate) newest: Measured<f64>,
        /// The newest point against the median of all points, a change of level
        /// or not (kept for readers of this field; `newest_vs_level_pct` is the
        /// figure the gate judges).
        [measured] pub(crate) newest_vs_median_pct: Measured<f64>,
        /// The level the newest point is judged against (the median of the
        /// newest nights since the series' last change of level), and the noise
        /// of its night-to-night differences in percent of it.
        [measured] pub(crate) level: Measured<f64>,
        [measured] pub(crate) noise_pct: Measured<f64>,
        /// The newest point against that level.
        [measured] pub(crate) newest_vs_level_pct: Measured<f64>,
        /// The newest change of level (as `change_point`).
        [measured] pub(crate) step: Measured<LevelStepView>,
        /// The newest change of level, with the steps that moved between the
        /// runs either side of it.
        [measured] pub(crate) change_point: Measured<ChangePoint>,
        /// Every change of level over the whole history, oldest first.
        [plain] pub(crate) change_points: Vec<ChangePoint>,
        /// Points whose node ended the run loaded; `null` when no point's load
        /// is known (the key's `load_unknown` says why).
        [measured] pub(crate) loaded: Measured<usize>,
        [plain] pub(crate) points: Vec<PointView>,
        [why_null] pub(crate) why_null: crate::measured::explained::Reasons,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PointView {
    pub(crate) stamp: String,
    pub(crate) value: f64,
    /// `null`: not known (the key's `load_unknown` says why).
    pub(crate) loaded: Option<bool>,
    /// Index into the key's `runs`.
    pub(crate) run: usize,
    /// The level of its stretch between changes of level (their median):
    /// what the charts draw as the level line, stepping at each change.
    pub(crate) level: f64,
}

/// A change of level: from run `stamp` on, the metric sits at `after`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LevelStepView {
    pub(crate) stamp: String,
    pub(crate) run: usize,
    pub(crate) before: f64,
    pub(crate) after: f64,
    pub(crate) change_pct: f64,
}

/// A change of level (the spec's "Why a figure moved"), found over the whole
/// history, with the steps that moved between the pair of nights it rests on:
/// the last before it and the first at the new level.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChangePoint {
    /// `gfx1201.warm.j32/pytorch/build_s/20261201T020000Z`: the regression's
    /// id when it is a change to the worse (what perf-accepted.toml names).
    pub(crate) id: String,
    /// The first run of the new level.
    pub(crate) stamp: String,
    /// The last run before it, whose steps it is compared with.
    pub(crate) before_stamp: String,
    /// The night the change was called (the first night it was certain).
    pub(crate) called: String,
    pub(crate) before_median: f64,
    pub(crate) after_median: f64,
    pub(crate) delta_pct: f64,
    /// The noise it stood against, percent of the level, and the change in
    /// units of it; `null` for a count.
    pub(crate) noise_pct: Option<f64>,
    pub(crate) sigmas: Option<f64>,
    /// Higher for a time, fewer for steps cached.
    pub(crate) worse: bool,
    /// What the pair shows: "layer-cache miss", "command changed", "revision change", ...
    pub(crate) kinds: Vec<&'static str>,
    /// The two runs' steps matched (every step of both), largest change first,
    /// at most `regressions::CAUSE_STEPS`.
    pub(crate) steps: Vec<crate::analysis::step_diff::StepChange>,
    /// Each side's revision when the pair built different ones, else `null`.
    pub(crate) revision_before: Option<String>,
    pub(crate) revision_after: Option<String>,
    /// The change in a sentence, naming the step behind it (markdown).
    pub(crate) why: String,
}

impl ChangePoint {
    fn of(s: &Shift) -> ChangePoint {
        ChangePoint {
            id: s.id.clone(),
            stamp: s.first.clone(),
            before_stamp: s.last_before.clone(),
            called: s.called.clone(),
            before_median: s.before,
            after_median: s.after,
            delta_pct: s.change_pct,
            noise_pct: s.noise_pct,
            sigmas: s.sigmas,
            worse: s.worse,
            kinds: s.cause.kinds.clone(),
            steps: s.cause.steps.clone(),
            revision_before: s.cause.revision_before.clone(),
            revision_after: s.cause.revision_after.clone(),
            why: s.cause.why.clone(),
        }
    }
}

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn metric_view(runs: &[&Figures], judged: &KeyJudged, shifts: &[&Shift], target: &str, metric: Metric) -> MetricView {
    let mut points = points_of(runs, target, metric);
    let values: Vec<f64> = points.iter().map(|p| p.value).collect();
    let unmeasured = format!("no run of this key measured {target}'s {metric}");
    let median = Measured::from_option(spread::median(&values), || unmeasured.clone());
    let newest = Measured::from_option(values.last().copied(), || unmeasured.clone());
    let spread_pct = match spread::spread_pct(&values) {
        Ok(x) => Value(r1(x)),
        Err(e) => Measured::missing(e),
    };
    let vs = median.clone().and_then(|m| {
        let x = values.last().copied().unwrap_or(m);
        Measured::from_option(spread::change_pct(x, m).map(r1), || "the median is 0".into())
    });
    let held = levels_that_held(&points, shifts);
    let shifts = &held[..];
    level_lines(&mut points, shifts);
    let (level, noise_pct, vs_level) = level_figures(judged, (target, metric), newest.get(), &unmeasured);
    let change_points = change_points_of(&points, shifts);
    let no_change = || {
        format!(
            "no change of level over its {}: a change must stand beyond its noise on both sides (one outlier night is no change of level)",
            crate::fmt::counted(values.len() as u64, "night", "nights")
        )
    };
    let step = shifts.last().zip(change_points.last()).map(|(s, c)| LevelStepView {
        stamp: s.first.clone(),
        run: s.at.1,
        before: c.before_median,
        after: c.after_median,
        change_pct: c.delta_pct,
    });
    let change_point = Measured::from_option(change_points.last().cloned(), no_change);
    let loaded = loaded_of(&points);
    MetricView {
        n: values.len(),
        median,
        spread_pct,
        newest,
        newest_vs_median_pct: vs,
        level,
        noise_pct,
        newest_vs_level_pct: vs_level,
        step: Measured::from_option(step, no_change),
        loaded,
        change_point,
        change_points,
        points,
        why_null: Default::default(),
    }
}

/// The nights of the key that measured `target`'s `metric`, in run order;
/// their levels are drawn later (`level_lines`).
fn points_of(runs: &[&Figures], target: &str, metric: Metric) -> Vec<PointView> {
    runs.iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let t = r.targets.get(target)?;
            Some(PointView {
                stamp: r.stamp.clone(),
                value: t.metric(metric).get()?,
                loaded: t.loaded(),
                run: i,
                level: 0.0,
            })
        })
        .collect()
}

/// How many of the points were loaded, or why that is `null`: no point's load is known.
fn loaded_of(points: &[PointView]) -> Measured<usize> {
    let loaded = points
        .iter()
        .any(|p| p.loaded.is_some())
        .then(|| points.iter().filter(|p| p.loaded == Some(true)).count());
    Measured::from_option(loaded, || {
        "no point's load is known (the key's `load_unknown` says why)".into()
    })
}

/// The level the newest night is judged against, its noise, and the newest
/// night against it, each with why it is `null`; `unmeasured` is why when no
/// run measured the metric at all.
fn level_figures(
    judged: &KeyJudged,
    (target, metric): (&str, Metric),
    newest: Option<f64>,
    unmeasured: &str,
) -> (Measured<f64>, Measured<f64>, Measured<f64>) {
    let levels = judged.series.get(&(target.to_string(), metric)).map(|s| &s.levels);
    let level = levels.and_then(|l| l.level).map(|(x, _)| crate::figures::ms(x));
    let noise_pct = levels
        .and_then(|l| l.noise_pct)
        .filter(|_| metric.is_time())
        .map(|x| (x * 100.0).round() / 100.0);
    let noise_pct = Measured::from_option(noise_pct, || {
        if metric.is_time() {
            format!(
                "fewer than {} night-to-night differences to measure its noise",
                crate::analysis::levels::MIN_DIFFS
            )
        } else {
            "a count has no noise: it is compared as a count".into()
        }
    });
    let (level, vs_level) = match (newest, level) {
        (None, _) => (Measured::missing(unmeasured), Measured::missing(unmeasured)),
        (Some(_), None) => (
            Measured::missing("too few nights since its last change of level"),
            Measured::missing("no level yet"),
        ),
        (Some(x), Some(l)) => (
            Value(l),
            Measured::from_option(spread::change_pct(x, l).map(r1), || "the level is 0".into()),
        ),
    };
    (level, noise_pct, vs_level)
}

/// The series' changes of level as history.json gives them: in hindsight
/// each side's level is its whole stretch's median (the level line), not
/// only the nights known when the change was called.
fn change_points_of(points: &[PointView], shifts: &[&Shift]) -> Vec<ChangePoint> {
    let level_at = |run: usize| points.iter().find(|p| p.run == run).map(|p| p.level);
    shifts
        .iter()
        .map(|s| {
            let mut c = ChangePoint::of(s);
            if let (Some(b), Some(a)) = (level_at(s.at.0), level_at(s.at.1)) {
                c.before_median = b;
                c.after_median = a;
                if let Some(pct) = spread::change_pct(a, b) {
                    c.delta_pct = r1(pct);
                }
            }
            c
        })
        .collect()
}

/// The changes that still stand once every night after them is in: history
/// is told in hindsight, where the gate had to call a change on the nights it
/// had. A change whose stretches' medians now differ by less than half the
/// noise it was called against is no change of level, nor is an excursion: a
/// stretch of fewer than `MIN_SEGMENT` nights at the new level that the next
/// change brings back to the old one (two nights of a layer-cache miss). The
/// gate's regressions keep both (as recovered); only the levels drop them.
/// One change is dropped at a time and the stretches measured again, since
/// dropping one merges two stretches.
fn levels_that_held<'a>(points: &[PointView], shifts: &[&'a Shift]) -> Vec<&'a Shift> {
    let mut held: Vec<&Shift> = shifts.to_vec();
    while let Some(drop) = first_that_did_not_hold(points, &held) {
        for i in drop.into_iter().rev() {
            held.remove(i);
        }
    }
    held
}

/// The changes (indices into `shifts`) to drop next, if any.
fn first_that_did_not_hold(points: &[PointView], shifts: &[&Shift]) -> Option<Vec<usize>> {
    let mut cuts: Vec<usize> = shifts
        .iter()
        .map(|s| points.iter().position(|p| p.run >= s.at.1).unwrap_or(points.len()))
        .collect();
    cuts.insert(0, 0);
    cuts.push(points.len());
    let stretch = |i: usize| match (cuts.get(i), cuts.get(i + 1)) {
        (Some(&from), Some(&to)) => points.get(from.min(to)..to).unwrap_or_default(),
        _ => &[],
    };
    let level = |i: usize| spread::median(&stretch(i).iter().map(|p| p.value).collect::<Vec<_>>());
    let mut weakest: Option<(f64, usize)> = None;
    for (i, s) in shifts.iter().enumerate() {
        let (Some(before), Some(after)) = (level(i), level(i + 1)) else {
            return Some(vec![i]);
        };
        let moved = (after - before).abs();
        // A time against the noise it was called against; a count exactly.
        let ratio = match s.noise_pct.filter(|n| *n > 0.0 && before > 0.0) {
            Some(noise) => moved / (before * noise / 100.0),
            None if moved == 0.0 => 0.0,
            None => f64::INFINITY,
        };
        if ratio < 0.5 && weakest.is_none_or(|(r, _)| ratio < r) {
            weakest = Some((ratio, i));
        }
        let at_new: usize = stretch(i + 1)
            .iter()
            .filter(|p| p.loaded != Some(true) && (p.value - before) * (after - before) > 0.0)
            .filter(|p| (p.value - before).abs() >= 0.5 * moved)
            .count();
        let back = level(i + 2).is_some_and(|next| (next - before).abs() < (next - after).abs());
        if at_new < MIN_SEGMENT && back {
            return Some(vec![i, i + 1]);
        }
    }
    weakest.map(|(_, i)| vec![i])
}

/// Each point's level: the median of its stretch between changes of level.
fn level_lines(points: &mut [PointView], shifts: &[&Shift]) {
    let mut from = 0;
    let mut cuts: Vec<usize> = shifts
        .iter()
        .filter_map(|s| points.iter().position(|p| p.run == s.at.1))
        .collect();
    cuts.push(points.len());
    for to in cuts {
        if to <= from {
            continue;
        }
        let values: Vec<f64> = points[from..to].iter().map(|p| p.value).collect();
        let level = spread::median(&values).unwrap_or(0.0);
        for p in &mut points[from..to] {
            p.level = crate::figures::ms(level);
        }
        from = to;
    }
}

/// `verdicts`: the gate's word on runs, by folder (see [`Verdicts`]).
fn key_view(key: &Key, runs: &[&Figures], verdicts: &Verdicts, accepted: &Accepted) -> KeyView {
    let judged = judge_key(key.clone(), runs.to_vec());
    let shifts = judged.shifts();
    let mut targets: BTreeMap<String, BTreeMap<Metric, MetricView>> = BTreeMap::new();
    let mut loaded: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut load_unknown: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for r in runs {
        for (name, t) in &r.targets {
            targets.entry(name.clone()).or_default();
            let (into, why) = match &t.load {
                crate::figures::Value(crate::figures::Load::Loaded(why)) => (&mut loaded, why),
                crate::figures::Missing(why) => (&mut load_unknown, why),
                crate::figures::Value(crate::figures::Load::Clear) => continue,
            };
            into.entry(r.stamp.clone())
                .or_default()
                .insert(name.clone(), why.clone());
        }
    }
    for (name, metrics) in targets.iter_mut() {
        for m in Metric::TARGET {
            let mine: Vec<&Shift> = shifts.iter().filter(|s| &s.target == name && s.metric == m).collect();
            metrics.insert(m, metric_view(runs, &judged, &mine, name, m));
        }
    }
    let lone = |f: &str| format!("run.json gives no {f}: this run is a key of its own");
    let step_durations = targets
        .keys()
        .map(|t| (t.clone(), step_lines(runs, t)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let note = (runs.len() == 1).then(|| format!("One run only ({}): no trend to draw", runs[0].stamp));
    let gated = runs.last().and_then(|newest| verdicts.get(&newest.dir));
    KeyView {
        mode: Measured::from_option(key.mode.clone(), || lone("mode")),
        arch: Measured::from_option(key.arch.clone(), || lone("arch")),
        max_jobs: Measured::from_option(key.max_jobs, || "run.json records no max_jobs".into()),
        label: key_label(key),
        unknown: key.lone.is_some(),
        runs: runs.iter().map(|r| r.stamp.clone()).collect(),
        run_dirs: runs.iter().map(|r| r.dir.clone()).collect(),
        run_days: runs
            .iter()
            .map(|r| {
                let t = crate::timefmt::format_rfc3339(r.started_us()?);
                t.get(..10).map(str::to_string)
            })
            .collect(),
        note,
        chart: match runs.len() {
            0 | 1 => Measured::missing("one run draws no trend"),
            _ => Value(chart_name(key)),
        },
        targets,
        loaded,
        load_unknown,
        step_durations,
        why_null: Default::default(),
        regressions: match runs.len() {
            0 => vec![],
            n => judged.regressions(n - 1, accepted),
        },
        newest_regressed: gated.is_some_and(|g| g.0),
        newest_verdict_words: gated.map(|g| g.1.clone()),
    }
}

/// The chart of a key: `charts/history-<slug>.svg`, the slug made of the
/// key's coordinates where they are plain, else cut short with a hash, so a
/// hostile arch can name neither another file nor another key's chart.
pub(crate) fn chart_name(key: &Key) -> String {
    let raw = match &key.lone {
        Some(dir) => format!("unknown-{dir}"),
        None => format!(
            "{}-{}-j{}",
            key.mode.as_deref().unwrap_or(""),
            key.arch.as_deref().unwrap_or(""),
            key.max_jobs.map(|j| j.to_string()).unwrap_or_else(|| "none".into())
        ),
    };
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let slug = if clean == raw && raw.len() <= 80 {
        clean
    } else {
        let hash = twox_hash::XxHash3_64::oneshot(raw.as_bytes());
        format!("{}-{hash:016x}", &clean[..clean.len().min(60)])
    };
    format!("charts/history-{slug}.svg")
}

impl HistoryView {
    /// The site draws its charts in history.html: no SVG files are named.
    pub(crate) fn without_charts(mut self) -> Self {
        for k in &mut self.keys {
            if !k.chart.is_missing() {
                k.chart = Measured::missing("history.html draws it");
            }
        }
        self
    }
}

/// The gate's word on runs, by folder: whether it regressed against the runs
/// before it, and the verdict in words. The gate sits above history and
/// computes it (`gate::index::history_verdicts`); history only shows it.
pub(crate) type Verdicts = BTreeMap<String, (bool, String)>;

/// The history of `runs` (any order; those left out are listed, not pooled),
/// each key led by the gate's verdict on its newest run from `verdicts`.
pub fn build<'a>(root: &str, runs: impl IntoIterator<Item = &'a Figures>, verdicts: &Verdicts) -> HistoryView {
    build_with(root, runs, verdicts, &Accepted::default())
}

/// `build`, with the regressions someone accepted.
pub fn build_with<'a>(
    root: &str,
    runs: impl IntoIterator<Item = &'a Figures>,
    verdicts: &Verdicts,
    accepted: &Accepted,
) -> HistoryView {
    let mut by_key: BTreeMap<Key, Vec<&Figures>> = BTreeMap::new();
    let mut left_out = vec![];
    for r in runs {
        match &r.left_out {
            Some(reason) => left_out.push(LeftOutRun {
                run: r.dir.clone(),
                reason: reason.clone(),
            }),
            None => by_key.entry(r.key()).or_default().push(r),
        }
    }
    let mut keys: Vec<KeyView> = by_key
        .iter_mut()
        .map(|(k, key_runs)| {
            key_runs.sort_by(|a, b| a.order().cmp(&b.order()));
            key_view(k, key_runs, verdicts, accepted)
        })
        .collect();
    // What moved leads: keys whose newest run regressed, then those with a
    // trend, then keys of one run (which history.md lists on one line).
    keys.sort_by_key(|k| (!k.newest_regressed, k.runs.len() == 1));
    left_out.sort_by(|a, b| a.run.cmp(&b.run));
    HistoryView {
        schema: 1,
        root: root.to_string(),
        estimator: ESTIMATOR,
        loaded_rule: LOADED_RULE,
        keys,
        left_out,
        tool: Tool::this(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Load, Measured, TargetFigures, Value};

    fn run(stamp: &str, day: i64, mode: Option<&str>, build: Option<f64>) -> Figures {
        let mut t = TargetFigures::unmeasured("not measured");
        if let Some(b) = build {
            t.set(Metric::Build, b);
        }
        t.load = Value(if day == 7 {
            Load::Loaded("strix ended the run at load 41.0 on 32 cores".into())
        } else {
            Load::Clear
        });
        let mut f = Figures::dated(stamp, day, mode);
        f.dir = format!("nightly/{stamp}");
        f.job_width = Measured::missing("run.json has no `max_jobs`");
        f.targets.insert("pytorch".to_string(), t);
        f
    }

    /// pytorch's build_s over `runs` (one key), judged as history judges it.
    fn build_view(runs: &[&Figures]) -> MetricView {
        let key = runs[0].key();
        let judged = judge_key(key, runs.to_vec());
        let shifts = judged.shifts();
        let mine: Vec<&Shift> = shifts.iter().filter(|s| s.metric == Metric::Build).collect();
        metric_view(runs, &judged, &mine, "pytorch", Metric::Build)
    }

    #[test]
    fn loaded_is_null_where_no_points_load_is_known_and_a_count_where_one_is() {
        let mut unknown = run("n1", 1, Some("warm"), Some(1000.0));
        unknown.targets.get_mut("pytorch").unwrap().load = Measured::missing("no load samples from strix");
        let m = build_view(&[&unknown]);
        assert_eq!(m.loaded.get(), None);
        assert!(m.reasons().contains_key("loaded"));
        let known = run("n7", 7, Some("warm"), Some(1000.0));
        let m = build_view(&[&unknown, &known]);
        assert_eq!(m.loaded.get(), Some(1));
        let calm = run("n2", 2, Some("warm"), Some(1000.0));
        assert_eq!(build_view(&[&calm]).loaded.get(), Some(0));
    }

    #[test]
    fn two_nights_away_and_back_are_an_excursion_not_two_changes_of_level() {
        // Thirty quiet nights, two of a layer-cache miss (30% slower), then
        // back for ten: the gate calls the second night; history, seeing the
        // nights after, draws one level and lists no change of it.
        let runs: Vec<Figures> = (0..42)
            .map(|d| {
                let wobble = [0.0, 4.0, -3.0, 2.0, -5.0, 3.0, -1.0][d as usize % 7];
                let level = if (30..32).contains(&d) { 1300.0 } else { 1000.0 };
                run(&format!("n{d:02}"), d + 100, Some("warm"), Some(level + wobble))
            })
            .collect();
        let refs: Vec<&Figures> = runs.iter().collect();
        let judged = judge_key(refs[0].key(), refs.clone());
        let called = judged.shifts().iter().filter(|s| s.metric == Metric::Build).count();
        assert!(called >= 1, "the gate called the excursion on its night");
        let m = build_view(&refs);
        assert!(m.change_points.is_empty(), "{:?}", m.change_points);
        assert!(m.points.iter().all(|p| (p.level - 1000.0).abs() < 5.0));
    }

    #[test]
    fn a_hostile_arch_names_a_plain_chart_of_its_own() {
        let key = |arch: &str| Key {
            lone: None,
            mode: Some("warm".into()),
            arch: Some(arch.into()),
            max_jobs: Some(8),
        };
        let a = chart_name(&key("../../x y"));
        let b = chart_name(&key("../../x_y"));
        assert_ne!(a, b);
        for name in [a, b, chart_name(&key(&"z".repeat(500)))] {
            let file = name.strip_prefix("charts/history-").unwrap();
            assert!(file.len() < 100, "{name}");
            assert!(
                file.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
                "{name}"
            );
        }
    }

    #[test]
    fn keys_never_pool_and_a_step_names_its_night() {
        // Given newest first, to see them sorted.
        let mut runs: Vec<Figures> = (0..24)
            .rev()
            .map(|d| {
                let wobble = [0.0, 4.0, -3.0, 2.0, -5.0, 3.0, -1.0][d as usize % 7];
                let level = if d >= 16 { 1150.0 } else { 1000.0 };
                run(&format!("n{d:02}"), d, Some("warm"), Some(level + wobble))
            })
            .collect();
        runs.push(run("cold", 3, Some("cold"), Some(3000.0)));
        runs.push(run("legacy", 4, None, Some(3000.0)));
        runs.push(Figures::unreadable("broken", "cannot be read: no run inputs".into()));
        let h = build("/root", &runs, &Verdicts::new());
        let labels: Vec<&str> = h.keys.iter().map(|k| k.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "warm · gfx1201 · max_jobs not recorded",
                "cold · gfx1201 · max_jobs not recorded",
                "unknown: nightly/legacy (run.json gives no mode)"
            ],
            "a key with a trend leads; keys of one run follow, in key order"
        );
        let warm = &h.keys[0];
        assert_eq!(warm.runs.first().map(String::as_str), Some("n00"), "oldest first");
        let b = &warm.targets["pytorch"][&Metric::Build];
        assert_eq!((b.n, b.newest.get()), (24, Some(1150.0 - 3.0)));
        let step = b.step.value().unwrap();
        assert_eq!(step.stamp, "n16");
        assert!((step.change_pct - 15.0).abs() < 0.5, "{}", step.change_pct);
        let cp = b.change_point.value().unwrap();
        assert_eq!((cp.before_stamp.as_str(), cp.called.as_str()), ("n15", "n17"));
        assert_eq!(b.change_points.len(), 1, "one change, found once");
        // The level line steps at the change, not nights after it.
        let levels: Vec<f64> = b.points.iter().map(|p| p.level).collect();
        assert!(levels[..16].iter().all(|l| (*l - 1000.0).abs() < 5.0), "{levels:?}");
        assert!(levels[16..].iter().all(|l| (*l - 1150.0).abs() < 5.0), "{levels:?}");
        assert_eq!(
            b.level.get(),
            Some(levels[23]),
            "the newest level is what the newest night is judged against"
        );
        assert_eq!(b.loaded.get(), Some(1));
        assert_eq!(
            warm.loaded["n07"]["pytorch"],
            "strix ended the run at load 41.0 on 32 cores"
        );
        // An unmeasured metric is null with its reason, never 0.
        let total = &warm.targets["pytorch"][&Metric::Total];
        assert_eq!((total.n, total.median.get()), (0, None));
        assert!(total.reasons()["median"].contains("no run of this key measured"));
        assert!(h.keys[2].note.as_deref().unwrap().contains("One run only"));
        assert_eq!(warm.chart.as_deref(), Some("charts/history-warm-gfx1201-jnone.svg"));
        assert_eq!(
            h.keys[2].chart.why(),
            Some("one run draws no trend"),
            "a null chart says why"
        );
        assert_eq!(h.left_out.len(), 1);
        assert_eq!(h.left_out[0].reason, "cannot be read: no run inputs");
    }
}
