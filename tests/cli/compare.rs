//! `perfreport compare`: what changed between two runs, and the provenance
//! compare and gate carry.

use crate::util::*;
use serde_json::Value;

#[test]
fn compare_refuses_another_mode_and_ranks_only_outside_the_noise() {
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        sample(WARM).to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Not comparable")
            && text.contains("mode differs: 20261020T020000Z is cold, 20261021T020000Z is warm"),
        "{text}"
    );
    assert!(!text.contains("slower") && !text.contains("faster"));
    // B: rocm-base's record took twice as long, and pytorch moved from strix to kiln.
    let b = pinned_copy(COLD);
    stretch_root(&b.path().join("trace-rocm-base.json"), 2.0);
    let placement = std::fs::read_to_string(b.path().join("placement.txt")).unwrap();
    std::fs::write(
        b.path().join("placement.txt"),
        placement.replace("target=pytorch node=strix", "target=pytorch node=kiln"),
    )
    .unwrap();
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        b.path().to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success());
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let change = |t: &str, m: &str| {
        let t = c["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["target"] == t)
            .unwrap();
        t["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["metric"] == m)
            .unwrap()
            .clone()
    };
    assert_eq!(change("rocm-base", "total_s")["verdict"], "slower");
    assert_eq!(change("rocm-base", "build_s")["verdict"], "unchanged");
    assert_eq!(change("vllm", "total_s")["verdict"], "unchanged");
    let pytorch = c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["target"] == "pytorch")
        .unwrap();
    assert!(pytorch["moved"].as_str().unwrap().contains("moved from strix to kiln"));
    // With a history whose rocm-base totals spread widely, a +20% change is
    // noise. The history's runs started before B (a band never rests on a
    // run after it): each run.json starts a day earlier per copy.
    let history = tempfile::tempdir().unwrap();
    for (i, f) in [0.6, 1.0, 1.6].iter().enumerate() {
        let dst = history.path().join(format!("h{i}"));
        std::fs::create_dir(&dst).unwrap();
        copy_run(&sample(COLD), &dst);
        stretch_root(&dst.join("trace-rocm-base.json"), *f);
        let run_json = dst.join("run.json");
        let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&run_json).unwrap()).unwrap();
        r["started_at"] = Value::from(format!("2026-10-{:02}T02:00:00Z", 17 + i));
        std::fs::write(&run_json, r.to_string()).unwrap();
    }
    let c2 = pinned_copy(COLD);
    stretch_root(&c2.path().join("trace-rocm-base.json"), 1.2);
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        c2.path().to_str().unwrap(),
        "--history",
        history.path().to_str().unwrap(),
        "--json",
    ]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["target"] == "rocm-base")
        .unwrap();
    let total = t["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["metric"] == "total_s")
        .unwrap();
    assert_eq!(total["verdict"], "within noise", "{total}");
    assert!(total["band_from"].as_str().unwrap().contains("3 earlier runs"));
}

#[test]
fn compare_and_gate_outputs_carry_the_tool_and_both_runs_provenance() {
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        sample(COLD).to_str().unwrap(),
        "--json",
    ]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["tool"]["commit"], env!("PERFREPORT_COMMIT"));
    assert_eq!(c["provenance_a"]["run"]["arch"], "gfx1201");
    assert!(c["provenance_b"]["inputs"]["zot.jsonl"]["xxh3"].is_string());
    let md = String::from_utf8_lossy(
        &perfreport(&[
            "compare",
            sample(COLD).to_str().unwrap(),
            sample(COLD).to_str().unwrap(),
        ])
        .stdout,
    )
    .into_owned();
    assert!(
        md.contains("## Provenance") && md.contains(&format!("commit {}", env!("PERFREPORT_COMMIT"))),
        "{md}"
    );
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("e.json");
    perfreport(&[
        "gate",
        sample(COLD).to_str().unwrap(),
        "--expect",
        exp.to_str().unwrap(),
        "--update",
    ]);
    let g: Value = serde_json::from_slice(
        &perfreport(&[
            "gate",
            sample(COLD).to_str().unwrap(),
            "--expect",
            exp.to_str().unwrap(),
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(g["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(g["provenance"]["run"]["mode"], "cold");
}

#[test]
fn compare_refuses_a_job_width_recorded_for_one_run_only_and_warns_when_for_neither() {
    // The cold sample records no max_jobs; its copy records 32.
    let b = pinned_copy(COLD);
    let json = std::fs::read_to_string(b.path().join("run.json")).unwrap();
    let with_width = json.replacen('{', r#"{"max_jobs": 32, "#, 1);
    std::fs::write(b.path().join("run.json"), with_width).unwrap();
    let o = perfreport(&["compare", sample(COLD).to_str().unwrap(), b.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Not comparable")
            && text.contains("job width differs: 20261020T020000Z is unknown, 20261020T020000Z is 32"),
        "{text}"
    );
    // Neither records it: compared, with the width said to be unchecked.
    let o = perfreport(&[
        "compare",
        sample(COLD).to_str().unwrap(),
        sample(COLD).to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("⚠ neither run records its job width"), "{text}");
}
