//! Changes of level in one metric's nightly series, found as a lane would
//! find them: night by night, each night judged only on the nights before it
//! and itself, so history (which replays every night) and the gate (which
//! judges the newest) call the very same changes.
//!
//! A time is judged on the log of its value, so noise and changes are
//! relative; a count (steps cached) as the count it is.
//!
//! The rule, for each new night: the current level is the median of its
//! segment's nights (since the last change; a one-night outlier and a night
//! whose node was loaded are left out); the noise is the robust spread of
//! night-to-night differences within segments (Rousseeuw and Croux's Qn,
//! 82% as efficient as a standard deviation yet untouched by a spike),
//! widened by how heavy the key's tails are (`tail`). A change is called when
//! the newest two nights both sit beyond the level on the same side (or the
//! newest three on one side, most of them beyond) and their mean lies beyond
//! a threshold set so that, across the night's
//! `series` checks, noise alone calls one on at most `NIGHT_ERROR_RATE` of
//! nights. One night beyond is only watched: the next night confirms it as
//! a change or leaves it an outlier. A loaded night neither confirms nor
//! denies. A change starts where the level moved (`Judge::best_first`),
//! which for a small change is often a few nights before the window that
//! called it.

use crate::analysis::spread::median;

/// The share of nights on which noise alone may call a change somewhere
/// among a night's checks.
pub(crate) const NIGHT_ERROR_RATE: f64 = 0.02;
/// Nights a segment needs before a change can be called from it: its level
/// must rest on something.
pub(crate) const MIN_SEGMENT: usize = 3;
/// Night-to-night differences the noise is estimated from, at most (the
/// newest), so it follows a fleet whose noise changes.
pub(crate) const NOISE_WINDOW: usize = 120;
/// A level rests on its segment's newest nights, at most this many (a month
/// of nights), so a slow drift is followed and a long history costs no more.
pub(crate) const LEVEL_WINDOW: usize = 30;
/// Below this many differences there is no noise estimate: no change is called.
pub(crate) const MIN_DIFFS: usize = 10;
/// Each night of a change must lie at least this many noise units from the level.
pub(crate) const EACH_BEYOND: f64 = 1.5;
/// A night watched but not followed is an outlier past this many noise units
/// (left out of its level); nearer, it was noise after all.
pub(crate) const OUTLIER: f64 = 3.5;
/// A change smaller than this share of the level (percent) is not called,
/// however quiet the metric: below it a change is rounding.
pub(crate) const MIN_CHANGE_PCT: f64 = crate::analysis::spread::STEP_MIN_PCT;
/// Below this many seconds a change of a time is scheduling noise.
pub(crate) const TIME_RESOLUTION_S: f64 = crate::analysis::spread::TIME_RESOLUTION_S;

/// How a metric's values are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scale {
    /// A time in seconds: relative noise, on the log of the value.
    Time,
    /// A count: exact, a change is a different count on two nights running.
    Count,
}

/// One night of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SeriesNight {
    pub(crate) value: f64,
    /// The node ended the run loaded beyond its cores: it neither confirms
    /// nor denies a change, and no level rests on it.
    pub(crate) loaded: bool,
}

/// What a night was, once judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judged {
    /// At its segment's level.
    Level,
    /// Beyond the level, one night so far: the next night decides.
    Watched,
    /// The first night of a new level (the change's `first`).
    Changed,
    /// At the new level, after the first.
    Confirmed,
    /// Beyond the level one night, the next night back: not a change.
    Outlier,
    /// Its node was loaded.
    Loaded,
    /// Not judged: too few nights before it to know the level or the noise.
    Unjudged,
}

/// A change of level: from night `first` on, the metric sits at `after`
/// instead of `before`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LevelChange {
    /// The last judged night at the old level (not loaded, not an outlier).
    pub(crate) last_before: usize,
    /// The first night at the new level.
    pub(crate) first: usize,
    /// The night whose judgement called it (the second or third at the new level).
    pub(crate) called: usize,
    /// The levels either side, as values (medians).
    pub(crate) before: f64,
    pub(crate) after: f64,
    /// The change in percent of `before` (a count's: its difference, in `delta`).
    pub(crate) change_pct: f64,
    pub(crate) delta: f64,
    /// The noise it stood against when called, in percent of the level
    /// (a count's: 0).
    pub(crate) noise_pct: f64,
    /// The change in units of that noise (a count's: `None`).
    pub(crate) sigmas: Option<f64>,
}

impl LevelChange {
    /// Up is a change to a higher value.
    pub(crate) fn up(&self) -> bool {
        self.after > self.before
    }
}

/// A series judged: every night's verdict, every change, and the level and
/// noise after the newest night (what the next night is judged against).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Levels {
    /// Each night as it stands after the newest (a night watched may since
    /// have become a change's first, or an outlier).
    pub(crate) nights: Vec<Judged>,
    /// Each night as it was judged on its own night: what that night's gate said.
    pub(crate) then: Vec<Judged>,
    /// Each night against the level it was judged against; `None` when it
    /// was not judged (too few nights before it).
    pub(crate) against: Vec<Option<Deviation>>,
    pub(crate) changes: Vec<LevelChange>,
    /// The newest level's value and how many nights it rests on.
    pub(crate) level: Option<(f64, usize)>,
    /// The noise after the newest night, in percent of the level; `None`
    /// while there are too few nights to say.
    pub(crate) noise_pct: Option<f64>,
    /// How far the newest night lies from the level it was judged against,
    /// in noise units, and that level; `None` when it was not judged.
    pub(crate) newest: Option<Deviation>,
    /// The threshold a night's mean deviation had to pass, in noise units.
    pub(crate) threshold: f64,
}

/// One night against the level it was judged against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Deviation {
    pub(crate) level: f64,
    pub(crate) change_pct: f64,
    pub(crate) sigmas: f64,
    /// The band a night must leave to be beyond, in percent of the level.
    pub(crate) band_pct: f64,
    /// Beyond by so much that a next night as far would call a change: what
    /// a lane is told to watch (a night merely beyond the band is not).
    pub(crate) decisive: bool,
    /// The spread of the level's nights (percent of it) and how many: past
    /// `WIDE_PCT` the series is not judged.
    pub(crate) spread_pct: f64,
    pub(crate) n: usize,
}

/// The threshold, in noise units, a mean of `k` nights (normalised to unit
/// variance) must pass so that `series` checks a night call a change from
/// noise alone on at most `NIGHT_ERROR_RATE` of nights: Bonferroni's bound
/// over the checks, each worth `WINDOW_TESTS` tests (its windows overlap, so
/// they are fewer independent tests than windows; measured on noise alone,
/// two holds the rate, see the tests).
pub(crate) fn threshold(series: usize) -> f64 {
    let per_check = NIGHT_ERROR_RATE / (WINDOW_TESTS * series.max(1) as f64);
    normal_upper_quantile(per_check)
}

/// Student's t for `dof` degrees of freedom at the upper quantile whose
/// normal one is `z` (the Cornish-Fisher expansion, good from 5 degrees of
/// freedom): a noise estimated from few nights is itself uncertain, and a
/// threshold on it must be that much wider.
pub(crate) fn student_upper(z: f64, dof: f64) -> f64 {
    let v = dof.max(5.0);
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * v.powi(4))
}

/// The degrees of freedom a noise estimated from `diffs` night-to-night
/// differences is credited with. More than Qn of differences carries on its
/// own (simulated on normal noise, 1/(2 var ln σ̂): about 0.55 × diffs − 1.5,
/// since neighbouring differences share a night): the key's tail factor
/// (`Tail`) is measured in each series' noise as it stood, so it already
/// carries much of a young estimate's own error, and crediting the honest
/// count as well makes a young series' threshold wider than its false
/// alarms need. 0.7 is what the change-point bench's red-from-noise rate
/// holds (BENCHMARKS.md); the honest 0.55 made the gate a night slower on
/// large changes (82% → 73% red by the next night) for no fewer false alarms.
fn noise_dof(diffs: usize) -> f64 {
    0.7 * diffs as f64
}

/// The z with P(Z > z) = p for a standard normal Z (Acklam's rational
/// approximation of the inverse, relative error under 1.2e-9).
pub(crate) fn normal_upper_quantile(p: f64) -> f64 {
    let p = p.clamp(1e-300, 0.5);
    let q = (-2.0 * p.ln()).sqrt();
    let c = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    let d = [
        7.784695709041462e-03,
        3.224671290700398e-01,
        2.445134137142996e+00,
        3.754408661907416e+00,
    ];
    if p < 0.02425 {
        -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    } else {
        let a = [
            -3.969683028665376e+01,
            2.209460984245205e+02,
            -2.759285104469687e+02,
            1.383_577_518_672_69e2,
            -3.066479806614716e+01,
            2.506628277459239e+00,
        ];
        let b = [
            -5.447609879822406e+01,
            1.615858368580409e+02,
            -1.556989798598866e+02,
            6.680131188771972e+01,
            -1.328068155063077e+01,
        ];
        let x = 0.5 - p;
        let r = x * x;
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * x
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)
    }
}

/// Rousseeuw and Croux's Qn of `x`: the first quartile of the pairwise
/// distances, scaled to estimate a normal standard deviation (with the
/// small-sample correction). `None` below two values.
pub(crate) fn qn(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    let mut d: Vec<f64> = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            d.push((x[i] - x[j]).abs());
        }
    }
    let h = n / 2 + 1;
    let k = (h * (h - 1) / 2).clamp(1, d.len());
    let (_, kth, _) = d.select_nth_unstable_by(k - 1, f64::total_cmp);
    let q = 2.2219 * *kth;
    // Small-sample corrections (Croux and Rousseeuw 1992).
    let c = match n {
        2 => 0.399,
        3 => 0.994,
        4 => 0.512,
        5 => 0.844,
        6 => 0.611,
        7 => 0.857,
        8 => 0.669,
        9 => 0.872,
        _ if n % 2 == 1 => n as f64 / (n as f64 + 1.4),
        _ => n as f64 / (n as f64 + 3.8),
    };
    Some(q * c)
}

/// The value a metric is judged on: a time's log, a count as it is.
fn judged_value(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Time => v.max(1e-9).ln(),
        Scale::Count => v,
    }
}

/// How many of the newest nights a change is tested on: two and three call
/// a large change fast; five and eight find a smaller one that holds.
pub(crate) const WINDOWS: [usize; 4] = [2, 3, 5, 8];
/// The independent tests the `WINDOWS` of one check are worth.
pub(crate) const WINDOW_TESTS: f64 = 2.0;

/// Judges a series night by night (see the module), alone: the tests'
/// entry, since the tool judges a key's series together. `series` is how many
/// checks a night holds (the threshold's family); `tail` widens the noise
/// for heavy tails (1 for normal noise, see [`tail_factor`]).
#[cfg(test)]
pub(crate) fn judge(nights: &[SeriesNight], scale: Scale, series: usize, tail: f64) -> Levels {
    let mut j = Judge::new(nights, scale, threshold(series));
    for _ in nights {
        j.judge_next(tail);
    }
    j.finish()
}

/// Judges several series in step, night by night, their noise widened by
/// the tail of all of them up to each night (a series holds too few nights
/// for a tail of its own): a key's targets and metrics. `series[s]` gives
/// each night of series `s` with its place in the key's order of nights,
/// ascending; every series is judged as one of `series.len()` checks.
pub(crate) fn judge_together(series: &[(Scale, Vec<(usize, SeriesNight)>)]) -> Vec<Levels> {
    let nights: Vec<Vec<SeriesNight>> = series.iter().map(|(_, n)| n.iter().map(|x| x.1).collect()).collect();
    let t = threshold(series.len());
    let mut judges: Vec<Judge> = series
        .iter()
        .zip(&nights)
        .map(|((scale, _), n)| Judge::new(n, *scale, t))
        .collect();
    let mut pool = Tail::default();
    let last = series.iter().filter_map(|(_, n)| n.last().map(|x| x.0)).max();
    for at in 0..=last.unwrap_or(0) {
        if last.is_none() {
            break;
        }
        let tail = pool.factor();
        for (s, j) in judges.iter_mut().enumerate() {
            let next = j.out.len();
            if series[s].1.get(next).is_some_and(|x| x.0 == at) {
                j.judge_next(tail);
                if let Some(z) = j.newest_difference_z() {
                    pool.add(z);
                }
            }
        }
    }
    judges.into_iter().map(Judge::finish).collect()
}

/// The night-to-night differences of a key's time series, each in its own
/// series' noise units, as they come: how heavy the key's tails are.
#[derive(Default)]
struct Tail {
    z: Vec<f64>,
    /// The factor as of the last time it was computed, and at how many.
    cached: Option<(usize, f64)>,
}

impl Tail {
    fn add(&mut self, z: f64) {
        if z.is_finite() {
            self.z.push(z.abs());
        }
    }

    /// The 99th percentile over the normal's (2.576), at least 1 and at most
    /// 3; 1 below `MIN_TAIL_DIFFS`. Recomputed when the pool has grown by a
    /// tenth, so a long history costs no more than a few sorts.
    fn factor(&mut self) -> f64 {
        let n = self.z.len();
        if n < MIN_TAIL_DIFFS {
            return 1.0;
        }
        if let Some((at, f)) = self.cached {
            if n < at + at / 10 {
                return f;
            }
        }
        let mut z = self.z.clone();
        let k = ((n as f64 * 0.99) as usize).min(n - 1);
        let (_, q, _) = z.select_nth_unstable_by(k, f64::total_cmp);
        let f = (*q / 2.576).clamp(1.0, 3.0);
        self.cached = Some((n, f));
        f
    }
}

/// The state of a series being judged night by night.
struct Judge<'a> {
    nights: &'a [SeriesNight],
    scale: Scale,
    threshold: f64,
    tail: f64,
    y: Vec<f64>,
    out: Vec<Judged>,
    changes: Vec<LevelChange>,
    /// The first night of the current segment.
    seg: usize,
    /// Night-to-night differences within segments, loaded nights left out,
    /// each with the night it ends at. Every such night counts, outliers
    /// too: leaving the nights beyond out would shrink the noise that decides
    /// which nights are beyond. Qn is what keeps a spike from widening it.
    diffs: Vec<(usize, f64)>,
    /// The last night not loaded, for the next difference.
    last_night: Option<usize>,
    then: Vec<Judged>,
    against: Vec<Option<Deviation>>,
    /// The noise of `diffs` as they stand (their count, σ), computed once a
    /// night rather than once a window.
    noise: Option<(usize, f64)>,
    newest: Option<Deviation>,
}

/// The level and noise a night is judged against.
#[derive(Debug, Clone, Copy)]
struct Basis {
    level: f64,
    /// Nights the level rests on.
    n: usize,
    /// The noise, in judged units (a count's: 0), widened by the key's tail.
    sigma: f64,
    /// The tail factor `sigma` carries: a mean of k nights carries only
    /// its k-th root (heavy tails average out).
    tail: f64,
    /// The least deviation that is beyond, in judged units.
    floor: f64,
    /// The threshold a window's mean must pass, in noise units, for the
    /// noise's own uncertainty.
    threshold: f64,
    /// The level's nights spread wider than a gate can carry (`WIDE_PCT`).
    wide: bool,
    /// Their spread, percent of the level (a count's: 0).
    spread_pct: f64,
}

/// The share of the level nights' spread below which the noise is not
/// taken to be (see `Judge::basis`).
const SPREAD_BOUND: f64 = 0.7;

/// A series whose level nights spread wider than this (the median absolute
/// deviation × 1.4826, percent of the level) carries no judgement: its
/// nights are what the noise does, whatever their differences say.
pub(crate) const WIDE_PCT: f64 = crate::analysis::spread::MAX_GATE_SPREAD_PCT;

impl<'a> Judge<'a> {
    fn new(nights: &'a [SeriesNight], scale: Scale, threshold: f64) -> Self {
        Judge {
            nights,
            scale,
            threshold,
            tail: 1.0,
            y: nights.iter().map(|n| judged_value(scale, n.value)).collect(),
            out: Vec::with_capacity(nights.len()),
            changes: vec![],
            seg: 0,
            diffs: vec![],
            last_night: None,
            then: Vec::with_capacity(nights.len()),
            against: Vec::with_capacity(nights.len()),
            noise: None,
            newest: None,
        }
    }

    fn rests_on(j: Judged) -> bool {
        matches!(
            j,
            Judged::Level | Judged::Changed | Judged::Confirmed | Judged::Unjudged
        )
    }

    /// The level and noise of the current segment's nights before `until`;
    /// `None` when too few nights say.
    fn basis(&self, until: usize) -> Option<Basis> {
        let v: Vec<f64> = (self.seg..until)
            .rev()
            .filter(|&k| Self::rests_on(self.out[k]))
            .take(LEVEL_WINDOW)
            .map(|k| self.y[k])
            .collect();
        if v.len() < MIN_SEGMENT {
            return None;
        }
        let n = v.len();
        let level = median(&v)?;
        // The spread as history states it (`spread::spread_pct`): the median
        // absolute deviation of the seconds, × 1.4826, in percent of the median.
        let (at, mut abs_dev) = (self.value_of(level), vec![]);
        abs_dev.extend(v.iter().map(|y| (self.value_of(*y) - at).abs()));
        let spread_pct = match self.scale {
            Scale::Time if at > 0.0 => {
                100.0 * median(&abs_dev).unwrap_or(0.0) * crate::analysis::spread::MAD_TO_SIGMA / at
            }
            _ => 0.0,
        };
        let spread = (spread_pct / 100.0).ln_1p();
        let wide = spread_pct > WIDE_PCT;
        let (sigma, floor, threshold) = match self.scale {
            Scale::Count => (0.0, 0.5, 0.0),
            Scale::Time => {
                let (m, sigma) = self.noise?;
                let resolution = (TIME_RESOLUTION_S / level.exp().max(1e-9)).max(MIN_CHANGE_PCT / 100.0);
                // Night-to-night differences of a series that takes few
                // distinct values (whole seconds, a cycle) can make Qn 0:
                // the level's own spread bounds the noise from below then.
                let sigma = sigma.max(SPREAD_BOUND * spread);
                (
                    sigma * self.tail,
                    resolution.ln_1p(),
                    student_upper(self.threshold, noise_dof(m)),
                )
            }
        };
        Some(Basis {
            level,
            n,
            sigma,
            tail: if self.scale == Scale::Time { self.tail } else { 1.0 },
            floor,
            threshold,
            wide,
            spread_pct,
        })
    }

    /// Judges the next night, the noise widened by `tail`.
    fn judge_next(&mut self, tail: f64) {
        let i = self.out.len();
        self.tail = tail.max(1.0);
        self.night(i);
        let now = self.out[i];
        self.then.push(now);
    }

    /// The newest night's difference from the night before it, in the
    /// series' own noise (its tail left out), when that night added one.
    fn newest_difference_z(&self) -> Option<f64> {
        let (at, d) = *self.diffs.last()?;
        let (_, sigma) = self.noise?;
        // A difference carries two nights' noise.
        (at + 1 == self.out.len() && sigma > 0.0 && self.scale == Scale::Time)
            .then(|| d / (sigma * std::f64::consts::SQRT_2))
    }

    /// Judges night `i` on the nights before it.
    fn night(&mut self, i: usize) {
        let basis = self.basis(i);
        self.against.push(basis.map(|b| self.deviation(i, &b)));
        if self.nights[i].loaded {
            self.out.push(Judged::Loaded);
            return;
        }
        let Some(b) = basis.filter(|b| !b.wide) else {
            self.out.push(Judged::Unjudged);
            self.difference(i);
            return;
        };
        self.newest = Some(self.deviation(i, &b));
        // The night is judged now; a change may re-judge it and those before it.
        self.out.push(Judged::Level);
        self.difference(i);
        if let Some(window) = WINDOWS.iter().find_map(|&k| self.window_calls(i, k)) {
            self.call(&window);
            return;
        }
        if self.beyond(self.y[i] - b.level, &b) {
            // Watched nights on the other side did not hold.
            let up = self.y[i] > b.level;
            self.close_watch(i, &b, |y| (y > b.level) != up);
            self.out[i] = Judged::Watched;
        } else {
            // Back at the level: the watched nights before it did not hold.
            self.close_watch(i, &b, |_| true);
        }
    }

    /// Watched nights just before `i` (those `which` picks) that no change
    /// took: outliers when far from the level, else noise at it after all.
    fn close_watch(&mut self, i: usize, b: &Basis, which: impl Fn(f64) -> bool) {
        for k in (self.seg..i).rev() {
            match self.out[k] {
                Judged::Watched if which(self.y[k]) => {
                    let far = (self.y[k] - b.level).abs() > b.floor.max(OUTLIER * b.sigma);
                    self.out[k] = if far { Judged::Outlier } else { Judged::Level };
                }
                Judged::Watched | Judged::Loaded => {}
                _ => break,
            }
        }
    }

    /// A night's difference from the segment's night before it.
    fn difference(&mut self, i: usize) {
        if let Some(prev) = self.last_night.filter(|&p| p >= self.seg) {
            self.diffs.push((i, self.y[i] - self.y[prev]));
            self.estimate_noise();
        }
        self.last_night = Some(i);
    }

    /// The noise of the newest `NOISE_WINDOW` differences: Qn, over √2 (a
    /// difference carries two nights' noise).
    fn estimate_noise(&mut self) {
        let recent: Vec<f64> = self.diffs[self.diffs.len().saturating_sub(NOISE_WINDOW)..]
            .iter()
            .map(|d| d.1)
            .collect();
        self.noise = (recent.len() >= MIN_DIFFS)
            .then(|| qn(&recent))
            .flatten()
            .map(|q| (recent.len(), q / std::f64::consts::SQRT_2));
    }

    fn beyond(&self, dev: f64, b: &Basis) -> bool {
        dev.abs() > b.floor.max(EACH_BEYOND * b.sigma)
    }

    /// The newest `k` nights up to `i` (loaded ones skipped), when they call
    /// a change against the level of the segment's nights before them.
    fn window_calls(&self, i: usize, k: usize) -> Option<Vec<usize>> {
        let window: Vec<usize> = (self.seg..=i)
            .rev()
            .filter(|&n| !self.nights[n].loaded)
            .take(k)
            .collect();
        if window.len() < k {
            return None;
        }
        let window: Vec<usize> = window.into_iter().rev().collect();
        let b = self.basis(window[0])?;
        let devs: Vec<f64> = window.iter().map(|&n| self.y[n] - b.level).collect();
        let up = devs[0] > 0.0;
        if devs.iter().any(|d| *d == 0.0 || (*d > 0.0) != up) {
            return None;
        }
        let mean = devs.iter().sum::<f64>() / k as f64;
        let passes = match self.scale {
            // A count holding one new value on each of the nights.
            Scale::Count => k == 2 && devs.iter().all(|d| d.abs() >= b.floor) && self.y[window[0]] == self.y[window[1]],
            Scale::Time => {
                // Two nights are the least a level rests on: both must be
                // beyond. From three on, most must be (their median), so a
                // change is not held back by one of its nights that noise
                // pulled back inside the band, while a single spike can
                // never be the most. Three nights still ask each to carry
                // half the shift at least: a window that one night's size
                // carries is a spike and its neighbours (and a borderline
                // night is not the change's first). The long ones ask only
                // that all lie on one side: one spike inside a long window
                // on the side it lies is not a level.
                let abs: Vec<f64> = devs.iter().map(|d| d.abs()).collect();
                let each = match k {
                    2 => abs.iter().all(|d| self.beyond(*d, &b) && *d >= 0.5 * mean.abs()),
                    3 => median(&abs).is_some_and(|m| self.beyond(m, &b)) && abs.iter().all(|d| *d >= 0.5 * mean.abs()),
                    _ => median(&abs).is_some_and(|m| self.beyond(m, &b)),
                };
                let held = mean.abs();
                let sd = b.sigma / b.tail.powf(1.0 - 1.0 / k as f64) * (1.0 / k as f64 + 1.57 / b.n as f64).sqrt();
                each && held >= b.floor && held > b.threshold * sd
            }
        };
        passes.then_some(window)
    }

    /// Calls a change whose nights at the new level are `at` (the newest is
    /// the night being judged).
    fn call(&mut self, at: &[usize]) {
        let called = at[at.len() - 1];
        let Some(b) = self.basis(at[0]) else { return };
        let first = match self.scale {
            Scale::Time => self.best_first(at, b.level),
            Scale::Count => at[0],
        };
        // Moved earlier, the old level rests on fewer nights.
        let Some(b) = (if first == at[0] { Some(b) } else { self.basis(first) }) else {
            return;
        };
        // Watched nights before the first that the change did not take.
        self.close_watch(first, &b, |_| true);
        let last_before = (self.seg..first)
            .rev()
            .find(|&k| Self::rests_on(self.out[k]))
            .unwrap_or(first.saturating_sub(1));
        for k in first..=called {
            if !self.nights[k].loaded {
                self.out[k] = Judged::Confirmed;
            }
        }
        self.out[first] = Judged::Changed;
        let after: Vec<f64> = (first..=called)
            .filter(|&k| !self.nights[k].loaded)
            .map(|k| self.y[k])
            .collect();
        let after = median(&after).unwrap_or(self.y[called]);
        let (before_v, after_v) = (self.value_of(b.level), self.value_of(after));
        self.changes.push(LevelChange {
            last_before,
            first,
            called,
            before: before_v,
            after: after_v,
            change_pct: if before_v != 0.0 {
                100.0 * (after_v - before_v) / before_v
            } else {
                0.0
            },
            delta: after_v - before_v,
            noise_pct: match self.scale {
                Scale::Time => 100.0 * b.sigma.exp_m1(),
                Scale::Count => 0.0,
            },
            sigmas: (self.scale == Scale::Time && b.sigma > 0.0).then(|| (after - b.level).abs() / b.sigma),
        });
        // The new segment starts at the change: the difference across it is no noise.
        self.seg = first;
        self.diffs.retain(|d| d.0 != first);
        self.estimate_noise();
    }

    /// The first night of a change called by `window`, against the old
    /// level `before`: a window
    /// calls on its newest nights, but a small change often landed a few
    /// nights earlier, its first nights pulled by noise just inside the band
    /// (or onto the wrong side). Walking back from the window, each night
    /// scores how much nearer it lies to the window's level than to the old
    /// one (at most the change's size, so one spike counts as one night);
    /// the change starts where that running score is lowest, if below zero.
    /// A night between the two levels (a ramp) weighs for the nearer, so a
    /// ramp mostly stays with the old level rather than pull the new one
    /// down; the old side always keeps a level to rest on.
    fn best_first(&self, window: &[usize], before: f64) -> usize {
        let first = window[0];
        let ys: Vec<f64> = window.iter().map(|&k| self.y[k]).collect();
        let Some(after) = median(&ys) else { return first };
        let (mut score, mut best) = (0.0, (0.0, first));
        for k in (self.seg..first).rev() {
            if self.nights[k].loaded {
                continue;
            }
            if self.basis(k).is_none_or(|b| b.wide) {
                break;
            }
            let y = self.y[k];
            score += (y - after).abs() - (y - before).abs();
            // Only a night at the new level (within half the change of it)
            // starts it: a spike before a step lies nearer the new level
            // than the old, yet is the spike's night, not the step's.
            let at_new = (y - after).abs() < 0.5 * (after - before).abs();
            if score < best.0 - 1e-12 && at_new {
                best = (score, k);
            }
        }
        best.1
    }

    fn value_of(&self, y: f64) -> f64 {
        match self.scale {
            Scale::Time => y.exp(),
            Scale::Count => y,
        }
    }

    fn deviation(&self, i: usize, b: &Basis) -> Deviation {
        let level = self.value_of(b.level);
        let value = self.nights[i].value;
        Deviation {
            level,
            change_pct: if level != 0.0 {
                100.0 * (value - level) / level
            } else {
                0.0
            },
            sigmas: if b.sigma > 0.0 {
                (self.y[i] - b.level) / b.sigma
            } else {
                0.0
            },
            band_pct: match self.scale {
                Scale::Time => 100.0 * b.floor.max(EACH_BEYOND * b.sigma).exp_m1(),
                Scale::Count => 0.0,
            },
            decisive: {
                let dev = (self.y[i] - b.level).abs();
                // The two-night window's test, with both nights here.
                let sd = b.sigma / b.tail.sqrt() * (0.5 + 1.57 / b.n as f64).sqrt();
                self.beyond(dev, b) && dev >= b.floor && (self.scale == Scale::Count || dev > b.threshold * sd)
            },
            spread_pct: b.spread_pct,
            n: b.n,
        }
    }

    fn finish(self) -> Levels {
        let n = self.nights.len();
        let basis = self.basis(n);
        let judged_last = !matches!(self.out.last(), None | Some(Judged::Unjudged | Judged::Loaded));
        Levels {
            level: basis.map(|b| (self.value_of(b.level), b.n)),
            noise_pct: basis
                .filter(|_| self.scale == Scale::Time)
                .map(|b| 100.0 * b.sigma.exp_m1()),
            newest: self.newest.filter(|_| judged_last),
            nights: self.out,
            then: self.then,
            against: self.against,
            changes: self.changes,
            threshold: self.threshold,
        }
    }
}

/// How much heavier than normal the tails of a key's noise are: the 99th
/// percentile of every series' night-to-night differences, each in its own
/// Qn units, over the normal's (2.576), at least 1 and at most 3. Pooled
/// over the key's series, since one series holds too few nights for a tail;
/// 1 below `MIN_TAIL_DIFFS` differences in all. (The tool pools as it
/// judges, in `judge_together`; the tests measure a family's tail with it.)
#[cfg(test)]
pub(crate) fn tail_factor(series: &[Vec<f64>]) -> f64 {
    let mut pool = Tail::default();
    for values in series {
        let y: Vec<f64> = values.iter().map(|v| v.max(1e-9).ln()).collect();
        let d: Vec<f64> = y.windows(2).map(|w| w[1] - w[0]).collect();
        let Some(s) = qn(&d).filter(|s| *s > 0.0) else { continue };
        for x in &d {
            pool.add(x / s);
        }
    }
    pool.factor()
}

/// Differences in all the tail factor needs.
pub(crate) const MIN_TAIL_DIFFS: usize = 400;

#[cfg(test)]
mod tests;
