//! `perfreport ratios`: cache ratios from the serial benchmark harness's bench.jsonl.

use super::{warn_all, EXIT_STRICT};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    bench_jsonl: PathBuf,
    /// Where to write; default: the directory holding bench.jsonl.
    #[arg(long)]
    out: Option<PathBuf>,
    /// A run.json-style file whose `nodes` give each builder's core count (flags loaded samples).
    #[arg(long)]
    fleet: Option<PathBuf>,
    /// Exit 1 when a row could not be read.
    #[arg(long)]
    strict: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let view = perfreport::harness::ratios_view(&args.bench_jsonl, args.fleet.as_deref())?;
    let files = perfreport::render::ratios::render(&view)?;
    let out_dir = args.out.unwrap_or_else(|| {
        args.bench_jsonl
            .parent()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."))
    });
    perfreport::output::write_all(&out_dir, &files)?;
    warn_all(&view.input.warnings);
    if args.strict && view.input.contract_broken {
        return Ok(EXIT_STRICT);
    }
    Ok(0)
}
