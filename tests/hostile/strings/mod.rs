//! The hostile-strings corpus: each payload below goes into each
//! field of each input that can hold it, one at a time, and every output is
//! checked: report.md through pulldown-cmark (raw HTML on, stricter than the
//! product) and cmark-gfm, report.html, index.html with JS on and off, the
//! published site and ratios.html in a real headless Chromium. A payload that
//! runs sets `window.__pwned`; an element it injects carries `data-pwned`.
//! The structure of each output (headings, tables, rows, list items, links,
//! images, elements) must equal that of the same run with a benign string in
//! that field.
//!
//! This module builds the corpus and its runs; the checks are grouped by
//! where a string lands.

mod browser;
mod embedded;
mod markdown;
mod ratios;

use crate::page::chromium;
use crate::{jaeger, perfreport};
use headless_chrome::browser::tab::Tab;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::Browser;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Ways out of where a name lands. Each field takes those it can hold.
const PAYLOADS: &[&str] = &[
    // HTML with spaces (file names, JSON) and without (one-word fields).
    r#""><img src="x" onerror="window.__pwned=1" data-pwned>"#,
    r#""><img/src="x"/onerror="window.__pwned=1"/data-pwned>"#,
    // Out of <noscript> and <script>.
    "</noscript></script><script/data-pwned>window.__pwned=1</script>",
    // Ends JSON.parse of the embedded data (`<\!--` is no JSON escape) and
    // turns a script's `</script>` into text.
    "<!--<script>",
    // Markdown images, links and autolinks.
    "![x](http://127.0.0.1:9/pwned.png)[y](javascript:window.__pwned=1)<http://127.0.0.1:9/a>",
    "[y](javascript:window.__pwned=1)![x](pwned.png)evil@example.com,www.example.com",
    // A backtick ends the code span a name sits in.
    r#"`</code><img/src="x"/onerror="window.__pwned=1"/data-pwned>`x"#,
    // A newline starts a heading, a table, a list, a quote, a code block.
    "x\n# heading\n\n| a | b |\n|---|---|\n| c | d |\n\n- item\n> quote\n\n    code\n![x](pwned.png)",
    // Block starters where a name begins a line or a list item.
    "# heading",
    "    - item 1. x",
    // Entities, terminal escapes, JS line separators, pipes, a last backslash.
    "&lt;img&gt;\u{1b}]0;title\u{7}\u{1b}[2J\u{2028}\u{2029}x|y\\",
    // Characters XML does not allow (an ESC, U+FFFE) or discourages (C1) in a chart's text.
    "\u{1b}[31mred\u{1b}[0m\u{85}\u{fffe}\u{1}",
    // Backticks that a code span's fallback left bare pair with the next value's.
    "a`|b``c",
];

const BENIGN: &str = "benign";

/// A field of a run's inputs, and what its file's syntax cannot hold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Field {
    /// run.json `stamp`.
    Stamp,
    Arch,
    Namespace,
    /// run.json's node name, also in samples.jsonl.
    Node,
    Builder,
    /// The trace file's name, `trace-<target>.json`, also in run.json's targets.
    Target,
    /// A target run.json announces that has no trace.
    Announced,
    /// A step's name inside a trace.
    Step,
    /// A node only samples.jsonl knows.
    SamplesNode,
    /// zot.jsonl `message`.
    ZotMessage,
    /// artifacts.txt target and file name.
    Artifact,
    /// placement.txt target, node and builder values.
    Placement,
    /// A malformed sccache.log line, quoted in a warning.
    MalformedLine,
    /// The run directory's own name (the stamp when run.json has none).
    RunDir,
}

const FIELDS: &[Field] = &[
    Field::Stamp,
    Field::Arch,
    Field::Namespace,
    Field::Node,
    Field::Builder,
    Field::Target,
    Field::Announced,
    Field::Step,
    Field::SamplesNode,
    Field::ZotMessage,
    Field::Artifact,
    Field::Placement,
    Field::MalformedLine,
    Field::RunDir,
];

impl Field {
    fn holds(self, s: &str) -> bool {
        match self {
            Field::Target | Field::RunDir => !s.contains(['/', '\0']),
            Field::Placement => !s.contains(char::is_whitespace),
            Field::Artifact => !s.contains(char::is_whitespace) && !s.contains('#'),
            Field::MalformedLine => !s.contains(['\n', '\r']),
            _ => true,
        }
    }
}

/// One run of the corpus: `field` holds `value`.
struct Case {
    id: String,
    field: Field,
    value: String,
}

impl Case {
    fn benign(&self) -> bool {
        self.value == BENIGN
    }
}

fn cases() -> Vec<Case> {
    let mut out = vec![];
    for &field in FIELDS {
        for value in std::iter::once(BENIGN).chain(PAYLOADS.iter().copied()) {
            if field.holds(value) {
                out.push(Case {
                    id: format!("case-{:03}", out.len()),
                    field,
                    value: value.to_string(),
                });
            }
        }
    }
    out
}

/// Writes the case's run under `root`: a small run with two nodes and two
/// targets, every input present, the case's field set to its value.
fn write_run(root: &Path, case: &Case) -> PathBuf {
    let v = |f: Field, default: &str| -> String {
        if case.field == f {
            case.value.clone()
        } else {
            default.to_string()
        }
    };
    let stamp = format!("{}-{}", case.id, case.value);
    let dir = root.join(if case.field == Field::RunDir { &stamp } else { &case.id });
    std::fs::create_dir_all(&dir).unwrap();
    let (node, target) = (v(Field::Node, "a"), v(Field::Target, "one"));
    let mut targets = vec![json!(target), json!("two")];
    if case.field == Field::Announced {
        targets.push(json!(case.value));
    }
    let mut run = json!({
        "stamp": if case.field == Field::Stamp { stamp.clone() } else { case.id.clone() },
        "mode": "cold", "arch": v(Field::Arch, "gfx950"), "namespace": v(Field::Namespace, "rocm-coldrun"),
        "sccache_prefix": "perf-x", "targets": targets,
        "started_at": "2026-10-20T02:00:00Z", "finished_at": "2026-10-20T02:16:40Z",
        "nodes": [
            {"name": node, "builder": v(Field::Builder, "snoc-a"), "addr": "10.0.0.1", "cores": 8, "mem_bytes": 1000, "link_mbps": 2.0},
            {"name": "b", "builder": "snoc-b", "addr": "10.0.0.2", "cores": 8}
        ]
    });
    if case.field == Field::RunDir {
        run.as_object_mut().unwrap().remove("stamp");
    }
    std::fs::write(dir.join("run.json"), run.to_string()).unwrap();
    let mut placement =
        "placement target=one node=a builder=snoc-a est_s=100\nplacement target=two node=b est_s=300\n".to_string();
    if case.field == Field::Placement {
        let x = &case.value;
        placement.push_str(&format!(
            "placement target={x} node={x} builder={x} est_s=10 after={x}\n"
        ));
    }
    std::fs::write(dir.join("placement.txt"), placement).unwrap();
    let t0: i64 = 1_792_461_600_000_000; // 2026-10-20T02:00:00Z
    let step = format!("[builder 2/2] RUN {}", v(Field::Step, "make"));
    std::fs::write(
        dir.join(format!("trace-{target}.json")),
        jaeger(
            t0,
            &[
                ("r1", "0000000000000000", "build", 100.0, 400.0, &[]),
                ("s1", "r1", "load cache: [builder 1/2] FROM x", 120.0, 121.0, &[]),
                ("s2", "r1", &step, 121.0, 300.0, &[]),
                ("u1", "r1", "HTTP PUT", 310.0, 350.0, &[("http.method", "PUT")]),
            ],
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("trace-two.json"),
        jaeger(
            t0,
            &[
                ("r2", "0000000000000000", "build", 350.0, 600.0, &[]),
                ("s3", "r2", "[final 1/1] COPY . /", 360.0, 590.0, &[]),
            ],
        ),
    )
    .unwrap();
    let mut samples = String::new();
    let mut sample = |name: &str, ts: i64, busy: f64| {
        let line = json!({"ts": ts, "node": name, "cpu": {"user": busy, "idle": 100.0 * (ts - 1_792_461_600) as f64},
                          "mem": {"total": 100, "available": 60}, "load1": 1.5});
        samples.push_str(&format!("{line}\n"));
    };
    for (i, ts) in [1_792_461_600i64, 1_792_461_700, 1_792_461_800].iter().enumerate() {
        sample(&node, *ts, 5000.0 * i as f64);
        sample("b", *ts, 1000.0 * i as f64);
        if case.field == Field::SamplesNode {
            sample(&case.value, *ts, 100.0 * i as f64);
        }
    }
    std::fs::write(dir.join("samples.jsonl"), samples).unwrap();
    let zot = [
        json!({"time": "2026-10-20T02:05:50Z", "level": "info", "message": "HTTP API", "clientIP": "10.0.0.1:5000",
               "method": "PUT", "path": "/v2/r/blobs/uploads/x?digest=sha256%3A1", "statusCode": 201,
               "latency": "1s", "bodySize": 0, "headers": {"Content-Length": ["1000"]}}),
        json!({"time": "2026-10-20T02:00:05Z", "level": "info", "message": v(Field::ZotMessage, "syncing image")}),
    ];
    std::fs::write(
        dir.join("zot.jsonl"),
        zot.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let mut sccache = String::new();
    for path in ["/perf-x/a/b", "/perf-x/c/d"] {
        sccache.push_str(&format!(
            "10.0.0.1 - - [20/Oct/2026:02:05:00 +0000] \"GET {path} HTTP/1.1\" 404 0 \"-\" \"opendal\"\n"
        ));
    }
    if case.field == Field::MalformedLine {
        sccache.push_str(&format!("{}\n", case.value));
    }
    std::fs::write(dir.join("sccache.log"), sccache).unwrap();
    let sha = "ab".repeat(32);
    let mut artifacts = format!("one one-1.0.whl 123 {sha}\n");
    if case.field == Field::Artifact {
        artifacts.push_str(&format!("{0} {0} 456 {sha}\n", case.value));
    }
    std::fs::write(dir.join("artifacts.txt"), artifacts).unwrap();
    dir
}

/// The corpus published as one site (with `--compare-previous`, so each
/// report.html also carries its neighbours' names), each case with the
/// folder of its run pages.
struct Corpus {
    _tmp: tempfile::TempDir,
    site: PathBuf,
    cases: Vec<(Case, PathBuf)>,
}

/// The corpus, published once for the tests that run at the same time and
/// removed when the last of them lets it go.
fn corpus() -> Arc<Corpus> {
    static SHARED: Mutex<std::sync::Weak<Corpus>> = Mutex::new(std::sync::Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = shared.upgrade() {
        return c;
    }
    let c = Arc::new(publish_corpus());
    *shared = Arc::downgrade(&c);
    c
}

fn publish_corpus() -> Corpus {
    let tmp = tempfile::tempdir().unwrap();
    let (root, site) = (tmp.path().join("root"), tmp.path().join("site"));
    let cases = cases();
    for case in &cases {
        write_run(&root, case);
    }
    let o = perfreport(&[
        "publish",
        root.to_str().unwrap(),
        "--site",
        site.to_str().unwrap(),
        "--compare-previous",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Each run's folder is found by its stamp (which starts with the case's
    // id), not by assuming how publish names folders.
    let mut folders = BTreeMap::new();
    for e in std::fs::read_dir(site.join("runs")).unwrap().flatten() {
        let d: Value = serde_json::from_slice(&std::fs::read(e.path().join("data.json")).unwrap()).unwrap();
        let id = d["stamp"].as_str().unwrap().get(..8).unwrap().to_string();
        folders.insert(id, e.path());
    }
    let cases = cases
        .into_iter()
        .map(|c| {
            let f = folders
                .remove(&c.id)
                .unwrap_or_else(|| panic!("no run page for {} {:?}", c.id, c.field));
            (c, f)
        })
        .collect();
    Corpus { _tmp: tmp, site, cases }
}

fn describe(case: &Case) -> String {
    format!("{} {:?} = {:?}", case.id, case.field, case.value)
}

fn read(path: &Path) -> String {
    String::from_utf8(std::fs::read(path).unwrap()).unwrap()
}

/// The JSON embedded in index.html, as a browser finds it: up to the first `</script>`.
fn embedded_json(page: &str) -> &str {
    let open = r#"<script type="application/json" id="perf-data">"#;
    let start = page.find(open).expect("the embedded data") + open.len();
    let len = page[start..].find("</script>").expect("the end of the embedded data");
    &page[start..start + len]
}

/// The page tests' launch, idle longer: the browser sits idle while the
/// corpus is reported and published (minutes in a debug build).
fn launch(path: PathBuf) -> Browser {
    crate::page::launch_idle(path, Duration::from_secs(300))
}

/// A file URL, the path percent-encoded (run folders are named by hostile strings).
fn file_url(path: &Path) -> String {
    let mut url = "file://".to_string();
    for b in path.to_str().unwrap().bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// A page's elements, counted by kind.
type Elements = BTreeMap<String, u64>;

/// What a page did: requests to anything but files under the allowed
/// folder, whether a payload ran, the elements it injected, whether the
/// interactive page drew (`data-ready`), and its elements by kind.
#[derive(Debug)]
struct Seen {
    stray: Vec<String>,
    ran: bool,
    injected: u64,
    drawn: bool,
    /// Elements outside a published page's night section (whose neighbour
    /// links differ by the run's place in the site).
    elements: Elements,
    /// The links of that section.
    night_links: Vec<String>,
}

impl Seen {
    fn assert_inert(&self, who: &str) {
        assert!(self.stray.is_empty(), "{who} requested {:?}", self.stray);
        assert!(!self.ran, "{who}: a payload ran");
        assert_eq!(self.injected, 0, "{who}: a payload injected elements");
        // The night links only to its key's neighbours and to the history.
        for l in &self.night_links {
            assert!(markdown::own_link(l), "{who}: the night links to {l:?}");
        }
    }
}

/// A tab that records every request its pages make; scripts off if asked.
/// headless_chrome answers a call in up to 100 ms, so a page costs one
/// navigation and (mostly) one evaluation.
struct Page {
    tab: Arc<Tab>,
    requests: Arc<Mutex<Vec<String>>>,
    visits: std::cell::Cell<u32>,
}

impl Page {
    fn new(browser: &Browser, scripts: bool) -> Page {
        let tab = browser.new_tab().unwrap();
        if !scripts {
            tab.call_method(headless_chrome::protocol::cdp::Emulation::SetScriptExecutionDisabled { value: true })
                .unwrap();
        }
        let enable: headless_chrome::protocol::cdp::Network::Enable = serde_json::from_value(json!({})).unwrap();
        tab.call_method(enable).unwrap();
        let requests = Arc::new(Mutex::new(vec![]));
        let sink = requests.clone();
        tab.add_event_listener(Arc::new(move |event: &Event| {
            if let Event::NetworkRequestWillBeSent(e) = event {
                if let Ok(mut r) = sink.lock() {
                    r.push(e.params.request.url.clone());
                }
            }
        }))
        .unwrap();
        Page {
            tab,
            requests,
            visits: std::cell::Cell::new(0),
        }
    }

    /// Opens `path` and waits for its load (the query tells this visit's
    /// document from the one before), then takes the census.
    fn visit(&self, path: &Path, allowed: &Path) -> Seen {
        let visit = self.visits.get() + 1;
        self.visits.set(visit);
        self.requests.lock().unwrap().clear();
        self.tab
            .navigate_to(&format!("{}?visit={visit}", file_url(path)))
            .unwrap();
        let kinds = "a,img,script,iframe,object,embed,link,style,form,input,svg,video,audio,base,meta,\
                     h1,h2,h3,h4,h5,h6,table,tr,td,li,blockquote,pre,hr,noscript";
        let census = format!(
            "(() => {{ if (location.search !== '?visit={visit}' || document.readyState !== 'complete') return null;
               return JSON.stringify({{
                 ran: window.__pwned !== undefined,
                 injected: document.querySelectorAll('[data-pwned]').length,
                 drawn: document.documentElement.getAttribute('data-ready') === '1',
                 elements: Object.fromEntries('{kinds}'.split(',').map(k => [k, [...document.querySelectorAll(k)].filter(e => !e.closest('.night')).length])),
                 night_links: [...document.querySelectorAll('.night a')].map(a => a.getAttribute('href')),
               }}); }})()"
        );
        let mut tries = 0;
        let seen: Value = loop {
            // While the navigation is under way an evaluation may fail: try again.
            if let Some(Value::String(s)) = self.tab.evaluate(&census, false).ok().and_then(|r| r.value) {
                break serde_json::from_str(&s).unwrap();
            }
            tries += 1;
            assert!(tries < 1000, "{} did not load", path.display());
            std::thread::sleep(Duration::from_millis(10));
        };
        let inside = file_url(allowed) + "/";
        let stray = self
            .requests
            .lock()
            .unwrap()
            .iter()
            .filter(|u| !u.starts_with(&inside) && !u.starts_with("data:"))
            .cloned()
            .collect();
        Seen {
            stray,
            ran: seen["ran"] == true,
            injected: seen["injected"].as_u64().unwrap(),
            drawn: seen["drawn"] == true,
            elements: serde_json::from_value(seen["elements"].clone()).unwrap(),
            night_links: serde_json::from_value(seen["night_links"].clone()).unwrap(),
        }
    }
}
