//! `samples.jsonl`: node_exporter counters, polled, one object per node per poll.

use super::lines::{LineSink, Outcome};
use crate::timefmt::{self, Micros};
use perfreport_scan::json_scan::{once, Bail, Cursor, Scan, Via};
use perfreport_scan::json_shape::{Field, Shapes, Step, Value};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// One poll of one node, reduced to what the charts and figures use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub ts: Micros,
    /// `node_cpu_seconds_total` summed over every mode.
    pub cpu_total: Option<f64>,
    /// The not-busy modes by node_exporter's own rule: idle + iowait + steal.
    pub cpu_idle: Option<f64>,
    pub mem_total: Option<f64>,
    pub mem_available: Option<f64>,
    pub disk_read: Option<f64>,
    pub disk_written: Option<f64>,
    pub net_rx: Option<f64>,
    pub net_tx: Option<f64>,
    pub load1: Option<f64>,
}

/// Per node, sorted by time once `finish` has run.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// Shared, so that a live view's copy of the followed samples costs a
    /// reference count, not 16 MB, on every refresh (copied on write only
    /// while a view still holds them).
    pub by_node: BTreeMap<String, Arc<Vec<Sample>>>,
    /// Each chunk's samples per node, in file order, until `finish`: merging
    /// moves these vectors instead of copying their samples up the merge tree.
    parts: BTreeMap<String, Vec<Vec<Sample>>>,
}

impl Samples {
    /// Joins the parts and sorts each node's samples by time (polls can land
    /// out of order across chunks).
    pub fn finish(&mut self) {
        // Memory: the first part's allocation grows in place (a large
        // realloc remaps rather than copies) and every other part is freed
        // as soon as it is moved, so the samples are never held twice.
        for (node, parts) in std::mem::take(&mut self.parts) {
            let mut parts = parts.into_iter();
            let Some(mut joined) = parts.next() else { continue };
            let all = self.by_node.entry(node).or_default();
            if !all.is_empty() {
                let earlier = Arc::make_mut(all);
                earlier.append(&mut joined);
                joined = std::mem::take(earlier);
            }
            for mut p in parts {
                joined.append(&mut p);
            }
            *all = Arc::new(joined);
        }
        for v in self.by_node.values_mut() {
            // Polls are nearly always in order already; a stable sort would
            // allocate half the samples again as scratch just to find that out.
            if !v.is_sorted_by_key(|s| s.ts) {
                Arc::make_mut(v).sort_by_key(|s| s.ts);
            }
        }
    }
}

#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow)]
    ts: Option<Ts<'a>>,
    #[serde(borrow)]
    node: Option<Cow<'a, str>>,
    cpu: Option<Cpu>,
    mem: Option<Mem>,
    disk: Option<Disk>,
    net: Option<Net>,
    load1: Option<f64>,
}

#[derive(Deserialize)]
struct Mem {
    total: Option<f64>,
    available: Option<f64>,
}
#[derive(Deserialize)]
struct Disk {
    read: Option<f64>,
    written: Option<f64>,
}
#[derive(Deserialize)]
struct Net {
    rx: Option<f64>,
    tx: Option<f64>,
}

/// `ts` is RFC 3339 or a number of Unix seconds.
enum Ts<'a> {
    Text(Cow<'a, str>),
    Secs(f64),
}

impl<'de: 'a, 'a> Deserialize<'de> for Ts<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ts<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an RFC 3339 string or Unix seconds")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Ts<'de>, E> {
                Ok(Ts::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Ts<'de>, E> {
                Ok(Ts::Text(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Ts<'de>, E> {
                Ok(Ts::Secs(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ts<'de>, E> {
                Ok(Ts::Secs(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Ts<'de>, E> {
                Ok(Ts::Secs(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

/// The `cpu` object, summed as it is read: every mode counts towards the
/// total, whatever modes this node_exporter version reports.
struct Cpu {
    total: f64,
    idle: f64,
    saw_idle: bool,
}

impl<'de> Deserialize<'de> for Cpu {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cpu;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of CPU seconds by mode")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cpu, A::Error> {
                let mut cpu = Cpu {
                    total: 0.0,
                    idle: 0.0,
                    saw_idle: false,
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let v: f64 = map.next_value()?;
                    if !v.is_finite() || v < 0.0 {
                        return Err(de::Error::custom(format!("cpu.{key} is not a counter value")));
                    }
                    cpu.total += v;
                    if matches!(&*key, "idle" | "iowait" | "steal") {
                        cpu.idle += v;
                        cpu.saw_idle |= key == "idle";
                    }
                }
                Ok(cpu)
            }
        }
        d.deserialize_map(V)
    }
}

/// The fast path (see `json_scan`): the same `Wire` serde would give, in
/// one walk of the line, or `Bail` to let serde parse (and judge) it.
fn scan(mut c: Cursor<'_>) -> Scan<Wire<'_>> {
    // Outer `Option`: whether the key was seen (a repeat is serde's error).
    let (mut ts, mut node, mut cpu, mut mem, mut disk, mut net, mut load1) = (None, None, None, None, None, None, None);
    c.object(|c, key| match key {
        "ts" => {
            let v = match c.peek() {
                Some(b'"') => Some(Ts::Text(Cow::Borrowed(c.string()?))),
                _ => c.opt_f64()?.map(Ts::Secs),
            };
            once(&mut ts, v)
        }
        "node" => {
            let v = if c.null()? {
                None
            } else {
                Some(Cow::Borrowed(c.string()?))
            };
            once(&mut node, v)
        }
        "cpu" => {
            let v = if c.null()? { None } else { Some(scan_cpu(c)?) };
            once(&mut cpu, v)
        }
        "mem" => once(
            &mut mem,
            pair(c, "total", "available")?.map(|(total, available)| Mem { total, available }),
        ),
        "disk" => once(
            &mut disk,
            pair(c, "read", "written")?.map(|(read, written)| Disk { read, written }),
        ),
        "net" => once(&mut net, pair(c, "rx", "tx")?.map(|(rx, tx)| Net { rx, tx })),
        "load1" => once(&mut load1, c.opt_f64()?),
        _ => c.skip(),
    })?;
    c.end()?;
    Ok(Wire {
        ts: ts.flatten(),
        node: node.flatten(),
        cpu: cpu.flatten(),
        mem: mem.flatten(),
        disk: disk.flatten(),
        net: net.flatten(),
        load1: load1.flatten(),
    })
}

/// An object of two optional numbers (`mem`, `disk`, `net`), or `null`.
fn pair(c: &mut Cursor<'_>, a: &str, b: &str) -> Scan<Option<(Option<f64>, Option<f64>)>> {
    if c.null()? {
        return Ok(None);
    }
    let (mut x, mut y) = (None, None);
    c.object(|c, key| {
        if key == a {
            once(&mut x, c.opt_f64()?)
        } else if key == b {
            once(&mut y, c.opt_f64()?)
        } else {
            c.skip()
        }
    })?;
    Ok(Some((x.flatten(), y.flatten())))
}

/// The `cpu` object summed as `Cpu::deserialize` sums it, in file order.
fn scan_cpu(c: &mut Cursor<'_>) -> Scan<Cpu> {
    let mut cpu = Cpu {
        total: 0.0,
        idle: 0.0,
        saw_idle: false,
    };
    c.object(|c, key| {
        let v = c.f64()?;
        if v < 0.0 {
            // serde's error to word.
            return Err(Bail);
        }
        cpu.total += v;
        if matches!(key, "idle" | "iowait" | "steal") {
            cpu.idle += v;
            cpu.saw_idle |= key == "idle";
        }
        Ok(())
    })?;
    Ok(cpu)
}

pub fn parse_line(line: &[u8]) -> Result<(Cow<'_, str>, Sample), Cow<'static, str>> {
    parse_line_via(line, Via::Fast)
}

// The fields `scan` reads, by name for a line shape (see `json_shape`).
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
const DISK_READ: Field = 7;
const DISK_WRITTEN: Field = 8;
const NET_RX: Field = 9;
const NET_TX: Field = 10;
const LOAD1: Field = 11;

/// Where `scan` finds each field it reads.
fn field_of(path: &[Step<'_>]) -> Option<Field> {
    Some(match path {
        [Step::Key("ts")] => TS,
        [Step::Key("node")] => NODE,
        [Step::Key("cpu"), Step::Key("idle")] => CPU_IDLE,
        [Step::Key("cpu"), Step::Key("iowait" | "steal")] => CPU_WAIT,
        [Step::Key("cpu"), Step::Key(_)] => CPU_BUSY,
        [Step::Key("mem"), Step::Key("total")] => MEM_TOTAL,
        [Step::Key("mem"), Step::Key("available")] => MEM_AVAILABLE,
        [Step::Key("disk"), Step::Key("read")] => DISK_READ,
        [Step::Key("disk"), Step::Key("written")] => DISK_WRITTEN,
        [Step::Key("net"), Step::Key("rx")] => NET_RX,
        [Step::Key("net"), Step::Key("tx")] => NET_TX,
        [Step::Key("load1")] => LOAD1,
        _ => return None,
    })
}

/// The `Wire` of a line that fits a learnt shape, each field read as `scan`
/// reads it; anything `scan` would refuse hands the line back to it.
///
/// The objects themselves are not fields: an object without the keys the
/// report reads gives the same sample as no object (a `cpu` without `idle`
/// gives no CPU figures either way), so `Some` is set only with a key.
fn read_fields<'a>(mut c: Cursor<'a>, values: &[Value]) -> Scan<Wire<'a>> {
    let mut w = Wire {
        ts: None,
        node: None,
        cpu: None,
        mem: None,
        disk: None,
        net: None,
        load1: None,
    };
    for v in values {
        c.set_offset(v.start);
        match v.field {
            TS if c.bytes().get(v.start) == Some(&b'"') => {
                w.ts = Some(Ts::Text(Cow::Borrowed(c.string_at(v.start, v.end)?)));
                c.set_offset(v.end);
            }
            TS => w.ts = c.opt_f64()?.map(Ts::Secs),
            NODE if c.null()? => {}
            NODE => {
                w.node = Some(Cow::Borrowed(c.string_at(v.start, v.end)?));
                c.set_offset(v.end);
            }
            CPU_BUSY | CPU_IDLE | CPU_WAIT => {
                let x = c.f64()?;
                if x < 0.0 {
                    return Err(Bail);
                }
                let cpu = w.cpu.get_or_insert(Cpu {
                    total: 0.0,
                    idle: 0.0,
                    saw_idle: false,
                });
                cpu.total += x;
                if v.field != CPU_BUSY {
                    cpu.idle += x;
                    cpu.saw_idle |= v.field == CPU_IDLE;
                }
            }
            MEM_TOTAL | MEM_AVAILABLE => {
                let x = c.opt_f64()?;
                let mem = w.mem.get_or_insert(Mem {
                    total: None,
                    available: None,
                });
                *if v.field == MEM_TOTAL {
                    &mut mem.total
                } else {
                    &mut mem.available
                } = x;
            }
            DISK_READ | DISK_WRITTEN => {
                let x = c.opt_f64()?;
                let disk = w.disk.get_or_insert(Disk {
                    read: None,
                    written: None,
                });
                *if v.field == DISK_READ {
                    &mut disk.read
                } else {
                    &mut disk.written
                } = x;
            }
            NET_RX | NET_TX => {
                let x = c.opt_f64()?;
                let net = w.net.get_or_insert(Net { rx: None, tx: None });
                *if v.field == NET_RX { &mut net.rx } else { &mut net.tx } = x;
            }
            LOAD1 => w.load1 = c.opt_f64()?,
            _ => return Err(Bail),
        }
        if c.offset() != v.end {
            return Err(Bail);
        }
    }
    Ok(w)
}

thread_local! {
    /// The sample lines' shapes learnt on this thread (see `json_shape`),
    /// kept from chunk to chunk: a fleet whose nodes report different metric
    /// sets writes more shapes than one chunk has lines to learn them from.
    static SHAPES: std::cell::RefCell<Shapes> = std::cell::RefCell::new(Shapes::default());
}

/// `parse_line` as the sink reads it: by a learnt shape when the line fits
/// one, else by the walk (learning the line's shape), else by serde.
pub fn parse_line_shaped<'a>(line: &'a [u8], shapes: &mut Shapes) -> Result<(Cow<'a, str>, Sample), Cow<'static, str>> {
    // The replay checks every byte itself; the walk needs a plain line.
    let Some(c) = Cursor::utf8(line) else {
        return parse_line_via(line, Via::SerdeOnly);
    };
    let fast = match shapes.replay(&c).map(|values| read_fields(c.clone(), values)) {
        Some(Ok(w)) => Some(w),
        _ => c
            .into_plain()
            .and_then(|c| scan(c.clone()).inspect(|_| shapes.learn(&c, field_of)).ok()),
    };
    match fast {
        Some(w) => sample_of(w),
        None => parse_line_via(line, Via::SerdeOnly),
    }
}

/// `parse_line` by the chosen parser (the tests and a fuzz target compare them).
pub fn parse_line_via(line: &[u8], via: Via) -> Result<(Cow<'_, str>, Sample), Cow<'static, str>> {
    let fast = match via {
        Via::Fast => Cursor::plain(line).and_then(|c| scan(c).ok()),
        Via::SerdeOnly => None,
    };
    let w: Wire = match fast {
        Some(w) => w,
        None => serde_json::from_slice(line).map_err(|e| Cow::Owned(format!("not a sample: {e}")))?,
    };
    sample_of(w)
}

/// The sample a line's fields make, whichever parser read them.
fn sample_of(w: Wire<'_>) -> Result<(Cow<'_, str>, Sample), Cow<'static, str>> {
    let node = w.node.ok_or(Cow::Borrowed("sample without `node`"))?;
    let ts = match w.ts {
        Some(Ts::Text(s)) => timefmt::parse_rfc3339(&s),
        Some(Ts::Secs(s)) => timefmt::secs_to_micros(s),
        None => return Err("sample without `ts`".into()),
    }
    .ok_or(Cow::Borrowed("`ts` is neither RFC 3339 nor Unix seconds"))?;
    let finite = |v: Option<f64>| v.filter(|x| x.is_finite());
    let (cpu_total, cpu_idle) = match w.cpu {
        // Each mode is a finite counter, but their sum can still overflow.
        Some(c) if c.saw_idle && !c.total.is_finite() => {
            return Err("`cpu` modes add up past the largest number".into())
        }
        Some(c) if c.saw_idle => (Some(c.total), Some(c.idle)),
        _ => (None, None),
    };
    let sample = Sample {
        ts,
        cpu_total,
        cpu_idle,
        mem_total: finite(w.mem.as_ref().and_then(|m| m.total)),
        mem_available: finite(w.mem.as_ref().and_then(|m| m.available)),
        disk_read: finite(w.disk.as_ref().and_then(|d| d.read)),
        disk_written: finite(w.disk.as_ref().and_then(|d| d.written)),
        net_rx: finite(w.net.as_ref().and_then(|n| n.rx)),
        net_tx: finite(w.net.as_ref().and_then(|n| n.tx)),
        load1: finite(w.load1),
    };
    Ok((node, sample))
}

/// Samples a chunk's part of one node holds before it grows: a 256 kB
/// chunk holds about 700 sample lines, about 140 a node for five nodes.
const PART_CAPACITY: usize = 256;
/// How many nodes of a chunk start with `PART_CAPACITY` (at most about
/// 300 kB reserved a chunk, whatever the size of the fleet).
const PARTS_RESERVED: usize = 8;

impl LineSink for Samples {
    fn line(&mut self, line: &[u8]) -> Outcome {
        match SHAPES.with_borrow_mut(|shapes| parse_line_shaped(line, shapes)) {
            Ok((node, s)) => {
                // A chunk's part starts large enough for most of its node's
                // samples, so it is not regrown copy by copy. Only the first
                // few nodes of a chunk get the head start, so that a fleet of
                // hundreds does not reserve hundreds of parts
                // (merge_following trims the slack).
                let capacity = if self.parts.len() < PARTS_RESERVED {
                    PART_CAPACITY
                } else {
                    1
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
                Outcome::Record
            }
            Err(e) => Outcome::Malformed(e),
        }
    }
    fn settle(&mut self) {
        self.finish();
    }

    fn merge_following(&mut self, later: Self) {
        // A chunk's vectors grew by doubling; their slack was most of the
        // peak memory of a long run, so it goes before they are kept.
        for part in self.parts.values_mut().flatten() {
            part.shrink_to_fit();
        }
        for (node, mut v) in later.parts {
            v.iter_mut().for_each(Vec::shrink_to_fit);
            self.parts.entry(node).or_default().extend(v);
        }
        for (node, v) in later.by_node {
            Arc::make_mut(self.by_node.entry(node).or_default()).extend(v.iter().copied());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let fast = parse_line_via(line, Via::Fast);
            let slow = parse_line_via(line, Via::SerdeOnly);
            let shaped = parse_line_shaped(line, &mut shapes);
            // Bits, not ==: a -0.0 or a last-digit rounding must not slip through.
            let bits = |r: &Result<(Cow<str>, Sample), Cow<str>>| match r {
                Ok((n, s)) => Ok((
                    n.to_string(),
                    s.ts,
                    [
                        s.cpu_total,
                        s.cpu_idle,
                        s.mem_total,
                        s.mem_available,
                        s.disk_read,
                        s.disk_written,
                        s.net_rx,
                        s.net_tx,
                        s.load1,
                    ]
                    .map(|v| v.map(f64::to_bits)),
                )),
                Err(e) => Err(e.to_string()),
            };
            assert_eq!(bits(&fast), bits(&slow), "{}", String::from_utf8_lossy(line));
            assert_eq!(bits(&shaped), bits(&slow), "shaped: {}", String::from_utf8_lossy(line));
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
                    .filter(|l| Cursor::plain(l).is_some_and(|c| scan(c).is_ok()))
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
            let before = SHAPES.with_borrow(Shapes::replayed);
            let mut sink = Samples::default();
            for line in text.lines() {
                sink.line(line.as_bytes());
            }
            assert!(
                SHAPES.with_borrow(Shapes::replayed) - before > variants.len() as u64,
                "{shape}"
            );
        }
    }

    #[test]
    fn a_counter_written_as_a_string_is_malformed() {
        let err = parse_line(br#"{"ts": 1, "node": "a", "cpu": {"idle": "12"}}"#).unwrap_err();
        assert!(err.contains("not a sample"), "{err}");
    }
}
