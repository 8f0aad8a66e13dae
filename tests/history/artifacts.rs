//! What the nightly lane leaves for CI, read as CI reads it: the JUnit file
//! validated against the Jenkins/Ant schema and read by three JUnit readers
//! (junitparser, xunitparser, junit2html), its case ids the same from night
//! to night; a night that could not be judged said so first in the summary
//! and as JUnit errors; a hostile name shown, never acting, in every one.

use super::{stamp, write_night, Night, CALLED_NIGHT, STEP_NIGHT};
use crate::util::perfreport;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gate(root: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["gate", "--history", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    perfreport(&args)
}

/// Rewrites a run's run.json field in place.
fn set(run: &Path, field: &str, value: Value) {
    let file = run.join("run.json");
    let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    r[field] = value;
    std::fs::write(&file, r.to_string()).unwrap();
}

/// `script`'s reading of a JUnit file (tests/tools/junit/), or `None` with a
/// notice where python3 lacks its reader outside CI (`.ci/run` installs them).
pub(super) fn read_with(script: &str, file: &Path) -> Option<Value> {
    let script = crate::util::root().join("tests/tools/junit").join(script);
    let o = Command::new("python3").arg(&script).arg(file).output();
    match o {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).unwrap()),
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("ModuleNotFoundError") => {
            crate::util::skipped(&format!(
                "{} lacks its reader: {} (.ci/run installs tests/tools/junit/requirements.txt)",
                script.display(),
                String::from_utf8_lossy(&o.stderr)
            ));
            None
        }
        Ok(o) => panic!(
            "{} could not read {}:\n{}\n{}",
            script.display(),
            file.display(),
            String::from_utf8_lossy(&o.stderr),
            std::fs::read_to_string(file).unwrap_or_default()
        ),
        Err(e) => {
            crate::util::skipped(&format!("no python3: {e}"));
            None
        }
    }
}

/// The file is valid against the Jenkins/Ant junit-10.xsd, as xmllint says.
fn assert_schema_valid(file: &Path) {
    let Some(bin) = crate::outside_tool(PathBuf::from("/usr/bin/xmllint"), "libxml2-utils") else {
        return;
    };
    let xsd = crate::util::root().join("tests/tools/junit/junit-10.xsd");
    let o = Command::new(bin)
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{} is not valid against junit-10.xsd:\n{}\n{}",
        file.display(),
        String::from_utf8_lossy(&o.stderr),
        std::fs::read_to_string(file).unwrap_or_default()
    );
}

/// Every case of a reading as (classname, name, result).
fn cases(junitparser: &Value) -> Vec<(String, String, String)> {
    junitparser
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap().iter())
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("classname"), s("name"), s("result"))
        })
        .collect()
}

/// Validates `file` and reads it with all three readers: each sees the same
/// cases, and xunitparser's totals check the root's counts.
fn read_by_three(file: &Path) -> Option<Value> {
    assert_schema_valid(file);
    let junitparser = read_with("read.py", file)?;
    let xunit = read_with("xunit.py", file)?;
    let html = read_with("junit2html.py", file)?;
    let ids = |v: Vec<(String, String, String)>| -> Vec<(String, String)> {
        let mut ids: Vec<_> = v.into_iter().map(|(c, n, _)| (c, n)).collect();
        ids.sort();
        ids
    };
    let from_junitparser = ids(cases(&junitparser));
    let from = |v: &Value| {
        ids(v
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (s("classname"), s("name"), String::new())
            })
            .collect())
    };
    assert_eq!(
        from(&xunit["cases"]),
        from_junitparser,
        "xunitparser reads the same cases"
    );
    assert_eq!(from(&html), from_junitparser, "junit2html reads the same cases");
    let count = |r: &str| cases(&junitparser).iter().filter(|c| c.2 == r).count() as u64;
    assert_eq!(xunit["failures"], count("failure"), "{xunit}");
    assert_eq!(xunit["errors"], count("error"), "{xunit}");
    Some(junitparser)
}

fn suite<'a>(junitparser: &'a Value, name: &str) -> &'a Value {
    junitparser
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no suite {name}: {junitparser}"))
}

#[test]
fn junit_validates_against_the_jenkins_schema_reads_in_three_readers_and_keeps_its_case_ids_across_nights() {
    let root = super::nightly_root(CALLED_NIGHT);
    let out = tempfile::tempdir().unwrap();
    let quiet = out.path().join("quiet.xml");
    assert_eq!(
        gate(root.path(), &["--junit", quiet.to_str().unwrap()]).status.code(),
        Some(0)
    );
    // The next night's regression is called, and another arch runs beside it: two suites
    // whose properties would share names if they were not the suite's own.
    write_night(root.path(), &Night::plain(CALLED_NIGHT));
    let mi350 = write_night(&root.path().join("mi350"), &Night::plain(CALLED_NIGHT));
    set(&mi350, "arch", Value::from("gfx950"));
    let regressed = out.path().join("regressed.xml");
    assert_eq!(
        gate(root.path(), &["--junit", regressed.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    let Some(a) = read_by_three(&quiet) else { return };
    let Some(b) = read_by_three(&regressed) else { return };
    let (a, b) = (suite(&a, "gfx1201.warm.j32"), suite(&b, "gfx1201.warm.j32"));
    assert_eq!(a["properties"]["gfx1201.warm.j32.stamp"], stamp(CALLED_NIGHT - 1));
    assert_eq!(b["properties"]["gfx1201.warm.j32.stamp"], stamp(CALLED_NIGHT));
    let ids = |s: &Value| -> Vec<(String, String)> {
        let mut v: Vec<_> = cases(&Value::from(vec![s.clone()]))
            .into_iter()
            .map(|(c, n, _)| (c, n))
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids(a), ids(b), "a CI view follows each case from night to night");
    let build = cases(&Value::from(vec![b.clone()]))
        .into_iter()
        .find(|c| c.0 == "gfx1201.warm.j32.pytorch" && c.1 == "build_s")
        .unwrap_or_else(|| panic!("the case names the key: {b}"));
    assert_eq!(build.2, "failure");
    // Plain text: the why's step is named without markdown's backticks or escapes.
    let xml = std::fs::read_to_string(&regressed).unwrap();
    assert!(xml.contains("why: against "), "{xml}");
    assert!(!xml.contains('`') && !xml.contains("\\_"), "{xml}");
    assert!(xml.contains("[builder 1/1] RUN make"), "{xml}");
}

#[test]
fn a_night_that_could_not_be_judged_says_so_first_in_the_summary_and_as_an_error_for_each_in_junit() {
    let root = super::nightly_root(STEP_NIGHT - 1);
    // Tonight's gfx1201 run lost pytorch's trace.
    let tonight = write_night(root.path(), &Night::plain(STEP_NIGHT - 1));
    std::fs::remove_file(tonight.join("trace-pytorch.json")).unwrap();
    // A gfx950 run whose run.json is broken, after it.
    let broken = root.path().join("mi350").join(stamp(STEP_NIGHT));
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("run.json"), "{\"stamp\": ").unwrap();
    // A gfx942 run whose clock is years ahead.
    let skewed = write_night(&root.path().join("skewed"), &Night::plain(STEP_NIGHT));
    set(&skewed, "arch", Value::from("gfx942"));
    set(&skewed, "started_at", Value::from("2099-01-01T00:00:00Z"));
    let (o, out) = gate_with_reports(root.path());
    let (junit, summary) = (out.path().join("gate.xml"), out.path().join("summary.md"));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{text}");
    let s = std::fs::read_to_string(&summary).unwrap();
    let first = s.lines().next().unwrap();
    assert!(
        first.starts_with("### perfreport gate: ⛔ the night could not be judged: "),
        "{s}"
    );
    let (night, broken_name) = (stamp(STEP_NIGHT - 1), stamp(STEP_NIGHT));
    for named in [
        format!("`{night}` `pytorch`: not measured in this run"),
        "trace-pytorch.json".to_string(),
        format!("`{broken_name}`"),
        "run.json".to_string(),
        "`skewed/".to_string(),
        "clock".to_string(),
    ] {
        assert!(first.contains(&named), "the first line names {named:?}: {first}");
    }
    assert!(!s.contains("✅"), "{s}");
    let Some(read) = read_by_three(&junit) else { return };
    let errors: Vec<(String, String, String)> = cases(&read).into_iter().filter(|c| c.2 == "error").collect();
    assert_eq!(errors.len(), 3, "an error for each: {read}");
    assert!(
        errors
            .iter()
            .any(|c| c.0 == "gfx1201.warm.j32.pytorch" && c.1 == "measured"),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|c| c.0.starts_with("perfreport.night") && c.1.starts_with("skewed/")),
        "{errors:?}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("could not be judged: "), "{xml}");
    assert!(
        xml.contains("more than an hour after this machine&apos;s clock"),
        "{xml}"
    );
}

/// The night gated with its JUnit file and job summary (`gate.xml` and
/// `summary.md` in the folder returned).
/// A target whose name holds " (" keeps its whole name in the JUnit case
/// of its lost trace: the case's target was the words before the first
/// " (" of "rocm (nightly) (no trace-… in this run)", so the case was
/// `….rocm`, another target's id.
#[test]
fn a_target_name_holding_a_parenthesis_is_kept_whole_in_the_junit_classname() {
    let root = tempfile::tempdir().unwrap();
    let target = "rocm (nightly)";
    let last = STEP_NIGHT - 1;
    for night in 0..=last {
        let dir = write_night(root.path(), &Night::plain(night));
        let trace = dir.join("trace-pytorch.json");
        if night == last {
            std::fs::remove_file(&trace).unwrap();
        } else {
            std::fs::rename(&trace, dir.join(format!("trace-{target}.json"))).unwrap();
        }
        set(&dir, "targets", serde_json::json!([target, "vllm"]));
    }
    let (o, out) = gate_with_reports(root.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stdout));
    let xml = std::fs::read_to_string(out.path().join("gate.xml")).unwrap();
    assert!(
        xml.contains(r#"<testcase classname="gfx1201.warm.j32.rocm (nightly)" name="measured">"#),
        "{xml}"
    );
    assert!(!xml.contains(r#"classname="gfx1201.warm.j32.rocm""#), "{xml}");
}

fn gate_with_reports(root: &Path) -> (Output, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let (junit, summary) = (out.path().join("gate.xml"), out.path().join("summary.md"));
    let o = gate(
        root,
        &[
            "--junit",
            junit.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
        ],
    );
    (o, out)
}

/// Where a name lands in the artifacts: U+FFFE (XML cannot carry it), U+202E
/// (reorders what follows), U+200F (reorders unseen).
const HOSTILE: &str = "\u{fffe}\u{202e}\u{200f}";

#[test]
fn a_name_with_a_noncharacter_and_bidi_controls_is_shown_escaped_in_junit_the_summary_and_the_terminal() {
    let root = hostile_root();
    let (o, out) = gate_with_reports(root.path());
    let (junit, summary) = (out.path().join("gate.xml"), out.path().join("summary.md"));
    let terminal = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{terminal}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let s = std::fs::read_to_string(&summary).unwrap();
    for (what, text) in [("JUnit", &xml), ("the summary", &s), ("the terminal", &terminal)] {
        for c in HOSTILE.chars() {
            assert!(!text.contains(c), "{what} carries {c:?} raw:\n{text}");
        }
        assert!(
            text.contains("py\\u{fffe}\\u{202e}\\u{200f}torch"),
            "{what} shows the target's characters:\n{text}"
        );
        assert!(
            text.contains("RUN make\\u{fffe}\\u{202e}\\u{200f}"),
            "{what} shows the step's characters:\n{text}"
        );
    }
    assert!(
        xml.contains("classname=\"gfx1201\\u{fffe}\\u{202e}\\u{200f}.warm.j32.py\\u{fffe}\\u{202e}\\u{200f}torch\""),
        "{xml}"
    );
    read_by_three(&junit);
}
/// A root whose target, arch and step carry U+FFFE, U+202E and U+200F, its
/// step called the night after it lands.
fn hostile_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let target = format!("py{HOSTILE}torch");
    let arch = format!("gfx1201{HOSTILE}");
    for night in 0..=CALLED_NIGHT {
        let dir = write_night(root.path(), &Night::plain(night));
        let trace = std::fs::read_to_string(dir.join("trace-pytorch.json")).unwrap();
        std::fs::remove_file(dir.join("trace-pytorch.json")).unwrap();
        let trace = trace.replace("RUN make", &format!("RUN make{HOSTILE}"));
        std::fs::write(dir.join(format!("trace-{target}.json")), trace).unwrap();
        set(&dir, "targets", serde_json::json!([target, "vllm"]));
        set(&dir, "arch", Value::from(arch.as_str()));
        let placement = std::fs::read_to_string(dir.join("placement.txt")).unwrap();
        std::fs::write(
            dir.join("placement.txt"),
            placement.replace("target=pytorch", &format!("target={target}")),
        )
        .unwrap();
    }
    root
}

#[test]
fn a_name_with_a_noncharacter_and_bidi_controls_is_shown_quoted_in_the_published_pages_and_charts() {
    let root = hostile_root();
    let site = tempfile::tempdir().unwrap();
    let o = crate::util::publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = site.path().join("runs").join(stamp(CALLED_NIGHT));
    let raw = |text: &str| HOSTILE.chars().find(|c| text.contains(*c));
    for file in ["report.md", "charts/timeline.svg", "charts/cpu-mem.svg"] {
        let text = std::fs::read_to_string(run.join(file)).unwrap();
        assert_eq!(raw(&text), None, "{file} carries a raw character");
    }
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains("u{202e}") && md.contains("torch"),
        "quoted, not dropped: {md}"
    );
    let Some(path) = crate::page::chromium() else { return };
    let browser = crate::page::launch(path);
    let tab = browser.new_tab().unwrap();
    for page in [
        run.join("index.html"),
        run.join("report.html"),
        site.path().join("history.html"),
    ] {
        let url = format!("file://{}", page.display());
        tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
        // What the page shows, its SVG labels and tooltips included.
        let js = "new Promise(r => setTimeout(() => r(document.body.innerText + '\\n' + \
                  [...document.querySelectorAll('svg text, title, [title]')].map(e => e.textContent + ' ' + (e.getAttribute('title') || '')).join('\\n')), 300))";
        let shown = tab
            .evaluate(js, true)
            .unwrap()
            .value
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        assert_eq!(raw(&shown), None, "{} shows a raw character:\n{shown}", page.display());
        assert!(
            shown.contains("py\\u{fffe}\\u{202e}\\u{200f}torch"),
            "{} names the target, quoted:\n{shown}",
            page.display()
        );
    }
}
