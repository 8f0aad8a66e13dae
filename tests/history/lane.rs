//! A lane's month, night by night: a quiet key with noise, a revision change
//! that grows one pytorch step (its command names the revision), a night's
//! layer-cache miss, a night whose node was loaded, the change reverted, and
//! a second arch whose lane gates the same root at 14:00. The quiet nights
//! pass; the change is red once, on the night it is called, and open after;
//! the miss is said as one; accepting the change makes a `--fail-on-open`
//! lane green; the revert closes it; the other lane is never red for it.

use crate::util::{jaeger, perfreport};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// 2026-11-01T02:00:00Z.
const FIRST_S: i64 = 1_793_498_400;
/// From this night pytorch builds revision NEW, whose wheel step takes 80 s more.
const REV_NIGHT: u32 = 14;
/// This night pytorch's dependencies missed the layer cache (300 s instead of a load).
const MISS_NIGHT: u32 = 19;
/// This night strix (pytorch's node) ended the run loaded, and pytorch ran 30% slower.
const LOADED_NIGHT: u32 = 22;
/// From this night the revision is reverted: the wheel is back at its old level.
const REVERT_NIGHT: u32 = 26;
const NIGHTS: u32 = 30;
const OLD: &str = "3f9c2e1a7b44";
const NEW: &str = "8d01b6c5e2f9";

fn stamp(night: u32, hour: i64) -> String {
    let t = perfreport::timefmt::format_rfc3339((FIRST_S + night as i64 * 86_400 + (hour - 2) * 3600) * 1_000_000);
    t.replace(['-', ':'], "")
}

/// A night's run: gfx1201 at 02:00, or gfx950 at 14:00 (`arch`).
fn write_run(root: &Path, night: u32, arch: &str) -> PathBuf {
    let hour = if arch == "gfx950" { 14 } else { 2 };
    let stamp = stamp(night, hour);
    let dir = root.join(&stamp);
    std::fs::create_dir_all(&dir).unwrap();
    let t0 = FIRST_S + night as i64 * 86_400 + (hour - 2) * 3600;
    let iso = |s: i64| perfreport::timefmt::format_rfc3339(s * 1_000_000);
    let new = (REV_NIGHT..REVERT_NIGHT).contains(&night) && arch == "gfx1201";
    let rev = if new { NEW } else { OLD };
    let run = serde_json::json!({
        "stamp": stamp, "mode": "warm", "arch": arch, "max_jobs": 32, "revision": rev,
        "targets": ["pytorch", "vllm"], "started_at": iso(t0), "finished_at": iso(t0 + 1800),
        "nodes": [{"name": "strix", "addr": "10.0.3.12", "cores": 32}, {"name": "kiln", "addr": "10.0.3.20", "cores": 32}]});
    std::fs::write(dir.join("run.json"), run.to_string()).unwrap();
    std::fs::write(
        dir.join("placement.txt"),
        "placement target=pytorch node=strix\nplacement target=vllm node=kiln\n",
    )
    .unwrap();
    // ±1% of noise, a different pattern per target.
    let noise = |k: u32| [0.0, 0.008, -0.006, 0.004, -0.01, 0.002, -0.003][(night + k) as usize % 7];
    let loaded = night == LOADED_NIGHT && arch == "gfx1201";
    let slow = if loaded { 1.3 } else { 1.0 };
    let wheel = (if new { 500.0 } else { 420.0 }) * (1.0 + noise(0)) * slow;
    let miss = night == MISS_NIGHT && arch == "gfx1201";
    let deps_end = if miss { 330.0 } else { 30.2 };
    let deps = "[builder 2/3] RUN pip install -r requirements.txt";
    let deps_name = if miss {
        deps.to_string()
    } else {
        format!("load cache: {deps}")
    };
    let wheel_name = format!("[builder 3/3] RUN git checkout {rev} && python setup.py bdist_wheel");
    let us = t0 * 1_000_000;
    let vertex = format!("sha256:wheel-{rev}");
    std::fs::write(
        dir.join("trace-pytorch.json"),
        jaeger(
            us,
            &[
                ("r1", "0000000000000000", "pytorch", 10.0, deps_end + wheel + 60.0, &[]),
                (
                    "s1",
                    "r1",
                    "load cache: [builder 1/3] FROM rocm/dev",
                    30.0,
                    30.1,
                    &[("vertex", "sha256:from")],
                ),
                ("s2", "r1", &deps_name, 30.1, deps_end, &[("vertex", "sha256:deps")]),
                (
                    "s3",
                    "r1",
                    &wheel_name,
                    deps_end,
                    deps_end + wheel,
                    &[("vertex", &vertex)],
                ),
            ],
        ),
    )
    .unwrap();
    let vllm = 600.0 * (1.0 + noise(3));
    std::fs::write(
        dir.join("trace-vllm.json"),
        jaeger(
            us,
            &[
                ("r2", "0000000000000000", "vllm", 10.0, 40.0 + vllm, &[]),
                (
                    "v1",
                    "r2",
                    "[builder 1/1] RUN pip wheel",
                    25.0,
                    25.0 + vllm,
                    &[("vertex", "sha256:vllm")],
                ),
            ],
        ),
    )
    .unwrap();
    let sample = |node: &str, ts: i64, load: f64| {
        format!(
            r#"{{"ts": {ts}, "node": "{node}", "cpu": {{"user": 100.0, "idle": 10.0}}, "mem": {{"total": 100, "available": 50}}, "load1": {load}}}"#
        )
    };
    let strix_end = if loaded { 41.0 } else { 3.0 };
    let samples = [
        sample("strix", t0, 2.0),
        sample("kiln", t0, 2.0),
        sample("strix", t0 + 1800, strix_end),
        sample("kiln", t0 + 1800, 3.0),
    ];
    std::fs::write(dir.join("samples.jsonl"), samples.join("\n") + "\n").unwrap();
    dir
}

/// The root as it stands after `night`'s gfx1201 run (and, with `afternoon`,
/// that night's gfx950 run too): every earlier night of both arches.
fn root_until(night: u32, afternoon: bool) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for n in 0..=night {
        write_run(root.path(), n, "gfx1201");
        if n < night || afternoon {
            write_run(root.path(), n, "gfx950");
        }
    }
    root
}

fn gate(root: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["gate", "--history", root.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let o: Output = perfreport(&all);
    let j = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), j)
}

/// The night's gfx1201 check of pytorch's `metric`.
fn check<'a>(night: &'a Value, metric: &str) -> &'a Value {
    night["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["arch"] == "gfx1201")
        .and_then(|r| {
            r["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["target"] == "pytorch" && c["metric"] == metric)
        })
        .unwrap_or_else(|| panic!("no pytorch {metric}: {night}"))
}

/// The gfx1201 key of a history.json.
fn gfx1201_key(file: &Path) -> Value {
    let h: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    h["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["arch"] == "gfx1201")
        .cloned()
        .unwrap_or_else(|| panic!("no gfx1201 key: {h}"))
}

/// The regression's id in perf-accepted.toml.
fn regression_id() -> String {
    format!("gfx1201.warm.j32/pytorch/build_s/{}", stamp(REV_NIGHT, 2))
}

#[test]
fn a_lanes_month_quiet_nights_pass_a_change_is_red_once_then_open_until_accepted_or_reverted() {
    let root = tempfile::tempdir().unwrap();
    let mut exits = vec![];
    for night in 0..NIGHTS {
        // 02:00: the gfx1201 lane gates its own keys.
        write_run(root.path(), night, "gfx1201");
        let (code, j) = gate(root.path(), &["--arch", "gfx1201", "--allow-empty"]);
        exits.push((night, code));
        match night {
            n if n == REV_NIGHT + 1 => {
                let c = check(&j, "build_s");
                assert_eq!(c["verdict"], "REGRESSION", "{c}");
                let cause = &c["regression"]["cause"];
                assert_eq!(c["regression"]["id"], regression_id());
                assert_eq!(c["regression"]["last_before"], stamp(REV_NIGHT - 1, 2));
                assert_eq!(
                    (cause["revision_before"].as_str(), cause["revision_after"].as_str()),
                    (Some(OLD), Some(NEW))
                );
                let kinds: Vec<&str> = cause["kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap())
                    .collect();
                assert!(
                    kinds.contains(&"command changed") && kinds.contains(&"revision change"),
                    "{kinds:?}"
                );
                let step = &cause["steps"][0];
                assert!(
                    step["command_was"].as_str().unwrap().contains(OLD),
                    "one step whose command changed: {step}"
                );
                assert!(
                    cause["why"].as_str().unwrap().contains("command changed, was"),
                    "{cause}"
                );
            }
            n if n == MISS_NIGHT => {
                let c = check(&j, "build_s");
                assert!(c["verdict"].as_str().unwrap().starts_with("watch: "), "{c}");
                assert_eq!(c["why"]["steps"][0]["layer_cache_miss"], true, "{c}");
                assert!(c["why"]["revision_before"].is_null(), "the pair shares a revision: {c}");
                let cached = check(&j, "steps_cached");
                assert!(cached["verdict"].as_str().unwrap().starts_with("watch: "), "{cached}");
                assert!(
                    cached["why"]["text"]
                        .as_str()
                        .unwrap()
                        .contains("1 step no longer cached"),
                    "{cached}"
                );
            }
            n if n == LOADED_NIGHT => {
                let c = check(&j, "build_s");
                assert!(c["verdict"].as_str().unwrap().starts_with("loaded: "), "{c}");
                assert!(c["verdict"].as_str().unwrap().contains("load 41.0 on 32 cores"), "{c}");
            }
            n if n > REV_NIGHT + 1 && n < REVERT_NIGHT && n != MISS_NIGHT && n != LOADED_NIGHT => {
                let c = check(&j, "build_s");
                assert!(
                    c["verdict"]
                        .as_str()
                        .unwrap()
                        .starts_with(&format!("open since {}", stamp(REV_NIGHT, 2))),
                    "night {n}: {c}"
                );
            }
            _ => {}
        }
        // 14:00: the gfx950 lane gates the same root; never red for gfx1201.
        write_run(root.path(), night, "gfx950");
        let (code, j) = gate(root.path(), &["--arch", "gfx950", "--allow-empty"]);
        assert_eq!(code, Some(0), "night {night}: {j}");
        // A lane gating every key at 14:00 sees the 02:00 call as open, not new.
        if night == REV_NIGHT + 1 {
            let (code, j) = gate(root.path(), &[]);
            assert_eq!(code, Some(0), "{j}");
            let c = check(&j, "build_s");
            assert!(
                c["verdict"].as_str().unwrap().contains("called by lane arch=gfx1201"),
                "{c}"
            );
        }
    }
    let red: Vec<u32> = exits.iter().filter(|(_, c)| *c != Some(0)).map(|(n, _)| *n).collect();
    assert_eq!(
        red,
        [REV_NIGHT + 1],
        "red once, the night the change is called (the revert is no regression): {exits:?}"
    );

    // The revert closes it: recovered in history, with the night it returned.
    let out = tempfile::tempdir().unwrap();
    let o = super::history(root.path(), out.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let key = gfx1201_key(&out.path().join("history.json"));
    let regression = key["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == regression_id())
        .unwrap_or_else(|| panic!("{}", key["regressions"]));
    assert_eq!(regression["state"], "recovered", "{regression}");
    assert_eq!(regression["on"], stamp(REVERT_NIGHT, 2));
    let build = &key["targets"]["pytorch"]["build_s"];
    let firsts: Vec<&str> = build["change_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["stamp"].as_str().unwrap())
        .collect();
    let (rev, revert) = (stamp(REV_NIGHT, 2), stamp(REVERT_NIGHT, 2));
    assert_eq!(
        firsts,
        [rev.as_str(), revert.as_str()],
        "every change once, the miss and the loaded night none"
    );
    // Nothing on the quiet series: vllm never moved.
    assert!(key["targets"]["vllm"]["build_s"]["change_points"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn fail_on_open_keeps_the_lane_red_until_the_regression_is_accepted_by_its_id() {
    let root = root_until(REV_NIGHT + 3, false);
    let (code, j) = gate(root.path(), &["--arch", "gfx1201"]);
    assert_eq!(code, Some(0), "open, not new: {j}");
    let (code, j) = gate(root.path(), &["--arch", "gfx1201", "--fail-on-open"]);
    assert_eq!(code, Some(1), "{j}");
    let open = &j["runs"][0]["open"];
    assert!(
        open.as_array().unwrap().iter().any(|r| r["id"] == regression_id()),
        "{open}"
    );
    let file = root.path().join("perf-accepted.toml");
    let mut accepted = String::new();
    for metric in ["build_s", "total_s"] {
        accepted.push_str(&format!(
            "[[accepted]]\nid = \"gfx1201.warm.j32/pytorch/{metric}/{}\"\nnote = \"the new revision's wheel builds longer; accepted\"\n",
            stamp(REV_NIGHT, 2)
        ));
    }
    std::fs::write(&file, accepted).unwrap();
    let (code, j) = gate(root.path(), &["--arch", "gfx1201", "--fail-on-open"]);
    assert_eq!(code, Some(0), "{j}");
    let c = check(&j, "build_s");
    assert!(c["verdict"].as_str().unwrap().starts_with("accepted since"), "{c}");
    // A file that is not an accepted file is an error naming it, never a green lane.
    std::fs::write(&file, "[[accepted]]\nid = 3\n").unwrap();
    let o = perfreport(&["gate", "--history", root.path().to_str().unwrap(), "--fail-on-open"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("perf-accepted.toml"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_run_page_leads_with_its_night_the_step_the_cause_and_both_revisions_in_its_first_screen() {
    let root = root_until(REV_NIGHT + 1, true);
    let site = tempfile::tempdir().unwrap();
    let o = crate::util::publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let night = stamp(REV_NIGHT + 1, 2);
    let page = site.path().join("runs").join(&night);
    let md = std::fs::read_to_string(page.join("report.md")).unwrap();
    let head: String = md.lines().take(12).collect::<Vec<_>>().join("\n");
    assert!(head.contains("## This night: regressed: pytorch build_s +"), "{head}");
    for said in [
        "command changed",
        OLD,
        NEW,
        "revision change",
        "[builder 3/3] RUN git checkout",
    ] {
        assert!(md.contains(said), "{said:?} on the page:\n{md}");
    }
    assert!(
        md.contains(&format!(
            "previous: [{}](../{}/index.html)",
            stamp(REV_NIGHT, 2),
            stamp(REV_NIGHT, 2)
        )),
        "{md}"
    );
    assert!(!md.contains("gfx950"), "never another arch's neighbour: {md}");
    // The index row says what the page says.
    let index = std::fs::read_to_string(site.path().join("index.html")).unwrap();
    let row = &index[index.find(&format!("data-run=\"{night}\"")).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    let words = md
        .lines()
        .find(|l| l.starts_with("## This night: "))
        .unwrap()
        .trim_start_matches("## This night: ");
    let plain = words.to_string();
    assert!(
        row.contains(&plain),
        "the same words on the index and the page:\n{row}\n{plain}"
    );
    // history.html's word on the key's newest run is the same verdict.
    let key = gfx1201_key(&site.path().join("history.json"));
    assert_eq!(
        key["newest_verdict_words"].as_str(),
        Some(plain.as_str()),
        "{}",
        key["newest_verdict_words"]
    );
    // And the lane's summary calls the same run regressed, for the same metrics.
    let summary = site.path().join("summary.md");
    let o = perfreport(&[
        "gate",
        "--history",
        root.path().to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let s = std::fs::read_to_string(&summary).unwrap();
    let line = s
        .lines()
        .find(|l| l.contains(&night) && l.contains("regressed"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains("`pytorch` `build_s`") && line.contains("`pytorch` `total_s`"),
        "{line}"
    );
    // The JUnit failure links the same page.
    let junit = site.path().join("gate.xml");
    let o = perfreport(&[
        "gate",
        "--history",
        root.path().to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--site-url",
        "https://perf.example/site",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let url = format!("https://perf.example/site/runs/{night}/");
    assert!(
        xml.contains(&format!("name=\"gfx1201.warm.j32.page\" value=\"{url}\"")),
        "{xml}"
    );
    assert!(
        xml.contains(&format!("the night&apos;s page: {url}")) || xml.contains(&format!("the night&#39;s page: {url}")),
        "{xml}"
    );
    // The night before gained its "next" link; the night before that did not change.
    let before = std::fs::read_to_string(site.path().join("runs").join(stamp(REV_NIGHT, 2)).join("report.md")).unwrap();
    assert!(
        before.contains(&format!("next: [{night}](../{night}/index.html)")),
        "{before}"
    );
    // In Chromium: the first 900 px of the interactive page name the verdict, the step, the cause and both revisions.
    let Some(path) = crate::page::chromium() else { return };
    let browser = crate::page::launch(path);
    let tab = browser.new_tab().unwrap();
    let url = format!("file://{}", page.join("index.html").display());
    tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
    let js = "(() => { const n = document.getElementById('night'); if (!n) return 'none'; \
              const r = n.getBoundingClientRect(); \
              const seen = [...n.querySelectorAll('h2, p, li')].filter(e => e.getBoundingClientRect().top < 900).map(e => e.textContent).join('\\n'); \
              return JSON.stringify({top: r.top, seen}); })()";
    let got = crate::page::eval(&tab, js);
    let got: Value = serde_json::from_str(got.as_str().unwrap()).unwrap_or_else(|_| panic!("{got:?}"));
    assert!(got["top"].as_f64().unwrap() < 900.0, "{got}");
    let seen = got["seen"].as_str().unwrap();
    for said in ["regressed: pytorch build_s", "command changed", OLD, NEW] {
        assert!(seen.contains(said), "{said:?} in the first 900 px:\n{seen}");
    }
}
