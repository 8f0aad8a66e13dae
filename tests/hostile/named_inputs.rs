//! Files perfreport reads by name, not from a run folder: publish's own
//! manifest.json, `gate --expect`, `buildlog LOG`, the bench.jsonl of
//! `ratios`, and the job summary `gate --summary` appends to. Each has a run
//! input's rules: only a regular file, opened without blocking (a FIFO is
//! refused, never waited on), under a size bound where it is read whole, and
//! a link only where the user named the path.

use super::{perfreport, publish, sample, COLD, WARM};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn mkfifo(at: &Path) {
    assert!(Command::new("mkfifo").arg(at).status().unwrap().success());
}

/// Runs perfreport with `args`; its exit code, or `None` when it was still
/// running after the safety net (it blocked) and was killed.
fn finishes(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(args)
        .env_remove("PERF_ROOT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A safety net against a read that never ends, not a measurement.
    for _ in 0..1200 {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            return (status.code(), err);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    (None, String::new())
}

/// Found by attacking publish: it read `site/manifest.json` through links
/// and with no size bound, so a FIFO there hung it and a link to /dev/zero
/// filled memory. The manifest is read as the history cache is; one that
/// cannot be read is said, and every run reported again.
#[test]
fn publish_reads_no_manifest_that_is_a_fifo_a_link_or_a_device() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join(COLD);
    std::fs::create_dir(&run).unwrap();
    super::copy_run(&sample(COLD), &run);
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let manifest = site.path().join("manifest.json");
    let elsewhere = tempfile::tempdir().unwrap();
    let kept = elsewhere.path().join("manifest.json");
    std::fs::rename(&manifest, &kept).unwrap();
    for planted in ["fifo", "/dev/zero", "link"] {
        let _ = std::fs::remove_file(&manifest);
        match planted {
            "fifo" => mkfifo(&manifest),
            "link" => std::os::unix::fs::symlink(&kept, &manifest).unwrap(),
            device => std::os::unix::fs::symlink(device, &manifest).unwrap(),
        }
        let (code, err) = finishes(&[
            "publish",
            root.path().to_str().unwrap(),
            "--site",
            site.path().to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{planted}: {err}");
        assert!(err.contains("manifest.json: "), "{planted}: said: {err}");
        assert!(
            std::fs::symlink_metadata(&manifest).unwrap().is_file(),
            "{planted}: a manifest of its own written in its place"
        );
    }
}

/// Found by attacking the commands that take a file: `--expect`, `buildlog
/// LOG` and `ratios`' bench.jsonl blocked on a FIFO, and `buildlog` read
/// any file whole. Each refuses a FIFO or device by its kind, at once.
#[test]
fn expect_buildlog_and_ratios_refuse_a_fifo_or_device_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("input");
    mkfifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    let run = sample(WARM);
    let run = run.to_str().unwrap();
    for args in [
        vec!["buildlog", "--target", "pytorch", fifo],
        vec!["buildlog", "--target", "pytorch", "/dev/zero"],
        vec!["ratios", fifo, "--out", dir.path().to_str().unwrap()],
        vec!["ratios", "/dev/zero", "--out", dir.path().to_str().unwrap()],
        vec!["gate", run, "--expect", fifo],
        vec!["gate", run, "--expect", "/dev/zero"],
    ] {
        let (code, err) = finishes(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
}

/// Found by attacking the gate: `--summary` appended through a link and
/// blocked on a FIFO while `--junit` refused a link, and the refusal named
/// a `--follow-links` the gate does not have.
#[test]
fn gate_summary_refuses_a_link_or_fifo_as_junit_does_and_names_no_option_it_lacks() {
    let root = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let d = root.path().join(stamp);
        std::fs::create_dir(&d).unwrap();
        super::copy_run(&sample(stamp), &d);
    }
    let out = tempfile::tempdir().unwrap();
    let victim = out.path().join("victim");
    std::fs::write(&victim, "victim\n").unwrap();
    let link = out.path().join("summary.md");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let fifo = out.path().join("fifo.md");
    mkfifo(&fifo);
    let root = root.path().to_str().unwrap();
    for (flag, at) in [("--summary", &link), ("--summary", &fifo), ("--junit", &link)] {
        let (code, err) = finishes(&["gate", "--history", root, flag, at.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{flag} {}: {err}", at.display());
        assert!(err.contains("refused"), "{flag}: {err}");
        assert!(!err.contains("--follow-links"), "{flag}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim\n");
    // A regular file is appended to as ever.
    let summary = out.path().join("real.md");
    std::fs::write(&summary, "## earlier step\n").unwrap();
    let o = perfreport(&["gate", "--history", root, "--summary", summary.to_str().unwrap()]);
    assert!(
        o.status.code().is_some_and(|c| c != 2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(&summary)
        .unwrap()
        .starts_with("## earlier step\n"));
}
