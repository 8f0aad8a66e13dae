//! perfreport: turns a build-fleet performance run directory into a report.
//!
//! Data flows one way: `input` (one parser per file kind, each with its
//! statistics) -> `model::Run` -> `analysis` (pure functions) ->
//! `figures::Figures` (each figure named once, its value or why it has none:
//! what compare, the gate and history read) -> `view::View` (what
//! `data.json` serialises) -> `render` (markdown, SVG, HTML), which only
//! reads the view. One step of analysis runs while the run is loaded:
//! each trace's figures, once, as the window they make decides which log
//! records are the run's (see `model`).

#![forbid(unsafe_code)]

pub mod analysis;
pub mod check;
pub mod compare;
pub mod error;
pub(crate) mod escape;
pub mod figures;
pub mod fmt;
pub mod gate;
pub mod harness;
pub mod history;
pub mod input;
pub mod live;
pub(crate) mod measure;
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
    /// The figures the view was built from: what history and publish keep.
    pub(crate) figures: figures::Figures,
    pub files: Vec<output::OutFile>,
    /// Inputs that broke their contract (what `--strict` fails on).
    pub broken_inputs: Vec<String>,
    /// Why nothing in the report can be trusted: every present input broke its contract.
    pub(crate) broken: Option<String>,
}

/// Reads a run directory and gives its figures: what compare and the gate
/// weigh (the view is not built).
pub fn analyse(run_dir: &Path) -> Result<figures::Figures> {
    let run = model::load(run_dir)?;
    Ok(measure::analyse(&run).figures)
}

/// Reads a run directory and renders its report in memory; `links` says
/// whether an input whose real path leaves the run directory is read.
pub fn report(run_dir: &Path, links: model::Links) -> Result<Report> {
    let run = model::load_with(run_dir, None, links)?;
    let analysed = measure::analyse(&run);
    let broken = measure::broken_reason(run.inputs.iter());
    let view = view::of(&analysed);
    let files = render::render_all(&view)?;
    let broken_inputs = view
        .inputs
        .iter()
        .filter(|(_, i)| i.contract_broken)
        .map(|(n, _)| n.clone())
        .collect();
    Ok(Report {
        view,
        figures: analysed.figures,
        files,
        broken_inputs,
        broken,
    })
}
