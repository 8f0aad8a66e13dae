//! The benchmark's library baselines: the aggregation perfreport
//! computes from each input, written plainly as a user of the libraries
//! would — map the file, cut it at newlines into pieces rayon's `fold` and
//! `reduce` take in parallel, serde structs with borrowed fields on
//! sonic-rs (a SIMD JSON parser), a regex for the nginx log — with no
//! tuning of the parse itself. It prints the totals as JSON; `bench.py`
//! checks them against perfreport's data.json before timing, and builds this
//! program as a user after speed would: for the host CPU (sonic-rs's README
//! asks for `-C target-cpu=native`) with whole-program LTO and one codegen
//! unit (sonic-rs's serde path needs inlining across crates: an independent
//! baseline of the same kind took 0.73 s without and 0.51 s with, on the
//! worst registry log).
//!
//! It maps the file rather than reading it whole with `std::fs::read`
//! (0.3 – 0.5 s of page faults on a 300 MB log), cuts it at newlines rather
//! than with `par_split` (a closure call a byte), and is built with those
//! flags: without them it takes about twice as long as it needs to, which
//! would flatter perfreport.
//!
//! ```text
//! baseline zot|samples|sccache|zot-parse|samples-parse RUN_DIR
//! ```
//!
//! `zot-parse` and `samples-parse` are the library's floor: the same map,
//! split and sonic-rs parse of every line, with nothing aggregated (they
//! print how many lines parsed). `zot-parse` parses into the baseline's own
//! struct; `samples-parse` into the same fields with the time left unread
//! (a `LazyValue`), a cheaper parse than the baseline's own.

use rayon::prelude::*;
use serde::Deserialize;
use std::path::Path;
use std::process::ExitCode;

type Res<T> = Result<T, String>;

/// The lines of a file held in memory, in parallel: pieces of about a
/// megabyte cut after a newline, each split at its newlines by `memchr`
/// (the newline that ends the file ends its last line; it does not start
/// another; a line's closing `\r` is dropped, as perfreport drops it).
fn lines(buf: &[u8]) -> impl ParallelIterator<Item = &[u8]> {
    pieces(buf, 1 << 20).into_par_iter().flat_map_iter(|piece| {
        let body = piece.strip_suffix(b"\n").unwrap_or(piece);
        let mut start = 0;
        memchr::memchr_iter(b'\n', body)
            .chain(std::iter::once(body.len()))
            .map(move |end| {
                let line = &body[start..end];
                start = end + 1;
                line.strip_suffix(b"\r").unwrap_or(line)
            })
    })
}

/// `buf` cut into pieces of about `size` bytes, each ending after a newline
/// (but the last).
fn pieces(buf: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = buf;
    while !rest.is_empty() {
        let cut = match rest.get(size..) {
            Some(after) => memchr::memchr(b'\n', after).map_or(rest.len(), |i| size + i + 1),
            None => rest.len(),
        };
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

/// The file, mapped (a plain `std::fs::read` of a 300 MB log spends longer
/// faulting in fresh memory than the parse takes).
fn read(dir: &Path, file: &str) -> Res<memmap2::Mmap> {
    let path = dir.join(file);
    let f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: the benchmark's inputs are not written while it runs.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| format!("{}: {e}", path.display()))
}

#[derive(Deserialize)]
struct RunJson {
    sccache_prefix: Option<String>,
    #[serde(default)]
    nodes: Vec<RunNode>,
}

#[derive(Deserialize)]
struct RunNode {
    addr: Option<String>,
}

fn run_json(dir: &Path) -> Res<RunJson> {
    sonic_rs::from_slice(&read(dir, "run.json")?).map_err(|e| format!("run.json: {e}"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, dir] = &args[..] else {
        eprintln!("usage: baseline zot|samples|sccache|zot-parse|samples-parse RUN_DIR");
        return ExitCode::from(2);
    };
    let dir = Path::new(dir);
    let out = match kind.as_str() {
        "zot" => zot::run(dir),
        "zot-parse" => zot::parse_only(dir),
        "samples-parse" => samples::parse_only(dir),
        "samples" => samples::run(dir),
        "sccache" => sccache::run(dir),
        _ => Err(format!("unknown kind {kind}")),
    };
    match out {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("baseline: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Spreads `bytes` over the 10 s buckets `[from, to]` covers, in proportion
/// to overlap, the last bucket taking what rounding left (the spec's lane).
fn spread(lane: &mut std::collections::HashMap<i64, [u64; 2]>, from: i64, to: i64, bytes: u64, slot: usize) {
    const WIDTH: i64 = 10_000_000;
    let (first, last) = (from.div_euclid(WIDTH), to.div_euclid(WIDTH));
    if first >= last {
        lane.entry(last).or_default()[slot] += bytes;
        return;
    }
    let total = (to - from) as f64;
    let mut given = 0u64;
    for b in first..=last {
        let (lo, hi) = ((b * WIDTH).max(from), ((b + 1) * WIDTH).min(to));
        let n = if b == last {
            bytes - given
        } else {
            (bytes as f64 * (hi - lo) as f64 / total) as u64
        };
        given += n;
        lane.entry(b).or_default()[slot] += n;
    }
}

/// A Go duration (`96.6µs`, `2m5.5s`) in seconds.
fn go_duration(s: &str) -> Option<f64> {
    let mut rest = s;
    let mut total = 0.0;
    while !rest.is_empty() {
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..end].parse().ok()?;
        rest = &rest[end..];
        let (unit, scale) = [
            ("ns", 1e-9),
            ("us", 1e-6),
            ("µs", 1e-6),
            ("ms", 1e-3),
            ("s", 1.0),
            ("m", 60.0),
            ("h", 3600.0),
        ]
        .into_iter()
        .find(|(u, _)| rest.starts_with(u))?;
        rest = &rest[unit.len()..];
        total += value * scale;
    }
    Some(total)
}

fn micros(rfc3339: &str) -> Option<i64> {
    rfc3339.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond())
}

mod zot {
    use super::*;
    use std::borrow::Cow;
    use std::collections::{BTreeMap, HashMap};

    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: Option<Cow<'a, str>>,
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        path: Option<Cow<'a, str>>,
        #[serde(rename = "statusCode")]
        status: Option<u64>,
        #[serde(rename = "bodySize")]
        body_size: Option<u64>,
        #[serde(rename = "clientIP", borrow)]
        client_ip: Option<Cow<'a, str>>,
        #[serde(borrow)]
        time: Option<Cow<'a, str>>,
        #[serde(borrow)]
        latency: Option<Cow<'a, str>>,
        #[serde(borrow)]
        headers: Option<Headers<'a>>,
    }

    #[derive(Deserialize)]
    struct Headers<'a> {
        #[serde(rename = "Content-Length", borrow)]
        content_length: Option<Vec<Cow<'a, str>>>,
    }

    #[derive(Default)]
    struct Agg {
        c: BTreeMap<&'static str, u64>,
        by_message: HashMap<String, u64>,
        /// 2xx writes by client host: (time, bytes when known).
        by_client: HashMap<String, Vec<(i64, Option<u64>)>>,
        /// Write bytes per 10 s bucket: [cache, image].
        lane: HashMap<i64, [u64; 2]>,
    }

    impl Agg {
        fn add(&mut self, key: &'static str, n: u64) {
            *self.c.entry(key).or_default() += n;
        }

        fn merge(mut self, other: Agg) -> Agg {
            for (k, v) in other.c {
                self.add(k, v);
            }
            for (k, v) in other.by_message {
                *self.by_message.entry(k).or_default() += v;
            }
            for (k, v) in other.by_client {
                self.by_client.entry(k).or_default().extend(v);
            }
            for (k, v) in other.lane {
                let e = self.lane.entry(k).or_default();
                e[0] += v[0];
                e[1] += v[1];
            }
            self
        }

        fn line(mut self, raw: &[u8]) -> Agg {
            self.add("lines", 1);
            if raw.iter().all(u8::is_ascii_whitespace) {
                self.add("skipped", 1);
                return self;
            }
            if raw.trim_ascii_start().first() != Some(&b'{') {
                self.add("not_json", 1);
                self.add("skipped", 1);
                return self;
            }
            match sonic_rs::from_slice::<Line>(raw) {
                Ok(l) => self.request(l),
                Err(_) => self.add("malformed", 1),
            }
            self
        }

        fn request(&mut self, l: Line) {
            let message = l.message.as_deref().unwrap_or("(no message)");
            if message != "HTTP API" {
                *self.by_message.entry(message.to_string()).or_default() += 1;
                self.add("skipped", 1);
                return;
            }
            self.add("requests", 1);
            let (Some(method), Some(path), Some(status)) = (l.method.as_deref(), l.path.as_deref(), l.status) else {
                self.add("malformed", 1);
                return;
            };
            self.add("records", 1);
            let ok = (200..300).contains(&status);
            let (kind, name, reference) = classify(method, path);
            match kind {
                "read" => {
                    self.add("reads", 1);
                    if method == "GET" && status == 200 {
                        match l.body_size {
                            Some(n) => self.add("read_bytes", n),
                            None => self.add("reads_unsized", 1),
                        }
                    }
                }
                "start" if ok => self.add("upload_starts", 1),
                "blob" | "manifest" if !ok => self.add("failed_writes", 1),
                "blob" | "manifest" => self.write(
                    &l,
                    kind == "manifest",
                    name.contains("cache") || reference.contains("cache"),
                ),
                _ => {}
            }
        }

        fn write(&mut self, l: &Line, manifest: bool, cache: bool) {
            self.add(if manifest { "manifest_writes" } else { "blob_writes" }, 1);
            let size = l
                .headers
                .as_ref()
                .and_then(|h| h.content_length.as_ref())
                .and_then(|v| v.first())
                .and_then(|s| s.trim().parse::<u64>().ok());
            match size {
                Some(n) => {
                    if !manifest {
                        self.add("blob_write_bytes", n);
                    }
                    self.add(
                        if cache {
                            "cache_write_bytes"
                        } else {
                            "image_write_bytes"
                        },
                        n,
                    );
                }
                None => self.add("writes_unsized", 1),
            }
            let Some(t) = l.time.as_deref().and_then(micros) else {
                return;
            };
            if let Some(n) = size {
                let latency = l.latency.as_deref().and_then(go_duration).unwrap_or(0.0);
                spread(&mut self.lane, t - (latency * 1e6) as i64, t, n, usize::from(!cache));
            }
            let host = client_host(l.client_ip.as_deref().unwrap_or("-"));
            match self.by_client.get_mut(host) {
                Some(v) => v.push((t, size)),
                None => {
                    self.by_client.insert(host.to_string(), vec![(t, size)]);
                }
            }
        }
    }

    /// `(kind, repository, reference)` of a registry path, by the spec's table.
    fn classify<'p>(method: &str, path: &'p str) -> (&'static str, &'p str, &'p str) {
        let Some(rest) = path.strip_prefix("/v2/") else {
            return ("other", "", "");
        };
        let query = rest.find('?').unwrap_or(rest.len());
        if let Some(i) = rest[..query].find("/blobs/") {
            let uploads = rest[i + 7..].starts_with("uploads");
            let kind = match (method, uploads) {
                ("POST", true) => "start",
                ("PATCH" | "PUT", true) => "blob",
                ("GET" | "HEAD", false) => "read",
                _ => "other",
            };
            return (kind, &rest[..i], "");
        }
        if let Some(i) = rest[..query].find("/manifests/") {
            let kind = match method {
                "PUT" => "manifest",
                "GET" | "HEAD" => "read",
                _ => "other",
            };
            return (kind, &rest[..i], &rest[i + 11..query]);
        }
        ("other", "", "")
    }

    fn client_host(client_ip: &str) -> &str {
        if let Some(rest) = client_ip.strip_prefix('[') {
            return rest.split(']').next().unwrap_or(rest);
        }
        match client_ip.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => client_ip,
        }
    }

    pub fn parse_only(dir: &Path) -> Res<String> {
        let buf = read(dir, "zot.jsonl")?;
        let parsed: usize = lines(&buf)
            .map(|l| usize::from(sonic_rs::from_slice::<Line>(l).is_ok()))
            .sum();
        Ok(format!("{{\"parsed\":{parsed}}}"))
    }

    pub fn run(dir: &Path) -> Res<String> {
        let run = run_json(dir)?;
        let buf = read(dir, "zot.jsonl")?;
        let agg = lines(&buf)
            .fold(Agg::default, Agg::line)
            .reduce(Agg::default, Agg::merge);
        let mut lane: Vec<(i64, [u64; 2])> = agg.lane.into_iter().filter(|(_, v)| *v != [0, 0]).collect();
        lane.sort_unstable();
        let nodes: BTreeMap<String, serde_json::Value> = run
            .nodes
            .iter()
            .filter_map(|n| n.addr.clone())
            .map(|addr| {
                let ev = agg.by_client.get(&addr).map(Vec::as_slice).unwrap_or_default();
                let bytes: u64 = ev.iter().filter_map(|e| e.1).sum();
                (addr, serde_json::json!({"writes": ev.len(), "write_bytes": bytes}))
            })
            .collect();
        let mut out: serde_json::Map<String, serde_json::Value> =
            agg.c.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
        let by_message: BTreeMap<String, u64> = agg.by_message.into_iter().collect();
        out.insert("by_message".into(), serde_json::json!(by_message));
        out.insert(
            "lane".into(),
            serde_json::json!(lane.iter().map(|(_, v)| v).collect::<Vec<_>>()),
        );
        out.insert("clients_with_writes".into(), agg.by_client.len().into());
        out.insert("nodes".into(), serde_json::json!(nodes));
        Ok(serde_json::Value::Object(out).to_string())
    }
}

mod samples {
    use super::*;
    use std::borrow::Cow;
    use std::collections::{BTreeMap, HashMap};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Ts<'a> {
        Text(#[serde(borrow)] Cow<'a, str>),
        Secs(f64),
    }

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Cpu {
        user: f64,
        nice: f64,
        system: f64,
        idle: f64,
        iowait: f64,
        irq: f64,
        softirq: f64,
        steal: f64,
    }

    #[derive(Deserialize)]
    struct Mem {
        total: f64,
        available: f64,
    }

    /// Only what the report reads: `disk` and `net.rx` are skipped, as
    /// perfreport skips them.
    #[derive(Deserialize)]
    struct Net {
        tx: f64,
    }

    /// A sample line; its time as `T`: `Ts` for the aggregation, a
    /// `LazyValue` left unread for the floor (`parse_only`).
    #[derive(Deserialize)]
    #[serde(bound(deserialize = "'de: 'a, T: Deserialize<'de>"))]
    struct Line<'a, T = Ts<'a>> {
        ts: T,
        #[serde(borrow)]
        node: Cow<'a, str>,
        cpu: Option<Cpu>,
        mem: Option<Mem>,
        net: Option<Net>,
        load1: Option<f64>,
    }

    /// What perfreport keeps of a sample.
    struct Sample {
        ts: i64,
        cpu: Option<(f64, f64)>,
        mem_pct: Option<f64>,
        net_tx: Option<f64>,
        load1: Option<f64>,
    }

    #[derive(Default)]
    struct Agg {
        c: BTreeMap<&'static str, u64>,
        by_node: HashMap<String, Vec<Sample>>,
    }

    fn sample(l: Line) -> Option<(Cow<str>, Sample)> {
        let ts = match l.ts {
            Ts::Text(s) => micros(&s)?,
            Ts::Secs(s) => (s * 1e6).round() as i64,
        };
        let cpu = l.cpu.map(|c| {
            let total = c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal;
            (total, c.idle + c.iowait + c.steal)
        });
        let mem_pct = l
            .mem
            .filter(|m| m.total > 0.0 && (0.0..=m.total).contains(&m.available))
            .map(|m| 100.0 * (1.0 - m.available / m.total));
        let net_tx = l.net.map(|n| n.tx);
        Some((
            l.node,
            Sample {
                ts,
                cpu,
                mem_pct,
                net_tx,
                load1: l.load1,
            },
        ))
    }

    impl Agg {
        fn line(mut self, raw: &[u8]) -> Agg {
            *self.c.entry("lines").or_default() += 1;
            let parsed = sonic_rs::from_slice::<Line>(raw).ok().and_then(sample);
            let Some((node, s)) = parsed else {
                *self.c.entry("malformed").or_default() += 1;
                return self;
            };
            *self.c.entry("records").or_default() += 1;
            match self.by_node.get_mut(node.as_ref()) {
                Some(v) => v.push(s),
                None => {
                    self.by_node.insert(node.into_owned(), vec![s]);
                }
            }
            self
        }

        fn merge(mut self, other: Agg) -> Agg {
            for (k, v) in other.c {
                *self.c.entry(k).or_default() += v;
            }
            for (k, v) in other.by_node {
                self.by_node.entry(k).or_default().extend(v);
            }
            self
        }
    }

    /// The figures data.json gives per node: time-weighted CPU busy, memory
    /// and load peaks, and bytes sent.
    fn node_figures(v: &[Sample]) -> serde_json::Value {
        let (mut weighted, mut weight) = (0.0, 0.0);
        for w in v.windows(2) {
            let dt = (w[1].ts - w[0].ts) as f64 / 1e6;
            let (Some((t0, i0)), Some((t1, i1))) = (w[0].cpu, w[1].cpu) else {
                continue;
            };
            let (dt_total, d_idle) = (t1 - t0, i1 - i0);
            if dt <= 0.0 || dt_total <= 0.0 || d_idle < 0.0 || d_idle > dt_total {
                continue;
            }
            weighted += 100.0 * (1.0 - d_idle / dt_total) * dt;
            weight += dt;
        }
        let max = |f: &dyn Fn(&Sample) -> Option<f64>| v.iter().filter_map(f).reduce(f64::max);
        let net_tx: f64 = v
            .windows(2)
            .filter_map(|w| Some(w[1].net_tx? - w[0].net_tx?))
            .filter(|d| *d >= 0.0)
            .sum();
        serde_json::json!({
            "samples": v.len(),
            "cpu_pct_mean": (weight > 0.0).then(|| weighted / weight),
            "mem_pct_max": max(&|s| s.mem_pct),
            "load1_max": max(&|s| s.load1),
            "net_tx_bytes": net_tx,
        })
    }

    /// The library's floor for samples.jsonl: every line parsed into the
    /// same fields, the time left unread, nothing aggregated.
    pub fn parse_only(dir: &Path) -> Res<String> {
        let buf = read(dir, "samples.jsonl")?;
        let parsed: usize = lines(&buf)
            // serde's untagged `Ts` buffers the value before it tries each
            // variant, which a floor should not pay.
            .map(|l| usize::from(sonic_rs::from_slice::<Line<sonic_rs::LazyValue>>(l).is_ok()))
            .sum();
        Ok(format!("{{\"parsed\":{parsed}}}"))
    }

    pub fn run(dir: &Path) -> Res<String> {
        let buf = read(dir, "samples.jsonl")?;
        let mut agg = lines(&buf)
            .fold(Agg::default, Agg::line)
            .reduce(Agg::default, Agg::merge);
        let nodes: BTreeMap<String, serde_json::Value> = agg
            .by_node
            .par_iter_mut()
            .map(|(node, v)| {
                v.sort_by_key(|s| s.ts);
                (node.clone(), node_figures(v))
            })
            .collect();
        let mut out: serde_json::Map<String, serde_json::Value> =
            agg.c.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
        out.insert("nodes".into(), serde_json::json!(nodes));
        Ok(serde_json::Value::Object(out).to_string())
    }
}

mod sccache {
    use super::*;
    use regex::Regex;
    use std::collections::{BTreeMap, HashMap};

    /// The spec's log_format, the one this baseline's regex is written for.
    const FORMAT: &str = r#"log_format sccache '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time';"#;
    /// Written one-pass (at each byte only one way on), so the regex crate
    /// reads the groups with its one-pass DFA rather than by backtracking,
    /// which took half this baseline's time: the URI is what follows the
    /// method up to a space or the closing quote.
    const LINE: &str =
        r#"^(\S+) - (\S+) \[([^\]]+)\] "(\S+) ([^" ]+)(?: [^"]*)?" (\d+) (\d+|-) "[^"]*" "[^"]*" (\d+|-) (\S+)$"#;

    #[derive(Default)]
    struct Agg {
        c: BTreeMap<&'static str, u64>,
        /// Per 10 s bucket: hits, misses, writes, write bytes.
        lane: HashMap<i64, [u64; 4]>,
    }

    impl Agg {
        fn add(&mut self, key: &'static str, n: u64) {
            *self.c.entry(key).or_default() += n;
        }

        fn merge(mut self, other: Agg) -> Agg {
            for (k, v) in other.c {
                self.add(k, v);
            }
            for (k, v) in other.lane {
                let e = self.lane.entry(k).or_default();
                for (a, b) in e.iter_mut().zip(v) {
                    *a += b;
                }
            }
            self
        }

        fn line(mut self, re: &Regex, prefix: &str, raw: &[u8]) -> Agg {
            self.add("lines", 1);
            let caps = std::str::from_utf8(raw).ok().and_then(|s| re.captures(s));
            let Some(c) = caps else {
                self.add("malformed", 1);
                return self;
            };
            let (Ok(status), length) = (c[6].parse::<u16>(), c[8].parse::<u64>().ok()) else {
                self.add("malformed", 1);
                return self;
            };
            self.add("records", 1);
            let time = jiff::fmt::strtime::parse("%d/%b/%Y:%H:%M:%S %z", &c[3])
                .and_then(|t| t.to_timestamp())
                .ok();
            let bucket = time.map(|t| t.as_microsecond().div_euclid(10_000_000));
            let access = classify(&c[4], &c[5], status, prefix);
            self.add(access, 1);
            let slot = match access {
                "hits" => 0,
                "misses" => 1,
                "writes" => 2,
                _ => return self,
            };
            if access == "writes" {
                match length {
                    Some(n) => self.add("write_bytes", n),
                    None => self.add("writes_unsized", 1),
                }
            }
            if let Some(b) = bucket {
                let e = self.lane.entry(b).or_default();
                e[slot] += 1;
                e[3] += if access == "writes" { length.unwrap_or(0) } else { 0 };
            }
            self
        }
    }

    /// What a request is to the cache: `/<prefix>/<k0>/<k1>/<k2>/<key>`.
    fn classify(method: &str, uri: &str, status: u16, prefix: &str) -> &'static str {
        let path = uri.split(['?', '#']).next().unwrap_or("");
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let under_prefix = segments
            .windows(prefix.split('/').count())
            .any(|w| w.join("/") == prefix);
        if !under_prefix {
            return "other_prefix";
        }
        let last: Vec<&str> = segments.iter().rev().take(4).copied().collect();
        if last.first() == Some(&".sccache_check") {
            return "checks";
        }
        let object = match last[..] {
            [key, c, b, a] => {
                let k = key.as_bytes();
                k.len() > 3 && a.as_bytes() == &k[..1] && b.as_bytes() == &k[1..2] && c.as_bytes() == &k[2..3]
            }
            _ => false,
        };
        match method {
            "GET" if object && status == 200 => "hits",
            "GET" if object && status == 404 => "misses",
            "PUT" if object && (200..300).contains(&status) => "writes",
            "PUT" if object => "failed_writes",
            "PROPFIND" | "MKCOL" | "HEAD" | "OPTIONS" => "overhead",
            _ => "other",
        }
    }

    pub fn run(dir: &Path) -> Res<String> {
        let format = read(dir, "nginx-log-format")?;
        if String::from_utf8_lossy(&format).trim() != FORMAT {
            return Err("nginx-log-format is not the spec's format, the one this baseline's regex reads".into());
        }
        let run = run_json(dir)?;
        let prefix = run.sccache_prefix.unwrap_or_default();
        let prefix = prefix.trim_matches('/');
        let re = Regex::new(LINE).map_err(|e| e.to_string())?;
        let buf = read(dir, "sccache.log")?;
        let agg = lines(&buf)
            .fold(Agg::default, |a, l| a.line(&re, prefix, l))
            .reduce(Agg::default, Agg::merge);
        let mut lane: Vec<(i64, [u64; 4])> = agg.lane.into_iter().collect();
        lane.sort_unstable();
        let mut out: serde_json::Map<String, serde_json::Value> =
            agg.c.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
        out.insert(
            "lane".into(),
            serde_json::json!(lane.iter().map(|(_, v)| v).collect::<Vec<_>>()),
        );
        Ok(serde_json::Value::Object(out).to_string())
    }
}
