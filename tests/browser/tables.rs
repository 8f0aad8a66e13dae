//! What the page's tables and lanes say: an empty lane's reason beside the
//! table's bytes, a cold run's export header, and figures rounded as
//! report.md rounds them.

use super::*;

/// The real-format run's writes lie outside its window: the page's registry
/// lane must say so beside the table's bytes, as the static chart does,
/// instead of drawing an empty lane.
#[test]
fn page_registry_lane_says_why_it_is_empty_beside_the_tables_bytes() {
    let Some(path) = chromium() else { return };
    let run = crate::fixture_run();
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("data.json")).unwrap()).unwrap();
    let why = d["zot"]["lane_why"].as_str().expect("the view says why").to_string();
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    let shown = eval(
        &tab,
        "Array.from(document.querySelectorAll('#chart-zot text.why, #chart-zot ~ .lane-note')).map(e => e.textContent).join('\\n')",
    );
    let shown = shown.as_str().unwrap();
    assert!(
        shown.contains(&why),
        "the zot lane shows its reason; it showed {shown:?}"
    );
    assert!(seen.lock().unwrap().errors.is_empty());
}

/// The cold sample's traces show uploads, so its export was not cleared: the
/// targets table's header must not claim totals exclude export.
#[test]
fn cold_run_with_uploads_has_no_excl_export_header() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, _) = open(&browser, &file_url(&out.path().join("index.html")));
    let head = eval(&tab, "document.querySelector('#table-targets thead').textContent");
    let head = head.as_str().unwrap();
    assert!(!head.contains("excl. export"), "{head}");
    assert!(head.contains("total (incl. export)"), "{head}");
}

/// report.md said triton-wheel's upload share was 70% where the page said
/// 71% (70.5 rounded to even by one, half up by the other). Every target's
/// durations and shares read the same on the page as in report.md.
#[test]
fn page_and_report_md_round_every_target_figure_alike() {
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let header = md
        .lines()
        .find(|l| l.starts_with("| target | node | total"))
        .expect("the targets table");
    let cells = |l: &str| -> Vec<String> { l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect() };
    let columns = cells(header);
    let rows: Vec<Vec<String>> = md
        .lines()
        .skip_while(|l| *l != header)
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(cells)
        .collect();
    assert_eq!(rows.len(), 10, "a row per target");
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    let js = r#"JSON.stringify((() => {
        const t = document.querySelector('#table-targets table');
        const head = [...t.querySelectorAll('th')].map(h => h.textContent.trim());
        return [...t.querySelectorAll('tbody tr')].map(r => Object.fromEntries([...r.children].map((c, i) => [head[i], c.textContent.trim()])));
    })())"#;
    let page: Vec<serde_json::Map<String, Value>> = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
    let mut compared = 0;
    for row in &rows {
        let on_page = page
            .iter()
            .find(|p| p["target"] == row[0].as_str())
            .unwrap_or_else(|| panic!("{} on the page", row[0]));
        for column in ["build", "gap", "gap share", "upload", "upload share"] {
            let i = columns.iter().position(|c| c == column).unwrap();
            assert_eq!(
                on_page[column],
                Value::from(row[i].as_str()),
                "{} {column}: page against report.md",
                row[0]
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 50);
    no_errors(&seen);
}
