//! Per-node figures from node_exporter samples: CPU busy % by
//! node_exporter's own rule, memory used %, with counter resets dropped and
//! long gaps breaking the line.

use crate::input::samples::Sample;
use crate::timefmt::{Micros, MICROS_PER_SEC};

/// A point of a chart series; `None` breaks the line (a gap, not a zero).
pub type Point = (Micros, Option<f64>);

#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSeries {
    /// CPU busy % per interval, at the interval's end.
    pub cpu: Vec<Point>,
    /// Memory used % per sample.
    pub mem: Vec<Point>,
    pub cpu_pct_mean: Option<f64>,
    pub mem_pct_max: Option<f64>,
    /// Intervals dropped because a counter went backwards (iowait, a reboot).
    pub counter_resets: u64,
    /// Polls that landed on the same instant as the previous one.
    pub duplicate_polls: u64,
    /// Gaps longer than three median poll intervals.
    pub gaps: u64,
    pub load1_max: Option<f64>,
    /// The last poll's load: whether the node ended the run loaded beyond its cores.
    pub load1_end: Option<f64>,
    pub net_tx_bytes: Option<f64>,
}

fn median(mut v: Vec<Micros>) -> Option<Micros> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    Some(v[v.len() / 2])
}

/// `samples` must be sorted by time.
pub fn analyse(samples: &[Sample]) -> NodeSeries {
    let mut out = NodeSeries::default();
    let steps: Vec<Micros> = samples
        .windows(2)
        .map(|w| w[1].ts - w[0].ts)
        .filter(|d| *d > 0)
        .collect();
    let gap_limit = median(steps).map(|m| m * 3);

    let mut weighted = 0.0;
    let mut weight = 0.0;
    for (i, s) in samples.iter().enumerate() {
        if let (Some(t), Some(a)) = (s.mem_total, s.mem_available) {
            if t > 0.0 && a >= 0.0 && a <= t {
                let pct = 100.0 * (1.0 - a / t);
                out.mem_pct_max = Some(out.mem_pct_max.map_or(pct, |m: f64| m.max(pct)));
                out.mem.push((s.ts, Some(pct)));
            }
        }
        if let Some(l) = s.load1 {
            out.load1_max = Some(out.load1_max.map_or(l, |m: f64| m.max(l)));
            out.load1_end = Some(l);
        }
        let Some(prev) = i.checked_sub(1).map(|j| &samples[j]) else {
            continue;
        };
        let dt = s.ts - prev.ts;
        if dt <= 0 {
            out.duplicate_polls += 1;
            continue;
        }
        if gap_limit.is_some_and(|g| dt > g) {
            out.gaps += 1;
            out.cpu.push((prev.ts + dt / 2, None));
            out.mem.push((prev.ts + dt / 2, None));
            continue;
        }
        let (Some(t0), Some(i0), Some(t1), Some(i1)) = (prev.cpu_total, prev.cpu_idle, s.cpu_total, s.cpu_idle) else {
            continue;
        };
        let (d_total, d_idle) = (t1 - t0, i1 - i0);
        if d_total < 0.0 || d_idle < 0.0 || d_idle > d_total {
            out.counter_resets += 1;
            out.cpu.push((s.ts, None));
            continue;
        }
        if d_total == 0.0 {
            continue;
        }
        let busy = 100.0 * (1.0 - d_idle / d_total);
        out.cpu.push((s.ts, Some(busy)));
        let w = dt as f64 / MICROS_PER_SEC;
        weighted += busy * w;
        weight += w;
    }
    if weight > 0.0 {
        out.cpu_pct_mean = Some(weighted / weight).filter(|m| m.is_finite());
    }
    // Bytes sent over the run: the sum of non-negative counter deltas.
    let mut tx = None;
    for w in samples.windows(2) {
        if let (Some(a), Some(b)) = (w[0].net_tx, w[1].net_tx) {
            if b >= a {
                tx = Some(tx.unwrap_or(0.0) + (b - a));
            }
        }
    }
    // Deltas of finite counters can still add up past the largest number.
    out.net_tx_bytes = tx.filter(|t: &f64| t.is_finite());
    out
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
            disk_read: None,
            disk_written: None,
            net_rx: None,
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
}
