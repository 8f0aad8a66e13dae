//! History on a published site: `history.html` and `history.json` at its
//! root, from the figures publish's manifest keeps per run (no run is read
//! again), led by the gate's verdicts on each key's newest run.

use super::{render, view, RunFigures};
use crate::error::Result;
use crate::output::write_atomic;
use std::path::Path;

/// Writes the site's history.
/// `unreadable`: folders under the root that could not be read, with why.
pub fn write(
    site: &Path,
    root: &str,
    figures: &[RunFigures],
    unreadable: &[(String, String)],
    verdicts: &view::Verdicts,
) -> Result<()> {
    let mut runs = figures.to_vec();
    runs.extend(
        unreadable
            .iter()
            .map(|(at, what)| RunFigures::unreadable(at, format!("{what}: skipped"))),
    );
    let history = view::build(root, &runs, verdicts);
    write_atomic(
        &site.join(render::page::FILE),
        render::page::render(&history)?.as_bytes(),
    )?;
    write_atomic(&site.join(view::FILE), &render::json(&history.without_charts()))?;
    Ok(())
}
