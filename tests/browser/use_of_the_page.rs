//! The page as a reader uses it: opened from disk with no request, the legend's
//! filter kept in the link, a band's tooltip, and a run in flight redrawn in place.

use super::*;

#[test]
fn page_opens_from_disk_with_no_console_error_and_no_request() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let page = file_url(&out.path().join("index.html"));
    let (tab, seen) = open(&browser, &page);
    screenshot(&tab, "cold-run");
    let w = seen.lock().unwrap();
    assert!(w.errors.is_empty(), "console errors: {:?}", w.errors);
    let others: Vec<&String> = w.requests.iter().filter(|u| !u.starts_with(&page)).collect();
    assert!(others.is_empty(), "the page requested {others:?}");
    assert_eq!(eval(&tab, "performance.getEntriesByType('resource').length"), 0);
    let d: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("data.json")).unwrap()).unwrap();
    let names = |k: &str| {
        d[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(legend(&tab, "node"), names("nodes"), "every node in the legend");
    assert_eq!(legend(&tab, "target"), names("targets"), "every target in the legend");
    // The critical node is marked where a person looks first.
    assert!(eval(
        &tab,
        "document.querySelector('#chart-timeline .row-label.critical').textContent"
    )
    .as_str()
    .unwrap()
    .contains("think"));
    assert_eq!(count(&tab, "#table-targets tbody tr"), 10);
}

#[test]
fn toggling_a_builder_hides_its_lines_and_row_and_the_link_keeps_it() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, _) = open(&browser, &file_url(&out.path().join("index.html")));
    assert!(
        count(&tab, "#chart-cpu path.series[data-node=\"think\"]") >= 2,
        "CPU and memory of think are drawn"
    );
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"think\"]"), 1);
    click(&tab, "[data-legend-node=\"think\"]");
    assert_eq!(count(&tab, "#chart-cpu path.series[data-node=\"think\"]"), 0);
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"think\"]"), 0);
    assert_eq!(
        count(&tab, "#chart-timeline [data-row=\"strix\"]"),
        1,
        "the others stay"
    );
    assert_eq!(
        eval(
            &tab,
            "document.querySelector('[data-legend-node=\"think\"]').getAttribute('aria-pressed')"
        ),
        "false"
    );
    let url = eval(&tab, "location.href").as_str().unwrap().to_string();
    assert!(url.ends_with("#hide-node=think"), "{url}");
    screenshot(&tab, "cold-run-think-hidden");
    // The link reproduces the view in a fresh tab.
    let (again, _) = open(&browser, &url);
    assert_eq!(count(&again, "#chart-cpu path.series[data-node=\"think\"]"), 0);
    assert_eq!(count(&again, "#chart-timeline [data-row=\"think\"]"), 0);
    // Toggling back restores both.
    click(&tab, "[data-legend-node=\"think\"]");
    assert!(count(&tab, "#chart-cpu path.series[data-node=\"think\"]") >= 2);
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"think\"]"), 1);
    // Two clicks isolate a builder: a double-click shows only it.
    let js = "(() => { const b = document.querySelector('[data-legend-node=\"forge\"]'); b.click(); b.click(); \
              b.dispatchEvent(new MouseEvent('dblclick', {bubbles: true})); return true; })()";
    assert_eq!(eval(&tab, js), Value::Bool(true));
    assert_eq!(count(&tab, "#chart-timeline .row"), 1);
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"forge\"]"), 1);
    assert!(count(&tab, "#chart-cpu path.series[data-node=\"forge\"]") >= 2);
    assert_eq!(count(&tab, "#chart-cpu path.series[data-node=\"strix\"]"), 0);
    click(&tab, "#show-all");
    assert_eq!(count(&tab, "#chart-timeline .row"), 5);
    // A hidden target loses its bars and nothing else.
    let bands = count(&tab, "#chart-timeline .band");
    click(&tab, "[data-legend-target=\"pytorch\"]");
    assert_eq!(count(&tab, "#chart-timeline .band[data-target=\"pytorch\"]"), 0);
    assert!(count(&tab, "#chart-timeline .band") < bands);
    assert_eq!(
        count(&tab, "#chart-timeline [data-row=\"strix\"]"),
        1,
        "its node's row stays"
    );
}

#[test]
fn hovering_a_band_shows_the_commands_it_ran() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, _) = open(&browser, &file_url(&out.path().join("index.html")));
    tab.find_element("#chart-timeline rect.band[data-target=\"triton-wheel\"][data-phase=\"build\"]")
        .unwrap()
        .move_mouse_over()
        .unwrap();
    wait_for(&tab, "!document.getElementById('tooltip').hidden", "the tooltip");
    let tip = eval(&tab, "document.getElementById('tooltip').innerText")
        .as_str()
        .unwrap()
        .to_string();
    assert!(tip.contains("triton-wheel"), "{tip}");
    assert!(tip.contains("its own steps"), "{tip}");
    assert!(
        tip.contains("RUN cd /src/triton-wheel && MAX_JOBS=32 python setup.py bdist_wheel"),
        "{tip}"
    );
    assert!(tip.contains("(cached)"), "the cached FROM is marked: {tip}");
    screenshot(&tab, "cold-run-hover");
    // The upload band says what it is.
    tab.find_element("#chart-timeline rect.band[data-target=\"triton-wheel\"][data-phase=\"upload\"]")
        .unwrap()
        .move_mouse_over()
        .unwrap();
    let tip = eval(&tab, "document.getElementById('tooltip').innerText")
        .as_str()
        .unwrap()
        .to_string();
    assert!(tip.contains("upload") && tip.contains("6.6 GB"), "{tip}");
}

/// A minimal static file server for the live test, so that it tests the
/// page's polling alone (`serve` has tests of its own): GET only, files
/// under `dir`, no caching.
fn serve(dir: PathBuf) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).map(|n| n == 0).unwrap_or(true) || h == "\r\n" {
                    break;
                }
            }
            let path = line
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .split('?')
                .next()
                .unwrap_or("/")
                .trim_start_matches('/')
                .to_string();
            let file = dir.join(if path.is_empty() { "index.html" } else { &path });
            let mut stream = reader.into_inner();
            let body = if path.contains("..") {
                None
            } else {
                std::fs::read(&file).ok()
            };
            let _ = match body {
                Some(b) => {
                    let kind = if path.ends_with(".json") {
                        "application/json"
                    } else {
                        "text/html; charset=utf-8"
                    };
                    write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n", b.len())
                        .and_then(|_| stream.write_all(&b))
                }
                None => write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
            };
        }
    });
    port
}

#[test]
fn served_page_of_a_run_in_flight_picks_up_new_data_and_keeps_the_filter() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(WARM), out.path(), &[]);
    let port = serve(out.path().to_path_buf());
    let browser = launch(path);
    let (tab, seen) = open(&browser, &format!("http://127.0.0.1:{port}/index.html"));
    assert!(eval(&tab, "document.getElementById('live').textContent")
        .as_str()
        .unwrap()
        .contains("live"));
    click(&tab, "[data-legend-node=\"think\"]");
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"think\"]"), 0);
    // The run goes on: a new target appears in data.json.
    let file = out.path().join("data.json");
    let mut d: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut late = d["targets"][0].clone();
    late["name"] = Value::from("late-target");
    late["node"] = Value::from("anvil");
    d["targets"].as_array_mut().unwrap().push(late);
    d["summary"] = serde_json::json!(["A later poll of the run."]);
    let tmp = out.path().join(".data.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec(&d).unwrap()).unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    wait_for(
        &tab,
        "!!document.querySelector('[data-legend-target=\"late-target\"]')",
        "the new target in the legend",
    );
    assert!(eval(&tab, "document.getElementById('summary').textContent")
        .as_str()
        .unwrap()
        .contains("A later poll"));
    // The filter survived the redraw.
    assert_eq!(count(&tab, "#chart-timeline [data-row=\"think\"]"), 0);
    assert_eq!(count(&tab, "#chart-cpu path.series[data-node=\"think\"]"), 0);
    assert_eq!(
        eval(
            &tab,
            "document.querySelector('[data-legend-node=\"think\"]').getAttribute('aria-pressed')"
        ),
        "false"
    );
    screenshot(&tab, "warm-run-live");
    assert!(
        seen.lock().unwrap().errors.is_empty(),
        "{:?}",
        seen.lock().unwrap().errors
    );
}
