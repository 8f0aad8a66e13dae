//! A deterministic generator of run directories in the spec's formats, for
//! the bundled sample runs and the benchmarks. Seeded: the same scenario
//! always gives byte-identical files. An example, not the library: it is a
//! tool of this repository, not part of what perfreport offers.

use perfreport::timefmt::{self, Micros};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// splitmix64: tiny, seedable, and stable across versions (unlike a crate's
/// RNG stream), so the sample runs never change under a dependency bump.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f()
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    pub fn hex(&mut self, digits: usize) -> String {
        let mut s = String::with_capacity(digits);
        while s.len() < digits {
            let _ = write!(s, "{:016x}", self.next_u64());
        }
        s.truncate(digits);
        s
    }
}

#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub name: &'static str,
    pub addr: &'static str,
    pub cores: u32,
    pub mem_gib: u64,
    /// Real upload throughput to the store, MB/s.
    pub link_mbps: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceEncoding {
    Jaeger,
    Otlp,
    Stubs,
    StubArray,
}

#[derive(Debug, Clone)]
pub struct TargetSpec {
    pub name: &'static str,
    pub node: &'static str,
    /// Seconds of its own steps when nothing is cached.
    pub build_s: f64,
    pub steps: u32,
    pub cached_steps: u32,
    /// Bytes of layer cache exported (0: no cache export).
    pub cache_bytes: u64,
    pub image_bytes: u64,
    /// Compilations that go through sccache.
    pub compile_units: u32,
    pub encoding: TraceEncoding,
    /// Older BuildKit records request sizes on its HTTP spans.
    pub sized_spans: bool,
    /// Optional name prefix inside step labels: bake target or platform.
    pub label_prefix: Option<&'static str>,
    /// Push this target's blobs in chunks without Content-Length.
    pub chunked: bool,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub stamp: &'static str,
    pub seed: u64,
    pub cold: bool,
    pub arch: &'static str,
    pub started_at: Micros,
    pub nodes: Vec<NodeSpec>,
    pub targets: Vec<TargetSpec>,
    /// What the balancer believed about each node's link (MB/s), by node.
    pub believed_link_mbps: Vec<(&'static str, f64)>,
    pub poll_s: f64,
    /// Share of compilations served from the cache.
    pub hit_ratio: f64,
    /// Cut the run at this share of its length and leave it in flight.
    pub in_flight_at: Option<f64>,
    /// Pad zot.jsonl with read traffic up to about this many bytes.
    pub zot_bytes: u64,
    /// Pad sccache.log with other prefixes' traffic up to about this many bytes.
    pub sccache_bytes: u64,
    /// Keep the run going (idle polls) for at least this long, seconds.
    pub min_wall_s: f64,
}

const S: Micros = 1_000_000;

fn fleet() -> Vec<NodeSpec> {
    vec![
        NodeSpec {
            name: "strix",
            addr: "10.0.3.12",
            cores: 32,
            mem_gib: 128,
            link_mbps: 112.5,
        },
        NodeSpec {
            name: "think",
            addr: "10.0.3.14",
            cores: 24,
            mem_gib: 64,
            link_mbps: 2.8,
        },
        NodeSpec {
            name: "forge",
            addr: "10.0.3.16",
            cores: 64,
            mem_gib: 256,
            link_mbps: 110.0,
        },
        NodeSpec {
            name: "anvil",
            addr: "10.0.3.18",
            cores: 16,
            mem_gib: 64,
            link_mbps: 95.0,
        },
        NodeSpec {
            name: "kiln",
            addr: "10.0.3.20",
            cores: 32,
            mem_gib: 128,
            link_mbps: 60.0,
        },
    ]
}

#[allow(clippy::too_many_arguments)]
fn target(
    name: &'static str,
    node: &'static str,
    build_s: f64,
    steps: u32,
    cache_gb: f64,
    image_gb: f64,
    units: u32,
    encoding: TraceEncoding,
) -> TargetSpec {
    TargetSpec {
        name,
        node,
        build_s,
        steps,
        cached_steps: 1,
        cache_bytes: (cache_gb * 1e9) as u64,
        image_bytes: (image_gb * 1e9) as u64,
        compile_units: units,
        encoding,
        sized_spans: false,
        label_prefix: None,
        chunked: false,
    }
}

/// The cold sample: 5 nodes, 10 targets, one node behind a slow link whose
/// cache export dominates its target (the spec's triton-wheel story).
pub fn cold_sample() -> Scenario {
    use TraceEncoding::*;
    let mut targets = vec![
        target("pytorch", "strix", 2342.0, 11, 0.0, 3.1, 210, Jaeger),
        target("triton-wheel", "think", 948.0, 11, 6.4, 0.2, 160, Jaeger),
        target("vllm", "forge", 1620.0, 13, 0.0, 2.4, 150, Otlp),
        target("aiter-wheel", "anvil", 610.0, 9, 0.0, 0.4, 120, Stubs),
        target("flash-attn", "kiln", 1480.0, 10, 0.0, 0.9, 130, Jaeger),
        target("rccl-tests", "strix", 180.0, 6, 0.0, 0.3, 40, StubArray),
        target("hipblaslt", "forge", 900.0, 8, 0.0, 1.1, 100, Jaeger),
        target("torchvision", "anvil", 420.0, 7, 0.0, 0.5, 90, Jaeger),
        target("xformers", "kiln", 560.0, 8, 0.0, 0.6, 110, Jaeger),
        target("rocm-base", "think", 120.0, 5, 0.0, 0.8, 0, Jaeger),
    ];
    targets[1].cached_steps = 1;
    targets[1].sized_spans = true;
    targets[2].label_prefix = Some("linux/amd64");
    targets[4].label_prefix = Some("flash-attn");
    targets[9].cached_steps = 4;
    Scenario {
        stamp: "20261020T020000Z",
        seed: 20261020,
        cold: true,
        arch: "gfx1201",
        started_at: timefmt::parse_rfc3339("2026-10-20T02:00:00Z").unwrap_or(0),
        nodes: fleet(),
        targets,
        believed_link_mbps: vec![("think", 6.0)],
        poll_s: 10.0,
        hit_ratio: 0.0,
        in_flight_at: None,
        zot_bytes: 0,
        sccache_bytes: 0,
        min_wall_s: 0.0,
    }
}

/// The warm sample, still in flight: most steps cached, a half-written last line.
pub fn warm_in_flight_sample() -> Scenario {
    use TraceEncoding::*;
    let mut targets = vec![
        target("pytorch", "strix", 2342.0, 11, 1.2, 3.1, 420, Jaeger),
        target("triton-wheel", "think", 900.0, 11, 6.4, 0.2, 160, Stubs),
        target("vllm", "forge", 1620.0, 13, 1.0, 2.4, 300, Jaeger),
        target("aiter-wheel", "anvil", 610.0, 9, 0.5, 0.4, 120, Jaeger),
        target("flash-attn", "kiln", 1480.0, 10, 0.8, 0.9, 260, Otlp),
        target("hipblaslt", "forge", 900.0, 8, 0.4, 1.1, 200, Jaeger),
    ];
    for t in &mut targets {
        t.cached_steps = t.steps - 2;
    }
    // Their sources changed: the compile steps run again, mostly from sccache.
    targets[0].cached_steps = 3;
    targets[2].cached_steps = 3;
    // The spec's warm story: 92 s of steps inside a 430 s record while 6.4 GB went up.
    targets[1].build_s = 92.0 * 11.0 / 2.0;
    targets[3].chunked = true;
    Scenario {
        stamp: "20261021T020000Z",
        seed: 20261021,
        cold: false,
        arch: "gfx1201",
        started_at: timefmt::parse_rfc3339("2026-10-21T02:00:00Z").unwrap_or(0),
        nodes: fleet(),
        targets,
        believed_link_mbps: vec![],
        poll_s: 10.0,
        hit_ratio: 0.92,
        in_flight_at: Some(0.55),
        zot_bytes: 0,
        sccache_bytes: 0,
        min_wall_s: 0.0,
    }
}

/// A big run for benchmarks: 5 nodes, 12 targets, 12 hours at 2 s polls,
/// zot.jsonl and sccache.log padded to the given sizes.
pub fn big(zot_bytes: u64, sccache_bytes: u64) -> Scenario {
    let mut s = cold_sample();
    s.stamp = "20261101T000000Z";
    s.seed = 20261101;
    s.poll_s = 2.0;
    s.zot_bytes = zot_bytes;
    s.sccache_bytes = sccache_bytes;
    s.min_wall_s = 12.0 * 3600.0;
    s.started_at = timefmt::parse_rfc3339("2026-11-01T00:00:00Z").unwrap_or(0);
    let extra = [("rocblas", "strix"), ("miopen", "kiln")];
    for (name, node) in extra {
        s.targets
            .push(target(name, node, 5400.0, 9, 0.0, 1.5, 600, TraceEncoding::Jaeger));
    }
    for t in &mut s.targets {
        t.build_s *= 3.0;
        t.compile_units *= 4;
    }
    s
}

/// A wide fleet for looking at the charts at fleet width: `nodes` nodes
/// (the sample fleet first, then more), `targets` targets dealt round the
/// nodes, the sample's slow link (think) among them. Seeded by `seed`.
pub fn wide(nodes: usize, targets: usize, seed: u64) -> Scenario {
    let mut s = cold_sample();
    s.stamp = "20261105T020000Z";
    s.seed = seed;
    s.started_at = timefmt::parse_rfc3339("2026-11-05T02:00:00Z").unwrap_or(0);
    let leak = |v: String| -> &'static str { Box::leak(v.into_boxed_str()) };
    let mut rng = Rng::new(seed);
    while s.nodes.len() < nodes {
        let i = s.nodes.len();
        s.nodes.push(NodeSpec {
            name: leak(format!("node{i:02}")),
            addr: leak(format!("10.0.4.{}", 10 + i)),
            cores: [16, 32, 64][rng.below(3) as usize],
            mem_gib: [64, 128, 256][rng.below(3) as usize],
            link_mbps: rng.range(40.0, 120.0),
        });
    }
    s.nodes.truncate(nodes.max(1));
    let names: Vec<&'static str> = s.nodes.iter().map(|n| n.name).collect();
    let base = s.targets.clone();
    s.targets = (0..targets)
        .map(|i| {
            let mut t = base[i % base.len()].clone();
            if i >= base.len() {
                t.name = leak(format!("{}-{}", t.name, i / base.len() + 1));
            }
            t.node = names[i % names.len()];
            t.build_s *= rng.range(0.5, 1.2);
            t
        })
        .collect();
    s
}

/// Night `night` of a nightly lane (warm, complete, 30 s polls) for history
/// at scale: pytorch's build steps up 15% from `step_night` on, every
/// target's build jitters ±1% by the night's seed. `stamp` is the caller's
/// (a run's stamp is a `&'static str`).
pub fn nightly(night: u32, step_night: u32, stamp: &'static str) -> Scenario {
    let mut s = warm_in_flight_sample();
    s.stamp = stamp;
    s.seed = 20261001 + night as u64;
    s.in_flight_at = None;
    s.poll_s = 30.0;
    let first = timefmt::parse_rfc3339("2026-10-01T02:00:00Z").unwrap_or(0);
    s.started_at = first + night as Micros * 86_400 * S;
    let mut rng = Rng::new(s.seed);
    for t in &mut s.targets {
        t.build_s *= rng.range(0.99, 1.01);
        if t.name == "pytorch" && night >= step_night {
            t.build_s *= 1.15;
        }
    }
    s
}

/// One target's simulated record.
#[derive(Debug, Clone)]
struct Sim {
    spec: TargetSpec,
    addr: &'static str,
    start: Micros,
    first_step: Micros,
    /// (name, start, end, cached, vertex)
    steps: Vec<(String, Micros, Micros, bool, String)>,
    last_step_end: Micros,
    /// (start, end, bytes, is_cache)
    uploads: Vec<(Micros, Micros, u64, bool)>,
    end: Micros,
}

fn step_commands(t: &TargetSpec) -> Vec<String> {
    let n = t.steps as usize;
    let mut cmds = vec![format!(
        "FROM docker.io/rocm/dev-ubuntu-24.04:6.4-complete@sha256:{}",
        &fake_digest(t.name, 0)[..16]
    )];
    let middle = [
        "RUN apt-get update && apt-get install -y ninja-build ccache libnuma-dev".to_string(),
        "COPY requirements.txt /src/".to_string(),
        "RUN pip install -r /src/requirements.txt".to_string(),
        format!("RUN git clone --depth 1 https://example.invalid/{0} /src/{0}", t.name),
        "ENV SCCACHE_WEBDAV_ENDPOINT=http://cache.fleet:8080 RUSTC_WRAPPER=sccache".to_string(),
        format!("RUN cd /src/{} && MAX_JOBS=32 python setup.py bdist_wheel", t.name),
        "RUN sccache --show-stats > /opt/sccache-stats.txt".to_string(),
        "RUN pip install /src/dist/*.whl && python -c 'import torch'".to_string(),
        "COPY patches/ /src/patches/".to_string(),
        "RUN ./build_kernels.sh --arch gfx1201".to_string(),
        "RUN strip --strip-debug /opt/rocm/lib/*.so".to_string(),
    ];
    for i in 1..n.saturating_sub(1) {
        cmds.push(middle[(i - 1) % middle.len()].clone());
    }
    if n > 1 {
        cmds.push("COPY --from=builder /src/dist/ /wheels/".to_string());
    }
    cmds
}

fn fake_digest(name: &str, i: u32) -> String {
    let mut r = Rng::new(
        name.bytes().fold(1469598103934665603u64, |h, b| {
            (h ^ b as u64).wrapping_mul(1099511628211)
        }) ^ i as u64,
    );
    r.hex(64)
}

fn step_label(t: &TargetSpec, i: u32) -> String {
    let stage = if i + 1 == t.steps { "final" } else { "builder" };
    let width = t.steps.to_string().len();
    let lead = match t.label_prefix {
        Some(p) if p.contains('/') => format!("{p} {stage}"),
        Some(p) => format!("{p} {stage}"),
        None => stage.to_string(),
    };
    // BuildKit pads the step number to the width of the total.
    format!("[{lead} {:>width$}/{}]", i + 1, t.steps)
}

fn simulate(sc: &Scenario, rng: &mut Rng) -> Vec<Sim> {
    let mut sims = Vec::new();
    let mut node_free: Vec<(&str, Micros)> = sc
        .nodes
        .iter()
        .map(|n| (n.name, sc.started_at + (rng.range(2.0, 8.0) * 1e6) as Micros))
        .collect();
    for t in &sc.targets {
        let Some(node) = sc.nodes.iter().find(|n| n.name == t.node) else {
            continue;
        };
        let Some(slot) = node_free.iter_mut().find(|(n, _)| *n == t.node) else {
            continue;
        };
        let start = slot.1 + (rng.range(1.0, 6.0) * 1e6) as Micros;
        let setup = rng.range(6.0, 25.0);
        let first_step = start + (setup * 1e6) as Micros;
        let cmds = step_commands(t);
        // Weights: the compile steps dominate.
        let weights: Vec<f64> = (0..t.steps)
            .map(|i| {
                if cmds[i as usize].contains("bdist_wheel") || cmds[i as usize].contains("build_kernels") {
                    8.0
                } else {
                    rng.range(0.2, 1.0)
                }
            })
            .collect();
        let wsum: f64 = (0..t.steps)
            .filter(|&i| i >= t.cached_steps)
            .map(|i| weights[i as usize])
            .sum::<f64>()
            .max(1e-9);
        let mut now = first_step;
        let mut steps = Vec::new();
        for i in 0..t.steps {
            let name = format!("{} {}", step_label(t, i), cmds[i as usize]);
            let cached = i < t.cached_steps;
            let dur = if cached {
                rng.range(0.02, 0.2)
            } else {
                t.build_s * weights[i as usize] / wsum
            };
            let end = now + (dur * 1e6) as Micros;
            steps.push((name, now, end, cached, format!("sha256:{}", fake_digest(t.name, i + 1))));
            now = end + (rng.range(0.01, 0.3) * 1e6) as Micros;
        }
        let last_step_end = steps.last().map(|s| s.2).unwrap_or(first_step);
        // Export: write layers, then push image (and cache) at the node's real link speed.
        let mut at = last_step_end + (rng.range(3.0, 12.0) * 1e6) as Micros;
        let mut uploads = Vec::new();
        for (bytes, is_cache) in [(t.image_bytes, false), (t.cache_bytes, true)] {
            if bytes == 0 {
                continue;
            }
            let blobs = 6u64.min(bytes / 50_000_000).max(1);
            // Two concurrent streams share the link: each blob takes twice as long,
            // and the union of the two streams is the real upload time.
            let per_blob = bytes / blobs;
            let mut lane_at = [at, at + (rng.range(0.2, 1.5) * 1e6) as Micros];
            for b in 0..blobs {
                // The last blob takes the remainder: the blobs add up to the bytes.
                let per_blob = if b + 1 == blobs {
                    bytes - per_blob * (blobs - 1)
                } else {
                    per_blob
                };
                let lane = (b % 2) as usize;
                let secs = per_blob as f64 / (node.link_mbps * 1e6) * if blobs > 1 { 2.0 } else { 1.0 };
                let s = lane_at[lane];
                let e = s + (secs * 1e6) as Micros;
                uploads.push((s, e, per_blob, is_cache));
                lane_at[lane] = e + (rng.range(0.05, 0.4) * 1e6) as Micros;
            }
            at = lane_at[0].max(lane_at[1]) + (rng.range(0.5, 2.0) * 1e6) as Micros;
        }
        // In a cold run the harness clears the cache export: only the slow
        // node's target (whose cache-to is set in its bake file) exports one.
        let end = at + (rng.range(1.0, 4.0) * 1e6) as Micros;
        slot.1 = end;
        sims.push(Sim {
            spec: t.clone(),
            addr: node.addr,
            start,
            first_step,
            steps,
            last_step_end,
            uploads,
            end,
        });
    }
    sims
}

/// Writes the scenario's run directory.
pub fn write_run(sc: &Scenario, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng::new(sc.seed);
    let sims = simulate(sc, &mut rng);
    let run_end = sims.iter().map(|s| s.end).max().unwrap_or(sc.started_at) + 30 * S;
    let run_end = run_end.max(sc.started_at + (sc.min_wall_s * 1e6) as Micros);
    let cut = sc
        .in_flight_at
        .map(|f| sc.started_at + ((run_end - sc.started_at) as f64 * f) as Micros);
    let horizon = cut.unwrap_or(run_end);

    write_run_json(sc, dir, cut.is_none().then_some(run_end))?;
    write_placement(sc, dir, &sims)?;
    for sim in &sims {
        if sim.start < horizon {
            write_trace(dir, sim, cut, &mut rng)?;
        }
    }
    write_samples(sc, dir, &sims, horizon, cut.is_some(), &mut rng)?;
    write_sccache(sc, dir, &sims, horizon, cut.is_some(), &mut rng)?;
    write_zot(sc, dir, &sims, horizon, cut.is_some(), &mut rng)?;
    if cut.is_none() {
        write_artifacts(dir, &sims, &mut rng)?;
    }
    Ok(())
}

fn write_run_json(sc: &Scenario, dir: &Path, finished: Option<Micros>) -> std::io::Result<()> {
    let nodes: Vec<serde_json::Value> = sc
        .nodes
        .iter()
        .map(|n| {
            serde_json::json!({"name": n.name, "builder": format!("snoc-{}", n.name), "addr": n.addr,
                "cores": n.cores, "mem_bytes": n.mem_gib << 30, "link_mbps": n.link_mbps})
        })
        .collect();
    let v = serde_json::json!({
        "stamp": sc.stamp,
        "mode": if sc.cold { "cold" } else { "warm" },
        "arch": sc.arch,
        "targets": sc.targets.iter().map(|t| t.name).collect::<Vec<_>>(),
        "namespace": if sc.cold { "rocm-coldrun" } else { "rocm-warmrun" },
        "sccache_prefix": format!("perf-{}", sc.stamp),
        "started_at": timefmt::format_rfc3339(sc.started_at),
        "finished_at": finished.map(timefmt::format_rfc3339),
        "nodes": nodes,
    });
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    write_file(&dir.join("run.json"), text)
}

fn write_placement(sc: &Scenario, dir: &Path, sims: &[Sim]) -> std::io::Result<()> {
    let mut out = String::from(
        "# balancer: est_s = build_s + cache_bytes / (link_mbps * 1e6); the node that finishes soonest wins\n",
    );
    let mut queue: Vec<(&str, u32, Option<&str>)> = vec![];
    for sim in sims {
        let t = &sim.spec;
        let node = sc.nodes.iter().find(|n| n.name == t.node);
        let link = sc
            .believed_link_mbps
            .iter()
            .find(|(n, _)| *n == t.node)
            .map(|(_, l)| *l)
            .or(node.map(|n| n.link_mbps))
            .unwrap_or(100.0);
        let q = queue.iter().filter(|(n, _, _)| *n == t.node).count() as u32;
        let after = queue
            .iter()
            .rev()
            .find(|(n, _, _)| *n == t.node)
            .and_then(|(_, _, a)| *a);
        let est = t.build_s + (t.cache_bytes + t.image_bytes) as f64 / (link * 1e6);
        let _ = write!(
            out,
            "placement target={} node={} builder=snoc-{} queue={q} build_s={:.0} cache_bytes={} link_mbps={link:.1} est_s={est:.0}",
            t.name, t.node, t.node, t.build_s, t.cache_bytes + t.image_bytes
        );
        if let Some(a) = after {
            let _ = write!(out, " after={a}");
        }
        out.push('\n');
        queue.push((t.node, q, Some(t.name)));
    }
    write_file(&dir.join("placement.txt"), out)
}

fn write_trace(dir: &Path, sim: &Sim, cut: Option<Micros>, rng: &mut Rng) -> std::io::Result<()> {
    struct Sp {
        id: String,
        parent: Option<String>,
        name: String,
        start: Micros,
        end: Option<Micros>,
        attrs: Vec<(&'static str, String)>,
    }
    let trace_id = rng.hex(32);
    let root = rng.hex(16);
    let mut spans: Vec<Sp> = vec![];
    let mut add = |rng: &mut Rng,
                   parent: &str,
                   name: String,
                   s: Micros,
                   e: Micros,
                   attrs: Vec<(&'static str, String)>|
     -> String {
        let id = rng.hex(16);
        spans.push(Sp {
            id: id.clone(),
            parent: Some(parent.to_string()),
            name,
            start: s,
            end: Some(e),
            attrs,
        });
        id
    };
    let t0 = sim.start;
    let solve = add(
        rng,
        &root,
        "moby.buildkit.v1.Control/Solve".into(),
        t0 + 200_000,
        sim.end - 100_000,
        vec![],
    );
    let setup_names = [
        "[internal] load build definition from Dockerfile".to_string(),
        "[internal] load metadata for docker.io/rocm/dev-ubuntu-24.04:6.4-complete".to_string(),
        "[internal] load .dockerignore".to_string(),
        "[internal] load build context".to_string(),
    ];
    let setup_len = (sim.first_step - t0 - 400_000).max(4);
    for (i, n) in setup_names.iter().enumerate() {
        let s = t0 + 300_000 + setup_len * i as i64 / 4;
        add(rng, &solve, n.clone(), s, s + setup_len / 4 - 10, vec![]);
    }
    for (name, s, e, cached, vertex) in &sim.steps {
        add(
            rng,
            &solve,
            format!("cache request: {name}"),
            *s - 300,
            *s - 100,
            vec![],
        );
        if *cached {
            add(
                rng,
                &solve,
                format!("load cache: {name}"),
                *s,
                *e,
                vec![("vertex", vertex.clone())],
            );
        } else {
            add(rng, &solve, name.clone(), *s, *e, vec![("vertex", vertex.clone())]);
        }
    }
    let export = add(
        rng,
        &solve,
        "exporting to image".into(),
        sim.last_step_end + 100_000,
        sim.end - 200_000,
        vec![],
    );
    if sim.uploads.iter().any(|u| u.3) {
        let first_cache = sim.uploads.iter().filter(|u| u.3).map(|u| u.0).min().unwrap_or(sim.end);
        add(
            rng,
            &solve,
            "exporting cache to registry".into(),
            first_cache - 500_000,
            sim.end - 300_000,
            vec![],
        );
        add(
            rng,
            &solve,
            "preparing build cache for export".into(),
            first_cache - 500_000,
            first_cache - 100_000,
            vec![],
        );
    }
    add(
        rng,
        &export,
        "exporting layers".into(),
        sim.last_step_end + 200_000,
        sim.last_step_end + 2_000_000,
        vec![],
    );
    let pushing = add(
        rng,
        &export,
        "pushing layers".into(),
        sim.uploads.first().map(|u| u.0 - 50_000).unwrap_or(sim.end - 1_000_000),
        sim.end - 300_000,
        vec![],
    );
    for (s, e, bytes, _) in &sim.uploads {
        let method = if sim.spec.sized_spans {
            "http.method"
        } else {
            "http.request.method"
        };
        let outer = add(
            rng,
            &pushing,
            "remotes.docker.resolver.HTTPRequest".into(),
            *s,
            *e,
            vec![(method, "PUT".into())],
        );
        let mut attrs = vec![(method, "PUT".to_string())];
        if sim.spec.sized_spans {
            attrs.push(("http.request_content_length", bytes.to_string()));
        }
        add(rng, &outer, "HTTP PUT".into(), *s + 20, *e - 20, attrs);
        // Existence checks before each push: HEAD, not an upload.
        let h = add(
            rng,
            &pushing,
            "remotes.docker.resolver.HTTPRequest".into(),
            *s - 40_000,
            *s - 10_000,
            vec![],
        );
        add(
            rng,
            &h,
            "HTTP HEAD".into(),
            *s - 39_000,
            *s - 11_000,
            vec![(method, "HEAD".into())],
        );
    }
    spans.insert(
        0,
        Sp {
            id: root.clone(),
            parent: None,
            name: "build".into(),
            start: t0,
            end: Some(sim.end),
            attrs: vec![],
        },
    );
    // In flight: spans past the cut have not ended; those not yet started do not exist.
    if let Some(c) = cut {
        spans.retain(|s| s.start < c);
        for s in &mut spans {
            if s.end.is_some_and(|e| e > c) {
                s.end = None;
            }
        }
    }
    let text = match sim.spec.encoding {
        TraceEncoding::Jaeger => {
            // buildx only exports ended spans.
            let js: Vec<serde_json::Value> = spans
                .iter()
                .filter_map(|s| {
                    let e = s.end?;
                    let parent = s.parent.clone().unwrap_or_else(|| "0".repeat(16));
                    Some(serde_json::json!({
                        "traceID": trace_id, "spanID": s.id, "operationName": s.name,
                        "references": [{"refType": "CHILD_OF", "traceID": trace_id, "spanID": parent}],
                        "startTime": s.start, "duration": e - s.start,
                        "tags": s.attrs.iter().map(|(k, v)| serde_json::json!({"key": k, "type": "string", "value": v})).collect::<Vec<_>>(),
                        "logs": [], "processID": "p1", "warnings": null}))
                })
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({"data": [{"traceID": trace_id, "spans": js,
                "processes": {"p1": {"serviceName": "buildx", "tags": []}}, "warnings": null}],
                "total": 0, "limit": 0, "offset": 0, "errors": null}))
            .unwrap_or_default()
        }
        TraceEncoding::Otlp => {
            let js: Vec<serde_json::Value> = spans
                .iter()
                .filter_map(|s| {
                    let e = s.end?;
                    Some(serde_json::json!({
                        "traceId": trace_id, "spanId": s.id, "parentSpanId": s.parent.clone().unwrap_or_default(),
                        "name": s.name, "kind": 1,
                        "startTimeUnixNano": (s.start as i128 * 1000).to_string(),
                        "endTimeUnixNano": (e as i128 * 1000).to_string(),
                        "attributes": s.attrs.iter().map(|(k, v)| serde_json::json!({"key": k, "value": {"stringValue": v}})).collect::<Vec<_>>(),
                        "status": {}}))
                })
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({"resourceSpans": [{"resource": {"attributes": [
                {"key": "service.name", "value": {"stringValue": "buildkitd"}}]},
                "scopeSpans": [{"scope": {"name": "github.com/moby/buildkit"}, "spans": js}]}]}))
            .unwrap_or_default()
        }
        TraceEncoding::Stubs | TraceEncoding::StubArray => {
            let stubs: Vec<serde_json::Value> = spans
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "Name": s.name,
                        "SpanContext": {"TraceID": trace_id, "SpanID": s.id, "TraceFlags": "01", "TraceState": "", "Remote": false},
                        "Parent": {"TraceID": trace_id, "SpanID": s.parent.clone().unwrap_or_else(|| "0".repeat(16)), "TraceFlags": "00", "TraceState": "", "Remote": false},
                        "SpanKind": 1,
                        "StartTime": stub_time(s.start),
                        "EndTime": s.end.map(stub_time).unwrap_or_else(|| "0001-01-01T00:00:00Z".into()),
                        "Attributes": s.attrs.iter().map(|(k, v)| serde_json::json!({"Key": k, "Value": {"Type": "STRING", "Value": v}})).collect::<Vec<_>>(),
                        "Events": null, "Links": null,
                        "Status": {"Code": "Unset", "Description": ""},
                        "DroppedAttributes": 0, "DroppedEvents": 0, "DroppedLinks": 0, "ChildSpanCount": 0,
                        "Resource": null,
                        "InstrumentationLibrary": {"Name": "github.com/moby/buildkit", "Version": "", "SchemaURL": ""}})
                })
                .collect();
            if sim.spec.encoding == TraceEncoding::StubArray {
                serde_json::to_string_pretty(&stubs).unwrap_or_default()
            } else {
                // Several indented objects one after another, as the blob stores them.
                let mut out = String::new();
                for s in &stubs {
                    out.push_str(&serde_json::to_string_pretty(s).unwrap_or_default());
                    out.push('\n');
                }
                out
            }
        }
    };
    write_file(&dir.join(format!("trace-{}.json", sim.spec.name)), text + "\n")
}

/// Go's RFC 3339 with nanoseconds and a local offset, as SpanStub carries it.
fn stub_time(us: Micros) -> String {
    let t = timefmt::format_rfc3339(us);
    t.replace('Z', "+00:00")
}

fn zot_time(us: Micros, rng: &mut Rng) -> String {
    let base = timefmt::format_rfc3339(us - us.rem_euclid(S));
    let nanos = us.rem_euclid(S) * 1000 + rng.below(1000) as i64;
    format!("{}.{nanos:09}Z", base.trim_end_matches('Z'))
}

/// What a node is doing at `t`: 2 = own steps, 1 = setup/export, 0 = idle.
fn activity(sims: &[Sim], node: &str, t: Micros) -> (u8, bool) {
    let mut a = 0;
    let mut uploading = false;
    for s in sims.iter().filter(|s| s.spec.node == node) {
        if t >= s.first_step && t < s.last_step_end {
            a = a.max(2);
        } else if t >= s.start && t < s.end {
            a = a.max(1);
        }
        uploading |= s.uploads.iter().any(|u| t >= u.0 && t < u.1);
    }
    (a, uploading)
}

fn finish_file(path: &Path, mut text: Vec<u8>, in_flight: bool) -> std::io::Result<()> {
    if in_flight {
        // The producer is mid-write: the last line is cut in half.
        if let Some(last_nl) = text[..text.len().saturating_sub(1)].iter().rposition(|b| *b == b'\n') {
            let last_len = text.len() - last_nl - 1;
            text.truncate(last_nl + 1 + last_len / 2);
        }
    }
    write_file(path, text)
}

/// Every file of a generated run goes through the outputs' exclusive
/// temporary and rename, like the report's own files.
fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    perfreport::output::write_atomic(path, bytes.as_ref())
        .map(|_| ())
        .map_err(std::io::Error::other)
}

fn write_samples(
    sc: &Scenario,
    dir: &Path,
    sims: &[Sim],
    horizon: Micros,
    in_flight: bool,
    rng: &mut Rng,
) -> std::io::Result<()> {
    let mut out = Vec::new();
    let step = (sc.poll_s * 1e6) as Micros;
    struct State {
        user: f64,
        system: f64,
        idle: f64,
        iowait: f64,
        softirq: f64,
        read: f64,
        written: f64,
        rx: f64,
        tx: f64,
        mem_used: f64,
    }
    let mut states: Vec<State> = sc
        .nodes
        .iter()
        .map(|_| State {
            user: 8.0e4,
            system: 5.0e3,
            idle: 9.9e5,
            iowait: 300.0,
            softirq: 90.0,
            read: 1.2e8,
            written: 9.8e8,
            rx: 5.5e9,
            tx: 1.1e9,
            mem_used: 0.1,
        })
        .collect();
    let mut t = sc.started_at;
    let mut k = 0u64;
    while t <= horizon {
        for (i, n) in sc.nodes.iter().enumerate() {
            let (a, uploading) = activity(sims, n.name, t);
            let busy = match a {
                2 => rng.range(0.82, 0.98),
                1 => rng.range(0.04, 0.15),
                _ => rng.range(0.01, 0.03),
            };
            let cpu_s = n.cores as f64 * sc.poll_s;
            let st = &mut states[i];
            st.user += cpu_s * busy * 0.9;
            st.system += cpu_s * busy * 0.08;
            st.softirq += cpu_s * busy * 0.02;
            st.idle += cpu_s * (1.0 - busy) * 0.97;
            st.iowait += cpu_s * (1.0 - busy) * 0.03;
            // iowait is known to step backwards once in a while.
            if sc.cold && n.name == "kiln" && k == 40 {
                st.iowait -= 50.0;
            }
            st.read += if a == 2 {
                rng.range(1e6, 3e7)
            } else {
                rng.range(0.0, 1e5)
            };
            st.written += if a >= 1 {
                rng.range(5e6, 4e7)
            } else {
                rng.range(0.0, 1e5)
            };
            st.rx += if a == 2 {
                rng.range(1e5, 5e6)
            } else {
                rng.range(0.0, 1e4)
            };
            st.tx += if uploading {
                n.link_mbps * 1e6 * sc.poll_s * rng.range(0.9, 1.0)
            } else {
                rng.range(0.0, 1e4)
            };
            let mem_total = (n.mem_gib << 30) as f64;
            // Memory moves towards what the phase needs, not jumping poll to poll.
            let want = match a {
                2 => rng.range(0.6, 0.75),
                1 => rng.range(0.22, 0.28),
                _ => rng.range(0.09, 0.11),
            };
            st.mem_used += (want - st.mem_used) * 0.25;
            let used = st.mem_used;
            let load = n.cores as f64 * busy * rng.range(0.9, 1.1);
            let ts = timefmt::format_rfc3339(t + rng.below(200_000) as i64);
            let _ = writeln!(
                out,
                r#"{{"ts": "{ts}", "node": "{}", "cpu": {{"user": {:.1}, "nice": 0.0, "system": {:.1}, "idle": {:.1}, "iowait": {:.1}, "irq": 0.0, "softirq": {:.1}, "steal": 0.0}}, "mem": {{"total": {}, "available": {}}}, "disk": {{"read": {:.0}, "written": {:.0}}}, "net": {{"rx": {:.0}, "tx": {:.0}}}, "load1": {:.2}}}"#,
                n.name,
                st.user,
                st.system,
                st.idle,
                st.iowait,
                st.softirq,
                mem_total as u64,
                (mem_total * (1.0 - used)) as u64,
                st.read,
                st.written,
                st.rx,
                st.tx,
                load
            );
        }
        t += step;
        k += 1;
    }
    finish_file(&dir.join("samples.jsonl"), out, in_flight)
}

const NGINX_FORMAT: &str = r#"log_format sccache '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time';"#;

fn nginx_time(us: Micros) -> String {
    let t = jiff::Timestamp::from_microsecond(us).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    t.strftime("%d/%b/%Y:%H:%M:%S +0000").to_string()
}

fn write_sccache(
    sc: &Scenario,
    dir: &Path,
    sims: &[Sim],
    horizon: Micros,
    in_flight: bool,
    rng: &mut Rng,
) -> std::io::Result<()> {
    write_file(&dir.join("nginx-log-format"), format!("{NGINX_FORMAT}\n"))?;
    let prefix = format!("perf-{}", sc.stamp);
    let mut lines: Vec<(Micros, String)> = vec![];
    let line = |addr: &str, t: Micros, method: &str, path: &str, status: u16, sent: u64, req_len: u64, rt: f64| {
        format!(
            "{addr} - - [{}] \"{method} {path} HTTP/1.1\" {status} {sent} \"-\" \"opendal/0.52.0\" {req_len} {rt:.3}",
            nginx_time(t)
        )
    };
    for sim in sims {
        if sim.spec.compile_units == 0 {
            continue;
        }
        let t0 = sim.first_step;
        lines.push((
            t0,
            line(
                sim.addr,
                t0,
                "PUT",
                &format!("/{prefix}/.sccache_check"),
                201,
                0,
                310,
                0.002,
            ),
        ));
        lines.push((
            t0 + 1000,
            line(
                sim.addr,
                t0 + 1000,
                "GET",
                &format!("/{prefix}/.sccache_check"),
                200,
                3,
                290,
                0.001,
            ),
        ));
        // Compilations happen inside the compile steps.
        let compile: Vec<&(String, Micros, Micros, bool, String)> = sim
            .steps
            .iter()
            .filter(|s| !s.3 && (s.0.contains("bdist_wheel") || s.0.contains("build_kernels")))
            .collect();
        if compile.is_empty() {
            continue;
        }
        for u in 0..sim.spec.compile_units {
            let st = compile[(u as usize) % compile.len()];
            let t = st.1 + ((st.2 - st.1) as f64 * rng.f()) as Micros;
            let key = rng.hex(40);
            let obj = format!("/{prefix}/{}/{}/{}/{key}", &key[0..1], &key[1..2], &key[2..3]);
            if rng.f() < sc.hit_ratio {
                lines.push((
                    t,
                    line(
                        sim.addr,
                        t,
                        "GET",
                        &obj,
                        200,
                        rng.below(4_000_000) + 20_000,
                        320,
                        rng.range(0.005, 0.2),
                    ),
                ));
            } else {
                lines.push((t, line(sim.addr, t, "GET", &obj, 404, 153, 320, 0.001)));
                let tw = t + (rng.range(5.0, 60.0) * 1e6) as Micros;
                let dirp = format!("/{prefix}/{}/{}/{}/", &key[0..1], &key[1..2], &key[2..3]);
                lines.push((tw, line(sim.addr, tw, "PROPFIND", &dirp, 404, 0, 250, 0.001)));
                lines.push((
                    tw + 500,
                    line(
                        sim.addr,
                        tw + 500,
                        "MKCOL",
                        &dirp,
                        if rng.f() < 0.5 { 201 } else { 405 },
                        0,
                        240,
                        0.001,
                    ),
                ));
                let size = rng.below(6_000_000) + 30_000;
                lines.push((
                    tw + 1000,
                    line(sim.addr, tw + 1000, "PUT", &obj, 201, 0, size + 350, size as f64 / 80e6),
                ));
            }
        }
    }
    // Another run's prefix shares the server: counted apart, never as ours.
    let mut pad_bytes: u64 = lines.iter().map(|l| l.1.len() as u64 + 1).sum();
    let mut other = 0;
    while other < 25 || pad_bytes < sc.sccache_bytes {
        let t = sc.started_at + ((horizon - sc.started_at) as f64 * rng.f()) as Micros;
        let key = rng.hex(40);
        let l = line(
            "10.0.4.40",
            t,
            "GET",
            &format!("/perf-nightly/{}/{}/{}/{key}", &key[0..1], &key[1..2], &key[2..3]),
            200,
            81234,
            320,
            0.01,
        );
        pad_bytes += l.len() as u64 + 1;
        lines.push((t, l));
        other += 1;
    }
    lines.retain(|(t, _)| *t <= horizon);
    lines.sort();
    let mut out = Vec::with_capacity(pad_bytes as usize);
    for (_, l) in lines {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    finish_file(&dir.join("sccache.log"), out, in_flight)
}

#[allow(clippy::too_many_arguments)]
fn zot_request(
    rng: &mut Rng,
    t: Micros,
    old_style: bool,
    client: &str,
    method: &str,
    path: &str,
    status: u16,
    body: u64,
    content_length: Option<u64>,
    latency: &str,
) -> String {
    let time = zot_time(t, rng);
    let port = 30000 + rng.below(30000);
    let mut headers = String::from(r#""Accept-Encoding":["gzip"],"Authorization":["******"]"#);
    if let Some(n) = content_length {
        let _ = write!(headers, r#","Content-Length":["{n}"]"#);
    }
    headers.push_str(r#","User-Agent":["containerd/2.1.4+unknown"]"#);
    if old_style {
        // Older zot: level first, time and message last, `caller` written twice.
        format!(
            r#"{{"level":"info","module":"http","component":"session","clientIP":"{client}:{port}","method":"{method}","path":"{path}","statusCode":{status},"latency":"{latency}","bodySize":{body},"headers":{{{headers}}},"goroutine":{},"caller":"zotregistry.dev/zot/pkg/api/session.go:137","caller":"zotregistry.dev/zot/pkg/api/routes.go:2056","time":"{time}","message":"HTTP API"}}"#,
            100 + rng.below(900)
        )
    } else {
        format!(
            r#"{{"time":"{time}","level":"info","message":"HTTP API","module":"http","username":"fleet","component":"session","clientIP":"{client}:{port}","method":"{method}","path":"{path}","statusCode":{status},"latency":"{latency}","bodySize":{body},"headers":{{{headers}}}}}"#
        )
    }
}

fn write_zot(
    sc: &Scenario,
    dir: &Path,
    sims: &[Sim],
    horizon: Micros,
    in_flight: bool,
    rng: &mut Rng,
) -> std::io::Result<()> {
    let mut lines: Vec<(Micros, String)> = vec![];
    let old = sc.cold;
    lines.push((
        sc.started_at,
        "zot registry v2.1.2 (commit 5c7f2f0) serving on :5000".to_string(),
    ));
    for sim in sims {
        let repo = format!("rocm/{}", sim.spec.name);
        for (s, e, bytes, cache) in &sim.uploads {
            let name = if *cache { "rocm/cache".to_string() } else { repo.clone() };
            let id = rng.hex(32);
            lines.push((
                *s,
                zot_request(
                    rng,
                    *s,
                    old,
                    sim.addr,
                    "POST",
                    &format!("/v2/{name}/blobs/uploads/"),
                    202,
                    0,
                    None,
                    "1.2ms",
                ),
            ));
            let digest = rng.hex(64);
            let secs = (e - s) as f64 / 1e6;
            let latency = format!("{}m{:.1}s", (secs / 60.0).floor(), secs % 60.0);
            if sim.spec.chunked {
                // Chunked upload: no Content-Length, so the size is unknown.
                let mid = s + (e - s) / 2;
                lines.push((
                    mid,
                    zot_request(
                        rng,
                        mid,
                        old,
                        sim.addr,
                        "PATCH",
                        &format!("/v2/{name}/blobs/uploads/{id}"),
                        202,
                        0,
                        None,
                        &latency,
                    ),
                ));
                lines.push((
                    *e,
                    zot_request(
                        rng,
                        *e,
                        old,
                        sim.addr,
                        "PUT",
                        &format!("/v2/{name}/blobs/uploads/{id}?digest=sha256%3A{digest}"),
                        201,
                        0,
                        Some(0),
                        "3ms",
                    ),
                ));
            } else {
                lines.push((
                    *e,
                    zot_request(
                        rng,
                        *e,
                        old,
                        sim.addr,
                        "PUT",
                        &format!("/v2/{name}/blobs/uploads/{id}?digest=sha256%3A{digest}"),
                        201,
                        0,
                        Some(*bytes),
                        &latency,
                    ),
                ));
            }
        }
        let tm = sim.end - 200_000;
        if sim.uploads.iter().any(|u| u.3) {
            lines.push((
                tm,
                zot_request(
                    rng,
                    tm,
                    old,
                    sim.addr,
                    "PUT",
                    &format!("/v2/rocm/cache/manifests/{}", sim.spec.name),
                    201,
                    0,
                    Some(2841),
                    "2ms",
                ),
            ));
        }
        if sim.uploads.iter().any(|u| !u.3) {
            lines.push((
                tm + 1,
                zot_request(
                    rng,
                    tm + 1,
                    old,
                    sim.addr,
                    "PUT",
                    &format!("/v2/{repo}/manifests/{}", sc.stamp),
                    201,
                    0,
                    Some(1187),
                    "2ms",
                ),
            ));
        }
        // Pulling the base image at the start.
        let tp = sim.start + 2 * S;
        lines.push((
            tp,
            zot_request(
                rng,
                tp,
                old,
                sim.addr,
                "HEAD",
                "/v2/rocm/dev-ubuntu-24.04/manifests/6.4-complete",
                200,
                0,
                None,
                "310µs",
            ),
        ));
        let base = format!("/v2/rocm/dev-ubuntu-24.04/blobs/sha256:{}", rng.hex(64));
        lines.push((
            tp + 1,
            zot_request(
                rng,
                tp + 1,
                old,
                sim.addr,
                "GET",
                &base,
                200,
                1_843_000_000,
                None,
                "41.2s",
            ),
        ));
    }
    // Pull-through sync and audit messages: counted by message, not errors.
    for i in 0..6 {
        let t = sc.started_at + (i * 90 + 5) * S;
        let msg = if i % 2 == 0 {
            "syncing image"
        } else {
            "successfully synced image"
        };
        lines.push((t, format!(r#"{{"time":"{}","level":"info","message":"{msg}","module":"sync","remote":"docker.io","repo":"rocm/dev-ubuntu-24.04","reference":"6.4-complete"}}"#, zot_time(t, rng))));
    }
    // Padding for benchmarks: read traffic from the whole fleet.
    let mut total: u64 = lines.iter().map(|l| l.1.len() as u64 + 1).sum();
    let span = (horizon - sc.started_at).max(1);
    while total < sc.zot_bytes {
        let t = sc.started_at + (span as f64 * rng.f()) as Micros;
        let n = &sc.nodes[rng.below(sc.nodes.len() as u64) as usize];
        let l = if rng.f() < 0.5 {
            let old_style = rng.f() < 0.3;
            let path = format!("/v2/rocm/cache/blobs/sha256:{}", rng.hex(64));
            zot_request(rng, t, old_style, n.addr, "HEAD", &path, 200, 0, None, "96.6µs")
        } else {
            zot_request(
                rng,
                t,
                false,
                n.addr,
                "GET",
                "/v2/rocm/cache/manifests/pytorch",
                200,
                2841,
                None,
                "1.1ms",
            )
        };
        total += l.len() as u64 + 1;
        lines.push((t, l));
    }
    lines.retain(|(t, _)| *t <= horizon);
    lines.sort_by_key(|l| l.0);
    let mut out = Vec::with_capacity(total as usize);
    for (_, l) in lines {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    finish_file(&dir.join("zot.jsonl"), out, in_flight)
}

fn write_artifacts(dir: &Path, sims: &[Sim], rng: &mut Rng) -> std::io::Result<()> {
    let mut out = String::from("# target file bytes sha256\n");
    for sim in sims {
        if sim.spec.name.ends_with("-wheel")
            || ["pytorch", "vllm", "flash-attn", "torchvision", "xformers"].contains(&sim.spec.name)
        {
            let file = format!(
                "{}-2.9.0+rocm6.4-cp312-cp312-linux_x86_64.whl",
                sim.spec.name.replace('-', "_")
            );
            let _ = writeln!(
                out,
                "{} {file} {} {}",
                sim.spec.name,
                50_000_000 + rng.below(400_000_000),
                rng.hex(64)
            );
        }
    }
    write_file(&dir.join("artifacts.txt"), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        write_run(&cold_sample(), a.path()).unwrap();
        write_run(&cold_sample(), b.path()).unwrap();
        for f in [
            "run.json",
            "samples.jsonl",
            "zot.jsonl",
            "sccache.log",
            "trace-pytorch.json",
            "placement.txt",
        ] {
            assert_eq!(
                std::fs::read(a.path().join(f)).unwrap(),
                std::fs::read(b.path().join(f)).unwrap(),
                "{f}"
            );
        }
    }

    #[test]
    fn step_labels_pad_to_the_width_of_the_total() {
        let mut t = target("x", "n", 1.0, 11, 0.0, 0.0, 0, TraceEncoding::Jaeger);
        assert_eq!(step_label(&t, 3), "[builder  4/11]");
        t.label_prefix = Some("linux/amd64");
        assert_eq!(step_label(&t, 10), "[linux/amd64 final 11/11]");
    }
}
