//! `perfreport serve`: a live view of a run in flight. It regenerates the
//! run's outputs when its inputs change (the big logs incrementally, see
//! `live`) and serves the output directory read-only over HTTP: GET and HEAD
//! only, nothing outside that directory, a few workers so one slow client
//! cannot stall the others.

use crate::error::{Error, Result};
use crate::live::LiveRun;
use crate::output::{write_all, write_atomic};
use crate::render::Export;
use crate::{render, view};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const DEFAULT_BIND: &str = "127.0.0.1:8090";
/// Requests with a longer target are refused (414): nothing served needs one.
const MAX_URL: usize = 2048;
const WORKERS: usize = 4;
/// How often the run's folder is looked at.
const POLL: Duration = Duration::from_millis(500);
/// data.json follows every change; the charts and pages at most this often.
const FULL_RENDER: Duration = Duration::from_secs(15);

pub struct ServeOptions {
    pub run_dir: PathBuf,
    pub out_dir: PathBuf,
    pub bind: String,
}

/// What identifies the state of a run folder: its files' names, sizes and times.
fn fingerprint(dir: &Path) -> Vec<(String, u64, Option<std::time::SystemTime>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    let name = e.file_name().to_string_lossy().into_owned();
                    let ours =
                        ["report.md", "index.html", "data.json"].contains(&name.as_str()) || name.starts_with('.');
                    (m.is_file() && !ours).then(|| (name, m.len(), m.modified().ok()))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One regeneration: data.json always, everything when `full`.
pub fn regenerate(live: &mut LiveRun, out: &Path, full: bool) -> Result<view::View> {
    let run = live.load()?;
    let v = view::build(&run);
    if full {
        write_all(out, &render::render_all(&v)?)?;
    } else {
        for f in render::json::Json.render(&v)? {
            write_atomic(&out.join(&f.path), &f.bytes)?;
        }
    }
    Ok(v)
}

/// Percent-decodes a request path; `None` for malformed escapes or non-UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file a request path names under `root`, or the status to answer.
pub fn resolve(root: &Path, url: &str) -> std::result::Result<PathBuf, u16> {
    if url.len() > MAX_URL {
        return Err(414);
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path).ok_or(400u16)?;
    if decoded.contains('\\') || decoded.contains('\0') {
        return Err(400);
    }
    let segments: Vec<&str> = decoded.split('/').filter(|s| !s.is_empty()).collect();
    if segments.iter().any(|s| *s == ".." || *s == ".") {
        return Err(400);
    }
    let mut file = root.to_path_buf();
    for s in &segments {
        file.push(s);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    // Symlinks are followed only to files that stay under the root.
    let real = file.canonicalize().map_err(|_| 404u16)?;
    let real_root = root.canonicalize().map_err(|_| 404u16)?;
    if !real.starts_with(&real_root) || !real.is_file() {
        return Err(404);
    }
    Ok(real)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("md") => "text/markdown; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn header(k: &str, v: &str) -> tiny_http::Header {
    // Both are ASCII constants or built from ASCII: the conversion cannot fail.
    tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes())
        .unwrap_or_else(|_| tiny_http::Header::from_bytes(&b"X-Invalid"[..], &b"1"[..]).expect("ASCII header"))
}

fn answer(req: tiny_http::Request, root: &Path) {
    use tiny_http::{Method, Response};
    let status_text = |code: u16| Response::from_string(format!("{code}\n")).with_status_code(code);
    let response = match req.method() {
        Method::Get | Method::Head => match resolve(root, req.url()) {
            Ok(file) => match std::fs::read(&file) {
                Ok(bytes) => Response::from_data(bytes)
                    .with_header(header("Content-Type", content_type(&file)))
                    .with_header(header("Cache-Control", "no-store"))
                    .with_header(header("X-Content-Type-Options", "nosniff")),
                Err(_) => status_text(404),
            },
            Err(code) => status_text(code),
        },
        _ => status_text(405).with_header(header("Allow", "GET, HEAD")),
    };
    // A client that went away is its own problem, not the server's.
    let _ = req.respond(response);
}

/// Serves until `stop` is set. `ready` is told the bound address once the
/// first generation is written and the socket listens.
pub fn serve(opts: &ServeOptions, stop: Arc<AtomicBool>, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let mut live = LiveRun::new(&opts.run_dir);
    std::fs::create_dir_all(&opts.out_dir).map_err(|source| Error::Write {
        path: opts.out_dir.clone(),
        source,
    })?;
    let mut in_flight = regenerate(&mut live, &opts.out_dir, true)?.in_flight;
    let server = tiny_http::Server::http(&opts.bind).map_err(|e| Error::NotARun {
        path: PathBuf::from(&opts.bind),
        reason: format!("cannot listen: {e}"),
    })?;
    let server = Arc::new(server);
    let addr = server.server_addr().to_ip().ok_or_else(|| Error::NotARun {
        path: PathBuf::from(&opts.bind),
        reason: "not an IP address".into(),
    })?;
    let root = opts.out_dir.clone();
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, stop, root) = (server.clone(), stop.clone(), root.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match server.recv_timeout(Duration::from_millis(200)) {
                        Ok(Some(req)) => answer(req, &root),
                        Ok(None) => {}
                        Err(_) => break,
                    }
                }
            })
        })
        .collect();
    ready(addr);
    let mut seen = fingerprint(&opts.run_dir);
    let mut last_full = Instant::now();
    let mut pending_full = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let now = fingerprint(&opts.run_dir);
        let changed = now != seen;
        if changed || (pending_full && last_full.elapsed() >= FULL_RENDER) {
            seen = now;
            let full = last_full.elapsed() >= FULL_RENDER || !in_flight;
            match regenerate(&mut live, &opts.out_dir, full) {
                Ok(v) => {
                    // The run just finished: draw everything once more.
                    let finished = in_flight && !v.in_flight;
                    in_flight = v.in_flight;
                    if full {
                        last_full = Instant::now();
                        pending_full = false;
                    } else {
                        pending_full = true;
                    }
                    if finished {
                        let _ = regenerate(&mut live, &opts.out_dir, true);
                    }
                }
                Err(e) => eprintln!("perfreport serve: {e}"),
            }
        }
    }
    server.unblock();
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_in_every_spelling_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.json"), "{}").unwrap();
        let root = dir.path();
        assert!(resolve(root, "/data.json").is_ok());
        assert!(resolve(root, "/data.json?t=123").is_ok());
        assert!(resolve(root, "/").is_err(), "no index.html yet");
        std::fs::write(dir.path().join("index.html"), "x").unwrap();
        assert!(resolve(root, "/").unwrap().ends_with("index.html"));
        assert_eq!(resolve(root, "/../etc/passwd"), Err(400));
        assert_eq!(resolve(root, "/%2e%2e/etc/passwd"), Err(400));
        assert_eq!(resolve(root, "/%2E%2E%2Fetc%2Fpasswd"), Err(400));
        assert_eq!(resolve(root, "//etc/passwd"), Err(404));
        assert_eq!(resolve(root, "/..%5c..%5cetc"), Err(400));
        assert_eq!(resolve(root, "/%zz"), Err(400));
        assert_eq!(resolve(root, &format!("/{}", "a".repeat(3000))), Err(414));
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("out")).unwrap();
        assert_eq!(resolve(root, "/out"), Err(404), "a symlink out of the directory");
    }
}
