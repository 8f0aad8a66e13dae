//! Whether two runs may be compared, from their provenance: the pooling
//! rule ([`Coordinates::pools_with`], the one history, the gate's bands and
//! placement's medians use), and a warning when another version of the tool
//! made a figure, which may have been computed differently.

use crate::analysis::pooling::Coordinates;
use crate::figures::{Provenance, RunCoordinates};

/// A run's coordinates as its provenance records them.
pub(crate) fn coordinates_of(r: &RunCoordinates) -> Coordinates {
    Coordinates::new(r.mode.get(), r.arch.as_deref(), r.job_width.get())
}

/// The verdict on a pair of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Comparability {
    /// Comparable; the warnings (a different tool version) go beside the result.
    Yes { warnings: Vec<String> },
    /// Not comparable: every coordinate that differs, in words.
    No { reasons: Vec<String> },
}

/// Whether run B may be compared with run A (or gated against expectations
/// measured at A's coordinates): [`Coordinates::pools_with`], with what
/// could not be checked said as a warning.
pub(crate) fn comparable(a: &Provenance, b: &Provenance) -> Comparability {
    let (ra, rb) = (&a.run, &b.run);
    let (ca, cb) = (coordinates_of(ra), coordinates_of(rb));
    let reasons: Vec<String> = ca
        .differences(&cb)
        .iter()
        .map(|d| d.reason(&ra.stamp, &rb.stamp))
        .collect();
    if !reasons.is_empty() {
        return Comparability::No { reasons };
    }
    let mut warnings = Vec::new();
    if a.tool.version != b.tool.version || a.tool.commit != b.tool.commit {
        warnings.push(format!(
            "made by different versions of perfreport ({} commit {} and {} commit {}): a difference may be the tool's",
            a.tool.version, a.tool.commit, b.tool.version, b.tool.commit
        ));
    }
    if ca.job_width.is_none() {
        warnings.push(
            "neither run records its job width (run.json max_jobs): that the two match could not be checked".into(),
        );
    }
    Comparability::Yes { warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Measured, RunCoordinates, Tool};
    use crate::input::run_json::Mode;
    use std::collections::BTreeMap;

    fn prov(stamp: &str, mode: Mode, arch: &str, width: Option<u32>, version: &'static str) -> Provenance {
        Provenance {
            tool: Tool {
                name: Tool::NAME,
                version,
                commit: "abc",
            },
            inputs: BTreeMap::new(),
            run: RunCoordinates {
                stamp: stamp.into(),
                mode: Measured::Value(mode),
                arch: Measured::Value(arch.into()),
                namespace: Measured::missing("not recorded"),
                sccache_prefix: Measured::missing("not recorded"),
                nodes: vec![],
                job_width: Measured::from_option(width, || "not recorded".into()),
                revision: Measured::missing("not recorded"),
                why_null: BTreeMap::new(),
            },
        }
    }

    #[test]
    fn another_arch_mode_or_job_width_is_refused_with_each_reason() {
        let a = prov("a", Mode::Cold, "gfx950", Some(5), "0.1.0");
        let b = prov("b", Mode::Warm, "gfx1201", Some(32), "0.1.0");
        let Comparability::No { reasons } = comparable(&a, &b) else {
            panic!("must refuse")
        };
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert!(reasons[2].contains("job width differs: a is 5, b is 32"), "{reasons:?}");
    }

    #[test]
    fn another_tool_version_is_a_warning_not_a_refusal() {
        let a = prov("a", Mode::Cold, "gfx950", Some(5), "0.1.0");
        let b = prov("b", Mode::Cold, "gfx950", Some(5), "0.2.0");
        let Comparability::Yes { warnings } = comparable(&a, &b) else {
            panic!("comparable")
        };
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("different versions"));
        assert_eq!(comparable(&a, &a), Comparability::Yes { warnings: vec![] });
    }

    #[test]
    fn compare_refuses_a_width_recorded_on_one_side_only_and_warns_when_on_neither() {
        let a = prov("a", Mode::Warm, "gfx950", Some(5), "0.1.0");
        let b = prov("b", Mode::Warm, "gfx950", None, "0.1.0");
        let Comparability::No { reasons } = comparable(&a, &b) else {
            panic!("a width on one side only must refuse")
        };
        assert_eq!(reasons, ["job width differs: a is 5, b is unknown"]);
        assert!(matches!(comparable(&b, &a), Comparability::No { .. }));
        let Comparability::Yes { warnings } = comparable(&b, &b) else {
            panic!("two runs without a width are comparable")
        };
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("could not be checked"), "{warnings:?}");
    }
}
