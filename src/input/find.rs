//! Byte and substring search for the line parsers, where the haystacks are
//! short: most fields and strings of a log line end within a few words, and
//! a vector search (`memchr`) costs more to set up than such a field takes
//! to scan. Longer ones still go to `memchr`.

/// The offset of the first `byte`: the first 32 bytes a word (8 bytes) at a
/// time, the rest with `memchr`.
#[inline]
pub fn find_byte(s: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut at = 0;
    while at < 32 {
        let Some(word) = s.get(at..at + 8) else { break };
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        // A zero byte of `x` is a match; the lowest flagged byte is exact
        // (a borrow only runs upwards from a zero byte).
        let x = u64::from_le_bytes(bytes) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr(byte, s.get(at..)?).map(|n| at + n)
}

/// The first occurrence of `needle`, as `str::find` gives it. `str::find`
/// builds a two-way searcher on every call, which was a tenth of the whole
/// report's profile when the nginx parser searched each log_format literal
/// that way; jumping between candidate first bytes costs nothing to set up.
pub fn find_str(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let Some((&first, _)) = n.split_first() else {
        return Some(0);
    };
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
    fn the_word_search_finds_the_first_match_at_every_offset() {
        for len in 1..80 {
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
