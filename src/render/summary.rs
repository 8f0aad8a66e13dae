//! The report's opening sentences: what matters in a run, in words.

use crate::timefmt::human_duration as dur;
use crate::view::{human_bytes, View};

/// A target whose time outside its own steps exceeds this share is a story.
pub const GAP_SHARE: f64 = 0.5;

pub fn sentences(v: &View) -> Vec<String> {
    let mut out = Vec::new();
    let mode = match v.mode {
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
        .map(|w| format!(", wall clock {}", dur(w)))
        .unwrap_or_default();
    out.push(format!(
        "{mode} {}{}: {} nodes, {} targets{wall}{status}. {}.",
        v.stamp,
        v.arch.as_deref().map(|a| format!(" on {a}")).unwrap_or_default(),
        v.nodes.len(),
        v.targets.len(),
        capitalise(&v.mode_note),
    ));

    if let Some(c) = &v.fleet.critical {
        let idle_others: f64 = v
            .nodes
            .iter()
            .filter(|n| n.name != c.node)
            .filter_map(|n| n.idle_s)
            .sum();
        let others = v.nodes.iter().filter(|n| n.name != c.node).count();
        let mut s = format!(
            "The critical path was {}: it finished last, at +{}, with {} (it ran {}).",
            c.node,
            dur(c.end_s),
            c.last_target,
            c.targets.join(", ")
        );
        if others > 0 && v.nodes.iter().any(|n| n.idle_s.is_some()) {
            s.push_str(&format!(
                " The other {others} nodes sat idle for {} in all.",
                dur(idle_others)
            ));
        }
        out.push(s);
    }

    if !v.fleet.still_running.is_empty() {
        out.push(format!(
            "Still building on {}: the critical path is not known until every record has ended.",
            v.fleet.still_running.join(", ")
        ));
    }

    for t in &v.targets {
        let (Some(total), Some(gap)) = (t.total_s, t.gap_s) else {
            continue;
        };
        if total <= 0.0 || gap / total <= GAP_SHARE {
            continue;
        }
        let node = t.node.as_deref().map(|n| format!(" on {n}")).unwrap_or_default();
        let mut s = format!(
            "{}{node}: {} of its {} ({:.0}%) outside its own steps",
            t.name,
            dur(gap),
            dur(total),
            100.0 * gap / total
        );
        if let Some(u) = t.upload_s.filter(|u| *u > 0.0) {
            s.push_str(&format!(", {} of it uploading", dur(u)));
            if let Some(b) = t.upload_bytes.filter(|b| *b > 0) {
                s.push_str(&format!(" {} at {:.1} MB/s", human_bytes(b as f64), b as f64 / u / 1e6));
            }
        }
        s.push('.');
        out.push(s);
    }

    for m in &v.fleet.estimate_misses {
        out.push(format!(
            "The balancer estimated {} at {}; it took {} ({:.1}× the estimate).",
            m.target,
            dur(m.est_s),
            dur(m.actual_s),
            m.ratio
        ));
    }

    out.extend(super::placement::summary(&v.placement));

    let s = &v.sccache;
    if let (Some(h), Some(m)) = (s.hits, s.misses) {
        let ratio = s
            .hit_ratio
            .map(|r| format!(" ({:.1}% hits)", 100.0 * r))
            .unwrap_or_default();
        let written = match s.write_bytes {
            Some(b) => format!(" ({})", human_bytes(b as f64)),
            None => " (size unknown)".into(),
        };
        out.push(format!(
            "Compiler cache: {h} hits, {m} misses{ratio}, {} writes{written}.",
            s.writes.unwrap_or(0)
        ));
    } else if let Some(why) = &s.why {
        out.push(format!("Compiler cache: not measured ({why})."));
    }
    let z = &v.zot;
    if let (Some(c), Some(i)) = (z.cache_write_bytes, z.image_write_bytes) {
        let no_size = z
            .writes_unsized
            .filter(|n| *n > 0)
            .map(|n| format!("; {n} writes of unknown size"))
            .unwrap_or_default();
        out.push(format!(
            "Registry: {} written, {} of it layer cache and {} images, over {} requests{no_size}.",
            human_bytes((c + i) as f64),
            human_bytes(c as f64),
            human_bytes(i as f64),
            z.requests.unwrap_or(0)
        ));
    } else if let Some(why) = &z.why {
        out.push(format!("Registry: not measured ({why})."));
    }

    let broken: Vec<&str> = v
        .inputs
        .iter()
        .filter(|(_, i)| i.contract_broken)
        .map(|(n, _)| n.as_str())
        .collect();
    if !broken.is_empty() {
        out.push(format!(
            "Check before trusting: {} broke {} contract (see Inputs).",
            broken.join(", "),
            if broken.len() == 1 { "its" } else { "their" }
        ));
    }
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
