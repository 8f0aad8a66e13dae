//! `perfreport trace`: the run as Chrome trace-event JSON for Perfetto.

use super::{named_links, view_of, write_output, RunArgs};
use perfreport::render::{perfetto, Export};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write; default (and `-`): standard output. A device or FIFO is written in place.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Write through an output path that is a symlink to a regular file (refused otherwise).
    #[arg(long)]
    follow_links: bool,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let view = view_of(&args.run)?;
    let stdout = PathBuf::from("-");
    let path = args.output.as_ref().unwrap_or(&stdout);
    for file in perfetto::Perfetto.render(&view)? {
        write_output(
            path,
            &String::from_utf8_lossy(&file.bytes),
            true,
            named_links(args.follow_links),
        )?;
    }
    Ok(0)
}
