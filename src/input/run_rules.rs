//! Run-level validation: what the inputs of one run must agree on between
//! them. Said once, in these words, by the report's warnings and by `check`.

use super::run_json::RunInfo;

/// Each target run.json announces whose trace is not in the run, as
/// `(trace file, warning)`; `has_trace` says whether a target's trace file is
/// present. In flight, a trace not written yet is expected.
pub(crate) fn announced_without_trace(info: &RunInfo, has_trace: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    info.targets
        .iter()
        .filter(|t| !has_trace(&format!("trace-{t}.json")))
        .map(|t| {
            let file = format!("trace-{t}.json");
            let warning = if info.in_flight {
                format!("{file}: no trace yet for target {t} (the run is in flight)")
            } else {
                format!("{file}: run.json lists target {t} but the run has no trace for it")
            };
            (file, warning)
        })
        .collect()
}

/// A node with samples that run.json does not list (when it lists any).
pub(crate) fn samples_from_unlisted_nodes<'a>(
    info: &RunInfo,
    sampled: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    if info.nodes.is_empty() {
        return vec![];
    }
    sampled
        .into_iter()
        .filter(|n| !info.nodes.iter().any(|x| &x.name == *n))
        .map(|n| format!("samples.jsonl: samples from node {n}, which run.json does not list"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::run_json::NodeInfo;

    fn info(targets: &[&str], nodes: &[&str], in_flight: bool) -> RunInfo {
        RunInfo {
            targets: targets.iter().map(|t| t.to_string()).collect(),
            nodes: nodes
                .iter()
                .map(|n| NodeInfo {
                    name: n.to_string(),
                    ..Default::default()
                })
                .collect(),
            in_flight,
            ..Default::default()
        }
    }

    #[test]
    fn an_announced_target_without_a_trace_is_named_with_its_file() {
        let i = info(&["a", "b"], &[], false);
        let found = announced_without_trace(&i, |f| f == "trace-a.json");
        assert_eq!(
            found,
            [(
                "trace-b.json".to_string(),
                "trace-b.json: run.json lists target b but the run has no trace for it".to_string()
            )]
        );
        let i = info(&["a", "b"], &[], true);
        assert_eq!(
            announced_without_trace(&i, |_| false)[1].1,
            "trace-b.json: no trace yet for target b (the run is in flight)"
        );
    }

    #[test]
    fn a_node_not_in_run_json_is_named_only_when_run_json_lists_nodes() {
        let sampled = ["a".to_string(), "z".to_string()];
        assert_eq!(
            samples_from_unlisted_nodes(&info(&[], &["a"], false), &sampled),
            ["samples.jsonl: samples from node z, which run.json does not list"]
        );
        assert!(samples_from_unlisted_nodes(&info(&[], &[], false), &sampled).is_empty());
    }
}
