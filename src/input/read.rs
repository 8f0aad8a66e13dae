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
///
/// The directory is opened once, when the `RunDir` is made, and every input
/// is opened relative to that handle (`openat`): a run folder re-pointed
/// after it was checked (`mv r1 .away; ln -s /elsewhere r1`) changes
/// nothing of what is read, and its real path is the handle's.
#[derive(Debug, Clone)]
pub(crate) struct RunDir {
    path: PathBuf,
    /// The directory as opened; `None` when it could not be (it vanished).
    handle: Option<std::sync::Arc<std::os::fd::OwnedFd>>,
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

/// A name that is one plain path component: the only names opened
/// relative to a run folder's handle.
fn plain_name(name: &str) -> bool {
    let mut c = Path::new(name).components();
    matches!((c.next(), c.next()), (Some(std::path::Component::Normal(_)), None)) && !name.contains('/')
}

impl RunDir {
    pub(crate) fn new(path: &Path, links: Links) -> Self {
        use rustix::fs::{Mode, OFlags};
        let handle = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .ok();
        RunDir {
            path: path.to_path_buf(),
            handle: handle.map(std::sync::Arc::new),
            links,
        }
    }

    /// The directory's real path now, by its handle (the folder opened,
    /// wherever it has moved since); `None` when it has none.
    fn real(&self) -> Option<PathBuf> {
        self.handle.as_deref().and_then(real_path_of_fd)
    }

    /// The directory's path as it was named.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the directory, as opened, lies inside `real_root` (a real path).
    pub(crate) fn lies_within(&self, real_root: &Path) -> bool {
        self.real().is_some_and(|r| r.starts_with(real_root))
    }

    /// The names the directory holds, as opened; `Err` when it cannot be listed.
    pub(crate) fn names(&self) -> std::io::Result<Vec<std::ffi::OsString>> {
        use std::os::unix::ffi::OsStrExt;
        let Some(handle) = &self.handle else {
            return Err(std::io::ErrorKind::NotFound.into());
        };
        let dir = rustix::fs::Dir::read_from(handle.as_ref()).map_err(std::io::Error::from)?;
        let mut names = vec![];
        for entry in dir {
            let entry = entry.map_err(std::io::Error::from)?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(std::ffi::OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    /// What the entry `name` is, not following a link (`None`: no such entry).
    fn entry_meta(&self, name: &std::ffi::OsStr, follow: bool) -> std::io::Result<Option<rustix::fs::Stat>> {
        use rustix::fs::AtFlags;
        let Some(handle) = &self.handle else {
            return Ok(None);
        };
        let flags = if follow {
            AtFlags::empty()
        } else {
            AtFlags::SYMLINK_NOFOLLOW
        };
        match rustix::fs::statat(handle.as_ref(), name, flags) {
            Ok(st) => Ok(Some(st)),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Opens the input `name`: a regular file (a FIFO, device, socket or
    /// directory in its place is skipped, by its kind), whose real path is
    /// inside the run directory unless links are followed. The kind is
    /// checked before the open (opening a device can have effects), again on
    /// the open descriptor, and the real path is that of the descriptor, so
    /// a file swapped in between is judged as what was opened. The name is
    /// opened relative to the directory's handle, never by its path.
    pub(crate) fn open(&self, name: &str) -> Result<Opened, NotOpened> {
        use rustix::fs::{Mode, OFlags};
        let Some(handle) = &self.handle else {
            return Err(NotOpened::Absent);
        };
        if !plain_name(name) {
            return Err(NotOpened::Skipped("not a plain file name".into()));
        }
        let os = std::ffi::OsStr::new(name);
        match self.entry_meta(os, false) {
            Ok(None) => return Err(NotOpened::Absent),
            Err(e) => return Err(NotOpened::Failed(e)),
            Ok(Some(_)) => {}
        }
        let before = match self.entry_meta(os, true) {
            Ok(Some(st)) => st,
            Ok(None) => return Err(NotOpened::Skipped("a symlink to nothing".into())),
            Err(e) => return Err(NotOpened::Failed(e)),
        };
        if let Some(kind) = not_regular_mode(before.st_mode) {
            return Err(NotOpened::Skipped(format!("{kind}, not a regular file")));
        }
        let fd = rustix::fs::openat(
            handle.as_ref(),
            os,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
            Mode::empty(),
        )
        .map_err(|e| NotOpened::Failed(e.into()))?;
        let file = File::from(fd);
        let meta = file.metadata().map_err(NotOpened::Failed)?;
        if let Some(kind) = not_regular(&meta) {
            return Err(NotOpened::Skipped(format!("{kind}, not a regular file")));
        }
        if self.links == Links::StayInside && !self.holds(&file) {
            return Err(NotOpened::Skipped(
                "a link leading out of the run directory (`report --follow-links` reads it)".into(),
            ));
        }
        Ok(Opened { file, meta })
    }

    /// The text of the link `name`, read relative to the directory's handle;
    /// `None` when `name` is no link (or cannot be read as one).
    pub(crate) fn link_text(&self, name: &str) -> Option<Vec<u8>> {
        let handle = self.handle.as_ref()?;
        if !plain_name(name) {
            return None;
        }
        rustix::fs::readlinkat(handle.as_ref(), name, Vec::new())
            .ok()
            .map(|t| t.into_bytes())
    }

    /// The input `name` whole, when it opens by the rule and holds at most
    /// `max` bytes (for a glance such as a run's start time).
    pub(crate) fn read_at_most(&self, name: &str, max: u64) -> Option<Vec<u8>> {
        let opened = self.open(name).ok()?;
        read_open_at_most(opened.file, opened.meta.len(), max).ok()?.ok()
    }

    /// Whether the open `file` lies inside the run directory.
    fn holds(&self, file: &File) -> bool {
        let Some(root) = self.real() else {
            return false;
        };
        real_path_of_fd(file).is_some_and(|real| real.starts_with(&root))
    }
}

/// The real path of an open file or directory: the kernel's name for the
/// descriptor (`/proc/self/fd`). `None` where there is none (a file
/// removed since, or no /proc): what cannot be placed is not inside.
fn real_path_of_fd(fd: &impl std::os::fd::AsRawFd) -> Option<PathBuf> {
    let real = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
    // A file or folder removed since it was opened is named "… (deleted)".
    (real.is_absolute() && !real.as_os_str().as_encoded_bytes().ends_with(b" (deleted)")).then_some(real)
}

/// Opens for reading without following a link at the last component and
/// without blocking on a FIFO (O_NONBLOCK changes nothing for a regular
/// file's reads): for a file perfreport wrote itself, or one it reads by
/// name under the same rules as a run's inputs.
pub(crate) fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    options.open(path)
}

/// Whether a file read by name may be a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadLinks {
    /// A link to a regular file is read: a path the user named
    /// (`--expect`, `buildlog LOG`, `ratios`' and `--bench`'s bench.jsonl).
    Follow,
    /// A link is not read: a file perfreport wrote itself and reads back
    /// (publish's `manifest.json`), which nobody else should aim.
    Refuse,
}

/// Opens a file read by name under the rules of a run's inputs: only a
/// regular file is read, opened without blocking (a FIFO or device is
/// refused by its kind, judged on the descriptor, never waited on or read
/// forever), and a link only when `links` allows it.
pub(crate) fn open_named(path: &Path, links: ReadLinks) -> std::io::Result<(File, Metadata)> {
    let refuse = |why: String| std::io::Error::other(why);
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    if links == ReadLinks::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, flags);
    // The kind before the open too: opening a device can have effects.
    let before = std::fs::symlink_metadata(path)?;
    if before.file_type().is_symlink() && links == ReadLinks::Refuse {
        return Err(refuse(
            "a symlink: not followed (perfreport reads its own file only)".into(),
        ));
    }
    if let Some(kind) = not_regular(&std::fs::metadata(path)?) {
        return Err(refuse(format!("{kind}, not a regular file: not read")));
    }
    let file = match options.open(path) {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refuse(
                "a symlink: not followed (perfreport reads its own file only)".into(),
            ))
        }
        other => other?,
    };
    let meta = file.metadata()?;
    if let Some(kind) = not_regular(&meta) {
        return Err(refuse(format!("{kind}, not a regular file: not read")));
    }
    Ok((file, meta))
}

/// A file read by name ([`open_named`]) whole, when it holds at most `max`
/// bytes; a larger one is refused with its size, never read past `max + 1`.
pub fn read_named(path: &Path, links: ReadLinks, max: u64) -> std::io::Result<Vec<u8>> {
    let (file, meta) = open_named(path, links)?;
    match read_open_at_most(file, meta.len(), max)? {
        Ok(data) => Ok(data),
        Err(size) => Err(std::io::Error::other(format!(
            "{size} bytes, more than the {} MiB it may be: not read",
            max >> 20
        ))),
    }
}

/// What a mode that is not a regular file's is, for the warning.
fn not_regular_mode(mode: u32) -> Option<&'static str> {
    use rustix::fs::FileType;
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile => None,
        FileType::Fifo => Some("a FIFO"),
        FileType::CharacterDevice | FileType::BlockDevice => Some("a device"),
        FileType::Socket => Some("a socket"),
        FileType::Directory => Some("a directory"),
        _ => Some("not a file"),
    }
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
pub(crate) fn mtime_of(meta: &Metadata) -> Option<String> {
    mtime_from(meta)
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
