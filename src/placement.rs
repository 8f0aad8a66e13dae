//! `perfreport placement`: one run's placement view, and with `--history`
//! the medians over the runs under a root that pool with it
//! ([`Coordinates::pools_with`]: the same mode, arch and job width). A run
//! whose mode or arch is unknown pools with none.

use crate::analysis::pooling::Coordinates;
use crate::input::run_json;
use crate::model::{self, Run};
use crate::view::placement::{self, HistoryView, PlacementView};
use std::path::Path;

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
    let info = run.info.as_ref();
    let key = Coordinates::of_info(info);
    let mut header = HistoryView {
        root: root.display().to_string(),
        mode: info.and_then(|i| i.mode),
        arch: key.arch.clone(),
        max_jobs: key.job_width,
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
        if !key.pools_with(&Coordinates::of_info(info.as_ref())) {
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
        header.left_out.push(if !key.known() {
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
