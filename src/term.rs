//! Text bound for a terminal. Input strings (node names, log lines, file
//! names) can carry ESC and other control characters; printed raw, they set
//! the window title, clear the screen or reorder what the reader sees. Every
//! message perfreport prints goes through [`quote`] (or [`quote_lines`] for
//! text whose newlines are its own layout), so such characters are shown as
//! escapes (`\x1b`, `\u{202e}`) instead of acting.

use std::borrow::Cow;

/// Whether a character must not reach a terminal raw: C0 controls, DEL, C1
/// controls (U+009B is CSI on terminals that honour 8-bit controls), and the
/// bidi marks (LRM, RLM, ALM), embeddings, overrides and isolates, which
/// reorder the text around them.
pub(crate) fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
        c => write!(out, "\\u{{{:x}}}", c as u32),
    };
}

fn quote_where(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One message for a terminal: every unsafe character quoted, newlines too
/// (an input's newline must not fake a line of its own). Backslashes are
/// left alone, so quoting twice changes nothing.
pub fn quote(s: &str) -> Cow<'_, str> {
    quote_where(s, |_| false)
}

/// A multi-line text for a terminal (compare's and gate's reports): the same
/// as [`quote`] but its line breaks are kept.
pub fn quote_lines(s: &str) -> Cow<'_, str> {
    quote_where(s, |c| c == '\n')
}

/// JSON for a terminal. serde_json escapes C0 controls inside strings (the
/// C0 left are the layout's own newlines) but writes DEL, C1 controls and the
/// bidi characters raw; JSON's syntax is ASCII without them, so they can only
/// sit inside strings, where `\uXXXX` is the same value.
pub fn json(s: &str) -> Cow<'_, str> {
    let raw_in_json = |c: char| is_unsafe(c) && c >= '\u{7f}';
    if !s.chars().any(raw_in_json) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if raw_in_json(c) {
            use std::fmt::Write;
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_as_escapes_and_nothing_else_changes() {
        assert_eq!(quote("pytorch é 日本 C:\\x"), "pytorch é 日本 C:\\x");
        assert!(matches!(quote("plain"), Cow::Borrowed(_)));
        assert_eq!(quote("a\x1b]0;pwned\x07b"), "a\\x1b]0;pwned\\x07b");
        assert_eq!(quote("\x1b[2J\r\n\t\x7f"), "\\x1b[2J\\r\\n\\t\\x7f");
        assert_eq!(
            quote("\u{9b}2J \u{202e}gpj.exe\u{2069}"),
            "\\u{9b}2J \\u{202e}gpj.exe\\u{2069}"
        );
        assert_eq!(quote(&quote("a\x1bb")), quote("a\x1bb"), "idempotent");
        assert_eq!(quote_lines("one\x1b\ntwo\r\n"), "one\\x1b\ntwo\\r\n");
    }

    #[test]
    fn json_for_a_terminal_is_the_same_json_value() {
        let value = serde_json::json!({"node": "n\x1b[2J\u{9b}\u{7f}\u{202e}x", "é": [1]});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let quoted = json(&text);
        assert!(!quoted.chars().any(|c| is_unsafe(c) && c != '\n'), "{quoted}");
        assert_eq!(quoted.lines().count(), text.lines().count(), "the layout is kept");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&quoted).unwrap(), value);
    }
}
