use super::*;

/// Gaussian noise from a fixed seed (a linear congruential generator and
/// Box-Muller), so a series is the same on every machine.
fn noise(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed;
    let mut u = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| (-2.0 * u().ln()).sqrt() * (2.0 * std::f64::consts::PI * u()).cos())
        .collect()
}

/// `n` nights around `level` seconds with relative noise `pct`.
fn nights(level: f64, pct: f64, n: usize, seed: u64) -> Vec<SeriesNight> {
    noise(seed, n)
        .into_iter()
        .map(|z| SeriesNight {
            value: level * (1.0 + pct / 100.0 * z),
            loaded: false,
        })
        .collect()
}

#[test]
fn the_threshold_holds_the_nights_error_rate_across_its_checks() {
    // One check: 2% of nights over two tests' worth, 1% each.
    assert!((normal_upper_quantile(0.01) - 2.3263).abs() < 1e-3);
    assert!((normal_upper_quantile(0.025) - 1.95996).abs() < 1e-4);
    assert!((threshold(1) - 2.3263).abs() < 1e-3);
    // 48 targets x 5 metrics: far out, so noise alone seldom crosses it.
    let wide = threshold(240);
    assert!(wide > 3.8 && wide < 4.1, "{wide}");
    assert!(threshold(1000) > wide);
}

#[test]
fn qn_estimates_a_normal_spread_and_ignores_one_spike() {
    let z = noise(7, 400);
    let s = qn(&z).unwrap();
    assert!((s - 1.0).abs() < 0.12, "{s}");
    let mut spiked = z.clone();
    spiked[10] = 80.0;
    assert!((qn(&spiked).unwrap() - s).abs() < 0.03);
    assert_eq!(qn(&[1.0]), None);
}

#[test]
fn a_quiet_series_has_no_change_of_level() {
    for seed in 1..20 {
        let l = judge(&nights(1000.0, 2.0, 120, seed), Scale::Time, 240, 1.0);
        assert!(l.changes.is_empty(), "seed {seed}: {:?}", l.changes);
        assert!(!l.nights.contains(&Judged::Changed));
    }
}

#[test]
fn a_step_is_called_the_night_after_it_lands_backed_by_nights_on_both_sides() {
    let mut n = nights(1000.0, 1.0, 60, 3);
    for x in &mut n[30..] {
        x.value *= 1.2;
    }
    let l = judge(&n, Scale::Time, 240, 1.0);
    assert_eq!(l.changes.len(), 1, "{:?}", l.changes);
    let c = &l.changes[0];
    assert_eq!((c.last_before, c.first, c.called), (29, 30, 31));
    assert!((c.change_pct - 20.0).abs() < 2.5, "{}", c.change_pct);
    assert!(c.sigmas.unwrap() > 6.0, "a 20% change over 1% noise: {:?}", c.sigmas);
    assert!(c.noise_pct > 0.5 && c.noise_pct < 2.0, "{}", c.noise_pct);
    assert_eq!(l.nights[30], Judged::Changed);
    assert_eq!(l.nights[31], Judged::Confirmed);
    // The night it landed was only watched when it was judged: the replay
    // says what that night's gate said.
    let landed = judge(&n[..31], Scale::Time, 240, 1.0);
    assert!(landed.changes.is_empty());
    assert_eq!(landed.nights[30], Judged::Watched);
    // After it, the new level is the level.
    let (level, _) = l.level.unwrap();
    assert!((level / 1200.0 - 1.0).abs() < 0.02, "{level}");
}

#[test]
fn a_one_night_outlier_is_no_change_and_leaves_the_level_alone() {
    let mut n = nights(1000.0, 1.0, 40, 5);
    n[20].value *= 1.4;
    let l = judge(&n, Scale::Time, 240, 1.0);
    assert!(l.changes.is_empty());
    assert_eq!(l.nights[20], Judged::Outlier);
    assert!((l.level.unwrap().0 / 1000.0 - 1.0).abs() < 0.01);
}

#[test]
fn a_loaded_night_is_loaded_not_a_change_however_slow() {
    let mut n = nights(1000.0, 1.0, 40, 9);
    for k in [20, 21] {
        n[k].value *= 1.5;
        n[k].loaded = true;
    }
    let l = judge(&n, Scale::Time, 240, 1.0);
    assert!(l.changes.is_empty(), "{:?}", l.changes);
    assert_eq!(&l.nights[20..22], &[Judged::Loaded, Judged::Loaded]);
}

#[test]
fn a_level_that_returns_is_a_second_change_the_other_way() {
    let mut n = nights(1000.0, 1.0, 80, 11);
    for x in &mut n[30..50] {
        x.value *= 1.15;
    }
    let l = judge(&n, Scale::Time, 240, 1.0);
    assert_eq!(l.changes.len(), 2, "{:?}", l.changes);
    assert!(l.changes[0].up() && !l.changes[1].up());
    assert_eq!(l.changes[1].first, 50);
    assert_eq!(l.changes[1].last_before, 49);
}

#[test]
fn a_small_change_that_holds_is_found_by_the_longer_windows() {
    // 2.5x the noise: too small for two nights to call, plain over eight.
    let found = (0..20)
        .filter(|seed| {
            let mut n = nights(1000.0, 2.0, 100, 100 + seed);
            for x in &mut n[50..] {
                x.value *= 1.05;
            }
            let l = judge(&n, Scale::Time, 240, 1.0);
            let early = judge(&n[..52], Scale::Time, 240, 1.0);
            let c = l.changes.first();
            early.changes.is_empty() && c.is_some_and(|c| (48..=53).contains(&c.first) && c.called <= 58)
        })
        .count();
    assert!(found >= 12, "{found} of 20 found within eight nights, none within two");
}

#[test]
fn a_count_is_compared_as_a_count() {
    let mut n: Vec<SeriesNight> = (0..20)
        .map(|_| SeriesNight {
            value: 7.0,
            loaded: false,
        })
        .collect();
    n[8].value = 6.0;
    for x in &mut n[14..] {
        x.value = 6.0;
    }
    let l = judge(&n, Scale::Count, 240, 1.0);
    assert_eq!(
        l.nights[8],
        Judged::Outlier,
        "one night one step fewer is a miss, not a level"
    );
    assert_eq!(l.changes.len(), 1);
    let c = &l.changes[0];
    assert_eq!((c.first, c.called, c.delta), (14, 15, -1.0));
    assert_eq!(c.sigmas, None);
}

#[test]
fn heavy_tails_widen_the_noise_and_normal_ones_do_not() {
    let normal: Vec<Vec<f64>> = (0..20)
        .map(|s| nights(1000.0, 2.0, 60, s).iter().map(|n| n.value).collect())
        .collect();
    let f = tail_factor(&normal);
    assert!(f < 1.25, "{f}");
    // Every tenth night 8x the noise off: a tail a normal spread misses.
    let heavy: Vec<Vec<f64>> = normal
        .iter()
        .map(|v| {
            v.iter()
                .enumerate()
                .map(|(i, x)| if i % 10 == 3 { x * 1.16 } else { *x })
                .collect()
        })
        .collect();
    assert!(tail_factor(&heavy) > 1.5, "{}", tail_factor(&heavy));
    assert_eq!(tail_factor(&normal[..1]), 1.0, "too few differences to say");
}

/// Of `runs` series of 120 nights with 2% normal noise, each judged as one of
/// a night's 240 checks: how many nights noise alone called a change on.
fn false_calls(runs: u64) -> usize {
    (0..runs)
        .map(|seed| {
            judge(&nights(1000.0, 2.0, 120, 1000 + seed), Scale::Time, 240, 1.0)
                .changes
                .len()
        })
        .sum()
}

#[test]
fn noise_alone_calls_about_as_few_changes_as_the_nights_error_rate_allows() {
    // 300 series x 120 nights at 2% of nights over 240 checks: 3 at the bound.
    let calls = false_calls(300);
    assert!(calls <= 4, "{calls} false changes in 36,000 series-nights");
}

#[test]
fn a_change_of_four_times_the_noise_is_called_within_two_nights_nearly_always() {
    let mut within_two = 0;
    let mut by_next = 0;
    let trials = 200;
    for seed in 0..trials {
        for (sigmas, counter) in [(4.0, &mut within_two), (6.0, &mut by_next)] {
            let mut n = nights(1000.0, 2.0, 80, 5000 + seed);
            for x in &mut n[60..] {
                x.value *= 1.0 + sigmas * 0.02;
            }
            let l = judge(&n, Scale::Time, 240, 1.0);
            let limit = if sigmas == 4.0 { 62 } else { 61 };
            if l.changes
                .iter()
                .any(|c| (59..=61).contains(&c.first) && c.called <= limit)
            {
                *counter += 1;
            }
        }
    }
    assert!(
        within_two * 100 >= 90 * trials as usize,
        "4x within two nights: {within_two} of {trials}"
    );
    assert!(
        by_next * 100 >= 95 * trials as usize,
        "6x by the next night: {by_next} of {trials}"
    );
}

#[test]
fn a_spike_inside_a_long_window_is_not_a_level() {
    // One night 8x the noise up, then four nights half the noise above the level:
    // a mean over five carries the spike past the threshold, a level does not.
    let called = (0..20)
        .filter(|seed| {
            let mut n = nights(1000.0, 2.0, 80, 300 + seed);
            n[60].value *= 1.16;
            for x in &mut n[61..65] {
                x.value *= 1.01;
            }
            let l = judge(&n, Scale::Time, 240, 1.0);
            l.changes.iter().any(|c| (58..=66).contains(&c.first))
        })
        .count();
    assert!(called <= 1, "{called} of 20 called a change from one spike");
}

/// 30 nights of 1% noise at 1000 s, then `after` (factors of the level).
fn landing(seed: u64, after: &[f64]) -> Vec<SeriesNight> {
    let mut n = nights(1000.0, 1.0, 30, seed);
    n.extend(after.iter().map(|f| SeriesNight {
        value: 1000.0 * f,
        loaded: false,
    }));
    n
}

#[test]
fn a_change_whose_second_night_noise_pulled_back_is_called_on_its_third() {
    // A fleet of 48 targets with heavy tails (a band twice as wide): +6.5%,
    // then a night only +2.8%, inside the band yet half the shift, then
    // +6.5% again. Two of its three nights are beyond and all carry it: the
    // third night calls it, from its first; the lane is not left waiting
    // for two more nights beyond in a row.
    for seed in [25, 26, 30, 31] {
        let n = landing(seed, &[1.065, 1.028, 1.065, 1.065]);
        let l = judge(&n[..33], Scale::Time, 240, 2.0);
        assert_eq!(
            l.then[31],
            Judged::Level,
            "seed {seed}: the second night is inside the band"
        );
        let c = l
            .changes
            .first()
            .unwrap_or_else(|| panic!("seed {seed}: not called on the third night"));
        assert_eq!((c.first, c.called), (30, 32), "seed {seed}");
        assert_eq!(l.then[32], Judged::Confirmed);
    }
}

#[test]
fn a_spike_and_two_nights_short_of_it_are_no_change() {
    // +12%, then +3% (just beyond the band) and +0.5%: most of the three are
    // beyond and on one side, but the first carries the shift alone (the
    // last holds less than half of it), so it is a spike.
    for seed in [24, 28, 29] {
        let n = landing(seed, &[1.12, 1.03, 1.005, 1.0]);
        let l = judge(&n, Scale::Time, 240, 2.0);
        assert!(l.changes.is_empty(), "seed {seed}: {:?}", l.changes);
        assert_eq!(l.then[31], Judged::Watched, "seed {seed}: the second night is beyond");
        assert_eq!(l.nights[30], Judged::Outlier);
    }
}

#[test]
fn a_small_change_called_days_late_starts_the_night_it_landed() {
    // 2.5x the noise: two nights cannot call it, so a longer window does,
    // days after it landed. The window is only its newest nights; the
    // change itself, and the pair of nights its cause is read from, start
    // where the level moved.
    let mut off = vec![];
    for seed in 0..20 {
        let mut n = nights(1000.0, 2.0, 100, 300 + seed);
        for x in &mut n[50..] {
            x.value *= 1.05;
        }
        let l = judge(&n, Scale::Time, 240, 1.0);
        if let Some(c) = l.changes.first() {
            assert!(c.first <= c.called, "seed {seed}: {c:?}");
            assert_eq!(l.nights[c.first], Judged::Changed);
            off.push(c.first.abs_diff(50));
        }
    }
    let near = off.iter().filter(|d| **d <= 1).count();
    assert!(
        off.len() >= 18 && near + 2 >= off.len(),
        "nights off the landing: {off:?}"
    );
    assert!(off.iter().all(|d| *d <= 3), "nights off the landing: {off:?}");
}

#[test]
fn nights_between_two_levels_stay_with_the_old_one() {
    // +3% and +4% (a ramp no window calls), then +15%: the change starts at
    // the +15% nights, and its new level is theirs, not pulled down by the
    // ramp (which would leave the next nights looking like a second change).
    let n = landing(5, &[1.03, 1.04, 1.15, 1.15, 1.15, 1.15, 1.15]);
    let l = judge(&n, Scale::Time, 240, 1.0);
    assert_eq!(l.changes.len(), 1, "{:?}", l.changes);
    let c = &l.changes[0];
    assert_eq!((c.first, c.called), (32, 33), "{c:?}");
    assert!((c.after / 1000.0 - 1.15).abs() < 0.01, "{c:?}");
}

fn values(v: &[f64]) -> Vec<SeriesNight> {
    v.iter().map(|&value| SeriesNight { value, loaded: false }).collect()
}

#[test]
fn a_spike_two_nights_before_a_step_is_not_the_steps_first_night() {
    // Flat, a one-night spike (a layer-cache miss), one night back at the
    // level (a second off it), then +15% (or -15%) for good. The spike lies
    // nearer the new level than the old, but not at it: the step starts
    // where it landed, so its id, "open since" and cause pair are the
    // step's, not the spike's.
    for (spike, back, new) in [(1300.0, 1001.0, 1150.0), (700.0, 999.0, 850.0)] {
        let mut v = vec![1000.0; 30];
        v.extend([spike, back]);
        v.extend([new; 8]);
        let l = judge(&values(&v), Scale::Time, 240, 1.0);
        assert_eq!(l.changes.len(), 1, "{:?}", l.changes);
        let c = &l.changes[0];
        assert_eq!((c.last_before, c.first, c.called), (31, 32, 33), "spike {spike}: {c:?}");
        assert_eq!(l.nights[30], Judged::Outlier, "spike {spike}");
    }
    // The same over 1% noise, the night between at the level: the step's
    // own call (its two nights, on night 33) starts on night 32.
    let mut called = 0;
    for seed in 0..20 {
        let mut n = landing(seed, &[1.30, 1.0, 1.15, 1.15, 1.15, 1.15, 1.15, 1.15]);
        n[31].value = n[29].value;
        let l = judge(&n, Scale::Time, 240, 1.0);
        if let Some(c) = l.changes.iter().find(|c| c.called == 33) {
            assert_eq!(c.first, 32, "seed {seed}: {c:?}");
            called += 1;
        }
    }
    assert!(called >= 18, "the step called on its second night in {called} of 20");
}
