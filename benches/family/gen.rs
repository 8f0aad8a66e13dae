//! The benchmark's family of generated logs: registry logs
//! (zot.jsonl), node samples (samples.jsonl) and compiler-cache access logs
//! (sccache.log) that vary the way real ones do, one thing at a time and
//! then all together, so that a parser is measured on logs it was not tuned
//! on. Written apart from the sample generator (`examples/synth/`) on purpose:
//! std only and a seeded PRNG of its own, so the same seed gives the same
//! bytes, and every member says what it wrote (`Tally`), which the tests
//! hold perfreport's data.json to.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

/// splitmix64: tiny, fast, and the same sequence everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `0..n` (the modulo bias is immaterial here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// `lo..=hi`.
    pub fn within(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True `per_mille` times in a thousand.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// Log-uniform in `lo..=hi`: sizes and lengths spread over decades.
    pub fn log_within(&mut self, lo: u64, hi: u64) -> u64 {
        let (a, b) = ((lo.max(1) as f64).ln(), (hi as f64).ln());
        let x = a + (b - a) * (self.below(1 << 30) as f64 / (1u64 << 30) as f64);
        (x.exp() as u64).clamp(lo, hi)
    }

    pub fn hex(&mut self, out: &mut String, digits: usize) {
        for _ in 0..digits {
            out.push(char::from(b"0123456789abcdef"[self.below(16) as usize]));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Zot,
    Samples,
    Sccache,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Zot, Kind::Samples, Kind::Sccache];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Zot => "zot",
            Kind::Samples => "samples",
            Kind::Sccache => "sccache",
        }
    }

    /// The file of the run directory this kind of member is.
    pub fn file(self) -> &'static str {
        match self {
            Kind::Zot => "zot.jsonl",
            Kind::Samples => "samples.jsonl",
            Kind::Sccache => "sccache.log",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// zot's two field orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// Older zot (zerolog): `level` first, `time` and `message` last, `caller` twice.
    Zerolog,
    /// Newer zot (slog): `time`, `level`, `message` first.
    Slog,
    /// Both, chosen line by line (a registry upgraded mid-log, or two behind one proxy).
    Mixed,
}

/// What a member varies. Each kind reads its own fields.
#[derive(Debug, Clone, Copy)]
pub struct Knobs {
    /// zot: distinct header key sets over the request lines, interleaved at random.
    pub key_sets: usize,
    /// zot: `Accept` carries 1 to this many values.
    pub accept_max: usize,
    /// zot, sccache: distinct client addresses (the fleet's nodes among them).
    pub clients: usize,
    pub era: Era,
    /// zot: user agents of any length, lines from about 200 B to 4 KB.
    pub long_lines: bool,
    /// zot: lines that are not JSON (Go panics, plain text), per thousand.
    pub not_json_per_mille: u64,
    /// zot: lines with an escaped string, per thousand.
    pub escapes_per_mille: u64,
    /// zot: keys nobody reads written twice (slog does not dedupe attributes).
    pub repeated_keys: bool,
    /// samples: nodes polled.
    pub nodes: usize,
    /// samples: timestamps as Unix seconds on some nodes, extra objects.
    pub samples_mixed: bool,
    /// sccache: query strings and other prefixes up to a few KB.
    pub long_uris: bool,
}

/// The plain member every other one varies from.
pub const BASE: Knobs = Knobs {
    key_sets: 1,
    accept_max: 1,
    clients: 5,
    era: Era::Slog,
    long_lines: false,
    not_json_per_mille: 0,
    escapes_per_mille: 0,
    repeated_keys: false,
    nodes: 5,
    samples_mixed: false,
    long_uris: false,
};

#[derive(Debug, Clone, Copy)]
pub struct Member {
    pub kind: Kind,
    pub name: &'static str,
    pub about: &'static str,
    pub knobs: Knobs,
}

const fn member(kind: Kind, name: &'static str, about: &'static str, knobs: Knobs) -> Member {
    Member {
        kind,
        name,
        about,
        knobs,
    }
}

/// Every member, by kind.
pub fn members() -> Vec<Member> {
    use Kind::*;
    let all_zot = Knobs {
        key_sets: 128,
        accept_max: 6,
        clients: 5000,
        era: Era::Mixed,
        long_lines: true,
        not_json_per_mille: 50,
        escapes_per_mille: 10,
        repeated_keys: true,
        ..BASE
    };
    vec![
        member(
            Zot,
            "baseline-shapes",
            "few shapes, like the project's own `synth big`: zerolog era, one header set, 5 clients",
            Knobs {
                era: Era::Zerolog,
                ..BASE
            },
        ),
        member(
            Zot,
            "keysets-1",
            "the plain member: slog era, one header key set, one Accept value, 5 clients",
            BASE,
        ),
        member(
            Zot,
            "keysets-8",
            "8 header key sets, interleaved at random",
            Knobs { key_sets: 8, ..BASE },
        ),
        member(
            Zot,
            "keysets-32",
            "32 header key sets, interleaved at random",
            Knobs { key_sets: 32, ..BASE },
        ),
        member(
            Zot,
            "keysets-128",
            "128 header key sets, interleaved at random",
            Knobs { key_sets: 128, ..BASE },
        ),
        member(
            Zot,
            "accept-1to6",
            "`Accept` with 1 to 6 values a line",
            Knobs { accept_max: 6, ..BASE },
        ),
        member(
            Zot,
            "clients-5000",
            "5,000 client addresses, 5 of them fleet nodes",
            Knobs { clients: 5000, ..BASE },
        ),
        member(
            Zot,
            "orders-mixed",
            "zerolog and slog field orders interleaved line by line",
            Knobs {
                era: Era::Mixed,
                ..BASE
            },
        ),
        member(
            Zot,
            "long-lines",
            "user agents of any length: lines from 200 B to 4 KB",
            Knobs {
                long_lines: true,
                ..BASE
            },
        ),
        member(
            Zot,
            "non-json-5pct",
            "5% of lines not JSON (Go panics, plain text), a few cut-off lines",
            Knobs {
                not_json_per_mille: 50,
                ..BASE
            },
        ),
        member(
            Zot,
            "escapes-1pct",
            "1% of lines with escaped strings (\\\", \\u00e9, \\/, \\u0026)",
            Knobs {
                escapes_per_mille: 10,
                ..BASE
            },
        ),
        member(
            Zot,
            "repeated-keys",
            "keys nobody reads written twice",
            Knobs {
                repeated_keys: true,
                ..BASE
            },
        ),
        member(Zot, "all-together", "all of the above at once", all_zot),
        member(
            Samples,
            "nodes-3",
            "3 nodes, metric sets that differ per node",
            Knobs { nodes: 3, ..BASE },
        ),
        member(
            Samples,
            "nodes-16",
            "16 nodes, metric sets that differ per node",
            Knobs { nodes: 16, ..BASE },
        ),
        member(
            Samples,
            "nodes-64",
            "64 nodes, metric sets that differ per node",
            Knobs { nodes: 64, ..BASE },
        ),
        member(
            Samples,
            "all-together",
            "64 nodes, Unix-seconds timestamps on some, extra objects",
            Knobs {
                nodes: 64,
                samples_mixed: true,
                ..BASE
            },
        ),
        member(Sccache, "few-clients", "5 clients, short URIs (the plain member)", BASE),
        member(
            Sccache,
            "clients-5000",
            "5,000 client addresses",
            Knobs { clients: 5000, ..BASE },
        ),
        member(
            Sccache,
            "long-uris",
            "query strings and other prefixes up to a few KB",
            Knobs {
                long_uris: true,
                ..BASE
            },
        ),
        member(
            Sccache,
            "all-together",
            "5,000 clients and long URIs",
            Knobs {
                clients: 5000,
                long_uris: true,
                ..BASE
            },
        ),
    ]
}

pub fn find(kind: Kind, name: &str) -> Option<Member> {
    members().into_iter().find(|m| m.kind == kind && m.name == name)
}

/// How much to write.
#[derive(Debug, Clone, Copy)]
pub enum Size {
    Bytes(u64),
    Lines(u64),
}

/// What a member wrote, counted as the spec says perfreport must count it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Named counts (`lines`, `records`, `requests`, `cache_write_bytes`, ...).
    pub counts: BTreeMap<&'static str, u64>,
    /// zot: lines by message, other than `HTTP API`.
    pub by_message: BTreeMap<String, u64>,
    /// Per fleet node: zot's 2xx writes (`writes`, `write_bytes`) by its
    /// address; samples' `samples`, `load1_max`, `mem_pct_max` by its name.
    pub nodes: BTreeMap<String, BTreeMap<&'static str, f64>>,
    /// The first and last time written, in Unix microseconds.
    pub first_us: i64,
    pub last_us: i64,
}

impl Tally {
    pub fn add(&mut self, key: &'static str, n: u64) {
        *self.counts.entry(key).or_default() += n;
    }

    pub fn get(&self, key: &str) -> u64 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    fn node(&mut self, name: &str) -> &mut BTreeMap<&'static str, f64> {
        self.nodes.entry(name.to_string()).or_default()
    }

    /// As JSON (the binary prints it; bench.py reads it).
    pub fn to_json(&self) -> String {
        let mut s = String::from("{\"counts\":{");
        let counts: Vec<String> = self.counts.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        s.push_str(&counts.join(","));
        s.push_str("},\"by_message\":{");
        let msgs: Vec<String> = self.by_message.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        s.push_str(&msgs.join(","));
        s.push_str("},\"nodes\":{");
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|(n, m)| {
                let fields: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("\"{n}\":{{{}}}", fields.join(","))
            })
            .collect();
        s.push_str(&nodes.join(","));
        let _ = write!(s, "}},\"first_us\":{},\"last_us\":{}}}", self.first_us, self.last_us);
        s
    }
}

/// Counts what goes out, so generation stops at the size asked for.
struct Out<W: Write> {
    w: W,
    bytes: u64,
    lines: u64,
    size: Size,
}

impl<W: Write> Out<W> {
    fn line(&mut self, text: &str) -> io::Result<()> {
        self.w.write_all(text.as_bytes())?;
        self.w.write_all(b"\n")?;
        self.bytes += text.len() as u64 + 1;
        self.lines += 1;
        Ok(())
    }

    fn full(&self) -> bool {
        match self.size {
            Size::Bytes(n) => self.bytes >= n,
            Size::Lines(n) => self.lines >= n,
        }
    }

    /// How much of the size asked for is written, from 0 to 1.
    fn progress(&self) -> f64 {
        match self.size {
            Size::Bytes(n) => self.bytes as f64 / n.max(1) as f64,
            Size::Lines(n) => self.lines as f64 / n.max(1) as f64,
        }
    }
}

/// How long a registry or cache log spans, whatever its size: a nightly
/// run's twelve hours. A bigger log is a busier server, not a longer run, so
/// the 30 MB, 300 MB and 1 GB sizes of a member share one window and what
/// grows between them is the log alone (the lanes follow the window).
/// samples.jsonl keeps its poll period instead: its size is nodes × time.
pub const SPAN_US: i64 = 12 * 3600 * 1_000_000;

/// The time of the next line: where the size written so far falls in the
/// span, never before the last line, with up to a millisecond of jitter.
fn clock(now: i64, start_us: i64, progress: f64, rng: &mut Rng) -> i64 {
    let due = start_us + (SPAN_US as f64 * progress.min(1.0)) as i64;
    now.max(due) + rng.below(1_000) as i64
}

/// Where every member's clock starts unless told otherwise: 2026-11-01T00:00:00Z.
pub const DEFAULT_START_US: i64 = 1_793_491_200_000_000;

/// The fleet run.json declares: names and the addresses the logs see.
pub const FLEET: [(&str, &str); 5] = [
    ("strix", "10.0.3.12"),
    ("think", "10.0.3.14"),
    ("forge", "10.0.3.16"),
    ("anvil", "10.0.3.18"),
    ("kiln", "10.0.3.20"),
];

/// A seed of its own per member, so members do not share their sequences.
pub fn member_seed(m: &Member, seed: u64) -> u64 {
    // FNV-1a of kind and name.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in m.kind.name().bytes().chain(m.name.bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ seed
}

/// Writes the member's log to `w`.
pub fn generate(m: &Member, seed: u64, size: Size, start_us: i64, w: impl Write) -> io::Result<Tally> {
    let mut rng = Rng::new(member_seed(m, seed));
    let mut out = Out {
        w,
        bytes: 0,
        lines: 0,
        size,
    };
    let mut tally = match m.kind {
        Kind::Zot => zot::write(&m.knobs, &mut rng, start_us, &mut out)?,
        Kind::Samples => samples::write(&m.knobs, &mut rng, start_us, &mut out)?,
        Kind::Sccache => sccache::write(&m.knobs, &mut rng, start_us, &mut out)?,
    };
    out.w.flush()?;
    tally.add("lines", out.lines);
    tally.add("bytes", out.bytes);
    Ok(tally)
}

/// Writes a run directory: `run.json`, the member's log, and for sccache the
/// `nginx-log-format` it is written in.
pub fn write_run(m: &Member, seed: u64, size: Size, start_us: i64, dir: &Path) -> io::Result<Tally> {
    std::fs::create_dir_all(dir)?;
    let file = std::fs::File::create(dir.join(m.kind.file()))?;
    let tally = generate(m, seed, size, start_us, io::BufWriter::with_capacity(1 << 20, file))?;
    std::fs::write(dir.join("run.json"), run_json(m, &tally))?;
    if m.kind == Kind::Sccache {
        std::fs::write(dir.join("nginx-log-format"), format!("{}\n", sccache::LOG_FORMAT))?;
    }
    Ok(tally)
}

/// The nodes a member's run.json declares, with their addresses.
pub fn fleet_of(m: &Member) -> Vec<(String, String)> {
    if m.kind == Kind::Samples {
        return (0..m.knobs.nodes)
            .map(|i| (samples::node_name(i), format!("10.0.{}.{}", 4 + i / 200, 10 + i % 200)))
            .collect();
    }
    FLEET.iter().map(|(n, a)| (n.to_string(), a.to_string())).collect()
}

/// A valid run.json (the spec's fields): the window a little wider than the
/// log, so no write's latency reaches before it.
pub fn run_json(m: &Member, t: &Tally) -> String {
    let nodes: Vec<String> = fleet_of(m)
        .iter()
        .enumerate()
        .map(|(i, (name, addr))| {
            format!(
                "    {{\"name\": \"{name}\", \"builder\": \"snoc-{name}\", \"addr\": \"{addr}\", \"cores\": {}, \"mem_bytes\": {}, \"link_mbps\": {}}}",
                [16, 24, 32, 64][i % 4],
                [64u64, 128, 256][i % 3] << 30,
                [112.5, 60.0, 4.5][i % 3]
            )
        })
        .collect();
    format!(
        "{{\n  \"stamp\": \"family-{}-{}\",\n  \"mode\": \"warm\",\n  \"arch\": \"gfx1201\",\n  \"targets\": [],\n  \"namespace\": \"perf-family\",\n  \"sccache_prefix\": \"{}\",\n  \"started_at\": \"{}\",\n  \"finished_at\": \"{}\",\n  \"nodes\": [\n{}\n  ]\n}}\n",
        m.kind.name(),
        m.name,
        sccache::PREFIX,
        rfc3339(t.first_us - 600_000_000, 0),
        rfc3339(t.last_us + 1_000_000, 0),
        nodes.join(",\n")
    )
}

/// Days since 1970-01-01 to (year, month, day): Howard Hinnant's algorithm.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// (year, month, day, hour, minute, second) of Unix microseconds.
fn parts(us: i64) -> (i64, u32, u32, i64, i64, i64) {
    let secs = us.div_euclid(1_000_000);
    let (y, mo, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    (y, mo, d, s / 3600, s / 60 % 60, s % 60)
}

/// RFC 3339 in UTC with `digits` of fraction (Go's RFC3339Nano trims its
/// trailing zeros; `digits` 0 writes whole seconds).
pub fn rfc3339(us: i64, nanos_extra: u32) -> String {
    let (y, mo, d, h, mi, s) = parts(us);
    let mut out = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
    let frac = us.rem_euclid(1_000_000) as u64 * 1000 + u64::from(nanos_extra % 1000);
    if frac > 0 {
        let digits = format!("{frac:09}");
        let _ = write!(out, ".{}", digits.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// Parses `YYYY-MM-DDTHH:MM:SSZ` (what `--start` takes) to Unix microseconds.
pub fn parse_start(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[19] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // Days from civil, the inverse of `civil`.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400) + h * 3600 + mi * 60 + sec) * 1_000_000)
}

/// A Go `time.Duration` as Go prints it (`96.6µs`, `1.2ms`, `3.4s`, `2m5.5s`).
pub fn go_duration(ns: u64) -> String {
    fn trimmed(whole: u64, frac: u64, width: usize) -> String {
        if frac == 0 {
            return whole.to_string();
        }
        let f = format!("{frac:0width$}");
        format!("{whole}.{}", f.trim_end_matches('0'))
    }
    match ns {
        0 => "0s".into(),
        1..=999 => format!("{ns}ns"),
        1_000..=999_999 => format!("{}µs", trimmed(ns / 1000, ns % 1000, 3)),
        1_000_000..=999_999_999 => format!("{}ms", trimmed(ns / 1_000_000, ns % 1_000_000, 6)),
        _ => {
            let (secs, frac) = (ns / 1_000_000_000, ns % 1_000_000_000);
            let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
            let mut out = String::new();
            if h > 0 {
                let _ = write!(out, "{h}h");
            }
            if h > 0 || m > 0 {
                let _ = write!(out, "{m}m");
            }
            out + &trimmed(s, frac, 9) + "s"
        }
    }
}

/// A client address of a pool of `n`: the first few are fleet nodes (but
/// never most of the pool), the rest other machines, some over IPv6.
pub fn client_addr(i: usize, n: usize) -> String {
    let fleet = FLEET.len().min(n / 2).max(1);
    if i < fleet {
        return FLEET[i].1.to_string();
    }
    let j = i - fleet;
    if j % 50 == 49 {
        return format!("fd00::a:{j:x}");
    }
    format!("172.16.{}.{}", j / 250, 1 + j % 250)
}

/// How many of a pool of `n` clients are fleet nodes.
pub fn fleet_clients(n: usize) -> usize {
    FLEET.len().min(n / 2).max(1)
}

pub mod zot {
    //! zot.jsonl per the spec: request lines in either field order with the
    //! headers each client sends, other messages, and what is not JSON.
    use super::{client_addr, fleet_clients, go_duration, rfc3339, Era, Knobs, Out, Rng, Tally};
    use std::fmt::Write as _;
    use std::io::{self, Write};

    /// Repositories: those named `cache` hold BuildKit's registry cache.
    const REPOS: &[&str] = &[
        "rocm/pytorch",
        "rocm/dev-ubuntu-24.04",
        "rocm/vllm",
        "rocm/triton",
        "ci/aiter",
        "ci/flash-attn",
        "mirror/library/ubuntu",
        "mirror/library/python",
        "rocm/cache",
        "rocm/build-cache/pytorch",
        "ci/buildkit-cache",
        "rocm/hipblaslt",
    ];
    const TAGS: &[&str] = &[
        "latest",
        "6.4-complete",
        "v2.5.1",
        "nightly",
        "cache-gfx1201",
        "buildcache",
        "main",
        "sha-5c7f2f0",
    ];
    const ACCEPT: &[&str] = &[
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.oci.artifact.manifest.v1+json",
        "*/*",
    ];
    /// Client kinds: their user agents and the headers each always sends.
    const CLIENTS: &[(&str, &[&str])] = &[
        ("buildkit/v0.16.0", &["Accept-Encoding", "User-Agent"]),
        ("containerd/2.1.4+unknown", &["Accept", "Accept-Encoding", "User-Agent"]),
        (
            "docker/27.3.1 go/go1.22.7 git-commit/41ca978 kernel/6.8.0-45-generic os/linux arch/amd64 UpstreamClient(Docker-Client/27.3.1 (linux))",
            &["Accept", "User-Agent"],
        ),
        ("skopeo/1.13.3", &["Accept-Encoding", "Docker-Distribution-Api-Version", "User-Agent"]),
        ("crane/v0.20.2 go-containerregistry/v0.20.2", &["Accept-Encoding", "User-Agent"]),
    ];
    /// Headers a proxy, a tracer or a client's options add.
    const OPTIONAL: &[&str] = &[
        "Authorization",
        "X-Forwarded-For",
        "X-Forwarded-Proto",
        "X-Real-Ip",
        "Traceparent",
        "Connection",
        "X-Request-Id",
        "Via",
        "Cache-Control",
        "Accept-Language",
        "Range",
        "Content-Type",
    ];
    const MESSAGES: &[(&str, &str)] = &[
        ("syncing image", "sync"),
        ("successfully synced image", "sync"),
        ("HTTP API Audit", "audit"),
        ("failed to sync image", "sync"),
        ("executing GC of orphaned blobs", "gc"),
        ("garbage collected blobs", "gc"),
        ("scheduler: starting task", "scheduler"),
        ("updating CVE database", "cve"),
    ];

    /// One header key set: a client kind and its header names, sorted as
    /// zot writes them (Go marshals the header map with sorted keys).
    struct KeySet {
        client: usize,
        names: Vec<&'static str>,
        /// A write's set: carries Content-Length.
        sized: bool,
    }

    /// `n` distinct key sets: a client's own headers plus a distinct choice
    /// of optional ones each; a read's sets lack Content-Length, a write's
    /// carry it (with one set, it carries it and reads send 0). With
    /// `accept_max` above 1 every set carries `Accept`: without it, a member
    /// of one BuildKit set varied `Accept` and never wrote one.
    fn key_sets(n: usize, accept_max: usize) -> Vec<KeySet> {
        (0..n)
            .map(|i| {
                let client = i % CLIENTS.len();
                let choice = i / CLIENTS.len();
                let mut names: Vec<&'static str> = CLIENTS[client].1.to_vec();
                names.extend(
                    OPTIONAL
                        .iter()
                        .enumerate()
                        .filter(|(b, _)| choice >> b & 1 == 1)
                        .map(|(_, h)| *h),
                );
                // Every other set is a write's, so both kinds exist from two sets on.
                let sized = n == 1 || i % 2 == 1;
                if sized {
                    names.push("Content-Length");
                }
                if accept_max > 1 && !names.contains(&"Accept") {
                    names.push("Accept");
                }
                names.sort_unstable();
                KeySet { client, names, sized }
            })
            .collect()
    }

    /// What a request line is, as the spec's table reads it.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Req {
        BlobGet,
        BlobHead,
        ManifestGet,
        ManifestHead,
        Base,
        TagList,
        UploadStart,
        Chunk,
        BlobPut,
        ManifestPut,
        ManifestDelete,
    }

    fn pick_req(rng: &mut Rng) -> Req {
        match rng.below(100) {
            0..=29 => Req::BlobGet,
            30..=44 => Req::BlobHead,
            45..=56 => Req::ManifestGet,
            57..=66 => Req::ManifestHead,
            67..=71 => Req::Base,
            72..=74 => Req::TagList,
            75..=79 => Req::UploadStart,
            80..=86 => Req::Chunk,
            87..=94 => Req::BlobPut,
            95..=98 => Req::ManifestPut,
            _ => Req::ManifestDelete,
        }
    }

    /// The request's fields before they are written.
    struct Line {
        method: &'static str,
        path: String,
        status: u64,
        body_size: u64,
        latency_ns: u64,
        /// Content-Length of a write; `None` for a chunked upload.
        length: Option<u64>,
        /// A chunk's bytes, whether or not its length is sent.
        chunk_bytes: u64,
        /// Counted as a 2xx write into the cache (`Some(true)`) or an image.
        write: Option<bool>,
    }

    fn digest(rng: &mut Rng) -> String {
        let mut s = String::from("sha256:");
        rng.hex(&mut s, 64);
        s
    }

    fn uuid(rng: &mut Rng) -> String {
        let mut s = String::new();
        for (i, n) in [8, 4, 4, 4, 12].into_iter().enumerate() {
            if i > 0 {
                s.push('-');
            }
            rng.hex(&mut s, n);
        }
        s
    }

    fn status(rng: &mut Rng, ok: u64, bad: &[u64], bad_per_mille: u64) -> u64 {
        if rng.chance(bad_per_mille) {
            *rng.pick(bad)
        } else {
            ok
        }
    }

    /// A blob or manifest size: small manifests, layers up to gigabytes.
    fn blob_size(rng: &mut Rng) -> u64 {
        rng.log_within(200, 4_000_000_000)
    }

    /// Time a transfer of `bytes` takes, capped at four minutes so no
    /// write's latency reaches before the run's window.
    fn transfer_ns(rng: &mut Rng, bytes: u64) -> u64 {
        let rate = rng.within(20, 400) * 1_000_000;
        (bytes * 1_000_000_000 / rate + rng.within(50_000, 900_000)).min(240_000_000_000)
    }

    fn request(rng: &mut Rng, kind: Req, repo: &str) -> Line {
        let cache = repo.contains("cache");
        let mut l = Line {
            method: "GET",
            path: String::new(),
            status: 200,
            body_size: 0,
            latency_ns: rng.log_within(20_000, 5_000_000),
            length: None,
            chunk_bytes: 0,
            write: None,
        };
        match kind {
            Req::BlobGet | Req::BlobHead => {
                l.method = if kind == Req::BlobGet { "GET" } else { "HEAD" };
                l.path = format!("/v2/{repo}/blobs/{}", digest(rng));
                l.status = status(rng, 200, &[404, 401, 307], 80);
                if kind == Req::BlobGet && l.status == 200 {
                    l.body_size = blob_size(rng);
                    l.latency_ns = transfer_ns(rng, l.body_size);
                } else if l.status != 200 {
                    l.body_size = rng.within(90, 260);
                }
            }
            Req::ManifestGet | Req::ManifestHead => {
                l.method = if kind == Req::ManifestGet { "GET" } else { "HEAD" };
                let reference = if rng.chance(300) {
                    digest(rng)
                } else {
                    rng.pick(TAGS).to_string()
                };
                l.path = format!("/v2/{repo}/manifests/{reference}");
                l.status = status(rng, 200, &[404, 401], 100);
                if kind == Req::ManifestGet || l.status != 200 {
                    l.body_size = rng.within(250, 30_000);
                }
            }
            Req::Base => {
                l.path = "/v2/".into();
                l.status = *rng.pick(&[200, 401, 401]);
                l.body_size = if l.status == 200 { 0 } else { 253 };
            }
            Req::TagList => {
                l.path = if rng.chance(500) {
                    format!("/v2/{repo}/tags/list")
                } else {
                    "/v2/_catalog".into()
                };
                l.body_size = rng.within(30, 9_000);
            }
            Req::UploadStart => {
                l.method = "POST";
                l.path = format!("/v2/{repo}/blobs/uploads/");
                l.status = status(rng, 202, &[401, 404], 50);
            }
            Req::Chunk => {
                l.method = "PATCH";
                l.path = format!("/v2/{repo}/blobs/uploads/{}", uuid(rng));
                l.status = status(rng, 202, &[416, 500, 404], 40);
                let n = blob_size(rng).min(100_000_000);
                // Chunked transfers carry no Content-Length: their bytes are unknown.
                l.length = (!rng.chance(100)).then_some(n);
                l.chunk_bytes = n;
                l.latency_ns = transfer_ns(rng, n);
                l.write = Some(cache);
            }
            Req::BlobPut => {
                l.method = "PUT";
                l.path = format!(
                    "/v2/{repo}/blobs/uploads/{}?digest={}",
                    uuid(rng),
                    digest(rng).replace(':', "%3A")
                );
                l.status = status(rng, 201, &[400, 500, 404], 40);
                // After chunks the completing PUT carries nothing; BuildKit sends the whole blob here.
                let n = if rng.chance(300) { 0 } else { blob_size(rng) };
                l.length = Some(n);
                l.latency_ns = transfer_ns(rng, n);
                l.write = Some(cache);
            }
            Req::ManifestPut => {
                l.method = "PUT";
                let tag = *rng.pick(TAGS);
                l.path = format!("/v2/{repo}/manifests/{tag}");
                l.status = status(rng, 201, &[400, 401], 50);
                l.length = Some(rng.within(400, 12_000));
                l.write = Some(cache || tag.contains("cache"));
            }
            Req::ManifestDelete => {
                l.method = "DELETE";
                l.path = format!("/v2/{repo}/manifests/{}", digest(rng));
                l.status = status(rng, 202, &[404], 200);
            }
        }
        l
    }

    /// Counts one request as the spec says perfreport must.
    fn count(t: &mut Tally, kind: Req, l: &Line, host: &str) {
        t.add("requests", 1);
        t.add("records", 1);
        let ok = (200..300).contains(&l.status);
        match kind {
            Req::BlobGet | Req::BlobHead | Req::ManifestGet | Req::ManifestHead => {
                t.add("reads", 1);
                if l.method == "GET" && l.status == 200 {
                    t.add("read_bytes", l.body_size);
                }
            }
            Req::UploadStart if ok => t.add("upload_starts", 1),
            Req::Chunk | Req::BlobPut | Req::ManifestPut if !ok => t.add("failed_writes", 1),
            Req::Chunk | Req::BlobPut | Req::ManifestPut => {
                let manifest = kind == Req::ManifestPut;
                t.add(if manifest { "manifest_writes" } else { "blob_writes" }, 1);
                let cache = l.write == Some(true);
                match l.length {
                    Some(n) => {
                        if !manifest {
                            t.add("blob_write_bytes", n);
                        }
                        t.add(
                            if cache {
                                "cache_write_bytes"
                            } else {
                                "image_write_bytes"
                            },
                            n,
                        );
                    }
                    None => t.add("writes_unsized", 1),
                }
                if super::FLEET.iter().any(|(_, a)| *a == host) {
                    let node = t.node(host);
                    *node.entry("writes").or_default() += 1.0;
                    *node.entry("write_bytes").or_default() += l.length.unwrap_or(0) as f64;
                }
            }
            _ => {}
        }
    }

    /// The state a log carries from line to line.
    struct Log<'k> {
        knobs: &'k Knobs,
        sets: Vec<KeySet>,
        t_us: i64,
    }

    pub(super) fn write<W: Write>(k: &Knobs, rng: &mut Rng, start_us: i64, out: &mut Out<W>) -> io::Result<Tally> {
        let mut log = Log {
            knobs: k,
            sets: key_sets(k.key_sets, k.accept_max),
            t_us: start_us,
        };
        let mut t = Tally {
            first_us: start_us,
            ..Tally::default()
        };
        out.line("zot registry v2.1.2 (commit 5c7f2f0) serving on :5000")?;
        t.add("not_json", 1);
        t.add("skipped", 1);
        while !out.full() {
            log.t_us = super::clock(log.t_us, start_us, out.progress(), rng);
            // A not-JSON event writes 2.3 lines on average (a panic is 14).
            if rng.chance(k.not_json_per_mille * 9 / 20) {
                not_json(rng, &mut log, &mut t, out)?;
            } else if rng.chance(40) {
                other_message(rng, &log, &mut t, out)?;
            } else {
                request_line(rng, &log, &mut t, out)?;
            }
        }
        t.last_us = log.t_us;
        Ok(t)
    }

    fn other_message<W: Write>(rng: &mut Rng, log: &Log, t: &mut Tally, out: &mut Out<W>) -> io::Result<()> {
        let (msg, module) = *rng.pick(MESSAGES);
        let level = if msg.starts_with("failed") { "error" } else { "info" };
        let repo = *rng.pick(REPOS);
        let time = rfc3339(log.t_us, rng.below(1000) as u32);
        let line = if slog_line(rng, log.knobs) {
            format!(
                r#"{{"time":"{time}","level":"{level}","message":"{msg}","module":"{module}","repo":"{repo}","reference":"{}"}}"#,
                rng.pick(TAGS)
            )
        } else {
            format!(
                r#"{{"level":"{level}","module":"{module}","repo":"{repo}","reference":"{}","goroutine":{},"caller":"zotregistry.dev/zot/pkg/extensions/sync/service.go:{}","time":"{time}","message":"{msg}"}}"#,
                rng.pick(TAGS),
                rng.within(30, 90_000),
                rng.within(100, 900)
            )
        };
        *t.by_message.entry(msg.to_string()).or_default() += 1;
        t.add("skipped", 1);
        out.line(&line)
    }

    fn slog_line(rng: &mut Rng, k: &Knobs) -> bool {
        match k.era {
            Era::Slog => true,
            Era::Zerolog => false,
            Era::Mixed => rng.chance(500),
        }
    }

    /// Plain text, a Go panic (with a JSON line the crash cut off before
    /// it), or a line of Go's own log package.
    fn not_json<W: Write>(rng: &mut Rng, log: &mut Log, t: &mut Tally, out: &mut Out<W>) -> io::Result<()> {
        let addr = client_addr(rng.below(log.knobs.clients as u64) as usize, log.knobs.clients);
        if rng.chance(900) {
            let (y, mo, d, h, mi, s) = super::parts(log.t_us);
            let line = match rng.below(3) {
                0 => format!("{y}/{mo:02}/{d:02} {h:02}:{mi:02}:{s:02} http: TLS handshake error from {addr}:{}: EOF", rng.within(30_000, 60_999)),
                1 => format!("{y}/{mo:02}/{d:02} {h:02}:{mi:02}:{s:02} http: superfluous response.WriteHeader call from zotregistry.dev/zot/pkg/api.WriteData (routes.go:2056)"),
                _ => "zot registry v2.1.2 (commit 5c7f2f0) serving on :5000".to_string(),
            };
            t.add("not_json", 1);
            t.add("skipped", 1);
            return out.line(&line);
        }
        // A line cut off by the crash: JSON that ends too soon, malformed.
        let mut cut = String::new();
        let kind = pick_req(rng);
        let repo = rng_repo(rng);
        let l = request(rng, kind, repo);
        render(rng, log, &l, &addr, &mut cut);
        let mut at = cut.len() / 2;
        while !cut.is_char_boundary(at) {
            at -= 1;
        }
        cut.truncate(at);
        t.add("malformed", 1);
        out.line(&cut)?;
        let goroutine = rng.within(100, 90_000);
        let trace = [
            "panic: runtime error: invalid memory address or nil pointer dereference".to_string(),
            format!("[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x{:x}]", rng.below(1 << 24)),
            String::new(),
            format!("goroutine {goroutine} [running]:"),
            "zotregistry.dev/zot/pkg/storage/imagestore.(*ImageStore).FullBlobUpload(0xc000b2e000, {0xc0012a4f30, 0xc}, {0x2a1e4c0, 0xc000d8e0f0}, {0xc00129e0f0, 0x47})".to_string(),
            "\t/go/src/github.com/project-zot/zot/pkg/storage/imagestore/imagestore.go:1024 +0x1a4".to_string(),
            "zotregistry.dev/zot/pkg/api.(*RouteHandler).UpdateBlobUpload(0xc000412a80, {0x2a2b9f0, 0xc000c3a1c0}, 0xc000f3e900)".to_string(),
            "\t/go/src/github.com/project-zot/zot/pkg/api/routes.go:1290 +0x9a5".to_string(),
            "net/http.HandlerFunc.ServeHTTP(0x0?, {0x2a2b9f0?, 0xc000c3a1c0?}, 0x0?)".to_string(),
            "\t/usr/local/go/src/net/http/server.go:2171 +0x29".to_string(),
            "created by net/http.(*Server).Serve in goroutine 1".to_string(),
            "\t/usr/local/go/src/net/http/server.go:3285 +0x4b4".to_string(),
        ];
        for line in &trace {
            // A blank line is skipped, but it is not a line of something else.
            t.add(if line.is_empty() { "blank" } else { "not_json" }, 1);
            t.add("skipped", 1);
            out.line(line)?;
        }
        log.t_us += 2_000_000;
        Ok(())
    }

    fn rng_repo(rng: &mut Rng) -> &'static str {
        REPOS[rng.below(REPOS.len() as u64) as usize]
    }

    fn request_line<W: Write>(rng: &mut Rng, log: &Log, t: &mut Tally, out: &mut Out<W>) -> io::Result<()> {
        let n = log.knobs.clients;
        // Two lines in five come from the fleet's nodes, the rest from the whole pool.
        let i = if rng.chance(400) {
            rng.below(fleet_clients(n) as u64)
        } else {
            rng.below(n as u64)
        };
        let addr = client_addr(i as usize, n);
        let kind = pick_req(rng);
        let repo = rng_repo(rng);
        let mut l = request(rng, kind, repo);
        if l.write.is_some() && l.length.is_none() && log.sets.iter().all(|s| s.sized) {
            // With one key set, it carries Content-Length: no chunked upload.
            l.length = Some(l.chunk_bytes);
        }
        let mut line = String::with_capacity(768);
        render(rng, log, &l, &addr, &mut line);
        count(t, kind, &l, &addr);
        if rng.chance(log.knobs.escapes_per_mille) {
            line = escape_one(rng, &line);
        }
        out.line(&line)
    }

    /// The same line with one string written with JSON escapes: decoded, it
    /// says the same, so the tally stands.
    fn escape_one(rng: &mut Rng, line: &str) -> String {
        match rng.below(3) {
            // Slashes escaped, as some encoders write them.
            0 => {
                let start = line.find("\"path\":\"").map(|i| i + 8).unwrap_or(0);
                let end = start + line[start..].find('"').unwrap_or(0);
                format!(
                    "{}{}{}",
                    &line[..start],
                    line[start..end].replace('/', "\\/"),
                    &line[end..]
                )
            }
            // A non-ASCII letter escaped, in a field nobody reads.
            1 => line.replacen("\"component\":\"session\"", "\"component\":\"s\\u00e9ssion\"", 1),
            // A quote and an ampersand inside the user agent.
            _ => line.replacen(
                "\"User-Agent\":[\"",
                "\"User-Agent\":[\"probe \\\"nightly\\\" a\\u0026b ",
                1,
            ),
        }
    }

    /// The `headers` object of a line.
    fn headers(rng: &mut Rng, k: &Knobs, set: &KeySet, l: &Line, addr: &str, out: &mut String) {
        out.push('{');
        for (i, name) in set.names.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "\"{name}\":[");
            match *name {
                "Accept" => {
                    let n = rng.within(1, k.accept_max as u64) as usize;
                    for (j, value) in ACCEPT.iter().enumerate().take(n) {
                        let _ = write!(out, "{}\"{value}\"", if j > 0 { "," } else { "" });
                    }
                }
                "User-Agent" => user_agent(rng, k, set.client, out),
                "Content-Length" => {
                    let _ = write!(out, "\"{}\"", l.length.unwrap_or(0));
                }
                other => {
                    let v = header_value(rng, other, addr);
                    let _ = write!(out, "\"{v}\"");
                }
            }
            out.push(']');
        }
        out.push('}');
    }

    fn user_agent(rng: &mut Rng, k: &Knobs, client: usize, out: &mut String) {
        out.push('"');
        out.push_str(CLIENTS[client].0);
        if k.long_lines {
            // Product tokens a wrapper or a CI system appends: lines from the
            // shortest request to about 4 KB.
            let extra = rng.log_within(1, 3600) as usize;
            let start = out.len();
            while out.len() - start < extra {
                let _ = write!(
                    out,
                    " ci-runner/{}.{} (job {}; pipeline {})",
                    rng.below(20),
                    rng.below(100),
                    rng.below(1 << 20),
                    rng.below(1 << 16)
                );
            }
        }
        out.push('"');
    }

    fn header_value(rng: &mut Rng, name: &str, addr: &str) -> String {
        match name {
            "Accept-Encoding" => "gzip".into(),
            "Authorization" => "******".into(),
            "Docker-Distribution-Api-Version" => "registry/2.0".into(),
            "X-Forwarded-For" | "X-Real-Ip" => addr.to_string(),
            "X-Forwarded-Proto" => "https".into(),
            "Traceparent" => {
                let mut s = String::from("00-");
                rng.hex(&mut s, 32);
                s.push('-');
                rng.hex(&mut s, 16);
                s + "-01"
            }
            "Connection" => "keep-alive".into(),
            "X-Request-Id" => uuid(rng),
            "Via" => "1.1 registry-proxy".into(),
            "Cache-Control" => "no-cache".into(),
            "Accept-Language" => "en-US".into(),
            "Range" => format!("bytes=0-{}", rng.below(1 << 26)),
            _ => "application/octet-stream".into(),
        }
    }

    /// Writes a request line in the era's field order.
    fn render(rng: &mut Rng, log: &Log, l: &Line, addr: &str, out: &mut String) {
        let k = log.knobs;
        // A write takes a write's key set, a read a read's; with one set, that one.
        let sized = l.write.is_some() && l.length.is_some();
        let fitting: Vec<&KeySet> = log.sets.iter().filter(|s| s.sized == sized).collect();
        let set = if fitting.is_empty() {
            &log.sets[0]
        } else {
            fitting[rng.below(fitting.len() as u64) as usize]
        };
        let client = if addr.contains(':') {
            format!("[{addr}]")
        } else {
            addr.to_string()
        };
        let port = rng.within(30_000, 60_999);
        let time = rfc3339(log.t_us, rng.below(1000) as u32);
        let user = set
            .names
            .contains(&"Authorization")
            .then(|| format!("\"username\":\"{}\",", ["ci", "flintlock", "builder"][set.client % 3]));
        let user = user.as_deref().unwrap_or("");
        let dup = if k.repeated_keys {
            r#""module":"http","component":"session","#
        } else {
            ""
        };
        let fields = format!(
            r#""clientIP":"{client}:{port}","method":"{}","path":"{}","statusCode":{},"latency":"{}","bodySize":{},"headers":"#,
            l.method,
            l.path,
            l.status,
            go_duration(l.latency_ns),
            l.body_size
        );
        if slog_line(rng, k) {
            let _ = write!(
                out,
                r#"{{"time":"{time}","level":"info","message":"HTTP API","module":"http","component":"session",{dup}{user}{fields}"#
            );
            headers(rng, k, set, l, addr, out);
            out.push('}');
        } else {
            let _ = write!(
                out,
                r#"{{"level":"info","module":"http","component":"session",{dup}{user}{fields}"#
            );
            headers(rng, k, set, l, addr, out);
            let _ = write!(
                out,
                r#","goroutine":{},"caller":"zotregistry.dev/zot/pkg/api/session.go:137","caller":"zotregistry.dev/zot/pkg/api/routes.go:2056","time":"{time}","message":"HTTP API"}}"#,
                rng.within(30, 90_000)
            );
        }
    }
}

pub mod samples {
    //! samples.jsonl per the spec: one object per node per poll, counters
    //! that grow, and a metric set of each node's own.
    use super::{rfc3339, Knobs, Out, Rng, Tally};
    use std::fmt::Write as _;
    use std::io::{self, Write};

    const MODES: [&str; 8] = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"];

    pub fn node_name(i: usize) -> String {
        const NAMES: [&str; 8] = ["strix", "think", "forge", "anvil", "kiln", "smelt", "quench", "temper"];
        if i < NAMES.len() {
            NAMES[i].to_string()
        } else {
            format!("{}-{}", NAMES[i % NAMES.len()], i / NAMES.len())
        }
    }

    /// What one node reports, and its counters so far.
    struct Node {
        name: String,
        /// The CPU modes its poller writes, in its order.
        modes: Vec<usize>,
        cpu: [f64; 8],
        mem_total: u64,
        disk: Option<[u64; 2]>,
        net: [u64; 2],
        load1: bool,
        /// Writes `ts` as Unix seconds.
        unix_ts: bool,
        /// Reports a `gpu` object and `load5`/`load15` beside `load1`.
        extras: bool,
        /// Writes `node` first (an older poller), else `ts` first.
        node_first: bool,
        jitter_us: i64,
    }

    fn node(rng: &mut Rng, k: &Knobs, i: usize) -> Node {
        let mut modes: Vec<usize> = (0..8).collect();
        // Pollers of different versions write the modes in their own order,
        // and a VM's exporter may not report steal at all.
        if i % 3 == 1 {
            modes.reverse();
        }
        if i % 4 == 3 {
            modes.retain(|m| *m != 7);
        }
        Node {
            name: node_name(i),
            modes,
            cpu: [0.0; 8].map(|_| rng.within(1_000, 900_000) as f64),
            mem_total: [64u64, 128, 256][i % 3] << 30,
            disk: (i % 5 != 4).then(|| [rng.below(1 << 40), rng.below(1 << 40)]),
            net: [rng.below(1 << 40), rng.below(1 << 40)],
            load1: i % 7 != 6,
            unix_ts: k.samples_mixed && i % 4 == 2,
            extras: k.samples_mixed && i.is_multiple_of(3),
            node_first: i % 2 == 1,
            jitter_us: rng.below(200_000) as i64,
        }
    }

    pub(super) fn write<W: Write>(k: &Knobs, rng: &mut Rng, start_us: i64, out: &mut Out<W>) -> io::Result<Tally> {
        let mut nodes: Vec<Node> = (0..k.nodes).map(|i| node(rng, k, i)).collect();
        let mut t = Tally {
            first_us: start_us,
            ..Tally::default()
        };
        let mut round_us = start_us;
        let mut line = String::with_capacity(1024);
        'polls: loop {
            for n in &mut nodes {
                if out.full() {
                    break 'polls;
                }
                line.clear();
                let ts = round_us + n.jitter_us + rng.below(50_000) as i64;
                poll(rng, n, ts, &mut line, &mut t);
                t.last_us = t.last_us.max(ts);
                out.line(&line)?;
            }
            round_us += 2_000_000;
        }
        Ok(t)
    }

    /// Advances a node's counters by one poll and writes its line.
    fn poll(rng: &mut Rng, n: &mut Node, ts: i64, out: &mut String, t: &mut Tally) {
        let busy = rng.below(100) as f64 / 100.0;
        let cores = 32.0;
        for (m, v) in n.cpu.iter_mut().enumerate() {
            let share = match MODES[m] {
                "user" => busy * 0.8,
                "system" => busy * 0.15,
                "idle" => 1.0 - busy,
                "iowait" | "softirq" | "irq" => busy * 0.01,
                _ => 0.0,
            };
            // One decimal, as the poller writes them: the tally reads the same value.
            *v = ((*v + 2.0 * cores * share) * 10.0).round() / 10.0;
        }
        let available = n.mem_total - n.mem_total / 100 * rng.within(5, 95);
        for (i, c) in n.net.iter_mut().enumerate() {
            *c += rng.below(50_000_000 >> i);
        }
        if let Some(d) = n.disk.as_mut() {
            d[0] += rng.below(10_000_000);
            d[1] += rng.below(40_000_000);
        }
        let load = (rng.below(4000) as f64) / 100.0;
        let ts_text = if n.unix_ts {
            format!("{}.{:03}", ts.div_euclid(1_000_000), ts.rem_euclid(1_000_000) / 1000)
        } else {
            format!("\"{}\"", rfc3339(ts, 0))
        };
        let head = if n.node_first {
            format!("{{\"node\": \"{}\", \"ts\": {ts_text}", n.name)
        } else {
            format!("{{\"ts\": {ts_text}, \"node\": \"{}\"", n.name)
        };
        out.push_str(&head);
        out.push_str(", \"cpu\": {");
        for (j, m) in n.modes.iter().enumerate() {
            let _ = write!(
                out,
                "{}\"{}\": {:.1}",
                if j > 0 { ", " } else { "" },
                MODES[*m],
                n.cpu[*m]
            );
        }
        let _ = write!(
            out,
            "}}, \"mem\": {{\"total\": {}, \"available\": {available}}}",
            n.mem_total
        );
        if let Some(d) = n.disk {
            let _ = write!(out, ", \"disk\": {{\"read\": {}, \"written\": {}}}", d[0], d[1]);
        }
        let _ = write!(out, ", \"net\": {{\"rx\": {}, \"tx\": {}}}", n.net[0], n.net[1]);
        if n.extras {
            let _ = write!(
                out,
                ", \"gpu\": {{\"busy\": {:.1}, \"vram_used\": {}}}, \"load5\": {load:.2}",
                busy * 100.0,
                rng.below(1 << 34)
            );
        }
        if n.load1 {
            let _ = write!(out, ", \"load1\": {load:.2}");
        }
        out.push('}');
        t.add("records", 1);
        t.add("samples", 1);
        let e = t.node(&n.name);
        *e.entry("samples").or_default() += 1.0;
        let pct = 100.0 * (1.0 - available as f64 / n.mem_total as f64);
        let m = e.entry("mem_pct_max").or_insert(pct);
        *m = m.max(pct);
        if n.load1 {
            // The value as written: two decimals, read back.
            let l: f64 = format!("{load:.2}").parse().unwrap_or(0.0);
            let m = e.entry("load1_max").or_insert(l);
            *m = m.max(l);
        }
    }
}

pub mod sccache {
    //! sccache.log in the spec's `log_format`: sccache's reads (hits and
    //! misses), its writes with their WebDAV bookkeeping, start-up checks
    //! and requests of other runs.
    use super::{client_addr, parts, Knobs, Out, Rng, Tally};
    use std::fmt::Write as _;
    use std::io::{self, Write};

    pub const LOG_FORMAT: &str = r#"log_format sccache '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time';"#;
    /// This run's prefix (run.json `sccache_prefix`).
    pub const PREFIX: &str = "perf-family";

    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];

    fn time_local(us: i64) -> String {
        let (y, mo, d, h, mi, s) = parts(us);
        format!("{d:02}/{}/{y}:{h:02}:{mi:02}:{s:02} +0000", MONTHS[mo as usize - 1])
    }

    /// One line: what it asks and what it is to the cache.
    struct Req {
        method: &'static str,
        uri: String,
        status: u64,
        sent: u64,
        length: u64,
        what: &'static str,
    }

    fn key(rng: &mut Rng) -> String {
        let mut k = String::new();
        rng.hex(&mut k, 40);
        k
    }

    /// `/<prefix>/<k0>/<k1>/<k2>/<key>`, with a long query string now and then.
    fn object(rng: &mut Rng, k: &Knobs, prefix: &str, key: &str) -> String {
        let b = key.as_bytes();
        let mut uri = format!("/{prefix}/{}/{}/{}/{key}", b[0] as char, b[1] as char, b[2] as char);
        if k.long_uris && rng.chance(300) {
            let n = rng.log_within(100, 3000) as usize;
            uri.push_str("?X-Request-Token=");
            rng.hex(&mut uri, n);
        }
        uri
    }

    /// The requests of one compile: a read, and on a miss the write.
    fn compile(rng: &mut Rng, k: &Knobs, out: &mut Vec<Req>) {
        let key = key(rng);
        let uri = object(rng, k, PREFIX, &key);
        let hit = rng.chance(550);
        let get = |status, sent, what| Req {
            method: "GET",
            uri: uri.clone(),
            status,
            sent,
            length: 310,
            what,
        };
        if hit {
            out.push(get(200, rng.log_within(500, 50_000_000), "hits"));
            return;
        }
        if rng.chance(20) {
            out.push(get(500, 170, "other"));
            return;
        }
        out.push(get(404, 153, "misses"));
        let dir = uri[..uri.rfind('/').unwrap_or(0)].to_string();
        out.push(Req {
            method: "PROPFIND",
            uri: format!("{dir}/"),
            status: *rng.pick(&[207, 404]),
            sent: 0,
            length: 250,
            what: "overhead",
        });
        out.push(Req {
            method: "MKCOL",
            uri: format!("{dir}/"),
            status: *rng.pick(&[201, 405]),
            sent: 0,
            length: 240,
            what: "overhead",
        });
        let size = rng.log_within(500, 80_000_000);
        let (status, what) = if rng.chance(15) {
            (507, "failed_writes")
        } else {
            (*rng.pick(&[201, 204]), "writes")
        };
        out.push(Req {
            method: "PUT",
            uri,
            status,
            sent: 0,
            length: size + 320,
            what,
        });
    }

    /// A request that is not this run's cache traffic.
    fn aside(rng: &mut Rng, k: &Knobs, out: &mut Vec<Req>) {
        let r = match rng.below(3) {
            0 => Req {
                method: ["PUT", "GET"][rng.below(2) as usize],
                uri: format!("/{PREFIX}/.sccache_check"),
                status: 200,
                sent: 3,
                length: 300,
                what: "checks",
            },
            1 => {
                let key = key(rng);
                let other = if k.long_uris {
                    format!("perf-older/{}", "nested/".repeat(rng.within(1, 300) as usize))
                } else {
                    "perf-older".to_string()
                };
                Req {
                    method: "GET",
                    uri: object(rng, k, &other, &key),
                    status: 200,
                    sent: 999,
                    length: 310,
                    what: "other_prefix",
                }
            }
            _ => Req {
                method: "OPTIONS",
                uri: format!("/{PREFIX}/"),
                status: 200,
                sent: 0,
                length: 200,
                what: "overhead",
            },
        };
        out.push(r);
    }

    pub(super) fn write<W: Write>(k: &Knobs, rng: &mut Rng, start_us: i64, out: &mut Out<W>) -> io::Result<Tally> {
        let mut t = Tally {
            first_us: start_us,
            ..Tally::default()
        };
        let mut now = start_us;
        let mut batch = Vec::new();
        let mut line = String::with_capacity(512);
        while !out.full() {
            batch.clear();
            if rng.chance(30) {
                aside(rng, k, &mut batch);
            } else {
                compile(rng, k, &mut batch);
            }
            let addr = client_addr(rng.below(k.clients as u64) as usize, k.clients);
            for r in &batch {
                now = super::clock(now, start_us, out.progress(), rng);
                line.clear();
                let ua = if r.what == "checks" {
                    "opendal/0.52.0"
                } else {
                    "sccache/0.10.0"
                };
                let _ = write!(
                    line,
                    "{addr} - - [{}] \"{} {} HTTP/1.1\" {} {} \"-\" \"{ua}\" {} {}.{:03}",
                    time_local(now),
                    r.method,
                    r.uri,
                    r.status,
                    r.sent,
                    r.length,
                    rng.below(3),
                    rng.below(1000)
                );
                t.add(r.what, 1);
                if r.what == "writes" {
                    t.add("write_bytes", r.length);
                }
                t.add("records", 1);
                out.line(&line)?;
            }
        }
        t.last_us = now;
        Ok(t)
    }
}
