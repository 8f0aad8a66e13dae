//! The run's window (run.json's start and end, anchored by the traces), and
//! what each input's report says of its records far outside it.

use super::logs::LOGS;
use super::Run;
use crate::input::InputReport;

/// The window run.json and the traces make (`analysis::window::core`), and
/// whether its end is still open (a run in flight grows to its newest
/// record); `None` when run.json gives no `started_at`.
pub(super) fn anchored_window(
    run: &Run,
    figures: &[&crate::analysis::targets::TraceFigures],
) -> Option<AnchoredWindow> {
    use crate::analysis::window;
    let info = run.info.as_ref();
    let (started, finished) = (info.and_then(|i| i.started_at), info.and_then(|i| i.finished_at));
    // The window is run.json's: without its start, no record is judged outside.
    started?;
    let core = window::core(started, finished, &window::anchors(figures.iter().copied()))?;
    Some((core, run.in_flight() && finished.is_none()))
}

/// The run's window as `anchored_window` gives it.
pub(crate) type AnchoredWindow = ((crate::timefmt::Micros, crate::timefmt::Micros), bool);

/// Records far outside the run's window (`analysis::window::FAR`, the
/// clock-skew allowance) are not the run's. The logs left theirs out as
/// they were read; the samples' held polls outside are dropped here. Each
/// is counted as skipped with the records' time range, and an input with
/// nothing inside is not measured at all (its figures are `null` with the
/// reason, and it broke its contract).
pub(super) fn keep_to_window(run: &mut Run, inputs: &mut [InputReport], window: Option<AnchoredWindow>) {
    let Some(window) = window else {
        return;
    };
    let say = OutsideSaid::new(window);
    for log in LOGS {
        log.keep_to_window(run, inputs, window, &say);
    }
}

/// What an input's report says of its records outside the run's window.
pub(crate) struct OutsideSaid {
    run_window: String,
}

impl OutsideSaid {
    pub(super) fn new(((from, to), open): AnchoredWindow) -> Self {
        use crate::timefmt::{format_rfc3339, human_duration};
        let allowance = human_duration((crate::analysis::window::FAR / 1_000_000) as f64);
        let end = if open {
            "its newest record (in flight)".to_string()
        } else {
            format_rfc3339(to)
        };
        OutsideSaid {
            run_window: format!(
                "the run's window ({} to {end}, give or take {allowance} of clock skew)",
                format_rfc3339(from)
            ),
        }
    }

    /// Some records inside (`inside`): those outside were skipped, which a
    /// warning says. None inside: the input broke its contract, not measured.
    pub(crate) fn judge(
        &self,
        r: &mut InputReport,
        (one, many): (&str, &str),
        o: &crate::input::window::Outside,
        inside: bool,
    ) {
        use crate::timefmt::format_rfc3339;
        let run_window = &self.run_window;
        let range = format!("from {} to {}", format_rfc3339(o.first), format_rfc3339(o.last));
        if inside {
            let verb = if o.records == 1 { "lies" } else { "lie" };
            r.warnings.push(format!(
                "{}: {} {range} {verb} outside {run_window}: not this run's, skipped (no figure or chart uses them)",
                r.name,
                crate::fmt::counted(o.records, one, many),
            ));
            return;
        }
        let b = format!(
            "all {} of its {many} lie outside {run_window} ({range}): none is this run's, so nothing of it is measured",
            o.records
        );
        if o.records == 0 {
            r.warnings.insert(r.breaches.len(), format!("{}: {b}", r.name));
            r.breaches.push(b);
            r.contract_broken = true;
            return;
        }
        // They were recognised, so "no record recognised" is not so, and
        // their format did not change: they are another time's. The input
        // kept its contract (unless it broke it otherwise, by malformed
        // lines), and is not measured, for this reason.
        if let Some(i) = r.breaches.iter().position(|b| crate::input::contract::is_no_record(b)) {
            let said = format!("{}: {}", r.name, r.breaches.remove(i));
            r.warnings.retain(|w| *w != said);
        }
        r.warnings.insert(0, format!("{}: {b}", r.name));
        r.not_measured = Some(b);
        r.contract_broken = !r.breaches.is_empty();
    }
}
