//! `perfreport publish`: a static site over every run under a root.

use super::{shown, warn_all, SamplesArgs};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The runs root; default: $PERF_ROOT (/var/tmp/rocm-perf).
    root: Option<PathBuf>,
    /// The site directory to write.
    #[arg(long)]
    site: PathBuf,
    /// Rebuild every run, not only the changed ones.
    #[arg(long)]
    force: bool,
    /// Also publish the cache-ratios report of this bench.jsonl, linked from the index.
    #[arg(long)]
    bench: Option<PathBuf>,
    /// Add to each run's report page what changed since the previous run (and until the next).
    #[arg(long)]
    compare_previous: bool,
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    samples: SamplesArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let root = args.root.unwrap_or_else(perfreport::runs::default_root);
    let outcome = perfreport::publish::publish(&perfreport::publish::PublishOptions {
        root: &root,
        site: &args.site,
        force: args.force,
        bench: args.bench.as_deref(),
        compare_previous: args.compare_previous,
        read: args.samples.options(perfreport::model::Links::StayInside)?,
    })?;
    warn_all(&outcome.warnings);
    if !args.quiet {
        // A run counts as broken when any of its inputs broke its contract.
        let broken = outcome
            .runs
            .iter()
            .filter(|r| r.status == "broken" || !r.broken_inputs.is_empty())
            .count();
        eprintln!(
            "perfreport: {} in {} ({} rebuilt, {broken} broken)",
            perfreport::fmt::counted(outcome.runs.len() as u64, "run", "runs"),
            shown(&args.site.join("index.html")),
            outcome.rebuilt.len()
        );
    }
    Ok(0)
}
