//! `perfreport trace`: the run as Chrome trace-event JSON for Perfetto.

use super::{view_of, RunArgs};
use perfreport::render::{perfetto, Export};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write; default: standard output.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let view = view_of(&args.run.run_dir()?)?;
    for file in perfetto::Perfetto.render(&view)? {
        match &args.output {
            Some(path) => {
                perfreport::output::write_atomic(path, &file.bytes)?;
            }
            None => print!("{}", perfreport::term::json(&String::from_utf8_lossy(&file.bytes))),
        }
    }
    Ok(0)
}
