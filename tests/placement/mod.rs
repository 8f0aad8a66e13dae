//! The balancer's costs, measured. `perfreport placement` on runs
//! made by hand, where every figure is worked out below; the costs file read
//! back by a parser of the balancer's format written from its description;
//! every figure with its source and n; bad input named.

use super::{data, jaeger, perfreport, report, sample, HandSpan, COLD};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

const T0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z

/// A warm run on three nodes: fast1 and fast2 declared at 100 MB/s, slow
/// declared (and priced by the balancer) at 25 MB/s. The balancer ranked on
/// build time alone: pytorch (2000 s of steps) on fast1, small (300 s) on
/// fast2, and triton-wheel (`triton_build_s` of steps, then a 6.4 GB export)
/// on slow, where the export took 1600 s: the link really carries 4 MB/s.
fn slow_link_run(stamp: &str, started: &str, triton_build_s: f64) -> tempfile::TempDir {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    let end = 5.0 + triton_build_s + 1605.0;
    std::fs::write(
        p.join("run.json"),
        format!(
            r#"{{"stamp": "{stamp}", "mode": "warm", "arch": "gfx1201",
            "targets": ["pytorch", "small", "triton-wheel"],
            "started_at": "2026-10-{started}:00:00Z", "finished_at": "2026-10-{started}:45:00Z",
            "nodes": [{{"name": "fast1", "addr": "10.0.0.1", "link_mbps": 100.0}},
                      {{"name": "fast2", "addr": "10.0.0.2", "link_mbps": 100.0}},
                      {{"name": "slow", "addr": "10.0.0.3", "link_mbps": 25.0}}]}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("placement.txt"),
        "placement target=pytorch node=fast1 build_s=2000 cache_bytes=0 link_mbps=100 est_s=2000\n\
         placement target=small node=fast2 build_s=300 cache_bytes=0 link_mbps=100 est_s=300\n\
         placement target=triton-wheel node=slow build_s=900 cache_bytes=6400000000 link_mbps=25 est_s=1156\n",
    )
    .unwrap();
    let t0 = T0 + started_offset_us(started);
    let pytorch: &[HandSpan] = &[
        ("r1", "0000000000000000", "build", 0.0, 2010.0, &[]),
        ("s1", "r1", "[builder 1/1] RUN make", 5.0, 2005.0, &[]),
    ];
    let small: &[HandSpan] = &[
        ("r2", "0000000000000000", "build", 0.0, 310.0, &[]),
        ("s2", "r2", "[builder 1/1] RUN make", 5.0, 305.0, &[]),
    ];
    let upload = 5.0 + triton_build_s;
    let triton: &[HandSpan] = &[
        ("r3", "0000000000000000", "build", 0.0, end, &[]),
        ("s3", "r3", "[builder 1/1] RUN make", 5.0, upload, &[]),
        (
            "u3",
            "r3",
            "HTTP PUT",
            upload,
            upload + 1600.0,
            &[("http.method", "PUT"), ("http.request_content_length", "6400000000")],
        ),
    ];
    for (name, spans) in [("pytorch", pytorch), ("small", small), ("triton-wheel", triton)] {
        std::fs::write(p.join(format!("trace-{name}.json")), jaeger(t0, spans)).unwrap();
    }
    run
}

/// `started` is `DDTHH` on October 2026; its offset from 20T02.
fn started_offset_us(started: &str) -> i64 {
    let day: i64 = started[..2].parse().unwrap();
    let hour: i64 = started[3..5].parse().unwrap();
    ((day - 20) * 24 + hour - 2) * 3600 * 1_000_000
}

fn placement(run: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["placement", run.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = perfreport(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn placement_json(run: &Path) -> Value {
    let o = placement(run, &["--json"]);
    serde_json::from_slice(&o.stdout).expect("placement --json is JSON")
}

fn named<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|x| x[key] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

#[test]
fn placement_names_the_move_off_the_slow_link_and_the_seconds_it_saves() {
    let run = slow_link_run("slow", "20T02", 900.0);
    let p = placement_json(run.path());
    // slow's link: 6.4 GB over the 1600 s of triton-wheel's upload = 4.0 MB/s,
    // 0.16× the 25 MB/s declared: named.
    let slow = named(&p["nodes"], "name", "slow");
    assert_eq!(slow["link_mbps_measured"], 4.0);
    assert_eq!(slow["link_n"], 1);
    assert_eq!(slow["far"], true);
    assert!(
        slow["says"][0].as_str().unwrap().contains("0.16× declared 25.0 MB/s"),
        "{slow}"
    );
    // As placed: triton-wheel 900 + 6.4e9 / 4e6 = 2500 s on slow, the longest.
    // Packed: pytorch first stays on fast1 (2000 s everywhere); triton-wheel
    // ends soonest on fast2 (900 + 6.4e9 / 100e6 = 964 s, against 2964 on
    // fast1 and 2500 on slow); small then on slow (300 s).
    let r = &p["replay"];
    assert_eq!(r["placed_wall_s"], 2500.0);
    assert_eq!(r["packed_wall_s"], 2000.0);
    assert_eq!(r["saved_s"], 500.0);
    assert_eq!(r["actual_wall_s"], 2700.0);
    let m = &r["moves"][0];
    assert_eq!(
        (m["target"].as_str(), m["from"].as_str(), m["to"].as_str()),
        (Some("triton-wheel"), Some("slow"), Some("fast2"))
    );
    // It saves 2500 − 964 = 1536 s of its own time.
    assert_eq!(m["saves_s"], 1536.0);
    // The command's text names the move, what it saves and that it is an estimate.
    let text = String::from_utf8(placement(run.path(), &[]).stdout).unwrap();
    assert!(text.contains("| triton-wheel | slow | fast2 | 25m36s |"), "{text}");
    assert!(text.contains("An estimate, not a measurement"), "{text}");
    assert!(text.contains("It ignores contention"), "{text}");
    // The report says it too: its summary, its section, and data.json holds
    // the very placement.json the command prints.
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d = data(out.path());
    assert_eq!(d["placement"], p);
    let summary = d["summary"].as_array().unwrap();
    let line = summary
        .iter()
        .filter_map(Value::as_str)
        .find(|s| s.starts_with("Placement:"))
        .expect("a summary line");
    assert!(
        line.contains("moving triton-wheel from slow to fast2 saves it 25m36s"),
        "{line}"
    );
    assert!(line.contains("at slow's measured 4.0 MB/s"), "{line}");
    assert!(line.contains("the run would have ended about 8m20s sooner"), "{line}");
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("## Placement: what the measured costs say"), "{md}");
    assert!(md.contains("| triton-wheel | slow | fast2 | 25m36s |"), "{md}");
}

/// The balancer's `target-costs` form, parsed as its description says and
/// nothing more: one cost a line, `build <target> <seconds>` or `cache
/// <target> <bytes>`. Anything else is an error naming the line.
fn parse_target_costs(text: &str) -> Result<BTreeMap<(String, String), f64>, String> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [kind, target, value] = words[..] else {
            return Err(format!("line {}: not three words: {line:?}", i + 1));
        };
        let value: f64 = match kind {
            "build" => value
                .parse()
                .map_err(|e| format!("line {}: seconds {value:?}: {e}", i + 1))?,
            "cache" => value
                .parse::<u64>()
                .map_err(|e| format!("line {}: bytes {value:?}: {e}", i + 1))? as f64,
            other => return Err(format!("line {}: unknown cost {other:?}", i + 1)),
        };
        if !value.is_finite() || value < 0.0 {
            return Err(format!("line {}: {value} is no cost", i + 1));
        }
        if out.insert((kind.to_string(), target.to_string()), value).is_some() {
            return Err(format!("line {}: {kind} {target} given twice", i + 1));
        }
    }
    Ok(out)
}

#[test]
fn costs_file_round_trips_through_a_parser_of_the_balancers_format() {
    let run = slow_link_run("costs", "20T02", 900.0);
    // A trace whose target name the form cannot carry.
    std::fs::copy(
        run.path().join("trace-small.json"),
        run.path().join("trace-two words.json"),
    )
    .unwrap();
    let files = tempfile::tempdir().unwrap();
    let costs = files.path().join("target-costs");
    let fleet = files.path().join("fleet.yaml");
    let o = placement(
        run.path(),
        &[
            "--costs-out",
            costs.to_str().unwrap(),
            "--fleet-out",
            fleet.to_str().unwrap(),
        ],
    );
    let text = std::fs::read_to_string(&costs).unwrap();
    let parsed = parse_target_costs(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let p = placement_json(run.path());
    // Every measured figure is in the file, as measured, and nothing else.
    let mut expected = BTreeMap::new();
    for t in p["targets"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        if name == "two words" {
            continue;
        }
        expected.insert(("build".to_string(), name.to_string()), t["build_s"].as_f64().unwrap());
        expected.insert(
            ("cache".to_string(), name.to_string()),
            t["cache_bytes"].as_f64().unwrap(),
        );
    }
    assert_eq!(parsed.len(), expected.len(), "{text}");
    for (key, want) in &expected {
        let got = parsed.get(key).unwrap_or_else(|| panic!("{key:?} in\n{text}"));
        assert!((got - want).abs() <= 0.05, "{key:?}: {got} written, {want} measured");
    }
    assert_eq!(parsed[&("cache".into(), "triton-wheel".into())], 6.4e9);
    // pytorch's trace has no upload span: it uploaded nothing, measured.
    assert_eq!(parsed[&("cache".into(), "pytorch".into())], 0.0);
    // The name that would split a line is left out, and said.
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("two words: the name cannot be written"), "{stderr}");
    // The fleet manifest: slow's measured link with its n; the fast nodes
    // uploaded nothing, so they are listed apart with why, not as a link.
    let f = std::fs::read_to_string(&fleet).unwrap();
    assert_eq!(fleet_links(&f), [("slow".to_string(), 4.0)], "{f}");
    assert!(f.contains("# n=1: "), "{f}");
    let fast1 = f
        .lines()
        .find(|l| l.starts_with("#   fast1: "))
        .unwrap_or_else(|| panic!("{f}"));
    assert!(fast1.contains("fast1"), "{f}");
}

#[test]
fn a_cold_runs_costs_file_leaves_its_export_bytes_out_and_says_why() {
    let files = tempfile::tempdir().unwrap();
    let costs = files.path().join("target-costs");
    let o = placement(&sample(COLD), &["--costs-out", costs.to_str().unwrap()]);
    let parsed = parse_target_costs(&std::fs::read_to_string(&costs).unwrap()).unwrap();
    assert_eq!(parsed.len(), 10, "a build line for each of the ten targets");
    assert!(parsed.keys().all(|(kind, _)| kind == "build"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("cache triton-wheel: measured in a cold run, whose export is not what the balancer prices"),
        "{stderr}"
    );
    // Medians over cold runs are cold figures too: still left out.
    let root = tempfile::tempdir().unwrap();
    let copy = root.path().join(COLD);
    std::fs::create_dir(&copy).unwrap();
    super::copy_run(&sample(COLD), &copy);
    let args = [
        "--history",
        root.path().to_str().unwrap(),
        "--costs-out",
        costs.to_str().unwrap(),
    ];
    placement(&sample(COLD), &args);
    let parsed = parse_target_costs(&std::fs::read_to_string(&costs).unwrap()).unwrap();
    assert!(parsed.keys().all(|(kind, _)| kind == "build"), "{parsed:?}");
    // placement.json still gives the figure, with the kind of run it came from.
    let p = placement_json(&sample(COLD));
    let t = named(&p["targets"], "name", "triton-wheel");
    assert_eq!(t["cache_bytes"], 6_600_000_000u64);
    assert_eq!(t["cache_bytes_run"], "cold");
}

/// Every figure of placement.json with its source and n, and every null
/// with its reason: each number of a target, a node or the replay (counts
/// such as `link_n` are the n themselves).
fn unsourced(p: &Value) -> Vec<String> {
    let mut out = vec![];
    let mut check = |what: String, o: &Value| {
        for (k, v) in o.as_object().unwrap() {
            // A reason slot that is null has nothing to explain.
            if k == "why" {
                continue;
            }
            let explained = o["why_null"][k].as_str().is_some_and(|w| !w.is_empty())
                || o["why"].as_str().is_some_and(|w| !w.is_empty());
            let sourced = o["sources"][k]["from"].as_str().is_some_and(|f| !f.is_empty())
                && o["sources"][k]["n"].as_u64() >= Some(1);
            match v {
                Value::Number(_) if k != "link_n" && !sourced => out.push(format!("{what}.{k}: no source")),
                Value::Null if !explained => out.push(format!("{what}.{k}: null without a reason")),
                _ => {}
            }
        }
    };
    for t in p["targets"].as_array().unwrap() {
        check(format!("target {}", t["name"]), t);
    }
    for n in p["nodes"].as_array().unwrap() {
        check(format!("node {}", n["name"]), n);
    }
    check("replay".into(), &p["replay"]);
    out
}

#[test]
fn every_placement_figure_carries_its_source_and_n() {
    let hand = slow_link_run("sources", "20T02", 900.0);
    for run in [hand.path(), &sample(COLD), &sample(super::WARM)] {
        let p = placement_json(run);
        assert!(p["targets"].as_array().unwrap().len() >= 3);
        assert_eq!(unsourced(&p), Vec::<String>::new(), "{}", run.display());
    }
    // The checker sees a figure without its source.
    let mut p = placement_json(hand.path());
    p["targets"][0]["sources"] = serde_json::json!({});
    assert!(!unsourced(&p).is_empty());
    // A measured link rests on its uploads: n is how many.
    let cold = placement_json(&sample(COLD));
    let think = named(&cold["nodes"], "name", "think");
    assert_eq!(think["sources"]["link_mbps_measured"]["n"], 2);
    assert!(think["sources"]["link_mbps_measured"]["from"]
        .as_str()
        .unwrap()
        .contains("triton-wheel, rocm-base"));
}

/// A run whose placement.txt and run.json are wrong in the ways the report
/// names: a line without costs (a), a node without a declared link (y), a
/// target without a trace (ghost), and b's `after=` as given.
fn bad_input_run(after_a: &str, after_b: &str) -> tempfile::TempDir {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    std::fs::write(
        p.join("run.json"),
        r#"{"stamp": "bad", "mode": "warm", "arch": "gfx1201", "targets": ["a", "b", "ghost"],
        "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:16:40Z",
        "nodes": [{"name": "x", "link_mbps": 50.0}, {"name": "y"}]}"#,
    )
    .unwrap();
    std::fs::write(
        p.join("placement.txt"),
        format!(
            "placement target=a node=x{after_a}\n\
             placement target=b node=y build_s=100 cache_bytes=0 est_s=100 after={after_b}\n\
             placement target=ghost node=x build_s=5 cache_bytes=0 link_mbps=50 est_s=5\n"
        ),
    )
    .unwrap();
    for (name, length) in [("a", 200.0), ("b", 100.0)] {
        let spans: &[HandSpan] = &[
            ("r", "0000000000000000", "build", 0.0, length + 10.0, &[]),
            ("s", "r", "[builder 1/1] RUN make", 5.0, length + 5.0, &[]),
        ];
        std::fs::write(p.join(format!("trace-{name}.json")), jaeger(T0, spans)).unwrap();
    }
    run
}

#[test]
fn placement_names_bad_input_and_replays_what_is_known() {
    let run = bad_input_run("", "nowhere");
    let p = placement_json(run.path());
    let problems: Vec<&str> = p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let said = |what: &str| problems.iter().any(|p| p.contains(what));
    assert!(
        said("the line for a has no build_s, cache_bytes, link_mbps, est_s"),
        "{problems:?}"
    );
    assert!(said("the line for b has no link_mbps"), "{problems:?}");
    assert!(said("node y: no link declared"), "{problems:?}");
    assert!(
        said("b waits for nowhere (`after=`), which is not a target of this run"),
        "{problems:?}"
    );
    // ghost has no trace: left out, with why; nothing invented for it.
    let r = &p["replay"];
    let ghost = named(&r["left_out"], "target", "ghost");
    assert!(ghost["why"].as_str().unwrap().contains("trace-ghost.json"), "{ghost}");
    let g = named(&p["targets"], "name", "ghost");
    assert!(g["build_s"].is_null() && g["why_null"]["build_s"].is_string(), "{g}");
    // The rest replays: a (200 s) and b (100 s) on x and y, none uploading.
    assert!(r["why"].is_null(), "{r}");
    assert_eq!(r["placed_wall_s"], 200.0);
    assert_eq!(r["packed_wall_s"], 200.0);
}

#[test]
fn an_after_cycle_is_named_and_the_replay_says_it_cannot_run() {
    let run = bad_input_run(" after=b", "a");
    let p = placement_json(run.path());
    let r = &p["replay"];
    let why = r["why"].as_str().expect("the replay says why not");
    assert!(why.contains("`after=` goes round (a → b → a)"), "{why}");
    assert!(r["packed_wall_s"].is_null() && r["moves"].as_array().unwrap().is_empty());
    // Each null figure of the replay carries that reason where every other null's is.
    for f in ["placed_wall_s", "packed_wall_s", "saved_s"] {
        assert_eq!(r["why_null"][f], r["why"], "{f}: {r}");
    }
    // The report is still written and says it.
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    assert!(o.status.success());
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("No replay: `after=` goes round (a → b → a)"), "{md}");
    assert!(p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x.as_str().unwrap().contains("a → b → a")));
}

#[test]
fn placement_history_takes_medians_over_runs_at_the_same_coordinates() {
    let root = tempfile::tempdir().unwrap();
    for (stamp, started, build) in [("r1", "20T02", 1300.0), ("r2", "21T02", 900.0), ("r3", "22T02", 1000.0)] {
        let run = slow_link_run(stamp, started, build);
        let dir = root.path().join(stamp);
        std::fs::create_dir(&dir).unwrap();
        super::copy_run(run.path(), &dir);
    }
    // A cold run of the same fleet: other coordinates, never pooled.
    let cold = root.path().join("r4-cold");
    std::fs::create_dir(&cold).unwrap();
    super::copy_run(slow_link_run("r4", "23T02", 5000.0).path(), &cold);
    let run_json = cold.join("run.json");
    let text = std::fs::read_to_string(&run_json)
        .unwrap()
        .replace("\"warm\"", "\"cold\"");
    std::fs::write(&run_json, text).unwrap();

    let files = tempfile::tempdir().unwrap();
    let costs = files.path().join("target-costs");
    let fleet = files.path().join("fleet.yaml");
    let r2 = root.path().join("r2");
    let args = [
        "--history",
        root.path().to_str().unwrap(),
        "--costs-out",
        costs.to_str().unwrap(),
        "--fleet-out",
        fleet.to_str().unwrap(),
        "--json",
    ];
    let p: Value = serde_json::from_slice(&placement(&r2, &args).stdout).unwrap();
    let h = &p["history"];
    assert_eq!(h["runs"], serde_json::json!(["r2", "r1", "r3"]));
    assert!(
        h["left_out"][0]
            .as_str()
            .unwrap()
            .contains("1 run at other coordinates"),
        "{h}"
    );
    // triton-wheel's build: 900, 1000, 1300 → median 1000 over 3; this run's own stays 900.
    let t = named(&p["targets"], "name", "triton-wheel");
    assert_eq!(t["build_s"], 900.0);
    assert_eq!(t["history"]["build_s"]["median"], 1000.0);
    assert_eq!(t["history"]["build_s"]["n"], 3);
    assert_eq!(t["history"]["cache_bytes"]["median"], 6.4e9);
    // The files carry the medians.
    let parsed = parse_target_costs(&std::fs::read_to_string(&costs).unwrap()).unwrap();
    assert_eq!(parsed[&("build".into(), "triton-wheel".into())], 1000.0);
    let f = std::fs::read_to_string(&fleet).unwrap();
    assert!(fleet_links(&f).contains(&("slow".to_string(), 4.0)), "{f}");
    assert!(f.contains("# n=3: median over 3 runs"), "{f}");
}

/// A run folder in the root that is a link to a run outside it is not
/// pooled, nor read: only the runs inside the root are.
#[test]
fn placement_history_reads_no_run_through_a_link_leading_out_of_the_root() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    for (stamp, started, build) in [("r1", "20T02", 1300.0), ("r2", "21T02", 900.0)] {
        let dir = root.path().join(stamp);
        std::fs::create_dir(&dir).unwrap();
        super::copy_run(slow_link_run(stamp, started, build).path(), &dir);
    }
    let outside = elsewhere.path().join("outside-5d2c");
    std::fs::create_dir(&outside).unwrap();
    super::copy_run(slow_link_run("outside-5d2c", "22T02", 5000.0).path(), &outside);
    std::os::unix::fs::symlink(&outside, root.path().join("r3")).unwrap();
    let args = ["--history", root.path().to_str().unwrap(), "--json"];
    let out = placement(&root.path().join("r2"), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let p: Value = serde_json::from_slice(&out.stdout).unwrap();
    let h = &p["history"];
    assert_eq!(h["runs"], serde_json::json!(["r2", "r1"]), "{h}");
    let t = named(&p["targets"], "name", "triton-wheel");
    assert_eq!(
        t["history"]["build_s"]["n"], 2,
        "the outside run's 5000 s is not pooled"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("outside-5d2c"));
}

#[test]
fn page_shows_the_placement_moves_and_the_far_link() {
    let Some(path) = super::page::chromium() else { return };
    let run = slow_link_run("page", "20T02", 900.0);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let browser = super::page::launch(path);
    let url = format!("file://{}", out.path().join("index.html").display());
    let (tab, _) = super::page::open(&browser, &url);
    let row = super::page::eval(&tab, "document.querySelector('#table-moves tbody tr').textContent");
    let row = row.as_str().unwrap();
    assert!(row.starts_with("triton-wheelslowfast225m36s"), "{row}");
    let links = super::page::eval(&tab, "document.querySelector('#table-links').textContent");
    assert!(links.as_str().unwrap().contains("⚠ far: measured 4.0 MB/s"), "{links}");
}

/// The fleet manifest's nodes as (name, `link_mbps`), read as the balancer
/// reads its manifest: `- name: "..."` then `link_mbps: <MB/s>`.
fn fleet_links(text: &str) -> Vec<(String, f64)> {
    let mut out = vec![];
    let mut name: Option<String> = None;
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or_default().trim();
        if let Some(n) = line.strip_prefix("- name: ") {
            name = Some(serde_json::from_str(n).expect("a quoted name"));
        } else if let Some(v) = line.strip_prefix("link_mbps: ") {
            out.push((name.take().expect("a name before its link"), v.parse().expect("MB/s")));
        }
    }
    out
}

/// `--fleet-out` writes YAML (`nodes:`, `- name:`, `link_mbps:`), and `--help` says so.
#[test]
fn placement_help_says_the_fleet_manifest_is_yaml() {
    let o = crate::util::perfreport(&["placement", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    let line = help
        .lines()
        .skip_while(|l| !l.contains("--fleet-out"))
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(line.contains("YAML") && !line.contains("JSON"), "{line}");
}

/// Prices of 1e308 s add up past the largest number: the replays on them
/// have no makespan, and their figures are null with that reason (not a
/// `null` JSON makes of infinity, with nothing said, beside a verdict of
/// "not off").
#[test]
fn prices_too_large_to_add_up_leave_the_packing_unjudged_with_the_reason() {
    let run = slow_link_run("huge", "20T02", 900.0);
    let text = std::fs::read_to_string(run.path().join("placement.txt")).unwrap();
    // Two of them on one node: their placement ends at 2e308 s, past f64::MAX.
    let huge = regex::Regex::new(r"build_s=[0-9.]+")
        .unwrap()
        .replace_all(&text, "build_s=1e308");
    let shared = huge.replace("node=fast2", "node=fast1");
    std::fs::write(run.path().join("placement.txt"), shared).unwrap();
    let p = placement_json(run.path());
    let v = &p["verdict"];
    for f in ["own_placed_wall_s", "own_packed_wall_s", "packing_off"] {
        assert!(v[f].is_null(), "{f}: {v}");
        let why = v["why_null"][f].as_str().unwrap_or_default();
        assert!(why.contains("past the largest number"), "{f}: {v}");
    }
    assert!(
        v["says"].as_str().unwrap().contains("its packing cannot be judged"),
        "{v}"
    );
}

/// A target placed twice is read from its last line, and the placement's
/// problems say so: the reader of the first line is not left to wonder.
#[test]
fn a_target_placed_twice_is_named_among_the_problems() {
    let run = slow_link_run("twice", "20T02", 900.0);
    let path = run.path().join("placement.txt");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("placement target=small node=fast1 build_s=310 cache_bytes=0 link_mbps=100 est_s=310\n");
    std::fs::write(&path, text).unwrap();
    let p = placement_json(run.path());
    let problems: Vec<&str> = p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert!(
        problems.contains(&"placement.txt: 2 lines for small: the last one is read"),
        "{problems:?}"
    );
    assert_eq!(named(&p["targets"], "name", "small")["est_s"], 310.0);
}

/// A run without run.json pools with no other: the history's coordinates
/// are null because there is no run.json, and say that, not that the file
/// lacks a key.
#[test]
fn placement_history_of_a_run_without_run_json_says_there_is_none() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("r1");
    std::fs::create_dir(&dir).unwrap();
    super::copy_run(slow_link_run("r1", "20T02", 900.0).path(), &dir);
    std::fs::remove_file(dir.join("run.json")).unwrap();
    let o = placement(&dir, &["--history", root.path().to_str().unwrap(), "--json"]);
    let p: Value = serde_json::from_slice(&o.stdout).unwrap();
    let h = &p["history"];
    for f in ["mode", "arch", "max_jobs"] {
        assert!(h[f].is_null(), "{f}: {h}");
        assert_eq!(h["why_null"][f], "no run.json in this run", "{f}: {h}");
    }
}

/// `est_s=NaN` is a key the line gives with no usable number: the figure is
/// null, and its reason quotes what the line says instead of claiming the
/// key is missing.
#[test]
fn a_cost_the_line_gives_as_no_number_is_null_with_what_the_line_says() {
    let run = slow_link_run("nan", "20T02", 900.0);
    let path = run.path().join("placement.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("est_s=300", "est_s=NaN");
    std::fs::write(&path, text).unwrap();
    let p = placement_json(run.path());
    let small = named(&p["targets"], "name", "small");
    assert!(small["est_s"].is_null(), "{small}");
    assert_eq!(
        small["why_null"]["est_s"],
        "placement.txt's line for small gives `est_s=NaN`, not a usable number"
    );
    let problems = p["problems"].to_string();
    assert!(problems.contains("has no usable est_s (`est_s=NaN`)"), "{problems}");
}
