//! `perfreport serve`: a live view of a run in flight. It regenerates the
//! run's outputs when its inputs change (the big logs incrementally, see
//! `live`) and serves the files it wrote there, read-only, over HTTP/1 with
//! hyper: GET and HEAD only, nothing else in or outside that directory, and
//! every connection its own task, so a slow or silent client cannot stall
//! the others. What a client can hold is bounded (`Limits`): a few chunks of
//! a file, a header timeout, an idle timeout, a lifetime, and a connection
//! cap under the open-files limit, so regeneration always has descriptors.

use crate::error::{Error, Result};
use crate::live::LiveRun;
use crate::output::{write_all_inside_noting, FileId};
use crate::render::Export;
use crate::{render, view};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

pub const DEFAULT_BIND: &str = "127.0.0.1:8090";
/// Requests with a longer target are refused (414): nothing served needs one.
const MAX_URL: usize = 2048;
/// A file is sent in chunks of this size, read as the client takes them.
const CHUNK: usize = 16 * 1024;
/// hyper's buffer per connection, each way: an answer stops reading its
/// file while this much waits for the client. With a chunk in hand and one
/// being read, under 100 KiB a connection.
const MAX_BUF: usize = 64 * 1024;
/// Request line and headers beyond this are refused (431). hyper's buffer
/// bound alone does not do it: a request read in one go is parsed whole.
/// Room for cookies other services on this host set.
const MAX_HEADER: usize = 32 * 1024;
/// Descriptors kept for everything but connections (regeneration reads
/// every input and writes every output; the outputs held open, two a name
/// at most; the runtime, stdio, the listener).
const RESERVED_FDS: u64 = 64;
/// How often the run's folder is looked at.
const POLL: Duration = Duration::from_millis(500);
/// data.json follows every change; the charts and pages at most this often.
const FULL_RENDER: Duration = Duration::from_secs(15);

pub struct ServeOptions {
    pub run_dir: PathBuf,
    pub out_dir: PathBuf,
    pub bind: String,
    pub limits: Limits,
    /// Names a Host header may carry besides `HostNames`' own.
    pub allow_hosts: Vec<String>,
    /// How the run is read (where its node samples come from).
    pub read: crate::model::Options,
}

/// What one client may hold, and for how long.
#[derive(Clone, Debug)]
pub struct Limits {
    /// A request's headers must be complete this long after the connection
    /// opened or the previous answer was sent (slowloris; idle keep-alive).
    pub header_timeout: Duration,
    /// A connection on which no byte moved either way for this long is
    /// closed: a client that stopped reading its answer, or went silent.
    pub idle_timeout: Duration,
    /// No connection lives longer, however slowly it keeps moving.
    pub max_lifetime: Duration,
    /// Connections served at once; more wait in the kernel's backlog.
    /// Lowered to fit the open-files limit (see `connection_cap`).
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_lifetime: Duration::from_secs(600),
            max_connections: 256,
        }
    }
}

/// Parses a number of seconds for a command-line limit (`0.5`, `10`).
pub fn parse_seconds(s: &str) -> std::result::Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 86400")),
    }
}

/// The connection cap: `wanted`, lowered so that connections (two
/// descriptors each: the socket and the file being sent) leave
/// `RESERVED_FDS` under the open-files limit; `None` is no limit.
fn connection_cap(wanted: usize, open_files: Option<u64>) -> usize {
    let Some(limit) = open_files else {
        return wanted.max(1);
    };
    let fit = usize::try_from(limit.saturating_sub(RESERVED_FDS) / 2).unwrap_or(usize::MAX);
    wanted.min(fit).max(1)
}

/// One regeneration: data.json always, everything when `full`.
pub fn regenerate(live: &mut LiveRun, out: &Path, full: bool) -> Result<view::View> {
    regenerate_files(live, out, full, &Outputs::default())
}

/// As `regenerate`, each file written told to `outputs` as it stands in
/// place (its identity before its rename, so it is never answered 404
/// while it is new), and the files of this regeneration then the only
/// identities `outputs` answers for their names.
fn regenerate_files(live: &mut LiveRun, out: &Path, full: bool, outputs: &Outputs) -> Result<view::View> {
    let run = live.load()?;
    let v = view::build(&run);
    let files = if full {
        render::render_all(&v)?
    } else {
        render::json::Json.render(&v)?
    };
    let mut written: Vec<(String, FileId)> = vec![];
    write_all_inside_noting(out, Path::new(""), &files, &mut |path, id, file| {
        let name = path.to_string_lossy().replace('\\', "/");
        outputs.allow(&name, id, file);
        written.push((name, id));
    })?;
    outputs.settle(&written);
    Ok(v)
}

/// The files perfreport wrote into the output directory, each by its name
/// and the identity (device, inode) of the file its last write renamed into
/// place: the only ones served. The default output directory is the run
/// directory, which others write into: its logs, run.json and dotfiles are
/// not for the LAN, and a link or another file put at an output's name
/// (`ln -sf .env report.md`) is not the output. An allow-list of files, not
/// of names, cannot be re-pointed the way a name can. Each file is held
/// open, so its inode stays its own: one deleted by someone else is not
/// freed for a file of theirs to be given the same inode number.
#[derive(Default)]
struct Outputs(std::sync::RwLock<std::collections::BTreeMap<String, Vec<(FileId, std::fs::File)>>>);

impl Outputs {
    /// `id` (held open as `file`) may be answered as `name`, besides what
    /// already was.
    fn allow(&self, name: &str, id: FileId, file: std::fs::File) {
        if let Ok(mut map) = self.0.write() {
            map.entry(name.to_string()).or_default().push((id, file));
        }
    }

    /// After a regeneration: each name it wrote answers only for the file
    /// that now stands there (the others are let go).
    fn settle(&self, written: &[(String, FileId)]) {
        if let Ok(mut map) = self.0.write() {
            for (name, id) in written {
                if let Some(files) = map.get_mut(name) {
                    files.retain(|(held, _)| held == id);
                    files.truncate(1);
                }
            }
        }
    }

    /// Whether `name` is an output at all.
    fn contains(&self, name: &str) -> bool {
        self.0.read().map(|map| map.contains_key(name)).unwrap_or(false)
    }

    /// Whether the file `id`, found at `name`, is the one written there.
    fn is(&self, name: &str, id: FileId) -> bool {
        self.0
            .read()
            .map(|map| {
                map.get(name)
                    .is_some_and(|files| files.iter().any(|(held, _)| *held == id))
            })
            .unwrap_or(false)
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

/// The output a request path names (relative, `/`-separated), or the
/// status to answer. Only `outputs` are served; `/` is `index.html`. Which
/// file stands at that name is checked when it is opened ([`open_output`]).
fn resolve(url: &str, outputs: &Outputs) -> std::result::Result<String, u16> {
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
    Ok(name)
}

/// Opens the output `name` under `root` for an answer: without following a
/// link at its name, without blocking on a FIFO put there, and only when
/// what was opened is a regular file whose identity is the one written
/// there. Anything else at that name (a link, a file someone else put or
/// renamed there, a directory) is not the output: `None`, and a 404.
async fn open_output(root: &Path, name: &str, outputs: &Outputs) -> Option<(tokio::fs::File, u64)> {
    let mut options = tokio::fs::OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = options.open(root.join(name)).await.ok()?;
    let meta = file.metadata().await.ok()?;
    (meta.is_file() && outputs.is(name, FileId::of(&meta))).then_some((file, meta.len()))
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

/// The names a request's Host may carry. A DNS-rebinding page reaches this
/// server under a name its attacker controls, and the browser sends that
/// name as Host; it cannot make the browser send an IP literal, `localhost`
/// or this machine's own name. So those are answered, with the names the
/// user allows (`--allow-host`), and any other name is refused, on a
/// loopback bind too (rebinding to 127.0.0.1 works as well).
struct HostNames(Vec<String>);

/// A host name as compared: ASCII lower case, without the root's dot.
fn normal_name(name: &str) -> String {
    let name = name.strip_suffix('.').unwrap_or(name);
    name.to_ascii_lowercase()
}

impl HostNames {
    /// `localhost`, this machine's name (and its first label), and `extra`.
    fn new(extra: &[String]) -> Self {
        let uname = rustix::system::uname();
        let machine = uname.nodename().to_string_lossy().into_owned();
        Self::with_machine_name(&machine, extra)
    }

    fn with_machine_name(machine: &str, extra: &[String]) -> Self {
        let mut names = vec!["localhost".to_string()];
        let machine = normal_name(machine);
        if let Some((first, _)) = machine.split_once('.') {
            names.push(first.to_string());
        }
        names.push(machine);
        names.extend(extra.iter().map(|n| normal_name(n.trim())));
        names.retain(|n| !n.is_empty());
        HostNames(names)
    }

    /// Whether `host` (a URI authority's host: a name, an IPv4 address or a
    /// bracketed IPv6 one) is answered.
    fn allows(&self, host: &str) -> bool {
        if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            return v6.parse::<std::net::Ipv6Addr>().is_ok();
        }
        if host.parse::<std::net::Ipv4Addr>().is_ok() {
            return true;
        }
        let name = normal_name(host);
        self.0.contains(&name)
    }
}

/// The host of `host[:port]`, read strictly: a bracketed IPv6 address ends
/// the host at its `]` (so `[::1].evil.example` is no host), a port is 1 to 5
/// digits, and a name is letters, digits, `-`, `_` and `.`. Userinfo (`@`)
/// has no place in a Host and would hide the name from a reader.
fn host_of_authority(authority: &str) -> Option<&str> {
    let port_ok = |p: &str| (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')? + 1;
        let (host, rest) = authority.split_at(end);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let name_ok = host.starts_with('[')
        || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
    (name_ok && port.is_none_or(port_ok)).then_some(host)
}

/// The status refusing a request for its Host, if any: 400 for a Host that
/// is missing (HTTP/1.1), repeated or no host, 421 for a name not answered.
/// An absolute-form target's authority is checked too: it overrides Host.
fn host_refusal<B>(names: &HostNames, req: &axum::http::Request<B>) -> Option<u16> {
    let check = |authority: &str| -> Option<u16> {
        match host_of_authority(authority) {
            Some(host) => (!names.allows(host)).then_some(421),
            None => Some(400),
        }
    };
    let mut hosts = req.headers().get_all(axum::http::header::HOST).iter();
    let refused = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => Some(400),
        (Some(host), None) => host.to_str().map_or(Some(400), check),
        (None, _) => (req.version() >= axum::http::Version::HTTP_11 && req.uri().authority().is_none()).then_some(400),
    };
    refused.or_else(|| req.uri().authority().and_then(|a| check(a.as_str())))
}

/// What is served: the output directory, the files written there, and the
/// names it answers to.
struct Site {
    root: PathBuf,
    outputs: Arc<Outputs>,
    hosts: HostNames,
}

type Response = axum::http::Response<axum::body::Body>;

/// The page's policy: its own inline script, by the hash of what perfreport
/// wrote there (no other inline script runs, not even one put in a copy of
/// the page), its inline style (it is one self-contained file), data.json
/// polled from this origin, and nothing else: should an input string ever
/// slip into it as markup, it can load nothing, send nothing elsewhere and
/// run no string as code.
fn page_policy() -> &'static str {
    static POLICY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    POLICY.get_or_init(|| {
        let scripts: Vec<String> = render::html::inline_script_hashes()
            .iter()
            .map(|h| format!("'sha256-{h}'"))
            .collect();
        format!(
            "default-src 'none'; script-src {}; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; \
             base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            scripts.join(" ")
        )
    })
}
/// Every other answer (data, markdown, charts, statuses) is inert even when
/// opened as a document: no script, a sandbox of its own.
const FILE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

/// Headers every answer carries: nothing is cached (the run changes under
/// it), no content type is guessed, and a content security policy as
/// defence in depth behind the escaping of the outputs.
fn with_common_headers(mut r: Response) -> Response {
    use axum::http::header::{self, HeaderValue};
    let is_page = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
    let policy = if is_page { page_policy() } else { FILE_POLICY };
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    let policy = HeaderValue::from_str(policy).unwrap_or(HeaderValue::from_static(FILE_POLICY));
    h.insert(header::CONTENT_SECURITY_POLICY, policy);
    r
}

/// Answers one request: the file the path names, or a status.
async fn answer<B>(site: &Site, req: &axum::http::Request<B>) -> Response {
    with_common_headers(answer_file(site, req).await)
}

async fn answer_file<B>(site: &Site, req: &axum::http::Request<B>) -> Response {
    use axum::http::{header, Method, StatusCode};
    let status = |code: u16| {
        let code = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
        let mut r = Response::new(axum::body::Body::from(format!("{}\n", code.as_u16())));
        *r.status_mut() = code;
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    };
    // Before anything else: a rebinding page learns nothing, not even a 405.
    if let Some(code) = host_refusal(&site.hosts, req) {
        let mut r = status(code);
        if code == 421 {
            *r.body_mut() = axum::body::Body::from(
                "421: this server answers to its IP addresses, localhost and its machine's name; \
                 perfreport serve --allow-host NAME adds a name\n",
            );
        }
        return r;
    }
    let method = req.method();
    if method != Method::GET && method != Method::HEAD {
        let mut r = status(405);
        r.headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let target = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let name = match resolve(target, &site.outputs) {
        Ok(n) => n,
        Err(code) => return status(code),
    };
    // The file is opened once, checked on that descriptor and streamed from
    // it: a rename by the next regeneration does not cut or mix the answer.
    let Some((opened, len)) = open_output(&site.root, &name, &site.outputs).await else {
        return status(404);
    };
    let body = if method == Method::HEAD {
        axum::body::Body::empty()
    } else {
        use tokio::io::AsyncReadExt;
        let chunks = tokio_util::io::ReaderStream::with_capacity(opened.take(len), CHUNK);
        axum::body::Body::from_stream(chunks)
    };
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type(Path::new(&name))),
    );
    h.insert(header::CONTENT_LENGTH, header::HeaderValue::from(len));
    r
}

/// When a connection last moved a byte, either way.
struct Activity {
    opened: tokio::time::Instant,
    /// Milliseconds after `opened`.
    last: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            opened: tokio::time::Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    /// Completes once no byte has moved for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
            let deadline = self.opened + last + limit;
            if tokio::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A client's socket that records in `Activity` every byte it moves, and
/// gives hyper's own answers the headers every answer carries.
struct Watched {
    stream: tokio::net::TcpStream,
    activity: Arc<Activity>,
    /// A rewritten automatic answer (see [`automatic_answer`]) not yet sent.
    pending: Vec<u8>,
}

/// hyper answers a request it cannot parse by itself (400 for a request
/// line without a version, 414, 431 for a head over `MAX_HEADER`), before
/// any service sees it, and with none of the headers of `with_common_headers`.
/// Such an answer is a lone head whose status is one of those and that
/// lacks `x-content-type-options`, which every answer of `answer` has. Its
/// replacement: the same status line, the common headers, a body saying the
/// status as `answer`'s statuses do, and the connection closed (as hyper
/// closes it after a parse error).
fn automatic_answer(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() > 1024 || !data.ends_with(b"\r\n\r\n") {
        return None;
    }
    let head = std::str::from_utf8(data).ok()?;
    let status_line = head.split("\r\n").next()?;
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| status_line.strip_prefix("HTTP/1.0 "))?;
    let code = status.get(..3).filter(|c| ["400", "414", "431"].contains(c))?;
    if head.to_ascii_lowercase().contains("x-content-type-options") {
        return None;
    }
    let body = format!("{code}\n");
    Some(
        format!(
            "{status_line}\r\ncontent-type: text/plain; charset=utf-8\r\ncache-control: no-store\r\n\
             x-content-type-options: nosniff\r\ncontent-security-policy: {FILE_POLICY}\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl tokio::io::AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl Watched {
    fn wrote(&self, polled: &Poll<std::io::Result<usize>>) {
        if matches!(polled, Poll::Ready(Ok(n)) if *n > 0) {
            self.activity.touch();
        }
    }

    /// Sends what is pending of a rewritten answer; ready once it is all sent.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while !self.pending.is_empty() {
            let polled = tokio::io::AsyncWrite::poll_write(Pin::new(&mut self.stream), cx, &self.pending);
            self.wrote(&polled);
            match polled {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => drop(self.pending.drain(..n)),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `data` whole when it is hyper's automatic answer, sending its
    /// rewrite instead; `None` when it is not.
    fn rewrite(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Option<Poll<std::io::Result<usize>>> {
        let rewritten = automatic_answer(data)?;
        self.pending = rewritten;
        Some(match self.drain(cx) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            // The rest is sent by the flush hyper makes next.
            _ => Poll::Ready(Ok(data.len())),
        })
    }
}

impl tokio::io::AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        if let Some(taken) = self.rewrite(cx, data) {
            return taken;
        }
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        self.wrote(&polled);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next()) {
            if let Some(taken) = self.rewrite(cx, only) {
                return taken;
            }
        }
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.wrote(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// One client's connection, until it ends, idles or outlives its limits.
async fn connection(
    stream: tokio::net::TcpStream,
    http: Arc<hyper::server::conn::http1::Builder>,
    site: Arc<Site>,
    limits: Limits,
    _permit: tokio::sync::OwnedSemaphorePermit,
) {
    let activity = Arc::new(Activity::new());
    let io = hyper_util::rt::TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
        pending: vec![],
    });
    let service = hyper::service::service_fn(move |req| {
        let site = site.clone();
        async move { Ok::<_, std::convert::Infallible>(answer(&site, &req).await) }
    });
    // Whichever comes first ends it; dropping the connection closes its
    // socket and the file it was sending, and frees its place under the cap.
    tokio::select! {
        _ = http.serve_connection(io, service) => {}
        _ = activity.idle_for(limits.idle_timeout) => {}
        _ = tokio::time::sleep(limits.max_lifetime) => {}
    }
}

/// The next client, once there is room for it under the cap.
async fn next_client(
    listener: &tokio::net::TcpListener,
    room: &Arc<tokio::sync::Semaphore>,
) -> Option<(tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit)> {
    // The place first: past the cap, clients wait in the kernel's backlog
    // and hold none of this process's descriptors.
    let permit = room.clone().acquire_owned().await.ok()?;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => return Some((stream, permit)),
            // Out of descriptors, or a client gone before it was taken:
            // try again shortly rather than spin.
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Accepts clients until `stop` changes.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    site: Arc<Site>,
    limits: Limits,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let room = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut http = hyper::server::conn::http1::Builder::new();
    // hyper starts this timer when a connection opens and again after each
    // answer, so it covers silent clients, slow headers and idle keep-alive.
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_BUF)
        .max_header_size(MAX_HEADER);
    let http = Arc::new(http);
    loop {
        let client = tokio::select! {
            _ = stop.changed() => return,
            client = next_client(&listener, &room) => client,
        };
        let Some((stream, permit)) = client else { return };
        tokio::spawn(connection(stream, http.clone(), site.clone(), limits.clone(), permit));
    }
}

/// Serves until `stop` is set. `ready` is told the bound address once the
/// first generation is written and the socket listens.
pub fn serve(opts: &ServeOptions, stop: Arc<AtomicBool>, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let mut live = LiveRun::with_options(&opts.run_dir, opts.read.clone());
    std::fs::create_dir_all(&opts.out_dir).map_err(|source| Error::Write {
        path: opts.out_dir.clone(),
        error: source,
    })?;
    let outputs = Arc::new(Outputs::default());
    let first = regenerate_files(&mut live, &opts.out_dir, true, &outputs)?;
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
        error: source,
    })?;
    let open_files = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    let mut limits = opts.limits.clone();
    limits.max_connections = connection_cap(limits.max_connections, open_files);
    if limits.max_connections < opts.limits.max_connections {
        eprintln!(
            "perfreport serve: at most {} connections at once, to stay within the open-files limit ({})",
            limits.max_connections,
            open_files.unwrap_or(0)
        );
    }
    let site = Arc::new(Site {
        root: opts.out_dir.clone(),
        outputs: outputs.clone(),
        hosts: HostNames::new(&opts.allow_hosts),
    });
    let (stop_serving, stopped) = tokio::sync::watch::channel(false);
    let server = runtime.spawn(accept_loop(listener, site, limits, stopped));
    ready(addr);
    let mut seen = crate::runs::fingerprint(&opts.run_dir);
    let mut last_full = Instant::now();
    let mut pending_full = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let now = crate::runs::fingerprint(&opts.run_dir);
        // A folder that cannot be fingerprinted is read again each time.
        let changed = now.is_none() || now != seen || live.server_due(in_flight);
        if changed || (pending_full && last_full.elapsed() >= FULL_RENDER) {
            let full = last_full.elapsed() >= FULL_RENDER || !in_flight;
            match regenerate_files(&mut live, &opts.out_dir, full, &outputs) {
                Ok(v) => {
                    // Only a change that was rendered is seen: after a failure
                    // (a full disk, no descriptor) the next poll tries again.
                    seen = now;
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
                        if let Err(e) = regenerate_files(&mut live, &opts.out_dir, true, &outputs) {
                            eprintln!("perfreport serve: {}", crate::term::quote(&e.to_string()));
                        }
                    }
                }
                Err(e) => eprintln!("perfreport serve: {}", crate::term::quote(&e.to_string())),
            }
        }
    }
    // Open connections are not waited for: a client that never finishes its
    // request must not keep the process alive after Ctrl-C. Dropping the
    // runtime drops their tasks.
    let _ = stop_serving.send(true);
    let _ = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(2), server).await });
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outputs `names`, each the file now at `root/name` (a name with
    /// no file there is an output not yet written).
    fn outputs(root: &Path, names: &[&str]) -> Outputs {
        let o = Outputs::default();
        for n in names {
            // A name with no file there is held as the directory, which no request opens as a file.
            let file = std::fs::File::open(root.join(n)).unwrap_or_else(|_| std::fs::File::open(root).unwrap());
            o.allow(n, FileId::of(&file.metadata().unwrap()), file);
        }
        o
    }

    fn opened(root: &Path, url: &str, served: &Outputs) -> std::result::Result<String, u16> {
        let name = resolve(url, served)?;
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        match rt.block_on(open_output(root, &name, served)) {
            Some(_) => Ok(name),
            None => Err(404),
        }
    }

    #[test]
    fn traversal_in_every_spelling_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.json"), "{}").unwrap();
        let root = dir.path();
        let served = outputs(root, &["data.json", "index.html", "out"]);
        assert!(opened(root, "/data.json", &served).is_ok());
        assert!(opened(root, "/data.json?t=123", &served).is_ok());
        assert_eq!(opened(root, "/", &served), Err(404), "no index.html yet");
        std::fs::write(dir.path().join("index.html"), "x").unwrap();
        assert_eq!(opened(root, "/", &served), Err(404), "a file not written as the output");
        let served = outputs(root, &["data.json", "index.html", "out"]);
        assert_eq!(opened(root, "/", &served).as_deref(), Ok("index.html"));
        assert_eq!(resolve("/../etc/passwd", &served), Err(400));
        assert_eq!(resolve("/%2e%2e/etc/passwd", &served), Err(400));
        assert_eq!(resolve("/%2E%2E%2Fetc%2Fpasswd", &served), Err(400));
        assert_eq!(resolve("//etc/passwd", &served), Err(404));
        assert_eq!(resolve("/..%5c..%5cetc", &served), Err(400));
        assert_eq!(resolve("/%zz", &served), Err(400));
        assert_eq!(resolve("/%c0%ae%c0%ae/etc/passwd", &served), Err(400), "overlong UTF-8");
        assert_eq!(resolve("/%00", &served), Err(400));
        assert_eq!(resolve("/%252e%252e/etc/passwd", &served), Err(404), "double-encoded");
        assert_eq!(resolve(&format!("/{}", "a".repeat(3000)), &served), Err(414));
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("out")).unwrap();
        assert_eq!(
            opened(root, "/out", &served),
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
        let served = outputs(root, &["data.json", "charts/a.svg"]);
        assert!(opened(root, "/data.json", &served).is_ok());
        assert!(opened(root, "/charts/a.svg", &served).is_ok());
        assert!(opened(root, "/charts//a.svg", &served).is_ok());
        for url in ["/run.json", "/.env", "/evil.svg", "/charts/", "/charts", "/"] {
            assert_eq!(opened(root, url, &served), Err(404), "{url}");
        }
    }

    /// An output's name re-pointed at another file (a link, or a file of
    /// someone else's renamed over it) is not the output: only the file
    /// whose identity the last write recorded is answered.
    #[test]
    fn an_output_is_answered_only_as_the_file_written_there_not_a_link_or_file_put_at_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let served = Outputs::default();
        let files = [crate::output::OutFile::new("report.md", "# run\n")];
        let mut written = vec![];
        write_all_inside_noting(root, Path::new(""), &files, &mut |p, id, file| {
            served.allow(&p.to_string_lossy(), id, file);
            written.push((p.to_string_lossy().into_owned(), id));
        })
        .unwrap();
        served.settle(&written);
        assert!(opened(root, "/report.md", &served).is_ok());
        std::fs::write(root.join(".env"), "TOKEN=secret\n").unwrap();
        std::fs::remove_file(root.join("report.md")).unwrap();
        std::os::unix::fs::symlink(".env", root.join("report.md")).unwrap();
        assert_eq!(opened(root, "/report.md", &served), Err(404), "a link at the name");
        std::fs::remove_file(root.join("report.md")).unwrap();
        std::fs::write(root.join("other.md"), "# run\n").unwrap();
        std::fs::rename(root.join("other.md"), root.join("report.md")).unwrap();
        assert_eq!(
            opened(root, "/report.md", &served),
            Err(404),
            "another file renamed there"
        );
    }

    #[test]
    fn the_connection_cap_leaves_descriptors_for_regeneration() {
        // Linux's default soft limit: the default cap fits with room to spare.
        assert_eq!(connection_cap(256, Some(1024)), 256);
        assert!(2 * connection_cap(256, Some(1024)) as u64 + RESERVED_FDS <= 1024);
        // A tight limit lowers it; two descriptors a connection plus the reserve still fit.
        assert_eq!(connection_cap(256, Some(160)), 48);
        assert_eq!(connection_cap(256, Some(10)), 1, "never zero: the page must be served");
        assert_eq!(connection_cap(256, None), 256);
        assert_eq!(connection_cap(0, None), 1);
    }

    #[test]
    fn limits_are_seconds_within_a_day() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_seconds("10"), Ok(Duration::from_secs(10)));
        for bad in ["0", "-1", "nan", "inf", "1e9", "", "ten"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_answered_are_ip_literals_localhost_the_machine_and_names_allowed() {
        let names = HostNames::with_machine_name("Fleet-01.lab.example.", &["Dash.Example.".into()]);
        for host in [
            "127.0.0.1",
            "10.0.3.12",
            "[::1]",
            "[2001:db8::1]",
            "localhost",
            "LocalHost.",
            "fleet-01",
            "fleet-01.lab.example",
            "dash.example",
        ] {
            assert!(names.allows(host), "{host}");
        }
        for host in [
            "evil.example",
            "lab.example",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "127.1",
            "0x7f000001",
            "[fe80::1%25eth0]",
            "[evil]",
            "",
            ".",
        ] {
            assert!(!names.allows(host), "{host}");
        }
    }

    #[test]
    fn a_request_is_refused_for_a_missing_repeated_or_foreign_host() {
        use axum::http::{Request, Version};
        let names = HostNames::with_machine_name("fleet-01", &[]);
        let req = |uri: &str, version: Version, hosts: &[&str]| {
            let mut b = Request::builder().uri(uri).version(version);
            for h in hosts {
                b = b.header("host", *h);
            }
            b.body(()).unwrap()
        };
        let v11 = Version::HTTP_11;
        assert_eq!(host_refusal(&names, &req("/", v11, &["fleet-01:8090"])), None);
        assert_eq!(host_refusal(&names, &req("/", v11, &["evil.example:8090"])), Some(421));
        assert_eq!(host_refusal(&names, &req("/", v11, &[])), Some(400));
        assert_eq!(host_refusal(&names, &req("/", Version::HTTP_10, &[])), None);
        assert_eq!(
            host_refusal(&names, &req("/", v11, &["fleet-01", "fleet-01"])),
            Some(400)
        );
        assert_eq!(host_refusal(&names, &req("/", v11, &["u@fleet-01"])), Some(400));
        assert_eq!(host_refusal(&names, &req("/", v11, &["a b"])), Some(400));
        assert_eq!(
            host_refusal(&names, &req("http://evil.example/", v11, &["fleet-01"])),
            Some(421)
        );
        assert_eq!(host_refusal(&names, &req("http://10.0.0.1:8090/", v11, &[])), None);
        // Found by attacking the fixes: a bracketed IPv6 address followed by
        // more text, and ports that are not ports, were answered.
        for bad in [
            "[::1].evil.example",
            "[::1]x.evil.example:80",
            "127.0.0.1:abc",
            "[::1]:",
            "fleet-01:",
            "fleet-01:123456",
        ] {
            assert_eq!(host_refusal(&names, &req("/", v11, &[bad])), Some(400), "{bad}");
        }
        for good in ["[::1]", "[::1]:8090", "127.0.0.1:8090", "FLEET-01.:8090"] {
            assert_eq!(host_refusal(&names, &req("/", v11, &[good])), None, "{good}");
        }
    }
}
