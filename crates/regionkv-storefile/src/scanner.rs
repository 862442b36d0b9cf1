//! `StoreFileScanner`: a forward cursor over one storefile's cells, implementing the
//! `KeyValueScanner` contract (seek, reseek, peek, advance).
//!
//! `seek` descends the index to the one data block that may hold the key; `advance` walks
//! data blocks in file order; `reseek` stays in the current block when the target is
//! there. Every key is validated as it is reached, so `peek` never hands out a malformed
//! key: a bad one is a corruption error naming the file and block.

use crate::block::{BlockCursor, BodyError};
use crate::error::{Error, Result};
use crate::index::BlockHandle;
use crate::reader::{BlockData, StoreFileReader};
use regionkv_cell::{CellRef, KeyValueScanner, KeyView, compare_keys};
use std::sync::Arc;

/// The current data block and the cursor in it.
#[derive(Debug)]
struct Current {
    handle: BlockHandle,
    data: BlockData,
    cursor: BlockCursor,
}

/// A scanner over one storefile.
#[derive(Debug)]
pub struct StoreFileScanner {
    reader: Arc<StoreFileReader>,
    current: Option<Current>,
}

impl StoreFileScanner {
    /// A scanner, not yet positioned (call `seek` or `seek_to_first`).
    pub fn new(reader: Arc<StoreFileReader>) -> Self {
        Self {
            reader,
            current: None,
        }
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

    fn load(&self, h: BlockHandle) -> Result<Current> {
        let data = self.reader.data_block(h)?;
        let cursor = BlockCursor::new(data.body()).map_err(|e| self.body_error(h, e))?;
        Ok(Current {
            handle: h,
            data,
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
                if let Err(e) = KeyView::parse(cur.cursor.key(body)) {
                    return Err(self.reader.corrupt(
                        cur.handle.offset,
                        format!(
                            "data block {}: bad key at body offset {}: {e}",
                            cur.handle.first_ordinal,
                            cur.cursor.entry_offset()
                        ),
                    ));
                }
                return Ok(true);
            }
            let h = cur.handle;
            match self.reader.next_data_block(h)? {
                None => {
                    self.current = None;
                    return Ok(false);
                }
                Some(next) => {
                    let mut c = self.load(next)?;
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
        self.current = None;
        let Some(h) = self.reader.data_block_by_ordinal(0)? else {
            return Ok(false);
        };
        let mut c = self.load(h)?;
        let body = c.data.body();
        c.cursor
            .seek_to_first(body)
            .map_err(|e| self.body_error(h, e))?;
        self.current = Some(c);
        self.settle()
    }

    fn seek_bytes(&mut self, key: &[u8]) -> Result<bool> {
        self.current = None;
        let Some(h) = self.reader.find_data_block(key)? else {
            return Ok(false);
        };
        let mut c = self.load(h)?;
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

impl KeyValueScanner for StoreFileScanner {
    type Error = Error;

    fn peek(&self) -> Option<CellRef<'_>> {
        let cur = self.current.as_ref()?;
        if !cur.cursor.valid() {
            return None;
        }
        let body = cur.data.body();
        // `settle` validated this key when the cursor reached it.
        let key = KeyView::parse(cur.cursor.key(body)).ok()?;
        Some(CellRef::new(key, cur.cursor.value(body)))
    }

    fn advance(&mut self) -> Result<()> {
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
        self.seek_bytes(key.as_bytes())
    }

    fn reseek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        self.reseek_bytes(key.as_bytes())
    }
}
