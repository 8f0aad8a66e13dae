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

/// A long step's name in a panel's title was clipped at the panel's edge
/// ("...setup.py bdist_"): a title too wide loses characters from its
/// middle, keeps its stage and its command's end, ends inside its panel,
/// and carries the whole title as its tooltip.
#[test]
fn history_panel_titles_fit_their_panel_cut_in_the_middle_with_the_whole_on_hover() {
    let Some(path) = chromium() else { return };
    let root = nightly_root(STEP_NIGHT);
    let long = "[builder 3/9] RUN pip install --no-build-isolation -r requirements.txt && python setup.py bdist_wheel --dist-dir /wheels";
    for night in 0..STEP_NIGHT {
        let trace = root.path().join(stamp(night)).join("trace-pytorch.json");
        let text = std::fs::read_to_string(&trace).unwrap();
        std::fs::write(&trace, text.replace("[builder 1/1] RUN make", long)).unwrap();
    }
    let site = tempfile::tempdir().unwrap();
    publish(root.path(), site.path());
    let page = format!("file://{}", site.path().join("history.html").display());
    let browser = launch(path);
    let (tab, _) = open(&browser, &page);
    eval(
        &tab,
        "document.querySelector('[data-metric=\"slowest_step\"]').click(), true",
    );
    let js = "JSON.stringify([...document.querySelectorAll('.panels .panel-title')].map(t => { \
              const b = t.getBBox(), w = t.ownerSVGElement.viewBox.baseVal.width; \
              const tip = t.querySelector('title'); \
              return {text: t.childNodes[0].nodeValue, left: b.x, right: b.x + b.width, width: w, tip: tip ? tip.textContent : null}; }))";
    let titles: Vec<Value> = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
    let pytorch = titles
        .iter()
        .find(|t| {
            t["text"]
                .as_str()
                .unwrap_or_default()
                .starts_with("pytorch: [builder 3/9] RUN pip")
        })
        .unwrap_or_else(|| panic!("{titles:?}"));
    let text = pytorch["text"].as_str().unwrap();
    assert!(
        text.contains('…') && text.ends_with("/wheels"),
        "cut in its middle: {text}"
    );
    assert_eq!(
        pytorch["tip"],
        Value::from(format!("pytorch: {long}")),
        "the whole on hover"
    );
    for t in &titles {
        let (left, right, width) = (
            t["left"].as_f64().unwrap(),
            t["right"].as_f64().unwrap(),
            t["width"].as_f64().unwrap(),
        );
        assert!(left >= 0.0 && right <= width, "a title leaves its panel: {t}");
    }
    let vllm = titles.iter().find(|t| t["text"] == "vllm: [builder 1/1] RUN pip wheel");
    assert!(
        vllm.is_some_and(|t| t["tip"].is_null()),
        "a title that fits is left whole: {titles:?}"
    );
}
