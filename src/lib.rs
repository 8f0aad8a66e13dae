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
pub(crate) mod measured;
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
    /// The node samples a server gave, as samples.jsonl lines in time
    /// order (with `model::Options::keep_polls`).
    pub(crate) polls: Option<Vec<u8>>,
}

impl Report {
    /// What `--save-samples` writes as the run's samples.jsonl: the server's
    /// polls, only from a whole reading of a finished run, so a later report
    /// never takes a partial file for the run's; else why not.
    pub fn samples_to_save(&self) -> std::result::Result<&[u8], String> {
        let input = model::PROMETHEUS;
        if self.view.in_flight {
            return Err("the run is in flight (the harness may still be writing its samples)".into());
        }
        if self.broken_inputs.iter().any(|i| i == input) {
            return Err(format!(
                "the read from the server is incomplete (see the warnings of {input})"
            ));
        }
        match self.polls.as_deref() {
            Some(p) if !p.is_empty() => Ok(p),
            _ => Err("the server gave no polls".into()),
        }
    }
}

/// Reads a run directory and gives its figures: what compare and the gate
/// weigh (the view is not built).
pub fn analyse(run_dir: &Path) -> Result<figures::Figures> {
    let run = model::load(run_dir)?;
    Ok(measure::analyse(&run).figures)
}

/// As `analyse`, the run read as `opts` says.
pub fn analyse_with(run_dir: &Path, opts: &model::Options) -> Result<figures::Figures> {
    let run = model::load_with_options(run_dir, opts)?;
    Ok(measure::analyse(&run).figures)
}

/// Reads a run directory and renders its report in memory; `links` says
/// whether an input whose real path leaves the run directory is read.
pub fn report(run_dir: &Path, links: model::Links) -> Result<Report> {
    let opts = model::Options {
        links,
        ..Default::default()
    };
    report_with(run_dir, &opts)
}

/// As `report`, the run read as `opts` says (where its node samples come from).
pub fn report_with(run_dir: &Path, opts: &model::Options) -> Result<Report> {
    let mut run = model::load_from(run_dir, None, opts)?;
    let polls = run.polls.take();
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
        polls,
    })
}
