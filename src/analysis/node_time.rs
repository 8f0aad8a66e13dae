//! How a node spent the run's window: busy with its targets' records, idle
//! the rest, and idle after its last target. A node still building has not
//! finished, so it has no "idle after" yet.

use super::{fleet, intervals};
use crate::timefmt::{Micros, MICROS_PER_SEC};

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct NodeTime {
    pub(crate) busy_s: Option<f64>,
    pub(crate) idle_s: Option<f64>,
    /// Of `idle_s`, the time a target of the node waited for its `after=`
    /// dependency to finish elsewhere.
    pub(crate) waiting_s: Option<f64>,
    /// The rest of `idle_s`: nothing to do.
    pub(crate) nothing_to_do_s: Option<f64>,
    /// Why busy and idle are unknown.
    pub(crate) why_busy: Option<&'static str>,
    /// When its last record ended; `None` while one is still running.
    pub(crate) finished: Option<Micros>,
    /// From `finished` to the window's end.
    pub(crate) idle_after_s: Option<f64>,
}

/// `records` are the node's targets' records, `waits` when its targets
/// waited for a dependency (`critical::dependency_waits`), `running`
/// whether a record has not ended, `placed` whether placement.txt tied
/// targets to nodes at all.
pub(crate) fn node_time(
    records: &[(Micros, Micros)],
    waits: &[(Micros, Micros)],
    running: bool,
    window: Option<(Micros, Micros)>,
    placed: bool,
) -> NodeTime {
    let mut t = NodeTime::default();
    match window {
        Some(w) if placed => {
            let (busy, idle) = fleet::busy_idle(records, w);
            (t.busy_s, t.idle_s) = (Some(busy), Some(idle));
            // Idle while waiting: the waits where no record ran.
            let waiting =
                intervals::clipped_length(&intervals::minus(waits, records), w.0, w.1) as f64 / MICROS_PER_SEC;
            t.waiting_s = Some(waiting);
            t.nothing_to_do_s = Some((idle - waiting).max(0.0));
        }
        Some(_) => t.why_busy = Some("no placement.txt: targets cannot be tied to nodes"),
        None => t.why_busy = Some("the run's time window is unknown"),
    }
    if !running {
        t.finished = records.iter().map(|r| r.1).max();
        t.idle_after_s = t
            .finished
            .zip(window)
            .map(|(f, w)| (w.1 - f).max(0) as f64 / MICROS_PER_SEC);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;

    #[test]
    fn busy_is_the_union_of_records_and_idle_the_rest_of_the_window() {
        // 0-100 s window; records 10-30 and 20-40 overlap: busy 30 s, idle 70 s, idle after 60 s.
        let t = node_time(
            &[(10 * S, 30 * S), (20 * S, 40 * S)],
            &[],
            false,
            Some((0, 100 * S)),
            true,
        );
        assert_eq!((t.busy_s, t.idle_s, t.why_busy), (Some(30.0), Some(70.0), None));
        assert_eq!((t.finished, t.idle_after_s), (Some(40 * S), Some(60.0)));
    }

    #[test]
    fn idle_splits_into_waiting_for_a_dependency_and_nothing_to_do() {
        // Waits 0-50 s for a dependency; its record 40-80 s: 40 s of the wait
        // was idle, the 10 s inside the record was not; the other 20 s nothing to do.
        let t = node_time(&[(40 * S, 80 * S)], &[(0, 50 * S)], false, Some((0, 100 * S)), true);
        assert_eq!(
            (t.idle_s, t.waiting_s, t.nothing_to_do_s),
            (Some(60.0), Some(40.0), Some(20.0))
        );
        let t = node_time(&[(40 * S, 80 * S)], &[], false, Some((0, 100 * S)), true);
        assert_eq!((t.waiting_s, t.nothing_to_do_s), (Some(0.0), Some(60.0)));
    }

    #[test]
    fn busy_and_idle_are_unknown_without_placement_or_window() {
        let t = node_time(&[(10 * S, 30 * S)], &[], false, Some((0, 100 * S)), false);
        assert_eq!((t.busy_s, t.idle_s), (None, None));
        assert_eq!(t.why_busy, Some("no placement.txt: targets cannot be tied to nodes"));
        let t = node_time(&[(10 * S, 30 * S)], &[], false, None, true);
        assert_eq!(t.why_busy, Some("the run's time window is unknown"));
        assert_eq!((t.finished, t.idle_after_s), (Some(30 * S), None));
    }

    #[test]
    fn a_node_still_building_has_not_finished() {
        let t = node_time(&[(10 * S, 100 * S)], &[], true, Some((0, 100 * S)), true);
        assert_eq!((t.busy_s, t.idle_s), (Some(90.0), Some(10.0)));
        assert_eq!((t.finished, t.idle_after_s), (None, None));
    }

    #[test]
    fn idle_after_is_never_negative() {
        // A record ending past the window (clamped there by the busy time).
        let t = node_time(&[(10 * S, 120 * S)], &[], false, Some((0, 100 * S)), true);
        assert_eq!(t.idle_after_s, Some(0.0));
    }
}
