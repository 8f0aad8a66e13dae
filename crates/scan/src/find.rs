//! Byte and substring search for the line parsers, where the haystacks are
//! short: most fields and strings of a log line end within a few dozen
//! bytes, where `memchr` spends more on setting up its vector search than
//! the search itself takes. Here there is nothing to set up: 16 bytes at a
//! time with one SIMD compare (SSE2, part of every x86_64; `wide` falls back
//! to plain code elsewhere), the last few bytes a word at a time.

use wide::u8x16;

/// The offset of the first `byte`.
#[inline]
pub fn find_byte(s: &[u8], byte: u8) -> Option<usize> {
    let (blocks, tail) = s.as_chunks::<16>();
    let needle = u8x16::splat(byte);
    for (n, block) in blocks.iter().enumerate() {
        let hits = u8x16::from(*block).simd_eq(needle).to_bitmask();
        if hits != 0 {
            return Some(n * 16 + hits.trailing_zeros() as usize);
        }
    }
    let at = blocks.len() * 16;
    find_in_words(tail, byte).map(|n| at + n)
}

/// The offset of the first quote, backslash or control byte: where a JSON
/// string's text ends if it is plain (the byte is a quote), or shows that
/// it is not (any other).
#[inline]
pub(crate) fn find_string_end(s: &[u8]) -> Option<usize> {
    let (blocks, tail) = s.as_chunks::<16>();
    let (quote, backslash, control) = (u8x16::splat(b'"'), u8x16::splat(b'\\'), u8x16::splat(0x1f));
    for (n, block) in blocks.iter().enumerate() {
        let v = u8x16::from(*block);
        let hits = (v.simd_eq(quote) | v.simd_eq(backslash) | v.min(control).simd_eq(v)).to_bitmask();
        if hits != 0 {
            return Some(n * 16 + hits.trailing_zeros() as usize);
        }
    }
    let at = blocks.len() * 16;
    tail.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|n| at + n)
}

/// The offset of the last `byte`, 16 bytes a compare from the end.
#[inline]
pub fn rfind_byte(s: &[u8], byte: u8) -> Option<usize> {
    let (head, blocks) = s.as_rchunks::<16>();
    let needle = u8x16::splat(byte);
    for (n, block) in blocks.iter().enumerate().rev() {
        let hits = u8x16::from(*block).simd_eq(needle).to_bitmask();
        if hits != 0 {
            return Some(head.len() + n * 16 + (31 - hits.leading_zeros()) as usize);
        }
    }
    head.iter().rposition(|&b| b == byte)
}

/// The offset of the first `byte` in fewer than 16 bytes: a word (8 bytes)
/// at a time, then byte by byte.
#[inline]
fn find_in_words(s: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = u64::from_ne_bytes([byte; 8]);
    let (words, rest) = s.as_chunks::<8>();
    for (n, word) in words.iter().enumerate() {
        // A zero byte of `x` is a match; the lowest flagged byte is exact
        // (a borrow only runs upwards from a zero byte).
        let x = u64::from_le_bytes(*word) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(n * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let at = words.len() * 8;
    rest.iter().position(|&b| b == byte).map(|n| at + n)
}

/// Calls `visit` with the offset of every `a` or `b` in `s`, in order, until
/// it returns false: one pass for a parser that wants the first of several
/// markers, where a search per marker would read the same bytes again.
#[inline]
pub fn each_of_two(s: &[u8], a: u8, b: u8, mut visit: impl FnMut(usize) -> bool) {
    let (blocks, tail) = s.as_chunks::<16>();
    let (na, nb) = (u8x16::splat(a), u8x16::splat(b));
    for (n, block) in blocks.iter().enumerate() {
        let v = u8x16::from(*block);
        let mut hits = (v.simd_eq(na) | v.simd_eq(nb)).to_bitmask();
        while hits != 0 {
            if !visit(n * 16 + hits.trailing_zeros() as usize) {
                return;
            }
            hits &= hits - 1;
        }
    }
    let at = blocks.len() * 16;
    for (n, &c) in tail.iter().enumerate() {
        if (c == a || c == b) && !visit(at + n) {
            return;
        }
    }
}

/// How many ASCII digits `s` starts with: 16 bytes a test, where a loop
/// took about seven instructions a digit (the numbers of a sample line
/// have eight to twelve).
#[inline]
pub fn digit_run(s: &[u8]) -> usize {
    let (blocks, tail) = s.as_chunks::<16>();
    let (zero, nine) = (u8x16::splat(b'0'), u8x16::splat(9));
    for (n, block) in blocks.iter().enumerate() {
        // A digit is a byte whose distance above '0' is at most 9
        // (wrapping: a byte below '0' lands far above).
        let above = u8x16::from(*block) - zero;
        let digits = above.min(nine).simd_eq(above).to_bitmask();
        if digits != 0xffff {
            return n * 16 + (!digits).trailing_zeros() as usize;
        }
    }
    blocks.len() * 16 + tail.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Where any of up to four bytes lie in a line, found 64 bytes at a time
/// and handed out in order: a parser that wants the next of several
/// delimiters (an nginx line's `" "`, `"] \""`, ...) walks the bits of one
/// mask instead of searching again for each delimiter, which cost most of
/// the nginx parser's time in setting up a search per field.
#[derive(Debug, Clone)]
pub struct Marks<'a> {
    s: &'a [u8],
    needles: [u8x16; 4],
    /// `bits` covers `s[base..base + 64]`.
    base: usize,
    bits: u64,
}

impl<'a> Marks<'a> {
    /// `None` for no byte or more than four (search otherwise).
    pub fn new(s: &'a [u8], bytes: &[u8]) -> Option<Marks<'a>> {
        let (&first, _) = bytes.split_first()?;
        if bytes.len() > 4 {
            return None;
        }
        // Repeating a byte costs a compare, not a wrong answer.
        let at = |i: usize| u8x16::splat(bytes.get(i).copied().unwrap_or(first));
        let mut marks = Marks {
            s,
            needles: [at(0), at(1), at(2), at(3)],
            base: 0,
            bits: 0,
        };
        marks.load(0);
        Some(marks)
    }

    #[inline]
    fn block_bits(&self, block: [u8; 16]) -> u64 {
        let v = u8x16::from(block);
        let [a, b, c, d] = self.needles;
        (v.simd_eq(a) | v.simd_eq(b) | v.simd_eq(c) | v.simd_eq(d)).to_bitmask() as u64
    }

    fn load(&mut self, base: usize) {
        self.base = base;
        self.bits = 0;
        let window = self.s.get(base..).unwrap_or_default();
        let window = &window[..window.len().min(64)];
        let (blocks, tail) = window.as_chunks::<16>();
        for (n, block) in blocks.iter().enumerate() {
            self.bits |= self.block_bits(*block) << (n * 16);
        }
        if tail.is_empty() {
            return;
        }
        let at = blocks.len() * 16;
        let tail_bits = match self.s.len().checked_sub(16) {
            // The line's last 16 bytes, whose end is the tail: no copy.
            Some(from) => {
                let last: [u8; 16] = self.s[from..].try_into().unwrap_or([0; 16]);
                self.block_bits(last) >> (16 - tail.len())
            }
            None => {
                let mut last = [0u8; 16];
                last[..tail.len()].copy_from_slice(tail);
                // Only the bytes that are there: the padding may equal a needle.
                self.block_bits(last) & ((1u64 << tail.len()) - 1)
            }
        };
        self.bits |= tail_bits << at;
    }

    /// The offset of the first marked byte at or after `from`.
    #[inline]
    pub(crate) fn next_from(&mut self, from: usize) -> Option<usize> {
        let mut from = from;
        loop {
            if from < self.base || from - self.base >= 64 {
                if from >= self.s.len() {
                    return None;
                }
                self.load(from);
            }
            let bits = self.bits & (u64::MAX << (from - self.base));
            if bits != 0 {
                return Some(self.base + bits.trailing_zeros() as usize);
            }
            from = self.base + 64;
        }
    }

    /// The first occurrence of `needle` at or after `from`, as `find_str`
    /// gives it; the needle's first byte must be one of the marked bytes.
    #[inline]
    pub fn find_from(&mut self, from: usize, needle: &[u8]) -> Option<usize> {
        let Some((&first, rest)) = needle.split_first() else {
            return (from <= self.s.len()).then_some(from);
        };
        let mut from = from;
        loop {
            let at = self.next_from(from)?;
            // Most marks are another delimiter's byte: one compare rejects
            // them, and the few bytes after are compared in place (a call
            // to memcmp cost more than the search).
            let after = self.s.get(at + 1..at + 1 + rest.len());
            if self.s[at] == first && after.is_some_and(|a| a.iter().zip(rest).all(|(x, y)| x == y)) {
                return Some(at);
            }
            from = at + 1;
        }
    }
}

/// The first occurrence of `needle`, as `str::find` gives it. `str::find`
/// builds a two-way searcher on every call, a cost that outweighs the search
/// itself on the short haystacks of a line's fields (the nginx parser looks
/// for each log_format literal in every line); jumping between candidate
/// first bytes costs nothing to set up.
#[inline]
pub fn find_str(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let Some((&first, tail)) = n.split_first() else {
        return Some(0);
    };
    if tail.is_empty() {
        // Most literals between nginx fields are one space.
        return find_byte(h, first);
    }
    let mut from = 0;
    while let Some(i) = find_byte(h.get(from..)?, first) {
        let at = from + i;
        // A match starts with the needle's first byte, never a UTF-8
        // continuation byte, so `at` is a character boundary.
        if h[at..].len() >= n.len() && h[at..at + n.len()].iter().zip(n).all(|(a, b)| a == b) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_hand_out_every_marked_byte_in_order_and_find_what_find_str_finds() {
        // Lines of every length around the 16- and 64-byte steps, from an
        // alphabet dense in delimiters, with a multi-byte character.
        let alphabet = ["a", " ", "\"", "]", "[", "é", "-"];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for len in 0..200 {
            let line: String = (0..len).map(|_| alphabet[next() % alphabet.len()]).collect();
            let b = line.as_bytes();
            let bytes = [b' ', b'"', b']'];
            let want: Vec<usize> = (0..b.len()).filter(|&i| bytes.contains(&b[i])).collect();
            let mut marks = Marks::new(b, &bytes).unwrap();
            let mut got = vec![];
            let mut from = 0;
            while let Some(at) = marks.next_from(from) {
                got.push(at);
                from = at + 1;
            }
            assert_eq!(got, want, "{line:?}");
            for needle in [" ", "\" ", "] \"", " - ", "\" \"", "]]"] {
                let mut marks = Marks::new(b, &bytes).unwrap();
                let mut from = 0;
                // Searches that move forward, as a parser's do, and one that jumps back.
                for _ in 0..4 {
                    let want = line.get(from..).and_then(|r| find_str(r, needle)).map(|i| from + i);
                    assert_eq!(
                        marks.find_from(from, needle.as_bytes()),
                        want,
                        "{line:?} {needle:?} from {from}"
                    );
                    from = want.map_or(0, |w| w + needle.len());
                }
            }
        }
        assert!(Marks::new(b"x", &[]).is_none());
        assert!(Marks::new(b"x", b"abcde").is_none());
    }

    #[test]
    fn the_byte_search_finds_the_first_match_at_every_offset() {
        for len in 1..100 {
            for at in 0..len {
                let mut s = vec![b'a'; len];
                s[at] = b'"';
                if at + 1 < len {
                    s[len - 1] = b'"';
                }
                // A byte one below the match, where a borrow could mislead a word search.
                if at > 0 {
                    s[at - 1] = b'!';
                }
                assert_eq!(find_byte(&s, b'"'), Some(at), "len {len}, match at {at}");
                assert_eq!(
                    find_byte(&s[at + 1..], b'"').map(|n| n + at + 1),
                    (at + 1 < len).then_some(len - 1)
                );
            }
            assert_eq!(find_byte(&vec![b'!'; len], b'"'), None);
        }
        assert_eq!(find_byte(b"", b' '), None);
        assert_eq!(find_byte(&[0xff, 0x00, 0x80], 0x80), Some(2));
        assert_eq!(find_byte(&[0xff, 0x00, 0x80], 0x00), Some(1));
    }

    #[test]
    fn every_marker_is_visited_in_order_and_the_visit_can_stop() {
        for len in 0..70 {
            let s: Vec<u8> = (0..len)
                .map(|i| [b'a', b'/', b'x', b'?', b'b'][(i * 7 + len) % 5])
                .collect();
            let want: Vec<usize> = (0..len).filter(|&i| s[i] == b'/' || s[i] == b'?').collect();
            let mut got = Vec::new();
            each_of_two(&s, b'/', b'?', |at| {
                got.push(at);
                true
            });
            assert_eq!(got, want, "len {len}");
            let mut first = Vec::new();
            each_of_two(&s, b'/', b'?', |at| {
                first.push(at);
                false
            });
            assert_eq!(first, want.first().copied().into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_digit_run_ends_at_the_first_byte_that_is_not_a_digit() {
        // The bytes either side of '0'..='9', a high byte, around the blocks.
        for len in 0..50 {
            for at in 0..=len {
                for stop in [b'/', b':', b'.', b'e', 0x80, 0xb0, 0x00] {
                    let mut s: Vec<u8> = (0..len).map(|i| b'0' + (i % 10) as u8).collect();
                    if at < len {
                        s[at] = stop;
                    }
                    let want = s.iter().take_while(|b| b.is_ascii_digit()).count();
                    assert_eq!(digit_run(&s), want, "len {len}, {stop:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn the_reverse_byte_search_finds_the_last_match_at_every_offset() {
        for len in 0..70 {
            for at in 0..=len {
                let mut s = vec![b'a'; len];
                if at < len {
                    s[at] = b'/';
                }
                if at > 2 {
                    // An earlier match that must not win.
                    s[at / 2] = b'/';
                }
                assert_eq!(
                    rfind_byte(&s, b'/'),
                    s.iter().rposition(|&b| b == b'/'),
                    "len {len}, at {at}"
                );
            }
        }
    }

    #[test]
    fn a_string_ends_at_its_quote_or_at_the_first_byte_that_is_not_plain() {
        for len in 0..50 {
            for at in 0..=len {
                for stop in [b'"', b'\\', 0x00, 0x09, 0x1f, b' ', 0x7f, 0xc3] {
                    let mut s = vec![b'a'; len];
                    if at < len {
                        s[at] = stop;
                    }
                    let want = s.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
                    assert_eq!(find_string_end(&s), want, "len {len}, {stop:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn the_literal_search_finds_what_str_find_finds() {
        let hay = "10.0.4.40 - - [01/Nov/2026:00:00:00 +0000] \"GET /ü/a b\" 200 - \"-\" \"ua\" 320 0.010 and a longer tail to pass 32 bytes";
        for needle in [
            "", " ", " - ", "] \"", "\" ", "ü", "/a", "0.010", "0.0100", "x", "\" \"", " \"-\" ", "bytes",
        ] {
            for start in (0..hay.len()).filter(|&i| hay.is_char_boundary(i)) {
                assert_eq!(
                    find_str(&hay[start..], needle),
                    hay[start..].find(needle),
                    "{needle:?} from {start}"
                );
            }
        }
    }
}
