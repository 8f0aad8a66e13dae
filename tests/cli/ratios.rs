//! `perfreport ratios`: the serial harness's bench.jsonl pooled into cache ratios.

use crate::util::*;
use serde_json::Value;

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

/// A sample of 1.6e308 seconds parses (it is a number) but no axis reaches
/// 1.15 times it: the chart says so instead of the chart library searching
/// forever for ticks, and the rest of the report is written.
#[test]
fn a_time_too_large_for_an_axis_is_said_in_its_chart_and_the_report_still_written() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench.jsonl");
    std::fs::write(
        &bench,
        r#"{"ts": "2026-10-20T02:00:00+00:00", "scenario": "cold", "target": "pytorch", "builder": "snoc-think", "arch": "gfx950", "seconds": 1.6e308, "rc": 0, "steps_cached": 0, "steps_total": 11, "max_jobs": 10}"#
            .to_string()
            + "\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = perfreport(&["ratios", bench.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("ratios.json")).unwrap()).unwrap();
    assert_eq!(r["keys"][0]["pools"]["cold"]["median_s"], 1.6e308);
    let svg = std::fs::read_to_string(out.join("charts/ratios-0.svg")).unwrap();
    assert!(svg.contains("too large to put on an axis"), "{svg}");
    // Its legend says the median as a number a line can hold.
    assert!(svg.contains("median 1.60e308 s, n=1"), "{svg}");
    let md = std::fs::read_to_string(out.join("ratios.md")).unwrap();
    assert!(md.contains("| cold | 1 | 1.60e308 s | 1.60e308 s |"), "{md}");
}
