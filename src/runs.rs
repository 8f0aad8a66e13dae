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

/// Whether `dir`'s real path lies inside `root`'s (`real_root`, already
/// resolved): a symlinked run directory may lead elsewhere under the root,
/// never out of it.
fn inside(dir: &Path, real_root: Option<&Path>) -> bool {
    within(dir.canonicalize().ok().as_deref(), real_root)
}

/// Whether a real path (`None`: it could not be resolved) lies inside `real_root`.
fn within(real: Option<&Path>, real_root: Option<&Path>) -> bool {
    real.zip(real_root).is_some_and(|(d, root)| d.starts_with(root))
}

/// What a directory leading out of the root is called where it is named.
const LEADS_OUT: &str = "a link leading out of the root: not read";

/// The run directories directly under `root`, oldest first: by run.json's
/// `started_at`, else by directory name. A symlinked directory whose real
/// path leaves the root is not one of them.
pub(crate) fn list(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return vec![];
    };
    let real_root = root.canonicalize().ok();
    let mut runs: Vec<(Option<i64>, String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && inside(p, real_root.as_deref()) && model::is_run_dir(p))
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

/// What a walk of a root found: each run folder as (its path under the
/// root, its path), and what could not be read as (path, what went wrong).
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub(crate) runs: Vec<(PathBuf, PathBuf)>,
    pub(crate) unreadable: Vec<(PathBuf, String)>,
}

/// The run folders under `root`, up to three levels down, in name order,
/// found with walkdir: symlinks followed while they stay inside the root (a
/// folder whose real path leaves it is reported and not walked), loops and
/// unreadable folders reported and skipped, `leave_out` (a site written
/// under the root) too. Publish and history see the same runs.
pub(crate) fn walk(root: &Path, leave_out: Option<&Path>) -> Walked {
    let leave_out = leave_out.and_then(|p| p.canonicalize().ok());
    let real_root = root.canonicalize().ok();
    // The real path of each folder above the entry, by depth: an entry that
    // is no link is its folder's real path and its name, so only a link is
    // resolved (resolving every folder was a readlink per component).
    let mut reals: Vec<Option<PathBuf>> = vec![real_root.clone()];
    let mut out = Walked::default();
    let mut walk = walkdir::WalkDir::new(root)
        .follow_links(true)
        .min_depth(1)
        .max_depth(3)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let what = match (e.loop_ancestor(), e.io_error()) {
                    (Some(_), _) => "symlink loop".to_string(),
                    (None, Some(io)) => format!("unreadable ({io})"),
                    (None, None) => "unreadable".to_string(),
                };
                out.unreadable
                    .push((e.path().map(Path::to_path_buf).unwrap_or_default(), what));
                continue;
            }
        };
        if !entry.file_type().is_dir() {
            continue;
        }
        reals.truncate(entry.depth());
        let parent = reals.last().cloned().flatten();
        let real = match parent {
            Some(parent) if !entry.path_is_symlink() => Some(parent.join(entry.file_name())),
            _ => entry.path().canonicalize().ok(),
        };
        if !within(real.as_deref(), real_root.as_deref()) {
            out.unreadable.push((entry.path().to_path_buf(), LEADS_OUT.to_string()));
            walk.skip_current_dir();
            continue;
        }
        if leave_out.is_some() && real == leave_out {
            walk.skip_current_dir();
            continue;
        }
        reals.push(real);
        if model::is_run_dir(entry.path()) {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            out.runs.push((rel.to_path_buf(), entry.path().to_path_buf()));
            walk.skip_current_dir();
        }
    }
    out
}

/// What identifies the state of a run folder: its input files' names, sizes
/// and modification times (publish's manifest, history's cache, serve's
/// change detection).
pub(crate) fn fingerprint(dir: &Path) -> Vec<(String, u64, i128)> {
    let mut files: Vec<(String, u64, i128)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    if !m.is_file() {
                        return None;
                    }
                    let ns = m
                        .modified()
                        .ok()?
                        .duration_since(std::time::UNIX_EPOCH)
                        .ok()?
                        .as_nanos() as i128;
                    let name = e.file_name().to_string_lossy().into_owned();
                    // Our own outputs, when a report was written into the run folder, are not inputs.
                    let output =
                        ["report.md", "index.html", "data.json"].contains(&name.as_str()) || name.starts_with('.');
                    (!output).then_some((name, m.len(), ns))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
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
