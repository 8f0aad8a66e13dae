//! Writing outputs: every file goes to a temporary name in its own directory
//! and is renamed into place, so a reader never sees half a file.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One output file, relative to the output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl OutFile {
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Self {
        OutFile {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` through a temporary file and a rename. A file
/// that already holds exactly these bytes is left alone (its modification
/// time too), which keeps repeated runs cheap and incremental publishing honest.
/// Returns whether the file was (re)written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<bool> {
    let err = |source: std::io::Error| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Ok(existing) = std::fs::read(path) {
        if existing == bytes {
            return Ok(false);
        }
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    // Unique per process and call: two reports of one run at once never share a temporary.
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    Ok(true)
}

/// Writes every file under `out_dir`; returns how many were (re)written.
pub fn write_all(out_dir: &Path, files: &[OutFile]) -> Result<usize> {
    let mut written = 0;
    for f in files {
        if write_atomic(&out_dir.join(&f.path), &f.bytes)? {
            written += 1;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_leave_no_temporaries_and_identical_bytes_are_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/data.json");
        assert!(write_atomic(&p, b"{}").unwrap());
        assert!(!write_atomic(&p, b"{}").unwrap());
        assert!(write_atomic(&p, b"{\"a\":1}").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"{\"a\":1}");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("data.json")]);
    }
}
