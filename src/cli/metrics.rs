//! `perfreport metrics`: the run's figures for node_exporter's textfile collector.

use super::{shown, view_of, RunArgs};
use perfreport::render::{metrics, Export};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The collector's directory; when it is not writable, the current directory is used and said.
    #[arg(long, default_value = "/var/lib/prometheus/node-exporter")]
    textfile_dir: PathBuf,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let view = view_of(&args.run)?;
    let files = metrics::Metrics.render(&view)?;
    for file in &files {
        let target = args.textfile_dir.join(&file.path);
        match perfreport::output::write_atomic(&target, &file.bytes) {
            Ok(_) => eprintln!("perfreport: wrote {}", shown(&target)),
            Err(e) => {
                let local = file.path.clone();
                perfreport::output::write_atomic(&local, &file.bytes)?;
                eprintln!(
                    "perfreport: {e}; wrote {} in the current directory instead",
                    shown(&local)
                );
            }
        }
    }
    Ok(0)
}
