//! The page from the keyboard alone and in dark mode: the run selector as a
//! native select works (Tab reaches it, the arrows choose, Enter goes), the
//! legend's "show only" has a key, every control follows the dark scheme,
//! and no legend label runs past its box as Chromium draws it.

use super::*;

/// A published site of the two sample runs and a third copy, so the
/// selector has a run before and after the one opened.
fn site_of_three() -> (tempfile::TempDir, tempfile::TempDir) {
    let runs = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let dst = runs.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        crate::copy_run(&sample(stamp), &dst);
    }
    let third = runs.path().join("later");
    std::fs::create_dir(&third).unwrap();
    crate::copy_run(&sample(WARM), &third);
    let site = tempfile::tempdir().unwrap();
    let o = crate::publish(runs.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (runs, site)
}

/// Presses Tab until `js` (an expression on `document.activeElement`, as
/// `a`) holds, as a keyboard user moves through the page.
fn tab_to(tab: &Tab, js: &str, what: &str) {
    for _ in 0..80 {
        let here = eval(tab, &format!("(a => !!a && ({js}))(document.activeElement)"));
        if here == Value::Bool(true) {
            return;
        }
        tab.press_key("Tab").unwrap();
    }
    panic!("Tab never reached {what}");
}

fn location(tab: &Tab) -> String {
    eval(tab, "location.pathname").as_str().unwrap_or_default().to_string()
}

#[test]
fn the_run_selector_works_from_the_keyboard_as_a_native_select_does() {
    let Some(path) = chromium() else { return };
    let (_runs, site) = site_of_three();
    let browser = launch(path);
    let page = site.path().join("runs").join(COLD).join("index.html");
    let (tab, seen) = open(&browser, &file_url(&page));
    let here = location(&tab);
    tab_to(&tab, "a.id === 'run-select'", "the run selector");
    let before = eval(&tab, "document.getElementById('run-select').selectedIndex");
    // The run opened is the oldest, last in the list: the run above it.
    tab.press_key("ArrowUp").unwrap();
    let chosen = eval(&tab, "document.getElementById('run-select').value");
    assert_ne!(
        eval(&tab, "document.getElementById('run-select').selectedIndex"),
        before,
        "the arrow chooses another run"
    );
    assert!(chosen.as_str().is_some_and(|v| v.ends_with("/index.html")), "{chosen}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(location(&tab), here, "an arrow alone does not leave the page");
    tab.press_key("ArrowUp").unwrap();
    tab.press_key("ArrowDown").unwrap();
    tab.press_key("ArrowUp").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(location(&tab), here, "nor do several");
    // The Go button beside it is reached with Tab too.
    assert_eq!(
        eval(&tab, "(() => { const s = document.getElementById('run-select'); const b = document.getElementById('run-go'); return !!b && s.compareDocumentPosition(b) === Node.DOCUMENT_POSITION_FOLLOWING; })()"),
        Value::Bool(true)
    );
    tab.press_key("Enter").unwrap();
    wait_for(
        &tab,
        &format!(
            "location.pathname !== {} && document.documentElement.getAttribute('data-ready') === '1'",
            serde_json::to_string(&here).unwrap()
        ),
        "Enter to open the chosen run",
    );
    no_errors(&seen);
}

#[test]
fn show_only_in_the_legend_has_a_key_and_enter_toggles_as_a_click_does() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    let nodes = legend(&tab, "node");
    assert!(nodes.len() >= 2, "{nodes:?}");
    let first = &nodes[0];
    tab_to(&tab, "a.hasAttribute('data-legend-node')", "the legend");
    let pressed = |tab: &Tab| -> Vec<String> {
        let v = eval(tab, "JSON.stringify([...document.querySelectorAll('[data-legend-node]')].map(b => b.getAttribute('aria-pressed')))");
        serde_json::from_str(v.as_str().unwrap()).unwrap()
    };
    assert!(pressed(&tab).iter().all(|p| p == "true"));
    tab.press_key("o").unwrap();
    let only: Vec<String> = (0..nodes.len()).map(|i| (i == 0).to_string()).collect();
    assert_eq!(pressed(&tab), only, "O shows only {first}");
    assert_eq!(
        eval(&tab, "document.activeElement.getAttribute('data-legend-node')"),
        Value::from(first.as_str()),
        "the focus stays on it"
    );
    // Enter on the next name shows it again, as a click would.
    tab.press_key("Tab").unwrap();
    tab.press_key("Enter").unwrap();
    assert_eq!(pressed(&tab)[1], "true", "{:?}", pressed(&tab));
    assert!(
        eval(&tab, "document.getElementById('filter-status').textContent")
            .as_str()
            .unwrap_or_default()
            .contains("Hidden: "),
        "the status says what is hidden"
    );
    no_errors(&seen);
}

/// Whether a CSS colour is nearer black than white.
fn is_dark(css: &Value) -> bool {
    let c = crate::pictures::parse_colour(css.as_str().unwrap_or_default()).unwrap_or((255, 255, 255));
    crate::pictures::contrast(c, (0, 0, 0)) < crate::pictures::contrast(c, (255, 255, 255))
}

#[test]
fn in_dark_mode_every_control_is_dark_and_the_caption_says_what_the_hatch_is() {
    let Some(path) = chromium() else { return };
    let (_runs, site) = site_of_three();
    let browser = launch(path);
    let page = site.path().join("runs").join(COLD).join("index.html");
    let (tab, _) = open(&browser, &file_url(&page));
    colour_scheme(&tab, "dark");
    let controls = eval(
        &tab,
        "JSON.stringify([...document.querySelectorAll('button, select')].filter(e => e.offsetParent !== null).map(e => \
         ({id: e.id || e.className || e.tagName, bg: getComputedStyle(e).backgroundColor, fg: getComputedStyle(e).color})))",
    );
    let controls: Vec<Value> = serde_json::from_str(controls.as_str().unwrap()).unwrap();
    for id in ["zoom-in", "zoom-out", "zoom-reset", "run-select", "run-go"] {
        assert!(
            controls.iter().any(|c| c["id"] == id),
            "{id} is on the page: {controls:?}"
        );
    }
    for c in &controls {
        assert!(
            is_dark(&c["bg"]) && !is_dark(&c["fg"]),
            "a control stays light in dark mode: {c}"
        );
    }
    let caption = eval(
        &tab,
        "document.querySelector('#chart-timeline').closest('figure').querySelector('figcaption').textContent",
    );
    let caption = caption.as_str().unwrap_or_default();
    assert!(caption.contains("black-and-white hatching = upload"), "{caption}");
    assert!(!caption.contains("black hatching"), "{caption}");
}

/// Each legend label of every chart `report` writes lies inside its legend's
/// box as Chromium draws it ("memory used" ran 1.5 px past its box).
#[test]
fn no_chart_legend_label_runs_past_its_box_in_chromium() {
    let Some(path) = chromium() else { return };
    let browser = launch(path);
    let mut failures = vec![];
    for stamp in [COLD, WARM] {
        let out = tempfile::tempdir().unwrap();
        let o = report(&sample(stamp), out.path(), &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let charts: Vec<PathBuf> = crate::walk(&out.path().join("charts"))
            .into_iter()
            .filter(|p| p.extension() == Some(OsStr::new("svg")))
            .collect();
        assert!(charts.len() >= 3, "{charts:?}");
        for chart in charts {
            let tab = browser.new_tab().unwrap();
            tab.navigate_to(&file_url(&chart))
                .unwrap()
                .wait_until_navigated()
                .unwrap();
            // The legend's box is the rect stroked in its border colour;
            // every text whose start lies in it must end in it.
            let js = "JSON.stringify((() => { \
                const boxes = [...document.querySelectorAll('rect')].filter(r => (r.getAttribute('stroke') || '').toUpperCase() === '#B4B4B4').map(r => r.getBBox()); \
                const out = []; \
                for (const t of document.querySelectorAll('text')) { const b = t.getBBox(); \
                  for (const x of boxes) { if (b.x >= x.x && b.x <= x.x + x.width && b.y >= x.y - 2 && b.y <= x.y + x.height) { \
                    if (b.x + b.width > x.x + x.width - 1) out.push(t.textContent.trim() + ' ends at ' + (b.x + b.width).toFixed(1) + ', its box at ' + (x.x + x.width)); } } } \
                return {boxes: boxes.length, out}; })())";
            let v: Value = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
            let name = chart.file_name().unwrap().to_string_lossy().into_owned();
            if name != "cache-lanes.svg" || v["boxes"] != 0 {
                assert!(v["boxes"].as_u64() > Some(0), "{stamp} {name}: no legend box found");
            }
            for f in v["out"].as_array().unwrap() {
                failures.push(format!("{stamp} {name}: {f}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
