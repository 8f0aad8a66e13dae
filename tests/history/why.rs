//! Why a figure moved: a generated history where pytorch's wheel step slows
//! under a new vertex and revision from one night on, and one night misses
//! the layer cache for its dependencies. Compare, gate and history name the
//! right step and night, and none calls the miss a change of level. The
//! nights' traces rotate through Jaeger, OTLP/JSON and span stubs.

use super::{stamp, write_night, Night};
use crate::util::{fixture_run, perfreport};
use serde_json::{json, Value};
use std::path::Path;

/// From this night on the wheel step takes 560 s instead of 420 s, under a new vertex and revision.
const WHEEL_NIGHT: u32 = 12;
/// This night the dependencies step missed the layer cache and ran for 300 s
/// (late enough that the new level has its nights and the noise is known).
const MISS_NIGHT: u32 = 16;
const NIGHTS: u32 = 20;
const OLD_REV: &str = "3f9c2e1a5b6c7d8e";
const NEW_REV: &str = "8d01b6c5a4f3e2d1";
const WHEEL: &str = "RUN MAX_JOBS=10 python setup.py bdist_wheel";
const DEPS: &str = "RUN pip install -r requirements.txt";

/// A span: (id, parent, name, start_s, end_s, vertex).
type Span<'a> = (&'a str, &'a str, String, f64, f64, Option<&'a str>);

/// The same spans in the encoding this night uses.
fn encode(night: u32, t0_us: i64, spans: &[Span]) -> String {
    let us = |s: f64| t0_us + (s * 1e6) as i64;
    match night % 3 {
        0 => {
            let spans: Vec<Value> = spans
                .iter()
                .map(|(id, parent, name, s, e, v)| {
                    json!({"traceID": "0123456789abcdef", "spanID": id, "operationName": name,
                        "references": [{"refType": "CHILD_OF", "traceID": "0123456789abcdef", "spanID": parent}],
                        "startTime": us(*s), "duration": ((e - s) * 1e6) as i64,
                        "tags": v.iter().map(|v| json!({"key": "vertex", "type": "string", "value": v})).collect::<Vec<_>>()})
                })
                .collect();
            json!({"data": [{"traceID": "0123456789abcdef", "spans": spans}]}).to_string()
        }
        1 => {
            let spans: Vec<Value> = spans
                .iter()
                .map(|(id, parent, name, s, e, v)| {
                    json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": id, "parentSpanId": parent,
                        "name": name, "startTimeUnixNano": (us(*s) * 1000).to_string(),
                        "endTimeUnixNano": (us(*e) * 1000).to_string(),
                        "attributes": v.iter().map(|v| json!({"key": "vertex", "value": {"stringValue": v}})).collect::<Vec<_>>()})
                })
                .collect();
            json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
        }
        _ => spans
            .iter()
            .map(|(id, parent, name, s, e, v)| {
                let t = |x| perfreport::timefmt::format_rfc3339(us(x));
                json!({"Name": name, "SpanContext": {"TraceID": "0123456789abcdef", "SpanID": id},
                    "Parent": {"SpanID": parent}, "StartTime": t(*s), "EndTime": t(*e),
                    "Attributes": v.iter().map(|v| json!({"Key": "vertex", "Value": {"Type": "STRING", "Value": v}})).collect::<Vec<_>>()})
                .to_string()
                    + "\n"
            })
            .collect(),
    }
}

/// The wheel step's seconds: 420 within ±0.5% before WHEEL_NIGHT, 560 after.
fn wheel_s(night: u32) -> f64 {
    let jitter = [0.0, 0.004, -0.003, 0.002, -0.005, 0.001][night as usize % 6];
    (if night >= WHEEL_NIGHT { 560.0 } else { 420.0 }) * (1.0 + jitter)
}

/// A root of nightly runs whose pytorch trace has three steps.
fn root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for night in 0..NIGHTS {
        let dir = write_night(root.path(), &Night::plain(night));
        let run_json = dir.join("run.json");
        let mut run: Value = serde_json::from_str(&std::fs::read_to_string(&run_json).unwrap()).unwrap();
        run["revision"] = Value::from(if night >= WHEEL_NIGHT { NEW_REV } else { OLD_REV });
        std::fs::write(&run_json, run.to_string()).unwrap();
        let t0 = perfreport::timefmt::parse_rfc3339(run["started_at"].as_str().unwrap()).unwrap();
        let miss = night == MISS_NIGHT;
        let deps_end = if miss { 330.1 } else { 30.3 };
        let wheel_end = deps_end + wheel_s(night);
        let wheel_vertex = if night >= WHEEL_NIGHT {
            "sha256:wheel-new"
        } else {
            "sha256:wheel-old"
        };
        // Renumbered and padded on the nights after the change: matched all the same.
        let (n, m) = if night >= WHEEL_NIGHT { ("4", "4") } else { ("3", "3") };
        let deps = format!("[pytorch builder  2/{m}] {DEPS}");
        let mut spans: Vec<Span> = vec![
            ("a1", "0000000000000000", "pytorch".into(), 10.0, wheel_end + 60.0, None),
            (
                "a2",
                "a1",
                format!("load cache: [builder 1/{m}] FROM rocm/dev"),
                30.0,
                30.1,
                Some("sha256:from"),
            ),
            (
                "a4",
                "a1",
                format!("[builder {n}/{m}] {WHEEL}"),
                deps_end,
                wheel_end,
                Some(wheel_vertex),
            ),
        ];
        spans.push(if miss {
            ("a3", "a1", deps, 30.1, deps_end, Some("sha256:deps"))
        } else {
            (
                "a3",
                "a1",
                format!("load cache: {deps}"),
                30.1,
                deps_end,
                Some("sha256:deps"),
            )
        });
        std::fs::write(dir.join("trace-pytorch.json"), encode(night, t0, &spans)).unwrap();
    }
    root
}

fn json_of(args: &[&str]) -> (Option<i32>, Value) {
    let o = perfreport(args);
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code(), v)
}

fn pytorch(c: &Value) -> &Value {
    c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["target"] == "pytorch")
        .unwrap()
}

fn compare(root: &Path, a: u32, b: u32) -> (Value, String) {
    let (ra, rb) = (root.join(stamp(a)), root.join(stamp(b)));
    let (ra, rb) = (ra.to_str().unwrap(), rb.to_str().unwrap());
    let (_, c) = json_of(&["compare", ra, rb, "--json"]);
    let text = String::from_utf8_lossy(&perfreport(&["compare", ra, rb]).stdout).into_owned();
    (c, text)
}

#[test]
fn compare_names_the_slower_step_its_new_vertex_and_revision_and_the_one_night_cache_miss() {
    let root = root();
    // Night 11 (span stubs) against night 12 (Jaeger): the wheel step changed.
    let (c, text) = compare(root.path(), WHEEL_NIGHT - 1, WHEEL_NIGHT);
    assert_eq!(
        (c["revision_a"].as_str(), c["revision_b"].as_str()),
        (Some(OLD_REV), Some(NEW_REV))
    );
    let t = pytorch(&c);
    let top = &t["steps"][0];
    assert_eq!(top["step"], format!("[builder 4/4] {WHEEL}"), "{t}");
    assert_eq!((top["a"].as_str(), top["b"].as_str()), (Some("ran"), Some("ran")));
    assert_eq!(top["vertex_changed"], true);
    assert!((top["delta_s"].as_f64().unwrap() - (wheel_s(12) - wheel_s(11))).abs() < 0.01);
    assert_eq!(
        t["steps"].as_array().unwrap().len(),
        3,
        "every step, renumbered ones matched: {t}"
    );
    assert!(t["steps_explain_pct"].as_f64().unwrap() > 95.0, "{t}");
    assert!(
        text.contains(&format!(
            "pytorch build_s +140 s: `[builder 4/4] {WHEEL}` 7m00s → 9m20s (vertex changed; revision 3f9c2e1a5b6c → 8d01b6c5a4f3); no other step moved more than 5 s."
        )),
        "{text}"
    );
    // The miss night (OTLP) ran its dependencies instead of loading them: a layer-cache miss.
    let (c, text) = compare(root.path(), MISS_NIGHT - 1, MISS_NIGHT);
    let top = &pytorch(&c)["steps"][0];
    assert_eq!(top["step"], format!("[pytorch builder  2/4] {DEPS}"));
    assert_eq!((top["a"].as_str(), top["b"].as_str()), (Some("cached"), Some("ran")));
    assert_eq!(
        (top["vertex_changed"].as_bool(), top["layer_cache_miss"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(text.contains("(layer-cache miss)"), "{text}");
    assert!(
        c["revision_a"] == c["revision_b"] && !text.contains("revision 3f9c"),
        "{text}"
    );
}

#[test]
fn history_finds_the_change_of_level_and_names_its_step_but_not_the_one_night_miss() {
    let root = root();
    let out = tempfile::tempdir().unwrap();
    let o = super::history(root.path(), out.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let h: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("history.json")).unwrap()).unwrap();
    let key = &h["keys"].as_array().unwrap()[0];
    let build = &key["targets"]["pytorch"]["build_s"];
    let cp = &build["change_point"];
    assert_eq!(
        cp["stamp"],
        stamp(WHEEL_NIGHT),
        "the night of the new level, not the miss: {cp}"
    );
    // The build is the wheel step and 0.3 s before it, ±0.5%.
    assert!((cp["before_median"].as_f64().unwrap() - 420.3).abs() < 2.0, "{cp}");
    assert!((cp["after_median"].as_f64().unwrap() - 560.3).abs() < 2.0, "{cp}");
    assert!((cp["delta_pct"].as_f64().unwrap() - 33.3).abs() < 0.5, "{cp}");
    assert_eq!(cp["steps"][0]["step"], format!("[builder 4/4] {WHEEL}"));
    assert_eq!(cp["steps"][0]["vertex_changed"], true);
    assert_eq!(
        (cp["revision_before"].as_str(), cp["revision_after"].as_str()),
        (Some(OLD_REV), Some(NEW_REV))
    );
    // vllm's build never moved: no change of level, and the reason.
    let vllm = &key["targets"]["vllm"]["build_s"];
    assert!(vllm["change_point"].is_null());
    assert!(vllm["why_null"]["change_point"]
        .as_str()
        .unwrap()
        .contains("one outlier night is no change of level"));
    let md = std::fs::read_to_string(out.path().join("history.md")).unwrap();
    assert!(
        md.contains(&format!("Change of level from {}", stamp(WHEEL_NIGHT)))
            && md.contains(&format!("`[builder 4/4] {WHEEL}`")),
        "{md}"
    );
    assert!(
        !md.contains(&format!("Change of level from {}", stamp(MISS_NIGHT))),
        "{md}"
    );
    // The wheel step keeps one line through its new vertex and its renumbering.
    let line = &key["step_durations"]["pytorch"][0];
    assert_eq!(line["step"], format!("[builder 4/4] {WHEEL}"), "{line}");
    assert_eq!(line["points"].as_array().unwrap().len(), NIGHTS as usize);
    assert_eq!(
        line["points"][WHEEL_NIGHT as usize]["value"].as_f64(),
        Some(wheel_s(WHEEL_NIGHT))
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("vertex changed; revision 3f9c2e1a5b6c → 8d01b6c5a4f3"),
        "{stdout}"
    );
}

/// The gate's check of pytorch's build that night (as JSON), its exit code and its text.
fn gate(root: &Path, night: u32) -> (Option<i32>, Value, String) {
    let (code, check) = super::gate_build(root, night);
    let run = root.join(stamp(night));
    let args = ["gate", run.to_str().unwrap(), "--history", root.to_str().unwrap()];
    let text = String::from_utf8_lossy(&perfreport(&args).stdout).into_owned();
    (code, check, text)
}

#[test]
fn gate_names_the_cache_miss_and_the_slower_step_on_their_own_nights_and_not_after() {
    let root = root();
    // The miss is one night beyond the level: watched (not red), and said as a miss.
    let (code, check, text) = gate(root.path(), MISS_NIGHT);
    assert_eq!(code, Some(0), "{check}");
    assert!(check["verdict"].as_str().unwrap().starts_with("watch: "), "{check}");
    let why = &check["why"];
    assert_eq!(
        why["steps"][0]["step"],
        format!("[pytorch builder  2/4] {DEPS}"),
        "{why}"
    );
    assert_eq!(why["steps"][0]["layer_cache_miss"], true);
    assert!(why["revision_before"].is_null(), "the pair shares a revision: {why}");
    assert!(text.contains("(layer-cache miss)"), "{text}");
    assert!(
        !text.contains("revision 3f9c"),
        "no revision change of nights before: {text}"
    );
    // The night after the miss is back at the level: one night moved no level.
    // (It sits at the wheel step's new level, whose change is open since.)
    let (code, check, _) = gate(root.path(), MISS_NIGHT + 1);
    assert_eq!(code, Some(0), "{check}");
    assert!(check["verdict"].as_str().unwrap().starts_with("open since"), "{check}");
    assert!(check["drift_pct"].as_f64().unwrap().abs() < 1.0, "{check}");
    // The wheel step's new level: watched on its night, red the night after,
    // explained from the pair either side of it.
    let (code, check, _) = gate(root.path(), WHEEL_NIGHT);
    assert_eq!(code, Some(0), "{check}");
    let (code, check, text) = gate(root.path(), WHEEL_NIGHT + 1);
    assert_eq!(
        (code, check["verdict"].as_str()),
        (Some(1), Some("REGRESSION")),
        "{check}"
    );
    let why = &check["why"];
    assert_eq!(why["against"], stamp(WHEEL_NIGHT - 1));
    assert_eq!(why["steps"][0]["step"], format!("[builder 4/4] {WHEEL}"));
    assert_eq!(why["steps"][0]["vertex_changed"], true);
    assert_eq!(
        (why["revision_before"].as_str(), why["revision_after"].as_str()),
        (Some(OLD_REV), Some(NEW_REV))
    );
    assert!(text.contains("revision 3f9c2e1a5b6c → 8d01b6c5a4f3"), "{text}");
    // The nights after: open since the change, weighed against the new level.
    // (Night 14 was loaded and 16 missed the cache: 17 is the new level's sixth night.)
    let (code, check, _) = gate(root.path(), WHEEL_NIGHT + 5);
    let open = format!("open since {} (night 6 at its new level)", stamp(WHEEL_NIGHT));
    assert_eq!(
        (code, check["verdict"].as_str()),
        (Some(0), Some(open.as_str())),
        "{check}"
    );
    assert!((check["expected"].as_f64().unwrap() - 560.0).abs() < 5.0, "{check}");
}

#[test]
fn the_real_fixtures_steps_carry_their_vertices_or_null() {
    let run = fixture_run();
    // Coordinates recorded, so the run and its copy may be compared.
    std::fs::write(run.path().join("run.json"), r#"{"mode": "warm", "arch": "gfx1201"}"#).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = crate::util::report(run.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = crate::util::data(out.path());
    let bake = crate::util::target(&d, "bake");
    let steps = bake["steps"].as_array().unwrap();
    let wheel = steps
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with("[test-go 2/2] RUN"))
        .unwrap();
    assert_eq!(
        wheel["vertex"],
        "sha256:0b3c6531279269810071b85e6f8ffba4ae61f6573d281bd79e63c6456daca816"
    );
    // The same run against itself with that step twice as long: compare names it.
    let b = tempfile::tempdir().unwrap();
    crate::util::copy_run(run.path(), b.path());
    let mut jaeger: Value =
        serde_json::from_str(&std::fs::read_to_string(b.path().join("trace-bake.json")).unwrap()).unwrap();
    for s in jaeger["data"][0]["spans"].as_array_mut().unwrap() {
        if s["operationName"].as_str().unwrap().starts_with("[test-go 2/2] RUN") {
            let d = s["duration"].as_i64().unwrap();
            s["duration"] = Value::from(2 * d);
        }
    }
    std::fs::write(b.path().join("trace-bake.json"), jaeger.to_string()).unwrap();
    let (_, c) = json_of(&[
        "compare",
        run.path().to_str().unwrap(),
        b.path().to_str().unwrap(),
        "--json",
    ]);
    let bake = c["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["target"] == "bake")
        .unwrap();
    let top = &bake["steps"][0];
    assert!(top["step"].as_str().unwrap().starts_with("[test-go 2/2] RUN"), "{bake}");
    assert_eq!(top["vertex_changed"], false);
    assert!((top["delta_s"].as_f64().unwrap() - 85.957).abs() < 0.01, "{top}");
}

#[test]
fn a_hostile_step_name_reaches_the_terminal_quoted_and_markdown_as_one_code_span() {
    let root = tempfile::tempdir().unwrap();
    let name = "[builder 1/1] RUN echo `x` \u{1b}[2J \u{202e}evil\nforged | row";
    for night in [0, 1] {
        let dir = write_night(root.path(), &Night::plain(night));
        let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        let t0 = perfreport::timefmt::parse_rfc3339(run["started_at"].as_str().unwrap()).unwrap();
        let end = if night == 0 { 430.0 } else { 830.0 };
        let spans: Vec<Span> = vec![
            ("b1", "0000000000000000", "pytorch".into(), 10.0, end + 10.0, None),
            ("b2", "b1", name.into(), 30.0, end, None),
        ];
        std::fs::write(dir.join("trace-pytorch.json"), encode(night, t0, &spans)).unwrap();
    }
    let (c, text) = compare(root.path(), 0, 1);
    assert_eq!(pytorch(&c)["steps"][0]["step"], name, "JSON keeps the name as it is");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("- pytorch build_s"))
        .expect("the why line");
    // One line: the name's newline, ESC and bidi override shown as escapes;
    // its `|` escaped (a table cell), its backticks a code span of their own.
    assert!(line.contains("forged \\| row 6m40s → 13m20s"), "{line}");
    assert!(line.contains("\\u{202e}evil") && line.contains("u{1b}"), "{line}");
    assert!(line.contains("RUN echo \\`x\\` "), "{line}");
}
