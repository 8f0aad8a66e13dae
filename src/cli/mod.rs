//! The subcommands, one module each: its arguments and what it does with
//! them. Binary-side, not the library: they parse flags and print to a
//! terminal; what they call is the library's.

pub mod buildlog;
pub mod check;
pub mod compare;
pub mod gate;
pub mod history;
pub mod metrics;
pub mod placement;
pub mod publish;
pub mod ratios;
pub mod report;
pub mod serve;
pub mod trace;

use anyhow::Context;
use perfreport::term::quote;
use std::path::{Path, PathBuf};

/// Exit codes: 0 done, 1 a contract broken under --strict, 2 unusable arguments or unwritable output.
pub const EXIT_STRICT: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// Which run a subcommand reads: the one given, else the newest under the root.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The run directory; default: the newest run under $PERF_ROOT (/var/tmp/rocm-perf).
    run_dir: Option<PathBuf>,
    /// The root searched for the newest run when RUN_DIR is not given.
    #[arg(long, env = "PERF_ROOT", default_value = perfreport::runs::DEFAULT_ROOT)]
    root: PathBuf,
}

impl RunArgs {
    /// The root the run was found under, when it was not given: its folder
    /// must stay inside it at every read (`model::Options::root`).
    pub fn found_under(&self) -> Option<PathBuf> {
        self.run_dir.is_none().then(|| self.root.clone())
    }

    /// The run directory given, else the newest under the root.
    pub fn run_dir(&self) -> anyhow::Result<PathBuf> {
        match &self.run_dir {
            Some(d) => Ok(d.clone()),
            None => perfreport::runs::newest(&self.root)
                .with_context(|| format!("no run directory under {}", shown(&self.root))),
        }
    }
}

/// Where the nodes' samples come from: a Prometheus-compatible server,
/// when one is named; else samples.jsonl.
#[derive(clap::Args)]
pub struct SamplesArgs {
    /// Read the nodes' samples from this Prometheus-compatible server (its base URL, e.g.
    /// http://prometheus.lab:9090) over the run's window, instead of samples.jsonl.
    /// Credentials only from PERF_PROMETHEUS_USER and PERF_PROMETHEUS_PASSWORD, or PERF_PROMETHEUS_TOKEN.
    #[arg(long, env = "PERF_PROMETHEUS", value_name = "URL")]
    prometheus: Option<String>,
    /// Seconds one request to the server may take, its answer included [default: 30].
    #[arg(long, env = "PERF_PROMETHEUS_TIMEOUT", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
    prometheus_timeout: Option<std::time::Duration>,
    /// Seconds all of one run's requests may take together [default: 300].
    #[arg(long, env = "PERF_PROMETHEUS_DEADLINE", value_name = "SECS", value_parser = perfreport::serve::parse_seconds)]
    prometheus_deadline: Option<std::time::Duration>,
}

impl SamplesArgs {
    /// How a run is read with these arguments; `links` as the command says.
    pub fn options(&self, links: perfreport::model::Links) -> anyhow::Result<perfreport::model::Options> {
        use perfreport::input::prometheus::{http, Server};
        let prometheus = match self.prometheus.as_deref().filter(|u| !u.trim().is_empty()) {
            None => None,
            Some(url) => {
                let server = Server::new(
                    url,
                    self.prometheus_timeout.unwrap_or(http::DEFAULT_TIMEOUT),
                    self.prometheus_deadline.unwrap_or(http::DEFAULT_DEADLINE),
                    &|k| std::env::var(k).ok(),
                )
                .map_err(|e| anyhow::anyhow!(e))?;
                Some(std::sync::Arc::new(server))
            }
        };
        Ok(perfreport::model::Options {
            links,
            prometheus,
            keep_polls: false,
            root: None,
        })
    }
}

/// The run's view, read and built, with no output rendered.
pub fn view_of(run: &RunArgs) -> anyhow::Result<perfreport::view::View> {
    let opts = perfreport::model::Options {
        root: run.found_under(),
        ..Default::default()
    };
    Ok(perfreport::view::build(&perfreport::model::load_with_options(
        &run.run_dir()?,
        &opts,
    )?))
}

/// The figures of the run a subcommand reads (see [`figures_of`]).
pub fn figures_of_run(run: &RunArgs) -> anyhow::Result<perfreport::figures::Figures> {
    let opts = perfreport::model::Options {
        root: run.found_under(),
        ..Default::default()
    };
    Ok(perfreport::analyse_with(&run.run_dir()?, &opts)?)
}

/// A run's figures, read now (with its provenance): what compare and the gate weigh.
pub fn figures_of(run_dir: &Path) -> anyhow::Result<perfreport::figures::Figures> {
    Ok(perfreport::analyse(run_dir)?)
}

/// A path for a terminal: its control characters quoted.
pub fn shown(path: &Path) -> String {
    quote(&path.display().to_string()).into_owned()
}

/// Prints each warning, quoted for the terminal.
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {}", quote(w));
    }
}

/// Pretty JSON for standard output, its control characters escaped.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let text = perfreport::render::printed(&perfreport::render::json::Pretty, value)?;
    print!("{}", perfreport::term::json(&text));
    Ok(())
}

/// How an output option's file is written: with `--follow-links`, through a
/// symlink to a regular file; else such a link is refused.
pub fn named_links(follow: bool) -> perfreport::output::NamedLinks {
    if follow {
        perfreport::output::NamedLinks::WriteThrough
    } else {
        perfreport::output::NamedLinks::Refuse
    }
}

/// Writes the file of an output option (`-o`, `--*-out`): `-` prints it on
/// standard output, its control characters quoted as everything printed
/// is (`json`: as JSON escapes); any other path goes to
/// `output::write_named` and is said on stderr.
pub fn write_output(path: &Path, text: &str, json: bool, links: perfreport::output::NamedLinks) -> anyhow::Result<()> {
    if path.as_os_str() == "-" {
        let shown = if json {
            perfreport::term::json(text)
        } else {
            perfreport::term::quote_lines(text)
        };
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(shown.as_bytes())?;
        out.flush()?;
        return Ok(());
    }
    perfreport::output::write_named(path, text.as_bytes(), links)?;
    eprintln!("perfreport: wrote {}", shown(path));
    Ok(())
}

/// The runs of a history root, each read once: its figures are cached in
/// the root (`.history-cache.json`), so a nightly gate reads only new runs.
pub fn history_runs(root: &Path) -> anyhow::Result<Vec<perfreport::figures::Figures>> {
    if !root.is_dir() {
        anyhow::bail!("{}: the history root is not a directory", shown(root));
    }
    let cache = perfreport::history::collect::cache_in(root);
    let collected = perfreport::history::collect::collect(root, Some(&cache), None);
    warn_all(&collected.warnings);
    Ok(collected.runs)
}
