//! What repeated runs of one metric say: its median, its robust spread, the
//! band a gate may draw from that spread, a step in its level (for a run
//! gated against a root it is not under). Pure functions over the metric's values, oldest first.
//!
//! The spread is the median absolute deviation (MAD) scaled by 1.4826, so it
//! estimates the standard deviation of normal noise while one outlier (a
//! loaded node, a registry hiccup) barely moves it, as a percent of the
//! median. A gate band of 3× that spread is then about 3σ of the fleet's own
//! noise: the smallest change the fleet can resolve, not a tolerance picked.

/// MAD × this estimates σ for normally distributed values.
pub(crate) const MAD_TO_SIGMA: f64 = 1.4826;
/// Fewer points than this give no spread.
pub(crate) const MIN_SPREAD_N: usize = 3;
/// Fewer points than this carry no gate.
pub(crate) const MIN_GATE_N: usize = 5;
/// A spread above this (percent) is too wide to resolve a change: one study's
/// end-to-end throughput swung ~30% and could carry no gate at all.
pub(crate) const MAX_GATE_SPREAD_PCT: f64 = 25.0;
/// The band is this many spreads wide.
pub(crate) const BAND_SPREADS: f64 = 3.0;
/// Gates, comparisons and the index weigh a run against at most this many
/// comparable runs before it: a month of nightly runs, so a change accepted
/// a month ago is the new normal rather than a regression for ever.
pub(crate) const WINDOW: usize = 30;
/// A step is looked for among this many newest points.
pub(crate) const STEP_WINDOW: usize = 60;
/// Points on either side of a step, at least.
pub(crate) const STEP_MIN_SIDE: usize = 3;
/// A level change smaller than this (percent) is not called a step, however
/// quiet the metric: below it a "step" is rounding.
pub(crate) const STEP_MIN_PCT: f64 = 1.0;
/// A time band is never narrower than this (percent). Runs that repeat
/// exactly (whole seconds, a synthetic fleet) show a spread of 0, and 3× 0
/// would call a 0.1% change a regression; below 1% a change is rounding, as
/// for a step.
pub(crate) const MIN_BAND_PCT: f64 = STEP_MIN_PCT;
/// Below this many seconds a time is scheduling noise (the gate's resolution).
pub(crate) const TIME_RESOLUTION_S: f64 = 5.0;
/// The narrowest band a time of `median` seconds carries: MIN_BAND_PCT, or
/// TIME_RESOLUTION_S as a share of it, whichever is wider.
pub(crate) fn time_band_floor_pct(median: f64) -> f64 {
    let resolution = 100.0 * TIME_RESOLUTION_S / median;
    if resolution.is_finite() && resolution > MIN_BAND_PCT {
        resolution
    } else {
        MIN_BAND_PCT
    }
}

/// The median; `None` for no values. Non-finite values must not be passed.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        // Halved first: the sum of two large finite values can overflow.
        v[n / 2 - 1] / 2.0 + v[n / 2] / 2.0
    })
}

/// The robust spread in percent of the median (scaled MAD, see the module),
/// or why there is none.
pub(crate) fn spread_pct(values: &[f64]) -> Result<f64, String> {
    let n = values.len();
    if n < MIN_SPREAD_N {
        return Err(format!("{n} points: a spread needs {MIN_SPREAD_N}"));
    }
    let m = median(values).unwrap_or(0.0);
    if m <= 0.0 {
        return Err("the median is 0: a spread relative to it means nothing".into());
    }
    let deviations: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    let mad = median(&deviations).unwrap_or(0.0);
    Some(100.0 * MAD_TO_SIGMA * mad / m)
        .filter(|s| s.is_finite())
        .ok_or_else(|| "the values are too large for a spread".into())
}

/// The band a metric's history allows around its median, or why it carries none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Band {
    /// ±`pct` of the median: BAND_SPREADS × the spread.
    Gate { pct: f64, spread_pct: f64, n: usize },
    /// "not gateable: ...", with the spread and n.
    NotGateable(String),
}

/// The band rule: 3× the spread, when there are enough points and the spread
/// is narrow enough to resolve a change.
pub(crate) fn band(spread: &Result<f64, String>, n: usize) -> Band {
    let shown = match spread {
        Ok(s) => format!("spread {s:.1}%"),
        Err(_) => "no spread".to_string(),
    };
    if n < MIN_GATE_N {
        let runs = crate::fmt::counted(n as u64, "run", "runs");
        return Band::NotGateable(format!("not gateable: {shown} over {runs} ({MIN_GATE_N} needed)"));
    }
    match spread {
        Ok(s) if *s > MAX_GATE_SPREAD_PCT => Band::NotGateable(format!(
            "not gateable: spread {s:.1}% over {n} runs (over {MAX_GATE_SPREAD_PCT:.0}%: too wide to resolve a change)"
        )),
        Ok(s) => Band::Gate {
            pct: BAND_SPREADS * s,
            spread_pct: *s,
            n,
        },
        Err(why) => Band::NotGateable(format!(
            "not gateable over {}: {why}",
            crate::fmt::counted(n as u64, "run", "runs")
        )),
    }
}

/// A change of level: from the point at `at` on, the metric sits at `after`
/// instead of `before` (medians of either side).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MedianShift {
    pub(crate) at: usize,
    pub(crate) before: f64,
    pub(crate) after: f64,
    pub(crate) change_pct: f64,
}

/// Sum of absolute deviations from the median: the cost of calling `v` one level.
fn l1_cost(v: &[f64]) -> (f64, f64) {
    let m = median(v).unwrap_or(0.0);
    (m, v.iter().map(|x| (x - m).abs()).sum())
}

/// The most likely single change of level among `values` (the split that
/// leaves the least absolute deviation from each side's median), when the
/// change exceeds 3× the spread of what is left and STEP_MIN_PCT. Only the
/// newest STEP_WINDOW points are searched; `at` indexes `values`.
pub(crate) fn find_step(values: &[f64]) -> Option<MedianShift> {
    let skip = values.len().saturating_sub(STEP_WINDOW);
    let v = &values[skip..];
    if v.len() < 2 * STEP_MIN_SIDE {
        return None;
    }
    let mut best: Option<(f64, usize)> = None;
    for i in STEP_MIN_SIDE..=v.len() - STEP_MIN_SIDE {
        let cost = l1_cost(&v[..i]).1 + l1_cost(&v[i..]).1;
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, i));
        }
    }
    let (_, mut i) = best?;
    let (first_before, first_after) = (median(&v[..i])?, median(&v[i..])?);
    // Three points on a side hold a median with one of them still at the old
    // level: the new level starts at its first point nearer it than the old,
    // and must still rest on STEP_MIN_SIDE points.
    while i < v.len() && (v[i] - first_before).abs() <= (v[i] - first_after).abs() {
        i += 1;
    }
    if v.len() - i < STEP_MIN_SIDE {
        return None;
    }
    let (before, after) = (median(&v[..i])?, median(&v[i..])?);
    if before <= 0.0 {
        return None;
    }
    let change_pct = 100.0 * (after - before) / before;
    let residuals: Vec<f64> = v[..i]
        .iter()
        .map(|x| x - before)
        .chain(v[i..].iter().map(|x| x - after))
        .map(f64::abs)
        .collect();
    let noise_pct = 100.0 * MAD_TO_SIGMA * median(&residuals)? / before;
    (change_pct.is_finite() && change_pct.abs() > (BAND_SPREADS * noise_pct).max(STEP_MIN_PCT)).then_some(MedianShift {
        at: skip + i,
        before,
        after,
        change_pct,
    })
}

/// `x` against `reference` in percent; `None` when that is no number.
pub(crate) fn change_pct(x: f64, reference: f64) -> Option<f64> {
    (reference != 0.0)
        .then(|| 100.0 * (x - reference) / reference)
        .filter(|p| p.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::MAX, f64::MAX]), Some(f64::MAX), "no overflow");
    }

    #[test]
    fn spread_is_the_scaled_mad_in_percent_of_the_median() {
        // Median 100; deviations 10, 0, 10 -> MAD 10 -> 1.4826 × 10 / 100.
        assert!(close(spread_pct(&[90.0, 100.0, 110.0]).unwrap(), 14.826));
        // One wild point barely moves it: median 100, deviations 0, 1, 1, 0, 900 -> MAD 1.
        let s = spread_pct(&[100.0, 99.0, 101.0, 100.0, 1000.0]).unwrap();
        assert!(close(s, 1.4826), "{s}");
        // Median 1.0, deviations 0.4, 0, 0.4, 0.2, 0.2 -> MAD 0.2 -> 29.652%.
        assert!(close(spread_pct(&[0.6, 1.0, 1.4, 0.8, 1.2]).unwrap(), 29.652));
        assert!(spread_pct(&[1.0, 2.0]).unwrap_err().contains("2 points"));
        assert!(spread_pct(&[0.0, 0.0, 0.0]).unwrap_err().contains("median is 0"));
    }

    #[test]
    fn the_band_is_three_spreads_and_none_when_too_wide_or_too_few() {
        let b = band(&Ok(2.0), 14);
        assert_eq!(
            b,
            Band::Gate {
                pct: 6.0,
                spread_pct: 2.0,
                n: 14
            }
        );
        let Band::NotGateable(why) = band(&Ok(30.0), 14) else {
            panic!("30% is too wide")
        };
        assert!(why.starts_with("not gateable: spread 30.0% over 14 runs"), "{why}");
        let Band::NotGateable(why) = band(&Ok(2.0), 4) else {
            panic!("4 runs are too few")
        };
        assert_eq!(why, "not gateable: spread 2.0% over 4 runs (5 needed)");
        let Band::NotGateable(why) = band(&spread_pct(&[1.0, 2.0]), 2) else {
            panic!("no spread")
        };
        assert_eq!(why, "not gateable: no spread over 2 runs (5 needed)");
        let Band::NotGateable(why) = band(&spread_pct(&[0.0; 6]), 6) else {
            panic!("a zero median")
        };
        assert!(why.starts_with("not gateable over 6 runs: the median is 0"), "{why}");
        // Exactly at the limit still gates.
        assert!(matches!(band(&Ok(25.0), 5), Band::Gate { .. }));
    }

    #[test]
    fn a_step_is_found_at_the_night_it_starts() {
        // 100 ± 1 for six nights, then 115 ± 1: the step starts at index 6.
        let v = [100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 115.0, 116.0, 114.0, 115.0];
        let s = find_step(&v).unwrap();
        assert_eq!(s.at, 6);
        assert_eq!((s.before, s.after), (100.0, 115.0));
        assert!(close(s.change_pct, 15.0));
        // The same noise with no step: nothing.
        assert_eq!(find_step(&[100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 101.0]), None);
        // Two nights at a new level are not yet one: the third point of the
        // side is still at the old level.
        assert_eq!(
            find_step(&[100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 115.0, 116.0]),
            None
        );
        let s = find_step(&[100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 115.0, 116.0, 114.0]).unwrap();
        assert_eq!((s.at, s.after), (7, 115.0));
        // Too few points on a side: nothing, however big.
        assert_eq!(find_step(&[100.0, 100.0, 100.0, 100.0, 200.0]), None);
        // A wide spread hides a step of its own size: ±20% noise, +15% level.
        let noisy = [80.0, 120.0, 100.0, 80.0, 120.0, 92.0, 138.0, 115.0, 92.0, 138.0];
        assert_eq!(find_step(&noisy), None);
    }

    #[test]
    fn a_step_is_searched_among_the_newest_points_only() {
        let mut v = vec![50.0; 10];
        v.extend(std::iter::repeat_n(100.0, STEP_WINDOW));
        assert_eq!(find_step(&v), None, "the old level lies outside the window");
        v.extend([110.0; 4]);
        assert_eq!(find_step(&v).map(|s| s.at), Some(10 + STEP_WINDOW));
    }

    #[test]
    fn a_times_band_floor_is_one_percent_or_five_seconds_of_it() {
        assert_eq!(time_band_floor_pct(1000.0), 1.0);
        assert_eq!(time_band_floor_pct(100.0), 5.0);
        assert_eq!(time_band_floor_pct(0.0), MIN_BAND_PCT, "no median, no resolution share");
    }

    #[test]
    fn change_against_a_reference() {
        assert_eq!(change_pct(115.0, 100.0), Some(15.0));
        assert_eq!(change_pct(1.0, 0.0), None);
    }
}
