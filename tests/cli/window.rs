//! A run's window is the run's: records far outside run.json's window (by
//! more than the clock-skew allowance) are not the run's. An input all of
//! whose records lie outside is not measured and broke its contract; some
//! outside are skipped and counted, with their time range.

use crate::util::*;
use std::path::Path;

/// The warm sample run (in flight), its logs moved to the day before its start.
fn day_before(dir: &Path) {
    copy_run(&sample(WARM), dir);
    for (file, from, to) in [
        ("zot.jsonl", "2026-10-21T", "2026-10-20T"),
        ("samples.jsonl", "2026-10-21T", "2026-10-20T"),
        ("sccache.log", "21/Oct/2026", "20/Oct/2026"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(from), "{file} holds {from}");
        std::fs::write(dir.join(file), text.replace(from, to)).unwrap();
    }
}

#[test]
fn a_run_in_flight_does_not_report_the_day_befores_records_as_its_own() {
    let run = tempfile::tempdir().unwrap();
    day_before(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    // No figure counts them: the registry and the compiler cache are not measured, with why.
    assert!(
        d["zot"]["requests"].is_null() && d["zot"]["blob_write_bytes"].is_null(),
        "{}",
        d["zot"]
    );
    let why = d["zot"]["why"].as_str().unwrap();
    assert!(
        why.contains("lie outside the run's window") && why.contains("2026-10-20T"),
        "{why}"
    );
    assert!(d["sccache"]["hits"].is_null());
    // The CPU chart says why it is empty.
    let empty = d["why_empty"]["cpu_mem"].as_str().unwrap();
    assert!(
        empty.contains("samples.jsonl: all") && empty.contains("outside the run's window"),
        "{empty}"
    );
    for n in d["nodes"].as_array().unwrap() {
        assert!(
            n["cpu_pct_mean"].is_null() && n["cpu"]["t"].as_array().unwrap().is_empty(),
            "{n}"
        );
    }
    for file in ["zot.jsonl", "samples.jsonl", "sccache.log"] {
        let i = &d["inputs"][file];
        // Recognised, another time's: the format did not change.
        assert_eq!(i["contract_broken"], false, "{file}");
        assert_eq!(i["records"], 0, "{file}");
        assert!(i["skipped"].as_u64().unwrap() > 0, "{file}");
    }
    // The summary says so instead of "Registry: 4.0 GB written".
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(!md.contains("GB written"), "{md}");
    // check calls them not this run's.
    let o = perfreport(&["check", run.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        text.contains("zot.jsonl") && text.contains("outside the run's window"),
        "{text}"
    );
    // The logs kept their contract: the site's row names none as broken, and
    // publish does not count the run broken.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(WARM);
    std::fs::create_dir(&dir).unwrap();
    copy_run(run.path(), &dir);
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("0 broken"), "{stderr}");
    let index = std::fs::read_to_string(site.path().join("index.html")).unwrap();
    assert!(!index.contains("broke their contract"), "{index}");
}

#[test]
fn samples_outside_the_window_are_skipped_and_counted_not_averaged() {
    let run = tempfile::tempdir().unwrap();
    copy_run(&sample(WARM), run.path());
    let clean = tempfile::tempdir().unwrap();
    assert!(report(run.path(), clean.path(), &[]).status.success());
    // Three polls of strix from the day before, idle: they would pull its CPU mean down.
    let text = std::fs::read_to_string(run.path().join("samples.jsonl")).unwrap();
    let strix: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(r#""node": "strix""#))
        .take(3)
        .collect();
    let old: Vec<String> = strix.iter().map(|l| l.replace("2026-10-21T", "2026-10-20T")).collect();
    std::fs::write(run.path().join("samples.jsonl"), old.join("\n") + "\n" + &text).unwrap();
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let (a, b) = (data(clean.path()), data(out.path()));
    assert_eq!(node(&a, "strix")["cpu_pct_mean"], node(&b, "strix")["cpu_pct_mean"]);
    assert_eq!(node(&a, "strix")["cpu"], node(&b, "strix")["cpu"]);
    let i = &b["inputs"]["samples.jsonl"];
    assert_eq!(
        i["skipped"].as_u64(),
        a["inputs"]["samples.jsonl"]["skipped"].as_u64().map(|s| s + 3)
    );
    assert_eq!(i["records"], a["inputs"]["samples.jsonl"]["records"]);
    assert_eq!(i["contract_broken"], false);
    let w = i["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .find(|w| w.contains("3 samples"));
    let w = w.unwrap_or_else(|| panic!("{i}"));
    assert!(w.contains("from 2026-10-20T02:00:") && w.contains("clock skew"), "{w}");
}

#[test]
fn a_stamp_a_day_away_from_started_at_is_noted() {
    let run = tempfile::tempdir().unwrap();
    copy_run(&sample(WARM), run.path());
    let json = std::fs::read_to_string(run.path().join("run.json")).unwrap();
    std::fs::write(
        run.path().join("run.json"),
        json.replace(r#""stamp": "20261021T020000Z""#, r#""stamp": "20261018T020000Z""#),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    let noted = d["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .any(|w| w.contains("the stamp names 2026-10-18, more than a day from `started_at` (2026-10-21T02:00:00Z)"));
    assert!(noted, "{}", d["warnings"]);
    // The stamp's own day is no disagreement.
    let out = tempfile::tempdir().unwrap();
    assert!(report(&sample(WARM), out.path(), &[]).status.success());
    let d = data(out.path());
    assert!(!d["warnings"].to_string().contains("the stamp names"));
}

/// Lines of the day before at the head of a finished run's registry and
/// cache logs: each log's totals are the run's own, the lines are counted as
/// skipped, and the warning gives how many and their time range.
#[test]
fn registry_and_cache_records_outside_the_window_leave_the_totals_and_are_counted() {
    let run = tempfile::tempdir().unwrap();
    copy_run(&sample(COLD), run.path());
    let clean = tempfile::tempdir().unwrap();
    assert!(report(run.path(), clean.path(), &[]).status.success());
    for (file, today, before) in [
        ("zot.jsonl", "2026-10-20T", "2026-10-19T"),
        ("sccache.log", "20/Oct/2026", "19/Oct/2026"),
    ] {
        let text = std::fs::read_to_string(run.path().join(file)).unwrap();
        let old: Vec<String> = text
            .lines()
            .filter(|l| l.contains(today))
            .take(5)
            .map(|l| l.replace(today, before))
            .collect();
        assert_eq!(old.len(), 5, "{file}");
        std::fs::write(run.path().join(file), old.join("\n") + "\n" + &text).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let (a, b) = (data(clean.path()), data(out.path()));
    assert_eq!(a["zot"], b["zot"], "the registry's figures are the run's own");
    assert_eq!(
        a["sccache"], b["sccache"],
        "the compiler cache's figures are the run's own"
    );
    assert_eq!(a["summary"], b["summary"]);
    for (file, noun) in [("zot.jsonl", "records"), ("sccache.log", "requests")] {
        let (was, is) = (&a["inputs"][file], &b["inputs"][file]);
        assert_eq!(is["records"], was["records"], "{file}");
        assert_eq!(is["skipped"].as_u64(), was["skipped"].as_u64().map(|s| s + 5), "{file}");
        assert_eq!(is["contract_broken"], false, "{file}");
        let said = is["warnings"].to_string();
        assert!(
            said.contains(&format!("{file}: 5 {noun} from 2026-10-19T"))
                && said.contains("lie outside the run's window (2026-10-20T02:00:00Z to"),
            "{said}"
        );
    }
    // check still calls them ok: each log has records of its own run.
    let o = perfreport(&["check", run.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
}

/// Found beside a hostile review: a registry log whose every line was
/// recognised but lay outside the run's window was said to be "read but no
/// record recognised … the producer's format may have changed", sending its
/// reader to debug a format that did not change: the lines are another day's.
#[test]
fn a_log_recognised_whole_but_outside_the_window_is_not_said_to_have_changed_format() {
    let run = tempfile::tempdir().unwrap();
    day_before(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    for file in ["zot.jsonl", "sccache.log", "samples.jsonl"] {
        let input = &d["inputs"][file];
        let said = format!("{} {} {}", input["warnings"], input["breaches"], d["zot"]["why"]);
        assert!(
            !said.contains("format may have changed") && !said.contains("no record recognised"),
            "{file}: {said}"
        );
        assert!(said.contains("lie outside the run's window"), "{file}: {said}");
    }
}

/// A registry log whose every line was recognised but lies outside the
/// run's window kept its contract: nothing in its format changed, the lines
/// are another day's. data.json says so in its input statistics
/// (`contract_broken` is for a producer whose format may have changed), and
/// its first warning says the lines lie outside the window; the log is
/// still not measured, with that reason.
#[test]
fn a_log_recognised_whole_but_outside_the_window_has_not_broken_its_contract() {
    let run = tempfile::tempdir().unwrap();
    day_before(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    for file in ["zot.jsonl", "sccache.log", "samples.jsonl"] {
        let input = &d["inputs"][file];
        assert_eq!(input["contract_broken"], false, "{file}: {input}");
        assert_eq!(input["records"], 0, "{file}");
        let first = input["warnings"][0].as_str().unwrap_or_default();
        assert!(
            first.starts_with(&format!("{file}: all ")) && first.contains("lie outside the run's window"),
            "{file}: {first}"
        );
    }
    let why = d["zot"]["why"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("zot.jsonl: all ") && why.contains("lie outside the run's window"),
        "{why}"
    );
}

/// A registry log wholly outside the run's window measured nothing: every
/// target's upload bytes are null, with that reason (not "no zot.jsonl":
/// the file is there), never 0 B. Kept as an empty log, it read as "the
/// registry logged no write" and the report showed 0 B for targets that
/// uploaded.
#[test]
fn a_registry_log_wholly_outside_the_window_leaves_upload_bytes_unmeasured_not_zero() {
    let run = tempfile::tempdir().unwrap();
    day_before(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    let targets = d["targets"].as_array().expect("targets");
    assert!(!targets.is_empty());
    let mut said_outside = 0;
    for t in targets {
        assert!(t["upload_bytes"].is_null(), "{}: {}", t["name"], t["upload_bytes"]);
        let why = t["why_null"]["upload_bytes"].as_str().unwrap_or_default();
        assert!(
            !why.is_empty() && !why.contains("registry logged no"),
            "{}: {why}",
            t["name"]
        );
        // Not "no zot.jsonl": the log is there, its records are another day's.
        assert!(!why.contains("no zot.jsonl"), "{}: {why}", t["name"]);
        said_outside += usize::from(why.contains("zot.jsonl measured nothing"));
    }
    assert!(
        said_outside >= 3,
        "the traced targets say the registry measured nothing"
    );
    let registry = d["zot"]["why"].as_str().unwrap_or_default();
    assert!(registry.contains("lie outside the run's window"), "{registry}");
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(!md.contains("0 B ᴿ"), "report.md shows a registry 0 B");
}
