//! The body of data and index blocks: a run of entries plus a restart array, as leveldb
//! lays out its blocks.
//!
//! ```text
//! entry*  restart_offset:u32 BE * R  R:u32 BE
//! entry = shared:varint unshared:varint value_len:varint key_suffix[unshared] value[value_len]
//! ```
//!
//! `shared` is the length of the prefix the entry's key shares with the previous key; it
//! is 0 at every restart point (every [`RESTART_INTERVAL`]th entry) and always 0 when the
//! block is not prefix-encoded, so that unencoded keys can be served from the block bytes
//! without copying. Binary search runs over the restart points, then a short linear scan.
//!
//! Invariants: entries are in strictly ascending key order; restart offsets are ascending
//! and point at entries with `shared == 0`. The cursor checks every length against the
//! block's bounds, so a corrupt body yields an error and never a panic or an
//! out-of-bounds read.

#![deny(clippy::indexing_slicing)]

use crate::format::varint;
use regionkv_cell::compare_keys;
use std::cmp::Ordering;

/// Entries between restart points.
pub const RESTART_INTERVAL: usize = 16;

/// Accumulates entries of one block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    entries: usize,
    last_key: Vec<u8>,
    prefix: bool,
}

impl BlockBuilder {
    /// A builder; `prefix` turns on prefix sharing of keys.
    pub fn new(prefix: bool) -> Self {
        Self {
            buf: Vec::new(),
            restarts: Vec::new(),
            entries: 0,
            last_key: Vec::new(),
            prefix,
        }
    }

    /// Appends an entry. REQUIRES: `key` sorts after the previous key (the writer checks).
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        self.add_parts(key, &[value]);
    }

    /// Appends an entry whose value is the concatenation of `value_parts` (a data block of
    /// a file with tags stores `value | tags | tags_len`, with no intermediate copy).
    pub fn add_parts(&mut self, key: &[u8], value_parts: &[&[u8]]) {
        let shared = if self.entries.is_multiple_of(RESTART_INTERVAL) {
            // Bodies are far below 4 GiB (MAX_BODY_LEN), so offsets fit in u32.
            self.restarts.push(self.buf.len() as u32);
            0
        } else if self.prefix {
            self.last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            0
        };
        let suffix = key.get(shared..).unwrap_or_default();
        varint::put_u32(&mut self.buf, shared as u32);
        varint::put_u32(&mut self.buf, suffix.len() as u32);
        let value_len: usize = value_parts.iter().map(|p| p.len()).sum();
        varint::put_u32(&mut self.buf, value_len as u32);
        self.buf.extend_from_slice(suffix);
        for part in value_parts {
            self.buf.extend_from_slice(part);
        }
        if self.prefix {
            self.last_key.clear();
            self.last_key.extend_from_slice(key);
        }
        self.entries += 1;
    }

    /// Bytes the finished body will have.
    pub fn size_estimate(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// Entries added so far.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// True before the first entry.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Finishes the body and resets the builder for the next block.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_be_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_be_bytes());
        self.restarts.clear();
        self.entries = 0;
        self.last_key.clear();
        out
    }
}

/// Where the current entry's key lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyAt {
    /// In the block body, at this range: no copy.
    Body(usize, usize),
    /// In the cursor's buffer (prefix-encoded key).
    Buf,
}

/// A position inside one block body. The body is passed to every call rather than owned,
/// so a scanner can keep the body in whatever holder it has (a mapping, a cached buffer).
///
/// Invariant: when `valid`, `entry..next` is the current entry, its key is at `key` and its
/// value at `value`, all within the entries area of the body the cursor was created for.
#[derive(Debug, Clone)]
pub struct BlockCursor {
    restarts_at: usize,
    num_restarts: usize,
    entry: usize,
    next: usize,
    key: KeyAt,
    value: (usize, usize),
    key_buf: Vec<u8>,
    valid: bool,
}

/// A malformed block body: the offset within the body and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError {
    /// Offset inside the (uncompressed) body.
    pub offset: usize,
    /// What is wrong.
    pub reason: &'static str,
}

fn err(offset: usize, reason: &'static str) -> BodyError {
    BodyError { offset, reason }
}

fn be_u32_at(body: &[u8], at: usize) -> Option<usize> {
    crate::format::be_u32(body, at).map(|v| v as usize)
}

impl BlockCursor {
    /// A cursor over `body`, positioned before the first entry (not valid).
    pub fn new(body: &[u8]) -> Result<Self, BodyError> {
        let n = body.len();
        if n < 4 {
            return Err(err(0, "block body shorter than its restart count"));
        }
        let num_restarts = be_u32_at(body, n - 4).ok_or_else(|| err(n - 4, "restart count"))?;
        let restarts_len = num_restarts
            .checked_mul(4)
            .and_then(|v| v.checked_add(4))
            .filter(|&v| v <= n)
            .ok_or_else(|| err(n - 4, "restart count larger than the block"))?;
        let restarts_at = n - restarts_len;
        if num_restarts == 0 && restarts_at != 0 {
            return Err(err(n - 4, "entries without restart points"));
        }
        let c = Self {
            restarts_at,
            num_restarts,
            entry: 0,
            next: 0,
            key: KeyAt::Buf,
            value: (0, 0),
            key_buf: Vec::new(),
            valid: false,
        };
        // The first restart must point at the first entry. The others are checked as a
        // search reads them (`restart`), not all here: a cursor is made per lookup, and an
        // index block has ~130 restarts. A block's checksum has already vouched for
        // its bytes; what the checks guard is that a corrupt one that got past it yields
        // an error or a wrong position, never an out-of-bounds read or an endless loop.
        // (Checking them all here cost 3% of a random Get in the suite profile.)
        if num_restarts > 0 && c.restart(body, 0)? != 0 {
            return Err(err(restarts_at, "first restart offset is not 0"));
        }
        Ok(c)
    }

    /// Restart offset `i`, which lies inside the entries.
    fn restart(&self, body: &[u8], i: usize) -> Result<usize, BodyError> {
        let at = self.restarts_at + 4 * i;
        be_u32_at(body, at)
            .filter(|&r| r < self.restarts_at)
            .ok_or_else(|| err(at, "restart offset out of bounds"))
    }

    /// Number of restart points.
    pub fn num_restarts(&self) -> usize {
        self.num_restarts
    }

    /// True when positioned at an entry.
    #[inline]
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// The current key. REQUIRES: `valid()` and the same body the cursor moved over.
    #[inline]
    pub fn key<'a>(&'a self, body: &'a [u8]) -> &'a [u8] {
        match self.key {
            KeyAt::Body(s, e) => body.get(s..e).unwrap_or_default(),
            KeyAt::Buf => &self.key_buf,
        }
    }

    /// The current value. REQUIRES: as for [`Self::key`].
    #[inline]
    pub fn value<'a>(&self, body: &'a [u8]) -> &'a [u8] {
        body.get(self.value.0..self.value.1).unwrap_or_default()
    }

    /// Offset of the current entry in the body.
    pub fn entry_offset(&self) -> usize {
        self.entry
    }

    /// Decodes the entry at `at` given the previous key (for prefix sharing).
    fn decode_at(&mut self, body: &[u8], at: usize) -> Result<(), BodyError> {
        let mut p = at;
        let entries = body.get(..self.restarts_at).unwrap_or_default();
        let shared =
            varint::get_u32(entries, &mut p).ok_or_else(|| err(at, "shared length"))? as usize;
        let unshared =
            varint::get_u32(entries, &mut p).ok_or_else(|| err(at, "key length"))? as usize;
        let vlen =
            varint::get_u32(entries, &mut p).ok_or_else(|| err(at, "value length"))? as usize;
        let key_end = p
            .checked_add(unshared)
            .filter(|&e| e <= self.restarts_at)
            .ok_or_else(|| err(at, "key runs past the entries"))?;
        let value_end = key_end
            .checked_add(vlen)
            .filter(|&e| e <= self.restarts_at)
            .ok_or_else(|| err(at, "value runs past the entries"))?;
        if shared == 0 {
            self.key = KeyAt::Body(p, key_end);
        } else {
            // Materialise the previous key in the buffer if it was served from the body.
            if !self.valid {
                return Err(err(at, "shared prefix without a previous key"));
            }
            if let KeyAt::Body(s, e) = self.key {
                self.key_buf.clear();
                self.key_buf
                    .extend_from_slice(body.get(s..e).unwrap_or_default());
            }
            if shared > self.key_buf.len() {
                return Err(err(at, "shared prefix longer than the previous key"));
            }
            self.key_buf.truncate(shared);
            self.key_buf
                .extend_from_slice(body.get(p..key_end).unwrap_or_default());
            self.key = KeyAt::Buf;
        }
        self.entry = at;
        self.next = value_end;
        self.value = (key_end, value_end);
        self.valid = true;
        Ok(())
    }

    /// True when the current entry's key is stored whole in the body (no shared prefix),
    /// so the entry can be decoded on its own ([`Self::seek_to_entry`]).
    pub fn key_in_body(&self) -> bool {
        self.valid && matches!(self.key, KeyAt::Body(..))
    }

    /// Positions at the entry that starts at body offset `at`, which must store its key
    /// whole (every entry of an index block does). An offset past the entries or an entry
    /// with a shared prefix is an error; one that is not an entry's start decodes as
    /// garbage that the caller's checks see, never an out-of-bounds read.
    pub fn seek_to_entry(&mut self, body: &[u8], at: usize) -> Result<(), BodyError> {
        self.valid = false;
        if at >= self.restarts_at {
            return Err(err(at, "entry offset past the entries"));
        }
        self.decode_at(body, at)
    }

    /// Positions at the first entry (invalid if the block is empty).
    pub fn seek_to_first(&mut self, body: &[u8]) -> Result<(), BodyError> {
        self.valid = false;
        if self.restarts_at == 0 {
            return Ok(());
        }
        self.decode_at(body, 0)
    }

    /// Moves to the next entry; invalid past the last one.
    pub fn next(&mut self, body: &[u8]) -> Result<(), BodyError> {
        if !self.valid {
            return Ok(());
        }
        if self.next >= self.restarts_at {
            self.valid = false;
            return Ok(());
        }
        let at = self.next;
        self.decode_at(body, at)
    }

    /// Positions at the restart point `i` (whose key is stored whole).
    fn seek_restart(&mut self, body: &[u8], i: usize) -> Result<(), BodyError> {
        let at = self.restart(body, i)?;
        self.valid = false;
        self.decode_at(body, at)?;
        if !matches!(self.key, KeyAt::Body(..)) {
            return Err(err(at, "restart entry with a shared prefix"));
        }
        Ok(())
    }

    /// Index of the last restart whose key is ≤ `target` (0 if none is).
    fn last_restart_le(&mut self, body: &[u8], target: &[u8]) -> Result<usize, BodyError> {
        let (mut lo, mut hi) = (0usize, self.num_restarts);
        // Invariant: restart keys before `lo` are ≤ target; from `hi` on they are > target.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.seek_restart(body, mid)?;
            if compare_keys(self.key(body), target) != Ordering::Greater {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.saturating_sub(1))
    }

    /// Positions at the first entry with key ≥ `target`; invalid when every key is smaller.
    pub fn seek_ge(&mut self, body: &[u8], target: &[u8]) -> Result<(), BodyError> {
        self.valid = false;
        if self.num_restarts == 0 {
            return Ok(());
        }
        let r = self.last_restart_le(body, target)?;
        self.seek_restart(body, r)?;
        while self.valid && compare_keys(self.key(body), target) == Ordering::Less {
            self.next(body)?;
        }
        Ok(())
    }

    /// Positions at the last entry with key ≤ `target`, or at the first entry when every
    /// key is larger (index descent: a target before the first key belongs to the first
    /// child). Invalid only for an empty block.
    pub fn seek_le_or_first(&mut self, body: &[u8], target: &[u8]) -> Result<(), BodyError> {
        self.valid = false;
        if self.num_restarts == 0 {
            return Ok(());
        }
        let r = self.last_restart_le(body, target)?;
        self.seek_restart(body, r)?;
        // Walk forward remembering the last entry ≤ target, then come back to it (prefix
        // decoding only runs forward, so "back" means replaying from the restart point;
        // at most one restart interval). The next restart's key is > target, so the walk
        // ends there.
        let end = if r + 1 < self.num_restarts {
            self.restart(body, r + 1)?
        } else {
            self.restarts_at
        };
        let mut best = self.entry;
        while self.next < end {
            let at = self.next;
            self.decode_at(body, at)?;
            if compare_keys(self.key(body), target) == Ordering::Greater {
                break;
            }
            best = self.entry;
        }
        if self.entry != best {
            self.seek_restart(body, r)?;
            while self.valid && self.entry < best {
                self.next(body)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use regionkv_cell::{CellType, key::encode_key};

    fn key(i: u32) -> Vec<u8> {
        encode_key(
            format!("row{i:05}").as_bytes(),
            b"f",
            b"q",
            1,
            CellType::Put,
            0,
        )
        .unwrap()
    }

    fn build(n: u32, prefix: bool) -> Vec<u8> {
        let mut b = BlockBuilder::new(prefix);
        for i in 0..n {
            b.add(&key(i * 2), format!("v{i}").as_bytes());
        }
        b.finish()
    }

    #[test]
    fn iterate_and_seek_both_encodings() {
        for prefix in [false, true] {
            let body = build(100, prefix);
            let mut c = BlockCursor::new(&body).unwrap();
            c.seek_to_first(&body).unwrap();
            let mut i = 0;
            while c.valid() {
                assert_eq!(c.key(&body), key(i * 2).as_slice());
                assert_eq!(c.value(&body), format!("v{i}").as_bytes());
                c.next(&body).unwrap();
                i += 1;
            }
            assert_eq!(i, 100);
            // Exact hit, between keys, before first, after last.
            c.seek_ge(&body, &key(40)).unwrap();
            assert_eq!(c.key(&body), key(40).as_slice());
            c.seek_ge(&body, &key(41)).unwrap();
            assert_eq!(c.key(&body), key(42).as_slice());
            c.seek_ge(
                &body,
                &encode_key(b"a", b"f", b"q", 1, CellType::Put, 0).unwrap(),
            )
            .unwrap();
            assert_eq!(c.key(&body), key(0).as_slice());
            c.seek_ge(&body, &key(199)).unwrap();
            assert!(!c.valid());
            c.seek_le_or_first(&body, &key(41)).unwrap();
            assert_eq!(c.key(&body), key(40).as_slice());
            c.seek_le_or_first(&body, &key(40)).unwrap();
            assert_eq!(c.key(&body), key(40).as_slice());
            c.seek_le_or_first(&body, &key(500)).unwrap();
            assert_eq!(c.key(&body), key(198).as_slice());
            c.seek_le_or_first(&body, b"").unwrap();
            assert_eq!(c.key(&body), key(0).as_slice());
        }
    }

    #[test]
    fn a_restart_offset_out_of_bounds_is_an_error_when_a_search_reads_it() {
        let mut body = build(100, false);
        let n = body.len();
        let restarts = u32::from_be_bytes(body[n - 4..].try_into().unwrap()) as usize;
        assert_eq!(restarts, 7);
        let at = n - 4 - 4 * restarts + 4 * 3;
        body[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
        // The cursor opens (restart 0 is fine); the first probe of a search is restart 3.
        let mut c = BlockCursor::new(&body).unwrap();
        let e = c.seek_ge(&body, &key(50)).unwrap_err();
        assert_eq!((e.offset, e.reason), (at, "restart offset out of bounds"));
        assert!(c.seek_le_or_first(&body, &key(50)).is_err());
        body[n - 4 - 4 * restarts] = 1;
        assert!(BlockCursor::new(&body).is_err(), "restart 0 must be 0");
    }

    #[test]
    fn seek_to_entry_decodes_a_whole_entry_and_refuses_the_rest() {
        // Unencoded: every entry stands alone.
        let body = build(40, false);
        let mut c = BlockCursor::new(&body).unwrap();
        c.seek_to_first(&body).unwrap();
        c.next(&body).unwrap();
        let (second, second_key) = (c.entry_offset(), c.key(&body).to_vec());
        assert!(c.key_in_body());
        let mut d = BlockCursor::new(&body).unwrap();
        d.seek_to_entry(&body, second).unwrap();
        assert_eq!(d.key(&body), second_key.as_slice());
        let e = d.seek_to_entry(&body, body.len()).unwrap_err();
        assert_eq!(e.reason, "entry offset past the entries");
        // Prefix-encoded: an entry that shares its key's prefix cannot be decoded alone.
        let body = build(40, true);
        let mut c = BlockCursor::new(&body).unwrap();
        c.seek_to_first(&body).unwrap();
        c.next(&body).unwrap();
        assert!(!c.key_in_body());
        let shared = c.entry_offset();
        let e = BlockCursor::new(&body)
            .unwrap()
            .seek_to_entry(&body, shared)
            .unwrap_err();
        assert_eq!(e.reason, "shared prefix without a previous key");
    }

    #[test]
    fn prefix_encoding_is_smaller() {
        // Keys share at least the 2-byte row length and "row0": ≥ 6 bytes on each of the
        // 93 entries that are not restart points.
        assert!(build(100, true).len() + 93 * 6 <= build(100, false).len());
    }

    #[test]
    fn empty_block() {
        let body = BlockBuilder::new(false).finish();
        let mut c = BlockCursor::new(&body).unwrap();
        c.seek_to_first(&body).unwrap();
        assert!(!c.valid());
        c.seek_ge(&body, &key(1)).unwrap();
        assert!(!c.valid());
    }

    #[test]
    fn garbage_never_panics() {
        let body = build(40, true);
        for i in 0..body.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut bad = body.clone();
                bad[i] ^= x;
                if let Ok(mut c) = BlockCursor::new(&bad) {
                    let _ = c.seek_to_first(&bad);
                    let mut n = 0;
                    while c.valid() && n < 1000 {
                        let _ = c.key(&bad);
                        if c.next(&bad).is_err() {
                            break;
                        }
                        n += 1;
                    }
                    let _ = c.seek_ge(&bad, &key(20));
                    let _ = c.seek_le_or_first(&bad, &key(20));
                }
            }
        }
        for len in 0..body.len() {
            if let Ok(mut c) = BlockCursor::new(&body[..len]) {
                let _ = c.seek_ge(&body[..len], &key(20));
            }
        }
    }
}
