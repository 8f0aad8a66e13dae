//! The figures of every run under a root, each read once: a cache beside the
//! outputs keeps each run's figures with the fingerprint of its files (names,
//! sizes, modification times, as publish's manifest does), so a run whose
//! files did not change is not parsed again.

use super::Figures;
use crate::output::write_atomic;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache's file name: a dotfile, so a root holding it lists no new run.
pub(crate) const CACHE: &str = ".history-cache.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    /// Another tool may compute other figures: its cache is not used.
    tool: String,
    runs: BTreeMap<String, CachedRun>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CachedRun {
    /// The run folder's fingerprint (`runs::fingerprint`).
    inputs: String,
    figures: Figures,
}

/// Every run found, oldest first, those left out included (with the reason).
#[derive(Debug, Default)]
pub struct Collected {
    pub runs: Vec<Figures>,
    /// Runs read from their files this time; the rest came from the cache.
    pub parsed: usize,
    pub warnings: Vec<String>,
}

/// The figures of one run folder, read from its files. A run that cannot be
/// read, or on which perfreport fails, is left out with the reason.
pub(crate) fn read_run(dir: &str, path: &Path, read: &crate::model::Options) -> Figures {
    // A panic leaves nothing of the server half-done that a later read
    // relies on: its request slots are freed as the panic unwinds.
    let load = || crate::model::load_from(path, None, read).map(|r| crate::measure::analyse(&r).figures);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(load));
    match run {
        Ok(Ok(mut f)) => {
            f.dir = dir.to_string();
            f
        }
        Ok(Err(e)) => Figures::unreadable(dir, format!("cannot be read: {e}")),
        Err(_) => Figures::unreadable(dir, "perfreport panicked on this run (a bug: please report it)".into()),
    }
}

/// A cache larger than this is not read (1,000 runs take about 2 MB).
const MAX_CACHE_BYTES: u64 = 256 << 20;

fn load_cache(file: Option<&Path>, tool: &str) -> Cache {
    // Only a regular file of bounded size, not followed through a link: a
    // planted FIFO would block the read and a huge file fill memory.
    let regular = |f: &&Path| std::fs::symlink_metadata(f).is_ok_and(|m| m.is_file());
    let cache: Cache = file
        .filter(regular)
        .and_then(|f| crate::model::read_at_most(f, MAX_CACHE_BYTES).ok()?.ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    if cache.tool == tool {
        cache
    } else {
        Cache::default()
    }
}

/// The runs under `root` (as publish finds them, `leave_out` skipped), each
/// from `cache_file` when its files did not change, else read. The cache is
/// rewritten when it can be; when not, a warning says so.
pub fn collect(root: &Path, cache_file: Option<&Path>, leave_out: Option<&Path>) -> Collected {
    collect_with(root, cache_file, leave_out, &crate::model::Options::default())
}

/// As `collect`, each run read as `read` says (its node samples from a
/// server); figures read one way are not taken from a cache of the other.
pub fn collect_with(
    root: &Path,
    cache_file: Option<&Path>,
    leave_out: Option<&Path>,
    read: &crate::model::Options,
) -> Collected {
    let read = &crate::model::Options {
        links: crate::model::Links::StayInside,
        root: Some(root.to_path_buf()),
        ..read.clone()
    };
    let tool = read.cache_id();
    let walked = crate::runs::walk(root, leave_out);
    let old = load_cache(cache_file, &tool);
    let read: Vec<(String, CachedRun, bool)> = walked
        .runs
        .par_iter()
        .map(|(rel, path)| {
            // Keyed, cached and shown by the path's exact bytes.
            let key = crate::runs::key_of(rel);
            let inputs = crate::runs::fingerprint(path);
            let cached = inputs
                .as_ref()
                .and_then(|fp| old.runs.get(&key).filter(|c| c.inputs == *fp));
            match cached {
                Some(c) => (key, c.clone(), false),
                None => {
                    let figures = read_run(&key, path, read);
                    // A run whose inputs cannot be fingerprinted is read
                    // every time: its empty fingerprint is never kept.
                    let inputs = inputs.unwrap_or_default();
                    (key, CachedRun { inputs, figures }, true)
                }
            }
        })
        .collect();
    let mut out = Collected {
        parsed: read.iter().filter(|r| r.2).count(),
        ..Default::default()
    };
    let mut cache = Cache {
        tool,
        runs: BTreeMap::new(),
    };
    for (key, c, _) in read {
        out.runs.push(c.figures.clone());
        if !c.inputs.is_empty() {
            cache.runs.insert(key, c);
        }
    }
    for (at, what) in walked.unreadable {
        let dir = crate::runs::key_of(at.strip_prefix(root).unwrap_or(&at));
        out.runs.push(Figures::unreadable(&dir, format!("{what}: skipped")));
    }
    out.runs.sort_by(|a, b| a.order().cmp(&b.order()));
    if let Some(f) = cache_file {
        if out.parsed > 0 || old.runs.len() != cache.runs.len() {
            let mut bytes = serde_json::to_vec(&cache).unwrap_or_default();
            bytes.push(b'\n');
            if let Err(e) = write_atomic(f, &bytes) {
                out.warnings.push(format!(
                    "the history cache cannot be written ({e}): the next history reads every run again"
                ));
            }
        }
    }
    out
}

/// The cache file of a history written into `out`.
pub fn cache_in(out: &Path) -> PathBuf {
    out.join(CACHE)
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    /// Found by attacking history: the cache was read through a symlink, of
    /// any size, and a FIFO planted at its name would block the read forever.
    #[test]
    fn a_cache_that_is_not_a_regular_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let mut cache = Cache {
            tool: crate::figures::Tool::cache_id(),
            ..Default::default()
        };
        cache.runs.insert(
            "r".into(),
            CachedRun {
                inputs: "x".into(),
                figures: Figures::unreadable("r", "not read".into()),
            },
        );
        std::fs::write(&real, serde_json::to_vec(&cache).unwrap()).unwrap();
        let tool = crate::figures::Tool::cache_id();
        assert_eq!(load_cache(Some(&real), &tool).runs.len(), 1, "a regular file is read");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(load_cache(Some(&link), &tool).runs.is_empty());
        assert!(load_cache(Some(dir.path()), &tool).runs.is_empty());
    }

    /// Found by attacking history: folders whose names are not UTF-8 were
    /// read lossily, so `r-\xff` and `r-\xfe` were one run to history and
    /// two to the gate. Each run is its raw name's key.
    #[test]
    fn runs_whose_folder_names_are_not_utf8_stay_distinct() {
        use std::os::unix::ffi::OsStrExt;
        let root = tempfile::tempdir().unwrap();
        for name in [b"r-\xff" as &[u8], b"r-\xfe"] {
            let dir = root.path().join(std::ffi::OsStr::from_bytes(name));
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("run.json"), "{}").unwrap();
        }
        let cache = root.path().join(CACHE);
        let first = collect(root.path(), Some(&cache), None);
        let dirs: Vec<&str> = first.runs.iter().map(|f| f.dir.as_str()).collect();
        assert_eq!(dirs.len(), 2, "{dirs:?}");
        assert_ne!(dirs[0], dirs[1]);
        for d in &dirs {
            let back = crate::runs::path_of_key(d).unwrap();
            assert!(root.path().join(back).is_dir(), "{d}");
        }
        let again = collect(root.path(), Some(&cache), None);
        assert_eq!(again.parsed, 0, "both from the cache");
        let mut again: Vec<String> = again.runs.iter().map(|f| f.dir.clone()).collect();
        let mut dirs: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
        again.sort();
        dirs.sort();
        assert_eq!(again, dirs);
    }
}
