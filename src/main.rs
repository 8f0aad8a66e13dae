//! The `perfreport` command: parses its arguments and hands each subcommand
//! to its module under `cli/`, a thin layer over the library.

mod cli;

use clap::{Parser, Subcommand};
use cli::{
    buildlog, check, compare, gate, history, metrics, placement, publish, ratios, report, serve, trace, EXIT_USAGE,
};
use perfreport::term::quote;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = perfreport::figures::Tool::NAME,
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
    Report(report::Args),
    /// Cache ratios from the serial benchmark harness's bench.jsonl: ratios.md, ratios.json, ratios.html, charts.
    Ratios(ratios::Args),
    /// Build a static site over every run under ROOT, with a selector from run to run.
    Publish(publish::Args),
    /// Check that each input's producer and perfreport still agree; exit 1 when any does not.
    Check(check::Args),
    /// Write the run's figures for node_exporter's textfile collector.
    Metrics(metrics::Args),
    /// The run as Chrome trace-event JSON for Perfetto (ui.perfetto.dev) or chrome://tracing.
    Trace(trace::Args),
    /// What changed from run A to run B, per target, phase and node (markdown, or JSON).
    Compare(compare::Args),
    /// Gate the night's runs (or one run) on the history of comparable runs, or on checked-in expectations: exit 1 on a regression, 3 when nothing could be gated.
    Gate(gate::Args),
    /// Serve a live view of a run (default: the newest) while it grows.
    Serve(serve::Args),
    /// The balancer's costs as measured: per target, per node's link, and its rule replayed on them.
    Placement(placement::Args),
    /// How each target's cost moved across the runs under ROOT: history.json, history.md, charts.
    History(history::Args),
    /// The figures bench.sh scrapes from a BuildKit plain-progress build log, as JSON.
    Buildlog(buildlog::Args),
}

/// The version with the commit it was built from, as every report records it.
const VERSION: &str = perfreport::figures::Tool::VERSION_LINE;

fn main() -> ExitCode {
    let command = Cli::parse().command;
    if !matches!(command, Command::Serve(_)) {
        end_quietly_on_a_closed_stdout();
    }
    match run(command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("perfreport: {}", quote(&format!("{e:#}")));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// A reader that stops reading (`perfreport history --json | head -c 10`)
/// ends the command as it ends `cat`: by SIGPIPE, exit status 141 in a
/// shell, with nothing printed. Rust ignores SIGPIPE, which turns the closed
/// pipe into an error that `print!` panics on. Not for `serve`, whose
/// sockets a client may close at any time.
fn end_quietly_on_a_closed_stdout() {
    // SAFETY: restores the default action of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// One function per subcommand; each returns its exit code.
fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Report(args) => report::run(args),
        Command::Ratios(args) => ratios::run(args),
        Command::Publish(args) => publish::run(args),
        Command::Check(args) => check::run(args),
        Command::Metrics(args) => metrics::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Gate(args) => gate::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Placement(args) => placement::run(args),
        Command::History(args) => history::run(args),
        Command::Buildlog(args) => buildlog::run(args),
    }
}
