//! Writes the bundled sample runs, or big runs for the benchmarks.
//!
//!   cargo run --release --example synth -- samples sample-runs
//!   cargo run --release --example synth -- big /tmp/big --zot-mb 300 --sccache-mb 50
//!   cargo run --release --example synth -- nightly /tmp/nightly --runs 1000
//!   cargo run --release --example synth -- fleet /tmp/fleet --nodes 8 --targets 24

mod generator;

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |flag: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    match args.first().map(String::as_str) {
        Some("samples") => {
            let root = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("sample-runs"));
            for sc in [generator::cold_sample(), generator::warm_in_flight_sample()] {
                let dir = root.join(sc.stamp);
                generator::write_run(&sc, &dir)?;
                println!("{}", dir.display());
            }
        }
        Some("big") => {
            let dir = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("/tmp/perfreport-big"));
            let sc = generator::big(arg("--zot-mb", 300) * 1_000_000, arg("--sccache-mb", 50) * 1_000_000);
            generator::write_run(&sc, &dir)?;
            println!("{}", dir.display());
        }
        Some("fleet") => {
            // A wide fleet to look at the charts: `--nodes 8 --targets 24`.
            let dir = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("/tmp/perfreport-fleet"));
            let sc = generator::wide(
                arg("--nodes", 8) as usize,
                arg("--targets", 24) as usize,
                arg("--seed", 20261105),
            );
            generator::write_run(&sc, &dir)?;
            println!("{}", dir.display());
        }
        Some("nightly") => {
            // A root of nightly runs for history at scale; pytorch steps up 15% halfway.
            let root = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("/tmp/perfreport-nightly"));
            let runs = arg("--runs", 1000) as u32;
            for night in 0..runs {
                let day = jiff::Timestamp::from_second(1_790_820_000 + night as i64 * 86_400)
                    .map(|t| t.strftime("%Y%m%dT%H%M%SZ").to_string())
                    .unwrap_or_else(|_| format!("night-{night:05}"));
                // A run's stamp is &'static: this short-lived generator leaks one string per run.
                let stamp: &'static str = Box::leak(day.into_boxed_str());
                generator::write_run(&generator::nightly(night, runs / 2, stamp), &root.join(stamp))?;
            }
            println!("{} ({runs} runs)", root.display());
        }
        _ => {
            eprintln!("usage: synth samples [DIR] | synth big [DIR] [--zot-mb N] [--sccache-mb N] | synth nightly [ROOT] [--runs N] | synth fleet [DIR] [--nodes N] [--targets N] [--seed N]");
            std::process::exit(2);
        }
    }
    Ok(())
}
