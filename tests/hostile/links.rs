//! Inputs and run folders that are links: one whose real path leaves its
//! run directory (or a run folder that leaves ROOT) is not read, so nothing
//! of what it leads to reaches report.md, report.html, data.json,
//! index.html, the published site or `serve`; a FIFO, device or directory
//! in an input's place is named and skipped. `report --follow-links` reads a
//! link that leaves, for a user who means it.

use super::hostile::run_with;
use super::{data, perfreport, publish, report, walk};
use std::path::Path;

/// What a planted link leads to: lines that look like a log's malformed
/// lines, so a reader that followed the link would quote them in warnings.
const SECRET: &str = "root:x:0:0:root:/root:/bin/bash\nsecret-account-7f3a:x:1000:1000::/home/s:/bin/sh\n";

fn secret_file(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("passwd");
    std::fs::write(&p, SECRET).unwrap();
    p
}

/// Every input a run reads as a link to `target`.
fn link_every_input(run: &Path, target: &Path) {
    for name in [
        "zot.jsonl",
        "sccache.log",
        "samples.jsonl",
        "placement.txt",
        "artifacts.txt",
        "nginx-log-format",
        "trace-leak.json",
    ] {
        std::os::unix::fs::symlink(target, run.join(name)).unwrap();
    }
}

/// No file under `dir` holds any of the secret's text.
fn nothing_of_the_secret_in(dir: &Path) {
    for f in walk(dir) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        for needle in ["root:x:0:0", "secret-account-7f3a", "/bin/bash"] {
            assert!(!text.contains(needle), "{needle} in {}", f.display());
        }
    }
}

#[test]
fn inputs_linked_out_of_the_run_are_not_read_and_nothing_of_their_target_is_written() {
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = secret_file(elsewhere.path());
    let run = run_with(&[]);
    link_every_input(run.path(), &secret);
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("root:x") && !stderr.contains("secret-account"),
        "{stderr}"
    );
    nothing_of_the_secret_in(out.path());
    let d = data(out.path());
    for name in ["zot.jsonl", "sccache.log", "trace-leak.json", "nginx-log-format"] {
        let input = &d["inputs"][name];
        assert_eq!(input["present"], false, "{name}: {input}");
        let w = input["warnings"].to_string();
        assert!(w.contains("a link leading out of the run directory"), "{name}: {w}");
    }
    assert!(
        stderr.contains("zot.jsonl: a link leading out of the run directory"),
        "the warning names the input: {stderr}"
    );
    // The rest of the run is reported.
    assert_eq!(
        super::target(&d, "bake")["total_s"].as_f64().map(|t| t.round()),
        Some(90.0)
    );
}

#[test]
fn a_link_inside_the_run_is_read_and_follow_links_reads_one_that_leaves() {
    let elsewhere = tempfile::tempdir().unwrap();
    let zot = std::fs::read(super::fixture("zot-slog-era.jsonl")).unwrap();
    std::fs::write(elsewhere.path().join("zot.jsonl"), &zot).unwrap();
    let run = run_with(&[]);
    std::fs::create_dir(run.path().join("logs")).unwrap();
    std::fs::write(run.path().join("logs/zot.jsonl"), &zot).unwrap();
    std::os::unix::fs::symlink("logs/zot.jsonl", run.path().join("zot.jsonl")).unwrap();
    let out = tempfile::tempdir().unwrap();
    assert_eq!(report(run.path(), out.path(), &[]).status.code(), Some(0));
    // Read whole: present, every byte counted.
    let read = |d: &serde_json::Value| {
        let input = &d["inputs"]["zot.jsonl"];
        (input["present"].clone(), input["bytes"].clone())
    };
    let whole = (serde_json::Value::Bool(true), serde_json::Value::from(zot.len()));
    assert_eq!(
        read(&data(out.path())),
        whole,
        "a link inside the run is an input like any"
    );
    std::fs::remove_file(run.path().join("zot.jsonl")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("zot.jsonl"), run.path().join("zot.jsonl")).unwrap();
    assert_eq!(report(run.path(), out.path(), &[]).status.code(), Some(0));
    assert_eq!(data(out.path())["inputs"]["zot.jsonl"]["present"], false);
    let o = report(run.path(), out.path(), &["--follow-links"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read(&data(out.path())), whole, "read on purpose");
    // publish and serve have no such option.
    let site = tempfile::tempdir().unwrap();
    for cmd in ["publish", "serve"] {
        let o = perfreport(&[
            cmd,
            run.path().to_str().unwrap(),
            "--site",
            site.path().to_str().unwrap(),
            "--follow-links",
        ]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
    }
}

#[test]
fn a_fifo_device_or_directory_in_an_inputs_place_is_named_and_skipped() {
    let run = run_with(&[]);
    assert!(std::process::Command::new("mkfifo")
        .arg(run.path().join("sccache.log"))
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", run.path().join("samples.jsonl")).unwrap();
    std::fs::create_dir(run.path().join("trace-dir.json")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &["--follow-links"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    for (name, kind) in [
        ("sccache.log", "a FIFO, not a regular file"),
        ("samples.jsonl", "a device, not a regular file"),
        ("trace-dir.json", "a directory, not a regular file"),
    ] {
        let input = &d["inputs"][name];
        assert_eq!(input["present"], false, "{name}: {input}");
        assert!(input["warnings"].to_string().contains(kind), "{name}: {input}");
    }
}

#[test]
fn publish_reads_no_link_out_of_a_run_and_walks_no_folder_that_leaves_the_root() {
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = secret_file(elsewhere.path());
    // Another tree with a run of its own, reachable only through a link.
    let other = elsewhere.path().join("other/20990101T000000Z");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("zot.jsonl"), SECRET).unwrap();
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("20261020T020000Z");
    std::fs::create_dir(&run).unwrap();
    super::copy_run(&super::sample(super::COLD), &run);
    for name in ["zot.jsonl", "sccache.log"] {
        std::fs::remove_file(run.join(name)).unwrap();
        std::os::unix::fs::symlink(&secret, run.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(elsewhere.path().join("other"), root.path().join("linked")).unwrap();
    // A link to a run inside the root is walked as ever.
    std::os::unix::fs::symlink(&run, root.path().join("latest")).unwrap();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    nothing_of_the_secret_in(site.path());
    assert!(
        !stderr.contains("root:x") && !stderr.contains("secret-account"),
        "{stderr}"
    );
    let runs: Vec<String> = std::fs::read_dir(site.path().join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!runs.iter().any(|r| r.contains("20990101")), "{runs:?}");
    assert!(runs.iter().any(|r| r == "latest"), "{runs:?}");
    assert!(stderr.contains("a link leading out of the root"), "{stderr}");
}

#[test]
fn serve_answers_nothing_of_an_input_linked_out_of_the_run() {
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = secret_file(elsewhere.path());
    let run = run_with(&[]);
    link_every_input(run.path(), &secret);
    let out = tempfile::tempdir().unwrap();
    let (mut child, addr) = crate::serve::spawn_serve(run.path(), out.path());
    for path in ["/", "/data.json", "/report.md", "/charts/timeline.svg"] {
        let (code, body) = crate::serve::get(&addr, path);
        assert_eq!(code, 200, "{path}");
        assert!(
            !body.contains("root:x") && !body.contains("secret-account"),
            "{path}: {body}"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
    nothing_of_the_secret_in(out.path());
}
