//! The library's top-level modules depend on each other one way only:
//! `input` -> `model` -> `analysis` -> `view` -> `render`, and the
//! commands above them. A reference back (`view` calling `render`) would make
//! the layers one tangle again, so this reads `src/` and fails naming the cycle.

use super::source::{code_only, leading_ident, rust_files};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The items of a `{...}` group at its own depth: `{model::{self, Run}, view}`
/// gives `model::{self, Run}` and `view`.
fn group_items(s: &str) -> Vec<&str> {
    let mut items = vec![];
    let mut depth = 0usize;
    let mut start = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    items.push(&s[start..i]);
                    return items;
                }
            }
            ',' if depth == 1 => {
                items.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// The first path segment after every `crate::` in `code`, groups included.
fn crate_refs(code: &str) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        // `$crate::` is a macro's own crate, and `foocrate::` another path.
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = code[i + "crate::".len()..].trim_start();
        if rest.starts_with('{') {
            refs.extend(group_items(rest).into_iter().map(|it| leading_ident(it).to_string()));
        } else {
            refs.insert(leading_ident(rest).to_string());
        }
    }
    refs.retain(|r| !r.is_empty());
    refs
}

/// The top-level module a file under `src/` belongs to (`src/view/why.rs` is `view`).
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// Which top-level module refers to which, from the sources under `src`.
fn module_graph(src: &Path) -> Graph {
    let files = rust_files(src);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top_module(src, f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let Some(from) = top_module(src, file) else { continue };
        // The crate roots declare the modules; `main.rs` is another crate.
        if from == "lib" || from == "main" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let edges = graph.entry(from.clone()).or_default();
        for to in crate_refs(&code) {
            if to != from && modules.contains(&to) {
                edges.insert(to);
            }
        }
    }
    graph
}

/// One cycle of `graph` as a path `a -> b -> a`, if it has one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(node: &str, graph: &Graph, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut vec![], &mut done))
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(
        graph.contains_key("view") && graph["view"].contains("analysis"),
        "the graph is read: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        let why: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} uses crate::{}", w[0], w[1]))
            .collect();
        panic!(
            "import cycle between top-level modules: {}\n({})\nfull graph: {graph:#?}",
            cycle.join(" -> "),
            why.join("; ")
        );
    }
}

/// compare, the gate, history and publish read the figures layer, never the
/// presentation model: a figure they judge is the one analysis computed,
/// not a value the view rounded for display.
#[test]
fn compare_gate_history_and_publish_read_figures_not_the_view() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    for consumer in ["compare", "gate", "history", "publish"] {
        let uses = graph
            .get(consumer)
            .unwrap_or_else(|| panic!("{consumer} is read: {graph:?}"));
        assert!(uses.contains("figures"), "{consumer} reads the figures: {uses:?}");
        assert!(!uses.contains("view"), "{consumer} uses crate::view: {uses:?}");
    }
}

#[test]
fn the_module_graph_check_reads_groups_and_skips_comments() {
    let code = code_only(
        "use crate::{model::{self, Run}, view};\n// crate::render in a comment\n/* crate::live */ let x = crate::timefmt::f();\n$crate::nope",
    );
    let refs: Vec<String> = crate_refs(&code).into_iter().collect();
    assert_eq!(refs, ["model", "timefmt", "view"]);
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert_eq!(find_cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g).unwrap(), ["a", "b", "c", "a"]);
}
