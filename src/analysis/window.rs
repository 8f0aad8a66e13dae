//! The run's window when an input does not belong to the run: records far
//! from what run.json and the traces say (a zot.jsonl spanning years beside
//! a two-hour build) must not stretch the wall clock and squash every chart.

use super::fleet;
use super::targets::TraceFigures;
use crate::timefmt::Micros;

/// How far outside the window the traces and run.json define a record may
/// lie and still be this run's (a poller that started early, a registry
/// write that finished after the root span).
pub(crate) const FAR: Micros = 3600 * 1_000_000;

/// The instants the traces make this run's: each record's start and end
/// (its last step's when it has none).
pub(crate) fn anchors<'a>(figures: impl IntoIterator<Item = &'a TraceFigures>) -> Vec<Micros> {
    let mut anchors = Vec::new();
    for f in figures {
        anchors.extend(f.start);
        anchors.extend(f.end.or(f.last_step_end));
    }
    anchors
}

/// The window the anchors alone (run.json's times and the traces') make,
/// before any log widens it; `None` when nothing anchors it.
pub(crate) fn core(started: Option<Micros>, finished: Option<Micros>, anchors: &[Micros]) -> Option<(Micros, Micros)> {
    if started.is_none() && anchors.is_empty() {
        return None;
    }
    // run.json's own times anchor it too: an open run with no trace yet.
    let mut anchored: Vec<Micros> = anchors.to_vec();
    anchored.extend(started);
    anchored.extend(finished);
    fleet::window(started, finished, &anchored)
}

/// The run's window. `anchors` are the traces' record starts and ends, which
/// are this run's by construction; `others` are the logs' first and last
/// records, which may not be. With an anchor (run.json's start, or a trace),
/// a log's record counts only within `FAR` of the anchors' window; an open
/// run (`open_end`: run.json says it has not finished) grows to its last
/// record. Without any anchor, every record counts.
pub(crate) fn run_window(
    started: Option<Micros>,
    finished: Option<Micros>,
    open_end: bool,
    anchors: &[Micros],
    others: &[Micros],
) -> Option<(Micros, Micros)> {
    let Some(core) = core(started, finished, anchors) else {
        return fleet::window(started, finished, others);
    };
    let mut all: Vec<Micros> = anchors.to_vec();
    all.extend(started);
    all.extend(finished);
    all.extend(
        others
            .iter()
            .copied()
            .filter(|&t| !is_far(t, core, open_end && finished.is_none())),
    );
    fleet::window(started, finished, &all)
}

/// Where a log's record must lie to be this run's: within `FAR` of the
/// window the anchors make (`core`), with no end while `open_end`.
pub(crate) fn record_window(core: (Micros, Micros), open_end: bool) -> crate::input::window::RecordWindow {
    crate::input::window::RecordWindow {
        from: core.0.saturating_sub(FAR),
        to: (!open_end).then(|| core.1.saturating_add(FAR)),
    }
}

/// Whether `t` lies more than `FAR` outside `window` (never after it when
/// the run's end is still open).
pub(crate) fn is_far(t: Micros, window: (Micros, Micros), open_end: bool) -> bool {
    !record_window(window, open_end).holds(t)
}

/// Whether every record of a stretch from `first` to `last` lies far
/// outside `window` (on one side): a stretch across the limit is not.
pub(crate) fn span_is_far(first: Micros, last: Micros, window: (Micros, Micros)) -> bool {
    (last < window.0 && is_far(last, window, false)) || (first > window.1 && is_far(first, window, false))
}

pub(crate) use crate::input::window::Outside;

/// Counts the records (`(time, how many)`) far outside `window`.
pub(crate) fn outside(records: impl IntoIterator<Item = (Micros, u64)>, window: (Micros, Micros)) -> Option<Outside> {
    outside_spans(records.into_iter().map(|(t, n)| (t, t, n)), window)
}

/// `outside` for records kept together (`(first, last, how many)`), each
/// together wholly far or wholly not: its first record decides.
pub(crate) fn outside_spans(
    records: impl IntoIterator<Item = (Micros, Micros, u64)>,
    window: (Micros, Micros),
) -> Option<Outside> {
    let mut out: Option<Outside> = None;
    for (first, last, n) in records {
        if n == 0 || !is_far(first, window, false) {
            continue;
        }
        Outside::add(&mut out, first, last, n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;
    const YEAR: Micros = 365 * 24 * 3600 * S;

    #[test]
    fn a_span_is_far_only_when_all_of_it_is_on_one_side() {
        let w = (10 * FAR, 20 * FAR);
        assert!(span_is_far(0, 8 * FAR, w), "wholly before");
        assert!(span_is_far(22 * FAR, 30 * FAR, w), "wholly after");
        assert!(!span_is_far(8 * FAR, 9 * FAR + 1, w), "reaches within an hour");
        assert!(!span_is_far(0, 30 * FAR, w), "across the window");
        assert!(!span_is_far(12 * FAR, 13 * FAR, w), "inside");
    }

    #[test]
    fn records_years_away_do_not_stretch_the_window_of_the_traces() {
        let trace = [0, 7800 * S];
        let zot = [-6 * YEAR, -YEAR];
        assert_eq!(run_window(None, None, false, &trace, &zot), Some((0, 7800 * S)));
        // A poller that began ten minutes early still belongs to the run.
        assert_eq!(
            run_window(None, None, false, &trace, &[-600 * S, 7900 * S]),
            Some((-600 * S, 7900 * S))
        );
        // run.json alone anchors it; an open run grows to its last record.
        assert_eq!(
            run_window(Some(0), None, true, &[], &[-YEAR, 5 * 3600 * S]),
            Some((0, 5 * 3600 * S))
        );
        // Nothing to anchor to: every record counts, as before.
        assert_eq!(run_window(None, None, false, &[], &[-YEAR, 0]), Some((-YEAR, 0)));
    }

    #[test]
    fn only_records_more_than_an_hour_out_are_counted_outside() {
        let w = (0, 7800 * S);
        let got = outside([(-YEAR, 3), (-3599 * S, 1), (7800 * S + FAR + 1, 2), (10, 9)], w);
        assert_eq!(
            got,
            Some(Outside {
                records: 5,
                first: -YEAR,
                last: 7800 * S + FAR + 1
            })
        );
        assert_eq!(outside([(-3599 * S, 1)], w), None);
    }
}
