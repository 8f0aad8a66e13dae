//! The corpus in what the page embeds: every chart is well-formed XML, the
//! page's embedded data survives a comment opener or a script end, and the
//! `<noscript>` copy holds each string as text.

use super::*;

/// The installed xmllint, or `None` on a developer machine without one.
/// In CI a missing xmllint fails the test: `.ci/run` installs it.
fn xmllint() -> Option<PathBuf> {
    crate::outside_tool(PathBuf::from("/usr/bin/xmllint"), "libxml2-utils")
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
    let mut charts: Vec<PathBuf> = crate::walk(&corpus.site);
    charts.extend(crate::walk(out.path()));
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
