//! The balancer's packing replayed on measured costs. The balancer prices a
//! target on a node as `build + bytes / link` and, longest target first,
//! puts each on the node where it would finish soonest, after the targets it
//! waits for (`after=`). Replaying that rule with what the run measured, and
//! the actual placement with the same prices, says what a better packing
//! would have saved. Both are list schedules on an idealised fleet: no
//! contention, no lost cache, every node building at the speed measured.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// At most this many target × node pairs are weighed (a fleet is a few
/// nodes; a planted placement.txt of 20,000 targets on 20,000 nodes would
/// otherwise cost 4·10⁸ of them).
pub(crate) const MAX_PAIRS: usize = 4_000_000;

/// Finish times closer than this are a tie.
const TIE_S: f64 = 1e-9;

/// A target as the replay sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Job {
    pub(crate) name: String,
    pub(crate) build_s: f64,
    /// Bytes its export uploads.
    pub(crate) bytes: u64,
    /// The targets it waits for; names that are no job are ignored.
    pub(crate) after: Vec<String>,
    /// The node it ran on.
    pub(crate) node: String,
    /// When it started there (orders the node's queue as placed).
    pub(crate) started_s: Option<f64>,
}

/// A node and its upload link, MB/s (`None`: not known).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Machine {
    pub(crate) name: String,
    pub(crate) link_mbps: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Slot {
    pub(crate) job: String,
    pub(crate) node: String,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
}

/// Slots in the order they were placed.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Schedule {
    pub(crate) slots: Vec<Slot>,
}

impl Schedule {
    pub(crate) fn makespan(&self) -> f64 {
        self.slots.iter().map(|s| s.end_s).fold(0.0, f64::max)
    }

    #[cfg(test)]
    pub(crate) fn slot(&self, job: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.job == job)
    }
}

/// A target the packing puts on another node than it ran on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Move {
    pub(crate) job: String,
    pub(crate) from: String,
    pub(crate) to: String,
    /// Its price (build + upload) on each node.
    pub(crate) cost_from_s: f64,
    pub(crate) cost_to_s: f64,
}

impl Move {
    /// The time the target itself takes less on its new node.
    pub(crate) fn saves_s(&self) -> f64 {
        self.cost_from_s - self.cost_to_s
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replay {
    /// The actual placement, each node's targets in the order they started.
    pub(crate) placed: Schedule,
    /// The balancer's rule on the measured costs.
    pub(crate) packed: Schedule,
    /// Most seconds saved first.
    pub(crate) moves: Vec<Move>,
}

/// Why the replay cannot run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// `after=` goes round: these targets each wait for the next, the last for the first.
    Cycle(Vec<String>),
    TooLarge {
        jobs: usize,
        machines: usize,
    },
    /// A job's node is not among the machines, or its upload cannot be priced there.
    Unpriced {
        job: String,
        node: String,
    },
}

/// `build + bytes / link`; `None` when the target uploads and the link is
/// unknown (a target that uploads nothing costs its build anywhere).
pub(crate) fn cost(build_s: f64, bytes: u64, link_mbps: Option<f64>) -> Option<f64> {
    if bytes == 0 {
        return Some(build_s).filter(|c| c.is_finite());
    }
    let link = link_mbps.filter(|l| l.is_finite() && *l > 0.0)?;
    Some(build_s + bytes as f64 / (link * 1e6)).filter(|c| c.is_finite())
}

/// A cycle of `after=` among `edges` (target, the targets it waits for),
/// starting at its smallest name; waits on names not in `edges` are ignored.
pub(crate) fn find_cycle(edges: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    let index: HashMap<&str, usize> = edges.iter().enumerate().map(|(i, e)| (e.0.as_str(), i)).collect();
    let deps: Vec<Vec<usize>> = edges
        .iter()
        .map(|(_, after)| after.iter().filter_map(|a| index.get(a.as_str()).copied()).collect())
        .collect();
    let order = topological(&deps);
    let mut done = vec![false; edges.len()];
    for i in order {
        done[i] = true;
    }
    // Every target left waits for another one left: walk until one repeats.
    let start = done.iter().position(|d| !d)?;
    let mut seen_at: HashMap<usize, usize> = HashMap::new();
    let mut path = vec![];
    let mut at = start;
    while let std::collections::hash_map::Entry::Vacant(e) = seen_at.entry(at) {
        e.insert(path.len());
        path.push(at);
        at = *deps[at].iter().find(|d| !done[**d])?;
    }
    let cycle: Vec<String> = path[seen_at[&at]..].iter().map(|i| edges[*i].0.clone()).collect();
    let first = (0..cycle.len()).min_by(|a, b| cycle[*a].cmp(&cycle[*b]))?;
    Some(cycle[first..].iter().chain(&cycle[..first]).cloned().collect())
}

/// Kahn's order of the indices whose waits can all be met.
fn topological(deps: &[Vec<usize>]) -> Vec<usize> {
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut dependents = vec![vec![]; deps.len()];
    for (i, d) in deps.iter().enumerate() {
        for &j in d {
            dependents[j].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..deps.len()).filter(|i| waiting[*i] == 0).collect();
    let mut out = vec![];
    while let Some(i) = ready.pop() {
        out.push(i);
        for &k in &dependents[i] {
            waiting[k] -= 1;
            if waiting[k] == 0 {
                ready.push(k);
            }
        }
    }
    out
}

/// The actual placement and the balancer's packing of `jobs` on `machines`,
/// both priced on the same measured costs, and the moves between them.
pub(crate) fn replay(jobs: &[Job], machines: &[Machine]) -> Result<Replay, Refusal> {
    if jobs.len().saturating_mul(machines.len().max(1)) > MAX_PAIRS {
        return Err(Refusal::TooLarge {
            jobs: jobs.len(),
            machines: machines.len(),
        });
    }
    let edges: Vec<(String, Vec<String>)> = jobs.iter().map(|j| (j.name.clone(), j.after.clone())).collect();
    if let Some(c) = find_cycle(&edges) {
        return Err(Refusal::Cycle(c));
    }
    let fleet = Fleet::new(jobs, machines)?;
    let placed = fleet.as_placed();
    let packed = fleet.packed();
    let moves = fleet.moves(&packed);
    Ok(Replay { placed, packed, moves })
}

/// The jobs and machines by index, with what both schedules share.
struct Fleet<'a> {
    jobs: &'a [Job],
    machines: &'a [Machine],
    /// Each job's node, by index.
    home: Vec<usize>,
    deps: Vec<Vec<usize>>,
    by_job: HashMap<&'a str, usize>,
    by_machine: HashMap<&'a str, usize>,
}

impl<'a> Fleet<'a> {
    fn new(jobs: &'a [Job], machines: &'a [Machine]) -> Result<Self, Refusal> {
        let by_machine: HashMap<&str, usize> = machines.iter().enumerate().map(|(i, m)| (m.name.as_str(), i)).collect();
        let by_job: HashMap<&str, usize> = jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
        let mut home = Vec::with_capacity(jobs.len());
        for j in jobs {
            let unpriced = || Refusal::Unpriced {
                job: j.name.clone(),
                node: j.node.clone(),
            };
            let m = *by_machine.get(j.node.as_str()).ok_or_else(unpriced)?;
            cost(j.build_s, j.bytes, machines[m].link_mbps).ok_or_else(unpriced)?;
            home.push(m);
        }
        let deps = jobs
            .iter()
            .map(|j| j.after.iter().filter_map(|a| by_job.get(a.as_str()).copied()).collect())
            .collect();
        Ok(Fleet {
            jobs,
            machines,
            home,
            deps,
            by_job,
            by_machine,
        })
    }

    fn cost_on(&self, job: usize, machine: usize) -> Option<f64> {
        let j = &self.jobs[job];
        cost(j.build_s, j.bytes, self.machines[machine].link_mbps)
    }

    /// Each job on its own node, in the order the jobs started there (a job
    /// that must wait lets the ones ready go first).
    fn as_placed(&self) -> Schedule {
        let key = |i: usize| {
            (
                self.jobs[i].started_s.is_none(),
                Total(self.jobs[i].started_s.unwrap_or(0.0)),
            )
        };
        self.list_schedule(
            |i| Reverse((key(i), &self.jobs[i].name)),
            |i, ready, free| {
                let m = self.home[i];
                let c = self.cost_on(i, m)?;
                let start = free[m].max(ready);
                Some((m, start, start + c))
            },
        )
    }

    /// The balancer's rule: the longest job first (its price on the fastest
    /// link), on the node where it finishes soonest; a tie stays home, else
    /// goes to the first node.
    fn packed(&self) -> Schedule {
        let fastest = self
            .machines
            .iter()
            .filter_map(|m| m.link_mbps)
            .filter(|l| l.is_finite() && *l > 0.0)
            .fold(None, |a: Option<f64>, l| Some(a.map_or(l, |a| a.max(l))));
        let length = |i: usize| {
            let j = &self.jobs[i];
            cost(j.build_s, j.bytes, fastest).unwrap_or(j.build_s)
        };
        self.list_schedule(
            |i| (Total(length(i)), Reverse(&self.jobs[i].name)),
            |i, ready, free| {
                let home = self.home[i];
                let order = std::iter::once(home).chain((0..self.machines.len()).filter(|m| *m != home));
                let mut best: Option<(usize, f64, f64)> = None;
                for m in order {
                    let Some(c) = self.cost_on(i, m) else { continue };
                    let start = free[m].max(ready);
                    if best.is_none_or(|b| start + c < b.2 - TIE_S) {
                        best = Some((m, start, start + c));
                    }
                }
                best
            },
        )
    }

    /// Places the ready job of highest `priority` where `place` says, until
    /// none is left. `place` gets the job, when its waits end and when each
    /// machine is free, and answers (machine, start, end).
    fn list_schedule<K: Ord>(
        &self,
        priority: impl Fn(usize) -> K,
        place: impl Fn(usize, f64, &[f64]) -> Option<(usize, f64, f64)>,
    ) -> Schedule {
        let n = self.jobs.len();
        let mut waiting: Vec<usize> = self.deps.iter().map(Vec::len).collect();
        let mut dependents = vec![vec![]; n];
        for (i, d) in self.deps.iter().enumerate() {
            for &j in d {
                dependents[j].push(i);
            }
        }
        let mut ready: BinaryHeap<(K, usize)> = (0..n).filter(|i| waiting[*i] == 0).map(|i| (priority(i), i)).collect();
        let mut free = vec![0.0; self.machines.len()];
        let mut end = vec![0.0; n];
        let mut out = Schedule::default();
        while let Some((_, i)) = ready.pop() {
            let after = self.deps[i].iter().map(|d| end[*d]).fold(0.0, f64::max);
            // Fleet::new priced every job at home, so a place always exists.
            if let Some((m, start, stop)) = place(i, after, &free) {
                free[m] = stop;
                end[i] = stop;
                out.slots.push(Slot {
                    job: self.jobs[i].name.clone(),
                    node: self.machines[m].name.clone(),
                    start_s: start,
                    end_s: stop,
                });
            }
            for &k in &dependents[i] {
                waiting[k] -= 1;
                if waiting[k] == 0 {
                    ready.push((priority(k), k));
                }
            }
        }
        out
    }

    fn moves(&self, packed: &Schedule) -> Vec<Move> {
        let mut moves: Vec<Move> = packed
            .slots
            .iter()
            .filter_map(|s| {
                let i = *self.by_job.get(s.job.as_str())?;
                let (from, to) = (self.home[i], *self.by_machine.get(s.node.as_str())?);
                (from != to).then_some(Move {
                    job: s.job.clone(),
                    from: self.machines[from].name.clone(),
                    to: s.node.clone(),
                    cost_from_s: self.cost_on(i, from)?,
                    cost_to_s: self.cost_on(i, to)?,
                })
            })
            .collect();
        moves.sort_by(|a, b| b.saves_s().total_cmp(&a.saves_s()).then_with(|| a.job.cmp(&b.job)));
        moves
    }
}

/// An `f64` ordered by `total_cmp`, for the heaps.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Total(f64);

impl Eq for Total {}

impl PartialOrd for Total {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Total {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, build_s: f64, bytes: u64, node: &str, after: &[&str]) -> Job {
        Job {
            name: name.into(),
            build_s,
            bytes,
            after: after.iter().map(|a| a.to_string()).collect(),
            node: node.into(),
            started_s: None,
        }
    }

    fn machine(name: &str, link: Option<f64>) -> Machine {
        Machine {
            name: name.into(),
            link_mbps: link,
        }
    }

    fn on(s: &Schedule, job: &str) -> (String, f64, f64) {
        let s = s.slot(job).unwrap();
        (s.node.clone(), s.start_s, s.end_s)
    }

    /// Textbook LPT: durations longest first (ties by name), each on the
    /// least-loaded machine (ties to the first). Machine index per job.
    fn plain_lpt(durations: &[(&str, f64)], machines: usize) -> (Vec<usize>, f64) {
        let mut order: Vec<usize> = (0..durations.len()).collect();
        order.sort_by(|a, b| {
            durations[*b]
                .1
                .total_cmp(&durations[*a].1)
                .then(durations[*a].0.cmp(durations[*b].0))
        });
        let mut load = vec![0.0f64; machines];
        let mut on = vec![0; durations.len()];
        for i in order {
            let m = (0..machines)
                .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b)))
                .unwrap();
            load[m] += durations[i].1;
            on[i] = m;
        }
        (on, load.iter().copied().fold(0.0, f64::max))
    }

    #[test]
    fn on_one_link_speed_the_replay_is_plain_lpt_worked_by_hand() {
        // Costs at 10 MB/s: a 5 + 20 MB = 7 s, b 6, c 4 + 10 MB = 5, d 4, e 2 + 10 MB = 3.
        // LPT on two nodes: x a (7), y b (6), y c (11), x d (11), tie: x e (14).
        let jobs = [
            job("a", 5.0, 20_000_000, "x", &[]),
            job("b", 6.0, 0, "x", &[]),
            job("c", 4.0, 10_000_000, "x", &[]),
            job("d", 4.0, 0, "x", &[]),
            job("e", 2.0, 10_000_000, "x", &[]),
        ];
        let machines = [machine("x", Some(10.0)), machine("y", Some(10.0))];
        let r = replay(&jobs, &machines).unwrap();
        let nodes: Vec<String> = jobs.iter().map(|j| on(&r.packed, &j.name).0).collect();
        assert_eq!(nodes, ["x", "y", "y", "x", "x"]);
        assert_eq!(r.packed.makespan(), 14.0);
        // As placed, all five ran on x one after another: 7 + 6 + 5 + 4 + 3.
        assert_eq!(r.placed.makespan(), 25.0);
        // b and c moved to y; each costs the same there (one link speed).
        let moved: Vec<(&str, f64)> = r.moves.iter().map(|m| (m.job.as_str(), m.saves_s())).collect();
        assert_eq!(moved, [("b", 0.0), ("c", 0.0)]);
    }

    #[test]
    fn on_one_link_speed_the_replay_matches_textbook_lpt_on_many_fleets() {
        // A small deterministic generator: 40 fleets of 2-5 nodes, 3-12 targets.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..40 {
            let k = 2 + next(4) as usize;
            // Links that divide 1000 MB: every price a whole number, so
            // sums compare exactly as they do by hand.
            let link = [1.0, 2.0, 4.0, 5.0, 8.0, 10.0, 25.0, 50.0, 125.0, 250.0][next(10) as usize];
            let machines: Vec<Machine> = (0..k).map(|i| machine(&format!("n{i}"), Some(link))).collect();
            let jobs: Vec<Job> = (0..3 + next(10))
                .map(|i| {
                    job(
                        &format!("t{i:02}"),
                        next(3000) as f64,
                        next(5) * 1_000_000_000,
                        "n0",
                        &[],
                    )
                })
                .collect();
            let durations: Vec<(&str, f64)> = jobs
                .iter()
                .map(|j| (j.name.as_str(), cost(j.build_s, j.bytes, Some(link)).unwrap()))
                .collect();
            let (lpt_on, lpt_makespan) = plain_lpt(&durations, k);
            let r = replay(&jobs, &machines).unwrap();
            assert_eq!(r.packed.makespan(), lpt_makespan);
            for (j, m) in jobs.iter().zip(lpt_on) {
                assert_eq!(on(&r.packed, &j.name).0, format!("n{m}"), "{}", j.name);
            }
        }
    }

    #[test]
    fn the_upload_heavy_target_leaves_the_slow_link() {
        // fast1 and fast2 at 100 MB/s, slow at 4 MB/s. As placed: pytorch
        // 2000 s on fast1, triton 900 s + 6.4 GB on slow (900 + 1600 = 2500),
        // small 300 s on fast2: the run takes 2500 s.
        let jobs = [
            job("pytorch", 2000.0, 0, "fast1", &[]),
            job("triton", 900.0, 6_400_000_000, "slow", &[]),
            job("small", 300.0, 0, "fast2", &[]),
        ];
        let machines = [
            machine("fast1", Some(100.0)),
            machine("fast2", Some(100.0)),
            machine("slow", Some(4.0)),
        ];
        let r = replay(&jobs, &machines).unwrap();
        assert_eq!(r.placed.makespan(), 2500.0);
        // Packed: pytorch stays (a tie at 2000 everywhere stays home); triton
        // finishes soonest on fast2 (900 + 64 = 964, against 2964 and 2500);
        // small then finishes soonest on slow (300, against 2300 and 1264).
        assert_eq!(on(&r.packed, "pytorch"), ("fast1".into(), 0.0, 2000.0));
        assert_eq!(on(&r.packed, "triton"), ("fast2".into(), 0.0, 964.0));
        assert_eq!(on(&r.packed, "small"), ("slow".into(), 0.0, 300.0));
        assert_eq!(r.packed.makespan(), 2000.0);
        // Biggest saving first: triton 2500 - 964 = 1536 s; small costs the same.
        assert_eq!(r.moves[0].job, "triton");
        assert_eq!((r.moves[0].from.as_str(), r.moves[0].to.as_str()), ("slow", "fast2"));
        assert_eq!(r.moves[0].saves_s(), 1536.0);
        assert_eq!(r.moves[1].job, "small");
        assert_eq!(r.moves[1].saves_s(), 0.0);
    }

    #[test]
    fn a_target_waits_for_its_after_even_where_a_node_is_free() {
        // c 120 s goes first (tie at 0: stays on y), a 100 s on x; b waits
        // for c: at 120 on x (120 + 50) or y (120 + 50), a tie that stays home.
        let jobs = [
            job("a", 100.0, 0, "x", &[]),
            job("b", 50.0, 0, "y", &["c"]),
            job("c", 120.0, 0, "y", &[]),
        ];
        let machines = [machine("x", None), machine("y", None)];
        let r = replay(&jobs, &machines).unwrap();
        assert_eq!(on(&r.packed, "c"), ("y".into(), 0.0, 120.0));
        assert_eq!(on(&r.packed, "a"), ("x".into(), 0.0, 100.0));
        // Without the wait it would start at 100 on x.
        assert_eq!(on(&r.packed, "b"), ("y".into(), 120.0, 170.0));
        assert!(r.moves.is_empty());
    }

    #[test]
    fn as_placed_keeps_each_nodes_order_and_waits_across_nodes() {
        // x ran p then q; q waits for r on y (300 s): q starts at 300.
        let mut p = job("p", 100.0, 0, "x", &[]);
        p.started_s = Some(0.0);
        let mut q = job("q", 50.0, 0, "x", &["r"]);
        q.started_s = Some(200.0);
        let mut r = job("r", 300.0, 0, "y", &[]);
        r.started_s = Some(5.0);
        let out = replay(&[q, p, r], &[machine("x", None), machine("y", None)]).unwrap();
        assert_eq!(on(&out.placed, "p"), ("x".into(), 0.0, 100.0));
        assert_eq!(on(&out.placed, "r"), ("y".into(), 0.0, 300.0));
        assert_eq!(on(&out.placed, "q"), ("x".into(), 300.0, 350.0));
    }

    #[test]
    fn an_after_cycle_is_refused_and_named_from_its_smallest_name() {
        let jobs = [
            job("d", 1.0, 0, "x", &["b"]),
            job("b", 1.0, 0, "x", &["c"]),
            job("c", 1.0, 0, "x", &["a"]),
            job("a", 1.0, 0, "x", &["b"]),
        ];
        assert_eq!(
            replay(&jobs, &[machine("x", None)]),
            Err(Refusal::Cycle(vec!["a".into(), "b".into(), "c".into()]))
        );
        // A target that waits for itself is a cycle of one.
        let edges = [("s".to_string(), vec!["s".to_string()])];
        assert_eq!(find_cycle(&edges), Some(vec!["s".to_string()]));
        // Waits on names outside are no cycle.
        let edges = [("s".to_string(), vec!["gone".to_string()])];
        assert_eq!(find_cycle(&edges), None);
    }

    #[test]
    fn an_upload_is_priced_only_where_the_link_is_known() {
        assert_eq!(cost(10.0, 0, None), Some(10.0));
        assert_eq!(cost(10.0, 5_000_000, None), None);
        assert_eq!(cost(10.0, 5_000_000, Some(0.0)), None);
        assert_eq!(cost(10.0, 5_000_000, Some(1.0)), Some(15.0));
        assert_eq!(cost(10.0, u64::MAX, Some(5e-324)), None, "no infinite price");
        // The upload-heavy target never goes to the node whose link is unknown.
        let jobs = [job("up", 10.0, 100_000_000, "x", &[]), job("big", 500.0, 0, "x", &[])];
        let r = replay(&jobs, &[machine("x", Some(10.0)), machine("y", None)]).unwrap();
        assert_eq!(on(&r.packed, "big").0, "x");
        assert_eq!(on(&r.packed, "up").0, "x");
        // A job that cannot be priced at home stops the replay, named.
        let r = replay(&[job("up", 1.0, 1, "y", &[])], &[machine("y", None)]);
        assert_eq!(
            r,
            Err(Refusal::Unpriced {
                job: "up".into(),
                node: "y".into()
            })
        );
    }

    #[test]
    fn more_pairs_than_the_bound_are_refused_not_weighed() {
        let jobs: Vec<Job> = (0..2001).map(|i| job(&format!("t{i}"), 1.0, 0, "n0", &[])).collect();
        let machines: Vec<Machine> = (0..2000).map(|i| machine(&format!("n{i}"), None)).collect();
        assert_eq!(
            replay(&jobs, &machines),
            Err(Refusal::TooLarge {
                jobs: 2001,
                machines: 2000
            })
        );
    }
}
