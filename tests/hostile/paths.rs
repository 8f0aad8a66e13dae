//! Hostile paths and bytes: what publish removes and writes, where the run
//! folders go, the temporaries every output passes through, and what reaches
//! a terminal (issue 15, points 11, 12, 13 and 16).

use super::{data, fixture};
use std::path::{Path, PathBuf};

/// A run directory at `dir` whose one input is the buildx fixture as `trace-<target>.json`.
fn trace_run(dir: &Path, target: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        dir.join(format!("trace-{target}.json")),
    )
    .unwrap();
}

/// A directory holding one file, for a test to check it survives.
fn victim(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("keep.txt");
    std::fs::write(&file, "keep").unwrap();
    file
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_symlink_planted_at_the_predictable_temporary_names_is_not_followed() {
    let run = tempfile::tempdir().unwrap();
    trace_run(run.path(), "bake");
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(out.path().join("charts")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = victim(elsewhere.path());
    // The shell waits until the symlinks are planted, then becomes perfreport
    // with the same process id, the one the temporary names were made of.
    let mut child = std::process::Command::new("sh")
        .args(["-c", "read _ && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_perfreport"))
        .args([
            "report",
            run.path().to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ])
        .env_remove("PERF_ROOT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let outputs = [
        "data.json",
        "index.html",
        "report.md",
        "charts/cpu-mem.svg",
        "charts/timeline.svg",
        "charts/cache-lanes.svg",
    ];
    for file in outputs {
        let path = out.path().join(file);
        let (dir, name) = (path.parent().unwrap(), path.file_name().unwrap().to_str().unwrap());
        for n in 0..64 {
            std::os::unix::fs::symlink(&target, dir.join(format!(".{name}.tmp-{pid}-{n}"))).unwrap();
        }
    }
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&target).unwrap() == "keep",
        "written through a symlink"
    );
    for file in outputs {
        let meta = std::fs::symlink_metadata(out.path().join(file)).unwrap();
        assert!(meta.is_file() && meta.len() > 0, "{file} is a regular file of its own");
    }
    assert_eq!(data(out.path())["targets"][0]["name"], "bake");
}
