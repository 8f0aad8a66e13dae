//! Finding runs under a root (`$PERF_ROOT`, default `/var/tmp/rocm-perf`).

use crate::input::run_json;
use crate::model;
use std::path::{Path, PathBuf};

pub const DEFAULT_ROOT: &str = "/var/tmp/rocm-perf";

/// The root from `$PERF_ROOT`, else the default.
pub fn default_root() -> PathBuf {
    std::env::var_os("PERF_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ROOT))
}

/// The run directories directly under `root`, oldest first: by run.json's
/// `started_at`, else by directory name.
pub fn list(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return vec![];
    };
    let mut runs: Vec<(Option<i64>, String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && model::is_run_dir(p))
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (run_json::started_at_of(&p), name, p)
        })
        .collect();
    // Runs without a start time sort by name among themselves, before dated ones.
    runs.sort();
    runs.into_iter().map(|(_, _, p)| p).collect()
}

/// The newest run under `root`.
pub fn newest(root: &Path) -> Option<PathBuf> {
    list(root).pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_is_by_started_at_not_by_name() {
        let root = tempfile::tempdir().unwrap();
        for (dir, started) in [("b-old", "2026-10-01T00:00:00Z"), ("a-new", "2026-10-20T00:00:00Z")] {
            let d = root.path().join(dir);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("run.json"), format!(r#"{{"started_at": "{started}"}}"#)).unwrap();
        }
        std::fs::create_dir(root.path().join("not-a-run")).unwrap();
        assert_eq!(newest(root.path()).unwrap().file_name().unwrap(), "a-new");
        assert_eq!(list(root.path()).len(), 2);
    }
}
