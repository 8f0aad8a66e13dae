//! Reading a log that is still being written from where the previous read
//! stopped: only the new whole lines are parsed, appended in file order to
//! the aggregate kept from before. A file that was truncated or replaced
//! (another inode, shorter than what was read, or different bytes at its
//! start or just before the offset) is parsed again from the start. (A
//! rewrite in place to the same length that keeps both of those is not
//! noticed: producers append, or truncate and rewrite from the start.)

use crate::lines::{self, LineSink, ParseStats, Tail};
use std::fs::{File, Metadata};
use std::hash::Hasher as _;
use std::io::{Read, Seek, SeekFrom};
use twox_hash::XxHash3_64 as Xxh3;

/// Bytes before the offset compared on every refresh to notice a file
/// rewritten in place to at least the same length.
const GUARD: u64 = 64;

/// What was parsed of one log so far: whole lines up to `offset`.
#[derive(Clone)]
pub struct Tracked<S> {
    file_id: (u64, u64),
    offset: u64,
    head: Vec<u8>,
    guard: Vec<u8>,
    /// What the aggregate was made under (a format, a window): another tag
    /// parses again from the start.
    tag: String,
    sink: S,
    stats: ParseStats,
    hasher: Xxh3,
    /// The offset lies inside a line longer than the reader holds, already
    /// counted: the next parse passes over the rest of it.
    skipping: bool,
}

impl<S> Tracked<S> {
    /// Bytes of whole lines already parsed (what the next read skips).
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// The log as read now: the aggregate of every line, including the
/// unfinished last one (which the next read parses again).
pub struct Followed<S> {
    pub sink: S,
    pub stats: ParseStats,
    /// Bytes read in all, the unfinished last line included.
    pub bytes: u64,
    /// xxh3 of those bytes.
    pub xxh3: u64,
}

/// Reads `file` on from what `slot` holds of it, or from the start if the
/// file is no longer what was read (or `tag` differs); `slot` then holds the
/// whole lines read. On an error `slot` is emptied: the next read starts over.
pub fn read_on<S, F>(
    mut file: File,
    meta: &Metadata,
    tag: &str,
    slot: &mut Option<Tracked<S>>,
    tail: Tail,
    make: F,
) -> std::io::Result<Followed<S>>
where
    S: LineSink + Clone,
    F: Fn() -> S + Sync,
{
    let reuse = slot.as_ref().is_some_and(|t| still_prefix(t, meta, &mut file, tag));
    let mut t = match slot.take() {
        Some(t) if reuse => t,
        _ => Tracked {
            file_id: file_id(meta),
            offset: 0,
            head: vec![],
            guard: vec![],
            tag: tag.to_string(),
            sink: make(),
            stats: ParseStats::default(),
            hasher: Xxh3::new(),
            skipping: false,
        },
    };
    file.seek(SeekFrom::Start(t.offset))?;
    // The new blocks are appended to what was parsed before, in file
    // order, just as a full parse appends them.
    let before = std::mem::replace(&mut t.sink, make());
    let appended = lines::parse_stream(&mut file, tail, true, t.skipping, &mut t.hasher, before, &make)?;
    t.skipping = appended.skipping;
    t.sink = appended.sink;
    t.sink.settle();
    t.stats.merge_following(appended.stats);
    t.offset += appended.bytes;
    t.guard = read_guard(&mut file, t.offset)?;
    t.head = read_head(&mut file, t.offset.min(GUARD))?;
    // The unfinished last line counts for this view, not for the next parse.
    let mut sink = t.sink.clone();
    let mut stats = t.stats.clone();
    if !appended.tail.is_empty() {
        let (tail_sink, tail_stats) = lines::parse_bytes(&appended.tail, tail, &make);
        sink.merge_following(tail_sink);
        stats.merge_following(tail_stats);
    }
    let mut whole = t.hasher.clone();
    whole.write(&appended.tail);
    let bytes = t.offset + appended.tail.len() as u64;
    *slot = Some(t);
    Ok(Followed {
        sink,
        stats,
        bytes,
        xxh3: whole.finish(),
    })
}

fn file_id(meta: &Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

/// Whether the tracked part of the file is still the file's prefix.
fn still_prefix<S>(t: &Tracked<S>, meta: &Metadata, file: &mut File, tag: &str) -> bool {
    t.tag == tag
        && t.file_id == file_id(meta)
        && meta.len() >= t.offset
        && read_guard(file, t.offset).map(|g| g == t.guard).unwrap_or(false)
        && read_head(file, t.head.len() as u64)
            .map(|h| h == t.head)
            .unwrap_or(false)
}

fn read_guard(file: &mut File, offset: u64) -> std::io::Result<Vec<u8>> {
    let from = offset.saturating_sub(GUARD);
    file.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0; (offset - from) as usize];
    file.read_exact(&mut buf)?;
    Ok(buf)
}

fn read_head(file: &mut File, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0; len as usize];
    file.read_exact(&mut buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Outcome;
    use std::io::Write as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// The numbers read, and a count of the lines parsed shared by every
    /// chunk's sink: what a read cost.
    #[derive(Clone)]
    struct Numbers {
        values: Vec<i64>,
        parsed: Arc<AtomicUsize>,
    }
    impl LineSink for Numbers {
        fn line(&mut self, line: &[u8]) -> Outcome {
            self.parsed.fetch_add(1, Ordering::Relaxed);
            match std::str::from_utf8(line).ok().and_then(|s| s.parse().ok()) {
                Some(v) => {
                    self.values.push(v);
                    Outcome::Record
                }
                None => Outcome::Malformed("not a number".into()),
            }
        }
        fn merge_following(&mut self, later: Self) {
            self.values.extend(later.values);
        }
    }

    struct Log {
        _dir: tempfile::TempDir,
        path: std::path::PathBuf,
        parsed: Arc<AtomicUsize>,
    }

    impl Log {
        fn new(text: &str) -> Log {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("log");
            std::fs::write(&path, text).unwrap();
            Log {
                _dir: dir,
                path,
                parsed: Arc::default(),
            }
        }
        fn append(&self, text: &str) {
            let mut f = std::fs::OpenOptions::new().append(true).open(&self.path).unwrap();
            f.write_all(text.as_bytes()).unwrap();
        }
        /// Reads on; the values seen and how many lines this read parsed.
        fn read(&self, tag: &str, slot: &mut Option<Tracked<Numbers>>) -> (Vec<i64>, usize) {
            let before = self.parsed.load(Ordering::Relaxed);
            let file = File::open(&self.path).unwrap();
            let meta = file.metadata().unwrap();
            let parsed = self.parsed.clone();
            let make = move || Numbers {
                values: vec![],
                parsed: parsed.clone(),
            };
            let now = read_on(file, &meta, tag, slot, Tail::MayBePartial, make).unwrap();
            let hash = twox_hash::XxHash3_64::oneshot(&std::fs::read(&self.path).unwrap());
            assert_eq!(now.xxh3, hash, "the hash covers every byte read, old and new");
            (now.sink.values, self.parsed.load(Ordering::Relaxed) - before)
        }
    }

    #[test]
    fn an_appended_log_is_parsed_only_from_where_the_last_read_stopped() {
        let log = Log::new("1\n2\n3");
        let mut slot = None;
        assert_eq!(log.read("", &mut slot), (vec![1, 2, 3], 3));
        assert_eq!(
            slot.as_ref().map(Tracked::offset),
            Some(4),
            "the unfinished `3` is not consumed"
        );
        log.append("4\n5\n");
        // `34`, finished now, and `5`: only those are parsed.
        assert_eq!(log.read("", &mut slot), (vec![1, 2, 34, 5], 2));
    }

    #[test]
    fn a_truncated_rewritten_or_replaced_log_or_another_tag_is_read_again_from_the_start() {
        let log = Log::new("1\n2\n3\n4\n");
        let mut slot = None;
        log.read("", &mut slot);
        std::fs::write(&log.path, "7\n").unwrap();
        assert_eq!(log.read("", &mut slot), (vec![7], 1), "truncated");
        std::fs::write(&log.path, "8\n9\n").unwrap();
        log.read("", &mut slot);
        std::fs::write(&log.path, "8\n6\n1\n").unwrap();
        assert_eq!(
            log.read("", &mut slot),
            (vec![8, 6, 1], 3),
            "rewritten before the offset"
        );
        let other = log.path.with_extension("new");
        std::fs::write(&other, "8\n6\n1\n2\n").unwrap();
        std::fs::rename(&other, &log.path).unwrap();
        assert_eq!(log.read("", &mut slot), (vec![8, 6, 1, 2], 4), "another file");
        assert_eq!(log.read("window", &mut slot), (vec![8, 6, 1, 2], 4), "another tag");
        assert_eq!(log.read("window", &mut slot), (vec![8, 6, 1, 2], 0), "nothing new");
    }
}
