//! The figures `bench.sh` scrapes from a BuildKit plain-progress build log,
//! following the rules learned the hard way: a step is a vertex labelled
//! `[n/m]`; cached means that vertex said `CACHED`; the sccache counters are
//! those of the target's own step, tied by BuildKit's vertex number, never
//! simply the first or last stats block (a PyTorch build prints its own and
//! Triton's).

use crate::analysis::steps;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BuildLogFigures {
    pub(crate) target: String,
    pub(crate) steps_total: u64,
    pub(crate) steps_cached: u64,
    /// `null` when the target's step printed no stats (it was layer-cached, say).
    pub(crate) sccache_requests: Option<u64>,
    pub(crate) sccache_hits: Option<u64>,
    pub(crate) sccache_misses: Option<u64>,
    /// Where the counters came from, or why they are missing; starts with
    /// "guess:" when neither a vertex nor a stats-file marker tied them.
    pub(crate) sccache_source: String,
}

#[derive(Debug, Default, Clone)]
struct Block {
    vertex: Option<u64>,
    marker: Option<String>,
    requests: Option<u64>,
    hits: Option<u64>,
    misses: Option<u64>,
}

impl Block {
    fn slot(&mut self, counter: Counter) -> &mut Option<u64> {
        match counter {
            Counter::Requests => &mut self.requests,
            Counter::Hits => &mut self.hits,
            Counter::Misses => &mut self.misses,
        }
    }

    fn has(&self, counter: Counter) -> bool {
        match counter {
            Counter::Requests => self.requests.is_some(),
            Counter::Hits => self.hits.is_some(),
            Counter::Misses => self.misses.is_some(),
        }
    }

    fn has_any(&self) -> bool {
        self.requests.is_some() || self.hits.is_some() || self.misses.is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counter {
    Requests,
    Hits,
    Misses,
}

#[derive(Debug, Default)]
struct Vertex {
    label: Option<String>,
    cached: bool,
}

/// What one pass over the log finds: BuildKit's vertices and the stats blocks.
#[derive(Debug, Default)]
struct Scan {
    vertices: BTreeMap<u64, Vertex>,
    /// Only blocks with at least one counter.
    blocks: Vec<Block>,
    /// Whether any line carried a vertex number (`#12 ...`).
    any_prefix: bool,
}

/// A step of the target: its vertex number, the vertex and its label.
type Step<'a> = (u64, &'a Vertex, &'a str);

/// `#12 rest` -> (12, rest)
fn vertex_of(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix('#')?;
    let end = rest.find(' ')?;
    let n = rest[..end].parse().ok()?;
    Some((n, &rest[end + 1..]))
}

/// The counter a stats line carries: `Compile requests   5684` (but not
/// `Compile requests executed`), `Cache hits 5674` (not `Cache hits (C/C++)`).
fn counter(text: &str) -> Option<(Counter, u64)> {
    let text = text.trim();
    for (name, key) in [
        ("Compile requests", Counter::Requests),
        ("Cache hits", Counter::Hits),
        ("Cache misses", Counter::Misses),
    ] {
        if let Some(rest) = text.strip_prefix(name) {
            let rest = rest.trim();
            if let Ok(n) = rest.parse() {
                return Some((key, n));
            }
        }
    }
    None
}

/// Drops BuildKit's elapsed-time column (`178.7 `) from a vertex's output line.
fn without_elapsed(rest: &str) -> &str {
    match rest.split_once(' ') {
        Some((t, tail)) if t.parse::<f64>().is_ok() => tail,
        _ => rest,
    }
}

/// The words of a step label inside its brackets, without the `n/m` and platforms.
fn label_words(label: &str) -> Vec<&str> {
    let inner = label.trim_start_matches('[').split(']').next().unwrap_or("");
    let mut words: Vec<&str> = inner.split_whitespace().collect();
    words.pop();
    words.retain(|w| !w.contains('/'));
    words
}

fn mentions(marker: &str, target: &str) -> bool {
    marker.contains(target)
        || target
            .split('-')
            .next()
            .is_some_and(|head| head.len() > 2 && marker.contains(head))
}

/// Reads a vertex's first `[...]` line as its label and a `CACHED` line as
/// its state; true when the line said nothing else.
fn note_vertex(vertices: &mut BTreeMap<u64, Vertex>, n: u64, rest: &str) -> bool {
    let v = vertices.entry(n).or_default();
    if v.label.is_none() && rest.starts_with('[') {
        v.label = Some(rest.to_string());
        return true;
    }
    if rest.trim() == "CACHED" {
        v.cached = true;
        return true;
    }
    false
}

/// A counter joins the last block while that block is of the same vertex and
/// lacks it; otherwise it starts a new block (the next `--show-stats`).
fn add_counter(blocks: &mut Vec<Block>, vertex: Option<u64>, counter: Counter, value: u64) {
    let joins_last = blocks.last().is_some_and(|b| b.vertex == vertex && !b.has(counter));
    if !joins_last {
        blocks.push(Block {
            vertex,
            ..Default::default()
        });
    }
    if let Some(b) = blocks.last_mut() {
        *b.slot(counter) = Some(value);
    }
}

/// One pass over the log: vertices with their labels and cached state, and
/// the stats blocks, each opened by a stats-file marker or a counter.
fn scan(log: &str) -> Scan {
    let mut scan = Scan::default();
    for line in log.lines() {
        let (vertex, rest) = match vertex_of(line) {
            Some((n, rest)) => (Some(n), rest),
            None => (None, line),
        };
        if let Some(n) = vertex {
            scan.any_prefix = true;
            if note_vertex(&mut scan.vertices, n, rest) {
                continue;
            }
        }
        let text = without_elapsed(rest);
        if text.contains("sccache-stats") {
            scan.blocks.push(Block {
                vertex,
                marker: Some(text.trim().to_string()),
                ..Default::default()
            });
        } else if let Some((counter, value)) = counter(text) {
            add_counter(&mut scan.blocks, vertex, counter, value);
        }
    }
    scan.blocks.retain(Block::has_any);
    scan
}

/// The target's steps: every step when the log is one image's, and with bake
/// prefixes (`[pytorch builder 1/11]`), those whose first word is the target.
fn target_steps<'a>(vertices: &'a BTreeMap<u64, Vertex>, target: &str) -> Vec<Step<'a>> {
    let labelled: Vec<Step> = vertices
        .iter()
        .filter_map(|(n, v)| v.label.as_deref().filter(|l| steps::is_step(l)).map(|l| (*n, v, l)))
        .collect();
    let bake = labelled.iter().any(|(_, _, l)| label_words(l).len() >= 2);
    labelled
        .into_iter()
        .filter(|(_, _, l)| !bake || label_words(l).first() == Some(&target))
        .collect()
}

/// (total, cached) over distinct steps (`[... n/m]`): a step shown by two
/// vertices counts once, and is cached only if every one of them was.
fn step_counts(mine: &[Step]) -> (u64, u64) {
    let mut distinct: BTreeMap<&str, bool> = BTreeMap::new();
    for (_, v, l) in mine {
        let id = l.split(']').next().unwrap_or(l);
        let e = distinct.entry(id).or_insert(true);
        *e &= v.cached;
    }
    (distinct.len() as u64, distinct.values().filter(|c| **c).count() as u64)
}

fn by_marker<'b>(pool: &[&'b Block], target: &str) -> Option<&'b Block> {
    pool.iter()
        .copied()
        .find(|b| b.marker.as_deref().is_some_and(|m| mentions(m, target)))
}

/// `#32 [pytorch builder 10/11] RUN ...`, or empty for an unlabelled vertex.
fn vertex_label(vertices: &BTreeMap<u64, Vertex>, v: Option<u64>) -> String {
    v.and_then(|n| vertices.get(&n))
        .and_then(|x| x.label.clone())
        .map(|l| format!("#{} {l}", v.unwrap_or(0)))
        .unwrap_or_default()
}

/// Among the blocks printed inside the target's steps: the one whose stats
/// file names the target, else the only one, else (a guess) the last.
fn choose_in_steps<'b>(
    in_steps: &[&'b Block],
    target: &str,
    label: impl Fn(Option<u64>) -> String,
) -> (&'b Block, String) {
    if let Some(b) = by_marker(in_steps, target) {
        let marker = b.marker.as_deref().unwrap_or("");
        return (b, format!("step {} (stats file {marker})", label(b.vertex)));
    }
    let last = in_steps[in_steps.len() - 1];
    if in_steps.len() == 1 {
        return (last, format!("step {}", label(last.vertex)));
    }
    (
        last,
        format!(
            "guess: {} stats blocks in the target's steps and no stats-file marker naming it; took the one in {}",
            in_steps.len(),
            label(last.vertex)
        ),
    )
}

/// The target's stats block and where it came from: tied by vertex, else by
/// the stats file's name anywhere, else the only block of an unnumbered log.
fn choose_block<'s>(scan: &'s Scan, mine: &[Step], target: &str) -> Option<(&'s Block, String)> {
    let my_vertices: Vec<u64> = mine.iter().map(|(n, _, _)| *n).collect();
    let in_steps: Vec<&Block> = scan
        .blocks
        .iter()
        .filter(|b| b.vertex.is_some_and(|v| my_vertices.contains(&v)))
        .collect();
    if !in_steps.is_empty() {
        return Some(choose_in_steps(&in_steps, target, |v| vertex_label(&scan.vertices, v)));
    }
    let all: Vec<&Block> = scan.blocks.iter().collect();
    if let Some(b) = by_marker(&all, target) {
        return Some((b, format!("stats file {}", b.marker.as_deref().unwrap_or(""))));
    }
    (!scan.any_prefix && scan.blocks.len() == 1).then(|| {
        (
            &scan.blocks[0],
            "guess: the log has no vertex numbers and no stats-file marker; took its only stats block".to_string(),
        )
    })
}

/// Why the target has no counters.
fn why_no_counters(mine: &[Step], blocks: &[Block]) -> String {
    if mine.iter().all(|(_, v, _)| v.cached) && !mine.is_empty() {
        "none: every step of the target was layer-cached, so no compile ran and no counters were printed".into()
    } else if blocks.is_empty() {
        "none: the log holds no sccache stats".into()
    } else {
        format!(
            "none: {} stats blocks in the log, none in the target's own steps",
            blocks.len()
        )
    }
}

pub fn analyse(log: &str, target: &str) -> BuildLogFigures {
    let scan = scan(log);
    let mine = target_steps(&scan.vertices, target);
    let (steps_total, steps_cached) = step_counts(&mine);
    let mut out = BuildLogFigures {
        target: target.to_string(),
        steps_total,
        steps_cached,
        ..Default::default()
    };
    match choose_block(&scan, &mine, target) {
        Some((b, source)) => {
            out.sccache_requests = b.requests;
            out.sccache_hits = b.hits;
            out.sccache_misses = b.misses;
            out.sccache_source = source;
        }
        None => out.sccache_source = why_no_counters(&mine, &scan.blocks),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bake build of pytorch that also builds triton: both print stats.
    const BAKE: &str = "\
#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 2.34kB done
#1 DONE 0.0s

#5 [pytorch builder  1/11] FROM docker.io/rocm/dev@sha256:abc
#5 CACHED

#6 [triton builder 1/3] FROM docker.io/rocm/dev@sha256:abc
#6 CACHED

#12 [pytorch builder  4/11] RUN pip install -r requirements.txt
#12 DONE 12.2s

#20 [triton builder 2/3] RUN python setup.py bdist_wheel
#20 400.1 + sccache --show-stats
#20 400.2 Compile requests                    812
#20 400.2 Compile requests executed           800
#20 400.2 Cache hits                          700
#20 400.2 Cache hits (C/C++)                  700
#20 400.2 Cache misses                        100
#20 DONE 401.0s

#32 [pytorch builder 10/11] RUN cd /src/pytorch && python setup.py bdist_wheel
#32 0.512 + cat /wheels-triton-sccache-stats.txt
#32 0.513 Compile requests                     812
#32 0.513 Cache hits                           700
#32 0.513 Cache misses                         100
#32 178.6 + cat /opt/pytorch/sccache-stats.txt
#32 178.7 Compile requests                    5684
#32 178.7 Cache hits                          5674
#32 178.7 Cache misses                          10
#32 DONE 180.2s

#40 exporting to image
#40 DONE 3.1s
";

    #[test]
    fn the_counters_are_the_targets_own_step_and_its_own_stats_file() {
        let f = analyse(BAKE, "pytorch");
        assert_eq!(
            (f.sccache_requests, f.sccache_hits, f.sccache_misses),
            (Some(5684), Some(5674), Some(10))
        );
        assert!(
            f.sccache_source.contains("#32") && f.sccache_source.contains("/opt/pytorch"),
            "{}",
            f.sccache_source
        );
        // Steps: 1/11 (cached), 4/11, 10/11 of pytorch; triton's and the exporter are not its steps.
        assert_eq!((f.steps_total, f.steps_cached), (3, 1));
    }

    #[test]
    fn another_bake_target_gets_its_own_step() {
        let f = analyse(BAKE, "triton");
        assert_eq!(f.sccache_hits, Some(700));
        assert_eq!((f.steps_total, f.steps_cached), (2, 1));
    }

    #[test]
    fn a_layer_cached_step_has_null_counters_not_zero() {
        let log = "#5 [builder 1/2] FROM x\n#5 CACHED\n#6 [builder 2/2] RUN make\n#6 CACHED\n";
        let f = analyse(log, "pytorch");
        assert_eq!((f.steps_total, f.steps_cached), (2, 2));
        assert_eq!(f.sccache_hits, None);
        assert!(f.sccache_source.contains("layer-cached"), "{}", f.sccache_source);
    }

    #[test]
    fn without_vertex_numbers_the_marker_decides_and_without_either_it_is_a_guess() {
        let marked = "+ cat /wheels-triton-sccache-stats.txt\nCache hits 7\n+ cat /opt/pytorch/sccache-stats.txt\nCache hits 9\n";
        assert_eq!(analyse(marked, "pytorch").sccache_hits, Some(9));
        let bare = "Compile requests 10\nCache hits 9\nCache misses 1\n";
        let f = analyse(bare, "pytorch");
        assert_eq!(f.sccache_hits, Some(9));
        assert!(f.sccache_source.starts_with("guess:"), "{}", f.sccache_source);
    }

    #[test]
    fn loading_the_dockerfile_metadata_and_exporting_are_not_steps() {
        let f = analyse("#1 [internal] load metadata for x\n#1 DONE 0.1s\n#2 exporting to image\n#3 [builder 1/1] RUN true\n#3 DONE 0.1s\n", "x");
        assert_eq!((f.steps_total, f.steps_cached), (1, 0));
    }

    #[test]
    fn a_step_shown_by_two_vertices_counts_once_and_is_cached_only_if_both_were() {
        let log = "#3 [builder 1/2] RUN a\n#3 CACHED\n#4 [builder 1/2] RUN a\n#4 DONE 1.0s\n\
                   #5 [builder 2/2] RUN b\n#5 CACHED\n#6 [builder 2/2] RUN b\n#6 CACHED\n";
        let f = analyse(log, "x");
        assert_eq!((f.steps_total, f.steps_cached), (2, 1));
    }

    #[test]
    fn the_counters_are_the_totals_not_their_breakdowns() {
        assert_eq!(counter("  Compile requests   5684 "), Some((Counter::Requests, 5684)));
        assert_eq!(counter("Compile requests executed 800"), None);
        assert_eq!(counter("Cache hits (C/C++) 700"), None);
        assert_eq!(counter("Cache misses 10"), Some((Counter::Misses, 10)));
    }

    #[test]
    fn a_repeated_counter_in_the_same_step_starts_a_new_stats_block() {
        let log = "#3 [b 1/1] RUN a\n#3 1.0 Compile requests 5\n#3 1.0 Cache hits 4\n\
                   #3 2.0 Compile requests 8\n#3 2.0 Cache hits 6\n#4 2.0 Cache misses 2\n";
        let blocks = scan(log).blocks;
        let seen: Vec<_> = blocks
            .iter()
            .map(|b| (b.vertex, b.requests, b.hits, b.misses))
            .collect();
        assert_eq!(
            seen,
            [
                (Some(3), Some(5), Some(4), None),
                (Some(3), Some(8), Some(6), None),
                (Some(4), None, None, Some(2))
            ]
        );
    }

    #[test]
    fn several_unmarked_blocks_in_the_targets_steps_take_the_last_and_say_it_is_a_guess() {
        let log = "#3 [builder 1/1] RUN a\n#3 1.0 Cache hits 4\n#3 2.0 Cache hits 6\n";
        let f = analyse(log, "x");
        assert_eq!(f.sccache_hits, Some(6));
        assert!(
            f.sccache_source
                .starts_with("guess: 2 stats blocks in the target's steps"),
            "{}",
            f.sccache_source
        );
    }

    #[test]
    fn stats_only_outside_the_targets_steps_are_not_its_counters() {
        let log = "#3 [builder 1/1] RUN a\n#3 DONE 1.0s\n#9 other\n#9 1.0 Cache hits 4\n";
        let f = analyse(log, "x");
        assert_eq!(f.sccache_hits, None);
        assert_eq!(
            f.sccache_source,
            "none: 1 stats blocks in the log, none in the target's own steps"
        );
    }

    #[test]
    fn a_stats_file_naming_the_targets_first_word_is_the_targets() {
        assert!(mentions("+ cat /opt/pytorch/sccache-stats.txt", "pytorch-rocm"));
        assert!(!mentions("+ cat /opt/vllm/sccache-stats.txt", "pytorch-rocm"));
        // A head of two letters is too short to tell targets apart.
        assert!(!mentions("+ cat /opt/ai/sccache-stats.txt", "ai-x"));
    }
}
