//! A fast path for reading a few fields out of one JSON line.
//!
//! serde_json scans and UTF-8-validates every string, most of which the
//! report never uses. This reader handles
//! only the plain case, which is nearly every line a tool writes: no
//! backslash, no control character, valid UTF-8 (checked once per line, not
//! per string), so a string is simply the bytes up to the next quote and can
//! be skipped with one byte search. The line is still validated against the
//! whole JSON grammar as it is walked.
//!
//! Anything outside that case, and anything a caller finds odd (a repeated
//! key, a field of an unexpected type), is a `Bail`: the caller then parses
//! the line with serde_json, which stays the reference. So the fast path
//! never decides that a line is malformed, and never accepts a line serde
//! would refuse; tests run one corpus through both paths and compare.

/// Which parser reads a line. Production always takes `Fast` (which hands
/// over to serde by itself); `SerdeOnly` exists so that tests and a fuzz
/// target can hold the two to identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Fast,
    SerdeOnly,
}

/// Not a line for the fast path: parse it with serde_json instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bail;

pub type Scan<T> = Result<T, Bail>;

use crate::number::Plain;

/// serde_json refuses nesting deeper than 128; well below that we hand over.
const MAX_DEPTH: u32 = 64;

/// A position in a line that may take the fast path.
#[derive(Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
    depth: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `line`, if the line may take the fast path:
    /// no byte below 0x20 (JSON allows none inside strings, and tab or CR
    /// outside them are rare enough to hand over), no backslash (so no
    /// escapes), and valid UTF-8 (checked once here: every string cut from
    /// it at quotes is then whole characters).
    pub fn plain(line: &'a [u8]) -> Option<Self> {
        Self::utf8(line)?.into_plain()
    }

    /// A cursor at the start of a UTF-8 line, not yet known to be plain: for
    /// a shape replay (`json_shape`), which checks every byte of a line
    /// itself on the way. Anything else must first make it `into_plain`.
    pub fn utf8(line: &'a [u8]) -> Option<Self> {
        simdutf8::basic::from_utf8(line).ok().map(Self::text)
    }

    /// `utf8` for a line its caller already holds as text (a chunk of lines
    /// is checked once as a whole, not line by line).
    pub fn text(line: &'a str) -> Self {
        Cursor {
            text: line,
            s: line.as_bytes(),
            i: 0,
            depth: 0,
        }
    }

    /// This cursor if its line is plain (see `plain`).
    pub(crate) fn into_plain(self) -> Option<Self> {
        let line = self.s;
        // Branch-free over 32-byte blocks so the compiler can vectorise it.
        // (A 16-byte SIMD compare through `wide`, two blocks a test, was
        // measured: 1.4% more instructions for the whole zot parse.)
        let mut odd = 0u8;
        let mut blocks = line.chunks_exact(32);
        for block in blocks.by_ref() {
            for &b in block {
                odd |= (b < 0x20) as u8 | (b == b'\\') as u8;
            }
            if odd != 0 {
                return None;
            }
        }
        for &b in blocks.remainder() {
            odd |= (b < 0x20) as u8 | (b == b'\\') as u8;
        }
        if odd != 0 {
            return None;
        }
        Some(self)
    }

    /// The whole line.
    pub fn bytes(&self) -> &'a [u8] {
        self.s
    }

    /// Where the cursor is in the line.
    pub(crate) fn offset(&self) -> usize {
        self.i
    }

    /// Moves the cursor (a shape replay reads values where it found them).
    pub(crate) fn set_offset(&mut self, i: usize) {
        self.i = i;
    }

    /// The text of the string whose quotes are at `start` and `end - 1`, as
    /// found by a shape replay (the same text `string` would give there).
    pub(crate) fn string_at(&self, start: usize, end: usize) -> Scan<&'a str> {
        match (self.s.get(start), end.checked_sub(1).and_then(|e| self.s.get(e))) {
            (Some(b'"'), Some(b'"')) if end >= start + 2 => self.text.get(start + 1..end - 1).ok_or(Bail),
            _ => Err(Bail),
        }
    }

    /// The offset of the first quote at or after `from`.
    #[inline]
    fn next_quote(&self, from: usize) -> Option<usize> {
        // A per-line quote bitmap computed up front was measured slower
        // than finding each quote as it comes.
        super::find::find_byte(self.s.get(from..)?, b'"').map(|n| from + n)
    }

    #[inline]
    fn ws(&mut self) {
        // `plain` leaves space as the only whitespace byte.
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    /// The next byte that is not whitespace, not consumed.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, b: u8) -> Scan<()> {
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// After the top-level value: only whitespace may follow.
    pub(crate) fn end(&mut self) -> Scan<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Bail),
        }
    }

    /// A string value (the cursor is at its opening quote).
    pub(crate) fn string(&mut self) -> Scan<&'a str> {
        if self.peek() != Some(b'"') {
            return Err(Bail);
        }
        let (start, end) = self.pass_string()?;
        // A quote never sits inside a multi-byte character, so this cut is
        // on character boundaries.
        self.text.get(start..end).ok_or(Bail)
    }

    /// Passes over the string whose opening quote is under the cursor and
    /// returns where its text lies; skipped values need nothing more.
    #[inline]
    fn pass_string(&mut self) -> Scan<(usize, usize)> {
        let start = self.i + 1;
        let end = self.next_quote(start).ok_or(Bail)?;
        self.i = end + 1;
        Ok((start, end))
    }

    /// `null`, consumed; false (and nothing consumed) for anything else.
    pub(crate) fn null(&mut self) -> Scan<bool> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// A number's text, checked against JSON's grammar.
    pub(crate) fn number(&mut self) -> Scan<&'a str> {
        self.ws();
        let s = self.s;
        let start = self.i;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while s.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        match s.get(i) {
            // One leading zero only: serde refuses `01`.
            Some(b'0') => {
                i += 1;
                if s.get(i).is_some_and(u8::is_ascii_digit) {
                    return Err(Bail);
                }
            }
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return Err(Bail),
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Err(Bail);
            }
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Err(Bail);
            }
        }
        self.i = i;
        self.text.get(start..i).ok_or(Bail)
    }

    /// A number as `f64`, correctly rounded as serde_json (with
    /// `float_roundtrip`) and Rust's own parser round, so both paths give the
    /// same bits. A value out of range is serde's error to report.
    pub(crate) fn f64(&mut self) -> Scan<f64> {
        self.ws();
        let start = self.i;
        match self.decimal() {
            Some(v) => Ok(v),
            None => {
                self.i = start;
                match self.number()?.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(Bail),
                }
            }
        }
    }

    /// The common number (see `number`) read in one pass; `None` hands
    /// it over to Rust's parser.
    #[inline]
    fn decimal(&mut self) -> Option<f64> {
        let s = self.s.get(self.i..)?;
        let n = Plain::scan(s)?;
        let v = n.value(s)?;
        self.i += n.len();
        Some(v)
    }

    /// A non-negative integer that fits a `u64`, read in one pass (anything
    /// else, such as `200.0`, `-1` or one past `u64::MAX`, is handed over).
    pub(crate) fn u64(&mut self) -> Scan<u64> {
        self.ws();
        let s = self.s;
        let start = self.i;
        let mut i = start;
        let mut v = 0u64;
        while let Some(d) = s.get(i).filter(|d| d.is_ascii_digit()) {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d - b'0')))
                .ok_or(Bail)?;
            i += 1;
        }
        let digits = i - start;
        // No digit, a leading zero (`01`, refused by serde) or a fraction or
        // exponent (not an integer for serde's `as_u64`): serde's to judge.
        if digits == 0 || (digits > 1 && s[start] == b'0') || matches!(s.get(i), Some(b'.' | b'e' | b'E')) {
            return Err(Bail);
        }
        self.i = i;
        Ok(v)
    }

    /// Walks an object, calling `member` with each key; `member` must consume
    /// the value (with `skip` if it does not want it).
    pub(crate) fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Scan<()>) -> Scan<()> {
        self.items(b'{', b'}', |c, _| {
            if c.peek() != Some(b'"') {
                return Err(Bail);
            }
            let (start, end) = c.pass_string()?;
            let key = c.text.get(start..end).ok_or(Bail)?;
            c.eat(b':')?;
            member(c, key)
        })
    }

    /// Walks an array, calling `element` with its index; `element` must consume the value.
    pub(crate) fn array(&mut self, element: impl FnMut(&mut Self, usize) -> Scan<()>) -> Scan<()> {
        self.items(b'[', b']', element)
    }

    /// The comma-separated items between `open` and `close`, each read by `item`.
    fn items(&mut self, open: u8, close: u8, mut item: impl FnMut(&mut Self, usize) -> Scan<()>) -> Scan<()> {
        self.eat(open)?;
        self.enter()?;
        let mut n = 0;
        if self.peek() != Some(close) {
            loop {
                item(self, n)?;
                n += 1;
                match self.peek() {
                    Some(b',') => self.i += 1,
                    Some(b) if b == close => break,
                    _ => return Err(Bail),
                }
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(())
    }

    fn enter(&mut self) -> Scan<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(Bail)
        } else {
            Ok(())
        }
    }

    /// Validates and passes over any value.
    pub(crate) fn skip(&mut self) -> Scan<()> {
        match self.peek().ok_or(Bail)? {
            b'"' => self.pass_string().map(drop),
            b'{' => self.object(|c, _| c.skip()),
            b'[' => self.array(|c, _| c.skip()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(drop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the fast path accepts the line as a whole (every value skipped).
    fn accepts(line: &str) -> bool {
        Cursor::plain(line.as_bytes()).is_some_and(|mut c| c.skip().and_then(|_| c.end()).is_ok())
    }

    #[test]
    fn the_fast_path_never_accepts_what_serde_refuses() {
        let lines = [
            r#"{"a":1}"#,
            r#" {"a" : [1, 2.5, -3e+2, true, false, null, {"b":{}}, []] } "#,
            r#"{"a":"µs"}"#,
            r#"{"a":01}"#,
            r#"{"a":-}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e}"#,
            r#"{"a":+1}"#,
            r#"{"a":1,}"#,
            r#"{"a":[1,]}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":nul}"#,
            r#"{"a":truex}"#,
            r#"{"a":1} x"#,
            r#"{"a":1}{}"#,
            r#"{"a":"unterminated}"#,
            r#"{"a":1"#,
            r#"{"a":1e999}"#,
            r#"[1,2]"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":"\u0041"}"#,
        ];
        for line in lines {
            let serde_ok = serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok();
            if accepts(line) {
                assert!(serde_ok, "fast path accepted what serde refuses: {line}");
            }
        }
        assert!(accepts(lines[0]) && accepts(lines[1]) && accepts(lines[2]));
        // Escapes and tabs are handed over, not refused.
        assert!(!accepts(lines[21]) && !accepts(lines[22]));
    }

    #[test]
    fn a_control_byte_or_backslash_anywhere_hands_the_line_over() {
        // Around the 32-byte blocks and the tail.
        for len in 1..80 {
            for at in 0..len {
                for odd in [0x00, 0x09, 0x1f, b'\\', b' ', b'~', 0x7f] {
                    let mut line = vec![b'a'; len];
                    line[at] = odd;
                    let handed_over = odd < 0x20 || odd == b'\\';
                    assert_eq!(
                        Cursor::plain(&line).is_none(),
                        handed_over,
                        "len {len}, {odd:#x} at {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn invalid_utf8_and_deep_nesting_are_handed_over() {
        assert!(Cursor::plain(b"{\"a\":\"\xff\"}").is_none());
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(!accepts(&deep));
    }

    #[test]
    fn strings_of_every_length_are_read_whole() {
        // Around the byte search's 16-byte blocks and word tail (find.rs tests
        // the search itself at every offset).
        for len in 0..80 {
            let text = "é".repeat(len / 2) + &"a".repeat(len % 2);
            let line = format!("{{\"k\":\"{text}\",\"n\":1}}");
            let mut got = None;
            let mut c = Cursor::plain(line.as_bytes()).unwrap();
            c.object(|c, key| {
                if key == "k" {
                    got = Some(c.string()?);
                    Ok(())
                } else {
                    c.skip()
                }
            })
            .unwrap();
            assert_eq!(got, Some(text.as_str()), "{len}");
        }
    }

    #[test]
    fn numbers_read_as_serde_reads_them() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "12.4",
            "137438953472",
            "990060.3",
            "1792461605.5",
            "-0.0",
            "1e-7",
            "5e300",
            "0.1",
            "0.3",
            "123456789012345",
            "1234567890123456",
            "0.0000000000000000000001",
            "0.00000000000000000000001",
            "9007199254740993",
            "2.2250738585072011e-308",
            "1.7976931348623157e308",
        ]
        .map(String::from)
        .to_vec();
        // Numbers shaped as node_exporter and the generator print them.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let places = (x % 10) as usize;
            let whole = (x >> 8) % 10u64.pow((x >> 40) as u32 % 16);
            let frac = (x >> 20) % 10u64.pow(places as u32);
            texts.push(if places == 0 {
                format!("{whole}")
            } else {
                format!("{whole}.{frac:0places$}")
            });
        }
        for text in &texts {
            let mut c = Cursor::plain(text.as_bytes()).unwrap();
            let serde: f64 = serde_json::from_str(text).unwrap();
            assert_eq!(c.peek(), text.bytes().next());
            assert_eq!(c.f64().unwrap().to_bits(), serde.to_bits(), "{text}");
        }
        let u64_of = |t: &[u8]| Cursor::plain(t).unwrap().u64();
        assert_eq!(u64_of(b"18446744073709551616"), Err(Bail));
        assert_eq!(u64_of(b"2.0"), Err(Bail));
        assert_eq!(u64_of(b"201"), Ok(201));
        assert_eq!(u64_of(b"0"), Ok(0));
        assert_eq!(u64_of(b"18446744073709551615"), Ok(u64::MAX));
        for handed_over in [&b"01"[..], b"-1", b"1e3", b"1E3", b"", b"x"] {
            assert_eq!(
                u64_of(handed_over),
                Err(Bail),
                "{}",
                String::from_utf8_lossy(handed_over)
            );
        }
    }
}
