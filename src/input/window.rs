//! The stretch of time a run's log records must lie in to be the run's.
//!
//! The logs a run directory holds are the servers' own (the cache server's
//! access log, the registry's log): a server that ran the day before the run
//! leaves that day's records in the file. The window is known before the
//! logs are read (run.json and the traces make it), so their sinks leave
//! such records out of every total as they read, and count them instead.

use crate::timefmt::Micros;

/// Where a record may lie and still be the run's: from `from`, up to `to`
/// (none while the run is in flight: it grows to its newest record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordWindow {
    pub(crate) from: Micros,
    pub(crate) to: Option<Micros>,
}

impl RecordWindow {
    pub(crate) fn holds(&self, t: Micros) -> bool {
        t >= self.from && self.to.is_none_or(|to| t <= to)
    }

    /// What a cached parse must have been made with to be reused.
    pub(crate) fn tag(window: Option<&RecordWindow>) -> String {
        match window {
            Some(w) => format!(" window={}..{:?}", w.from, w.to),
            None => String::new(),
        }
    }
}

/// Records an input left out for lying outside the window: how many, and
/// the first and last of their times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outside {
    pub(crate) records: u64,
    pub(crate) first: Micros,
    pub(crate) last: Micros,
}

impl Outside {
    /// Counts `n` records spanning `first` to `last` into `into`.
    pub(crate) fn add(into: &mut Option<Outside>, first: Micros, last: Micros, n: u64) {
        let o = into.get_or_insert(Outside {
            records: 0,
            first,
            last,
        });
        o.records = o.records.saturating_add(n);
        o.first = o.first.min(first);
        o.last = o.last.max(last);
    }

    /// Both counts together (chunks of one file, in any order).
    pub(crate) fn merge(into: &mut Option<Outside>, other: Option<Outside>) {
        if let Some(o) = other {
            Outside::add(into, o.first, o.last, o.records);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_window_holds_everything_after_its_start() {
        let w = RecordWindow { from: 100, to: None };
        assert!(!w.holds(99));
        assert!(w.holds(100));
        assert!(w.holds(Micros::MAX));
        let closed = RecordWindow {
            from: 100,
            to: Some(200),
        };
        assert!(closed.holds(200));
        assert!(!closed.holds(201));
    }

    #[test]
    fn outside_counts_merge_to_the_widest_range() {
        let mut a = None;
        Outside::add(&mut a, 50, 50, 1);
        let mut b = None;
        Outside::add(&mut b, 10, 20, 3);
        Outside::merge(&mut a, b);
        assert_eq!(
            a,
            Some(Outside {
                records: 4,
                first: 10,
                last: 50
            })
        );
        Outside::merge(&mut a, None);
        assert_eq!(a.map(|o| o.records), Some(4));
    }
}
