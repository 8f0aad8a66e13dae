//! `perfreport serve`: a live view of a run in flight. It regenerates the
//! run's outputs when its inputs change (the big logs incrementally, see
//! `live`) and serves the files it wrote there, read-only, over HTTP:
//! GET and HEAD only, nothing else in or outside that directory, and every
//! connection its own task, so a slow or silent client cannot stall the others.

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
/// A file is sent in chunks of this size, read as the client takes them.
const CHUNK: usize = 16 * 1024;
/// How often the run's folder is looked at.
const POLL: Duration = Duration::from_millis(500);
/// data.json follows every change; the charts and pages at most this often.
const FULL_RENDER: Duration = Duration::from_secs(15);

pub struct ServeOptions {
    pub run_dir: PathBuf,
    pub out_dir: PathBuf,
    pub bind: String,
}

/// One regeneration: data.json always, everything when `full`.
pub fn regenerate(live: &mut LiveRun, out: &Path, full: bool) -> Result<view::View> {
    regenerate_files(live, out, full).map(|(v, _)| v)
}

/// As `regenerate`, with the paths written (relative, `/`-separated).
fn regenerate_files(live: &mut LiveRun, out: &Path, full: bool) -> Result<(view::View, Vec<String>)> {
    let run = live.load()?;
    let v = view::build(&run);
    let files = if full {
        render::render_all(&v)?
    } else {
        render::json::Json.render(&v)?
    };
    if full {
        write_all(out, &files)?;
    } else {
        for f in &files {
            write_atomic(&out.join(&f.path), &f.bytes)?;
        }
    }
    let names = files
        .iter()
        .map(|f| f.path.to_string_lossy().replace('\\', "/"))
        .collect();
    Ok((v, names))
}

/// The files perfreport wrote into the output directory: the only ones
/// served. The default output directory is the run directory, whose logs,
/// run.json and dotfiles are not for the LAN; an allow-list cannot forget
/// one the way a deny-list would.
#[derive(Default)]
pub struct Outputs(std::sync::RwLock<std::collections::BTreeSet<String>>);

impl Outputs {
    fn add(&self, names: Vec<String>) {
        if let Ok(mut set) = self.0.write() {
            set.extend(names);
        }
    }

    fn contains(&self, name: &str) -> bool {
        self.0.read().map(|set| set.contains(name)).unwrap_or(false)
    }
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
/// Only `outputs` are served; `/` is `index.html`.
pub fn resolve(root: &Path, url: &str, outputs: &Outputs) -> std::result::Result<PathBuf, u16> {
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
    let name = if segments.is_empty() {
        render::html::FILE.to_string()
    } else {
        segments.join("/")
    };
    if !outputs.contains(&name) {
        return Err(404);
    }
    let file = root.join(&name);
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

/// Answers one request: the file under `root` the path names, or a status.
async fn answer(
    root: Arc<PathBuf>,
    outputs: Arc<Outputs>,
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> axum::response::Response {
    use axum::http::{header, Method, StatusCode};
    use axum::response::IntoResponse;
    let status = |code: u16| {
        let code = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
        (code, format!("{}\n", code.as_u16())).into_response()
    };
    if method != Method::GET && method != Method::HEAD {
        let mut r = status(405);
        r.headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let target = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let file = match resolve(&root, target, &outputs) {
        Ok(f) => f,
        Err(code) => return status(code),
    };
    // The file is opened once and streamed from that descriptor: a rename
    // by the next regeneration does not cut or mix the answer.
    let Ok(opened) = tokio::fs::File::open(&file).await else {
        return status(404);
    };
    let len = match opened.metadata().await {
        Ok(m) if m.is_file() => m.len(),
        _ => return status(404),
    };
    let body = if method == Method::HEAD {
        axum::body::Body::empty()
    } else {
        use tokio::io::AsyncReadExt;
        let chunks = tokio_util::io::ReaderStream::with_capacity(opened.take(len), CHUNK);
        axum::body::Body::from_stream(chunks)
    };
    (
        [
            (header::CONTENT_TYPE, content_type(&file).to_string()),
            (header::CONTENT_LENGTH, len.to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        ],
        body,
    )
        .into_response()
}

/// Serves until `stop` is set. `ready` is told the bound address once the
/// first generation is written and the socket listens.
pub fn serve(opts: &ServeOptions, stop: Arc<AtomicBool>, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let mut live = LiveRun::new(&opts.run_dir);
    std::fs::create_dir_all(&opts.out_dir).map_err(|source| Error::Write {
        path: opts.out_dir.clone(),
        source,
    })?;
    let outputs = Arc::new(Outputs::default());
    let (first, written) = regenerate_files(&mut live, &opts.out_dir, true)?;
    outputs.add(written);
    let mut in_flight = first.in_flight;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::NotARun {
            path: PathBuf::from(&opts.bind),
            reason: format!("cannot start the server: {e}"),
        })?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(&opts.bind))
        .map_err(|e| Error::NotARun {
            path: PathBuf::from(&opts.bind),
            reason: format!("cannot listen: {e}"),
        })?;
    let addr = listener.local_addr().map_err(|source| Error::Io {
        path: PathBuf::from(&opts.bind),
        source,
    })?;
    let root = Arc::new(opts.out_dir.clone());
    let served = outputs.clone();
    let app = axum::Router::new().fallback(move |method, uri| answer(root.clone(), served.clone(), method, uri));
    let server_stop = stop.clone();
    let server = runtime.spawn(async move {
        let shutdown = async move {
            while !server_stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        axum::serve(listener, app).with_graceful_shutdown(shutdown).await
    });
    ready(addr);
    let mut seen = crate::publish::fingerprint(&opts.run_dir);
    let mut last_full = Instant::now();
    let mut pending_full = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let now = crate::publish::fingerprint(&opts.run_dir);
        let changed = now != seen;
        if changed || (pending_full && last_full.elapsed() >= FULL_RENDER) {
            seen = now;
            let full = last_full.elapsed() >= FULL_RENDER || !in_flight;
            match regenerate_files(&mut live, &opts.out_dir, full) {
                Ok((v, written)) => {
                    outputs.add(written);
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
                        if let Ok((_, written)) = regenerate_files(&mut live, &opts.out_dir, true) {
                            outputs.add(written);
                        }
                    }
                }
                Err(e) => eprintln!("perfreport serve: {e}"),
            }
        }
    }
    // Open connections are not waited for: a client that never finishes its
    // request must not keep the process alive after Ctrl-C.
    let _ = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(2), server).await });
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(names: &[&str]) -> Outputs {
        let o = Outputs::default();
        o.add(names.iter().map(|n| n.to_string()).collect());
        o
    }

    #[test]
    fn traversal_in_every_spelling_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.json"), "{}").unwrap();
        let root = dir.path();
        let served = outputs(&["data.json", "index.html", "out"]);
        assert!(resolve(root, "/data.json", &served).is_ok());
        assert!(resolve(root, "/data.json?t=123", &served).is_ok());
        assert!(resolve(root, "/", &served).is_err(), "no index.html yet");
        std::fs::write(dir.path().join("index.html"), "x").unwrap();
        assert!(resolve(root, "/", &served).unwrap().ends_with("index.html"));
        assert_eq!(resolve(root, "/../etc/passwd", &served), Err(400));
        assert_eq!(resolve(root, "/%2e%2e/etc/passwd", &served), Err(400));
        assert_eq!(resolve(root, "/%2E%2E%2Fetc%2Fpasswd", &served), Err(400));
        assert_eq!(resolve(root, "//etc/passwd", &served), Err(404));
        assert_eq!(resolve(root, "/..%5c..%5cetc", &served), Err(400));
        assert_eq!(resolve(root, "/%zz", &served), Err(400));
        assert_eq!(resolve(root, &format!("/{}", "a".repeat(3000)), &served), Err(414));
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("out")).unwrap();
        assert_eq!(
            resolve(root, "/out", &served),
            Err(404),
            "a symlink out of the directory"
        );
    }

    #[test]
    fn only_the_outputs_written_are_served() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["data.json", "run.json", ".env", "evil.svg"] {
            std::fs::write(root.join(name), "x").unwrap();
        }
        std::fs::create_dir(root.join("charts")).unwrap();
        std::fs::write(root.join("charts/a.svg"), "x").unwrap();
        std::fs::write(root.join("charts/index.html"), "x").unwrap();
        let served = outputs(&["data.json", "charts/a.svg"]);
        assert!(resolve(root, "/data.json", &served).is_ok());
        assert!(resolve(root, "/charts/a.svg", &served).is_ok());
        assert!(resolve(root, "/charts//a.svg", &served).is_ok());
        for url in ["/run.json", "/.env", "/evil.svg", "/charts/", "/charts", "/"] {
            assert_eq!(resolve(root, url, &served), Err(404), "{url}");
        }
    }
}
