//! The cache lanes: the compiler cache's and the registry's totals, their
//! series per bucket over the window, and why a lane draws less than the
//! totals (records far outside the window, a window too long to draw).

use super::{human_bytes, secs, NodeView, SccacheNodeLane, SccachePoint, SccacheView, ZotNodeLane, ZotPoint, ZotView};
use crate::analysis::window;
use crate::figures::{Figures, Measured};
use crate::input::InputReport;
use crate::measure::context::Context;
use crate::measured::explained::Reasons;
use crate::model::{self, Run};
use crate::timefmt::{self, Micros, MICROS_PER_SEC};
use std::collections::BTreeMap;

pub(super) struct Lanes {
    pub(crate) sccache: SccacheView,
    pub(crate) zot: ZotView,
    /// The warning for registry writes that lasted beyond the window.
    pub(crate) zot_clamped: Option<String>,
}

pub(super) fn build(cx: &Context, f: &Figures, far: &BTreeMap<&'static str, FarRecords>, nodes: &[NodeView]) -> Lanes {
    let (run, window) = (cx.run, cx.window);
    let mut sccache = sccache_view(run, &f.sccache, cx.t0, window, nodes);
    let (mut zot, zot_clamped) = zot_view(run, &f.zot, cx.t0, window, nodes);
    // What a lane leaves out of its input's totals, said on the lane.
    if sccache.why.is_none() {
        sccache.lane_why = lane_reason(
            far.get(model::SCCACHE),
            !sccache.series.is_empty(),
            window,
            sccache.bucket_s,
        );
    }
    if zot.why.is_none() {
        zot.lane_why = lane_reason(far.get(model::ZOT), !zot.series.is_empty(), window, zot.bucket_s);
    }
    Lanes {
        sccache,
        zot,
        zot_clamped,
    }
}

/// The inputs' own warnings about the lanes, beside their statistics.
pub(super) fn warn_inputs(
    inputs: &mut BTreeMap<String, InputReport>,
    zot_clamped: Option<String>,
    far: &BTreeMap<&'static str, FarRecords>,
) {
    if let (Some(w), Some(zot)) = (zot_clamped, inputs.get_mut(model::ZOT)) {
        zot.warnings.push(w);
    }
    for (name, f) in far {
        if let Some(i) = inputs.get_mut(*name) {
            i.warnings.push(f.warning.clone());
        }
    }
}

/// An input's records far outside the run's window, and what is said of them.
#[derive(Debug, Clone)]
pub(super) struct FarRecords {
    /// For the lane: "3 writes (1.2 MB) lie outside ...".
    lane: String,
    pub(crate) warning: String,
}

/// An instant to the minute, as a window is read.
fn to_minute(t: Micros) -> String {
    let s = timefmt::format_rfc3339(t);
    match s.get(..16) {
        Some(m) if s.len() > 16 => format!("{m}Z"),
        _ => s,
    }
}

/// The day of an instant, or the instant where the day cannot be cut out.
fn day(t: Micros) -> String {
    let s = timefmt::format_rfc3339(t);
    s.get(..10).map(str::to_string).unwrap_or(s)
}

/// Every timed input's records far outside the window (more than
/// `window::FAR`): they cannot be this run's, so they are not drawn, not in
/// the lanes and not tied to any target. With run.json's start the logs
/// left such records out as they were read and the held polls were dropped
/// (`model::keep_to_window`), so what is found here are the samples'
/// summarised spans, or a run whose window only its traces make: the
/// input's totals still count those, which the warning says.
pub(super) fn far_records(run: &Run, w: (Micros, Micros)) -> BTreeMap<&'static str, FarRecords> {
    let mut out = BTreeMap::new();
    let span = format!("{} – {}", to_minute(w.0), to_minute(w.1));
    let mut say = |input: &'static str, what: &str, o: window::Outside, bytes: Option<u64>, counted: &str| {
        let when = if day(o.first) == day(o.last) {
            format!("on {}", day(o.first))
        } else {
            format!("from {} to {}", day(o.first), day(o.last))
        };
        let (noun, verb) = if o.records == 1 {
            (what.trim_end_matches('s'), "lies")
        } else {
            (what, "lie")
        };
        let n = crate::fmt::count(o.records);
        let warning = format!(
            "{input}: {n} {noun} {when} {verb} outside the run's window ({span}) by more than an hour: not drawn, not in the lanes; {counted}"
        );
        let bytes = bytes
            .map(|b| format!(" ({})", human_bytes(b as f64)))
            .unwrap_or_default();
        let lane = format!("{n} {noun}{bytes} {when} {verb} outside the run's window by more than an hour");
        out.insert(input, FarRecords { lane, warning });
    };
    let held = run
        .samples
        .by_node
        .values()
        .flat_map(|v| v.polls.iter())
        .map(|s| (s.ts, 1));
    // Summarised polls count by span, and only a span wholly far out.
    let summarised = run
        .samples
        .by_node
        .values()
        .filter_map(|v| v.summary.as_ref())
        .flat_map(|m| m.spans.iter())
        .filter(|sp| window::span_is_far(sp.first, sp.last, w))
        .flat_map(|sp| [(sp.first, 1), (sp.last, sp.polls.saturating_sub(1))]);
    if let Some(o) = window::outside(held.chain(summarised), w) {
        say(
            run.samples_input(),
            "samples",
            o,
            None,
            "the nodes' CPU and memory figures still count them",
        );
    }
    if let Some(s) = &run.sccache {
        let bucket = crate::input::BUCKET_SECS * 1_000_000;
        let timed = s
            .log
            .series
            .iter()
            .map(|(b, v)| (b.saturating_mul(bucket), v.hits + v.misses + v.writes));
        if let Some(o) = window::outside(timed, w) {
            say(
                model::SCCACHE,
                "cache requests",
                o,
                None,
                "the compiler-cache totals are the whole file's and still count them",
            );
        }
    }
    if let Some(z) = &run.zot {
        let writes = z.all_writes();
        if let Some(o) = window::outside_spans(writes.clone().map(|e| (e.first, e.last, e.writes)), w) {
            let bytes = writes
                .filter(|e| window::is_far(e.first, w, false))
                .map(|e| e.bytes)
                .fold(0u64, u64::saturating_add);
            say(model::ZOT, "writes", o, Some(bytes), "not tied to any target; the registry totals (and the Registry table) are the whole file's and still count them");
        }
    }
    out
}

/// Why a lane draws less than its input's totals, or `None` when it draws them all.
fn lane_reason(
    far: Option<&FarRecords>,
    drawn: bool,
    window: Option<(Micros, Micros)>,
    bucket_s: i64,
) -> Option<String> {
    let mut why = vec![];
    if let Some(f) = far {
        why.push(f.lane.clone());
    }
    if !drawn {
        if let Some(w) = window.filter(|w| (w.1 - w.0) / (bucket_s * 1_000_000) > MAX_BUCKETS) {
            why.push(format!(
                "the run's window ({}) is too long to draw in {bucket_s} s buckets",
                timefmt::human_duration(secs(w.1 - w.0))
            ));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Buckets at most in a dense series (12 hours of 10 s buckets is 4,320).
const MAX_BUCKETS: i64 = 100_000;

/// The buckets a lane draws: every bucket of the window (or of the data,
/// without one); `None` when there is nothing to draw or the span is too
/// wide to draw bucket by bucket.
fn drawn_buckets(data: Option<(i64, i64)>, bucket_s: i64, window: Option<(Micros, Micros)>) -> Option<(i64, i64)> {
    let width = bucket_s * 1_000_000;
    let extent = match window {
        Some((a, b)) => Some((a.div_euclid(width), b.div_euclid(width))),
        None => data,
    };
    match extent {
        Some((lo, hi)) if data.is_some() && hi - lo <= MAX_BUCKETS => Some((lo, hi)),
        _ => None,
    }
}

/// Every bucket of the window (or of the data, without one): a present log
/// with no request in a bucket measured zero there, and a chart line must
/// not jump across the empty buckets. Events outside the window still count
/// in the totals but are not drawn.
fn dense<V: Default + Clone>(
    series: &BTreeMap<i64, V>,
    bucket_s: i64,
    window: Option<(Micros, Micros)>,
) -> impl Iterator<Item = (i64, V)> + '_ {
    let (lo, hi) = dense_range(series, bucket_s, window);
    (lo..=hi).map(move |b| (b, series.get(&b).cloned().unwrap_or_default()))
}

/// The buckets `dense` walks for `series` (an empty range: nothing to draw).
fn dense_range<V>(series: &BTreeMap<i64, V>, bucket_s: i64, window: Option<(Micros, Micros)>) -> (i64, i64) {
    let data = series.keys().next().copied().zip(series.keys().next_back().copied());
    drawn_buckets(data, bucket_s, window).unwrap_or((1, 0))
}

/// A node's address, by which its own requests are found in the logs.
fn addr(n: &NodeView) -> Option<&str> {
    n.addr.value().map(String::as_str)
}

fn sccache_view(
    run: &Run,
    totals: &Measured<crate::figures::SccacheFigures>,
    t0: Micros,
    window: Option<(Micros, Micros)>,
    nodes: &[NodeView],
) -> SccacheView {
    let bucket_s = crate::input::BUCKET_SECS;
    let (Some(s), Some(t)) = (&run.sccache, totals.value()) else {
        return SccacheView {
            present: run.input(model::SCCACHE).is_some_and(|i| i.present),
            why: totals.why().map(str::to_string),
            bucket_s,
            ..Default::default()
        };
    };
    let l = &s.log;
    // Each node's lane over the same buckets as the fleet's.
    let (lo, hi) = dense_range(&l.series, bucket_s, window);
    let by_node = nodes
        .iter()
        .filter_map(|n| Some((n, l.node_series(addr(n)?)?)))
        .map(|(n, series)| {
            let at = |b: i64| series.get(&b).copied().unwrap_or_default();
            SccacheNodeLane {
                node: n.name.clone(),
                hits: (lo..=hi).map(|b| at(b).hits).collect(),
                misses: (lo..=hi).map(|b| at(b).misses).collect(),
                writes: (lo..=hi).map(|b| at(b).writes).collect(),
            }
        })
        .collect();
    let series: Vec<SccachePoint> = dense(&l.series, bucket_s, window)
        .map(|(b, v)| SccachePoint {
            t_s: secs(b * bucket_s * 1_000_000 - t0),
            hits: v.hits,
            misses: v.misses,
            writes: v.writes,
            // Without $request_length no write has a size: unknown, not 0.
            write_bytes: (s.sizes_known && v.writes_unsized == 0).then_some(v.write_bytes),
        })
        .collect();
    let mut why_null = Reasons::new();
    if series.iter().any(|p| p.write_bytes.is_none()) {
        why_null.insert(
            "series.write_bytes".into(),
            format!(
                "a write in the bucket carried no size: {}",
                t.write_bytes.why().unwrap_or_default()
            ),
        );
    }
    SccacheView {
        present: true,
        why: None,
        hits: Some(t.hits),
        misses: Some(t.misses),
        writes: Some(t.writes),
        write_bytes: Some(t.write_bytes.clone()),
        hit_ratio: Some(t.hit_ratio.clone()),
        writes_unsized: Some(t.writes_unsized),
        failed_writes: Some(t.failed_writes),
        overhead: Some(t.overhead),
        checks: Some(t.checks),
        other_prefix: Some(t.other_prefix),
        bucket_s,
        series,
        by_node,
        lane_why: None,
        why_null,
    }
}

/// The registry's view, and the warning for writes that lasted beyond the
/// window (drawn only inside it).
fn zot_view(
    run: &Run,
    totals: &Measured<crate::figures::ZotFigures>,
    t0: Micros,
    window: Option<(Micros, Micros)>,
    nodes: &[NodeView],
) -> (ZotView, Option<String>) {
    let bucket_s = crate::input::BUCKET_SECS;
    let (Some(z), Some(t)) = (&run.zot, totals.value()) else {
        let view = ZotView {
            present: run.input(model::ZOT).is_some_and(|i| i.present),
            why: totals.why().map(str::to_string),
            bucket_s,
            ..Default::default()
        };
        return (view, None);
    };
    let (lane, clamped) = z.lane_within(window);
    let drawn = drawn_buckets(lane.extent(), bucket_s, window);
    let series = drawn
        .map(|(lo, hi)| {
            lane.buckets(lo, hi)
                .map(|(b, v)| ZotPoint {
                    t_s: secs(b * bucket_s * 1_000_000 - t0),
                    cache_bytes: v.cache_bytes,
                    image_bytes: v.image_bytes,
                })
                .collect()
        })
        .unwrap_or_default();
    let by_node = drawn.map(|b| zot_node_lanes(z, nodes, window, b)).unwrap_or_default();
    let clamped = clamped_warning(&clamped);
    let view = ZotView {
        present: true,
        why: None,
        requests: Some(t.requests),
        blob_write_bytes: Some(t.blob_write_bytes),
        cache_write_bytes: Some(t.cache_write_bytes),
        image_write_bytes: Some(t.image_write_bytes),
        manifest_writes: Some(t.manifest_writes),
        blob_writes: Some(t.blob_writes),
        writes_unsized: Some(t.writes_unsized),
        failed_writes: Some(t.failed_writes),
        reads: Some(t.reads),
        read_bytes: Some(t.read_bytes.clone()),
        not_json: Some(t.not_json),
        by_message: t.by_message.clone(),
        bucket_s,
        series,
        by_node,
        lane_why: None,
        why_null: Reasons::new(),
    };
    (view, clamped)
}

/// Each node's own lane of registry writes over the buckets `lo..hi`, the
/// same as the registry's.
fn zot_node_lanes(
    z: &crate::input::zot::ZotLog,
    nodes: &[NodeView],
    window: Option<(Micros, Micros)>,
    (lo, hi): (i64, i64),
) -> Vec<ZotNodeLane> {
    nodes
        .iter()
        .filter_map(|n| Some((n, z.node_lane_within(addr(n)?, window)?)))
        .map(|(n, lane)| {
            let (cache_bytes, image_bytes) = lane
                .buckets(lo, hi)
                .map(|(_, v)| (v.cache_bytes, v.image_bytes))
                .unzip();
            ZotNodeLane {
                node: n.name.clone(),
                cache_bytes,
                image_bytes,
            }
        })
        .collect()
}

/// The warning for writes that lasted beyond the window, when any did.
fn clamped_warning(clamped: &crate::input::zot::Clamped) -> Option<String> {
    let n = clamped.writes;
    (n > 0).then(|| {
        format!(
            "{}: {} lasted beyond the run's window (the longest {}): clamped to it on the registry lane",
            model::ZOT,
            crate::fmt::counted(n, "write request", "write requests"),
            timefmt::human_duration(clamped.longest as f64 / MICROS_PER_SEC)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_are_dense_inside_the_window_only() {
        let mut series = BTreeMap::new();
        series.insert(3i64, 7u64);
        // An event two years outside the window is not drawn bucket by bucket.
        series.insert(6_000_000i64, 1u64);
        let window = Some((0, 60 * 1_000_000));
        let d: Vec<(i64, u64)> = dense(&series, 10, window).collect();
        assert_eq!(d, vec![(0, 0), (1, 0), (2, 0), (3, 7), (4, 0), (5, 0), (6, 0)]);
        // Without a window, a span too wide to draw is not drawn at all.
        assert_eq!(dense(&series, 10, None).count(), 0);
    }
}
