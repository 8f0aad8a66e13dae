//! The gate's word on every run of a site: each run gated against the
//! comparable runs before it (the index's verdict column, history's "what
//! moved"), and a headline that follows a stable target.

use crate::analysis::spread;
use crate::figures::{Figures, Metric};
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

/// Per run folder: its verdict and headline for the site's index, each run
/// gated as it was on its own night (`night::gate_run`).
pub fn index_verdicts(all: &[Figures], opts: &super::judge::GateOptions) -> BTreeMap<String, IndexVerdict> {
    index_verdicts_judged(all, &crate::history::regressions::judge_all(all), opts)
}

/// [`index_verdicts`] on a history already judged (`judge_all(all)`).
pub(crate) fn index_verdicts_judged(
    all: &[Figures],
    judged: &[crate::history::regressions::KeyJudged],
    opts: &super::judge::GateOptions,
) -> BTreeMap<String, IndexVerdict> {
    let expensive = most_expensive(all);
    all.iter()
        .map(|run| {
            let g = super::night::gate_run(judged, run, opts);
            let mut targets: Vec<&str> = g.regressed_checks().iter().map(|c| c.target.as_str()).collect();
            targets.sort_unstable();
            targets.dedup();
            if targets.is_empty() {
                targets.extend(expensive.get(&run.key()).map(String::as_str));
            }
            let headline = if run.left_out.is_some() {
                None
            } else {
                let h: Vec<String> = targets.iter().filter_map(|t| headline(&g, run, t)).collect();
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

/// `target`'s total in `run` against the level its history judged it
/// against that night: the figure the verdict rests on, never a median that
/// ignores a change of level.
fn headline(g: &super::night::GatedRun, run: &Figures, target: &str) -> Option<String> {
    run.targets.get(target)?.metric(Metric::Total).get()?;
    let c = g
        .checks
        .iter()
        .find(|c| c.target == target && c.metric == Metric::Total);
    let Some(pct) = c.and_then(|c| c.drift_pct) else {
        return Some(format!("{target}: no level yet (its key's first nights)"));
    };
    let loaded = if run.targets.get(target).and_then(|t| t.loaded()) == Some(true) {
        " (loaded)"
    } else {
        ""
    };
    // A change that rounds to 0 is "+0%", never "-0%".
    let pct = if pct.round() == 0.0 { 0.0 } else { pct };
    Some(format!("{target} total {pct:+.0}% vs its level{loaded}"))
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
    use crate::history::regressions::tests::history;

    #[test]
    fn the_index_headline_follows_the_keys_most_expensive_target_or_each_regressed_one() {
        let mut all = history(24, 99, 1.0);
        // vllm is cheaper than pytorch; the headline keeps to pytorch even on
        // a night vllm finished last, until vllm regresses.
        for (d, r) in all.iter_mut().enumerate() {
            let mut vllm = r.targets["pytorch"].clone();
            let total = if d >= 21 { 650.0 } else { 500.0 + (d % 3) as f64 };
            vllm.set(Metric::Total, total).set(Metric::Build, total - 60.0);
            r.targets.insert("vllm".into(), vllm);
        }
        let h = index_verdicts(&all, &Default::default());
        assert_eq!(
            h["20261201"].headline.as_deref(),
            Some("pytorch: no level yet (its key's first nights)")
        );
        assert_eq!(h["20261201"].verdict, super::super::night::Verdict::NotGated);
        assert!(
            h["20261202"].words.starts_with("not gated: "),
            "{}",
            h["20261202"].words
        );
        assert_eq!(
            h["20261220"].headline.as_deref(),
            Some("pytorch total +0% vs its level"),
            "{:?}",
            h["20261220"]
        );
        // vllm lands at 650 on night 21 (watched) and is called on night 22.
        let called = &h["20261223"];
        assert_eq!(
            called.verdict,
            super::super::night::Verdict::Regressed,
            "{}",
            called.words
        );
        assert!(called.words.contains("vllm total_s +29.7%"), "{}", called.words);
        assert!(
            called
                .headline
                .as_deref()
                .unwrap()
                .starts_with("vllm total +30% vs its level"),
            "{:?}",
            called.headline
        );
        // The night after, it is open, not new: the row is not red.
        assert_eq!(
            h["20261224"].verdict,
            super::super::night::Verdict::Passed,
            "{}",
            h["20261224"].words
        );
    }
}
