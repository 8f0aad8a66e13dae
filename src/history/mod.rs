//! History: how each target's cost moved across the runs under a root.
//!
//! Per run its [`Figures`] are kept (each target's figures with every step,
//! each node's, the run's coordinates): what publish's manifest and
//! history's own cache store, so a history of a thousand runs reads no run's
//! logs twice. Runs are pooled only at the same coordinates ([`Key`]: mode, arch,
//! job width); the analysis is `analysis::spread`, the view `view`, the
//! outputs `render::history`.

pub mod bands;
pub mod collect;
pub(crate) mod regressions;
pub(crate) mod site;
pub mod view;
pub(crate) mod why;

use crate::analysis::pooling::Coordinates;
pub(crate) use crate::figures::Figures;

/// The coordinates runs must share to be pooled: two runs share a key
/// exactly when they pool ([`Coordinates::pools_with`], the rule stated
/// once). A run that pools with none, not even a run at its own coordinates
/// (mode or arch not recorded), is a key of its own (`lone` is its folder).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    /// Unknown keys sort after the known ones.
    pub(crate) lone: Option<String>,
    pub(crate) mode: Option<String>,
    pub(crate) arch: Option<String>,
    pub(crate) max_jobs: Option<u32>,
}

impl Figures {
    /// The coordinates it was measured at.
    pub(crate) fn coordinates(&self) -> Coordinates {
        Coordinates {
            mode: self.mode.value().cloned(),
            arch: self.arch.value().cloned(),
            job_width: self.job_width.get(),
        }
    }

    pub(crate) fn key(&self) -> Key {
        let c = self.coordinates();
        Key {
            lone: (!c.pools_with(&c)).then(|| self.dir.clone()),
            mode: c.mode,
            arch: c.arch,
            max_jobs: c.job_width,
        }
    }

    /// Oldest first: by run.json's start, then stamp, then folder; runs
    /// without a start sort before dated ones, as `runs::list` has them.
    pub(crate) fn order(&self) -> (Option<i64>, &str, &str) {
        (self.started_us(), &self.stamp, &self.dir)
    }
}

/// The key in words, for headings and the terminal.
pub(crate) fn key_label(k: &Key) -> String {
    let jobs = k
        .max_jobs
        .map(|j| format!("max_jobs {j}"))
        .unwrap_or_else(|| "max_jobs not recorded".into());
    match &k.lone {
        None => format!(
            "{} · {} · {jobs}",
            k.mode.as_deref().unwrap_or("?"),
            k.arch.as_deref().unwrap_or("?")
        ),
        Some(dir) => {
            let lacks: Vec<&str> = [("mode", &k.mode), ("arch", &k.arch)]
                .iter()
                .filter(|(_, v)| v.is_none())
                .map(|(n, _)| *n)
                .collect();
            format!("unknown: {dir} (run.json gives no {})", lacks.join(" or "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_share_a_key_exactly_when_the_rule_pools_them() {
        let run = |dir: &str, mode: Option<&str>, arch: Option<&str>, jobs: Option<u32>| {
            let mut f = Figures::unreadable(dir, String::new());
            f.left_out = None;
            let said = |x: Option<&str>| {
                crate::figures::Measured::from_option(x.map(str::to_string), || "not recorded".into())
            };
            (f.mode, f.arch) = (said(mode), said(arch));
            f.job_width = crate::figures::Measured::from_option(jobs, || "not recorded".into());
            f
        };
        let runs = [
            run("a", Some("warm"), Some("gfx1201"), Some(32)),
            run("b", Some("warm"), Some("gfx1201"), Some(32)),
            run("c", Some("warm"), Some("gfx1201"), None),
            run("d", Some("warm"), Some("gfx1201"), None),
            run("e", Some("cold"), Some("gfx1201"), None),
            run("f", None, Some("gfx1201"), None),
            run("g", None, Some("gfx1201"), None),
            run("h", Some("warm"), None, Some(32)),
        ];
        for x in &runs {
            for y in runs.iter().filter(|y| y.dir != x.dir) {
                let pools = x.coordinates().pools_with(&y.coordinates());
                assert_eq!(x.key() == y.key(), pools, "{} and {}", x.dir, y.dir);
            }
        }
        assert_eq!(runs[2].key(), runs[3].key(), "no width recorded on either: one key");
        assert_ne!(runs[0].key(), runs[2].key(), "a width on one side only: two keys");
        assert_ne!(runs[5].key(), runs[6].key(), "no mode: each run its own key");
    }
}
