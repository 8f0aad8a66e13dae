//! JSON numbers of the plain form most logs write (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`,
//! no exponent), checked and read in one pass over their digits.
//!
//! Checking finds the digit runs 16 bytes a compare (`find::digit_run`);
//! the value is then made 8 digits a word (the known SWAR multiplies), where
//! a loop took about seven instructions a digit and a sample line's numbers
//! have ten to thirteen. A value is given only where it is exact: at most 19
//! digits making a mantissa of at most 2^53, divided by an exact power of
//! ten (Clinger's fast path, which Rust's own parser takes too), so it has
//! the very bits `str::parse::<f64>` (and serde_json with `float_roundtrip`)
//! give. Anything else is the caller's to hand to the full parser.

use crate::find::digit_run;
use wide::u8x16;

/// A plain number at the start of a text: where its parts end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plain {
    negative: bool,
    whole: usize,
    fraction: usize,
}

/// Powers of ten exact in a `u64` (up to 10^19).
const POW10_U64: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut n = 1;
    while n < 20 {
        p[n] = p[n - 1] * 10;
        n += 1;
    }
    p
};

/// Powers of ten exact in an `f64` (up to 10^22).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The largest mantissa an `f64` holds exactly.
const MAX_EXACT: u64 = 1 << 53;

impl Plain {
    /// The plain number `s` starts with, if it is one and no exponent
    /// follows (an exponent, like any other form, is the full grammar's).
    #[inline(always)]
    pub(crate) fn scan(s: &[u8]) -> Option<Plain> {
        let negative = s.first() == Some(&b'-');
        let from = negative as usize;
        let digits = s.get(from..)?;
        let (whole, fraction) = parts(digits)?;
        // One leading zero only: serde refuses `01`.
        if whole == 0 || (whole > 1 && digits[0] == b'0') {
            return None;
        }
        let n = Plain {
            negative,
            whole,
            fraction,
        };
        match s.get(n.len()) {
            Some(b'e' | b'E') => None,
            _ => Some(n),
        }
    }

    /// How many bytes the number takes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.negative as usize + self.whole + (self.fraction > 0) as usize + self.fraction
    }

    /// Its value, if exact by the fast path; `s` is the text `scan` was given.
    #[inline(always)]
    pub(crate) fn value(&self, s: &[u8]) -> Option<f64> {
        if self.whole + self.fraction > 19 || self.fraction > 22 {
            return None;
        }
        let from = self.negative as usize;
        let whole = digits_value(s, from, self.whole);
        let mantissa = if self.fraction == 0 {
            whole
        } else {
            whole * POW10_U64[self.fraction] + digits_value(s, from + self.whole + 1, self.fraction)
        };
        if mantissa > MAX_EXACT {
            return None;
        }
        let v = mantissa as f64 / POW10_F64[self.fraction];
        Some(if self.negative { -v } else { v })
    }
}

/// How many digits come before and after the point (0 if none) at the
/// start of `digits`, or `None` for a point without digits after it. One
/// 16-byte compare finds both in a number that ends inside the block.
#[inline(always)]
fn parts(digits: &[u8]) -> Option<(usize, usize)> {
    if let Some(block) = digits.first_chunk::<16>() {
        let mask = digit_mask(block);
        let whole = (!mask).trailing_zeros() as usize;
        if whole < 16 {
            if block[whole] != b'.' {
                return Some((whole, 0));
            }
            let fraction = (!(mask >> (whole + 1))).trailing_zeros() as usize;
            if whole + 1 + fraction < 16 {
                return (fraction > 0).then_some((whole, fraction));
            }
        }
    }
    let whole = digit_run(digits);
    if digits.get(whole) != Some(&b'.') {
        return Some((whole, 0));
    }
    let fraction = digit_run(&digits[whole + 1..]);
    (fraction > 0).then_some((whole, fraction))
}

/// A bit for each byte of `block` that is an ASCII digit.
#[inline]
fn digit_mask(block: &[u8; 16]) -> u32 {
    // A digit is a byte whose distance above '0' is at most 9 (wrapping:
    // a byte below '0' lands far above).
    let above = u8x16::from(*block) - u8x16::splat(b'0');
    above.min(u8x16::splat(9)).simd_eq(above).to_bitmask()
}

/// The value of the `n` (1 to 19) digits at `s[at..]`: up to 16 in one or
/// two words, where a loop took about seven instructions a digit.
#[inline(always)]
fn digits_value(s: &[u8], at: usize, n: usize) -> u64 {
    match (n, s.get(at..at + 8)) {
        (1..=8, Some(first)) => leading_digits(first, n),
        // The first `n - 8` digits, then 8: both words lie inside the digits.
        (9..=16, Some(first)) => match s.get(at + n - 8..at + n) {
            Some(last) => leading_digits(first, n - 8) * POW10_U64[8] + eight_digits(word(last)),
            None => digits_loop(s, at, n),
        },
        _ => digits_loop(s, at, n),
    }
}

/// The value of the first `n` (1 to 8) digits of `bytes` (8 bytes): the
/// digits moved to the top of the word (the first byte is the lowest), the
/// bytes below them zeros, read as leading zero digits. A byte after the
/// digits below '0' borrows only from the bytes above it, shifted out.
#[inline(always)]
fn leading_digits(bytes: &[u8], n: usize) -> u64 {
    eight_digits_shifted(word(bytes).wrapping_sub(ZEROS) << (8 * (8 - n)))
}

/// `digits_value` near the end of a line, or past 16 digits.
#[inline(never)]
fn digits_loop(s: &[u8], at: usize, n: usize) -> u64 {
    let digits = &s[at..at + n];
    let (words, rest) = digits.as_chunks::<8>();
    let v = words
        .iter()
        .fold(0, |v, w| v * POW10_U64[8] + eight_digits(u64::from_le_bytes(*w)));
    rest.iter().fold(v, |v, d| v * 10 + u64::from(d - b'0'))
}

const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);

#[inline]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The value of 8 ASCII digits loaded as a little-endian word.
#[inline]
fn eight_digits(w: u64) -> u64 {
    eight_digits_shifted(w.wrapping_sub(ZEROS))
}

/// The value of 8 digit values (0 to 9, the first digit in the lowest byte):
/// pairs, then fours, then all eight, one multiply a step.
#[inline]
fn eight_digits_shifted(v: u64) -> u64 {
    const MASK: u64 = 0x0000_00ff_0000_00ff;
    const MUL1: u64 = 100 + (1_000_000 << 32);
    const MUL2: u64 = 1 + (10_000 << 32);
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    (v & MASK)
        .wrapping_mul(MUL1)
        .wrapping_add(((v >> 16) & MASK).wrapping_mul(MUL2))
        >> 32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the fast path gives for the number that `text` starts with
    /// (`None`: not plain, or not exact), and the number's length.
    fn read(text: &str) -> Option<(usize, Option<u64>)> {
        let s = text.as_bytes();
        Plain::scan(s).map(|n| (n.len(), n.value(s).map(f64::to_bits)))
    }

    #[test]
    fn eight_digits_at_a_time_give_the_digits_value() {
        for text in ["00000000", "12345678", "99999999", "10000000", "00000001", "90807060"] {
            assert_eq!(
                eight_digits(word(text.as_bytes())),
                text.parse::<u64>().unwrap(),
                "{text}"
            );
        }
    }

    /// Every digit count from 1 to 20 in the whole part and the fraction,
    /// negative or not, followed by what a line has after a number (or by
    /// nothing, at the line's end): the fast path's value has the bits of
    /// `str::parse::<f64>`, or there is none and the full parser decides.
    #[test]
    fn plain_numbers_read_with_the_bits_of_str_parse() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut exact = 0;
        let mut texts = vec![];
        for whole_digits in 1..=20usize {
            for fraction_digits in 0..=20usize {
                for _ in 0..40 {
                    let digit = |r: u64| char::from(b'0' + (r % 10) as u8);
                    let mut t = String::new();
                    if next() % 3 == 0 {
                        t.push('-');
                    }
                    // A first digit of 1 to 9, but a lone 0 as often as a
                    // fraction needs one; zeros and nines more often than
                    // their share (carries, exact powers).
                    let kind = next() % 4;
                    for d in 0..whole_digits {
                        let r = next();
                        t.push(match (d, kind) {
                            (0, _) if whole_digits == 1 && r % 5 == 0 => '0',
                            (0, _) => char::from(b'1' + (r % 9) as u8),
                            (_, 0) => '0',
                            (_, 1) => '9',
                            _ => digit(r),
                        });
                    }
                    if fraction_digits > 0 {
                        t.push('.');
                        for _ in 0..fraction_digits {
                            let r = next();
                            t.push(if kind == 0 { '0' } else { digit(r) });
                        }
                    }
                    texts.push(t);
                }
            }
        }
        texts.extend(
            [
                "0",
                "-0",
                "-0.0",
                "0.0",
                "9007199254740992",
                "9007199254740993",
                "-9007199254740993",
                "900719925474099.3",
                "9999999999999999999",
                "0.0000000000000000000001",
                "0.1",
                "0.3",
            ]
            .map(String::from),
        );
        for text in &texts {
            let want = text.parse::<f64>().unwrap().to_bits();
            for after in ["", ", \"x\": 1", "}", "]", " ", "}}}}}}}}}"] {
                let line = format!("{text}{after}");
                let (len, got) = read(&line).unwrap_or_else(|| panic!("{line} not plain"));
                assert_eq!(len, text.len(), "{line}");
                if let Some(bits) = got {
                    assert_eq!(bits, want, "{line}: {} != {}", f64::from_bits(bits), text);
                    exact += 1;
                } else {
                    // Up to 15 digits always make an exact mantissa.
                    assert!(text.bytes().filter(u8::is_ascii_digit).count() > 15, "{line} not read");
                }
            }
        }
        assert!(exact > 20_000, "{exact} read by the fast path");
        for short in ["884649.1", "485402894879", "1793491200.111", "36.21", "-0"] {
            assert!(read(short).unwrap().1.is_some(), "{short}");
        }
    }

    #[test]
    fn what_is_not_a_plain_number_is_left_to_the_full_grammar() {
        // Refused by serde (leading zeros, a bare point), or an exponent.
        for text in [
            "01", "-01", "00.5", "1.", "-", ".5", "-.5", "1e3", "1.5E-2", "", "x", "+1", "--1", "1.e3",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        // Longer than the fast path: plain, but no value here.
        for text in [
            "12345678901234567890",
            "1.00000000000000000000001",
            "18446744073709551616",
        ] {
            assert_eq!(
                read(text).map(|(len, v)| (len == text.len(), v)),
                Some((true, None)),
                "{text}"
            );
        }
    }
}
