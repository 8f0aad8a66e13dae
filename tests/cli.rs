//! End-to-end tests: the real binary on real fixtures, the bundled sample
//! runs and hand-made runs. Each test is named after the feature or bug it pins.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "browser/page.rs"]
mod page;

#[path = "hostile/inputs.rs"]
mod hostile;

#[path = "tools/outputs.rs"]
mod tools;

#[path = "hostile/paths.rs"]
mod hostile_paths;

#[path = "charts/pictures.rs"]
mod pictures;

#[path = "hostile/strings.rs"]
mod strings;

#[path = "serve/limits.rs"]
mod serve_limits;

#[path = "hostile/bounds.rs"]
mod bounds;

#[path = "trust/nulls.rs"]
mod trust;

#[path = "placement/mod.rs"]
mod placement;

#[path = "history/mod.rs"]
mod history;

#[path = "perf/family.rs"]
mod family;

#[path = "design/module_graph.rs"]
mod design;

#[path = "design/one_source.rs"]
mod one_source;

/// An outside tool a test needs, or `None` with a notice on a developer
/// machine without it. In CI a missing tool fails the test: `.ci/run`
/// installs it.
fn outside_tool(path: PathBuf, package: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "{} not found: .ci/run installs Debian's {package} for these tests",
            path.display()
        );
    }
    eprintln!(
        "SKIPPED: no {} (install Debian's {package} to run these checks)",
        path.display()
    );
    None
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

fn sample(stamp: &str) -> PathBuf {
    root().join("sample-runs").join(stamp)
}

const COLD: &str = "20261020T020000Z";
const WARM: &str = "20261021T020000Z";

fn perfreport(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(args)
        .env_remove("PERF_ROOT")
        .output()
        .expect("the binary runs")
}

fn report(run: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    perfreport(&args)
}

fn data(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("data.json")).expect("data.json written");
    serde_json::from_str(&text).expect("data.json is JSON")
}

fn target<'a>(d: &'a Value, name: &str) -> &'a Value {
    d["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("target {name}"))
}

fn node<'a>(d: &'a Value, name: &str) -> &'a Value {
    d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("node {name}"))
}

/// A run directory made of the real upstream fixtures, as they are.
fn fixture_run() -> tempfile::TempDir {
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

#[test]
fn buildx_trace_fixture_root_build_and_registry_calls() {
    let run = fixture_run();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    let bake = target(&d, "bake");
    // Root `bake` is 89.63 s; the steps run from the first (a cached FROM)
    // to the end of `[test-go 2/2]`, about 86.86 s.
    assert!(
        (bake["total_s"].as_f64().unwrap() - 89.626).abs() < 0.01,
        "{}",
        bake["total_s"]
    );
    assert!(
        (bake["build_s"].as_f64().unwrap() - 86.863).abs() < 0.01,
        "{}",
        bake["build_s"]
    );
    assert!((bake["gap_s"].as_f64().unwrap() - 2.764).abs() < 0.01);
    // Nine distinct steps, two of them only loaded from the cache.
    assert_eq!(bake["steps_total"], 9);
    assert_eq!(bake["steps_cached"], 2);
    // Four registry calls: three wrapped in a resolver span, one bare. Counted once each.
    assert_eq!(bake["registry_calls"], 4);
    // HEADs are not uploads: zero seconds measured, not null.
    assert_eq!(bake["upload_s"], 0.0);
    assert_eq!(d["inputs"]["trace-bake.json"]["format"], "trace: Jaeger JSON");
    assert_eq!(d["inputs"]["trace-bake.json"]["records"], 73);
}

#[test]
fn otlp_fixture_is_read_and_its_missing_root_is_null_with_a_reason() {
    let run = fixture_run();
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d = data(out.path());
    assert_eq!(d["inputs"]["trace-otlp.json"]["format"], "trace: OTLP/JSON");
    assert_eq!(d["inputs"]["trace-otlp.json"]["records"], 1);
    let t = target(&d, "otlp");
    // Its one span points at a parent that is not in the file: not a root.
    assert!(t["total_s"].is_null());
    assert!(t["why_null"]["total_s"].as_str().unwrap().contains("root"));
}

#[test]
fn zot_fixture_counts_requests_messages_and_non_json_lines() {
    let run = fixture_run();
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d = data(out.path());
    let z = &d["zot"];
    assert_eq!(z["requests"], 7);
    assert_eq!(z["manifest_writes"], 1);
    assert_eq!(z["image_write_bytes"], 563);
    assert_eq!(z["cache_write_bytes"], 0);
    assert_eq!(z["blob_write_bytes"], 0);
    assert_eq!(z["not_json"], 1);
    assert_eq!(z["by_message"]["some other message"], 1);
    let i = &d["inputs"]["zot.jsonl"];
    assert_eq!(
        (
            i["lines"].as_u64(),
            i["records"].as_u64(),
            i["skipped"].as_u64(),
            i["malformed"].as_u64()
        ),
        (Some(9), Some(7), Some(2), Some(0))
    );
}

#[test]
fn cold_sample_tells_the_slow_link_story() {
    let out = tempfile::tempdir().unwrap();
    let o = report(&sample(COLD), out.path(), &["--strict"]);
    assert!(
        o.status.success(),
        "the bundled cold run keeps every contract: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let d = data(out.path());
    assert_eq!(d["schema"], 1);
    assert_eq!(d["mode"], "cold");
    assert_eq!(d["in_flight"], false);
    assert_eq!(d["targets"].as_array().unwrap().len(), 10);
    assert_eq!(d["nodes"].as_array().unwrap().len(), 5);
    let t = target(&d, "triton-wheel");
    assert_eq!(t["node"], "think");
    let (total, gap, upload) = (
        t["total_s"].as_f64().unwrap(),
        t["gap_s"].as_f64().unwrap(),
        t["upload_s"].as_f64().unwrap(),
    );
    assert!(gap / total > 0.5, "its gap dominates: {gap} of {total}");
    assert!(upload / gap > 0.9, "and the gap is the upload: {upload} of {gap}");
    // Older BuildKit put sizes on its spans: 6.4 GB of cache and 0.2 GB of image.
    assert_eq!(t["upload_bytes_source"], "trace");
    assert_eq!(t["upload_bytes"], 6_600_000_000u64);
    // The others' bytes come from the registry, by node address inside the record.
    assert_eq!(target(&d, "pytorch")["upload_bytes_source"], "registry");
    // 3.1 GB of blobs and its 1187-byte image manifest, all from strix's address.
    assert_eq!(target(&d, "pytorch")["upload_bytes"], 3_100_001_187u64);
    assert_eq!(d["fleet"]["critical"]["node"], "think");
    let summary = d["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(summary.contains("critical path was think"), "{summary}");
    assert!(summary.contains("triton-wheel on think"), "{summary}");
    assert!(summary.contains("uploading 6.6 GB"), "{summary}");
    // sccache: a cold prefix of its own; the other prefix's requests are counted apart.
    assert_eq!(d["sccache"]["hits"], 0);
    assert!(d["sccache"]["misses"].as_u64().unwrap() > 0);
    assert_eq!(d["sccache"]["other_prefix"], 25);
    // Every node has samples: CPU and memory are measured.
    for n in d["nodes"].as_array().unwrap() {
        assert!(n["cpu_pct_mean"].as_f64().is_some(), "{}", n["name"]);
        assert!(n["mem_pct_max"].as_f64().is_some());
    }
}

#[test]
fn cold_sample_counter_that_went_backwards_is_dropped_and_reported() {
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let d = data(out.path());
    assert_eq!(node(&d, "kiln")["counter_resets"], 1);
    assert!(d["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("kiln dropped")));
}

#[test]
fn warm_in_flight_sample_half_written_lines_are_skipped_not_malformed() {
    let out = tempfile::tempdir().unwrap();
    let o = report(&sample(WARM), out.path(), &[]);
    assert!(o.status.success());
    let d = data(out.path());
    assert_eq!(d["in_flight"], true);
    assert_eq!(d["mode"], "warm");
    for f in ["samples.jsonl", "zot.jsonl", "sccache.log"] {
        let i = &d["inputs"][f];
        assert_eq!(i["malformed"], 0, "{f}");
        assert!(
            i["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str().unwrap().contains("incomplete")),
            "{f}"
        );
    }
    // Records still open have no total and say why; who finishes last is not known.
    let open: Vec<&Value> = d["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["total_s"].is_null())
        .collect();
    assert!(!open.is_empty());
    let wall = d["window"]["wall_s"].as_f64().unwrap();
    for t in open.iter().filter(|t| !t["phases"].as_array().unwrap().is_empty()) {
        assert!(t["why_null"]["total_s"].is_string(), "{}", t["name"]);
        // Still running: drawn to the window's end, so its node does not look idle.
        let running = t["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["phase"] == "running")
            .expect("a running band");
        assert_eq!(running["end_s"].as_f64(), Some(wall), "{}", t["name"]);
    }
    assert!(d["fleet"]["critical"].is_null());
    assert!(!d["fleet"]["still_running"].as_array().unwrap().is_empty());
    assert!(d["sccache"]["hit_ratio"].as_f64().unwrap() > 0.8);
}

#[test]
fn strict_fails_a_run_whose_input_yields_nothing_and_names_it() {
    let run = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        run.path().join("trace-bake.json"),
    )
    .unwrap();
    std::fs::write(run.path().join("zot.jsonl"), "registry starting\nlistening on :5000\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let lenient = report(run.path(), out.path(), &[]);
    assert_eq!(lenient.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(
        stderr.contains("zot.jsonl: 2 lines read but no record recognised"),
        "{stderr}"
    );
    let strict = report(run.path(), out.path(), &["--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&strict.stderr).contains("zot.jsonl"));
    // The report still tells the rest of the run.
    assert!((target(&data(out.path()), "bake")["total_s"].as_f64().unwrap() - 89.626).abs() < 0.01);
}

#[test]
fn a_malformed_line_is_named_by_file_and_line_and_the_rest_is_reported() {
    let run = tempfile::tempdir().unwrap();
    let zot = std::fs::read_to_string(fixture("zot-slog-era.jsonl")).unwrap();
    let mut lines: Vec<&str> = zot.lines().collect();
    lines.insert(
        2,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/x/manifests/1","statusCode":201,"#,
    );
    std::fs::write(run.path().join("zot.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &["--strict"]);
    assert_eq!(o.status.code(), Some(1));
    let d = data(out.path());
    assert_eq!(d["inputs"]["zot.jsonl"]["malformed"], 1);
    // First the contract's verdict (1 of 10 lines is over 1%), then the line.
    let w = &d["inputs"]["zot.jsonl"]["warnings"];
    assert!(
        w[0].as_str().unwrap().starts_with("zot.jsonl: 1 of 10 lines malformed"),
        "{w}"
    );
    assert!(w[1].as_str().unwrap().starts_with("zot.jsonl:3: broken JSON"), "{w}");
    assert_eq!(d["zot"]["requests"], 7);
}

#[test]
fn not_a_run_is_exit_code_2_with_the_reason() {
    let o = perfreport(&["report", "/nonexistent/run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/run"));
    let empty = tempfile::tempdir().unwrap();
    let o = perfreport(&["report", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no run inputs"));
    let file = empty.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = perfreport(&["report", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
}

#[test]
fn newest_run_under_perf_root_is_the_default() {
    let root = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let dst = root.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        copy_run(&sample(stamp), &dst);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(["report", "--quiet"])
        .env("PERF_ROOT", root.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The warm run started a day later: it is the newest, and got the report.
    assert!(root.path().join(WARM).join("data.json").exists());
    assert!(!root.path().join(COLD).join("data.json").exists());
}

#[test]
fn outputs_are_complete_leave_no_temporaries_and_are_deterministic() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    report(&sample(COLD), a.path(), &[]);
    report(&sample(COLD), b.path(), &[]);
    let files = [
        "report.md",
        "data.json",
        "index.html",
        "charts/cpu-mem.svg",
        "charts/timeline.svg",
        "charts/cache-lanes.svg",
    ];
    for f in files {
        let x = std::fs::read(a.path().join(f)).unwrap_or_else(|_| panic!("{f} written"));
        assert_eq!(
            x,
            std::fs::read(b.path().join(f)).unwrap(),
            "{f} is byte-identical across runs"
        );
    }
    for dir in [a.path().to_path_buf(), a.path().join("charts")] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            assert!(
                !e.file_name().to_string_lossy().contains(".tmp-"),
                "temporary left: {:?}",
                e.file_name()
            );
        }
    }
}

#[test]
fn an_output_directory_that_cannot_be_created_is_exit_code_2() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("out");
    std::fs::write(&blocker, "a file where the output directory should be").unwrap();
    let o = report(&sample(COLD), &blocker.join("sub"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"));
}

#[test]
fn index_html_is_self_contained_and_embeds_the_data() {
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let html = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    for needle in [
        "src=\"http",
        "href=\"http",
        "src=\"//",
        "@import",
        "url(http",
        "href=\"//",
        "<img src=\"charts/",
    ] {
        assert!(
            !html.contains(needle),
            "index.html must request nothing: found {needle}"
        );
    }
    // The only link is the empty inline icon (so a browser does not ask for /favicon.ico).
    assert_eq!(html.matches("<link ").count(), 1);
    assert!(html.contains("<link rel=\"icon\" href=\"data:,\">"));
    // The static charts stay inline for readers without JS; the page draws its own four.
    assert_eq!(html.matches("<svg").count(), 3 + 4);
    let start = html.find("id=\"perf-data\">").unwrap() + "id=\"perf-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let embedded: Value = serde_json::from_str(&html[start..end]).unwrap();
    assert_eq!(embedded, data(out.path()), "the page embeds exactly data.json");
}

#[test]
fn charts_carry_every_series_and_say_why_a_lane_is_missing() {
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let cpu = std::fs::read_to_string(out.path().join("charts/cpu-mem.svg")).unwrap();
    for n in ["strix", "think", "forge", "anvil", "kiln"] {
        assert!(cpu.contains(&format!("{n} (snoc-{n})")), "legend of {n}");
    }
    // CPU is one line per node (plus its breaks); memory is dashed: many short segments.
    assert!(cpu.matches("<polyline").count() > 100);
    let timeline = std::fs::read_to_string(out.path().join("charts/timeline.svg")).unwrap();
    for t in [
        "pytorch",
        "triton-wheel",
        "vllm",
        "aiter-wheel",
        "flash-attn",
        "rccl-tests",
        "hipblaslt",
        "torchvision",
        "xformers",
        "rocm-base",
    ] {
        assert!(timeline.contains(&format!("\n{t}\n</text>")), "bar of {t}");
    }
    assert!(timeline.contains("think (critical)"));
    // A run without sccache.log: the lane says so instead of drawing zero.
    let run = fixture_run();
    let out2 = tempfile::tempdir().unwrap();
    report(run.path(), out2.path(), &[]);
    let lanes = std::fs::read_to_string(out2.path().join("charts/cache-lanes.svg")).unwrap();
    assert!(lanes.contains("not drawn: no sccache.log in this run"));
    assert!(lanes.contains("Registry (zot)"));
    let cpu2 = std::fs::read_to_string(out2.path().join("charts/cpu-mem.svg")).unwrap();
    assert!(cpu2.contains("no samples.jsonl in this run"));
}

/// Copies a run folder's files into `dst`, which must exist.
fn copy_run(src: &Path, dst: &Path) {
    for e in std::fs::read_dir(src).unwrap().flatten() {
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
}

/// A copy of a sample run whose files carry one fixed modification time, so
/// a snapshot does not depend on when the repository was checked out.
fn pinned_copy(stamp: &str) -> tempfile::TempDir {
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

/// The commit changes with every commit of this repository: not part of a snapshot.
fn without_commit(text: &str) -> String {
    let commit = env!("PERFREPORT_COMMIT");
    text.replace(&format!("commit {commit}"), "commit [commit]")
}

/// report.md of a pinned copy of a sample run, without the commit.
fn report_md_of(stamp: &str) -> String {
    let run = pinned_copy(stamp);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    without_commit(&std::fs::read_to_string(out.path().join("report.md")).unwrap())
}

#[test]
fn report_md_of_the_cold_sample() {
    insta::assert_snapshot!("cold_report_md", report_md_of(COLD));
}

#[test]
fn report_md_of_the_warm_run_in_flight() {
    insta::assert_snapshot!("warm_in_flight_report_md", report_md_of(WARM));
}

#[test]
fn provenance_records_the_tool_and_each_input_and_one_changed_byte_shows() {
    let run = pinned_copy(COLD);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let before = data(out.path());
    let p = &before["provenance"];
    // The version shown is the built binary's.
    let version = perfreport(&["--version"]);
    let version = String::from_utf8_lossy(&version.stdout);
    let tool = format!(
        "perfreport {} (commit {})",
        p["tool"]["version"].as_str().unwrap(),
        p["tool"]["commit"].as_str().unwrap()
    );
    assert_eq!(version.trim(), tool);
    assert_eq!(p["tool"]["commit"], env!("PERFREPORT_COMMIT"));
    // Every present input: size, time, hash and the reader that read it.
    let zot = &p["inputs"]["zot.jsonl"];
    assert_eq!(
        zot["bytes"],
        std::fs::metadata(run.path().join("zot.jsonl")).unwrap().len()
    );
    assert_eq!(zot["mtime"], "2026-10-20T02:00:00Z");
    assert_eq!(zot["xxh3"].as_str().unwrap().len(), 16);
    assert_eq!(p["inputs"]["trace-vllm.json"]["read_as"], "trace: OTLP/JSON");
    assert_eq!(p["run"]["arch"], "gfx1201");
    assert_eq!(p["run"]["mode"], "cold");
    assert_eq!(p["run"]["nodes"][0]["cores"], 16);
    assert!(p["run"]["job_width"].is_null());
    assert_eq!(p["run"]["why_null"]["job_width"], "run.json has no `max_jobs`");
    // One byte of one input changes that input's hash, and only that one.
    let path = run.path().join("zot.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&path, &bytes).unwrap();
    report(run.path(), out.path(), &[]);
    let after = data(out.path());
    assert_ne!(after["provenance"]["inputs"]["zot.jsonl"]["xxh3"], zot["xxh3"]);
    assert_eq!(
        after["provenance"]["inputs"]["samples.jsonl"]["xxh3"],
        p["inputs"]["samples.jsonl"]["xxh3"]
    );
    // Nothing of the machine or the hour gets in: no host name, no generation time.
    let text = std::fs::read_to_string(out.path().join("data.json")).unwrap();
    if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
        let host = host.trim();
        if host.len() > 3 {
            assert!(!text.contains(host), "the host name leaked into data.json");
        }
    }
}

/// A hand-written span: `(id, parent, name, start_s, end_s, tags)`.
type HandSpan<'a> = (&'a str, &'a str, &'a str, f64, f64, &'a [(&'a str, &'a str)]);

/// A Jaeger trace written by hand, times in seconds from `t0`.
fn jaeger(t0_us: i64, spans: &[HandSpan]) -> String {
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

#[test]
fn hand_made_run_busy_idle_and_registry_bytes_worked_out_by_hand() {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    // Window 02:00:00 - 02:16:40 (1000 s); one node `a` at 10.0.0.1, one node `b` that ran nothing.
    std::fs::write(
        p.join("run.json"),
        r#"{"stamp": "hand", "mode": "warm", "arch": "gfx950", "targets": ["one", "two"],
        "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:16:40Z",
        "nodes": [{"name": "a", "addr": "10.0.0.1", "cores": 8}, {"name": "b", "addr": "10.0.0.2"}]}"#,
    )
    .unwrap();
    std::fs::write(
        p.join("placement.txt"),
        "placement target=one node=a est_s=100\nplacement target=two node=a est_s=300 after=one\n",
    )
    .unwrap();
    let t0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z
                                         // one: record 100-400 s, steps 120-300 (one cached), uploads 310-350 and 330-380 (union 70 s).
    std::fs::write(
        p.join("trace-one.json"),
        jaeger(
            t0,
            &[
                ("r1", "0000000000000000", "build", 100.0, 400.0, &[]),
                ("s1", "r1", "load cache: [builder 1/2] FROM x", 120.0, 121.0, &[]),
                ("s2", "r1", "[builder 2/2] RUN make", 121.0, 300.0, &[]),
                ("u1", "r1", "HTTP PUT", 310.0, 350.0, &[("http.method", "PUT")]),
                ("u2", "r1", "HTTP PATCH", 330.0, 380.0, &[("http.method", "PATCH")]),
            ],
        ),
    )
    .unwrap();
    // two: record 350-600 s (overlaps one by 50 s), no uploads.
    std::fs::write(
        p.join("trace-two.json"),
        jaeger(
            t0,
            &[
                ("r2", "0000000000000000", "build", 350.0, 600.0, &[]),
                ("s3", "r2", "[final 1/1] COPY . /", 360.0, 590.0, &[]),
            ],
        ),
    )
    .unwrap();
    // Registry: 1000 + 500 bytes from a inside one's record, 7 bytes after it, 9 from b.
    let zot = |t: &str, ip: &str, n: u64| {
        format!(
            r#"{{"time":"2026-10-20T02:{t}Z","level":"info","message":"HTTP API","clientIP":"{ip}:5000","method":"PUT","path":"/v2/r/blobs/uploads/x?digest=sha256%3A1","statusCode":201,"latency":"1s","bodySize":0,"headers":{{"Content-Length":["{n}"]}}}}"#
        )
    };
    std::fs::write(
        p.join("zot.jsonl"),
        [
            zot("05:50", "10.0.0.1", 1000),
            zot("06:00", "10.0.0.1", 500),
            zot("15:00", "10.0.0.1", 7),
            zot("06:00", "10.0.0.2", 9),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    // Samples of a: 0-10 s all busy, 10-30 s a quarter busy: time-weighted mean 50 %.
    std::fs::write(p.join("samples.jsonl"), [
        r#"{"ts": 1792461600, "node": "a", "cpu": {"user": 0, "idle": 0}, "mem": {"total": 100, "available": 80}}"#,
        r#"{"ts": 1792461610, "node": "a", "cpu": {"user": 80, "idle": 0}, "mem": {"total": 100, "available": 40}}"#,
        r#"{"ts": 1792461630, "node": "a", "cpu": {"user": 120, "idle": 120}, "mem": {"total": 100, "available": 90}}"#,
    ].join("\n") + "\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = report(p, out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    let one = target(&d, "one");
    assert_eq!(
        (one["total_s"].as_f64(), one["build_s"].as_f64(), one["gap_s"].as_f64()),
        (Some(300.0), Some(180.0), Some(120.0))
    );
    assert_eq!(one["upload_s"], 70.0);
    assert_eq!(
        (one["steps_total"].as_u64(), one["steps_cached"].as_u64()),
        (Some(2), Some(1))
    );
    // Registry writes from a's address inside 100-400 s only.
    assert_eq!(one["upload_bytes"], 1500);
    assert_eq!(one["upload_bytes_source"], "registry");
    let two = target(&d, "two");
    assert_eq!(two["upload_s"], 0.0);
    assert_eq!(two["upload_bytes"], 0, "no upload and no write: measured zero");
    // a was busy 100-600 s (the union), idle the other 500 s of the 1000 s window.
    let a = node(&d, "a");
    assert_eq!(
        (a["busy_s"].as_f64(), a["idle_s"].as_f64(), a["idle_after_s"].as_f64()),
        (Some(500.0), Some(500.0), Some(400.0))
    );
    assert_eq!(a["cpu_pct_mean"], 50.0);
    assert_eq!(a["mem_pct_max"], 60.0);
    // b ran nothing: busy 0 s is measured; its CPU was not, and says why.
    let b = node(&d, "b");
    assert_eq!((b["busy_s"].as_f64(), b["idle_s"].as_f64()), (Some(0.0), Some(1000.0)));
    assert!(b["cpu_pct_mean"].is_null());
    assert_eq!(b["why_null"]["cpu_pct_mean"], "no samples from b");
    assert_eq!(d["fleet"]["wall_s"], 1000.0);
    assert_eq!(d["fleet"]["work_s"], 550.0);
    assert_eq!(d["fleet"]["critical"]["node"], "a");
    // one took 300 s against an estimate of 100: a miss; two took 250 against 300: not.
    let misses = d["fleet"]["estimate_misses"].as_array().unwrap();
    assert_eq!(misses.len(), 1);
    assert_eq!(misses[0]["target"], "one");
    // sccache.log is absent: null with the reason, never 0.
    assert!(d["sccache"]["hits"].is_null());
    assert_eq!(d["sccache"]["why"], "no sccache.log in this run");
}

#[test]
fn ratios_of_the_sample_bench_pool_by_the_whole_key_and_say_why_a_ratio_is_missing() {
    let out = tempfile::tempdir().unwrap();
    let bench = root().join("sample-runs/bench/bench.jsonl");
    let fleet = root().join("sample-runs/bench/fleet.json");
    let o = perfreport(&[
        "ratios",
        bench.to_str().unwrap(),
        "--fleet",
        fleet.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("bench.jsonl:15: unknown scenario `lukewarm`"),
        "{stderr}"
    );
    assert!(stderr.contains("bench.jsonl:16: `seconds` is not a number"), "{stderr}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("ratios.json")).unwrap()).unwrap();
    let keys = r["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 3);
    let at = |jobs: u64, target: &str| {
        keys.iter()
            .find(|k| k["key"]["max_jobs"] == jobs && k["key"]["target"] == target)
            .unwrap()
    };
    let k10 = at(10, "pytorch");
    // Newest cold 2342 s over newest compiled 431 s; newest compiled over the 3 s skipped run.
    assert_eq!(k10["ratios"]["compiler_cache"], 5.43);
    assert_eq!(k10["ratios"]["layer_cache"], 143.67);
    assert_eq!(k10["ratios"]["registry"], 1.28);
    // Three cold samples, two of them from before `arch` existed, pooled as gfx950.
    assert_eq!(k10["pools"]["cold"]["n"], 3);
    assert_eq!(
        (
            k10["pools"]["cold"]["min_s"].as_f64(),
            k10["pools"]["cold"]["max_s"].as_f64()
        ),
        (Some(2342.0), Some(2410.0))
    );
    // The compiled sample ended at load 41 on 32 cores: the ratio says so.
    assert!(k10["suspect"]["compiler_cache"]
        .as_str()
        .unwrap()
        .contains("line 5: load 41 at the end on 32 cores"));
    let k5 = at(5, "pytorch");
    assert!(k5["ratios"]["compiler_cache"].is_null());
    assert!(k5["why_null"]["compiler_cache"]
        .as_str()
        .unwrap()
        .contains("at max_jobs=5 (there is one at max_jobs=10)"));
    assert_eq!(r["failures"][0]["line"], 14);
    assert!(r["failures"][0]["failure"].as_str().unwrap().contains("exit code: 137"));
    assert_eq!(r["input"]["malformed"], 2);
    let html = std::fs::read_to_string(out.path().join("ratios.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(!html.contains("src=\"http") && !html.contains("<img"));
    // --strict fails on the unreadable rows.
    let strict = perfreport(&[
        "ratios",
        bench.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--strict",
    ]);
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn buildlog_reports_the_targets_own_step_counters_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("build.log");
    std::fs::write(
        &log,
        "#5 [pytorch builder  1/11] FROM docker.io/rocm/dev\n#5 CACHED\n\
         #32 [pytorch builder 10/11] RUN python setup.py bdist_wheel\n\
         #32 0.5 + cat /wheels-triton-sccache-stats.txt\n#32 0.5 Cache hits 700\n\
         #32 178.6 + cat /opt/pytorch/sccache-stats.txt\n#32 178.7 Compile requests 5684\n#32 178.7 Cache hits 5674\n#32 178.7 Cache misses 10\n\
         #32 DONE 180.2s\n",
    )
    .unwrap();
    let o = perfreport(&["buildlog", log.to_str().unwrap(), "--target", "pytorch"]);
    assert!(o.status.success());
    let f: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (f["steps_total"].as_u64(), f["steps_cached"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        (
            f["sccache_requests"].as_u64(),
            f["sccache_hits"].as_u64(),
            f["sccache_misses"].as_u64()
        ),
        (Some(5684), Some(5674), Some(10))
    );
}

/// A root of runs: the two samples and a run whose only input is garbage.
fn root_of_runs() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let dst = root.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        copy_run(&sample(stamp), &dst);
    }
    std::fs::create_dir(root.path().join("20261019T020000Z-broken")).unwrap();
    std::fs::write(root.path().join("20261019T020000Z-broken/run.json"), "{not json").unwrap();
    root
}

fn publish(root: &Path, site: &Path) -> Output {
    perfreport(&["publish", root.to_str().unwrap(), "--site", site.to_str().unwrap()])
}

/// Every file under `dir` with its modification time.
fn mtimes(dir: &Path) -> std::collections::BTreeMap<PathBuf, std::time::SystemTime> {
    walk(dir)
        .into_iter()
        .map(|p| (p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap()))
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
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

#[test]
fn publish_lists_every_run_newest_first_with_the_broken_one_and_its_reason() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index = std::fs::read_to_string(site.path().join("index.html")).unwrap();
    let warm = index.find(&format!("data-run=\"{WARM}\"")).unwrap();
    let cold = index.find(&format!("data-run=\"{COLD}\"")).unwrap();
    let broken = index.find("data-run=\"20261019T020000Z-broken\"").unwrap();
    assert!(warm < cold && cold < broken, "newest first");
    assert!(index.contains("data-status=\"in flight\""));
    let row = &index[broken..(broken + 600).min(index.len())];
    assert!(
        row.contains("broken: no input could be read") && row.contains("not a run description"),
        "{row}"
    );
    for f in [
        "index.html",
        "data.json",
        "report.md",
        "report.html",
        "charts/timeline.svg",
    ] {
        assert!(site.path().join("runs").join(COLD).join(f).exists(), "{f}");
    }
    let page = std::fs::read_to_string(site.path().join("runs").join(COLD).join("index.html")).unwrap();
    assert!(
        page.contains("<script src=\"../../runs.js\"></script>"),
        "the run selector"
    );
    let runs_js = std::fs::read_to_string(site.path().join("runs.js")).unwrap();
    assert!(runs_js.contains(WARM) && runs_js.contains(COLD) && runs_js.contains("broken"));
    // With --bench, the ratios page is published and linked.
    let bench = sample(COLD).parent().unwrap().join("bench/bench.jsonl");
    let o = perfreport(&[
        "publish",
        root.path().to_str().unwrap(),
        "--site",
        site.path().to_str().unwrap(),
        "--bench",
        bench.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(site.path().join("bench/ratios.html").exists());
    assert!(std::fs::read_to_string(site.path().join("index.html"))
        .unwrap()
        .contains("href=\"bench/ratios.html\""));
}

#[test]
fn every_link_of_the_published_site_resolves() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let mut checked = 0;
    for file in walk(site.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let html = std::fs::read_to_string(&file).unwrap();
        for attr in ["href=\"", "src=\""] {
            for part in html.split(attr).skip(1) {
                let target = part.split('"').next().unwrap();
                if target.starts_with("data:") || target.starts_with('#') || target.is_empty() {
                    continue;
                }
                assert!(
                    !target.contains("://") && !target.starts_with('/'),
                    "{}: not relative: {target}",
                    file.display()
                );
                let path = target.split('#').next().unwrap().replace("%20", " ");
                let resolved = file.parent().unwrap().join(&path);
                assert!(resolved.exists(), "{}: broken link {target}", file.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "only {checked} links checked");
}

#[test]
fn a_second_publish_rewrites_nothing_and_a_new_run_rebuilds_only_it_and_the_index() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let first = mtimes(site.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = publish(root.path(), site.path());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("(0 rebuilt"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(mtimes(site.path()), first, "nothing rewritten");
    // A new run: only its pages, the index and the run list change.
    let newer = root.path().join("20261022T020000Z");
    std::fs::create_dir(&newer).unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        newer.join("trace-bake.json"),
    )
    .unwrap();
    let o = publish(root.path(), site.path());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("(1 rebuilt"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = mtimes(site.path());
    for (path, t) in &first {
        let name = path.strip_prefix(site.path()).unwrap().to_string_lossy().into_owned();
        // The site-wide pages: the index and the history a new run joins.
        if ["index.html", "runs.js", "manifest.json", "history.html", "history.json"].contains(&name.as_str()) {
            continue;
        }
        assert_eq!(after.get(path), Some(t), "{name} was rewritten");
    }
    assert!(after.keys().any(|p| p.ends_with("runs/20261022T020000Z/index.html")));
    // The same runs give byte-identical sites.
    let other = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), other.path()).status.success());
    for p in walk(site.path()) {
        let rel = p.strip_prefix(site.path()).unwrap();
        assert_eq!(
            std::fs::read(&p).unwrap(),
            std::fs::read(other.path().join(rel)).unwrap(),
            "{}",
            rel.display()
        );
    }
}

#[test]
fn a_symlink_loop_under_the_root_is_reported_and_the_rest_published() {
    let root = root_of_runs();
    std::os::unix::fs::symlink(root.path(), root.path().join("loop")).unwrap();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("symlink loop"), "{stderr}");
    assert!(site.path().join("runs").join(COLD).join("index.html").exists());
}

/// One raw HTTP exchange, so a test can send paths no client would normalise.
fn http(addr: &str, request: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|x| x.1.to_string()).unwrap_or_default();
    (code, body)
}

fn get(addr: &str, path: &str) -> (u16, String) {
    // HTTP/1.0: the answer comes unchunked, which this minimal client can read.
    http(addr, &format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n"))
}

#[test]
fn serve_follows_a_growing_run_and_serves_only_its_outputs() {
    use std::io::BufRead;
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args([
            "serve",
            run.path().to_str().unwrap(),
            "--bind",
            "127.0.0.1:0",
            "--out",
            out.path().to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    // Slow and broken clients: one sends half a request and waits, others connect and say nothing.
    let mut stalled = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(&mut stalled, b"GET /data.json HTTP/1.1\r\nHost: localhost\r\nX-Slow:").unwrap();
    let silent: Vec<_> = (0..6).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    let (code, page) = get(&addr, "/");
    assert_eq!(code, 200);
    assert!(page.contains("id=\"perf-data\""));
    let requests = |body: &str| {
        serde_json::from_str::<Value>(body).unwrap()["zot"]["requests"]
            .as_u64()
            .unwrap()
    };
    let (code, body) = get(&addr, "/data.json");
    assert_eq!(code, 200);
    let before = requests(&body);
    // The run grows: the registry logs three more requests (the half-written last line is completed first).
    let zot = run.path().join("zot.jsonl");
    let mut text = std::fs::read_to_string(&zot).unwrap();
    text.push('\n');
    for i in 0..3 {
        text.push_str(&format!(r#"{{"time":"2026-10-21T02:20:0{i}Z","level":"info","message":"HTTP API","clientIP":"10.0.3.12:1","method":"HEAD","path":"/v2/rocm/cache/manifests/x","statusCode":200,"latency":"1ms","bodySize":0,"headers":{{}}}}"#));
        text.push('\n');
    }
    std::fs::write(&zot, text).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut after = before;
    while std::time::Instant::now() < deadline && after == before {
        std::thread::sleep(std::time::Duration::from_millis(200));
        after = requests(&get(&addr, "/data.json").1);
    }
    assert!(after >= before + 3, "data.json followed the log: {before} -> {after}");
    // Read-only, and nothing outside the output directory.
    std::os::unix::fs::symlink("/etc/passwd", out.path().join("passwd")).unwrap();
    for path in [
        "/../run.json",
        "/%2e%2e/%2e%2e/etc/passwd",
        "//etc/passwd",
        "/passwd",
        "/..%2f..%2fetc%2fpasswd",
    ] {
        let (code, body) = get(&addr, path);
        assert!(code == 400 || code == 404, "{path}: {code}");
        assert!(!body.contains("root:"), "{path} leaked a file");
    }
    let (code, _) = http(
        &addr,
        "POST /data.json HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    assert_eq!(code, 405);
    let (code, body) = http(
        &addr,
        "HEAD /data.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert_eq!((code, body.len()), (200, 0));
    drop((stalled, silent));
    // Ctrl-C stops it cleanly.
    unsafe_sigint(child.id());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// Sends SIGINT, as Ctrl-C on a terminal does.
fn unsafe_sigint(pid: u32) {
    let ok = Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
    assert!(ok.success());
}

#[test]
fn check_passes_a_sound_run_and_names_every_contract_break() {
    let o = perfreport(&["check", sample(COLD).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    // A run with one of each break.
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    std::fs::write(p.join("run.json"), r#"{"mode": "cold", "targets": ["bake", "ghost"], "started_at": "2024-01-12T14:57:00Z", "finished_at": "2024-01-12T15:00:00Z",
        "nodes": [{"name": "a", "addr": "10.0.0.1"}]}"#).unwrap();
    std::fs::copy(fixture("buildx-history-trace-jaeger.json"), p.join("trace-bake.json")).unwrap();
    std::fs::copy(fixture("otlp-example-trace.json"), p.join("trace-otlp.json")).unwrap();
    std::fs::write(
        p.join("placement.txt"),
        "placement target=bake node=a\nplacement target=otlp\n",
    )
    .unwrap();
    std::fs::write(p.join("zot.jsonl"), "starting zot\nlistening\n").unwrap();
    // The server writes a format the directive does not describe.
    std::fs::write(
        p.join("nginx-log-format"),
        "log_format sccache '$remote_addr [$time_local] \"$request\" $status $request_length';\n",
    )
    .unwrap();
    std::fs::write(
        p.join("sccache.log"),
        "10.0.0.1 - - [12/Jan/2024:14:58:00 +0000] \"GET /p/a/b/c/abcdef HTTP/1.1\" 200 10 \"-\" \"opendal\"\n",
    )
    .unwrap();
    // Samples from a node run.json does not know, an hour before the trace: clocks disagree.
    std::fs::write(
        p.join("samples.jsonl"),
        [
            r#"{"ts": "2024-01-12T13:00:00Z", "node": "b", "cpu": {"user": 1, "idle": 1}}"#,
            r#"{"ts": "2024-01-12T13:01:00Z", "node": "b", "cpu": {"user": 2, "idle": 2}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let o = perfreport(&["check", p.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = |input: &str| -> String {
        let f = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["input"] == input)
            .unwrap_or_else(|| panic!("{input}"));
        assert_eq!(f["ok"], false, "{input} should fail");
        f["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(problems("zot.jsonl").contains("no record recognised"));
    let sccache = problems("sccache.log");
    assert!(
        sccache.contains("expected shape (sccache):") && sccache.contains("the line: 10.0.0.1 - -"),
        "{sccache}"
    );
    assert!(problems("placement.txt").contains("placement.txt:2: placement line without `node=`"));
    let otlp = problems("trace-otlp.json");
    assert!(
        otlp.contains("no root span") && otlp.contains("no step spans"),
        "{otlp}"
    );
    assert!(problems("trace-bake.json").contains("clocks may be skewed"));
    let run_level = problems("(run)");
    assert!(
        run_level.contains("trace-ghost.json: run.json lists target ghost but the run has no trace for it"),
        "{run_level}"
    );
    assert!(
        run_level.contains("node b, which run.json does not list"),
        "{run_level}"
    );
    // The plain form says the same for people.
    let text = String::from_utf8_lossy(&perfreport(&["check", p.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("FAIL  zot.jsonl"), "{text}");
}

#[test]
fn metrics_textfile_passes_promtool_and_omits_what_was_not_measured() {
    let dir = tempfile::tempdir().unwrap();
    let o = perfreport(&[
        "metrics",
        sample(WARM).to_str().unwrap(),
        "--textfile-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.path().join("rocm_perf.prom")).unwrap();
    assert!(
        text.contains("rocm_perf_target_build_seconds{target=\"triton-wheel\",node=\"think\",builder=\"snoc-think\"}")
    );
    // In flight: triton-wheel's total is not measured, so it has no sample at all (not a 0).
    assert!(!text.contains("rocm_perf_target_total_seconds{target=\"triton-wheel\""));
    assert!(text.contains("rocm_perf_run_in_flight{stamp=\"20261021T020000Z\",mode=\"warm\",arch=\"gfx1201\"} 1"));
    // Every HELP has samples; no timestamps.
    for block in text.split("# HELP ").skip(1) {
        assert!(block.lines().count() >= 3, "a family without samples: {block}");
    }
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .all(|l| l.split(' ').count() == 2),
        "no timestamps"
    );
    let promtool = std::path::Path::new("/usr/bin/promtool");
    if !promtool.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            ".ci/run installs Debian's prometheus for promtool"
        );
        eprintln!("SKIPPED promtool check: no /usr/bin/promtool");
        return;
    }
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn metrics_fall_back_to_the_current_directory_when_the_collector_dir_is_unwritable() {
    let cwd = tempfile::tempdir().unwrap();
    let blocker = cwd.path().join("not-a-dir");
    std::fs::write(&blocker, "a file").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args([
            "metrics",
            sample(COLD).to_str().unwrap(),
            "--textfile-dir",
            blocker.join("sub").to_str().unwrap(),
        ])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("in the current directory instead"));
    assert!(cwd.path().join("rocm_perf.prom").exists());
}

#[test]
fn two_reports_of_one_run_at_once_leave_valid_files_and_no_temporaries() {
    let out = tempfile::tempdir().unwrap();
    let runs: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_perfreport"))
                .args([
                    "report",
                    sample(COLD).to_str().unwrap(),
                    "--out",
                    out.path().to_str().unwrap(),
                    "-q",
                ])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut r in runs {
        assert!(r.wait().unwrap().success());
    }
    assert_eq!(data(out.path())["stamp"], COLD, "data.json is whole");
    for p in walk(out.path()) {
        assert!(
            !p.file_name().unwrap().to_string_lossy().contains(".tmp-"),
            "temporary left: {}",
            p.display()
        );
    }
}

#[test]
fn perfetto_trace_is_valid_trace_event_json_whose_slices_nest_per_track() {
    let o = perfreport(&["trace", sample(COLD).to_str().unwrap()]);
    assert!(o.status.success());
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    let events = d["traceEvents"].as_array().unwrap();
    let mut tracks: std::collections::BTreeMap<(u64, u64), Vec<(i64, i64)>> = Default::default();
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        assert!(["X", "M", "C", "b", "e", "i"].contains(&ph), "{e}");
        if ph == "X" {
            let (ts, dur) = (e["ts"].as_i64().unwrap(), e["dur"].as_i64().unwrap());
            assert!(dur >= 0, "{e}");
            tracks
                .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
                .or_default()
                .push((ts, ts + dur));
        }
    }
    for (track, mut slices) in tracks {
        slices.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
        // Properly nested: each slice is inside the one it starts in, or after it.
        let mut open: Vec<i64> = vec![];
        for (s, e) in slices {
            while open.last().is_some_and(|end| *end <= s) {
                open.pop();
            }
            if let Some(end) = open.last() {
                assert!(
                    e <= *end,
                    "track {track:?}: a slice {s}-{e} crosses its parent's end {end}"
                );
            }
            open.push(e);
        }
    }
    // Every target has its track; uploads open and close in pairs; CPU counters are there.
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    for t in ["pytorch", "triton-wheel", "rocm-base"] {
        assert!(names.contains(&t), "{t}");
    }
    let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count();
    assert_eq!(count("b"), count("e"));
    assert!(count("b") > 0);
    assert!(events.iter().any(|e| e["ph"] == "C" && e["name"] == "CPU busy"));
}

/// Stretches the root span of a Jaeger trace by `factor` (the record took longer).
fn stretch_root(trace: &Path, factor: f64) {
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

#[test]
fn compare_refuses_another_mode_and_ranks_only_outside_the_noise() {
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        sample(WARM).to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Not comparable")
            && text.contains("mode differs: 20261020T020000Z is cold, 20261021T020000Z is warm"),
        "{text}"
    );
    assert!(!text.contains("slower") && !text.contains("faster"));
    // B: rocm-base's record took twice as long, and pytorch moved from strix to kiln.
    let b = pinned_copy(COLD);
    stretch_root(&b.path().join("trace-rocm-base.json"), 2.0);
    let placement = std::fs::read_to_string(b.path().join("placement.txt")).unwrap();
    std::fs::write(
        b.path().join("placement.txt"),
        placement.replace("target=pytorch node=strix", "target=pytorch node=kiln"),
    )
    .unwrap();
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        b.path().to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success());
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let change = |t: &str, m: &str| {
        let t = c["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["target"] == t)
            .unwrap();
        t["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["metric"] == m)
            .unwrap()
            .clone()
    };
    assert_eq!(change("rocm-base", "total_s")["verdict"], "slower");
    assert_eq!(change("rocm-base", "build_s")["verdict"], "unchanged");
    assert_eq!(change("vllm", "total_s")["verdict"], "unchanged");
    let pytorch = c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["target"] == "pytorch")
        .unwrap();
    assert!(pytorch["moved"].as_str().unwrap().contains("moved from strix to kiln"));
    // With a history whose rocm-base totals spread widely, a +20% change is noise.
    let history = tempfile::tempdir().unwrap();
    for (i, f) in [0.6, 1.0, 1.6].iter().enumerate() {
        let dst = history.path().join(format!("h{i}"));
        std::fs::create_dir(&dst).unwrap();
        copy_run(&sample(COLD), &dst);
        stretch_root(&dst.join("trace-rocm-base.json"), *f);
    }
    let c2 = pinned_copy(COLD);
    stretch_root(&c2.path().join("trace-rocm-base.json"), 1.2);
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        c2.path().to_str().unwrap(),
        "--history",
        history.path().to_str().unwrap(),
        "--json",
    ]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["target"] == "rocm-base")
        .unwrap();
    let total = t["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["metric"] == "total_s")
        .unwrap();
    assert_eq!(total["verdict"], "within noise", "{total}");
    assert!(total["band_from"].as_str().unwrap().contains("3 earlier runs"));
}

#[test]
fn gate_fails_on_a_regression_not_on_noise_and_says_what_it_cannot_gate() {
    let dir = tempfile::tempdir().unwrap();
    let expect = dir.path().join("expectations.json");
    let exp = expect.to_str().unwrap();
    let cold = sample(COLD);
    assert!(
        perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp, "--update"])
            .status
            .success()
    );
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let mut e: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap()).unwrap();
    let build = e["targets"]["pytorch"]["build_s"].as_f64().unwrap();
    // Expected 30% faster than measured: the run regressed. 5% slower is inside the 10% band.
    e["targets"]["pytorch"]["build_s"] = Value::from(build / 1.3);
    e["targets"]["vllm"]["build_s"] = Value::from(e["targets"]["vllm"]["build_s"].as_f64().unwrap() / 1.05);
    e["targets"]["xformers"]["build_s"] = Value::from(e["targets"]["xformers"]["build_s"].as_f64().unwrap() * 1.5);
    e["targets"]["rccl-tests"]["upload_s"] = Value::from(2.0);
    e["targets"]["not-built"] = serde_json::json!({"total_s": 100.0});
    std::fs::write(&expect, serde_json::to_vec(&e).unwrap()).unwrap();
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let verdict = |t: &str, m: &str| {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"] == t && c["metric"] == m)
            .unwrap()["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(verdict("pytorch", "build_s"), "REGRESSION");
    assert_eq!(verdict("vllm", "build_s"), "ok");
    assert_eq!(verdict("xformers", "build_s"), "improved");
    assert!(verdict("rccl-tests", "upload_s").starts_with("ungateable: 2 s is below"));
    assert!(verdict("not-built", "total_s").contains("not in this run"));
    assert_eq!(r["regressions"], 1);
    // Expectations measured on another arch are refused, with the reason.
    e["coordinates"]["arch"] = Value::from("gfx950");
    std::fs::write(&expect, serde_json::to_vec(&e).unwrap()).unwrap();
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("arch differs"));
}

#[test]
fn compare_and_gate_outputs_carry_the_tool_and_both_runs_provenance() {
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        sample(COLD).to_str().unwrap(),
        "--json",
    ]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["tool"]["commit"], env!("PERFREPORT_COMMIT"));
    assert_eq!(c["provenance_a"]["run"]["arch"], "gfx1201");
    assert!(c["provenance_b"]["inputs"]["zot.jsonl"]["xxh3"].is_string());
    let md = String::from_utf8_lossy(
        &perfreport(&[
            "compare",
            sample(COLD).to_str().unwrap(),
            sample(COLD).to_str().unwrap(),
        ])
        .stdout,
    )
    .into_owned();
    assert!(
        md.contains("## Provenance") && md.contains(&format!("commit {}", env!("PERFREPORT_COMMIT"))),
        "{md}"
    );
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("e.json");
    perfreport(&[
        "gate",
        sample(COLD).to_str().unwrap(),
        "--expect",
        exp.to_str().unwrap(),
        "--update",
    ]);
    let g: Value = serde_json::from_slice(
        &perfreport(&[
            "gate",
            sample(COLD).to_str().unwrap(),
            "--expect",
            exp.to_str().unwrap(),
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(g["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(g["provenance"]["run"]["mode"], "cold");
}

#[test]
fn publish_compare_previous_adds_a_section_to_both_runs_report_pages() {
    let root = root_of_runs();
    // A later cold run: comparable with the cold sample, not with the warm one.
    let later = root.path().join("20261022T020000Z");
    std::fs::create_dir(&later).unwrap();
    copy_run(&sample(COLD), &later);
    let run_json = std::fs::read_to_string(later.join("run.json")).unwrap();
    let run_json = run_json
        .replace("2026-10-20T02:00:00Z", "2026-10-22T02:00:00Z")
        .replace(COLD, "20261022T020000Z");
    std::fs::write(later.join("run.json"), run_json).unwrap();
    stretch_root(&later.join("trace-rocm-base.json"), 2.0);
    let site = tempfile::tempdir().unwrap();
    let o = perfreport(&[
        "publish",
        root.path().to_str().unwrap(),
        "--site",
        site.path().to_str().unwrap(),
        "--compare-previous",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = |dir: &str| std::fs::read_to_string(site.path().join("runs").join(dir).join("report.html")).unwrap();
    // Newest first: 1022 (cold) <- 1021 (warm) <- 1020 (cold). Neighbours of another mode are refused.
    let newest = page("20261022T020000Z");
    assert!(
        newest.contains("Since the previous run (20261021T020000Z)"),
        "the warm run came before it"
    );
    assert!(newest.contains("Not comparable") && newest.contains("mode differs"));
    let warm = page(WARM);
    assert!(
        warm.contains("Since the previous run (20261020T020000Z)")
            && warm.contains("Until the next run (20261022T020000Z)")
    );
    let oldest = page(COLD);
    assert!(oldest.contains("Until the next run (20261021T020000Z)"));
}

/// A cold run of two targets: `up` has upload spans, `quiet` has none.
fn cold_run_with(uploads: bool) -> tempfile::TempDir {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    std::fs::write(
        p.join("run.json"),
        r#"{"stamp": "cold", "mode": "cold", "targets": ["up", "quiet"],
        "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:16:40Z"}"#,
    )
    .unwrap();
    let t0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z
    let mut up: Vec<HandSpan> = vec![
        ("r1", "0000000000000000", "build", 0.0, 900.0, &[]),
        ("s1", "r1", "[builder 1/1] RUN make", 10.0, 300.0, &[]),
    ];
    if uploads {
        up.push(("u1", "r1", "HTTP PUT", 310.0, 890.0, &[("http.method", "PUT")]));
    }
    std::fs::write(p.join("trace-up.json"), jaeger(t0, &up)).unwrap();
    std::fs::write(
        p.join("trace-quiet.json"),
        jaeger(
            t0,
            &[
                ("r2", "0000000000000000", "build", 0.0, 400.0, &[]),
                ("s2", "r2", "[builder 1/1] RUN make", 10.0, 390.0, &[]),
            ],
        ),
    )
    .unwrap();
    run
}

#[test]
fn a_cold_run_with_upload_spans_says_per_target_its_export_was_not_cleared() {
    let run = cold_run_with(true);
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    let note = d["mode_note"].as_str().unwrap();
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    for text in [note, md.as_str()] {
        // The harness's intent is not repeated where the traces contradict it.
        assert!(!text.contains("export is cleared"), "{text}");
        assert!(!text.contains("totals exclude export"), "{text}");
    }
    // Per target: `up` uploaded, so its total includes export; `quiet` did not.
    assert!(note.contains("up (uploaded 9m40s)"), "{note}");
    assert!(note.contains("not cleared, so its total includes it"), "{note}");
    assert!(note.contains("quiet showed no upload, so export is excluded"), "{note}");
    assert!(md.contains("up (uploaded 9m40s)"), "{md}");
}

#[test]
fn a_cold_run_without_uploads_keeps_saying_export_is_excluded() {
    let run = cold_run_with(false);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d = data(out.path());
    let note = d["mode_note"].as_str().unwrap();
    assert!(
        note.contains("no trace shows an upload, so totals exclude export"),
        "{note}"
    );
    assert!(!note.contains("not cleared"), "{note}");
}

#[test]
fn zot_lines_years_outside_the_trace_do_not_stretch_the_wall_clock_and_are_counted() {
    // A 2026 trace of 900 s, no run.json, and a zot.jsonl whose writes lie in
    // 2019 and 2025 besides two inside the record.
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    let t0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z
    std::fs::write(
        p.join("trace-t.json"),
        jaeger(
            t0,
            &[
                ("r1", "0000000000000000", "build", 0.0, 900.0, &[]),
                ("s1", "r1", "[builder 1/1] RUN make", 10.0, 300.0, &[]),
            ],
        ),
    )
    .unwrap();
    let write = |time: &str| {
        format!(
            r#"{{"time":"{time}","level":"info","message":"HTTP API","clientIP":"10.0.0.1:5000","method":"PUT","path":"/v2/r/blobs/uploads/x?digest=sha256%3A1","statusCode":201,"latency":"1s","bodySize":0,"headers":{{"Content-Length":["1000"]}}}}"#
        )
    };
    let lines = [
        write("2019-03-02T10:00:00Z"),
        write("2019-03-02T11:00:00Z"),
        write("2025-01-07T09:00:00Z"),
        write("2026-10-20T02:05:00Z"),
        write("2026-10-20T02:06:00Z"),
    ];
    std::fs::write(p.join("zot.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = report(p, out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    // The wall clock is the trace's 900 s, not seven years.
    assert_eq!(d["fleet"]["wall_s"], 900.0);
    let warning = "zot.jsonl: 3 writes from 2019-03-02 to 2025-01-07 lie outside the run's window (2026-10-20T02:00Z – 2026-10-20T02:15Z) by more than an hour";
    let warnings = d["inputs"]["zot.jsonl"]["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().starts_with(warning)),
        "{warnings:?}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains(warning));
    // The lane draws the two writes inside the window, and says what it leaves out.
    let drawn: u64 = d["zot"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["image_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(drawn, 2000);
    assert!(d["zot"]["lane_why"].as_str().unwrap().starts_with("3 writes (3.0 kB)"));
    // The whole file's totals still count them, as the warning says.
    assert_eq!(d["zot"]["image_write_bytes"], 5000);
}

#[test]
fn the_real_format_runs_registry_lane_says_why_it_is_empty_beside_the_tables_bytes() {
    let run = fixture_run();
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d = data(out.path());
    let z = &d["zot"];
    let table = z["image_write_bytes"].as_u64().unwrap() + z["cache_write_bytes"].as_u64().unwrap();
    let drawn: u64 = z["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["image_bytes"].as_u64().unwrap() + p["cache_bytes"].as_u64().unwrap())
        .sum();
    assert!(table > 0);
    // Either the lane draws what the table counts, or it says why not.
    if drawn != table {
        let why = z["lane_why"]
            .as_str()
            .expect("an empty lane beside written bytes says why");
        assert!(why.contains("outside the run's window"), "{why}");
        let svg = std::fs::read_to_string(out.path().join("charts/cache-lanes.svg")).unwrap();
        assert!(svg.contains("nothing drawn: "), "the chart shows the reason");
        assert!(!svg.contains("images (0 B)"), "no zero legend beside written bytes");
    }
}
