//! `perfreport gate`: the nightly lane's regression gate, on the history of
//! comparable runs or on checked-in expectations.

use super::{history_runs, print_json, shown, view_of, RunArgs, EXIT_STRICT};
use anyhow::Context;
use perfreport::gate::Expectations;
use perfreport::history::bands::{self, MetricBand};
use perfreport::history::RunFigures;
use perfreport::term::{quote, quote_lines};
use perfreport::view::View;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Expected figures (and bands) checked in; without --history, its bands or the stated fallback.
    #[arg(long, required_unless_present = "history")]
    expect: Option<PathBuf>,
    /// A root of runs: each metric's band is 3× its spread over the comparable runs before this one
    /// (and, without --expect, its median the expected value).
    #[arg(long)]
    history: Option<PathBuf>,
    /// Write the current figures as the new expectations (bands kept; with --history, recorded from it).
    #[arg(long, requires = "expect")]
    update: bool,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// Each target's band per metric, from the history's comparable runs.
type Bands = BTreeMap<String, BTreeMap<String, MetricBand>>;

pub fn run(args: Args) -> anyhow::Result<u8> {
    let v = view_of(&args.run.run_dir()?)?;
    let (earlier_runs, bands) = match &args.history {
        None => (0, None),
        Some(h) => {
            let (n, b) = history_bands(&history_runs(h)?, &v, args.update);
            (n, Some(b))
        }
    };
    let mut old = expectations(&args, &v, earlier_runs, &bands)?;
    if let (Some(expect), true) = (&args.expect, args.update) {
        let new = perfreport::gate::update(&v, &old, bands);
        let mut text = serde_json::to_vec_pretty(&new)?;
        text.push(b'\n');
        perfreport::output::write_atomic(expect, &text)?;
        eprintln!("perfreport: wrote {} from run {}", shown(expect), quote(&v.stamp));
        return Ok(0);
    }
    if let (Some(bands), Some(_)) = (bands, &args.expect) {
        // The file's expected figures, the bands of today's history.
        old.history_bands = bands;
    }
    let r = perfreport::gate::gate(&v, &old);
    if args.json {
        print_json(&r)?;
    } else {
        print!("{}", quote_lines(&perfreport::gate::render_text(&r)));
    }
    Ok(if r.refused.is_some() || r.regressions > 0 {
        EXIT_STRICT
    } else {
        0
    })
}

/// The bands of the runs comparable with this one, and how many runs they rest on.
fn history_bands(all: &[RunFigures], v: &View, update: bool) -> (usize, Bands) {
    let me = RunFigures::from_view("", v);
    // --update accepts this run: its bands rest on it too when it is under the root.
    let runs = if update {
        bands::newest_comparable(all, &me)
    } else {
        bands::earlier(all, &me)
    };
    (runs.len(), bands::all_bands(&runs, &me))
}

/// The expectations file, or without one the history's medians and bands.
fn expectations(args: &Args, v: &View, earlier_runs: usize, bands: &Option<Bands>) -> anyhow::Result<Expectations> {
    Ok(match &args.expect {
        None => perfreport::gate::from_history(v, earlier_runs, bands.clone().unwrap_or_default()),
        Some(expect) => match std::fs::read(expect) {
            Ok(b) => {
                serde_json::from_slice(&b).with_context(|| format!("{} is not an expectations file", shown(expect)))?
            }
            Err(_) if args.update => Default::default(),
            Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", shown(expect))),
        },
    })
}
