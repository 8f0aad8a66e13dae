//! `perfreport report`: one run's report.md, charts, index.html and data.json.

use super::{shown, warn_all, RunArgs, SamplesArgs, EXIT_STRICT};
use perfreport::term::quote;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Inputs larger than this get a progress line on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the outputs; default: the run directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Exit 1 when any input broke its contract (zero records, malformed lines, unreadable trace).
    #[arg(long)]
    strict: bool,
    /// Read an input that is a link leading out of the run directory (not read otherwise: it counts as absent).
    #[arg(long)]
    follow_links: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// With --prometheus: write what the server gave as the run's samples.jsonl (replacing one
    /// there), so later reports, publish and history read it without the server.
    #[arg(long, requires = "prometheus")]
    save_samples: bool,
    #[command(flatten)]
    samples: SamplesArgs,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let run_dir = args.run.run_dir()?;
    let tty = std::io::stderr().is_terminal() && !args.quiet;
    let started = std::time::Instant::now();
    let size = dir_size(&run_dir);
    let progress = tty && size > PROGRESS_BYTES;
    if progress {
        eprint!("perfreport: reading {} ({:.0} MB)…", shown(&run_dir), size as f64 / 1e6);
    }
    let links = if args.follow_links {
        perfreport::model::Links::Follow
    } else {
        perfreport::model::Links::StayInside
    };
    let mut opts = args.samples.options(links)?;
    opts.keep_polls = args.save_samples;
    opts.root = args.run.found_under();
    let report = perfreport::report_with(&run_dir, &opts)?;
    if progress {
        eprintln!(" {:.2} s", started.elapsed().as_secs_f64());
    }
    let out_dir = args.out.unwrap_or_else(|| run_dir.clone());
    let written = perfreport::output::write_all(&out_dir, &report.files)?;
    if !args.quiet {
        warn_all(&report.view.warnings);
        // Which run was reported and where it went: a result, not progress,
        // so said on and off a terminal (`make perf-report` picks the run).
        let chosen = if args.run.run_dir.is_none() {
            format!(" (the newest under {})", shown(&args.run.root))
        } else {
            String::new()
        };
        eprintln!(
            "perfreport: run {}{chosen}: {} ({} files, {written} changed)",
            quote(&report.view.stamp),
            shown(&out_dir.join(perfreport::render::markdown::FILE)),
            report.files.len(),
        );
    }
    let saved = if args.save_samples {
        save_samples(&run_dir, &report, args.quiet)
    } else {
        true
    };
    if args.strict && !report.broken_inputs.is_empty() {
        eprintln!(
            "perfreport: --strict: inputs that broke their contract: {}",
            quote(&report.broken_inputs.join(", "))
        );
        return Ok(EXIT_STRICT);
    }
    Ok(if saved { 0 } else { EXIT_STRICT })
}

/// `--save-samples`: the server's polls as the run's samples.jsonl, written
/// to a temporary name and renamed; only a whole reading of a finished run
/// is saved, so a later report never takes a partial file for the run's.
fn save_samples(run_dir: &Path, report: &perfreport::Report, quiet: bool) -> bool {
    let not = |why: String| {
        eprintln!("perfreport: --save-samples: samples.jsonl not written: {}", quote(&why));
        false
    };
    let polls = match report.samples_to_save() {
        Ok(p) => p,
        Err(why) => return not(why),
    };
    let path = run_dir.join("samples.jsonl");
    match perfreport::output::write_atomic(&path, polls) {
        Ok(_) => {
            if !quiet {
                let lines = polls.iter().filter(|b| **b == b'\n').count() as u64;
                eprintln!(
                    "perfreport: wrote {} ({})",
                    shown(&path),
                    perfreport::fmt::counted(lines, "poll", "polls")
                );
            }
            true
        }
        Err(e) => not(e.to_string()),
    }
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
