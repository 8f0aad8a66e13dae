//! `perfreport check`: does each input's producer still agree with its parser?

use super::{print_json, RunArgs, EXIT_STRICT};
use perfreport::render::{printed, text::Text};

#[derive(clap::Args)]
pub struct Args {
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let run = perfreport::model::load_with_options(
        &args.run.run_dir()?,
        &perfreport::model::Options {
            root: args.run.found_under(),
            ..Default::default()
        },
    )?;
    let report = perfreport::check::check(&run);
    if args.json {
        print_json(&report)?;
    } else {
        // The text quotes every field itself, so an input's newline cannot fake a line.
        print!("{}", printed(&Text::default(), &report)?);
    }
    Ok(if report.ok { 0 } else { EXIT_STRICT })
}
