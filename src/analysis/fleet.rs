//! Fleet-wide figures: the run's window, each node's busy and idle time, the
//! critical path, where the balancer's estimate missed, and registry bytes
//! attributed to a target.

use super::intervals;
use crate::input::zot::Writes;
use crate::timefmt::{Micros, MICROS_PER_SEC};

/// The run's window: run.json's `started_at`..`finished_at`, else the first
/// to the last event seen.
pub(crate) fn window(started: Option<Micros>, finished: Option<Micros>, events: &[Micros]) -> Option<(Micros, Micros)> {
    let first = events.iter().copied().min();
    let last = events.iter().copied().max();
    let start = started.or(first)?;
    let end = finished.or(last)?;
    // An event before the announced start still belongs to the run.
    let start = start.min(first.unwrap_or(start));
    let end = end.max(start);
    Some((start, end))
}

/// A node's busy time (the union of its targets' records, inside the
/// window) and idle time (the rest of the window).
pub(crate) fn busy_idle(records: &[(Micros, Micros)], window: (Micros, Micros)) -> (f64, f64) {
    let busy = intervals::clipped_length(records, window.0, window.1);
    let span = window.1 - window.0;
    (
        busy as f64 / MICROS_PER_SEC,
        (span - busy).max(0) as f64 / MICROS_PER_SEC,
    )
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record<'a> {
    pub(crate) target: &'a str,
    pub(crate) node: Option<&'a str>,
    pub(crate) start: Micros,
    pub(crate) end: Micros,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CriticalPath {
    pub(crate) node: String,
    pub(crate) end: Micros,
    /// The node's targets in the order they started.
    pub(crate) targets: Vec<String>,
    /// The last target to finish on it.
    pub(crate) last_target: String,
}

/// The node that finished last, and what it ran.
pub(crate) fn critical_path(records: &[Record]) -> Option<CriticalPath> {
    let last = records
        .iter()
        .filter(|r| r.node.is_some())
        .max_by(|a, b| (a.end, b.target).cmp(&(b.end, a.target)))?;
    let node = last.node?;
    let mut on_node: Vec<&Record> = records.iter().filter(|r| r.node == Some(node)).collect();
    on_node.sort_by_key(|r| (r.start, r.target));
    Some(CriticalPath {
        node: node.to_string(),
        end: last.end,
        targets: on_node.iter().map(|r| r.target.to_string()).collect(),
        last_target: last.target.to_string(),
    })
}

/// Actual over estimate beyond this factor (either way) is "far".
pub(crate) const ESTIMATE_FACTOR: f64 = 1.5;

/// Actual over estimate; `None` when it is no number (an estimate of 0, or
/// one so small, such as 5e-324, that the quotient is infinite).
pub(crate) fn estimate_ratio(est_s: f64, actual_s: f64) -> Option<f64> {
    if est_s <= 0.0 || actual_s < 0.0 {
        return None;
    }
    Some(actual_s / est_s).filter(|r| r.is_finite())
}

/// A target the balancer's estimate got badly wrong, its ratio unrounded.
pub(crate) fn estimate_miss(target: &str, est_s: f64, actual_s: f64) -> Option<crate::figures::EstimateMiss> {
    let ratio = estimate_ratio(est_s, actual_s)?;
    (!(1.0 / ESTIMATE_FACTOR..=ESTIMATE_FACTOR).contains(&ratio)).then(|| crate::figures::EstimateMiss {
        target: target.to_string(),
        est_s,
        actual_s,
        ratio,
    })
}

/// Slack around an upload span when matching a registry write to it: the
/// registry logs the write when the request completes, a moment after.
pub(crate) const UPLOAD_SLACK: Micros = 2_000_000;

/// Whether a registry write at `t` from a target's node belongs to that
/// target: it lies inside the target's record and, where the record overlaps
/// another record of the same node, inside one of the target's own uploads.
pub(crate) fn owns_write(
    t: Micros,
    record: (Micros, Micros),
    uploads: &[(Micros, Micros)],
    others: &[(Micros, Micros)],
) -> bool {
    if t < record.0 || t > record.1 {
        return false;
    }
    let shared = others.iter().any(|o| t >= o.0 && t <= o.1);
    !shared
        || uploads
            .iter()
            .any(|u| t >= u.0 - UPLOAD_SLACK && t <= u.1 + UPLOAD_SLACK)
}

/// Registry writes selected by `owns` (asked once a span: its writes are
/// alike to it): the known bytes and how many writes had no size. `None`
/// when no write was selected at all.
pub(crate) fn registry_bytes(writes: &Writes, owns: impl Fn(Micros) -> bool) -> Option<(u64, u64)> {
    let mut any = false;
    let (mut bytes, mut no_size) = (0u64, 0u64);
    for s in writes.spans().filter(|s| owns(s.first)) {
        any |= s.writes > 0;
        bytes = bytes.saturating_add(s.bytes);
        no_size = no_size.saturating_add(s.no_size);
    }
    any.then_some((bytes, no_size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::zot::WriteEvent;

    const S: Micros = 1_000_000;

    #[test]
    fn the_window_is_the_harness_window_else_the_events() {
        assert_eq!(window(Some(0), Some(100 * S), &[5 * S]), Some((0, 100 * S)));
        assert_eq!(window(None, None, &[5 * S, 50 * S, 20 * S]), Some((5 * S, 50 * S)));
        // In flight: from the announced start to the last event so far.
        assert_eq!(window(Some(0), None, &[30 * S]), Some((0, 30 * S)));
        assert_eq!(window(None, None, &[]), None);
    }

    #[test]
    fn busy_is_the_union_and_idle_the_rest_of_the_window() {
        // Two overlapping targets 10-40 and 30-60 on a 0-100 window: busy 50, idle 50.
        let (busy, idle) = busy_idle(&[(10 * S, 40 * S), (30 * S, 60 * S)], (0, 100 * S));
        assert_eq!((busy, idle), (50.0, 50.0));
    }

    #[test]
    fn the_critical_path_is_the_node_that_finished_last() {
        let r = [
            Record {
                target: "pytorch",
                node: Some("strix"),
                start: 0,
                end: 2000 * S,
            },
            Record {
                target: "triton-wheel",
                node: Some("think"),
                start: 100 * S,
                end: 2432 * S,
            },
            Record {
                target: "aiter",
                node: Some("think"),
                start: 0,
                end: 90 * S,
            },
        ];
        let c = critical_path(&r).unwrap();
        assert_eq!(c.node, "think");
        assert_eq!(c.targets, vec!["aiter", "triton-wheel"]);
        assert_eq!(c.last_target, "triton-wheel");
    }

    #[test]
    fn estimates_within_half_again_are_not_misses() {
        assert!(estimate_miss("a", 1000.0, 1400.0).is_none());
        let m = estimate_miss("triton-wheel", 900.0, 2332.0).unwrap();
        assert!((m.ratio - 2.591).abs() < 1e-3);
        assert!(estimate_miss("b", 1000.0, 600.0).is_some());
    }

    #[test]
    fn an_estimate_too_small_to_divide_by_is_no_miss_and_no_infinity() {
        assert_eq!(estimate_ratio(5e-324, 89.6), None);
        assert!(estimate_miss("a", 5e-324, 89.6).is_none());
        assert_eq!(estimate_ratio(1e308, 0.0), Some(0.0));
        assert!(estimate_miss("a", f64::MAX, 1e-300).unwrap().ratio.is_finite());
    }

    #[test]
    fn registry_bytes_only_inside_the_record_and_unsized_counted_apart() {
        let ev = Writes::from_events([
            WriteEvent {
                time: 5 * S,
                bytes: Some(100),
            },
            WriteEvent {
                time: 15 * S,
                bytes: Some(1000),
            },
            WriteEvent {
                time: 16 * S,
                bytes: None,
            },
            WriteEvent {
                time: 25 * S,
                bytes: Some(7),
            },
        ]);
        let inside = |lo, hi| move |t| owns_write(t, (lo, hi), &[], &[]);
        assert_eq!(registry_bytes(&ev, inside(10 * S, 20 * S)), Some((1000, 1)));
        assert_eq!(registry_bytes(&ev, inside(30 * S, 40 * S)), None);
    }

    #[test]
    fn a_write_where_two_records_of_a_node_overlap_goes_to_the_one_uploading() {
        let one = (0, 100 * S);
        let two = (50 * S, 200 * S);
        let one_uploads = [(60 * S, 70 * S)];
        // Inside both records, during one's upload: one's, not two's.
        assert!(owns_write(65 * S, one, &one_uploads, &[two]));
        assert!(!owns_write(65 * S, two, &[], &[one]));
        // Inside both, during nobody's upload: nobody's (not double-counted).
        assert!(!owns_write(90 * S, one, &one_uploads, &[two]));
        // Inside two alone: two's, whether or not its trace shows the upload.
        assert!(owns_write(150 * S, two, &[], &[one]));
    }
}
