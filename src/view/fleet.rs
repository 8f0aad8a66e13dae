//! The fleet section: wall clock, work and idle in all, the critical node
//! and the chain that set the wall clock (unknown while a record is open),
//! where the balancer's estimate missed; placed on the run's window.

use super::{r3, secs, CriticalView, EstimateView, FleetView, LinkView};
use crate::figures::Measured;
use crate::measure::Analysed;
use crate::measured::explained::Reasons;
use crate::timefmt;

pub(super) fn build(a: &Analysed) -> FleetView {
    let (cx, f) = (&a.cx, &a.figures.fleet);
    FleetView {
        wall_s: f.wall.clone().map(secs),
        work_s: f.work_s.clone().map(r3),
        idle_s: f.idle_s.clone().map(r3),
        critical: f.critical.clone().map(|c| CriticalView {
            node: c.node,
            end_s: cx.off(c.end),
            targets: c.targets,
            last_target: c.last_target,
        }),
        still_running: f.still_running.clone(),
        estimate_misses: f
            .estimate_misses
            .iter()
            .map(|m| EstimateView {
                target: m.target.clone(),
                est_s: m.est_s,
                actual_s: m.actual_s,
                ratio: m.ratio,
            })
            .collect(),
        why_null: Reasons::new(),
    }
}

/// The chain that set the wall clock, as data.json gives it.
pub(super) fn critical_path(a: &Analysed) -> Measured<Vec<LinkView>> {
    let cx = &a.cx;
    a.figures.fleet.critical_path.clone().map(|chain| {
        chain
            .into_iter()
            .map(|l| LinkView {
                target: l.target,
                node: l.node,
                start: timefmt::format_rfc3339(l.start),
                end: timefmt::format_rfc3339(l.end),
                start_s: cx.off(l.start),
                end_s: cx.off(l.end),
                took_s: secs(l.end - l.start),
                waited_for: l.waited.clone().map(|w| w.for_target),
                waited_how: l.waited.clone().map(|w| w.how),
                wait_s: l.waited.map(|w| secs(w.wait)),
                why_null: Reasons::new(),
            })
            .collect()
    })
}
