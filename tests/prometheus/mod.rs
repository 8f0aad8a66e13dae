//! `--prometheus`: a run's node samples read from a server. `real.rs` runs
//! Debian's prometheus over a TSDB backfilled from a run's own samples (and
//! scraping a live node_exporter); `broken.rs` asks servers written here
//! that fail in every way a server can. Every server a test starts is
//! stopped when its guard drops, whatever the test's outcome.

mod broken;
mod commands;
mod real;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The binary with the environment a user's shell might hold taken out
/// (a proxy would take loopback requests elsewhere; credentials are given
/// by each test that means them).
pub fn perfreport_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_perfreport"));
    c.args(args).env_remove("PERF_ROOT");
    for k in [
        "PERF_PROMETHEUS",
        "PERF_PROMETHEUS_USER",
        "PERF_PROMETHEUS_PASSWORD",
        "PERF_PROMETHEUS_TOKEN",
        "PERF_PROMETHEUS_TIMEOUT",
        "PERF_PROMETHEUS_DEADLINE",
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        c.env_remove(k);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

/// A run directory of `nodes` (name, addr) from 02:00 to 02:10, no other input.
pub fn hand_run(dir: &Path, nodes: &[(&str, &str)]) {
    let nodes: Vec<serde_json::Value> = nodes
        .iter()
        .map(|(n, a)| serde_json::json!({"name": n, "addr": a, "cores": 8}))
        .collect();
    let run = serde_json::json!({
        "stamp": "20261020T020000Z", "mode": "warm", "arch": "gfx1201",
        "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:10:00Z",
        "nodes": nodes, "targets": []
    });
    std::fs::write(dir.join("run.json"), serde_json::to_vec_pretty(&run).unwrap()).unwrap();
}

/// What a server written here answers one request with.
pub enum Answer {
    /// A status, and a body.
    Reply(u16, Vec<u8>),
    /// Nothing: the connection is held open until the server stops.
    Silent,
    /// A 200 whose body is this many bytes of JSON-looking padding.
    Huge(u64),
    /// This answer, after a while.
    After(std::time::Duration, Box<Answer>),
}

/// A server on a loopback port answering each request (its target, e.g.
/// `/api/v1/query_range?query=...`) by `answer`; it keeps every request head
/// it read, and stops when dropped.
pub struct FakeServer {
    pub url: String,
    pub heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl FakeServer {
    pub fn start(answer: impl Fn(&str) -> Answer + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (s, h) = (stop.clone(), heads.clone());
        let answer = Arc::new(answer);
        // A connection each its own thread, so that requests in flight at
        // once are answered at once; all joined when the server stops.
        let thread = std::thread::spawn(move || {
            let held = Arc::new(Mutex::new(vec![]));
            let mut threads = vec![];
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (h, answer, held) = (h.clone(), answer.clone(), held.clone());
                threads.push(std::thread::spawn(move || {
                    if let Some(kept) = serve_one(conn, &h, answer.as_ref()) {
                        held.lock().unwrap().push(kept);
                    }
                }));
            }
            for t in threads {
                let _ = t.join();
            }
        });
        FakeServer {
            url: format!("http://{addr}"),
            heads,
            stop,
            addr,
            thread: Some(thread),
        }
    }

    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one request head and answers it; a held (silent) connection is returned.
fn serve_one(conn: TcpStream, heads: &Mutex<Vec<String>>, answer: &dyn Fn(&str) -> Answer) -> Option<TcpStream> {
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        head.push_str(&line);
        if line == "\r\n" || line == "\n" {
            break;
        }
    }
    heads.lock().unwrap().push(head.clone());
    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut conn = conn;
    let mut a = answer(&target);
    while let Answer::After(wait, then) = a {
        std::thread::sleep(wait);
        a = *then;
    }
    match a {
        Answer::Silent => return Some(conn),
        Answer::Reply(status, body) => {
            let _ = write!(
                conn,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = conn.write_all(&body);
        }
        Answer::After(..) => {}
        Answer::Huge(n) => {
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n"
            );
            let chunk = vec![b' '; 1 << 16];
            let mut left = n;
            while left > 0 {
                let k = left.min(chunk.len() as u64) as usize;
                if conn.write_all(&chunk[..k]).is_err() {
                    break;
                }
                left -= k as u64;
            }
        }
    }
    let _ = conn.flush();
    let _ = conn.shutdown(std::net::Shutdown::Write);
    let mut rest = vec![];
    let _ = reader.read_to_end(&mut rest);
    None
}

/// A query parameter of a request target, decoded.
pub fn param(target: &str, key: &str) -> Option<String> {
    let query = target.split_once('?')?.1;
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == key).then(|| decode(v))
    })
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The answer a Prometheus would give a query of this repository for the
/// instances in `have` (others have no series): a matrix on the request's
/// steps, a node's counters rising so that it is busy a quarter of the time.
pub fn mini_prometheus(target: &str, have: &[&str]) -> Answer {
    let (Some(q), Some(start), Some(end), Some(step)) = (
        param(target, "query"),
        param(target, "start").and_then(|s| s.parse::<f64>().ok()),
        param(target, "end").and_then(|s| s.parse::<f64>().ok()),
        param(target, "step").and_then(|s| s.parse::<f64>().ok()),
    ) else {
        return Answer::Reply(
            400,
            br#"{"status":"error","errorType":"bad_data","error":"missing parameter"}"#.to_vec(),
        );
    };
    let steps: Vec<f64> = (0..)
        .map(|k| start + k as f64 * step)
        .take_while(|t| *t <= end + 1e-6)
        .collect();
    let mut result = vec![];
    for inst in have.iter().filter(|i| q.contains(&i.replace('.', "\\\\."))) {
        let series = |labels: serde_json::Value, f: &dyn Fn(f64) -> f64| {
            let values: Vec<serde_json::Value> = steps
                .iter()
                .map(|t| serde_json::json!([t, format!("{}", f(*t - start))]))
                .collect();
            serde_json::json!({"metric": labels, "values": values})
        };
        let labels = |extra: &[(&str, &str)]| {
            let mut m = serde_json::json!({"instance": inst, "job": "node"});
            for (k, v) in extra {
                m[*k] = serde_json::json!(v);
            }
            m
        };
        if q.contains("timestamp(") {
            result.push(series(labels(&[]), &|t| start + t));
        } else if q.contains("node_cpu_seconds_total") {
            result.push(series(labels(&[("mode", "idle")]), &|t| 1000.0 + 6.0 * t));
            result.push(series(labels(&[("mode", "user")]), &|t| 500.0 + 2.0 * t));
        } else if q.contains("MemTotal") {
            result.push(series(labels(&[]), &|_| 1000.0));
        } else if q.contains("MemAvailable") {
            result.push(series(labels(&[]), &|_| 400.0));
        } else {
            result.push(series(labels(&[]), &|t| 3.0 + t));
        }
    }
    let body = serde_json::json!({"status": "success", "data": {"resultType": "matrix", "result": result}});
    Answer::Reply(200, serde_json::to_vec(&body).unwrap())
}

/// A child process killed (and reaped) when dropped.
pub struct Killed(pub Child, pub &'static str);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A free loopback port (bound and let go: a server started just after gets it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Debian's prometheus, promtool and node_exporter, or `None` with a notice
/// outside CI (in CI `.ci/run` installs them, and their absence fails).
pub fn tool(name: &str, package: &str) -> Option<PathBuf> {
    super::outside_tool(PathBuf::from("/usr/bin").join(name), package)
}

/// The data.json of `out`.
pub fn data(out: &Path) -> serde_json::Value {
    super::data(out)
}
