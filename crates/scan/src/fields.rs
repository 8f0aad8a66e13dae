//! One JSON field extraction for every JSON line format: a format declares
//! the fields it reads once, in a table (`Spec`s: each key's name, where it
//! sits, what kind of value it holds), and a record that takes each value
//! (`Record::set`); this module reads them out of a line by three paths.
//!
//! 1. **Replay** (`json_shape`): a line that fits the shape of an earlier
//!    line is checked literal by literal, its fields read where the shape
//!    says they are.
//! 2. **Walk** (`json_scan`): a plain line is walked key by key against the
//!    table, and its shape learnt for the next lines.
//! 3. **serde_json**, the judge: anything the first two find odd (an escape,
//!    a repeated key, a value of another type) is read by serde_json, as a
//!    derived `Deserialize` of the same fields would read it (borrowed
//!    strings, `Option`s, a repeated field an error), and its error is the
//!    line's.
//!
//! The first two never decide that a line is malformed and never accept a
//! line serde would refuse; the formats' tests and the `fast_json` fuzz
//! target hold the three to identical results.
//!
//! The learnt shapes are a worker's (`Shapes`, held by whoever parses a run
//! of lines), never shared between threads.

use crate::json_scan::{Bail, Cursor, Scan};
use crate::json_shape::{Shapes, Step, Value};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A format's name for one of its fields (its own small enumeration, below 32).
pub type Field = u8;

/// What a field's value is; every path reads it the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string, or `null` for none.
    Text,
    /// A number, kept when it is a non-negative integer that fits a `u64`
    /// (anything else is none); or `null`.
    Count,
    /// A number, or `null`.
    Number,
    /// A finite number, never negative, never `null`; a repeated key is
    /// read again (the record sums them).
    Counter,
    /// A string or a number (a time as text or as Unix seconds), or `null`.
    TextOrNumber,
    /// The first string of a list (an HTTP header's values), or `null`.
    FirstOfList,
}

/// A field's value as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Got<'a> {
    Null,
    Text(Cow<'a, str>),
    Number(f64),
    Count(u64),
}

impl<'a> Got<'a> {
    pub fn text(self) -> Option<Cow<'a, str>> {
        match self {
            Got::Text(s) => Some(s),
            _ => None,
        }
    }
    pub fn number(self) -> Option<f64> {
        match self {
            Got::Number(x) => Some(x),
            _ => None,
        }
    }
    pub fn count(self) -> Option<u64> {
        match self {
            Got::Count(n) => Some(n),
            _ => None,
        }
    }
}

/// Which key a `Spec` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Key(&'static str),
    /// Any key not named before it at its level.
    Any,
}

#[derive(Debug, Clone, Copy)]
enum Node {
    Leaf(Field, Kind),
    /// An object holding fields (or `null`: none of them).
    Object(&'static [Spec]),
}

/// One key of a format's table: a field, or an object holding fields.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    name: Name,
    node: Node,
    later: bool,
}

/// A field at key `name`.
pub const fn field(id: Field, name: &'static str, kind: Kind) -> Spec {
    assert!(id < 32, "a field's id is below 32");
    Spec {
        name: Name::Key(name),
        node: Node::Leaf(id, kind),
        later: false,
    }
}

/// A field at any key of its object not named before it.
pub const fn any_key(id: Field, kind: Kind) -> Spec {
    assert!(id < 32, "a field's id is below 32");
    Spec {
        name: Name::Any,
        node: Node::Leaf(id, kind),
        later: false,
    }
}

/// An object at key `name` holding `fields`.
pub const fn object(name: &'static str, fields: &'static [Spec]) -> Spec {
    assert!(fields.len() <= 64, "an object holds at most 64 keys");
    Spec {
        name: Name::Key(name),
        node: Node::Object(fields),
        later: false,
    }
}

impl Spec {
    /// A key serde reads only when asked for (`Pass::Later`): fields only a
    /// few lines need, whose type errors must not refuse the other lines.
    pub const fn later(self) -> Spec {
        Spec { later: true, ..self }
    }

    fn key(&self) -> &'static str {
        match self.name {
            Name::Key(k) => k,
            Name::Any => "*",
        }
    }

    fn repeats(&self) -> bool {
        matches!(self.node, Node::Leaf(_, Kind::Counter))
    }
}

/// What a line's fields go into.
pub trait Record<'a>: Default {
    /// Takes one field's value (`Counter` fields once per key that held one).
    fn set(&mut self, field: Field, value: Got<'a>);
}

/// The table's entry for `key` at this level, and its place there.
#[inline]
fn find<'t>(level: &'t [Spec], key: &str) -> Option<(usize, &'t Spec)> {
    level.iter().enumerate().find(|(_, s)| match s.name {
        Name::Key(k) => k == key,
        Name::Any => true,
    })
}

/// A field's id with its kind, as a learnt shape names it.
const fn tag(id: Field, kind: Kind) -> Field {
    id | (kind as u8) << 5
}

fn untag(tagged: Field) -> (Field, Kind) {
    let kind = match tagged >> 5 {
        0 => Kind::Text,
        1 => Kind::Count,
        2 => Kind::Number,
        3 => Kind::Counter,
        4 => Kind::TextOrNumber,
        _ => Kind::FirstOfList,
    };
    (tagged & 31, kind)
}

/// Where the table reads a value, for a shape being learnt.
fn field_of(level: &[Spec], path: &[Step<'_>]) -> Option<Field> {
    let (Step::Key(key), rest) = path.split_first()? else {
        return None;
    };
    let (_, spec) = find(level, key)?;
    match (spec.node, rest) {
        (Node::Object(sub), rest) if !rest.is_empty() => field_of(sub, rest),
        (Node::Leaf(id, Kind::FirstOfList), [Step::Index(0)]) => Some(tag(id, Kind::FirstOfList)),
        (Node::Leaf(id, kind), []) if kind != Kind::FirstOfList => Some(tag(id, kind)),
        _ => None,
    }
}

/// Reads the table's fields of a line into `r` (which must be fresh) by
/// the fast paths: by a learnt shape when the line fits one, else by the
/// walk, whose line's shape is then learnt. `Bail`: the line is serde's
/// (`read_serde`), and `r` is fresh again.
#[inline(always)]
pub fn read_fast<'a, R: Record<'a>>(table: &[Spec], c: Cursor<'a>, shapes: &mut Shapes, r: &mut R) -> Scan<()> {
    if let Some(values) = shapes.replay(&c) {
        if replay(&c, values, r).is_ok() {
            return Ok(());
        }
        // What a refused replay read is not the line's.
        *r = R::default();
    }
    let plain = c.into_plain().ok_or(Bail)?;
    let mut walked = plain.clone();
    match walk(table, &mut walked, r) {
        Ok(()) => {
            shapes.learn(&plain, |path| field_of(table, path));
            Ok(())
        }
        Err(bail) => {
            *r = R::default();
            Err(bail)
        }
    }
}

/// Reads the table's fields of a plain line (see `Cursor::plain`) by the
/// walk alone; `Bail` leaves it to serde (`r` then holds part of it).
pub fn walk<'a, R: Record<'a>>(table: &[Spec], c: &mut Cursor<'a>, r: &mut R) -> Scan<()> {
    walk_object(table, c, r)?;
    c.end()
}

fn walk_object<'a, R: Record<'a>>(level: &[Spec], c: &mut Cursor<'a>, r: &mut R) -> Scan<()> {
    // A repeated key is serde's error (for a derived struct): serde's to judge.
    let mut seen = 0u64;
    c.object(|c, key| {
        let Some((i, spec)) = find(level, key) else {
            return c.skip();
        };
        if !spec.repeats() {
            if seen & 1 << i != 0 {
                return Err(Bail);
            }
            seen |= 1 << i;
        }
        match spec.node {
            Node::Object(sub) => {
                if c.null()? {
                    Ok(())
                } else {
                    walk_object(sub, c, r)
                }
            }
            Node::Leaf(id, kind) => {
                let v = walk_value(c, kind)?;
                r.set(id, v);
                Ok(())
            }
        }
    })
}

#[inline]
fn walk_value<'a>(c: &mut Cursor<'a>, kind: Kind) -> Scan<Got<'a>> {
    Ok(match kind {
        _ if kind != Kind::Counter && c.null()? => Got::Null,
        Kind::Text => Got::Text(Cow::Borrowed(c.string()?)),
        Kind::Count => Got::Count(c.u64()?),
        Kind::Number => Got::Number(c.f64()?),
        Kind::Counter => Got::Number(counter(c.f64()?)?),
        Kind::TextOrNumber if c.peek() == Some(b'"') => Got::Text(Cow::Borrowed(c.string()?)),
        Kind::TextOrNumber => Got::Number(c.f64()?),
        Kind::FirstOfList => {
            let mut first = Got::Null;
            c.array(|c, i| {
                if i == 0 {
                    first = Got::Text(Cow::Borrowed(c.string()?));
                    Ok(())
                } else {
                    c.skip()
                }
            })?;
            first
        }
    })
}

/// A counter's value, or `Bail` for one serde refuses (negative, or past
/// the largest number).
#[inline]
fn counter(x: f64) -> Scan<f64> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(Bail)
    }
}

/// The fields of a line that fits a learnt shape, each read as the walk
/// reads it; anything the walk would refuse hands the line back to it.
#[inline(always)]
fn replay<'a, R: Record<'a>>(c: &Cursor<'a>, values: &[Value], r: &mut R) -> Scan<()> {
    let mut c = c.clone();
    for v in values {
        let (id, kind) = untag(v.field);
        c.set_offset(v.start);
        let quoted = c.bytes().get(v.start) == Some(&b'"');
        // A number the replay read on its way, else its text as the walk reads it.
        let number = |c: &mut Cursor<'a>| match v.number {
            Some(x) => {
                c.set_offset(v.end);
                Ok(x)
            }
            None => c.f64(),
        };
        // The replay found each string's closing quote: no second search.
        let got = match kind {
            Kind::Text | Kind::TextOrNumber | Kind::FirstOfList if quoted => {
                c.set_offset(v.end);
                Got::Text(Cow::Borrowed(c.string_at(v.start, v.end)?))
            }
            Kind::FirstOfList => return Err(Bail),
            Kind::Counter => Got::Number(counter(number(&mut c)?)?),
            _ if c.null()? => Got::Null,
            Kind::Text => return Err(Bail),
            Kind::Count => Got::Count(c.u64()?),
            Kind::Number | Kind::TextOrNumber => Got::Number(number(&mut c)?),
        };
        if c.offset() != v.end {
            return Err(Bail);
        }
        r.set(id, got);
    }
    Ok(())
}

/// Which of a table's keys serde reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Every key.
    All,
    /// The keys not marked `later`.
    Now,
    /// Only the keys marked `later` (and the objects holding them).
    Later,
}

impl Pass {
    fn reads(self, s: &Spec) -> bool {
        match self {
            Pass::All => true,
            Pass::Now => !s.later,
            Pass::Later => s.later,
        }
    }
}

/// Reads the table's fields of a line by serde_json, the judge: its
/// error is the line's. `what` names a line's object in its errors.
pub fn read_serde<'a, R: Record<'a>>(
    table: &'static [Spec],
    line: &'a [u8],
    pass: Pass,
    what: &'static str,
    r: &mut R,
) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(line);
    Level {
        level: table,
        pass,
        what,
        parent: "",
        r,
    }
    .deserialize(&mut de)?;
    de.end()
}

/// One object of the table, read by serde.
struct Level<'r, R> {
    level: &'static [Spec],
    pass: Pass,
    what: &'static str,
    /// The object's key (for a counter's error).
    parent: &'static str,
    r: &'r mut R,
}

impl<'de, R: Record<'de>> DeserializeSeed<'de> for Level<'_, R> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, R: Record<'de>> Visitor<'de> for Level<'_, R> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0u64;
        // A level within a `later` object is read whole.
        let pass = self.pass;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let Some((i, spec)) = find(self.level, &key.0).filter(|(_, s)| pass.reads(s)) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if !spec.repeats() {
                if seen & 1 << i != 0 {
                    return Err(de::Error::duplicate_field(spec.key()));
                }
                seen |= 1 << i;
            }
            match spec.node {
                Node::Object(sub) => map.next_value_seed(Optional(Level {
                    level: sub,
                    pass: Pass::All,
                    what: "an object",
                    parent: spec.key(),
                    r: &mut *self.r,
                }))?,
                Node::Leaf(id, kind) => {
                    let v = map.next_value_seed(Leaf {
                        kind,
                        parent: self.parent,
                        key: &key.0,
                    })?;
                    self.r.set(id, v);
                }
            }
        }
        Ok(())
    }
}

/// An object of fields, or `null` for none of them.
struct Optional<L>(L);

impl<'de, R: Record<'de>> DeserializeSeed<'de> for Optional<Level<'_, R>> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, R: Record<'de>> Visitor<'de> for Optional<Level<'_, R>> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0.what)
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.0.deserialize(d)
    }
}

/// A key, borrowed when it holds no escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(Str).map(Key)
    }
}

/// A string, borrowed when it holds no escape.
struct Str;

impl<'de> Visitor<'de> for Str {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
}

impl<'de> DeserializeSeed<'de> for Str {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

/// One field's value, read by serde as its kind says.
struct Leaf<'k> {
    kind: Kind,
    parent: &'static str,
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for Leaf<'_> {
    type Value = Got<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Got<'de>, D::Error> {
        use serde::Deserialize;
        Ok(match self.kind {
            Kind::Text => Option::<Key<'de>>::deserialize(d)?.map_or(Got::Null, |k| Got::Text(k.0)),
            Kind::Count => match Option::<serde_json::Number>::deserialize(d)?.and_then(|n| n.as_u64()) {
                Some(n) => Got::Count(n),
                None => Got::Null,
            },
            Kind::Number => Option::<f64>::deserialize(d)?.map_or(Got::Null, Got::Number),
            Kind::Counter => {
                let v = f64::deserialize(d)?;
                if !v.is_finite() || v < 0.0 {
                    let (parent, key) = (self.parent, self.key);
                    return Err(de::Error::custom(format!("{parent}.{key} is not a counter value")));
                }
                Got::Number(v)
            }
            Kind::TextOrNumber => d.deserialize_option(Maybe(TextOrNumber))?,
            Kind::FirstOfList => d.deserialize_option(Maybe(FirstOfList))?,
        })
    }
}

/// `null` as `Got::Null`, anything else by the inner visitor.
struct Maybe<V>(V);

impl<'de, V: Visitor<'de, Value = Got<'de>>> Visitor<'de> for Maybe<V> {
    type Value = Got<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_none<E>(self) -> Result<Got<'de>, E> {
        Ok(Got::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Got<'de>, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// RFC 3339 text or Unix seconds.
struct TextOrNumber;

impl<'de> Visitor<'de> for TextOrNumber {
    type Value = Got<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an RFC 3339 string or Unix seconds")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Got<'de>, E> {
        Ok(Got::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Got<'de>, E> {
        Ok(Got::Text(Cow::Owned(v.to_string())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Got<'de>, E> {
        Ok(Got::Number(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Got<'de>, E> {
        Ok(Got::Number(v as f64))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Got<'de>, E> {
        Ok(Got::Number(v as f64))
    }
}

/// The first string of a list (or a lone string), without collecting the list.
struct FirstOfList;

impl<'de> Visitor<'de> for FirstOfList {
    type Value = Got<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of header values")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Got<'de>, A::Error> {
        let first = seq.next_element_seed(Str)?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(first.map_or(Got::Null, Got::Text))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Got<'de>, E> {
        Ok(Got::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Got<'de>, E> {
        Ok(Got::Text(Cow::Owned(v.to_string())))
    }
}
