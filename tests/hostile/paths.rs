//! Hostile paths and bytes: what publish removes and writes, where the run
//! folders go, the temporaries every output passes through, and what reaches
//! a terminal.

use super::{data, fixture, perfreport, publish, report};
use serde_json::Value;
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
fn publish_never_removes_or_links_what_a_planted_manifest_names_outside_the_site() {
    let outer = tempfile::tempdir().unwrap();
    let (root, site) = (outer.path().join("root"), outer.path().join("site"));
    trace_run(&root.join("20261020T020000Z"), "bake");
    trace_run(&root.join("20261021T020000Z"), "bake");
    let o = publish(&root, &site);
    assert!(o.status.success(), "{}", stderr(&o));

    let relative = victim(&outer.path().join("victim-rel"));
    let absolute = victim(&outer.path().join("victim-abs"));
    let linked = victim(&outer.path().join("victim-link"));
    std::os::unix::fs::symlink(outer.path().join("victim-link"), site.join("runs/linked")).unwrap();
    let manifest_path = site.join("manifest.json");
    let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let runs = manifest["runs"].as_object_mut().unwrap();
    let entry = runs["20261020T020000Z"].clone();
    let abs_key = outer.path().join("victim-abs").to_str().unwrap().to_string();
    // Keys that are paths out of the site, the runs folder itself, and a symlink in it.
    for key in ["../../victim-rel", abs_key.as_str(), "", ".", "..", "linked"] {
        runs.insert(key.to_string(), entry.clone());
    }
    // A kept run whose entry names another folder: its links must not follow it.
    runs.get_mut("20261020T020000Z").unwrap()["entry"]["dir"] = "../../victim-rel".into();
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    // A run gone from the root still leaves the site.
    std::fs::remove_dir_all(root.join("20261021T020000Z")).unwrap();

    let o = publish(&root, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    for file in [&relative, &absolute, &linked] {
        assert_eq!(std::fs::read_to_string(file).unwrap(), "keep", "{}", file.display());
    }
    assert!(
        std::fs::symlink_metadata(site.join("runs/linked"))
            .unwrap()
            .is_symlink(),
        "a symlink in runs/ is left alone, not followed"
    );
    assert!(
        site.join("runs/20261020T020000Z/index.html").exists(),
        "the kept run's pages survive"
    );
    assert!(
        !site.join("runs/20261021T020000Z").exists(),
        "the gone run's folder is removed"
    );
    let said = stderr(&o);
    assert!(said.contains("\"../../victim-rel\" is not a run folder name"), "{said}");
    assert!(
        said.contains(&format!("{abs_key:?} is not a run folder name")),
        "{said}"
    );
    assert!(
        said.contains("runs/linked: the folder of a gone run is not a directory"),
        "{said}"
    );
    for page in ["runs.js", "index.html"] {
        let text = std::fs::read_to_string(site.join(page)).unwrap();
        assert!(!text.contains("victim"), "{page} links where the manifest said");
    }
}

#[test]
fn two_runs_whose_paths_join_to_one_folder_name_publish_to_two_folders() {
    let outer = tempfile::tempdir().unwrap();
    let (root, site) = (outer.path().join("root"), outer.path().join("site"));
    // `a/b` and `a--b` were both `runs/a--b`; `x-/y` and `x/-y` both `runs/x---y`.
    let runs = [("a/b", "one"), ("a--b", "two"), ("x-/y", "three"), ("x/-y", "four")];
    for (dir, target) in runs {
        trace_run(&root.join(dir), target);
    }
    trace_run(&root.join("20261019T020000Z-broken"), "five");
    let o = publish(&root, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let folders: Vec<String> = std::fs::read_dir(site.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(folders.len(), 5, "{folders:?}");
    // An ordinary stamp keeps its name, so links to it stay stable.
    assert!(
        site.join("runs/20261019T020000Z-broken/index.html").exists(),
        "{folders:?}"
    );
    let mut targets: Vec<String> = folders
        .iter()
        .map(|f| {
            data(&site.join("runs").join(f))["targets"][0]["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    targets.sort();
    assert_eq!(
        targets,
        ["five", "four", "one", "three", "two"],
        "each run's pages are its own"
    );
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert_eq!(index.matches("<tr data-run=").count(), 5);
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

/// A run whose node name, malformed log line, file name and own directory
/// name carry terminal escapes: set the window title, clear the screen.
fn run_with_escapes(parent: &Path) -> PathBuf {
    let dir = parent.join("run\x1b]0;pwned-dir\x07");
    trace_run(&dir, "bake");
    std::fs::write(dir.join("trace-\x1b]0;pwned-file\x07.json"), "\x1b[2J not a trace").unwrap();
    std::fs::write(
        dir.join("run.json"),
        r#"{"stamp": "s\u001b]0;pwned-stamp\u0007", "targets": ["bake"], "nodes": [{"name": "strix", "cores": 8}]}"#,
    )
    .unwrap();
    let sample = |node: &str, ts: &str| {
        format!(
            r#"{{"ts": "{ts}", "node": "{node}", "cpu": {{"user": 1.0, "nice": 0.0, "system": 1.0, "idle": 10.0, "iowait": 0.0, "irq": 0.0, "softirq": 0.0, "steal": 0.0}}, "mem": {{"total": 100, "available": 50}}}}"#
        )
    };
    let node = "n\\u001b]0;pwned-node\\u0007\\u001b[2J";
    let samples = [
        sample(node, "2026-10-21T02:00:00Z"),
        sample(node, "2026-10-21T02:00:05Z"),
        "{\"ts\": \x1b[2J\x1b]0;pwned-line\x07 broken".to_string(),
    ]
    .join("\n");
    std::fs::write(dir.join("samples.jsonl"), samples + "\n").unwrap();
    // nginx's malformed lines are quoted in their warning.
    std::fs::write(
        dir.join("sccache.log"),
        "10.0.0.1 - - \x1b]0;pwned-log\x07\x1b[2J not nginx\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("zot.jsonl"),
        "{\"message\":\"HTTP API\"}\n\x1b]0;pwned-zot\x07\x1b[2J garbage\n",
    )
    .unwrap();
    dir
}

#[test]
fn escape_bytes_in_inputs_never_reach_the_terminal() {
    let parent = tempfile::tempdir().unwrap();
    let run = run_with_escapes(parent.path());
    let out = tempfile::tempdir().unwrap();
    let o = report(&run, out.path(), &["--strict"]);
    let said = stderr(&o);
    assert!(!o.stderr.contains(&0x1b), "report's stderr: {said:?}");
    assert!(!o.stderr.contains(&0x07), "report's stderr: {said:?}");
    // Shown, not dropped: the warnings still quote the file and the line.
    assert!(said.contains("trace-\\x1b]0;pwned-file\\x07.json"), "{said}");
    assert!(
        said.contains("the line: 10.0.0.1 - - \\x1b]0;pwned-log\\x07\\x1b[2J"),
        "{said}"
    );

    let o = perfreport(&["check", run.to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!o.stdout.contains(&0x1b), "check's stdout: {shown:?}");
    assert!(shown.contains("node n\\x1b]0;pwned-node\\x07\\x1b[2J"), "{shown}");
    assert!(shown.contains("run\\x1b]0;pwned-dir\\x07"), "{shown}");
    assert!(shown.contains("\\x1b]0;pwned-log\\x07"), "{shown}");
    // --json is serde's escaping, unchanged: the node name reads back as it was.
    let o = perfreport(&["check", run.to_str().unwrap(), "--json"]);
    assert!(!o.stdout.contains(&0x1b));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json.to_string().contains("n\\u001b]0;pwned-node"), "{json}");

    // An error that names a path.
    let missing = parent.path().join("gone\x1b[2J\u{9b}2J\u{202e}");
    let o = report(&missing, out.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    let said = stderr(&o);
    assert!(!o.stderr.contains(&0x1b), "{said:?}");
    assert!(!said.contains('\u{9b}') && !said.contains('\u{202e}'), "{said:?}");
    assert!(said.contains("gone\\x1b[2J\\u{9b}2J\\u{202e}"), "{said}");
}

/// Found by attacking the fixes: a `charts -> elsewhere` symlink planted in the
/// run directory (the default output directory) carried the three chart
/// writes of `report` and `serve` out of it.
#[test]
fn a_charts_symlink_planted_in_the_output_directory_carries_no_write_out_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    trace_run(&run, "bake");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, run.join("charts")).unwrap();
    let o = perfreport(&["report", run.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "refused as an output that cannot be written: {err}"
    );
    assert!(err.contains("charts"), "the message names the planted directory: {err}");
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing was written through the symlink"
    );
}

/// Found by reading the Makefile: `perf-report`, `perf-publish` and
/// `perf-serve` spliced PERF_ROOT, RUN, OUT and SITE into the shell line, so
/// a run folder named `x; touch pwned` ran a command. They reach the
/// commands through the environment, as perf-gate's do: a path is a path.
#[test]
fn make_passes_paths_to_the_commands_through_the_environment_never_the_shell_line() {
    let tmp = tempfile::tempdir().unwrap();
    let pwned = tmp.path().join("pwned");
    // No `$`: make itself expands that in any variable, exported or not.
    let hostile = format!("{}/run ; touch {} #", tmp.path().display(), pwned.display());
    std::fs::create_dir_all(&hostile).unwrap();
    super::copy_run(&super::sample(super::COLD), Path::new(&hostile));
    let site = format!("{}/site ; touch {}", tmp.path().display(), pwned.display());
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join(super::COLD)).unwrap();
    super::copy_run(&super::sample(super::COLD), &root.join(super::COLD));
    let bin = env!("CARGO_BIN_EXE_perfreport");
    for (target, vars) in [
        ("perf-report", vec![("RUN", hostile.as_str()), ("OUT", site.as_str())]),
        (
            "perf-publish",
            vec![("PERF_ROOT", root.to_str().unwrap()), ("SITE", site.as_str())],
        ),
    ] {
        let mut make = std::process::Command::new("make");
        make.arg("-s")
            .arg("-C")
            .arg(super::root())
            .arg(target)
            .arg(format!("PERFREPORT={bin}"));
        for (k, v) in &vars {
            make.arg(format!("{k}={v}"));
        }
        let o = make.env_remove("PERF_ROOT").output().unwrap();
        assert!(!pwned.exists(), "{target} ran a command from a path");
        assert!(o.status.success(), "{target}: {}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(
        Path::new(&site).join("report.md").is_file(),
        "report written under the path as named"
    );
    assert!(
        Path::new(&site).join("index.html").is_file(),
        "site written under the path as named"
    );
}
