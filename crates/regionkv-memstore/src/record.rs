//! The cell record: how one cell's bytes are laid out in a segment's memory, in an arena
//! chunk or in a buffer of its own:
//!
//! | field        | size   | encoding                                              |
//! |--------------|--------|-------------------------------------------------------|
//! | key field    | 1–5    | unsigned LEB128 varint (`u32`): `K << 1 | has_tags`   |
//! | value length | 1–5    | unsigned LEB128 varint (`u32`)                        |
//! | tags length  | 0 or 1–3 | varint, present only when `has_tags` is 1          |
//! | key          | K      | `docs/key-format.md`                                  |
//! | value        | V      | raw bytes                                             |
//! | tags         | T      | the cell's tag run (`regionkv_cell::tag`)             |
//!
//! Cells without tags (nearly all) pay nothing for them but the flag bit, which costs a
//! header byte only for keys of 64 to 127 bytes.
//!
//! HBase's `KeyValue` has the same shape with two fixed 4-byte lengths; varints make the
//! header 2 bytes for keys and values under 128 bytes (3 or 4 up to 16 KiB), which is most
//! of the per-cell overhead that is ours to choose (`docs/benchmarks.md`, "MemStore").
//! Records are unaligned (the arena bumps by exact sizes) and are written once, before they
//! are published in the skiplist, and never again.

use std::ptr::NonNull;

/// Largest record header: two 5-byte varints and a 3-byte tags length.
pub(crate) const MAX_HEADER_LEN: usize = 13;

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
pub(crate) const fn header_len(key_len: usize, value_len: usize, tags_len: usize) -> usize {
    let tags = if tags_len == 0 {
        0
    } else {
        varint_len(tags_len)
    };
    varint_len(key_len << 1) + varint_len(value_len) + tags
}

/// Bytes of a whole record with these lengths.
#[cfg(test)]
pub(crate) const fn record_len(key_len: usize, value_len: usize, tags_len: usize) -> usize {
    header_len(key_len, value_len, tags_len) + key_len + value_len + tags_len
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
/// REQUIRES: `key.len() + value.len() + tags.len() <= MAX_CELL_BYTES` (so `key.len() << 1`
/// and the others fit a `u32`).
#[inline]
pub(crate) fn header(key: &[u8], value: &[u8], tags: &[u8]) -> ([u8; MAX_HEADER_LEN], usize) {
    debug_assert!(key.len() + value.len() + tags.len() <= MAX_CELL_BYTES);
    let mut out = [0u8; MAX_HEADER_LEN];
    let flag = u32::from(!tags.is_empty());
    let at = put_varint(&mut out, 0, ((key.len() as u32) << 1) | flag);
    let mut len = put_varint(&mut out, at, value.len() as u32);
    if !tags.is_empty() {
        len = put_varint(&mut out, len, tags.len() as u32);
    }
    (out, len)
}

/// A record's key, value and tag run, and its total length.
pub(crate) struct Parts<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) value: &'a [u8],
    pub(crate) tags: &'a [u8],
    pub(crate) len: usize,
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

/// The key, value and tags of the record at `record`, and the record's total length.
///
/// # Safety
/// `record` must point at a complete record (header, key, value, tags) whose bytes were
/// written before this call (with a happens-before edge to it), are never written again,
/// and stay allocated for `'a`.
#[inline]
pub(crate) unsafe fn parts<'a>(record: NonNull<u8>) -> Parts<'a> {
    let p = record.as_ptr().cast_const();
    // SAFETY: the caller guarantees a complete, immutable record that lives for 'a: its
    // varints come first and give the lengths of what follows, all inside the record.
    unsafe {
        let (key_field, a) = read_varint(p);
        let (value_len, b) = read_varint(p.add(a));
        let key_len = key_field >> 1;
        let (tags_len, c) = if key_field & 1 == 1 {
            read_varint(p.add(a + b))
        } else {
            (0, 0)
        };
        let head = a + b + c;
        let key = std::slice::from_raw_parts(p.add(head), key_len);
        let value = std::slice::from_raw_parts(p.add(head + key_len), value_len);
        let tags = std::slice::from_raw_parts(p.add(head + key_len + value_len), tags_len);
        Parts {
            key,
            value,
            tags,
            len: head + key_len + value_len + tags_len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(key: &[u8], value: &[u8], tags: &[u8]) {
        let (h, n) = header(key, value, tags);
        assert_eq!(n, header_len(key.len(), value.len(), tags.len()));
        let mut record = h[..n].to_vec();
        record.extend_from_slice(key);
        record.extend_from_slice(value);
        record.extend_from_slice(tags);
        assert_eq!(record.len(), record_len(key.len(), value.len(), tags.len()));
        // SAFETY: (test) `record` is a complete record that outlives the borrow below.
        let p = unsafe { parts(NonNull::from(&record[..]).cast::<u8>()) };
        assert_eq!(
            (p.key, p.value, p.tags, p.len),
            (key, value, tags, record.len())
        );
    }

    #[test]
    fn headers_round_trip_across_varint_widths() {
        for len in [0usize, 1, 63, 64, 127, 128, 300, 16_383, 16_384, 70_000] {
            round_trip(&vec![7u8; len], b"v", &[]);
            round_trip(b"0123456789abcdefghij", &vec![9u8; len], &[]);
            round_trip(&vec![7u8; len], b"v", &[0, 9, 8, 0, 0, 0, 0, 0, 0, 0, 1]);
            round_trip(b"k", b"v", &vec![5u8; len]);
        }
        assert_eq!(header_len(39, 100, 0), 2, "a typical cell");
        assert_eq!(header_len(39, 100, 11), 3, "with a TTL tag");
        assert_eq!(varint_len(0x0fff_ffff), 4);
        assert_eq!(varint_len(0x1000_0000), 5);
        let (h, n) = header(&[0; 300], &[], &[]);
        assert_eq!(&h[..n], &[0xd8, 0x04, 0x00]);
        let (h, n) = header(&[0; 3], b"vv", &[1; 4]);
        assert_eq!(&h[..n], &[0x07, 0x02, 0x04]);
    }
}
