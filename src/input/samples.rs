//! `samples.jsonl`: node_exporter counters, polled, one object per node per poll.

use super::lines::{LineSink, Outcome};
use crate::timefmt::{self, LastMinute, Micros};
use perfreport_scan::fields::{self, any_key, field, object, Field, Got, Kind, Pass, Record, Spec};
use perfreport_scan::json_scan::{Cursor, Via};
use perfreport_scan::json_shape::Shapes;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Its name in a run directory.
pub(crate) const FILE: &str = "samples.jsonl";

/// One poll of one node, reduced to what the charts and figures use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub ts: Micros,
    /// `node_cpu_seconds_total` summed over every mode.
    pub(crate) cpu_total: Option<f64>,
    /// The not-busy modes by node_exporter's own rule: idle + iowait + steal.
    pub(crate) cpu_idle: Option<f64>,
    pub(crate) mem_total: Option<f64>,
    pub(crate) mem_available: Option<f64>,
    pub(crate) net_tx: Option<f64>,
    pub(crate) load1: Option<f64>,
}

/// What a node's oldest polls are summarised into once it has sent more
/// than the samples' cap: the analysis's fold (`analysis::nodes::NodeFold`),
/// fed here in time order so a long samples.jsonl is not held whole.
pub trait PollFold: Clone + fmt::Debug + PartialEq + Send + Sync {
    /// An empty fold whose rules (the gap limit) are fixed by a node's
    /// first polls, sorted by time.
    fn starting_from(first: &[Sample]) -> Self;
    /// The next poll, in time order.
    fn add(&mut self, s: &Sample);
}

/// Polls a node may hold unsummarised (64 nodes hold about 5 MB): below
/// it every poll is kept and the figures are those of all of them at once.
pub(crate) const POLL_CAP: usize = 512;
/// Coarse spans the summarised polls of a node are counted in, at most.
const MAX_SPANS: usize = 256;

/// Summarised polls counted by time: a minute's (or, past `MAX_SPANS`, a
/// wider stretch's) polls, with the first and last poll's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PollSpan {
    pub(crate) first: Micros,
    pub(crate) last: Micros,
    pub(crate) polls: u64,
}

/// A node's polls older than its unsummarised ones.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary<F> {
    pub(crate) fold: F,
    /// The earliest summarised poll's time.
    pub(crate) first: Micros,
    /// The latest summarised poll's time: a poll older than this arriving
    /// now is left out (`late`).
    pub(crate) last: Micros,
    pub(crate) late: u64,
    /// The summarised polls by time, oldest first.
    pub(crate) spans: Vec<PollSpan>,
}

/// One node's polls: the newest as they are, the oldest summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSamples<F> {
    /// Sorted by time once `finish` has run. Shared, so that a live view's
    /// copy of the followed samples costs a reference count on every
    /// refresh (copied on write only while a view still holds them).
    pub polls: Arc<Vec<Sample>>,
    pub(crate) summary: Option<Arc<Summary<F>>>,
}

impl<F> Default for NodeSamples<F> {
    fn default() -> Self {
        NodeSamples {
            polls: Arc::default(),
            summary: None,
        }
    }
}

impl<F: PollFold> NodeSamples<F> {
    pub(crate) fn is_empty(&self) -> bool {
        self.polls.is_empty() && self.summary.is_none()
    }

    /// The earliest and latest poll's time.
    pub(crate) fn first_ts(&self) -> Option<Micros> {
        let held = self.polls.iter().map(|s| s.ts).min();
        self.summary.as_ref().map(|m| m.first).into_iter().chain(held).min()
    }
    pub(crate) fn last_ts(&self) -> Option<Micros> {
        let held = self.polls.iter().map(|s| s.ts).max();
        self.summary.as_ref().map(|m| m.last).into_iter().chain(held).max()
    }

    /// Takes the next polls in file order; past `cap` held, the oldest half
    /// is summarised. The outcome depends only on the node's polls in file
    /// order, not on how the file was cut into chunks or appended to. Runs
    /// of polls that are not late are copied at once, not one by one.
    fn push_all(&mut self, mut polls: &[Sample], cap: usize) {
        while let Some(first) = polls.first() {
            let summarised_to = self.summary.as_ref().map(|m| m.last);
            let late = |s: &Sample| summarised_to.is_some_and(|last| s.ts < last);
            if late(first) {
                if let Some(m) = self.summary.as_mut() {
                    Arc::make_mut(m).late += 1;
                }
                polls = &polls[1..];
                continue;
            }
            let held = Arc::make_mut(&mut self.polls);
            if held.capacity() == 0 {
                held.reserve_exact(PART_CAPACITY.min(cap));
            }
            let room = cap.saturating_sub(held.len()).max(1);
            let run = polls.iter().take(room).take_while(|s| !late(s)).count();
            held.extend_from_slice(&polls[..run]);
            polls = &polls[run..];
            if held.len() >= cap {
                self.summarise_oldest_half();
            }
        }
    }

    /// Folds the oldest half of the polls held (a reorder window: polls land
    /// out of order across chunks), freezing the gap limit from the polls
    /// held the first time.
    fn summarise_oldest_half(&mut self) {
        let polls = Arc::make_mut(&mut self.polls);
        // Nearly always in order already (see `finish`).
        if !polls.is_sorted_by_key(|s| s.ts) {
            polls.sort_by_key(|s| s.ts);
        }
        let half = polls.len() / 2;
        let m = self.summary.get_or_insert_with(|| {
            Arc::new(Summary {
                fold: F::starting_from(polls),
                first: polls[0].ts,
                last: polls[0].ts,
                late: 0,
                spans: vec![],
            })
        });
        let m = Arc::make_mut(m);
        for s in &polls[..half] {
            m.fold.add(s);
            m.last = s.ts;
            count_in_spans(&mut m.spans, s.ts);
        }
        polls.drain(..half);
    }
}

/// Counts a poll (in time order) in its minute's span, halving the spans
/// when there are more than `MAX_SPANS`.
fn count_in_spans(spans: &mut Vec<PollSpan>, ts: Micros) {
    const MINUTE: Micros = 60_000_000;
    match spans.last_mut() {
        Some(sp) if ts.div_euclid(MINUTE) == sp.first.div_euclid(MINUTE) => {
            sp.last = ts;
            sp.polls += 1;
        }
        _ => spans.push(PollSpan {
            first: ts,
            last: ts,
            polls: 1,
        }),
    }
    if spans.len() > MAX_SPANS {
        *spans = spans
            .chunks(2)
            .map(|p| PollSpan {
                first: p[0].first,
                last: p[p.len() - 1].last,
                polls: p.iter().map(|x| x.polls).sum(),
            })
            .collect();
    }
}

/// Per node: the polls, the oldest summarised past a cap.
#[derive(Debug, Clone)]
pub struct Samples<F> {
    pub by_node: BTreeMap<String, NodeSamples<F>>,
    /// Each chunk's samples per node, in file order, until they are taken
    /// in file order (`append_block`, `finish`). Looked up on every line,
    /// never iterated for an output (each node's polls are taken on their
    /// own, into `by_node`): hashed, where a B-tree of 64 nodes compared
    /// six names a line, by foldhash, where SipHash took ~240 instructions.
    parts: foldhash::HashMap<String, Vec<Vec<Sample>>>,
    cap: usize,
    /// The most nodes whose polls are held, and the nodes always held
    /// (run.json's): past it a node costs its name, not its polls.
    nodes: NodeBound,
    /// The shapes of the lines read, while a worker parses a chunk (see
    /// `LineSink::learnt`), and the minute of the last time read.
    shapes: Shapes,
    last_minute: LastMinute,
}

/// Which nodes' polls a read holds: every node named in `first`, and at
/// most `most` others, the first by name among those seen (a node once left
/// out stays out: its earlier polls are gone). A report takes no more nodes
/// than its bound, so a file of 100,000 nodes' polls need not cost 100,000
/// nodes' memory while it is read.
#[derive(Debug, Clone)]
struct NodeBound {
    first: Arc<std::collections::BTreeSet<String>>,
    most: usize,
    /// The names of the nodes left out, for the bound's warning.
    left_out: std::collections::BTreeSet<String>,
}

impl Default for NodeBound {
    fn default() -> Self {
        NodeBound {
            first: Arc::default(),
            most: usize::MAX,
            left_out: std::collections::BTreeSet::new(),
        }
    }
}

impl<F> Default for Samples<F> {
    fn default() -> Self {
        Samples {
            by_node: BTreeMap::new(),
            parts: foldhash::HashMap::default(),
            cap: POLL_CAP,
            nodes: NodeBound::default(),
            shapes: Shapes::default(),
            last_minute: LastMinute::default(),
        }
    }
}

impl<F: PollFold> Samples<F> {
    /// With another cap on the polls a node holds (the tests reach it quickly).
    #[cfg(test)]
    pub(crate) fn with_cap(cap: usize) -> Self {
        Samples {
            cap: cap.max(2),
            ..Samples::default()
        }
    }

    /// Takes the chunks' polls in file order, then sorts each node's polls
    /// by time (polls can land out of order across chunks).
    pub fn finish(&mut self) {
        self.take_parts();
        for n in self.by_node.values_mut() {
            // Polls are nearly always in order already; a stable sort would
            // allocate half the samples again as scratch just to find that out.
            if !n.polls.is_sorted_by_key(|s| s.ts) {
                Arc::make_mut(&mut n.polls).sort_by_key(|s| s.ts);
            }
        }
    }

    /// A read that always holds the polls of the nodes in `first` (run.json's)
    /// and of at most `most` others.
    pub(crate) fn keeping(first: Arc<std::collections::BTreeSet<String>>, most: usize) -> Self {
        Samples {
            nodes: NodeBound {
                first,
                most,
                ..NodeBound::default()
            },
            ..Samples::default()
        }
    }

    /// The nodes whose polls were left out past the bound on nodes.
    pub(crate) fn nodes_left_out(&self) -> impl Iterator<Item = &String> {
        self.nodes.left_out.iter()
    }

    /// Moves the chunks' polls, in file order, to their nodes; past the
    /// bound on nodes, the ones last by name are left out (counted by name).
    fn take_parts(&mut self) {
        let first = self.nodes.first.clone();
        let mut others = self.by_node.keys().filter(|n| !first.contains(*n)).count();
        for (node, parts) in std::mem::take(&mut self.parts) {
            if self.nodes.left_out.contains(&node) {
                continue;
            }
            if !first.contains(&node) && !self.by_node.contains_key(&node) {
                if others < self.nodes.most {
                    others += 1;
                } else {
                    // Admitted only in place of the last by name held.
                    let last = self.by_node.keys().rev().find(|n| !first.contains(*n)).cloned();
                    match last {
                        Some(last) if node < last => {
                            self.by_node.remove(&last);
                            self.nodes.left_out.insert(last);
                        }
                        _ => {
                            self.nodes.left_out.insert(node);
                            continue;
                        }
                    }
                }
            }
            let n = self.by_node.entry(node).or_default();
            for part in parts {
                n.push_all(&part, self.cap);
            }
        }
    }

    /// Polls left out, over every node, because they arrived after later
    /// ones had been summarised.
    pub(crate) fn late(&self) -> u64 {
        self.by_node
            .values()
            .filter_map(|n| n.summary.as_ref())
            .map(|m| m.late)
            .sum()
    }

    /// What the samples' report warns about: polls left out because they
    /// arrived after later ones had been summarised.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.by_node
            .iter()
            .filter_map(|(name, n)| Some((name, n.summary.as_ref()?.late)))
            .filter(|(_, late)| *late > 0)
            .map(|(name, late)| {
                let polls = if late == 1 { "poll" } else { "polls" };
                format!("samples.jsonl: {late} {polls} of node {name} arrived after later ones had been summarised: left out")
            })
            .collect()
    }
}

/// `ts` is RFC 3339 or a number of Unix seconds.
enum Ts<'a> {
    Text(Cow<'a, str>),
    Secs(f64),
}

/// One line's fields, as `FIELDS` reads them. The objects themselves are
/// not fields: an object without the keys the report reads gives the same
/// sample as no object (a `cpu` without `idle` gives no CPU figures either
/// way).
#[derive(Default)]
struct Poll<'a> {
    ts: Option<Ts<'a>>,
    node: Option<Cow<'a, str>>,
    /// Every CPU mode, summed as it is read: whatever modes this
    /// node_exporter version reports.
    cpu_total: f64,
    /// The not-busy modes by node_exporter's own rule.
    cpu_idle: f64,
    /// Whether `idle` was among them (else no CPU figures).
    saw_idle: bool,
    mem_total: Option<f64>,
    mem_available: Option<f64>,
    net_tx: Option<f64>,
    load1: Option<f64>,
}

// The fields of a sample line, by name (see `FIELDS`).
const TS: Field = 0;
const NODE: Field = 1;
/// A CPU mode that counts towards the total only.
const CPU_BUSY: Field = 2;
/// `idle`, which also tells that the not-busy sum is known.
const CPU_IDLE: Field = 3;
/// `iowait` and `steal`: not busy, like idle.
const CPU_WAIT: Field = 4;
const MEM_TOTAL: Field = 5;
const MEM_AVAILABLE: Field = 6;
const NET_TX: Field = 7;
const LOAD1: Field = 8;

/// The sample line's keys, each named once.
static FIELDS: &[Spec] = &[
    field(TS, "ts", Kind::TextOrNumber),
    field(NODE, "node", Kind::Text),
    object(
        "cpu",
        &[
            field(CPU_IDLE, "idle", Kind::Counter),
            field(CPU_WAIT, "iowait", Kind::Counter),
            field(CPU_WAIT, "steal", Kind::Counter),
            any_key(CPU_BUSY, Kind::Counter),
        ],
    ),
    object(
        "mem",
        &[
            field(MEM_TOTAL, "total", Kind::Number),
            field(MEM_AVAILABLE, "available", Kind::Number),
        ],
    ),
    // `disk` and `net.rx` are in the format but nothing reports them: left
    // unread, they cost nothing but the skip.
    object("net", &[field(NET_TX, "tx", Kind::Number)]),
    field(LOAD1, "load1", Kind::Number),
];

impl<'a> Record<'a> for Poll<'a> {
    #[inline(always)]
    fn set(&mut self, field: Field, v: Got<'a>) {
        match field {
            TS => {
                self.ts = match v {
                    Got::Text(s) => Some(Ts::Text(s)),
                    Got::Number(x) => Some(Ts::Secs(x)),
                    _ => None,
                }
            }
            NODE => self.node = v.text(),
            CPU_BUSY | CPU_IDLE | CPU_WAIT => {
                let x = v.number().unwrap_or(0.0);
                self.cpu_total += x;
                if field != CPU_BUSY {
                    self.cpu_idle += x;
                    self.saw_idle |= field == CPU_IDLE;
                }
            }
            MEM_TOTAL => self.mem_total = v.number(),
            MEM_AVAILABLE => self.mem_available = v.number(),
            NET_TX => self.net_tx = v.number(),
            LOAD1 => self.load1 = v.number(),
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) fn parse_line(line: &[u8]) -> Result<(Cow<'_, str>, Sample), Cow<'static, str>> {
    parse_line_via(line, Via::Fast)
}

/// `parse_line` as the sink reads it: by a learnt shape when the line fits
/// one, else by the walk (learning the line's shape), else by serde.
pub fn parse_line_shaped<'a>(line: &'a [u8], shapes: &mut Shapes) -> Result<(Cow<'a, str>, Sample), Cow<'static, str>> {
    match Cursor::utf8(line) {
        Some(c) => parse_shaped(c, shapes, &mut LastMinute::default()),
        None => parse_line_via(line, Via::SerdeOnly),
    }
}

/// `parse_line_shaped` for a line whose chunk was checked to be UTF-8.
#[cfg(test)]
pub(crate) fn parse_text_shaped<'a>(
    line: &'a str,
    shapes: &mut Shapes,
) -> Result<(Cow<'a, str>, Sample), Cow<'static, str>> {
    parse_shaped(Cursor::text(line), shapes, &mut LastMinute::default())
}

/// `last`: the minute of the time read before (see `timefmt`).
#[inline(always)]
fn parse_shaped<'a>(
    c: Cursor<'a>,
    shapes: &mut Shapes,
    last: &mut LastMinute,
) -> Result<(Cow<'a, str>, Sample), Cow<'static, str>> {
    let line = c.bytes();
    // Filled here, not returned: a record (some 150 bytes) returned was
    // copied once more on its way out.
    let mut p = Poll::default();
    match fields::read_fast(FIELDS, c, shapes, &mut p) {
        Ok(()) => sample_of(p, last),
        Err(_) => parse_line_via(line, Via::SerdeOnly),
    }
}

/// `parse_line` by the chosen parser (the tests and a fuzz target compare them).
pub fn parse_line_via(line: &[u8], via: Via) -> Result<(Cow<'_, str>, Sample), Cow<'static, str>> {
    let mut p = Poll::default();
    let walked =
        via == Via::Fast && Cursor::plain(line).is_some_and(|mut c| fields::walk(FIELDS, &mut c, &mut p).is_ok());
    if !walked {
        p = Poll::default();
        fields::read_serde(FIELDS, line, Pass::All, "a sample object", &mut p)
            .map_err(|e| Cow::Owned(format!("not a sample: {e}")))?;
    }
    sample_of(p, &mut LastMinute::default())
}

/// The sample a line's fields make, whichever parser read them; `last` is
/// the minute of the time read before. Inlined, so that the sample is
/// built where the caller keeps it, not copied there.
#[inline(always)]
fn sample_of<'a>(p: Poll<'a>, last: &mut LastMinute) -> Result<(Cow<'a, str>, Sample), Cow<'static, str>> {
    let node = p.node.ok_or(Cow::Borrowed("sample without `node`"))?;
    let ts = match p.ts {
        Some(Ts::Text(s)) => timefmt::parse_rfc3339_after(&s, last),
        Some(Ts::Secs(s)) => timefmt::secs_to_micros(s),
        None => return Err("sample without `ts`".into()),
    }
    .ok_or(Cow::Borrowed("`ts` is neither RFC 3339 nor Unix seconds"))?;
    let finite = |v: Option<f64>| v.filter(|x| x.is_finite());
    let (cpu_total, cpu_idle) = match p.saw_idle {
        // Each mode is a finite counter, but their sum can still overflow.
        true if !p.cpu_total.is_finite() => return Err("`cpu` modes add up past the largest number".into()),
        true => (Some(p.cpu_total), Some(p.cpu_idle)),
        false => (None, None),
    };
    let sample = Sample {
        ts,
        cpu_total,
        cpu_idle,
        mem_total: finite(p.mem_total),
        mem_available: finite(p.mem_available),
        net_tx: finite(p.net_tx),
        load1: finite(p.load1),
    };
    Ok((node, sample))
}

/// Samples a chunk's part of one node holds before it grows: a 256 kB
/// chunk holds about 700 sample lines, about 140 a node for five nodes.
const PART_CAPACITY: usize = 256;
/// How many nodes of a chunk start with `PART_CAPACITY` (at most about
/// 300 kB reserved a chunk, whatever the size of the fleet).
const PARTS_RESERVED: usize = 8;
/// Samples the part of each of a chunk's next `PARTS_SMALL` nodes holds
/// before it grows: a chunk of 64 nodes holds about 11 polls a node, which
/// grown from one took three reallocations and copies (about 140 kB more
/// reserved a chunk, whatever the size of the fleet).
const SMALL_PART_CAPACITY: usize = 16;
const PARTS_SMALL: usize = 64;

impl<F> Samples<F> {
    /// Adds a line's sample to its node's part of this chunk.
    #[inline(always)]
    fn keep(&mut self, node: Cow<'_, str>, s: Sample) {
        // A chunk's part starts large enough for most of its node's
        // samples, so it is not regrown copy by copy. Only the first
        // few nodes of a chunk get the head start, so that a fleet of
        // hundreds does not reserve hundreds of parts.
        let capacity = match self.parts.len() {
            n if n < PARTS_RESERVED => PART_CAPACITY,
            n if n < PARTS_SMALL => SMALL_PART_CAPACITY,
            _ => 1,
        };
        let part = || {
            let mut v = Vec::with_capacity(capacity);
            v.push(s);
            v
        };
        // A String only for a node not seen before in this chunk.
        match self.parts.get_mut(node.as_ref()) {
            Some(p) => match p.last_mut() {
                Some(last) => last.push(s),
                None => p.push(part()),
            },
            None => {
                self.parts.insert(node.into_owned(), vec![part()]);
            }
        }
    }
}

impl<F: PollFold> LineSink for Samples<F> {
    fn line(&mut self, line: &[u8]) -> Outcome {
        let read = match Cursor::utf8(line) {
            Some(c) => parse_shaped(c, &mut self.shapes, &mut self.last_minute),
            None => parse_line_via(line, Via::SerdeOnly),
        };
        match read {
            Ok((node, s)) => {
                self.keep(node, s);
                Outcome::Record
            }
            Err(e) => Outcome::Malformed(e),
        }
    }

    fn line_text(&mut self, line: &str) -> Outcome {
        match parse_shaped(Cursor::text(line), &mut self.shapes, &mut self.last_minute) {
            Ok((node, s)) => {
                self.keep(node, s);
                Outcome::Record
            }
            Err(e) => Outcome::Malformed(e),
        }
    }

    fn learnt(&mut self) -> Option<&mut Shapes> {
        Some(&mut self.shapes)
    }

    fn settle(&mut self) {
        self.finish();
    }

    fn merge_following(&mut self, later: Self) {
        for (node, v) in later.parts {
            self.parts.entry(node).or_default().extend(v);
        }
        // Only a chunk's aggregate follows (its polls are parts), but
        // polls already taken are not lost either: they follow as a part.
        for (node, n) in later.by_node {
            self.parts.entry(node).or_default().push(n.polls.to_vec());
        }
    }

    fn append_block(&mut self, later: Self) {
        self.merge_following(later);
        self.take_parts();
    }
}

/// A fold that keeps what it was given, for tests of what is summarised when.
#[cfg(test)]
pub(crate) mod kept {
    use super::{PollFold, Sample};
    use crate::timefmt::Micros;

    #[derive(Debug, Clone, PartialEq, Default)]
    pub(crate) struct Kept {
        /// The times of the polls the rules were fixed from.
        pub(crate) from: Vec<Micros>,
        pub(crate) polls: Vec<Sample>,
    }

    impl PollFold for Kept {
        fn starting_from(first: &[Sample]) -> Self {
            Kept {
                from: first.iter().map(|s| s.ts).collect(),
                polls: vec![],
            }
        }
        fn add(&mut self, s: &Sample) {
            self.polls.push(*s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::kept::Kept;
    use super::*;
    use crate::input::lines::{parse_bytes, Tail};

    /// Polls of `nodes` nodes every 10 s, each node's load its poll number.
    fn polls(nodes: usize, per_node: u32) -> Vec<String> {
        (0..per_node)
            .flat_map(|i| {
                (0..nodes)
                    .map(move |n| format!(r#"{{"ts": {}, "node": "n{n}", "load1": {i}}}"#, 1_790_000_000 + 10 * i))
            })
            .collect()
    }

    fn read(lines: &[String], cap: usize) -> Samples<Kept> {
        let (parts, _) = parse_bytes(lines.join("\n").as_bytes(), Tail::Complete, || Samples::with_cap(cap));
        let mut s = Samples::with_cap(cap);
        s.append_block(parts);
        s.finish();
        s
    }

    /// Found by attacking the node bound: nodes past the 2,000 a report
    /// takes still held their polls while samples.jsonl was read (100,000
    /// nodes took 521 MB). Past the bound a node costs its name.
    #[test]
    fn nodes_past_the_bound_hold_no_polls_while_the_file_is_read_and_are_named() {
        let lines = polls(10, 20);
        let first = Arc::new(std::collections::BTreeSet::from(["n9".to_string()]));
        let make = || Samples::<Kept>::keeping(first.clone(), 3);
        let (parts, _) = parse_bytes(lines.join("\n").as_bytes(), Tail::Complete, make);
        let mut s = make();
        s.append_block(parts);
        s.finish();
        let held: Vec<&str> = s.by_node.keys().map(String::as_str).collect();
        assert_eq!(
            held,
            ["n0", "n1", "n2", "n9"],
            "run.json's node, then the first by name"
        );
        let left: Vec<&str> = s.nodes_left_out().map(String::as_str).collect();
        assert_eq!(left, ["n3", "n4", "n5", "n6", "n7", "n8"]);
        assert!(s.by_node.values().all(|n| n.polls.len() == 20));
    }

    #[test]
    fn a_node_past_the_cap_holds_fewer_polls_than_the_cap_and_summarises_the_rest_in_time_order() {
        let mut lines = polls(3, 500);
        // Two polls of n0 swapped across where a chunk might end.
        lines.swap(300, 303);
        let s = read(&lines, 64);
        for (name, n) in &s.by_node {
            assert!(n.polls.len() < 64, "{name} holds {}", n.polls.len());
            let m = n.summary.as_ref().expect("summarised");
            assert_eq!(m.fold.from.len(), 64, "the gap rule is fixed from the first 64 polls");
            let all: Vec<Micros> = m.fold.polls.iter().chain(n.polls.iter()).map(|p| p.ts).collect();
            let want: Vec<Micros> = (0..500).map(|i| (1_790_000_000 + 10 * i) * 1_000_000).collect();
            assert_eq!(all, want, "{name}: every poll once, in time order");
            assert_eq!(m.late, 0);
            assert_eq!(
                m.spans.iter().map(|sp| sp.polls).sum::<u64>(),
                m.fold.polls.len() as u64
            );
            assert_eq!((n.first_ts(), n.last_ts()), (Some(want[0]), Some(want[499])));
        }
        assert!(s.warnings().is_empty());
    }

    #[test]
    fn what_is_summarised_does_not_depend_on_where_the_file_was_cut() {
        let lines = polls(2, 300);
        let whole = read(&lines, 32);
        for cut in [1, 77, 301, 599] {
            let (a, _) = parse_bytes(lines[..cut].join("\n").as_bytes(), Tail::Complete, || {
                Samples::<Kept>::with_cap(32)
            });
            let (b, _) = parse_bytes(lines[cut..].join("\n").as_bytes(), Tail::Complete, || {
                Samples::with_cap(32)
            });
            let mut s = Samples::with_cap(32);
            s.append_block(a);
            // A live view settles between reads.
            s.finish();
            s.append_block(b);
            s.finish();
            assert_eq!(s.by_node, whole.by_node, "cut after line {cut}");
        }
    }

    #[test]
    fn a_poll_older_than_the_summarised_ones_is_counted_and_warned_about_not_dropped_silently() {
        let mut lines = polls(1, 200);
        lines.push(r#"{"ts": 1790000005, "node": "n0", "load1": 1}"#.into());
        lines.push(r#"{"ts": 1790000001, "node": "n0", "load1": 1}"#.into());
        let s = read(&lines, 32);
        assert_eq!(s.by_node["n0"].summary.as_ref().unwrap().late, 2);
        assert_eq!(
            s.warnings(),
            vec!["samples.jsonl: 2 polls of node n0 arrived after later ones had been summarised: left out"]
        );
        // Below the cap, a late poll is sorted in as before.
        let s = read(&lines, 4096);
        assert_eq!(s.by_node["n0"].polls.len(), 202);
        assert!(s.by_node["n0"].summary.is_none() && s.warnings().is_empty());
    }

    /// `push_all` as it was before runs were copied at once: one poll at a time.
    fn push_one_by_one(n: &mut NodeSamples<Kept>, s: Sample, cap: usize) {
        if let Some(m) = n.summary.as_mut().filter(|m| s.ts < m.last) {
            Arc::make_mut(m).late += 1;
            return;
        }
        Arc::make_mut(&mut n.polls).push(s);
        if n.polls.len() >= cap {
            n.summarise_oldest_half();
        }
    }

    #[test]
    fn polls_taken_a_run_at_a_time_are_summarised_and_left_out_as_one_by_one() {
        // Mostly in order, some a little out of order, some late by far,
        // in parts of many lengths, across several summarisings.
        let ts = |i: i64| match i % 37 {
            0 => (i - 300) * 1_000_000,
            7 => (i - 3) * 1_000_000,
            _ => i * 1_000_000,
        };
        let polls: Vec<Sample> = (0..2000)
            .map(|i| Sample {
                ts: ts(i),
                ..sample_at(0)
            })
            .collect();
        for cap in [2, 3, 16, 64] {
            for part_len in [1, 2, 5, 63, 64, 65, 700] {
                let (mut runs, mut reference) = (NodeSamples::<Kept>::default(), NodeSamples::default());
                for part in polls.chunks(part_len) {
                    runs.push_all(part, cap);
                    part.iter().for_each(|s| push_one_by_one(&mut reference, *s, cap));
                }
                assert!(reference.summary.as_ref().is_some_and(|m| m.late > 0));
                assert_eq!(runs, reference, "cap {cap}, parts of {part_len}");
            }
        }
    }

    fn sample_at(ts: Micros) -> Sample {
        Sample {
            ts,
            cpu_total: None,
            cpu_idle: None,
            mem_total: None,
            mem_available: None,
            net_tx: None,
            load1: Some(1.0),
        }
    }

    #[test]
    fn summarised_polls_are_counted_in_minutes_and_wider_spans_past_the_bound() {
        let mut spans = vec![];
        for i in 0..(MAX_SPANS as i64 * 3) {
            count_in_spans(&mut spans, i * 60_000_000 + 5);
            count_in_spans(&mut spans, i * 60_000_000 + 7);
        }
        assert!(spans.len() <= MAX_SPANS);
        assert_eq!(spans.iter().map(|s| s.polls).sum::<u64>(), MAX_SPANS as u64 * 6);
        assert_eq!(spans[0].first, 5);
        assert_eq!(spans.last().unwrap().last, (MAX_SPANS as i64 * 3 - 1) * 60_000_000 + 7);
        assert!(spans.windows(2).all(|w| w[0].last < w[1].first), "in time order, apart");
    }

    const SPEC_LINE: &str = r#"{"ts": "2026-10-20T02:00:05.120Z", "node": "strix", "cpu": {"user": 81234.5, "nice": 0.0, "system": 5120.2, "idle": 990112.0, "iowait": 310.4, "irq": 0.0, "softirq": 95.1, "steal": 0.0}, "mem": {"total": 137438953472, "available": 96207267840}, "disk": {"read": 123456789, "written": 987654321}, "net": {"rx": 5566778899, "tx": 1122334455}, "load1": 12.4}"#;

    #[test]
    fn the_spec_sample_sums_modes_by_node_exporters_rule() {
        let (node, s) = parse_line(SPEC_LINE.as_bytes()).unwrap();
        assert_eq!(node, "strix");
        let total = 81234.5 + 5120.2 + 990112.0 + 310.4 + 95.1;
        assert!((s.cpu_total.unwrap() - total).abs() < 1e-6);
        assert!((s.cpu_idle.unwrap() - (990112.0 + 310.4)).abs() < 1e-6);
        assert_eq!(s.mem_total, Some(137438953472.0));
        assert_eq!(s.load1, Some(12.4));
    }

    #[test]
    fn cpu_modes_adding_up_past_the_largest_number_are_malformed_not_infinite() {
        let line = br#"{"ts": 1792461605, "node": "a", "cpu": {"user": 1e308, "system": 1e308, "idle": 1e308}}"#;
        for via in [Via::Fast, Via::SerdeOnly] {
            let e = parse_line_via(line, via).unwrap_err();
            assert!(e.contains("past the largest number"), "{e}");
        }
        let (_, s) = parse_line(br#"{"ts": 1792461605, "node": "a", "cpu": {"user": 1e308, "idle": 7e307}}"#).unwrap();
        assert_eq!(s.cpu_total, Some(1.7e308));
    }

    #[test]
    fn unix_seconds_are_a_timestamp_too() {
        let (_, s) = parse_line(br#"{"ts": 1792461605.5, "node": "a"}"#).unwrap();
        assert_eq!(s.ts, 1_792_461_605_500_000);
        assert_eq!(s.cpu_total, None);
    }

    /// Lines a fast path could plausibly read differently from serde.
    const ODD_LINES: &[&str] = &[
        SPEC_LINE,
        r#"{"ts": 1792461605.5, "node": "a"}"#,
        r#"{"ts": 1792461605, "node": "a", "load1": 3}"#,
        r#"{"ts": -0, "node": "a", "mem": {"total": -0, "available": -0.0}}"#,
        r#"{"ts": 18446744073709551616, "node": "a"}"#,
        r#"{"ts": null, "node": "a"}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": null}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "ts": "2026-10-20T02:00:06Z"}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": {"idle": 1, "idle": 2, "user": 0.1}}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": {"idle": -1}}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": {"idle": null}}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": null, "mem": null}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": [1]}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "mem": [1, 2]}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "mem": {"total": 1, "total": 2}}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "mem": {"total": null, "x": [1, {"y": true}]}}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "load1": 1e999}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "load1": 0.1000000000000000055511151231257827}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "load1": 2.2250738585072011e-308}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "load1": "12"}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a", "cpu": {"idle": 1}} extra"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "a"}"#,
        r#"{"ts": "2026-10-20T02:00:05Z", "node": "ünïcode"}"#,
        r#"{"ts": true, "node": "a"}"#,
        r#"{"ts": "2026-10-20T02:00:05Z""#,
        r#"["ts"]"#,
    ];

    /// Compares the three paths line by line (the shaped one keeps its
    /// shapes from line to line, as the sink does); returns the lines read.
    fn same_on_both_paths(text: &[u8]) -> usize {
        let mut ok = 0;
        let mut shapes = Shapes::default();
        // The path of a line whose chunk was checked whole, with shapes of its own.
        let mut text_shapes = Shapes::default();
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let fast = parse_line_via(line, Via::Fast);
            let slow = parse_line_via(line, Via::SerdeOnly);
            let shaped = parse_line_shaped(line, &mut shapes);
            // Bits, not ==: a -0.0 or a last-digit rounding must not slip through.
            let bits = |r: &Result<(Cow<str>, Sample), Cow<str>>| match r {
                Ok((n, s)) => Ok((
                    n.to_string(),
                    s.ts,
                    [s.cpu_total, s.cpu_idle, s.mem_total, s.mem_available, s.net_tx, s.load1]
                        .map(|v| v.map(f64::to_bits)),
                )),
                Err(e) => Err(e.to_string()),
            };
            assert_eq!(bits(&fast), bits(&slow), "{}", String::from_utf8_lossy(line));
            assert_eq!(bits(&shaped), bits(&slow), "shaped: {}", String::from_utf8_lossy(line));
            if let Ok(checked) = std::str::from_utf8(line) {
                let as_text = parse_text_shaped(checked, &mut text_shapes);
                assert_eq!(bits(&as_text), bits(&slow), "as checked text: {checked}");
            }
            ok += fast.is_ok() as usize;
        }
        ok
    }

    #[test]
    fn odd_samples_read_the_same_on_both_paths() {
        let ok = same_on_both_paths(ODD_LINES.join("\n").as_bytes());
        assert!(ok >= 10, "the corpus reaches the sample values ({ok} read)");
    }

    #[test]
    fn the_sample_runs_read_the_same_on_both_paths_and_take_the_fast_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
        for run in std::fs::read_dir(root).unwrap() {
            let f = run.unwrap().path().join("samples.jsonl");
            if let Ok(text) = std::fs::read(&f) {
                let lines = text.split(|&b| b == b'\n').filter(|l| !l.is_empty());
                let fast = lines
                    .filter(|l| {
                        Cursor::plain(l).is_some_and(|mut c| fields::walk(FIELDS, &mut c, &mut Poll::default()).is_ok())
                    })
                    .count();
                let ok = same_on_both_paths(&text);
                assert!(ok > 100 && fast >= ok, "{}: {fast} fast of {ok}", f.display());
            }
        }
    }

    #[test]
    fn lines_that_keep_a_learnt_shape_with_odd_values_read_the_same_on_every_path() {
        use perfreport_scan::json_shape::{with_each_value_replaced, ODD_VALUES};
        let shapes = [
            SPEC_LINE,
            r#"{"ts":1793491200.5,"node":"a","cpu":{"idle":1,"user":2,"steal":0.5,"iowait":0},"mem":null,"load1":null}"#,
            r#"{"node": "b", "ts": "2026-10-20T02:00:05Z", "cpu": null, "net": {"rx": 1, "tx": null, "x": [1, "y"]}}"#,
            // Refused (no node) by every path, replayed all the same.
            r#"{"node": null, "ts": 5, "load1": 1.5}"#,
        ];
        for shape in shapes {
            // Learnt from the plain line, replayed on it after each variant.
            let mut text = format!("{shape}\n");
            let variants = with_each_value_replaced(shape, ODD_VALUES);
            for variant in &variants {
                text.push_str(&format!("{variant}\n{shape}\n"));
            }
            let ok = same_on_both_paths(text.as_bytes());
            if parse_line(shape.as_bytes()).is_ok() {
                assert!(ok > variants.len(), "{shape}: {ok} read of {}", variants.len());
            }
            let mut sink = Samples::<Kept>::default();
            for line in text.lines() {
                sink.line(line.as_bytes());
            }
            assert!(sink.shapes.replayed() > variants.len() as u64, "{shape}");
        }
    }

    #[test]
    fn a_counter_written_as_a_string_is_malformed() {
        let err = parse_line(br#"{"ts": 1, "node": "a", "cpu": {"idle": "12"}}"#).unwrap_err();
        assert!(err.contains("not a sample"), "{err}");
    }
}
