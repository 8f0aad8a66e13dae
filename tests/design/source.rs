//! Reading Rust sources for the design tests: the code without its comments
//! and with the insides of its string and character literals blanked, so a
//! doc comment naming a module, or a `"{"` in a format string, is not taken
//! for code. Lines are kept (a blanked literal keeps its line breaks), so a
//! line number in the result is the line number in the file.

use std::path::{Path, PathBuf};

/// `text` with comments removed and literals' contents replaced by spaces.
/// Block comments nest, as Rust's do; raw strings (`r#"..."#`), byte strings
/// and escapes are read; a `'` starts a character literal only when one
/// closes it (`'a'`, `'\n'`, `'{'`), else it is a lifetime or label.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // A skipped character: its line break survives.
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_is_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i).filter(|_| !prev_is_ident) {
            // r"..." / r#"..."# / br#"..."#: no escapes, ends at `"` and as many `#`.
            let open = chars[i..].iter().position(|&c| c == '"').map_or(chars.len(), |p| i + p);
            out.extend(&chars[i..=open.min(chars.len() - 1)]);
            i = open + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|h| chars.get(i + h) == Some(&'#')) {
                    out.push('"');
                    out.extend(std::iter::repeat_n('#', hashes));
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() {
                match chars[i] {
                    '\\' => {
                        blank(&mut out, chars[i]);
                        if let Some(&e) = chars.get(i + 1) {
                            blank(&mut out, e);
                        }
                        i += 2;
                    }
                    '"' => {
                        out.push('"');
                        i += 1;
                        break;
                    }
                    other => {
                        blank(&mut out, other);
                        i += 1;
                    }
                }
            }
        } else if c == '\'' && (!prev_is_ident || is_byte_prefix(&chars, i)) {
            match char_literal_len(&chars, i) {
                Some(len) => {
                    out.push_str("' '");
                    i += len;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the `b` before `i` makes a byte literal (`b'{'`), not an identifier's end.
fn is_byte_prefix(chars: &[char], i: usize) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    i >= 1 && chars[i - 1] == 'b' && (i < 2 || !ident(chars[i - 2]))
}

/// How many `#` a raw string starting at `i` has (`r"` is 0), if one does.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// The length of the character literal at `i` (`'x'`, `'\''`, `'\u{7b}'`),
/// or `None` for a lifetime or label.
fn char_literal_len(chars: &[char], i: usize) -> Option<usize> {
    match chars.get(i + 1)? {
        '\\' => {
            let close = chars[i + 2..].iter().take(12).skip(1).position(|&c| c == '\'')?;
            Some(close + 4)
        }
        _ => (chars.get(i + 2) == Some(&'\'')).then_some(3),
    }
}

/// The identifier `s` starts with (after blanks): `model::{self}` gives `model`.
pub fn leading_ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Every `.rs` file under `dir`, sorted, leaving out what is not the
/// project's own (vendored code, node modules, build output).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if !matches!(name, "vendor" | "node_modules" | "target") {
                    walk(&p, out);
                }
            } else if name.ends_with(".rs") {
                out.push(p);
            }
        }
    }
    let mut out = vec![];
    walk(dir, &mut out);
    out
}

#[test]
fn the_source_reader_drops_comments_and_blanks_literals_keeping_lines() {
    let code = code_only(
        "let a = \"{ // not a comment\"; // a comment {\n/* outer /* inner } */ still } */ b('{', '\\'', 'x, b'}');\nr#\"raw \" { \"#; c::<'a>(); br\"}\"\n\"two\nlines {\"",
    );
    assert_eq!(code.lines().count(), 5, "{code}");
    assert!(!code.contains('{') && !code.contains('}'), "{code}");
    assert!(!code.contains("comment"), "{code}");
    assert!(
        code.contains("b(' ', ' ', 'x, b' ')"),
        "a lifetime-like 'x stays: {code}"
    );
    assert!(code.contains("c::<'a>()"), "{code}");
    assert!(code.contains("r#\""), "{code}");
}
