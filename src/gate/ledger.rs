//! Which lane called which regression: a small file beside the runs
//! (`.perf-gate-calls.json`), so that when lanes share a root a regression
//! one lane called at 02:00 is open, not new, when another lane's gate sees
//! the same run at 14:00. The lane that called it stays red for it on a
//! retry of the same night: a re-run must not turn a red night green.

use super::night::Night;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A lane that shares its root with others: the arch, mode and job width it
/// gates (each `None`: any), and its name in the ledger.
#[derive(Debug, Clone, Default)]
pub struct Lane {
    pub arch: Option<String>,
    pub mode: Option<String>,
    pub jobs: Option<u32>,
    pub name: Option<String>,
}

impl Lane {
    /// Whether the lane gates `run`. A run whose coordinate is unknown
    /// (run.json unreadable or silent) is kept: it may be this lane's, and
    /// a lane must not turn green by not seeing it.
    pub fn keeps(&self, run: &crate::figures::Figures) -> bool {
        let fits = |want: Option<&String>, have: Option<&String>| want.zip(have).is_none_or(|(w, h)| w == h);
        fits(self.arch.as_ref(), run.arch.value())
            && fits(self.mode.as_ref(), run.mode.value())
            && self.jobs.zip(run.job_width.get()).is_none_or(|(w, h)| w == h)
    }

    /// Its name: as given, else its filters in words (`arch=gfx950`), else `all`.
    pub fn name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        let parts: Vec<String> = [
            self.arch.as_ref().map(|a| format!("arch={a}")),
            self.mode.as_ref().map(|m| format!("mode={m}")),
            self.jobs.map(|j| format!("jobs={j}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            "all".into()
        } else {
            parts.join(",")
        }
    }
}

/// The ledger's name under the root.
pub(crate) const FILE: &str = ".perf-gate-calls.json";

/// The most bytes a ledger may be: tens of thousands of calls.
const MAX_BYTES: u64 = 8 << 20;

/// The most calls it keeps: the oldest go first (a regression that old is
/// long accepted or recovered).
const MAX_CALLS: usize = 20_000;

/// Each regression's id, with the lane that called it first and the night.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub(crate) schema: u32,
    pub(crate) calls: BTreeMap<String, Call>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Call {
    pub(crate) lane: String,
    /// The stamp of the run it was called on.
    pub(crate) on: String,
}

impl Ledger {
    /// The ledger under `root`: empty when there is none; an error naming
    /// the file when it is not a regular file of at most 8 MiB of JSON.
    pub fn read(root: &Path) -> Result<Ledger, String> {
        let file = root.join(FILE);
        let shown = file.display();
        match std::fs::symlink_metadata(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ledger::default()),
            Err(e) => return Err(format!("{shown}: {e}")),
            Ok(m) if !m.is_file() => {
                return Err(format!(
                    "{shown}: not a regular file (a link, a FIFO or a folder is not read)"
                ))
            }
            Ok(_) => {}
        }
        let bytes = match crate::model::read_at_most(&file, MAX_BYTES) {
            Ok(Ok(b)) => b,
            Ok(Err(size)) => return Err(format!("{shown}: {size} bytes, more than a ledger may be (8 MiB)")),
            Err(e) => return Err(format!("{shown}: {e}")),
        };
        serde_json::from_slice(&bytes).map_err(|e| format!("{shown}: not a gate ledger: {e}"))
    }

    /// The regressions other lanes than `lane` called, with the lane.
    pub fn called_by_others(&self, lane: &str) -> BTreeMap<String, String> {
        self.calls
            .iter()
            .filter(|(_, c)| c.lane != lane)
            .map(|(id, c)| (id.clone(), c.lane.clone()))
            .collect()
    }

    /// Records the regressions `night` called as `lane`'s, unless another
    /// lane called them first. Whether anything was added.
    pub fn record(&mut self, lane: &str, night: &Night) -> bool {
        let before = self.calls.len();
        for run in &night.runs {
            for r in &run.called {
                self.calls.entry(r.shift.id.clone()).or_insert_with(|| Call {
                    lane: lane.to_string(),
                    on: run.stamp.clone(),
                });
            }
        }
        if self.calls.len() > MAX_CALLS {
            let mut by_night: Vec<(String, String)> =
                self.calls.iter().map(|(id, c)| (c.on.clone(), id.clone())).collect();
            by_night.sort();
            for (_, id) in by_night.iter().take(self.calls.len() - MAX_CALLS) {
                self.calls.remove(id);
            }
        }
        self.calls.len() != before
    }

    /// Writes it under `root` (a temporary name, then a rename).
    pub fn write(&self, root: &Path) -> crate::Result<()> {
        let mut text = serde_json::to_vec_pretty(&Ledger {
            schema: 1,
            calls: self.calls.clone(),
        })
        .map_err(|e| crate::Error::Write {
            path: root.join(FILE),
            error: std::io::Error::other(e),
        })?;
        text.push(b'\n');
        crate::output::write_atomic(&root.join(FILE), &text).map(|_| ())
    }
}
