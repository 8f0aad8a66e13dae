//! Each JSON line format names its keys once: in its field table
//! (`perfreport_scan::fields`), which the shape replay, the walk and the
//! serde judge all read. A key's name written a second time anywhere in
//! the input layer's code (a `match` on it, a serde `rename`, a struct
//! derived to read it) is a second declaration that can drift from the
//! first, so this reads `src/input/` and fails naming the key and where.

use std::collections::BTreeMap;
use std::path::Path;

/// The string literals of Rust source outside comments, each with its line.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
                continue;
            }
            // A character literal (a quote or a slash in one is not a string's);
            // a lifetime is left alone.
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1 + usize::from(b[i] == b'\\');
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"')) && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = text[start..].find(&close).map_or(b.len(), |n| start + n);
                out.push((line, text[start..end].to_string()));
                line += text[start..end].matches('\n').count();
                i = end + close.len();
                continue;
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    line += usize::from(b[i] == b'\n');
                    i += 1 + usize::from(b[i] == b'\\');
                }
                out.push((line, text[start..i.min(b.len())].to_string()));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The code outside `#[cfg(test)]` items (a test may write a key as often as it likes).
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        // Skip the item: up to where its braces close (or its `;`).
        let mut depth = 0i64;
        for item in lines.by_ref() {
            depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
            if depth <= 0 && (item.contains('}') || item.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    out
}

/// The keys a file's field table declares: the names given to `field(`
/// and `object(`, with the line of each.
fn table_keys(code: &str) -> Vec<(usize, String)> {
    let mut keys = Vec::new();
    let literals = string_literals(code);
    for call in ["field(", "object("] {
        for (at, _) in code.match_indices(call) {
            if code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let line = code[..at].matches('\n').count() + 1;
            // The call's string argument: the first literal at or after the call.
            let args = &code[at + call.len()..];
            let Some(close) = args.find(')') else { continue };
            let inner = &args[..close];
            if let Some(q) = inner.find('"') {
                let rest = &inner[q + 1..];
                if let Some(e) = rest.find('"') {
                    let name = &rest[..e];
                    let line = line + inner[..q].matches('\n').count();
                    if literals.iter().any(|(l, s)| *l == line && s == name) {
                        keys.push((line, name.to_string()));
                    }
                }
            }
        }
    }
    keys
}

/// Whether a file reads a line format of its own (not by a field table):
/// its keys are that format's, which may share a word with a JSON format's
/// (placement.txt's `node=`).
fn reads_another_format(code: &str) -> bool {
    table_keys(code).is_empty() && (code.contains("impl LineSink for") || code.contains("fn parse_line("))
}

/// Where the rule is broken: each table key with every place its name is
/// written in `sources` (file name, code without tests), if more than once
/// in its own file and the input layer's shared code.
fn written_twice(sources: &[(String, String)]) -> Vec<String> {
    let mut literals: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (file, code) in sources {
        if reads_another_format(code) {
            continue;
        }
        for (line, s) in string_literals(code) {
            literals.entry(leak(s)).or_default().push(format!("{file}:{line}"));
        }
    }
    let mut broken = Vec::new();
    for (file, code) in sources {
        for (line, key) in table_keys(code) {
            let places = literals.get(key.as_str()).cloned().unwrap_or_default();
            if places.len() != 1 {
                broken.push(format!(
                    "\"{key}\" (the table in {file}:{line}) is written {} times: {}",
                    places.len(),
                    places.join(", ")
                ));
            }
        }
        if !table_keys(code).is_empty() && code.contains("Deserialize)]") {
            broken.push(format!(
                "{file} has a field table and derives Deserialize too: its fields would be declared twice"
            ));
        }
    }
    broken
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn input_sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/input");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = format!("src/input/{}", p.file_name().unwrap().to_string_lossy());
            (name, without_tests(&std::fs::read_to_string(p).unwrap()))
        })
        .collect()
}

#[test]
fn each_json_key_of_a_line_format_is_named_once_in_the_input_layer() {
    let sources = input_sources();
    // The rule holds over the formats read by the field engine: both found.
    let keys: Vec<String> = sources
        .iter()
        .flat_map(|(_, code)| table_keys(code))
        .map(|(_, k)| k)
        .collect();
    for key in [
        "statusCode",
        "bodySize",
        "time",
        "Content-Length",
        "ts",
        "node",
        "idle",
        "load1",
    ] {
        assert!(
            keys.iter().any(|k| k == key),
            "the field tables declare \"{key}\": {keys:?}"
        );
    }
    let broken = written_twice(&sources);
    assert!(broken.is_empty(), "a key written twice:\n{}", broken.join("\n"));
}

#[test]
fn a_key_written_a_second_time_or_derived_again_is_caught() {
    let table = "static FIELDS: &[Spec] = &[\n    field(STATUS, \"statusCode\", Kind::Count),\n    object(\"headers\", &[]),\n];\n";
    let once = vec![("a.rs".to_string(), table.to_string())];
    assert!(written_twice(&once).is_empty(), "{:?}", written_twice(&once));
    // A match on the key elsewhere, in another file of the layer.
    let elsewhere = "fn f(k: &str) -> bool { k == \"statusCode\" } // \"headers\" in a comment is fine\n";
    let twice = vec![once[0].clone(), ("b.rs".to_string(), elsewhere.to_string())];
    let broken = written_twice(&twice);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(broken[0].contains("a.rs:2, b.rs:1"), "{broken:?}");
    // A serde struct reading the same line.
    let derived = format!("#[derive(Deserialize)]\nstruct Line {{ status: u64 }}\n{table}");
    assert_eq!(written_twice(&[("c.rs".to_string(), derived)]).len(), 1);
    // A test may write the key as often as it likes.
    let tested = format!("{table}#[cfg(test)]\nmod tests {{\n    const K: &str = \"statusCode\";\n}}\n");
    assert!(written_twice(&[("d.rs".to_string(), without_tests(&tested))]).is_empty());
    // Another format's parser may have a key of the same name.
    let other = "impl LineSink for Placements {}\nfn g(k: &str) -> bool { k == \"statusCode\" }\n";
    assert!(written_twice(&[once[0].clone(), ("e.rs".to_string(), other.to_string())]).is_empty());
}
