//! The cell record: how one cell's bytes are laid out in a segment's memory, in an arena
//! chunk or in a buffer of its own:
//!
//! | field        | size   | encoding                         |
//! |--------------|--------|----------------------------------|
//! | key length   | 1–5    | unsigned LEB128 varint (`u32`)   |
//! | value length | 1–5    | unsigned LEB128 varint (`u32`)   |
//! | key          | K      | `docs/key-format.md`             |
//! | value        | V      | raw bytes                        |
//!
//! HBase's `KeyValue` has the same shape with two fixed 4-byte lengths; varints make the
//! header 2 bytes for keys and values under 128 bytes (3 or 4 up to 16 KiB), which is most
//! of the per-cell overhead that is ours to choose (`docs/benchmarks.md`, "MemStore").
//! Records are unaligned (the arena bumps by exact sizes) and are written once, before they
//! are published in the skiplist, and never again.

use std::ptr::NonNull;

/// Largest record header: two 5-byte varints.
pub(crate) const MAX_HEADER_LEN: usize = 10;

/// Largest key + value a memstore holds: HBase's `KeyValue` lengths are Java `int`s.
pub(crate) const MAX_CELL_BYTES: usize = i32::MAX as usize;

/// Bytes of the LEB128 encoding of `v`.
#[inline]
const fn varint_len(v: usize) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// Bytes of the header of a record with these lengths.
#[inline]
pub(crate) const fn header_len(key_len: usize, value_len: usize) -> usize {
    varint_len(key_len) + varint_len(value_len)
}

/// Bytes of a whole record with these lengths.
#[cfg(test)]
pub(crate) const fn record_len(key_len: usize, value_len: usize) -> usize {
    header_len(key_len, value_len) + key_len + value_len
}

fn put_varint(out: &mut [u8; MAX_HEADER_LEN], mut at: usize, mut v: u32) -> usize {
    while v >= 0x80 {
        out[at] = (v as u8) | 0x80;
        v >>= 7;
        at += 1;
    }
    out[at] = v as u8;
    at + 1
}

/// The header of a record for `key` and `value`: a buffer and how many bytes of it count.
///
/// REQUIRES: `key.len() + value.len() <= MAX_CELL_BYTES` (so both fit a `u32`).
#[inline]
pub(crate) fn header(key: &[u8], value: &[u8]) -> ([u8; MAX_HEADER_LEN], usize) {
    debug_assert!(key.len() + value.len() <= MAX_CELL_BYTES);
    let mut out = [0u8; MAX_HEADER_LEN];
    let at = put_varint(&mut out, 0, key.len() as u32);
    let len = put_varint(&mut out, at, value.len() as u32);
    (out, len)
}

/// Decodes a varint at `p`.
///
/// # Safety
/// `p` must point into a complete record header (see [`parts`]).
#[inline]
unsafe fn read_varint(p: *const u8) -> (usize, usize) {
    let mut v = 0usize;
    let mut i = 0;
    loop {
        // SAFETY: the caller points `p` at a varint the record writer completed; it ends at
        // the first byte below 0x80, at most 5 bytes in, and we stop there.
        let b = unsafe { p.add(i).read() };
        v |= ((b & 0x7f) as usize) << (7 * i);
        i += 1;
        if b < 0x80 || i == 5 {
            return (v, i);
        }
    }
}

/// The key and value of the record at `record`, and the record's total length.
///
/// # Safety
/// `record` must point at a complete record (header, key, value) whose bytes were written
/// before this call (with a happens-before edge to it), are never written again, and stay
/// allocated for `'a`.
#[inline]
pub(crate) unsafe fn parts<'a>(record: NonNull<u8>) -> (&'a [u8], &'a [u8], usize) {
    let p = record.as_ptr().cast_const();
    // SAFETY: the caller guarantees a complete, immutable record that lives for 'a: its two
    // varints come first and give the lengths of what follows, all inside the record.
    unsafe {
        let (key_len, a) = read_varint(p);
        let (value_len, b) = read_varint(p.add(a));
        let key = std::slice::from_raw_parts(p.add(a + b), key_len);
        let value = std::slice::from_raw_parts(p.add(a + b + key_len), value_len);
        (key, value, a + b + key_len + value_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(key: &[u8], value: &[u8]) {
        let (h, n) = header(key, value);
        assert_eq!(n, header_len(key.len(), value.len()));
        let mut record = h[..n].to_vec();
        record.extend_from_slice(key);
        record.extend_from_slice(value);
        assert_eq!(record.len(), record_len(key.len(), value.len()));
        // SAFETY: (test) `record` is a complete record that outlives the borrow below.
        let (k, v, len) = unsafe { parts(NonNull::from(&record[..]).cast::<u8>()) };
        assert_eq!((k, v, len), (key, value, record.len()));
    }

    #[test]
    fn headers_round_trip_across_varint_widths() {
        for len in [0usize, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            round_trip(&vec![7u8; len], b"v");
            round_trip(b"0123456789abcdefghij", &vec![9u8; len]);
        }
        assert_eq!(header_len(39, 100), 2, "a typical cell");
        assert_eq!(varint_len(0x0fff_ffff), 4);
        assert_eq!(varint_len(0x1000_0000), 5);
        let (h, n) = header(&[0; 300], &[]);
        assert_eq!(&h[..n], &[0xac, 0x02, 0x00]);
    }
}
