//! The line engine, free of any log's meaning: it reads a log's lines in
//! parallel into perfreport's parsers (registry, node samples, compiler
//! cache: each a sink of its own records), and reads the few fields a
//! JSON line format declares out of each line fast.
//!
//! - [`lines`]: the reader: a log streamed in blocks, cut into chunks
//!   parsed in parallel by sinks, merged in file order.
//! - [`resume`]: a log still being written, read on from where the last
//!   read stopped, and read again whole if it was truncated or replaced.
//! - [`fields`]: a format's fields declared once, in a table, and read out
//!   of a line by shape replay, by the walk, or by serde_json, the judge.
//! - [`find`]: byte and substring search tuned for the short haystacks of a
//!   log line's fields.
//! - [`json_scan`]: a cursor over one plain JSON line (no escape in a field,
//!   valid UTF-8), which hands anything else back (`Bail`) to serde_json,
//!   the reference it is tested against.
//! - [`json_shape`]: the shapes of lines already read, replayed so that a
//!   line like an earlier one is checked literal by literal instead of
//!   walked key by key.
//! - [`number`]: a plain JSON number checked and, where exact, read in one
//!   pass (16 bytes a compare, 8 digits a multiply), with the bits Rust's
//!   parser and serde give.
//!
//! It stays here, hand-written, because the benchmark's library baseline
//! (sonic-rs with rayon, `benches/baseline`) is slower on every member of
//! the generated family of logs; BENCHMARKS.md has the figures.

#![forbid(unsafe_code)]

pub mod fields;
pub mod find;
pub mod json_scan;
pub mod json_shape;
pub mod lines;
pub mod number;
pub mod resume;
