//! Whether two runs may be compared, from their provenance: runs of another
//! arch, mode or job width measure different things, and a figure made by
//! another version of the tool may have been computed differently.

use crate::view::Provenance;

/// The verdict on a pair of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparability {
    /// Comparable; the warnings (a different tool version) go beside the result.
    Yes { warnings: Vec<String> },
    /// Not comparable: every coordinate that differs, in words.
    No { reasons: Vec<String> },
}

fn show<T: std::fmt::Debug>(v: &Option<T>) -> String {
    match v {
        Some(v) => format!("{v:?}").trim_matches('"').to_lowercase(),
        None => "unknown".into(),
    }
}

pub fn comparable(a: &Provenance, b: &Provenance) -> Comparability {
    let (ra, rb) = (&a.run, &b.run);
    let mut reasons = Vec::new();
    let mut coordinate = |name: &str, x: String, y: String| {
        if x != y {
            reasons.push(format!("{name} differs: {} is {x}, {} is {y}", ra.stamp, rb.stamp));
        }
    };
    coordinate("mode", show(&ra.mode), show(&rb.mode));
    coordinate("arch", show(&ra.arch), show(&rb.arch));
    // An unknown width on both sides is no evidence of a match, but no
    // evidence of a mismatch either: it is said as a warning below.
    if ra.job_width.is_some() && rb.job_width.is_some() {
        coordinate("job width", show(&ra.job_width), show(&rb.job_width));
    }
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
    if ra.job_width.is_none() || rb.job_width.is_none() {
        warnings.push(
            "the job width of at least one run is not recorded (run.json max_jobs): it could not be checked".into(),
        );
    }
    Comparability::Yes { warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::run_json::Mode;
    use crate::view::{RunCoordinates, Tool};
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
                mode: Some(mode),
                arch: Some(arch.into()),
                namespace: None,
                sccache_prefix: None,
                nodes: vec![],
                job_width: width,
                revision: None,
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
}
