//! The run's targets joined once with where they were placed and what their
//! traces say: every section of the view asks this, by target or by node,
//! at the cost of a lookup rather than a scan.

use super::fleet::Record;
use super::targets::TraceFigures;
use crate::input::placement::Placement;
use crate::timefmt::Micros;
use std::collections::{BTreeMap, HashMap};

pub(crate) struct TargetJoin<'a> {
    /// Every target any input names, sorted, once.
    pub(crate) names: Vec<String>,
    /// The figures of each target whose trace yielded spans.
    pub(crate) figures: BTreeMap<&'a str, TraceFigures>,
    placement_by_target: HashMap<&'a str, &'a Placement>,
    names_by_node: HashMap<&'a str, Vec<&'a str>>,
    /// Where an open record is taken to end (the window's end).
    window_end: Option<Micros>,
}

/// A record's interval: an open record (in flight) runs to `window_end`,
/// else to its last step; a record without an end or a step has none.
pub(crate) fn record_interval(f: &TraceFigures, window_end: Option<Micros>) -> Option<(Micros, Micros)> {
    let end = match (f.end, f.open) {
        (Some(e), _) => Some(e),
        (None, true) => window_end.or(f.last_step_end),
        (None, false) => f.last_step_end,
    };
    f.start.zip(end)
}

impl<'a> TargetJoin<'a> {
    /// Targets from run.json's list, placement.txt and the traces; a
    /// target placed twice is where its last line puts it.
    pub(crate) fn new(
        announced: &[String],
        placements: &'a [Placement],
        figures: BTreeMap<&'a str, TraceFigures>,
        traced: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut names: Vec<String> = announced.to_vec();
        names.extend(placements.iter().map(|p| p.target.clone()));
        names.extend(traced.into_iter().map(str::to_string));
        names.sort();
        names.dedup();
        let placement_by_target: HashMap<&str, &Placement> =
            placements.iter().map(|p| (p.target.as_str(), p)).collect();
        let mut names_by_node: HashMap<&str, Vec<&str>> = HashMap::new();
        for t in &names {
            if let Some(p) = placement_by_target.get(t.as_str()) {
                names_by_node
                    .entry(p.node.as_str())
                    .or_default()
                    .push(p.target.as_str());
            }
        }
        TargetJoin {
            names,
            figures,
            placement_by_target,
            names_by_node,
            window_end: None,
        }
    }

    /// The same join, open records running to `end`.
    pub(crate) fn with_window_end(mut self, end: Option<Micros>) -> Self {
        self.window_end = end;
        self
    }

    pub(crate) fn placement(&self, target: &str) -> Option<&'a Placement> {
        self.placement_by_target.get(target).copied()
    }

    pub(crate) fn figures(&self, target: &str) -> Option<&TraceFigures> {
        self.figures.get(target)
    }

    /// The targets placed on `node`, sorted.
    pub(crate) fn names_on(&self, node: &str) -> &[&'a str] {
        self.names_by_node.get(node).map(Vec::as_slice).unwrap_or_default()
    }

    pub(crate) fn record(&self, target: &str) -> Option<(Micros, Micros)> {
        record_interval(self.figures(target)?, self.window_end)
    }

    /// The records of the targets on `node`, except `but`'s.
    pub(crate) fn records_on(&self, node: &str, but: Option<&str>) -> Vec<(Micros, Micros)> {
        self.names_on(node)
            .iter()
            .filter(|t| Some(**t) != but)
            .filter_map(|t| self.record(t))
            .collect()
    }

    /// Whether a target on `node` has a record that has not ended.
    pub(crate) fn running_on(&self, node: &str) -> bool {
        self.names_on(node)
            .iter()
            .any(|t| self.figures(t).is_some_and(|f| f.open))
    }

    /// The nodes with a record that has not ended, sorted.
    pub(crate) fn still_running(&self) -> Vec<String> {
        let mut nodes: Vec<String> = self
            .names
            .iter()
            .filter(|t| self.figures(t).is_some_and(|f| f.open))
            .filter_map(|t| self.placement(t).map(|p| p.node.clone()))
            .collect();
        nodes.sort();
        nodes.dedup();
        nodes
    }

    /// The ended records, for who finished last: an open one cannot say.
    pub(crate) fn ended_records(&self) -> Vec<Record<'_>> {
        self.names
            .iter()
            .filter_map(|t| {
                let f = self.figures(t).filter(|f| !f.open)?;
                let (start, end) = record_interval(f, self.window_end)?;
                Some(Record {
                    target: t,
                    node: self.placement(t).map(|p| p.node.as_str()),
                    start,
                    end,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(target: &str, node: &str) -> Placement {
        Placement {
            target: target.into(),
            node: node.into(),
            ..Default::default()
        }
    }

    fn record(start: Micros, end: Option<Micros>, open: bool, last_step_end: Option<Micros>) -> TraceFigures {
        TraceFigures {
            start: Some(start),
            end,
            open,
            last_step_end,
            ..Default::default()
        }
    }

    #[test]
    fn record_interval_ends_where_the_record_or_the_window_does() {
        // Ended: its own end, whatever the window.
        assert_eq!(
            record_interval(&record(10, Some(50), false, Some(40)), Some(99)),
            Some((10, 50))
        );
        // Open: to the window's end, else to its last step.
        assert_eq!(
            record_interval(&record(10, None, true, Some(40)), Some(99)),
            Some((10, 99))
        );
        assert_eq!(record_interval(&record(10, None, true, Some(40)), None), Some((10, 40)));
        // Not open but no end (a root without one): its last step.
        assert_eq!(
            record_interval(&record(10, None, false, Some(40)), Some(99)),
            Some((10, 40))
        );
        assert_eq!(record_interval(&record(10, None, false, None), Some(99)), None);
        let unstarted = TraceFigures::default();
        assert_eq!(record_interval(&unstarted, Some(99)), None);
    }

    #[test]
    fn the_join_names_every_target_once_and_the_last_placement_wins() {
        let placements = [placed("b", "n1"), placed("a", "n1"), placed("b", "n2")];
        let announced = ["c".to_string(), "a".to_string()];
        let j = TargetJoin::new(&announced, &placements, BTreeMap::new(), ["d"]);
        assert_eq!(j.names, ["a", "b", "c", "d"]);
        assert_eq!(j.placement("b").map(|p| p.node.as_str()), Some("n2"));
        assert_eq!(j.names_on("n1"), ["a"]);
        assert_eq!(j.names_on("n2"), ["b"]);
        assert!(j.names_on("n3").is_empty());
        assert!(j.placement("c").is_none());
    }

    #[test]
    fn open_records_run_to_the_window_end_and_hide_who_finished_last() {
        let placements = [placed("a", "n1"), placed("b", "n1"), placed("c", "n2")];
        let figures = BTreeMap::from([
            ("a", record(0, Some(10), false, Some(9))),
            ("b", record(5, None, true, Some(20))),
            ("c", record(0, Some(30), false, Some(29))),
        ]);
        let j = TargetJoin::new(&[], &placements, figures, []).with_window_end(Some(40));
        assert_eq!(j.records_on("n1", None), [(0, 10), (5, 40)]);
        assert_eq!(j.records_on("n1", Some("a")), [(5, 40)]);
        assert!(j.running_on("n1"));
        assert!(!j.running_on("n2"));
        assert_eq!(j.still_running(), ["n1"]);
        let ended: Vec<&str> = j.ended_records().iter().map(|r| r.target).collect();
        assert_eq!(ended, ["a", "c"]);
    }
}
