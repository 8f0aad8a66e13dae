//! Figures a reader can trust: a present input that yields nothing is `null`
//! with the reason, never 0; every `null` of data.json says why; one
//! contract rule (no record, more than 1% malformed, a format that does not
//! fit) behind the warnings, `check`, `--strict`, the summary and the
//! metrics; report.md says what it knows.

use super::{copy_run, data, fixture, fixture_run, node, perfreport, report, sample, target, COLD, WARM};
use serde_json::Value;
use std::path::Path;

/// Every `null` under `v` that nothing explains, as dotted paths. A null is
/// explained by the nearest enclosing object whose `why_null` has an entry
/// for the path from that object (array indices left out, so
/// `series.write_bytes` covers every point of `series`), or whose `why`
/// says why the whole is unmeasured, or that is an absent input
/// (`present: false`). A reason slot (`why`, `lane_why`) that is itself
/// null has nothing to explain.
fn unexplained_nulls(v: &Value) -> Vec<String> {
    fn walk<'a>(
        v: &'a Value,
        path: &mut Vec<Option<&'a str>>,
        holders: &mut Vec<(&'a Value, usize)>,
        out: &mut Vec<String>,
    ) {
        match v {
            Value::Object(m) => {
                holders.push((v, path.len()));
                for (k, x) in m {
                    path.push(Some(k));
                    walk(x, path, holders, out);
                    path.pop();
                }
                holders.pop();
            }
            Value::Array(a) => {
                for x in a {
                    path.push(None);
                    walk(x, path, holders, out);
                    path.pop();
                }
            }
            Value::Null => {
                // A reason slot (`why`, `lane_why`) that is null has nothing to explain.
                if path
                    .last()
                    .copied()
                    .flatten()
                    .is_some_and(|k| k == "why" || k.ends_with("_why"))
                {
                    return;
                }
                let explained = holders.iter().rev().any(|(o, depth)| {
                    let rel: Vec<&str> = path[*depth..].iter().flatten().copied().collect();
                    o["why_null"][rel.join(".")].as_str().is_some_and(|r| !r.is_empty())
                        || o["why"].as_str().is_some_and(|r| !r.is_empty())
                        || o["present"] == false
                });
                if !explained {
                    let names: Vec<String> = path
                        .iter()
                        .map(|p| p.map(str::to_string).unwrap_or_else(|| "[]".into()))
                        .collect();
                    out.push(names.join("."));
                }
            }
            _ => {}
        }
    }
    let mut out = vec![];
    walk(v, &mut vec![], &mut vec![], &mut out);
    out.sort();
    out.dedup();
    out
}

fn reported(run: &Path) -> (Value, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let o = report(run, out.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    (data(out.path()), out)
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// `n` lines none of which is a record of any input.
fn garbage(n: usize) -> String {
    (1..=n)
        .map(|i| format!("garbage line {i} <tab>\tnot a record\n"))
        .collect()
}

/// A request line of nginx's `combined` format (the default log format).
fn combined(i: usize) -> String {
    format!(
        "10.0.0.1 - - [20/Oct/2026:02:{:02}:{:02} +0000] \"GET /p/a/b/c/{i:06x} HTTP/1.1\" 200 3 \"-\" \"opendal/0.52.0\"\n",
        (i / 60) % 60,
        i % 60
    )
}

/// An sccache.log of 2,900 good lines with `bad` garbage lines spread in it,
/// the first at line 1000.
fn sccache_log_with_garbage(bad: usize) -> String {
    let mut lines: Vec<String> = (0..2900).map(combined).collect();
    for k in 0..bad {
        lines.insert(999 + k * 50, "#### not a request ####\n".into());
    }
    lines.concat()
}

#[test]
fn every_null_in_data_json_carries_its_reason() {
    let mut runs: Vec<(String, Value)> = vec![];
    for stamp in [COLD, WARM] {
        runs.push((stamp.into(), reported(&sample(stamp)).0));
    }
    let fx = fixture_run();
    runs.push(("fixture run".into(), reported(fx.path()).0));
    // Every input present, none of them yielding a record.
    let nothing = tempfile::tempdir().unwrap();
    for name in [
        "placement.txt",
        "samples.jsonl",
        "sccache.log",
        "zot.jsonl",
        "artifacts.txt",
    ] {
        write(nothing.path(), name, &garbage(200));
    }
    write(nothing.path(), "trace-x.json", r#"{"data": []}"#);
    write(nothing.path(), "trace-y.json", "not a trace");
    runs.push(("inputs with no record".into(), reported(nothing.path()).0));
    // Half-described: run.json without coordinates, a node without cores or
    // address, a target without placement or estimate, samples without
    // memory or load, a log format without $request_length, an in-flight trace.
    let half = tempfile::tempdir().unwrap();
    let p = half.path();
    write(
        p,
        "run.json",
        r#"{"targets": ["bake", "ghost"], "nodes": [{"name": "a"}]}"#,
    );
    std::fs::copy(fixture("buildx-history-trace-jaeger.json"), p.join("trace-bake.json")).unwrap();
    write(p, "placement.txt", "placement target=bake node=a\n");
    write(
        p,
        "samples.jsonl",
        &[
            r#"{"ts": "2024-01-12T14:57:00Z", "node": "a", "cpu": {"user": 1, "idle": 1}}"#,
            r#"{"ts": "2024-01-12T14:57:10Z", "node": "a", "cpu": {"user": 2, "idle": 2}}"#,
            r#"{"ts": "2024-01-12T14:58:40Z", "node": "a", "cpu": {"user": 3, "idle": 3}}"#,
            r#"{"ts": "2024-01-12T14:58:50Z", "node": "a", "cpu": {"user": 4, "idle": 4}}"#,
        ]
        .join("\n"),
    );
    write(
        p,
        "nginx-log-format",
        "log_format sccache '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent';\n",
    );
    write(
        p,
        "sccache.log",
        "10.0.0.1 - - [12/Jan/2024:14:58:00 +0000] \"PUT /p/a/b/c/abcdef HTTP/1.1\" 201 0\n",
    );
    runs.push(("half-described run".into(), reported(p).0));
    let empty = tempfile::tempdir().unwrap();
    write(empty.path(), "trace-z.json", r#"{"data": [{"spans": []}]}"#);
    runs.push(("a trace of no span".into(), reported(empty.path()).0));

    let failures: Vec<String> = runs
        .iter()
        .map(|(name, d)| (name, unexplained_nulls(d)))
        .filter(|(_, n)| !n.is_empty())
        .map(|(name, n)| format!("{name}: {}", n.join(", ")))
        .collect();
    assert!(failures.is_empty(), "nulls without a reason:\n{}", failures.join("\n"));
}

#[test]
fn the_null_walker_finds_a_null_without_its_reason() {
    let d: Value = serde_json::json!({
        "a": null,
        "t": [{"x": null, "why_null": {"x": "because"}}, {"y": null, "why_null": {}}],
        "s": {"why": "absent", "n": null, "series": [{"b": null}]},
        "z": {"series": [{"b": null}], "why_null": {"series.b": "unsized"}, "why": null, "lane_why": null},
        "i": {"present": false, "bytes": null},
    });
    assert_eq!(unexplained_nulls(&d), vec!["a".to_string(), "t.[].y".to_string()]);
}

#[test]
fn a_present_input_that_yields_no_record_is_null_with_the_reason_never_0() {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    write(
        p,
        "run.json",
        r#"{"targets": ["bake", "void"], "nodes": [{"name": "a"}]}"#,
    );
    std::fs::copy(fixture("buildx-history-trace-jaeger.json"), p.join("trace-bake.json")).unwrap();
    write(p, "trace-void.json", r#"{"data": [{"spans": []}]}"#);
    write(p, "placement.txt", "placement target=bake node=a\n");
    write(p, "sccache.log", &garbage(200));
    write(p, "zot.jsonl", &garbage(200));
    write(p, "samples.jsonl", &garbage(200));
    let (d, out) = reported(p);

    let s = &d["sccache"];
    for field in ["hits", "misses", "writes", "write_bytes", "hit_ratio"] {
        assert_eq!(s[field], Value::Null, "sccache.{field}: {s}");
    }
    let why = s["why"].as_str().expect("sccache says why");
    assert!(
        why.starts_with("sccache.log: 200 lines read but no record recognised")
            && why.contains("200 lines did not match it, the first at line 1"),
        "{why}"
    );
    // The parser's own words (a serde or a format error) are in the input's
    // warnings, line by line, never in the summary.
    let warnings = d["inputs"]["sccache.log"]["warnings"].as_array().unwrap();
    let detail = warnings
        .iter()
        .filter_map(Value::as_str)
        .find(|w| w.starts_with("sccache.log:1: "))
        .expect("line 1's reason in the warnings");
    let reason = detail.trim_start_matches("sccache.log:1: ");
    let summary = d["summary"].as_array().unwrap();
    assert!(
        summary
            .iter()
            .filter_map(Value::as_str)
            .any(|s| s.contains("sccache.log: 200 lines read")),
        "{summary:?}"
    );
    for s in summary.iter().filter_map(Value::as_str) {
        assert!(!s.contains(reason), "the summary quotes the parser: {s}");
    }
    let z = &d["zot"];
    assert_eq!(z["requests"], Value::Null, "{z}");
    assert!(
        z["why"]
            .as_str()
            .unwrap()
            .starts_with("zot.jsonl: 200 lines read but no record"),
        "{z}"
    );
    let a = node(&d, "a");
    assert_eq!(a["cpu_pct_mean"], Value::Null);
    assert!(
        a["why_null"]["cpu_pct_mean"]
            .as_str()
            .unwrap()
            .starts_with("samples.jsonl: 200 lines read"),
        "{a}"
    );
    let void = target(&d, "void");
    assert_eq!(void["steps_total"], Value::Null, "{void}");
    assert!(
        void["why_null"]["steps_total"]
            .as_str()
            .unwrap()
            .starts_with("trace-void.json: "),
        "{void}"
    );

    let summary = d["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!summary.contains("0 hits"), "{summary}");
    assert!(
        summary.contains("Compiler cache: not measured (sccache.log: 200 lines read"),
        "{summary}"
    );
    // The lane says why instead of drawing zero.
    let lanes = std::fs::read_to_string(out.path().join("charts/cache-lanes.svg")).unwrap();
    assert!(
        lanes.contains("not drawn: sccache.log: 200 lines read"),
        "the sccache lane says why"
    );
}

#[test]
fn a_log_format_without_request_length_draws_no_zero_bytes_per_bucket() {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    write(
        p,
        "nginx-log-format",
        "log_format sccache '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent';\n",
    );
    write(
        p,
        "sccache.log",
        "10.0.0.1 - - [12/Jan/2024:14:58:00 +0000] \"PUT /p/a/b/c/abcdef HTTP/1.1\" 201 0\n",
    );
    let (d, _) = reported(p);
    let s = &d["sccache"];
    assert_eq!(s["writes"], 1, "{s}");
    assert_eq!(s["write_bytes"], Value::Null);
    assert!(
        s["why_null"]["write_bytes"]
            .as_str()
            .unwrap()
            .contains("$request_length"),
        "{s}"
    );
    let points = s["series"].as_array().unwrap();
    assert!(!points.is_empty());
    assert!(points.iter().all(|p| p["write_bytes"].is_null()), "{s}");
}

/// Reports, checks and exports metrics of a run whose sccache.log holds
/// `bad` garbage lines among 2,900 good ones.
struct Verdicts {
    data: Value,
    strict: Option<i32>,
    check: Option<i32>,
    check_text: String,
    inputs_broken_metric: String,
}

fn verdicts(bad: usize) -> Verdicts {
    let run = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        run.path().join("trace-bake.json"),
    )
    .unwrap();
    write(run.path(), "sccache.log", &sccache_log_with_garbage(bad));
    let out = tempfile::tempdir().unwrap();
    let strict = report(run.path(), out.path(), &["--strict"]).status.code();
    let c = perfreport(&["check", run.path().to_str().unwrap()]);
    let prom = tempfile::tempdir().unwrap();
    let m = perfreport(&[
        "metrics",
        run.path().to_str().unwrap(),
        "--textfile-dir",
        prom.path().to_str().unwrap(),
    ]);
    assert_eq!(m.status.code(), Some(0), "{}", String::from_utf8_lossy(&m.stderr));
    let text = std::fs::read_to_string(prom.path().join("rocm_perf.prom")).unwrap();
    Verdicts {
        data: data(out.path()),
        strict,
        check: c.status.code(),
        check_text: String::from_utf8_lossy(&c.stdout).into_owned(),
        inputs_broken_metric: text
            .lines()
            .find(|l| l.starts_with("rocm_perf_inputs_broken"))
            .unwrap_or_default()
            .to_string(),
    }
}

fn summary(d: &Value) -> String {
    d["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn one_garbage_line_in_2900_is_a_warning_with_its_line_not_a_broken_contract() {
    let v = verdicts(1);
    let i = &v.data["inputs"]["sccache.log"];
    assert_eq!(i["malformed"], 1);
    assert_eq!(i["records"], 2900);
    assert_eq!(i["contract_broken"], false, "{i}");
    let warnings = i["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("sccache.log:1000: ")),
        "the stray line is named by its number: {warnings:?}"
    );
    assert!(
        !summary(&v.data).contains("Check before trusting"),
        "{}",
        summary(&v.data)
    );
    assert_eq!(v.strict, Some(0), "--strict passes");
    assert_eq!(v.check, Some(0), "{}", v.check_text);
    assert!(v.inputs_broken_metric.ends_with(" 0"), "{}", v.inputs_broken_metric);
}

#[test]
fn thirty_garbage_lines_in_2900_break_the_contract_everywhere_at_once() {
    let v = verdicts(30);
    let i = &v.data["inputs"]["sccache.log"];
    assert_eq!(i["malformed"], 30);
    assert_eq!(i["contract_broken"], true, "{i}");
    assert!(
        i["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("sccache.log: 30 of 2930 lines malformed (1.0%, more than 1%)"),
        "{i}"
    );
    assert!(
        summary(&v.data).contains("Check before trusting: sccache.log broke its contract"),
        "{}",
        summary(&v.data)
    );
    assert_eq!(v.strict, Some(1));
    assert_eq!(v.check, Some(1), "{}", v.check_text);
    assert!(v.check_text.contains("30 of 2930 lines malformed"), "{}", v.check_text);
    assert!(v.inputs_broken_metric.ends_with(" 1"), "{}", v.inputs_broken_metric);
}

#[test]
fn report_md_says_no_node_is_known_and_the_registry_footnote_only_when_used() {
    let fx = fixture_run();
    let out = tempfile::tempdir().unwrap();
    assert_eq!(report(fx.path(), out.path(), &[]).status.code(), Some(0));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains(", nodes none known."), "{md}");
    assert!(!md.contains("nodes ."), "{md}");
    assert!(!md.contains('ᴿ'), "no row uses ᴿ, so no footnote: {md}");
    // The cold sample takes some upload bytes from the registry: the mark and its footnote.
    let out = tempfile::tempdir().unwrap();
    assert_eq!(report(&sample(COLD), out.path(), &[]).status.code(), Some(0));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains(" ᴿ |") && md.contains("ᴿ uploaded bytes taken from the registry"));
}

/// The warm sample run in flight with no trace written yet and its logs
/// the day before: nothing of it lies in its window.
fn in_flight_with_nothing_in_its_window() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    super::copy_run(&sample(WARM), dir.path());
    for e in std::fs::read_dir(dir.path()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("trace-") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    for (file, from, to) in [
        ("zot.jsonl", "2026-10-21T", "2026-10-20T"),
        ("samples.jsonl", "2026-10-21T", "2026-10-20T"),
        ("sccache.log", "21/Oct/2026", "20/Oct/2026"),
    ] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        std::fs::write(dir.path().join(file), text.replace(from, to)).unwrap();
    }
    dir
}

/// Found beside a hostile review: a run in flight with nothing in its
/// window showed "wall clock 0s", data.json's `fleet.wall_s` and every
/// node's `busy_s`/`idle_s` 0.0 though they are unknown, axes of "0 0.1 …
/// 1" minutes it had not seen, and a CPU panel reason running off both
/// edges of its chart. They are null with the reason, the axes claim no
/// minutes, and the reason is broken into lines that fit.
#[test]
fn a_run_in_flight_with_nothing_in_its_window_has_null_figures_no_minutes_and_reasons_that_fit() {
    let run = in_flight_with_nothing_in_its_window();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    assert!(d["fleet"]["wall_s"].is_null(), "{}", d["fleet"]);
    assert!(
        d["fleet"]["why_null"]["wall_s"]
            .as_str()
            .unwrap_or("")
            .contains("in flight"),
        "{}",
        d["fleet"]
    );
    for n in d["nodes"].as_array().unwrap() {
        for field in ["busy_s", "idle_s"] {
            assert!(n[field].is_null(), "{} {field}: {}", n["name"], n[field]);
            assert!(n["why_null"][field].is_string(), "{} {field}: no reason", n["name"]);
        }
    }
    assert!(unexplained_nulls(&d).is_empty(), "{:?}", unexplained_nulls(&d));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(!md.contains("wall clock 0s"), "{md}");
    for chart in ["cpu-mem.svg", "timeline.svg", "cache-lanes.svg"] {
        let svg = std::fs::read_to_string(out.path().join("charts").join(chart)).unwrap();
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        for text in svg.split("<text ").skip(1) {
            let (attrs, rest) = text.split_once('>').unwrap();
            let body = rest.split("</text>").next().unwrap().trim().replace("&apos;", "'");
            assert!(
                !["0.1", "0.5", "1.0"].contains(&body.as_str()),
                "{chart}: a minute axis of a run with no length"
            );
            let attr = |name: &str| -> f64 {
                attrs
                    .split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0.0)
            };
            // Half an em a character: a sans-serif's average, wider than digits' and narrower than capitals'.
            let half = body.chars().count() as f64 * attr("font-size") * 0.55 / 2.0;
            let x = attr("x");
            if attrs.contains("text-anchor=\"middle\"") {
                assert!(
                    x - half >= 0.0 && x + half <= width,
                    "{chart}: {body:?} runs off the chart"
                );
            }
        }
    }
}

/// A registry log in which no line is recognised measured nothing: no
/// target's upload is said to be one the registry "logged no completed
/// write" for, nor a registry 0 B; each points to the registry's reason.
#[test]
fn a_registry_log_with_no_record_recognised_gives_no_target_registry_bytes() {
    let run = tempfile::tempdir().unwrap();
    copy_run(&sample(COLD), run.path());
    let other_shape = "{\"lvl\":\"info\",\"m\":\"started\",\"when\":\"2026-10-20T02:00:00Z\"}\n".repeat(40);
    std::fs::write(run.path().join("zot.jsonl"), other_shape).unwrap();
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    assert!(d["zot"]["why"]
        .as_str()
        .unwrap_or_default()
        .contains("no record recognised"));
    let mut pointed = 0;
    for t in d["targets"].as_array().expect("targets") {
        assert_ne!(t["upload_bytes_source"], "registry", "{}", t["name"]);
        let why = t["why_null"]["upload_bytes"].as_str().unwrap_or_default();
        assert!(!why.contains("registry logged no"), "{}: {why}", t["name"]);
        pointed += usize::from(why.contains("zot.jsonl measured nothing"));
    }
    assert!(
        pointed >= 5,
        "the targets without trace sizes point to the registry's reason"
    );
}
