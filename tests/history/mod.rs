//! History across runs: generated roots of nightly runs where
//! pytorch's build steps up by 15% from one night on, a metric spread 30%,
//! a loaded node, and runs that must be left out with their reason.

mod artifacts;
mod lane;
mod night;
mod page;
mod why;

use super::{jaeger, perfreport, walk};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// 2026-10-01T02:00:00Z.
const FIRST_NIGHT_S: i64 = 1_790_820_000;
/// pytorch's build steps up from this night on.
pub(crate) const STEP_NIGHT: u32 = 12;
/// The night after it, when the gate calls the step (one night beyond a
/// level is watched: the next tells a change from an outlier).
pub(crate) const CALLED_NIGHT: u32 = STEP_NIGHT + 1;
/// This night strix ends the run at load 41 on 32 cores.
pub(crate) const LOADED_NIGHT: u32 = 14;
/// vllm's upload cycles through these shares of 200 s: a 29.7% spread.
const WIDE: [f64; 5] = [0.6, 1.0, 1.4, 0.8, 1.2];

/// What one generated night varies.
pub(crate) struct Night {
    pub(crate) night: u32,
    pub(crate) mode: Option<&'static str>,
    pub(crate) finished: bool,
}

impl Night {
    pub(crate) fn plain(night: u32) -> Night {
        Night {
            night,
            mode: Some("warm"),
            finished: true,
        }
    }
}

pub(crate) fn stamp(night: u32) -> String {
    let t = perfreport::timefmt::format_rfc3339((FIRST_NIGHT_S + night as i64 * 86_400) * 1_000_000);
    t.replace(['-', ':'], "")
}

/// pytorch's build: 1000 s within ±0.5% until STEP_NIGHT, 15% more after.
pub(crate) fn pytorch_build(night: u32) -> f64 {
    let jitter = [0.0, 0.004, -0.003, 0.002, -0.005, 0.001][night as usize % 6];
    let level = if night >= STEP_NIGHT { 1150.0 } else { 1000.0 };
    level * (1.0 + jitter)
}

/// Writes one night's run under `root`; returns its folder.
pub(crate) fn write_night(root: &Path, n: &Night) -> PathBuf {
    let stamp = stamp(n.night);
    let dir = root.join(&stamp);
    std::fs::create_dir_all(&dir).unwrap();
    let t0 = FIRST_NIGHT_S + n.night as i64 * 86_400;
    let iso = |s: i64| perfreport::timefmt::format_rfc3339(s * 1_000_000);
    let mut run = serde_json::json!({
        "stamp": stamp, "arch": "gfx1201", "max_jobs": 32, "targets": ["pytorch", "vllm"],
        "started_at": iso(t0), "finished_at": if n.finished { Value::from(iso(t0 + 1400)) } else { Value::Null },
        "nodes": [{"name": "strix", "addr": "10.0.3.12", "cores": 32}, {"name": "kiln", "addr": "10.0.3.20", "cores": 32}]});
    if let Some(mode) = n.mode {
        run["mode"] = Value::from(mode);
    }
    std::fs::write(dir.join("run.json"), run.to_string()).unwrap();
    std::fs::write(
        dir.join("placement.txt"),
        "placement target=pytorch node=strix\nplacement target=vllm node=kiln\n",
    )
    .unwrap();
    let us = t0 * 1_000_000;
    let build = pytorch_build(n.night);
    std::fs::write(
        dir.join("trace-pytorch.json"),
        jaeger(
            us,
            &[
                ("r1", "0000000000000000", "pytorch", 10.0, 90.0 + build, &[]),
                ("s1", "r1", "[builder 1/1] RUN make", 30.0, 30.0 + build, &[]),
            ],
        ),
    )
    .unwrap();
    let upload = 200.0 * WIDE[n.night as usize % WIDE.len()];
    std::fs::write(
        dir.join("trace-vllm.json"),
        jaeger(
            us,
            &[
                ("r2", "0000000000000000", "vllm", 10.0, 640.0 + upload, &[]),
                ("s2", "r2", "[builder 1/1] RUN pip wheel", 25.0, 625.0, &[]),
                ("u2", "r2", "HTTP PUT", 630.0, 630.0 + upload, &[("http.method", "PUT")]),
            ],
        ),
    )
    .unwrap();
    let end_load = if n.night == LOADED_NIGHT { 41.0 } else { 3.0 };
    let sample = |node: &str, ts: i64, idle: f64, load: f64| {
        format!(
            r#"{{"ts": {ts}, "node": "{node}", "cpu": {{"user": 100.0, "idle": {idle}}}, "mem": {{"total": 100, "available": 50}}, "load1": {load}}}"#
        )
    };
    let samples = [
        sample("strix", t0, 10.0, 2.0),
        sample("kiln", t0, 10.0, 2.0),
        sample("strix", t0 + 1400, 20.0, end_load),
        sample("kiln", t0 + 1400, 20.0, 5.0),
    ];
    std::fs::write(dir.join("samples.jsonl"), samples.join("\n") + "\n").unwrap();
    dir
}

/// A root of `nights` complete nightly runs.
pub(crate) fn nightly_root(nights: u32) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for night in 0..nights {
        write_night(root.path(), &Night::plain(night));
    }
    root
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn history(root: &Path, out: &Path) -> Output {
    perfreport(&["history", root.to_str().unwrap(), "--out", out.to_str().unwrap()])
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn warm_key(h: &Value) -> &Value {
    h["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["mode"] == "warm" && k["arch"] == "gfx1201" && k["max_jobs"] == 32)
        .expect("the warm key")
}

#[test]
fn history_shows_pytorchs_build_step_and_the_night_it_started() {
    let root = nightly_root(20);
    let out = tempfile::tempdir().unwrap();
    let stdout = ok(&history(root.path(), out.path()));
    let night = stamp(STEP_NIGHT);
    assert!(
        stdout.contains(&format!("pytorch build_s: step +15.0% from {night}")),
        "{stdout}"
    );
    let h = read_json(&out.path().join("history.json"));
    assert_eq!(h["schema"], 1);
    let key = warm_key(&h);
    assert_eq!(key["runs"].as_array().unwrap().len(), 20);
    assert_eq!(key["runs"][0], stamp(0), "oldest first");
    let build = &key["targets"]["pytorch"]["build_s"];
    assert_eq!(build["n"], 20);
    assert_eq!(build["step"]["stamp"], night.as_str());
    assert_eq!(build["step"]["change_pct"], 15.0);
    assert!(
        (build["newest"].as_f64().unwrap() - pytorch_build(19)).abs() < 0.01,
        "{build}"
    );
    assert!(build["spread_pct"].as_f64().unwrap() > 0.0);
    let points = build["points"].as_array().unwrap();
    assert_eq!(points.len(), 20);
    assert_eq!(points[STEP_NIGHT as usize]["stamp"], night.as_str());
    for p in points {
        let loaded = p["stamp"] == stamp(LOADED_NIGHT).as_str();
        assert_eq!(p["loaded"], loaded, "{p}");
        assert!(p["value"].is_number());
    }
    assert!(key["loaded"][stamp(LOADED_NIGHT)]["pytorch"]
        .as_str()
        .unwrap()
        .contains("strix ended the run at load 41.0 on 32 cores"));
    // No step where there is none.
    assert!(key["targets"]["vllm"]["build_s"]["step"].is_null());
    // The report and the chart say the same.
    let md = std::fs::read_to_string(out.path().join("history.md")).unwrap();
    assert!(md.contains(&format!("+15.0% from {night}")), "{md}");
    assert!(md.contains("⚠ 1"), "the loaded point is counted: {md}");
    let chart = key["chart"].as_str().unwrap();
    assert!(md.contains(&format!("]({chart})")));
    let svg = std::fs::read_to_string(out.path().join(chart)).unwrap();
    // The chart names the day the step starts, as its x axis names the runs' days.
    let day =
        perfreport::timefmt::format_rfc3339((FIRST_NIGHT_S + STEP_NIGHT as i64 * 86_400) * 1_000_000)[..10].to_string();
    assert!(
        svg.contains(&format!("build +15.0% from {day}")),
        "the panel names the step's day"
    );
    let first = perfreport::timefmt::format_rfc3339(FIRST_NIGHT_S * 1_000_000)[..10].to_string();
    assert!(
        svg.contains(&format!(">\n{first}\n</text>")),
        "the x axis names the first run's day"
    );
    assert!(!svg.contains(">\nrun\n</text>"), "not run numbers");
    assert!(svg.contains("pytorch") && svg.contains("vllm"), "a panel per target");
}

/// The gate's verdict on pytorch's build of `night`, and its exit code.
fn gate_build(root: &Path, night: u32) -> (Option<i32>, Value) {
    let run = root.join(stamp(night));
    let o = perfreport(&[
        "gate",
        run.to_str().unwrap(),
        "--history",
        root.to_str().unwrap(),
        "--json",
    ]);
    let r: Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    let check = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"] == "pytorch" && c["metric"] == "build_s")
        .cloned()
        .unwrap_or(Value::Null);
    (o.status.code(), check)
}

#[test]
fn gate_history_is_red_the_night_the_step_is_called_and_open_after_not_new() {
    let root = nightly_root(20);
    for night in 11..STEP_NIGHT {
        let (code, check) = gate_build(root.path(), night);
        assert_eq!(check["verdict"], "ok", "night {night}: {check}");
        assert_eq!(code, Some(0), "night {night}");
    }
    // Too few nights for a level and its noise: said (a count such as
    // steps_cached needs no noise, and is gated from its fourth night).
    let (code, check) = gate_build(root.path(), 5);
    assert_eq!(code, Some(0));
    assert!(
        check["verdict"]
            .as_str()
            .unwrap()
            .starts_with("not gateable: 5 comparable runs"),
        "{check}"
    );
    // The first night has nothing before it: it says so, gates nothing, and
    // exits 3, so a lane cannot read "checked nothing" as green.
    let first = root.path().join(stamp(0));
    let o = perfreport(&[
        "gate",
        first.to_str().unwrap(),
        "--history",
        root.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("0 checks of 0 ran") && text.contains("no comparable run"),
        "{text}"
    );
    // A history root that is not there is an error, not a pass.
    let o = perfreport(&["gate", first.to_str().unwrap(), "--history", "/nonexistent/root"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    // The step's own night is one night beyond its level: watched, not red
    // (a one-night outlier is no change of level).
    let (code, check) = gate_build(root.path(), STEP_NIGHT);
    assert_eq!(code, Some(0), "{check}");
    assert!(check["verdict"].as_str().unwrap().starts_with("watch: "), "{check}");
    // The next night calls it: red, against the level of the nights before.
    let (code, check) = gate_build(root.path(), STEP_NIGHT + 1);
    assert_eq!(code, Some(1), "{check}");
    assert_eq!(check["verdict"], "REGRESSION", "{check}");
    assert!((check["expected"].as_f64().unwrap() - 1000.5).abs() < 1.0, "{check}");
    let from = check["band_from"].as_str().unwrap();
    assert!(
        from.starts_with(&format!("a change of level from {}", stamp(STEP_NIGHT))),
        "{from}"
    );
    assert_eq!(
        check["regression"]["id"],
        format!("gfx1201.warm.j32/pytorch/build_s/{}", stamp(STEP_NIGHT))
    );
    assert_eq!(check["regression"]["last_before"], stamp(STEP_NIGHT - 1));
    // The nights after: open since the step, not new; the lane is green.
    let (code, check) = gate_build(root.path(), LOADED_NIGHT + 2);
    assert_eq!(code, Some(0), "{check}");
    assert_eq!(
        check["verdict"],
        format!("open since {} (night 5 at its new level)", stamp(STEP_NIGHT)),
        "{check}"
    );
    let run = root.path().join(stamp(LOADED_NIGHT + 2));
    let o = perfreport(&[
        "gate",
        run.to_str().unwrap(),
        "--history",
        root.path().to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("open since"), "{text}");
}

#[test]
fn a_metric_with_a_30_percent_spread_is_reported_not_gateable() {
    let root = nightly_root(16);
    let run = root.path().join(stamp(15));
    let o = perfreport(&[
        "gate",
        run.to_str().unwrap(),
        "--history",
        root.path().to_str().unwrap(),
        "--json",
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let upload = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"] == "vllm" && c["metric"] == "upload_s")
        .unwrap();
    // 15 earlier nights, three cycles of 120, 200, 280, 160, 240 s: median 200, MAD 40.
    // (The step of pytorch at night 12 is another series: vllm's stays one stretch.)
    assert_eq!(
        upload["verdict"].as_str().unwrap(),
        "not gateable: spread 29.7% over 15 runs (over 25%: too wide to resolve a change)"
    );
    assert!(upload["band_pct"].is_null());
    let out = tempfile::tempdir().unwrap();
    let stdout = ok(&history(root.path(), out.path()));
    assert!(
        stdout.contains("vllm upload_s: not gateable: spread 29.7% over 16 runs"),
        "{stdout}"
    );
}

/// A target whose name (its trace file's) holds a newline and a fake gate row.
const FORGED: &str = "evil\n  pytorch          build_s           9999.0     1000.0  +899.9%   \u{b1}1.0%  REGRESSION";

#[test]
fn gate_text_shows_a_target_names_newline_escaped_so_it_cannot_forge_a_row() {
    let root = nightly_root(7);
    for night in 0..7 {
        let dir = root.path().join(stamp(night));
        let run_json = dir.join("run.json");
        let mut run: Value = read_json(&run_json);
        run["targets"].as_array_mut().unwrap().push(Value::from(FORGED));
        std::fs::write(&run_json, run.to_string()).unwrap();
        let us = (FIRST_NIGHT_S + night as i64 * 86_400) * 1_000_000;
        let spans: &[super::HandSpan] = &[("r9", "0000000000000000", FORGED, 10.0, 500.0, &[])];
        std::fs::write(dir.join(format!("trace-{FORGED}.json")), jaeger(us, spans)).unwrap();
    }
    let run = root.path().join(stamp(6));
    let o = perfreport(&[
        "gate",
        run.to_str().unwrap(),
        "--history",
        root.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("evil\\n  pytorch"),
        "the name is shown, escaped: {stdout}"
    );
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("pytorch ") && l.contains("build_s"))
        .collect();
    assert_eq!(rows.len(), 1, "one pytorch build_s row, none forged: {stdout}");
    assert!(!rows[0].contains("9999.0"), "{stdout}");
}

#[test]
fn gate_update_with_history_records_bands_with_their_n_and_runs() {
    let root = nightly_root(8);
    let dir = tempfile::tempdir().unwrap();
    let expect = dir.path().join("expectations.json");
    let (exp, r) = (expect.to_str().unwrap(), root.path().to_str().unwrap());
    let run = root.path().join(stamp(7));
    let run = run.to_str().unwrap();
    ok(&perfreport(&["gate", run, "--expect", exp, "--update"]));
    let o = perfreport(&["gate", run, "--expect", exp]);
    let text = ok(&o);
    assert!(
        text.contains("(assumed: no history)"),
        "constant bands are said to be an assumption: {text}"
    );
    ok(&perfreport(&["gate", run, "--expect", exp, "--update", "--history", r]));
    let e = read_json(&expect);
    let band = &e["history_bands"]["pytorch"]["build_s"];
    assert_eq!(band["n"], 8, "{band}");
    let runs: Vec<String> = (0..8).map(stamp).collect();
    assert_eq!(band["runs"], serde_json::json!(runs));
    assert!(band["band_pct"].as_f64().unwrap() > 0.0);
    // A later gate on the file alone uses the recorded band, and says so.
    let text = ok(&perfreport(&["gate", run, "--expect", exp]));
    assert!(text.contains("3× spread") && text.contains("over 8 runs"), "{text}");
    assert!(!text.contains("assumed: no history"), "{text}");
}

#[test]
fn history_lists_runs_left_out_with_the_reason_and_never_pools_an_unknown_key() {
    let root = nightly_root(6);
    write_night(
        root.path(),
        &Night {
            night: 6,
            mode: Some("warm"),
            finished: false,
        },
    );
    let legacy = write_night(
        root.path(),
        &Night {
            night: 7,
            mode: None,
            finished: true,
        },
    );
    let broken = root.path().join("20261009T020000Z-broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("run.json"), "{not json").unwrap();
    std::os::unix::fs::symlink(root.path(), root.path().join("loop")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let stdout = ok(&history(root.path(), out.path()));
    let h = read_json(&out.path().join("history.json"));
    let left: Vec<(String, String)> = h["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["run"].as_str().unwrap().to_string(),
                l["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let reason = |run: &str| {
        left.iter()
            .find(|(r, _)| r == run)
            .map(|(_, why)| why.clone())
            .unwrap_or_else(|| panic!("{run} is not listed: {left:?}"))
    };
    assert!(reason(&stamp(6)).starts_with("in flight"));
    assert!(reason("20261009T020000Z-broken").starts_with("broken: no input could be read"));
    assert!(reason("loop").starts_with("symlink loop"));
    assert!(
        stdout.contains(&format!("left out: {}: in flight", stamp(6))),
        "{stdout}"
    );
    // The run without mode is a key of its own: one run, no trend, no chart.
    let keys = h["keys"].as_array().unwrap();
    assert_eq!(
        warm_key(&h)["runs"].as_array().unwrap().len(),
        6,
        "neither in flight nor unknown pooled"
    );
    let unknown = keys.iter().find(|k| k["unknown"] == true).unwrap();
    assert_eq!(unknown["runs"], serde_json::json!([stamp(7)]));
    assert!(unknown["label"].as_str().unwrap().contains("run.json gives no mode"));
    assert!(unknown["note"].as_str().unwrap().contains("One run only"));
    assert!(unknown["chart"].is_null());
    assert_eq!(unknown["mode"], Value::Null);
    assert!(unknown["why_null"]["mode"]
        .as_str()
        .unwrap()
        .contains("run.json gives no mode"));
    assert!(legacy.exists());
    let md = std::fs::read_to_string(out.path().join("history.md")).unwrap();
    assert!(md.contains("## Left out") && md.contains("symlink loop"), "{md}");
}

#[test]
fn history_json_prints_exactly_the_history_json_it_writes() {
    let root = nightly_root(4);
    let out = tempfile::tempdir().unwrap();
    let printed = perfreport(&[
        "history",
        root.path().to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--json",
    ]);
    ok(&printed);
    let written = std::fs::read(out.path().join("history.json")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout),
        String::from_utf8_lossy(&written),
        "a script reading standard output gets the file's bytes, one newline at the end"
    );
}

#[test]
fn a_second_history_reads_no_run_again_and_a_changed_run_only_it() {
    let root = nightly_root(6);
    let out = tempfile::tempdir().unwrap();
    assert!(ok(&history(root.path(), out.path())).contains("6 runs read, 0 from the cache"));
    let first = std::fs::read(out.path().join("history.json")).unwrap();
    assert!(ok(&history(root.path(), out.path())).contains("0 runs read, 6 from the cache"));
    assert_eq!(
        std::fs::read(out.path().join("history.json")).unwrap(),
        first,
        "the same bytes"
    );
    write_night(root.path(), &Night::plain(6));
    assert!(ok(&history(root.path(), out.path())).contains("1 run read, 6 from the cache"));
}

fn publish(root: &Path, site: &Path) -> String {
    let o = perfreport(&["publish", root.to_str().unwrap(), "--site", site.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn publish_writes_history_linked_from_the_index_and_every_run_page_and_a_new_run_rewrites_no_old_page() {
    let root = nightly_root(STEP_NIGHT + 1);
    let site = tempfile::tempdir().unwrap();
    publish(root.path(), site.path());
    let h = read_json(&site.path().join("history.json"));
    let key = warm_key(&h);
    assert_eq!(key["run_dirs"][0], stamp(0), "each run's folder, for its link");
    assert_eq!(
        key["targets"]["pytorch"]["build_s"]["step"],
        Value::Null,
        "one night after the step is no step yet"
    );
    let index = std::fs::read_to_string(site.path().join("index.html")).unwrap();
    assert!(index.contains("href=\"history.html\""));
    // The step night's critical target against its level; one night beyond
    // it is watched (the next night tells a change from an outlier), not green.
    let row = &index[index.find(&format!("data-run=\"{}\"", stamp(STEP_NIGHT))).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("pytorch total +14% vs its level"), "{row}");
    assert!(row.contains("watch: pytorch total_s +13.8%"), "{row}");
    for page in walk(&site.path().join("runs")) {
        let name = page.file_name().unwrap().to_string_lossy();
        if name == "index.html" || name == "report.html" {
            let html = std::fs::read_to_string(&page).unwrap();
            assert!(html.contains("href=\"../../history.html\""), "{}", page.display());
        }
    }
    let html = std::fs::read_to_string(site.path().join("history.html")).unwrap();
    assert!(
        html.contains("class=\"panels\" data-key="),
        "a slot for the key's panels"
    );
    // A new night rewrites history and the index, and of an old night's
    // pages only those of the night just before it (its "next" link).
    let before = super::mtimes(site.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    write_night(root.path(), &Night::plain(STEP_NIGHT + 1));
    assert!(publish(root.path(), site.path()).contains("(1 rebuilt"));
    let after = super::mtimes(site.path());
    let previous = format!("runs/{}/", stamp(STEP_NIGHT));
    for (path, t) in &before {
        let name = path.strip_prefix(site.path()).unwrap().to_string_lossy().into_owned();
        let site_wide = ["index.html", "runs.js", "manifest.json", "history.html", "history.json"];
        let leads = ["index.html", "report.md", "report.html"].map(|f| format!("{previous}{f}"));
        if !site_wide.contains(&name.as_str()) && !leads.contains(&name) {
            assert_eq!(after.get(path), Some(t), "{name} was rewritten");
        }
    }
    let page = std::fs::read_to_string(site.path().join(&previous).join("report.md")).unwrap();
    assert!(page.contains(&format!("next: [{}]", stamp(STEP_NIGHT + 1))), "{page}");
    assert_eq!(page.matches("## This night:").count(), 1, "its night said once: {page}");
    assert_ne!(
        after[&site.path().join("history.html")],
        before[&site.path().join("history.html")]
    );
    let h = read_json(&site.path().join("history.json"));
    assert_eq!(warm_key(&h)["runs"].as_array().unwrap().len(), STEP_NIGHT as usize + 2);
}

/// The site's history page grows by a few bytes a run (one number per run,
/// target and metric), never by markup per point, and the site's second
/// publish reads no run again.
#[test]
fn history_page_grows_by_its_numbers_only_and_a_republish_reads_no_run() {
    let size = |nights: u32| -> u64 {
        let root = nightly_root(nights);
        let site = tempfile::tempdir().unwrap();
        publish(root.path(), site.path());
        assert!(publish(root.path(), site.path()).contains("(0 rebuilt"));
        std::fs::metadata(site.path().join("history.html")).unwrap().len()
    };
    // Both sides past pytorch's change of level, whose words are said once.
    let (small, large) = (size(30), size(50));
    let per_run = (large - small) / 20;
    // Two targets: 5 metrics and the slowest step's line, numbers of up to 7
    // bytes, a load flag each; the stamp, folder and day (~60 bytes).
    assert!(
        per_run <= 2 * (6 * 8 + 1) + 62,
        "{per_run} bytes per run ({small} -> {large})"
    );
}
