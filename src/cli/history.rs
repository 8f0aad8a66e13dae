//! `perfreport history`: how each target's cost moved across the runs under a root.

use super::{shown, warn_all, SamplesArgs};
use perfreport::gate::judge::{GateOptions, ACCEPTED_FILE};
use perfreport::history::{collect, view};
use perfreport::render::history as render;
use perfreport::term::quote_lines;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The runs root; default: $PERF_ROOT (/var/tmp/rocm-perf).
    root: Option<PathBuf>,
    /// Where to write; default: the root.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print history.json instead of the summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    samples: SamplesArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let root = args.root.unwrap_or_else(perfreport::runs::default_root);
    if !root.is_dir() {
        anyhow::bail!("{}: the runs root is not a directory", shown(&root));
    }
    let out = args.out.unwrap_or_else(|| root.clone());
    let cache = collect::cache_in(&out);
    let read = args.samples.options(perfreport::model::Links::StayInside)?;
    let collected = collect::collect_with(&root, Some(&cache), Some(&out), &read);
    warn_all(&collected.warnings);
    let opts = GateOptions::with_accepted(&root.join(ACCEPTED_FILE)).map_err(anyhow::Error::msg)?;
    let verdicts = perfreport::gate::index::index_verdicts(&collected.runs, &opts);
    let verdicts = perfreport::gate::index::history_verdicts(&verdicts);
    let view = view::build_with(&root.display().to_string(), &collected.runs, &verdicts, &opts.accepted);
    let files = render::render_all(&view)?;
    perfreport::output::write_all(&out, &files)?;
    if args.json {
        print!(
            "{}",
            perfreport::term::json(&perfreport::render::printed(&perfreport::render::json::Compact, &view)?)
        );
    } else {
        print!(
            "{}",
            quote_lines(&perfreport::render::printed(
                &perfreport::render::text::Text::default(),
                &view
            )?)
        );
        println!(
            "{} read, {} from the cache; wrote {} in {}",
            perfreport::fmt::counted(collected.parsed as u64, "run", "runs"),
            collected.runs.len().saturating_sub(collected.parsed),
            perfreport::fmt::counted(files.len() as u64, "file", "files"),
            shown(&out)
        );
    }
    Ok(0)
}
