//! `perfreport serve` against careless and hostile clients: what
//! it serves, to whom, and what memory and descriptors clients can hold.
//! Every wait is a bounded loop on a condition; nothing asserts a duration.

use super::{pinned_copy, WARM};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `perfreport serve`, stopped with Ctrl-C when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    /// `perfreport serve RUN --bind 127.0.0.1:0 ARGS…` with extra environment.
    fn start(run: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_with_open_files(run, args, env, None)
    }

    /// As `start`, with the open-files limit of the server lowered to `nofile`.
    fn start_with_open_files(run: &Path, args: &[&str], env: &[(&str, &str)], nofile: Option<u32>) -> Server {
        let bin = env!("CARGO_BIN_EXE_perfreport");
        let mut cmd = match nofile {
            // exec keeps the pid: /proc/<pid> is the server's own.
            Some(n) => {
                let mut c = Command::new("sh");
                c.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), bin]);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(["serve", run.to_str().unwrap(), "--bind", "127.0.0.1:0"])
            .args(args)
            .env_remove("PERF_ROOT")
            .env_remove("PERF_BIND")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        Server::of(cmd.spawn().unwrap())
    }

    /// A started `serve`, at the address its first line names.
    fn of(mut child: std::process::Child) -> Server {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server { child, addr }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops it with Ctrl-C; its exit status and what it printed on stderr.
    fn stop(mut self) -> (std::process::ExitStatus, String) {
        sigint(self.child.id());
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        (status, err)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn sigint(pid: u32) {
    let ok = Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
    assert!(ok.success());
}

/// One parsed answer.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the status line and headers of an answer, byte by byte so that
/// nothing of the body is taken.
fn read_head(s: &mut TcpStream) -> Option<(u16, Vec<(String, String)>)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Some((status, headers))
}

/// Sends a raw request on a new connection and reads the whole answer (the
/// request should say `Connection: close`, or be HTTP/1.0). Status 0: no answer.
fn exchange(addr: &str, request: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    // A safety net for a test that would otherwise hang, not a measurement.
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let Some((status, headers)) = read_head(&mut s) else {
        return Answer {
            status: 0,
            headers: vec![],
            body: vec![],
        };
    };
    let mut body = Vec::new();
    let _ = s.read_to_end(&mut body);
    Answer { status, headers, body }
}

fn get_as(addr: &str, host: &str, path: &str) -> Answer {
    exchange(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    )
}

fn get(addr: &str, path: &str) -> Answer {
    get_as(addr, "127.0.0.1", path)
}

#[test]
fn serve_with_the_default_output_directory_serves_only_the_outputs_it_wrote() {
    let run = pinned_copy(WARM);
    let p = run.path();
    // What a run directory holds beside the outputs: secrets, active content
    // named by whoever wrote the inputs, and a folder of its own.
    std::fs::write(p.join(".env"), "TOKEN=secret\n").unwrap();
    std::fs::write(
        p.join("evil.svg"),
        "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
    )
    .unwrap();
    std::fs::write(p.join("evil.html"), "<script>alert(1)</script>").unwrap();
    std::fs::create_dir(p.join("notes")).unwrap();
    std::fs::write(p.join("notes/index.html"), "<script>alert(1)</script>").unwrap();
    std::fs::write(p.join("charts-x.svg"), "<svg/>").unwrap();
    let server = Server::start(p, &[], &[]);
    for path in [
        "/",
        "/index.html",
        "/data.json",
        "/report.md",
        "/charts/cpu-mem.svg",
        "/charts/timeline.svg",
        "/charts/cache-lanes.svg",
        "/data.json?t=1",
    ] {
        assert_eq!(get(&server.addr, path).status, 200, "{path}");
    }
    for path in [
        "/run.json",
        "/zot.jsonl",
        "/sccache.log",
        "/samples.jsonl",
        "/placement.txt",
        "/nginx-log-format",
        "/trace-pytorch.json",
        "/.env",
        "/%2eenv",
        "/evil.svg",
        "/evil.html",
        "/notes/",
        "/notes/index.html",
        "/charts-x.svg",
        "/charts/",
        "/charts",
    ] {
        let a = get(&server.addr, path);
        assert_eq!(a.status, 404, "{path} must not be served");
        let body = String::from_utf8_lossy(&a.body);
        assert!(
            !body.contains("secret") && !body.contains("<script>") && !body.contains("HTTP API"),
            "{path}: {body}"
        );
    }
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

/// The resident memory of a process, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in {status}"));
    kib * 1024
}

#[test]
fn serve_streams_a_large_output_to_clients_that_never_read_in_bounded_memory() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(run.path(), &["--out", out.path().to_str().unwrap()], &[]);
    // report.md grows to 64 MiB: a big run's outputs are that large. Sparse,
    // so it costs no disk; reading it gives zeros.
    const SIZE: u64 = 64 << 20;
    let big = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(out.path().join("report.md"))
        .unwrap();
    big.set_len(SIZE).unwrap();
    let before = rss(server.pid());
    // Clients that ask for it and read nothing past the headers.
    let mut stalled: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s.write_all(b"GET /report.md HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            let (status, headers) = read_head(&mut s).expect("an answer");
            assert_eq!(status, 200);
            let length = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length"));
            assert_eq!(length.map(|(_, v)| v.as_str()), Some(SIZE.to_string().as_str()));
            s
        })
        .collect();
    let held = rss(server.pid()).saturating_sub(before);
    // Whole files in memory would be 8 x 64 MiB; a few chunks per connection is all it may hold.
    assert!(
        held < 16 << 20,
        "the server holds {} MiB for 8 stalled clients",
        held >> 20
    );
    // The others are still answered.
    assert_eq!(get(&server.addr, "/data.json").status, 200);
    // HEAD: the same headers, no body.
    let get_head = |method: &str| {
        let a = exchange(
            &server.addr,
            &format!("{method} /report.md HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
        );
        let mut h: Vec<_> = a
            .headers
            .into_iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("date"))
            .collect();
        h.sort();
        (a.status, h, a.body.len() as u64)
    };
    let (head_status, head_headers, head_body) = get_head("HEAD");
    let (get_status, get_headers, get_body) = get_head("GET");
    assert_eq!((head_status, head_body), (200, 0));
    assert_eq!((get_status, get_body), (200, SIZE));
    assert_eq!(head_headers, get_headers, "HEAD answers GET's headers");
    // A stalled client that reads on gets the whole file.
    let mut body = vec![1u8; SIZE as usize];
    stalled[0].read_exact(&mut body).unwrap();
    assert!(body.iter().all(|b| *b == 0));
    // Ctrl-C stops it even with the others still connected.
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
    drop(stalled);
}

/// How many sockets a process holds open (its listener among them).
fn sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path())
                .map(|l| l.to_string_lossy().starts_with("socket:"))
                .unwrap_or(false)
        })
        .count()
}

/// Waits, in a bounded loop, until `done` holds; false if it never did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let give_up = Instant::now() + Duration::from_secs(60);
    while Instant::now() < give_up {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn serve_drops_a_client_whose_headers_never_finish() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    // A short header timeout so the test does not wait the default 10 s.
    let server = Server::start(
        run.path(),
        &["--out", out.path().to_str().unwrap()],
        &[("PERF_SERVE_HEADER_TIMEOUT", "0.5")],
    );
    // Slowloris: a byte of header every 100 ms, so the connection is never idle.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    s.write_all(b"GET /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .unwrap();
    let mut answer = Vec::new();
    let closed = eventually(|| {
        if s.write_all(b"a").is_err() {
            return true;
        }
        let mut buf = [0u8; 4096];
        match s.read(&mut buf) {
            Ok(0) => true,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                false
            }
            Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
        }
    });
    assert!(closed, "a client still sending headers is never dropped");
    assert!(
        !String::from_utf8_lossy(&answer).contains(" 200 "),
        "it was not answered"
    );
    // Others are still served.
    assert_eq!(get(&server.addr, "/data.json").status, 200);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_closes_connections_that_sit_idle_or_stop_reading() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(
        run.path(),
        &["--out", out.path().to_str().unwrap()],
        &[("PERF_SERVE_IDLE_TIMEOUT", "1")],
    );
    const SIZE: u64 = 64 << 20;
    let big = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(out.path().join("report.md"))
        .unwrap();
    big.set_len(SIZE).unwrap();
    let listening = sockets(server.pid());
    let connect = || {
        let s = TcpStream::connect(&server.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    };
    // One asks for a big file and stops reading after the headers.
    let mut reader = connect();
    reader
        .write_all(b"GET /report.md HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    assert_eq!(read_head(&mut reader).map(|h| h.0), Some(200));
    // One gets its answer and keeps the connection open without asking again.
    let mut keeper = connect();
    keeper
        .write_all(b"GET /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let (status, headers) = read_head(&mut keeper).unwrap();
    assert_eq!(status, 200);
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap();
    let mut body = vec![0u8; len];
    keeper.read_exact(&mut body).unwrap();
    // One connects and says nothing.
    let silent = connect();
    assert!(
        eventually(|| sockets(server.pid()) == listening),
        "the server still holds {} connections",
        sockets(server.pid()) - listening
    );
    // Each client sees its connection closed: the reader before the end of its file.
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    assert!((rest.len() as u64) < SIZE, "the stalled reader was cut off");
    assert_eq!(keeper.read(&mut [0u8; 1]).unwrap_or(0), 0);
    drop(silent);
    assert_eq!(get(&server.addr, "/data.json").status, 200);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_keeps_descriptors_for_regeneration_under_a_flood_of_half_sent_requests() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    // 160 open files for the server, and more half-sent requests than that:
    // without a connection cap they take every descriptor.
    let server = Server::start_with_open_files(
        run.path(),
        &["--out", out.path().to_str().unwrap()],
        &[("PERF_SERVE_HEADER_TIMEOUT", "1")],
        Some(160),
    );
    let flood: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(b"GET /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:")
                .unwrap();
            s
        })
        .collect();
    let requests = |a: &Answer| -> Option<u64> {
        let v: serde_json::Value = serde_json::from_slice(&a.body).ok()?;
        v["zot"]["requests"].as_u64()
    };
    let before = requests(&get(&server.addr, "/data.json")).expect("data.json is answered");
    // The run grows: three more registry requests (the half-written last line is completed first).
    let zot = run.path().join("zot.jsonl");
    let mut text = std::fs::read_to_string(&zot).unwrap();
    text.push('\n');
    for i in 0..3 {
        text.push_str(&format!(r#"{{"time":"2026-10-21T02:20:0{i}Z","level":"info","message":"HTTP API","clientIP":"10.0.3.12:1","method":"HEAD","path":"/v2/rocm/cache/manifests/x","statusCode":200,"latency":"1ms","bodySize":0,"headers":{{}}}}"#));
        text.push('\n');
    }
    std::fs::write(&zot, text).unwrap();
    let mut after = before;
    let followed = eventually(|| {
        after = requests(&get(&server.addr, "/data.json")).unwrap_or(after);
        after >= before + 3
    });
    assert!(followed, "data.json did not follow the run: {before} -> {after}");
    drop(flood);
    let (status, stderr) = server.stop();
    assert!(status.success(), "{status:?}");
    assert!(!stderr.contains("Too many open files"), "{stderr}");
    assert!(stderr.contains("at most 48 connections at once"), "{stderr}");
}

#[test]
fn serve_refuses_a_host_name_it_does_not_answer_to_against_dns_rebinding() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let out_arg = out.path().to_str().unwrap();
    let server = Server::start(run.path(), &["--out", out_arg], &[]);
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    // A page on a name its attacker controls, once that name resolves to this
    // machine, sends its own name as Host: refused, however it is spelt.
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        "EVIL.example.".to_string(),
        "localhost.evil.example".to_string(),
        "127.0.0.1.evil.example".to_string(),
    ] {
        let a = get_as(&server.addr, &host, "/data.json");
        assert_eq!(a.status, 421, "Host: {host}");
        assert!(
            !String::from_utf8_lossy(&a.body).contains("\"zot\""),
            "Host: {host} read the data"
        );
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"));
    }
    // The authority of an absolute-form target counts as the Host.
    let a = exchange(
        &server.addr,
        "GET http://evil.example/data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(a.status, 421, "absolute-form target");
    // IP literals, localhost and the machine's own name are what a person types.
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    for host in [
        format!("127.0.0.1:{port}"),
        "127.0.0.1".to_string(),
        format!("[::1]:{port}"),
        "10.1.2.3".to_string(),
        format!("localhost:{port}"),
        "LOCALHOST.".to_string(),
        hostname.trim().to_string(),
    ] {
        assert_eq!(get_as(&server.addr, &host, "/data.json").status, 200, "Host: {host}");
    }
    // A request without a Host, or with two, or a Host that is no host.
    let refused = |request: &str| exchange(&server.addr, request).status;
    assert_eq!(refused("GET /data.json HTTP/1.1\r\nConnection: close\r\n\r\n"), 400);
    assert_eq!(
        refused("GET /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"),
        400
    );
    assert_ne!(get_as(&server.addr, "127.0.0.1@evil.example", "/data.json").status, 200);
    // HTTP/1.0 has no Host to check, and no browser sends one without it.
    assert_eq!(refused("GET /data.json HTTP/1.0\r\n\r\n"), 200);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
    // A name the user allows, for a machine reached through a name of its own.
    let server = Server::start(run.path(), &["--out", out_arg, "--allow-host", "Dash.Lab.Example"], &[]);
    for host in ["dash.lab.example", "DASH.lab.example.", "dash.lab.example:8090"] {
        assert_eq!(get_as(&server.addr, host, "/").status, 200, "Host: {host}");
    }
    assert_eq!(get_as(&server.addr, "lab.example", "/").status, 421);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_sends_a_content_security_policy_with_every_answer() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(run.path(), &["--out", out.path().to_str().unwrap()], &[]);
    let policy = |a: &Answer| a.header("content-security-policy").unwrap_or("").to_string();
    // The page: its own inline script and style, data.json from its own
    // origin, nothing from anywhere else.
    let page = get(&server.addr, "/");
    assert_eq!(page.status, 200);
    let csp = policy(&page);
    for directive in [
        "default-src 'none'",
        "script-src 'sha256-",
        "style-src 'unsafe-inline'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp:?}");
    }
    // Its own script by hash, no other inline script.
    let scripts = csp
        .split(';')
        .find(|d| d.trim().starts_with("script-src"))
        .unwrap_or("");
    assert!(!scripts.contains("unsafe-inline"), "{csp:?}");
    // Everything else is inert even if opened as a document: no script at all.
    for path in ["/data.json", "/report.md", "/charts/cpu-mem.svg", "/run.json"] {
        let a = get(&server.addr, path);
        let csp = policy(&a);
        assert!(
            csp.contains("default-src 'none'") && csp.contains("sandbox") && !csp.contains("script-src"),
            "{path}: {csp:?}"
        );
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"), "{path}");
    }
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_still_refuses_other_methods_long_urls_huge_headers_and_traversal() {
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(run.path(), &["--out", out.path().to_str().unwrap()], &[]);
    let ask = |request: String| exchange(&server.addr, &request);
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        let a = ask(format!(
            "{method} /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ));
        assert_eq!(a.status, 405, "{method}");
        assert_eq!(a.header("allow"), Some("GET, HEAD"), "{method}");
    }
    let long = format!("/data.json?{}", "a".repeat(3000));
    assert_eq!(get(&server.addr, &long).status, 414);
    let huge = ask(format!(
        "GET /data.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "a".repeat(100_000)
    ));
    assert_eq!(huge.status, 431);
    // hyper's own answers to a head it cannot parse carry the headers too.
    let no_version = ask("GET /data.json\r\nHost: 127.0.0.1\r\n\r\n".to_string());
    assert_eq!(no_version.status, 400);
    for (what, a) in [("431", &huge), ("400 without a version", &no_version)] {
        assert_eq!(a.header("cache-control"), Some("no-store"), "{what}");
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"), "{what}");
        let csp = a.header("content-security-policy").unwrap_or("");
        assert!(
            csp.contains("default-src 'none'") && csp.contains("sandbox"),
            "{what}: {csp:?}"
        );
        assert_eq!(a.body, format!("{}\n", a.status).as_bytes(), "{what}");
    }
    for path in ["/../run.json", "/%2e%2e/run.json", "/..%5crun.json", "/%00"] {
        let a = get(&server.addr, path);
        assert_eq!(a.status, 400, "{path}");
        assert_eq!(a.header("cache-control"), Some("no-store"), "{path}");
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"), "{path}");
    }
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

/// The page as `perfreport serve` serves it, policy and all, in Chromium.
#[test]
fn served_page_draws_and_follows_the_run_under_its_content_security_policy() {
    use super::page::{chromium, eval, launch, open, wait_for};
    let Some(chrome) = chromium() else { return };
    let run = pinned_copy(WARM);
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(run.path(), &["--out", out.path().to_str().unwrap()], &[]);
    let browser = launch(chrome);
    let (tab, seen) = open(&browser, &format!("http://{}/", server.addr));
    // A later data.json (a target more, whose trace the run gains) reaches
    // the page through its poll.
    std::fs::copy(
        run.path().join("trace-pytorch.json"),
        run.path().join("trace-late-target.json"),
    )
    .unwrap();
    wait_for(
        &tab,
        "!!document.querySelector('[data-legend-target=\"late-target\"]')",
        "the polled target in the legend",
    );
    let errors = seen.lock().unwrap().errors.clone();
    assert!(errors.is_empty(), "the policy blocked part of the page: {errors:?}");
    // The policy is in force: an image that is not a data: URL, even from
    // this origin, is refused, and the page hears of the violation.
    let refused = tab
        .evaluate(
            "new Promise(done => {
                document.addEventListener('securitypolicyviolation', e => done(e.effectiveDirective), { once: true });
                const img = new Image();
                img.src = '/charts/cpu-mem.svg';
                document.body.appendChild(img);
                setTimeout(() => done('loaded'), 10000);
            })",
            true,
        )
        .unwrap()
        .value;
    assert_eq!(refused, Some("img-src".into()));
    assert!(eval(&tab, "document.documentElement.getAttribute('data-ready') === '1'") == true);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

/// Replaces `name` under `dir` by a symlink to `target`, as `ln -sf` does.
fn plant_link(dir: &Path, name: &str, target: &str) {
    let at = dir.join(name);
    let _ = std::fs::remove_file(&at);
    std::os::unix::fs::symlink(target, &at).unwrap();
}

/// Found by attacking serve: its default output folder is the run folder,
/// which others write into. Links planted at the outputs' names were
/// followed: `report.md -> .env` gave a 0600 secret to the LAN, a chart the
/// raw registry log, and `/` ran a page of the planter's own, whose inline
/// script the page policy allowed. Only the file the last write renamed
/// into place is answered; the page runs only the script perfreport wrote.
#[test]
fn serve_answers_only_the_file_it_wrote_not_a_link_or_file_planted_at_an_outputs_name() {
    let run = pinned_copy(WARM);
    let p = run.path();
    std::fs::write(p.join(".env"), "TOKEN=secret-7f3a\n").unwrap();
    std::fs::set_permissions(p.join(".env"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    std::fs::write(
        p.join("notes.html"),
        "<!doctype html><script>document.title='planted-9c1e'</script>",
    )
    .unwrap();
    let server = Server::start(p, &[], &[]);
    for path in ["/", "/report.md", "/charts/timeline.svg", "/data.json"] {
        assert_eq!(get(&server.addr, path).status, 200, "{path} before the links");
    }
    plant_link(p, "report.md", ".env");
    plant_link(p, "charts/timeline.svg", "../zot.jsonl");
    plant_link(p, "index.html", "notes.html");
    // A regular file of someone else's renamed over an output is not it either.
    std::fs::write(p.join(".data"), "{\"planted\": \"secret-7f3a\"}").unwrap();
    std::fs::rename(p.join(".data"), p.join("data.json")).unwrap();
    for path in ["/report.md", "/charts/timeline.svg", "/", "/index.html", "/data.json"] {
        let a = get(&server.addr, path);
        let body = String::from_utf8_lossy(&a.body);
        assert_eq!(a.status, 404, "{path}: {body}");
        for leaked in ["secret-7f3a", "HTTP API", "planted-9c1e"] {
            assert!(!body.contains(leaked), "{path} answered {leaked}: {body}");
        }
    }
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

/// Found by attacking serve: started on the newest run under `PERF_ROOT`
/// (as `make perf-serve` runs it), it read the run folder by its name at
/// every regeneration, so `mv root/r1 root/.away; ln -s /elsewhere root/r1`
/// had an outside run's lines served. Each read checks the folder it opened
/// against the root, and one that left is not read.
#[test]
fn serve_under_a_root_reads_no_run_folder_swapped_for_a_link_out_of_it() {
    let root = tempfile::tempdir().unwrap();
    let r1 = root.path().join("r1");
    std::fs::create_dir(&r1).unwrap();
    super::copy_run(&super::sample(WARM), &r1);
    let elsewhere = tempfile::tempdir().unwrap();
    super::copy_run(&super::sample(WARM), elsewhere.path());
    let zot = elsewhere.path().join("zot.jsonl");
    let mut log = std::fs::read(&zot).unwrap();
    log.extend_from_slice(b"\nsecret-line-5d2c\n");
    std::fs::write(&zot, log).unwrap();
    let out = tempfile::tempdir().unwrap();
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_perfreport"))
        .args(["serve", "--bind", "127.0.0.1:0", "--out", out.path().to_str().unwrap()])
        .env("PERF_ROOT", root.path())
        .env_remove("PERF_BIND")
        .stdout(Stdio::piped())
        .stderr(stderr.reopen().unwrap())
        .spawn()
        .unwrap();
    let server = Server::of(child);
    assert_eq!(get(&server.addr, "/data.json").status, 200);
    std::fs::rename(&r1, root.path().join(".away")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), &r1).unwrap();
    // Until serve has looked at the swapped folder and said why it did not
    // read it; a safety net, not a measurement.
    let mut refused = false;
    for _ in 0..300 {
        std::thread::sleep(Duration::from_millis(200));
        let a = get(&server.addr, "/data.json");
        assert!(
            !String::from_utf8_lossy(&a.body).contains("secret-line-5d2c"),
            "the outside run was served"
        );
        let said = std::fs::read_to_string(stderr.path()).unwrap_or_default();
        if said.contains("a link leading out of the root") {
            refused = true;
            break;
        }
    }
    assert!(
        refused,
        "serve neither read nor refused the swapped folder: {}",
        std::fs::read_to_string(stderr.path()).unwrap_or_default()
    );
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}
