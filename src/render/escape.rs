//! Every string from a run's inputs is hostile: a node, target or file name,
//! a log message or a malformed line may carry markdown, HTML or script.
//! These functions escape it for where it lands.

/// JSON embedded in a `<script>` element, as valid JSON: `<`, `>` and `&`
/// written as `\u003c`, `\u003e`, `\u0026`, so no `</script>` or `<!--` can
/// end or change the element, and U+2028/U+2029 as escapes too. In
/// serde_json's output these characters occur only inside strings, where the
/// escape means the same character.
pub fn script_json(json: &str) -> String {
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
