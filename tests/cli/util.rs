//! Helpers shared by the subcommands' tests and the area modules: the binary,
//! the fixtures and sample runs, data.json lookups, hand-written traces.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An outside tool a test needs, or `None` with a notice on a developer
/// machine without it. In CI a missing tool fails the test: `.ci/run`
/// installs it.
pub fn outside_tool(path: PathBuf, package: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    skipped(&format!(
        "no {} (.ci/run installs Debian's {package}; install it to run these checks)",
        path.display()
    ));
    None
}

/// Says that the running test checks nothing more because a tool it needs is
/// missing: in CI (where `.ci/run` installs every such tool) that fails the
/// test; elsewhere the notice goes to the terminal itself, past the test
/// harness's capture, so a skipped check never reads as a bare "ok".
pub fn skipped(why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {why}");
    }
    use std::io::Write;
    // io::stderr() is not captured by libtest; eprintln! would be.
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

pub fn sample(stamp: &str) -> PathBuf {
    root().join("sample-runs").join(stamp)
}

pub const COLD: &str = "20261020T020000Z";

pub const WARM: &str = "20261021T020000Z";

pub fn perfreport(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(args)
        .env_remove("PERF_ROOT")
        .output()
        .expect("the binary runs")
}

pub fn report(run: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    perfreport(&args)
}

pub fn data(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("data.json")).expect("data.json written");
    serde_json::from_str(&text).expect("data.json is JSON")
}

pub fn target<'a>(d: &'a Value, name: &str) -> &'a Value {
    d["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("target {name}"))
}

pub fn node<'a>(d: &'a Value, name: &str) -> &'a Value {
    d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("node {name}"))
}

/// A run directory made of the real upstream fixtures, as they are.
pub fn fixture_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        dir.path().join("trace-bake.json"),
    )
    .unwrap();
    std::fs::copy(fixture("otlp-example-trace.json"), dir.path().join("trace-otlp.json")).unwrap();
    std::fs::copy(fixture("zot-slog-era.jsonl"), dir.path().join("zot.jsonl")).unwrap();
    dir
}

/// Copies a run folder's files into `dst`, which must exist.
pub fn copy_run(src: &Path, dst: &Path) {
    for e in std::fs::read_dir(src).unwrap().flatten() {
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
}

/// A copy of a sample run whose files carry one fixed modification time, so
/// a snapshot does not depend on when the repository was checked out.
pub fn pinned_copy(stamp: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_792_461_600);
    for e in std::fs::read_dir(sample(stamp)).unwrap().flatten() {
        let dst = dir.path().join(e.file_name());
        std::fs::copy(e.path(), &dst).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&dst)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    dir
}

/// A hand-written span: `(id, parent, name, start_s, end_s, tags)`.
pub type HandSpan<'a> = (&'a str, &'a str, &'a str, f64, f64, &'a [(&'a str, &'a str)]);

/// A Jaeger trace written by hand, times in seconds from `t0`.
pub fn jaeger(t0_us: i64, spans: &[HandSpan]) -> String {
    let spans: Vec<Value> = spans
        .iter()
        .map(|(id, parent, name, s, e, tags)| {
            serde_json::json!({
                "traceID": "0123456789abcdef", "spanID": id, "operationName": name,
                "references": [{"refType": "CHILD_OF", "traceID": "0123456789abcdef", "spanID": parent}],
                "startTime": t0_us + (s * 1e6) as i64, "duration": ((e - s) * 1e6) as i64,
                "tags": tags.iter().map(|(k, v)| serde_json::json!({"key": k, "type": "string", "value": v})).collect::<Vec<_>>(),
                "processID": "p1"})
        })
        .collect();
    serde_json::json!({"data": [{"traceID": "0123456789abcdef", "spans": spans, "processes": {"p1": {"serviceName": "buildx"}}}]}).to_string()
}

pub fn publish(root: &Path, site: &Path) -> Output {
    perfreport(&["publish", root.to_str().unwrap(), "--site", site.to_str().unwrap()])
}

/// Every file under `dir` with its modification time.
pub fn mtimes(dir: &Path) -> std::collections::BTreeMap<PathBuf, std::time::SystemTime> {
    walk(dir)
        .into_iter()
        .map(|p| (p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap()))
        .collect()
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

/// Stretches the root span of a Jaeger trace by `factor` (the record took longer).
pub fn stretch_root(trace: &Path, factor: f64) {
    let mut d: Value = serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    for span in d["data"][0]["spans"].as_array_mut().unwrap() {
        let root = span["references"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["spanID"].as_str().unwrap().chars().all(|c| c == '0'));
        if root {
            let dur = span["duration"].as_f64().unwrap();
            span["duration"] = Value::from((dur * factor) as i64);
        }
    }
    std::fs::write(trace, serde_json::to_vec(&d).unwrap()).unwrap();
}

/// The seeded generator of the sample runs itself (examples/synth), for runs
/// wider than the samples.
#[allow(dead_code)]
#[path = "../../examples/synth/generator.rs"]
mod synth;

/// A generated run of `nodes` nodes and `targets` targets (the sample's cold
/// fleet first, then more), the same bytes every time.
/// The benchmark's 12-hour run (`synth big`) made small for a test: logs
/// of a few MB, node polls a minute apart.
pub fn twelve_hour_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut run = synth::big(3_000_000, 1_000_000);
    run.poll_s = 60.0;
    synth::write_run(&run, dir.path()).unwrap();
    dir
}

pub fn wide_run(nodes: usize, targets: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    synth::write_run(&synth::wide(nodes, targets, 20261105), dir.path()).unwrap();
    dir
}
