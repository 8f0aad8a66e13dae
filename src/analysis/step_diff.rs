//! Which steps made a target's time move between two runs: its steps matched
//! by vertex digest, else by name without numbering, padding, platform or
//! bake target (`steps::match_key`), largest change first.

use super::steps;
use crate::figures::secs_ms;
use crate::timefmt::Micros;
use serde::Serialize;

pub(crate) use crate::figures::Step as StepRecord;

impl StepRecord {
    fn key(&self) -> String {
        steps::match_key(&self.name).unwrap_or_else(|| self.name.clone())
    }

    /// Its place in its Dockerfile (`builder 5`), whatever its command:
    /// what matches a step whose command changed.
    fn place(&self) -> Option<String> {
        steps::place(&self.name)
    }
}

/// The steps of one target, one record per step: the spans of one vertex
/// (else one name) summed, ran when any of them ran. In order of first
/// appearance. Input: (name, vertex, microseconds, cached) per span.
pub(crate) fn records<'a, I>(spans: I) -> Vec<StepRecord>
where
    I: IntoIterator<Item = (&'a str, Option<&'a str>, Micros, bool)>,
{
    let mut out: Vec<StepRecord> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (name, vertex, us, cached) in spans {
        let id = vertex.map_or_else(|| format!("name:{name}"), |v| format!("vertex:{v}"));
        let us = us.max(0);
        match at.get(&id) {
            Some(&i) => {
                let r = &mut out[i];
                // A vertex that ran and also loaded from cache counts as ran:
                // its time is the running one.
                match (r.ran, !cached) {
                    (false, true) => (r.us, r.ran) = (us, true),
                    (x, y) if x == y => r.us = r.us.saturating_add(us),
                    _ => {}
                }
                if !cached {
                    r.name = name.to_string();
                }
            }
            None => {
                at.insert(id, out.len());
                out.push(StepRecord {
                    name: name.to_string(),
                    vertex: vertex.map(str::to_string),
                    us,
                    ran: !cached,
                });
            }
        }
    }
    out
}

/// The `limit` records that took longest, longest first (ties by name).
pub(crate) fn slowest(records: &[StepRecord], limit: usize) -> Vec<StepRecord> {
    let mut v = records.to_vec();
    v.sort_by(|a, b| b.us.cmp(&a.us).then_with(|| a.name.cmp(&b.name)));
    v.truncate(limit);
    v
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StepState {
    Ran,
    Cached,
    Absent,
}

impl StepState {
    fn of(r: Option<&StepRecord>) -> StepState {
        match r {
            None => StepState::Absent,
            Some(r) if r.ran => StepState::Ran,
            Some(_) => StepState::Cached,
        }
    }
}

/// One step matched across runs A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StepChange {
    /// Its name in B, else in A.
    pub(crate) step: String,
    /// `null` where the step is absent.
    pub(crate) a_s: Option<f64>,
    pub(crate) b_s: Option<f64>,
    /// B − A, an absent step counting 0 s.
    pub(crate) delta_s: f64,
    pub(crate) a: StepState,
    pub(crate) b: StepState,
    /// `null` where either trace lacks digests or the step is on one side only.
    pub(crate) vertex_changed: Option<bool>,
    /// Cached in A, ran in B under the same vertex.
    pub(crate) layer_cache_miss: bool,
    /// Its name in A, when its command changed (matched by its stage and
    /// position, `[builder 5/11]`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) command_was: Option<String>,
}

impl StepChange {
    /// Why it moved, in words: "vertex changed", "layer-cache miss", "new step"...
    pub(crate) fn cause(&self) -> Option<&'static str> {
        match (self.a, self.b, self.vertex_changed) {
            _ if self.layer_cache_miss => Some("layer-cache miss"),
            _ if self.command_was.is_some() => Some("command changed"),
            (StepState::Absent, _, _) => Some("new step"),
            (_, StepState::Absent, _) => Some("step gone"),
            (StepState::Ran, StepState::Cached, Some(false)) => Some("came from the layer cache"),
            (_, _, Some(true)) => Some("vertex changed"),
            (StepState::Cached, StepState::Ran, None) => Some("cached before, ran now"),
            (StepState::Ran, StepState::Cached, None) => Some("ran before, cached now"),
            _ => None,
        }
    }
}

fn change(a: Option<&StepRecord>, b: Option<&StepRecord>, vertex_changed: Option<bool>) -> StepChange {
    let (sa, sb) = (StepState::of(a), StepState::of(b));
    let command_was = match (a, b) {
        (Some(a), Some(b)) if a.key() != b.key() => Some(a.name.clone()),
        _ => None,
    };
    StepChange {
        command_was,
        step: b.or(a).map(|r| r.name.clone()).unwrap_or_default(),
        a_s: a.map(|r| secs_ms(r.us)),
        b_s: b.map(|r| secs_ms(r.us)),
        delta_s: secs_ms(b.map_or(0, |r| r.us) - a.map_or(0, |r| r.us)),
        a: sa,
        b: sb,
        vertex_changed,
        layer_cache_miss: sa == StepState::Cached && sb == StepState::Ran && vertex_changed == Some(false),
    }
}

/// Every step of A and B matched, largest change first (ties by name).
/// `a_kept_all`/`b_kept_all`: whether a side holds all its steps; a step
/// missing from a side that kept only its slowest is left out rather than
/// called absent.
pub(crate) fn diff_kept(a: &[StepRecord], b: &[StepRecord], a_kept_all: bool, b_kept_all: bool) -> Vec<StepChange> {
    use std::collections::{HashMap, VecDeque};
    let mut used_b = vec![false; b.len()];
    let mut pair: Vec<Option<usize>> = vec![None; a.len()];
    // B's steps by vertex and by key, each in order (a big build has thousands).
    let mut by_vertex: HashMap<&str, VecDeque<usize>> = HashMap::new();
    let mut by_key: HashMap<String, VecDeque<usize>> = HashMap::new();
    for (j, rb) in b.iter().enumerate() {
        if let Some(v) = &rb.vertex {
            by_vertex.entry(v.as_str()).or_default().push_back(j);
        }
        by_key.entry(rb.key()).or_default().push_back(j);
    }
    let take = |queue: Option<&mut VecDeque<usize>>, used: &mut [bool]| {
        let q = queue?;
        while let Some(j) = q.pop_front() {
            if !used[j] {
                used[j] = true;
                return Some(j);
            }
        }
        None
    };
    // By vertex first.
    for (i, ra) in a.iter().enumerate() {
        if let Some(v) = &ra.vertex {
            pair[i] = take(by_vertex.get_mut(v.as_str()), &mut used_b);
        }
    }
    // Then by name without numbering.
    for (i, ra) in a.iter().enumerate() {
        if pair[i].is_none() {
            pair[i] = take(by_key.get_mut(&ra.key()), &mut used_b);
        }
    }
    // Then by stage and position: the same step with another command.
    let mut by_place: HashMap<String, VecDeque<usize>> = HashMap::new();
    for (j, rb) in b.iter().enumerate().filter(|(j, _)| !used_b[*j]) {
        if let Some(p) = rb.place() {
            by_place.entry(p).or_default().push_back(j);
        }
    }
    for (i, ra) in a.iter().enumerate() {
        if pair[i].is_none() {
            if let Some(p) = ra.place() {
                pair[i] = take(by_place.get_mut(&p), &mut used_b);
            }
        }
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    for (i, ra) in a.iter().enumerate() {
        match pair[i] {
            Some(j) => {
                let rb = &b[j];
                let vc = match (&ra.vertex, &rb.vertex) {
                    (Some(x), Some(y)) => Some(x != y),
                    _ => None,
                };
                out.push(change(Some(ra), Some(rb), vc));
            }
            None if b_kept_all => out.push(change(Some(ra), None, None)),
            None => {}
        }
    }
    if a_kept_all {
        for (j, rb) in b.iter().enumerate() {
            if !used_b[j] {
                out.push(change(None, Some(rb), None));
            }
        }
    }
    out.sort_by(|x, y| {
        y.delta_s
            .abs()
            .total_cmp(&x.delta_s.abs())
            .then_with(|| x.step.cmp(&y.step))
    });
    out
}

/// Every step of A and B matched, largest change first.
pub(crate) fn diff(a: &[StepRecord], b: &[StepRecord]) -> Vec<StepChange> {
    diff_kept(a, b, true, true)
}

/// The share, in percent, of a target's change that the first `top` steps
/// explain (their changes summed); `None` when the target did not move.
pub(crate) fn explained_pct(steps: &[StepChange], target_delta_s: f64, top: usize) -> Option<f64> {
    if !target_delta_s.is_finite() || target_delta_s.abs() < 1e-9 {
        return None;
    }
    let sum: f64 = steps.iter().take(top).map(|s| s.delta_s).sum();
    Some((1000.0 * sum / target_delta_s).round() / 10.0).filter(|p| p.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, vertex: Option<&str>, s: f64, ran: bool) -> StepRecord {
        StepRecord {
            name: name.into(),
            vertex: vertex.map(Into::into),
            us: (s * 1e6).round() as Micros,
            ran,
        }
    }

    #[test]
    fn spans_of_one_vertex_are_one_step_and_running_beats_loading() {
        let r = records([
            ("[builder 1/2] FROM x", Some("v1"), 500_000, true),
            ("[builder 2/2] RUN make", Some("v2"), 100_000, true),
            ("[builder 2/2] RUN make", Some("v2"), 1_000_000, false),
            ("[builder 1/2] FROM x", Some("v1"), 2_000_000, false),
            ("[lint 1/1] RUN check", None, 3_000_000, false),
            ("[lint 1/1] RUN check", None, 4_000_000, false),
        ]);
        assert_eq!(
            r,
            vec![
                rec("[builder 1/2] FROM x", Some("v1"), 2.0, true),
                rec("[builder 2/2] RUN make", Some("v2"), 1.0, true),
                rec("[lint 1/1] RUN check", None, 7.0, true),
            ]
        );
    }

    #[test]
    fn renumbered_padded_and_prefixed_steps_match_by_name_without_digests() {
        let a = [
            rec("[builder 4/11] RUN make", None, 100.0, true),
            rec("[builder 5/11] RUN strip", None, 10.0, true),
        ];
        let b = [
            rec("[linux/amd64->arm64 pytorch builder  5/12] RUN make", None, 160.0, true),
            rec("[builder 6/12] RUN strip", None, 11.0, true),
        ];
        let d = diff(&a, &b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].step, "[linux/amd64->arm64 pytorch builder  5/12] RUN make");
        assert_eq!((d[0].a_s, d[0].b_s, d[0].delta_s), (Some(100.0), Some(160.0), 60.0));
        assert_eq!(d[0].vertex_changed, None, "no digests: unknown, not false");
        assert_eq!(d[1].delta_s, 1.0);
    }

    #[test]
    fn a_vertex_match_wins_over_a_name_and_a_changed_vertex_says_so() {
        // The same command under a new digest (its inputs changed), and a
        // step renamed by its stage but with the same digest.
        let a = [
            rec("[builder 8/11] RUN python setup.py", Some("old"), 420.0, true),
            rec("[base 1/2] FROM rocm", Some("same"), 1.0, true),
        ];
        let b = [
            rec("[builder 8/11] RUN python setup.py", Some("new"), 560.0, true),
            rec("[deps 1/2] FROM rocm", Some("same"), 1.0, true),
        ];
        let d = diff(&a, &b);
        assert_eq!(d[0].vertex_changed, Some(true));
        assert_eq!(d[0].cause(), Some("vertex changed"));
        assert_eq!(d[0].delta_s, 140.0);
        assert_eq!(
            (d[1].step.as_str(), d[1].vertex_changed),
            ("[deps 1/2] FROM rocm", Some(false))
        );
    }

    #[test]
    fn cached_then_ran_under_the_same_vertex_is_a_layer_cache_miss() {
        let a = [rec("[builder 3/4] RUN pip install", Some("v"), 0.2, false)];
        let b = [rec("[builder 3/4] RUN pip install", Some("v"), 300.0, true)];
        let d = diff(&a, &b);
        assert_eq!((d[0].a, d[0].b), (StepState::Cached, StepState::Ran));
        assert!(d[0].layer_cache_miss);
        assert_eq!(d[0].cause(), Some("layer-cache miss"));
        // Under a new vertex it ran because its inputs changed: no miss.
        let b = [rec("[builder 3/4] RUN pip install", Some("w"), 300.0, true)];
        assert!(!diff(&a, &b)[0].layer_cache_miss);
    }

    #[test]
    fn a_step_on_one_side_only_is_absent_on_the_other() {
        let a = [rec("[b 1/2] RUN old", None, 5.0, true)];
        let b = [rec("[b 1/3] RUN new", None, 50.0, true)];
        let d = diff(&a, &b);
        assert_eq!(d[0].step, "[b 1/3] RUN new");
        assert_eq!((d[0].a, d[0].a_s, d[0].delta_s), (StepState::Absent, None, 50.0));
        assert_eq!((d[1].b, d[1].b_s, d[1].delta_s), (StepState::Absent, None, -5.0));
        assert_eq!(d[0].cause(), Some("new step"));
        // A side that kept only its slowest steps does not call one absent.
        assert_eq!(diff_kept(&a, &b, false, true).len(), 1);
    }

    #[test]
    fn the_top_steps_explain_a_share_of_the_targets_change() {
        let a = [
            rec("[b 1/2] RUN x", None, 100.0, true),
            rec("[b 2/2] RUN y", None, 10.0, true),
        ];
        let b = [
            rec("[b 1/2] RUN x", None, 180.0, true),
            rec("[b 2/2] RUN y", None, 30.0, true),
        ];
        let d = diff(&a, &b);
        assert_eq!(explained_pct(&d, 100.0, 1), Some(80.0));
        assert_eq!(explained_pct(&d, 100.0, 3), Some(100.0));
        assert_eq!(explained_pct(&d, 0.0, 3), None);
    }

    #[test]
    fn a_step_whose_command_changed_is_one_step_that_says_so() {
        let a = [
            rec("[builder 4/11] RUN make", None, 100.0, true),
            rec(
                "[builder 5/11] RUN git clone x && git checkout 3f9c2e1a",
                Some("v1"),
                30.0,
                true,
            ),
        ];
        let b = [
            rec("[builder 4/11] RUN make", None, 100.0, true),
            rec(
                "[builder 5/11] RUN git clone x && git checkout 8d01b6c5",
                Some("v2"),
                60.0,
                true,
            ),
        ];
        let d = diff(&a, &b);
        assert_eq!(d.len(), 2, "one step each, not absent and new: {d:?}");
        let c = &d[0];
        assert_eq!(c.step, "[builder 5/11] RUN git clone x && git checkout 8d01b6c5");
        assert_eq!(
            c.command_was.as_deref(),
            Some("[builder 5/11] RUN git clone x && git checkout 3f9c2e1a")
        );
        assert_eq!((c.a_s, c.b_s, c.delta_s), (Some(30.0), Some(60.0), 30.0));
        assert_eq!(c.cause(), Some("command changed"));
        assert_eq!(d[1].command_was, None);
    }

    #[test]
    fn slowest_keeps_the_longest_first() {
        let r = [
            rec("a", None, 1.0, true),
            rec("b", None, 9.0, true),
            rec("c", None, 5.0, false),
        ];
        let names: Vec<String> = slowest(&r, 2).into_iter().map(|r| r.name).collect();
        assert_eq!(names, ["b", "c"]);
    }
}
