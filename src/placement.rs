//! `perfreport placement`: one run's placement view, and with `--history`
//! the medians over the runs under a root that pool with it
//! ([`Coordinates::pools_with`]: the same mode, arch and job width). A run
//! whose mode or arch is unknown pools with none.

use crate::analysis::pooling::Coordinates;
use crate::figures::Measured;
use crate::input::run_json;
use crate::measured::explained::WhyNull;
use crate::model::{self, Run};
use crate::view::placement::{self, CostHistory, PlacementView};
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
    pool(p, run, root, crate::runs::list(root));
}

/// The medians over `dirs`, the runs listed under `root`: each is read as
/// history and the gate read theirs, its folder opened once and read only
/// while, as opened, it lies inside the root (a folder re-pointed out of the
/// root after the listing is left out, not read).
fn pool(p: &mut PlacementView, run: &Run, root: &Path, dirs: Vec<std::path::PathBuf>) {
    let info = run.info.as_ref();
    let key = Coordinates::of_info(info);
    let unset = |key: &str| match info {
        Some(_) => format!("this run's run.json has no `{key}`"),
        None => "no run.json in this run".to_string(),
    };
    let mut header = CostHistory {
        root: root.display().to_string(),
        mode: Measured::from_option(info.and_then(|i| i.mode), || unset("mode")),
        arch: Measured::from_option(key.arch.clone(), || unset("arch")),
        max_jobs: Measured::from_option(key.job_width, || unset("max_jobs")),
        runs: vec![p.stamp.clone()],
        left_out: vec![],
        why_null: WhyNull,
    };
    let this = run.dir.canonicalize().ok();
    let mut others: Vec<PlacementView> = vec![];
    let mut elsewhere = 0;
    let real_root = root.canonicalize().ok();
    let read = model::Options {
        root: Some(root.to_path_buf()),
        ..Default::default()
    };
    for dir in dirs {
        if dir.canonicalize().ok() == this {
            continue;
        }
        let name = dir.display().to_string();
        let opened = model::RunDir::new(&dir, model::Links::StayInside);
        if !real_root.as_deref().is_some_and(|r| opened.lies_within(r)) {
            header.left_out.push(format!("{name}: {}", model::LEFT_THE_ROOT));
            continue;
        }
        let info = opened
            .read_at_most(model::RUN_JSON, model::RUN_JSON_MAX)
            .and_then(|data| run_json::parse(&data).0);
        if !key.pools_with(&Coordinates::of_info(info.as_ref())) {
            elsewhere += 1;
            continue;
        }
        match model::load_with_options(&dir, &read) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of the pool's coordinates stamped `stamp`, its registry log
    /// holding `line`.
    fn a_run(dir: &Path, stamp: &str, line: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let info = format!(
            r#"{{"stamp": "{stamp}", "mode": "warm", "arch": "gfx1201",
            "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:45:00Z"}}"#
        );
        std::fs::write(dir.join("run.json"), info).unwrap();
        std::fs::write(dir.join("zot.jsonl"), format!("{line}\n")).unwrap();
    }

    /// Found by attacking the runs under a root: history, the gate and
    /// publish read a run folder only while, as opened, it lies inside the
    /// root; `placement --history` loaded each listed folder by its name
    /// again, so a folder swapped for a link out of the root after the
    /// listing (`mv root/r2 root/.away; ln -s /elsewhere root/r2`) was pooled.
    #[test]
    fn placement_history_reads_no_run_folder_swapped_for_a_link_out_of_the_root() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        a_run(&root.path().join("r1"), "r1", "inside-line");
        a_run(&root.path().join("r2"), "r2", "inside-line");
        a_run(elsewhere.path(), "outside-5d2c", "secret-line-5d2c");
        let run = model::load(&root.path().join("r1")).unwrap();
        let listed = crate::runs::list(root.path());
        assert_eq!(listed.len(), 2);
        let r2 = root.path().join("r2");
        std::fs::rename(&r2, root.path().join(".away")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &r2).unwrap();
        let mut p = crate::view::build(&run).placement;
        pool(&mut p, &run, root.path(), listed);
        let h = p.history.as_ref().unwrap();
        assert_eq!(h.runs, vec!["r1".to_string()], "the outside run is not pooled");
        assert!(
            h.left_out.iter().any(|l| l.ends_with(model::LEFT_THE_ROOT)),
            "{:?}",
            h.left_out
        );
        // A link that stays inside the root is a run like any.
        std::fs::remove_file(&r2).unwrap();
        std::os::unix::fs::symlink(root.path().join(".away"), &r2).unwrap();
        let mut p = crate::view::build(&run).placement;
        pool(&mut p, &run, root.path(), crate::runs::list(root.path()));
        let runs = &p.history.as_ref().unwrap().runs;
        assert!(runs.contains(&"r2".to_string()), "{runs:?}");
    }
}
