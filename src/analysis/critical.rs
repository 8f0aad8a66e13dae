//! The critical path as a chain: from the run's last finish back through
//! what each target could not start before — its `after=` dependency, or
//! the target ahead of it in its node's queue — and every target's slack,
//! how much later it could have ended without moving the run's end.
//!
//! A constraint binds a target only if it ended before the target started
//! (within `TOLERANCE`, for the nodes' clocks): a dependency that was still
//! running when the target started was not waited for.

use crate::timefmt::{Micros, MICROS_PER_SEC};
use std::collections::{BTreeMap, BTreeSet};

/// How far a constraint's end may lie after the start of the target that
/// waited for it: the nodes' clocks disagree by a little.
pub(crate) const TOLERANCE: Micros = 5 * 1_000_000;

/// A target's ended record with what placement.txt says of its order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OrderedRecord<'a> {
    pub(crate) target: &'a str,
    pub(crate) node: Option<&'a str>,
    pub(crate) start: Micros,
    pub(crate) end: Micros,
    /// placement.txt's `queue=`: the order on its node.
    pub(crate) queue: Option<u32>,
    /// placement.txt's `after=`: the target it may not start before.
    pub(crate) after: Option<&'a str>,
}

/// Why a target could not start earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Its `after=` dependency.
    After,
    /// The target ahead of it in its node's queue.
    Queue,
}

impl Wait {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Wait::After => "after",
            Wait::Queue => "queue",
        }
    }
}

/// What bound a target's start.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Binding {
    pub(crate) waited_for: String,
    pub(crate) how: Wait,
    /// From when it was otherwise ready (the window's start, or its other
    /// constraint's end) to its start.
    pub(crate) wait: Micros,
}

/// One link of the chain, earliest first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChainLink {
    pub(crate) target: String,
    pub(crate) node: Option<String>,
    pub(crate) start: Micros,
    pub(crate) end: Micros,
    pub(crate) binding: Option<Binding>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CriticalChain {
    /// The chain that ends at the run's last finish, earliest first.
    pub(crate) chain: Vec<ChainLink>,
    /// Seconds each target could have ended later without moving the run's end.
    pub(crate) slack_s: BTreeMap<String, f64>,
}

/// The constraints of each job, as indices: its `after=` dependency and
/// the one ahead of it in its node's queue, each only if it ended before
/// the job started.
fn constraints(jobs: &[OrderedRecord]) -> Vec<Vec<(usize, Wait)>> {
    let index: BTreeMap<&str, usize> = jobs.iter().enumerate().map(|(i, j)| (j.target, i)).collect();
    let mut by_node: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, j) in jobs.iter().enumerate() {
        if let Some(n) = j.node {
            by_node.entry(n).or_default().push(i);
        }
    }
    let mut ahead: Vec<Option<usize>> = vec![None; jobs.len()];
    for queue in by_node.values_mut() {
        // The queue's order where placement.txt gives it, else the order they started.
        queue.sort_by_key(|&i| (jobs[i].queue.is_none(), jobs[i].queue, jobs[i].start, jobs[i].target));
        for pair in queue.windows(2) {
            ahead[pair[1]] = Some(pair[0]);
        }
    }
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            let mut c = vec![];
            let dep = j.after.and_then(|a| index.get(a).copied()).filter(|&d| d != i);
            c.extend(dep.map(|d| (d, Wait::After)));
            if let Some(q) = ahead[i].filter(|q| Some(*q) != dep) {
                c.push((q, Wait::Queue));
            }
            c.retain(|&(k, _)| jobs[k].end <= j.start.saturating_add(TOLERANCE));
            c
        })
        .collect()
}

/// The constraint that ended last (the explicit dependency on a tie), and
/// how long the job waited for it from `origin` or its other constraint's end.
fn binding(jobs: &[OrderedRecord], i: usize, cons: &[(usize, Wait)], origin: Micros) -> Option<(usize, Binding)> {
    let &(k, how) = cons.iter().max_by_key(|&&(k, how)| (jobs[k].end, how == Wait::After))?;
    let ready = cons
        .iter()
        .filter(|&&(o, _)| o != k)
        .map(|&(o, _)| jobs[o].end)
        .fold(origin, Micros::max);
    Some((
        k,
        Binding {
            waited_for: jobs[k].target.to_string(),
            how,
            wait: (jobs[i].start - ready).max(0),
        },
    ))
}

/// The chain ending at the last finish and every job's slack. `origin` is
/// the run window's start (what a job with nothing ahead of it waits from).
pub(crate) fn critical(jobs: &[OrderedRecord], origin: Micros) -> CriticalChain {
    let Some(last) = (0..jobs.len()).max_by(|&a, &b| (jobs[a].end, jobs[b].target).cmp(&(jobs[b].end, jobs[a].target)))
    else {
        return CriticalChain::default();
    };
    let cons = constraints(jobs);
    let bindings: Vec<Option<(usize, Binding)>> = (0..jobs.len()).map(|i| binding(jobs, i, &cons[i], origin)).collect();
    let mut chain = vec![];
    let mut seen = BTreeSet::new();
    let mut at = Some(last);
    while let Some(i) = at.filter(|i| seen.insert(*i)) {
        let j = &jobs[i];
        chain.push(ChainLink {
            target: j.target.to_string(),
            node: j.node.map(str::to_string),
            start: j.start,
            end: j.end,
            binding: bindings[i].as_ref().map(|b| b.1.clone()),
        });
        at = bindings[i].as_ref().map(|b| b.0);
    }
    chain.reverse();
    let run_end = jobs[last].end;
    // Who waits on each job, and the end of what bound each of them.
    let mut waiters: Vec<Vec<usize>> = vec![vec![]; jobs.len()];
    for (s, c) in cons.iter().enumerate() {
        for &(k, _) in c {
            waiters[k].push(s);
        }
    }
    let bound_end: Vec<Option<Micros>> = bindings.iter().map(|b| b.as_ref().map(|b| jobs[b.0].end)).collect();
    let mut slack: Vec<Option<Micros>> = vec![None; jobs.len()];
    // Latest end first: a waiter starts no earlier than (TOLERANCE before)
    // what it waited for ended, so it is mostly settled first; a cycle of
    // clock-skewed records is cut where it closes.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((jobs[i].end, jobs[i].target)));
    for &i in &order {
        slack[i] = Some(slack_of(
            i,
            jobs,
            &waiters,
            &bound_end,
            &mut slack,
            run_end,
            &mut BTreeSet::new(),
        ));
    }
    let slack_s = jobs
        .iter()
        .zip(slack)
        .map(|(j, s)| (j.target.to_string(), s.unwrap_or(0) as f64 / MICROS_PER_SEC))
        .collect();
    CriticalChain { chain, slack_s }
}

/// A job may end as late as the run's end, and no later than lets each
/// waiter keep its end: up to what bound the waiter (free), then the
/// waiter's own slack.
fn slack_of(
    i: usize,
    jobs: &[OrderedRecord],
    waiters: &[Vec<usize>],
    bound_end: &[Option<Micros>],
    memo: &mut [Option<Micros>],
    run_end: Micros,
    visiting: &mut BTreeSet<usize>,
) -> Micros {
    if let Some(s) = memo[i] {
        return s;
    }
    if !visiting.insert(i) {
        return run_end - jobs[i].end;
    }
    let mut s = (run_end - jobs[i].end).max(0);
    for &w in &waiters[i] {
        let free = (bound_end[w].unwrap_or(jobs[i].end) - jobs[i].end).max(0);
        let theirs = slack_of(w, jobs, waiters, bound_end, memo, run_end, visiting);
        s = s.min(free.saturating_add(theirs));
    }
    visiting.remove(&i);
    memo[i] = Some(s);
    s
}

/// A target waiting on its node for its `after=` dependency.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Waiting<'a> {
    pub(crate) target: &'a str,
    pub(crate) node: &'a str,
    pub(crate) from: Micros,
    pub(crate) until: Micros,
}

/// When each node's targets waited for their `after=` dependency: from
/// `origin` (from the dependency's own start when it ran on the same node)
/// until the target started (or its dependency ended, give or take
/// `TOLERANCE`, if that was sooner), by node. A dependency still running
/// when the target started was not waited for.
pub(crate) fn dependency_waits<'a>(jobs: &[OrderedRecord<'a>], origin: Micros) -> Vec<Waiting<'a>> {
    let by_name: BTreeMap<&str, &OrderedRecord> = jobs.iter().map(|j| (j.target, j)).collect();
    let mut out = vec![];
    for j in jobs {
        let (Some(node), Some(dep)) = (j.node, j.after.and_then(|a| by_name.get(a))) else {
            continue;
        };
        if dep.target == j.target || dep.end > j.start.saturating_add(TOLERANCE) {
            continue;
        }
        let from = if dep.node == Some(node) {
            dep.start.max(origin)
        } else {
            origin
        };
        let until = j.start.min(dep.end.saturating_add(TOLERANCE));
        if until > from {
            out.push(Waiting {
                target: j.target,
                node,
                from,
                until,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;

    fn job<'a>(
        target: &'a str,
        node: &'a str,
        start: i64,
        end: i64,
        queue: u32,
        after: Option<&'a str>,
    ) -> OrderedRecord<'a> {
        OrderedRecord {
            target,
            node: Some(node),
            start: start * S,
            end: end * S,
            queue: Some(queue),
            after,
        }
    }

    /// A small fleet's run: pytorch on strix (0-1000 s), triton-wheel on wifi
    /// after it (1001-3333 s), a queue on strix behind pytorch, and a short
    /// target on a third node.
    fn run() -> Vec<OrderedRecord<'static>> {
        vec![
            job("pytorch", "strix", 0, 1000, 0, None),
            job("triton-wheel", "wifi", 1001, 3333, 0, Some("pytorch")),
            job("rccl-tests", "strix", 1002, 1200, 1, None),
            job("aiter", "anvil", 0, 600, 0, None),
        ]
    }

    #[test]
    fn the_chain_follows_after_back_from_the_last_finish() {
        let c = critical(&run(), 0);
        let names: Vec<&str> = c.chain.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(names, ["pytorch", "triton-wheel"]);
        assert_eq!(c.chain[0].binding, None);
        let b = c.chain[1].binding.as_ref().unwrap();
        assert_eq!(
            (b.waited_for.as_str(), b.how, b.wait),
            ("pytorch", Wait::After, 1001 * S)
        );
    }

    #[test]
    fn slack_is_zero_on_the_chain_and_what_a_waiter_leaves_elsewhere() {
        let c = critical(&run(), 0);
        assert_eq!(c.slack_s["pytorch"], 0.0);
        assert_eq!(c.slack_s["triton-wheel"], 0.0);
        // Nobody waits on these: up to the run's end.
        assert_eq!(c.slack_s["rccl-tests"], 2133.0);
        assert_eq!(c.slack_s["aiter"], 2733.0);
    }

    #[test]
    fn the_queue_ahead_binds_when_it_ended_after_the_dependency() {
        // c waits for a (after=, ends 100) and for b ahead of it on n (ends 300):
        // b bound it, and it waited from a's end.
        let jobs = vec![
            job("a", "m", 0, 100, 0, None),
            job("b", "n", 0, 300, 0, None),
            job("c", "n", 302, 500, 1, Some("a")),
        ];
        let c = critical(&jobs, 0);
        let names: Vec<&str> = c.chain.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(names, ["b", "c"]);
        let b = c.chain[1].binding.as_ref().unwrap();
        assert_eq!((b.waited_for.as_str(), b.how, b.wait), ("b", Wait::Queue, 202 * S));
        // a could end up to b's end (300) before c would start later.
        assert_eq!(c.slack_s["a"], 200.0);
        assert_eq!(c.slack_s["b"], 0.0);
    }

    #[test]
    fn a_dependency_still_running_when_the_target_started_was_not_waited_for() {
        // b says after=a but started while a ran: nothing bound b.
        let jobs = vec![job("a", "m", 0, 500, 0, None), job("b", "n", 100, 900, 0, Some("a"))];
        let c = critical(&jobs, 0);
        assert_eq!(c.chain.len(), 1);
        assert_eq!((c.chain[0].target.as_str(), &c.chain[0].binding), ("b", &None));
        assert_eq!(c.slack_s["a"], 400.0);
    }

    #[test]
    fn without_queue_numbers_a_node_runs_in_the_order_its_targets_started() {
        let mut jobs = vec![job("late", "n", 200, 400, 0, None), job("early", "n", 0, 190, 0, None)];
        for j in &mut jobs {
            j.queue = None;
        }
        let c = critical(&jobs, 0);
        let names: Vec<&str> = c.chain.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(names, ["early", "late"]);
        assert_eq!(c.chain[1].binding.as_ref().unwrap().how, Wait::Queue);
        assert_eq!(c.slack_s["early"], 0.0);
    }

    #[test]
    fn a_node_waits_from_the_start_until_its_dependency_ends() {
        fn at(w: Vec<Waiting<'static>>) -> Vec<(&'static str, &'static str, Micros, Micros)> {
            w.iter().map(|w| (w.target, w.node, w.from, w.until)).collect()
        }
        // triton-wheel waited on wifi until it started, a second after pytorch
        // ended; strix's queue and anvil wait for no dependency.
        assert_eq!(at(dependency_waits(&run(), 0)), [("triton-wheel", "wifi", 0, 1001 * S)]);
        // A target that started long after its dependency ended waited only until that end.
        let jobs = vec![job("a", "m", 0, 100, 0, None), job("b", "n", 400, 500, 0, Some("a"))];
        assert_eq!(at(dependency_waits(&jobs, 0)), [("b", "n", 0, 105 * S)]);
        // On the same node the wait begins where the dependency does.
        let jobs = vec![job("a", "n", 30, 100, 0, None), job("b", "n", 104, 500, 1, Some("a"))];
        assert_eq!(at(dependency_waits(&jobs, 0)), [("b", "n", 30 * S, 104 * S)]);
    }

    #[test]
    fn no_jobs_no_chain_and_a_cycle_of_skewed_clocks_ends() {
        assert_eq!(critical(&[], 0), CriticalChain::default());
        // Each ends within the tolerance of the other's start, each after the other.
        let jobs = vec![job("a", "m", 10, 12, 0, Some("b")), job("b", "n", 10, 12, 0, Some("a"))];
        let c = critical(&jobs, 0);
        assert_eq!(c.chain.len(), 2);
        assert!(c.slack_s.values().all(|s| *s >= 0.0));
    }
}
