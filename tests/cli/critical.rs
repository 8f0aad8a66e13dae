//! The critical path as a chain: `after=` and each node's queue followed
//! back from the run's last finish, with each link's wait and every
//! target's slack, on a hand-made run whose numbers are worked out by hand.

use crate::util::*;
use std::path::Path;

const T0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z

/// pytorch on strix 0-1000 s; triton-wheel on wifi `after=pytorch`,
/// 1001-3333 s; rccl-tests queued behind pytorch on strix, 1002-1200 s.
pub fn chain_run(dir: &Path) {
    std::fs::write(
        dir.join("run.json"),
        r#"{"stamp": "chain", "mode": "cold", "arch": "gfx1201", "targets": ["pytorch", "triton-wheel", "rccl-tests"],
            "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:55:33Z",
            "nodes": [{"name": "strix", "builder": "snoc-strix"}, {"name": "wifi", "builder": "snoc-wifi"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("placement.txt"),
        "placement target=pytorch node=strix queue=0 est_s=1000\n\
         placement target=triton-wheel node=wifi queue=0 est_s=2300 after=pytorch\n\
         placement target=rccl-tests node=strix queue=1 est_s=200\n",
    )
    .unwrap();
    for (target, s, e) in [
        ("pytorch", 0.0, 1000.0),
        ("triton-wheel", 1001.0, 3333.0),
        ("rccl-tests", 1002.0, 1200.0),
    ] {
        let trace = jaeger(
            T0,
            &[
                ("r", "0000000000000000", "build", s, e, &[]),
                ("s", "r", "[builder 1/1] RUN make", s + 1.0, e - 1.0, &[]),
            ],
        );
        std::fs::write(dir.join(format!("trace-{target}.json")), trace).unwrap();
    }
}

#[test]
fn the_critical_path_follows_after_from_the_last_finish_with_its_wait() {
    let run = tempfile::tempdir().unwrap();
    chain_run(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    let chain = d["critical_path"].as_array().expect("a chain");
    let names: Vec<&str> = chain.iter().map(|l| l["target"].as_str().unwrap()).collect();
    assert_eq!(names, ["pytorch", "triton-wheel"]);
    assert_eq!(chain[0]["waited_for"], serde_json::Value::Null);
    assert_eq!(chain[1]["waited_for"], "pytorch");
    assert_eq!(chain[1]["waited_how"], "after");
    assert_eq!(chain[1]["node"], "wifi");
    // Ready at the window's start, started at +1001 s.
    assert_eq!(chain[1]["wait_s"], 1001.0);
    assert_eq!(chain[1]["start"], "2026-10-20T02:16:41Z");
    // Slack: 0 on the chain; rccl-tests could have ended at the run's end.
    assert_eq!(target(&d, "pytorch")["slack_s"], 0.0);
    assert_eq!(target(&d, "triton-wheel")["slack_s"], 0.0);
    assert_eq!(target(&d, "rccl-tests")["slack_s"], 2133.0);
    // wifi's idle start was a wait for pytorch, not nothing to do.
    let wifi = node(&d, "wifi");
    assert_eq!(wifi["waiting_s"], 1001.0);
    assert_eq!(wifi["idle_s"], 1001.0 + 0.0);
    assert_eq!(wifi["nothing_to_do_s"], 0.0);
    // strix idled after rccl-tests with nothing to do: the window's last 3333 - 1200 = 2133 s.
    assert_eq!(node(&d, "strix")["waiting_s"], 0.0);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("pytorch on strix 16m40s → triton-wheel on wifi 38m52s, which waited 16m41s for pytorch"),
        "{md}"
    );
}

#[test]
fn the_critical_path_is_null_with_its_reason_while_a_record_is_open() {
    let run = tempfile::tempdir().unwrap();
    chain_run(run.path());
    // triton-wheel's root span has not ended: only its step is written.
    let trace = jaeger(T0, &[("s", "r", "[builder 1/1] RUN make", 1002.0, 2000.0, &[])]);
    std::fs::write(run.path().join("trace-triton-wheel.json"), trace).unwrap();
    let json = std::fs::read_to_string(run.path().join("run.json")).unwrap();
    std::fs::write(
        run.path().join("run.json"),
        json.replace(r#""2026-10-20T02:55:33Z""#, "null"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let d = data(out.path());
    assert!(d["critical_path"].is_null());
    let why = d["why_null"]["critical_path"].as_str().unwrap();
    assert!(why.starts_with("still building on wifi"), "{why}");
    assert!(target(&d, "pytorch")["slack_s"].is_null());
    assert!(target(&d, "pytorch")["why_null"]["slack_s"].is_string());
}
