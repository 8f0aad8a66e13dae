//! The documents speak to the tool's users: what it does, how to reproduce a
//! figure and why the code is as it is. The story of the code's making
//! (issue numbers, work sessions) belongs to the git history, and
//! BENCHMARKS.md holds the method and today's tables, not a journal.

use super::source::rust_files;
use regex::Regex;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// BENCHMARKS.md's bound: running it, the method, today's tables and what
/// they mean fit in it; a dated journal of every measurement does not.
const BENCHMARKS_MAX_LINES: usize = 400;

/// Phrases that tell the story of the work rather than the tool: an issue
/// cited by number, a work session.
fn narration() -> Regex {
    Regex::new(r"(?i)\bissues?\s*#?\d+\b|\(#\d+\)|\bsessions?\b").expect("a valid pattern")
}

/// The lines of `text` that narrate, with their line numbers.
fn narrating_lines(text: &str, only_comments: bool) -> Vec<(usize, String)> {
    let pattern = narration();
    text.lines()
        .enumerate()
        .filter(|(_, line)| !only_comments || line.trim_start().starts_with("//"))
        .filter(|(_, line)| pattern.is_match(line))
        .map(|(i, line)| (i + 1, line.trim().to_string()))
        .collect()
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
    found.sort();
    found
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn documents_and_comments_cite_no_issue_numbers_or_sessions() {
    let root = Path::new(ROOT);
    let mut docs = vec![root.join("README.md"), root.join("BENCHMARKS.md")];
    docs.extend(markdown_files(&root.join("docs")));
    let mut sources = rust_files(&root.join("src"));
    for dir in ["crates", "examples", "benches"] {
        sources.extend(rust_files(&root.join(dir)));
    }
    let mut found = Vec::new();
    let checked = docs.iter().map(|p| (p, false)).chain(sources.iter().map(|p| (p, true)));
    for (path, only_comments) in checked {
        for (line, text) in narrating_lines(&read(path), only_comments) {
            let shown = path.strip_prefix(root).unwrap_or(path).display();
            found.push(format!("{shown}:{line}: {text}"));
        }
    }
    assert!(
        docs.len() > 5 && sources.len() > 20,
        "the documents and sources were not found"
    );
    assert!(
        found.is_empty(),
        "documents and comments tell the story of the work (git history keeps it):\n{}",
        found.join("\n")
    );
}

#[test]
fn benchmarks_md_is_how_to_run_it_and_todays_tables_not_a_journal() {
    let text = read(&Path::new(ROOT).join("BENCHMARKS.md"));
    let lines = text.lines().count();
    assert!(
        lines <= BENCHMARKS_MAX_LINES,
        "BENCHMARKS.md is {lines} lines (at most {BENCHMARKS_MAX_LINES})"
    );
    assert!(
        text.contains("python3 benches/bench.py"),
        "BENCHMARKS.md does not say how to run the benchmark"
    );
    let todays = text.lines().filter(|l| l.starts_with("## Today's figures")).count();
    assert_eq!(
        todays, 1,
        "BENCHMARKS.md has {todays} sections of today's figures, not one"
    );
}

#[test]
fn the_narration_check_finds_issue_numbers_and_sessions_in_comments_only_where_asked() {
    let text = "// fixed in issue #12\nlet x = 1; // see issue 7\n/// the tenth session\n\
                // a zot `HTTP API` line\nlet s = \"session\";\n";
    let lines: Vec<usize> = narrating_lines(text, true).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        lines,
        vec![1, 3],
        "a comment line citing an issue or a session, not code"
    );
    let prose = "Rounds alternate (see #history-at-scale).\nLanded in (#37).\n";
    let lines: Vec<usize> = narrating_lines(prose, false).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, vec![2], "an anchor is not an issue; `(#37)` is");
}
