//! Hadoop's `WritableUtils` variable-length integers (vint/vlong), used by HFile root index
//! keys, Bloom meta and each cell's MVCC timestamp. Not the protobuf varint (LEB128): the two
//! agree only for 0..=127, so mixing them up breaks keys longer than 127 bytes.
//!
//! | value | bytes |
//! |---|---|
//! | -112..=127 | the value as one signed byte |
//! | other, ≥ 0 | a first byte -113 - (n - 1), then n bytes of the value, big-endian, minimal |
//! | other, < 0 | a first byte -121 - (n - 1), then n bytes of `!value`, big-endian, minimal |

/// Decodes a vlong at the start of `buf`: the value and the bytes it took, or `None` when
/// `buf` ends first.
pub fn read_vlong(buf: &[u8]) -> Option<(i64, usize)> {
    let first = *buf.first()? as i8;
    if first >= -112 {
        return Some((i64::from(first), 1));
    }
    let (negative, n) = if first < -120 {
        (true, (-120 - i32::from(first)) as usize)
    } else {
        (false, (-112 - i32::from(first)) as usize)
    };
    let bytes = buf.get(1..1 + n)?;
    let mut v: u64 = 0;
    for b in bytes {
        v = (v << 8) | u64::from(*b);
    }
    let v = v as i64;
    Some((if negative { !v } else { v }, 1 + n))
}

/// Appends the vlong encoding of `v` to `out`.
pub fn write_vlong(out: &mut Vec<u8>, v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as i8 as u8);
        return;
    }
    let (negative, magnitude) = if v < 0 { (true, !v) } else { (false, v) };
    let n = 8 - (magnitude.leading_zeros() as usize / 8);
    let first = if negative {
        -120 - n as i32
    } else {
        -112 - n as i32
    };
    out.push(first as i8 as u8);
    for i in (0..n).rev() {
        out.push((magnitude >> (8 * i)) as u8);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hadoop_s_boundaries() {
        // Values and encodings as Hadoop's WritableUtils.writeVLong produces them.
        for (v, bytes) in [
            (0i64, vec![0x00]),
            (127, vec![0x7f]),
            (-112, vec![0x90]),
            (128, vec![0x8f, 0x80]),
            (255, vec![0x8f, 0xff]),
            (256, vec![0x8e, 0x01, 0x00]),
            (-113, vec![0x87, 0x70]),
            (
                i64::MAX,
                vec![0x88, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
            (
                i64::MIN,
                vec![0x80, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
        ] {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            assert_eq!(out, bytes, "{v}");
            assert_eq!(read_vlong(&bytes), Some((v, bytes.len())), "{v}");
        }
        assert_eq!(read_vlong(&[0x8e, 0x01]), None, "cut short");
        assert_eq!(read_vlong(&[]), None);
    }

    proptest! {
        #[test]
        fn round_trips(v in any::<i64>()) {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            prop_assert_eq!(read_vlong(&out), Some((v, out.len())));
        }
    }
}
