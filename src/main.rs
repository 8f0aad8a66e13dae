//! The `perfreport` command: a thin layer over the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use perfreport::term::{quote, quote_lines};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "perfreport",
    version = VERSION,
    about = "Static reports for build-fleet performance runs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Turn one run directory into report.md, charts/*.svg, index.html and data.json.
    Report {
        /// The run directory; default: the newest run under $PERF_ROOT (/var/tmp/rocm-perf).
        run_dir: Option<PathBuf>,
        /// Where to write the outputs; default: the run directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Exit 1 when any input broke its contract (zero records, malformed lines, unreadable trace).
        #[arg(long)]
        strict: bool,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// The root searched for the newest run when RUN_DIR is not given.
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// Cache ratios from the serial benchmark harness's bench.jsonl: ratios.md, ratios.json, ratios.html, charts.
    Ratios {
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
    },
    /// Build a static site over every run under ROOT, with a selector from run to run.
    Publish {
        /// The runs root; default: $PERF_ROOT (/var/tmp/rocm-perf).
        root: Option<PathBuf>,
        /// The site directory to write.
        #[arg(long)]
        site: PathBuf,
        /// Rebuild every run, not only the changed ones.
        #[arg(long)]
        force: bool,
        /// Also publish the cache-ratios report of this bench.jsonl, linked from the index.
        #[arg(long)]
        bench: Option<PathBuf>,
        /// Add to each run's report page what changed since the previous run (and until the next).
        #[arg(long)]
        compare_previous: bool,
        #[arg(long, short)]
        quiet: bool,
    },
    /// Check that each input's producer and perfreport still agree; exit 1 when any does not.
    Check {
        run_dir: Option<PathBuf>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// Write the run's figures for node_exporter's textfile collector.
    Metrics {
        run_dir: Option<PathBuf>,
        /// The collector's directory; when it is not writable, the current directory is used and said.
        #[arg(long, default_value = "/var/lib/prometheus/node-exporter")]
        textfile_dir: PathBuf,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// The run as Chrome trace-event JSON for Perfetto (ui.perfetto.dev) or chrome://tracing.
    Trace {
        run_dir: Option<PathBuf>,
        /// Where to write; default: standard output.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// What changed from run A to run B, per target, phase and node (markdown, or JSON).
    Compare {
        run_a: PathBuf,
        run_b: PathBuf,
        /// A root of earlier runs whose spread sets the noise band.
        #[arg(long)]
        history: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Gate a run on the history of comparable runs, or on checked-in expectations: exit 1 on a regression.
    Gate {
        run_dir: Option<PathBuf>,
        /// Expected figures (and bands) checked in; without --history, its bands or the stated fallback.
        #[arg(long, required_unless_present = "history")]
        expect: Option<PathBuf>,
        /// A root of runs: each metric's band is 3× its spread over the comparable runs before this one
        /// (and, without --expect, its median the expected value).
        #[arg(long)]
        history: Option<PathBuf>,
        /// Write the current figures as the new expectations (bands kept; with --history, recorded from it).
        #[arg(long, requires = "expect")]
        update: bool,
        #[arg(long)]
        json: bool,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// Serve a live view of a run (default: the newest) while it grows.
    Serve {
        run_dir: Option<PathBuf>,
        /// Address to listen on; the fleet binds every interface on purpose (0.0.0.0:8090).
        #[arg(long, env = "PERF_BIND", default_value = perfreport::serve::DEFAULT_BIND)]
        bind: String,
        /// Where the regenerated outputs go (and are served from); default: the run directory.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
        /// Seconds a request's headers may take, from the connection's start or the previous answer [default: 10].
        #[arg(long, env = "PERF_SERVE_HEADER_TIMEOUT", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
        header_timeout: Option<std::time::Duration>,
        /// Seconds a connection may move no byte before it is closed [default: 30].
        #[arg(long, env = "PERF_SERVE_IDLE_TIMEOUT", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
        idle_timeout: Option<std::time::Duration>,
        /// Connections served at once, lowered to fit the open-files limit [default: 256].
        #[arg(long, env = "PERF_SERVE_MAX_CONNECTIONS", value_name = "N",
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_connections: Option<usize>,
        /// A name the server answers to besides its IP addresses, `localhost` and the machine's name
        /// (a Host header naming anything else is refused, against DNS rebinding); repeatable.
        #[arg(
            long = "allow-host",
            env = "PERF_ALLOW_HOST",
            value_name = "NAME",
            value_delimiter = ','
        )]
        allow_host: Vec<String>,
    },
    /// The balancer's costs as measured: per target, per node's link, and its rule replayed on them.
    Placement {
        run_dir: Option<PathBuf>,
        /// placement.json on standard output instead of the text.
        #[arg(long)]
        json: bool,
        /// Write the measured costs in the balancer's target-costs form (`build <target> <s>`, `cache <target> <bytes>`).
        #[arg(long, value_name = "FILE")]
        costs_out: Option<PathBuf>,
        /// Write the nodes' measured `link_mbps` as a fleet manifest (JSON).
        #[arg(long, value_name = "FILE")]
        fleet_out: Option<PathBuf>,
        /// A root of runs: medians over those at this run's mode, arch and job width, with n.
        #[arg(long, value_name = "ROOT")]
        history: Option<PathBuf>,
        #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
        root: PathBuf,
    },
    /// How each target's cost moved across the runs under ROOT: history.json, history.md, charts.
    History {
        /// The runs root; default: $PERF_ROOT (/var/tmp/rocm-perf).
        root: Option<PathBuf>,
        /// Where to write; default: the root.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print history.json instead of the summary.
        #[arg(long)]
        json: bool,
    },
    /// The figures bench.sh scrapes from a BuildKit plain-progress build log, as JSON.
    Buildlog {
        log: PathBuf,
        /// The target whose steps and sccache counters to report.
        #[arg(long)]
        target: String,
    },
}

/// The version with the commit it was built from, as every report records it.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PERFREPORT_COMMIT"), ")");

/// Exit codes: 0 done, 1 a contract broken under --strict, 2 unusable arguments or unwritable output.
const EXIT_STRICT: u8 = 1;
const EXIT_USAGE: u8 = 2;

/// Inputs larger than this get a progress line on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("perfreport: {}", quote(&format!("{e:#}")));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Report {
            run_dir,
            out,
            strict,
            quiet,
            root,
        } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let tty = std::io::stderr().is_terminal() && !quiet;
            let started = std::time::Instant::now();
            let size = dir_size(&run_dir);
            if tty && size > PROGRESS_BYTES {
                eprint!("perfreport: reading {} ({:.0} MB)…", shown(&run_dir), size as f64 / 1e6);
            }
            let report = perfreport::report(&run_dir)?;
            if tty && size > PROGRESS_BYTES {
                eprintln!(" {:.2} s", started.elapsed().as_secs_f64());
            }
            let out_dir = out.unwrap_or_else(|| run_dir.clone());
            let written = perfreport::output::write_all(&out_dir, &report.files)?;
            if !quiet {
                for w in &report.view.warnings {
                    eprintln!("warning: {}", quote(w));
                }
                if tty {
                    eprintln!(
                        "perfreport: {} ({} files, {written} changed) in {}",
                        shown(&out_dir.join(perfreport::render::markdown::FILE)),
                        report.files.len(),
                        shown(&out_dir)
                    );
                }
            }
            if strict && !report.broken_inputs.is_empty() {
                eprintln!(
                    "perfreport: --strict: inputs that broke their contract: {}",
                    quote(&report.broken_inputs.join(", "))
                );
                return Ok(EXIT_STRICT);
            }
            Ok(0)
        }
        Command::Ratios {
            bench_jsonl,
            out,
            fleet,
            strict,
        } => {
            let view = perfreport::harness::ratios_view(&bench_jsonl, fleet.as_deref())?;
            let files = perfreport::render::ratios::render(&view)?;
            let out_dir = out.unwrap_or_else(|| {
                bench_jsonl
                    .parent()
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("."))
            });
            perfreport::output::write_all(&out_dir, &files)?;
            for w in &view.input.warnings {
                eprintln!("warning: {}", quote(w));
            }
            if strict && view.input.contract_broken {
                return Ok(EXIT_STRICT);
            }
            Ok(0)
        }
        Command::Publish {
            root,
            site,
            force,
            bench,
            compare_previous,
            quiet,
        } => {
            let root = root.unwrap_or_else(perfreport::runs::default_root);
            let outcome = perfreport::publish::publish(&perfreport::publish::PublishOptions {
                root: &root,
                site: &site,
                force,
                bench: bench.as_deref(),
                compare_previous,
            })?;
            for w in &outcome.warnings {
                eprintln!("warning: {}", quote(w));
            }
            if !quiet {
                let broken = outcome.runs.iter().filter(|r| r.status == "broken").count();
                eprintln!(
                    "perfreport: {} runs in {} ({} rebuilt, {broken} broken)",
                    outcome.runs.len(),
                    shown(&site.join("index.html")),
                    outcome.rebuilt.len()
                );
            }
            Ok(0)
        }
        Command::Check { run_dir, json, root } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let run = perfreport::model::load(&run_dir)?;
            let report = perfreport::check::check(&run);
            if json {
                println!("{}", perfreport::term::json(&serde_json::to_string_pretty(&report)?));
            } else {
                // render_text quotes every field itself, so an input's newline cannot fake a line.
                print!("{}", perfreport::check::render_text(&report));
            }
            Ok(if report.ok { 0 } else { EXIT_STRICT })
        }
        Command::Metrics {
            run_dir,
            textfile_dir,
            root,
        } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let report = perfreport::report(&run_dir)?;
            let text = perfreport::render::metrics::render(&report.view);
            let target = textfile_dir.join(perfreport::render::metrics::FILE);
            match perfreport::output::write_atomic(&target, text.as_bytes()) {
                Ok(_) => eprintln!("perfreport: wrote {}", shown(&target)),
                Err(e) => {
                    let local = PathBuf::from(perfreport::render::metrics::FILE);
                    perfreport::output::write_atomic(&local, text.as_bytes())?;
                    eprintln!(
                        "perfreport: {e}; wrote {} in the current directory instead",
                        shown(&local)
                    );
                }
            }
            Ok(0)
        }
        Command::Trace { run_dir, output, root } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let run = perfreport::model::load(&run_dir)?;
            let text = perfreport::render::perfetto::render(&perfreport::view::build(&run));
            match output {
                Some(path) => {
                    perfreport::output::write_atomic(&path, text.as_bytes())?;
                }
                None => print!("{}", perfreport::term::json(&text)),
            }
            Ok(0)
        }
        Command::Compare {
            run_a,
            run_b,
            history,
            json,
        } => {
            let view = |d: &PathBuf| -> anyhow::Result<perfreport::view::View> {
                Ok(perfreport::view::build(&perfreport::model::load(d)?))
            };
            let (a, b) = (view(&run_a)?, view(&run_b)?);
            let earlier = match history {
                Some(h) => history_runs(&h)?,
                None => vec![],
            };
            let c = perfreport::compare::compare(&a, &b, &earlier);
            if json {
                println!("{}", perfreport::term::json(&serde_json::to_string_pretty(&c)?));
            } else {
                print!("{}", quote_lines(&perfreport::compare::render_markdown(&c)));
            }
            Ok(if c.comparable { 0 } else { EXIT_STRICT })
        }
        Command::Gate {
            run_dir,
            expect,
            history,
            update,
            json,
            root,
        } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let v = perfreport::view::build(&perfreport::model::load(&run_dir)?);
            let mut earlier_runs = 0;
            let bands = match history {
                None => None,
                Some(h) => {
                    use perfreport::history::{bands, RunFigures};
                    let all = history_runs(&h)?;
                    let me = RunFigures::from_view("", &v);
                    // --update accepts this run: its bands rest on it too when it is under the root.
                    let runs = if update {
                        bands::newest_comparable(&all, &me)
                    } else {
                        bands::earlier(&all, &me)
                    };
                    earlier_runs = runs.len();
                    Some(bands::all_bands(&runs, &me))
                }
            };
            let old: perfreport::gate::Expectations = match &expect {
                None => perfreport::gate::from_history(&v, earlier_runs, bands.clone().unwrap_or_default()),
                Some(expect) => match std::fs::read(expect) {
                    Ok(b) => serde_json::from_slice(&b)
                        .with_context(|| format!("{} is not an expectations file", shown(expect)))?,
                    Err(_) if update => Default::default(),
                    Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", shown(expect))),
                },
            };
            if let (Some(expect), true) = (&expect, update) {
                let new = perfreport::gate::update(&v, &old, bands);
                let mut text = serde_json::to_vec_pretty(&new)?;
                text.push(b'\n');
                perfreport::output::write_atomic(expect, &text)?;
                eprintln!("perfreport: wrote {} from run {}", shown(expect), quote(&v.stamp));
                return Ok(0);
            }
            let mut old = old;
            if let (Some(bands), Some(_)) = (bands, &expect) {
                // The file's expected figures, the bands of today's history.
                old.history_bands = bands;
            }
            let r = perfreport::gate::gate(&v, &old);
            if json {
                println!("{}", perfreport::term::json(&serde_json::to_string_pretty(&r)?));
            } else {
                print!("{}", quote_lines(&perfreport::gate::render_text(&r)));
            }
            Ok(if r.refused.is_some() || r.regressions > 0 {
                EXIT_STRICT
            } else {
                0
            })
        }
        Command::Serve {
            run_dir,
            bind,
            out,
            root,
            header_timeout,
            idle_timeout,
            max_connections,
            allow_host,
        } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let out_dir = out.unwrap_or_else(|| run_dir.clone());
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = stop.clone();
            ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed))
                .context("cannot install the Ctrl-C handler")?;
            let defaults = perfreport::serve::Limits::default();
            let limits = perfreport::serve::Limits {
                header_timeout: header_timeout.unwrap_or(defaults.header_timeout),
                idle_timeout: idle_timeout.unwrap_or(defaults.idle_timeout),
                max_connections: max_connections.unwrap_or(defaults.max_connections),
                ..defaults
            };
            let opts = perfreport::serve::ServeOptions {
                run_dir: run_dir.clone(),
                out_dir,
                bind,
                limits,
                allow_hosts: allow_host,
            };
            perfreport::serve::serve(&opts, stop, |addr| {
                let every = if addr.ip().is_unspecified() {
                    " (every interface)"
                } else {
                    ""
                };
                println!(
                    "perfreport: serving {} at http://{addr}/{every}; Ctrl-C stops",
                    shown(&run_dir)
                );
                use std::io::Write;
                let _ = std::io::stdout().flush();
            })?;
            eprintln!("perfreport: stopped");
            Ok(0)
        }
        Command::Placement {
            run_dir,
            json,
            costs_out,
            fleet_out,
            history,
            root,
        } => {
            let run_dir = run_or_newest(run_dir, &root)?;
            let p = perfreport::placement::placement(&run_dir, history.as_deref())?;
            if json {
                println!("{}", perfreport::term::json(&serde_json::to_string_pretty(&p)?));
            } else {
                print!("{}", quote_lines(&perfreport::render::placement::markdown(&p)?));
            }
            write_placement_files(&p, costs_out.as_deref(), fleet_out.as_deref())?;
            Ok(0)
        }
        Command::History { root, out, json } => {
            let root = root.unwrap_or_else(perfreport::runs::default_root);
            if !root.is_dir() {
                anyhow::bail!("{}: the runs root is not a directory", shown(&root));
            }
            let out = out.unwrap_or_else(|| root.clone());
            let cache = perfreport::history::collect::cache_in(&out);
            let collected = perfreport::history::collect::collect(&root, Some(&cache), Some(&out));
            for w in &collected.warnings {
                eprintln!("warning: {}", quote(w));
            }
            let view = perfreport::history::view::build(&root.display().to_string(), &collected.runs);
            let files = perfreport::history::render::render_all(&view)?;
            perfreport::output::write_all(&out, &files)?;
            if json {
                println!(
                    "{}",
                    perfreport::term::json(&String::from_utf8_lossy(&perfreport::history::render::json(&view)))
                );
            } else {
                print!("{}", quote_lines(&perfreport::history::render::summary(&view)));
                println!(
                    "{} runs read, {} from the cache; wrote {} files in {}",
                    collected.parsed,
                    collected.runs.len().saturating_sub(collected.parsed),
                    files.len(),
                    shown(&out)
                );
            }
            Ok(0)
        }
        Command::Buildlog { log, target } => {
            let bytes = std::fs::read(&log).with_context(|| format!("cannot read {}", shown(&log)))?;
            let figures = perfreport::harness::buildlog::analyse(&String::from_utf8_lossy(&bytes), &target);
            println!("{}", perfreport::term::json(&serde_json::to_string_pretty(&figures)?));
            Ok(0)
        }
    }
}

/// `placement --costs-out` and `--fleet-out`: each file, and what it leaves out.
fn write_placement_files(
    p: &perfreport::view::placement::PlacementView,
    costs: Option<&Path>,
    fleet: Option<&Path>,
) -> anyhow::Result<()> {
    use perfreport::render::placement::{costs_file, fleet_file};
    if let Some(path) = costs {
        let (text, left_out) = costs_file(p);
        perfreport::output::write_atomic(path, text.as_bytes())?;
        eprintln!("perfreport: wrote {}", shown(path));
        for l in left_out {
            eprintln!("perfreport: not in {}: {}", shown(path), quote(&l));
        }
    }
    if let Some(path) = fleet {
        perfreport::output::write_atomic(path, fleet_file(p).as_bytes())?;
        eprintln!("perfreport: wrote {}", shown(path));
    }
    Ok(())
}

/// The runs of a history root, each read once: its figures are cached in
/// the root (`.history-cache.json`), so a nightly gate reads only new runs.
fn history_runs(root: &Path) -> anyhow::Result<Vec<perfreport::history::RunFigures>> {
    if !root.is_dir() {
        anyhow::bail!("{}: the history root is not a directory", shown(root));
    }
    let cache = perfreport::history::collect::cache_in(root);
    let collected = perfreport::history::collect::collect(root, Some(&cache), None);
    for w in &collected.warnings {
        eprintln!("warning: {}", quote(w));
    }
    Ok(collected.runs)
}

/// A path for a terminal: its control characters quoted.
fn shown(path: &Path) -> String {
    quote(&path.display().to_string()).into_owned()
}

/// The run directory given, else the newest under the root.
fn run_or_newest(run_dir: Option<PathBuf>, root: &Path) -> anyhow::Result<PathBuf> {
    match run_dir {
        Some(d) => Ok(d),
        None => perfreport::runs::newest(root).with_context(|| format!("no run directory under {}", shown(root))),
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
