//! `perfreport report`: data.json, report.md, the page and the charts of real
//! fixtures, the sample runs and hand-made runs; exit codes and atomic writes.

use crate::util::*;
use serde_json::Value;
use std::process::Command;

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
    assert!(
        summary
            .contains("The critical path, ending at +1h03m: triton-wheel on think 55m45s → rocm-base on think 7m22s"),
        "{summary}"
    );
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
    // A panel per node, named with its builder beside it.
    for n in ["strix", "think", "forge", "anvil", "kiln"] {
        assert!(cpu.contains(&format!("\n{n}\n</text>")), "panel of {n}");
        assert!(cpu.contains(&format!("\nsnoc-{n}\n</text>")), "builder of {n}");
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

/// Asserts a snapshot kept where it was when these tests were one file:
/// tests/snapshots/cli__NAME.snap.
macro_rules! assert_snapshot_of_cli {
    ($name:literal, $value:expr) => {
        insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(concat!("cli__", $name), $value);
        })
    };
}

#[test]
fn report_md_of_the_cold_sample() {
    assert_snapshot_of_cli!("cold_report_md", report_md_of(COLD));
}

#[test]
fn report_md_of_the_warm_run_in_flight() {
    assert_snapshot_of_cli!("warm_in_flight_report_md", report_md_of(WARM));
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
