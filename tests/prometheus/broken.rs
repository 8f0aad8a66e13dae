//! A server is an input like any other: one that cannot be reached, is
//! slow, answers an error, something that is not the API's JSON or too much,
//! or has no series for a node, is said naming the server and the node; that
//! node's figures are null with the reason and the rest of the run is
//! reported; `--strict` fails. Credentials never reach any output.

use super::{data, hand_run, mini_prometheus, perfreport_env, Answer, FakeServer};
use std::path::Path;

const STRIX: &str = "10.0.3.12";
const THINK: &str = "10.0.3.14";

/// `report` of a two-node run against `url`, with `extra` flags and `env`:
/// its exit code, stderr, and data.json.
fn report_against(
    url: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, serde_json::Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (run, out) = (dir.path().join("run"), dir.path().join("out"));
    std::fs::create_dir(&run).unwrap();
    hand_run(&run, &[("strix", STRIX), ("think", THINK)]);
    let mut args = vec![
        "report",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--prometheus",
        url,
    ];
    args.extend_from_slice(extra);
    let o = perfreport_env(&args, env);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(out.join("data.json").exists(), "the run is still reported: {stderr}");
    let d = data(&out);
    (o.status.code().unwrap_or(-1), stderr, d, dir)
}

fn node<'a>(d: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    super::super::node(d, name)
}

/// Each node's CPU mean is null, with a reason that names the server and says `what`.
fn every_node_null_naming(d: &serde_json::Value, url: &str, what: &str) {
    for n in ["strix", "think"] {
        let nv = node(d, n);
        assert!(nv["cpu_pct_mean"].is_null(), "{n}: {nv}");
        let why = nv["why_null"]["cpu_pct_mean"].as_str().unwrap_or_default();
        assert!(why.contains(url) && why.contains(what), "{n}: {why}");
    }
    let p = &d["inputs"]["prometheus"];
    assert_eq!(p["contract_broken"], true, "{p}");
    assert_eq!(p["source"]["server"], url);
}

#[test]
fn a_node_without_series_is_null_with_the_reason_and_the_other_node_is_reported() {
    let server = FakeServer::start(|t| mini_prometheus(t, &["10.0.3.12:9100"]));
    let (code, stderr, d, _dir) = report_against(&server.url, &[], &[]);
    assert_eq!(code, 0, "{stderr}");
    let strix = node(&d, "strix");
    // Busy a quarter of the time: user rises 2 a second of 8.
    assert_eq!(strix["cpu_pct_mean"], 25.0, "{strix}");
    assert_eq!(strix["mem_pct_max"], 60.0);
    let think = node(&d, "think");
    assert!(think["cpu_pct_mean"].is_null() && think["mem_pct_max"].is_null());
    let why = think["why_null"]["cpu_pct_mean"].as_str().unwrap();
    assert!(
        why.contains("no series for instance 10.0.3.14:9100") && why.contains(&server.url),
        "{why}"
    );
    assert!(
        stderr.contains("no series") && stderr.contains("think (10.0.3.14:9100)") && stderr.contains(&server.url),
        "{stderr}"
    );
    let p = &d["inputs"]["prometheus"];
    assert_eq!(p["contract_broken"], true);
    assert_eq!(p["source"]["nodes"]["think"]["points"], 0);
    assert!(p["source"]["nodes"]["strix"]["polls"].as_u64().unwrap() > 100, "{p}");
    assert_eq!(d["samples_source"], "prometheus");
    let (code, _, _, _dir) = report_against(&server.url, &["--strict"], &[]);
    assert_eq!(code, 1, "--strict fails on a node without series");
}

#[test]
fn an_unreachable_server_is_named_and_the_run_still_reported() {
    // A port nothing listens on: bound, then let go.
    let url = format!("http://127.0.0.1:{}", super::free_port());
    let (code, stderr, d, _dir) = report_against(&url, &[], &[]);
    assert_eq!(code, 0, "{stderr}");
    every_node_null_naming(&d, &url, "cannot reach");
    assert!(stderr.contains(&format!("cannot reach {url}")), "{stderr}");
    let p = &d["inputs"]["prometheus"];
    assert!(
        p["source"]["requests"].as_u64().unwrap() <= 4,
        "the requests left are not sent: {p}"
    );
    let (code, _, _, _dir) = report_against(&url, &["--strict"], &[]);
    assert_eq!(code, 1);
}

#[test]
fn a_server_too_slow_to_answer_is_given_up_after_its_timeout() {
    let server = FakeServer::start(|_| Answer::Silent);
    let (code, stderr, d, _dir) = report_against(&server.url, &["--prometheus-timeout", "0.5"], &[]);
    assert_eq!(code, 0, "{stderr}");
    every_node_null_naming(&d, &server.url, "gave no whole answer within");
}

#[test]
fn a_read_past_its_deadline_sends_no_more_requests_and_reports_what_came_before() {
    // Every answer takes 0.6 s: the first four requests (scrape times, CPU,
    // memory) are answered within the deadline, the next ones are not.
    let server = FakeServer::start(|t| {
        Answer::After(
            std::time::Duration::from_millis(600),
            Box::new(mini_prometheus(t, &["10.0.3.12:9100"])),
        )
    });
    let (code, stderr, d, _dir) = report_against(
        &server.url,
        &["--prometheus-timeout", "30", "--prometheus-deadline", "1"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("took longer than its deadline of 1s (--prometheus-deadline)") && stderr.contains(&server.url),
        "{stderr}"
    );
    let strix = node(&d, "strix");
    assert_eq!(strix["cpu_pct_mean"], 25.0, "what came in time is reported: {strix}");
    assert!(strix["load1_max"].is_null(), "{strix}");
    assert_eq!(d["inputs"]["prometheus"]["contract_broken"], true);
    assert_eq!(
        server.heads().len(),
        4 + 4,
        "the requests after the deadline are not sent"
    );
}

#[test]
fn an_error_status_is_quoted_with_the_servers_own_words() {
    for (status, body) in [
        (
            503,
            &br#"{"status":"error","errorType":"unavailable","error":"the store is warming up"}"#[..],
        ),
        (401, &b"Unauthorized\n"[..]),
    ] {
        let server = FakeServer::start(move |_| Answer::Reply(status, body.to_vec()));
        let (code, stderr, d, _dir) = report_against(&server.url, &[], &[]);
        assert_eq!(code, 0, "{stderr}");
        every_node_null_naming(&d, &server.url, &format!("answered {status}"));
        let said = if status == 503 {
            "the store is warming up"
        } else {
            "Unauthorized"
        };
        assert!(stderr.contains(said), "{stderr}");
    }
}

#[test]
fn an_answer_that_is_not_the_apis_json_is_said_as_such() {
    let server = FakeServer::start(|_| Answer::Reply(200, b"<html>a login page</html>".to_vec()));
    let (_, stderr, d, _dir) = report_against(&server.url, &[], &[]);
    every_node_null_naming(&d, &server.url, "not the API's JSON");
    assert!(stderr.contains("a login page"), "{stderr}");
}

#[test]
fn an_answer_past_the_size_cap_is_not_read() {
    let server = FakeServer::start(|_| Answer::Huge(40 << 20));
    let (_, _, d, _dir) = report_against(&server.url, &[], &[]);
    every_node_null_naming(&d, &server.url, "more than 32 MiB");
}

/// Everything a report of `dir` and the command left: every file's text, and the streams.
fn all_written(dir: &Path, stderr: &str) -> String {
    let mut all = stderr.to_string();
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
    {
        all.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
    }
    all
}

#[test]
fn credentials_reach_the_server_from_the_environment_and_no_output() {
    use base64::Engine;
    let (user, password, token) = ("perf-bot", "pw-4c1d-secret", "tok-9f2e-secret");
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    for (env, header) in [
        (
            vec![("PERF_PROMETHEUS_USER", user), ("PERF_PROMETHEUS_PASSWORD", password)],
            format!("Basic {basic}"),
        ),
        (vec![("PERF_PROMETHEUS_TOKEN", token)], format!("Bearer {token}")),
    ] {
        // Good answers for one node, an error for the other's: the warnings quote the server.
        let server = FakeServer::start(|t| mini_prometheus(t, &["10.0.3.12:9100"]));
        let (_, stderr, _, dir) = report_against(&server.url, &[], &env);
        let heads = server.heads();
        assert!(
            heads.iter().all(|h| h
                .to_ascii_lowercase()
                .contains(&format!("authorization: {}", header.to_ascii_lowercase()))),
            "every request carries the credentials: {heads:?}"
        );
        let all = all_written(dir.path(), &stderr);
        for secret in [password, token, basic.as_str()] {
            assert!(!all.contains(secret), "{secret} written somewhere");
        }
    }
    // A server that fails names itself, never the credentials either.
    let url = format!("http://127.0.0.1:{}", super::free_port());
    let (_, stderr, _, dir) = report_against(&url, &[], &[("PERF_PROMETHEUS_TOKEN", token)]);
    assert!(!all_written(dir.path(), &stderr).contains(token));
}

#[test]
fn a_url_carrying_credentials_is_refused_without_printing_them() {
    let dir = tempfile::tempdir().unwrap();
    hand_run(dir.path(), &[("strix", STRIX)]);
    let o = perfreport_env(
        &[
            "report",
            dir.path().to_str().unwrap(),
            "--prometheus",
            "http://bot:pw-77-secret@127.0.0.1:9/",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("PERF_PROMETHEUS_PASSWORD") && !stderr.contains("pw-77-secret"),
        "{stderr}"
    );
    assert!(!dir.path().join("data.json").exists());
}

#[test]
fn the_server_comes_from_perf_prometheus_and_an_empty_one_is_none() {
    let server = FakeServer::start(|t| mini_prometheus(t, &["10.0.3.12:9100"]));
    let dir = tempfile::tempdir().unwrap();
    hand_run(dir.path(), &[("strix", STRIX)]);
    let run = dir.path().to_str().unwrap();
    let o = perfreport_env(&["report", run], &[("PERF_PROMETHEUS", &server.url)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(data(dir.path())["samples_source"], "prometheus");
    let asked = server.heads().len();
    // Make's `PERF_PROMETHEUS ?=` exports it empty: no server, samples.jsonl as ever.
    let o = perfreport_env(&["report", run], &[("PERF_PROMETHEUS", "")]);
    assert!(o.status.success());
    assert_eq!(server.heads().len(), asked, "nothing asked");
    assert!(data(dir.path())["inputs"].get("prometheus").is_none());
}
