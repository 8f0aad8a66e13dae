//! `perfreport placement`: the balancer's costs as measured, its rule
//! replayed on them, and its input files.

use super::{named_links, print_json, shown, write_output, RunArgs};
use perfreport::output::NamedLinks;
use perfreport::render::placement::{costs_file, fleet_file};
use perfreport::term::{quote, quote_lines};
use perfreport::view::placement::PlacementView;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// placement.json on standard output instead of the text.
    #[arg(long)]
    json: bool,
    /// Write the measured costs in the balancer's target-costs form (`build <target> <s>`, `cache <target> <bytes>`).
    #[arg(long, value_name = "FILE")]
    costs_out: Option<PathBuf>,
    /// Write the nodes' measured `link_mbps` as a fleet manifest (YAML: `nodes:`, each `- name:` with its `link_mbps:`).
    #[arg(long, value_name = "FILE")]
    fleet_out: Option<PathBuf>,
    /// Write through a --costs-out/--fleet-out path that is a symlink to a regular file (refused otherwise).
    #[arg(long)]
    follow_links: bool,
    /// A root of runs: medians over those at this run's mode, arch and job width, with n.
    #[arg(long, value_name = "ROOT")]
    history: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let run_dir = args.run.run_dir()?;
    let p = perfreport::placement::placement(&run_dir, args.history.as_deref())?;
    if args.json {
        print_json(&p)?;
    } else {
        print!("{}", quote_lines(&perfreport::render::placement::markdown(&p)?));
    }
    let links = named_links(args.follow_links);
    write_files(&p, args.costs_out.as_deref(), args.fleet_out.as_deref(), links)?;
    Ok(0)
}

/// `--costs-out` and `--fleet-out` (`-`: standard output): each file, and what it leaves out.
fn write_files(p: &PlacementView, costs: Option<&Path>, fleet: Option<&Path>, links: NamedLinks) -> anyhow::Result<()> {
    if let Some(path) = costs {
        let (text, left_out) = costs_file(p);
        write_output(path, &text, false, links)?;
        for l in left_out {
            eprintln!("perfreport: not in {}: {}", shown(path), quote(&l));
        }
    }
    if let Some(path) = fleet {
        write_output(path, &fleet_file(p), true, links)?;
    }
    Ok(())
}
