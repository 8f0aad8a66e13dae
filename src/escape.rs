//! Every string from a run's inputs is hostile: a node, target or file name,
//! a log message or a malformed line may carry markdown, HTML or script.
//! These functions escape it for where it lands: markdown text, a markdown
//! code span, JSON inside `<script>`.
//!
//! The markdown rules are checked against pulldown-cmark and cmark-gfm with
//! its autolink, table and tagfilter extensions (`tests/hostile/strings/`).

use std::borrow::Cow;

/// What an empty code span shows: an empty one is not a code span at all.
const EMPTY: &str = "—";

/// Control characters as a visible quote (`\n`, `\t`, `\u{1b}`): a raw
/// newline would end a markdown line and start a block, ESC acts on a
/// terminal, and none of them can be seen. The bidi marks, embeddings,
/// overrides and isolates too (`\u{202e}`, `\u{200f}`): one in a step name
/// would reorder the rest of a history line, on a page or in a terminal.
pub(crate) fn quote_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(crate::term::is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if crate::term::is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text for an XML attribute or element (a JUnit report): control and bidi
/// characters quoted as a terminal shows them (`\x1b`, `\u{202e}`: a CI
/// view must not reorder or hide a name), markup characters as entities.
pub(crate) fn xml(s: &str) -> String {
    let s = crate::term::quote(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The text a reader sees of a markdown sentence perfreport wrote (a
/// regression's why), for where text is plain (JUnit): its escapes undone
/// and code spans' contents shown bare, so `a\_b` reads `a_b`. Any HTML in
/// it stays text; the caller escapes the result for where it lands.
pub(crate) fn md_plain(md: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::with_capacity(md.len());
    for e in Parser::new(md) {
        match e {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    out
}

/// A path segment for a link: every byte but RFC 3986's unreserved ones
/// (`A-Z a-z 0-9 - . _ ~`) percent-encoded, so no folder name can end a
/// markdown link or an attribute, or climb out of `runs/`.
pub fn url_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// SVG (XML) text and attributes: every character XML 1.0 does not allow
/// (the C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF)
/// and the ones it discourages (DEL, the C1 controls) as a visible quote
/// (`\u{1b}`), so an ESC in a name cannot make a chart invalid XML that no
/// viewer draws; the bidi marks, embeddings, overrides and isolates too, as
/// the terminal shows them, so a name cannot reorder a chart's labels. `&`, `<`, `>` and quotes are plotters' to escape, and
/// are left alone: this runs over each whole chart, once (see `charts::svg`).
pub(crate) fn xml_chars(s: &str) -> Cow<'_, str> {
    let bad = |c: char| crate::term::is_unsafe(c) && !matches!(c, '\t' | '\n' | '\r');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for anywhere in a markdown document (paragraph, list item, heading,
/// table cell) that no renderer turns into a block, a link, an image or HTML.
/// A pair of backticks marks a code span, as perfreport's own messages do
/// (``run.json has no `max_jobs` ``): shown as code, which is inert too.
pub(crate) fn md_text(s: &str) -> String {
    let s = quote_controls(s);
    let parts: Vec<&str> = s.split('`').collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 0 {
            plain(part, i == 0, &mut out);
            continue;
        }
        // An odd part sits after a backtick; it is a code span only when
        // another backtick closes it.
        let closed = i + 1 < parts.len();
        match code_span(part).filter(|_| closed) {
            Some(code) => out.push_str(&code),
            None => {
                out.push_str("\\`");
                plain(part, false, &mut out);
                if closed {
                    out.push_str("\\`");
                }
            }
        }
    }
    out
}

/// A name as a code span: nothing inside one is markdown. Where a code span
/// cannot hold it (empty, or a `|`, which would split a table cell even
/// inside a code span) it is escaped text instead.
pub(crate) fn md_code(s: &str) -> String {
    let s = quote_controls(s);
    code_span(&s).unwrap_or_else(|| {
        if s.is_empty() {
            return EMPTY.into();
        }
        // Escaped text, its backticks too: a bare one would pair with a
        // backtick of the next value and take the words between into code.
        let mut out = String::new();
        for (i, part) in s.split('`').enumerate() {
            if i > 0 {
                out.push_str("\\`");
            }
            plain(part, i == 0, &mut out);
        }
        out
    })
}

/// `s` (control characters already quoted) as a code span, or `None`.
fn code_span(s: &str) -> Option<String> {
    if s.is_empty() || s.contains('|') {
        return None;
    }
    // The fence is one backtick longer than the longest run inside.
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // A backtick at an end would merge with the fence; a renderer strips
    // one space from each end when both have one (unless all are spaces),
    // so such content gets one more space each side.
    let spaced = s.starts_with(' ') && s.ends_with(' ') && !s.trim_start_matches(' ').is_empty();
    let pad = if s.starts_with('`') || s.ends_with('`') || spaced {
        " "
    } else {
        ""
    };
    Some(format!("{fence}{pad}{s}{pad}{fence}"))
}

/// Escapes text with no backticks (and no control characters) so it stays
/// text: `at_start` when it may begin a line (or a list item's content),
/// where `-`, `+`, `=`, `1.` and indentation start blocks.
fn plain(s: &str, at_start: bool, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    if at_start {
        // Four spaces after a list marker start a code block: the first
        // space as a character reference is not indentation.
        if bytes.first() == Some(&b' ') {
            out.push_str("&#32;");
            start = 1;
        }
        match bytes.get(start) {
            Some(b'-' | b'+' | b'=') => {
                out.push('\\');
            }
            Some(b'0'..=b'9') => {
                // `1. ` or `1)` at the end starts an ordered list; `10.0.3.12` does not.
                let digits = bytes[start..].iter().take_while(|b| b.is_ascii_digit()).count();
                let marker = matches!(bytes.get(start + digits), Some(b'.' | b')'));
                if marker && matches!(bytes.get(start + digits + 1), None | Some(b' ')) {
                    out.push_str(&s[start..start + digits]);
                    out.push('\\');
                    start += digits;
                }
            }
            _ => {}
        }
    }
    let mut prev = None;
    for (i, c) in s[start..].char_indices() {
        let at = start + i;
        let next = s[at + c.len_utf8()..].chars().next();
        let intraword = || prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric);
        match c {
            // Inside a word `_` can neither open nor close emphasis: `log_format` stays as it is.
            '_' if intraword() => out.push('_'),
            // Inline syntax (escapes, emphasis, strikethrough, links and
            // images, autolinks and HTML, entities, table cells, math) and
            // the block starters that may follow a list marker.
            '\\' | '*' | '_' | '~' | '[' | ']' | '<' | '>' | '&' | '|' | '$' | '#' => {
                out.push('\\');
                out.push(c);
            }
            // cmark-gfm links an e-mail address even with its `@` or dots
            // escaped; an `@` in a code span of its own is not part of one.
            '@' => out.push_str("`@`"),
            // `http://`, `ftp://`: cmark-gfm's URL autolink starts at `:`.
            ':' if s[at + 1..].starts_with('/') => out.push_str("\\:"),
            // `www.` starts cmark-gfm's www autolink.
            '.' if at >= 3 && bytes[at - 3..at].eq_ignore_ascii_case(b"www") => out.push_str("\\."),
            c => out.push(c),
        }
        prev = Some(c);
    }
}

/// JSON embedded in a `<script>` element, as valid JSON: `<`, `>` and `&`
/// written as `\u003c`, `\u003e`, `\u0026`, so no `</script>` or `<!--` can
/// end or change the element, and U+2028/U+2029 as escapes too. In
/// serde_json's output these characters occur only inside strings, where the
/// escape means the same character.
pub(crate) fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by attacking the terminal and history outputs: LRM, RLM and
    /// ALM passed raw to a terminal, and history.md's and history.html's
    /// change-of-level lines (step names as code spans, stamps and targets
    /// as text) kept raw U+202E and U+2066 from step names.
    #[test]
    fn bidi_marks_overrides_and_isolates_are_quoted_on_a_terminal_and_in_history_lines() {
        for c in ['\u{200e}', '\u{200f}', '\u{61c}', '\u{202e}', '\u{2066}', '\u{2069}'] {
            let name = format!("RUN make {c}evil");
            for (place, out) in [
                ("terminal", crate::term::quote(&name).into_owned()),
                ("markdown text", md_text(&name)),
                ("code span", md_code(&name)),
            ] {
                assert!(!out.contains(c), "{place}: raw U+{:04X} in {out:?}", c as u32);
                assert!(out.contains(&format!("\\u{{{:x}}}", c as u32)), "{place}: {out:?}");
            }
        }
    }

    #[test]
    fn a_name_with_a_pipe_and_a_lone_backtick_cannot_open_a_code_span_for_the_next_value() {
        let both = format!("{} {}", md_code("RUN a ` | b"), md_code("RUN `c"));
        assert_eq!(shown(&both), "RUN a ` | b RUN `c", "{both}");
        assert_eq!(structure(&both), Vec::<String>::new(), "{both}");
    }
    use pulldown_cmark::{Event, Options, Parser, Tag};

    /// Every event pulldown-cmark makes of `md` (raw HTML on), as a list of
    /// what is not plain text, paragraphs or code.
    fn structure(md: &str) -> Vec<String> {
        Parser::new_ext(md, Options::ENABLE_TABLES)
            .filter_map(|e| match e {
                Event::Start(Tag::Paragraph) | Event::End(_) | Event::Text(_) | Event::Code(_) => None,
                other => Some(format!("{other:?}")),
            })
            .collect()
    }

    /// The text pulldown-cmark shows for `md`.
    fn shown(md: &str) -> String {
        Parser::new_ext(md, Options::ENABLE_TABLES)
            .filter_map(|e| match e {
                Event::Text(t) | Event::Code(t) => Some(t.to_string()),
                _ => None,
            })
            .collect()
    }

    const HOSTILE: &[&str] = &[
        "<img src=x onerror=alert(1)>",
        "</noscript><script>alert(1)</script>",
        "![x](http://example.com/x.png)",
        "[x](javascript:alert(1))",
        "<http://example.com>",
        "# heading",
        "- item",
        "+ item",
        "1. item",
        "2) item",
        "> quote",
        "    indented",
        "---",
        "===",
        "```",
        "~~~",
        "*em* _em_ **strong** ~~strike~~ a_b_ _c_d é_x_",
        "&lt;script&gt; &amp;",
        "a\\",
        "\\|",
        "[ref]: http://example.com",
        "[ ] task",
        "x\n# heading\n| a | b |\n|---|---|",
        "`code` ``two`` `unclosed",
        "``",
        "` `",
        "$x$",
        "a|b",
        "",
    ];

    #[test]
    fn hostile_text_is_shown_as_written_and_makes_no_markdown_structure() {
        for s in HOSTILE {
            // As a list item and as a table cell: where the report puts text.
            let item = format!("- {}\n", md_text(s));
            assert_eq!(structure(&item).len(), 2, "{s:?} -> {item:?}: {:?}", structure(&item));
            let shown_text = shown(&item);
            assert_eq!(
                shown_text.replace('`', ""),
                quote_controls(s).replace('`', ""),
                "{s:?} -> {item:?}"
            );
            let table = format!("| a |\n|---|\n| {} |\n", md_text(s));
            let reference = structure("| a |\n|---|\n| x |\n");
            assert_eq!(structure(&table), reference, "{s:?} -> {table:?}");
        }
    }

    #[test]
    fn a_name_in_a_code_span_is_shown_as_written() {
        for s in HOSTILE.iter().filter(|s| !s.is_empty()) {
            let md = format!("- {}\n", md_code(s));
            assert_eq!(structure(&md).len(), 2, "{s:?} -> {md:?}");
            assert_eq!(shown(&md), quote_controls(s), "{s:?} -> {md:?}");
        }
        assert_eq!(md_code(""), EMPTY);
        assert_eq!(md_code("a``b"), "```a``b```");
        assert_eq!(md_code("`x"), "`` `x ``");
    }

    #[test]
    fn no_backtick_of_a_value_pairs_with_one_of_the_next() {
        let values = ["a`|b", "`x|", "x|`", "|``|", "`a`b`", "``", "a`b", "`|`", "x``|"];
        for escape in [md_code as fn(&str) -> String, md_text] {
            for a in values {
                for b in values {
                    let md = format!("- {} the template's words {}\n", escape(a), escape(b));
                    let code: Vec<String> = Parser::new_ext(&md, Options::ENABLE_TABLES)
                        .filter_map(|e| match e {
                            Event::Code(t) => Some(t.to_string()),
                            _ => None,
                        })
                        .collect();
                    assert!(
                        code.iter().all(|c| !c.contains("words")),
                        "{a:?}, {b:?} -> {md:?}: {code:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_markdown_sentence_reads_plain_without_its_escapes() {
        for s in HOSTILE.iter().filter(|s| !s.contains('\n')) {
            let q = quote_controls(s);
            // A pair of backticks in text is a code span (as perfreport's own words use them).
            let text = md_text(s);
            assert_eq!(
                md_plain(&text).replace('`', ""),
                q.replace('`', ""),
                "{s:?} -> {text:?}"
            );
            let code = md_code(s);
            let want = if s.is_empty() { EMPTY } else { &q };
            assert_eq!(md_plain(&code), want, "{s:?} -> {code:?}");
        }
        assert_eq!(
            md_plain(&md_text("setup.py bdist_wheel a_b *x*")),
            "setup.py bdist_wheel a_b *x*"
        );
    }

    #[test]
    fn our_own_backticks_stay_code_and_benign_names_stay_as_they_are() {
        assert_eq!(md_text("run.json has no `max_jobs`"), "run.json has no `max_jobs`");
        for s in [
            "triton-wheel",
            "trace-aiter-wheel.json",
            "10.0.3.12",
            "snoc-think",
            "1h03m (72%)",
            "log_format",
        ] {
            assert_eq!(md_text(s), s);
        }
        assert_eq!(md_text("1. x"), "1\\. x");
        assert_eq!(md_text("see http://x and www.y"), "see http\\://x and www\\.y");
        assert_eq!(md_text("a@b.c"), "a`@`b.c");
    }

    #[test]
    fn characters_xml_does_not_allow_are_quoted_and_the_rest_left_to_plotters() {
        assert_eq!(
            xml_chars("a\u{1b}[2J\u{7}b\u{85}\u{fffe}\tc\n<&>"),
            "a\\u{1b}[2J\\u{7}b\\u{85}\\u{fffe}\tc\n<&>"
        );
        assert!(matches!(xml_chars("<text>plain</text>\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_are_quoted_visibly() {
        assert_eq!(
            quote_controls("a\nb\r\t\u{1b}[2J\u{7f}\u{85}"),
            "a\\nb\\r\\t\\u{1b}[2J\\u{7f}\\u{85}"
        );
        assert!(matches!(quote_controls("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_in_a_script_uses_only_json_escapes() {
        let value = serde_json::json!({"w": "</script><!--<script>&\u{2028}\u{2029}"});
        let embedded = script_json(&serde_json::to_string(&value).unwrap());
        for bad in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!embedded.contains(bad), "{embedded}");
        }
        let back: serde_json::Value = serde_json::from_str(&embedded).unwrap();
        assert_eq!(back, value);
    }
}
