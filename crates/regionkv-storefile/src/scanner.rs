//! `StoreFileScanner`: a forward cursor over one storefile's cells, implementing the
//! `KeyValueScanner` contract (seek, reseek, peek, advance).
//!
//! `seek` descends the index to the one data block that may hold the key; `advance` walks
//! data blocks in file order; `reseek` stays in the current block when the target is
//! there. Every key is validated as it is reached, so `peek` never hands out a malformed
//! key: a bad one is a corruption error naming the file and block.
//!
//! On a half reader (a daughter's reference) the scanner sees only its half: seeks below a
//! top half's split key start at the split key, and a bottom half ends before it.
//!
//! A seek can be put off (`request_seek`, HBase's lazy seek): the scanner then stands at a
//! caller-given key that is no greater than any cell the read needs from the file, and
//! reads no block until `enforce_seek` (or any move) makes the seek real. A merge that
//! finds what it needs in newer sources first never loads this file's block.

use crate::block::{BlockCursor, BodyError};
use crate::error::{Error, Result};
use crate::index::BlockHandle;
use crate::reader::{BlockData, PartAt, StoreFileReader};
use regionkv_cell::{CellRef, KeyValueScanner, KeyView, compare_keys};
use std::sync::Arc;

/// The current data block (or part of one) and the cursor in it.
#[derive(Debug)]
struct Current {
    handle: BlockHandle,
    /// The part of the block `data` holds, and the block's number of parts (1 for a
    /// block not stored in parts).
    part: u32,
    parts: u32,
    data: BlockData,
    cursor: BlockCursor,
}

/// A scanner over one storefile.
#[derive(Debug)]
pub struct StoreFileScanner {
    reader: Arc<StoreFileReader>,
    current: Option<Current>,
    /// Cells with a higher sequence id are skipped (`with_read_point`).
    read_point: Option<u64>,
    /// A seek put off by `request_seek`: the key to seek to. While set, `current` is
    /// `None`, `peek` is `None` and `peek_key` is this key.
    delayed: Option<Vec<u8>>,
    /// Whether data blocks this scanner reads go into the block cache (see
    /// [`Self::cache_blocks`]).
    cache_blocks: bool,
}

impl StoreFileScanner {
    /// A scanner, not yet positioned (call `seek` or `seek_to_first`).
    pub fn new(reader: Arc<StoreFileReader>) -> Self {
        Self {
            reader,
            current: None,
            read_point: None,
            delayed: None,
            cache_blocks: true,
        }
    }

    /// Whether data blocks this scanner reads and does not find in the block cache are
    /// added to it (default true). HBase's compactions read with `cacheBlocks = false`
    /// (`StoreFileScanner.getScannersForCompaction`): a compaction reads every block of its
    /// inputs once, and caching them would evict the blocks Gets keep hitting. Cached
    /// blocks are still used, and index blocks are always cached, as in HBase.
    #[must_use]
    pub fn cache_blocks(mut self, cache_blocks: bool) -> Self {
        self.cache_blocks = cache_blocks;
        self
    }

    /// Puts off a seek to `key` (HBase's `StoreFileScanner.requestSeek`): no block is read
    /// now, `peek_key` answers `key` and `peek` answers `None` until [`Self::enforce_seek`]
    /// or any move (`advance`, `seek`, `reseek`) seeks for real.
    ///
    /// The caller's promise: no cell of the file before the first cell ≥ `key` matters to
    /// the read, so standing at `key` in a merge orders this file no later than any cell
    /// it could contribute. A get for named columns passes the first wanted column at the
    /// file's newest timestamp, in a file without family delete markers.
    pub fn request_seek(&mut self, key: Vec<u8>) {
        self.current = None;
        self.delayed = Some(key);
    }

    /// True while a seek is put off.
    pub fn seek_pending(&self) -> bool {
        self.delayed.is_some()
    }

    /// Performs a put-off seek (nothing when none is pending); `Ok(false)` when no cell at
    /// or after its key exists.
    pub fn enforce_seek(&mut self) -> Result<bool> {
        match self.delayed.take() {
            Some(key) => self.seek_bytes(&key),
            None => Ok(self.peek_key().is_some()),
        }
    }

    /// Hides cells whose sequence id is above `read_point` (HBase's StoreFileScanner
    /// read point). A read takes its read point before it opens its sources; a flush that
    /// commits in between puts cells written after that point into a file, and without
    /// this a read over several families could see one family before and another after
    /// a row mutation. `file_max_seq_id` is the file's highest sequence id: when it is at
    /// or below the read point nothing needs checking.
    #[must_use]
    pub fn with_read_point(mut self, read_point: u64, file_max_seq_id: u64) -> Self {
        self.read_point = (file_max_seq_id > read_point).then_some(read_point);
        self
    }

    /// The reader this scanner reads.
    pub fn reader(&self) -> &Arc<StoreFileReader> {
        &self.reader
    }

    fn body_error(&self, h: BlockHandle, e: BodyError) -> Error {
        self.reader.corrupt(
            h.offset,
            format!(
                "data block {}: {} at body offset {}",
                h.first_ordinal, e.reason, e.offset
            ),
        )
    }

    fn load(&self, h: BlockHandle, at: PartAt<'_>) -> Result<Current> {
        let p = self.reader.data_part_with(h, at, self.cache_blocks)?;
        let cursor = BlockCursor::new(p.data.body()).map_err(|e| self.body_error(h, e))?;
        Ok(Current {
            handle: h,
            // Parts per block are bounded by the block's bytes (≤ MAX_BODY_LEN).
            part: p.part as u32,
            parts: p.parts as u32,
            data: p.data,
            cursor,
        })
    }

    /// Validates the key under the cursor, moving to following blocks while the current
    /// one is exhausted.
    fn settle(&mut self) -> Result<bool> {
        loop {
            let Some(cur) = &self.current else {
                return Ok(false);
            };
            if cur.cursor.valid() {
                let body = cur.data.body();
                let seq_id = match KeyView::parse(cur.cursor.key(body)) {
                    Ok(k) => k.seq_id(),
                    Err(e) => {
                        return Err(self.reader.corrupt(
                            cur.handle.offset,
                            format!(
                                "data block {}: bad key at body offset {}: {e}",
                                cur.handle.first_ordinal,
                                cur.cursor.entry_offset()
                            ),
                        ));
                    }
                };
                if self.reader.includes_tags() {
                    let field = cur.cursor.value(body);
                    let problem = match split_tags(field) {
                        None => Some("a tags length past the entry's value".to_string()),
                        Some((_, tags)) => regionkv_cell::tag::validate_tags(tags)
                            .err()
                            .map(|e| e.to_string()),
                    };
                    if let Some(problem) = problem {
                        return Err(self.reader.corrupt(
                            cur.handle.offset,
                            format!(
                                "data block {}: bad tags at body offset {}: {problem}",
                                cur.handle.first_ordinal,
                                cur.cursor.entry_offset()
                            ),
                        ));
                    }
                }
                if let Some((split, false)) = self.reader.half_split_key()
                    && compare_keys(cur.cursor.key(body), split).is_ge()
                {
                    // The end of a bottom half.
                    self.current = None;
                    return Ok(false);
                }
                if self.read_point.is_some_and(|rp| seq_id > rp) {
                    // Written after the reader's read point (a flush that finished after
                    // the read began): invisible, as in the memstore.
                    let h = cur.handle;
                    if let Some(c) = &mut self.current
                        && let Err(e) = c.cursor.next(c.data.body())
                    {
                        return Err(self.body_error(h, e));
                    }
                    continue;
                }
                return Ok(true);
            }
            let h = cur.handle;
            let next = if cur.part + 1 < cur.parts {
                Some((h, PartAt::Index(cur.part as usize + 1)))
            } else {
                self.reader
                    .next_data_block(h)?
                    .map(|next| (next, PartAt::First))
            };
            match next {
                None => {
                    self.current = None;
                    return Ok(false);
                }
                Some((next, at)) => {
                    let mut c = self.load(next, at)?;
                    let body = c.data.body();
                    c.cursor
                        .seek_to_first(body)
                        .map_err(|e| self.body_error(next, e))?;
                    if !c.cursor.valid() {
                        return Err(self
                            .reader
                            .corrupt(next.offset, "empty data block".to_string()));
                    }
                    self.current = Some(c);
                }
            }
        }
    }

    /// Positions at the first cell of the file.
    pub fn seek_to_first(&mut self) -> Result<bool> {
        self.delayed = None;
        if let Some((split, true)) = self.reader.half_split_key() {
            let split = split.to_vec();
            return self.seek_bytes(&split);
        }
        self.current = None;
        let Some(h) = self.reader.data_block_by_ordinal(0)? else {
            return Ok(false);
        };
        let mut c = self.load(h, PartAt::First)?;
        let body = c.data.body();
        c.cursor
            .seek_to_first(body)
            .map_err(|e| self.body_error(h, e))?;
        self.current = Some(c);
        self.settle()
    }

    fn seek_bytes(&mut self, key: &[u8]) -> Result<bool> {
        // A top half starts at its split key.
        if let Some((split, true)) = self.reader.half_split_key()
            && compare_keys(key, split).is_lt()
        {
            let reader = self.reader.clone();
            return self.seek_whole(reader.half_split_key().map_or(key, |(s, _)| s));
        }
        self.seek_whole(key)
    }

    fn seek_whole(&mut self, key: &[u8]) -> Result<bool> {
        self.current = None;
        let Some(h) = self.reader.find_data_block(key)? else {
            return Ok(false);
        };
        let mut c = self.load(h, PartAt::Key(key))?;
        let body = c.data.body();
        c.cursor
            .seek_ge(body, key)
            .map_err(|e| self.body_error(h, e))?;
        self.current = Some(c);
        self.settle()
    }

    fn reseek_bytes(&mut self, key: &[u8]) -> Result<bool> {
        let Some(cur) = &mut self.current else {
            return Ok(false);
        };
        let body = cur.data.body();
        if cur.cursor.valid() && compare_keys(cur.cursor.key(body), key).is_ge() {
            return Ok(true);
        }
        let h = cur.handle;
        let r = cur.cursor.seek_ge(body, key);
        if let Err(e) = r {
            return Err(self.body_error(h, e));
        }
        if cur.cursor.valid() {
            return self.settle();
        }
        // Past the end of this block: the key lives in a later one.
        self.seek_bytes(key)
    }
}

/// Splits a data entry's value field of a file with tags, `value | tags | tags_len:u16`,
/// into value and tags; `None` when the length does not fit.
fn split_tags(field: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = field.len().checked_sub(2)?;
    let tags_len = u16::from_be_bytes([field[n], field[n + 1]]) as usize;
    let at = n.checked_sub(tags_len)?;
    Some((&field[..at], &field[at..n]))
}

impl KeyValueScanner for StoreFileScanner {
    type Error = Error;

    fn peek(&self) -> Option<CellRef<'_>> {
        let cur = self.current.as_ref()?;
        if !cur.cursor.valid() {
            return None;
        }
        let body = cur.data.body();
        // `settle` validated this key (and tags) when the cursor reached it.
        let key = KeyView::parse(cur.cursor.key(body)).ok()?;
        let field = cur.cursor.value(body);
        if self.reader.includes_tags() {
            let (value, tags) = split_tags(field)?;
            Some(CellRef::with_tags(key, value, tags))
        } else {
            Some(CellRef::new(key, field))
        }
    }

    fn peek_key(&self) -> Option<&[u8]> {
        let Some(cur) = self.current.as_ref() else {
            // A put-off seek stands at its key.
            return self.delayed.as_deref();
        };
        if !cur.cursor.valid() {
            return None;
        }
        // `settle` validated this key when the cursor reached it.
        Some(cur.cursor.key(cur.data.body()))
    }

    fn advance(&mut self) -> Result<()> {
        if self.delayed.is_some() {
            // Moving past the put-off key is making the seek real.
            return self.enforce_seek().map(|_| ());
        }
        if let Some(cur) = &mut self.current {
            let h = cur.handle;
            let r = cur.cursor.next(cur.data.body());
            if let Err(e) = r {
                return Err(self.body_error(h, e));
            }
        }
        self.settle().map(|_| ())
    }

    fn seek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        self.delayed = None;
        self.seek_bytes(key.as_bytes())
    }

    fn reseek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        if let Some(standing) = self.delayed.take() {
            // Not positioned yet: a reseek is a seek, and never to before where the
            // scanner stands (a reseek moves forward only).
            let target = if compare_keys(key.as_bytes(), &standing).is_lt() {
                &standing[..]
            } else {
                key.as_bytes()
            };
            return self.seek_bytes(target);
        }
        self.reseek_bytes(key.as_bytes())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod half_tests {
    //! Half readers (daughters' references) against the whole file, with blocks small
    //! enough that the split row falls inside, at the start of, and outside blocks.
    use super::*;
    use crate::reader::{Half, ReaderOptions};
    use crate::writer::{StoreFileWriter, StoreFileWriterOptions};
    use regionkv_cell::{Cell, OwnedKey};
    use regionkv_fs::{Fs, MemFs};
    use std::path::Path;

    fn row(i: u32) -> Vec<u8> {
        format!("row{i:04}").into_bytes()
    }

    fn write(fs: &MemFs, index_block_size: usize) {
        let options = StoreFileWriterOptions {
            block_size: 1024,
            index_block_size,
            ..Default::default()
        };
        let mut w =
            StoreFileWriter::new(fs.create_new(Path::new("/sf")).unwrap(), options).unwrap();
        for i in 0..300 {
            for q in [&b"a"[..], b"b", b"c"] {
                let c = Cell::put(&row(i * 2), b"f", q, 7, b"value-value").unwrap();
                w.append(c.as_cell_ref()).unwrap();
            }
        }
        w.finish().unwrap();
    }

    fn open(fs: &MemFs, half: Option<Half>) -> Arc<StoreFileReader> {
        let r =
            StoreFileReader::open(fs, Path::new("/sf"), 1, None, ReaderOptions::default()).unwrap();
        Arc::new(match half {
            Some(h) => r.with_half(h).unwrap(),
            None => r,
        })
    }

    fn rows_from(s: &mut StoreFileScanner) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        while let Some(c) = s.peek() {
            if out.last().map(Vec::as_slice) != Some(c.row()) {
                out.push(c.row().to_vec());
            }
            s.advance().unwrap();
        }
        out
    }

    #[test]
    fn halves_partition_the_file_at_every_kind_of_split_row() {
        for index_block_size in [64, 64 * 1024] {
            let fs = MemFs::new();
            write(&fs, index_block_size);
            let mut whole = StoreFileScanner::new(open(&fs, None));
            whole.seek_to_first().unwrap();
            let all = rows_from(&mut whole);
            assert_eq!(all.len(), 300);
            // An existing row, a row between two rows, before the first and after the last.
            for split in [row(200), row(201), b"a".to_vec(), b"z".to_vec(), row(0)] {
                let bottom = open(
                    &fs,
                    Some(Half {
                        split_row: split.clone(),
                        top: false,
                    }),
                );
                let top = open(
                    &fs,
                    Some(Half {
                        split_row: split.clone(),
                        top: true,
                    }),
                );
                let mut b = StoreFileScanner::new(bottom.clone());
                b.seek_to_first().unwrap();
                let mut t = StoreFileScanner::new(top.clone());
                t.seek_to_first().unwrap();
                let (bs, ts) = (rows_from(&mut b), rows_from(&mut t));
                let want_b: Vec<_> = all.iter().filter(|r| **r < split).cloned().collect();
                let want_t: Vec<_> = all.iter().filter(|r| **r >= split).cloned().collect();
                assert_eq!(bs, want_b, "bottom of {split:?}");
                assert_eq!(ts, want_t, "top of {split:?}");
                // Seeks below a top half land on its first row; seeks past a bottom half's
                // end find nothing.
                let k = OwnedKey::first_on_row(&row(10)).unwrap();
                t.seek(&k.view()).unwrap();
                let first_at_10 = want_t.iter().find(|r| **r >= row(10)).cloned();
                assert_eq!(t.peek().map(|c| c.row().to_vec()), first_at_10);
                let k = OwnedKey::first_on_row(&row(500)).unwrap();
                b.seek(&k.view()).unwrap();
                let expect = if split > row(500) {
                    Some(row(500))
                } else {
                    None
                };
                assert_eq!(b.peek().map(|c| c.row().to_vec()), expect);
                // Reversed-scan lookups stay inside the half.
                assert_eq!(
                    bottom.last_row_before(None).unwrap(),
                    want_b.last().cloned()
                );
                assert_eq!(top.last_row_before(None).unwrap(), want_t.last().cloned());
                let k = OwnedKey::first_on_row(&row(100)).unwrap();
                let before_100 = all.iter().rfind(|r| **r < row(100)).cloned();
                assert_eq!(
                    top.last_row_before(Some(k.as_bytes())).unwrap(),
                    before_100.clone().filter(|r| *r >= split)
                );
                assert_eq!(
                    bottom.last_row_before(Some(k.as_bytes())).unwrap(),
                    before_100.filter(|r| *r < split)
                );
                // Row filters.
                assert_eq!(bottom.may_contain_row(&row(2)), row(2) < split);
                assert_eq!(top.may_contain_row(&row(2)), row(2) >= split);
                assert!(!bottom.may_contain_rows(&split, b""));
                assert!(bottom.midkey().unwrap().is_none() && top.midkey().unwrap().is_none());
            }
        }
    }

    #[test]
    fn a_put_off_seek_stands_at_its_key_until_a_move_makes_it_real() {
        let fs = MemFs::new();
        write(&fs, 64 * 1024);
        let reader = open(&fs, None);
        let key_at = |r: u32, q: &[u8]| {
            regionkv_cell::key::encode_key(
                &row(r),
                b"f",
                q,
                9,
                regionkv_cell::CellType::Maximum,
                u64::MAX,
            )
            .unwrap()
        };
        let cell =
            |s: &StoreFileScanner| s.peek().map(|c| (c.row().to_vec(), c.qualifier().to_vec()));
        // Requested: no cell, the key as the merge position, nothing read yet.
        let mut s = StoreFileScanner::new(reader.clone());
        s.request_seek(key_at(20, b"b"));
        assert!(s.seek_pending() && s.peek().is_none());
        assert_eq!(s.peek_key(), Some(&key_at(20, b"b")[..]));
        assert!(s.enforce_seek().unwrap());
        assert!(!s.seek_pending());
        assert_eq!(cell(&s), Some((row(20), b"b".to_vec())));
        // Enforcing again is a no-op.
        assert!(s.enforce_seek().unwrap());
        assert_eq!(cell(&s), Some((row(20), b"b".to_vec())));
        // `advance` at a put-off seek moves to the first real cell, not past it.
        s.request_seek(key_at(21, b"c"));
        s.advance().unwrap();
        assert_eq!(cell(&s), Some((row(22), b"a".to_vec())), "row 21 is absent");
        // `reseek` moves forward from the put-off key, never back; `seek` goes anywhere.
        s.request_seek(key_at(40, b"a"));
        s.reseek(&KeyView::parse(&key_at(30, b"c")).unwrap())
            .unwrap();
        assert_eq!(cell(&s), Some((row(40), b"a".to_vec())));
        s.request_seek(key_at(40, b"a"));
        s.reseek(&KeyView::parse(&key_at(50, b"b")).unwrap())
            .unwrap();
        assert_eq!(cell(&s), Some((row(50), b"b".to_vec())));
        s.request_seek(key_at(40, b"a"));
        s.seek(&KeyView::parse(&key_at(10, b"a")).unwrap()).unwrap();
        assert_eq!(cell(&s), Some((row(10), b"a".to_vec())));
        s.request_seek(key_at(40, b"a"));
        s.seek_to_first().unwrap();
        assert_eq!(cell(&s), Some((row(0), b"a".to_vec())));
        // Past the last cell: the real seek finds nothing.
        s.request_seek(key_at(999, b"a"));
        assert!(!s.enforce_seek().unwrap());
        assert!(s.peek_key().is_none());
    }
}
