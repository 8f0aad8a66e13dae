//! `perfreport serve`: a live, read-only view of a run in flight.

use super::{shown, RunArgs, SamplesArgs};
use anyhow::Context;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on; the fleet binds every interface on purpose (0.0.0.0:8090).
    #[arg(long, env = "PERF_BIND", default_value = perfreport::serve::DEFAULT_BIND)]
    bind: String,
    /// Where the regenerated outputs go (and are served from); default: the run directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seconds a request's headers may take, from the connection's start or the previous answer [default: 10].
    #[arg(long, env = "PERF_SERVE_HEADER_TIMEOUT", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
    header_timeout: Option<Duration>,
    /// Seconds a connection may move no byte before it is closed [default: 30].
    #[arg(long, env = "PERF_SERVE_IDLE_TIMEOUT", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
    idle_timeout: Option<Duration>,
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
    #[command(flatten)]
    samples: SamplesArgs,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let run_dir = args.run.run_dir()?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
    let defaults = perfreport::serve::Limits::default();
    let limits = perfreport::serve::Limits {
        header_timeout: args.header_timeout.unwrap_or(defaults.header_timeout),
        idle_timeout: args.idle_timeout.unwrap_or(defaults.idle_timeout),
        max_connections: args.max_connections.unwrap_or(defaults.max_connections),
        ..defaults
    };
    let opts = perfreport::serve::ServeOptions {
        run_dir: run_dir.clone(),
        out_dir: args.out.unwrap_or_else(|| run_dir.clone()),
        bind: args.bind,
        limits,
        allow_hosts: args.allow_host,
        read: perfreport::model::Options {
            root: args.run.found_under(),
            ..args.samples.options(perfreport::model::Links::StayInside)?
        },
    };
    perfreport::serve::serve(&opts, stop, |addr| {
        let every = if addr.ip().is_unspecified() {
            " (every interface)"
        } else {
            ""
        };
        // A closed standard output is no reason to stop serving.
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "perfreport: serving {} at http://{addr}/{every}; Ctrl-C stops",
            shown(&run_dir)
        )
        .and_then(|()| out.flush());
    })?;
    eprintln!("perfreport: stopped");
    Ok(0)
}
