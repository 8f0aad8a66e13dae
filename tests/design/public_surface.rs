//! The libraries' public surface is what their users need, and no more.
//!
//! rustc reports an unused function, type or field only when nothing outside
//! the crate could reach it: a `pub` item of a `pub` module is never "dead",
//! even when no caller is left. So every item of the library is `pub(crate)`
//! (or private) unless the `perfreport` binary (`src/main.rs`, `src/cli/`),
//! the integration tests, the examples, the benchmark's programs or the fuzz
//! targets use it through `lib.rs`; then rustc's dead-code warnings (errors
//! under `clippy -D warnings`) find what nothing calls. The same holds for
//! the line engine, `crates/scan`, whose users are perfreport (library and
//! binary), its tests and programs, and the fuzz targets of both crates.
//!
//! The rule, checked on the sources:
//! - every plain `pub` item under `src/` (outside the binary's `main.rs` and
//!   `cli/`) is listed in `public_surface.txt` (under `crates/scan/src/`, in
//!   `public_surface_scan.txt`), and every listed item is
//!   still `pub`: a new `pub fn` fails here until it is either made
//!   `pub(crate)` or added to the list on purpose;
//! - every listed name is written somewhere outside the library (the binary,
//!   `tests/`, `examples/`, `benches/`, `fuzz/`) or in a public item's
//!   signature (a type a public function returns), or its entry says why
//!   after ` # `: a listed item nothing outside needs belongs back inside
//!   the crate.

use super::source::{code_only, leading_ident as ident, rust_files};
use std::collections::BTreeSet;
use std::path::Path;

const KEYWORDS: [&str; 9] = ["fn", "struct", "enum", "trait", "type", "mod", "static", "const", "use"];

/// A library crate of the workspace: where its sources are, the list of its
/// public items, and the code that uses it from outside (files or folders).
struct Library {
    src: &'static str,
    list: &'static str,
    outside: &'static [&'static str],
}

const LIBRARIES: [Library; 2] = [
    Library {
        src: "src",
        list: "tests/design/public_surface.txt",
        outside: &[
            "src/main.rs",
            "src/cli",
            "tests",
            "examples",
            "benches",
            "fuzz/fuzz_targets",
        ],
    },
    Library {
        src: "crates/scan/src",
        list: "tests/design/public_surface_scan.txt",
        outside: &[
            "src",
            "tests",
            "examples",
            "benches",
            "fuzz/fuzz_targets",
            "crates/scan/fuzz/fuzz_targets",
        ],
    },
];

/// The type a column-0 `impl`, `struct`, `enum` or `trait` line opens, if any.
fn owner_of(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("pub(crate) ")
        .or(line.strip_prefix("pub "))
        .unwrap_or(line);
    for kw in ["struct ", "enum ", "trait "] {
        if let Some(r) = rest.strip_prefix(kw) {
            return Some(ident(r).to_string());
        }
    }
    let r = rest.strip_prefix("impl")?;
    // `impl<F: X> Samples<F>`, `impl Export for Charts`: the type after the
    // generics, or after `for`.
    let r = if r.starts_with('<') {
        let mut depth = 0;
        let end = r
            .char_indices()
            .find(|&(_, c)| {
                depth += (c == '<') as i32 - (c == '>') as i32;
                depth == 0
            })
            .map_or(r.len(), |(i, _)| i + 1);
        &r[end..]
    } else {
        r
    };
    let r = r.split(" for ").last().unwrap_or(r);
    Some(ident(r).to_string())
}

/// The plain-`pub` items of one library file (its code, without comments),
/// as `kind Owner::name` (or `kind name` at the top level; `use` with its path).
fn pub_items(code: &str) -> Vec<String> {
    let mut items = vec![];
    let mut owner: Option<String> = None;
    for line in code.lines() {
        // A struct declared inside a macro (`explained! { pub struct View {`)
        // opens its owner though it is indented; its fields carry their kind
        // first (`[plain] pub stamp: String`).
        let trimmed = line.trim_start();
        let declares = ["pub struct ", "pub(crate) struct "]
            .iter()
            .any(|k| trimmed.starts_with(k));
        if (!line.starts_with(char::is_whitespace) && !line.is_empty()) || declares {
            owner = owner_of(trimmed);
        }
        let field = trimmed
            .strip_prefix('[')
            .and_then(|r| r.split_once("] "))
            .map_or(trimmed, |(_, f)| f);
        let Some(rest) = field.strip_prefix("pub ") else {
            continue;
        };
        let rest = rest.trim_start_matches("async ").trim_start_matches("unsafe ");
        let rest = rest
            .strip_prefix("const fn ")
            .map_or(rest.to_string(), |r| format!("fn {r}"));
        let kw = ident(&rest);
        let nested = line.starts_with(char::is_whitespace) && !declares;
        let (kind, name) = if kw == "use" {
            ("use", rest["use".len()..].trim().trim_end_matches(';').to_string())
        } else if KEYWORDS.contains(&kw) {
            (kw, ident(&rest[kw.len()..]).to_string())
        } else {
            ("field", kw.to_string())
        };
        let name = match (&owner, nested) {
            (Some(o), true) => format!("{o}::{name}"),
            _ => name,
        };
        items.push(format!("{kind} {name}"));
    }
    items
}

/// What the public items' signatures say after their own names (up to the
/// body or the end of the declaration): a type a public function returns or
/// a public field holds must be public too, though no caller writes its name.
fn public_signatures(code: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = code.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        // The bounds of an `impl` bind its public methods too.
        if line.starts_with("impl") {
            out.push_str(line);
            out.push('\n');
        }
        let Some(rest) = line.trim_start().strip_prefix("pub ") else {
            continue;
        };
        let kw = ident(rest);
        let after_name = if KEYWORDS.contains(&kw) && kw != "use" {
            let r = rest[kw.len()..].trim_start();
            &r[ident(r).len()..]
        } else {
            rest
        };
        let mut sig = after_name.to_string();
        let mut j = i;
        while !(sig.contains('{') || sig.trim_end().ends_with([';', ','])) && j + 1 < lines.len() && j < i + 12 {
            j += 1;
            sig.push('\n');
            sig.push_str(lines[j]);
        }
        out.push_str(&sig);
        out.push('\n');
    }
    out
}

/// A library's sources without comments, without the binary's, as
/// (path from the repository's root, code).
fn library_files(root: &Path, lib: &Library) -> Vec<(String, String)> {
    rust_files(&root.join(lib.src))
        .into_iter()
        .map(|f| (f.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"), f))
        .filter(|(rel, _)| rel != "src/main.rs" && !rel.starts_with("src/cli/"))
        .map(|(rel, f)| (rel, code_only(&std::fs::read_to_string(f).unwrap())))
        .collect()
}

/// Every plain-`pub` item of a library, as `path: kind name`.
fn library_surface(root: &Path, lib: &Library) -> BTreeSet<String> {
    let mut surface = BTreeSet::new();
    for (rel, code) in library_files(root, lib) {
        for item in pub_items(&code) {
            surface.insert(format!("{rel}: {item}"));
        }
    }
    surface
}

/// A list's entries, each without the ` # why` after it.
fn listed(root: &Path, list: &str) -> BTreeSet<String> {
    std::fs::read_to_string(root.join(list))
        .unwrap()
        .lines()
        .map(|l| l.split_once(" # ").map_or(l, |(item, _why)| item).trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The code that uses a library from outside (for perfreport: the binary's
/// own modules, the tests, examples, benchmark programs and fuzz targets).
fn outside_code(root: &Path, lib: &Library) -> String {
    let mut files = vec![];
    for place in lib.outside {
        let path = root.join(place);
        if path.is_file() {
            files.push(path);
        } else {
            files.extend(rust_files(&path));
        }
    }
    files
        .iter()
        .filter(|f| !f.ends_with("design/public_surface.rs"))
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .map(|text| code_only(&text))
        .collect::<Vec<_>>()
        .join("\n")
}

fn names_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        let edge = |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        edge(before) && edge(after)
    })
}

#[test]
fn every_public_library_item_is_listed_and_every_listed_one_is_public() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (lib, read) in LIBRARIES
        .iter()
        .zip(["src/lib.rs: fn report", "crates/scan/src/lib.rs: mod lines"])
    {
        let surface = library_surface(root, lib);
        let listed = listed(root, lib.list);
        assert!(surface.contains(read), "the sources are read: {surface:?}");
        let unlisted: Vec<_> = surface.difference(&listed).map(String::as_str).collect();
        let stale: Vec<_> = listed.difference(&surface).map(String::as_str).collect();
        assert!(
            unlisted.is_empty(),
            "public items not in {}: a `pub` item of the library must be added to that list. \
             Make it pub(crate) if only its own crate uses it (rustc then reports it when \
             nothing calls it), or add its line below to the list if the CLI, tests, \
             examples, benchmarks or fuzz targets need it:\n{}",
            lib.list,
            unlisted.join("\n")
        );
        assert!(
            stale.is_empty(),
            "listed in {} but no longer public: drop these lines from the list:\n{}",
            lib.list,
            stale.join("\n")
        );
    }
}

#[test]
fn every_listed_item_is_named_outside_the_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for lib in &LIBRARIES {
        let unused = named_nowhere_outside(root, lib);
        assert!(
            unused.is_empty(),
            "public items nothing outside the library names: make them pub(crate), drop them \
             from {}, and delete them if rustc then finds no caller:\n{}",
            lib.list,
            unused.join("\n")
        );
    }
}

/// The listed items of `lib` that no code outside it names.
fn named_nowhere_outside(root: &Path, lib: &Library) -> Vec<String> {
    // A `# why` after an entry says why it is public though never named
    // outside (a struct update `..Limits::default()` needs every field).
    let text = std::fs::read_to_string(root.join(lib.list)).unwrap();
    let explained: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" # "))
        .map(|(i, _)| i.trim())
        .collect();
    let signatures: String = library_files(root, lib)
        .iter()
        .map(|(_, code)| public_signatures(code))
        .collect();
    let outside = outside_code(root, lib) + "\n" + &signatures;
    listed(root, lib.list)
        .into_iter()
        .filter(|entry| !explained.contains(entry.as_str()))
        .filter(|entry| {
            // `src/x.rs: fn Owner::name` names `name`; `use a::{b, C}` its last segment.
            let item = entry.split_once(": ").map_or(entry.as_str(), |(_, i)| i);
            let path = item.split_once(' ').map_or(item, |(_, p)| p);
            let last = path.rsplit("::").next().unwrap_or(path);
            let last = last.trim_matches(|c| c == '{' || c == '}' || c == ' ');
            !last.split(',').any(|n| names_word(&outside, ident(n)))
        })
        .collect()
}

#[test]
fn the_surface_check_sees_a_new_pub_fn_and_keeps_owners_apart() {
    let code = "pub struct Limits {\n    pub bind: String,\n    pub(crate) hidden: u8,\n}\n\n\
                impl<F: Fold> Samples<F> {\n    pub fn with_cap(cap: usize) -> Self { todo!() }\n}\n\n\
                impl Export for Charts {\n    pub(crate) fn x() {}\n}\n\
                pub(crate) fn inside() {}\npub fn unused_helper() {}\npub const fn k() {}\n\
                pub use crate::input::read::Links;\n";
    assert_eq!(
        pub_items(code),
        [
            "struct Limits",
            "field Limits::bind",
            "fn Samples::with_cap",
            "fn unused_helper",
            "fn k",
            "use crate::input::read::Links",
        ]
    );
    // A `pub fn` in a comment or a string is no item.
    assert!(pub_items(&code_only("// pub fn said() {}\nlet s = \"\npub fn quoted() {}\";\n")).is_empty());
    assert!(names_word("perfreport::serve::Limits {", "Limits"));
    assert!(!names_word("LimitsOf", "Limits"));
}
