//! The line-oriented reader behind the big inputs (zot.jsonl, sccache.log,
//! samples.jsonl). The file is streamed in large blocks (constant memory,
//! whatever its size); each block is split at newline boundaries into chunks
//! that rayon parses in parallel, each into a mergeable aggregate. Merging
//! happens in file order, so line numbers in warnings stay exact.
//!
//! The next block is read, this one hashed and the previous block's
//! aggregate appended while this block's chunks are parsed: one
//! `rayon::join` per block, so neither core waits on the serial work.

use crate::json_shape::Shapes;
use rayon::prelude::*;
use std::borrow::Cow;
use std::hash::Hasher as _;
use std::io::Read;
use std::sync::Mutex;

/// How many problem lines a parser keeps verbatim; the rest are only counted.
pub(crate) const MAX_PROBLEMS: usize = 5;

/// One line that could not be used, for the warning that names file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number (0 when the input is not line-oriented).
    pub line: u64,
    pub reason: String,
}

/// What a parse saw: every line read ends up as a record, skipped (valid but
/// not relevant, such as another zot message) or malformed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseStats {
    pub lines: u64,
    pub records: u64,
    pub skipped: u64,
    pub malformed: u64,
    /// The first few malformed lines with their reasons.
    pub problems: Vec<Problem>,
    /// Problems past `MAX_PROBLEMS`, counted so the report can say "and N more".
    pub problems_dropped: u64,
}

impl ParseStats {
    pub fn note_malformed(&mut self, line: u64, reason: impl Into<String>) {
        self.malformed += 1;
        self.note_problem(line, reason);
    }

    pub fn note_problem(&mut self, line: u64, reason: impl Into<String>) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem {
                line,
                reason: reason.into(),
            });
        } else {
            self.problems_dropped += 1;
        }
    }

    /// Appends the statistics of the chunk that follows this one in the file:
    /// its line numbers were counted from the start of that chunk.
    pub fn merge_following(&mut self, later: ParseStats) {
        let offset = self.lines;
        self.lines += later.lines;
        self.records += later.records;
        self.skipped += later.skipped;
        self.malformed += later.malformed;
        for p in later.problems {
            self.note_problem(p.line + offset, p.reason);
        }
        self.problems_dropped += later.problems_dropped;
    }
}

/// Bytes read from the file per step: large enough to keep both cores busy,
/// small enough that memory stays flat for any file size.
const BLOCK: usize = 2 << 20;
/// Bytes per parallel chunk inside a block.
const CHUNK: usize = 256 << 10;
/// The most bytes a line may hold before its newline. A longer line is
/// counted malformed and passed over without being held, so memory stays at
/// a few blocks whatever a file holds; the longest real lines (a zot request
/// with every header, a poll of a many-core node) are a few kB.
pub const MAX_LINE: usize = 1 << 20;

const OVERLONG: &str = "the line is longer than 1 MiB, the most a line may be: skipped unread";

/// The reader's sizes (the tests shrink them to reach every boundary).
#[derive(Debug, Clone, Copy)]
struct Sizes {
    block: usize,
    chunk: usize,
    max_line: usize,
}

const SIZES: Sizes = Sizes {
    block: BLOCK,
    chunk: CHUNK,
    max_line: MAX_LINE,
};

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
    /// `line` for a line known to be UTF-8: its chunk was checked whole,
    /// once, so a sink that needs text need not check each line again.
    fn line_text(&mut self, line: &str) -> Outcome {
        self.line(line.as_bytes())
    }
    /// The shapes of earlier lines this sink reads with (see
    /// `perfreport_scan::fields`), `None` for a sink that learns none. Each
    /// worker's shapes go from one chunk's sink to the next chunk it
    /// parses: a log of many line shapes needs more lines to learn them all
    /// than one chunk holds.
    fn learnt(&mut self) -> Option<&mut Shapes> {
        None
    }
    /// A line was passed over unread, blank or longer than `MAX_LINE` (for
    /// sinks that number their records).
    fn passed_over(&mut self) {}
    /// Absorbs the aggregate of the chunk that follows this one in the file.
    fn merge_following(&mut self, later: Self);
    /// Absorbs the next block's aggregate into the aggregate of everything
    /// before it, from the start of the file: called in file order, so a
    /// sink may summarise here what it need not hold (samples.jsonl does).
    fn append_block(&mut self, later: Self) {
        self.merge_following(later);
    }
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
    /// Never more than `MAX_LINE`: a longer last line is consumed as
    /// malformed, and `skipping` is set.
    pub tail: Vec<u8>,
    /// The bytes consumed end inside a line longer than `MAX_LINE`, already
    /// counted: a later parse passes over the rest of it (with `keep_tail`).
    pub skipping: bool,
}

/// Parses a stream of lines to its end (the caller opens the file, by its
/// own rules for what may be read).
pub fn parse_reader<S, F, R>(reader: &mut R, tail: Tail, make: F) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
    R: Read + Send,
{
    let mut hasher = twox_hash::XxHash3_64::new();
    let mut p = parse_stream(reader, tail, false, false, &mut hasher, make(), make)?;
    p.xxh3 = hasher.finish();
    Ok(p)
}

/// The core of the reader. With `keep_tail`, bytes after the last newline
/// are not parsed but returned in `LineParse::tail` (a producer may still be
/// writing that line; a live view parses it again next time). `hasher` sees
/// exactly the bytes consumed, so a live view can continue it. `skipping`:
/// the stream starts inside an over-long line an earlier parse counted.
/// `before`: the aggregate of what precedes the stream (a live view's),
/// which the blocks are appended to in order.
pub(crate) fn parse_stream<S, F, R>(
    reader: &mut R,
    tail: Tail,
    keep_tail: bool,
    skipping: bool,
    hasher: &mut twox_hash::XxHash3_64,
    before: S,
    make: F,
) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
    R: Read + Send,
{
    stream(reader, tail, keep_tail, skipping, hasher, before, make, SIZES)
}

/// The shapes the workers of one parse have learnt, each lent to the sink
/// of the chunk a worker parses next and taken back after it: a worker's
/// own, never shared by two chunks at once.
#[derive(Default)]
struct Learnt(Mutex<Vec<Shapes>>);

impl Learnt {
    fn lend<S: LineSink>(&self, sink: &mut S, parse: impl FnOnce(&mut S)) {
        if let Some(mine) = sink.learnt() {
            if let Some(shapes) = lock(&self.0).pop() {
                *mine = shapes;
            }
        }
        parse(sink);
        if let Some(mine) = sink.learnt() {
            lock(&self.0).push(std::mem::take(mine));
        }
    }
}

/// A lock's data: what it guards stays whole even if a holder panicked
/// (a push or a remove of a map entry), so its poison is not passed on.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

// parse_stream's arguments and the sizes the tests shrink.
#[allow(clippy::too_many_arguments)]
fn stream<S, F, R>(
    reader: &mut R,
    tail: Tail,
    keep_tail: bool,
    mut skipping: bool,
    hasher: &mut twox_hash::XxHash3_64,
    before: S,
    make: F,
    sz: Sizes,
) -> std::io::Result<LineParse<S>>
where
    S: LineSink,
    F: Fn() -> S + Sync,
    R: Read + Send,
{
    let mut total = LineParse::starting(before);
    let learnt = Learnt::default();
    let mut buf = Vec::with_capacity(sz.block);
    // The next block's buffer, read while this one's chunks are parsed.
    let mut next = Vec::with_capacity(sz.block);
    let mut eof = fill(reader, &mut buf, sz.block)?;
    // Bytes at the start of `buf` known to hold no newline: a line longer
    // than a block is searched once, not again on every read.
    let mut searched = 0;
    // The last block's aggregate, not yet appended to `total`.
    let mut pending: Option<(S, ParseStats)> = None;
    loop {
        if skipping {
            total.append(pending.take());
            skipping = total.pass_over_rest_of_line(&mut buf, hasher);
            searched = 0;
        }
        if buf.is_empty() {
            if eof {
                total.append(pending.take());
                total.skipping = skipping;
                return Ok(total);
            }
            eof = fill(reader, &mut buf, sz.block)?;
            continue;
        }
        let cut = match Cut::of(&buf, searched, eof, keep_tail, sz.max_line) {
            Cut::At(cut) => cut,
            Cut::Overlong => {
                total.append(pending.take());
                total.overlong(&buf, hasher);
                buf.clear();
                skipping = true;
                continue;
            }
            Cut::ReadOn => {
                searched = buf.len();
                let want = buf.len() + sz.block;
                eof = fill(reader, &mut buf, want)?;
                continue;
            }
        };
        next.clear();
        next.extend_from_slice(&buf[cut..]);
        let carried = next.len();
        let block = &buf[..cut];
        let is_end = eof && !keep_tail;
        // The block's chunks are parsed while this thread hashes it and
        // reads the next block (a read error is the caller's once the
        // chunks are in; a chunk's panic is raised here).
        let want = sz.block.max(carried + sz.chunk);
        let earlier = pending.take();
        let read_next = (!eof).then_some((&mut *reader, &mut next, want));
        let (parsed, read) = rayon::join(
            || parse_block(block, is_end, tail, &make, &learnt, sz),
            || total.append_hash_read(earlier, (block, &mut *hasher), read_next),
        );
        total.bytes += cut as u64;
        pending = Some(parsed);
        let read_to_end = read?;
        if eof {
            total.append(pending.take());
            return Ok(total.end_in_line(next, skipping, sz.max_line, hasher));
        }
        eof = read_to_end;
        std::mem::swap(&mut buf, &mut next);
        searched = carried;
    }
}

/// Where the bytes read so far are cut: only whole lines are parsed now,
/// the rest waits for the next block.
enum Cut {
    /// Parse the bytes before this offset.
    At(usize),
    /// One line past the bound: counted now, the rest passed over unread.
    Overlong,
    /// One line longer than the block, within the bound: read on.
    ReadOn,
}

impl Cut {
    /// `searched`: bytes at the start of `buf` known to hold no newline.
    fn of(buf: &[u8], searched: usize, eof: bool, keep_tail: bool, max_line: usize) -> Cut {
        let last_newline = memchr::memrchr(b'\n', &buf[searched..]).map(|i| searched + i + 1);
        match (eof, keep_tail, last_newline) {
            (true, false, _) => Cut::At(buf.len()),
            (true, true, nl) => Cut::At(nl.unwrap_or(0)),
            (false, _, Some(nl)) => Cut::At(nl),
            (false, _, None) if buf.len() > max_line => Cut::Overlong,
            (false, _, None) => Cut::ReadOn,
        }
    }
}

impl<S: LineSink> LineParse<S> {
    /// Nothing parsed yet, after the aggregate `before` of what precedes the stream.
    fn starting(before: S) -> Self {
        LineParse {
            sink: before,
            stats: ParseStats::default(),
            bytes: 0,
            xxh3: 0,
            tail: Vec::new(),
            skipping: false,
        }
    }

    /// The serial work done while a block's chunks are parsed: the block
    /// before appended in file order (a merge is not left for both cores to
    /// wait on), this block hashed, and the next one read into its buffer
    /// unless the stream has ended (true at its end).
    fn append_hash_read<R: Read>(
        &mut self,
        earlier: Option<(S, ParseStats)>,
        (block, hasher): (&[u8], &mut twox_hash::XxHash3_64),
        read_next: Option<(&mut R, &mut Vec<u8>, usize)>,
    ) -> std::io::Result<bool> {
        self.append(earlier);
        hasher.write(block);
        match read_next {
            Some((reader, next, want)) => fill(reader, next, want),
            None => Ok(true),
        }
    }

    /// The rest of an over-long line, already counted, at the start of
    /// `buf`: hashed and dropped. True while the line goes on past `buf`.
    fn pass_over_rest_of_line(&mut self, buf: &mut Vec<u8>, hasher: &mut twox_hash::XxHash3_64) -> bool {
        let end = memchr::memchr(b'\n', buf).map(|i| i + 1);
        let n = end.unwrap_or(buf.len());
        self.pass_over(&buf[..n], hasher);
        buf.drain(..n);
        end.is_none()
    }

    /// Appends a block's aggregate, the next in file order.
    fn append(&mut self, block: Option<(S, ParseStats)>) {
        if let Some((sink, stats)) = block {
            self.sink.append_block(sink);
            self.stats.merge_following(stats);
        }
    }

    /// The file ends in the middle of `rest`: kept as the tail a resume
    /// starts from, or, already past the bound, counted now and the rest of
    /// it passed over by the next parse.
    fn end_in_line(
        mut self,
        rest: Vec<u8>,
        mut skipping: bool,
        max_line: usize,
        hasher: &mut twox_hash::XxHash3_64,
    ) -> Self {
        if rest.len() > max_line {
            self.overlong(&rest, hasher);
            skipping = true;
        } else {
            self.tail = rest;
        }
        self.skipping = skipping;
        self
    }

    /// Counts the line starting with `head`, longer than the bound, as malformed.
    fn overlong(&mut self, head: &[u8], hasher: &mut twox_hash::XxHash3_64) {
        self.stats.lines += 1;
        self.stats.note_malformed(self.stats.lines, OVERLONG);
        self.sink.passed_over();
        self.pass_over(head, hasher);
    }

    /// Consumes bytes without parsing them.
    fn pass_over(&mut self, bytes: &[u8], hasher: &mut twox_hash::XxHash3_64) {
        hasher.write(bytes);
        self.bytes += bytes.len() as u64;
    }
}

/// Reads until `buf` holds `want` bytes or the stream ends; true at the end.
fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    // read_to_end fills spare capacity without zeroing it first.
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
    parse_block(data, true, tail, &make, &Learnt::default(), SIZES)
}

/// A block's chunks parsed in parallel, into one aggregate in file order.
fn parse_block<S, F>(block: &[u8], is_end: bool, tail: Tail, make: &F, learnt: &Learnt, sz: Sizes) -> (S, ParseStats)
where
    S: LineSink,
    F: Fn() -> S + Sync,
{
    let chunks = split_chunks(block, sz.chunk);
    let last = chunks.len().saturating_sub(1);
    chunks
        .into_par_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let mut sink = make();
            let mut stats = ParseStats::default();
            learnt.lend(&mut sink, |sink| {
                parse_chunk(chunk, is_end && i == last, tail, sz.max_line, sink, &mut stats);
            });
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
fn split_chunks(data: &[u8], size: usize) -> Vec<&[u8]> {
    chunk_ranges(data, size).into_iter().map(|r| &data[r]).collect()
}

/// Where `split_chunks` cuts.
fn chunk_ranges(data: &[u8], size: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::with_capacity(data.len() / size + 1);
    let mut start = 0;
    while start < data.len() {
        let target = start + size;
        if target >= data.len() {
            out.push(start..data.len());
            break;
        }
        let end = match memchr::memchr(b'\n', &data[target..]) {
            Some(i) => target + i + 1,
            None => data.len(),
        };
        out.push(start..end);
        start = end;
    }
    out
}

fn parse_chunk<S: LineSink>(
    chunk: &[u8],
    holds_file_end: bool,
    tail: Tail,
    max_line: usize,
    sink: &mut S,
    stats: &mut ParseStats,
) {
    // One UTF-8 check for the whole chunk (a newline or a carriage return
    // never falls inside a character, so each line of valid text is valid
    // text); a chunk that fails is checked line by line by its sink.
    let text = simdutf8::basic::from_utf8(chunk).ok();
    let mut rest = chunk;
    while !rest.is_empty() {
        let start = chunk.len() - rest.len();
        let (line, next, complete) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..], true),
            None => (rest, &rest[rest.len()..], false),
        };
        rest = next;
        stats.lines += 1;
        if line.len() > max_line {
            // As the stream judges a line too long to hold: whether it fits
            // a block must not decide whether it is read.
            stats.note_malformed(stats.lines, OVERLONG);
            sink.passed_over();
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            stats.skipped += 1;
            sink.passed_over();
            continue;
        }
        let line_text = text.and_then(|t| t.get(start..start + line.len()));
        let outcome = match line_text {
            Some(t) => sink.line_text(t),
            None => sink.line(line),
        };
        match outcome {
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

    /// Records each line and whether it came as checked text.
    #[derive(Default)]
    struct Arrivals {
        lines: Vec<(bool, Vec<u8>)>,
    }
    impl LineSink for Arrivals {
        fn line(&mut self, line: &[u8]) -> Outcome {
            self.lines.push((false, line.to_vec()));
            Outcome::Record
        }
        fn line_text(&mut self, line: &str) -> Outcome {
            self.lines.push((true, line.as_bytes().to_vec()));
            Outcome::Record
        }
        fn merge_following(&mut self, later: Self) {
            self.lines.extend(later.lines);
        }
    }

    #[test]
    fn a_chunk_of_valid_text_hands_its_lines_over_as_text_and_one_bad_byte_sends_them_as_bytes() {
        // Multi-byte characters at a line's ends and a CRLF: each line's
        // text is exactly the bytes the byte path would get.
        let good = "caf\u{e9}\r\n\u{e9}t\u{e9}\n\n  \nplain\n\u{1F600}".as_bytes();
        let (sink, stats) = parse_bytes(good, Tail::Complete, Arrivals::default);
        let want: Vec<(bool, Vec<u8>)> = ["caf\u{e9}", "\u{e9}t\u{e9}", "plain", "\u{1F600}"]
            .iter()
            .map(|l| (true, l.as_bytes().to_vec()))
            .collect();
        assert_eq!(sink.lines, want);
        assert_eq!((stats.lines, stats.records, stats.skipped), (6, 4, 2));

        let mut bad = good.to_vec();
        bad.extend_from_slice(b"\nnot \xff text\n");
        let (sink, _) = parse_bytes(&bad, Tail::Complete, Arrivals::default);
        assert!(
            sink.lines.iter().all(|(text, _)| !text),
            "a chunk that is not text is checked line by line"
        );
        let lines: Vec<&[u8]> = sink.lines.iter().map(|(_, l)| l.as_slice()).collect();
        let mut want_lines: Vec<&[u8]> = want.iter().map(|(_, l)| l.as_slice()).collect();
        want_lines.push(b"not \xff text");
        assert_eq!(lines, want_lines);
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
    fn a_line_longer_than_a_block_is_one_line() {
        let long = "7".repeat(BLOCK + 100);
        let text = format!("1\n{long}\n2\n");
        let p = parse_reader(&mut text.as_bytes(), Tail::Complete, Numbers::default).unwrap();
        // One malformed line, not several.
        assert_eq!((p.stats.lines, p.stats.records, p.stats.malformed), (3, 2, 1));
        assert_eq!(p.stats.problems[0].line, 2);
        assert_eq!(p.stats.problems[0].reason, OVERLONG);
    }

    #[test]
    fn a_64_mib_line_without_newline_is_passed_over_and_the_lines_after_it_counted() {
        // Streamed from a reader that never holds it: the line is not in memory here either.
        let mut reader = b"1\n2\n"
            .chain(std::io::repeat(b'7').take(64 << 20))
            .chain(&b"\n3\n4"[..]);
        let p = parse_reader(&mut reader, Tail::Complete, Numbers::default).unwrap();
        assert_eq!(p.sink.values, vec![1, 2, 3, 4]);
        assert_eq!((p.stats.lines, p.stats.records, p.stats.malformed), (5, 4, 1));
        assert_eq!(p.stats.problems[0].line, 3);
        assert_eq!(p.bytes, 4 + (64 << 20) + 4);
        // At the very end, with no newline after it.
        let mut reader = b"1\n".chain(std::io::repeat(b'7').take(3 << 20));
        let p = parse_reader(&mut reader, Tail::MayBePartial, Numbers::default).unwrap();
        assert_eq!((p.stats.lines, p.stats.records, p.stats.malformed), (2, 1, 1));
        assert_eq!(p.stats.problems[0].line, 2);
    }

    /// Records each line's length; a line starting with `!` is malformed;
    /// a line passed over leaves `PASSED`, so the order in which blocks and
    /// lines passed over reach the total is checked too.
    #[derive(Default, Clone, Debug, PartialEq)]
    struct Lengths {
        lengths: Vec<usize>,
        seen: u64,
    }
    impl LineSink for Lengths {
        fn line(&mut self, line: &[u8]) -> Outcome {
            self.seen += 1;
            if line.starts_with(b"!") {
                return Outcome::Malformed("bang".into());
            }
            self.lengths.push(line.len());
            Outcome::Record
        }
        fn passed_over(&mut self) {
            self.seen += 1;
            self.lengths.push(PASSED);
        }
        fn merge_following(&mut self, later: Self) {
            self.lengths.extend(later.lengths);
            self.seen += later.seen;
        }
    }

    const PASSED: usize = usize::MAX;

    /// The rules, one line at a time, with no blocks, chunks or carried bytes.
    fn by_the_rules(text: &[u8], max_line: usize) -> (Lengths, ParseStats) {
        let mut sink = Lengths::default();
        let mut stats = ParseStats::default();
        let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        let unterminated = lines.last().is_some_and(|l| !l.is_empty());
        if !unterminated {
            lines.pop();
        }
        let n = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            stats.lines += 1;
            if line.len() > max_line {
                stats.note_malformed(stats.lines, OVERLONG);
                sink.passed_over();
                continue;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                stats.skipped += 1;
                sink.passed_over();
            } else if sink.line(line) == Outcome::Record {
                stats.records += 1;
            } else if unterminated && i + 1 == n {
                stats.note_malformed(stats.lines, "last line is cut off: bang");
            } else {
                stats.note_malformed(stats.lines, "bang");
            }
        }
        (sink, stats)
    }

    /// Texts whose lines sit on every boundary of the given sizes.
    fn boundary_texts(sz: Sizes) -> Vec<Vec<u8>> {
        let lengths = [
            0,
            1,
            sz.chunk - 1,
            sz.chunk,
            sz.chunk + 1,
            sz.max_line - 1,
            sz.max_line,
            sz.max_line + 1,
            sz.block - 1,
            sz.block,
            sz.block + 1,
            3 * sz.block + 7,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut texts = vec![];
        for round in 0..300 {
            let mut t = vec![];
            for _ in 0..(next() % 12) {
                let len = lengths[(next() % lengths.len() as u64) as usize];
                let first = [b'x', b'!', b' '][(next() % 7).min(2) as usize];
                t.extend((0..len).map(|i| if i == 0 { first } else { b'x' }));
                if next() % 5 == 0 {
                    t.push(b'\r');
                }
                t.push(b'\n');
            }
            if round % 2 == 0 {
                // The last line without its newline.
                let len = lengths[(next() % lengths.len() as u64) as usize];
                t.extend(std::iter::repeat_n(b'x', len));
            }
            texts.push(t);
        }
        texts
    }

    const SMALL: [Sizes; 3] = [
        // The bound inside a block, as in production.
        Sizes {
            block: 64,
            chunk: 16,
            max_line: 40,
        },
        // Lines longer than a block but within the bound: read on.
        Sizes {
            block: 32,
            chunk: 8,
            max_line: 100,
        },
        Sizes {
            block: 16,
            chunk: 4,
            max_line: 16,
        },
    ];

    /// `text` read whole by the streaming reader at sizes `sz`, and its hash.
    fn read_whole(text: &[u8], sz: Sizes) -> (LineParse<Lengths>, u64) {
        let (p, hash) = read_whole_into(text, sz, Lengths::default(), Lengths::default);
        (p.expect("a slice reads without error"), hash)
    }

    /// `read_whole` with any sink.
    fn read_whole_into<S: LineSink>(
        text: &[u8],
        sz: Sizes,
        total: S,
        make: impl Fn() -> S + Sync,
    ) -> (std::io::Result<LineParse<S>>, u64) {
        let mut hasher = twox_hash::XxHash3_64::new();
        let p = stream(
            &mut &text[..],
            Tail::Complete,
            false,
            false,
            &mut hasher,
            total,
            make,
            sz,
        );
        (p, hasher.finish())
    }

    #[test]
    fn lines_on_every_block_chunk_and_bound_edge_read_as_the_rules_say() {
        for sz in SMALL {
            for text in boundary_texts(sz) {
                let (p, hash) = read_whole(&text, sz);
                let (sink, stats) = by_the_rules(&text, sz.max_line);
                let shown = String::from_utf8_lossy(&text);
                assert_eq!((&p.sink, &p.stats), (&sink, &stats), "{sz:?}: {shown:?}");
                assert_eq!(p.sink.seen, p.stats.lines, "the sink numbers every line");
                assert_eq!(p.bytes, text.len() as u64);
                assert_eq!(hash, twox_hash::XxHash3_64::oneshot(&text));
            }
        }
    }

    #[test]
    fn one_thread_reads_every_boundary_as_two_do() {
        // The reader waits for buffers and chunks by running them itself:
        // with no other thread it must neither hang nor read differently.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        for sz in SMALL {
            for text in boundary_texts(sz).iter().step_by(5) {
                let (p, _) = one.install(|| read_whole(text, sz));
                assert_eq!((p.sink, p.stats), by_the_rules(text, sz.max_line), "{sz:?}");
            }
        }
    }

    #[test]
    fn parsed_chunks_waiting_for_their_turn_stay_few_however_long_the_file() {
        // Each sink alive is a parsed chunk (or a block) not yet in the total.
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        struct Counted<'c> {
            live: &'c AtomicUsize,
        }
        impl<'c> Counted<'c> {
            fn new(live: &'c AtomicUsize, peak: &'c AtomicUsize) -> Self {
                peak.fetch_max(live.fetch_add(1, SeqCst) + 1, SeqCst);
                Counted { live }
            }
        }
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.live.fetch_sub(1, SeqCst);
            }
        }
        impl LineSink for Counted<'_> {
            fn line(&mut self, _: &[u8]) -> Outcome {
                Outcome::Record
            }
            fn merge_following(&mut self, _: Self) {}
        }
        let sz = SMALL[0];
        let text = b"0123456789\n".repeat(20_000);
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (live, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let (p, _) = pool.install(|| {
                let total = Counted::new(&live, &peak);
                read_whole_into(&text, sz, total, || Counted::new(&live, &peak))
            });
            assert_eq!(p.unwrap().stats.records, 20_000);
            // Blocks of 64 bytes, chunks of 16 (cut after a newline: 2 lines
            // each, 3 a block): the total, two blocks' chunks waiting and
            // the one a thread is merging. Were waiting chunks unbounded, a
            // few thousand.
            let peak = peak.load(SeqCst);
            assert!(
                peak <= 1 + 2 * 3 + threads,
                "{threads} threads: {peak} sinks alive at once"
            );
        }
    }

    #[test]
    fn a_sink_that_panics_stops_the_read_with_its_panic_not_a_hang() {
        #[derive(Default)]
        struct Panics;
        impl LineSink for Panics {
            fn line(&mut self, line: &[u8]) -> Outcome {
                assert!(line != b"boom", "the sink's own panic");
                Outcome::Record
            }
            fn merge_following(&mut self, _: Self) {}
        }
        let sz = SMALL[0];
        let mut text = b"x\n".repeat(200);
        text.extend_from_slice(b"boom\n");
        text.extend(b"x\n".repeat(200));
        let read = std::panic::catch_unwind(|| read_whole_into(&text, sz, Panics, || Panics).0.map(|_| ()));
        let panic = read.expect_err("the sink's panic reaches the caller");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"the sink's own panic"));
    }

    #[test]
    fn a_long_line_growing_across_appends_is_counted_once_and_never_held() {
        // A live view: parse what is there, keep the unfinished line, go on
        // from the offset later; split at every point of every text.
        for sz in SMALL {
            for text in boundary_texts(sz).iter().step_by(7) {
                let (want, want_stats) = by_the_rules(text, sz.max_line);
                for split in 0..=text.len() {
                    let mut hasher = twox_hash::XxHash3_64::new();
                    let mut first = &text[..split];
                    let a = stream(
                        &mut first,
                        Tail::Complete,
                        true,
                        false,
                        &mut hasher,
                        Lengths::default(),
                        Lengths::default,
                        sz,
                    )
                    .unwrap();
                    assert!(
                        a.tail.len() <= sz.max_line,
                        "an unfinished line is held only within the bound"
                    );
                    let mut rest = &text[a.bytes as usize..];
                    let b = stream(
                        &mut rest,
                        Tail::Complete,
                        true,
                        a.skipping,
                        &mut hasher,
                        Lengths::default(),
                        Lengths::default,
                        sz,
                    )
                    .unwrap();
                    let (mut sink, mut stats) = (a.sink, a.stats);
                    sink.merge_following(b.sink);
                    stats.merge_following(b.stats);
                    let (tail_sink, tail_stats) =
                        parse_block(&b.tail, true, Tail::Complete, &Lengths::default, &Learnt::default(), sz);
                    sink.merge_following(tail_sink);
                    stats.merge_following(tail_stats);
                    hasher.write(&b.tail);
                    let shown = String::from_utf8_lossy(text);
                    assert_eq!((&sink, &stats), (&want, &want_stats), "{sz:?} split {split}: {shown:?}");
                    assert_eq!(a.bytes + b.bytes + b.tail.len() as u64, text.len() as u64);
                    assert_eq!(hasher.finish(), twox_hash::XxHash3_64::oneshot(text));
                }
            }
        }
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_read_and_one_byte_more_is_not() {
        for extra in [0, 1] {
            let line = "7".repeat(MAX_LINE + extra);
            for text in [format!("1\n{line}\n2\n"), format!("1\n{line}")] {
                let mut reader = text.as_bytes();
                let p = parse_reader(&mut reader, Tail::Complete, Lengths::default).unwrap();
                let (lines, malformed) = (
                    text.matches('\n').count() as u64 + u64::from(!text.ends_with('\n')),
                    extra as u64,
                );
                assert_eq!(
                    (p.stats.lines, p.stats.malformed),
                    (lines, malformed),
                    "{} bytes",
                    line.len()
                );
                assert_eq!(p.sink.lengths.contains(&MAX_LINE), extra == 0);
            }
        }
    }
}
