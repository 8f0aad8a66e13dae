//! Reading an input file whole: opening it under the run directory's rule,
//! its bytes under a bound, and a line-oriented log through the parallel
//! chunked reader. The incremental twin for logs followed live is
//! `incremental`.
//!
//! Every input of a run is opened here, by [`RunDir::open`]: only a regular
//! file is read (a FIFO would block the read forever, a device could be
//! anything), and only one whose real path stays inside the run directory,
//! so a `zot.jsonl -> /etc/passwd` planted by whoever writes the run cannot
//! carry that file's lines into a published report.

use super::lines::{self, Tail};
use super::InputReport;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

/// Whether an input whose real path leaves its run directory is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Links {
    /// Not read: the input counts as absent, with a warning naming it.
    #[default]
    StayInside,
    /// Read wherever it leads (`report --follow-links`, for a user who means it).
    Follow,
}

/// A run directory whose inputs are opened by the rule above.
#[derive(Debug, Clone)]
pub(crate) struct RunDir {
    path: PathBuf,
    /// The directory's real path; `None` when it has none (it vanished).
    real: Option<PathBuf>,
    links: Links,
}

/// An input opened for reading: a regular file, and what `fstat` said of it.
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) meta: Metadata,
}

impl Opened {
    /// The file's modification time, RFC 3339 in UTC.
    pub(crate) fn mtime(&self) -> Option<String> {
        mtime_from(&self.meta)
    }
}

/// Why an input was not opened.
#[derive(Debug)]
pub(crate) enum NotOpened {
    /// No such file.
    Absent,
    /// Present but not read, on purpose: the reason, for the warning.
    Skipped(String),
    /// The file system failed.
    Failed(std::io::Error),
}

impl NotOpened {
    /// The input's report: absent (with the reason when it was skipped), or unreadable.
    pub(crate) fn report(self, name: &str) -> InputReport {
        match self {
            NotOpened::Absent => InputReport::absent(name),
            NotOpened::Skipped(why) => {
                let mut r = InputReport::absent(name);
                r.warnings.push(format!("{name}: {why}: not read"));
                r
            }
            NotOpened::Failed(e) => InputReport::unreadable(name, None, format!("cannot read: {e}")),
        }
    }
}

impl RunDir {
    pub(crate) fn new(path: &Path, links: Links) -> Self {
        RunDir {
            path: path.to_path_buf(),
            real: path.canonicalize().ok(),
            links,
        }
    }

    /// Opens the input `name`: a regular file (a FIFO, device, socket or
    /// directory in its place is skipped, by its kind), whose real path is
    /// inside the run directory unless links are followed. The kind is
    /// checked before the open (opening a device can have effects), again on
    /// the open descriptor, and the real path is that of the descriptor, so
    /// a file swapped in between is judged as what was opened.
    pub(crate) fn open(&self, name: &str) -> Result<Opened, NotOpened> {
        let path = self.path.join(name);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(NotOpened::Absent),
            Err(e) => return Err(NotOpened::Failed(e)),
            Ok(_) => {}
        }
        let before = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(NotOpened::Skipped("a symlink to nothing".into()))
            }
            Err(e) => return Err(NotOpened::Failed(e)),
        };
        if let Some(kind) = not_regular(&before) {
            return Err(NotOpened::Skipped(format!("{kind}, not a regular file")));
        }
        let file = open_nonblocking(&path).map_err(NotOpened::Failed)?;
        let meta = file.metadata().map_err(NotOpened::Failed)?;
        if let Some(kind) = not_regular(&meta) {
            return Err(NotOpened::Skipped(format!("{kind}, not a regular file")));
        }
        if self.links == Links::StayInside && !self.holds(&file, &path) {
            return Err(NotOpened::Skipped(
                "a link leading out of the run directory (`report --follow-links` reads it)".into(),
            ));
        }
        Ok(Opened { file, meta })
    }

    /// The input `name` whole, when it opens by the rule and holds at most
    /// `max` bytes (for a glance such as a run's start time).
    pub(crate) fn read_at_most(&self, name: &str, max: u64) -> Option<Vec<u8>> {
        let opened = self.open(name).ok()?;
        read_open_at_most(opened.file, opened.meta.len(), max).ok()?.ok()
    }

    /// Whether the open `file` (opened as `path`) lies inside the run directory.
    fn holds(&self, file: &File, path: &Path) -> bool {
        let Some(root) = &self.real else {
            return false;
        };
        real_path_of(file, path).is_some_and(|real| real.starts_with(root))
    }
}

/// The real path of an open file: the kernel's (`/proc/self/fd`), else the
/// path's own resolution.
fn real_path_of(file: &File, path: &Path) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Some(real);
        }
    }
    let _ = file;
    path.canonicalize().ok()
}

/// Opens for reading without blocking on a FIFO swapped in after the check
/// (O_NONBLOCK changes nothing for a regular file's reads).
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path)
}

/// What a file that is not a regular file is, for the warning.
fn not_regular(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some(if t.is_dir() { "a directory" } else { "not a file" })
}

fn mtime_from(meta: &Metadata) -> Option<String> {
    let modified = meta.modified().ok()?;
    jiff::Timestamp::try_from(modified).ok().map(|t| t.to_string())
}

/// A file's modification time, RFC 3339 in UTC.
pub(crate) fn mtime_of(path: &Path) -> Option<String> {
    mtime_from(&std::fs::metadata(path).ok()?)
}

/// A whole file of at most `max` bytes: `Ok(Err(size))` when it is larger
/// (read no further than `max + 1` bytes, should it grow meanwhile).
pub(crate) fn read_at_most(path: &Path, max: u64) -> std::io::Result<std::result::Result<Vec<u8>, u64>> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    read_open_at_most(file, size, max)
}

/// [`read_at_most`] of a file already open, whose size is `size`.
pub(crate) fn read_open_at_most(file: File, size: u64, max: u64) -> std::io::Result<std::result::Result<Vec<u8>, u64>> {
    use std::io::Read;
    if size > max {
        return Ok(Err(size));
    }
    let mut data = Vec::with_capacity(size as usize);
    file.take(max + 1).read_to_end(&mut data)?;
    if data.len() as u64 > max {
        return Ok(Err(data.len() as u64));
    }
    Ok(Ok(data))
}

/// Parses a line-oriented input with the parallel chunked reader.
pub(crate) fn read_lines<S, F>(
    run: &RunDir,
    name: &str,
    tail: Tail,
    format: Option<String>,
    make: F,
) -> (Option<S>, InputReport)
where
    S: lines::LineSink,
    F: Fn() -> S + Sync,
{
    let mut opened = match run.open(name) {
        Ok(o) => o,
        Err(not) => return (None, not.report(name)),
    };
    match lines::parse_reader(&mut opened.file, tail, make) {
        Ok(p) => {
            let report = InputReport::from_parse(name, p.bytes, format, &p.stats).with_identity(opened.mtime(), p.xxh3);
            (Some(p.sink), report)
        }
        Err(e) => (None, InputReport::unreadable(name, None, format!("cannot read: {e}"))),
    }
}
