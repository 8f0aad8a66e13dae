//! axe-core (vendored under `tests/vendor/axe-core/`) on every page a reader
//! meets, in light and in dark mode.

use super::*;

/// A bug this pins: the in-flight badge (#e6550d on white, 3.7:1) failed
/// axe's color-contrast. axe-core (vendored under
/// tests/vendor/axe-core) finds no violation on the cold and the in-flight
/// sample pages, in light and in dark mode.
#[test]
fn axe_finds_no_violation_on_the_cold_and_in_flight_pages_in_light_and_dark_mode() {
    let Some(path) = chromium() else { return };
    let browser = launch(path);
    let mut failures = vec![];
    for stamp in [COLD, WARM] {
        let out = tempfile::tempdir().unwrap();
        report(&sample(stamp), out.path(), &[]);
        let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
        for scheme in ["light", "dark"] {
            colour_scheme(&tab, scheme);
            screenshot(&tab, &format!("axe-{stamp}-{scheme}"));
            failures.extend(
                axe_violations(&tab)
                    .into_iter()
                    .map(|v| format!("{stamp} {scheme}: {v}")),
            );
        }
        no_errors(&seen);
    }
    assert!(failures.is_empty(), "axe-core violations:\n{}", failures.join("\n"));
}

/// Opens a page of the published site and waits until it has drawn: the
/// run and history pages mark that with `data-ready`, the others are static.
fn open_published(browser: &Browser, path: &Path) -> Arc<Tab> {
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&file_url(path)).unwrap();
    wait_for(
        &tab,
        "document.readyState === 'complete' && (!document.querySelector('#perf-data, #history-data') || document.documentElement.getAttribute('data-ready') === '1')",
        "the published page to draw",
    );
    tab
}

/// Every page a reader of the published site meets — the site's index, a
/// run page, its report.html, history.html and the benchmark's ratios.html —
/// passes axe-core in light and in dark mode. Links kept the browser's
/// #0000ee on the dark ground (1.9:1) on the index, history and run pages.
#[test]
fn axe_finds_no_violation_on_every_published_page_in_light_and_dark_mode() {
    let Some(path) = chromium() else { return };
    let runs = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let dst = runs.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        crate::copy_run(&sample(stamp), &dst);
    }
    let site = tempfile::tempdir().unwrap();
    let bench = sample(COLD).parent().unwrap().join("bench/bench.jsonl");
    let o = crate::perfreport(&[
        "publish",
        runs.path().to_str().unwrap(),
        "--site",
        site.path().to_str().unwrap(),
        "--bench",
        bench.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pages = [
        "index.html".to_string(),
        format!("runs/{COLD}/index.html"),
        format!("runs/{COLD}/report.html"),
        "history.html".to_string(),
        "bench/ratios.html".to_string(),
    ];
    let browser = launch(path);
    let mut failures = vec![];
    for page in &pages {
        let file = site.path().join(page);
        assert!(file.exists(), "{page} is published");
        let tab = open_published(&browser, &file);
        for scheme in ["light", "dark"] {
            colour_scheme(&tab, scheme);
            failures.extend(
                axe_violations(&tab)
                    .into_iter()
                    .map(|v| format!("{page} {scheme}: {v}")),
            );
        }
    }
    assert!(failures.is_empty(), "axe-core violations:\n{}", failures.join("\n"));
}
