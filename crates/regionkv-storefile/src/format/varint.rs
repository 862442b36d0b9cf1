//! Unsigned LEB128 varints (7 bits per byte, low group first) for entry lengths inside
//! blocks. Decoding is bounds-checked and rejects encodings longer than the type allows.

/// Appends `v` as a varint.
#[inline]
pub fn put_u32(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a varint at `*pos`, advancing it. `None` on truncation or overlong input.
#[inline]
pub fn get_u32(b: &[u8], pos: &mut usize) -> Option<u32> {
    let mut result: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        if shift == 28 && byte > 0x0f {
            return None;
        }
        result |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(result);
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        let mut v = Vec::new();
        put_u32(&mut v, 0);
        put_u32(&mut v, 127);
        put_u32(&mut v, 128);
        put_u32(&mut v, u32::MAX);
        assert_eq!(v, [0, 127, 0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    }

    #[test]
    fn rejects_truncated_and_overlong() {
        let mut p = 0;
        assert_eq!(get_u32(&[0x80], &mut p), None);
        let mut p = 0;
        assert_eq!(get_u32(&[0xff, 0xff, 0xff, 0xff, 0x1f], &mut p), None);
        let mut p = 0;
        assert_eq!(get_u32(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], &mut p), None);
    }

    proptest! {
        #[test]
        fn round_trip(v in any::<u32>()) {
            let mut b = Vec::new();
            put_u32(&mut b, v);
            let mut p = 0;
            prop_assert_eq!(get_u32(&b, &mut p), Some(v));
            prop_assert_eq!(p, b.len());
        }
    }
}
