//! The benchmark's family of generated logs, one member at a time:
//!
//! ```text
//! family list
//! family zot|samples|sccache MEMBER DIR --mb N [--seed N] [--start YYYY-MM-DDTHH:MM:SSZ]
//! ```
//!
//! writes a run directory (run.json declaring the fleet's nodes with their
//! addresses, the member's log, and for sccache its nginx-log-format) and
//! prints what it wrote as JSON (the tally perfreport's figures must match).

// Shared with the tests (tests/perf/family.rs); each uses a part of it.
#[allow(dead_code)]
mod gen;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: family list | family zot|samples|sccache MEMBER DIR --mb N [--seed N] [--start YYYY-MM-DDTHH:MM:SSZ]";

struct Args {
    member: gen::Member,
    dir: PathBuf,
    mb: f64,
    seed: u64,
    start_us: i64,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let [kind, name, dir, rest @ ..] = args else {
        return Err(USAGE.into());
    };
    let kind = gen::Kind::parse(kind).ok_or_else(|| format!("unknown kind {kind}\n{USAGE}"))?;
    let member =
        gen::find(kind, name).ok_or_else(|| format!("no {} member {name} (see `family list`)", kind.name()))?;
    let mut out = Args {
        member,
        dir: PathBuf::from(dir),
        mb: 0.0,
        seed: 17,
        start_us: gen::DEFAULT_START_US,
    };
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = || format!("{flag}: cannot read {value}");
        match flag.as_str() {
            "--mb" => out.mb = value.parse().map_err(|_| bad())?,
            "--seed" => out.seed = value.parse().map_err(|_| bad())?,
            "--start" => out.start_us = gen::parse_start(value).ok_or_else(bad)?,
            _ => return Err(format!("unknown option {flag}\n{USAGE}")),
        }
    }
    if out.mb <= 0.0 {
        return Err(format!("--mb is required and positive\n{USAGE}"));
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("list") {
        for m in gen::members() {
            println!("{}\t{}\t{}", m.kind.name(), m.name, m.about);
        }
        return ExitCode::SUCCESS;
    }
    let a = match parse(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let size = gen::Size::Bytes((a.mb * 1e6) as u64);
    match gen::write_run(&a.member, a.seed, size, a.start_us, &a.dir) {
        Ok(tally) => {
            println!("{}", tally.to_json());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("family: writing {}: {e}", a.dir.display());
            ExitCode::FAILURE
        }
    }
}
