//! `perfreport gate`: the nightly lane's regression gate, on the history of
//! comparable runs or on checked-in expectations. With no run named and no
//! expectations it gates the night: the newest run of every coordinate key
//! that started within the window before the newest run under the root.

use super::{figures_of_run, history_runs, print_json, shown, RunArgs};
use anyhow::Context;
use perfreport::figures::{Figures, Metric};
use perfreport::gate::judge::{GateOptions, ACCEPTED_FILE};
use perfreport::gate::ledger::{Lane, Ledger};
use perfreport::gate::night::{self, Night, EXIT_UNUSABLE};
use perfreport::gate::Expectations;
use perfreport::history::bands::{self, MetricBand};
use perfreport::render::{printed, text::Text};
use perfreport::term::{quote, quote_lines};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const EXIT_CODES: &str = "Exit status: 0 at least one check ran and none regressed; 1 a regression; \
2 unusable arguments or inputs (or expectations measured at other coordinates); \
3 nothing could be gated at all (no run had comparable history; --allow-empty makes that 0).";

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub struct Args {
    /// Expected figures (and bands) checked in; without --history, its bands or the stated fallback.
    #[arg(long)]
    expect: Option<PathBuf>,
    /// A root of runs: each metric's band is 3× its spread over the comparable runs before the
    /// gated one (and, without --expect, its median the expected value). Default without --expect:
    /// $PERF_ROOT when set, else the folder holding RUN_DIR.
    #[arg(long)]
    history: Option<PathBuf>,
    /// With no RUN_DIR: the night is the newest run of each key that started at most this long
    /// before the newest run under the root (a duration: 24h, 36h, 90m).
    #[arg(long, default_value = "24h", value_parser = parse_window)]
    window: f64,
    /// Exit 0 instead of 3 when nothing could be gated (a lane's first nights).
    #[arg(long)]
    allow_empty: bool,
    /// The reviewed file of accepted regressions (each `[[accepted]]` with the regression's `id`
    /// and a `note`); default: perf-accepted.toml under the root, when there.
    #[arg(long, value_name = "FILE")]
    accepted: Option<PathBuf>,
    /// Keep the lane red (exit 1) while a regression is open and not accepted, not only on the
    /// night it was called.
    #[arg(long)]
    fail_on_open: bool,
    /// Gate only the runs of this arch (a lane that shares its root with others).
    #[arg(long, value_name = "ARCH")]
    arch: Option<String>,
    /// Gate only the runs of this mode (warm, cold).
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
    /// Gate only the runs of this job width (run.json `max_jobs`).
    #[arg(long, value_name = "N")]
    jobs: Option<u32>,
    /// The lane's name in the root's ledger of calls (.perf-gate-calls.json): a regression another
    /// lane called first is open, not new, here. Default: made of --arch, --mode and --jobs.
    #[arg(long, value_name = "NAME")]
    lane: Option<String>,
    /// Write the verdicts as JUnit XML (a testsuite per gated run) to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Append a markdown job summary (e.g. $GITHUB_STEP_SUMMARY) to FILE.
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// The published site's address: the summary links each run's page under it.
    #[arg(long, value_name = "URL")]
    site_url: Option<String>,
    /// Write the current figures as the new expectations (bands kept; with --history, recorded from it).
    #[arg(long, requires = "expect")]
    update: bool,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// Each target's band per metric, from the history's comparable runs.
type Bands = BTreeMap<String, BTreeMap<Metric, MetricBand>>;

fn parse_window(s: &str) -> Result<f64, String> {
    perfreport::timefmt::parse_go_duration(s)
        .filter(|w| *w > 0.0 && w.is_finite())
        .ok_or_else(|| format!("{s:?} is not a duration such as 24h, 36h or 90m"))
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let history = args
        .history
        .clone()
        .or_else(|| args.expect.is_none().then(|| default_history(&args.run)));
    if args.run.run_dir.is_none() && args.expect.is_none() {
        if let Some(root) = &history {
            return gate_the_night(&args, root);
        }
    }
    if args.junit.is_some() || args.summary.is_some() {
        anyhow::bail!("--junit and --summary report a night: give --history ROOT and no RUN_DIR or --expect");
    }
    if args.fail_on_open || args.lane.is_some() || args.arch.is_some() || args.mode.is_some() || args.jobs.is_some() {
        anyhow::bail!("--fail-on-open, --lane, --arch, --mode and --jobs gate a night: give --history ROOT and no RUN_DIR or --expect");
    }
    gate_one(&args, history.as_deref())
}

/// Without --history or --expect: $PERF_ROOT when set, else the folder
/// holding the run named (the root it was found in), else the default root.
fn default_history(run: &RunArgs) -> PathBuf {
    let parent = run
        .run_dir
        .as_deref()
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty());
    match (std::env::var_os("PERF_ROOT"), parent) {
        (Some(_), _) | (None, None) => run.root.clone(),
        (None, Some(p)) => p.to_path_buf(),
    }
}

/// `gate --history ROOT`: every key's newest run of the night.
fn gate_the_night(args: &Args, root: &Path) -> anyhow::Result<u8> {
    let dash = |f: &Option<PathBuf>| f.as_deref().is_some_and(|f| f.as_os_str() == "-");
    let to_stdout = [dash(&args.junit), dash(&args.summary), args.json]
        .iter()
        .filter(|x| **x)
        .count();
    if to_stdout > 1 {
        anyhow::bail!("only one of --junit -, --summary - and --json can have standard output");
    }
    let all = history_runs(root)?;
    if all.is_empty() {
        // An empty or mistyped root is no lane's first night.
        anyhow::bail!("no run under {}: nothing to gate", shown(root));
    }
    let lane = lane_of(args);
    let all: Vec<Figures> = all.into_iter().filter(|r| lane.keeps(r)).collect();
    let lane = lane.name();
    let mut ledger = Ledger::read(root).map_err(anyhow::Error::msg)?;
    let accepted = args.accepted.clone().unwrap_or_else(|| root.join(ACCEPTED_FILE));
    let mut opts = GateOptions::with_accepted(&accepted).map_err(anyhow::Error::msg)?;
    opts.fail_on_open = args.fail_on_open;
    opts.called_elsewhere = ledger.called_by_others(&lane);
    let now_us = jiff::Timestamp::now().as_microsecond();
    let n = night::gate_night(&all, args.window, now_us, &opts);
    if ledger.record(&lane, &n) {
        if let Err(e) = ledger.write(root) {
            // Another lane then sees this night's calls as new: said, not fatal.
            eprintln!("warning: {}", quote(&e.to_string()));
        }
    }
    if let Some(f) = &args.junit {
        let page_of = |dir: &str| run_url(args.site_url.as_deref().unwrap_or_default(), dir);
        let link: Option<&dyn Fn(&str) -> String> = args.site_url.is_some().then_some(&page_of);
        let junit = printed(&perfreport::render::junit::Junit { page_of: link }, &n)?;
        super::write_output(f, &junit, false, perfreport::output::NamedLinks::Never)?;
    }
    if let Some(f) = &args.summary {
        let page_of = |dir: &str| run_url(args.site_url.as_deref().unwrap_or_default(), dir);
        let link: Option<&dyn Fn(&str) -> String> = args.site_url.is_some().then_some(&page_of);
        append(
            f,
            &printed(&perfreport::render::job_summary::JobSummary { page_of: link }, &n)?,
        )?;
    }
    if to_stdout == 1 && !args.json {
        // Standard output carries that report alone; the verdict goes to stderr.
        eprintln!("perfreport gate: {}", n.status_line(args.allow_empty));
    } else if args.json {
        print_json(&NightJson {
            root: root.display().to_string(),
            exit: n.exit_status(args.allow_empty),
            night: &n,
        })?;
    } else {
        print!(
            "{}",
            quote_lines(&printed(
                &Text {
                    allow_empty: args.allow_empty
                },
                &n
            )?)
        );
    }
    Ok(n.exit_status(args.allow_empty))
}

/// The lane the flags name: its filters and its name in the ledger.
fn lane_of(args: &Args) -> Lane {
    Lane {
        arch: args.arch.clone(),
        mode: args.mode.clone(),
        jobs: args.jobs,
        name: args.lane.clone(),
    }
}

#[derive(serde::Serialize)]
struct NightJson<'a> {
    root: String,
    /// The status the command exits with.
    exit: u8,
    #[serde(flatten)]
    night: &'a Night,
}

/// Appends to a job-summary file (CI gives one per step and may have
/// written to it already), creating it when it is not there; `-` prints it.
/// A file that does not end its last line gets a newline first, so the
/// summary's heading starts a line of its own.
fn append(file: &Path, text: &str) -> anyhow::Result<()> {
    if file.as_os_str() == "-" {
        print!("{}", quote_lines(text));
        return Ok(());
    }
    let mut f = open_summary(file)?;
    let unended = last_byte(&mut f).is_some_and(|c| c != b'\n');
    let text = if unended { format!("\n{text}") } else { text.to_string() };
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot append the summary to {}", shown(file)))
}

/// Opens a job-summary file to append to, as `--junit` writes its file: a
/// regular file, or a new one; a link is refused (a planted link must not
/// aim the append), and a FIFO or device is refused without being opened
/// for a write that could block (`-` is standard output). Opened without
/// following a link and without blocking, and judged on the descriptor.
fn open_summary(file: &Path) -> anyhow::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let refused = |why: &str| anyhow::anyhow!("{}: {why}", shown(file));
    match std::fs::symlink_metadata(file) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refused(
                "a symlink: refused, so a planted link cannot aim the summary (name the file itself)",
            ))
        }
        Ok(m) if !m.is_file() => return Err(refused("not a regular file: refused (- prints the summary)")),
        _ => {}
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(file)
        .with_context(|| format!("cannot open {} to append the summary", shown(file)))?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(refused("not a regular file: refused (- prints the summary)"));
    }
    Ok(f)
}

/// The last byte of the open regular file.
fn last_byte(f: &mut std::fs::File) -> Option<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let len = f.metadata().ok()?.len();
    if len == 0 {
        return None;
    }
    f.seek(SeekFrom::Start(len - 1)).ok()?;
    let mut b = [0u8];
    f.read_exact(&mut b).ok()?;
    Some(b[0])
}

/// `gate RUN_DIR`: one run, against its history or an expectations file.
fn gate_one(args: &Args, history: Option<&Path>) -> anyhow::Result<u8> {
    let run_dir = args.run.run_dir()?;
    if let (Some(root), None) = (history, &args.expect) {
        // A run under the root is gated as the nightly gate judged its night.
        let all = history_runs(root)?;
        let accepted = args.accepted.clone().unwrap_or_else(|| root.join(ACCEPTED_FILE));
        let opts = GateOptions::with_accepted(&accepted).map_err(anyhow::Error::msg)?;
        if let Some(r) = night::gate_in_root(&all, root, &run_dir, &opts) {
            return print_one(args, &r);
        }
    }
    let v = figures_of_run(&args.run)?;
    let (earlier_runs, bands) = match history {
        None => (0, None),
        Some(h) => {
            let (n, b) = history_bands(&history_runs(h)?, &v, args.update);
            (n, Some(b))
        }
    };
    let mut old = expectations(args, &v, earlier_runs, &bands)?;
    if let (Some(expect), true) = (&args.expect, args.update) {
        let new = perfreport::gate::update(&v, &old, bands);
        let mut text = serde_json::to_vec_pretty(&new)?;
        text.push(b'\n');
        perfreport::output::write_atomic(expect, &text)?;
        eprintln!("perfreport: wrote {} from run {}", shown(expect), quote(v.stamp()));
        return Ok(0);
    }
    if let (Some(bands), Some(_)) = (bands, &args.expect) {
        // The file's expected figures, the bands of today's history.
        old.history_bands = bands;
    }
    let r = perfreport::gate::gate(&v, &old);
    print_one(args, &r)
}

/// One run's gate report, as JSON or for a terminal, and its exit status.
fn print_one(args: &Args, r: &perfreport::gate::GateReport) -> anyhow::Result<u8> {
    if args.json {
        print_json(r)?;
    } else {
        print!("{}", quote_lines(&printed(&Text::default(), r)?));
    }
    Ok(if r.refused.is_some() {
        EXIT_UNUSABLE
    } else {
        night::exit_status(r.checked, r.regressions, 0, args.allow_empty)
    })
}

/// The bands of the runs comparable with this one, and how many runs they rest on.
fn history_bands(all: &[Figures], me: &Figures, update: bool) -> (usize, Bands) {
    // --update accepts this run: its bands rest on it too when it is under the root.
    let runs = if update {
        bands::newest_comparable(all, me)
    } else {
        bands::earlier(all, me)
    };
    (runs.len(), bands::all_bands(&runs, me))
}

/// An expectations file larger than this is not read (one of a thousand
/// targets is about 100 kB).
const MAX_EXPECT_BYTES: u64 = 16 << 20;

/// The expectations file, or without one the history's medians and bands.
fn expectations(args: &Args, v: &Figures, earlier_runs: usize, bands: &Option<Bands>) -> anyhow::Result<Expectations> {
    Ok(match &args.expect {
        None => perfreport::gate::from_history(
            Some(perfreport::gate::coordinates(v)),
            earlier_runs,
            bands.clone().unwrap_or_default(),
        ),
        Some(expect) => {
            match perfreport::input::read_named(expect, perfreport::input::ReadLinks::Follow, MAX_EXPECT_BYTES) {
                Ok(b) => serde_json::from_slice(&b)
                    .with_context(|| format!("{} is not an expectations file", shown(expect)))?,
                Err(e) if args.update && e.kind() == std::io::ErrorKind::NotFound => Default::default(),
                Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", shown(expect))),
            }
        }
    })
}

/// A run's page on the published site: `runs/<folder>/`, the folder as
/// publish names it, every byte but the unreserved ones percent-encoded (as
/// the index's own links are); the site's address is the user's, kept but
/// for what would end a markdown link.
fn run_url(site_url: &str, dir: &str) -> String {
    // The run's key is its path's bytes (`runs::key_of`); its page is the
    // folder publish derives from those bytes, never from a lossy spelling.
    let folder = perfreport::runs::path_of_key(dir)
        .and_then(|p| perfreport::publish::folder_name(&p))
        .unwrap_or_default();
    let encoded = perfreport::publish::url_segment(&folder);
    let mut base = site_url.trim_end_matches('/').to_string();
    for (c, e) in [(' ', "%20"), ('(', "%28"), (')', "%29"), ('<', "%3C"), ('>', "%3E")] {
        base = base.replace(c, e);
    }
    format!("{base}/runs/{encoded}/")
}
