//! One hostile line must cost what a normal line costs: a huge latency, an
//! endless line, a number at the edge of what a float holds, an input file
//! the size of a disk. Each test reports a run beside a sound trace and
//! asserts exit 0, the rest of the run intact, the reason said, and, where
//! memory was the failure, a peak resident memory of the `perfreport report`
//! child (its own, from `wait4`) near that of the same run without the line.

use super::hostile::run_with;
use super::{data, fixture, target};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Memory a hostile line may add to the peak of the same run without it:
/// a few blocks of the line reader per log, far below the line itself.
const HEADROOM: u64 = 32 << 20;

struct Measured {
    code: Option<i32>,
    stderr: String,
    /// Peak resident memory of the child, bytes.
    peak: u64,
    data: Option<Value>,
}

/// Set for a copy of this test binary that only measures one child.
const PROBE: &str = "PERFREPORT_TEST_PEAK_PROBE";

/// `perfreport report RUN --out <temp>`, with the child's peak memory.
fn report_measured(run: &Path) -> Measured {
    let out = tempfile::tempdir().unwrap();
    let args = ["report", run.to_str().unwrap(), "--out", out.path().to_str().unwrap()];
    let (m, _) = measured(&args);
    let data = out.path().join("data.json").exists().then(|| data(out.path()));
    Measured { data, ..m }
}

/// `perfreport ARGS`, with the child's peak memory and CPU time (seconds, user and system).
///
/// A child's peak as `wait4` gives it counts the memory of the process it
/// was forked from, and this test process holds whatever the tests running
/// beside it hold. So a fresh, small copy of the test binary runs
/// `peak_memory_probe`, which starts `perfreport` and reports its peak.
fn measured(args: &[&str]) -> (Measured, f64) {
    let out = tempfile::tempdir().unwrap();
    let stderr_file = out.path().join("stderr");
    let result_file = out.path().join("peak.json");
    let probe = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "bounds::peak_memory_probe",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            PROBE,
            serde_json::json!({"args": args, "stderr": stderr_file, "result": result_file}).to_string(),
        )
        .output()
        .unwrap();
    let report: Value = match std::fs::read(&result_file) {
        Ok(r) => serde_json::from_slice(&r).unwrap(),
        Err(_) => panic!("the probe reported nothing: {}", String::from_utf8_lossy(&probe.stdout)),
    };
    let m = Measured {
        code: report["code"].as_i64().map(|c| c as i32),
        stderr: std::fs::read_to_string(&stderr_file).unwrap_or_default(),
        peak: report["peak"].as_u64().unwrap(),
        data: None,
    };
    (m, report["cpu_s"].as_f64().unwrap())
}

/// Not a test of its own: run by `report_measured` in a fresh copy of this
/// binary, it starts `perfreport` with the arguments it is given and writes
/// down its exit code and peak memory. The child may not map more than 4 GiB, so
/// a regression fails the test instead of taking the machine's memory.
#[test]
fn peak_memory_probe() {
    use std::os::unix::process::CommandExt;
    let Ok(request) = std::env::var(PROBE) else {
        return;
    };
    let request: Value = serde_json::from_str(&request).unwrap();
    let args: Vec<&str> = request["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let stderr = std::fs::File::create(request["stderr"].as_str().unwrap()).unwrap();
    // `serve` runs until stopped: it is stopped with Ctrl-C once it says it
    // serves, that is once its first generation is written.
    let serves = args.first() == Some(&"serve");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perfreport"));
    cmd.args(&args)
        .env_remove("PERF_ROOT")
        .env_remove(PROBE)
        .stdout(if serves { Stdio::piped() } else { Stdio::null() })
        .stderr(stderr);
    // SAFETY: setrlimit is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // Reaped by wait4 below, which std's wait cannot replace: it drops the rusage.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("the binary runs");
    let pid = child.id() as libc::pid_t;
    if serves {
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
        // SAFETY: a signal to the child just started, not yet reaped.
        unsafe { libc::kill(pid, libc::SIGINT) };
    }
    let mut status = 0;
    // SAFETY: plain out-parameters; `child` is not waited on through std afterwards.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let peak = usage.ru_maxrss as u64 * 1024;
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    let result = serde_json::json!({"code": code, "peak": peak, "cpu_s": cpu_s}).to_string();
    std::fs::write(request["result"].as_str().unwrap(), result).unwrap();
}

/// Reports the run; asserts exit 0, no panic, the sound trace intact, and
/// the peak memory within `HEADROOM` of `control`'s (when given).
fn survive_within(run: &Path, control: Option<&Path>) -> (Value, String) {
    let m = report_measured(run);
    assert_eq!(m.code, Some(0), "no failure, no abort: {}", m.stderr);
    assert!(!m.stderr.contains("panicked"), "{}", m.stderr);
    if let Some(control) = control {
        let c = report_measured(control);
        assert_eq!(c.code, Some(0), "{}", c.stderr);
        assert!(
            m.peak <= c.peak + HEADROOM,
            "peak memory {} MiB, the run without the hostile line {} MiB",
            m.peak >> 20,
            c.peak >> 20
        );
    }
    let d = m.data.expect("data.json written");
    let total = target(&d, "bake")["total_s"].as_f64().unwrap();
    assert!((total - 89.626).abs() < 0.01, "the rest of the run is still right");
    (d, m.stderr)
}

fn warnings(d: &Value, input: &str) -> String {
    d["inputs"][input]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no input {input}"))
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes `before`, `len` bytes of `x` with no newline, then `after`.
fn with_long_line(path: &Path, before: &[u8], len: usize, after: &[u8]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(before).unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..len / block.len() {
        f.write_all(&block).unwrap();
    }
    f.write_all(&block[..len % block.len()]).unwrap();
    f.write_all(after).unwrap();
}

#[test]
fn a_64_mib_line_without_newline_is_skipped_counted_malformed_and_never_held() {
    let zot = std::fs::read(fixture("zot-slog-era.jsonl")).unwrap();
    let sample = |s: u32| {
        format!(r#"{{"ts": "2024-01-12T14:58:{s:02}Z", "node": "a", "cpu": {{"user": {s}, "idle": 100}}}}"#) + "\n"
    };
    let samples: String = (0..10).map(sample).collect();
    let sccache: String = (0..10)
        .map(|s| format!("10.0.4.40 - - [12/Jan/2024:14:58:{s:02} +0000] \"GET /a/b/c/abcdef HTTP/1.1\" 200 10 \"-\" \"opendal\"\n"))
        .collect();
    let control = run_with(&[
        ("zot.jsonl", &zot),
        ("samples.jsonl", samples.as_bytes()),
        ("sccache.log", sccache.as_bytes()),
    ]);
    let run = run_with(&[]);
    let long = 64 << 20;
    // In the middle of the log (its newline comes 64 MiB later), and at the very end.
    let mut after = b"\n".to_vec();
    after.extend_from_slice(&zot);
    with_long_line(&run.path().join("zot.jsonl"), &zot, long, &after);
    with_long_line(&run.path().join("samples.jsonl"), samples.as_bytes(), long, b"");
    let mut after = b"\n".to_vec();
    after.extend_from_slice(sccache.as_bytes());
    with_long_line(&run.path().join("sccache.log"), sccache.as_bytes(), long, &after);
    let (d, _) = survive_within(run.path(), Some(control.path()));
    let input = |name: &str| &d["inputs"][name];
    let zot_lines = zot.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(input("zot.jsonl")["lines"], 2 * zot_lines + 1);
    assert_eq!(input("zot.jsonl")["malformed"], 1);
    assert_eq!(
        d["zot"]["requests"], 14,
        "the requests on both sides of the line still count"
    );
    assert!(warnings(&d, "zot.jsonl").contains(&format!(
        "zot.jsonl:{}: the line is longer than 1 MiB, the most a line may be: skipped unread",
        zot_lines + 1
    )));
    assert_eq!(
        (&input("samples.jsonl")["lines"], &input("samples.jsonl")["malformed"]),
        (&11.into(), &1.into())
    );
    assert_eq!(input("samples.jsonl")["records"], 10);
    assert!(warnings(&d, "samples.jsonl").contains("samples.jsonl:11: the line is longer than 1 MiB"));
    assert_eq!(
        (&input("sccache.log")["lines"], &input("sccache.log")["malformed"]),
        (&21.into(), &1.into())
    );
    assert_eq!(d["sccache"]["hits"], 20);
    assert!(warnings(&d, "sccache.log").contains("sccache.log:11: the line is longer than 1 MiB"));
    // The provenance still covers every byte.
    assert_eq!(input("zot.jsonl")["bytes"], 2 * zot.len() as u64 + long as u64 + 1);
}

#[test]
fn a_run_json_or_trace_past_its_bound_is_named_with_its_size_and_the_rest_reported() {
    let control = run_with(&[("zot.jsonl", &std::fs::read(fixture("zot-slog-era.jsonl")).unwrap())]);
    let run = run_with(&[("zot.jsonl", &std::fs::read(fixture("zot-slog-era.jsonl")).unwrap())]);
    // Sparse files: their size costs no disk, and reading them would cost memory.
    let run_json = 5u64 << 30;
    std::fs::File::create(run.path().join("run.json"))
        .unwrap()
        .set_len(run_json)
        .unwrap();
    let trace = (256 << 20) + 1;
    std::fs::File::create(run.path().join("trace-huge.json"))
        .unwrap()
        .set_len(trace)
        .unwrap();
    let (d, _) = survive_within(run.path(), Some(control.path()));
    assert_eq!(
        warnings(&d, "run.json"),
        format!("run.json: {run_json} bytes, more than the 16 MiB this file may be: not read, and the rest of the run is reported without it")
    );
    assert!(
        warnings(&d, "trace-huge.json").contains(&format!(
            "trace-huge.json: {trace} bytes, more than the 256 MiB this file may be: not read"
        )),
        "{}",
        warnings(&d, "trace-huge.json")
    );
    assert_eq!(d["inputs"]["trace-huge.json"]["bytes"], trace);
    assert_eq!(d["inputs"]["trace-huge.json"]["contract_broken"], true);
    assert_eq!(d["zot"]["requests"], 7, "the rest of the run is reported");
}

/// The window of the buildx fixture's record, with a little on each side.
const RUN_JSON: &[u8] = br#"{"stamp": "bounds", "mode": "cold", "started_at": "2024-01-12T14:55:00Z", "finished_at": "2024-01-12T15:05:00Z"}"#;

fn zot_write(latency: &str, bytes: u64) -> String {
    format!(
        r#"{{"time":"2024-01-12T14:58:30Z","level":"info","message":"HTTP API","clientIP":"10.0.0.1:4000","method":"PUT","path":"/v2/rocm/cache/blobs/uploads/1?digest=sha256%3Aab","statusCode":201,"latency":"{latency}","headers":{{"Content-Length":["{bytes}"]}}}}"#
    ) + "\n"
}

#[test]
fn a_zot_latency_of_go_s_largest_duration_is_clamped_to_the_window_in_bounded_memory() {
    let hostile = zot_write("2562047h47m16.854775807s", 7_000_000)
        + &zot_write("8760h", 5_000_000)
        + &zot_write("30s", 3_000_000);
    let sound = zot_write("30s", 7_000_000) + &zot_write("30s", 5_000_000) + &zot_write("30s", 3_000_000);
    // With run.json's window, and without it (the window is then the events').
    for run_json in [Some(RUN_JSON), None] {
        let make = |zot: &str| {
            let mut files: Vec<(&str, &[u8])> = vec![("zot.jsonl", zot.as_bytes())];
            files.extend(run_json.map(|r| ("run.json", r)));
            run_with(&files)
        };
        let (run, control) = (make(&hostile), make(&sound));
        let (d, _) = survive_within(run.path(), Some(control.path()));
        let w = warnings(&d, "zot.jsonl");
        assert!(
            w.contains("2 write requests lasted beyond the run's window (the longest 2562047h47m): clamped to it"),
            "{w}"
        );
        // Every byte still counts in the totals; the lane stays inside the window.
        assert_eq!(d["zot"]["cache_write_bytes"], 15_000_000);
        let wall = d["window"]["wall_s"].as_f64().unwrap();
        let lane = d["zot"]["series"].as_array().unwrap();
        assert!(
            !lane.is_empty() && lane.len() as f64 <= wall / 10.0 + 2.0,
            "{} buckets",
            lane.len()
        );
        for p in lane {
            let t = p["t_s"].as_f64().unwrap();
            assert!((-10.0..=wall).contains(&t), "bucket at {t} s outside the window");
        }
        // Each write ended inside the window: all its bytes are drawn there.
        let drawn: u64 = lane.iter().map(|p| p["cache_bytes"].as_u64().unwrap()).sum();
        assert_eq!(drawn, 15_000_000);
    }
}

#[test]
fn a_huge_sccache_request_time_or_a_far_timestamp_keeps_the_lane_in_the_window() {
    let format = br#"log_format sccache '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time';"#;
    let line = |time: &str, request_time: &str| {
        format!(r#"10.0.4.40 - - [{time}] "GET /a/b/c/abcdef HTTP/1.1" 200 10 "-" "opendal" 300 {request_time}"#) + "\n"
    };
    let hostile = line("12/Jan/2024:14:58:00 +0000", "9223372036.854")
        + &line("12/Jan/2024:14:58:10 +0000", "31536000.000")
        + &line("31/Dec/9999:23:59:59 +0000", "0.001")
        + &line("12/Jan/2024:14:58:20 +0000", "0.001");
    let sound = line("12/Jan/2024:14:58:00 +0000", "0.001").repeat(4);
    let run = run_with(&[
        ("run.json", RUN_JSON),
        ("nginx-log-format", format),
        ("sccache.log", hostile.as_bytes()),
    ]);
    let control = run_with(&[
        ("run.json", RUN_JSON),
        ("nginx-log-format", format),
        ("sccache.log", sound.as_bytes()),
    ]);
    let (d, _) = survive_within(run.path(), Some(control.path()));
    // The request of year 9999 is not this run's: left out of the totals, and counted.
    assert_eq!(d["sccache"]["hits"], 3);
    let input = &d["inputs"]["sccache.log"];
    assert_eq!(input["skipped"], 1, "{input}");
    let said = input["warnings"].to_string();
    assert!(
        said.contains("sccache.log: 1 request from ") && said.contains(" lies outside the run's window"),
        "{said}"
    );
    let wall = d["window"]["wall_s"].as_f64().unwrap();
    let lane = d["sccache"]["series"].as_array().unwrap();
    assert!(lane.len() as f64 <= wall / 10.0 + 2.0, "{} buckets", lane.len());
    let drawn: u64 = lane.iter().map(|p| p["hits"].as_u64().unwrap()).sum();
    assert_eq!(drawn, 3, "the request of year 9999 is not drawn");
}

#[test]
fn est_s_5e_324_in_placement_no_longer_fails_the_report() {
    // actual ÷ 5e-324 is infinite: it was written as a null ratio that the
    // report's template could not round, and the whole report was lost.
    let run = run_with(&[
        ("run.json", RUN_JSON),
        ("placement.txt", b"placement target=bake node=a est_s=5e-324\n"),
    ]);
    let (d, _) = survive_within(run.path(), None);
    assert_eq!(target(&d, "bake")["est_s"], 5e-324);
    assert_eq!(d["fleet"]["estimate_misses"], serde_json::json!([]));
    let all_warnings = d["warnings"].as_array().unwrap();
    assert!(
        all_warnings.iter().any(|w| w.as_str().unwrap()
            == "placement.txt: the estimate for bake (est_s=5e-324) is too small to compare with its 1m30s: actual ÷ estimate is past the largest number"),
        "{all_warnings:?}"
    );
}

/// Numbers at the edges of what an f64 or a timestamp holds, one per field.
#[test]
fn extreme_numbers_in_every_input_give_null_with_a_reason_never_a_failure() {
    let trace = std::fs::read_to_string(fixture("buildx-history-trace-jaeger.json")).unwrap();
    // Every span 9e18 µs after the epoch: far past year 9999.
    let far = trace.replace("\"startTime\": 1705071", "\"startTime\": 9001705071");
    assert_ne!(far, trace);
    let run_json = br#"{"stamp": "extremes", "mode": "cold", "started_at": "2024-01-12T14:55:00Z", "finished_at": "2024-01-12T15:05:00Z",
        "nodes": [{"name": "a", "cores": 0, "mem_bytes": 0, "link_mbps": 0, "addr": "10.0.0.1"},
                  {"name": "b", "cores": -4, "mem_bytes": -1, "link_mbps": -3.5}]}"#;
    let placement = b"placement target=bake node=a est_s=1e-320\nplacement target=far node=b est_s=1e308\n";
    let samples = [
        r#"{"ts": "2024-01-12T14:58:00Z", "node": "a", "cpu": {"user": 1e308, "system": 1e308, "idle": 1e308}, "mem": {"total": 0, "available": 0}, "load1": 1e308}"#,
        r#"{"ts": "2024-01-12T14:58:05Z", "node": "a", "cpu": {"user": 1.5e308, "system": 1.5e308, "idle": 1.7e308}, "mem": {"total": 5e-324, "available": 0}, "load1": -1}"#,
        r#"{"ts": "2024-01-12T14:58:10Z", "node": "a", "cpu": {"user": 1.7e308, "idle": 5e-324}, "mem": {"total": 1e308, "available": 1e-308}}"#,
        r#"{"ts": "-009999-01-03T00:00:00Z", "node": "b", "cpu": {"user": 1, "idle": 1}}"#,
        r#"{"ts": "9999-12-30T00:00:00Z", "node": "b", "cpu": {"user": 2, "idle": 2}}"#,
    ]
    .join("\n")
        + "\n";
    let run = run_with(&[
        ("run.json", run_json),
        ("placement.txt", placement),
        ("samples.jsonl", samples.as_bytes()),
        ("trace-far.json", far.as_bytes()),
    ]);
    let (d, _) = survive_within(run.path(), None);
    let text = serde_json::to_string(&d).unwrap();
    assert!(!text.contains("inf") && !text.contains("NaN"), "{text}");
    // An estimate too small to divide by: no miss with a null ratio, a warning instead.
    let all_warnings = d["warnings"].as_array().unwrap();
    assert!(
        all_warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("estimate for bake (est_s=1e-320) is too small to compare")),
        "{all_warnings:?}"
    );
    for m in d["fleet"]["estimate_misses"].as_array().unwrap() {
        assert!(m["ratio"].is_f64(), "{m}");
    }
    // CPU modes whose sum overflows: the line is malformed with its reason,
    // and the node's mean is null with its own.
    assert!(warnings(&d, "samples.jsonl").contains("samples.jsonl:1: `cpu` modes add up past the largest number"));
    let a = super::node(&d, "a");
    assert!(a["cpu_pct_mean"].is_null(), "{a}");
    assert_eq!(a["why_null"]["cpu_pct_mean"], "fewer than two usable CPU polls", "{a}");
    assert!(a["mem_pct_max"].is_f64(), "{a}");
    // Spans past year 9999 are refused by name, not turned into a window of 9e12 s.
    assert!(
        warnings(&d, "trace-far.json").contains("is past year 9999"),
        "{}",
        warnings(&d, "trace-far.json")
    );
    assert!(d["window"]["wall_s"].as_f64().unwrap() < 1e12);
    for t in d["targets"].as_array().unwrap() {
        for field in ["total_s", "build_s", "gap_s", "upload_s"] {
            if t[field].is_null() {
                assert!(t["why_null"][field].is_string(), "{field} of {t}");
            }
        }
    }
}

#[test]
fn a_gate_expectation_of_5e_324_prints_no_infinite_drift() {
    let run = run_with(&[]);
    let expect = run.path().join("expectations.json");
    // 2 steps cached against an expected 5e-324: a drift past any percentage.
    std::fs::write(&expect, br#"{"targets": {"bake": {"steps_cached": 5e-324}}}"#).unwrap();
    let gate = |extra: &[&str]| {
        let mut args = vec![
            "gate",
            run.path().to_str().unwrap(),
            "--expect",
            expect.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = super::perfreport(&args);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let text = gate(&[]);
    assert!(!text.contains("inf") && text.contains("improved"), "{text}");
    let r: Value = serde_json::from_str(&gate(&["--json"])).unwrap();
    assert_eq!(r["checks"][0]["drift_pct"], Value::Null);
    assert_eq!(r["checks"][0]["verdict"], "improved");
}

/// A run of `n` targets on `n` nodes: run.json announces them all (none has
/// a trace but `bake`), placement.txt places each once, and `lines` more
/// placement lines repeat the first ten targets.
fn run_of_size(n: usize, lines: usize) -> tempfile::TempDir {
    let targets: Vec<String> = (0..n).map(|i| format!("t{i:06}")).collect();
    let nodes: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"name": format!("n{i:06}"), "cores": 8, "link_mbps": 100.0}))
        .collect();
    let run_json = serde_json::json!({
        "stamp": "growth", "mode": "cold",
        "started_at": "2024-01-12T14:55:00Z", "finished_at": "2024-01-12T15:05:00Z",
        "targets": targets, "nodes": nodes,
    })
    .to_string();
    let mut placement = String::new();
    for (i, t) in targets.iter().enumerate() {
        placement += &format!("placement target={t} node=n{i:06} est_s=60\n");
    }
    for i in 0..lines {
        placement += &format!("placement target=t{:06} node=n000000 est_s=60\n", i % 10);
    }
    run_with(&[
        ("run.json", run_json.as_bytes()),
        ("placement.txt", placement.as_bytes()),
    ])
}

/// A root holding a copy of the run `dir` (publish walks a root; a link
/// to a run outside it would not be walked).
fn root_of(dir: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    std::fs::create_dir(&run).unwrap();
    super::copy_run(dir, &run);
    root
}

/// CPU time and peak memory of `report`, `placement --json`, `publish` and
/// `serve` (to its first generation), and the size of report's outputs, on
/// `small` and on `big` (ten times as much input): at most ~12 times as much.
fn grows_at_most_tenfold(what: &str, small: &Path, big: &Path) -> (Value, String) {
    const RATIO: f64 = 12.0;
    let mut big_data = None;
    let roots = (root_of(small), root_of(big));
    for command in ["report", "placement", "publish", "serve"] {
        let run = |dir: &Path| {
            let out = tempfile::tempdir().unwrap();
            let root = if dir == small { roots.0.path() } else { roots.1.path() };
            let (dir, out_dir) = (dir.to_str().unwrap(), out.path().to_str().unwrap());
            let args: Vec<&str> = match command {
                "report" => vec!["report", dir, "--out", out_dir],
                "publish" => vec!["publish", root.to_str().unwrap(), "--site", out_dir],
                "serve" => vec!["serve", dir, "--out", out_dir, "--bind", "127.0.0.1:0"],
                _ => vec!["placement", dir, "--json"],
            };
            let (m, cpu) = measured(&args);
            assert_eq!(m.code, Some(0), "{what}, {command}: {}", m.stderr);
            if command == "serve" {
                assert!(
                    out.path().join("index.html").is_file(),
                    "{what}: serve wrote its first generation"
                );
            }
            let d = out.path().join("data.json").exists().then(|| data(out.path()));
            let bytes: u64 = super::walk(out.path())
                .iter()
                .map(|f| std::fs::metadata(f).unwrap().len())
                .sum();
            (m, cpu, d, bytes)
        };
        let (s, s_cpu, _, s_bytes) = run(small);
        let (b, b_cpu, d, b_bytes) = run(big);
        if command == "report" {
            let out = b_bytes as f64 / s_bytes as f64;
            assert!(out <= RATIO, "{what}: outputs x{out:.1} ({s_bytes} -> {b_bytes} bytes)");
        }
        // The fixed cost of a process (a few ms, a few MiB) is a floor on both.
        let cpu = b_cpu / s_cpu.max(0.05);
        let mem = b.peak as f64 / s.peak as f64;
        eprintln!(
            "{what}, {command}: CPU {s_cpu:.2} s -> {b_cpu:.2} s (x{cpu:.1}), peak {} -> {} MiB (x{mem:.1})",
            s.peak >> 20,
            b.peak >> 20
        );
        assert!(
            cpu <= RATIO,
            "{what}, {command}: CPU time x{cpu:.1} for ten times the input"
        );
        assert!(
            mem <= RATIO,
            "{what}, {command}: peak memory x{mem:.1} for ten times the input"
        );
        if let (Some(d), "report") = (d, command) {
            big_data = Some((d, b.stderr));
        }
    }
    big_data.expect("report wrote data.json")
}

/// Ten times the targets, nodes or placement lines costs at most about ten
/// times the CPU time and memory, measured in this one test run (a ratio,
/// no wall-clock limit); past the bounds the rest is counted, not drawn.
#[test]
fn cost_grows_linearly_with_targets_nodes_and_placement_lines_and_stops_at_the_bounds() {
    // Under the bounds: linear.
    let (small, big) = (run_of_size(150, 0), run_of_size(1_500, 0));
    let (d, _) = grows_at_most_tenfold("1,500 targets and nodes", small.path(), big.path());
    assert_eq!(d["targets"].as_array().unwrap().len(), 1_501);
    // Past them: the same cost as at the bound, and a warning that says so.
    let big = run_of_size(20_000, 0);
    let at_bound = run_of_size(2_000, 0);
    let (d, stderr) = grows_at_most_tenfold("20,000 targets and nodes", at_bound.path(), big.path());
    assert_eq!(d["targets"].as_array().unwrap().len(), 2_000);
    assert!(d["nodes"].as_array().unwrap().len() <= 2_000);
    let warnings = d["warnings"].to_string();
    assert!(
        warnings.contains("20000 nodes, more than the 2000 a report takes")
            && warnings.contains("targets, more than the 2000 a report takes"),
        "{warnings}"
    );
    assert!(stderr.contains("more than the 2000 a report takes"), "{stderr}");
    let (small, big) = (run_of_size(10, 20_000), run_of_size(10, 200_000));
    let (d, _) = grows_at_most_tenfold("200,000 placement lines", small.path(), big.path());
    assert!(
        d["warnings"]
            .to_string()
            .contains("200010 placement lines, more than the 20000 a report takes"),
        "{}",
        d["warnings"]
    );
}

/// A Jaeger trace of `spans` spans beside the fixture's own, each carrying
/// `logs` small log entries perfreport has no use for: its bytes are mostly
/// values a JSON tree would hold one by one.
fn trace_full_of_logs(spans: usize, logs: usize) -> Vec<u8> {
    let mut d: Value =
        serde_json::from_slice(&std::fs::read(fixture("buildx-history-trace-jaeger.json")).unwrap()).unwrap();
    let template = d["data"][0]["spans"][1].clone();
    let entry = serde_json::json!({"timestamp": 1705071460147265u64, "fields": [{"key": "event", "type": "string", "value": "x"}, {"key": "n", "type": "int64", "value": 1}]});
    let list = d["data"][0]["spans"].as_array_mut().unwrap();
    for i in 0..spans {
        let mut s = template.clone();
        s["spanID"] = format!("{:016x}", 0x1000_0000 + i).into();
        s["logs"] = Value::Array(vec![entry.clone(); logs]);
        list.push(s);
    }
    serde_json::to_vec(&d).unwrap()
}

/// Found by attacking the trace reader: a trace cost about 16 times its
/// size in memory (128 MB took 2.1 GB), decoded whole into a JSON tree, and
/// traces decode one per core. Only one span at a time is a tree now: a
/// trace costs its bytes and the spans kept.
#[test]
fn a_trace_costs_memory_in_proportion_to_its_bytes_and_spans_kept_not_its_json_tree() {
    let trace = trace_full_of_logs(6_000, 60);
    let size = trace.len() as u64;
    assert!(size > 30 << 20, "{size}");
    let control = run_with(&[]);
    let run = run_with(&[("trace-logs.json", &trace)]);
    let base = report_measured(control.path());
    let m = report_measured(run.path());
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    let d = m.data.as_ref().unwrap();
    assert_eq!(d["inputs"]["trace-logs.json"]["records"].as_u64(), Some(6_073));
    let added = m.peak.saturating_sub(base.peak);
    assert!(
        added < 3 * size,
        "a {} MiB trace added {} MiB to the peak",
        size >> 20,
        added >> 20
    );
}

/// A run whose samples.jsonl polls `nodes` nodes twice, none of them in
/// run.json, inside the run's window.
fn run_sampling(nodes: usize) -> tempfile::TempDir {
    let run_json = serde_json::json!({
        "stamp": "sampled", "mode": "cold",
        "started_at": "2024-01-12T14:55:00Z", "finished_at": "2024-01-12T15:05:00Z",
    })
    .to_string();
    let mut samples = String::with_capacity(nodes * 120);
    for poll in 0..2 {
        for n in 0..nodes {
            samples += &format!(
                r#"{{"ts":"2024-01-12T14:5{}:00Z","node":"n{n:06}","cpu_busy_pct":10.0,"mem_used_pct":20.0,"load1":1.0}}"#,
                6 + poll
            );
            samples.push('\n');
        }
    }
    run_with(&[("run.json", run_json.as_bytes()), ("samples.jsonl", samples.as_bytes())])
}

/// Found by attacking the node bound: nodes past the 2,000 a report takes
/// were dropped only after samples.jsonl was read, holding their polls
/// meanwhile (100,000 nodes took 521 MB). Past the bound a node costs its
/// name while the file is read.
#[test]
fn nodes_past_the_bound_cost_no_memory_for_their_polls_while_samples_are_read() {
    let at_bound = run_sampling(2_000);
    let past = run_sampling(100_000);
    let base = report_measured(at_bound.path());
    let m = report_measured(past.path());
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    let d = m.data.as_ref().unwrap();
    assert!(d["nodes"].as_array().unwrap().len() <= 2_000);
    assert!(
        d["warnings"]
            .to_string()
            .contains("100000 nodes, more than the 2000 a report takes"),
        "{}",
        d["warnings"]
    );
    let added = m.peak.saturating_sub(base.peak);
    assert!(
        added < 64 << 20,
        "98,000 nodes past the bound added {} MiB",
        added >> 20
    );
}
