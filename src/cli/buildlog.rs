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

/// A build log larger than this is not read (it is read whole; a BuildKit
/// plain-progress log of a large build is a few MB).
const MAX_LOG_BYTES: u64 = 256 << 20;

pub fn run(args: Args) -> anyhow::Result<u8> {
    let bytes = perfreport::input::read_named(&args.log, perfreport::input::ReadLinks::Follow, MAX_LOG_BYTES)
        .with_context(|| format!("cannot read {}", shown(&args.log)))?;
    let figures = perfreport::harness::buildlog::analyse(&String::from_utf8_lossy(&bytes), &args.target);
    print_json(&figures)?;
    Ok(0)
}
