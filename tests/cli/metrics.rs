//! `perfreport metrics`: the textfile collector's Prometheus text.

use crate::util::*;
use std::process::Command;

#[test]
fn metrics_textfile_passes_promtool_and_omits_what_was_not_measured() {
    let dir = tempfile::tempdir().unwrap();
    let o = perfreport(&[
        "metrics",
        sample(WARM).to_str().unwrap(),
        "--textfile-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.path().join("rocm_perf.prom")).unwrap();
    assert!(
        text.contains("rocm_perf_target_build_seconds{target=\"triton-wheel\",node=\"think\",builder=\"snoc-think\"}")
    );
    // In flight: triton-wheel's total is not measured, so it has no sample at all (not a 0).
    assert!(!text.contains("rocm_perf_target_total_seconds{target=\"triton-wheel\""));
    assert!(text.contains("rocm_perf_run_in_flight{stamp=\"20261021T020000Z\",mode=\"warm\",arch=\"gfx1201\"} 1"));
    // Every HELP has samples; no timestamps.
    for block in text.split("# HELP ").skip(1) {
        assert!(block.lines().count() >= 3, "a family without samples: {block}");
    }
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .all(|l| l.split(' ').count() == 2),
        "no timestamps"
    );
    let promtool = std::path::Path::new("/usr/bin/promtool");
    if !promtool.exists() {
        crate::util::skipped("no /usr/bin/promtool (.ci/run installs Debian's prometheus)");
        return;
    }
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn metrics_fall_back_to_the_current_directory_when_the_collector_dir_is_unwritable() {
    let cwd = tempfile::tempdir().unwrap();
    let blocker = cwd.path().join("not-a-dir");
    std::fs::write(&blocker, "a file").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args([
            "metrics",
            sample(COLD).to_str().unwrap(),
            "--textfile-dir",
            blocker.join("sub").to_str().unwrap(),
        ])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("in the current directory instead"));
    assert!(cwd.path().join("rocm_perf.prom").exists());
}
