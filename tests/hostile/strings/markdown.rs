//! The corpus in markdown: report.md and history.md read by pulldown-cmark
//! (raw HTML on, stricter than the product) and by cmark-gfm keep the
//! structure of their benign twins, and a figure the template cannot format
//! is a dash, not a lost report.

use super::*;

/// Counts every kind of markdown structure pulldown-cmark makes of `md`,
/// raw HTML passed through (stricter than the product, which shows it as
/// text). Code spans are left out: a backtick pair in a message is one.
fn pulldown_structure(md: &str) -> (BTreeMap<String, usize>, Vec<String>, Vec<String>) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut counts = BTreeMap::new();
    let mut images = vec![];
    let mut links = vec![];
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        let kind = match &event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                images.push(dest_url.to_string());
                "Image".to_string()
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                links.push(dest_url.to_string());
                "Link".to_string()
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
    (counts, images, links)
}

/// A link perfreport itself writes on a published run's page: to a
/// neighbour run's page (its folder percent-encoded) or to the history.
pub(super) fn own_link(dest: &str) -> bool {
    let neighbour = dest
        .strip_prefix("../")
        .and_then(|d| d.strip_suffix("/index.html"))
        .is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_alphanumeric() || b"%-._~".contains(&b)));
    let history = dest == "../../history.html"
        || dest
            .strip_prefix("../../history.html#metric=")
            .is_some_and(|m| m.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
    neighbour || history
}

/// The installed cmark-gfm, or `None` on a developer machine without one.
/// In CI a missing cmark-gfm fails the test: `.ci/run` installs it.
pub(super) fn cmark_gfm() -> Option<PathBuf> {
    crate::outside_tool(PathBuf::from("/usr/bin/cmark-gfm"), "cmark-gfm")
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
pub(super) fn check_markdown(who: &str, md: &str, twin: &str, images: usize, cmark: Option<&Path>) {
    assert!(
        !md.chars().any(|c| c.is_control() && c != '\n'),
        "{who}: a control character reached the markdown"
    );
    let (counts, dests, links) = pulldown_structure(md);
    assert_eq!(counts.get("Html"), None, "{who}: raw HTML\n{md}");
    // The only links are the page's own (its night's neighbours and history).
    assert!(links.iter().all(|l| own_link(l)), "{who}: a link {links:?}\n{md}");
    assert_eq!(dests.len(), images, "{who}: images {dests:?}");
    assert!(
        dests.iter().all(|d| d.starts_with("charts/")),
        "{who}: images {dests:?}"
    );
    // A published page's night (its neighbours differ by its place in the
    // site) is compared apart: the rest keeps its twin's structure.
    let (md_rest, twin_rest) = (without_night(md), without_night(twin));
    assert_eq!(
        pulldown_structure(&md_rest).0,
        pulldown_structure(&twin_rest).0,
        "{who}: structure differs from the benign run\n{md}"
    );
    if let Some(bin) = cmark {
        let html = cmark_gfm_html(bin, md);
        let made = cmark_structure(&html);
        assert_eq!(
            made["<a "],
            links.len(),
            "{who} in cmark-gfm: a link of its own making\n{html}"
        );
        assert_eq!(made["raw HTML omitted"], 0, "{who} in cmark-gfm: raw HTML\n{html}");
        assert_eq!(made["<img "], images, "{who} in cmark-gfm: images\n{html}");
        assert_eq!(
            cmark_structure(&cmark_gfm_html(bin, &md_rest)),
            cmark_structure(&cmark_gfm_html(bin, &twin_rest)),
            "{who} in cmark-gfm: structure differs from the benign run\n{html}"
        );
    }
}

/// A report.md without the night a published run page leads with.
fn without_night(md: &str) -> String {
    match md.find("\n## This night:") {
        Some(a) => match md[a..].find("\n---\n\n") {
            Some(e) => format!("{}{}", &md[..a], &md[a + e + "\n---\n".len()..]),
            None => md.to_string(),
        },
        None => md.to_string(),
    }
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
    let (counts, images, _) = pulldown_structure(&md);
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
