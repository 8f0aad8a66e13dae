//! The outputs in the tools people open them with: the Perfetto trace as
//! Perfetto's JSON importer files it (a structural check of its rules, and
//! a load through a real trace-event importer, Chrome DevTools' trace
//! engine, where node and `tests/tools/importer/node_modules` are there),
//! and the metrics textfile against Prometheus' naming conventions.

use super::{data, fixture_run, node, perfreport, report, root, sample, COLD, WARM};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The trace of the two sample runs and of the run made of the real fixtures.
fn traces() -> Vec<(String, Value)> {
    let fixtures = fixture_run();
    let runs = [sample(COLD), sample(WARM), fixtures.path().to_path_buf()];
    runs.iter()
        .map(|run| {
            let o = perfreport(&["trace", run.to_str().unwrap()]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            (run.display().to_string(), serde_json::from_slice(&o.stdout).unwrap())
        })
        .collect()
}

fn events(d: &Value) -> &Vec<Value> {
    d["traceEvents"].as_array().unwrap()
}

#[test]
fn trace_uploads_are_async_slices_scoped_to_their_node_process_not_global() {
    let mut uploads = 0;
    for (run, d) in traces() {
        let ev = events(&d);
        let declared: BTreeSet<u64> = ev
            .iter()
            .filter(|e| e["name"] == "process_name")
            .map(|e| e["pid"].as_u64().unwrap())
            .collect();
        // Where each target's phases and steps are drawn: its node's process.
        let target_pid: BTreeMap<&str, u64> = ev
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| (e["args"]["target"].as_str().unwrap(), e["pid"].as_u64().unwrap()))
            .collect();
        let mut open: BTreeMap<(u64, String, String), i64> = BTreeMap::new();
        for e in ev.iter().filter(|e| e["ph"] == "b" || e["ph"] == "e") {
            // Perfetto files an async event with a bare `id` (or `id2.global`)
            // under "Global Legacy Events", away from its node.
            assert!(e.get("id").is_none(), "{run}: a global id: {e}");
            assert!(e["id2"].get("global").is_none(), "{run}: a global id2: {e}");
            let local = match &e["id2"]["local"] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => panic!("{run}: an async event without id2.local: {e}"),
            };
            let pid = e["pid"].as_u64().unwrap();
            let key = (pid, e["cat"].as_str().unwrap_or_default().to_owned(), local);
            *open.entry(key).or_default() += if e["ph"] == "b" { 1 } else { -1 };
            if e["ph"] == "b" {
                uploads += 1;
                let target = e["args"]["target"].as_str().expect("the upload names its target");
                // In the process of the target's own tracks: its node's.
                assert_eq!(Some(&pid), target_pid.get(target), "{run}: {e}");
                assert!(declared.contains(&pid), "{run}: an unnamed process: {e}");
            }
        }
        assert!(open.values().all(|n| *n == 0), "{run}: unpaired: {open:?}");
    }
    assert!(uploads >= 13, "the cold sample's 13 uploads are checked, saw {uploads}");
}

#[test]
fn trace_counter_tracks_name_their_unit_once() {
    for (run, d) in traces() {
        for e in events(&d).iter().filter(|e| e["ph"] == "C") {
            for arg in e["args"].as_object().unwrap().keys() {
                // Perfetto's importer names the track "<name> <arg>".
                let track = format!("{} {arg}", e["name"].as_str().unwrap());
                let units = ["%", "percent", "ratio"]
                    .iter()
                    .map(|u| track.matches(u).count())
                    .sum::<usize>();
                assert_eq!(units, 1, "{run}: counter track {track:?}");
            }
        }
    }
}

/// Every zero-length complete slice that an importer would draw inside
/// another slice of its track: one that starts at the same microsecond
/// (importers put the longer first) or contains its start.
fn falsely_nested(ev: &[Value]) -> Vec<String> {
    // Per (pid, tid): each complete slice's ts, dur and name.
    type Slices<'a> = Vec<(i64, i64, &'a str)>;
    let mut tracks: BTreeMap<(u64, u64), Slices> = BTreeMap::new();
    for e in ev.iter().filter(|e| e["ph"] == "X") {
        tracks
            .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
            .or_default()
            .push((
                e["ts"].as_i64().unwrap(),
                e["dur"].as_i64().unwrap(),
                e["name"].as_str().unwrap(),
            ));
    }
    let mut found = vec![];
    for (track, slices) in &tracks {
        for (i, &(ts, _, name)) in slices.iter().enumerate().filter(|(_, s)| s.1 == 0) {
            for (j, &(ots, odur, oname)) in slices.iter().enumerate() {
                if i != j && (ots == ts || (ots < ts && ts < ots + odur)) {
                    found.push(format!("{track:?}: {name:?} at {ts} inside {oname:?} ({ots}+{odur})"));
                }
            }
        }
    }
    found
}

#[test]
fn trace_zero_length_cached_steps_do_not_nest_under_the_step_starting_with_them() {
    let mut zero_length = 0;
    for (run, d) in traces() {
        let ev = events(&d);
        zero_length += ev.iter().filter(|e| e["ph"] == "X" && e["dur"] == 0).count();
        let nested = falsely_nested(ev);
        assert!(nested.is_empty(), "{run}: {nested:#?}");
    }
    // The buildx fixture's `[build 1/3] FROM` is cached, with no length, and
    // starts at the microsecond of `[build 2/3] COPY`.
    assert!(zero_length > 0, "a zero-length cached step is among the checked");
}

#[test]
fn trace_declares_no_process_or_track_without_events() {
    let traces = traces();
    // Processes first: the real-format run's empty `caches` is the bug pinned.
    for kind in ["process", "track"] {
        for (run, d) in &traces {
            let ev = events(d);
            for m in ev.iter().filter(|e| e["ph"] == "M") {
                let (is_track, what) = match m["name"].as_str().unwrap() {
                    "process_name" | "process_sort_index" => (false, "process"),
                    "thread_name" => (true, "track"),
                    other => panic!("{run}: unexpected metadata {other}"),
                };
                if what != kind {
                    continue;
                }
                let drawn = ev
                    .iter()
                    .any(|e| e["ph"] != "M" && e["pid"] == m["pid"] && (!is_track || e["tid"] == m["tid"]));
                assert!(drawn, "{run}: a {what} with no events: {m}");
            }
        }
    }
}

/// `node check-trace.mjs` on the trace, as the importer's JSON summary; None
/// (skipped, outside CI only) when node or the importer is not installed.
fn devtools_import(trace: &Path) -> Option<Value> {
    let dir = root().join("tests/tools/importer");
    let installed = dir.join("node_modules/@paulirish/trace_engine").is_dir();
    let node_runs = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !(installed && node_runs) {
        super::skipped("no node, or no `npm ci --prefix tests/tools/importer` (.ci/run runs it)");
        return None;
    }
    let o = Command::new("node")
        .arg(dir.join("check-trace.mjs"))
        .arg(trace)
        .output()
        .unwrap();
    assert!(o.status.success(), "importer: {}", String::from_utf8_lossy(&o.stderr));
    Some(serde_json::from_slice(&o.stdout).unwrap())
}

#[test]
fn trace_loads_through_a_real_importer_with_every_slice_on_its_own_level() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (run, d)) in traces().into_iter().enumerate() {
        let path = dir.path().join(format!("trace-{i}.json"));
        std::fs::write(&path, serde_json::to_vec(&d).unwrap()).unwrap();
        let Some(imported) = devtools_import(&path) else {
            return;
        };
        let complete = events(&d).iter().filter(|e| e["ph"] == "X").count();
        assert_eq!(imported["slices"], complete, "{run}: the importer took every slice");
        // Phases follow each other and a target's step tracks hold slices that
        // neither overlap nor share a start: no slice belongs inside another.
        assert_eq!(imported["nested"], serde_json::json!([]), "{run}");
    }
}

/// The metrics textfile of a run.
fn metrics(run: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = perfreport(&[
        "metrics",
        run.to_str().unwrap(),
        "--textfile-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(dir.path().join("rocm_perf.prom")).unwrap()
}

/// Sample lines as (name, labels, value).
fn samples(text: &str) -> Vec<(String, BTreeMap<String, String>, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            let (name, labels) = series.split_once('{').unwrap_or((series, "}"));
            let labels = labels
                .trim_end_matches('}')
                .split("\",")
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once("=\"").unwrap();
                    (k.to_owned(), v.trim_end_matches('"').to_owned())
                })
                .collect();
            (name.to_owned(), labels, value.parse().unwrap())
        })
        .collect()
}

/// promtool's verdict with its lint, or None (skipped outside CI) without it.
fn promtool_check(text: &str) -> Option<(bool, String)> {
    let promtool = Path::new("/usr/bin/promtool");
    if !promtool.exists() {
        super::skipped("no /usr/bin/promtool (.ci/run installs Debian's prometheus)");
        return None;
    }
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Some((out.status.success(), said))
}

#[test]
fn metrics_leave_out_a_label_whose_value_is_unknown_rather_than_write_it_empty() {
    let fixtures = fixture_run();
    for run in [fixtures.path().to_path_buf(), sample(COLD), sample(WARM)] {
        let text = metrics(&run);
        let all = samples(&text);
        assert!(!all.is_empty(), "{}", run.display());
        for (name, labels, _) in &all {
            for (k, v) in labels {
                assert!(!v.is_empty(), "{}: {name} has {k}=\"\"", run.display());
            }
        }
        if let Some((ok, said)) = promtool_check(&text) {
            assert!(ok && said.trim().is_empty(), "{}: promtool: {said}", run.display());
        }
    }
    // The fixture run has no placement, mode or arch: its target has only its name.
    let text = metrics(fixtures.path());
    assert!(
        text.contains("rocm_perf_target_total_seconds{target=\"bake\"} 89.626"),
        "{text}"
    );
    assert!(text.contains("rocm_perf_run_in_flight{stamp=\""), "{text}");
}

#[test]
fn metrics_are_named_in_base_units_with_percentages_as_ratios() {
    let text = metrics(&sample(COLD));
    let all = samples(&text);
    // Counts without a unit; everything else ends in its base unit.
    let unitless = [
        "rocm_perf_target_steps",
        "rocm_perf_target_steps_cached",
        "rocm_perf_run_in_flight",
        "rocm_perf_sccache_hits",
        "rocm_perf_sccache_misses",
        "rocm_perf_inputs_broken",
    ];
    for (name, _, _) in &all {
        assert!(
            ["_seconds", "_bytes", "_ratio"].iter().any(|u| name.ends_with(u)) || unitless.contains(&name.as_str()),
            "{name}: no base unit suffix"
        );
        assert!(!name.contains("percent") && !name.ends_with("_total"), "{name}");
    }
    assert!(
        text.contains("# TYPE rocm_perf_node_cpu_busy_mean_ratio gauge"),
        "{text}"
    );
    // The ratios are the report's percentages over 100, for every node.
    let out = tempfile::tempdir().unwrap();
    assert!(report(&sample(COLD), out.path(), &["-q"]).status.success());
    let d = data(out.path());
    for (metric, field) in [
        ("rocm_perf_node_cpu_busy_mean_ratio", "cpu_pct_mean"),
        ("rocm_perf_node_memory_used_max_ratio", "mem_pct_max"),
    ] {
        let got: Vec<_> = all.iter().filter(|(n, _, _)| n == metric).collect();
        assert_eq!(
            got.len(),
            d["nodes"].as_array().unwrap().len(),
            "{metric} for every node"
        );
        for (_, labels, value) in got {
            assert!((0.0..=1.0).contains(value), "{metric} {labels:?} {value}");
            let pct = node(&d, &labels["node"])[field].as_f64().unwrap();
            assert!(
                (value * 100.0 - pct).abs() < 1e-9,
                "{metric} {labels:?}: {value} vs {pct}%"
            );
        }
    }
}
