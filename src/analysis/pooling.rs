//! Which runs may be pooled or compared, stated once: history's keys (so
//! the gate's and compare's bands), placement's medians, `compare` and the
//! gate's expectations all ask [`Coordinates::pools_with`]. Runs of another
//! mode, arch or job width measure different things.

use crate::input::run_json::{Mode, RunInfo};

/// The coordinates a run was measured at (run.json's `mode`, `arch` and
/// `max_jobs`), each `None` when the run does not record it.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Coordinates {
    /// `cold` or `warm`.
    pub(crate) mode: Option<String>,
    pub(crate) arch: Option<String>,
    pub(crate) job_width: Option<u32>,
}

/// One coordinate on which two runs do not match, each side as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    /// `mode`, `arch` or `job width`.
    pub(crate) coordinate: &'static str,
    pub(crate) a: Option<String>,
    pub(crate) b: Option<String>,
}

/// A mode as run.json writes it: `cold`, `warm`.
pub(crate) fn mode_word(m: Mode) -> String {
    format!("{m:?}").to_lowercase()
}

impl Coordinates {
    pub(crate) fn new(mode: Option<Mode>, arch: Option<&str>, job_width: Option<u32>) -> Coordinates {
        Coordinates {
            mode: mode.map(mode_word),
            arch: arch.map(str::to_string),
            job_width,
        }
    }

    /// A run's coordinates from its run.json (none without one).
    pub(crate) fn of_info(info: Option<&RunInfo>) -> Coordinates {
        Coordinates::new(
            info.and_then(|i| i.mode),
            info.and_then(|i| i.arch.as_deref()),
            info.and_then(|i| i.job_width),
        )
    }

    /// Mode and arch are both recorded.
    pub(crate) fn known(&self) -> bool {
        self.mode.is_some() && self.arch.is_some()
    }

    /// The rule: two runs may be pooled or compared only when their mode
    /// and arch are both recorded and equal, and their job widths are
    /// equal. A width not recorded equals only another not recorded: a
    /// harness that never records it builds at one width it does not say,
    /// so its runs pool with each other; but a run without it beside one
    /// with it cannot be shown to match, and the width changes every build
    /// time, so those two are neither pooled nor compared. A run whose mode
    /// or arch is not recorded pools with none, not even another such run.
    pub(crate) fn differences(&self, other: &Coordinates) -> Vec<Difference> {
        let [mode, arch, width] = self.matches(other);
        let mut out = vec![];
        let mut differ = |coordinate, same: bool, a: Option<String>, b: Option<String>| {
            if !same {
                out.push(Difference { coordinate, a, b });
            }
        };
        differ("mode", mode, self.mode.clone(), other.mode.clone());
        differ("arch", arch, self.arch.clone(), other.arch.clone());
        differ(
            "job width",
            width,
            self.job_width.map(|w| w.to_string()),
            other.job_width.map(|w| w.to_string()),
        );
        out
    }

    /// Whether mode, arch and job width each match, by the rule above.
    fn matches(&self, other: &Coordinates) -> [bool; 3] {
        fn same<T: PartialEq>(a: &Option<T>, b: &Option<T>, unknown_matches: bool) -> bool {
            match (a, b) {
                (None, None) => unknown_matches,
                (x, y) => x == y,
            }
        }
        [
            same(&self.mode, &other.mode, false),
            same(&self.arch, &other.arch, false),
            same(&self.job_width, &other.job_width, true),
        ]
    }

    /// Whether runs at these coordinates may be pooled or compared: no
    /// [`Coordinates::differences`] (asked for every pair of runs of a
    /// history, so it allocates nothing).
    pub(crate) fn pools_with(&self, other: &Coordinates) -> bool {
        self.matches(other) == [true; 3]
    }
}

impl Difference {
    /// The difference in words, the runs named `a` and `b`.
    pub(crate) fn reason(&self, a: &str, b: &str) -> String {
        let name = self.coordinate;
        match (&self.a, &self.b) {
            (None, None) => format!(
                "{name} is recorded for neither {a} nor {b}: a run whose mode or arch is unknown is pooled and compared with none"
            ),
            (x, y) => format!("{name} differs: {a} is {}, {b} is {}", show(x), show(y)),
        }
    }
}

/// A coordinate for a reason, its control characters escaped; `unknown` when not recorded.
fn show(v: &Option<String>) -> String {
    match v {
        Some(v) => format!("{v:?}").trim_matches('"').to_string(),
        None => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(mode: Option<&str>, arch: Option<&str>, width: Option<u32>) -> Coordinates {
        Coordinates {
            mode: mode.map(str::to_string),
            arch: arch.map(str::to_string),
            job_width: width,
        }
    }

    #[test]
    fn runs_pool_only_at_recorded_equal_mode_and_arch_and_equal_width() {
        let warm32 = at(Some("warm"), Some("gfx1201"), Some(32));
        assert!(warm32.pools_with(&warm32.clone()));
        assert!(!warm32.pools_with(&at(Some("cold"), Some("gfx1201"), Some(32))));
        assert!(!warm32.pools_with(&at(Some("warm"), Some("gfx950"), Some(32))));
        assert!(!warm32.pools_with(&at(Some("warm"), Some("gfx1201"), Some(10))));
        let d = warm32.differences(&at(Some("cold"), Some("gfx950"), Some(10)));
        let named: Vec<&str> = d.iter().map(|d| d.coordinate).collect();
        assert_eq!(named, ["mode", "arch", "job width"]);
    }

    #[test]
    fn an_unknown_job_width_matches_only_another_unknown_one() {
        let unrecorded = at(Some("warm"), Some("gfx1201"), None);
        let recorded = at(Some("warm"), Some("gfx1201"), Some(32));
        // A harness that never records the width: its runs pool together.
        assert!(unrecorded.pools_with(&unrecorded.clone()));
        // Recorded on one side only, on either side: not shown to match.
        assert!(!unrecorded.pools_with(&recorded));
        assert!(!recorded.pools_with(&unrecorded));
        let d = recorded.differences(&unrecorded);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].reason("a", "b"), "job width differs: a is 32, b is unknown");
    }

    #[test]
    fn an_unknown_mode_or_arch_pools_with_nothing_not_even_itself() {
        for lone in [
            at(None, Some("gfx1201"), Some(32)),
            at(Some("warm"), None, Some(32)),
            at(None, None, None),
        ] {
            assert!(!lone.known());
            assert!(!lone.pools_with(&lone.clone()), "{lone:?}");
            assert!(
                !lone.pools_with(&at(Some("warm"), Some("gfx1201"), Some(32))),
                "{lone:?}"
            );
        }
        let d = at(None, Some("gfx1201"), None).differences(&at(None, Some("gfx1201"), None));
        assert!(
            d[0].reason("a", "b")
                .starts_with("mode is recorded for neither a nor b"),
            "{d:?}"
        );
        let d = at(None, Some("gfx1201"), None).differences(&at(Some("warm"), Some("gfx1201"), None));
        assert_eq!(d[0].reason("a", "b"), "mode differs: a is unknown, b is warm");
    }
}
