//! The nightly lane end to end: `gate --history ROOT` gates the night (every
//! key's newest run), exits with a status a lane can trust, and writes what
//! CI reads (JUnit XML, read back by a real JUnit parser; a job summary).

use super::{stamp, write_night, Night, CALLED_NIGHT, STEP_NIGHT};
use crate::util::perfreport;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Rewrites a run's run.json field (arch, mode) in place.
fn set(run: &Path, field: &str, value: &str) {
    let file = run.join("run.json");
    let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    r[field] = Value::from(value);
    std::fs::write(&file, r.to_string()).unwrap();
}

/// A root as a lane leaves it on the night pytorch's regression is called:
/// warm gfx1201 nights 0..=CALLED_NIGHT (15% slower from STEP_NIGHT), a warm gfx950 run that
/// started a day later, last of all; a cold gfx1201 run that night with no
/// history; a warm gfx942 run from a week before, outside the night.
fn lane_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for night in 0..=CALLED_NIGHT {
        write_night(root.path(), &Night::plain(night));
    }
    let mi350 = write_night(&root.path().join("mi350"), &Night::plain(CALLED_NIGHT + 1));
    set(&mi350, "arch", "gfx950");
    let cold = write_night(
        &root.path().join("cold"),
        &Night {
            night: CALLED_NIGHT,
            mode: Some("cold"),
            finished: true,
        },
    );
    set(&cold, "mode", "cold");
    let old = write_night(&root.path().join("old"), &Night::plain(CALLED_NIGHT - 7));
    set(&old, "arch", "gfx942");
    root
}

fn gate(args: &[&str]) -> Output {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    perfreport(&all)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// junitparser's reading of a JUnit file: suites with their cases, or `None`
/// (with a notice) where python3 lacks it outside CI; `.ci/run` installs it.
fn junit_read_back(file: &Path) -> Option<Value> {
    let script = crate::util::root().join("tests/tools/junit/read.py");
    let o = std::process::Command::new("python3").arg(&script).arg(file).output();
    match o {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).unwrap()),
        other => {
            let why = match other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            crate::util::skipped(&format!(
                "junitparser could not read {}: {why} (.ci/run installs tests/tools/junit/requirements.txt)",
                file.display()
            ));
            None
        }
    }
}

#[test]
fn gating_the_night_finds_the_regressed_arch_though_another_arch_ran_last() {
    let root = lane_root();
    let r = root.path().to_str().unwrap();
    let o = gate(&["--history", r]);
    let text = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let night = stamp(CALLED_NIGHT);
    assert!(
        text.contains(&format!("{night} (warm · gfx1201 · max_jobs 32): regressed: pytorch")),
        "{text}"
    );
    assert!(
        text.contains("(warm · gfx950 · max_jobs 32): not gated: no comparable run"),
        "{text}"
    );
    assert!(
        text.contains("(cold · gfx1201 · max_jobs 32): not gated: no comparable run"),
        "{text}"
    );
    assert!(
        text.contains("1 other key whose newest run started earlier, not part of this night: warm · gfx942"),
        "last week's key is named, not gated: {text}"
    );
    assert!(text.contains("the lane's verdict: a regression (exit 1)"), "{text}");
    // The times read as durations, not bare seconds.
    assert!(
        text.contains("19m"),
        "pytorch's ~1150 s build shown as a duration: {text}"
    );

    // JSON says the same, with the status it exits with.
    let o = gate(&["--history", r, "--json"]);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["exit"], 1);
    let verdicts: Vec<&str> = j["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["regressed", "not_gated", "not_gated"]);

    // A window of an hour holds only the gfx950 run, which has no history: exit 3, or 0 when allowed.
    let o = gate(&["--history", r, "--window", "1h"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("verdict: 0 checks over 1 run"), "{}", stdout(&o));
    assert_eq!(
        gate(&["--history", r, "--window", "1h", "--allow-empty"]).status.code(),
        Some(0)
    );
    // Unusable arguments and roots are 2, never a verdict.
    assert_eq!(gate(&["--history", r, "--window", "soon"]).status.code(), Some(2));
    assert_eq!(gate(&["--history", "/nonexistent/root"]).status.code(), Some(2));
    let file = root.path().join(stamp(0)).join("run.json");
    let under_a_file = file.join("junit.xml");
    let o = gate(&["--history", r, "--junit", under_a_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "an unwritable report is an error");
}

#[test]
fn a_night_without_a_regression_passes_with_zero_and_the_exit_codes_are_in_help() {
    let root = tempfile::tempdir().unwrap();
    for night in 0..STEP_NIGHT {
        write_night(root.path(), &Night::plain(night));
    }
    let o = gate(&["--history", root.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("passed ("), "{}", stdout(&o));
    let help = stdout(&gate(&["--help"]));
    for status in [
        "0 at least one check ran",
        "1 a regression",
        "2 unusable",
        "3 nothing could be gated",
    ] {
        assert!(help.contains(status), "--help states exit status {status:?}: {help}");
    }
    // One run alone gates nothing: 3.
    let lone = tempfile::tempdir().unwrap();
    write_night(lone.path(), &Night::plain(0));
    assert_eq!(
        gate(&["--history", lone.path().to_str().unwrap()]).status.code(),
        Some(3)
    );
}

#[test]
fn junit_read_back_by_a_junit_parser_has_a_suite_per_gated_run_failures_and_skips() {
    let root = lane_root();
    let out = tempfile::tempdir().unwrap();
    let junit = out.path().join("gate.xml");
    let o = gate(&[
        "--history",
        root.path().to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let Some(suites) = junit_read_back(&junit) else { return };
    let suites = suites.as_array().unwrap();
    assert_eq!(suites.len(), 3, "a suite per gated run: {suites:?}");
    let regressed = &suites[0];
    // Named by its key, the night's stamp a property named after the suite.
    assert_eq!(regressed["name"], "gfx1201.warm.j32");
    let property = |s: &Value, name: &str| s["properties"][format!("{}.{name}", s["name"].as_str().unwrap())].clone();
    assert_eq!(property(regressed, "stamp"), stamp(CALLED_NIGHT));
    assert_eq!(property(regressed, "arch"), "gfx1201");
    assert_eq!(property(regressed, "mode"), "warm");
    assert_eq!(property(regressed, "job_width"), "32");
    let case = |class: &str, name: &str| -> Value {
        regressed["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["classname"] == class && c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no case {class}.{name}: {regressed}"))
    };
    let build = case("gfx1201.warm.j32.pytorch", "build_s");
    assert_eq!(build["result"], "failure");
    let msg = build["message"].as_str().unwrap();
    assert!(
        msg.starts_with("+1")
            && msg.contains("% beyond ±")
            && msg.contains(&format!("a change of level from {}", stamp(STEP_NIGHT))),
        "{msg}"
    );
    let wide = case("gfx1201.warm.j32.vllm", "upload_s");
    assert_eq!(wide["result"], "skipped");
    assert!(
        wide["message"].as_str().unwrap().starts_with("not gateable: spread"),
        "{wide}"
    );
    assert_eq!(case("gfx1201.warm.j32.vllm", "build_s")["result"], "passed");
    assert!(regressed["failures"].as_u64().unwrap() >= 1);
    assert_eq!(
        regressed["failures"].as_u64().unwrap() as usize,
        regressed["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["result"] == "failure")
            .count()
    );
    // A run that could not be gated is a suite whose one case is skipped with the reason.
    let mi350 = suites.iter().find(|s| s["name"] == "gfx950.warm.j32").unwrap();
    assert_eq!(property(mi350, "arch"), "gfx950");
    assert_eq!(mi350["cases"][0]["result"], "skipped");
    assert!(mi350["cases"][0]["message"]
        .as_str()
        .unwrap()
        .contains("no comparable run"));
}

#[test]
fn the_job_summary_is_appended_with_a_line_per_run_each_regression_and_links_to_the_site() {
    let root = lane_root();
    let out = tempfile::tempdir().unwrap();
    let summary: PathBuf = out.path().join("summary.md");
    std::fs::write(&summary, "## earlier step\n").unwrap();
    let o = gate(&[
        "--history",
        root.path().to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
        "--site-url",
        "https://perf.example/site/",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let s = std::fs::read_to_string(&summary).unwrap();
    assert!(
        s.starts_with("## earlier step\n### perfreport gate: "),
        "appended, not replaced: {s}"
    );
    // The runs not gated are not counted as gated ones.
    let heading = s.lines().nth(1).unwrap_or_default();
    assert!(heading.contains(" in 1 of 1 gated run (2 runs not gated)"), "{heading}");
    let night = stamp(CALLED_NIGHT);
    assert!(
        s.contains(&format!(
            "- ❌ **regressed** [{night}](https://perf.example/site/runs/{night}/) (warm · gfx1201"
        )),
        "{s}"
    );
    assert!(
        s.contains("(https://perf.example/site/runs/mi350--"),
        "a nested run's folder as publish names it: {s}"
    );
    assert!(s.contains("⚪ not gated"), "{s}");
    // Each regression with its band and n, in a table a summary view renders.
    let row = s
        .lines()
        .find(|l| l.starts_with(&format!("| `{night}` | `pytorch` | `build_s`")))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        row.contains("a change of level from") && row.contains("(n = 13)"),
        "{row}"
    );
    // The step behind it, named under the table.
    assert!(
        s.contains("Why it moved:") && s.contains("`[builder 1/1] RUN make`"),
        "{s}"
    );
    let verdict_lines = s
        .lines()
        .filter(|l| ["- ❌", "- ✅", "- ⚪"].iter().any(|m| l.starts_with(m)));
    assert_eq!(verdict_lines.count(), 3, "a line per gated run: {s}");
}

#[test]
fn gate_of_one_run_prints_json_without_expectations_using_the_folder_it_lives_in() {
    let root = lane_root();
    let run = root.path().join(stamp(CALLED_NIGHT));
    let o = gate(&[run.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["regressions"].as_u64().unwrap() >= 1);
    assert!(
        r["against"]
            .as_str()
            .unwrap()
            .contains("over the 13 comparable runs before it"),
        "{r}"
    );
}

#[test]
fn compares_band_rests_only_on_runs_before_b_and_says_how_many_for_targets_and_nodes() {
    let root = lane_root();
    let (a, b) = (root.path().join(stamp(3)), root.path().join(stamp(4)));
    let (a, b, r) = (a.to_str().unwrap(), b.to_str().unwrap(), root.path().to_str().unwrap());
    let o = perfreport(&["compare", a, b, "--history", r, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let change = |rows: &str, name: &str, metric: &str| -> Value {
        let row = c[rows]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["target"] == name)
            .unwrap();
        let changes = row["changes"].as_array().unwrap();
        changes.iter().find(|ch| ch["metric"] == metric).cloned().unwrap()
    };
    // Nights 0..3 started before B; the eight later nights (and the regressed one) do not count.
    let build = change("targets", "pytorch", "build_s");
    assert_eq!(build["band_runs"], 4, "{build}");
    assert!(
        build["band_from"].as_str().unwrap().contains("over 4 earlier runs"),
        "{build}"
    );
    let busy = change("nodes", "strix", "busy_s");
    assert_eq!(busy["band_runs"], 4, "a node row has a band from the same runs: {busy}");
    let text = stdout(&perfreport(&["compare", a, b, "--history", r]));
    let node_row = text
        .lines()
        .find(|l| l.starts_with("| strix | busy_s"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(node_row.contains("(4 earlier runs)"), "{node_row}");
}

/// Runs scripts/nightly.sh as a lane would, offline: the "harness" copies a
/// prepared night into the root. Returns its exit status.
fn nightly_lane(root: &Path, night_src: &Path, out: &Path, extra: &[(&str, &str)]) -> Option<i32> {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(crate::util::root().join("scripts/nightly.sh"))
        .env("PERF_ROOT", root)
        .env(
            "HARNESS",
            format!("cp -r '{}' '{}/'", night_src.display(), root.display()),
        )
        .env("PERFREPORT", env!("CARGO_BIN_EXE_perfreport"))
        .env("ARTIFACT_DIR", out.join("artifact"))
        .env("SITE", out.join("site"))
        .env("SUMMARY", out.join("summary.md"))
        .env_remove("ALLOW_EMPTY");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    o.status.code()
}

#[test]
fn the_nightly_script_reports_gates_and_publishes_and_exits_with_the_gates_status() {
    let root = tempfile::tempdir().unwrap();
    for night in 0..CALLED_NIGHT {
        write_night(root.path(), &Night::plain(night));
    }
    let tonight = tempfile::tempdir().unwrap();
    let src = write_night(tonight.path(), &Night::plain(CALLED_NIGHT));
    let out = tempfile::tempdir().unwrap();
    assert_eq!(
        // A site address with `&` reaches the gate whole, not as a shell's background job.
        nightly_lane(
            root.path(),
            &src,
            out.path(),
            &[("SITE_URL", "https://perf.example/?lane=rocm&night=1")]
        ),
        Some(1),
        "the regressed night fails the lane"
    );
    let artifact = out.path().join("artifact");
    let report = std::fs::read_to_string(artifact.join("report/report.md")).unwrap();
    assert!(
        report.contains(&stamp(CALLED_NIGHT)),
        "the artifact is tonight's report"
    );
    let junit = std::fs::read_to_string(artifact.join("gate.xml")).unwrap();
    assert!(junit.contains("<failure message=\"+1"), "{junit}");
    let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(summary.contains("❌ **regressed**"), "{summary}");
    assert!(
        summary.contains("](https://perf.example/?lane=rocm&night=1/runs/"),
        "{summary}"
    );
    let index = std::fs::read_to_string(out.path().join("site/index.html")).unwrap();
    assert!(
        index.contains("class=\"verdict regressed\""),
        "the site was published with the verdict"
    );

    // A lane's first night: nothing to gate is 3, or 0 with ALLOW_EMPTY=1.
    let first = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    assert_eq!(nightly_lane(first.path(), &src, out.path(), &[]), Some(3));
    let again = tempfile::tempdir().unwrap();
    assert_eq!(
        nightly_lane(again.path(), &src, out.path(), &[("ALLOW_EMPTY", "1")]),
        Some(0)
    );
}

#[test]
fn the_site_index_shows_each_runs_verdict_in_words_and_colour_in_chromium() {
    let Some(path) = crate::page::chromium() else { return };
    let root = lane_root();
    let site = tempfile::tempdir().unwrap();
    let o = crate::util::publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let browser = crate::page::launch(path);
    let tab = browser.new_tab().unwrap();
    let url = format!("file://{}", site.path().join("index.html").display());
    tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
    let js = "JSON.stringify([...document.querySelectorAll('#runs tbody tr')].map(tr => { \
              const v = tr.querySelector('td.verdict'); \
              return {run: tr.dataset.run, cls: v.className, text: v.textContent.trim(), colour: getComputedStyle(v).color, \
                      headline: tr.cells[tr.cells.length - 2].textContent.trim()}; }))";
    let rows: Value = serde_json::from_str(crate::page::eval(&tab, js).as_str().unwrap()).unwrap();
    let row = |run: &str| -> &Value {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["run"] == run)
            .unwrap_or_else(|| panic!("{run}: {rows}"))
    };
    let regressed = row(&stamp(CALLED_NIGHT));
    assert_eq!(regressed["cls"], "verdict regressed");
    assert!(
        regressed["text"]
            .as_str()
            .unwrap()
            .contains("regressed: pytorch build_s +"),
        "{regressed}"
    );
    assert!(
        regressed["headline"].as_str().unwrap().starts_with("pytorch total +"),
        "the regressed target's figure: {regressed}"
    );
    let passed = row(&stamp(STEP_NIGHT - 1));
    assert_eq!(passed["cls"], "verdict passed");
    assert!(passed["text"].as_str().unwrap().contains("passed ("), "{passed}");
    let mi350 = row(&format!("mi350--{}", stamp(CALLED_NIGHT + 1)));
    assert!(
        mi350["text"].as_str().unwrap().contains("not gated: no comparable run"),
        "{mi350}"
    );
    // Colour repeats the words: regressed, passed and not gated each read apart.
    let colours: std::collections::BTreeSet<&str> = [regressed, passed, mi350]
        .iter()
        .map(|r| r["colour"].as_str().unwrap())
        .collect();
    assert_eq!(colours.len(), 3, "{rows}");
    // The headline follows pytorch, the key's most expensive target, on every gfx1201 night.
    for night in 5..STEP_NIGHT {
        let h = row(&stamp(night))["headline"].as_str().unwrap().to_string();
        assert!(h.starts_with("pytorch"), "night {night}: {h}");
    }
}

#[test]
fn history_leads_with_the_key_that_regressed_and_folds_one_run_keys_into_a_line() {
    let root = lane_root();
    let out = tempfile::tempdir().unwrap();
    let o = super::history(root.path(), out.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.path().join("history.md")).unwrap();
    let moved = md
        .find("**What moved:** the newest run of 1 key regressed")
        .unwrap_or_else(|| panic!("{md}"));
    let first_key = md.find("\n## ").unwrap();
    assert!(moved < first_key, "what moved comes before any key's section");
    let listed = md[moved..first_key]
        .lines()
        .find(|l| l.starts_with("- warm · gfx1201 · max_jobs 32, "))
        .unwrap_or_else(|| panic!("the regressed key is listed: {md}"));
    assert!(
        listed.contains(", 2026") && listed.contains(": regressed"),
        "with its newest run and the verdict: {listed}"
    );
    assert!(
        md[first_key..].starts_with("\n## warm · gfx1201 · max_jobs 32"),
        "the regressed key leads: {md}"
    );
    assert!(
        md.contains("3 keys with one run each, no trend yet: cold · gfx1201"),
        "{md}"
    );
    assert!(
        !md.contains("## warm · gfx950"),
        "a one-run key has no section of its own: {md}"
    );
}
