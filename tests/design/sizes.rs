//! Sizes a reader can hold: no test file over 800 lines (a file that long
//! holds several areas, each easier to find in its own module) and no
//! function over 80 lines outside test modules (past that a function does
//! several things that want names of their own). This reads the sources and
//! fails naming each file and function over its limit.

use super::source::{code_only, rust_files};
use std::path::Path;

const MAX_TEST_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 80;

/// A function's name, the line its `fn` is on, and its length: the lines
/// from the `fn` to its closing brace that hold code (blank and comment-only
/// lines are left out, as clippy's `too_many_lines` leaves them: a comment
/// saying why is no reason to split).
#[derive(Debug, PartialEq)]
struct Func {
    name: String,
    line: usize,
    lines: usize,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The index of the `}` closing the `{` at `open`, if the text closes it.
fn matching_brace(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where the item starting at `from` has its body: the `{` that opens it,
/// or `None` when a `;` ends the item first (`fn f();`, `mod m;`). Brackets
/// and parentheses are skipped, so `[u8; 4]` in a signature ends nothing.
fn body_start(code: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(from) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => return Some(i),
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The byte ranges of the items marked `#[cfg(test)]` (test modules, and
/// any test-only function or impl), which hold no limit.
fn test_only_spans(code: &[u8]) -> Vec<(usize, usize)> {
    let text = std::str::from_utf8(code).unwrap_or("");
    text.match_indices("#[cfg(test)]")
        .filter_map(|(at, attr)| {
            let open = body_start(code, at + attr.len())?;
            Some((at, matching_brace(code, open)?))
        })
        .collect()
}

/// Every function with a body in `source` outside `#[cfg(test)]` items.
fn functions(source: &str) -> Vec<Func> {
    let code = code_only(source);
    let code = code.as_bytes();
    let skipped = test_only_spans(code);
    let line_of = |i: usize| code[..i].iter().filter(|&&b| b == b'\n').count() + 1;
    let code_lines = |from: usize, to: usize| {
        let start = code[..from].iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
        code[start..=to]
            .split(|&b| b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .count()
    };
    let mut found = vec![];
    let mut i = 0;
    while let Some(p) = code[i..].windows(3).position(|w| w == b"fn ") {
        let at = i + p;
        i = at + 3;
        if at > 0 && is_ident(code[at - 1]) || skipped.iter().any(|&(s, e)| s <= at && at <= e) {
            continue;
        }
        let rest = &code[at + 3..];
        let name_at = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
        let name: String = rest[name_at..]
            .iter()
            .take_while(|&&b| is_ident(b))
            .map(|&b| b as char)
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = body_start(code, at + 3 + name_at + name.len()) else {
            continue;
        };
        let Some(close) = matching_brace(code, open) else {
            continue;
        };
        found.push(Func {
            name,
            line: line_of(at),
            lines: code_lines(at, close),
        });
    }
    found
}

/// `file: fn name (line L) is N lines` for each function of `source` over the limit.
fn long_functions(file: &str, source: &str) -> Vec<String> {
    functions(source)
        .into_iter()
        .filter(|f| f.lines > MAX_FN_LINES)
        .map(|f| format!("{file}: fn {} (line {}) is {} lines", f.name, f.line, f.lines))
        .collect()
}

fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

#[test]
fn no_test_file_is_over_800_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("tests"));
    assert!(files.len() > 20, "the tests are read: {files:?}");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_TEST_FILE_LINES).then(|| format!("{}: {lines} lines", relative(root, f)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "test files over {MAX_TEST_FILE_LINES} lines (split each into modules by what they test):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_outside_tests_is_over_80_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    let mut crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.sort();
    dirs.extend(crates.into_iter().map(|c| c.join("src")).filter(|s| s.is_dir()));
    let mut long = vec![];
    let mut seen = 0;
    for file in dirs.iter().flat_map(|d| rust_files(d)) {
        let source = std::fs::read_to_string(&file).unwrap();
        seen += functions(&source).len();
        long.extend(long_functions(&relative(root, &file), &source));
    }
    assert!(seen > 500, "the functions are read: {seen}");
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines outside tests (split each into steps with names):\n{}",
        long.join("\n")
    );
}

/// A function `name` of exactly `lines` lines, its body a `let` a line.
fn fn_of(name: &str, lines: usize) -> String {
    let body: String = (0..lines - 2).map(|i| format!("    let x{i} = {i};\n")).collect();
    format!("fn {name}() {{\n{body}}}\n")
}

#[test]
fn the_size_check_fails_a_function_of_81_lines_and_passes_one_of_80() {
    let source = format!("{}\n{}", fn_of("ok", 80), fn_of("too_long", 81));
    assert_eq!(
        functions(&source),
        [
            Func {
                name: "ok".into(),
                line: 1,
                lines: 80
            },
            Func {
                name: "too_long".into(),
                line: 82,
                lines: 81
            },
        ]
    );
    assert_eq!(
        long_functions("src/a.rs", &source),
        ["src/a.rs: fn too_long (line 82) is 81 lines"]
    );
}

#[test]
fn the_size_check_lets_a_test_modules_long_function_pass() {
    let source = format!(
        "pub fn short(a: [u8; 4]) -> u8 {{ a[0] }}\n\n#[cfg(test)]\nmod tests {{\n    use super::*;\n{}}}\n",
        fn_of("a_long_test", 150)
    );
    assert_eq!(
        functions(&source),
        [Func {
            name: "short".into(),
            line: 1,
            lines: 1
        }]
    );
    assert!(long_functions("src/a.rs", &source).is_empty());
}

#[test]
fn the_size_check_is_not_fooled_by_braces_in_strings_and_comments() {
    // Unbalanced braces in literals and comments: a scan that counted them
    // would end `first` early or run it into `second`.
    let source = format!(
        "fn first() {{\n    let s = \"}}}}\"; let c = '}}'; // }}\n    /* }} */ let r = r#\"{{\"#;\n}}\n{}",
        fn_of("second", 101)
    );
    let found = functions(&source);
    assert_eq!(
        found[0],
        Func {
            name: "first".into(),
            line: 1,
            lines: 4
        }
    );
    assert_eq!(
        found[1],
        Func {
            name: "second".into(),
            line: 5,
            lines: 101
        }
    );
    assert_eq!(
        long_functions("src/b.rs", &source),
        ["src/b.rs: fn second (line 5) is 101 lines"]
    );
}

#[test]
fn the_size_check_counts_lines_of_code_not_blank_or_comment_lines() {
    let mut source = fn_of("commented", 100);
    // Twenty comment lines and ten blank ones inside the body add no code.
    let comments = "    // why the next line is as it is\n".repeat(20) + &"\n".repeat(10);
    source.insert_str(source.find('\n').unwrap() + 1, &comments);
    assert_eq!(
        functions(&source),
        [Func {
            name: "commented".into(),
            line: 1,
            lines: 100
        }]
    );
}
