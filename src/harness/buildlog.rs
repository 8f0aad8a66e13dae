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
    pub target: String,
    pub steps_total: u64,
    pub steps_cached: u64,
    /// `null` when the target's step printed no stats (it was layer-cached, say).
    pub sccache_requests: Option<u64>,
    pub sccache_hits: Option<u64>,
    pub sccache_misses: Option<u64>,
    /// Where the counters came from, or why they are missing; starts with
    /// "guess:" when neither a vertex nor a stats-file marker tied them.
    pub sccache_source: String,
}

#[derive(Debug, Default, Clone)]
struct Block {
    vertex: Option<u64>,
    marker: Option<String>,
    requests: Option<u64>,
    hits: Option<u64>,
    misses: Option<u64>,
}

#[derive(Debug, Default)]
struct Vertex {
    label: Option<String>,
    cached: bool,
}

/// `#12 rest` -> (12, rest)
fn vertex_of(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix('#')?;
    let end = rest.find(' ')?;
    let n = rest[..end].parse().ok()?;
    Some((n, &rest[end + 1..]))
}

/// The counter a stats line carries: `Compile requests   5684` (but not
/// `Compile requests executed`), `Cache hits 5674` (not `Cache hits (C/C++)`).
fn counter(text: &str) -> Option<(&'static str, u64)> {
    let text = text.trim();
    for (name, key) in [
        ("Compile requests", "requests"),
        ("Cache hits", "hits"),
        ("Cache misses", "misses"),
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

pub fn analyse(log: &str, target: &str) -> BuildLogFigures {
    let mut vertices: BTreeMap<u64, Vertex> = BTreeMap::new();
    let mut blocks: Vec<Block> = vec![];
    let mut any_prefix = false;
    for line in log.lines() {
        let (vertex, rest) = match vertex_of(line) {
            Some((n, rest)) => {
                any_prefix = true;
                (Some(n), rest)
            }
            None => (None, line),
        };
        if let Some(n) = vertex {
            let v = vertices.entry(n).or_default();
            if v.label.is_none() && rest.starts_with('[') {
                v.label = Some(rest.to_string());
                continue;
            }
            if rest.trim() == "CACHED" {
                v.cached = true;
                continue;
            }
        }
        let text = without_elapsed(rest);
        if text.contains("sccache-stats") {
            blocks.push(Block {
                vertex,
                marker: Some(text.trim().to_string()),
                ..Default::default()
            });
            continue;
        }
        if let Some((key, value)) = counter(text) {
            let needs_new = match blocks.last() {
                None => true,
                Some(b) => {
                    b.vertex != vertex
                        || match key {
                            "requests" => b.requests.is_some(),
                            "hits" => b.hits.is_some(),
                            _ => b.misses.is_some(),
                        }
                }
            };
            if needs_new {
                blocks.push(Block {
                    vertex,
                    ..Default::default()
                });
            }
            if let Some(b) = blocks.last_mut() {
                match key {
                    "requests" => b.requests = Some(value),
                    "hits" => b.hits = Some(value),
                    _ => b.misses = Some(value),
                }
            }
        }
    }
    blocks.retain(|b| b.requests.is_some() || b.hits.is_some() || b.misses.is_some());

    // The target's steps: with bake prefixes, those whose first word is the target.
    let labelled: Vec<(u64, &Vertex, &str)> = vertices
        .iter()
        .filter_map(|(n, v)| v.label.as_deref().filter(|l| steps::is_step(l)).map(|l| (*n, v, l)))
        .collect();
    let bake = labelled.iter().any(|(_, _, l)| label_words(l).len() >= 2);
    let mine: Vec<&(u64, &Vertex, &str)> = labelled
        .iter()
        .filter(|(_, _, l)| !bake || label_words(l).first() == Some(&target))
        .collect();
    let mut distinct: BTreeMap<&str, bool> = BTreeMap::new();
    for (_, v, l) in &mine {
        let id = l.split(']').next().unwrap_or(l);
        let e = distinct.entry(id).or_insert(true);
        *e &= v.cached;
    }
    let mut out = BuildLogFigures {
        target: target.to_string(),
        steps_total: distinct.len() as u64,
        steps_cached: distinct.values().filter(|c| **c).count() as u64,
        ..Default::default()
    };

    let my_vertices: Vec<u64> = mine.iter().map(|(n, _, _)| *n).collect();
    let in_my_steps: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.vertex.is_some_and(|v| my_vertices.contains(&v)))
        .collect();
    fn by_marker<'b>(pool: &[&'b Block], target: &str) -> Option<&'b Block> {
        pool.iter()
            .copied()
            .find(|b| b.marker.as_deref().is_some_and(|m| mentions(m, target)))
    }
    let label_of = |v: Option<u64>| {
        v.and_then(|n| vertices.get(&n))
            .and_then(|x| x.label.clone())
            .map(|l| format!("#{} {l}", v.unwrap_or(0)))
            .unwrap_or_default()
    };
    let chosen: Option<(&Block, String)> = if !in_my_steps.is_empty() {
        if let Some(b) = by_marker(&in_my_steps, target) {
            Some((
                b,
                format!(
                    "step {} (stats file {})",
                    label_of(b.vertex),
                    b.marker.as_deref().unwrap_or("")
                ),
            ))
        } else if in_my_steps.len() == 1 {
            Some((in_my_steps[0], format!("step {}", label_of(in_my_steps[0].vertex))))
        } else {
            let b = in_my_steps[in_my_steps.len() - 1];
            Some((b, format!("guess: {} stats blocks in the target's steps and no stats-file marker naming it; took the one in {}", in_my_steps.len(), label_of(b.vertex))))
        }
    } else if let Some(b) = by_marker(&blocks.iter().collect::<Vec<_>>(), target) {
        Some((b, format!("stats file {}", b.marker.as_deref().unwrap_or(""))))
    } else if !any_prefix && blocks.len() == 1 {
        Some((
            &blocks[0],
            "guess: the log has no vertex numbers and no stats-file marker; took its only stats block".to_string(),
        ))
    } else {
        None
    };
    match chosen {
        Some((b, source)) => {
            out.sccache_requests = b.requests;
            out.sccache_hits = b.hits;
            out.sccache_misses = b.misses;
            out.sccache_source = source;
        }
        None => {
            out.sccache_source = if mine.iter().all(|(_, v, _)| v.cached) && !mine.is_empty() {
                "none: every step of the target was layer-cached, so no compile ran and no counters were printed".into()
            } else if blocks.is_empty() {
                "none: the log holds no sccache stats".into()
            } else {
                format!(
                    "none: {} stats blocks in the log, none in the target's own steps",
                    blocks.len()
                )
            };
        }
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
}
