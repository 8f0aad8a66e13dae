//! Per-target figures from a trace, exactly as the spec defines them.

use super::intervals;
use super::steps;
use crate::figures::{Measured, Missing, Value};
use crate::input::trace::Span;
use crate::timefmt::Micros;
use std::collections::{BTreeMap, HashSet};

/// One step as drawn on the timeline (hover shows its name: the command).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepBand {
    pub(crate) name: String,
    pub(crate) start: Micros,
    pub(crate) end: Micros,
    pub(crate) cached: bool,
    /// BuildKit's vertex digest, when the trace carries it.
    pub(crate) vertex: Option<String>,
}

/// The record's root span, which BuildKit writes when the record ends: what
/// its start, end and total rest on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Root {
    /// No root span: the record has not ended, or its end was lost.
    #[default]
    Missing,
    /// A root span without an end (a run in flight).
    Unended,
    Ended,
}

/// What the trace of one target says; a figure it cannot give says why.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFigures {
    pub(crate) start: Option<Micros>,
    pub(crate) end: Option<Micros>,
    /// The record has not ended (no root span, or a root without an end).
    pub(crate) open: bool,
    /// Its root span, as `open` and `why_null["total_s"]` say it.
    pub(crate) root: Root,
    pub(crate) total: Measured<Micros>,
    pub(crate) first_step: Option<Micros>,
    pub(crate) last_step_end: Option<Micros>,
    pub(crate) build: Measured<Micros>,
    pub(crate) gap: Measured<Micros>,
    /// Record start to the first step; `None` without either.
    pub(crate) setup: Option<Micros>,
    /// Last step's end to the record's end; `None` without either.
    pub(crate) export: Option<Micros>,
    /// Upload intervals, merged (concurrent uploads once).
    pub(crate) uploads: Vec<(Micros, Micros)>,
    pub(crate) upload: Measured<Micros>,
    /// Sum of request sizes on upload spans, when the trace carries them.
    pub(crate) upload_bytes_traced: Option<u64>,
    pub(crate) steps_total: u64,
    pub(crate) steps_cached: u64,
    pub(crate) steps: Vec<StepBand>,
    /// Registry calls, each counted once (not once per wrapping span).
    pub(crate) registry_calls: u64,
}

/// A trace not yet analysed: what tests start from.
impl Default for TraceFigures {
    fn default() -> Self {
        let not = || Missing("not analysed".to_string());
        TraceFigures {
            start: None,
            end: None,
            open: false,
            root: Root::default(),
            total: not(),
            first_step: None,
            last_step_end: None,
            build: not(),
            gap: not(),
            setup: None,
            export: None,
            uploads: vec![],
            upload: not(),
            upload_bytes_traced: None,
            steps_total: 0,
            steps_cached: 0,
            steps: vec![],
            registry_calls: 0,
        }
    }
}

/// Analyses the spans of one build record.
pub fn analyse(spans: &[Span]) -> TraceFigures {
    let mut f = TraceFigures::default();
    record(spans, &mut f);
    step_figures(spans, &mut f);
    upload_figures(spans, &mut f);
    f
}

/// The record's start, end and total from its root span.
fn record(spans: &[Span], f: &mut TraceFigures) {
    // The root: no parent (zero parents were normalised away by the decoder).
    // Several roots can occur when a file holds more than one record: the
    // earliest is the record, the others are reported as its children.
    let root = spans
        .iter()
        .filter(|s| s.parent.is_none())
        .min_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    match root {
        None => {
            // The root span is written when the record ends: without it the
            // record began no later than its earliest span, and has not ended.
            f.start = spans.iter().map(|s| s.start).min();
            f.open = !spans.is_empty();
            f.root = Root::Missing;
            f.total = Measured::missing("the trace has no root span (it is written when the record ends)");
        }
        Some(r) => {
            f.start = Some(r.start);
            match r.end {
                Some(e) => {
                    f.root = Root::Ended;
                    f.end = Some(e);
                    f.total = Value(e - r.start);
                }
                None => {
                    f.open = true;
                    f.root = Root::Unended;
                    f.total = Measured::missing("the root span has not ended (run in flight?)");
                }
            }
        }
    }
}

/// The steps, their counts and the time before, during and after them.
fn step_figures(spans: &[Span], f: &mut TraceFigures) {
    // Steps: distinct by vertex digest, else by name; cached when a step
    // only ever appears as `load cache:`.
    let mut ran: HashSet<String> = HashSet::new();
    let mut cached_only: BTreeMap<String, ()> = BTreeMap::new();
    let mut first: Option<Micros> = None;
    let mut last: Option<Micros> = None;
    for s in spans {
        let (step_name, cached) = if steps::is_step(&s.name) {
            (s.name.as_str(), false)
        } else if let Some(n) = steps::cached_step(&s.name) {
            (n, true)
        } else {
            continue;
        };
        let key = s.vertex.clone().unwrap_or_else(|| step_name.to_string());
        if cached {
            cached_only.insert(key, ());
        } else {
            ran.insert(key);
        }
        first = Some(first.map_or(s.start, |f| f.min(s.start)));
        if let Some(e) = s.end {
            last = Some(last.map_or(e, |l| l.max(e)));
        }
        f.steps.push(StepBand {
            name: step_name.to_string(),
            start: s.start,
            end: s.end.unwrap_or(s.start),
            cached,
            vertex: s.vertex.clone(),
        });
    }
    // A vertex that both loaded from cache and ran counts as ran.
    cached_only.retain(|k, _| !ran.contains(k));
    f.steps_total = (ran.len() + cached_only.len()) as u64;
    f.steps_cached = cached_only.len() as u64;
    f.steps
        .sort_by(|a, b| (a.start, a.end, &a.name).cmp(&(b.start, b.end, &b.name)));
    f.first_step = first;
    f.last_step_end = last;
    f.build = match (first, last) {
        (Some(a), Some(b)) => Value(b - a),
        _ => Measured::missing("the trace has no step spans"),
    };
    f.gap = match (f.total.get(), f.build.get()) {
        (Some(t), Some(b)) => Value(t - b),
        _ => Measured::missing("needs both total and build"),
    };
    f.setup = f.start.zip(first).map(|(s, fs)| fs - s);
    f.export = f.end.zip(last).map(|(e, le)| e - le);
}

/// Registry calls, upload time (the union of upload spans) and traced bytes.
fn upload_figures(spans: &[Span], f: &mut TraceFigures) {
    // Uploads: the union of upload spans. Each registry call shows as an
    // outer resolver span wrapping an inner HTTP span: count the inner one,
    // and an outer one only if it has no HTTP child.
    let http_parents: HashSet<&str> = spans
        .iter()
        .filter(|s| steps::is_http(&s.name))
        .filter_map(|s| s.parent.as_deref())
        .collect();
    let mut upload_iv = Vec::new();
    let mut bytes: Option<u64> = None;
    for s in spans {
        let counts_once =
            steps::is_http(&s.name) || (steps::is_resolver_request(&s.name) && !http_parents.contains(s.id.as_str()));
        if counts_once {
            f.registry_calls += 1;
        }
        if steps::is_upload(&s.name, s.http_method.as_deref()) {
            if let Some(e) = s.end {
                upload_iv.push((s.start, e));
            }
            if let Some(n) = s.request_bytes {
                bytes = Some(bytes.unwrap_or(0).saturating_add(n));
            }
        }
    }
    f.uploads = intervals::union(&upload_iv);
    f.upload = if spans.is_empty() {
        Measured::missing("the trace has no spans")
    } else {
        // A read trace without upload spans measured zero seconds of upload.
        Value(intervals::union_length(&upload_iv))
    };
    f.upload_bytes_traced = bytes;
}

/// A target whose time outside its own steps exceeds this share is a story.
pub(crate) const GAP_SHARE: f64 = 0.5;

/// The share of a target's time spent outside its own steps, when it is
/// over `GAP_SHARE` (the summary then names the target); `None` otherwise.
pub(crate) fn outside_share_worth_telling(total_s: f64, gap_s: f64) -> Option<f64> {
    let share = gap_s / total_s;
    (total_s > 0.0 && share > GAP_SHARE).then_some(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_a_story_when_over_half_its_time_is_outside_its_steps() {
        // triton-wheel: 39m56s of 55m45s outside its steps, 72%.
        let share = outside_share_worth_telling(3345.5, 2395.8).unwrap();
        assert!((share - 0.716).abs() < 1e-3, "{share}");
        // Exactly half is not over half; a little under is not either.
        assert_eq!(outside_share_worth_telling(100.0, 50.0), None);
        assert_eq!(outside_share_worth_telling(1523.6, 42.1), None);
        // No time at all tells nothing (and divides by nothing).
        assert_eq!(outside_share_worth_telling(0.0, 0.0), None);
        assert_eq!(outside_share_worth_telling(0.0, 5.0), None);
    }

    fn span(id: &str, parent: Option<&str>, name: &str, start_s: f64, end_s: f64) -> Span {
        Span {
            id: id.into(),
            parent: parent.map(Into::into),
            name: name.into(),
            start: (start_s * 1e6) as Micros,
            end: Some((end_s * 1e6) as Micros),
            vertex: None,
            http_method: None,
            request_bytes: None,
        }
    }

    /// The spec's cold triton-wheel, in miniature: a 2332 s record whose own
    /// steps took 948 s, with two overlapping upload bursts.
    fn cold_triton() -> Vec<Span> {
        vec![
            span("r", None, "build", 0.0, 2332.0),
            span(
                "a",
                Some("r"),
                "[internal] load build definition from Dockerfile",
                0.0,
                1.0,
            ),
            span("s1", Some("r"), "load cache: [builder 1/3] FROM rocm/dev", 10.0, 10.5),
            span("s2", Some("r"), "[builder 2/3] RUN pip wheel triton", 10.5, 900.0),
            span("s3", Some("r"), "[builder  3/3] RUN cp /wheels /out", 900.0, 958.0),
            span("e", Some("r"), "exporting cache to registry", 958.0, 2330.0),
            span("o1", Some("e"), "remotes.docker.resolver.HTTPRequest", 1000.0, 2000.0),
            span("h1", Some("o1"), "HTTP PUT", 1000.0, 2000.0),
            span("o2", Some("e"), "remotes.docker.resolver.HTTPRequest", 1500.0, 2290.0),
            span("h2", Some("o2"), "HTTP PATCH", 1500.0, 2290.0),
            span("h3", Some("e"), "HTTP HEAD", 990.0, 991.0),
        ]
    }

    #[test]
    fn total_build_gap_by_the_spec_definitions() {
        let f = analyse(&cold_triton());
        let s = |x: f64| (x * 1e6) as Micros;
        assert_eq!(f.total, Value(s(2332.0)));
        assert_eq!(f.build, Value(s(948.0)));
        assert_eq!(f.gap, Value(s(1384.0)));
        assert_eq!(f.setup, Some(s(10.0)));
        assert_eq!(f.export, Some(s(2332.0 - 958.0)));
    }

    #[test]
    fn upload_is_the_union_of_concurrent_uploads() {
        let f = analyse(&cold_triton());
        // 1000-2000 and 1500-2290 overlap: 1290 s, not 1790 s.
        assert_eq!(f.upload, Value(1_290_000_000));
        assert_eq!(f.uploads, vec![(1_000_000_000, 2_290_000_000)]);
        assert_eq!(f.upload_bytes_traced, None, "no sizes on the spans: unknown, not 0");
    }

    #[test]
    fn each_registry_call_counts_once() {
        // Two wrapped calls and one bare HEAD.
        assert_eq!(analyse(&cold_triton()).registry_calls, 3);
    }

    #[test]
    fn steps_distinct_with_cached_ones_counted() {
        let f = analyse(&cold_triton());
        assert_eq!((f.steps_total, f.steps_cached), (3, 1));
        assert!(f
            .steps
            .iter()
            .any(|s| s.cached && s.name == "[builder 1/3] FROM rocm/dev"));
    }

    #[test]
    fn sizes_on_upload_spans_are_summed() {
        let mut spans = cold_triton();
        spans[7].request_bytes = Some(4_000_000_000);
        spans[9].request_bytes = Some(2_400_000_000);
        assert_eq!(analyse(&spans).upload_bytes_traced, Some(6_400_000_000));
    }

    #[test]
    fn a_root_that_has_not_ended_gives_null_total_with_the_reason() {
        let mut spans = cold_triton();
        spans[0].end = None;
        let f = analyse(&spans);
        assert!(f.total.why().is_some_and(|w| w.contains("not ended")));
        assert!(f.gap.is_missing());
        assert!(f.open);
        assert_eq!(f.root, Root::Unended);
        assert_eq!(f.build, Value(948_000_000), "the steps are still measured");
    }

    #[test]
    fn without_a_root_the_record_starts_at_its_earliest_span_and_is_open() {
        let spans: Vec<Span> = cold_triton().into_iter().skip(1).collect();
        let f = analyse(&spans);
        assert_eq!(f.start, Some(0));
        assert!(f.open);
        assert!(f.total.is_missing());
        assert_eq!(f.root, Root::Missing);
        assert_eq!(analyse(&cold_triton()).root, Root::Ended);
    }

    #[test]
    fn a_trace_without_steps_has_null_build() {
        let f = analyse(&[span("r", None, "build", 0.0, 5.0)]);
        assert!(f.build.is_missing());
        assert_eq!(f.steps_total, 0);
        assert_eq!(f.upload, Value(0));
    }
}
