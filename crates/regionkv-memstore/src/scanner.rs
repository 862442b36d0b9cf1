//! `SegmentScanner`: a [`KeyValueScanner`] over one segment at one MVCC read point (HBase's
//! `SegmentScanner`).
//!
//! The scanner owns an `Arc<Segment>` and a skiplist cursor borrowed from that segment; the
//! two live in one `self_cell`, so the borrow is checked by the compiler and needs no
//! `unsafe`. The cursor is a reference-counted crossbeam entry, so moving to the next cell
//! is a pointer step, not a new search. Cell bytes belong to the segment's arena, which the
//! `Arc` keeps alive; an equal-key add may swap the record under the cursor, after which
//! `peek` returns the new value (the key is the same), as HBase's skiplist does.
//!
//! MVCC: cells whose sequence id is above the read point are skipped (HBase's
//! `SegmentScanner.getNext`): a scanner never sees writes that were not committed when its
//! read point was taken. Cells added to the segment after the scanner was made are seen if
//! they are visible at the read point and lie ahead of the cursor, as in HBase.

use crate::index_key::{IndexKey, KeyBytes};
use crate::segment::Segment;
use crossbeam_skiplist::map::Entry;
use regionkv_cell::{CellRef, KeyValueScanner, KeyView, compare_keys};
use std::convert::Infallible;
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

/// How many cells [`SegmentScanner::reseek`] walks before it falls back to a skiplist
/// search. Reseeks usually land a few cells ahead (the next column or row), where walking is
/// cheaper than a search from the top of the skiplist.
const RESEEK_WALK: usize = 8;

/// The position: the current entry, or `None` past the end.
type Cursor<'a> = Option<Entry<'a, IndexKey, ()>>;

self_cell::self_cell!(
    /// The segment together with a cursor borrowed from it.
    struct PinnedCursor {
        owner: Arc<Segment>,
        #[covariant]
        dependent: Cursor,
    }
);

/// A forward scanner over one segment's cells with sequence id ≤ its read point.
///
/// Created positioned at the first visible cell. `Send`, not `Sync` (like every cursor).
pub struct SegmentScanner {
    cursor: PinnedCursor,
    read_point: u64,
}

impl SegmentScanner {
    pub(crate) fn new(segment: Arc<Segment>, read_point: u64) -> Self {
        let mut scanner = Self {
            cursor: PinnedCursor::new(segment, |segment| segment.index().front()),
            read_point,
        };
        scanner.skip_invisible();
        scanner
    }

    /// Moves back to the first visible cell.
    pub fn seek_to_first(&mut self) {
        self.cursor
            .with_dependent_mut(|segment, cursor| *cursor = segment.index().front());
        self.skip_invisible();
    }

    /// The segment scanned.
    pub fn segment(&self) -> &Arc<Segment> {
        self.cursor.borrow_owner()
    }

    /// The read point: cells with a larger sequence id are invisible.
    pub fn read_point(&self) -> u64 {
        self.read_point
    }

    /// Steps forward from the current entry to the first one visible at the read point.
    fn skip_invisible(&mut self) {
        let read_point = self.read_point;
        self.cursor.with_dependent_mut(|_, cursor| {
            loop {
                let at_end = match cursor.as_mut() {
                    None => return,
                    Some(entry) if entry.key().seq_id() <= read_point => return,
                    Some(entry) => !entry.move_next(),
                };
                if at_end {
                    *cursor = None;
                    return;
                }
            }
        });
    }

    fn is_positioned(&self) -> bool {
        self.cursor.borrow_dependent().is_some()
    }
}

impl KeyValueScanner for SegmentScanner {
    type Error = Infallible;

    fn peek(&self) -> Option<CellRef<'_>> {
        self.cursor
            .borrow_dependent()
            .as_ref()
            .map(|entry| entry.key().cell())
    }

    fn advance(&mut self) -> Result<(), Infallible> {
        self.cursor.with_dependent_mut(|_, cursor| {
            let at_end = cursor.as_mut().is_some_and(|entry| !entry.move_next());
            if at_end {
                *cursor = None;
            }
        });
        self.skip_invisible();
        Ok(())
    }

    fn seek(&mut self, key: &KeyView<'_>) -> Result<bool, Infallible> {
        let target = KeyBytes::new(key.as_bytes());
        self.cursor.with_dependent_mut(|segment, cursor| {
            *cursor = segment.index().lower_bound(Bound::Included(target));
        });
        self.skip_invisible();
        Ok(self.is_positioned())
    }

    /// Walks up to a few cells forward from the current one before falling back to
    /// [`Self::seek`]; lands on the same cell as `seek` would.
    fn reseek(&mut self, key: &KeyView<'_>) -> Result<bool, Infallible> {
        let target = key.as_bytes();
        let read_point = self.read_point;
        // Some(found) when the walk settled it, None when it should search instead.
        let settled = self.cursor.with_dependent_mut(|_, cursor| {
            for _ in 0..RESEEK_WALK {
                let at_end = match cursor.as_mut() {
                    None => return Some(false),
                    Some(entry) => {
                        let k = entry.key();
                        if k.seq_id() <= read_point && compare_keys(k.key(), target).is_ge() {
                            return Some(true);
                        }
                        !entry.move_next()
                    }
                };
                if at_end {
                    *cursor = None;
                    return Some(false);
                }
            }
            None
        });
        match settled {
            Some(found) => Ok(found),
            None => self.seek(key),
        }
    }
}

impl fmt::Debug for SegmentScanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentScanner")
            .field("segment", &self.segment().id())
            .field("read_point", &self.read_point)
            .field("current", &self.peek())
            .finish()
    }
}
