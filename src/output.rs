//! Writing outputs: every file goes to a temporary name in its own directory
//! and is renamed into place, so a reader never sees half a file.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// One output file, relative to the output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl OutFile {
    pub(crate) fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Self {
        OutFile {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename. A file
/// that already holds exactly these bytes is left alone (its modification
/// time too), which keeps repeated runs cheap and incremental publishing honest.
/// Returns whether the file was (re)written.
///
/// The temporary is created exclusively (`O_EXCL`, a random name, by
/// `tempfile`) in the target's own directory: a symlink or file planted at a
/// guessable name is neither followed nor clobbered. The rename replaces a
/// symlink (or FIFO, or device) at `path` itself rather than writing through
/// it: right for the files of an output directory, which are this tool's;
/// a path the user named goes through [`write_named`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<bool> {
    write_atomic_noting(path, bytes, &mut |_, _| {})
}

/// What names one file on this machine: its device and inode. A file
/// `serve` wrote is known by it, so a link or another file put at the
/// output's name is not taken for the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

/// [`write_atomic`], telling `note` the identity of the file that stands at
/// `path` once it returns, with a descriptor of it: the temporary's, before
/// its rename (so a reader that checks identities never sees the new file
/// unknown), or the one already there when it holds exactly these bytes.
/// Whoever keeps the descriptor keeps the inode: while it is held, no other
/// file can be given that inode number and pass for this one.
pub(crate) fn write_atomic_noting(
    path: &Path,
    bytes: &[u8],
    note: &mut dyn FnMut(FileId, std::fs::File),
) -> Result<bool> {
    let err = |source: std::io::Error| Error::Write {
        path: path.to_path_buf(),
        error: source,
    };
    if let Some((id, file)) = holds(path, bytes) {
        note(id, file);
        return Ok(false);
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
    let prefix = format!(".{name}.tmp-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    // tempfile's default is 0600; outputs are published (rsync -a keeps
    // modes), so ask for 0666 as File::create does: open(2) takes the umask
    // off, giving 0644 under the usual 022, without reading the umask (which
    // only umask(2) can, by changing it for every thread at once).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.as_file().sync_data().map_err(err)?;
    note(
        FileId::of(&tmp.as_file().metadata().map_err(err)?),
        tmp.as_file().try_clone().map_err(err)?,
    );
    // On failure the temporary is removed when `tmp` (or the error holding it) drops.
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(true)
}

/// Where a file named by an output option (`trace -o`, `--costs-out`,
/// `--fleet-out`) went. (`-`, standard output, is the command's to print.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// A device or a FIFO (or a symlink to one), opened and written in place.
    InPlace,
    /// A regular file, by a temporary and a rename ([`write_atomic`]).
    Replaced,
}

/// Whether a named output that is a symlink to a regular file is written
/// through (to the file it names, which the rename replaces; the link stays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedLinks {
    /// Refused; the command's `--follow-links` writes through it.
    Refuse,
    /// Refused, by a command that has no `--follow-links` (`gate`).
    Never,
    WriteThrough,
}

/// Writes a file the user named on the command line. A path that is a device or a FIFO, or a symlink to one, is
/// opened and written in place, never replaced by a rename (which would
/// turn `/dev/null` into a regular file, or leave a reader of the FIFO
/// waiting). A symlink to a regular file is refused, unless `links` says to
/// write through it. Anything else goes through [`write_atomic`].
pub fn write_named(path: &Path, bytes: &[u8], links: NamedLinks) -> Result<Written> {
    let err = |source: std::io::Error| Error::Write {
        path: path.to_path_buf(),
        error: source,
    };
    let refuse = |why: &str| err(std::io::Error::other(why.to_string()));
    let link = match std::fs::symlink_metadata(path) {
        Ok(m) => m.file_type().is_symlink(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_atomic(path, bytes)?;
            return Ok(Written::Replaced);
        }
        Err(e) => return Err(err(e)),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refuse("a symlink to nothing: refused (name the file it should create)"))
        }
        Err(e) => return Err(err(e)),
    };
    if meta.is_dir() {
        return Err(refuse("a directory"));
    }
    if !meta.is_file() {
        // A device, a FIFO, a socket's path: written as a shell's `>` would.
        let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(err)?;
        f.write_all(bytes).and_then(|()| f.flush()).map_err(err)?;
        return Ok(Written::InPlace);
    }
    if !link {
        write_atomic(path, bytes)?;
        return Ok(Written::Replaced);
    }
    match links {
        NamedLinks::Refuse => Err(refuse(
            "a symlink to a regular file: refused, so a planted link cannot aim the write (--follow-links writes through it)",
        )),
        NamedLinks::Never => Err(refuse(
            "a symlink to a regular file: refused, so a planted link cannot aim the write (name the file itself)",
        )),
        NamedLinks::WriteThrough => {
            let real = path.canonicalize().map_err(err)?;
            write_atomic(&real, bytes)?;
            Ok(Written::Replaced)
        }
    }
}

/// The identity of `path` when it is a regular file holding exactly
/// `bytes`. Opened without following a link and without blocking (a FIFO
/// or device is never read), and judged by what the open descriptor is, so
/// a file swapped in meanwhile is judged as what was read.
fn holds(path: &Path, bytes: &[u8]) -> Option<(FileId, std::fs::File)> {
    use std::io::Read;
    let mut file = crate::input::read::open_no_follow(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() != bytes.len() as u64 {
        return None;
    }
    let mut existing = Vec::with_capacity(bytes.len());
    (&mut file)
        .take(bytes.len() as u64 + 1)
        .read_to_end(&mut existing)
        .ok()?;
    (existing == bytes).then(|| (FileId::of(&meta), file))
}

/// Writes every file under `out_dir`; returns how many were (re)written.
/// A directory on the way that is a symlink is refused: the output directory
/// defaults to the run directory, which others can write, and a planted
/// `charts -> /elsewhere` must not carry the report's writes out of it.
pub fn write_all(out_dir: &Path, files: &[OutFile]) -> Result<usize> {
    write_all_inside(out_dir, Path::new(""), files)
}

/// `base/rel` as a directory, made one component at a time. `rel` must be
/// plain (relative, no `..`) and every component a real directory: one that
/// is a symlink (or not a directory) is refused, so nothing planted under
/// `base` can carry a write out of it. `base` itself is trusted.
pub(crate) fn real_dir_inside(base: &Path, rel: &Path) -> Result<PathBuf> {
    let refuse = |at: &Path, why: &str| Error::Write {
        path: at.to_path_buf(),
        error: std::io::Error::other(why.to_string()),
    };
    let mut at = base.to_path_buf();
    for c in rel.components() {
        let Component::Normal(c) = c else {
            return Err(refuse(&base.join(rel), "not a plain relative path"));
        };
        at.push(c);
        let made = match std::fs::create_dir(&at) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(error) => return Err(Error::Write { path: at, error }),
        };
        if !made && !std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) {
            return Err(refuse(&at, "exists and is not a directory (a symlink is not followed)"));
        }
    }
    Ok(at)
}

/// [`write_all`] into `base/rel`, every directory on the way checked by
/// [`real_dir_inside`]; the files' own paths must be plain too.
pub(crate) fn write_all_inside(base: &Path, rel: &Path, files: &[OutFile]) -> Result<usize> {
    write_all_inside_noting(base, rel, files, &mut |_, _, _| {})
}

/// [`write_all_inside`], telling `note` each file's path (as given) and the
/// identity of what stands there (see [`write_atomic_noting`]).
pub(crate) fn write_all_inside_noting(
    base: &Path,
    rel: &Path,
    files: &[OutFile],
    note: &mut dyn FnMut(&Path, FileId, std::fs::File),
) -> Result<usize> {
    let mut written = 0;
    for f in files {
        let file_name = f
            .path
            .file_name()
            .filter(|_| f.path.components().all(|c| matches!(c, Component::Normal(_))));
        let Some(file_name) = file_name else {
            return Err(Error::Write {
                path: base.join(rel).join(&f.path),
                error: std::io::Error::other("not a plain relative path"),
            });
        };
        let sub = f.path.parent().unwrap_or(Path::new(""));
        let dir = real_dir_inside(base, &rel.join(sub))?;
        if write_atomic_noting(&dir.join(file_name), &f.bytes, &mut |id, file| note(&f.path, id, file))? {
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

    #[test]
    fn a_symlink_or_file_planted_at_a_predictable_temporary_name_is_neither_followed_nor_clobbered() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("victim");
        std::fs::write(&victim, "victim").unwrap();
        // Every name a predictable scheme (`.<name>.tmp-<pid>-<counter>`) would
        // pick in this process: a symlink out, or a file someone else owns.
        let pid = std::process::id();
        let planted: Vec<PathBuf> = (0..2048)
            .map(|n| dir.path().join(format!(".data.json.tmp-{pid}-{n}")))
            .collect();
        for (n, p) in planted.iter().enumerate() {
            if n % 2 == 0 {
                std::os::unix::fs::symlink(&victim, p).unwrap();
            } else {
                std::fs::write(p, "planted").unwrap();
            }
        }
        let out = dir.path().join("data.json");
        assert!(write_atomic(&out, b"{}").unwrap());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim");
        assert!(std::fs::symlink_metadata(&out).unwrap().is_file());
        assert_eq!(std::fs::read(&out).unwrap(), b"{}");
        for (n, p) in planted.iter().enumerate() {
            let meta = std::fs::symlink_metadata(p).unwrap();
            if n % 2 == 0 {
                assert!(meta.is_symlink(), "{}", p.display());
            } else {
                assert_eq!(std::fs::read_to_string(p).unwrap(), "planted", "{}", p.display());
            }
        }
    }

    #[test]
    fn a_symlink_at_the_output_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("victim");
        std::fs::write(&victim, "{}").unwrap();
        let out = dir.path().join("data.json");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        // Even when what it points at holds the very bytes: the output is not a file of ours.
        assert!(write_atomic(&out, b"{}").unwrap());
        assert!(std::fs::symlink_metadata(&out).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "{}");
    }

    #[test]
    fn outputs_get_the_mode_file_create_gives_not_a_temporarys_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).unwrap();
        let out = dir.path().join("report.md");
        write_atomic(&out, b"# run").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&out), mode(&reference));
        assert_ne!(mode(&out) & 0o044, 0, "readable by the web server (umask 022 or 002)");
    }

    #[test]
    fn writes_inside_a_base_refuse_a_symlinked_or_unplain_directory() {
        let base = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(base.path().join("runs")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), base.path().join("runs/linked")).unwrap();
        let files = [OutFile::new("charts/timeline.svg", "<svg/>")];
        assert!(write_all_inside(base.path(), Path::new("runs/linked"), &files).is_err());
        assert!(write_all_inside(base.path(), Path::new("runs/../x"), &files).is_err());
        assert!(write_all_inside(base.path(), Path::new("runs"), &[OutFile::new("../x", "")]).is_err());
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).unwrap().count(),
            0,
            "nothing written through the link"
        );
        assert_eq!(write_all_inside(base.path(), Path::new("runs/r1"), &files).unwrap(), 1);
        assert!(base.path().join("runs/r1/charts/timeline.svg").is_file());
    }
}
