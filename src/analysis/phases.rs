//! A target's record in phases for the timeline: setup, its own steps,
//! export, and while the record has not ended, a "running" band to the
//! window's end, so its node does not look idle while it builds.

use super::targets::TraceFigures;
use crate::timefmt::Micros;

/// The phases of a record as `(phase, start, end)`, in time order.
pub(crate) fn phase_bands(f: &TraceFigures, window_end: Option<Micros>) -> Vec<(&'static str, Micros, Micros)> {
    let mut bands = vec![];
    if let (Some(s), Some(fs)) = (f.start, f.first_step) {
        bands.push(("setup", s, fs));
    }
    if let (Some(fs), Some(le)) = (f.first_step, f.last_step_end) {
        bands.push(("build", fs, le));
    }
    if let (Some(le), Some(e)) = (f.last_step_end, f.end) {
        bands.push(("export", le, e));
    }
    if let (true, Some(we)) = (f.open, window_end) {
        let from = f.last_step_end.or(f.start).unwrap_or(we);
        if we > from {
            bands.push(("running", from, we));
        }
    }
    bands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(
        start: Micros,
        first_step: Option<Micros>,
        last_step_end: Option<Micros>,
        end: Option<Micros>,
    ) -> TraceFigures {
        TraceFigures {
            start: Some(start),
            first_step,
            last_step_end,
            end,
            open: end.is_none(),
            ..Default::default()
        }
    }

    #[test]
    fn an_ended_record_is_setup_build_and_export() {
        let f = figures(0, Some(5), Some(50), Some(60));
        assert_eq!(
            phase_bands(&f, Some(99)),
            [("setup", 0, 5), ("build", 5, 50), ("export", 50, 60)]
        );
    }

    #[test]
    fn still_running_band_runs_from_the_last_step_to_the_window_end() {
        let f = figures(0, Some(5), Some(50), None);
        assert_eq!(
            phase_bands(&f, Some(80)),
            [("setup", 0, 5), ("build", 5, 50), ("running", 50, 80)]
        );
        // Before any step: from the record's start.
        let f = figures(10, None, None, None);
        assert_eq!(phase_bands(&f, Some(80)), [("running", 10, 80)]);
        // No window, or a window ending before: no band.
        assert!(phase_bands(&f, None).is_empty());
        assert!(phase_bands(&f, Some(10)).is_empty());
    }
}
