//! The corpus in the benchmark's ratios: each string in each bench.jsonl
//! field leaves ratios.md's structure and ratios.html's elements as a
//! benign value's, and runs nothing.

use super::markdown::{check_markdown, cmark_gfm};
use super::*;

/// bench.jsonl fields that reach ratios.md and ratios.html.
const BENCH_FIELDS: &[&str] = &["target", "builder", "arch", "failure", "ts"];

/// The sample bench.jsonl plus one row with `field` set to `value`: a new
/// key of its own (target, builder, arch), a failed build (failure), a row
/// skipped with its `ts` quoted (ts).
fn bench_with(dir: &Path, field: &str, value: &str) -> PathBuf {
    let base = read(&crate::root().join("sample-runs/bench/bench.jsonl"));
    let mut row = json!({"ts": "2026-10-21T02:00:00+00:00", "scenario": "cold", "target": "pytorch",
        "builder": "snoc-think", "arch": "gfx950", "seconds": 2300, "rc": 0, "steps_cached": 0, "steps_total": 11,
        "max_jobs": 10, "node_load_at_start": 0.4, "node_load_at_end": 12.0, "failure": null});
    if field == "failure" {
        row["rc"] = json!(1);
    }
    row[field] = json!(value);
    let path = dir.join("bench.jsonl");
    std::fs::write(&path, format!("{base}{row}\n")).unwrap();
    path
}

#[test]
fn no_bench_jsonl_string_runs_script_or_makes_markdown_in_ratios_md_or_ratios_html() {
    let browser = chromium().map(launch);
    let page = browser.as_ref().map(|b| Page::new(b, true));
    let cmark = cmark_gfm();
    for field in BENCH_FIELDS {
        let mut twin: Option<(String, BTreeMap<String, u64>)> = None;
        for value in std::iter::once(BENCH).chain(PAYLOADS.iter().copied()) {
            let who = format!("bench.jsonl {field} = {value:?}");
            let tmp = tempfile::tempdir().unwrap();
            let bench = bench_with(tmp.path(), field, value);
            let out = tmp.path().join("out");
            let o = perfreport(&["ratios", bench.to_str().unwrap(), "--out", out.to_str().unwrap()]);
            assert!(o.status.success(), "{who}: {}", String::from_utf8_lossy(&o.stderr));
            let md = read(&out.join("ratios.md"));
            let charts = std::fs::read_dir(out.join("charts")).unwrap().count();
            if let Some((twin_md, _)) = &twin {
                check_markdown(&format!("ratios.md of {who}"), &md, twin_md, charts, cmark.as_deref());
            }
            let elements = page.as_ref().map(|p| {
                let seen = p.visit(&out.join("ratios.html"), &out);
                seen.assert_inert(&format!("ratios.html of {who}"));
                let e = &seen.elements;
                assert_eq!((e["a"], e["img"], e["script"]), (0, 0, 0), "ratios.html of {who}");
                seen.elements
            });
            match &twin {
                None => twin = Some((md, elements.unwrap_or_default())),
                Some((_, twin_elements)) => {
                    if let Some(e) = elements {
                        assert_eq!(
                            &e, twin_elements,
                            "ratios.html of {who}: elements differ from the benign run"
                        );
                    }
                }
            }
        }
    }
}

/// The benign value of a bench.jsonl field (an invalid `ts` too, so its
/// twin is skipped with a warning as the hostile ones are).
const BENCH: &str = BENIGN;
