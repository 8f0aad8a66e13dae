//! `perfreport placement`: one run's placement view, and with `--history`
//! the medians over the runs under a root at the same coordinates (mode,
//! arch, job width). A run whose mode or arch is unknown is a key of its
//! own and pools with none.

use crate::input::run_json::{self, Mode, RunInfo};
use crate::model::{self, Run};
use crate::view::placement::{self, HistoryView, PlacementView};
use std::path::Path;

/// The coordinates runs must share to be pooled.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    mode: Option<Mode>,
    arch: Option<String>,
    max_jobs: Option<u32>,
}

impl Key {
    fn of(info: Option<&RunInfo>) -> Key {
        Key {
            mode: info.and_then(|i| i.mode),
            arch: info.and_then(|i| i.arch.clone()),
            max_jobs: info.and_then(|i| i.job_width),
        }
    }

    /// Unknown mode or arch matches nothing, not even another unknown.
    fn pools_with(&self, other: &Key) -> bool {
        self.mode.is_some() && self.arch.is_some() && self == other
    }
}

/// The placement view of the run in `run_dir`, with the history's medians
/// when `history` names a root of runs.
pub fn placement(run_dir: &Path, history: Option<&Path>) -> crate::Result<PlacementView> {
    let run = model::load(run_dir)?;
    let mut p = crate::view::build(&run).placement;
    if let Some(root) = history {
        with_history(&mut p, &run, root);
    }
    Ok(p)
}

fn with_history(p: &mut PlacementView, run: &Run, root: &Path) {
    let key = Key::of(run.info.as_ref());
    let mut header = HistoryView {
        root: root.display().to_string(),
        mode: key.mode,
        arch: key.arch.clone(),
        max_jobs: key.max_jobs,
        runs: vec![p.stamp.clone()],
        ..Default::default()
    };
    let this = run.dir.canonicalize().ok();
    let mut others: Vec<PlacementView> = vec![];
    let mut elsewhere = 0;
    for dir in crate::runs::list(root) {
        if dir.canonicalize().ok() == this {
            continue;
        }
        let name = dir.display().to_string();
        let info = model::RunDir::new(&dir, model::Links::StayInside)
            .read_at_most(model::RUN_JSON, model::RUN_JSON_MAX)
            .and_then(|data| run_json::parse(&data).0);
        if !key.pools_with(&Key::of(info.as_ref())) {
            elsewhere += 1;
            continue;
        }
        match model::load(&dir) {
            Ok(r) if r.in_flight() => header.left_out.push(format!("{name}: in flight")),
            Ok(r) if r.stamp() == p.stamp => header.left_out.push(format!("{name}: this run's stamp again")),
            Ok(r) => others.push(crate::view::build(&r).placement),
            Err(e) => header.left_out.push(format!("{name}: {e}")),
        }
    }
    if elsewhere > 0 {
        header.left_out.push(if key.mode.is_none() || key.arch.is_none() {
            format!(
                "{elsewhere} {}: this run's mode or arch is unknown, so it pools with none",
                runs(elsewhere)
            )
        } else {
            format!(
                "{elsewhere} {} at other coordinates (mode, arch or job width)",
                runs(elsewhere)
            )
        });
    }
    others.sort_by(|a, b| a.stamp.cmp(&b.stamp));
    header.runs.extend(others.iter().map(|o| o.stamp.clone()));
    explain_header(&mut header);
    let runs: Vec<&PlacementView> = others.iter().collect();
    let mine = p.clone();
    let all: Vec<&PlacementView> = std::iter::once(&mine).chain(runs).collect();
    placement::apply_history(p, &all, header);
}

fn runs(n: usize) -> &'static str {
    if n == 1 {
        "run"
    } else {
        "runs"
    }
}

fn explain_header(h: &mut HistoryView) {
    let why = |key: &str| format!("this run's run.json has no `{key}`");
    if h.mode.is_none() {
        h.why_null.insert("mode".into(), why("mode"));
    }
    if h.arch.is_none() {
        h.why_null.insert("arch".into(), why("arch"));
    }
    if h.max_jobs.is_none() {
        h.why_null.insert("max_jobs".into(), why("max_jobs"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_pool_only_at_known_equal_coordinates() {
        let key = |mode, arch: Option<&str>, jobs| Key {
            mode,
            arch: arch.map(str::to_string),
            max_jobs: jobs,
        };
        let warm = key(Some(Mode::Warm), Some("gfx1201"), None);
        assert!(warm.pools_with(&key(Some(Mode::Warm), Some("gfx1201"), None)));
        assert!(!warm.pools_with(&key(Some(Mode::Cold), Some("gfx1201"), None)));
        assert!(!warm.pools_with(&key(Some(Mode::Warm), Some("gfx1201"), Some(10))));
        let unknown = key(None, Some("gfx1201"), None);
        assert!(!unknown.pools_with(&unknown.clone()));
    }
}
