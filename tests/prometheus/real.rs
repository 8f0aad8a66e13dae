//! Against Debian's prometheus: a TSDB backfilled (promtool's
//! `create-blocks-from openmetrics`) from a run's own samples, so that the
//! figures read from the server can be held to those its samples.jsonl
//! gives; and a live node_exporter scraped for a few seconds.

use super::{data, free_port, perfreport_env, tool, Killed};
use perfreport::timefmt::{format_rfc3339, parse_rfc3339};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A Prometheus on a loopback port over `tsdb`, stopped when dropped.
struct Prometheus {
    url: String,
    _child: Killed,
}

/// Asks `url` and gives the body, or `None` while it does not answer 200.
fn get(url: &str) -> Option<String> {
    let mut r = ureq::get(url).call().ok()?;
    (r.status() == 200)
        .then(|| r.body_mut().read_to_string().ok())
        .flatten()
}

/// Waits for `ready`, up to a bound that only a broken install reaches, while the child lives.
fn wait_for(child: &mut Killed, mut ready: impl FnMut() -> bool, log: &Path) {
    for _ in 0..3000 {
        if ready() {
            return;
        }
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!(
                "{} exited ({status}): {}",
                child.1,
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!(
        "{} never became ready: {}",
        child.1,
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

impl Prometheus {
    fn start(bin: &Path, dir: &Path, tsdb: &Path, config: &str) -> Prometheus {
        let cfg = dir.join("prometheus.yml");
        std::fs::write(&cfg, config).unwrap();
        let log = dir.join("prometheus.log");
        let port = free_port();
        let child = Command::new(bin)
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!("--storage.tsdb.path={}", tsdb.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            // The runs are dated: their blocks must outlive any retention.
            .arg("--storage.tsdb.retention.time=36500d")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("prometheus starts");
        let mut child = Killed(child, "prometheus");
        let url = format!("http://127.0.0.1:{port}");
        wait_for(&mut child, || get(&format!("{url}/-/ready")).is_some(), &log);
        Prometheus { url, _child: child }
    }
}

/// Every file of `from` but samples.jsonl, into a new `to`.
fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_name() != "samples.jsonl" {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// node_exporter's exposition of a run's samples, as OpenMetrics with each
/// poll's time: the CPU split over two CPUs, and devices the poller leaves
/// out (dm-*, lo, veth*) given loud values of their own.
fn openmetrics(samples: &str, instance: &BTreeMap<String, String>) -> String {
    type Family = BTreeMap<String, Vec<(f64, f64)>>;
    let mut fams: BTreeMap<&str, Family> = BTreeMap::new();
    for line in samples.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let t = parse_rfc3339(v["ts"].as_str().unwrap()).unwrap() as f64 / 1e6;
        let inst = &instance[v["node"].as_str().unwrap()];
        let mut add = |metric: &'static str, labels: String, x: f64| {
            let labels = format!("{labels}instance=\"{inst}\",job=\"node\"");
            fams.entry(metric).or_default().entry(labels).or_default().push((t, x));
        };
        for (mode, x) in v["cpu"].as_object().into_iter().flatten() {
            let x = x.as_f64().unwrap();
            add(
                "node_cpu_seconds_total",
                format!("cpu=\"0\",mode=\"{mode}\","),
                x * 0.75,
            );
            add(
                "node_cpu_seconds_total",
                format!("cpu=\"1\",mode=\"{mode}\","),
                x * 0.25,
            );
        }
        let f = |a: &str, b: &str| v[a][b].as_f64();
        for (metric, x) in [
            ("node_memory_MemTotal_bytes", f("mem", "total")),
            ("node_memory_MemAvailable_bytes", f("mem", "available")),
            ("node_load1", v["load1"].as_f64()),
        ] {
            if let Some(x) = x {
                add(metric, String::new(), x);
            }
        }
        for (metric, x, noise) in [
            ("node_disk_read_bytes_total", f("disk", "read"), "dm-0"),
            ("node_disk_written_bytes_total", f("disk", "written"), "dm-1"),
            ("node_network_receive_bytes_total", f("net", "rx"), "lo"),
            ("node_network_transmit_bytes_total", f("net", "tx"), "veth9a"),
        ] {
            if let Some(x) = x {
                let real = if metric.contains("disk") { "nvme0n1" } else { "eth0" };
                add(metric, format!("device=\"{real}\","), x);
                add(metric, format!("device=\"{noise}\","), x * 9.0 + 1e9);
            }
        }
    }
    let mut out = String::new();
    for (metric, series) in fams {
        let (name, kind) = match metric.strip_suffix("_total") {
            Some(base) => (base, "counter"),
            None => (metric, "gauge"),
        };
        out += &format!("# TYPE {name} {kind}\n");
        for (labels, points) in series {
            for (t, x) in points {
                out += &format!("{metric}{{{labels}}} {x} {t:.3}\n");
            }
        }
    }
    out + "# EOF\n"
}

/// A TSDB of `samples` (the nodes' instances by `instance`), backfilled by promtool.
fn backfill(promtool: &Path, dir: &Path, samples: &str, instance: &BTreeMap<String, String>) -> PathBuf {
    let om = dir.join("samples.om");
    std::fs::write(&om, openmetrics(samples, instance)).unwrap();
    let tsdb = dir.join("tsdb");
    let o = Command::new(promtool)
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&om)
        .arg(&tsdb)
        .output()
        .unwrap();
    assert!(o.status.success(), "promtool: {}", String::from_utf8_lossy(&o.stderr));
    tsdb
}

/// The bundled cold run, with node think ending it loaded past its 24
/// cores, and strix named in Prometheus by an `instance` of its own: its
/// samples.jsonl, run.json and each node's instance.
fn loaded_cold_run(to: &Path) -> (String, BTreeMap<String, String>) {
    let from = super::super::sample(super::super::COLD);
    copy_run(&from, to);
    let text = std::fs::read_to_string(from.join("samples.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last_think = lines.iter().rposition(|l| l.contains(r#""node": "think""#)).unwrap();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        if i == last_think {
            v["load1"] = serde_json::json!(41.5);
        }
        out += &(serde_json::to_string(&v).unwrap() + "\n");
    }
    let mut run: Value = serde_json::from_slice(&std::fs::read(to.join("run.json")).unwrap()).unwrap();
    let mut instance = BTreeMap::new();
    for n in run["nodes"].as_array_mut().unwrap() {
        let name = n["name"].as_str().unwrap().to_string();
        let i = if name == "strix" {
            n["instance"] = serde_json::json!("strix.lab:9100");
            "strix.lab:9100".to_string()
        } else {
            format!("{}:9100", n["addr"].as_str().unwrap())
        };
        instance.insert(name, i);
    }
    std::fs::write(to.join("run.json"), serde_json::to_vec_pretty(&run).unwrap()).unwrap();
    (out, instance)
}

fn report(run: &Path, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = perfreport_env(&args, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    data(out)
}

/// Each node's figures from both readings agree: CPU means within half a
/// point, memory, load and the samples' own counts as they are.
fn same_node_figures(file: &Value, server: &Value) {
    let nodes = file["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    for a in nodes {
        let name = a["name"].as_str().unwrap();
        let b = super::super::node(server, name);
        let (ca, cb) = (a["cpu_pct_mean"].as_f64().unwrap(), b["cpu_pct_mean"].as_f64().unwrap());
        assert!(
            (ca - cb).abs() <= 0.5,
            "{name}: CPU mean {ca} from the file, {cb} from the server"
        );
        for field in ["mem_pct_max", "load1_max", "load1_end", "gaps", "counter_resets"] {
            assert_eq!(a[field], b[field], "{name}: {field}");
        }
        assert_eq!(
            a["cpu"]["t"].as_array().unwrap().len(),
            b["cpu"]["t"].as_array().unwrap().len(),
            "{name}"
        );
    }
}

/// history.json's `loaded` marks, by target and stamp.
fn loaded_marks(root: &Path, extra: &[&str]) -> Vec<(String, Value)> {
    let mut args = vec!["history", root.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let o = perfreport_env(&args, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let h: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut marks = vec![];
    for key in h["keys"].as_array().unwrap() {
        for (target, metrics) in key["targets"].as_object().unwrap() {
            for p in metrics["total_s"]["points"].as_array().unwrap() {
                marks.push((target.clone(), p["loaded"].clone()));
            }
        }
    }
    marks
}

#[test]
fn a_run_without_samples_jsonl_gets_from_prometheus_the_figures_its_samples_give() {
    let (Some(bin), Some(promtool)) = (tool("prometheus", "prometheus"), tool("promtool", "prometheus")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (with_file, from_server) = (dir.path().join("file/run"), dir.path().join("server/run"));
    let (samples, instance) = loaded_cold_run(&with_file);
    std::fs::write(with_file.join("samples.jsonl"), &samples).unwrap();
    copy_run(&with_file, &from_server);
    let tsdb = backfill(&promtool, dir.path(), &samples, &instance);
    let prom = Prometheus::start(&bin, dir.path(), &tsdb, "global:\n  scrape_interval: 15s\n");
    let file = report(&with_file, &dir.path().join("out-file"), &[]);
    let server = report(
        &from_server,
        &dir.path().join("out-server"),
        &["--prometheus", &prom.url],
    );
    same_node_figures(&file, &server);
    assert!(super::super::node(&server, "think")["load1_end"] == 41.5);
    // Where the samples came from, in data.json's inputs and provenance.
    assert_eq!(
        (&file["samples_source"], &server["samples_source"]),
        (&"samples.jsonl".into(), &"prometheus".into())
    );
    let p = &server["inputs"]["prometheus"];
    assert_eq!(p["contract_broken"], false, "{p}");
    assert_eq!(p["source"]["server"], prom.url.as_str());
    assert_eq!(p["source"]["points"], p["lines"]);
    assert_eq!(p["source"]["nodes"]["strix"]["instance"], "strix.lab:9100");
    assert!(p["source"]["queries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|q| q.as_str().unwrap().contains("strix\\\\.lab:9100")));
    let id = &server["provenance"]["inputs"]["prometheus"]["source"];
    assert_eq!((&id["server"], &id["points"]), (&p["source"]["server"], &p["lines"]));
    assert!(server["provenance"]["inputs"].get("samples.jsonl").is_none());
    // The loaded rule reads the same end load either way.
    let marks = loaded_marks(&dir.path().join("file"), &[]);
    assert!(marks.iter().any(|(_, l)| l == true), "think is loaded: {marks:?}");
    assert_eq!(
        marks,
        loaded_marks(&dir.path().join("server"), &["--prometheus", &prom.url])
    );
}

#[test]
fn samples_saved_from_prometheus_give_the_same_figures_without_the_server() {
    let (Some(bin), Some(promtool)) = (tool("prometheus", "prometheus"), tool("promtool", "prometheus")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let (samples, instance) = loaded_cold_run(&run);
    let tsdb = backfill(&promtool, dir.path(), &samples, &instance);
    let prom = Prometheus::start(&bin, dir.path(), &tsdb, "global:\n  scrape_interval: 15s\n");
    let out = dir.path().join("out");
    let read = report(&run, &out, &["--prometheus", &prom.url, "--save-samples"]);
    let saved = std::fs::read_to_string(run.join("samples.jsonl")).expect("--save-samples wrote samples.jsonl");
    assert_eq!(
        saved.lines().count(),
        samples.lines().count(),
        "one poll per node per scrape"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "no temporary left: {leftovers:?}");
    drop(prom);
    let again = report(&run, &dir.path().join("out-again"), &[]);
    assert_eq!(again["samples_source"], "samples.jsonl");
    assert_eq!(
        again["nodes"], read["nodes"],
        "the same figures and series, to the last digit"
    );
    assert_eq!(again["inputs"]["samples.jsonl"]["records"], samples.lines().count());
}

#[test]
fn a_live_node_exporter_scraped_for_a_few_seconds_gives_cpu_memory_and_load() {
    let (Some(bin), Some(exporter)) = (
        tool("prometheus", "prometheus"),
        tool("prometheus-node-exporter", "prometheus-node-exporter"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let log = dir.path().join("node-exporter.log");
    let child = Command::new(exporter)
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("node_exporter starts");
    let mut exporter = Killed(child, "node_exporter");
    wait_for(
        &mut exporter,
        || get(&format!("http://127.0.0.1:{port}/metrics")).is_some(),
        &log,
    );
    let now = || {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        format_rfc3339(t.as_micros() as i64)
    };
    let started = now();
    let config = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
    );
    let tsdb = dir.path().join("tsdb");
    let prom = Prometheus::start(&bin, dir.path(), &tsdb, &config);
    let scrapes = format!("{}/api/v1/query?query=count_over_time(node_load1[1m])", prom.url);
    let enough = || {
        get(&scrapes)
            .and_then(|b| serde_json::from_str::<Value>(&b).ok())
            .and_then(|v| v["data"]["result"][0]["value"][1].as_str()?.parse::<u32>().ok())
            .is_some_and(|n| n >= 6)
    };
    wait_for(&mut exporter, enough, &dir.path().join("prometheus.log"));
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let info = serde_json::json!({
        "stamp": "live", "mode": "warm", "started_at": started, "finished_at": now(), "poll_s": 1,
        "nodes": [{"name": "here", "addr": "127.0.0.1", "instance": format!("127.0.0.1:{port}"), "cores": 2}],
    });
    std::fs::write(run.join("run.json"), serde_json::to_vec(&info).unwrap()).unwrap();
    let d = report(&run, &dir.path().join("out"), &["--prometheus", &prom.url, "--strict"]);
    let here = super::super::node(&d, "here");
    let cpu = here["cpu_pct_mean"].as_f64().unwrap_or(-1.0);
    assert!((0.0..=100.0).contains(&cpu), "{here}");
    let mem = here["mem_pct_max"].as_f64().unwrap_or(-1.0);
    assert!(mem > 0.0 && mem < 100.0, "{here}");
    assert!(here["load1_max"].as_f64().is_some(), "{here}");
    let p = &d["inputs"]["prometheus"];
    assert!(p["source"]["nodes"]["here"]["polls"].as_u64().unwrap() >= 5, "{p}");
}
