//! `perfreport serve`: the live view of a growing run over HTTP.

use crate::util::*;
use serde_json::Value;
use std::process::Command;

/// One raw HTTP exchange, so a test can send paths no client would normalise.
pub(crate) fn http(addr: &str, request: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|x| x.1.to_string()).unwrap_or_default();
    (code, body)
}

pub(crate) fn get(addr: &str, path: &str) -> (u16, String) {
    // HTTP/1.0: the answer comes unchunked, which this minimal client can read.
    http(addr, &format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n"))
}

#[test]
fn serve_follows_a_growing_run_and_serves_only_its_outputs() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let (mut child, addr) = spawn_serve(run.path(), out.path());
    // Slow and broken clients: one sends half a request and waits, others connect and say nothing.
    let mut stalled = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(&mut stalled, b"GET /data.json HTTP/1.1\r\nHost: localhost\r\nX-Slow:").unwrap();
    let silent: Vec<_> = (0..6).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    let (code, page) = get(&addr, "/");
    assert_eq!(code, 200);
    assert!(page.contains("id=\"perf-data\""));
    let requests = |body: &str| {
        serde_json::from_str::<Value>(body).unwrap()["zot"]["requests"]
            .as_u64()
            .unwrap()
    };
    let (code, body) = get(&addr, "/data.json");
    assert_eq!(code, 200);
    let before = requests(&body);
    // The run grows: the registry logs three more requests (the half-written last line is completed first).
    let zot = run.path().join("zot.jsonl");
    let mut text = std::fs::read_to_string(&zot).unwrap();
    text.push('\n');
    for i in 0..3 {
        text.push_str(&format!(r#"{{"time":"2026-10-21T02:20:0{i}Z","level":"info","message":"HTTP API","clientIP":"10.0.3.12:1","method":"HEAD","path":"/v2/rocm/cache/manifests/x","statusCode":200,"latency":"1ms","bodySize":0,"headers":{{}}}}"#));
        text.push('\n');
    }
    std::fs::write(&zot, text).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut after = before;
    while std::time::Instant::now() < deadline && after == before {
        std::thread::sleep(std::time::Duration::from_millis(200));
        after = requests(&get(&addr, "/data.json").1);
    }
    assert!(after >= before + 3, "data.json followed the log: {before} -> {after}");
    // Read-only, and nothing outside the output directory.
    std::os::unix::fs::symlink("/etc/passwd", out.path().join("passwd")).unwrap();
    for path in [
        "/../run.json",
        "/%2e%2e/%2e%2e/etc/passwd",
        "//etc/passwd",
        "/passwd",
        "/..%2f..%2fetc%2fpasswd",
    ] {
        let (code, body) = get(&addr, path);
        assert!(code == 400 || code == 404, "{path}: {code}");
        assert!(!body.contains("root:"), "{path} leaked a file");
    }
    let (code, _) = http(
        &addr,
        "POST /data.json HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    assert_eq!(code, 405);
    let (code, body) = http(
        &addr,
        "HEAD /data.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert_eq!((code, body.len()), (200, 0));
    drop((stalled, silent));
    // Ctrl-C stops it cleanly.
    unsafe_sigint(child.id());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// Sends SIGINT, as Ctrl-C on a terminal does.
fn unsafe_sigint(pid: u32) {
    let ok = Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
    assert!(ok.success());
}

/// `perfreport serve RUN --out OUT` on a free loopback port, and the
/// address it printed (stderr kept for the caller).
pub fn spawn_serve(run: &std::path::Path, out: &std::path::Path) -> (std::process::Child, String) {
    spawn_serve_with(run, out, &[])
}

/// `spawn_serve` with variables set in its environment.
pub fn spawn_serve_with(
    run: &std::path::Path,
    out: &std::path::Path,
    env: &[(&str, &str)],
) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(["serve", run.to_str().unwrap(), "--bind", "127.0.0.1:0"])
        .args(["--out", out.to_str().unwrap()])
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    (child, addr)
}
