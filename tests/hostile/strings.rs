//! The hostile-strings corpus (issue 15): each payload below goes into each
//! field of each input that can hold it, one at a time, and every output is
//! checked: report.md through pulldown-cmark (raw HTML on, stricter than the
//! product) and cmark-gfm, report.html, index.html with JS on and off, the
//! published site and ratios.html in a real headless Chromium. A payload that
//! runs sets `window.__pwned`; an element it injects carries `data-pwned`.
//! The structure of each output (headings, tables, rows, list items, links,
//! images, elements) must equal that of the same run with a benign string in
//! that field.

use super::page::chromium;
use super::{jaeger, perfreport};
use headless_chrome::browser::tab::Tab;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::{Browser, LaunchOptions};
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

/// Counts every kind of markdown structure pulldown-cmark makes of `md`,
/// raw HTML passed through (stricter than the product, which shows it as
/// text). Code spans are left out: a backtick pair in a message is one.
fn pulldown_structure(md: &str) -> (BTreeMap<String, usize>, Vec<String>) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut counts = BTreeMap::new();
    let mut images = vec![];
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        let kind = match &event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                images.push(dest_url.to_string());
                "Image".to_string()
            }
            Event::Start(tag) => {
                let name = format!("{tag:?}");
                name.split(['(', ' ']).next().unwrap_or_default().to_string()
            }
            Event::Html(_) | Event::InlineHtml(_) => "Html".to_string(),
            Event::SoftBreak | Event::HardBreak | Event::Rule => format!("{event:?}"),
            _ => continue,
        };
        *counts.entry(kind).or_insert(0) += 1;
    }
    (counts, images)
}

/// The installed cmark-gfm, or `None` on a developer machine without one.
/// In CI a missing cmark-gfm fails the test: `.ci/run` installs it.
fn cmark_gfm() -> Option<PathBuf> {
    super::outside_tool(PathBuf::from("/usr/bin/cmark-gfm"), "cmark-gfm")
}

/// The installed xmllint, or `None` on a developer machine without one.
/// In CI a missing xmllint fails the test: `.ci/run` installs it.
fn xmllint() -> Option<PathBuf> {
    super::outside_tool(PathBuf::from("/usr/bin/xmllint"), "libxml2-utils")
}

/// Every chart of the corpus (each run's, the site's history charts and
/// `history`'s) parses as XML with xmllint: a control character in a name
/// once made a chart that no viewer draws.
#[test]
fn every_chart_of_the_hostile_corpus_is_well_formed_xml() {
    let Some(bin) = xmllint() else { return };
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    let root = corpus._tmp.path().join("root");
    let o = perfreport(&["history", root.to_str().unwrap(), "--out", out.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut charts: Vec<PathBuf> = super::walk(&corpus.site);
    charts.extend(super::walk(out.path()));
    charts.retain(|p| p.extension() == Some(OsStr::new("svg")));
    assert!(charts.len() > corpus.cases.len() * 3, "{} charts", charts.len());
    // xmllint takes many files at once; it names each one it cannot parse.
    for batch in charts.chunks(200) {
        let o = Command::new(&bin).arg("--noout").args(batch).output().unwrap();
        assert!(
            o.status.success(),
            "charts that are not XML:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// cmark-gfm's HTML for `md`, with the extensions GitHub uses.
fn cmark_gfm_html(bin: &Path, md: &str) -> String {
    let mut child = Command::new(bin)
        .args([
            "--extension",
            "autolink",
            "--extension",
            "table",
            "--extension",
            "tagfilter",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(md.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// What cmark-gfm made: its tags counted, and raw HTML it refused to pass.
fn cmark_structure(html: &str) -> BTreeMap<&'static str, usize> {
    const TAGS: &[&str] = &[
        "<a ",
        "<img ",
        "<h1",
        "<h2",
        "<h3",
        "<h4",
        "<h5",
        "<h6",
        "<table",
        "<tr",
        "<td",
        "<th>",
        "<li",
        "<ul",
        "<ol",
        "<blockquote",
        "<pre",
        "<hr",
        "<p>",
        "<em>",
        "<strong>",
        "<del>",
        "<br",
        "raw HTML omitted",
    ];
    TAGS.iter().map(|t| (*t, html.matches(t).count())).collect()
}

/// Checks one markdown document of a case against its benign twin's.
fn check_markdown(who: &str, md: &str, twin: &str, images: usize, cmark: Option<&Path>) {
    assert!(
        !md.chars().any(|c| c.is_control() && c != '\n'),
        "{who}: a control character reached the markdown"
    );
    let (counts, dests) = pulldown_structure(md);
    assert_eq!(counts.get("Html"), None, "{who}: raw HTML\n{md}");
    assert_eq!(counts.get("Link"), None, "{who}: a link\n{md}");
    assert_eq!(dests.len(), images, "{who}: images {dests:?}");
    assert!(
        dests.iter().all(|d| d.starts_with("charts/")),
        "{who}: images {dests:?}"
    );
    assert_eq!(
        counts,
        pulldown_structure(twin).0,
        "{who}: structure differs from the benign run\n{md}"
    );
    if let Some(bin) = cmark {
        let html = cmark_gfm_html(bin, md);
        let made = cmark_structure(&html);
        assert_eq!(made["<a "], 0, "{who} in cmark-gfm: a link\n{html}");
        assert_eq!(made["raw HTML omitted"], 0, "{who} in cmark-gfm: raw HTML\n{html}");
        assert_eq!(made["<img "], images, "{who} in cmark-gfm: images\n{html}");
        assert_eq!(
            made,
            cmark_structure(&cmark_gfm_html(bin, twin)),
            "{who} in cmark-gfm: structure differs from the benign run\n{html}"
        );
    }
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

#[test]
fn hostile_strings_make_no_block_link_image_or_html_in_report_md() {
    let corpus = corpus();
    let cases = &corpus.cases;
    let cmark = cmark_gfm();
    let twins: BTreeMap<String, String> = cases
        .iter()
        .filter(|(c, _)| c.benign())
        .map(|(c, dir)| (format!("{:?}", c.field), read(&dir.join("report.md"))))
        .collect();
    for (case, dir) in cases {
        let md = read(&dir.join("report.md"));
        let twin = &twins[&format!("{:?}", case.field)];
        check_markdown(
            &format!("report.md of {}", describe(case)),
            &md,
            twin,
            3,
            cmark.as_deref(),
        );
    }
}

#[test]
fn a_comment_opener_or_script_end_in_any_string_leaves_the_embedded_data_valid_json() {
    let corpus = corpus();
    let cases = &corpus.cases;
    for (case, dir) in cases {
        let page = read(&dir.join("index.html"));
        let embedded: Value = serde_json::from_str(embedded_json(&page))
            .unwrap_or_else(|e| panic!("{}: the page's data is not JSON: {e}", describe(case)));
        let data: Value = serde_json::from_str(&read(&dir.join("data.json"))).unwrap();
        assert_eq!(embedded, data, "{}", describe(case));
    }
}

#[test]
fn the_noscript_fallback_holds_hostile_strings_as_text_only() {
    let corpus = corpus();
    let cases = &corpus.cases;
    for (case, dir) in cases {
        let page = read(&dir.join("index.html"));
        let start = page.find("<noscript>").unwrap();
        let fallback = &page[start..page.rfind("</noscript>").unwrap()];
        // With JS on, the first `</noscript>` ends it; with JS off, its
        // markup is parsed: neither may come from an input.
        for tag in [
            "</noscript",
            "<script",
            "<img",
            "<iframe",
            "<object",
            "<embed",
            "<style",
            "<a ",
        ] {
            assert!(!fallback.contains(tag), "{}: {tag} in <noscript>", describe(case));
        }
    }
}

// ---------- in the browser ----------

/// Not page.rs's launch: the browser sits idle while the corpus is reported
/// and published (minutes in a debug build), past page.rs's idle timeout.
fn launch(path: PathBuf) -> Browser {
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    Browser::new(LaunchOptions {
        headless: true,
        sandbox: false,
        path: Some(path),
        args,
        idle_browser_timeout: Duration::from_secs(300),
        ..LaunchOptions::default()
    })
    .expect("chromium starts")
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
    elements: Elements,
}

impl Seen {
    fn assert_inert(&self, who: &str) {
        assert!(self.stray.is_empty(), "{who} requested {:?}", self.stray);
        assert!(!self.ran, "{who}: a payload ran");
        assert_eq!(self.injected, 0, "{who}: a payload injected elements");
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
                 elements: Object.fromEntries('{kinds}'.split(',').map(k => [k, document.querySelectorAll(k).length])),
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
        }
    }
}

#[test]
fn no_input_string_runs_script_or_injects_an_element_in_report_html_index_html_or_the_site() {
    let Some(browser) = chromium() else { return };
    let corpus = corpus();
    let (site, cases) = (&corpus.site, &corpus.cases);
    let browser = launch(browser);
    let (on, off) = (Page::new(&browser, true), Page::new(&browser, false));
    // Per field, the benign run's elements with JS on and off.
    let mut twins: BTreeMap<String, (Elements, Elements)> = BTreeMap::new();
    // Benign runs first: they are what every hostile one is compared with.
    let mut ordered: Vec<&(Case, PathBuf)> = cases.iter().filter(|(c, _)| c.benign()).collect();
    ordered.extend(cases.iter().filter(|(c, _)| !c.benign()));
    for (case, dir) in ordered {
        let who = describe(case);
        // The interactive page with JS on: it draws (its data parsed).
        let with_js = on.visit(&dir.join("index.html"), site);
        with_js.assert_inert(&format!("index.html of {who}"));
        assert!(with_js.drawn, "index.html of {who} did not draw");
        // With JS off: the <noscript> copy of the report, inert.
        let without_js = off.visit(&dir.join("index.html"), site);
        without_js.assert_inert(&format!("index.html without JS of {who}"));
        let key = format!("{:?}", case.field);
        if case.benign() {
            twins.insert(key, (with_js.elements, without_js.elements));
        } else {
            let (twin_on, twin_off) = &twins[&key];
            assert_eq!(
                &with_js.elements, twin_on,
                "index.html of {who}: elements differ from the benign run"
            );
            assert_eq!(
                &without_js.elements, twin_off,
                "index.html without JS of {who}: elements differ from the benign run"
            );
        }
        // report.html: three links of its own, the three charts, no script.
        let report = on.visit(&dir.join("report.html"), site);
        report.assert_inert(&format!("report.html of {who}"));
        for (kind, n) in [
            ("a", 3),
            ("img", 3),
            ("script", 0),
            ("iframe", 0),
            ("object", 0),
            ("embed", 0),
            ("svg", 0),
        ] {
            assert_eq!(report.elements[kind], n, "report.html of {who}: {kind} elements");
        }
    }
    // The site's index lists every run, and links the history.
    let index = on.visit(&site.join("index.html"), site);
    index.assert_inert("the site's index");
    assert_eq!(index.elements["a"], 2 * cases.len() as u64 + 1);
    assert_eq!(index.elements["script"], 0);
    // The history page draws every run's points from the same strings, inert.
    let history = on.visit(&site.join("history.html"), site);
    history.assert_inert("the site's history.html");
    assert!(history.drawn, "history.html did not draw");
    assert_eq!(history.elements["script"], 2, "its data and its own script, no other");
    off.visit(&site.join("history.html"), site)
        .assert_inert("history.html without JS");
}

/// history.md of the corpus's root: every string escaped as markdown text.
#[test]
fn hostile_strings_make_no_link_or_html_in_history_md() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    let root = corpus._tmp.path().join("root");
    let o = perfreport(&["history", root.to_str().unwrap(), "--out", out.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = read(&out.path().join("history.md"));
    assert!(
        !md.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached history.md"
    );
    let h: Value = serde_json::from_slice(&std::fs::read(out.path().join("history.json")).unwrap()).unwrap();
    let charts = h["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["chart"].is_string())
        .count();
    let (counts, images) = pulldown_structure(&md);
    assert_eq!(counts.get("Html"), None, "raw HTML\n{md}");
    assert_eq!(counts.get("Link"), None, "a link\n{md}");
    assert_eq!(images.len(), charts, "{images:?}");
    for image in &images {
        assert!(
            image.starts_with("charts/history-") && out.path().join(image).exists(),
            "{image}"
        );
    }
    if let Some(bin) = cmark_gfm() {
        let made = cmark_structure(&cmark_gfm_html(&bin, &md));
        assert_eq!((made["<a "], made["raw HTML omitted"], made["<img "]), (0, 0, charts));
    }
}

/// bench.jsonl fields that reach ratios.md and ratios.html.
const BENCH_FIELDS: &[&str] = &["target", "builder", "arch", "failure", "ts"];

/// The sample bench.jsonl plus one row with `field` set to `value`: a new
/// key of its own (target, builder, arch), a failed build (failure), a row
/// skipped with its `ts` quoted (ts).
fn bench_with(dir: &Path, field: &str, value: &str) -> PathBuf {
    let base = read(&super::root().join("sample-runs/bench/bench.jsonl"));
    let mut row = json!({"ts": "2026-10-21T02:00:00+00:00", "scenario": "cold", "target": "pytorch",
        "builder": "snoc-think", "arch": "gfx950", "seconds": 2300, "rc": 0, "steps_cached": 0, "steps_total": 11,
        "max_jobs": 10, "node_load_at_start": 0.4, "node_load_at_end": 12.0, "failure": null});
    if field == "failure" {
        row["rc"] = json!(1);
    }
    row[field] = json!(value);
    let path = dir.join("bench.jsonl");
    std::fs::write(&path, format!("{base}{row}\n")).unwrap();
    path
}

#[test]
fn no_bench_jsonl_string_runs_script_or_makes_markdown_in_ratios_md_or_ratios_html() {
    let browser = chromium().map(launch);
    let page = browser.as_ref().map(|b| Page::new(b, true));
    let cmark = cmark_gfm();
    for field in BENCH_FIELDS {
        let mut twin: Option<(String, BTreeMap<String, u64>)> = None;
        for value in std::iter::once(BENCH).chain(PAYLOADS.iter().copied()) {
            let who = format!("bench.jsonl {field} = {value:?}");
            let tmp = tempfile::tempdir().unwrap();
            let bench = bench_with(tmp.path(), field, value);
            let out = tmp.path().join("out");
            let o = perfreport(&["ratios", bench.to_str().unwrap(), "--out", out.to_str().unwrap()]);
            assert!(o.status.success(), "{who}: {}", String::from_utf8_lossy(&o.stderr));
            let md = read(&out.join("ratios.md"));
            let charts = std::fs::read_dir(out.join("charts")).unwrap().count();
            if let Some((twin_md, _)) = &twin {
                check_markdown(&format!("ratios.md of {who}"), &md, twin_md, charts, cmark.as_deref());
            }
            let elements = page.as_ref().map(|p| {
                let seen = p.visit(&out.join("ratios.html"), &out);
                seen.assert_inert(&format!("ratios.html of {who}"));
                let e = &seen.elements;
                assert_eq!((e["a"], e["img"], e["script"]), (0, 0, 0), "ratios.html of {who}");
                seen.elements
            });
            match &twin {
                None => twin = Some((md, elements.unwrap_or_default())),
                Some((_, twin_elements)) => {
                    if let Some(e) = elements {
                        assert_eq!(
                            &e, twin_elements,
                            "ratios.html of {who}: elements differ from the benign run"
                        );
                    }
                }
            }
        }
    }
}

/// The benign value of a bench.jsonl field (an invalid `ts` too, so its
/// twin is skipped with a warning as the hostile ones are).
const BENCH: &str = BENIGN;

#[test]
fn a_null_figure_in_the_report_template_is_a_dash_not_a_failed_report() {
    // An estimate of 5e-324 s makes the miss ratio infinite, serialised as
    // null: tera's `round` failed on it and the whole report was lost.
    let tmp = tempfile::tempdir().unwrap();
    let case = Case {
        id: "case-000".into(),
        field: Field::Stamp,
        value: BENIGN.into(),
    };
    let run = write_run(tmp.path(), &case);
    std::fs::write(
        run.join("placement.txt"),
        "placement target=one node=a est_s=5e-324\nplacement target=two node=b est_s=300\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = perfreport(&["report", run.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("report.md").is_file());
}
