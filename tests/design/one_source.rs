//! One source for each rule: a chart's "why empty" is decided in
//! the view and only read by the SVG and the page; the page's colours come
//! from Rust, not from page.js.

use crate::{data, report, root};

#[test]
fn why_a_chart_is_empty_is_decided_once_in_data_json_and_drawn_in_the_svg() {
    let run = tempfile::tempdir().unwrap();
    // Present, yet no usable sample: the chart says so instead of drawing an empty axis.
    std::fs::write(run.path().join("samples.jsonl"), "{\"ts\": \"not a time\"}\n").unwrap();
    std::fs::write(run.path().join("placement.txt"), "placement target=a node=n1\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = report(run.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let why = data(out.path())["why_empty"]["cpu_mem"].as_str().map(str::to_string);
    let why = why.unwrap_or_default();
    assert!(
        why.starts_with("samples.jsonl: 1 line read but no record recognised"),
        "{why}"
    );
    let svg = std::fs::read_to_string(out.path().join("charts/cpu-mem.svg")).unwrap();
    assert!(
        svg.contains("samples.jsonl: 1 line read but no record recognised"),
        "{svg}"
    );
    // A drawn chart has nothing to explain: the key is absent, data.json unchanged.
    let cold = tempfile::tempdir().unwrap();
    report(&crate::sample(crate::COLD), cold.path(), &[]);
    assert!(data(cold.path()).get("why_empty").is_none());
}

#[test]
fn page_js_defines_no_colour_of_its_own() {
    let js = std::fs::read_to_string(root().join("assets/page.js")).unwrap();
    let hex = regex::Regex::new(r#"["']#[0-9a-fA-F]{3,8}["']"#).unwrap();
    let found: Vec<&str> = hex.find_iter(&js).map(|m| m.as_str()).collect();
    assert!(
        found.is_empty(),
        "colours belong to render::page_style, handed to the page: {found:?}"
    );
}

/// Every figure compared across runs is named once, in `src/figures/metric.rs`
/// (its `Metric` and `Alongside`); code elsewhere refers to it by that type, so
/// a renamed field cannot leave one reader behind with the old string. The
/// readers of input formats are the exception: they spell a key as its
/// producer writes it (placement.txt's `build_s`, bench.jsonl's `steps_cached`),
/// which is the format's name, not the figure's.
#[test]
fn a_metric_name_is_a_literal_only_in_the_file_that_names_the_metrics() {
    const NAMES: [&str; 12] = [
        "total_s",
        "build_s",
        "gap_s",
        "upload_s",
        "steps_cached",
        "busy_s",
        "idle_s",
        "cpu_pct_mean",
        "setup_s",
        "export_s",
        "upload_bytes",
        "upload_mbps",
    ];
    let src = root().join("src");
    let naming = src.join("figures/metric.rs");
    let metric = std::fs::read_to_string(&naming).unwrap();
    // The list is the names the metric file gives, and it still gives them.
    for name in NAMES {
        assert!(metric.contains(&format!("\"{name}\"")), "{name} is named in {naming:?}");
    }
    let mut found = vec![];
    for file in super::source::rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if file == naming || rel.starts_with("input/") || rel == "harness/rows.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // The test module at a file's end holds hand-made cases, not names.
        let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in NAMES {
                if line.contains(&format!("\"{name}\"")) {
                    found.push(format!("src/{rel}:{}: \"{name}\"", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "metric names as strings outside src/figures/metric.rs (use Metric or Alongside):\n{}",
        found.join("\n")
    );
}

/// publish decides which pages a site has and writes them; what is on a page
/// (its markup, its sections' headings) is made in `src/render/`, where every
/// other output is made and escaped, so an HTML or markdown fragment in
/// publish would be a page made where nothing checks how it is escaped.
#[test]
fn publish_writes_site_pages_that_render_makes() {
    let text = std::fs::read_to_string(root().join("src/publish.rs")).unwrap();
    let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or("");
    let markup = regex::Regex::new(r#""[^"\n]*(<[a-zA-Z/!][^"\n]*>|\\n#+ |^#+ )"#).unwrap();
    let found: Vec<String> = code
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//") && markup.is_match(l))
        .map(|(n, l)| format!("src/publish.rs:{}: {}", n + 1, l.trim()))
        .collect();
    assert!(
        found.is_empty(),
        "page markup made in publish (move it to src/render/site.rs):\n{}",
        found.join("\n")
    );
}

/// One name for one thing: a type other modules can name (`pub`,
/// `pub(crate)`, `pub(super)`) is declared once in its crate, so an import
/// never leaves a reader guessing which `Window` or `StepView` it is. A type
/// private to its file is a local name and may repeat; each subcommand's
/// `Args` is clap's convention, one per `src/cli/` module.
#[test]
fn no_type_that_other_modules_can_name_is_declared_twice_in_its_crate() {
    let decl =
        regex::Regex::new(r"(?m)^\s*pub(\((crate|super)\))?\s+(struct|enum|type|trait|union)\s+([A-Z][A-Za-z0-9_]*)")
            .unwrap();
    let mut crates = vec![root().join("src")];
    let mut members: Vec<_> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    members.sort();
    crates.extend(members);
    let mut twins = vec![];
    let mut seen_any = 0;
    for src in &crates {
        let mut by_name: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for file in super::source::rust_files(src) {
            let rel = file.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            let text = super::source::code_only(&std::fs::read_to_string(&file).unwrap());
            let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or("");
            for c in decl.captures_iter(code) {
                let name = c[4].to_string();
                if name == "Args" && rel.starts_with("src/cli/") {
                    continue;
                }
                seen_any += 1;
                by_name.entry(name).or_default().push(rel.clone());
            }
        }
        twins.extend(
            by_name
                .into_iter()
                .filter(|(_, files)| files.len() > 1)
                .map(|(name, files)| format!("{name}: {}", files.join(", "))),
        );
    }
    assert!(seen_any > 100, "the declarations are read: {seen_any}");
    assert!(
        twins.is_empty(),
        "types declared twice in one crate (give each a name that says which it is):\n{}",
        twins.join("\n")
    );
}

/// A null figure says why through the one serializer (`measured::explained`):
/// the reason is the figure's own, set where its value is computed, and the
/// serializer gathers it under `why_null`. No output keeps a map of reasons
/// filled beside its values: no struct declares a `why_null` field outside
/// `explained!`, and no code inserts into one. (Reasons for parts of a field,
/// such as the nulls of a series, are gathered in a local map handed to the
/// struct's `[why_null]` slot when it is built.)
#[test]
fn a_reason_for_a_null_reaches_why_null_only_through_the_one_serializer() {
    let src = root().join("src");
    let mutate = regex::Regex::new(r"\.why_null\s*\.\s*(insert|entry|remove|extend|append|retain)\s*\(").unwrap();
    let field =
        regex::Regex::new(r"^\s*(pub(\(\w+\))?\s+)?why_null\s*:\s*([A-Za-z_][A-Za-z0-9_:<>, ]*)\s*,\s*$").unwrap();
    let mut found = vec![];
    for file in super::source::rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "measured/explained.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = super::source::code_only(text.split("#[cfg(test)]\nmod ").next().unwrap_or(""));
        for (n, line) in code.lines().enumerate() {
            // A map type, or the serializer's own, in a field declared outside `explained!`.
            let declared = field.captures(line).is_some_and(|c| {
                let ty = c[3].trim();
                ty.contains("Map<") || ty.ends_with("Reasons") || ty == "Why"
            });
            if declared || mutate.is_match(line) {
                found.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "reasons kept apart from their figures (make the figure a Measured field of an explained! struct):\n{}",
        found.join("\n")
    );
}
