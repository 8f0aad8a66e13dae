//! The interactive page in a real headless Chromium (Debian's `chromium`;
//! `.ci/run` installs it). Screenshots land in `target/browser-screenshots/`.
//! This module holds the browser and the helpers every page test uses; the
//! tests are grouped by what a reader of the page would see break.

mod accessibility;
mod hostile_names;
mod keyboard;
mod pictures;
mod tables;
mod use_of_the_page;

use super::{report, root, sample, COLD, WARM};
use headless_chrome::browser::tab::Tab;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::{Browser, LaunchOptions};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The browser, or `None` on a developer machine without one. In CI a
/// missing browser fails the test: `.ci/run` must have installed it.
pub(crate) fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    super::outside_tool(path, "chromium")
}

pub(crate) fn launch(path: PathBuf) -> Browser {
    launch_idle(path, Duration::from_secs(120))
}

/// `launch`, the browser kept while idle up to `idle` (a test that reports
/// many runs before it opens a page needs longer).
pub(crate) fn launch_idle(path: PathBuf, idle: Duration) -> Browser {
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions {
        headless: true,
        sandbox: false,
        path: Some(path),
        window_size: Some((1400, 1100)),
        args,
        idle_browser_timeout: idle,
        ..LaunchOptions::default()
    };
    Browser::new(options).expect("chromium starts")
}

/// Everything the page said went wrong, and every request it made.
#[derive(Default)]
pub(crate) struct Watch {
    pub(crate) errors: Vec<String>,
    pub(crate) requests: Vec<String>,
}

fn watch(tab: &Tab) -> Arc<Mutex<Watch>> {
    let seen = Arc::new(Mutex::new(Watch::default()));
    let sink = seen.clone();
    tab.enable_runtime().unwrap();
    tab.enable_log().unwrap();
    let enable: headless_chrome::protocol::cdp::Network::Enable =
        serde_json::from_value(serde_json::json!({})).unwrap();
    tab.call_method(enable).unwrap();
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let Ok(mut w) = sink.lock() else { return };
        match event {
            Event::RuntimeExceptionThrown(e) => w.errors.push(format!("exception: {:?}", e.params.exception_details)),
            Event::RuntimeConsoleAPICalled(e) => {
                let kind = format!("{:?}", e.params.Type);
                if kind == "Error" || kind == "Assert" {
                    w.errors.push(format!("console.{kind}: {:?}", e.params.args));
                }
            }
            Event::LogEntryAdded(e) if format!("{:?}", e.params.entry.level) == "Error" => {
                w.errors.push(format!("log: {}", e.params.entry.text));
            }
            Event::NetworkRequestWillBeSent(e) => w.requests.push(e.params.request.url.clone()),
            _ => {}
        }
    }))
    .unwrap();
    seen
}

pub(crate) fn eval(tab: &Tab, js: &str) -> Value {
    tab.evaluate(js, false)
        .unwrap_or_else(|e| panic!("{js}: {e}"))
        .value
        .unwrap_or(Value::Null)
}

/// Clicks as a person would, through the page's own event handling.
fn click(tab: &Tab, selector: &str) {
    let js = format!(
        "(() => {{ const e = document.querySelector('{selector}'); if (!e) return false; e.click(); return true; }})()"
    );
    assert_eq!(eval(tab, &js), Value::Bool(true), "nothing to click at {selector}");
}

pub(crate) fn wait_for(tab: &Tab, js: &str, what: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        // While a navigation is under way the evaluation may fail: try again.
        if tab.evaluate(js, false).ok().and_then(|r| r.value) == Some(Value::Bool(true)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("gave up waiting for {what}");
}

fn screenshot(tab: &Tab, name: &str) {
    use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
    let dir = root().join("target/browser-screenshots");
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(png) = tab.capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true) {
        let _ = std::fs::write(dir.join(format!("{name}.png")), png);
    }
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

pub(crate) fn open(browser: &Browser, url: &str) -> (Arc<Tab>, Arc<Mutex<Watch>>) {
    let tab = browser.new_tab().unwrap();
    let seen = watch(&tab);
    tab.navigate_to(url).unwrap();
    wait_for(
        &tab,
        "document.documentElement.getAttribute('data-ready') === '1'",
        "the page to draw",
    );
    (tab, seen)
}

fn legend(tab: &Tab, kind: &str) -> Vec<String> {
    let v = eval(tab, &format!("JSON.stringify([...document.querySelectorAll('[data-legend-{kind}]')].map(b => b.getAttribute('data-legend-{kind}')))"));
    serde_json::from_str(v.as_str().unwrap()).unwrap()
}

fn count(tab: &Tab, selector: &str) -> u64 {
    eval(tab, &format!("document.querySelectorAll('{selector}').length"))
        .as_u64()
        .unwrap()
}

/// Emulates `prefers-color-scheme` as the system would set it, and checks the
/// page took it (its background follows).
fn colour_scheme(tab: &Tab, scheme: &str) {
    let media: headless_chrome::protocol::cdp::Emulation::SetEmulatedMedia =
        serde_json::from_value(serde_json::json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}))
            .unwrap();
    tab.call_method(media).unwrap();
    let js = format!("matchMedia('(prefers-color-scheme: {scheme})').matches");
    assert_eq!(eval(tab, &js), Value::Bool(true), "{scheme} mode emulated");
    let bg = eval(tab, "getComputedStyle(document.body).backgroundColor");
    let bg = crate::pictures::parse_colour(bg.as_str().unwrap()).unwrap();
    let dark = crate::pictures::contrast(bg, (0, 0, 0)) < crate::pictures::contrast(bg, (255, 255, 255));
    assert_eq!(dark, scheme == "dark", "the page's background {bg:?} in {scheme} mode");
}

const AXE: &str = include_str!("../vendor/axe-core/axe.min.js");

/// axe-core's violations on the page as it stands, one line each.
pub(crate) fn axe_violations(tab: &Tab) -> Vec<String> {
    if eval(tab, "typeof axe") != "object" {
        tab.evaluate(AXE, false).expect("axe-core loads");
    }
    let js = "axe.run(document).then(r => JSON.stringify({ passes: r.passes.length, violations: r.violations.map(v => \
              ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(' ')) })) }))";
    let v = tab.evaluate(js, true).expect("axe.run");
    let text = v
        .value
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("axe.run gave {v:?}"));
    let result: Value = serde_json::from_str(text).unwrap();
    assert!(result["passes"].as_u64() > Some(10), "axe checked the page: {result}");
    result["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| format!("{} ({}): {} at {}", v["id"], v["impact"], v["help"], v["targets"]))
        .collect()
}

fn no_errors(seen: &Mutex<Watch>) {
    let w = seen.lock().unwrap();
    assert!(w.errors.is_empty(), "console errors: {:?}", w.errors);
}
