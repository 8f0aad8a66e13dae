//! The report's opening sentences: what matters in a run, in words.

use super::placement::PlacementView;
use super::{human_bytes, View};
use crate::analysis::costs::WORTH_SAYING_S;
use crate::figures::Measured;
use crate::timefmt::human_duration as dur;

use crate::analysis::targets::outside_share_worth_telling;

/// The sentences in the order the report opens with them.
pub(crate) fn sentences(v: &View) -> Vec<String> {
    let mut out = vec![opening(v)];
    out.extend(critical_path(v));
    out.extend(still_running(v));
    out.extend(outside_own_steps(v));
    // The balancer's verdict names its misses; without estimates to judge, nothing does.
    if v.placement.verdict.prices_n == 0 {
        out.extend(estimate_misses(v));
    }
    out.extend(balancer(&v.placement));
    out.extend(placement(&v.placement));
    out.extend(compiler_cache(v));
    out.extend(registry(v));
    out.extend(broken_inputs(v));
    out
}

/// The run in one line: what, where, how big, how long, and what totals include.
fn opening(v: &View) -> String {
    let mode = match v.mode.get() {
        Some(m) => format!("{} run", capitalise(&format!("{m:?}").to_lowercase())),
        None => "Run".into(),
    };
    let status = if v.in_flight {
        " (in flight: figures are partial)"
    } else {
        ""
    };
    let wall = v
        .fleet
        .wall_s
        .get()
        .map(|w| format!(", wall clock {}", dur(w)))
        .unwrap_or_default();
    format!(
        "{mode} {}{}: {}, {}{wall}{status}. {}.",
        v.stamp,
        v.arch.as_deref().map(|a| format!(" on {a}")).unwrap_or_default(),
        crate::fmt::counted(v.nodes.len() as u64, "node", "nodes"),
        crate::fmt::counted(v.targets.len() as u64, "target", "targets"),
        capitalise(&v.mode_note),
    )
}

/// The chain that set the wall clock, link by link with its waits, and
/// what the nodes off it did meanwhile.
fn critical_path(v: &View) -> Option<String> {
    let chain = v.critical_path.value().filter(|c| !c.is_empty())?;
    let end = chain.last()?.end_s;
    let links: Vec<String> = chain
        .iter()
        .enumerate()
        .map(|(i, l)| chain_link(l, i.checked_sub(1).and_then(|p| chain[p].node.as_deref())))
        .collect();
    let mut s = format!("The critical path, ending at +{}: {}.", dur(end), links.join(" → "));
    let on_chain = |n: &str| chain.iter().any(|l| l.node.as_deref() == Some(n));
    let others: Vec<_> = v.nodes.iter().filter(|n| !on_chain(&n.name)).collect();
    if !others.is_empty() && others.iter().all(|n| !n.idle_s.is_missing()) {
        let idle: f64 = others.iter().filter_map(|n| n.idle_s.get()).sum();
        let waiting: f64 = others.iter().filter_map(|n| n.waiting_s.get()).sum();
        let nodes = match others.len() {
            1 => "The other node".to_string(),
            k => format!("The other {k} nodes"),
        };
        s.push_str(&format!(" {nodes} sat idle for {} in all", dur(idle)));
        if waiting > 0.0 {
            s.push_str(&format!(", {} of it waiting for a dependency", dur(waiting)));
        }
        s.push('.');
    }
    Some(s)
}

/// "triton-wheel on wifi 38m52s, which waited 16m41s for pytorch"; a link
/// that followed the previous one on the same node is said so, not as a wait.
fn chain_link(l: &super::LinkView, previous_node: Option<&str>) -> String {
    let on = l.node.as_deref().map(|n| format!(" on {n}")).unwrap_or_default();
    let mut s = format!("{}{on} {}", l.target, dur(l.took_s));
    if let (Some(w), Some(wait)) = (l.waited_for.value(), l.wait_s.get()) {
        let same_node = !l.node.is_missing() && l.node.as_deref() == previous_node;
        match (l.waited_how.as_deref(), same_node) {
            (Some("queue"), _) => s.push_str(&format!(", next after {w} in the node's queue")),
            (_, true) => s.push_str(&format!(", after {w} on the same node")),
            _ => s.push_str(&format!(", which waited {} for {w}", dur(wait))),
        }
    }
    s
}

fn still_running(v: &View) -> Option<String> {
    (!v.fleet.still_running.is_empty()).then(|| {
        format!(
            "Still building on {}: the critical path is not known until every record has ended.",
            v.fleet.still_running.join(", ")
        )
    })
}

/// Targets whose time went mostly outside their own steps, uploads named.
fn outside_own_steps(v: &View) -> Vec<String> {
    let mut out = vec![];
    for t in &v.targets {
        let (Some(total), Some(gap)) = (t.total_s.get(), t.gap_s.get()) else {
            continue;
        };
        if outside_share_worth_telling(total, gap).is_none() {
            continue;
        }
        let node = t.node.as_deref().map(|n| format!(" on {n}")).unwrap_or_default();
        let mut s = format!(
            "{}{node}: {} of its {} ({}) outside its own steps",
            t.name,
            dur(gap),
            dur(total),
            crate::fmt::share(gap / total)
        );
        if let Some(u) = t.upload_s.get().filter(|u| *u > 0.0) {
            s.push_str(&format!(", {} of it uploading", dur(u)));
            if let Some(b) = t.upload_bytes.get().filter(|b| *b > 0) {
                s.push_str(&format!(
                    " {} at {}",
                    human_bytes(b as f64),
                    crate::fmt::rate(b as f64 / u)
                ));
            }
        }
        s.push('.');
        out.push(s);
    }
    out
}

fn estimate_misses(v: &View) -> Vec<String> {
    v.fleet
        .estimate_misses
        .iter()
        .map(|m| {
            format!(
                "The balancer estimated {} at {}; it took {} ({}× the estimate).",
                m.target,
                dur(m.est_s),
                dur(m.actual_s),
                crate::fmt::fixed(m.ratio, 1)
            )
        })
        .collect()
}

/// The biggest placement move, when it saves more than a few minutes, and
/// what the packing would save in all.
/// Whether the balancer's prices or its packing were off, when either was.
fn balancer(p: &PlacementView) -> Option<String> {
    let v = &p.verdict;
    (!v.prices_off.is_empty() || v.packing_off.get() == Some(true)).then(|| v.says.clone())
}

fn placement(p: &PlacementView) -> Option<String> {
    let r = &p.replay;
    let m = r.moves.first().filter(|m| m.saves_s > WORTH_SAYING_S)?;
    let whole = match r.saved_s.get() {
        Some(s) if s > 0.0 => format!(
            "packed on measured costs, the run would have ended about {} sooner",
            dur(s)
        ),
        _ => "packed on measured costs, the run would not have ended sooner".into(),
    };
    Some(format!(
        "Placement: moving {} from {} to {} saves it {}: {}; {whole} (an estimate: see Placement).",
        m.target,
        m.from,
        m.to,
        dur(m.saves_s),
        m.says
    ))
}

fn compiler_cache(v: &View) -> Option<String> {
    let s = &v.sccache;
    if let (Some(h), Some(m)) = (s.hits, s.misses) {
        let ratio = s
            .hit_ratio
            .as_ref()
            .and_then(Measured::get)
            .map(|r| format!(" ({}% hits)", crate::fmt::fixed(100.0 * r, 1)))
            .unwrap_or_default();
        let written = match s.write_bytes.as_ref().and_then(Measured::get) {
            Some(b) => format!(" ({})", human_bytes(b as f64)),
            None => " (size unknown)".into(),
        };
        use crate::fmt::counted;
        Some(format!(
            "Compiler cache: {}, {}{ratio}, {}{written}.",
            counted(h, "hit", "hits"),
            counted(m, "miss", "misses"),
            counted(s.writes.unwrap_or(0), "write", "writes")
        ))
    } else {
        s.why
            .as_ref()
            .map(|why| format!("Compiler cache: not measured ({why})."))
    }
}

fn registry(v: &View) -> Option<String> {
    let z = &v.zot;
    if let (Some(c), Some(i)) = (z.cache_write_bytes, z.image_write_bytes) {
        let no_size = z
            .writes_unsized
            .filter(|n| *n > 0)
            .map(|n| format!("; {} of unknown size", crate::fmt::counted(n, "write", "writes")))
            .unwrap_or_default();
        Some(format!(
            "Registry: {} written, {} of it layer cache and {} images, over {}{no_size}.",
            human_bytes((c + i) as f64),
            human_bytes(c as f64),
            human_bytes(i as f64),
            crate::fmt::counted(z.requests.unwrap_or(0), "request", "requests")
        ))
    } else {
        z.why.as_ref().map(|why| format!("Registry: not measured ({why})."))
    }
}

fn broken_inputs(v: &View) -> Option<String> {
    let broken: Vec<&str> = v
        .inputs
        .iter()
        .filter(|(_, i)| i.contract_broken)
        .map(|(n, _)| n.as_str())
        .collect();
    (!broken.is_empty()).then(|| {
        format!(
            "Check before trusting: {} broke {} contract (see Inputs).",
            broken.join(", "),
            if broken.len() == 1 { "its" } else { "their" }
        )
    })
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
