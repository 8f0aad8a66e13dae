//! The read's pieces against values written here: the window and its step,
//! which nodes are asked for, and the polls the points make. The whole read
//! against servers, real and broken, is `tests/prometheus/`.

use super::*;
use crate::input::lines::LineSink;
use crate::input::run_json::NodeInfo;
use crate::input::samples::kept::Kept;

fn server() -> Server {
    Server::new(
        "http://127.0.0.1:9",
        http::DEFAULT_TIMEOUT,
        http::DEFAULT_DEADLINE,
        &|_| None,
    )
    .unwrap()
}

fn node(name: &str, addr: Option<&str>, instance: Option<&str>) -> NodeInfo {
    NodeInfo {
        name: name.into(),
        addr: addr.map(Into::into),
        instance: instance.map(Into::into),
        ..Default::default()
    }
}

fn info(hours: i64, poll_s: Option<f64>) -> RunInfo {
    let start = timefmt::parse_rfc3339("2026-10-20T02:00:00.250Z").unwrap();
    RunInfo {
        started_at: Some(start),
        finished_at: Some(start + hours * 3_600_000_000),
        poll_s,
        nodes: vec![node("strix", Some("10.0.3.12"), None)],
        ..Default::default()
    }
}

#[test]
fn the_window_is_read_at_the_poll_step_and_a_long_one_at_a_wider_step_said() {
    let p = plan(&server(), Some(&info(1, None)), 0).unwrap();
    assert_eq!(
        (p.start, p.step),
        (timefmt::parse_rfc3339("2026-10-20T02:00:00.250Z").unwrap(), 5_000_000)
    );
    assert_eq!(p.steps, 721, "an hour at 5 s, both ends");
    assert!(p.warnings.is_empty());
    let p = plan(&server(), Some(&info(1, Some(2.0))), 0).unwrap();
    assert_eq!((p.step, p.steps), (2_000_000, 1801), "run.json's poll_s");
    let p = plan(&server(), Some(&info(24 * 30, None)), 0).unwrap();
    assert!(p.steps <= MAX_POINTS, "{} steps", p.steps);
    assert_eq!(p.step % 1_000_000, 0, "whole seconds");
    assert!(p.warnings[0].contains("read at a step of"), "{:?}", p.warnings);
}

#[test]
fn a_run_in_flight_is_read_to_now_and_a_run_without_a_window_or_nodes_asks_nothing() {
    let mut i = info(1, None);
    i.finished_at = None;
    let now = i.started_at.unwrap() + 60_000_000;
    assert_eq!(plan(&server(), Some(&i), now).unwrap().steps, 13);
    assert!(plan(&server(), None, now).unwrap_err().contains("no run.json"));
    i.started_at = None;
    assert!(plan(&server(), Some(&i), now).unwrap_err().contains("`started_at`"));
    let mut i = info(1, None);
    i.nodes.clear();
    let e = plan(&server(), Some(&i), now).unwrap_err();
    assert!(e.contains("no nodes") && e.contains("http://127.0.0.1:9"), "{e}");
}

#[test]
fn each_node_is_asked_for_once_by_its_instance_and_one_that_cannot_be_says_why() {
    let mut i = info(1, None);
    i.nodes = vec![
        node("strix", Some("10.0.3.12"), None),
        node("think", Some("10.0.3.14"), Some("think.lab:9100")),
        node("ghost", None, None),
        node("twin", Some("10.0.3.12"), None),
        node("strix", Some("10.0.3.99"), None),
        node("bell", None, Some("a\u{7}b")),
    ];
    let (asked, unasked) = nodes_to_ask(&i);
    assert_eq!(
        asked,
        vec![
            ("strix".to_string(), "10.0.3.12:9100".to_string()),
            ("think".to_string(), "think.lab:9100".to_string())
        ]
    );
    let why: BTreeMap<&str, &str> = unasked.iter().map(|(n, _, w)| (n.as_str(), w.as_str())).collect();
    assert!(why["ghost"].contains("neither an `instance` nor an `addr`"));
    assert!(why["twin"].contains("node strix's too"));
    assert!(why["bell"].contains("control character"));
}

#[test]
fn a_point_is_placed_on_its_step_and_one_off_the_steps_is_not() {
    let g = Grid {
        start: 1_792_461_600_000_000,
        step: 5_000_000,
        steps: 10,
    };
    assert_eq!(g.index(1_792_461_600.0), Some(0));
    assert_eq!(g.index(1_792_461_645.0), Some(9));
    assert_eq!(g.index(1_792_461_650.0), None, "past the request's steps");
    assert_eq!(g.index(1_792_461_602.5), None, "between two steps");
    assert_eq!(g.index(1_792_461_595.0), None);
    assert_eq!(g.index(f64::NAN), None);
}

#[test]
fn a_poll_is_the_line_the_harness_writes_and_reads_back_as_its_figures() {
    let mut c = Cells::new(2);
    for (mode, v) in [("user", 80005.6), ("idle", 990304.4), ("iowait", 309.4), ("steal", 0.5)] {
        c.cpu.insert(mode.to_string(), vec![Some(v), None]);
    }
    c.gauges[gauge(Figure::MemTotal).unwrap()][0] = Some(137438953472.0);
    c.gauges[gauge(Figure::MemAvailable).unwrap()][0] = Some(123556059302.0);
    c.gauges[gauge(Figure::NetTx).unwrap()][0] = Some(1100003886.0);
    c.gauges[gauge(Figure::Load1).unwrap()][1] = Some(0.64);
    let ts = timefmt::parse_rfc3339("2026-10-20T02:00:00.045Z").unwrap();
    let line = c.line(ts, "str\"ix", 0);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["ts"], "2026-10-20T02:00:00.045Z");
    assert_eq!(v["node"], "str\"ix");
    assert_eq!(v["cpu"]["idle"], 990304.4);
    assert_eq!(v["mem"]["total"], 137438953472.0);
    assert!(v["net"].get("rx").is_none() && v["net"]["tx"] == 1100003886.0);
    assert!(v.get("disk").is_none() && v.get("load1").is_none(), "{line}");
    let mut sink = Samples::<Kept>::default();
    assert!(matches!(
        sink.line(line.as_bytes()),
        crate::input::lines::Outcome::Record
    ));
    sink.finish();
    let s = sink.by_node["str\"ix"].polls[0];
    assert_eq!(s.ts, ts);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-6);
    assert!(
        near(s.cpu_idle, 990304.4 + 309.4 + 0.5),
        "idle, iowait and steal are not busy"
    );
    assert!(near(s.cpu_total, 80005.6 + 990304.4 + 309.4 + 0.5), "every mode counts");
    assert_eq!(s.mem_available, Some(123556059302.0));
    let only_load = c.line(ts, "n", 1);
    assert_eq!(
        only_load,
        r#"{"ts":"2026-10-20T02:00:00.045Z","node":"n","load1":0.64}"#
    );
}

#[test]
fn a_read_that_asks_nothing_gives_every_node_the_reason_and_breaks_the_contract() {
    let mut i = info(1, None);
    i.started_at = None;
    i.nodes.push(node("think", Some("10.0.3.14"), None));
    let r: Reading<Kept> = failed(&server(), Some(&i), "no start".into(), None);
    assert!(r.report.present && r.report.contract_broken);
    assert_eq!(r.unsampled["think"], "prometheus: no start");
    let source = r.report.source.unwrap();
    assert_eq!(source.server, "http://127.0.0.1:9");
    assert_eq!(source.nodes["strix"].instance.as_deref(), Some("10.0.3.12:9100"));
}
