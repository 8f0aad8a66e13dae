//! History on a published site: from the figures publish's manifest keeps
//! per run (no run is read again), led by the gate's verdicts on each key's
//! newest run; `render::history::site_files` writes it.

use super::{view, Figures};

/// The site's history view.
/// `unreadable`: folders under the root that could not be read, with why.
pub(crate) fn view(
    root: &str,
    figures: &[Figures],
    unreadable: &[(String, String)],
    verdicts: &view::Verdicts,
    accepted: &super::regressions::Accepted,
) -> view::HistoryView {
    let unreadable: Vec<Figures> = unreadable
        .iter()
        .map(|(at, what)| Figures::unreadable(at, format!("{what}: skipped")))
        .collect();
    view::build_with(root, figures.iter().chain(&unreadable), verdicts, accepted)
}
