//! `perfreport check`: each input's producer against its parser.

use crate::util::*;
use serde_json::Value;

#[test]
fn check_passes_a_sound_run_and_names_every_contract_break() {
    let o = perfreport(&["check", sample(COLD).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    // A run with one of each break.
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    std::fs::write(p.join("run.json"), r#"{"mode": "cold", "targets": ["bake", "ghost"], "started_at": "2024-01-12T14:57:00Z", "finished_at": "2024-01-12T15:00:00Z",
        "nodes": [{"name": "a", "addr": "10.0.0.1"}]}"#).unwrap();
    std::fs::copy(fixture("buildx-history-trace-jaeger.json"), p.join("trace-bake.json")).unwrap();
    std::fs::copy(fixture("otlp-example-trace.json"), p.join("trace-otlp.json")).unwrap();
    std::fs::write(
        p.join("placement.txt"),
        "placement target=bake node=a\nplacement target=otlp\n",
    )
    .unwrap();
    std::fs::write(p.join("zot.jsonl"), "starting zot\nlistening\n").unwrap();
    // The server writes a format the directive does not describe.
    std::fs::write(
        p.join("nginx-log-format"),
        "log_format sccache '$remote_addr [$time_local] \"$request\" $status $request_length';\n",
    )
    .unwrap();
    std::fs::write(
        p.join("sccache.log"),
        "10.0.0.1 - - [12/Jan/2024:14:58:00 +0000] \"GET /p/a/b/c/abcdef HTTP/1.1\" 200 10 \"-\" \"opendal\"\n",
    )
    .unwrap();
    // Samples from a node run.json does not know, an hour before the trace: clocks disagree.
    std::fs::write(
        p.join("samples.jsonl"),
        [
            r#"{"ts": "2024-01-12T13:00:00Z", "node": "b", "cpu": {"user": 1, "idle": 1}}"#,
            r#"{"ts": "2024-01-12T13:01:00Z", "node": "b", "cpu": {"user": 2, "idle": 2}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let o = perfreport(&["check", p.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let problems = |input: &str| -> String {
        let f = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["input"] == input)
            .unwrap_or_else(|| panic!("{input}"));
        assert_eq!(f["ok"], false, "{input} should fail");
        f["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(problems("zot.jsonl").contains("no record recognised"));
    let sccache = problems("sccache.log");
    assert!(
        sccache.contains("expected shape (sccache):") && sccache.contains("the line: 10.0.0.1 - -"),
        "{sccache}"
    );
    assert!(problems("placement.txt").contains("placement.txt:2: placement line without `node=`"));
    let otlp = problems("trace-otlp.json");
    assert!(
        otlp.contains("no root span") && otlp.contains("no step spans"),
        "{otlp}"
    );
    assert!(problems("trace-bake.json").contains("clocks may be skewed"));
    let run_level = problems("(run)");
    assert!(
        run_level.contains("trace-ghost.json: run.json lists target ghost but the run has no trace for it"),
        "{run_level}"
    );
    assert!(
        run_level.contains("node b, which run.json does not list"),
        "{run_level}"
    );
    // The plain form says the same for people.
    let text = String::from_utf8_lossy(&perfreport(&["check", p.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("FAIL  zot.jsonl"), "{text}");
}

#[test]
fn check_says_a_root_span_without_an_end_in_a_finished_run_as_such_not_as_a_missing_one() {
    let run = tempfile::tempdir().unwrap();
    let p = run.path();
    std::fs::write(
        p.join("run.json"),
        r#"{"mode": "cold", "arch": "gfx1201", "targets": ["bake"], "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T03:00:00Z"}"#,
    )
    .unwrap();
    // BuildKit's span stubs: the root's EndTime is Go's zero time, so it never ended.
    std::fs::write(
        p.join("trace-bake.json"),
        r#"{"Name": "build", "SpanContext": {"SpanID": "aa00000000000001"}, "Parent": {"SpanID": "0000000000000000"},
            "StartTime": "2026-10-20T02:00:00Z", "EndTime": "0001-01-01T00:00:00Z"}
{"Name": "[builder 1/1] RUN make", "SpanContext": {"SpanID": "aa00000000000002"}, "Parent": {"SpanID": "aa00000000000001"},
            "StartTime": "2026-10-20T02:00:01Z", "EndTime": "2026-10-20T02:10:00Z"}
"#,
    )
    .unwrap();
    let o = perfreport(&["check", p.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stdout));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let bake = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["input"] == "trace-bake.json")
        .unwrap();
    let problems = bake["problems"].to_string();
    assert!(problems.contains("the root span has not ended"), "{problems}");
    assert!(!problems.contains("no root span"), "{problems}");
}
