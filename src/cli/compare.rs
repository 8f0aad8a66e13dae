//! `perfreport compare`: what changed from run A to run B.

use super::{figures_of, history_runs, print_json, EXIT_STRICT};
use perfreport::render::{markdown::Markdown, printed};
use perfreport::term::quote_lines;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    run_a: PathBuf,
    run_b: PathBuf,
    /// A root of earlier runs whose spread sets the noise band.
    #[arg(long)]
    history: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let (a, b) = (figures_of(&args.run_a)?, figures_of(&args.run_b)?);
    let earlier = match &args.history {
        Some(h) => history_runs(h)?,
        None => vec![],
    };
    let c = perfreport::compare::compare(&a, &b, &earlier);
    if args.json {
        print_json(&c)?;
    } else {
        print!("{}", quote_lines(&printed(&Markdown, &c)?));
    }
    Ok(if c.comparable { 0 } else { EXIT_STRICT })
}
