//! The hostile corpus: inputs that break things. Each test asserts no panic,
//! a warning naming file and line where there is a line, and the rest of the
//! run still reported with correct figures (the buildx fixture's 89.63 s).

use super::{data, fixture, report, target};
use serde_json::Value;
use std::path::Path;

/// A run with a sound trace (the buildx fixture as target `bake`, 89.63 s)
/// beside whatever the test adds.
pub(crate) fn run_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        dir.path().join("trace-bake.json"),
    )
    .unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    dir
}

/// Reports the run; asserts it did not panic and the sound trace is intact.
fn survive(run: &Path) -> (Value, String) {
    let out = tempfile::tempdir().unwrap();
    let o = report(run, out.path(), &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "no panic, no failure: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let d = data(out.path());
    let total = target(&d, "bake")["total_s"].as_f64().unwrap();
    assert!((total - 89.626).abs() < 0.01, "the rest of the run is still right");
    (d, stderr)
}

fn warnings(d: &Value, input: &str) -> String {
    d["inputs"][input]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn empty_files_are_reported_as_empty_not_as_zero() {
    let empty: &[u8] = b"";
    let run = run_with(&[
        ("run.json", empty),
        ("placement.txt", empty),
        ("samples.jsonl", empty),
        ("sccache.log", empty),
        ("zot.jsonl", empty),
        ("artifacts.txt", empty),
    ]);
    let (d, _) = survive(run.path());
    for f in [
        "placement.txt",
        "samples.jsonl",
        "sccache.log",
        "zot.jsonl",
        "artifacts.txt",
    ] {
        assert!(warnings(&d, f).contains("the file is empty"), "{f}");
        assert_eq!(d["inputs"][f]["contract_broken"], true);
    }
}

#[test]
fn binary_garbage_is_malformed_with_its_line() {
    let mut garbage = b"{\"message\":\"HTTP API\"}\n".to_vec();
    garbage.extend((0..=255u8).cycle().take(5000));
    garbage.push(b'\n');
    let run = run_with(&[
        ("zot.jsonl", &garbage),
        ("samples.jsonl", &garbage),
        ("sccache.log", &garbage),
    ]);
    let (d, _) = survive(run.path());
    assert!(warnings(&d, "samples.jsonl").contains("samples.jsonl:1:"));
    assert!(warnings(&d, "sccache.log").contains("sccache.log:1:"));
    assert!(d["inputs"]["zot.jsonl"]["malformed"].as_u64().unwrap() >= 1);
}

#[test]
fn invalid_utf8_inside_a_json_string_names_the_line() {
    let mut zot = std::fs::read(fixture("zot-slog-era.jsonl")).unwrap();
    zot.extend_from_slice(
        b"{\"message\":\"HTTP API\",\"method\":\"GET\",\"path\":\"/v2/\xff\xfe/blobs/x\",\"statusCode\":200}\n",
    );
    let run = run_with(&[("zot.jsonl", &zot)]);
    let (d, _) = survive(run.path());
    assert!(
        warnings(&d, "zot.jsonl").contains("zot.jsonl:10:"),
        "{}",
        warnings(&d, "zot.jsonl")
    );
    assert_eq!(d["zot"]["requests"], 7, "the good lines still count");
}

#[test]
fn a_ten_megabyte_single_line_is_one_line() {
    let mut big = b"{\"message\":\"HTTP API\",\"path\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'a', 10 << 20));
    big.extend_from_slice(b"\"}\n");
    let run = run_with(&[("zot.jsonl", &big)]);
    let (d, _) = survive(run.path());
    assert_eq!(d["inputs"]["zot.jsonl"]["lines"], 1);
    assert!(warnings(&d, "zot.jsonl").contains("zot.jsonl:1:"));
}

#[test]
fn a_truncated_last_line_of_a_finished_run_is_malformed_and_named() {
    let zot = std::fs::read(fixture("zot-slog-era.jsonl")).unwrap();
    let cut = &zot[..zot.len() - 40];
    let run = run_with(&[
        ("run.json", br#"{"finished_at": "2024-01-12T15:00:00Z"}"#),
        ("zot.jsonl", cut),
    ]);
    let (d, _) = survive(run.path());
    assert!(
        warnings(&d, "zot.jsonl").contains("zot.jsonl:9: last line is cut off"),
        "{}",
        warnings(&d, "zot.jsonl")
    );
}

#[test]
fn json_documents_cut_in_half_name_file_and_line() {
    let trace = std::fs::read(fixture("buildx-history-trace-jaeger.json")).unwrap();
    let run = run_with(&[
        ("run.json", b"{\"mode\": \"cold\",\n \"targets\": [\"a\""),
        ("trace-half.json", &trace[..trace.len() / 2]),
    ]);
    let (d, _) = survive(run.path());
    assert!(
        warnings(&d, "run.json").contains("run.json:2:"),
        "{}",
        warnings(&d, "run.json")
    );
    assert!(
        warnings(&d, "trace-half.json").contains("not JSON at line"),
        "{}",
        warnings(&d, "trace-half.json")
    );
}

#[test]
fn duplicated_keys_and_escapes_everywhere() {
    let zot = concat!(
        r#"{"level":"info","caller":"a.go:1","caller":"b.go:2","message":"HTTP API","method":"PUT","path":"/v2/r/manifests/1","statusCode":201,"headers":{"Content-Length":["5"]},"clientIP":"h:1","time":"2024-01-12T14:58:00Z"}"#,
        "\n",
        r#"{"\u006dessage":"HTTP\u0020API","method":"\u0050UT","path":"\/v2\/r\/manifests\/2","statusCode":201,"headers":{"Content\u002dLength":["7"]},"clientIP":"h:1","time":"2024-01-12T14:58:01Z"}"#,
        "\n",
        r#"{"message":"HTTP API","method":"PUT","method":"GET","path":"/v2/r/manifests/3","statusCode":201}"#,
        "\n"
    );
    let run = run_with(&[("zot.jsonl", zot.as_bytes())]);
    let (d, _) = survive(run.path());
    assert_eq!(
        d["zot"]["manifest_writes"], 2,
        "repeated `caller` and escaped keys and values are read"
    );
    assert_eq!(d["zot"]["image_write_bytes"], 12);
    // A repeated key that matters is named, not guessed.
    assert!(
        warnings(&d, "zot.jsonl").contains("zot.jsonl:3:"),
        "{}",
        warnings(&d, "zot.jsonl")
    );
}

#[test]
fn numbers_huge_negative_nan_like_or_strings_are_malformed_not_zero() {
    let samples = [
        r#"{"ts": 1705071460, "node": "a", "cpu": {"user": 1e400, "idle": 1}}"#,
        r#"{"ts": 1705071462, "node": "a", "cpu": {"user": -5, "idle": 1}}"#,
        r#"{"ts": 1705071464, "node": "a", "cpu": {"user": "NaN", "idle": 1}}"#,
        r#"{"ts": "yesterday", "node": "a", "cpu": {"user": 1, "idle": 1}}"#,
        r#"{"ts": 1e30, "node": "a"}"#,
        r#"{"ts": 1705071470, "node": "a", "cpu": {"user": 10, "idle": 10}, "mem": {"total": 100, "available": 250}}"#,
    ]
    .join("\n")
        + "\n";
    let run = run_with(&[("samples.jsonl", samples.as_bytes())]);
    let (d, _) = survive(run.path());
    assert_eq!(d["inputs"]["samples.jsonl"]["malformed"], 5);
    let w = warnings(&d, "samples.jsonl");
    for line in 1..=5 {
        assert!(w.contains(&format!("samples.jsonl:{line}:")), "line {line}: {w}");
    }
    // Available above total is no memory figure at all: null, not a negative percentage.
    assert!(super::node(&d, "a")["mem_pct_max"].is_null());
}

#[test]
fn spans_ending_before_they_start_and_unknown_encodings_do_not_break_the_run() {
    let backwards = r#"{"data": [{"traceID": "1", "spans": [
        {"traceID": "1", "spanID": "r", "operationName": "build", "references": [], "startTime": 2000000, "duration": 5000000},
        {"traceID": "1", "spanID": "s", "operationName": "[b 1/1] RUN x", "references": [{"refType": "CHILD_OF", "spanID": "r"}], "startTime": 9000000, "duration": -4000000}
    ]}]}"#;
    let run = run_with(&[
        ("trace-back.json", backwards.as_bytes()),
        ("trace-weird.json", br#"{"spans": [1, 2, 3]}"#),
    ]);
    let (d, _) = survive(run.path());
    assert!(warnings(&d, "trace-weird.json").contains("unknown trace encoding"));
    let back = target(&d, "back");
    assert_eq!(back["total_s"], 5.0);
    assert_eq!(back["steps_total"], 1);
}

#[test]
fn two_nodes_with_the_same_name_are_said_once() {
    let run = run_with(&[(
        "run.json",
        br#"{"nodes": [{"name": "a", "cores": 8}, {"name": "a", "cores": 16}], "finished_at": "2024-01-12T15:00:00Z"}"#,
    )]);
    let (d, _) = survive(run.path());
    assert_eq!(d["nodes"].as_array().unwrap().len(), 1);
    assert!(d["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("node a is listed more than once")));
}

#[test]
fn a_pipe_where_a_log_should_be_is_reported_not_read_forever() {
    let run = run_with(&[]);
    let fifo = run.path().join("zot.jsonl");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (d, _) = survive(run.path());
    assert!(warnings(&d, "zot.jsonl").contains("not a regular file"));
}

#[test]
fn a_run_being_written_while_it_is_read() {
    let run = run_with(&[("zot.jsonl", &std::fs::read(fixture("zot-slog-era.jsonl")).unwrap())]);
    let path = run.path().join("zot.jsonl");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (stop, path) = (stop.clone(), path.clone());
        std::thread::spawn(move || {
            use std::io::Write;
            let line = br#"{"message":"HTTP API","method":"HEAD","path":"/v2/r/manifests/x","statusCode":200,"time":"2024-01-12T14:58:00Z"}"#;
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && n < 200_000 {
                // Half a line, then the rest: a reader may catch it in between.
                f.write_all(&line[..40]).unwrap();
                f.write_all(&line[40..]).unwrap();
                f.write_all(b"\n").unwrap();
                n += 1;
            }
        })
    };
    for _ in 0..5 {
        let (d, _) = survive(run.path());
        assert!(d["zot"]["requests"].as_u64().unwrap() >= 7);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
}

#[test]
fn an_access_log_time_that_does_not_exist_is_no_panic() {
    // jiff::civil::date panicked on 31 February; the run was lost to one line.
    let log = [
        r#"10.0.4.40 - - [31/Feb/2026:02:00:00 +0000] "GET /a/b/c/abcdef HTTP/1.1" 200 10 "-" "opendal""#,
        r#"10.0.4.40 - - [20/Oct/2026:25:61:00 +0000] "GET /a/b/c/abcdef HTTP/1.1" 404 0 "-" "opendal""#,
        r#"10.0.4.40 - - [20/Oct/2026:02:00:00 +0000] "GET /a/b/c/abcdef HTTP/1.1" 200 10 "-" "opendal""#,
    ]
    .join("\n")
        + "\n";
    let run = run_with(&[("sccache.log", log.as_bytes())]);
    let (d, _) = survive(run.path());
    assert_eq!(d["inputs"]["sccache.log"]["lines"], 3);
    let w = warnings(&d, "sccache.log");
    assert!(w.contains("2 requests without a readable time"), "{w}");
}
