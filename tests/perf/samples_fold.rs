//! samples.jsonl past the polls a node may hold: the
//! oldest polls are summarised as they are read, so memory does not grow
//! with the file, and the figures are still every poll's.

use super::{data, node, report};

const POLLS: u64 = 5000;
const T0: u64 = 1_790_000_000;

/// Node `n`'s poll `i`: every interval 25 % busy, a memory and a load peak
/// early (among the polls summarised), a ten-minute gap after poll 3000 and,
/// on node b, a counter reset at poll 4000.
fn poll(n: &str, i: u64) -> String {
    let ts = T0 + 5 * i + if i > 3000 { 600 } else { 0 };
    let reset = if n == "b" && i >= 4000 { 1_000_000 } else { 0 };
    let (busy, idle) = (2 * i + 5_000_000 - reset, 6 * i + 5_000_000 - reset);
    let available = if i == 100 { 1 } else { 100 - i % 50 };
    let load = if i == 200 { 77.0 } else { (i % 8) as f64 };
    format!(
        r#"{{"ts":{ts},"node":"{n}","cpu":{{"user":{busy},"idle":{idle}}},"mem":{{"total":100,"available":{available}}},"load1":{load}}}"#
    )
}

/// A run directory holding only `samples` as its samples.jsonl.
fn run_of(samples: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("samples.jsonl"), samples).unwrap();
    (dir, run)
}

#[test]
fn a_samples_file_past_the_cap_gives_every_polls_figures_and_warns_about_a_late_poll() {
    let mut text = String::new();
    for i in 0..POLLS {
        for n in ["a", "b", "c"] {
            text.push_str(&poll(n, i));
            text.push('\n');
        }
    }
    // Long after its time, a poll of c older than what was summarised.
    text.push_str(&poll("c", 10));
    text.push('\n');
    let (dir, run) = run_of(&text);
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(&out);
    for n in ["a", "b", "c"] {
        let v = node(&d, n);
        assert_eq!(v["cpu_pct_mean"], 25.0, "{n}: {v}");
        assert_eq!(v["mem_pct_max"], 99.0, "{n}: the early peak counts");
        assert_eq!(v["load1_max"], 77.0, "{n}");
        assert_eq!(v["load1_end"], ((POLLS - 1) % 8) as f64, "{n}");
        assert_eq!(v["gaps"], 1, "{n}");
        assert_eq!(v["counter_resets"], if n == "b" { 1 } else { 0 }, "{n}");
        let cpu = v["cpu"]["v"].as_array().unwrap();
        assert!(cpu.len() <= 2000, "{n}: {} points", cpu.len());
        assert!(cpu.iter().any(|p| p.is_null()), "{n}: the gap breaks the line");
    }
    let text = serde_json::to_string(&d).unwrap();
    assert!(
        text.contains("samples.jsonl: 1 poll of node c arrived after later ones had been summarised: left out"),
        "the late poll is warned about"
    );
    let report_md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report_md.contains("1 poll of node c arrived after later ones"));
}

#[test]
fn a_node_whose_poll_interval_changes_after_the_cap_is_warned_about_its_gap_limit() {
    // Node a polls every 2 s for 1,000 polls, then every 30 s: its gap limit,
    // fixed by the first 512 (6 s), breaks its line at every later poll,
    // where all its polls' median (30 s) would not. Node b polls steadily.
    let mut text = String::new();
    for i in 0..POLLS {
        let a = T0 + if i < 1000 { 2 * i } else { 2000 + 30 * (i - 1000) };
        text += &format!("{{\"ts\":{a},\"node\":\"a\",\"load1\":1}}\n");
        text += &format!("{{\"ts\":{},\"node\":\"b\",\"load1\":1}}\n", T0 + 5 * i);
    }
    let (dir, run) = run_of(&text);
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(&out);
    assert_eq!(
        node(&d, "a")["gaps"],
        POLLS - 1001,
        "the documented rule, still applied"
    );
    let warnings: Vec<&str> = d["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains("poll interval changed"))
        .collect();
    assert_eq!(warnings.len(), 1, "only node a: {warnings:?}");
    assert!(
        warnings[0].starts_with(
            "samples.jsonl: node a's poll interval changed after its first 512 polls: a gap is an interval over 6s"
        ) && warnings[0].contains("at least 3999 intervals are breaks in its line"),
        "{}",
        warnings[0]
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("poll interval changed"), "the report says it too");
}

#[test]
fn a_node_written_in_reverse_past_the_cap_fails_check_instead_of_agreeing() {
    // Node a's polls in reverse time order: after its first 512 are
    // summarised, every older one is left out. `check` must not say the
    // producer and the parser agree, and --strict fails.
    let mut text = String::new();
    for i in 0..2000u64 {
        text += &format!("{{\"ts\":{},\"node\":\"a\",\"load1\":1}}\n", T0 + 5 * (1999 - i));
        text += &format!("{{\"ts\":{},\"node\":\"b\",\"load1\":1}}\n", T0 + 5 * i);
    }
    let (dir, run) = run_of(&text);
    let o = super::perfreport(&["check", run.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(
        said.contains("FAIL  samples.jsonl") && said.contains("1488 of 4000 polls left out"),
        "{said}"
    );
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q", "--strict"]);
    assert_eq!(o.status.code(), Some(1), "--strict fails on it");
}
