use super::*;
use crate::figures::{Load, Step, TargetFigures, Value};

/// A night of a warm gfx1201 key: pytorch's build of `build` seconds in two
/// steps (the second, `[builder 2/2]`, takes what is not the first's 100 s),
/// at `revision`, its node loaded or not.
pub(crate) fn night(day: i64, build: f64, revision: &str, loaded: bool) -> Figures {
    let mut t = TargetFigures::unmeasured("not measured");
    t.set(Metric::Build, build).set(Metric::Total, build + 60.0);
    t.steps = vec![
        Step {
            name: "[builder 1/2] RUN pip install".into(),
            vertex: Some("v1".into()),
            us: 100_000_000,
            ran: true,
        },
        Step {
            name: format!("[builder 2/2] RUN git checkout {revision} && make"),
            vertex: Some(format!("v2-{revision}")),
            us: ((build - 100.0) * 1e6) as i64,
            ran: true,
        },
    ];
    t.load = Value(if loaded {
        Load::Loaded("n0 ended the run at load 41.0 on 32 cores".into())
    } else {
        Load::Clear
    });
    let mut f = Figures::dated(&format!("202612{:02}", day + 1), day, Some("warm"));
    f.revision = Value(revision.into());
    f.targets.insert("pytorch".into(), t);
    f
}

/// Nights 0..n at 1000 s with ±0.5% wobble, from night `at` on `jump` x.
pub(crate) fn history(n: i64, at: i64, jump: f64) -> Vec<Figures> {
    (0..n)
        .map(|d| {
            let wobble = [0.0, 4.0, -3.0, 2.0, -5.0, 3.0, -1.0][d as usize % 7];
            let (base, rev) = if d >= at {
                (1000.0 * jump, "8d01b6c5e2f9")
            } else {
                (1000.0, "3f9c2e1a7b44")
            };
            night(d, base + wobble, rev, false)
        })
        .collect()
}

fn judged(all: &[Figures]) -> KeyJudged<'_> {
    judge_all(all).into_iter().next().unwrap()
}

#[test]
fn a_revision_change_is_one_regression_explained_from_the_pair_either_side() {
    let all = history(24, 16, 1.2);
    let k = judged(&all);
    let r = k.regressions(all.len() - 1, &Accepted::default());
    let build: Vec<&Regression> = r.iter().filter(|r| r.shift.metric == Metric::Build).collect();
    assert_eq!(build.len(), 1, "{r:#?}");
    let b = build[0];
    assert_eq!(b.shift.id, "gfx1201.warm.j32/pytorch/build_s/20261217");
    assert_eq!(
        (b.shift.last_before.as_str(), b.shift.first.as_str()),
        ("20261216", "20261217")
    );
    assert_eq!(b.shift.called, "20261218", "called the night after it landed");
    assert_eq!(b.state, RegressionState::Open);
    assert_eq!(b.nights, 8);
    let c = &b.shift.cause;
    assert_eq!(c.revision_before.as_deref(), Some("3f9c2e1a7b44"));
    assert_eq!(c.revision_after.as_deref(), Some("8d01b6c5e2f9"));
    assert!(
        c.kinds.contains(&"command changed") && c.kinds.contains(&"revision change"),
        "{:?}",
        c.kinds
    );
    assert_eq!(
        c.steps[0].command_was.as_deref(),
        Some("[builder 2/2] RUN git checkout 3f9c2e1a7b44 && make")
    );
    assert!(c.why.contains("command changed, was"), "{}", c.why);
    // total_s moved with it, explained against the same pair.
    let total = r.iter().find(|r| r.shift.metric == Metric::Total).unwrap();
    assert_eq!(
        (total.shift.last_before.as_str(), total.shift.first.as_str()),
        ("20261216", "20261217")
    );
}

#[test]
fn a_regression_is_not_open_before_it_is_called_and_closes_when_the_level_returns() {
    let mut all = history(30, 16, 1.2);
    for f in &mut all[24..] {
        let d = f.started_us().unwrap() / 86_400_000_000;
        *f = night(d, 1000.0 + d as f64 % 3.0, "3f9c2e1a7b44", false);
    }
    let k = judged(&all);
    let none = Accepted::default();
    let is_build = |r: &&Regression| r.shift.metric == Metric::Build;
    assert!(
        k.regressions(16, &none).iter().filter(is_build).count() == 0,
        "landed, not yet called"
    );
    assert_eq!(
        k.regressions(17, &none).iter().find(is_build).unwrap().state,
        RegressionState::Open
    );
    let late = k.regressions(29, &none);
    let b = late.iter().find(is_build).unwrap();
    assert_eq!(b.state, RegressionState::Recovered { on: "20261225".into() });
}

#[test]
fn an_accepted_regression_says_so_by_its_id_or_its_targets() {
    let all = history(24, 16, 1.2);
    let k = judged(&all);
    let file = Accepted::parse(
        "[[accepted]]\nid = \"gfx1201.warm.j32/pytorch/build_s/20261217\"\nnote = \"new kernels; accepted\"\n",
    )
    .unwrap();
    let r = k.regressions(23, &file);
    let b = r.iter().find(|r| r.shift.metric == Metric::Build).unwrap();
    assert_eq!(
        b.state,
        RegressionState::Accepted {
            note: "new kernels; accepted".into()
        }
    );
    let t = r.iter().find(|r| r.shift.metric == Metric::Total).unwrap();
    assert_eq!(t.state, RegressionState::Open, "only the metric named");
    let all_of = Accepted::parse("[[accepted]]\nid = \"gfx1201.warm.j32/pytorch/*\"\nnote = \"x\"\n").unwrap();
    assert!(k
        .regressions(23, &all_of)
        .iter()
        .all(|r| matches!(r.state, RegressionState::Accepted { .. })));
    let bad = Accepted::parse("[[accepted]]\nid = \"x\"\n").unwrap_err();
    assert!(bad.contains("note"), "{bad}");
}

#[test]
fn a_one_night_cache_miss_is_no_change_of_level_and_a_loaded_night_none_either() {
    let mut all = history(24, 99, 1.0);
    // Night 12: its second step came from the layer cache before, ran now.
    for f in &mut all[..12] {
        let t = f.targets.get_mut("pytorch").unwrap();
        t.steps[1].ran = true;
    }
    let t = all[12].targets.get_mut("pytorch").unwrap();
    t.set(Metric::Build, 1600.0).set(Metric::Total, 1660.0);
    all[18] = night(18, 1500.0, "3f9c2e1a7b44", true);
    let k = judged(&all);
    assert!(k.shifts().is_empty(), "{:#?}", k.shifts());
    let (said, dev) = k.said("pytorch", Metric::Build, 12).unwrap();
    assert_eq!(said, Judged::Watched, "one night beyond is watched on its own night");
    assert!(dev.change_pct > 50.0);
    assert_eq!(k.said("pytorch", Metric::Build, 18).unwrap().0, Judged::Loaded);
}
