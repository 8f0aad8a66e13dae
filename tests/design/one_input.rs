//! Each log of a run is one unit: its file under `src/model/logs/` says how
//! it is read beside the others, what it hands the run and how its records
//! outside the run's window are left out, and the model reads the logs as
//! one list. A log read anywhere else, or a unit missing from the list,
//! would bring back a branch per log in the model.

use super::source::{code_only, rust_files};
use std::path::Path;

/// The calls that read a log file into records.
const LOG_READS: [&str; 3] = ["read_log(", "read_lines(", "prometheus::read("];

/// Where a log read may be called: the logs' units, and the readers themselves.
fn may_read_logs(rel: &str) -> bool {
    rel.starts_with("src/model/logs/") || rel.starts_with("src/input/")
}

/// `file: call` for each log read outside the logs' units.
fn reads_outside_units(root: &Path) -> Vec<String> {
    let mut found = vec![];
    for file in rust_files(&root.join("src")) {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if may_read_logs(&rel) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        for call in LOG_READS {
            if code.contains(call) {
                found.push(format!("{rel}: {call}"));
            }
        }
    }
    found
}

/// Each unit's file stem (`zot` for `src/model/logs/zot.rs`) that the list
/// of logs in `src/model/logs/mod.rs` does not hold.
fn units_not_listed(root: &Path) -> Vec<String> {
    let dir = root.join("src/model/logs");
    let list = code_only(&std::fs::read_to_string(dir.join("mod.rs")).unwrap());
    let start = list
        .find("static LOGS")
        .expect("src/model/logs/mod.rs declares `static LOGS`");
    let end = start + list[start..].find("];").expect("LOGS ends with `];`");
    let listed = &list[start..end];
    rust_files(&dir)
        .iter()
        .filter_map(|f| f.file_stem()?.to_str().map(str::to_string))
        .filter(|stem| stem != "mod" && !listed.contains(&format!("&{stem}::")))
        .collect()
}

#[test]
fn a_log_is_read_only_by_its_unit_under_model_logs_and_every_unit_is_in_the_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let outside = reads_outside_units(root);
    assert!(
        outside.is_empty(),
        "a log is read by its unit under src/model/logs/ (one file per log, listed in LOGS), not here:\n{}",
        outside.join("\n")
    );
    let missing = units_not_listed(root);
    assert!(
        missing.is_empty(),
        "src/model/logs/ holds units the model never reads (add each to LOGS): {missing:?}"
    );
}

#[test]
fn the_one_list_check_finds_a_log_read_in_the_model_and_a_unit_left_out_of_the_list() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tree.path().join("src/model/logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("mod.rs"), "static LOGS: [&dyn Log; 1] = [&zot::ZotFile];\n").unwrap();
    std::fs::write(logs.join("zot.rs"), "fn f() { incremental::read_log(a); }\n").unwrap();
    std::fs::write(logs.join("nginx.rs"), "fn f() {}\n").unwrap();
    // A comment naming the call is not a call.
    std::fs::write(
        tree.path().join("src/model/mod.rs"),
        "// read_log(\nfn g() { read_lines(dir); }\n",
    )
    .unwrap();
    assert_eq!(reads_outside_units(tree.path()), ["src/model/mod.rs: read_lines("]);
    assert_eq!(units_not_listed(tree.path()), ["nginx"]);
}
