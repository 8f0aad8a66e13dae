//! `--prometheus` beyond `report`: publish and history read each run's
//! samples from the server (and do not take figures read one way for the
//! other's), and serve reads a run in flight from it again as it grows.

use super::{hand_run, mini_prometheus, perfreport_env, FakeServer, Killed};
use serde_json::Value;
use std::path::Path;

fn site_data(site: &Path, dir: &str) -> Value {
    let text = std::fs::read_to_string(site.join("runs").join(dir).join("data.json")).expect("the run's page");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn publish_reads_each_runs_samples_from_the_server_and_rebuilds_when_the_source_changes() {
    let server = FakeServer::start(|t| mini_prometheus(t, &["10.0.3.12:9100"]));
    let dir = tempfile::tempdir().unwrap();
    let (root, site) = (dir.path().join("root"), dir.path().join("site"));
    let run = root.join("20261020T020000Z");
    std::fs::create_dir_all(&run).unwrap();
    hand_run(&run, &[("strix", "10.0.3.12")]);
    let publish = |extra: &[&str]| {
        let mut args = vec!["publish", root.to_str().unwrap(), "--site", site.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = perfreport_env(&args, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let said = publish(&["--prometheus", &server.url]);
    assert!(said.contains("1 rebuilt"), "{said}");
    let d = site_data(&site, "20261020T020000Z");
    assert_eq!(d["samples_source"], "prometheus");
    assert_eq!(super::super::node(&d, "strix")["cpu_pct_mean"], 25.0);
    let asked = server.heads().len();
    assert!(
        publish(&["--prometheus", &server.url]).contains("0 rebuilt"),
        "nothing changed"
    );
    assert_eq!(server.heads().len(), asked, "an unchanged run is not asked for again");
    // Without the server the same files are another reading: rebuilt.
    assert!(publish(&[]).contains("1 rebuilt"));
    let d = site_data(&site, "20261020T020000Z");
    assert!(d["samples_source"].is_null() && super::super::node(&d, "strix")["cpu_pct_mean"].is_null());
}

#[test]
fn serve_reads_a_run_in_flight_from_the_server_again_though_no_file_changed() {
    let server = FakeServer::start(|t| mini_prometheus(t, &["10.0.3.12:9100"]));
    let dir = tempfile::tempdir().unwrap();
    let (run, out) = (dir.path().join("run"), dir.path().join("out"));
    std::fs::create_dir(&run).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let started = perfreport::timefmt::format_rfc3339(now.as_micros() as i64 - 60_000_000);
    let info = serde_json::json!({"stamp": "live", "mode": "warm", "started_at": started, "finished_at": null,
        "nodes": [{"name": "strix", "addr": "10.0.3.12", "cores": 8}]});
    std::fs::write(run.join("run.json"), serde_json::to_vec(&info).unwrap()).unwrap();
    // No proxy in the way: the server is on loopback.
    let env = [
        ("PERF_PROMETHEUS", server.url.as_str()),
        ("http_proxy", ""),
        ("HTTP_PROXY", ""),
        ("ALL_PROXY", ""),
        ("all_proxy", ""),
    ];
    let (child, addr) = super::super::serve::spawn_serve_with(&run, &out, &env);
    let serve = Killed(child, "perfreport serve");
    let (code, body) = super::super::serve::get(&addr, "/data.json");
    assert_eq!(code, 200);
    let d: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(d["samples_source"], "prometheus");
    assert!(
        d["inputs"]["prometheus"]["source"]["nodes"]["strix"]["polls"]
            .as_u64()
            .unwrap()
            >= 10,
        "{d}"
    );
    let asked = server.heads().len();
    // The server's samples grow with no file of the run changing: it is asked again.
    for _ in 0..600 {
        if server.heads().len() > asked {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(server.heads().len() > asked, "serve asked the server again");
    drop(serve);
}
