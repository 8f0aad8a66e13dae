//! perfreport: turns a build-fleet performance run directory into a report.
//!
//! Data flows one way: `input` (one parser per file kind, each with its
//! statistics) -> `model::Run` -> `analysis` (pure functions) -> `view::View`
//! (what `data.json` serialises) -> `render` (markdown, SVG, HTML), which
//! only reads the view. One step of analysis runs while the run is loaded:
//! each trace's figures, once, as the window they make decides which log
//! records are the run's (see `model`).

#![forbid(unsafe_code)]

pub mod analysis;
pub mod check;
pub mod compare;
pub mod error;
pub(crate) mod escape;
pub mod fmt;
pub mod gate;
pub mod harness;
pub mod history;
pub mod input;
pub mod live;
pub mod model;
pub mod output;
pub mod placement;
pub mod publish;
pub mod render;
pub mod runs;
pub mod serve;
pub mod term;

pub mod timefmt;
pub mod view;

pub use error::{Error, Result};

use std::path::Path;

/// The outcome of reporting one run.
pub struct Report {
    pub view: view::View,
    pub files: Vec<output::OutFile>,
    /// Inputs that broke their contract (what `--strict` fails on).
    pub broken_inputs: Vec<String>,
}

/// Reads a run directory and renders its report in memory; `links` says
/// whether an input whose real path leaves the run directory is read.
pub fn report(run_dir: &Path, links: model::Links) -> Result<Report> {
    let run = model::load_with(run_dir, None, links)?;
    let view = view::build(&run);
    let files = render::render_all(&view)?;
    let broken_inputs = view
        .inputs
        .iter()
        .filter(|(_, i)| i.contract_broken)
        .map(|(n, _)| n.clone())
        .collect();
    Ok(Report {
        view,
        files,
        broken_inputs,
    })
}
