//! The benchmark's family of generated logs (`benches/family`):
//! every member is the same bytes from the same seed, and perfreport reads
//! every member of every kind as the generator wrote it (its own tally),
//! with no malformed line but those a member cuts off on purpose.

use super::{data, report};
use serde_json::Value;

// The generator itself, not a copy; the tests use a part of it.
#[allow(dead_code)]
#[path = "../../benches/family/gen.rs"]
mod gen;

const LINES: u64 = 2000;

fn bytes_of(m: &gen::Member, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    gen::generate(m, seed, gen::Size::Lines(400), gen::DEFAULT_START_US, &mut out).unwrap();
    out
}

#[test]
fn every_family_member_is_the_same_bytes_from_the_same_seed() {
    let members = gen::members();
    assert!(members.len() >= 20, "every kind has its members");
    for m in &members {
        let (a, b, other) = (bytes_of(m, 17), bytes_of(m, 17), bytes_of(m, 18));
        assert!(a.len() > 10_000, "{}/{} wrote {} bytes", m.kind.name(), m.name, a.len());
        assert!(
            a == b,
            "{}/{} differs between two runs of one seed",
            m.kind.name(),
            m.name
        );
        assert!(a != other, "{}/{} ignores its seed", m.kind.name(), m.name);
    }
}

/// A member must vary what its name says: `accept-1to6` with only
/// BuildKit's header set (which sends no `Accept`) would read as `keysets-1`.
#[test]
fn the_accept_member_writes_one_to_six_accept_values() {
    let m = gen::find(gen::Kind::Zot, "accept-1to6").expect("the member exists");
    let text = String::from_utf8(bytes_of(&m, 17)).unwrap();
    let counts: std::collections::BTreeSet<usize> = text
        .lines()
        .filter_map(|l| l.split("\"Accept\":[").nth(1))
        .map(|rest| rest.split(']').next().unwrap_or("").matches("\",\"").count() + 1)
        .collect();
    assert_eq!(counts, (1..=6).collect(), "values per Accept header");
}

/// The lanes follow the log's window, so a member whose window grew with
/// its size (53 minutes to 24 hours) would show memory growing from 30 MB to
/// 1 GB of registry log for the window's sake. Every size of a zot or
/// sccache member spans the same twelve hours, so what grows between sizes
/// is the log alone.
#[test]
fn every_size_of_a_registry_or_cache_member_spans_the_same_window() {
    for kind in [gen::Kind::Zot, gen::Kind::Sccache] {
        let m = gen::members().into_iter().find(|m| m.kind == kind).unwrap();
        let span = |lines: u64| {
            let t = gen::generate(&m, 17, gen::Size::Lines(lines), gen::DEFAULT_START_US, std::io::sink()).unwrap();
            t.last_us - t.first_us
        };
        for lines in [400, 4000] {
            let hours = span(lines) as f64 / 3.6e9;
            assert!(
                (11.9..12.1).contains(&hours),
                "{} of {lines} lines spans {hours:.2} h",
                kind.name()
            );
        }
    }
}

/// `data.json` figures that differ from what the generator says it wrote.
fn differences(m: &gen::Member, t: &gen::Tally, d: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut same = |what: &str, got: &Value, want: u64| {
        if got.as_u64() != Some(want) {
            diffs.push(format!("{what}: data.json {got}, generated {want}"));
        }
    };
    let input = &d["inputs"][m.kind.file()];
    for k in ["lines", "records", "skipped", "malformed"] {
        same(k, &input[k], t.get(k));
    }
    let (section, keys): (&str, &[&str]) = match m.kind {
        gen::Kind::Zot => (
            "zot",
            &[
                "requests",
                "reads",
                "read_bytes",
                "blob_writes",
                "manifest_writes",
                "blob_write_bytes",
                "cache_write_bytes",
                "image_write_bytes",
                "writes_unsized",
                "failed_writes",
                "not_json",
            ],
        ),
        gen::Kind::Sccache => (
            "sccache",
            &[
                "hits",
                "misses",
                "writes",
                "write_bytes",
                "writes_unsized",
                "failed_writes",
                "overhead",
                "checks",
                "other_prefix",
            ],
        ),
        gen::Kind::Samples => ("", &[]),
    };
    for k in keys {
        same(k, &d[section][k], t.get(k));
    }
    if m.kind == gen::Kind::Zot {
        let want: serde_json::Map<String, Value> = t.by_message.iter().map(|(k, v)| (k.clone(), (*v).into())).collect();
        if d["zot"]["by_message"] != Value::Object(want) {
            diffs.push(format!(
                "by_message: data.json {}, generated {:?}",
                d["zot"]["by_message"], t.by_message
            ));
        }
    }
    if m.kind == gen::Kind::Samples {
        diffs.extend(node_differences(t, d));
    }
    diffs
}

/// Each node's peaks as data.json gives them (memory to 0.1 point) against the generator's.
fn node_differences(t: &gen::Tally, d: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    for (name, want) in &t.nodes {
        let Some(n) = d["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == name.as_str())
        else {
            diffs.push(format!("node {name} missing"));
            continue;
        };
        let mem = n["mem_pct_max"].as_f64().unwrap_or(f64::NAN);
        if (mem - want["mem_pct_max"]).abs() > 0.051 {
            diffs.push(format!(
                "{name} mem_pct_max: data.json {mem}, generated {}",
                want["mem_pct_max"]
            ));
        }
        if n["load1_max"].as_f64() != want.get("load1_max").copied() {
            diffs.push(format!(
                "{name} load1_max: data.json {}, generated {:?}",
                n["load1_max"],
                want.get("load1_max")
            ));
        }
    }
    diffs
}

#[test]
fn perfreport_reads_every_family_member_as_the_generator_wrote_it() {
    let mut injected = 0;
    for m in gen::members() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let t = gen::write_run(&m, 17, gen::Size::Lines(LINES), gen::DEFAULT_START_US, &run).unwrap();
        let out = dir.path().join("out");
        let o = report(&run, &out, &["-q"]);
        assert!(
            o.status.success(),
            "{}/{}: {}",
            m.kind.name(),
            m.name,
            String::from_utf8_lossy(&o.stderr)
        );
        let d = data(&out);
        let diffs = differences(&m, &t, &d);
        assert!(diffs.is_empty(), "{}/{}: {diffs:#?}", m.kind.name(), m.name);
        // Only the lines a member cuts off on purpose are malformed.
        if m.knobs.not_json_per_mille == 0 || m.kind != gen::Kind::Zot {
            assert_eq!(t.get("malformed"), 0, "{}/{}", m.kind.name(), m.name);
        }
        injected += t.get("malformed");
        assert!(
            t.get("records") > LINES / 2,
            "{}/{} is mostly records",
            m.kind.name(),
            m.name
        );
    }
    assert!(injected > 0, "the members with cut-off lines cut some off");
}

/// Found on the `nodes-64` member: every node's memory line was drawn dash
/// by dash at full detail, a 65 MB cpu-mem.svg and a 68 MB index.html for
/// 100 MB of samples. A fleet past eight nodes shares eight nodes' detail.
#[test]
fn a_fleet_of_64_nodes_gets_a_chart_and_page_of_bounded_size() {
    let m = gen::members()
        .into_iter()
        .find(|m| m.kind == gen::Kind::Samples && m.name == "nodes-64")
        .expect("the family has nodes-64");
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    // 400 polls a node: enough for a memory line to zig-zag across the chart.
    gen::write_run(&m, 17, gen::Size::Lines(64 * 400), gen::DEFAULT_START_US, &run).unwrap();
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let size = |f: &str| std::fs::metadata(out.join(f)).unwrap().len();
    let svg = std::fs::read_to_string(out.join("charts/cpu-mem.svg")).unwrap();
    assert_eq!(
        data(&out)["nodes"].as_array().unwrap().len(),
        64,
        "every node is reported"
    );
    assert!(
        svg.matches("<polyline").count() < 5_000,
        "{} lines drawn",
        svg.matches("<polyline").count()
    );
    assert!(
        size("charts/cpu-mem.svg") <= 500_000,
        "cpu-mem.svg is {} bytes",
        size("charts/cpu-mem.svg")
    );
    assert!(
        size("index.html") <= 3_000_000,
        "index.html is {} bytes",
        size("index.html")
    );
}

/// A samples.jsonl that names thousands of nodes (a hostile file, or a
/// node name with a counter in it) must not grow the chart with them: it
/// draws the first 64 by name and says how many it left out.
#[test]
fn a_samples_file_naming_3000_nodes_draws_64_and_says_how_many_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let mut lines = String::new();
    for poll in 0..8u64 {
        for n in 0..3000u64 {
            let busy = (n * 7 + poll * 13) % 100;
            lines.push_str(&format!(
                r#"{{"ts":{},"node":"n{n:04}","cpu":{{"user":{},"idle":{}}},"mem":{{"total":100,"available":{}}}}}"#,
                1_790_000_000 + poll * 10,
                poll * 100 + busy,
                poll * 100 + 100 - busy,
                (n + poll * 31) % 100,
            ));
            lines.push('\n');
        }
    }
    std::fs::write(run.join("samples.jsonl"), lines).unwrap();
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Past the bound of 2,000 nodes a report takes, the rest are counted.
    let d = data(&out);
    assert_eq!(
        d["nodes"].as_array().unwrap().len(),
        2000,
        "the first 2000 nodes by name"
    );
    assert!(
        d["warnings"]
            .to_string()
            .contains("3000 nodes, more than the 2000 a report takes"),
        "{}",
        d["warnings"]
    );
    let svg = std::fs::read_to_string(out.join("charts/cpu-mem.svg")).unwrap();
    assert!(
        svg.contains("1936 more nodes not drawn"),
        "the chart says what it left out"
    );
    assert!(svg.len() <= 500_000, "cpu-mem.svg is {} bytes", svg.len());
}

/// A bug this pins, found at the bounds: the cold sample run beside a
/// samples.jsonl naming 3000 more nodes gave the timeline 3000 empty rows,
/// a 90,000-pixel-tall, 800 kB timeline.svg (26 MB for 100,000 nodes). The
/// timeline keeps every node that ran a target and says how many idle nodes
/// it left out.
#[test]
fn a_samples_file_naming_3000_nodes_leaves_the_idle_ones_off_the_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    super::copy_run(&super::sample(super::COLD), &run);
    let mut lines = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    for poll in 0..4u64 {
        for n in 0..3000u64 {
            lines.push_str(&format!(
                r#"{{"ts":"2026-10-20T02:0{poll}:00Z","node":"n{n:04}","cpu":{{"user":{},"idle":{}}},"mem":{{"total":100,"available":50}}}}"#,
                poll * 50,
                poll * 50,
            ));
            lines.push('\n');
        }
    }
    std::fs::write(run.join("samples.jsonl"), lines).unwrap();
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(out.join("charts/timeline.svg")).unwrap();
    assert!(svg.len() <= 500_000, "timeline.svg is {} bytes", svg.len());
    // The five sample nodes ran targets, so 59 idle rows fit in 64; of the
    // 3000 sampled ones, the 1995 that fit the bound of 2,000 nodes are in
    // the report (run.json's come first).
    assert!(
        svg.contains("1936 idle nodes not drawn"),
        "the timeline says what it left out"
    );
    for busy in ["think", "strix", "triton-wheel"] {
        assert!(svg.contains(busy), "{busy} is still on the timeline");
    }
}

/// A bug this pins, found at the bounds: eight nodes (full detail) whose memory
/// swings from empty to full at every poll drew a dash per 10 px of a
/// zig-zag line, a 13 MB cpu-mem.svg and index.html. Full detail keeps
/// every point but shares the fleet's dashes.
#[test]
fn eight_nodes_with_a_zig_zag_memory_line_keep_cpu_mem_svg_under_500_kb() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let mut lines = String::new();
    for n in 0..8u64 {
        for poll in 0..2000u64 {
            lines.push_str(&format!(
                r#"{{"ts":{},"node":"n{n}","cpu":{{"user":{},"idle":{}}},"mem":{{"total":100,"available":{}}}}}"#,
                1_790_000_000 + poll,
                poll * 50,
                poll * 50,
                if poll % 2 == 0 { 0 } else { 100 },
            ));
            lines.push('\n');
        }
    }
    std::fs::write(run.join("samples.jsonl"), lines).unwrap();
    let out = dir.path().join("out");
    let o = report(&run, &out, &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(out.join("charts/cpu-mem.svg")).unwrap();
    assert!(svg.len() <= 500_000, "cpu-mem.svg is {} bytes", svg.len());
    let size = std::fs::metadata(out.join("index.html")).unwrap().len();
    assert!(size <= 3_000_000, "index.html is {size} bytes");
    // Every node is still drawn, memory dashed.
    for n in 0..8 {
        assert!(svg.contains(&format!(">\nn{n}\n<")), "n{n} is in the legend");
    }
}

/// A bug this pins: the cache lanes drew every 10 s bucket of a 12-hour
/// run, about five to a pixel column, a 1.1 MB cache-lanes.svg in report.md
/// and the page. Each column's lowest and highest draw the same picture.
#[test]
fn a_twelve_hour_run_draws_its_cache_lanes_in_under_500_kb() {
    let run = super::twelve_hour_run();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &["-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(out.path());
    let buckets = d["sccache"]["series"].as_array().unwrap().len();
    assert!(buckets > 4000, "data.json keeps every 10 s bucket: {buckets}");
    let svg = std::fs::read_to_string(out.path().join("charts/cache-lanes.svg")).unwrap();
    assert!(svg.len() <= 500_000, "cache-lanes.svg is {} bytes", svg.len());
}
