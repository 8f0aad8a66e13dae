//! Reading an input file whole: its size, its bytes under a bound, and a
//! line-oriented log through the parallel chunked reader. The incremental
//! twin for logs followed live is `incremental`.

use super::lines::{self, Tail};
use super::InputReport;
use std::path::Path;

/// The size of a present file; `Ok(None)` when it does not exist.
pub fn size_of(path: &Path) -> std::result::Result<Option<u64>, std::io::Error> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(_) => Err(std::io::Error::other("not a regular file")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A file's modification time, RFC 3339 in UTC.
pub fn mtime_of(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    jiff::Timestamp::try_from(modified).ok().map(|t| t.to_string())
}

/// A whole file of at most `max` bytes: `Ok(Err(size))` when it is larger
/// (read no further than `max + 1` bytes, should it grow meanwhile).
pub fn read_at_most(path: &Path, max: u64) -> std::io::Result<std::result::Result<Vec<u8>, u64>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
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
pub fn read_lines<S, F>(dir: &Path, name: &str, tail: Tail, format: Option<String>, make: F) -> (Option<S>, InputReport)
where
    S: lines::LineSink,
    F: Fn() -> S + Sync,
{
    let path = dir.join(name);
    match size_of(&path) {
        Ok(None) => (None, InputReport::absent(name)),
        Err(e) => (None, InputReport::unreadable(name, None, format!("cannot read: {e}"))),
        Ok(Some(_)) => match lines::parse_file(&path, 0, tail, make) {
            Ok(p) => {
                let report =
                    InputReport::from_parse(name, p.bytes, format, &p.stats).with_identity(mtime_of(&path), p.xxh3);
                (Some(p.sink), report)
            }
            Err(e) => (None, InputReport::unreadable(name, None, format!("cannot read: {e}"))),
        },
    }
}
