//! The element of a segment's skiplist: a pointer to one cell record (`record.rs`) in the
//! segment's arena, ordered by [`regionkv_cell::compare_keys`] on the record's key.
//!
//! 16 bytes: the pointer, and a **window** of the row (see [`row_window`]) that decides
//! most comparisons without reading the record. A random insert into a segment of a few
//! hundred thousand cells compares against about twenty nodes on its way down, and with
//! the pointer alone each comparison was two dependent cache misses (node, then record):
//! the record's was 18% of a random put (`docs/benchmarks.md`). The node is the per-cell
//! memory cost on top of the record, so the window is 8 bytes and no more.
//!
//! The pointer is atomic because an add of an equal key (same coordinates, timestamp, type
//! and sequence id) swaps in its own record instead of inserting a node: the keys of both
//! records are byte-for-byte equal, so the node's place in the order does not change, and
//! nodes are never removed, which keeps "did this add create the cell" a yes-or-no answer
//! even when threads race on the same key.
//!
//! Invariant (what makes every read below sound): an `IndexKey` points at a complete record
//! that was written before the pointer was stored (a release store, or the skiplist's
//! publication of the node), is never written again, and stays allocated until the arena of
//! the segment holding this key drops — which is after the segment's skiplist drops, the
//! only owner of these keys. A replaced record stays allocated too.

use crate::record;
use regionkv_cell::{CellRef, compare_keys};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicPtr, Ordering as MemoryOrder};

/// See the module docs.
pub(crate) struct IndexKey {
    record: AtomicPtr<u8>,
    /// [`row_window`] of the record's row, or 0 (none: compare the records).
    window: u64,
}

/// Bytes of row a window holds.
pub(crate) const WINDOW_BYTES: usize = 7;

/// The window of `row` in a segment whose windowed rows all start with `prefix`: 0 when
/// `row` does not start with it; otherwise the next [`WINDOW_BYTES`] bytes of the row
/// (zero-padded, big-endian) above one byte of `0x80 | count of those bytes present`.
///
/// Why two windows order like their rows: both rows share `prefix`, so they order like
/// their rests. Where the windows differ in a byte both hold, that byte decides. Where one
/// rest ends inside the window, the other holds it as a prefix (padding is zero and the
/// rest is at least as long), so the shorter is less, and so is its count. Equal windows
/// decide nothing: the rows are equal, or differ after the window.
pub(crate) fn row_window(row: &[u8], prefix: &[u8]) -> u64 {
    let Some(rest) = row.strip_prefix(prefix) else {
        return 0;
    };
    let n = rest.len().min(WINDOW_BYTES);
    let mut bytes = [0u8; 8];
    if let (Some(dst), Some(src)) = (bytes.get_mut(..n), rest.get(..n)) {
        dst.copy_from_slice(src);
    }
    bytes[WINDOW_BYTES] = 0x80 | n as u8;
    u64::from_be_bytes(bytes)
}

impl IndexKey {
    /// A key for the record at `record`, with the [`row_window`] of its row (0: none).
    ///
    /// # Safety
    /// `record` must satisfy the module invariant for the segment whose skiplist this key
    /// goes into: a complete record, already written, never written again, allocated by
    /// that segment's arena. Every nonzero window in that skiplist must come from
    /// [`row_window`] with one and the same prefix (or the order is wrong, not unsafe).
    pub(crate) unsafe fn new(record: NonNull<u8>, window: u64) -> Self {
        Self {
            record: AtomicPtr::new(record.as_ptr()),
            window,
        }
    }

    /// Points this key at another record of the same key (an equal-key add).
    ///
    /// # Safety
    /// As [`Self::new`], and the record's key must equal this key's, byte for byte.
    pub(crate) unsafe fn replace(&self, record: NonNull<u8>) {
        debug_assert_eq!(
            // SAFETY: the caller guarantees a complete record allocated by the arena.
            unsafe { record::parts(record) }.key,
            self.key()
        );
        self.record.store(record.as_ptr(), MemoryOrder::Release);
    }

    /// The current record's key, value and tags.
    #[inline]
    fn parts(&self) -> (&[u8], &[u8], &[u8]) {
        let at = self.record.load(MemoryOrder::Acquire);
        match NonNull::new(at) {
            Some(at) => {
                // SAFETY: module invariant: a complete, immutable record written before the
                // store we loaded it from (acquire pairs with that release), and allocated
                // until the segment's arena drops, which outlives every `&self`.
                let p = unsafe { record::parts(at) };
                (p.key, p.value, p.tags)
            }
            // Unreachable: `new` and `replace` only store non-null pointers.
            None => (&[], &[], &[]),
        }
    }

    /// The encoded key.
    #[inline]
    pub(crate) fn key(&self) -> &[u8] {
        self.parts().0
    }

    /// The sequence id: the last 8 key bytes, stored inverted (`docs/key-format.md`).
    #[inline]
    pub(crate) fn seq_id(&self) -> u64 {
        let key = self.key();
        match key.len().checked_sub(8).and_then(|at| key.get(at..)) {
            Some(tail) => {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(tail);
                !u64::from_be_bytes(raw)
            }
            None => 0,
        }
    }

    /// The cell as a [`CellRef`].
    ///
    /// Every key entered the segment as a validated [`CellRef`] and was copied byte for
    /// byte, so parsing it again cannot fail; a failure means the memory was corrupted and
    /// the process must not go on serving data from it.
    #[inline]
    pub(crate) fn cell(&self) -> CellRef<'_> {
        let (key, value, tags) = self.parts();
        match CellRef::parse(key, value) {
            Ok(cell) => CellRef::with_tags(cell.key(), value, tags),
            Err(e) => panic!("memstore cell bytes were corrupted: {e}"),
        }
    }
}

/// An encoded key as the skiplist compares it: the borrowed form of an [`IndexKey`], so a
/// seek can search with the caller's key bytes without building a record.
#[repr(transparent)]
pub(crate) struct KeyBytes([u8]);

impl KeyBytes {
    /// Views `bytes` as a key.
    #[inline]
    pub(crate) fn new(bytes: &[u8]) -> &Self {
        // SAFETY: `KeyBytes` is a `repr(transparent)` wrapper of `[u8]`: same layout and
        // the same slice-length metadata, so the cast pointer is a valid `&KeyBytes` for
        // exactly the lifetime of `bytes`.
        unsafe { &*(ptr::from_ref::<[u8]>(bytes) as *const Self) }
    }
}

impl PartialEq for KeyBytes {
    fn eq(&self, other: &Self) -> bool {
        compare_keys(&self.0, &other.0).is_eq()
    }
}

impl Eq for KeyBytes {}

impl PartialOrd for KeyBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KeyBytes {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(&self.0, &other.0)
    }
}

impl Borrow<KeyBytes> for IndexKey {
    #[inline]
    fn borrow(&self) -> &KeyBytes {
        KeyBytes::new(self.key())
    }
}

// `Borrow` requires that `IndexKey` and `KeyBytes` order alike: both use `compare_keys` on
// the key bytes.
impl PartialEq for IndexKey {
    fn eq(&self, other: &Self) -> bool {
        compare_keys(self.key(), other.key()).is_eq()
    }
}

impl Eq for IndexKey {}

impl PartialOrd for IndexKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for IndexKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // Two different windows order like the rows, hence like the keys (rows come
        // first in the key order); anything else needs the records.
        if self.window != 0 && other.window != 0 && self.window != other.window {
            return self.window.cmp(&other.window);
        }
        compare_keys(self.key(), other.key())
    }
}

impl fmt::Debug for IndexKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (key, value, _) = self.parts();
        match CellRef::parse(key, value) {
            Ok(cell) => write!(f, "{cell}"),
            Err(_) => write!(f, "<{} key bytes>", key.len()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::lab::{LabSettings, MemStoreLab};
    use regionkv_cell::Cell;

    #[test]
    fn keys_order_by_the_cell_comparator_and_swap_records_of_equal_keys() {
        let lab = MemStoreLab::new(&LabSettings::own_buffers_only());
        let key_of = |c: &Cell| {
            let at = lab.copy_cell(c.key_bytes(), c.value(), &[]).record;
            // SAFETY: (test) the record was just written by `lab`, which outlives the key.
            unsafe { IndexKey::new(at, 0) }
        };
        let a = Cell::put(b"r", b"f", b"q", 2, b"v2")
            .unwrap()
            .with_seq_id(9);
        let b = Cell::put(b"r", b"f", b"q", 1, b"value-1")
            .unwrap()
            .with_seq_id(3);
        let ka = key_of(&a);
        let kb = key_of(&b);
        assert_eq!(ka.key(), a.key_bytes());
        assert_eq!(ka.seq_id(), 9);
        assert_eq!(ka.cell().to_cell(), a);
        assert!(ka < kb, "newer timestamp first");
        let borrowed: &KeyBytes = kb.borrow();
        assert!(borrowed == KeyBytes::new(b.key_bytes()));
        assert_eq!(format!("{ka:?}"), "r/f:q/2/Put/vlen=2/seqid=9");

        let a2 = Cell::put(b"r", b"f", b"q", 2, b"other value")
            .unwrap()
            .with_seq_id(9);
        let at = lab.copy_cell(a2.key_bytes(), a2.value(), &[]).record;
        // SAFETY: (test) same key, record written by `lab`.
        unsafe { ka.replace(at) };
        assert_eq!(ka.cell().to_cell(), a2);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod window_tests {
    use super::*;
    use proptest::prelude::*;

    fn rows() -> impl Strategy<Value = Vec<u8>> {
        // Few distinct bytes, zeros included, so that shared prefixes, rows that are
        // prefixes of others and zero padding all come up.
        proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), Just(b'a'), Just(0xff)],
            0..12,
        )
    }

    proptest! {
        /// Whenever two windows differ they order like the rows; equal rows have equal
        /// windows; a row without the prefix has none.
        #[test]
        fn windows_order_like_rows(a in rows(), b in rows(), cut in 0usize..6) {
            let prefix = &a[..cut.min(a.len())];
            let (wa, wb) = (row_window(&a, prefix), row_window(&b, prefix));
            prop_assert_ne!(wa, 0);
            if !b.starts_with(prefix) {
                prop_assert_eq!(wb, 0);
            } else if wa != wb {
                prop_assert_eq!(wa.cmp(&wb), a.cmp(&b), "{:?} {:?} prefix {:?}", a, b, prefix);
            }
            if a == b {
                prop_assert_eq!(wa, wb);
            }
        }
    }

    #[test]
    fn windows_of_the_suite_rows() {
        let prefix = b"000000000";
        let w = |r: &[u8]| row_window(r, prefix);
        assert!(w(b"0000000001234568") < w(b"0000000001234570"));
        assert!(w(b"0000000000999998") < w(b"0000000001000000"));
        // A row that does not share the prefix has no window.
        assert_eq!(w(b"1000000000000000"), 0);
        // Rows shorter than the window: shorter first, as the rows order.
        assert!(w(b"000000000ab") < w(b"000000000ab\x00"));
    }
}
