//! The run's window: run.json's and the traces', widened by the logs'
//! records near it; without either, every event seen.

use super::{secs, Window};
use crate::analysis::join::TargetJoin;
use crate::analysis::window;
use crate::model::Run;
use crate::timefmt::{self, Micros};

pub(super) fn run_window(run: &Run, join: &TargetJoin) -> Option<(Micros, Micros)> {
    let anchors = window::anchors(join.figures.values());
    let mut events: Vec<Micros> = Vec::new();
    for v in run.samples.by_node.values() {
        events.extend(v.first_ts());
        events.extend(v.last_ts());
    }
    if let Some(s) = &run.sccache {
        events.extend(s.log.first);
        events.extend(s.log.last);
    }
    if let Some(z) = &run.zot {
        // A span of writes is wholly near the traces' window or wholly far.
        for w in z.all_writes() {
            events.push(w.first);
            if w.last != w.first {
                events.push(w.last);
            }
        }
    }
    let info = run.info.as_ref();
    let started = info.and_then(|i| i.started_at);
    let finished = info.and_then(|i| i.finished_at);
    window::run_window(started, finished, run.in_flight(), &anchors, &events)
}

/// The window as data.json shows it, with where it came from.
pub(super) fn window_view(run: &Run, window: Option<(Micros, Micros)>) -> Option<Window> {
    let info = run.info.as_ref();
    let from_run_json = info.is_some_and(|i| i.started_at.is_some() && (i.finished_at.is_some() || run.in_flight()));
    window.map(|(s, e)| Window {
        start: timefmt::format_rfc3339(s),
        end: timefmt::format_rfc3339(e),
        wall_s: secs(e - s),
        source: if from_run_json { "run.json" } else { "events" },
    })
}
