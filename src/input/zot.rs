//! `zot.jsonl`: the registry's structured log. One JSON object a line, mixed
//! with lines that are not JSON; requests are `"message": "HTTP API"`.
//! Only the fields in `FIELDS` are read, borrowed from the line, by the
//! line engine's field extraction (`perfreport_scan::fields`).

use super::lines::{LineSink, Outcome};
use super::InputReport;

/// The registry's log, in a run directory.
pub(crate) const FILE: &str = "zot.jsonl";
use super::window::{Outside, RecordWindow};
use crate::timefmt::{self, Micros};
use perfreport_scan::fields::{self, field, object, Field, Got, Kind, Pass, Record, Spec};
use perfreport_scan::find::each_of_two;
use perfreport_scan::json_scan::{Cursor, Via};
use perfreport_scan::json_shape::Shapes;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::BUCKET_SECS;

/// What a registry request was, from the table in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestKind {
    UploadStart,
    BlobChunk,
    BlobComplete,
    ManifestWrite,
    BlobRead,
    ManifestRead,
    Other,
}

/// Splits `/v2/<name>/blobs/...` or `/v2/<name>/manifests/<ref>`; names hold
/// slashes. The first `/blobs/` before the query wins, else the first
/// `/manifests/`; the reference ends at the query.
pub(crate) fn classify<'p>(method: &str, path: &'p str) -> (RequestKind, &'p str, &'p str) {
    let Some(rest) = path.strip_prefix("/v2/") else {
        return (RequestKind::Other, "", "");
    };
    // One pass over the slashes up to the query finds the query and every
    // marker. A marker holds no `?`, so one that starts before the query
    // ends before it too.
    let bytes = rest.as_bytes();
    let (mut blobs, mut manifests, mut query) = (None, None, bytes.len());
    each_of_two(bytes, b'/', b'?', |at| {
        if bytes[at] == b'?' {
            query = at;
            return false;
        }
        if bytes[at..].starts_with(b"/blobs/") {
            blobs = Some(at);
            return false;
        }
        if manifests.is_none() && bytes[at..].starts_with(b"/manifests/") {
            manifests = Some(at);
        }
        true
    });
    if let Some(i) = blobs {
        // The tail is not cut at the query: `uploads` holds no `?`, so it
        // starts the cut tail exactly when it starts the whole one.
        let (name, tail) = (&rest[..i], &rest[i + "/blobs/".len()..]);
        return (blob_request(method, tail), name, "");
    }
    if let Some(i) = manifests {
        let (name, reference) = (&rest[..i], &rest[i + "/manifests/".len()..query]);
        return (manifest_request(method), name, reference);
    }
    (RequestKind::Other, "", "")
}

/// A request on `/v2/<name>/blobs/<tail>`, by its method.
fn blob_request(method: &str, tail: &str) -> RequestKind {
    match (method, tail.starts_with("uploads")) {
        ("POST", true) => RequestKind::UploadStart,
        ("PATCH", true) => RequestKind::BlobChunk,
        ("PUT", true) => RequestKind::BlobComplete,
        ("GET" | "HEAD", false) => RequestKind::BlobRead,
        _ => RequestKind::Other,
    }
}

/// A request on `/v2/<name>/manifests/<reference>`, by its method.
fn manifest_request(method: &str) -> RequestKind {
    match method {
        "PUT" => RequestKind::ManifestWrite,
        "GET" | "HEAD" => RequestKind::ManifestRead,
        _ => RequestKind::Other,
    }
}

/// BuildKit's registry cache lives in repositories or tags named `cache`.
pub(crate) fn is_cache(name: &str, reference: &str) -> bool {
    name.contains("cache") || reference.contains("cache")
}

pub(crate) use super::writes::{WriteCuts, WriteEvent, WriteSpan, Writes};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LaneBucket {
    pub(crate) cache_bytes: u64,
    pub(crate) image_bytes: u64,
}

/// A change of the steady per-bucket bytes of long writes (see `ByteLane`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LaneStep {
    cache: i128,
    image: i128,
}

/// The registry write-rate lane: bytes per `BUCKET_SECS` bucket, keyed by
/// unix seconds / `BUCKET_SECS`. A write is spread over its latency; the
/// full buckets of a long one get the same share each, so they are kept as
/// two steps (the share starts, the share ends) instead of one entry per
/// bucket: a write of any length costs a few entries, and only the buckets
/// a chart draws are ever walked (`buckets`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ByteLane {
    points: BTreeMap<i64, LaneBucket>,
    /// From each key on, every bucket gains the running sum of these.
    steps: BTreeMap<i64, LaneStep>,
}

/// Spans of up to this many buckets are spread bucket by bucket (every
/// write of a normal run); longer ones by their two steps.
const WALKED_BUCKETS: i64 = 16;

impl ByteLane {
    fn add(&mut self, bucket: i64, n: u64, cache: bool) {
        let b = self.points.entry(bucket).or_default();
        if cache {
            b.cache_bytes = b.cache_bytes.saturating_add(n);
        } else {
            b.image_bytes = b.image_bytes.saturating_add(n);
        }
    }

    fn step(&mut self, bucket: i64, delta: i128, cache: bool) {
        let s = self.steps.entry(bucket).or_default();
        // Wrapping: the running sum of every step is exact (it is a sum of
        // u64 shares), whatever order the parts were merged in.
        if cache {
            s.cache = s.cache.wrapping_add(delta);
        } else {
            s.image = s.image.wrapping_add(delta);
        }
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The first and last bucket holding bytes (every spread touches both ends).
    pub(crate) fn extent(&self) -> Option<(i64, i64)> {
        let first = self.points.keys().next()?;
        let last = self.points.keys().next_back()?;
        Some((*first, *last))
    }

    /// Every bucket from `lo` to `hi`, with the bytes of every write that covers it.
    pub(crate) fn buckets(&self, lo: i64, hi: i64) -> impl Iterator<Item = (i64, LaneBucket)> + '_ {
        let mut running = self.steps.range(..lo).fold(LaneStep::default(), |a, (_, s)| LaneStep {
            cache: a.cache.wrapping_add(s.cache),
            image: a.image.wrapping_add(s.image),
        });
        let mut steps = self.steps.range(lo..).peekable();
        let steady = |x: i128| u64::try_from(x.max(0)).unwrap_or(u64::MAX);
        (lo..=hi).map(move |b| {
            while let Some((_, s)) = steps.next_if(|(k, _)| **k <= b) {
                running.cache = running.cache.wrapping_add(s.cache);
                running.image = running.image.wrapping_add(s.image);
            }
            let p = self.points.get(&b).copied().unwrap_or_default();
            let v = LaneBucket {
                cache_bytes: p.cache_bytes.saturating_add(steady(running.cache)),
                image_bytes: p.image_bytes.saturating_add(steady(running.image)),
            };
            (b, v)
        })
    }

    /// Absorbs the lane of a later chunk.
    fn merge(&mut self, later: ByteLane) {
        for (k, v) in later.points {
            let e = self.points.entry(k).or_default();
            e.cache_bytes = e.cache_bytes.saturating_add(v.cache_bytes);
            e.image_bytes = e.image_bytes.saturating_add(v.image_bytes);
        }
        for (k, s) in later.steps {
            let e = self.steps.entry(k).or_default();
            e.cache = e.cache.wrapping_add(s.cache);
            e.image = e.image.wrapping_add(s.image);
        }
    }
}

/// The mergeable aggregate of a zot.jsonl (or a chunk of it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZotLog {
    /// The shapes of the lines read, while a worker parses a chunk (see
    /// `LineSink::learnt`): a cache, equal in every aggregate.
    shapes: Shapes,
    /// `HTTP API` lines.
    pub(crate) requests: u64,
    pub(crate) blob_write_bytes: u64,
    pub(crate) cache_write_bytes: u64,
    pub(crate) image_write_bytes: u64,
    pub(crate) manifest_writes: u64,
    pub(crate) blob_writes: u64,
    /// 2xx writes whose size is unknown (no Content-Length): not counted as zero bytes.
    pub(crate) writes_unsized: u64,
    pub(crate) failed_writes: u64,
    pub(crate) upload_starts: u64,
    pub(crate) reads: u64,
    pub(crate) read_bytes: u64,
    /// 200 GETs without a bodySize: their bytes are unknown.
    pub(crate) reads_unsized: u64,
    /// Lines with another message, by message (`syncing image`, `HTTP API Audit`, ...).
    pub(crate) by_message: BTreeMap<String, u64>,
    pub(crate) not_json: u64,
    /// The fleet's node hosts; `node_writes[i]` are the 2xx writes from `hosts[i]`.
    hosts: NodeHosts,
    /// How finely the writes are kept (see `input::writes`).
    cuts: Option<Arc<WriteCuts>>,
    node_writes: Vec<Writes>,
    /// The write-rate lane of each node's writes alone, by host as
    /// `node_writes` (see `series`); `node_lane_within` for the whole lane.
    node_series: Vec<ByteLane>,
    /// 2xx writes from every other client, together: a registry shared with
    /// other projects sees thousands of clients, and a map per client in every
    /// chunk made the merge cost per distinct address.
    other_writes: Writes,
    /// Writes that fell in one bucket, and those spread as read (see
    /// `spread_writes`); see `lane_within` for the whole lane.
    pub(crate) series: ByteLane,
    /// Writes whose latency spans buckets and may reach outside the run's
    /// window, kept to be spread where it is known (`lane_within`): a
    /// latency can be anything up to Go's largest duration, 292 years.
    /// Those inside the window run.json and the traces make (`WriteCuts`)
    /// are spread as they are read.
    pub(crate) spread_writes: Vec<SpreadWrite>,
    /// Where a line's time must lie for it to be the run's (`None`: every
    /// line is); the lines outside are left out of every count here.
    window: Option<RecordWindow>,
    /// The lines left out for their time.
    pub(crate) outside: Option<Outside>,
    /// The minute of the last time judged (see `timefmt::parse_rfc3339_after`).
    last_minute: MinuteMemo,
}

/// A memo of how a time was read, not part of what was counted: two
/// aggregates of the same lines are equal however they were read.
#[derive(Debug, Clone, Copy, Default)]
struct MinuteMemo {
    last: timefmt::LastMinute,
    /// The minute (`YYYY-MM-DDTHH:MM`) of the last UTC time read whose
    /// every instant lies inside the window: a log writes many lines a
    /// minute, and judging them was a tenth of a registry line's cost.
    inside: Option<[u8; 16]>,
}

impl MinuteMemo {
    /// Whether `text` is a UTC time (`...Z`) in the minute known inside.
    fn known_inside(&self, text: &str) -> bool {
        let b = text.as_bytes();
        b.len() >= 20 && b.last() == Some(&b'Z') && b.first_chunk::<16>().is_some_and(|m| Some(*m) == self.inside)
    }

    /// Remembers the minute of `text` (read as `t`) when it lies wholly inside.
    fn learn(&mut self, text: &str, t: Micros, window: &RecordWindow) {
        const MINUTE: Micros = 60_000_000;
        let b = text.as_bytes();
        let start = t - t.rem_euclid(MINUTE);
        if b.len() >= 20 && b.last() == Some(&b'Z') && window.holds(start) && window.holds(start + MINUTE - 1) {
            self.inside = b.first_chunk::<16>().copied();
        }
    }
}

impl PartialEq for MinuteMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Where a line's time puts it against the run's window.
enum Judged {
    /// Outside it: the line is left out of every count.
    Outside,
    /// Inside it, or without a readable time (which counts): the time
    /// parsed to tell, when it was.
    Inside(Option<Micros>),
}

/// The hosts (run.json `addr`) of the fleet's nodes, whose writes are kept
/// apart to be tied to their targets. Shared by every chunk's aggregate.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NodeHosts(Arc<[String]>);

impl NodeHosts {
    pub(crate) fn new(hosts: impl IntoIterator<Item = String>) -> Self {
        let mut hosts: Vec<String> = hosts.into_iter().collect();
        hosts.sort();
        hosts.dedup();
        NodeHosts(hosts.into())
    }

    pub(crate) fn index(&self, host: &str) -> Option<usize> {
        self.0.iter().position(|h| h == host)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Names the set, so a live view notices when run.json's nodes change.
    pub(crate) fn tag(&self) -> String {
        self.0.join(" ")
    }
}

pub(crate) fn client_host(client_ip: &str) -> &str {
    // `[::1]:5000`, `10.0.3.12:45590`, or a bare address.
    if let Some(rest) = client_ip.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match client_ip.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => client_ip,
    }
}

/// A sized 2xx write whose latency spans more than one bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SpreadWrite {
    /// When the request began: its logged time less its latency.
    pub(crate) from: Micros,
    /// When it was logged, as it completed.
    pub(crate) to: Micros,
    pub(crate) bytes: u64,
    pub(crate) cache: bool,
    /// The node host's index (see `NodeHosts`), for a node's own lane.
    pub(crate) node: Option<u32>,
}

/// Writes that lasted beyond the window and were drawn clamped to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Clamped {
    pub(crate) writes: u64,
    /// The longest such write's latency.
    pub(crate) longest: Micros,
}

impl ZotLog {
    /// The whole write-rate lane: each write spread over its latency
    /// clamped to `window` (the run's, known only once every input is
    /// read), and how many writes were clamped. A write wholly outside the
    /// window stays an instant at its logged time, outside what is drawn.
    pub(crate) fn lane_within(&self, window: Option<(Micros, Micros)>) -> (ByteLane, Clamped) {
        self.spread_within(self.series.clone(), None, window)
    }

    /// One node's own write-rate lane, as `lane_within` draws the registry's;
    /// `None` when `host` is not one of the nodes this aggregate keeps apart.
    pub(crate) fn node_lane_within(&self, host: &str, window: Option<(Micros, Micros)>) -> Option<ByteLane> {
        let i = self.hosts.index(host)?;
        let base = self.node_series.get(i).cloned().unwrap_or_default();
        Some(self.spread_within(base, u32::try_from(i).ok(), window).0)
    }

    /// `lane` with the long writes spread in: every one, or one node's.
    fn spread_within(
        &self,
        mut lane: ByteLane,
        node: Option<u32>,
        window: Option<(Micros, Micros)>,
    ) -> (ByteLane, Clamped) {
        let mut clamped = Clamped::default();
        for w in self.spread_writes.iter().filter(|w| node.is_none() || w.node == node) {
            let (from, to) = match window {
                Some((start, end)) if w.to < start || w.from > end => {
                    lane.add(bucket_of(w.to), w.bytes, w.cache);
                    continue;
                }
                Some((start, end)) => (w.from.max(start), w.to.min(end)),
                None => (w.from, w.to),
            };
            if (from, to) != (w.from, w.to) {
                clamped.writes += 1;
                clamped.longest = clamped.longest.max(w.to - w.from);
            }
            spread(&mut lane, from, to, w.bytes, w.cache);
        }
        (lane, clamped)
    }
}

use super::bucket_of;

/// Adds `bytes` to the buckets covering `[from, to]` in proportion to overlap.
pub(crate) fn spread(lane: &mut ByteLane, from: Micros, to: Micros, bytes: u64, cache: bool) {
    let width = BUCKET_SECS * 1_000_000;
    let first = from.div_euclid(width);
    let last = to.div_euclid(width);
    if first >= last || to <= from {
        lane.add(last, bytes, cache);
        return;
    }
    let total = (to - from) as f64;
    let share = |lo: Micros, hi: Micros| (bytes as f64 * (hi - lo) as f64 / total) as u64;
    if last - first > WALKED_BUCKETS {
        // The same shares as the walk below: the first bucket's part, then
        // one full-bucket share for each bucket in between, the rest last.
        let head = share(from, (first + 1) * width);
        let full = share(0, width);
        let between = (last - first - 1) as u64;
        let given = head.saturating_add(full.saturating_mul(between));
        lane.add(first, head, cache);
        lane.step(first + 1, i128::from(full), cache);
        lane.step(last, -i128::from(full), cache);
        lane.add(last, bytes.saturating_sub(given), cache);
        return;
    }
    let mut given = 0u64;
    for bucket in first..=last {
        let lo = (bucket * width).max(from);
        let hi = ((bucket + 1) * width).min(to);
        let n = if bucket == last {
            bytes.saturating_sub(given)
        } else {
            share(lo, hi)
        };
        given = given.saturating_add(n);
        lane.add(bucket, n, cache);
    }
}

/// The request fields of a line, from either path.
#[derive(Debug, Default, PartialEq)]
struct Req<'a> {
    message: Option<Cow<'a, str>>,
    method: Option<Cow<'a, str>>,
    path: Option<Cow<'a, str>>,
    /// `None` when absent or not a non-negative integer.
    status: Option<u64>,
    body_size: Option<u64>,
}

/// The fields only a write needs.
#[derive(Debug, Default, PartialEq)]
struct Write<'a> {
    content_length: Option<Cow<'a, str>>,
    client_ip: Option<Cow<'a, str>>,
    time: Option<Cow<'a, str>>,
    latency: Option<Cow<'a, str>>,
}

/// A line's fields, read into `Req` and `Write` as the table says.
#[derive(Default)]
struct Fields<'a> {
    req: Req<'a>,
    write: Write<'a>,
}

// The fields of a registry line, by name (see `FIELDS`).
const MESSAGE: Field = 0;
const METHOD: Field = 1;
const PATH: Field = 2;
const STATUS: Field = 3;
const BODY_SIZE: Field = 4;
const CLIENT_IP: Field = 5;
const TIME: Field = 6;
const LATENCY: Field = 7;
const CONTENT_LENGTH: Field = 8;

/// The registry line's keys, each named once. Most lines are reads; the
/// fields only a write needs are `later`: serde reads them in a second
/// pass over the few write lines, so that a read line is never refused for
/// a write's field (and borrowing a string costs its UTF-8 validation).
static FIELDS: &[Spec] = &[
    field(MESSAGE, "message", Kind::Text),
    field(METHOD, "method", Kind::Text),
    field(PATH, "path", Kind::Text),
    field(STATUS, "statusCode", Kind::Count),
    field(BODY_SIZE, "bodySize", Kind::Count),
    field(CLIENT_IP, "clientIP", Kind::Text).later(),
    field(TIME, "time", Kind::Text).later(),
    field(LATENCY, "latency", Kind::Text).later(),
    object("headers", &[field(CONTENT_LENGTH, "Content-Length", Kind::FirstOfList)]).later(),
];

impl<'a> Record<'a> for Fields<'a> {
    #[inline(always)]
    fn set(&mut self, field: Field, v: Got<'a>) {
        let (r, w) = (&mut self.req, &mut self.write);
        match field {
            MESSAGE => r.message = v.text(),
            METHOD => r.method = v.text(),
            PATH => r.path = v.text(),
            STATUS => r.status = v.count(),
            BODY_SIZE => r.body_size = v.count(),
            CLIENT_IP => w.client_ip = v.text(),
            TIME => w.time = v.text(),
            LATENCY => w.latency = v.text(),
            CONTENT_LENGTH => w.content_length = v.text(),
            _ => {}
        }
    }
}

/// The reference path: serde_json, the write fields only for a write.
fn parse_req(line: &[u8]) -> Result<Req<'_>, String> {
    let mut f = Fields::default();
    fields::read_serde(FIELDS, line, Pass::Now, "a JSON object", &mut f).map_err(|e| format!("broken JSON: {e}"))?;
    Ok(f.req)
}

fn parse_write(line: &[u8]) -> Result<Write<'_>, String> {
    let mut f = Fields::default();
    fields::read_serde(FIELDS, line, Pass::Later, "a JSON object", &mut f).map_err(|e| format!("broken JSON: {e}"))?;
    Ok(f.write)
}

impl ZotLog {
    /// An empty aggregate that keeps the writes of these hosts apart, as
    /// finely as `cuts` asks (every write whole without).
    pub(crate) fn for_nodes(hosts: NodeHosts, cuts: Option<Arc<WriteCuts>>) -> Self {
        ZotLog {
            hosts,
            other_writes: Writes::new(cuts.clone()),
            cuts,
            ..Default::default()
        }
    }

    /// Leaves out the lines whose time lies outside `window`, counting them.
    pub(crate) fn within(mut self, window: Option<RecordWindow>) -> Self {
        self.window = window;
        self
    }

    /// The 2xx writes from one node's host, or `None` when it made none (or
    /// is not one of the hosts this aggregate was made for).
    pub(crate) fn writes_from(&self, host: &str) -> Option<&Writes> {
        let i = self.hosts.index(host)?;
        self.node_writes.get(i).filter(|w| !w.is_empty())
    }

    /// Every 2xx write with a time, from any client.
    pub(crate) fn all_writes(&self) -> impl Iterator<Item = WriteSpan> + Clone + '_ {
        self.node_writes
            .iter()
            .chain([&self.other_writes])
            .flat_map(Writes::spans)
    }

    /// The index of the node a client is, its lane made ready.
    fn node_of(&mut self, client_ip: Option<&str>) -> Option<usize> {
        let i = self.hosts.index(client_host(client_ip.unwrap_or("-")))?;
        if self.node_series.len() <= i {
            self.node_series.resize_with(self.hosts.0.len(), ByteLane::default);
        }
        Some(i)
    }

    fn keep_write(&mut self, client_ip: Option<&str>, ev: WriteEvent) {
        let host = client_host(client_ip.unwrap_or("-"));
        match self.hosts.index(host) {
            Some(i) => {
                if self.node_writes.len() <= i {
                    let cuts = &self.cuts;
                    self.node_writes
                        .resize_with(self.hosts.0.len(), || Writes::new(cuts.clone()));
                }
                self.node_writes[i].push(ev);
            }
            None => self.other_writes.push(ev),
        }
    }

    /// One line by the chosen parser (the tests and a fuzz target compare them).
    pub fn line_via(&mut self, line: &[u8], via: Via) -> Outcome {
        self.line_of(line, None, via)
    }

    /// `line_via`, with the line's text when its chunk was checked whole.
    fn line_of(&mut self, line: &[u8], text: Option<&str>, via: Via) -> Outcome {
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            self.not_json += 1;
            return Outcome::Skipped;
        }
        if via == Via::Fast {
            // The replay checks every byte itself; the walk needs a plain line.
            if let Some(c) = text.map(Cursor::text).or_else(|| Cursor::utf8(line)) {
                let mut f = Fields::default();
                if fields::read_fast(FIELDS, c, &mut self.shapes, &mut f).is_ok() {
                    return self.apply(f.req, || Ok(f.write));
                }
            }
        }
        match parse_req(line) {
            Ok(req) => self.apply(req, || parse_write(line)),
            Err(e) => Outcome::Malformed(e.into()),
        }
    }

    /// Counts one parsed line; `write` is asked for only when it is a write.
    fn apply<'a>(&mut self, l: Req<'a>, write: impl FnOnce() -> Result<Write<'a>, String>) -> Outcome {
        // With a window every line's time is read, which comes with the
        // write's fields; a line whose write fields do not read has no time.
        let mut write = Some(write);
        let mut read: Option<Result<Write<'a>, String>> = None;
        let mut judged = None;
        if let Some(window) = self.window {
            let got = read.insert(write.take().map_or_else(|| Err(String::new()), |f| f()));
            match self.judge(window, got.as_ref().ok().and_then(|w| w.time.as_deref())) {
                Judged::Inside(t) => judged = t,
                Judged::Outside => return Outcome::Skipped,
            }
        }
        let Some(message) = l.message else {
            *self.by_message.entry("(no message)".into()).or_default() += 1;
            return Outcome::Skipped;
        };
        if message != "HTTP API" {
            count_message(&mut self.by_message, message.as_ref(), 1);
            return Outcome::Skipped;
        }
        self.requests += 1;
        let (Some(method), Some(path)) = (l.method, l.path) else {
            return Outcome::Malformed("HTTP API line without method or path".into());
        };
        let Some(status) = l.status else {
            return Outcome::Malformed("HTTP API line without a numeric statusCode".into());
        };
        let ok = (200..300).contains(&status);
        let (kind, name, reference) = classify(&method, &path);
        let is_write = matches!(
            kind,
            RequestKind::BlobChunk | RequestKind::BlobComplete | RequestKind::ManifestWrite
        );
        let w: Option<Write> = if is_write {
            match read.or_else(|| write.take().map(|f| f())) {
                Some(Ok(w)) => Some(w),
                Some(Err(e)) => return Outcome::Malformed(e.into()),
                None => None,
            }
        } else {
            None
        };
        let size = w
            .as_ref()
            .and_then(|w| w.content_length.as_deref())
            .and_then(|c| c.trim().parse::<u64>().ok());
        match kind {
            RequestKind::BlobRead | RequestKind::ManifestRead => {
                self.reads += 1;
                if method == "GET" && status == 200 {
                    // A read without bodySize is counted as unsized, not as zero bytes.
                    match l.body_size {
                        Some(n) => self.read_bytes = self.read_bytes.saturating_add(n),
                        None => self.reads_unsized += 1,
                    }
                }
            }
            RequestKind::UploadStart if ok => self.upload_starts += 1,
            RequestKind::BlobChunk | RequestKind::BlobComplete | RequestKind::ManifestWrite if !ok => {
                self.failed_writes += 1
            }
            RequestKind::BlobChunk | RequestKind::BlobComplete | RequestKind::ManifestWrite => {
                let manifest = kind == RequestKind::ManifestWrite;
                self.count_write(manifest, (name, reference), size, (judged, w.as_ref()));
            }
            _ => {}
        }
        Outcome::Record
    }

    /// A line's time against the window: outside it, the line is counted
    /// there; inside, its time comes back when it had to be parsed to tell
    /// (a line in the minute known inside is not parsed).
    #[inline]
    fn judge(&mut self, window: RecordWindow, time: Option<&str>) -> Judged {
        if time.is_some_and(|t| self.last_minute.known_inside(t)) {
            return Judged::Inside(None);
        }
        let judged = time.and_then(|t| timefmt::parse_rfc3339_after(t, &mut self.last_minute.last));
        // A line without a readable time cannot be judged: it counts.
        if let Some(t) = judged.filter(|&t| !window.holds(t)) {
            Outside::add(&mut self.outside, t, t, 1);
            return Judged::Outside;
        }
        if let (Some(text), Some(t)) = (time, judged) {
            self.last_minute.learn(text, t, &window);
        }
        Judged::Inside(judged)
    }

    /// A 2xx write of a blob or manifest to repository `name` at
    /// `reference`: counted with its bytes, and placed at its time.
    #[inline]
    fn count_write(
        &mut self,
        manifest: bool,
        (name, reference): (&str, &str),
        size: Option<u64>,
        (judged, w): (Option<Micros>, Option<&Write<'_>>),
    ) {
        if manifest {
            self.manifest_writes += 1;
        } else {
            self.blob_writes += 1;
        }
        let cache = is_cache(name, reference);
        match size {
            Some(n) => {
                if !manifest {
                    self.blob_write_bytes = self.blob_write_bytes.saturating_add(n);
                }
                if cache {
                    self.cache_write_bytes = self.cache_write_bytes.saturating_add(n);
                } else {
                    self.image_write_bytes = self.image_write_bytes.saturating_add(n);
                }
            }
            None => self.writes_unsized += 1,
        }
        // Without a window, time is parsed only here: no other line needs it.
        let time = w.and_then(|w| w.time.as_deref());
        if let Some(t) = judged.or_else(|| time.and_then(timefmt::parse_rfc3339)) {
            self.place_write(t, size, cache, w);
        }
    }

    /// A 2xx write at `t` onto the lanes (its bytes over its latency) and
    /// into its node's writes, to be tied to the target it was made during.
    fn place_write(&mut self, t: Micros, size: Option<u64>, cache: bool, w: Option<&Write<'_>>) {
        if let Some(n) = size {
            // The request line is logged when the write completes; its
            // bytes flowed during the request's latency, so spread them
            // over it rather than piling a whole blob into one instant.
            let latency = w
                .and_then(|w| w.latency.as_deref())
                .and_then(timefmt::parse_go_duration)
                .unwrap_or(0.0);
            // Saturating: Go's largest duration is 292 years, and a
            // hand-written one can be larger still.
            let from = t.saturating_sub((latency * 1e6) as Micros).max(timefmt::MIN_MICROS);
            let node = self.node_of(w.and_then(|w| w.client_ip.as_deref()));
            if bucket_of(from) >= bucket_of(t) {
                self.series.add(bucket_of(t), n, cache);
                if let Some(lane) = node.and_then(|i| self.node_series.get_mut(i)) {
                    lane.add(bucket_of(t), n, cache);
                }
            } else if self.cuts.as_ref().is_some_and(|c| c.within(from, t)) {
                // Inside the anchors' window it is never clamped: spread now.
                spread(&mut self.series, from, t, n, cache);
                if let Some(lane) = node.and_then(|i| self.node_series.get_mut(i)) {
                    spread(lane, from, t, n, cache);
                }
            } else {
                self.spread_writes.push(SpreadWrite {
                    from,
                    to: t,
                    bytes: n,
                    cache,
                    node: node.and_then(|i| u32::try_from(i).ok()),
                });
            }
        }
        let ev = WriteEvent { time: t, bytes: size };
        self.keep_write(w.and_then(|w| w.client_ip.as_deref()), ev);
    }
}

impl LineSink for ZotLog {
    fn line(&mut self, line: &[u8]) -> Outcome {
        self.line_via(line, Via::Fast)
    }

    fn learnt(&mut self) -> Option<&mut Shapes> {
        Some(&mut self.shapes)
    }

    fn line_text(&mut self, line: &str) -> Outcome {
        self.line_of(line.as_bytes(), Some(line), Via::Fast)
    }

    fn merge_following(&mut self, b: Self) {
        self.requests += b.requests;
        self.blob_write_bytes = self.blob_write_bytes.saturating_add(b.blob_write_bytes);
        self.cache_write_bytes = self.cache_write_bytes.saturating_add(b.cache_write_bytes);
        self.image_write_bytes = self.image_write_bytes.saturating_add(b.image_write_bytes);
        self.manifest_writes += b.manifest_writes;
        self.blob_writes += b.blob_writes;
        self.writes_unsized += b.writes_unsized;
        self.failed_writes += b.failed_writes;
        self.upload_starts += b.upload_starts;
        self.reads += b.reads;
        self.read_bytes = self.read_bytes.saturating_add(b.read_bytes);
        self.reads_unsized += b.reads_unsized;
        self.not_json += b.not_json;
        for (k, v) in b.by_message {
            count_message(&mut self.by_message, &k, v);
        }
        // Chunks share `hosts`: node writes merge by index, the rest as one list.
        if self.node_writes.len() < b.node_writes.len() {
            let cuts = &self.cuts;
            self.node_writes
                .resize_with(b.node_writes.len(), || Writes::new(cuts.clone()));
        }
        for (mine, theirs) in self.node_writes.iter_mut().zip(b.node_writes) {
            mine.append(theirs);
        }
        self.other_writes.append(b.other_writes);
        if self.node_series.len() < b.node_series.len() {
            self.node_series.resize_with(b.node_series.len(), ByteLane::default);
        }
        for (mine, theirs) in self.node_series.iter_mut().zip(b.node_series) {
            mine.merge(theirs);
        }
        self.series.merge(b.series);
        self.spread_writes.extend(b.spread_writes);
        Outside::merge(&mut self.outside, b.outside);
    }
}

/// Message kinds counted by name; a log of more kinds (a message that carries
/// its own id, say) counts the rest together, so one input cannot grow the
/// report, data.json and the page without bound. Totals stay exact.
pub(crate) const MESSAGE_KINDS: usize = 64;
/// A message name longer than this is cut (on a character boundary).
pub(crate) const MESSAGE_CHARS: usize = 120;
pub(crate) const OTHER_MESSAGES: &str = "(other messages)";

fn count_message(by_message: &mut BTreeMap<String, u64>, message: &str, n: u64) {
    if let Some(c) = by_message.get_mut(message) {
        *c = c.saturating_add(n);
        return;
    }
    let mut key = match message.char_indices().nth(MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_string(),
    };
    if by_message.len() >= MESSAGE_KINDS && !by_message.contains_key(&key) {
        key = OTHER_MESSAGES.to_string();
    }
    let c = by_message.entry(key).or_default();
    *c = c.saturating_add(n);
}

/// What the report says of zot.jsonl beyond its parse: JSON lines none of
/// which was a request.
pub(crate) fn warn(log: Option<&ZotLog>, report: &mut InputReport) {
    if let Some(z) = log {
        if report.present && report.records > 0 && z.requests == 0 {
            report.warnings.push(format!(
                "{FILE}: {} JSON lines but no `HTTP API` request among them",
                report.records + report.skipped
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report_of(records: u64) -> InputReport {
        let stats = crate::input::ParseStats {
            lines: records,
            records,
            ..Default::default()
        };
        InputReport::from_parse("zot.jsonl", 100, None, &stats)
    }

    #[test]
    fn json_lines_without_a_single_request_are_warned_about() {
        let mut r = report_of(3);
        warn(Some(&ZotLog::default()), &mut r);
        assert_eq!(
            r.warnings,
            ["zot.jsonl: 3 JSON lines but no `HTTP API` request among them"]
        );
        // A log with requests, or an empty one, says nothing.
        let z = ZotLog {
            requests: 1,
            ..Default::default()
        };
        let mut r = report_of(3);
        warn(Some(&z), &mut r);
        assert!(r.warnings.is_empty());
        // An empty log is the parse's own warning, not this one.
        let mut r = report_of(0);
        warn(Some(&ZotLog::default()), &mut r);
        assert!(!r.warnings.iter().any(|w| w.contains("HTTP API")), "{:?}", r.warnings);
    }

    /// Found by attacking the fixes: 200,000 messages that each carry their own
    /// id made an 83 MB report.md line and a 166 MB page.
    #[test]
    fn a_log_of_endless_message_kinds_counts_past_the_cap_together_with_exact_totals() {
        let (mut first, mut second) = (ZotLog::default(), ZotLog::default());
        let long = "x".repeat(500);
        for i in 0..1000 {
            let line = format!(r#"{{"level":"info","message":"m{i:04} {long}"}}"#);
            let log = if i < 500 { &mut first } else { &mut second };
            log.line_via(line.as_bytes(), Via::Fast);
        }
        first.merge_following(second);
        let m = &first.by_message;
        assert!(m.len() <= MESSAGE_KINDS + 1, "{} kinds kept", m.len());
        assert_eq!(m.values().sum::<u64>(), 1000, "every message still counted");
        assert_eq!(m[OTHER_MESSAGES], 1000 - MESSAGE_KINDS as u64);
        assert!(
            m.keys().all(|k| k.chars().count() <= MESSAGE_CHARS + 1),
            "names are cut"
        );
    }

    #[test]
    fn repository_names_with_slashes_split_at_blobs_and_manifests() {
        let (k, name, _) = classify("PUT", "/v2/rocm/pytorch/blobs/uploads/7f3a?digest=sha256%3Aab");
        assert_eq!((k, name), (RequestKind::BlobComplete, "rocm/pytorch"));
        let (k, name, r) = classify("PUT", "/v2/rocm/cache/manifests/triton-wheel");
        assert_eq!((k, name, r), (RequestKind::ManifestWrite, "rocm/cache", "triton-wheel"));
        assert_eq!(classify("POST", "/v2/a/blobs/uploads/").0, RequestKind::UploadStart);
        assert_eq!(classify("PATCH", "/v2/a/blobs/uploads/x").0, RequestKind::BlobChunk);
        assert_eq!(classify("GET", "/v2/a/blobs/sha256:00").0, RequestKind::BlobRead);
        assert_eq!(classify("GET", "/v2/").0, RequestKind::Other);
    }

    /// `classify`'s splitting as first written, with the standard library's
    /// searches (the method tables are shared: the searches are under test).
    fn classify_by_str_find<'p>(method: &str, path: &'p str) -> (RequestKind, &'p str, &'p str) {
        let path = path.find('?').map_or(path, |q| &path[..q]);
        let Some(rest) = path.strip_prefix("/v2/") else {
            return (RequestKind::Other, "", "");
        };
        if let Some(i) = rest.find("/blobs/") {
            return (blob_request(method, &rest[i + 7..]), &rest[..i], "");
        }
        if let Some(i) = rest.find("/manifests/") {
            return (manifest_request(method), &rest[..i], &rest[i + 11..]);
        }
        (RequestKind::Other, "", "")
    }

    #[test]
    fn odd_paths_classify_as_the_plain_searches_do() {
        // Markers in every order, before and after a query, names that
        // contain the words, and lengths around the 16-byte blocks.
        let parts = [
            "/blobs/",
            "/manifests/",
            "?",
            "uploads",
            "/",
            "a",
            "sha256:0123456789abcdef",
            "blobs",
            "manifests/",
            "é",
            "?x=/blobs/",
        ];
        let mut paths = vec![String::new(), "/v2".into(), "/v2/".into()];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut p = String::from(if next() % 7 == 0 { "/v3/" } else { "/v2/" });
            for _ in 0..next() % 7 {
                let x = next();
                p.push_str(parts[(x % parts.len() as u64) as usize]);
            }
            paths.push(p);
        }
        for path in &paths {
            for method in ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"] {
                assert_eq!(
                    classify(method, path),
                    classify_by_str_find(method, path),
                    "{method} {path}"
                );
            }
        }
    }

    #[test]
    fn sizes_past_what_a_u64_holds_saturate_instead_of_wrapping_or_panicking() {
        let read = r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":18446744073709551615}"#;
        let write = r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":["18446744073709551615"]},"clientIP":"h:5","time":"2026-10-20T02:00:30Z","latency":"25s"}"#;
        let mut z = ZotLog::default();
        for line in [read, read, write, write] {
            assert_eq!(z.line(line.as_bytes()), Outcome::Record);
        }
        assert_eq!((z.read_bytes, z.cache_write_bytes), (u64::MAX, u64::MAX));
        // Spread over the buckets the 25 s latency covers, without wrapping.
        let (lane, _) = z.lane_within(None);
        let (lo, hi) = lane.extent().unwrap();
        assert!(hi > lo);
        let spread = lane
            .buckets(lo, hi)
            .map(|(_, b)| b.cache_bytes)
            .fold(0u64, u64::saturating_add);
        assert_eq!(spread, u64::MAX);
        let mut other = ZotLog::default();
        other.line(write.as_bytes());
        z.merge_following(other);
        assert_eq!(z.cache_write_bytes, u64::MAX);
    }

    #[test]
    fn a_write_is_spread_over_its_latency_and_no_byte_is_lost() {
        let mut lane = ByteLane::default();
        // 100 bytes over 5 s..35 s: buckets 0 (5 s), 1 (10 s), 2 (10 s), 3 (5 s).
        spread(&mut lane, 5_000_000, 35_000_000, 100, true);
        let got: Vec<u64> = lane.buckets(0, 3).map(|(_, b)| b.cache_bytes).collect();
        assert_eq!(got, vec![16, 33, 33, 18]);
        assert_eq!(got.iter().sum::<u64>(), 100);
    }

    /// `spread` as first written: every bucket of the span walked.
    fn spread_bucket_by_bucket(series: &mut BTreeMap<i64, LaneBucket>, from: Micros, to: Micros, bytes: u64) {
        let width = BUCKET_SECS * 1_000_000;
        let (first, last) = (from.div_euclid(width), to.div_euclid(width));
        if first >= last || to <= from {
            series.entry(last).or_default().cache_bytes += bytes;
            return;
        }
        let total = (to - from) as f64;
        let mut given = 0u64;
        for bucket in first..=last {
            let lo = (bucket * width).max(from);
            let hi = ((bucket + 1) * width).min(to);
            let n = if bucket == last {
                bytes.saturating_sub(given)
            } else {
                (bytes as f64 * (hi - lo) as f64 / total) as u64
            };
            given = given.saturating_add(n);
            let b = series.entry(bucket).or_default();
            b.cache_bytes = b.cache_bytes.saturating_add(n);
        }
    }

    #[test]
    fn long_writes_kept_as_steps_give_the_bytes_the_bucket_walk_gave() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut lane, mut walked) = (ByteLane::default(), BTreeMap::new());
        let mut parts = vec![ByteLane::default(), ByteLane::default()];
        for i in 0..400 {
            // Spans from nothing to a few hours, overlapping, some sizes huge.
            let from = (next() % 20_000) as Micros * 1_000_000 - 5_000_000_000;
            let to = from + (next() % 3_600_000_000) as Micros * [1, 3][i % 2];
            let bytes = if i % 50 == 0 { u64::MAX / 3 } else { next() % (8 << 30) };
            spread(&mut lane, from, to, bytes, true);
            spread(&mut parts[i % 2], from, to, bytes, true);
            spread_bucket_by_bucket(&mut walked, from, to, bytes);
        }
        let (lo, hi) = lane.extent().unwrap();
        assert_eq!(
            (lo, hi),
            (*walked.keys().next().unwrap(), *walked.keys().next_back().unwrap())
        );
        let [first, second] = <[ByteLane; 2]>::try_from(parts).unwrap();
        let mut merged = first;
        merged.merge(second);
        for a in [&lane, &merged] {
            let walked_at = |k: i64| walked.get(&k).map_or(0, |b: &LaneBucket| b.cache_bytes);
            for (k, got) in a.buckets(lo, hi) {
                assert_eq!(got.cache_bytes, walked_at(k), "bucket {k}");
            }
            // A window inside the spans starts with the steps before it.
            let inner: Vec<u64> = a.buckets(lo + 700, lo + 900).map(|(_, b)| b.cache_bytes).collect();
            let want: Vec<u64> = (lo + 700..=lo + 900).map(walked_at).collect();
            assert_eq!(inner, want);
        }
    }

    #[test]
    fn a_write_lasting_go_s_largest_duration_is_one_entry_spread_only_inside_the_window() {
        let line = r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":["1000"]},"clientIP":"h:5","time":"2026-10-20T02:00:30Z","latency":"2562047h47m16.854775807s"}"#;
        let mut z = ZotLog::default();
        assert_eq!(z.line(line.as_bytes()), Outcome::Record);
        assert!(z.series.is_empty());
        let end = timefmt::parse_rfc3339("2026-10-20T02:00:30Z").unwrap();
        let w = z.spread_writes[0];
        // 9223372036.854775807 s, to the microsecond an f64 holds.
        assert_eq!((end - w.from, w.to, w.bytes), (9_223_372_036_854_776, end, 1000));
        // Clamped to a window of a minute before the write: every byte inside it.
        let (lane, clamped) = z.lane_within(Some((end - 60_000_000, end + 60_000_000)));
        assert_eq!(
            clamped,
            Clamped {
                writes: 1,
                longest: end - w.from
            }
        );
        let (lo, hi) = lane.extent().unwrap();
        assert_eq!((lo, hi), (bucket_of(end) - 6, bucket_of(end)));
        let drawn: Vec<u64> = lane.buckets(lo, hi).map(|(_, b)| b.cache_bytes).collect();
        assert_eq!(drawn, vec![166, 166, 166, 166, 166, 166, 4]);
        // A window it does not reach: an instant at its time, not drawn inside.
        let (lane, clamped) = z.lane_within(Some((end + 1, end + 60_000_000)));
        assert_eq!(
            (clamped.writes, lane.extent()),
            (0, Some((bucket_of(end), bucket_of(end))))
        );
        // A latency past any i64 of microseconds saturates instead of overflowing.
        let mut z = ZotLog::default();
        let huge = line.replace("2562047h47m16.854775807s", &format!("{}h", "9".repeat(40)));
        assert_eq!(z.line(huge.as_bytes()), Outcome::Record);
        assert_eq!(z.spread_writes[0].from, timefmt::MIN_MICROS);
        let (lane, _) = z.lane_within(None);
        assert_eq!(lane.extent().map(|(lo, hi)| hi - lo > 10_000_000_000), Some(true));
    }

    #[test]
    fn client_hosts_drop_the_port() {
        assert_eq!(client_host("10.0.3.12:45590"), "10.0.3.12");
        assert_eq!(client_host("[fd00::1]:5000"), "fd00::1");
        assert_eq!(client_host("fd00::1"), "fd00::1");
    }

    /// The nodes the test lines write from.
    pub(super) fn fleet() -> ZotLog {
        ZotLog::for_nodes(NodeHosts::new(["10.0.0.1".to_string(), "fd00::1".to_string()]), None)
    }

    fn agg(text: &str) -> (ZotLog, crate::input::ParseStats) {
        crate::input::lines::parse_bytes(text.as_bytes(), crate::input::lines::Tail::Complete, fleet)
    }

    /// A registry that ran the day before leaves that day's lines in the
    /// file: with the run's window they count nowhere but as left out.
    #[test]
    fn lines_outside_the_run_s_window_are_left_out_of_every_count_and_counted() {
        let line = |time: &str, message: &str| {
            format!(
                r#"{{"time":"{time}","message":"{message}","method":"PUT","path":"/v2/r/blobs/uploads/1?digest=x","statusCode":201,"headers":{{"Content-Length":["10"]}},"clientIP":"10.0.0.1:4000"}}"#
            ) + "\n"
        };
        let text = line("2026-10-19T02:00:00Z", "HTTP API")
            + &line("2026-10-19T03:00:00.5Z", "syncing image")
            + &line("2026-10-20T02:00:00Z", "HTTP API")
            + &line("2026-10-20T02:30:00Z", "HTTP API")
            + r#"{"message":"HTTP API","method":"GET","path":"/v2/","statusCode":200}"#
            + "\n";
        let t = |s: &str| timefmt::parse_rfc3339(s).unwrap();
        let window = RecordWindow {
            from: t("2026-10-20T01:00:00Z"),
            to: Some(t("2026-10-20T04:00:00Z")),
        };
        let (z, stats) = crate::input::lines::parse_bytes(text.as_bytes(), crate::input::lines::Tail::Complete, || {
            fleet().within(Some(window))
        });
        // Two writes inside, and the untimed request (it cannot be judged).
        assert_eq!((z.requests, z.blob_writes, z.image_write_bytes), (3, 2, 20));
        assert!(z.by_message.is_empty(), "{:?}", z.by_message);
        assert_eq!(
            z.outside,
            Some(Outside {
                records: 2,
                first: t("2026-10-19T02:00:00Z"),
                last: t("2026-10-19T03:00:00.5Z"),
            })
        );
        assert_eq!((stats.records, stats.skipped), (3, 2));
        // The reference path judges the same line the same way.
        for via in [Via::Fast, Via::SerdeOnly] {
            let mut one = fleet().within(Some(window));
            let old = line("2026-10-19T02:00:00Z", "HTTP API");
            assert_eq!(
                one.line_via(old.trim_end().as_bytes(), via),
                Outcome::Skipped,
                "{via:?}"
            );
            assert_eq!(one.outside.map(|o| o.records), Some(1), "{via:?}");
            assert_eq!(one.requests, 0, "{via:?}");
        }
        // Without a window every line counts.
        let (all, _) = agg(&text);
        assert_eq!((all.requests, all.outside), (4, None));
    }

    /// A minute known wholly inside the window is not judged line by line;
    /// a minute across either edge is, to the microsecond.
    #[test]
    fn lines_in_a_minute_across_the_window_s_edge_are_each_judged() {
        let line = |time: &str| {
            format!(r#"{{"time":"{time}","message":"HTTP API","method":"GET","path":"/v2/","statusCode":200}}"#) + "\n"
        };
        let times = [
            "2026-10-20T02:01:10Z",
            "2026-10-20T02:01:50.25Z",
            "2026-10-20T02:00:40Z",
            "2026-10-20T02:00:10Z",
            "2026-10-20T02:01:59.999999Z",
            "2026-10-20T02:05:10Z",
            "2026-10-20T02:05:50Z",
            "2026-10-20T02:05:10+00:00",
            "2026-10-20T02:05:10-01:00",
        ];
        let text: String = times.iter().map(|t| line(t)).collect();
        let t = |s: &str| timefmt::parse_rfc3339(s).unwrap();
        let window = RecordWindow {
            from: t("2026-10-20T02:00:30Z"),
            to: Some(t("2026-10-20T02:05:30Z")),
        };
        let mut z = fleet().within(Some(window));
        for l in text.lines() {
            z.line(l.as_bytes());
        }
        let outside = z.outside.expect("some lines lie outside");
        // 02:00:10, 02:05:50 and 02:05:10 an hour behind UTC (03:05:10Z).
        assert_eq!(outside.records, 3);
        assert_eq!(
            (outside.first, outside.last),
            (t("2026-10-20T02:00:10Z"), t("2026-10-20T03:05:10Z"))
        );
        assert_eq!(z.requests, 6);
    }

    /// The merge cost per distinct client address: a registry shared with other
    /// projects sees thousands, and every chunk kept a map of them.
    #[test]
    fn writes_from_thousands_of_clients_keep_only_the_nodes_apart() {
        let line = |i: usize, ip: &str| {
            format!(
                r#"{{"time":"2026-10-20T02:00:00Z","message":"HTTP API","method":"PUT","path":"/v2/r/blobs/uploads/{i}?digest=x","statusCode":201,"headers":{{"Content-Length":["10"]}},"clientIP":"{ip}:4000"}}"#
            ) + "\n"
        };
        let text: String = (0..20_000)
            .map(|i| match i % 100 {
                0 => line(i, "10.0.0.1"),
                1 => line(i, "[fd00::1]"),
                _ => line(i, &format!("192.168.{}.{}", i / 250 % 20, i % 250)),
            })
            .collect();
        let (z, _) = agg(&text);
        assert_eq!(z.writes_from("10.0.0.1").map(Writes::count), Some(200));
        assert_eq!(z.writes_from("fd00::1").map(Writes::count), Some(200));
        assert_eq!(z.writes_from("192.168.0.7"), None, "not a node: not kept apart");
        assert_eq!(z.all_writes().count(), 20_000, "every write still counts");
        assert_eq!(z.node_writes.len(), 2, "one list per node, none per client");
    }

    #[test]
    fn a_chunked_upload_without_content_length_is_unknown_not_zero() {
        let (z, _) = agg(
            r#"{"message":"HTTP API","method":"PATCH","path":"/v2/a/blobs/uploads/1","statusCode":202,"headers":{},"clientIP":"10.0.0.1:1","time":"2026-10-20T02:00:00Z"}
{"message":"HTTP API","method":"PUT","path":"/v2/a/blobs/uploads/1?digest=sha256%3Aab","statusCode":201,"headers":{"Content-Length":["100"]},"clientIP":"10.0.0.1:1","time":"2026-10-20T02:00:01Z"}
"#,
        );
        assert_eq!(z.blob_writes, 2);
        assert_eq!(z.writes_unsized, 1);
        assert_eq!(z.blob_write_bytes, 100);
        let writes: Vec<WriteSpan> = z.writes_from("10.0.0.1").unwrap().spans().collect();
        assert_eq!(writes.len(), 2);
        assert_eq!((writes[0].bytes, writes[0].no_size), (0, 1));
    }

    #[test]
    fn only_a_2xx_answer_is_a_write_and_cache_is_told_from_image() {
        let (z, stats) = agg(
            r#"{"level":"info","method":"PUT","path":"/v2/r/cache/blobs/uploads/1?digest=x","statusCode":201,"headers":{"Content-Length":["300"]},"clientIP":"h:1","message":"HTTP API","time":"2026-10-20T02:00:00Z"}
{"level":"info","method":"PUT","path":"/v2/r/img/blobs/uploads/2?digest=x","statusCode":500,"headers":{"Content-Length":["999"]},"clientIP":"h:1","message":"HTTP API","time":"2026-10-20T02:00:00Z"}
{"level":"info","method":"PUT","path":"/v2/r/img/manifests/v1","statusCode":201,"headers":{"Content-Length":["50"]},"clientIP":"h:1","message":"HTTP API","time":"2026-10-20T02:00:00Z","caller":"a","caller":"b"}
"#,
        );
        assert_eq!(stats.records, 3);
        assert_eq!(z.cache_write_bytes, 300);
        assert_eq!(z.image_write_bytes, 50);
        assert_eq!(z.blob_write_bytes, 300);
        assert_eq!(z.manifest_writes, 1);
        assert_eq!(z.failed_writes, 1);
    }

    #[test]
    fn a_read_without_body_size_is_unsized_not_zero() {
        let (z, _) = agg(
            r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":10}
{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:2","statusCode":200}
"#,
        );
        assert_eq!((z.reads, z.read_bytes, z.reads_unsized), (2, 10, 1));
    }

    #[test]
    fn escaped_strings_are_decoded() {
        let (z, stats) = agg(
            r#"{"message":"HTTP\u0020API","method":"PUT","path":"\/v2\/r\/manifests\/v1","statusCode":201,"headers":{"Content-Length":["7"]},"clientIP":"h:1","time":"2026-10-20T02:00:00Z"}
"#,
        );
        assert_eq!((stats.records, z.manifest_writes, z.image_write_bytes), (1, 1, 7));
    }
}

/// One corpus through the fast path and through serde alone: every line's
/// outcome and the whole aggregate must be identical (the issue's rule for
/// any second parser).
#[cfg(test)]
mod same_on_both_paths {
    use super::tests::fleet;
    use super::*;

    /// Lines a fast path could plausibly get wrong, each next to a normal one.
    pub(crate) const ODD_LINES: &[&str] = &[
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":10}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":10,"message":"HTTP API"}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200.0,"bodySize":10}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":"200"}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":-1}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/sha256:1","statusCode":200,"bodySize":1e3}"#,
        r#"{"message":null,"method":"GET"}"#,
        r#"{"message":5}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":["12","13"]},"clientIP":"[fd00::1]:5","time":"2026-10-20T02:00:00.5Z","latency":"1.5s"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":[12]},"clientIP":"h:5","time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":"12"},"clientIP":"h:5","time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":null},"clientIP":"h:5","time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":[]},"clientIP":"h:5","time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":null,"time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{"Content-Length":["1"],"Content-Length":["2"]},"time":"2026-10-20T02:00:00Z"}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/cache/manifests/x","statusCode":201,"headers":{},"time":5}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/manifests/x","statusCode":200,"time":5,"headers":[1]}"#,
        r#"{"message":"HTTP API","method":"PUT","path":"/v2/r/blobs/uploads/1","statusCode":201,"headers":{"Content-Length":["7"]},"time":"2026-10-20T02:00:00Z","time":"2026-10-20T02:00:01Z"}"#,
        r#"{"message":"HTTP\u0020API","method":"PUT","path":"\/v2\/r\/manifests\/v1","statusCode":201,"headers":{"Content-Length":["7"]}}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/ré/blobs/x","statusCode":200,"bodySize":3,"latency":"96.6µs"}"#,
        "{\"message\":\"HTTP API\",\t\"method\":\"GET\",\"path\":\"/v2/r/blobs/x\",\"statusCode\":200}",
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":200} trailing"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":200,}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":200,"n":01}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":200,"n":1e999}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":18446744073709551616}"#,
        r#"{"message":"syncing image","repo":"r"}"#,
        r#"{"level":"info"}"#,
        r#"{"message":"HTTP API","method":"GET","path":"/v2/r/blobs/x","statusCode":200,"bodySize":3"#,
        r#"  { "message" : "HTTP API" , "method" : "HEAD" , "path" : "/v2/r/blobs/x" , "statusCode" : 404 }  "#,
        "zot registry v2.1.2 serving on :5000",
        "{\"message\":\"HTTP API\",\"method\":\"GET\",\"path\":\"/v2/r/blobs/\u{0}\",\"statusCode\":200}",
    ];

    fn both(text: &[u8]) -> (ZotLog, ZotLog) {
        let (mut fast, mut slow) = (fleet(), fleet());
        // Lines handed over as a checked chunk's text, as the reader does
        // with a chunk of valid UTF-8 (the others go as bytes there too).
        let mut as_text = fleet();
        for (n, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let (a, b) = (fast.line_via(line, Via::Fast), slow.line_via(line, Via::SerdeOnly));
            assert_eq!(a, b, "line {}: {}", n + 1, String::from_utf8_lossy(line));
            let c = match std::str::from_utf8(line) {
                Ok(checked) => as_text.line_text(checked),
                Err(_) => as_text.line(line),
            };
            assert_eq!(c, b, "as text, line {}: {}", n + 1, String::from_utf8_lossy(line));
        }
        assert_eq!(fast, slow);
        assert_eq!(as_text, slow);
        (fast, slow)
    }

    #[test]
    fn odd_lines_give_the_same_outcome_on_both_paths() {
        let mut text = ODD_LINES.join("\n").into_bytes();
        // Invalid UTF-8 in a string nobody reads: serde passes over it.
        text.extend_from_slice(b"\n{\"message\":\"HTTP API\",\"method\":\"GET\",\"path\":\"/v2/r/blobs/x\",\"statusCode\":200,\"x\":\"\xff\"}");
        let (z, _) = both(&text);
        assert!(z.requests > 20, "the corpus reaches the request counting");
        assert!(z.writes_from("fd00::1").is_some());
    }

    #[test]
    fn lines_that_keep_a_learnt_shape_with_odd_values_give_the_same_outcome_on_both_paths() {
        let shapes = [
            r#"{"time":"2026-11-01T00:00:00.069Z","level":"info","message":"HTTP API","clientIP":"10.0.3.12:45997","method":"GET","path":"/v2/rocm/cache/manifests/pytorch","statusCode":200,"latency":"1.1ms","bodySize":2841,"headers":{"Accept-Encoding":["gzip"],"User-Agent":["containerd/2.1.4"]}}"#,
            r#"{"level":"info","clientIP":"10.0.3.16:47257","method":"PATCH","path":"/v2/rocm/cache/blobs/uploads/7f3a","statusCode":202,"latency":"96.6µs","bodySize":0,"headers":{"Content-Length":["1048576","2"],"User-Agent":["buildkit"]},"goroutine":955,"time":"2026-11-01T01:42:38.157Z","message":"HTTP API"}"#,
            r#"{ "message" : "HTTP API", "method" : "PUT", "path" : "/v2/r/manifests/v1", "statusCode" : 201, "ok" : true, "gone" : null, "headers" : { "Content-Length" : [ "12" ] } }"#,
        ];
        let mut counts = (0, 0, 0);
        for shape in shapes {
            // The plain line first, so its shape is learnt, then each variant
            // followed by the plain line again, which must still be replayed.
            let mut text = format!("{shape}\n");
            let variants =
                perfreport_scan::json_shape::with_each_value_replaced(shape, perfreport_scan::json_shape::ODD_VALUES);
            for variant in &variants {
                text.push_str(&format!("{variant}\n{shape}\n"));
            }
            let (z, _) = both(text.as_bytes());
            assert!(z.shapes.replayed() > variants.len() as u64, "{shape}");
            counts.0 += z.requests;
            counts.1 += z.blob_writes;
            counts.2 += z.manifest_writes;
        }
        assert!(counts.0 > 1000 && counts.1 > 100 && counts.2 > 100, "{counts:?}");
    }

    #[test]
    fn the_shared_fixture_and_sample_runs_give_the_same_aggregate_on_both_paths() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = vec![root.join("tests/fixtures/zot-slog-era.jsonl")];
        for run in std::fs::read_dir(root.join("sample-runs")).unwrap() {
            files.push(run.unwrap().path().join("zot.jsonl"));
        }
        let mut seen = 0;
        for f in files.iter().filter(|f| f.exists()) {
            let (z, _) = both(&std::fs::read(f).unwrap());
            assert!(z.requests > 0, "{} has requests", f.display());
            seen += 1;
        }
        assert!(seen >= 3, "the fixture and both sample runs were read");
    }
}

#[cfg(test)]
mod fast_path_reach {
    use super::*;

    #[test]
    fn nearly_every_line_a_registry_writes_takes_the_fast_path() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for f in [
            root.join("tests/fixtures/zot-slog-era.jsonl"),
            root.join("sample-runs/20261020T020000Z/zot.jsonl"),
        ] {
            let text = std::fs::read(&f).unwrap();
            let json: Vec<&[u8]> = text.split(|&b| b == b'\n').filter(|l| l.starts_with(b"{")).collect();
            let fast = json
                .iter()
                .filter(|l| {
                    Cursor::plain(l).is_some_and(|mut c| fields::walk(FIELDS, &mut c, &mut Fields::default()).is_ok())
                })
                .count();
            assert!(
                fast * 100 >= json.len() * 95,
                "{}: {fast} of {} lines",
                f.display(),
                json.len()
            );
        }
    }
}
