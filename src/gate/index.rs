//! The gate's word on every run of a site: each run gated against the
//! comparable runs before it (the index's verdict column, history's "what
//! moved"), and a headline that follows a stable target.

use crate::analysis::spread;
use crate::figures::{Figures, Metric};
use crate::history::bands::{metric_band, Comparable};
use crate::history::Key;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the site's index says of a run beside its status: the gate's
/// verdict against the comparable runs before it, and how the targets it is
/// about compare with their medians.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexVerdict {
    /// `regressed`, `passed` or `not_gated`: the row's colour.
    pub(crate) verdict: super::night::Verdict,
    /// The verdict in words ("regressed: pytorch build_s +13.5%", "not gated: ...").
    pub(crate) words: String,
    /// "pytorch +12% vs median of 14": each regressed target, else the key's
    /// most expensive one, so the figure follows the same target night after night.
    pub(crate) headline: Option<String>,
}

/// Per run folder: its verdict and headline for the site's index.
pub fn index_verdicts(all: &[Figures]) -> BTreeMap<String, IndexVerdict> {
    let expensive = most_expensive(all);
    let comparable = Comparable::new(all);
    all.iter()
        .map(|run| {
            let before = comparable.earlier(run);
            let g = super::night::gate_against(run, &before);
            let mut targets: Vec<&str> = g.regressed_checks().iter().map(|c| c.target.as_str()).collect();
            targets.sort_unstable();
            targets.dedup();
            if targets.is_empty() {
                targets.extend(expensive.get(&run.key()).map(String::as_str));
            }
            let headline = if run.left_out.is_some() {
                None
            } else {
                let h: Vec<String> = targets.iter().filter_map(|t| headline(&before, run, t)).collect();
                (!h.is_empty()).then(|| h.join("; "))
            };
            let row = IndexVerdict {
                verdict: g.verdict,
                words: g.verdict_line(),
                headline,
            };
            (run.dir.clone(), row)
        })
        .collect()
}

/// Per key, the target with the largest median total over the key's runs:
/// the one its index headline follows when nothing regressed.
fn most_expensive(all: &[Figures]) -> BTreeMap<Key, String> {
    let mut totals: BTreeMap<Key, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for r in all.iter().filter(|r| r.left_out.is_none()) {
        let by_target = totals.entry(r.key()).or_default();
        for (name, t) in &r.targets {
            if let Some(total) = t.metric(Metric::Total).get() {
                by_target.entry(name.as_str()).or_default().push(total);
            }
        }
    }
    totals
        .into_iter()
        .filter_map(|(key, by_target)| {
            let medians = by_target
                .into_iter()
                .filter_map(|(name, v)| Some((spread::median(&v)?, name)));
            // Ties go to the first name, so the choice is stable.
            let (_, name) = medians.max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))?;
            Some((key, name.to_string()))
        })
        .collect()
}

/// `target`'s total in `run` against its median over `before`.
fn headline(before: &[&Figures], run: &Figures, target: &str) -> Option<String> {
    let total = run.targets.get(target)?.metric(Metric::Total).get()?;
    let b = metric_band(before, target, Metric::Total);
    let Some(median) = b.median else {
        return Some(format!("{target}: first run of its key"));
    };
    let pct = spread::change_pct(total, median)?;
    let loaded = if run.targets.get(target).and_then(|t| t.loaded()) == Some(true) {
        " (loaded)"
    } else {
        ""
    };
    // A change that rounds to 0 is "+0%", never "-0%".
    let pct = if pct.round() == 0.0 { 0.0 } else { pct };
    Some(format!("{target} {pct:+.0}% vs median of {}{loaded}", b.n))
}

/// What history shows of the verdicts: per run folder, whether it regressed and in words.
pub fn history_verdicts(v: &BTreeMap<String, IndexVerdict>) -> crate::history::view::Verdicts {
    v.iter()
        .map(|(dir, v)| {
            (
                dir.clone(),
                (v.verdict == super::night::Verdict::Regressed, v.words.clone()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::bands::tests::run;

    #[test]
    fn the_index_headline_follows_the_keys_most_expensive_target_or_each_regressed_one() {
        let mut all: Vec<Figures> = (0..4)
            .map(|d| run(&format!("d{d}"), d, Some("warm"), 1000.0, false))
            .collect();
        // vllm is cheaper than pytorch; the headline keeps to pytorch even on
        // a night vllm finished last.
        for r in &mut all {
            let mut vllm = r.targets["pytorch"].clone();
            vllm.set(crate::figures::Metric::Total, 500.0);
            r.targets.insert("vllm".into(), vllm);
            r.fleet.critical = crate::figures::Value(crate::figures::Critical {
                node: "n0".into(),
                end: 0,
                targets: vec!["vllm".into()],
                last_target: "vllm".into(),
            });
        }
        all.push(run("slow", 4, Some("warm"), 1220.0, false));
        let h = index_verdicts(&all);
        // Totals 1100 before, 1320 now: +20%.
        assert_eq!(h["slow"].headline.as_deref(), Some("pytorch +20% vs median of 4"));
        assert_eq!(h["d0"].headline.as_deref(), Some("pytorch: first run of its key"));
        assert_eq!(h["d1"].headline.as_deref(), Some("pytorch +0% vs median of 1"));
        assert_eq!(h["d1"].verdict, super::super::night::Verdict::NotGated);
        assert!(h["d1"].words.starts_with("not gated: "), "{}", h["d1"].words);
        all[3]
            .targets
            .get_mut("pytorch")
            .unwrap()
            .set(crate::figures::Metric::Total, 1099.0);
        assert_eq!(
            index_verdicts(&all)["d3"].headline.as_deref(),
            Some("pytorch +0% vs median of 3"),
            "-0.09% is no \"-0%\""
        );
        // With five nights before it, a regressed vllm is named, not pytorch.
        for d in 5..10 {
            all.push(run(&format!("e{d}"), d, Some("warm"), 1000.0, false));
            let last = all.last_mut().unwrap();
            let mut vllm = last.targets["pytorch"].clone();
            vllm.set(crate::figures::Metric::Total, if d == 9 { 650.0 } else { 500.0 });
            last.targets.insert("vllm".into(), vllm);
        }
        let h = index_verdicts(&all);
        assert_eq!(h["e9"].verdict, super::super::night::Verdict::Regressed);
        assert!(h["e9"].words.contains("vllm total_s +30.0%"), "{}", h["e9"].words);
        assert!(
            h["e9"]
                .headline
                .as_deref()
                .unwrap()
                .starts_with("vllm +30% vs median of"),
            "{:?}",
            h["e9"].headline
        );
    }
}
