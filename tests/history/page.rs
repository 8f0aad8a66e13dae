//! The site's history page in a real headless Chromium, opened from disk.

use super::{nightly_root, publish, read_json, stamp, warm_key, write_night, Night, LOADED_NIGHT, STEP_NIGHT};
use crate::page::{axe_violations, chromium, eval, launch, open};
use serde_json::Value;
use std::path::Path;

/// Every point drawn, as the file its link leads to (None: a point without a link).
fn linked_files(tab: &headless_chrome::browser::tab::Tab) -> Vec<Option<String>> {
    let js = "JSON.stringify([...document.querySelectorAll('.panels circle.pt')].map(c => { \
              const a = c.closest('a'); return a ? decodeURIComponent(new URL(a.getAttribute('href'), location.href).pathname) : null; }))";
    serde_json::from_str(eval(tab, js).as_str().unwrap()).unwrap()
}

fn count(tab: &headless_chrome::browser::tab::Tab, selector: &str) -> u64 {
    eval(tab, &format!("document.querySelectorAll('{selector}').length"))
        .as_u64()
        .unwrap()
}

#[test]
fn history_page_opened_from_disk_links_every_point_to_its_run() {
    let Some(path) = chromium() else { return };
    let root = nightly_root(STEP_NIGHT + 4);
    write_night(
        root.path(),
        &Night {
            night: STEP_NIGHT + 4,
            mode: Some("warm"),
            finished: false,
        },
    );
    let site = tempfile::tempdir().unwrap();
    publish(root.path(), site.path());
    let h = read_json(&site.path().join("history.json"));
    let key = warm_key(&h);
    let points = |metric: &str| -> usize {
        key["targets"]
            .as_object()
            .unwrap()
            .values()
            .map(|t| t[metric]["points"].as_array().unwrap().len())
            .sum()
    };
    let page = format!("file://{}", site.path().join("history.html").display());
    let browser = launch(path);
    let (tab, seen) = open(&browser, &page);
    for metric in ["total_s", "build_s"] {
        eval(
            &tab,
            &format!("document.querySelector('[data-metric=\"{metric}\"]').click(), true"),
        );
        assert_eq!(
            eval(
                &tab,
                &format!("document.querySelector('[data-metric=\"{metric}\"]').getAttribute('aria-pressed')")
            ),
            "true"
        );
        let links = linked_files(&tab);
        assert_eq!(links.len(), points(metric), "{metric}: every point is drawn");
        let mut runs = std::collections::BTreeSet::new();
        for file in &links {
            let file = file
                .as_deref()
                .unwrap_or_else(|| panic!("{metric}: a point without a link"));
            assert!(Path::new(file).exists(), "{metric}: a link to nothing: {file}");
            let run = file
                .strip_suffix("/index.html")
                .and_then(|f| f.rsplit('/').next())
                .unwrap();
            runs.insert(run.to_string());
        }
        let expected: std::collections::BTreeSet<String> = (0..STEP_NIGHT + 4).map(stamp).collect();
        assert_eq!(runs, expected, "{metric}: each run of the key, not the one in flight");
        // pytorch's points of the loaded night are ringed; the step is marked on its panel.
        assert_eq!(count(&tab, ".panels circle.pt.loaded"), 1, "{metric}");
        assert_eq!(count(&tab, ".panels line.step"), 1, "{metric}: pytorch's step only");
    }
    // The slowest step's line: a point per run, its name in the panel's title.
    eval(
        &tab,
        "document.querySelector('[data-metric=\"slowest_step\"]').click(), true",
    );
    assert_eq!(linked_files(&tab).len(), points("build_s"), "a step point per run");
    let titles = eval(
        &tab,
        "[...document.querySelectorAll('.panels .panel-title')].map(t => t.textContent).join('|')",
    );
    assert_eq!(
        titles,
        "pytorch: [builder 1/1] RUN make|vllm: [builder 1/1] RUN pip wheel"
    );
    eval(
        &tab,
        "document.querySelector('[data-metric=\"build_s\"]').click(), true",
    );
    let loaded = eval(
        &tab,
        "document.querySelector('.panels circle.pt.loaded').closest('a').getAttribute('data-run')",
    );
    assert_eq!(loaded, Value::from(stamp(LOADED_NIGHT)));
    // The metric lives in the URL, so a link reproduces the view.
    assert!(eval(&tab, "location.hash")
        .as_str()
        .unwrap()
        .ends_with("metric=build_s"));
    let w = seen.lock().unwrap();
    assert!(w.errors.is_empty(), "console errors: {:?}", w.errors);
    let others: Vec<&String> = w.requests.iter().filter(|u| !u.starts_with(&page)).collect();
    assert!(others.is_empty(), "the page requested {others:?}");
    drop(w);
    let violations = axe_violations(&tab);
    assert!(violations.is_empty(), "axe-core violations:\n{}", violations.join("\n"));
}
