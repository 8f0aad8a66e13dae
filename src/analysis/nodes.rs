//! Per-node figures from node_exporter samples: CPU busy % by
//! node_exporter's own rule, memory used %, with counter resets dropped and
//! long gaps breaking the line. The figures are a fold over the polls in
//! time order (`NodeFold`), so a long samples.jsonl can be summarised while
//! it is read instead of held whole.

use crate::input::samples::{PollFold, Sample};
use crate::timefmt::{Micros, MICROS_PER_SEC};
use std::collections::BTreeMap;

/// A point of a chart series; `None` breaks the line (a gap, not a zero).
pub(crate) type Point = (Micros, Option<f64>);

#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSeries {
    /// CPU busy % per interval, at the interval's end.
    pub(crate) cpu: Vec<Point>,
    /// Memory used % per sample.
    pub(crate) mem: Vec<Point>,
    pub(crate) cpu_pct_mean: Option<f64>,
    pub(crate) mem_pct_max: Option<f64>,
    /// Intervals dropped because a counter went backwards (iowait, a reboot).
    pub(crate) counter_resets: u64,
    /// Polls that landed on the same instant as the previous one.
    pub(crate) duplicate_polls: u64,
    /// Gaps longer than three median poll intervals.
    pub(crate) gaps: u64,
    pub(crate) load1_max: Option<f64>,
    /// The last poll's load: whether the node ended the run loaded beyond its cores.
    pub(crate) load1_end: Option<f64>,
    pub(crate) net_tx_bytes: Option<f64>,
    /// The gap limit in force differs from the one all the intervals give
    /// (a summarised node's limit is fixed by its first polls).
    pub(crate) gap_limit_moved: Option<LimitMoved>,
}

/// A node's gap limit, fixed by its first polls, against three times the
/// median of all its intervals, with the intervals the two count otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LimitMoved {
    pub(crate) used: Micros,
    /// About (within a fifth) the limit all the intervals give.
    pub(crate) all: Micros,
    /// Intervals one limit calls a gap and the other not, at least.
    pub(crate) intervals: u64,
}

/// Positive poll intervals counted in buckets a quarter of a power of two
/// wide: at most 256 buckets a node whatever it sent, enough to tell where
/// the median interval lies within a fifth.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Intervals {
    counts: BTreeMap<u8, u64>,
}

fn bucket_of(dt: Micros) -> u8 {
    // dt >= 1 µs: log2 lies in 0..63, so the bucket in 0..252.
    ((dt.max(1) as f64).log2() * 4.0).floor() as u8
}

impl Intervals {
    pub(crate) fn add(&mut self, dt: Micros) {
        if dt > 0 {
            *self.counts.entry(bucket_of(dt)).or_default() += 1;
        }
    }

    /// The bucket of the median interval, as `median` picks it (the n/2-th).
    fn median_bucket(&self) -> Option<u8> {
        let n: u64 = self.counts.values().sum();
        let mut seen = 0;
        self.counts.iter().find_map(|(b, c)| {
            seen += c;
            (seen > n / 2).then_some(*b)
        })
    }
}

/// Whether a gap limit counts intervals otherwise than three times the
/// median of `all` would. Three times a median in bucket m lies in bucket
/// m+6 or m+7 (m+5 to m+8 allowing for rounding); only the buckets strictly
/// between those and the limit's own are surely counted otherwise, so a limit that is all the intervals'
/// is never said to have moved.
pub(crate) fn limit_moved(used: Option<Micros>, all: &Intervals) -> Option<LimitMoved> {
    let (used, m) = (used?, all.median_bucket()?);
    let (lo, hi) = (m.saturating_add(5), m.saturating_add(8));
    let b = bucket_of(used);
    let between = |from: u8, to: u8| -> u64 { all.counts.range(from..to).map(|(_, c)| c).sum() };
    let intervals = if b < lo {
        between(b + 1, lo)
    } else if b > hi {
        between(hi + 1, b)
    } else {
        0
    };
    let median = 2f64.powf((f64::from(m) + 0.5) / 4.0);
    (intervals > 0).then_some(LimitMoved {
        used,
        all: (3.0 * median) as Micros,
        intervals,
    })
}

fn median(mut v: Vec<Micros>) -> Option<Micros> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    Some(v[v.len() / 2])
}

/// The rule for a gap: an interval longer than three times the median of
/// the node's intervals (`samples` sorted by time; a summarised node's
/// first polls, see `input::samples`).
pub(crate) fn gap_limit(samples: &[Sample]) -> Option<Micros> {
    let steps: Vec<Micros> = samples
        .windows(2)
        .map(|w| w[1].ts - w[0].ts)
        .filter(|d| *d > 0)
        .collect();
    median(steps).map(|m| m.saturating_mul(3))
}

/// `samples` must be sorted by time.
pub fn analyse(samples: &[Sample]) -> NodeSeries {
    let mut fold = NodeFold::new(gap_limit(samples));
    for s in samples {
        fold.add(s);
    }
    fold.finish()
}

/// Buckets a folded series may hold before adjacent ones are merged: it
/// keeps 256 to 512 buckets of two points (at most 25 kB), half to all the
/// detail of the view's largest budget (`view::MAX_SERIES_POINTS`).
pub(crate) const FOLD_BUCKETS: usize = 512;

/// A series kept at bounded size as it grows: each bucket of `per` points
/// reduced to its extremes (or its break), adjacent buckets merged pairwise
/// when there are more than `FOLD_BUCKETS`, so the detail stays even over
/// time. Until the first merge every point is kept as it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Points {
    kept: Vec<Point>,
    /// Where each whole bucket's points end in `kept`.
    ends: Vec<u32>,
    /// The points of the bucket being filled.
    open: Vec<Point>,
    per: usize,
}

impl Default for Points {
    fn default() -> Self {
        Points {
            kept: vec![],
            ends: vec![],
            open: vec![],
            per: 1,
        }
    }
}

impl Points {
    pub(crate) fn push(&mut self, p: Point) {
        if self.per == 1 {
            // A bucket of one point reduces to that point: until the first
            // merge (every poll of most nodes) it is kept without a bucket.
            // (Not so for a NaN, which `reduce_bucket` keeps twice as
            // `hi != lo`; the shares drawn here are finite by construction.)
            self.kept.push(p);
        } else {
            self.open.push(p);
            if self.open.len() < self.per {
                return;
            }
            reduce_bucket(&self.open, &mut self.kept);
            self.open.clear();
        }
        // A series is at most a few million points: u32 holds its length.
        self.ends.push(u32::try_from(self.kept.len()).unwrap_or(u32::MAX));
        if self.ends.len() > FOLD_BUCKETS {
            self.merge_pairs();
        }
    }

    /// Halves the buckets: each pair reduced as one, twice as wide.
    fn merge_pairs(&mut self) {
        let mut kept = Vec::with_capacity(self.kept.len() / 2 + 4);
        let mut ends = Vec::with_capacity(self.ends.len() / 2 + 1);
        let mut start = 0;
        for pair in self.ends.chunks(2) {
            let end = pair[pair.len() - 1] as usize;
            reduce_bucket(&self.kept[start..end], &mut kept);
            ends.push(u32::try_from(kept.len()).unwrap_or(u32::MAX));
            start = end;
        }
        self.kept = kept;
        self.ends = ends;
        self.per = self.per.saturating_mul(2);
    }

    /// The points kept, the open bucket's reduced as the others were.
    pub(crate) fn finish(mut self) -> Vec<Point> {
        reduce_bucket(&self.open, &mut self.kept);
        self.kept
    }
}

/// One bucket of a series reduced, appended to `out`: its minimum and
/// maximum in time order, or, when it holds a break, its first value, the
/// break and its last value (a single point is kept as it is). Appended
/// rather than returned: a folded series closes a bucket every few polls.
pub(crate) fn reduce_bucket(bucket: &[Point], out: &mut Vec<Point>) {
    let Some((first, rest)) = bucket.split_first() else {
        return;
    };
    // One pass, picking as `min_by` and `max_by` pick (the first lowest,
    // the last highest): the iterators' three passes were most of a fold's
    // cost once its buckets hold two points.
    let order = |a: &Point, b: &Point| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal);
    let (mut lo, mut hi, mut broken) = (first, first, first.1.is_none());
    for p in rest {
        broken |= p.1.is_none();
        if order(lo, p).is_gt() {
            lo = p;
        }
        if order(hi, p).is_le() {
            hi = p;
        }
    }
    if broken {
        reduce_broken_bucket(bucket, out);
    } else if lo.0 <= hi.0 {
        out.push(*lo);
        if hi != lo {
            out.push(*hi);
        }
    } else {
        out.extend([*hi, *lo]);
    }
}

/// `reduce_bucket` of a bucket that holds a break.
fn reduce_broken_bucket(bucket: &[Point], out: &mut Vec<Point>) {
    let first = bucket.iter().find(|p| p.1.is_some());
    let gap = bucket.iter().find(|p| p.1.is_none());
    let last = bucket.iter().rev().find(|p| p.1.is_some());
    let mut keep = [first, gap, last];
    keep.sort_by_key(|p| p.map(|p| p.0));
    let from = out.len();
    for p in keep.into_iter().flatten() {
        if out.len() == from || out.last() != Some(p) {
            out.push(*p);
        }
    }
}

/// The node figures so far, over polls given in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeFold {
    gap_limit: Option<Micros>,
    prev: Option<Sample>,
    cpu: Points,
    mem: Points,
    /// Busy % times seconds, and the seconds, of the intervals averaged.
    weighted: f64,
    weight: f64,
    intervals: Intervals,
    /// Bytes sent: the sum of non-negative counter deltas.
    tx: Option<f64>,
    out: NodeSeries,
}

impl PollFold for NodeFold {
    fn starting_from(first: &[Sample]) -> Self {
        NodeFold::new(gap_limit(first))
    }
    fn add(&mut self, s: &Sample) {
        NodeFold::add(self, s)
    }
}

impl NodeFold {
    pub(crate) fn new(gap_limit: Option<Micros>) -> Self {
        NodeFold {
            gap_limit,
            prev: None,
            cpu: Points::default(),
            mem: Points::default(),
            weighted: 0.0,
            weight: 0.0,
            intervals: Intervals::default(),
            tx: None,
            out: NodeSeries::default(),
        }
    }

    /// The next poll, not older than the previous one.
    pub(crate) fn add(&mut self, s: &Sample) {
        if let (Some(t), Some(a)) = (s.mem_total, s.mem_available) {
            if t > 0.0 && a >= 0.0 && a <= t {
                let pct = 100.0 * (1.0 - a / t);
                self.out.mem_pct_max = Some(self.out.mem_pct_max.map_or(pct, |m: f64| m.max(pct)));
                self.mem.push((s.ts, Some(pct)));
            }
        }
        if let Some(l) = s.load1 {
            self.out.load1_max = Some(self.out.load1_max.map_or(l, |m: f64| m.max(l)));
            self.out.load1_end = Some(l);
        }
        let Some(prev) = self.prev.replace(*s) else {
            return;
        };
        if let (Some(a), Some(b)) = (prev.net_tx, s.net_tx) {
            if b >= a {
                self.tx = Some(self.tx.unwrap_or(0.0) + (b - a));
            }
        }
        self.interval(&prev, s);
    }

    /// The interval from `prev` to `s`: a duplicate, a gap, a reset or a busy %.
    fn interval(&mut self, prev: &Sample, s: &Sample) {
        let dt = s.ts - prev.ts;
        self.intervals.add(dt);
        if dt <= 0 {
            self.out.duplicate_polls += 1;
            return;
        }
        if self.gap_limit.is_some_and(|g| dt > g) {
            self.out.gaps += 1;
            self.cpu.push((prev.ts + dt / 2, None));
            self.mem.push((prev.ts + dt / 2, None));
            return;
        }
        let (Some(t0), Some(i0), Some(t1), Some(i1)) = (prev.cpu_total, prev.cpu_idle, s.cpu_total, s.cpu_idle) else {
            return;
        };
        let (d_total, d_idle) = (t1 - t0, i1 - i0);
        if d_total < 0.0 || d_idle < 0.0 || d_idle > d_total {
            self.out.counter_resets += 1;
            self.cpu.push((s.ts, None));
            return;
        }
        if d_total == 0.0 {
            return;
        }
        let busy = 100.0 * (1.0 - d_idle / d_total);
        self.cpu.push((s.ts, Some(busy)));
        let w = dt as f64 / MICROS_PER_SEC;
        self.weighted += busy * w;
        self.weight += w;
    }

    pub(crate) fn finish(self) -> NodeSeries {
        let mut out = self.out;
        out.cpu = self.cpu.finish();
        out.mem = self.mem.finish();
        if self.weight > 0.0 {
            out.cpu_pct_mean = Some(self.weighted / self.weight).filter(|m| m.is_finite());
        }
        // Deltas of finite counters can still add up past the largest number.
        out.net_tx_bytes = self.tx.filter(|t: &f64| t.is_finite());
        out.gap_limit_moved = limit_moved(self.gap_limit, &self.intervals);
        out
    }
}

/// Points per chart series at most: display resolution, peaks kept.
pub(crate) const MAX_SERIES_POINTS: usize = 2000;
/// Up to this many nodes each series keeps `MAX_SERIES_POINTS`; a larger
/// fleet shares what eight would have, so data.json and the page stay the
/// same size however many nodes poll.
pub(crate) const FULL_DETAIL_NODES: usize = 8;

/// The points one node's series may keep in a fleet of `nodes`.
pub(crate) fn series_budget(nodes: usize) -> usize {
    // Four points is the least a reduced series keeps (a bucket's extremes).
    (MAX_SERIES_POINTS * FULL_DETAIL_NODES / nodes.max(1)).clamp(4, MAX_SERIES_POINTS)
}

/// Reduces a series to at most `max` points, keeping each bucket's minimum
/// and maximum in time order so peaks survive; gaps (`None`) are kept.
pub(crate) fn reduce_min_max(points: &[(Micros, Option<f64>)], max: usize) -> (Vec<(Micros, Option<f64>)>, bool) {
    if points.len() <= max || max < 4 {
        return (points.to_vec(), false);
    }
    let per = points.len().div_ceil(max / 2);
    let mut out = Vec::with_capacity(max + 8);
    for bucket in points.chunks(per) {
        reduce_bucket(bucket, &mut out);
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t_s: i64, total: f64, idle: f64) -> Sample {
        Sample {
            ts: t_s * 1_000_000,
            cpu_total: Some(total),
            cpu_idle: Some(idle),
            mem_total: Some(100.0),
            mem_available: Some(75.0),
            net_tx: None,
            load1: Some(1.0),
        }
    }

    #[test]
    fn the_end_load_is_the_last_polls_not_the_highest() {
        let mut s = [sample(0, 0.0, 0.0), sample(10, 40.0, 0.0), sample(20, 80.0, 0.0)];
        s[1].load1 = Some(40.0);
        s[2].load1 = Some(3.0);
        let n = analyse(&s);
        assert_eq!((n.load1_max, n.load1_end), (Some(40.0), Some(3.0)));
    }

    #[test]
    fn busy_is_one_minus_idle_share_and_the_mean_is_time_weighted() {
        // 0-10 s: 40 of 40 CPU-seconds busy (100 %); 10-30 s: 20 of 80 busy (25 %).
        let s = [sample(0, 0.0, 0.0), sample(10, 40.0, 0.0), sample(30, 120.0, 60.0)];
        let n = analyse(&s);
        assert_eq!(n.cpu, vec![(10_000_000, Some(100.0)), (30_000_000, Some(25.0))]);
        // (100*10 + 25*20) / 30 = 50
        assert!((n.cpu_pct_mean.unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(n.mem_pct_max, Some(25.0));
    }

    #[test]
    fn a_counter_going_backwards_drops_that_interval_and_is_counted() {
        let s = [
            sample(0, 100.0, 50.0),
            sample(10, 140.0, 60.0),
            sample(20, 10.0, 5.0),
            sample(30, 50.0, 15.0),
        ];
        let n = analyse(&s);
        assert_eq!(n.counter_resets, 1);
        assert_eq!(n.cpu[1], (20_000_000, None));
        // The two valid intervals are 75 % busy each.
        assert!((n.cpu_pct_mean.unwrap() - 75.0).abs() < 1e-9);
    }

    #[test]
    fn a_gap_longer_than_three_median_polls_breaks_the_line() {
        let s = [
            sample(0, 0.0, 0.0),
            sample(2, 8.0, 4.0),
            sample(4, 16.0, 8.0),
            sample(40, 160.0, 80.0),
            sample(42, 168.0, 84.0),
        ];
        let n = analyse(&s);
        assert_eq!(n.gaps, 1);
        assert!(n.cpu.iter().any(|(_, v)| v.is_none()));
        // The gap's 36 s are not averaged in: three 2 s intervals at 50 %.
        assert!((n.cpu_pct_mean.unwrap() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn no_cpu_counters_means_no_mean_not_zero() {
        let mut s = [sample(0, 0.0, 0.0), sample(10, 0.0, 0.0)];
        for x in &mut s {
            x.cpu_total = None;
        }
        assert_eq!(analyse(&s).cpu_pct_mean, None);
    }

    /// Polls with a counter reset, a gap and a duplicate poll, every 2 s.
    fn eventful() -> Vec<Sample> {
        let mut s: Vec<Sample> = (0..40).map(|i| sample(2 * i, 8.0 * i as f64, 3.0 * i as f64)).collect();
        s[12].cpu_total = Some(1.0); // a reset: the counter went backwards
        for x in &mut s[25..] {
            x.ts += 60_000_000; // a gap of a minute
        }
        s[20].ts = s[19].ts; // a duplicate poll
        for (i, x) in s.iter_mut().enumerate() {
            x.net_tx = Some(100.0 * i as f64);
            x.mem_available = Some(75.0 - i as f64);
        }
        s
    }

    #[test]
    fn folding_in_two_parts_with_the_limit_fixed_equals_folding_at_once() {
        let s = eventful();
        let once = analyse(&s);
        assert_eq!((once.counter_resets, once.gaps, once.duplicate_polls), (1, 1, 1));
        // Cut at the reset, the duplicate and the gap: the fold carries the
        // previous poll across.
        for cut in [0, 12, 13, 20, 25, 39, 40] {
            let mut fold = NodeFold::new(gap_limit(&s));
            s[..cut].iter().for_each(|x| fold.add(x));
            let mut later = fold.clone();
            s[cut..].iter().for_each(|x| later.add(x));
            assert_eq!(later.finish(), once, "cut at {cut}");
        }
        assert_eq!(once.net_tx_bytes, Some(3900.0));
    }

    #[test]
    fn a_long_series_is_kept_in_bounded_buckets_with_its_peaks_and_breaks() {
        let mut p = Points::default();
        let n = 100_000i64;
        for i in 0..n {
            let v = match i {
                31_337 => None,
                77_777 => Some(1000.0),
                _ => Some((i % 10) as f64),
            };
            p.push((i, v));
        }
        let kept = p.finish();
        assert!(kept.len() <= 3 * FOLD_BUCKETS + 3, "{} points kept", kept.len());
        assert!(
            kept.len() >= FOLD_BUCKETS,
            "{} points kept: the display's detail",
            kept.len()
        );
        assert!(kept.contains(&(31_337, None)), "the break");
        assert!(kept.contains(&(77_777, Some(1000.0))), "the peak");
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0), "in time order");
        // Below the bound every point is kept as it is.
        let mut few = Points::default();
        (0..100).for_each(|i| few.push((i, Some(i as f64))));
        assert_eq!(few.finish(), (0..100).map(|i| (i, Some(i as f64))).collect::<Vec<_>>());
    }

    /// `reduce_bucket` as it was written first, in three passes: the reference.
    fn reduce_bucket_by_iterators(bucket: &[Point], out: &mut Vec<Point>) {
        if bucket.iter().any(|p| p.1.is_none()) {
            // A bucket with a break is reduced as it always was: the one
            // pass changed only the others.
            reduce_broken_bucket(bucket, out);
            return;
        }
        let lo = bucket
            .iter()
            .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        let hi = bucket
            .iter()
            .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return;
        };
        if lo.0 <= hi.0 {
            out.push(*lo);
            if hi != lo {
                out.push(*hi);
            }
        } else {
            out.extend([*hi, *lo]);
        }
    }

    #[test]
    fn a_bucket_is_reduced_to_the_points_the_iterators_picked() {
        // Ties, NaN, breaks and lone points, in buckets of one to five.
        let values = [
            Some(1.0),
            Some(1.0),
            None,
            Some(f64::NAN),
            Some(-0.0),
            Some(0.0),
            Some(3.0),
            Some(2.0),
        ];
        let mut checked = 0;
        for len in 1..=5usize {
            for seed in 0..values.len().pow(len as u32) {
                let bucket: Vec<Point> = (0..len)
                    .map(|i| (i as i64 * 10, values[seed / values.len().pow(i as u32) % values.len()]))
                    .collect();
                let (mut got, mut want) = (vec![(-1, None)], vec![(-1, None)]);
                reduce_bucket(&bucket, &mut got);
                reduce_bucket_by_iterators(&bucket, &mut want);
                let bits = |v: &[Point]| v.iter().map(|p| (p.0, p.1.map(f64::to_bits))).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{bucket:?}");
                checked += 1;
            }
        }
        assert!(checked > 30_000);
    }

    /// `Points::push` as it was before a bucket of one point skipped the
    /// bucket: every point through `open` and `reduce_bucket`.
    fn push_through_a_bucket(p: &mut Points, x: Point) {
        p.open.push(x);
        if p.open.len() < p.per {
            return;
        }
        reduce_bucket(&p.open, &mut p.kept);
        p.open.clear();
        p.ends.push(u32::try_from(p.kept.len()).unwrap());
        if p.ends.len() > FOLD_BUCKETS {
            p.merge_pairs();
        }
    }

    #[test]
    fn points_kept_one_at_a_time_are_those_a_bucket_of_one_would_keep() {
        // Breaks, ties and lone points on both sides of the first merges.
        let series = |n: i64| -> Vec<Point> {
            (0..n)
                .map(|i| (i, (i % 13 != 5).then_some(((i * 7919) % 17) as f64)))
                .collect()
        };
        for n in [0, 1, 2, 511, 512, 513, 514, 1025, 1026, 3000] {
            let points = series(n);
            let (mut p, mut reference) = (Points::default(), Points::default());
            for x in &points {
                p.push(*x);
                push_through_a_bucket(&mut reference, *x);
            }
            assert_eq!(p.finish(), reference.finish(), "{n} points");
        }
    }

    fn intervals(secs: &[(i64, u64)]) -> Intervals {
        let mut all = Intervals::default();
        for &(s, n) in secs {
            (0..n).for_each(|_| all.add(s * 1_000_000));
        }
        all
    }

    #[test]
    fn a_gap_limit_fixed_by_polls_every_2s_is_said_to_have_moved_when_most_came_every_30s() {
        // 1,000 intervals of 2 s, then 4,000 of 30 s: the median is 30 s, so
        // all the intervals' limit is 90 s; a limit of 6 s breaks at each 30 s.
        let all = intervals(&[(2, 1000), (30, 4000)]);
        let m = limit_moved(Some(6_000_000), &all).expect("moved");
        assert_eq!(m.intervals, 4000);
        assert!((80_000_000..100_000_000).contains(&m.all), "{}", m.all);
        // The other way: a 90 s limit from 30 s polls, when most came every 2 s.
        let all = intervals(&[(30, 1000), (2, 4000)]);
        assert_eq!(limit_moved(Some(90_000_000), &all).map(|m| m.intervals), Some(1000));
    }

    #[test]
    fn a_gap_limit_that_is_all_the_intervals_own_has_not_moved() {
        // Jittered polls, a few real gaps: the exact limit is never flagged.
        for (step, jitter) in [(2_000_000, 900_000), (5_000_000, 1), (1, 0), (30_000_000, 29_000_000)] {
            let dts: Vec<Micros> = (0..2000i64)
                .map(|i| step + (i * 7919) % (jitter + 1) + if i % 400 == 0 { 100 * step } else { 0 })
                .collect();
            let mut all = Intervals::default();
            dts.iter().for_each(|d| all.add(*d));
            let limit = median(dts.clone()).map(|m| m * 3);
            assert_eq!(limit_moved(limit, &all), None, "every {step} µs ± {jitter}");
        }
        assert_eq!(limit_moved(None, &intervals(&[(2, 10)])), None);
        assert_eq!(limit_moved(Some(6_000_000), &Intervals::default()), None);
    }

    #[test]
    fn the_analysis_of_all_polls_at_once_never_says_its_limit_moved() {
        let s = eventful();
        assert_eq!(analyse(&s).gap_limit_moved, None);
    }
}
