//! The line-oriented reader behind the big inputs (zot.jsonl, sccache.log,
//! samples.jsonl). The file is streamed in large blocks (constant memory,
//! whatever its size); each block is split at newline boundaries into chunks
//! that rayon parses in parallel, each into a mergeable aggregate. Merging
//! happens in file order, so line numbers in warnings stay exact.

use super::ParseStats;
use rayon::prelude::*;
use std::borrow::Cow;
use std::fs::File;
use std::hash::Hasher as _;
use std::io::Read;
use std::path::Path;

/// Bytes read from the file per step: large enough to keep both cores busy,
/// small enough that memory stays flat for any file size.
const BLOCK: usize = 2 << 20;
/// Bytes per parallel chunk inside a block.
const CHUNK: usize = 256 << 10;

/// What one line turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Record,
    /// Valid but not relevant (another message, a comment, a blank line).
    Skipped,
    Malformed(Cow<'static, str>),
}

/// A per-chunk aggregate of a line-oriented input.
pub trait LineSink: Send + Sized {
    fn line(&mut self, line: &[u8]) -> Outcome;
    /// A blank line was passed over (for sinks that number their records).
    fn blank(&mut self) {}
    /// Absorbs the aggregate of the chunk that follows this one in the file.
    fn merge_following(&mut self, later: Self);
    /// Puts a whole file's aggregate into its final form. A live view keeps
    /// its aggregate between reads and copies it for every view, so work
    /// done here is not repeated on each copy.
    fn settle(&mut self) {}
}

/// How to judge a last line with no newline: the producer may still be writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// The run is in flight: an unparseable last line is expected and skipped.
    MayBePartial,
    /// The run is finished: an unparseable last line is malformed.
    Complete,
}

pub struct LineParse<S> {
    pub sink: S,
    pub stats: ParseStats,
    /// Bytes consumed, i.e. the offset a later incremental parse starts from.
    pub bytes: u64,
    /// xxh3 of the bytes read, computed in the same pass (provenance).
    pub xxh3: u64,
    /// Bytes after the last newline, left unparsed (with `keep_tail` only).
    pub tail: Vec<u8>,
}

/// Parses `path` from byte `start` to its end.
pub fn parse_file<S, F>(path: &Path, start: u64, tail: Tail, make: F) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
{
    let mut file = File::open(path)?;
    if start > 0 {
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(start))?;
    }
    parse_reader(&mut file, tail, make).map(|mut p| {
        p.bytes += start;
        p
    })
}

/// Parses a stream of lines; see `parse_file`.
pub fn parse_reader<S, F, R>(reader: &mut R, tail: Tail, make: F) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
    R: Read + Send,
{
    let mut hasher = twox_hash::XxHash3_64::new();
    let mut p = parse_stream(reader, tail, false, &mut hasher, make)?;
    p.xxh3 = hasher.finish();
    Ok(p)
}

/// The core of the reader. With `keep_tail`, bytes after the last newline
/// are not parsed but returned in `LineParse::tail` (a producer may still be
/// writing that line; a live view parses it again next time). `hasher` sees
/// exactly the bytes consumed, so a live view can continue it.
pub fn parse_stream<S, F, R>(
    reader: &mut R,
    tail: Tail,
    keep_tail: bool,
    hasher: &mut twox_hash::XxHash3_64,
    make: F,
) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
    R: Read + Send,
{
    let mut total = LineParse {
        sink: make(),
        stats: ParseStats::default(),
        bytes: 0,
        xxh3: 0,
        tail: Vec::new(),
    };
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut spare: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut eof = fill(reader, &mut buf, BLOCK)?;
    loop {
        if buf.is_empty() {
            break;
        }
        // Only whole lines are parsed now; the rest waits for the next block.
        let last_newline = memchr::memrchr(b'\n', &buf).map(|i| i + 1);
        let cut = match (eof, keep_tail, last_newline) {
            (true, false, _) => buf.len(),
            (true, true, nl) => nl.unwrap_or(0),
            (false, _, Some(nl)) => nl,
            // One line longer than the block: grow and read on.
            (false, _, None) => {
                let want = buf.len() + BLOCK;
                eof = fill(reader, &mut buf, want)?;
                continue;
            }
        };
        spare.clear();
        spare.extend_from_slice(&buf[cut..]);
        let block = &buf[..cut];
        let want = BLOCK.max(spare.len() + CHUNK);
        // The next block is read, and this one hashed, while this one is
        // parsed: reading and hashing in between blocks left a core idle.
        let (next, (sink, stats)) = rayon::join(
            || {
                hasher.write(block);
                if eof {
                    Ok(true)
                } else {
                    fill(reader, &mut spare, want)
                }
            },
            || parse_block(block, eof && !keep_tail, tail, &make),
        );
        total.sink.merge_following(sink);
        total.stats.merge_following(stats);
        total.bytes += cut as u64;
        if eof {
            total.tail = spare;
            break;
        }
        eof = next?;
        std::mem::swap(&mut buf, &mut spare);
    }
    Ok(total)
}

/// Reads until `buf` holds `want` bytes or the stream ends; true at the end.
fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    // read_to_end fills spare capacity without zeroing it first (a memset
    // of every block showed in the profile).
    let have = buf.len();
    buf.reserve(want.saturating_sub(have));
    reader
        .by_ref()
        .take(want.saturating_sub(have) as u64)
        .read_to_end(buf)?;
    Ok(buf.len() < want)
}

/// Parses whole lines held in memory (the last one may lack its newline).
pub fn parse_bytes<S, F>(data: &[u8], tail: Tail, make: F) -> (S, ParseStats)
where
    S: LineSink,
    F: Fn() -> S + Sync,
{
    parse_block(data, true, tail, &make)
}

fn parse_block<S, F>(block: &[u8], is_end: bool, tail: Tail, make: &F) -> (S, ParseStats)
where
    S: LineSink,
    F: Fn() -> S + Sync,
{
    let chunks = split_chunks(block, CHUNK);
    let last = chunks.len().saturating_sub(1);
    chunks
        .into_par_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let mut sink = make();
            let mut stats = ParseStats::default();
            parse_chunk(chunk, is_end && i == last, tail, &mut sink, &mut stats);
            (sink, stats)
        })
        .reduce_with(|(mut sa, mut ta), (sb, tb)| {
            sa.merge_following(sb);
            ta.merge_following(tb);
            (sa, ta)
        })
        .unwrap_or_else(|| (make(), ParseStats::default()))
}

/// Splits at newline boundaries into pieces of about `size` bytes.
pub fn split_chunks(data: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(data.len() / size + 1);
    let mut start = 0;
    while start < data.len() {
        let target = start + size;
        if target >= data.len() {
            out.push(&data[start..]);
            break;
        }
        let end = match memchr::memchr(b'\n', &data[target..]) {
            Some(i) => target + i + 1,
            None => data.len(),
        };
        out.push(&data[start..end]);
        start = end;
    }
    out
}

fn parse_chunk<S: LineSink>(chunk: &[u8], holds_file_end: bool, tail: Tail, sink: &mut S, stats: &mut ParseStats) {
    let mut rest = chunk;
    while !rest.is_empty() {
        let (line, next, complete) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..], true),
            None => (rest, &rest[rest.len()..], false),
        };
        rest = next;
        stats.lines += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            stats.skipped += 1;
            sink.blank();
            continue;
        }
        match sink.line(line) {
            Outcome::Record => stats.records += 1,
            Outcome::Skipped => stats.skipped += 1,
            Outcome::Malformed(reason) => {
                let unterminated_end = holds_file_end && !complete;
                if unterminated_end && tail == Tail::MayBePartial {
                    stats.skipped += 1;
                    stats.note_problem(stats.lines, "last line is incomplete (the run is in flight); skipped");
                } else if unterminated_end {
                    stats.note_malformed(stats.lines, format!("last line is cut off: {reason}"));
                } else {
                    stats.note_malformed(stats.lines, reason);
                }
            }
        }
    }
}

/// Shortens a line for a warning, on a character boundary.
pub fn excerpt(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(120)]);
    if line.len() > 120 {
        format!("{s}…")
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Numbers {
        values: Vec<i64>,
    }
    impl LineSink for Numbers {
        fn line(&mut self, line: &[u8]) -> Outcome {
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

    #[test]
    fn chunks_merge_in_file_order_with_exact_line_numbers() {
        let mut text = String::new();
        for i in 0..200_000 {
            if i == 150_000 {
                text.push_str("oops\n");
            }
            text.push_str(&format!("{i}\n"));
        }
        let parsed = parse_reader(&mut text.as_bytes(), Tail::Complete, Numbers::default).unwrap();
        assert_eq!(parsed.sink.values.len(), 200_000);
        assert!(parsed.sink.values.windows(2).all(|w| w[0] + 1 == w[1]));
        assert_eq!(parsed.stats.malformed, 1);
        assert_eq!(parsed.stats.problems[0].line, 150_001);
        assert_eq!(parsed.bytes as usize, text.len());
        assert_eq!(
            parsed.xxh3,
            twox_hash::XxHash3_64::oneshot(text.as_bytes()),
            "the streamed hash is the file's hash"
        );
    }

    #[test]
    fn the_provenance_hash_is_xxh3_as_xxhsum_prints_it() {
        // The reference value of XXH3_64bits("") (seed 0), so a published
        // hash can be checked with `xxhsum -H3`.
        let p = parse_reader(&mut &b""[..], Tail::Complete, Numbers::default).unwrap();
        assert_eq!(p.xxh3, 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn a_half_written_last_line_is_skipped_in_flight_and_malformed_after() {
        let text = b"1\n2\n3";
        let p = parse_reader(&mut &text[..], Tail::MayBePartial, Numbers::default).unwrap();
        assert_eq!((p.stats.records, p.stats.malformed), (3, 0));
        let text = b"1\n2\n{\"ts\":";
        let p = parse_reader(&mut &text[..], Tail::MayBePartial, Numbers::default).unwrap();
        assert_eq!((p.stats.records, p.stats.skipped, p.stats.malformed), (2, 1, 0));
        let p = parse_reader(&mut &text[..], Tail::Complete, Numbers::default).unwrap();
        assert_eq!((p.stats.records, p.stats.malformed), (2, 1));
        assert!(p.stats.problems[0].reason.contains("cut off"));
    }

    #[test]
    fn a_line_longer_than_a_block_is_read_whole() {
        let long = "7".repeat(BLOCK + 100);
        let text = format!("1\n{long}\n2\n");
        let p = parse_reader(&mut text.as_bytes(), Tail::Complete, Numbers::default).unwrap();
        // The long line does not fit an i64: it must be one malformed line, not several.
        assert_eq!((p.stats.lines, p.stats.records, p.stats.malformed), (3, 2, 1));
        assert_eq!(p.stats.problems[0].line, 2);
    }
}
