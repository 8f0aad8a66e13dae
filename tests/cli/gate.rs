//! `perfreport gate`: the regression gate on history or expectations.

use crate::util::*;
use serde_json::Value;

#[test]
fn gate_fails_on_a_regression_not_on_noise_and_says_what_it_cannot_gate() {
    let dir = tempfile::tempdir().unwrap();
    let expect = dir.path().join("expectations.json");
    let exp = expect.to_str().unwrap();
    let cold = sample(COLD);
    assert!(
        perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp, "--update"])
            .status
            .success()
    );
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let mut e: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap()).unwrap();
    let build = e["targets"]["pytorch"]["build_s"].as_f64().unwrap();
    // Expected 30% faster than measured: the run regressed. 5% slower is inside the 10% band.
    e["targets"]["pytorch"]["build_s"] = Value::from(build / 1.3);
    e["targets"]["vllm"]["build_s"] = Value::from(e["targets"]["vllm"]["build_s"].as_f64().unwrap() / 1.05);
    e["targets"]["xformers"]["build_s"] = Value::from(e["targets"]["xformers"]["build_s"].as_f64().unwrap() * 1.5);
    e["targets"]["rccl-tests"]["upload_s"] = Value::from(2.0);
    e["targets"]["not-built"] = serde_json::json!({"total_s": 100.0});
    std::fs::write(&expect, serde_json::to_vec(&e).unwrap()).unwrap();
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let verdict = |t: &str, m: &str| {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"] == t && c["metric"] == m)
            .unwrap()["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(verdict("pytorch", "build_s"), "REGRESSION");
    assert_eq!(verdict("vllm", "build_s"), "ok");
    assert_eq!(verdict("xformers", "build_s"), "improved");
    assert!(verdict("rccl-tests", "upload_s").starts_with("ungateable: 2 s is below"));
    assert!(verdict("not-built", "total_s").contains("not in this run"));
    assert_eq!(r["regressions"], 1);
    // Expectations measured on another arch are refused, with the reason.
    e["coordinates"]["arch"] = Value::from("gfx950");
    std::fs::write(&expect, serde_json::to_vec(&e).unwrap()).unwrap();
    // That is unusable input for this run (exit 2), not a regression of it.
    let o = perfreport(&["gate", cold.to_str().unwrap(), "--expect", exp]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("arch differs"));
}
