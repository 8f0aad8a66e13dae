//! The corpus in a real headless Chromium: report.html, index.html with
//! scripts on and off and the published site run no payload, request nothing
//! and keep their benign twins' elements.

use super::*;

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
