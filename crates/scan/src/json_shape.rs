//! Replaying the shape of earlier lines: a log writes the same keys in the
//! same order on nearly every line, so a line's text between its values is
//! mostly a copy of an earlier line's.
//!
//! Walking a line's structure (each key found, cut and matched, each colon
//! and comma peeked at) is most of the walk's (`json_scan`) cost; checking
//! a line against a known shape is not. A `Shape` is what is left of a line when
//! its values are cut out: the literal text between them (keys, colons,
//! commas, brackets, spacing) and, for each value, its kind and which field
//! it is. A new line fits a shape when each literal matches byte for byte and
//! each value is a well-formed value of its kind; only those checks are made.
//!
//! Why that is as strict as the walk: a shape is learnt only from a line the
//! walk accepted (plain, valid JSON, every field of the type the parser
//! wants, no repeated field), and a fitting line differs from it only inside
//! values of the same kind, each checked here: a string ends at a quote with
//! no control byte before it and only valid escapes (none in a field's), a
//! number passes JSON's grammar. With the line's UTF-8 checked up front, a
//! fitting line is valid JSON with the same keys at the same places, and the
//! fields read from it are plain. The caller then reads each
//! field with the same `Cursor` calls its walk uses, and anything they refuse
//! sends the line back to the walk, which stays the judge (and serde behind
//! it). Tests and the `fast_json` fuzz target hold all three paths to
//! identical results.

use crate::find::find_string_end;
use crate::json_scan::{Bail, Cursor, Scan};
use crate::number::Plain;
use wide::u8x16;

use crate::fields::Field;

/// Literals up to this long are compared in registers.
const HEAD: usize = 32;
/// How many segments the shapes of one parser hold at most, all shapes
/// together (a registry line has some 30): room for a few hundred shapes,
/// as a registry shared by clients that each send their own headers needs.
const MAX_NODES: usize = 8192;
/// How many more lines than fitted may miss while no shape can be learnt
/// before the parser rests.
const GIVE_UP_AFTER: u64 = 64;
/// How many lines a resting parser leaves to the walk before it forgets its
/// shapes and learns anew (the log may have changed, or every line has a
/// shape of its own and learning does not pay).
const REST_LINES: u64 = 4096;

/// Where a value sits on the way from the top of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Number,
    /// `true`, `false` or `null`, kept as literal text unless it is a field.
    Word,
}

#[derive(Debug, Clone)]
struct Segment {
    /// The literal text before the value, as a range of `Shapes::text`.
    literal: std::ops::Range<usize>,
    /// Its first 32 bytes (zero-padded) and which of them count: nearly
    /// every literal is a key with its quotes, colon and comma, compared
    /// 16 bytes at a time instead of by a `memcmp` call each.
    head: [u8; HEAD],
    head_mask: u32,
    /// The value after it; `None` on the last segment (the line's end).
    value: Option<(Kind, Option<Field>)>,
}

/// A literal of a line being learnt, as a range of it, and the value after it.
type Cut = (std::ops::Range<usize>, Option<(Kind, Option<Field>)>);

/// No node: the root is never anybody's child.
const NONE: u32 = 0;

/// One segment of the tree of shapes, and the segments that have followed it.
#[derive(Debug, Clone)]
struct Node {
    segment: Segment,
    /// The segment that followed this one last (`NONE` before any): most
    /// nodes have one, read without a second indirection.
    first: u32,
    /// The others that have followed it.
    more: Vec<u32>,
}

/// One field's value in a line: the field and where its text lies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value {
    pub(crate) field: Field,
    pub start: usize,
    pub end: usize,
    /// A number's value, where the replay could read it exactly on its
    /// way (see `number`); else the caller reads the text.
    pub number: Option<f64>,
}

/// The shapes one parser has learnt, as a tree: lines that share their
/// first segments share those nodes, so a line that differs from a known
/// shape only late (another header set, another count of `Accept` values)
/// is told apart where it differs, at the cost of a compare per sibling
/// there, not of a whole line per shape. Every path from the root to a
/// line's end is the shape of one line the walk accepted.
///
/// A cache, not data: it never changes what a line gives (tests and the
/// `fast_json` fuzz target hold that), so a worker may keep one from chunk to chunk.
#[derive(Debug, Clone, Default)]
pub struct Shapes {
    /// `nodes[0]` is the root: its segment is unused.
    nodes: Vec<Node>,
    text: Vec<u8>,
    /// The fields of the last line replayed (kept to spare an allocation a line).
    values: Vec<Value>,
    replayed: u64,
    missed: u64,
    /// Lines left to the walk before learning anew; 0 when replaying.
    resting: u64,
}

impl PartialEq for Shapes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Shapes {
    /// The fields of `c`'s line, in line order, if it fits a known shape.
    /// `c` must be fresh from `Cursor::utf8` (or `plain`): every byte of a
    /// fitting line is either literal text of a shape learnt from a plain
    /// line or a value checked here, and every field's value is plain.
    pub fn replay(&mut self, c: &Cursor<'_>) -> Option<&[Value]> {
        if self.resting > 0 {
            self.resting -= 1;
            if self.resting == 0 {
                *self = Shapes::default();
            }
            return None;
        }
        if self.nodes.is_empty() {
            return None;
        }
        self.values.clear();
        if self.descend(c) {
            self.replayed += 1;
            return Some(&self.values);
        }
        self.missed += 1;
        // A parser that can learn no more and mostly misses rests: the
        // walk's cost is then the ceiling.
        if self.nodes.len() >= MAX_NODES && self.missed > self.replayed + GIVE_UP_AFTER {
            self.resting = REST_LINES;
        }
        None
    }

    /// Follows the line down the tree, one segment at a time: at each node
    /// the first child whose literal and value fit. Greedy: a line that a
    /// first fitting child leads astray goes to the walk, which is correct.
    fn descend(&mut self, c: &Cursor<'_>) -> bool {
        let Shapes {
            nodes, text, values, ..
        } = self;
        let s = c.bytes();
        let mut at = 0;
        let mut i = 0;
        loop {
            // Most nodes have one child: tried first, without a look at the others.
            let first = nodes[at].first as usize;
            // `NONE` is the root: no node's child, so the end of the list.
            if first == NONE as usize {
                return false;
            }
            let (child, next) = match nodes.get(first).and_then(|n| fits(&n.segment, text, s, i, c, values)) {
                Some(next) => (first, next),
                None => match other_child(nodes, at, text, s, i, c, values) {
                    Some(found) => found,
                    None => return false,
                },
            };
            match next {
                Some(next) => (i, at) = (next, child),
                None => return true,
            }
        }
    }

    /// How many lines fitted a known shape.
    pub fn replayed(&self) -> u64 {
        self.replayed
    }

    /// Learns the shape of `c`'s line, which the caller's walk has just
    /// accepted; `field_of` names the values the caller reads.
    pub fn learn(&mut self, c: &Cursor<'_>, field_of: impl Fn(&[Step<'_>]) -> Option<Field>) {
        if self.resting > 0 || self.nodes.len() >= MAX_NODES {
            return;
        }
        let mut c = c.clone();
        let mut b = Builder {
            line: c.bytes(),
            segments: Vec::new(),
            last: 0,
        };
        let mut path = Vec::new();
        if learn_value(&mut c, &mut path, &mut b, &field_of).is_err() || c.end().is_err() {
            return;
        }
        let line = b.line;
        b.literal(b.last..line.len(), None);
        if self.nodes.is_empty() {
            self.nodes.push(Node {
                segment: Segment {
                    literal: 0..0,
                    head: [0; HEAD],
                    head_mask: 0,
                    value: None,
                },
                first: NONE,
                more: Vec::new(),
            });
        }
        self.insert(line, b.segments);
    }

    /// Adds a shape's segments under the root, sharing the nodes of the
    /// segments it has in common with a known shape.
    fn insert(&mut self, line: &[u8], segments: Vec<Cut>) {
        let mut at = 0;
        for (range, value) in segments {
            let literal = &line[range];
            let node = &self.nodes[at];
            let same = std::iter::once(node.first)
                .chain(node.more.iter().copied())
                .filter(|&child| child != NONE)
                .find(|&child| {
                    let seg = &self.nodes[child as usize].segment;
                    seg.value == value && &self.text[seg.literal.clone()] == literal
                });
            at = match same {
                Some(child) => child as usize,
                None => {
                    if self.nodes.len() >= MAX_NODES {
                        return;
                    }
                    let from = self.text.len();
                    self.text.extend_from_slice(literal);
                    let mut head = [0u8; HEAD];
                    let n = literal.len().min(HEAD);
                    head[..n].copy_from_slice(&literal[..n]);
                    let node = self.nodes.len();
                    self.nodes.push(Node {
                        segment: Segment {
                            literal: from..self.text.len(),
                            head,
                            head_mask: (1u64 << n).wrapping_sub(1) as u32,
                            value,
                        },
                        first: NONE,
                        more: Vec::new(),
                    });
                    let parent = &mut self.nodes[at];
                    let before = std::mem::replace(&mut parent.first, node as u32);
                    if before != NONE {
                        parent.more.push(before);
                    }
                    node
                }
            };
        }
    }
}

/// The child of `nodes[at]` other than its first whose segment the line
/// fits from `i`, moved first (a log alternates between few shapes), and
/// where the line continues after it (see `fits`).
#[inline(never)]
fn other_child(
    nodes: &mut [Node],
    at: usize,
    text: &[u8],
    s: &[u8],
    i: usize,
    c: &Cursor<'_>,
    values: &mut Vec<Value>,
) -> Option<(usize, Option<usize>)> {
    let (k, child, next) = nodes[at].more.iter().enumerate().find_map(|(k, &child)| {
        let next = fits(&nodes.get(child as usize)?.segment, text, s, i, c, values)?;
        Some((k, child, next))
    })?;
    let node = &mut nodes[at];
    std::mem::swap(&mut node.first, &mut node.more[k]);
    Some((child as usize, next))
}

/// Whether, from `i`, the line under `s` fits `segment`: its literal byte
/// for byte, then a well-formed value of its kind (a field's goes to
/// `values`). Where the line continues, or `None` inside it when the
/// segment is the last and the line ends there.
#[inline(always)]
fn fits(
    segment: &Segment,
    text: &[u8],
    s: &[u8],
    i: usize,
    c: &Cursor<'_>,
    values: &mut Vec<Value>,
) -> Option<Option<usize>> {
    let rest = s.get(i..)?;
    if !literal_fits(segment, text, rest) {
        return None;
    }
    let start = i + segment.literal.len();
    let Some((kind, field)) = segment.value else {
        return (start == s.len()).then_some(None);
    };
    let (end, number) = match kind {
        Kind::Number => number_end(s, start, c, field.is_some())?,
        Kind::String => (string_end(s, start, field.is_none())?, None),
        Kind::Word => (word_end(s, start)?, None),
    };
    if let Some(field) = field {
        values.push(Value {
            field,
            start,
            end,
            number,
        });
    }
    Some(Some(end))
}

/// Whether `rest` starts with the segment's literal: up to 32 bytes by
/// its head in registers, 16 bytes a compare, where the line has them.
#[inline(always)]
fn literal_fits(segment: &Segment, text: &[u8], rest: &[u8]) -> bool {
    let head = segment.head.as_chunks::<16>().0;
    let same = |block: &[u8; 16], n: usize| u8x16::from(*block).simd_eq(u8x16::from(head[n])).to_bitmask();
    let len = segment.literal.len();
    if len <= 16 {
        if let Some(block) = rest.first_chunk::<16>() {
            return same(block, 0) & segment.head_mask == segment.head_mask;
        }
    } else if len <= HEAD {
        if let Some((a, b)) = rest.first_chunk::<32>().map(|b| b.split_at(16)) {
            let (a, b) = (a.first_chunk::<16>(), b.first_chunk::<16>());
            if let (Some(a), Some(b)) = (a, b) {
                return (same(a, 0) | same(b, 1) << 16) & segment.head_mask == segment.head_mask;
            }
        }
    }
    text.get(segment.literal.clone()).is_some_and(|l| rest.starts_with(l))
}

/// Where the number at `s[i..]` ends, and its value if `read` and the
/// fast path has it. Most numbers in a log are plain, checked (and read)
/// in one pass; anything else (an exponent, or a refusal) is the full
/// grammar's to judge.
#[inline(always)]
fn number_end(s: &[u8], i: usize, c: &Cursor<'_>, read: bool) -> Option<(usize, Option<f64>)> {
    let rest = s.get(i..)?;
    match Plain::scan(rest) {
        Some(n) => Some((i + n.len(), if read { n.value(rest) } else { None })),
        None => full_number_end(i, c).map(|end| (end, None)),
    }
}

#[inline(never)]
fn full_number_end(i: usize, c: &Cursor<'_>) -> Option<usize> {
    let mut c = c.clone();
    c.set_offset(i);
    c.number().ok()?;
    Some(c.offset())
}

/// Where the string at `s[i..]` ends. The line was only checked to be
/// UTF-8: a string here ends at a quote with no control byte before it. A
/// string nobody reads may hold escapes (docker's user agent does), each
/// checked as serde checks one it skips; a field's string must be plain.
#[inline(always)]
fn string_end(s: &[u8], i: usize, escapes: bool) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let end = i + 1 + find_string_end(s.get(i + 1..)?)?;
    if s[end] == b'"' {
        return Some(end + 1);
    }
    escaped_string_end(s, end, escapes)
}

/// `string_end` from the first byte other than a quote that may end a
/// plain string's text.
#[inline(never)]
fn escaped_string_end(s: &[u8], mut end: usize, escapes: bool) -> Option<usize> {
    loop {
        match s[end] {
            b'"' => return Some(end + 1),
            b'\\' if escapes => {
                let j = end + 1 + escape_len(s.get(end + 1..)?)?;
                end = j + find_string_end(s.get(j..)?)?;
            }
            _ => return None,
        }
    }
}

/// Where the `true`, `false` or `null` at `s[i..]` ends.
#[inline]
fn word_end(s: &[u8], i: usize) -> Option<usize> {
    let word: &[u8] = match s.get(i)? {
        b't' => b"true",
        b'f' => b"false",
        b'n' => b"null",
        _ => return None,
    };
    s[i..].starts_with(word).then_some(i + word.len())
}

/// The length of a valid escape after its backslash: `\"`, `\\`, `\/`,
/// `\b`, `\f`, `\n`, `\r`, `\t`, or `\u` and four hex digits (which
/// serde does not check further in a string it skips).
fn escape_len(s: &[u8]) -> Option<usize> {
    match s.first()? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(1),
        b'u' => s.get(1..5)?.iter().all(u8::is_ascii_hexdigit).then_some(5),
        _ => None,
    }
}

struct Builder<'a> {
    line: &'a [u8],
    /// Each literal as a range of the line, with the value after it.
    segments: Vec<Cut>,
    /// Where the literal in progress began.
    last: usize,
}

impl Builder<'_> {
    fn value(&mut self, start: usize, end: usize, kind: Kind, field: Option<Field>) {
        self.literal(self.last..start, Some((kind, field)));
        self.last = end;
    }

    /// Ends a literal at `text` of the line, followed by `value`.
    fn literal(&mut self, text: std::ops::Range<usize>, value: Option<(Kind, Option<Field>)>) {
        self.segments.push((text, value));
    }
}

fn learn_value<'a>(
    c: &mut Cursor<'a>,
    path: &mut Vec<Step<'a>>,
    b: &mut Builder<'_>,
    field_of: &impl Fn(&[Step<'_>]) -> Option<Field>,
) -> Scan<()> {
    let first = c.peek().ok_or(Bail)?;
    let start = c.offset();
    let kind = match first {
        b'{' => return c.object(|c, key| learn_under(c, Step::Key(key), path, b, field_of)),
        b'[' => return c.array(|c, n| learn_under(c, Step::Index(n), path, b, field_of)),
        b'"' => Kind::String,
        b't' | b'f' | b'n' => Kind::Word,
        _ => Kind::Number,
    };
    c.skip()?;
    let field = field_of(path);
    if kind != Kind::Word || field.is_some() {
        b.value(start, c.offset(), kind, field);
    }
    Ok(())
}

/// `learn_value` one step down the path.
fn learn_under<'a>(
    c: &mut Cursor<'a>,
    step: Step<'a>,
    path: &mut Vec<Step<'a>>,
    b: &mut Builder<'_>,
    field_of: &impl Fn(&[Step<'_>]) -> Option<Field>,
) -> Scan<()> {
    path.push(step);
    let learnt = learn_value(c, path, b, field_of);
    path.pop();
    learnt
}

/// Each value (and key) of `line` replaced in turn by each of `odd`:
/// lines that keep its shape but for one place, for a shape replay.
#[cfg(any(test, feature = "test-support"))]
pub fn with_each_value_replaced(line: &str, odd: &[&str]) -> Vec<String> {
    let b = line.as_bytes();
    let mut values = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // A value starts after `:`, `[` or `,` (outside strings, which
        // these lines keep free of those bytes) and ends at its closing
        // quote or at the first byte that cannot be part of a number.
        if matches!(b[i], b':' | b'[' | b',') && i + 1 < b.len() {
            let start = i + 1 + b[i + 1..].iter().take_while(|&&c| c == b' ').count();
            let end = match b[start] {
                b'"' => b[start + 1..].iter().position(|&c| c == b'"').map(|n| start + n + 2),
                b'-' | b'0'..=b'9' => Some(
                    start
                        + b[start..]
                            .iter()
                            .take_while(|c| c.is_ascii_digit() || b".eE+-".contains(c))
                            .count(),
                ),
                _ => None,
            };
            if let Some(end) = end {
                values.push((start, end));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    let mut out = Vec::new();
    for (start, end) in values {
        for replacement in odd {
            out.push(format!("{}{replacement}{}", &line[..start], &line[end..]));
        }
    }
    out
}

/// Values a replay must judge as the walk and serde do, for tests.
#[cfg(any(test, feature = "test-support"))]
pub const ODD_VALUES: &[&str] = &[
    "\"a\tb\"",
    "\"\u{1}\"",
    r#""""#,
    r#""x""#,
    r#""é µ""#,
    r#""a\"b""#,
    r#""\u0041""#,
    "0",
    "7",
    "01",
    "-1",
    "-0",
    "2.5",
    "1e3",
    "200.0",
    "18446744073709551615",
    "18446744073709551616",
    // Around the number fast path's limits (`number`): 2^53 and one past,
    // digits that fill its 16-byte block, a fraction past it.
    "9007199254740992",
    "9007199254740993",
    "-884649.1",
    "123456789012345.6",
    "1234567890123456",
    "0.000001",
    "1.0000000000000000000001",
    "1e999",
    "null",
    "true",
    "[]",
    r#"["1"]"#,
    "{}",
    r#""unterminated"#,
];

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: Field = 1;
    const SIZE: Field = 2;
    const FIRST_TAG: Field = 3;
    const FLAG: Field = 4;

    fn field_of(path: &[Step<'_>]) -> Option<Field> {
        match path {
            [Step::Key("name")] => Some(NAME),
            [Step::Key("size")] => Some(SIZE),
            [Step::Key("tags"), Step::Index(0)] => Some(FIRST_TAG),
            [Step::Key("flag")] => Some(FLAG),
            _ => None,
        }
    }

    fn learnt(line: &str) -> Shapes {
        let mut shapes = Shapes::default();
        shapes.learn(&Cursor::plain(line.as_bytes()).unwrap(), field_of);
        shapes
    }

    fn replay<'a>(shapes: &mut Shapes, line: &'a str) -> Option<Vec<(Field, &'a str)>> {
        let values = shapes.replay(&Cursor::plain(line.as_bytes()).unwrap())?;
        Some(values.iter().map(|v| (v.field, &line[v.start..v.end])).collect())
    }

    #[test]
    fn a_line_of_the_same_shape_gives_its_own_values() {
        let mut shapes = learnt(r#"{"name": "a", "n": 1, "size": 10, "tags": ["x", "y"], "flag": null, "ok": true}"#);
        let got = replay(
            &mut shapes,
            r#"{"name": "bé", "n": -2.5e3, "size": 7, "tags": ["zz", ""], "flag": false, "ok": true}"#,
        );
        assert_eq!(
            got,
            Some(vec![
                (NAME, r#""bé""#),
                (SIZE, "7"),
                (FIRST_TAG, r#""zz""#),
                (FLAG, "false")
            ])
        );
    }

    /// The replay reads a number field's value as it checks it (`number`):
    /// that value must have serde's bits, or be left to the caller.
    #[test]
    fn a_number_read_on_the_way_has_the_bits_serde_gives_its_text() {
        let shape = r#"{"name": "a", "size": 884649.1, "tags": ["x"], "flag": null}"#;
        let mut shapes = learnt(shape);
        let mut read = 0;
        for line in with_each_value_replaced(shape, ODD_VALUES) {
            let c = Cursor::utf8(line.as_bytes()).unwrap();
            let Some(values) = shapes.replay(&c) else {
                continue;
            };
            for v in values.iter().filter(|v| v.field == SIZE) {
                let text = &line[v.start..v.end];
                if let Some(x) = v.number {
                    let serde: f64 = serde_json::from_str(text).unwrap();
                    assert_eq!(x.to_bits(), serde.to_bits(), "{text}");
                    read += 1;
                } else {
                    // Only what the fast path cannot read exactly is left.
                    assert!(text.contains(['e', 'E']) || text.len() >= 16, "{text} left unread");
                }
            }
        }
        assert!(read >= 8, "{read} numbers read on the way");
    }

    #[test]
    fn any_difference_outside_the_values_does_not_fit() {
        let mut shapes = learnt(r#"{"name":"a","n":1,"tags":["x"],"ok":true}"#);
        for other in [
            r#"{"name":"a","n":1,"tags":["x"],"ok":false}"#,
            r#"{"name":"a","n":1,"tags":["x","y"],"ok":true}"#,
            r#"{"name":"a", "n":1,"tags":["x"],"ok":true}"#,
            r#"{"nam":"a","n":1,"tags":["x"],"ok":true}"#,
            r#"{"name":"a","n":"1","tags":["x"],"ok":true}"#,
            r#"{"name":1,"n":1,"tags":["x"],"ok":true}"#,
            r#"{"name":"a","n":01,"tags":["x"],"ok":true}"#,
            r#"{"name":"a","n":1.,"tags":["x"],"ok":true}"#,
            r#"{"name":"a","n":1,"tags":["x"],"ok":true} "#,
            r#"{"name":"a","n":1,"tags":["x"],"ok":true"#,
            r#"{"name":"a","n":1,"tags":["x"],"ok":true}}"#,
        ] {
            assert_eq!(replay(&mut shapes, other), None, "{other}");
        }
        assert!(replay(&mut shapes, r#"{"name":"","n":0,"tags":["x"],"ok":true}"#).is_some());
    }

    #[test]
    fn a_literal_of_any_length_must_match_at_every_byte() {
        // Literals shorter and longer than the 16- and 32-byte compares,
        // near the end of the line and far from it.
        for len in 1..40 {
            for pad in ["", r#","pad":"0123456789012345678901234567890123456789""#] {
                let line = |key: &str| format!(r#"{{"{key}":1{pad}}}"#);
                let key = "k".repeat(len);
                let mut shapes = learnt(&line(&key));
                assert!(replay(&mut shapes, &line(&key)).is_some(), "{len}");
                for at in 0..len {
                    let mut other = key.clone().into_bytes();
                    other[at] = b'j';
                    let other = line(std::str::from_utf8(&other).unwrap());
                    assert_eq!(replay(&mut shapes, &other), None, "{other}");
                }
            }
        }
    }

    #[test]
    fn a_string_with_an_escape_or_control_byte_does_not_fit() {
        // Replay reads lines only checked to be UTF-8: it must refuse what
        // `plain` would have refused, wherever in a string it sits.
        let mut shapes = learnt(r#"{"name":"abc","n":1}"#);
        for odd in [r#"a\"b"#, "a\tb", "\u{1f}", r#"\\"#, "long string of twenty bytes\n"] {
            let line = format!(r#"{{"name":"{odd}","n":1}}"#);
            let c = Cursor::utf8(line.as_bytes()).unwrap();
            assert!(shapes.replay(&c).is_none(), "{line:?}");
        }
        // The odd byte where the closing quote should be, the rest of the
        // line as the shape has it: only the byte itself can refuse it.
        for odd in ['\\', '\t', '\u{1f}', '\u{0}'] {
            let line = format!(r#"{{"name":"abc{odd},"n":1}}"#);
            let c = Cursor::utf8(line.as_bytes()).unwrap();
            assert!(shapes.replay(&c).is_none(), "{line:?}");
        }
    }

    /// Found by docker clients: their user agent ends `\\(linux\\)`, and
    /// every such registry line went to serde.
    #[test]
    fn an_escape_in_a_string_nobody_reads_fits_and_a_bad_one_does_not() {
        let mut shapes = learnt(r#"{"name":"a","agent":"docker/27.3.1","size":1}"#);
        for agent in [
            r#"UpstreamClient(Docker-Client/27.3.1 \\(linux\\))"#,
            r#"caf\u00e9 \"x\" \/ \t"#,
            r#"\\"#,
        ] {
            let line = format!(r#"{{"name":"b","agent":"{agent}","size":2}}"#);
            let c = Cursor::utf8(line.as_bytes()).unwrap();
            let fields: Option<Vec<_>> = shapes
                .replay(&c)
                .map(|v| v.iter().map(|v| &line[v.start..v.end]).collect());
            assert_eq!(fields, Some(vec![r#""b""#, "2"]), "{line}");
            assert!(serde_json::from_str::<serde::de::IgnoredAny>(&line).is_ok());
        }
        for agent in [r#"\x"#, r#"\u00g9"#, r#"\u00"#, r#"ends in \"#] {
            let line = format!(r#"{{"name":"b","agent":"{agent}","size":2}}"#);
            let c = Cursor::utf8(line.as_bytes()).unwrap();
            assert!(shapes.replay(&c).is_none(), "{line}");
            assert!(serde_json::from_str::<serde::de::IgnoredAny>(&line).is_err(), "{line}");
        }
    }

    #[test]
    fn shapes_learnt_one_after_another_all_fit_later() {
        let mut shapes = learnt(r#"{"name":"a"}"#);
        shapes.learn(&Cursor::plain(br#"{"size":1}"#).unwrap(), field_of);
        assert_eq!(replay(&mut shapes, r#"{"name":"b"}"#), Some(vec![(NAME, r#""b""#)]));
        assert_eq!(replay(&mut shapes, r#"{"size":2}"#), Some(vec![(SIZE, "2")]));
        assert_eq!(replay(&mut shapes, r#"{"name":"c"}"#), Some(vec![(NAME, r#""c""#)]));
    }

    /// Found by a registry log whose clients each send their own header set:
    /// with whole shapes kept apart, a line was compared nearly to its end
    /// against each of 8 shapes, and most lines still missed.
    #[test]
    fn lines_that_differ_only_late_share_their_first_segments_and_all_fit() {
        let line = |set: usize, v: &str| {
            let headers: Vec<String> = (0..4)
                .map(|h| format!(r#""H{}":["{v}"]"#, (set + h * 7) % 32))
                .collect();
            format!(r#"{{"name":"{v}","size":1,"headers":{{{}}}}}"#, headers.join(","))
        };
        let mut shapes = Shapes::default();
        for set in 0..128 {
            shapes.learn(&Cursor::plain(line(set, "x").as_bytes()).unwrap(), field_of);
        }
        // The two segments before the headers are held once, not 128 times.
        let root = &shapes.nodes[0];
        assert!(root.first != NONE && root.more.is_empty());
        for set in (0..128).rev() {
            let l = line(set, "yy");
            assert_eq!(
                replay(&mut shapes, &l),
                Some(vec![(NAME, r#""yy""#), (SIZE, "1")]),
                "{l}"
            );
        }
        assert_eq!(replay(&mut shapes, &line(0, "z").replace("H0", "H99")), None);
    }

    /// Siblings at one branch, one of them the line's closing brace, all fit
    /// whatever order they come in; a line that fits none of them does not.
    #[test]
    fn siblings_told_apart_by_their_first_bytes_all_fit_and_a_stranger_does_not() {
        let mut shapes = Shapes::default();
        let line = |k: usize, v: &str| format!(r#"{{"name":"{v}","k{k}":1}}"#);
        for k in 0..10 {
            shapes.learn(&Cursor::plain(line(k, "a").as_bytes()).unwrap(), field_of);
        }
        shapes.learn(&Cursor::plain(br#"{"name":"a"}"#).unwrap(), field_of);
        for k in [3, 9, 0, 3, 7] {
            let l = line(k, "bb");
            assert_eq!(replay(&mut shapes, &l), Some(vec![(NAME, r#""bb""#)]), "{l}");
        }
        assert_eq!(replay(&mut shapes, r#"{"name":"c"}"#), Some(vec![(NAME, r#""c""#)]));
        assert_eq!(replay(&mut shapes, &line(5, "d")), Some(vec![(NAME, r#""d""#)]));
        assert_eq!(replay(&mut shapes, r#"{"name":"a","zz":1}"#), None);
        assert_eq!(replay(&mut shapes, r#"{"name":"a","k1":1,"k2":1}"#), None);
    }

    #[test]
    fn learning_stops_at_a_bounded_number_of_segments() {
        let mut shapes = Shapes::default();
        let mut n = 0;
        while shapes.nodes.len() < MAX_NODES {
            shapes.learn(&Cursor::plain(format!(r#"{{"k{n}":1}}"#).as_bytes()).unwrap(), field_of);
            n += 1;
        }
        shapes.learn(&Cursor::plain(format!(r#"{{"k{n}":1}}"#).as_bytes()).unwrap(), field_of);
        assert_eq!(shapes.nodes.len(), MAX_NODES);
        assert!(
            replay(&mut shapes, r#"{"k0":2}"#).is_some(),
            "the first shapes are kept"
        );
        assert!(
            replay(&mut shapes, &format!(r#"{{"k{n}":2}}"#)).is_none(),
            "none past the bound"
        );
    }

    #[test]
    fn a_full_parser_whose_lines_mostly_miss_rests_then_learns_anew() {
        let mut shapes = Shapes::default();
        let mut n = 0;
        while shapes.nodes.len() < MAX_NODES {
            shapes.learn(&Cursor::plain(format!(r#"{{"k{n}":1}}"#).as_bytes()).unwrap(), field_of);
            n += 1;
        }
        for m in 0..=GIVE_UP_AFTER {
            assert_eq!(replay(&mut shapes, &format!(r#"{{"miss{m}":2}}"#)), None);
        }
        // A line that fits is no longer even tried while it rests...
        assert_eq!(replay(&mut shapes, r#"{"k0":2}"#), None);
        for _ in 1..REST_LINES {
            assert_eq!(replay(&mut shapes, r#"{"k0":2}"#), None);
        }
        // ...and afterwards it starts from nothing, learning the log as it is now.
        assert!(shapes.nodes.is_empty());
        shapes.learn(&Cursor::plain(br#"{"name":"a"}"#).unwrap(), field_of);
        assert!(replay(&mut shapes, r#"{"name":"b"}"#).is_some());
    }
}
