//! HBase's `Bytes` conventions: big-endian fixed-width numbers and the
//! `toStringBinary` / `toBytesBinary` escaping that the shell and every HBase tool print
//! keys with.

use crate::error::{Error, Result};

/// Big-endian bytes of an `i64` (HBase `Bytes.toBytes(long)`).
#[inline]
pub const fn i64_to_bytes(v: i64) -> [u8; 8] {
    v.to_be_bytes()
}

/// Big-endian bytes of an `i32` (HBase `Bytes.toBytes(int)`).
#[inline]
pub const fn i32_to_bytes(v: i32) -> [u8; 4] {
    v.to_be_bytes()
}

/// Big-endian bytes of an `i16` (HBase `Bytes.toBytes(short)`).
#[inline]
pub const fn i16_to_bytes(v: i16) -> [u8; 2] {
    v.to_be_bytes()
}

/// Bytes of an `f64` as HBase writes it: the raw IEEE-754 bits, big-endian.
#[inline]
pub const fn f64_to_bytes(v: f64) -> [u8; 8] {
    v.to_bits().to_be_bytes()
}

fn fixed<const N: usize>(b: &[u8]) -> Result<[u8; N]> {
    b.try_into().map_err(|_| Error::WrongLength {
        expected: N,
        got: b.len(),
    })
}

/// `i64` from exactly 8 big-endian bytes (HBase `Bytes.toLong`).
pub fn bytes_to_i64(b: &[u8]) -> Result<i64> {
    Ok(i64::from_be_bytes(fixed(b)?))
}

/// `i32` from exactly 4 big-endian bytes (HBase `Bytes.toInt`).
pub fn bytes_to_i32(b: &[u8]) -> Result<i32> {
    Ok(i32::from_be_bytes(fixed(b)?))
}

/// `i16` from exactly 2 big-endian bytes (HBase `Bytes.toShort`).
pub fn bytes_to_i16(b: &[u8]) -> Result<i16> {
    Ok(i16::from_be_bytes(fixed(b)?))
}

/// `f64` from exactly 8 big-endian bytes (HBase `Bytes.toDouble`).
pub fn bytes_to_f64(b: &[u8]) -> Result<f64> {
    Ok(f64::from_bits(u64::from_be_bytes(fixed(b)?)))
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// HBase's `Bytes.toStringBinary`: printable ASCII (space through `~`) as is, except the
/// backslash; every other byte as `\xHH` with upper-case hex digits.
pub fn to_string_binary(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for &byte in b {
        if (b' '..=b'~').contains(&byte) && byte != b'\\' {
            out.push(byte as char);
        } else {
            out.push('\\');
            out.push('x');
            out.push(HEX_UPPER[(byte >> 4) as usize] as char);
            out.push(HEX_UPPER[(byte & 0x0f) as usize] as char);
        }
    }
    out
}

fn upper_hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// HBase's `Bytes.toBytesBinary`, the inverse of [`to_string_binary`].
///
/// `\xHH` with two upper-case hex digits becomes one byte. As in HBase, an escape whose
/// digits are not upper-case hex drops the backslash and keeps the rest literally
/// (`\xzz` → `xzz`, `\x0a` → `x0a`). Where HBase would throw on a `\x` too close to the end
/// of the string, this returns [`Error::TruncatedEscape`]. Characters outside ASCII are
/// kept as their UTF-8 bytes (HBase truncates each UTF-16 unit to a byte; Rust strings are
/// UTF-8, and keeping the bytes is what a user typing such a character means).
pub fn to_bytes_binary(s: &str) -> Result<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && b.get(i + 1) == Some(&b'x') {
            let (Some(&h1), Some(&h2)) = (b.get(i + 2), b.get(i + 3)) else {
                return Err(Error::TruncatedEscape {
                    input: s.to_string(),
                    position: i,
                });
            };
            match (upper_hex_value(h1), upper_hex_value(h2)) {
                (Some(hi), Some(lo)) => {
                    out.push((hi << 4) | lo);
                    i += 4;
                }
                // Bogus escape: HBase skips only the backslash.
                _ => i += 1,
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

/// Lower-case hex of every byte (HBase `Bytes.toHex`).
pub fn to_hex(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() * 2);
    for &byte in b {
        out.push(HEX_LOWER[(byte >> 4) as usize] as char);
        out.push(HEX_LOWER[(byte & 0x0f) as usize] as char);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn numbers_are_big_endian() {
        assert_eq!(i64_to_bytes(1), [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(i64_to_bytes(-1), [0xff; 8]);
        assert_eq!(i32_to_bytes(0x0102_0304), [1, 2, 3, 4]);
        assert_eq!(i16_to_bytes(-2), [0xff, 0xfe]);
        assert_eq!(bytes_to_i64(&i64_to_bytes(i64::MIN)).unwrap(), i64::MIN);
        assert_eq!(bytes_to_i32(&[0, 0, 1, 0]).unwrap(), 256);
        assert_eq!(bytes_to_i16(&[0x80, 0]).unwrap(), i16::MIN);
        assert_eq!(bytes_to_f64(&f64_to_bytes(1.5)).unwrap(), 1.5);
        // HBase: Bytes.toBytes(1.0d) = 3F F0 00 00 00 00 00 00.
        assert_eq!(f64_to_bytes(1.0), [0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn wrong_lengths_are_errors() {
        // The shell's "Field is not a long, it's N bytes wide" case starts here.
        assert_eq!(
            bytes_to_i64(b"abc"),
            Err(Error::WrongLength {
                expected: 8,
                got: 3
            })
        );
        assert!(bytes_to_i32(&[0; 8]).is_err());
        assert!(bytes_to_i16(&[]).is_err());
    }

    #[test]
    fn to_string_binary_matches_hbase() {
        // Bytes.toStringBinary(Bytes.toBytes(100L)) as printed by the HBase shell for a
        // counter cell.
        assert_eq!(
            to_string_binary(&i64_to_bytes(100)),
            "\\x00\\x00\\x00\\x00\\x00\\x00\\x00d"
        );
        assert_eq!(to_string_binary(b"row1"), "row1");
        assert_eq!(to_string_binary(b" ~"), " ~");
        // Backslash is escaped, so the output always decodes back.
        assert_eq!(to_string_binary(b"a\\b"), "a\\x5Cb");
        // Control characters, DEL and high bytes, upper-case hex.
        assert_eq!(
            to_string_binary(&[0x00, 0x1f, 0x7f, 0x80, 0xab, 0xff]),
            "\\x00\\x1F\\x7F\\x80\\xAB\\xFF"
        );
        assert_eq!(to_string_binary(b""), "");
    }

    #[test]
    fn to_bytes_binary_matches_hbase() {
        assert_eq!(to_bytes_binary("\\x00\\x01row").unwrap(), b"\x00\x01row");
        assert_eq!(to_bytes_binary("\\xFF").unwrap(), [0xff]);
        // Lower-case hex digits are not an escape in HBase: the backslash is dropped.
        assert_eq!(to_bytes_binary("\\xff").unwrap(), b"xff");
        assert_eq!(to_bytes_binary("\\xZZ1").unwrap(), b"xZZ1");
        // A backslash not followed by x is literal.
        assert_eq!(to_bytes_binary("a\\b").unwrap(), b"a\\b");
        assert_eq!(to_bytes_binary("\\").unwrap(), b"\\");
        // Where HBase throws StringIndexOutOfBounds, we return an error.
        assert!(matches!(
            to_bytes_binary("ab\\x1"),
            Err(Error::TruncatedEscape { position: 2, .. })
        ));
        assert!(to_bytes_binary("\\x").is_err());
        assert_eq!(to_bytes_binary("é").unwrap(), "é".as_bytes());
    }

    #[test]
    fn hex() {
        assert_eq!(to_hex(&[0x00, 0xab, 0x10]), "00ab10");
    }

    proptest! {
        #[test]
        fn string_binary_round_trips(b in proptest::collection::vec(any::<u8>(), 0..64)) {
            let s = to_string_binary(&b);
            prop_assert!(s.is_ascii());
            prop_assert_eq!(to_bytes_binary(&s).unwrap(), b);
        }

        #[test]
        fn numbers_round_trip(v in any::<i64>()) {
            prop_assert_eq!(bytes_to_i64(&i64_to_bytes(v)).unwrap(), v);
            prop_assert_eq!(bytes_to_i32(&i32_to_bytes(v as i32)).unwrap(), v as i32);
            prop_assert_eq!(bytes_to_i16(&i16_to_bytes(v as i16)).unwrap(), v as i16);
        }
    }
}
