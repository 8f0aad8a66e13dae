//! `perfreport buildlog`: the figures bench.sh scrapes from a BuildKit plain-progress log.

use super::{print_json, shown};
use anyhow::Context;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    log: PathBuf,
    /// The target whose steps and sccache counters to report.
    #[arg(long)]
    target: String,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let bytes = std::fs::read(&args.log).with_context(|| format!("cannot read {}", shown(&args.log)))?;
    let figures = perfreport::harness::buildlog::analyse(&String::from_utf8_lossy(&bytes), &args.target);
    print_json(&figures)?;
    Ok(0)
}
