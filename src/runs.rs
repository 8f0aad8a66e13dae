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
const LEADS_OUT: &str = model::LEFT_THE_ROOT;

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

/// A run's key: its path under the root as text, the same for one folder
/// everywhere (history, the gate, its summary's links) and different for
/// two. A path in UTF-8 without a backslash is itself; otherwise each byte
/// that is not UTF-8 is written `\xNN` and a backslash `\\`, so two folder
/// names never share a key (`r-\xff` and `r-\xfe` were both `r-\u{fffd}`
/// when read lossily) and [`path_of_key`] gives the path back.
pub(crate) fn key_of(rel: &Path) -> String {
    use std::fmt::Write;
    let bytes = rel.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// The path a key [`key_of`] wrote names; `None` for text no key is.
pub fn path_of_key(key: &str) -> Option<PathBuf> {
    let mut out = Vec::with_capacity(key.len());
    let mut rest = key.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b != b'\\' {
            out.push(b);
            rest = tail;
            continue;
        }
        match tail {
            [b'\\', more @ ..] => {
                out.push(b'\\');
                rest = more;
            }
            [b'x', h, l, more @ ..] => {
                let hex = std::str::from_utf8(&[*h, *l])
                    .ok()
                    .and_then(|t| u8::from_str_radix(t, 16).ok())?;
                out.push(hex);
                rest = more;
            }
            _ => return None,
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// What identifies the state of a run folder's inputs (publish's manifest,
/// history's cache, serve's change detection): a SHA-256 over each entry's
/// name, size and modification time; for a link, its text and the size and
/// modification time of what it leads to, since a link inside the run is
/// read as an input (re-pointing `trace-x.json` from one attempt to its
/// retry is a change). `None` when the folder or an entry cannot be looked
/// at: such a run is read again every time, never taken from a cache. Only
/// the digest is kept, so the manifest a site publishes names no file.
pub(crate) fn fingerprint(dir: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let ns = |m: &std::fs::Metadata| -> Option<i128> {
        let t = m.modified().ok()?;
        Some(match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        })
    };
    let mut entries: Vec<Vec<u8>> = vec![];
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let name = e.file_name();
        let bytes = name.as_bytes();
        // Our own outputs, when a report was written into the run folder, are not inputs.
        let output = [b"report.md" as &[u8], b"index.html", b"data.json"].contains(&bytes) || bytes.starts_with(b".");
        if output {
            continue;
        }
        let path = e.path();
        let m = std::fs::symlink_metadata(&path).ok()?;
        let mut entry = bytes.to_vec();
        if m.file_type().is_symlink() {
            let text = std::fs::read_link(&path).ok()?;
            entry.extend_from_slice(b"\0->\0");
            entry.extend_from_slice(text.as_os_str().as_bytes());
            match std::fs::metadata(&path) {
                Ok(t) if t.is_file() => entry.extend_from_slice(format!("\0{}\0{}", t.len(), ns(&t)?).as_bytes()),
                Ok(_) => entry.extend_from_slice(b"\0not a file"),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => entry.extend_from_slice(b"\0to nothing"),
                Err(_) => return None,
            }
        } else if m.is_file() {
            entry.extend_from_slice(format!("\0{}\0{}", m.len(), ns(&m)?).as_bytes());
        } else {
            continue;
        }
        entries.push(entry);
    }
    entries.sort();
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for e in &entries {
        ctx.update(&(e.len() as u64).to_le_bytes());
        ctx.update(e);
    }
    let digest = ctx.finish();
    Some(digest.as_ref().iter().map(|b| format!("{b:02x}")).collect())
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

    /// Found by attacking history: two folders whose names are not UTF-8
    /// (`r-\xff`, `r-\xfe`) were one run lossily (`r-\u{fffd}`), so the
    /// gate and history disagreed and a summary linked one to the other's page.
    #[test]
    fn runs_are_keyed_by_their_raw_folder_names_distinct_when_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let names: [&[u8]; 8] = [
            b"r-\xff",
            b"r-\xfe",
            "r-\u{fffd}".as_bytes(),
            b"r-\\xff",
            b"r-\\\\",
            b"nightly/20261020T020000Z",
            b"20261020T020000Z",
            b"a\\",
        ];
        let keys: Vec<String> = names
            .iter()
            .map(|n| key_of(Path::new(std::ffi::OsStr::from_bytes(n))))
            .collect();
        for (i, k) in keys.iter().enumerate() {
            for other in &keys[i + 1..] {
                assert_ne!(k, other);
            }
            let back = path_of_key(k).unwrap();
            assert_eq!(back.as_os_str().as_bytes(), names[i], "{k}");
        }
        assert_eq!(keys[6], "20261020T020000Z", "an ordinary name is itself");
        assert_eq!(keys[5], "nightly/20261020T020000Z");
        assert_eq!(keys[0], "r-\\xff");
        assert_eq!(path_of_key("r-\\q"), None);
    }

    /// Found by attacking the gate: the fingerprint skipped links, which
    /// are read as inputs when they stay inside the run, so re-pointing
    /// `trace-pytorch.json` from a first attempt to a slower retry left the
    /// cache's figures standing and the gate passed a regressed night.
    #[test]
    fn the_fingerprint_sees_a_linked_input_re_pointed_and_a_folder_it_cannot_read_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        std::fs::create_dir_all(run.join("attempt-1")).unwrap();
        std::fs::create_dir_all(run.join("attempt-2")).unwrap();
        std::fs::write(run.join("attempt-1/trace.json"), "{\"a\": 1}").unwrap();
        std::fs::write(run.join("attempt-2/trace.json"), "{\"a\": 2}").unwrap();
        std::fs::write(run.join("run.json"), "{}").unwrap();
        std::os::unix::fs::symlink("attempt-1/trace.json", run.join("trace-pytorch.json")).unwrap();
        let first = fingerprint(run).unwrap();
        assert_eq!(
            fingerprint(run).unwrap(),
            first,
            "the same folder, the same fingerprint"
        );
        std::fs::remove_file(run.join("trace-pytorch.json")).unwrap();
        std::os::unix::fs::symlink("attempt-2/trace.json", run.join("trace-pytorch.json")).unwrap();
        let repointed = fingerprint(run).unwrap();
        assert_ne!(repointed, first, "the link now leads to another file");
        // The file it leads to rewritten in place, the link unchanged.
        std::fs::write(run.join("attempt-2/trace.json"), "{\"a\": 22}").unwrap();
        assert_ne!(fingerprint(run).unwrap(), repointed, "what the link leads to changed");
        assert!(!first.contains("trace"), "a digest names no file: {first}");
        assert_eq!(fingerprint(&run.join("no-such-run")), None);
    }
}
